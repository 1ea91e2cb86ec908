"""The backend's IR: what lowering builds and what the scheduler and codegen read.

An `Expr` is the computation of one element (loads, constants, operations, reduction
results). A `TensorValue` is a lazy tensor: a `View` of a buffer (strides over memory) or a
`Pointwise` body (coordinates -> Expr), so chains of pointwise ops and views compose
without touching memory. Realizing a value makes a scheduler node that writes a `Buffer`:
a `PointwiseNode`, a `ReductionNode`, or an `ExternNode` that calls an aten op.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import torch

from .indexing import Index, as_index

Number = bool | int | float


@dataclass(frozen=True)
class Constant:
    value: Number
    dtype: torch.dtype


@dataclass(frozen=True)
class Load:
    buffer: str
    index: Index
    dtype: torch.dtype


@dataclass(frozen=True)
class IndexValue:
    """The integer value of an index expression (arange, masks of pads and cats)."""

    index: Index
    dtype: torch.dtype


@dataclass(frozen=True)
class Op:
    """An elementwise operation; `name` is a key of codegen's OP_TEMPLATES."""

    name: str
    args: tuple[Expr, ...]
    dtype: torch.dtype

    # Expressions are DAGs (x + x shares x): a hash recomputed through every path would
    # cost 2**depth, so each node computes its hash once.
    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.name, self.args, self.dtype))

    def __hash__(self) -> int:
        return self._hash


@dataclass(frozen=True)
class ReductionResult:
    """The per-row result of the reduction that writes `buffer`, in its accumulation dtype."""

    buffer: str
    dtype: torch.dtype


@dataclass(frozen=True)
class Masked:
    """`value` where `mask` holds, else `other`; the loads inside `value` happen only under
    `mask` (cat and pad read an input only where it lies)."""

    mask: Expr
    value: Expr
    other: Constant
    dtype: torch.dtype

    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.mask, self.value, self.other, self.dtype))

    def __hash__(self) -> int:
        return self._hash


Expr = Constant | Load | IndexValue | Op | ReductionResult | Masked

BOOL_OPS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "not"})


def op(name: str, *args: Expr) -> Op:
    """An Op whose dtype follows its arguments (bool for comparisons and logic)."""
    dtype = torch.bool if name in BOOL_OPS else _value_dtype(name, args)
    return Op(name, args, dtype)


def _value_dtype(name: str, args: Sequence[Expr]) -> torch.dtype:
    return args[1].dtype if name == "where" else args[0].dtype


def masked(mask: Expr, value: Expr, other: Number) -> Masked:
    return Masked(mask, value, constant(other, value.dtype), value.dtype)


def cast(value: Expr, dtype: torch.dtype) -> Expr:
    if value.dtype == dtype:
        return value
    if isinstance(value, Constant):
        return constant(value.value, dtype)
    return Op("cast", (value,), dtype)


def constant(value: Number, dtype: torch.dtype) -> Constant:
    if dtype == torch.bool:
        return Constant(bool(value), dtype)
    if dtype.is_floating_point:
        return Constant(float(value), dtype)
    return Constant(int(value), dtype)


def iter_exprs(value: Expr) -> Iterator[Expr]:
    """Every sub-expression, each shared one once."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        expr = stack.pop()
        if id(expr) in seen:
            continue
        seen.add(id(expr))
        yield expr
        if isinstance(expr, Op):
            stack.extend(expr.args)
        elif isinstance(expr, Masked):
            stack.extend((expr.mask, expr.value))


def iter_loads(value: Expr) -> Iterator[Load]:
    return (e for e in iter_exprs(value) if isinstance(e, Load))


@dataclass(frozen=True)
class Buffer:
    """Memory: a graph input, a kernel output or an extern call's result."""

    name: str
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device


def contiguous_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    strides = []
    stride = 1
    for size in reversed(sizes):
        strides.append(stride)
        stride *= max(size, 1)
    return tuple(reversed(strides))


def numel(sizes: Sequence[int]) -> int:
    total = 1
    for size in sizes:
        total *= size
    return total


def strided_index(coords: Sequence[Index], strides: Sequence[int], offset: int = 0) -> Index:
    index = as_index(offset)
    for coord, stride in zip(coords, strides, strict=True):
        index = index + coord * stride
    return index


class TensorValue:
    """A lazy tensor: sizes, dtype, and how to compute the element at given coordinates."""

    sizes: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    origins: tuple[str, ...]

    def load(self, coords: Sequence[Index]) -> Expr:
        raise NotImplementedError


