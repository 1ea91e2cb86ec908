"""Backends by name (DESIGN.md "Backend contract": ``backend(gm, example_inputs) ->
callable``, torch.compile's). "eager" runs the FX graph as is; "triton" is
`minidynamo.backends.triton.triton_backend`, imported when first asked for."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import torch.fx

Backend = Callable[[torch.fx.GraphModule, list[Any]], Callable[..., Any]]


def eager(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    """Run the captured graph with PyTorch's eager kernels."""
    return gm.forward


_BACKENDS: dict[str, Backend] = {"eager": eager}
# Backends in their own modules, imported on first use: name -> (module, attribute).
_LAZY_BACKENDS = {"triton": ("minidynamo.backends.triton", "triton_backend")}


def register_backend(name: str, backend: Backend) -> None:
    _BACKENDS[name] = backend


def list_backends() -> list[str]:
    return sorted({*_BACKENDS, *_LAZY_BACKENDS})


def lookup_backend(backend: str | Backend) -> Backend:
    """A backend callable from a name or a callable; TypeError/ValueError otherwise."""
    if isinstance(backend, str):
        if backend in _LAZY_BACKENDS and backend not in _BACKENDS:
            module, attribute = _LAZY_BACKENDS[backend]
            _BACKENDS[backend] = getattr(importlib.import_module(module), attribute)
        if backend not in _BACKENDS:
            raise ValueError(
                f"unknown backend {backend!r}; known backends: {', '.join(list_backends())}"
            )
        return _BACKENDS[backend]
    if not callable(backend):
        raise TypeError(
            "backend must be a backend name or a callable backend(gm, example_inputs), "
            f"not {type(backend).__name__}"
        )
    return backend
