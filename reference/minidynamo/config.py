"""Knobs of the tracer (DESIGN.md module map: `config`), read at the time they are used."""

from __future__ import annotations

# Seed "Guards": each failed guard check recompiles; after this many entries per code
# object the frame runs eagerly with a warning.
recompile_limit: int = 8

# Log the Python traceback of internal failures, not only their one-line reason.
verbose: bool = False

# How deep calls into user functions are inlined before tracing gives up.
inline_depth_limit: int = 32

# Issue 19: no trace runs unbounded. A frame's trace (with the functions it inlines) that
# runs more instructions than this stops; the frame runs eagerly (fullgraph=True raises).
trace_instruction_limit: int = 300_000