@dataclass(eq=False)
class View(TensorValue):
    """Elements of `buffer` at offset + sum(coord * stride): inputs, outputs, strided views."""

    buffer: Buffer
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0
    origins: tuple[str, ...] = ()

    @property
    def dtype(self) -> torch.dtype:  # type: ignore[override]
        return self.buffer.dtype

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return self.buffer.device

    def is_whole_buffer(self) -> bool:
        return (self.sizes, self.strides, self.offset) == (
            self.buffer.sizes,
            self.buffer.strides,
            0,
        )

    def load(self, coords: Sequence[Index]) -> Expr:
        return Load(self.buffer.name, strided_index(coords, self.strides, self.offset), self.dtype)


@dataclass(eq=False)
class Pointwise(TensorValue):
    """A tensor computed element by element; `body` maps coordinates to an Expr."""

    sizes: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    body: Callable[[tuple[Index, ...]], Expr]
    origins: tuple[str, ...] = ()
    _memo: dict[tuple[Index, ...], Expr] = field(default_factory=dict, repr=False)

    def load(self, coords: Sequence[Index]) -> Expr:
        # Memoized: a value used twice by a consumer is built once, so long chains of
        # x = x + x stay linear in size instead of doubling at each step.
        key = tuple(coords)
        if key not in self._memo:
            self._memo[key] = self.body(key)
        return self._memo[key]


@dataclass(eq=False)
class PointwiseNode:
    """Writes every element of `value` to `buffer`."""

    buffer: Buffer
    value: TensorValue

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.buffer.sizes

    @property
    def origins(self) -> tuple[str, ...]:
        return self.value.origins

    def store_index(self, coords: Sequence[Index]) -> Index:
        return strided_index(coords, self.buffer.strides)


ARG_REDUCTIONS = frozenset({"argmax", "argmin"})


def reduction_identity(kind: str, dtype: torch.dtype) -> Number:
    """The value that leaves a reduction unchanged (what masked-off lanes contribute)."""
    if kind in ("sum", "prod"):
        return constant(int(kind == "prod"), dtype).value
    lowest = kind in ("max", "argmax")
    if dtype.is_floating_point:
        return -math.inf if lowest else math.inf
    if dtype == torch.bool:
        return not lowest
    info = torch.iinfo(dtype)
    return info.min if lowest else info.max


@dataclass(eq=False)
class ReductionNode:
    """Reduces `body` over `reduced_dims` of `source_sizes` and writes the rows to `buffer`.

    `body` maps source coordinates to the element to reduce, in `acc_dtype`; `kind` is a
    key of codegen's REDUCTIONS ("sum", "prod", "max", "min", "argmax", "argmin"). Arg
    reductions produce the position (int32) along the reduced elements, row-major.
    """

    buffer: Buffer
    kind: str
    source_sizes: tuple[int, ...]
    reduced_dims: tuple[int, ...]
    body: Callable[[list[Index]], Expr]
    acc_dtype: torch.dtype
    keepdim: bool
    origins: tuple[str, ...] = ()

    @property
    def result_dtype(self) -> torch.dtype:
        return torch.int32 if self.kind in ARG_REDUCTIONS else self.acc_dtype

    @property
    def kept_sizes(self) -> tuple[int, ...]:
        return tuple(s for d, s in enumerate(self.source_sizes) if d not in self.reduced_dims)

    @property
    def reduced_sizes(self) -> tuple[int, ...]:
        return tuple(self.source_sizes[d] for d in self.reduced_dims)

    def source_coords(self, kept: Sequence[Index], reduced: Sequence[Index]) -> list[Index]:
        kept_it, reduced_it = iter(kept), iter(reduced)
        return [
            next(reduced_it) if d in self.reduced_dims else next(kept_it)
            for d in range(len(self.source_sizes))
        ]

    def store_index(self, kept: Sequence[Index]) -> Index:
        if self.keepdim:
            kept = self.source_coords(kept, [Index()] * len(self.reduced_dims))
        return strided_index(kept, self.buffer.strides)


@dataclass(eq=False)
class ExternNode:
    """A call of an aten op in the wrapper; tensor arguments are Views of buffers."""

    target: Callable[..., object]
    args: tuple[object, ...]
    kwargs: dict[str, object]
    outputs: list[Buffer]
    tuple_output: bool

    def reads(self) -> set[str]:
        names: set[str] = set()
        stack: list[object] = [self.args, self.kwargs]
        while stack:
            item = stack.pop()
            if isinstance(item, View):
                names.add(item.buffer.name)
            elif isinstance(item, list | tuple):
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())
        return names


IRNode = PointwiseNode | ReductionNode | ExternNode
