"""Knobs of the tracer (DESIGN.md module map: `config`), read at the time they are used.
The knobs of the recompile policy carry the names of Dynamo's (torch._dynamo.config);
shapes.py and convert_frame.py hold the table that reads them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

# Seed "Guards": each failed guard check recompiles; after this many entries per code
# object, a call that misses the cache runs uncompiled, and so do the frames it calls
# (convert_frame.past_recompile_limit); under fullgraph=True it raises instead.
recompile_limit: int = 8

# Sizes and ints of inputs are constants in a frame's first compile; False: symbols from
# the start (as `dynamic=True`).
assume_static_by_default: bool = True

# A size or int that changed between compiles is traced as a symbol from then on;
# False: every change recompiles, still static (as `dynamic=False`).
automatic_dynamic_shapes: bool = True

# Python floats are constants, guarded on their value; False (Dynamo's default): a float
# that changed between compiles is a float64 0-dim tensor input of the graph, read back
# as a SymFloat (`l_f_.item()`), as an int turns into a SymInt (shapes.py, `Dynamism`).
specialize_float: bool = False

# Log the Python traceback of internal failures, not only their one-line reason.
verbose: bool = False

# How deep calls into user functions are inlined before tracing gives up.
inline_depth_limit: int = 32

# No trace runs unbounded. A frame's trace (with the functions it inlines) that
# runs more instructions than this stops; the frame runs eagerly (fullgraph=True raises).
trace_instruction_limit: int = 300_000

@contextlib.contextmanager
def patch(**changes: object) -> Iterator[None]:
    """Set knobs for the duration of a `with` block (as torch._dynamo.config.patch)."""
    namespace = globals()
    unknown = [name for name in changes if name not in _KNOBS]
    if unknown:
        raise AttributeError(f"no minidynamo.config knob named {', '.join(unknown)}")
    saved = {name: namespace[name] for name in changes}
    namespace.update(changes)
    try:
        yield
    finally:
        namespace.update(saved)


_KNOBS = frozenset(
    name for name, value in dict(globals()).items() if isinstance(value, (bool, int))
    and not name.startswith("_")
)
