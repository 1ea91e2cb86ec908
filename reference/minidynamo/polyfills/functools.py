"""Polyfills of `functools`' C functions."""

from __future__ import annotations

import functools
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


class _CmpKey:
    """The key `cmp_to_key(cmp)` makes of one item: compared through `cmp`, unhashable."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, cmp: Callable[[Any, Any], int], obj: Any) -> None:
        self.cmp = cmp
        self.obj = obj

    def __lt__(self, other: _CmpKey) -> bool:
        return self.cmp(self.obj, other.obj) < 0

    def __gt__(self, other: _CmpKey) -> bool:
        return self.cmp(self.obj, other.obj) > 0

    def __le__(self, other: _CmpKey) -> bool:
        return self.cmp(self.obj, other.obj) <= 0

    def __ge__(self, other: _CmpKey) -> bool:
        return self.cmp(self.obj, other.obj) >= 0

    def __eq__(self, other: object) -> bool:
        return self.cmp(self.obj, other.obj) == 0  # type: ignore[attr-defined]


def cmp_to_key(cmp: Callable[[Any, Any], int]) -> Callable[[Any], _CmpKey]:
    def key(obj: Any) -> _CmpKey:
        return _CmpKey(cmp, obj)

    return key


def update_wrapper(
    wrapper: Any,
    wrapped: Any,
    assigned: Iterable[str] = functools.WRAPPER_ASSIGNMENTS,
    updated: Iterable[str] = functools.WRAPPER_UPDATES,
) -> Any:
    """As functools': the names are copied, and the wrapped function's ``__dict__`` one
    attribute at a time (a traced function's ``__dict__`` is read-only)."""
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            pass
        else:
            setattr(wrapper, attr, value)
    for attr in updated:
        if attr == "__dict__":
            for name, value in getattr(wrapped, attr, {}).items():
                setattr(wrapper, name, value)
        else:
            getattr(wrapper, attr).update(getattr(wrapped, attr, {}))
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(
    wrapped: Any,
    assigned: Iterable[str] = functools.WRAPPER_ASSIGNMENTS,
    updated: Iterable[str] = functools.WRAPPER_UPDATES,
) -> Callable[[Any], Any]:
    def decorator(wrapper: Any) -> Any:
        return update_wrapper(wrapper, wrapped, assigned, updated)

    return decorator
