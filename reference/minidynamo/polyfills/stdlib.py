"""Polyfills of small standard-library functions whose real versions the trace rules
skip (their modules are library code): `typing.cast`, `os.getenv`."""

from __future__ import annotations

import os
from typing import Any


def cast(typ: Any, val: Any) -> Any:
    """`typing.cast` returns its value unchanged."""
    return val


def getenv(key: str, default: Any = None) -> Any:
    return os.environ.get(key, default)
