"""Polyfills of small standard-library functions whose real versions the trace rules
skip (their modules are library code): `typing.cast`, `os.getenv`, and the C helper
of `collections.Counter`."""

from __future__ import annotations

import os
from collections.abc import Iterable, MutableMapping
from typing import Any


def cast(typ: Any, val: Any) -> Any:
    """`typing.cast` returns its value unchanged."""
    return val


def getenv(key: str, default: Any = None) -> Any:
    return os.environ.get(key, default)


def count_elements(mapping: MutableMapping, iterable: Iterable) -> None:
    """`collections._count_elements`: what `Counter(iterable)` and `update` count with."""
    for elem in iterable:
        mapping[elem] = mapping.get(elem, 0) + 1
