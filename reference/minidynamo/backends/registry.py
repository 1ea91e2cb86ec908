"""Backends by name (docs/design.md "Backend contract": ``backend(gm, example_inputs) ->
callable``, torch.compile's). "eager" runs the FX graph as is; "triton" is
`minidynamo.backends.triton.triton_backend`, imported when first asked for. Any other name
of torch.compile's ("aot_eager", "inductor", ...) is torch's own backend, looked up in
torch's registry only when it is named (nothing of torch._dynamo is imported otherwise)."""

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
# torch.compile's backends, by the name torch gives them.
_TORCH_REGISTRY = "torch._dynamo.backends.registry"
_TORCH_BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "cudagraphs", "inductor")


def register_backend(name: str, backend: Backend) -> None:
    _BACKENDS[name] = backend


def list_backends() -> list[str]:
    return sorted({*_BACKENDS, *_LAZY_BACKENDS, *_TORCH_BACKENDS})


def lookup_backend(backend: str | Backend) -> Backend:
    """A backend callable from a name or a callable; TypeError/ValueError otherwise."""
    if isinstance(backend, str):
        if backend in _LAZY_BACKENDS and backend not in _BACKENDS:
            module, attribute = _LAZY_BACKENDS[backend]
            _BACKENDS[backend] = getattr(importlib.import_module(module), attribute)
        if backend in _TORCH_BACKENDS and backend not in _BACKENDS:
            _BACKENDS[backend] = importlib.import_module(_TORCH_REGISTRY).lookup_backend(backend)
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
