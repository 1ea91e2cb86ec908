"""The suite's small interface to an implementation, and the registry of adapters.

An adapter compiles, resets, marks dims dynamic and reports `Observations` after a run;
whatever it cannot report is NOT_AVAILABLE. `pytest conformance --impl SPEC` loads one:
`package.module:factory` (any importable factory), the name of an entry point of the
group `minidynamo.conformance_adapters` (an installed implementation's), or the name of a
module of conformance/adapters/ with a `make_adapter()`.
"""

from __future__ import annotations

import abc
import contextlib
import importlib
import importlib.metadata
from collections.abc import Callable
from typing import Any

import torch

from conformance.observations import Observations


class AdapterUnavailable(RuntimeError):
    """The implementation cannot run at all (e.g. its compile entry point is missing)."""


class Adapter(abc.ABC):
    """One implementation under test (see conformance/README.md, "Writing an adapter")."""

    name: str
    golden: bool = False  # observations are in our text formats: compare golden snapshots

    @abc.abstractmethod
    def compile(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """`fn` compiled; options are `fullgraph` and `dynamic`, as torch.compile's."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Forget every compiled frame and every observation (before each case)."""

    @abc.abstractmethod
    def observations(self) -> Observations:
        """What was observed since the last reset."""

    def configured(self, knobs: dict[str, Any]) -> contextlib.AbstractContextManager[None]:
        """A context in which the config knobs `knobs` (Dynamo's names: `recompile_limit`,
        `automatic_dynamic_shapes`, `assume_static_by_default`, `specialize_float`) hold.
        An implementation without knobs runs as it is (its counts may then differ)."""
        return contextlib.nullcontext()

    def mark_dynamic(self, tensor: torch.Tensor, dim: int) -> None:
        """Mark `dim` of `tensor` dynamic before it is passed to a compiled function."""
        raise NotImplementedError(f"{self.name} cannot mark dims dynamic")

    def is_compile_error(self, error: BaseException) -> bool:
        """Whether `error` is the implementation refusing to compile (fullgraph breaks, a
        recompile limit hit under fullgraph)."""
        return False


ENTRY_POINT_GROUP = "minidynamo.conformance_adapters"


def is_builtin(spec: str) -> bool:
    """Whether `spec` names one of this package's adapters (whose expectation files live
    in conformance/expectations/)."""
    return ":" not in spec and spec not in _entry_points() and _builtin_module(spec) is not None


def load(spec: str) -> Adapter:
    """The adapter `spec` names; raises AdapterUnavailable if it cannot run."""
    if ":" in spec:
        module_name, _, factory = spec.partition(":")
        return _make(importlib.import_module(module_name), factory, spec)
    entry_point = _entry_points().get(spec)
    if entry_point is not None:
        return entry_point.load()()
    module = _builtin_module(spec)
    if module is None:
        known = ", ".join(sorted(_entry_points())) or "none installed"
        raise AdapterUnavailable(
            f"no adapter named {spec!r} in conformance/adapters/ nor among the entry points "
            f"of {ENTRY_POINT_GROUP} ({known}); or give package.module:factory"
        )
    return module.make_adapter()


def _make(module: Any, factory: str, spec: str) -> Adapter:
    make = getattr(module, factory, None)
    if not callable(make):
        raise AdapterUnavailable(f"{spec}: {module.__name__} has no callable {factory!r}")
    adapter = make()
    if not isinstance(adapter, Adapter):
        raise AdapterUnavailable(f"{spec} returned a {type(adapter).__name__}, not an Adapter")
    return adapter


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _builtin_module(name: str) -> Any:
    try:
        return importlib.import_module(f"conformance.adapters.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"conformance.adapters.{name}":
            raise
        return None
