"""The conformance suite: an executable spec that any Dynamo-like implementation can run.

See conformance/README.md; `pytest conformance --impl NAME` runs it.
"""
