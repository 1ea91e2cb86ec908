"""Polyfills of builtins and builtin methods over values the tracer knows only
symbolically (tensors in `sorted(key=)`, `any`, `all`; sets and dicts of traced items)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def sorted(  # noqa: A001 (it stands for the builtin)
    iterable: Iterable, *, key: Callable[[Any], Any] | None = None, reverse: bool = False
) -> list:
    """A stable merge sort, comparing with ``<`` only, as `list.sort` does."""
    items = list(iterable)
    keys = [item if key is None else key(item) for item in items]
    return [items[i] for i in _merge_sort(keys, list(range(len(items))), reverse)]


def _merge_sort(keys: list, order: list[int], reverse: bool) -> list[int]:
    if len(order) <= 1:
        return order
    middle = len(order) // 2
    left = _merge_sort(keys, order[:middle], reverse)
    right = _merge_sort(keys, order[middle:], reverse)
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        a, b = keys[left[i]], keys[right[j]]
        # The right item goes first only when it is strictly before the left one.
        if (a < b) if reverse else (b < a):
            merged.append(right[j])
            j += 1
        else:
            merged.append(left[i])
            i += 1
    return merged + left[i:] + right[j:]


def any(iterable: Iterable) -> bool:  # noqa: A001
    for item in iterable:
        if item:
            return True
    return False


def all(iterable: Iterable) -> bool:  # noqa: A001
    for item in iterable:
        if not item:
            return False
    return True


def length_hint(obj: Any, default: int = 0) -> int:
    if hasattr(type(obj), "__len__"):
        return len(obj)
    hint = getattr(type(obj), "__length_hint__", None)
    if hint is None:
        return default
    value = hint(obj)
    return default if value is NotImplemented else value


def dict_fromkeys(iterable: Iterable, value: Any = None) -> dict:
    result = {}
    for key in iterable:
        result[key] = value
    return result


def dict_update(self: dict, other: Any = (), /, **kwargs: Any) -> None:
    """``d.update(mapping)`` reads ``keys()`` and items; ``d.update(pairs)`` unpacks pairs."""
    if hasattr(other, "keys"):
        for key in other.keys():
            self[key] = other[key]
    else:
        for key, value in other:
            self[key] = value
    for key in kwargs:
        self[key] = kwargs[key]


def set_union(self: set, *others: Iterable) -> set:
    result = set(self)
    for other in others:
        for item in other:
            result.add(item)
    return result


def set_update(self: set, *others: Iterable) -> None:
    for other in others:
        for item in other:
            self.add(item)


def set_intersection(self: set, *others: Iterable) -> set:
    result = set(self)
    for other in others:
        kept = set()
        for item in other:
            if item in result:
                kept.add(item)
        result = kept
    return result


def set_difference(self: set, *others: Iterable) -> set:
    result = set(self)
    for other in others:
        for item in other:
            result.discard(item)
    return result


def set_symmetric_difference(self: set, other: Iterable) -> set:
    result = set(self)
    for item in set(other):
        if item in self:
            result.discard(item)
        else:
            result.add(item)
    return result


def set_isdisjoint(self: set, other: Iterable) -> bool:
    for item in other:
        if item in self:
            return False
    return True


def set_issubset(self: set, other: Iterable) -> bool:
    container = set(other)
    for item in self:
        if item not in container:
            return False
    return True


def set_issuperset(self: set, other: Iterable) -> bool:
    for item in other:
        if item not in self:
            return False
    return True
