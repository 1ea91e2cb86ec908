"""The suite's small interface to an implementation, and the registry of adapters.

An adapter compiles, resets, marks dims dynamic and reports `Observations` after a run;
whatever it cannot report is NOT_AVAILABLE. `pytest conformance --impl NAME` loads
`conformance.adapters.NAME` and calls its `make_adapter()`.
"""

from __future__ import annotations

import abc
import importlib
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

    def mark_dynamic(self, tensor: torch.Tensor, dim: int) -> None:
        """Mark `dim` of `tensor` dynamic before it is passed to a compiled function."""
        raise NotImplementedError(f"{self.name} cannot mark dims dynamic")

    def is_compile_error(self, error: BaseException) -> bool:
        """Whether `error` is the implementation refusing to compile (fullgraph breaks)."""
        return False


def load(name: str) -> Adapter:
    """The adapter of implementation `name`; raises AdapterUnavailable if it cannot run."""
    try:
        module = importlib.import_module(f"conformance.adapters.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"conformance.adapters.{name}":
            raise
        raise AdapterUnavailable(f"no adapter named {name!r}") from error
    return module.make_adapter()
