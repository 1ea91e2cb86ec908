"""Scheduler: groups the lowered nodes into fused kernels, in program order.

Between lowering and codegen. Walking the nodes in order, a pointwise or reduction node
joins the open kernel when (1) its iteration space fits the kernel's and (2) every value it
reads from the kernel is read at the very element its producer computes there; otherwise it
opens a new kernel. An extern call closes the open kernel. A buffer read only inside its
own kernel is never written: its readers get the producer's expression instead.

A kernel iterates over `xindex` (rows) and, for reductions, `rindex` (the reduced elements
of a row). Each node finds its coordinates by decomposing these two indices.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from .indexing import Index, decompose, var
from .ir import (
    Expr,
    ExternNode,
    IRNode,
    Load,
    Masked,
    Op,
    PointwiseNode,
    ReductionNode,
    ReductionResult,
    View,
    cast,
    iter_loads,
    numel,
)


@dataclass(frozen=True)
class KernelShape:
    """xnumel rows of rnumel elements; reduction kernels also name the reduced tensor."""

    xnumel: int
    rnumel: int = 1
    source_sizes: tuple[int, ...] | None = None
    reduced_dims: tuple[int, ...] = ()

    @property
    def is_reduction(self) -> bool:
        return self.source_sizes is not None

    def coords(self, sizes: tuple[int, ...], reduced_dims: tuple[int, ...]) -> list[Index]:
        """Coordinates of an element of a `sizes` tensor whose `reduced_dims` run over r."""
        kept_sizes = tuple(s for d, s in enumerate(sizes) if d not in reduced_dims)
        kept = decompose(self.xindex, kept_sizes)
        red = decompose(self.rindex, tuple(sizes[d] for d in reduced_dims))
        kept_it, red_it = iter(kept), iter(red)
        return [next(red_it) if d in reduced_dims else next(kept_it) for d in range(len(sizes))]

    @property
    def reduces_innermost(self) -> bool:
        """The reduced dims are the last ones: element (x, r) sits at flat x * rnumel + r."""
        if self.source_sizes is None:
            return False
        ndim = len(self.source_sizes)
        return self.reduced_dims == tuple(range(ndim - len(self.reduced_dims), ndim))

    @property
    def xindex(self) -> Index:
        return var("xindex", self.xnumel)

    @property
    def rindex(self) -> Index:
        return var("rindex", self.rnumel)


def reduction_shape(node: ReductionNode) -> KernelShape:
    return KernelShape(
        numel(node.kept_sizes), numel(node.reduced_sizes), node.source_sizes, node.reduced_dims
    )


@dataclass
class NodeCode:
    """One node inside one kernel: where it stores, and what it computes there."""

    node: PointwiseNode | ReductionNode
    store_index: Index
    value: Expr
    reduced: Expr | None = None
    over_r: bool = False

    @property
    def name(self) -> str:
        return self.node.buffer.name


@dataclass
class Kernel:
    shape: KernelShape
    codes: list[NodeCode]
    stored: set[str] = field(default_factory=set)

    @property
    def produced(self) -> set[str]:
        return {code.name for code in self.codes}

    def loads(self) -> Iterator[Load]:
        for code in self.codes:
            yield from iter_loads(code.value)
            if code.reduced is not None:
                yield from iter_loads(code.reduced)


def node_code(node: PointwiseNode | ReductionNode, shape: KernelShape) -> NodeCode | None:
    """The node expressed in the kernel's indices, or None if its iteration does not fit."""
    if isinstance(node, ReductionNode):
        own = reduction_shape(node)
        if not shape.is_reduction or (own.xnumel, own.rnumel) != (shape.xnumel, shape.rnumel):
            return None
        coords = shape.coords(node.source_sizes, node.reduced_dims)
        kept = [c for d, c in enumerate(coords) if d not in node.reduced_dims]
        result = cast(ReductionResult(node.buffer.name, node.result_dtype), node.buffer.dtype)
        return NodeCode(node, node.store_index(kept), result, node.body(coords))
    if shape.is_reduction and node.sizes == shape.source_sizes:
        coords = shape.coords(node.sizes, shape.reduced_dims)
        return NodeCode(node, node.store_index(coords), node.value.load(coords), over_r=True)
    if shape.reduces_innermost and numel(node.sizes) == shape.xnumel * shape.rnumel > shape.xnumel:
        # Rows of the reduction are rows of this node too (e.g. [2, 5, 16] viewed as [10, 16]).
        coords = decompose(shape.xindex * shape.rnumel + shape.rindex, node.sizes)
        return NodeCode(node, node.store_index(coords), node.value.load(coords), over_r=True)
    if numel(node.sizes) != shape.xnumel:
        return None
    if shape.is_reduction:
        coords = decompose(shape.xindex, node.sizes)
    else:
        coords = memory_order_coords(shape.xindex, node.sizes, node.buffer.strides)
    return NodeCode(node, node.store_index(coords), node.value.load(coords))


