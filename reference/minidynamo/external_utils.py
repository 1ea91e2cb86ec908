"""Wrapper frames that compiled code runs (Dynamo's torch/_dynamo/external_utils.py).

`wrap_inline(module)` is the frame a compiled torch.nn module is converted through: the
module's own `forward` is library code, whose frames are never converted, so the frame
converted is this wrapper's, which calls the module; the call (forward hooks,
parametrizations and all) is inlined into it. As in Dynamo, every wrapper shares one code
object: its cache entries tell the modules apart by their guards on ``L['fn']``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def wrap_inline(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A function calling `fn` with its arguments, in a frame the tracer converts."""

    def inner(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return inner


def apply_wraps(decorator: Callable[..., Any], wrapped: Any, wrapper: Callable) -> Callable:
    """``decorator(wrapped)(wrapper)``: `functools.wraps` applied as the program did."""
    return decorator(wrapped)(wrapper)
