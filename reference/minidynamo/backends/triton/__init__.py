"""The Triton backend: an FX graph and example inputs -> a callable running fused kernels.

torch.compile's backend contract, `triton_backend(gm, example_inputs)`. Data flow, one
module each: lowering (aten ops -> IR: pointwise_ops, view_ops, reduction_ops) ->
scheduler (fusion into kernels) -> codegen (Triton source) -> wrapper (the `call` that
launches them) -> runtime (compile per input signature, cache, run, fall back to eager).
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import fx

from .runtime import CompiledGraph, stats


def triton_backend(gm: fx.GraphModule, example_inputs: Sequence[object]) -> CompiledGraph:
    """Compile `gm` lazily: each new input signature is specialized on its first call."""
    return CompiledGraph(gm)


__all__ = ["CompiledGraph", "stats", "triton_backend"]
