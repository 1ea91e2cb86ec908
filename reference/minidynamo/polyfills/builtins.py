"""Polyfills of builtins and builtin methods over values the tracer knows only
symbolically (tensors in `sorted(key=)`, `any`, `all`; sets and dicts of traced items)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
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


_NO_DEFAULT = object()


def _extreme(args: tuple, key: Callable | None, default: Any, wanted: str) -> Any:
    """min (`wanted` "<") or max (">"): the first item no other beats, as the builtins."""
    items = list(args[0]) if len(args) == 1 else list(args)
    if not items:
        if default is _NO_DEFAULT:
            raise ValueError(f"{'min' if wanted == '<' else 'max'}() iterable argument is empty")
        return default
    best = items[0]
    best_key = best if key is None else key(best)
    for item in items[1:]:
        item_key = item if key is None else key(item)
        if (item_key < best_key) if wanted == "<" else (item_key > best_key):
            best, best_key = item, item_key
    return best


def min(*args: Any, key: Callable | None = None, default: Any = _NO_DEFAULT) -> Any:  # noqa: A001
    return _extreme(args, key, default, "<")


def max(*args: Any, key: Callable | None = None, default: Any = _NO_DEFAULT) -> Any:  # noqa: A001
    return _extreme(args, key, default, ">")


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


def prod(iterable: Iterable, /, *, start: Any = 1) -> Any:
    """`math.prod`: the product from the left, so sizes that are symbols stay symbols."""
    result = start
    for item in iterable:
        result = result * item
    return result


def length_hint(obj: Any, default: int = 0) -> int:
    if hasattr(type(obj), "__len__"):
        return len(obj)
    hint = getattr(type(obj), "__length_hint__", None)
    if hint is None:
        return default
    value = hint(obj)
    return default if value is NotImplemented else value


def callable_iterator(fn: Callable[[], Any], sentinel: Any, /) -> Iterator:
    """``iter(fn, sentinel)``: ``fn()`` until it returns a value equal to the sentinel."""
    if not callable(fn):
        raise TypeError("iter(v, w): v must be callable")
    return _call_until(fn, sentinel)


def _call_until(fn: Callable[[], Any], sentinel: Any) -> Iterator:
    while (value := fn()) != sentinel:
        yield value


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


def dict_or(self: dict, other: Any, /) -> dict:
    """``a | b`` of dicts: a new dict, `b`'s values winning."""
    if not isinstance(other, dict):
        return NotImplemented
    result = dict(self)
    for key in other:
        result[key] = other[key]
    return result


def dict_ior(self: dict, other: Any, /) -> dict:
    """``a |= b``: `a` itself, updated (from any mapping or pairs, as `update`)."""
    dict_update(self, other)
    return self


def namedtuple_replace(self: tuple, /, **changes: Any) -> tuple:
    cls = type(self)
    values = [changes.pop(name, value) for name, value in zip(cls._fields, self)]  # noqa: B905
    if changes:
        raise ValueError(f"Got unexpected field names: {list(changes)!r}")
    return cls(*values)


def namedtuple_asdict(self: tuple) -> dict:
    return dict(zip(type(self)._fields, self))  # noqa: B905


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


def list_sort(
    self: list, *, key: Callable[[Any], Any] | None = None, reverse: bool = False
) -> None:
    """`list.sort(key=...)`: the stable sort above, stored back into the same list."""
    self[:] = sorted(self, key=key, reverse=reverse)


def set_copy(self: set) -> set:
    return set(self)


def set_intersection_update(self: set, *others: Iterable) -> None:
    kept = set_intersection(self, *others)
    for item in list(self):
        if item not in kept:
            self.discard(item)


def set_difference_update(self: set, *others: Iterable) -> None:
    for other in others:
        for item in other:
            self.discard(item)


def set_symmetric_difference_update(self: set, other: Iterable) -> None:
    for item in set(other):
        if item in self:
            self.discard(item)
        else:
            self.add(item)
