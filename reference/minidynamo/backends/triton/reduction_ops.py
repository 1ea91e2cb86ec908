"""Reduction lowerings: sum, mean, amax, amin, var, var_mean, any, all -> ReductionNodes.

Part of lowering (see lowering.py). A reduction always writes a buffer (a ReductionNode);
what surrounds it stays lazy: the pointwise prologue is inlined into the reduction's body
and the epilogue (mean's division, var's second pass) reads the buffer, which the
scheduler then fuses into the same kernel and keeps out of memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from .indexing import decompose
from .ir import (
    ARG_REDUCTIONS,
    Expr,
    IndexValue,
    ReductionNode,
    TensorValue,
    cast,
    constant,
    masked,
    numel,
    op,
    reduction_identity,
)
from .lowering import GraphLowering, merge_origins, register
from .pointwise_ops import upcast
from .view_ops import expand_to, reshape

aten = torch.ops.aten


def normalize_dims(x: TensorValue, dims: Sequence[int] | int | None) -> tuple[int, ...]:
    """aten's convention: no dims (None or []) reduces every dim."""
    ndim = len(x.sizes)
    if dims is None or (not isinstance(dims, int) and len(dims) == 0):
        return tuple(range(ndim))
    dims = [dims] if isinstance(dims, int) else dims
    return tuple(sorted({d % ndim for d in dims})) if ndim else ()


def reduce(
    g: GraphLowering,
    x: TensorValue,
    dims: tuple[int, ...],
    kind: str,
    keepdim: bool,
    acc_dtype: torch.dtype,
    out_dtype: torch.dtype,
) -> TensorValue:
    """A ReductionNode over `dims` of `x`, accumulated in `acc_dtype`, stored as `out_dtype`."""
    splittable = kind not in ARG_REDUCTIONS and len(dims) == len(x.sizes)
    if splittable and numel(x.sizes) >= split_reduction.min_elements:
        return _split_reduce(g, x, kind, keepdim, acc_dtype, out_dtype)
    sizes = [1 if d in dims else s for d, s in enumerate(x.sizes)]
    out_sizes = sizes if keepdim else [s for d, s in enumerate(x.sizes) if d not in dims]
    buffer = g.new_buffer(out_sizes, out_dtype, x.device)

    def body(coords: list) -> Expr:
        if numel(x.sizes) == 0:
            return constant(0, acc_dtype)  # reducing nothing: never load from empty memory
        return cast(x.load(coords), acc_dtype)

    origins = merge_origins(x) + (g.origin,)
    node = ReductionNode(buffer, kind, x.sizes, dims, body, acc_dtype, keepdim, origins)
    return g.add_reduction(node)


@dataclass
class SplitReduction:
    """A full reduction of at least min_elements runs as `parts` partial rows, then one."""

    min_elements: int = 2**16
    parts: int = 256


split_reduction = SplitReduction()


