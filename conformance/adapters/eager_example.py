"""The smallest adapter: "compiling" is running eagerly; nothing is observable.

The template of conformance/README.md ("Writing an adapter"): with it every case's first
check (behave as eager) passes, except those that expect a compile error, and every
observation check counts as not available. Try `pytest conformance --impl eager_example`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from conformance.adapters import Adapter
from conformance.observations import Observations


class EagerExampleAdapter(Adapter):
    """An implementation that compiles nothing."""

    name = "eager_example"

    def compile(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        return fn

    def reset(self) -> None:
        pass

    def mark_dynamic(self, tensor: torch.Tensor, dim: int) -> None:
        pass

    def observations(self) -> Observations:
        return Observations()  # every field NOT_AVAILABLE


def make_adapter() -> EagerExampleAdapter:
    return EagerExampleAdapter()
