"""minidynamo: a readable reference implementation of TorchDynamo.

The public API lives here (see DESIGN.md, "Module map").
"""