def _split_reduce(g, x, kind, keepdim, acc_dtype, out_dtype) -> TensorValue:
    """One program per row would serialize a full reduction: reduce `parts` chunks first."""
    total = numel(x.sizes)
    chunk = -(-total // split_reduction.parts)
    parts = -(-total // chunk)
    position_dtype = torch.int32 if parts * chunk < 2**31 else torch.int64

    def element(coords: list) -> Expr:
        flat = coords[0] * chunk + coords[1]
        inside = op("lt", IndexValue(flat, position_dtype), constant(total, position_dtype))
        value = cast(x.load(decompose(flat, x.sizes)), acc_dtype)
        return masked(inside, value, reduction_identity(kind, acc_dtype))

    chunks = g.pointwise_value((parts, chunk), acc_dtype, element, x.origins)
    partial = reduce(g, chunks, (1,), kind, False, acc_dtype, acc_dtype)
    result = reduce(g, partial, (0,), kind, False, acc_dtype, out_dtype)
    return reshape(result, [1] * len(x.sizes) if keepdim else [])


def _scaled(g: GraphLowering, value: TensorValue, scale: float, dtype: torch.dtype) -> TensorValue:
    """value * scale, cast to dtype (means and variances)."""

    def body(coords: Sequence) -> Expr:
        loaded = value.load(coords)
        if scale == 1:
            return cast(loaded, dtype)
        return cast(op("mul", loaded, constant(scale, loaded.dtype)), dtype)

    return g.pointwise_value(value.sizes, dtype, body, value.origins)


@register(aten.sum.dim_IntList, aten.sum.default)
def lower_sum(g: GraphLowering, x: TensorValue, dims=None, keepdim=False, *, dtype=None):
    out = g.out.dtype
    return reduce(g, x, normalize_dims(x, dims), "sum", keepdim, upcast(out), out)


def _ordered(dtype: torch.dtype) -> torch.dtype:
    """The dtype to compare in: bool compares as int8, half precision as float32."""
    return torch.int8 if dtype == torch.bool else upcast(dtype)


def _extremum(kind: str) -> Callable[..., TensorValue]:
    def lower(g: GraphLowering, x: TensorValue, dims=(), keepdim=False) -> TensorValue:
        out = g.out.dtype
        return reduce(g, x, normalize_dims(x, dims), kind, keepdim, _ordered(out), out)

    return lower


register(aten.amax, aten.max.default)(_extremum("max"))
register(aten.amin, aten.min.default)(_extremum("min"))


def _position(kind: str) -> Callable[..., TensorValue]:
    def lower(g: GraphLowering, x: TensorValue, dim=None, keepdim=False) -> TensorValue:
        dims = normalize_dims(x, dim)
        return reduce(g, x, dims, kind, keepdim, _ordered(x.dtype), torch.int64)

    return lower


register(aten.argmax)(_position("argmax"))
register(aten.argmin)(_position("argmin"))


def _extremum_and_position(kind: str) -> Callable[..., tuple[TensorValue, TensorValue]]:
    """max.dim and min.dim: the values and their positions, two reductions of one row."""

    def lower(g: GraphLowering, x: TensorValue, dim: int, keepdim=False):
        dims, ordered = normalize_dims(x, dim), _ordered(x.dtype)
        values = reduce(g, x, dims, kind, keepdim, ordered, x.dtype)
        return values, reduce(g, x, dims, f"arg{kind}", keepdim, ordered, torch.int64)

    return lower


register(aten.max.dim)(_extremum_and_position("max"))
register(aten.min.dim)(_extremum_and_position("min"))


@register(aten.prod.dim_int, aten.prod.default)
def lower_prod(g: GraphLowering, x: TensorValue, dim=None, keepdim=False, *, dtype=None):
    out = g.out.dtype
    return reduce(g, x, normalize_dims(x, dim), "prod", keepdim, upcast(out), out)


@register(aten.any.default, aten.any.dim, aten.any.dims)
def lower_any(g: GraphLowering, x: TensorValue, dims=None, keepdim=False) -> TensorValue:
    return _logical_reduction(g, x, dims, keepdim, "max")


@register(aten.all.default, aten.all.dim, aten.all.dims)
def lower_all(g: GraphLowering, x: TensorValue, dims=None, keepdim=False) -> TensorValue:
    return _logical_reduction(g, x, dims, keepdim, "min")


def _logical_reduction(g, x, dims, keepdim, kind) -> TensorValue:
    # Reduce the truth values as int8: max is "any", min is "all".
    truth = g.pointwise_value(
        x.sizes, torch.int8, lambda c: cast(cast(x.load(c), torch.bool), torch.int8), x.origins
    )
    result = reduce(g, truth, normalize_dims(x, dims), kind, keepdim, torch.int8, torch.int8)
    return g.pointwise_value(
        result.sizes, torch.bool, lambda c: cast(result.load(c), torch.bool), result.origins
    )


@register(aten.mean.dim, aten.mean.default)
def lower_mean(g: GraphLowering, x: TensorValue, dims=None, keepdim=False, *, dtype=None):
    dims = normalize_dims(x, dims)
    acc = upcast(g.out.dtype)
    total = reduce(g, x, dims, "sum", keepdim, acc, acc)
    return _scaled(g, total, 1 / _count(x, dims), g.out.dtype)


def _count(x: TensorValue, dims: tuple[int, ...]) -> float:
    return float(numel([x.sizes[d] for d in dims])) or float("nan")


def _var_and_mean(g, x, dims, correction, keepdim, dtype) -> tuple[TensorValue, TensorValue]:
    """Two passes, as in the textbook: mean, then the mean squared deviation from it."""
    acc = upcast(dtype)
    count = _count(x, dims)
    mean = _scaled(g, reduce(g, x, dims, "sum", True, acc, acc), 1 / count, acc)
    centered = expand_to(mean, x.sizes)

    def squared_deviation(coords: Sequence) -> Expr:
        deviation = op("sub", cast(x.load(coords), acc), centered.load(coords))
        return op("mul", deviation, deviation)

    deviations = g.pointwise_value(x.sizes, acc, squared_deviation, merge_origins(x))
    divisor = max(count - correction, 0)
    total = reduce(g, deviations, dims, "sum", keepdim, acc, acc)
    var = _scaled(g, total, 1 / divisor if divisor else float("inf"), dtype)
    kept = [s for d, s in enumerate(x.sizes) if d not in dims]
    mean_out = _scaled(g, mean if keepdim else reshape(mean, kept), 1.0, dtype)
    return var, mean_out


@register(aten.var.correction)
def lower_var(g: GraphLowering, x: TensorValue, dims=None, *, correction=1, keepdim=False):
    correction = 1 if correction is None else correction
    dims = normalize_dims(x, dims)
    return _var_and_mean(g, x, dims, correction, keepdim, g.out.dtype)[0]


@register(aten.var_mean.correction)
def lower_var_mean(g: GraphLowering, x: TensorValue, dims=None, *, correction=1, keepdim=False):
    correction = 1 if correction is None else correction
    dims = normalize_dims(x, dims)
    return _var_and_mean(g, x, dims, correction, keepdim, g.out[0].dtype)
