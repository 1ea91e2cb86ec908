"""Installing the PEP 523 frame hook: the first step of DESIGN.md's data flow.

The C extension `_frame_hook` calls ``callback(code, args, globals, builtins, closure)``
at the entry of each new function frame (seed: "PEP 523: CPython's frame evaluation
API"). The callback returns None to run the frame as usual, or a callable that runs
*instead*, as ``replacement(*args)``: ``args`` holds the parameter values in
co_varnames order (positional, keyword-only, the ``*args`` tuple, the ``**kwargs`` dict).

`flat_code` and `make_replacement` give any code object that flat signature, keeping
its local-variable layout, so bytecode transformed from the original runs as is.
"""

from __future__ import annotations

import atexit
import types
from collections.abc import Callable

from minidynamo._frame_hook import is_skipped, set_callback, skip

__all__ = [
    "FrameCallback",
    "flat_code",
    "is_skipped",
    "make_replacement",
    "param_count",
    "set_callback",
    "skip",
]

FrameCallback = Callable[
    [types.CodeType, tuple, dict, dict, "tuple | None"], "Callable[..., object] | None"
]

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08


def param_count(code: types.CodeType) -> int:
    """How many values the hook passes in ``args`` for a frame of `code`."""
    return (
        code.co_argcount
        + code.co_kwonlyargcount
        + bool(code.co_flags & CO_VARARGS)
        + bool(code.co_flags & CO_VARKEYWORDS)
    )


def flat_code(code: types.CodeType) -> types.CodeType:
    """`code` with every parameter made plain positional (same local layout)."""
    return code.replace(
        co_argcount=param_count(code),
        co_posonlyargcount=0,
        co_kwonlyargcount=0,
        co_flags=code.co_flags & ~(CO_VARARGS | CO_VARKEYWORDS),
    )


def make_replacement(
    code: types.CodeType,
    globals: dict,
    closure: tuple | None,
    name: str | None = None,
) -> types.FunctionType:
    """A function running `code` that accepts the hook's flat ``args`` tuple.

    Its own code object is skip-marked, so calling it does not re-enter the
    callback; calls it makes to other functions are still offered to it."""
    fn = types.FunctionType(flat_code(code), globals, name, None, closure)
    skip(fn.__code__)
    return fn


# Frames run during interpreter shutdown must not reach a half-torn-down callback.
atexit.register(set_callback, None)
