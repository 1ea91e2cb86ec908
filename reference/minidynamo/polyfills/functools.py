"""Polyfills of `functools`' C functions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def reduce(function: Callable[[Any, Any], Any], iterable: Iterable, *initial: Any) -> Any:
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    started = len(initial) == 1
    value = initial[0] if started else None
    for item in iterable:
        if started:
            value = function(value, item)
        else:
            value = item
            started = True
    if not started:
        raise TypeError("reduce() of empty iterable with no initial value")
    return value
