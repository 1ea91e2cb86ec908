"""Compiler backends behind the frontend: `eager` and (lazily) `triton`."""

from minidynamo.backends.registry import eager, list_backends, lookup_backend, register_backend

__all__ = ["eager", "list_backends", "lookup_backend", "register_backend"]
