"""Lowering: an aten FX graph -> scheduler nodes (pointwise, reduction, extern) and outputs.

First step of the backend (see __init__.py). `to_aten_graph` functionalizes and decomposes
the backend's FX graph to core aten ops with make_fx; `GraphLowering` then walks it node by
node, calling one lowering function per op from `LOWERINGS` (filled by pointwise_ops,
view_ops and reduction_ops). Ops without a lowering run as extern calls of the aten op.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import fx
from torch._decomp import core_aten_decompositions, get_decompositions
from torch._prims_common import is_non_overlapping_and_dense_or_false
from torch.func import functionalize
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils import _pytree as pytree

from .ir import (
    Buffer,
    ExternNode,
    IRNode,
    Pointwise,
    PointwiseNode,
    ReductionNode,
    TensorValue,
    View,
    contiguous_strides,
)

log = logging.getLogger("minidynamo.output_code")
aten = torch.ops.aten


class Unsupported(Exception):
    """A lowering cannot handle these arguments: the op becomes an extern call."""


# Core aten keeps softmax, layer norm and gelu as single ops; we want their pieces
# (amax, sum, exp, var_mean, erf ...) so that they fuse into one kernel.
DECOMPOSITIONS = {
    **core_aten_decompositions(),
    **get_decompositions(
        [
            aten._softmax,
            aten._log_softmax,
            aten.native_layer_norm,
            aten.gelu,
            aten.hardtanh,
            aten.leaky_relu,
            aten.elu,
            aten.native_batch_norm,
            aten._native_batch_norm_legit_no_training,
            aten.clamp_min,
            aten.clamp_max,
        ]
    ),
}

LOWERINGS: dict[Any, Callable[..., Any]] = {}


def register(*targets: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a lowering `fn(graph, *args, **kwargs)` for aten overloads or packets."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for target in targets:
            overloads = target.overloads() if hasattr(target, "overloads") else None
            if overloads is None:
                LOWERINGS[target] = fn
            else:
                for name in overloads:
                    LOWERINGS[getattr(target, name)] = fn
        return fn

    return decorate


def to_aten_graph(
    gm: fx.GraphModule, args: Sequence[object]
) -> tuple[fx.GraphModule, pytree.TreeSpec]:
    """Functional, decomposed aten graph of `gm` for these concrete arguments.

    The graph returns the flat list of gm's outputs; the spec rebuilds their structure
    (tuples, namedtuples such as torch.return_types.max, dicts).
    """
    spec: list[pytree.TreeSpec] = []

    def flat(*inputs: object) -> list[object]:
        leaves, out_spec = pytree.tree_flatten(gm(*inputs))
        spec.append(out_spec)
        return leaves

    traced = make_fx(
        functionalize(flat, remove="mutations"),
        decomposition_table=DECOMPOSITIONS,
        tracing_mode="fake",
        _allow_non_fake_inputs=True,  # tensor constants captured by the graph
    )(*args)
    traced.graph.eliminate_dead_code()
    traced.recompile()
    return traced, spec[-1]


class GraphLowering:
    """Walks an aten graph; collects scheduler nodes in program order."""

    def __init__(self, gm: fx.GraphModule) -> None:
        self.gm = gm
        self.nodes: list[IRNode] = []
        self.input_names: list[str] = []
        self.buffers: dict[str, Buffer] = {}
        self.constants: dict[str, torch.Tensor] = {}
        self.outputs: Any = None
        self.mutations: list[tuple[View, View]] = []
        self.extern_reasons: list[str] = []
        self.current: fx.Node | None = None
        self._env: dict[fx.Node, Any] = {}
        self._buffer_count = 0

    @property
    def out(self) -> Any:
        """The example value (a FakeTensor or a tuple of them) of the node being lowered."""
        assert self.current is not None
        return self.current.meta["val"]

    @property
    def origin(self) -> str:
        assert self.current is not None
        return getattr(self.current.target, "__name__", str(self.current.target)).split(".")[0]

    def run(self, args: Sequence[object]) -> None:
        inputs = iter(args)
        for node in self.gm.graph.nodes:
            self.current = node
            if node.op == "placeholder":
                self._env[node] = self.placeholder(node, next(inputs))
            elif node.op == "get_attr":
                self._env[node] = self.get_attr(node)
            elif node.op == "call_function":
                self._env[node] = self.call_function(node)
            elif node.op == "output":
                self.output(node)
            else:
                raise Unsupported(f"node kind {node.op}")

    def placeholder(self, node: fx.Node, example: object) -> object:
        name = f"arg{len(self.input_names)}"
        self.input_names.append(name)
        if isinstance(example, torch.Tensor):
            return self._input_view(name, example)
        return example

    def get_attr(self, node: fx.Node) -> View:
        value = getattr(self.gm, str(node.target))
        if not isinstance(value, torch.Tensor):
            raise Unsupported(f"constant {node.target} is not a tensor")
        name = f"const{len(self.constants)}"
        self.constants[name] = value
        return self._input_view(name, value)

    def _input_view(self, name: str, example: torch.Tensor) -> View:
        buffer = Buffer(
            name, tuple(example.shape), tuple(example.stride()), example.dtype, example.device
        )
        self.buffers[name] = buffer
        return View(buffer, buffer.sizes, buffer.strides)

    def call_function(self, node: fx.Node) -> object:
        args, kwargs = fx.node.map_arg((node.args, node.kwargs), self._env.__getitem__)
        if node.target is operator.getitem:
            return args[0][args[1]]
        reason = self._why_extern(node.target, args, kwargs)
        if reason is None:
            try:
                return LOWERINGS[node.target](self, *args, **kwargs)
            except Unsupported as error:
                reason = str(error)
        self.extern_reasons.append(f"{node.target}: {reason}")
        return self.extern(node.target, args, kwargs)

    def _why_extern(self, target: Any, args: Any, kwargs: Any) -> str | None:
        if target not in LOWERINGS:
            return "no lowering"
        leaves = pytree.tree_leaves((self.out, args, kwargs))
        dtypes = {t.dtype for t in leaves if isinstance(t, torch.Tensor | TensorValue)}
        if dtypes - LOWERABLE_DTYPES:
            return f"no kernels for {', '.join(sorted(map(str, dtypes - LOWERABLE_DTYPES)))}"
        return None

    def output(self, node: fx.Node) -> None:
        (result,) = node.args
        self.outputs = fx.node.map_arg(result, self._realize_output)
        for target, source in self.mutations:
            self.nodes.append(ExternNode(aten.copy_.default, (target, source), {}, [], False))

    def _realize_output(self, node: fx.Node) -> object:
        value = self._env[node]
        if not isinstance(value, TensorValue):
            return value
        example = node.meta["val"]
        dense = is_non_overlapping_and_dense_or_false(example)
        strides = tuple(example.stride()) if dense else None
        return self.realize(value, strides)

    def new_buffer(
        self,
        sizes: Sequence[int],
        dtype: torch.dtype,
        device: torch.device,
        strides: Sequence[int] | None = None,
    ) -> Buffer:
        name = f"buf{self._buffer_count}"
        self._buffer_count += 1
        strides = tuple(strides) if strides is not None else contiguous_strides(sizes)
        buffer = self.buffers[name] = Buffer(name, tuple(sizes), strides, dtype, device)
        return buffer

    def realize(self, value: TensorValue, strides: Sequence[int] | None = None) -> View:
        """A View of memory holding `value`: a Pointwise gets a node that writes a buffer."""
        if isinstance(value, View):
            return value
        buffer = self.new_buffer(value.sizes, value.dtype, value.device, strides)
        self.nodes.append(PointwiseNode(buffer, value))
        return View(buffer, buffer.sizes, buffer.strides, 0, value.origins)

    def add_reduction(self, node: ReductionNode) -> View:
        self.nodes.append(node)
        return View(node.buffer, node.buffer.sizes, node.buffer.strides, 0, node.origins)

    def extern(self, target: Any, args: Any, kwargs: Any) -> object:
        """Call the aten op itself in the wrapper, on realized arguments."""
        args, kwargs = pytree.tree_map_only(TensorValue, self.realize, (args, kwargs))
        examples = self.out
        tuple_output = isinstance(examples, tuple | list)
        flat = list(examples) if tuple_output else [examples]
        if not all(isinstance(t, torch.Tensor) for t in flat):
            raise Unsupported(f"extern {target} returns non-tensors")
        outputs = [
            self.new_buffer(t.shape, t.dtype, t.device, tuple(t.stride())) for t in flat
        ]
        self.nodes.append(ExternNode(target, args, kwargs, outputs, tuple_output))
        views = [View(b, b.sizes, b.strides, 0, (self.origin,)) for b in outputs]
        return tuple(views) if tuple_output else views[0]

    def pointwise_value(
        self, sizes: Sequence[int], dtype: torch.dtype, body: Callable[..., Any],
        origins: Sequence[str] = (),
    ) -> Pointwise:
        device = self.out.device if isinstance(self.out, torch.Tensor) else self.out[0].device
        return Pointwise(tuple(sizes), dtype, device, body, tuple(origins) + (self.origin,))


LOWERABLE_DTYPES = frozenset(
    {
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
    }
)


def merge_origins(*values: object) -> tuple[str, ...]:
    origins: list[str] = []
    for value in values:
        if isinstance(value, TensorValue):
            origins.extend(o for o in value.origins if o not in origins)
    return tuple(origins)
