"""Polyfills: plain-Python versions of C builtins and stdlib functions (`itertools.chain`,
`functools.reduce`, `sorted(key=)`, set algebra ...), which the tracer inlines like user
code in place of the originals it cannot enter (DESIGN.md "What is traced", rule 4).
`trace_rules.POLYFILLS` says which original each one stands for. They import nothing of
the tracer: each must behave exactly as its original does in eager Python.
"""