def memory_order_coords(
    flat: Index, sizes: tuple[int, ...], strides: tuple[int, ...]
) -> list[Index]:
    """Coordinates that walk the output in memory order, so that stores are contiguous."""
    order = sorted(range(len(sizes)), key=lambda d: -strides[d])
    walked = decompose(flat, tuple(sizes[d] for d in order))
    coords = [Index()] * len(sizes)
    for position, dim in enumerate(order):
        coords[dim] = walked[position]
    return coords


def _fits(codes: list[NodeCode]) -> bool:
    """Every in-kernel read is of the element its producer computes, in a scope that has it."""
    producers: dict[str, NodeCode] = {}
    for code in codes:
        reads = [(code.value, code.over_r)]
        if code.reduced is not None:
            reads.append((code.reduced, True))
        for expr, over_r in reads:
            for load in iter_loads(expr):
                producer = producers.get(load.buffer)
                if producer is None:
                    continue
                if load.index != producer.store_index or (producer.over_r and not over_r):
                    return False
        producers[code.name] = code
    return True


def try_fuse(kernel: Kernel, node: PointwiseNode | ReductionNode) -> Kernel | None:
    shape = kernel.shape
    if isinstance(node, ReductionNode) and not shape.is_reduction:
        shape = reduction_shape(node)
    nodes = [code.node for code in kernel.codes] + [node]
    codes = [node_code(n, shape) for n in nodes]
    if any(code is None for code in codes):
        return None
    return Kernel(shape, codes) if _fits(codes) else None  # type: ignore[arg-type]


def new_kernel(node: PointwiseNode | ReductionNode) -> Kernel:
    if isinstance(node, ReductionNode):
        shape = reduction_shape(node)
    else:
        shape = KernelShape(numel(node.sizes))
    code = node_code(node, shape)
    assert code is not None
    return Kernel(shape, [code])


def schedule(nodes: list[IRNode], outputs: list[View]) -> list[Kernel | ExternNode]:
    """Fused kernels and extern calls, in an order that respects every dependency."""
    steps: list[Kernel | ExternNode] = []
    open_kernel: Kernel | None = None
    for node in nodes:
        if isinstance(node, ExternNode):
            steps.append(node)
            open_kernel = None
            continue
        fused = try_fuse(open_kernel, node) if open_kernel is not None else None
        if fused is not None:
            steps[-1] = open_kernel = fused
        else:
            open_kernel = new_kernel(node)
            steps.append(open_kernel)
    kernels = [s for s in steps if isinstance(s, Kernel)]
    needed = _needed_buffers(steps, outputs)
    for kernel in kernels:
        kernel.stored = kernel.produced & needed
        _resolve_kernel(kernel)
    return steps


def _needed_buffers(steps: list[Kernel | ExternNode], outputs: list[View]) -> set[str]:
    """Buffers that must reach memory: outputs, extern arguments, reads by other kernels."""
    needed = {view.buffer.name for view in outputs}
    for step in steps:
        if isinstance(step, ExternNode):
            needed |= step.reads()
        else:
            needed |= {load.buffer for load in step.loads()} - step.produced
    return needed


def _resolve_kernel(kernel: Kernel) -> None:
    """Replace each in-kernel load by its producer's expression (fusion without memory)."""
    producers = {code.name: code for code in kernel.codes}
    memo: dict[Expr, Expr] = {}

    def resolve(expr: Expr) -> Expr:
        if expr in memo:
            return memo[expr]
        result = expr
        if isinstance(expr, Load) and expr.buffer in producers:
            result = resolve(producers[expr.buffer].value)
        elif isinstance(expr, Op):
            result = replace(expr, args=tuple(resolve(a) for a in expr.args))
        elif isinstance(expr, Masked):
            result = replace(expr, mask=resolve(expr.mask), value=resolve(expr.value))
        memo[expr] = result
        return result

    for code in kernel.codes:
        code.value = resolve(code.value)
        if code.reduced is not None:
            code.reduced = resolve(code.reduced)
