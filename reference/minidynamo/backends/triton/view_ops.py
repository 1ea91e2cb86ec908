"""View lowerings: reshape, permute, expand, slice, select, squeeze, cat, pad as indexing.

Part of lowering (see lowering.py). Every view is one `reindex` function from the new
coordinates to the old ones. `apply_view` composes it: on a `View` of a buffer the result
stays a strided View when the new offset is affine in the new coordinates with strides
>= 0 (what torch calls a view), otherwise it becomes a Pointwise that gathers. cat and
constant_pad_nd gather with masked loads: each input is read only where it lies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from .indexing import Index, at_least_zero, decompose, flatten, var
from .ir import (
    Expr,
    IndexValue,
    Pointwise,
    TensorValue,
    View,
    cast,
    constant,
    masked,
    numel,
    op,
    strided_index,
)
from .lowering import GraphLowering, Unsupported, merge_origins, register

aten = torch.ops.aten
Reindex = Callable[[Sequence[Index]], list[Index]]


def apply_view(value: TensorValue, sizes: Sequence[int], reindex: Reindex) -> TensorValue:
    sizes = tuple(sizes)
    if numel(sizes) == 0:
        zero = constant(0, value.dtype)
        return Pointwise(sizes, value.dtype, value.device, lambda _: zero, value.origins)
    if isinstance(value, View):
        strided = _as_strided_view(value, sizes, reindex)
        if strided is not None:
            return strided
    return Pointwise(
        sizes, value.dtype, value.device, lambda coords: value.load(reindex(coords)), value.origins
    )


def _as_strided_view(value: View, sizes: tuple[int, ...], reindex: Reindex) -> View | None:
    names = [f"v{d}" for d in range(len(sizes))]
    coords = [var(n, s) for n, s in zip(names, sizes, strict=True)]
    index = strided_index(reindex(coords), value.strides, value.offset)
    coefficients = index.affine_strides()
    if coefficients is None or index.const < 0:
        return None
    strides = tuple(coefficients.get(n, 0) for n in names)
    if any(s < 0 for s in strides):
        return None
    return View(value.buffer, sizes, strides, index.const, value.origins)


def expand_to(value: TensorValue, sizes: Sequence[int]) -> TensorValue:
    """Broadcast `value` to `sizes` (numpy rules: align right, stretch size-1 dims)."""
    sizes = tuple(sizes)
    if value.sizes == sizes:
        return value
    lead = len(sizes) - len(value.sizes)
    old = value.sizes

    def reindex(coords: Sequence[Index]) -> list[Index]:
        tail = coords[lead:]
        return [Index() if s == 1 else c for c, s in zip(tail, old, strict=True)]

    return apply_view(value, sizes, reindex)


def reshape(value: TensorValue, sizes: Sequence[int]) -> TensorValue:
    sizes, old = tuple(sizes), value.sizes
    if sizes == old:
        return value
    return apply_view(value, sizes, lambda coords: decompose(flatten(list(coords), sizes), old))


@register(aten.view, aten._unsafe_view, aten.reshape)
def lower_view(g: GraphLowering, x: TensorValue, shape: Sequence[int]) -> TensorValue:
    return reshape(x, g.out.shape)


@register(aten.expand)
def lower_expand(g: GraphLowering, x: TensorValue, shape: Sequence[int], implicit=False):
    return expand_to(x, g.out.shape)


@register(aten.permute)
def lower_permute(g: GraphLowering, x: TensorValue, dims: Sequence[int]) -> TensorValue:
    dims = [d % len(x.sizes) for d in dims] if x.sizes else []
    inverse = [dims.index(d) for d in range(len(dims))]
    return apply_view(x, g.out.shape, lambda coords: [coords[i] for i in inverse])


@register(aten.slice.Tensor)
def lower_slice(g: GraphLowering, x: TensorValue, dim=0, start=None, end=None, step=1):
    dim = dim % len(x.sizes)
    size = x.sizes[dim]
    start = 0 if start is None else start
    start = min(max(start + size if start < 0 else start, 0), size)

    def reindex(coords: Sequence[Index]) -> list[Index]:
        moved = list(coords)
        moved[dim] = moved[dim] * step + start
        return moved

    return apply_view(x, g.out.shape, reindex)


@register(aten.split.Tensor, aten.split_with_sizes)
def lower_split(g: GraphLowering, x: TensorValue, sizes: object, dim: int = 0) -> list:
    """Slices along `dim`, with the lengths torch computed for each piece."""
    dim = dim % len(x.sizes)
    pieces, start = [], 0
    for example in g.out:
        pieces.append(apply_view(x, example.shape, _shifted(dim, start)))
        start += example.shape[dim]
    return pieces


@register(aten.unbind.int)
def lower_unbind(g: GraphLowering, x: TensorValue, dim: int = 0) -> list:
    dim = dim % len(x.sizes)
    return [
        apply_view(x, example.shape, lambda c, i=i: [*c[:dim], Index((), i), *c[dim:]])
        for i, example in enumerate(g.out)
    ]


def _shifted(dim: int, start: int) -> Reindex:
    return lambda coords: [*coords[:dim], coords[dim] + start, *coords[dim + 1 :]]


@register(aten.select.int)
def lower_select(g: GraphLowering, x: TensorValue, dim: int, index: int) -> TensorValue:
    dim = dim % len(x.sizes)
    index = index + x.sizes[dim] if index < 0 else index
    return apply_view(
        x, g.out.shape, lambda coords: [*coords[:dim], Index((), index), *coords[dim:]]
    )


@register(aten.unsqueeze)
def lower_unsqueeze(g: GraphLowering, x: TensorValue, dim: int) -> TensorValue:
    dim = dim % (len(x.sizes) + 1)
    return apply_view(x, g.out.shape, lambda coords: [*coords[:dim], *coords[dim + 1 :]])


@register(aten.squeeze)
def lower_squeeze(g: GraphLowering, x: TensorValue, dims=None) -> TensorValue:
    return reshape(x, g.out.shape)


@register(aten.alias)
def lower_alias(g: GraphLowering, x: TensorValue) -> TensorValue:
    return x


@register(aten.flip)
def lower_flip(g: GraphLowering, x: TensorValue, dims: Sequence[int]) -> TensorValue:
    flipped = {d % len(x.sizes) for d in dims}
    sizes = x.sizes

    def reindex(coords: Sequence[Index]) -> list[Index]:
        return [(sizes[d] - 1) - c if d in flipped else c for d, c in enumerate(coords)]

    return _copy(apply_view(x, sizes, reindex))


def _copy(value: TensorValue) -> TensorValue:
    """flip is not a view in torch: its result must never alias the input."""
    if isinstance(value, Pointwise):
        return value
    return Pointwise(value.sizes, value.dtype, value.device, value.load, value.origins)


def _in_range(coord: Index, start: int | None, end: int | None) -> Expr | None:
    """start <= coord < end as a bool Expr (None: no bound to check)."""
    dtype = torch.int32 if max(start or 0, end or 0) < 2**31 else torch.int64
    position = IndexValue(coord, dtype)
    checks = []
    if start:
        checks.append(op("ge", position, constant(start, dtype)))
    if end is not None:
        checks.append(op("lt", position, constant(end, dtype)))
    result = checks[0] if checks else None
    for check in checks[1:]:
        result = op("and", result, check)
    return result


@register(aten.cat.default)
def lower_cat(g: GraphLowering, tensors: Sequence[TensorValue], dim: int = 0) -> TensorValue:
    sizes, dtype = tuple(g.out.shape), g.out.dtype
    dim = dim % len(sizes)
    parts = [t for t in tensors if numel(t.sizes) > 0]
    starts = [sum(p.sizes[dim] for p in parts[:i]) for i in range(len(parts))]

    def body(coords: Sequence[Index]) -> Expr:
        result: Expr | None = None
        for i in reversed(range(len(parts))):
            start, end = starts[i], starts[i] + parts[i].sizes[dim]
            shifted = [*coords[:dim], at_least_zero(coords[dim] - start), *coords[dim + 1 :]]
            inside = _in_range(coords[dim], start, end if i < len(parts) - 1 else None)
            value = cast(parts[i].load(shifted), dtype)
            value = value if inside is None else masked(inside, value, 0)
            result = value if result is None else op("where", inside, value, result)
        assert result is not None
        return result

    return Pointwise(sizes, dtype, g.out.device, body, merge_origins(*parts) + (g.origin,))


@register(aten.constant_pad_nd)
def lower_constant_pad(g: GraphLowering, x: TensorValue, pad: Sequence[int], value: float = 0):
    if any(p < 0 for p in pad):
        raise Unsupported("negative padding crops")
    before = {len(x.sizes) - 1 - i: pad[2 * i] for i in range(len(pad) // 2)}

    def body(coords: Sequence[Index]) -> Expr:
        shifted = [at_least_zero(c - before.get(d, 0)) for d, c in enumerate(coords)]
        checks = [_in_range(c, before[d], before[d] + x.sizes[d]) for d, c in enumerate(coords)
                  if d in before]
        inside = checks[0]
        for check in checks[1:]:
            inside = op("and", inside, check)
        return masked(inside, x.load(shifted), value)

    return Pointwise(tuple(g.out.shape), x.dtype, x.device, body, x.origins + (g.origin,))
