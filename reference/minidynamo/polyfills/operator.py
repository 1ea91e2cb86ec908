"""Polyfills of `operator`'s callable factories: `itemgetter`, `attrgetter` and
`methodcaller` made in a traced function become plain closures doing what the C objects
do when called (`sorted(pairs, key=itemgetter(1))`, `attrgetter("a", "b")(obj)`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def itemgetter(item: Any, /, *items: Any) -> Callable[[Any], Any]:
    if not items:

        def get_one(obj: Any) -> Any:
            return obj[item]

        return get_one
    keys = (item, *items)

    def get_many(obj: Any) -> tuple:
        return tuple(obj[key] for key in keys)

    return get_many


def _resolve(obj: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        obj = getattr(obj, name)
    return obj


def attrgetter(attr: str, /, *attrs: str) -> Callable[[Any], Any]:
    if not attrs:

        def get_one(obj: Any) -> Any:
            return _resolve(obj, attr)

        return get_one
    names = (attr, *attrs)

    def get_many(obj: Any) -> tuple:
        return tuple(_resolve(obj, name) for name in names)

    return get_many


def methodcaller(name: str, /, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    def call(obj: Any) -> Any:
        return getattr(obj, name)(*args, **kwargs)

    return call
