"""Higher-order operators: `torch.cond` and `torch.utils.checkpoint.checkpoint`, whose
function arguments become subgraphs of the frame's graph, called by one node
(``torch.ops.higher_order.cond(pred, cond_true_0, cond_false_0, (l_x_,))``), as Dynamo
records them.

A function is traced into its own graph (`speculate_subgraph`: OutputGraph.subgraph),
its tensor arguments that graph's inputs; a tensor of the enclosing graph that it uses
(a closure's, a module's parameter) is lifted: an input of the subgraph and one more
operand of the node. The function must be pure, as Dynamo requires: a change to an
object older than the call (a list, a global, an input tensor in place) stops the trace
with a graph break instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from minidynamo.exc import unimplemented
from minidynamo.output_graph import is_inplace, target_name
from minidynamo.variables.base import VariableTracker, next_serial
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.lists import ListVariable, TupleVariable
from minidynamo.variables.symnode import SymNodeVariable
from minidynamo.variables.tensor import TensorVariable
from torch.multiprocessing.reductions import StorageWeakRef

if TYPE_CHECKING:
    from minidynamo.output_graph import SubgraphTracer
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


class Subgraph:
    """A traced function: its graph, the enclosing graph's values it lifted, and how its
    outputs were structured (one tensor, or a tuple or list of them)."""

    def __init__(self, tracer: SubgraphTracer, outputs: list[TensorVariable], kind: type) -> None:
        self.tracer = tracer
        self.outputs = outputs
        self.kind = kind

    @property
    def examples(self) -> list[Any]:
        return [out.example_value for out in self.outputs]


def speculate_subgraph(
    tx: InstructionTranslatorBase,
    fn: VariableTracker,
    args: list[VariableTracker],
    what: str,
    names: list[str] | None = None,
) -> Subgraph:
    """Trace `fn(*args)` into a new graph; tensor arguments are its first inputs (named
    as their nodes, or by `names`)."""

    def body(tracer: SubgraphTracer, inner_args: list[VariableTracker]) -> tuple[list, type]:
        result = fn.call_function(tx, inner_args, {})
        outputs, kind = _output_tensors(result, what)
        tracer.graph.output(tuple(tracer.lift(out.as_proxy()).node for out in outputs))
        return outputs, kind

    tracer, (outputs, kind) = speculate(tx, args, body, what, names=names)
    return Subgraph(tracer, outputs, kind)


def speculate(
    tx: InstructionTranslatorBase,
    args: list[VariableTracker],
    body: Callable[[SubgraphTracer, list[VariableTracker]], Any],
    what: str,
    since: int | None = None,
    names: list[str] | None = None,
) -> tuple[SubgraphTracer, Any]:
    """Run `body(tracer, inner_args)` recording into a new graph, whose first inputs
    stand for the tensors among `args` (constants are passed as they are); `body` traces
    the function and sets the graph's output. Its result, with the new graph's tracer.
    The function must be pure: a change to an object older than the call (or than the
    serial `since`) breaks. The inputs are named as the tensors' nodes, or by `names`."""
    output = tx.output
    side_effects = output.side_effects
    outer_start = side_effects.speculation_start
    side_effects.speculation_start = next_serial() if since is None else since
    try:
        with output.subgraph() as tracer:
            inner_args: list[VariableTracker] = []
            for i, arg in enumerate(args):
                if isinstance(arg, TensorVariable):
                    name = names[i] if names else arg.as_proxy().node.name
                    proxy = tracer.add_input(name, arg.example_value)
                    inner_args.append(TensorVariable(proxy, arg.example_value))
                elif isinstance(arg, ConstantVariable):
                    inner_args.append(arg)
                else:
                    unimplemented(f"{what}: an argument {arg!r} that is not a tensor")
            result = body(tracer, inner_args)
        _check_no_inplace(tracer.graph, what)
        return tracer, result
    finally:
        side_effects.speculation_start = outer_start


def align_lifted(tracers: list[SubgraphTracer]) -> list[torch.fx.Proxy]:
    """Each branch lifts every value some branch lifted, in one order: the branches of
    one op take the same inputs. The lifted values, in that order."""
    union: dict[torch.fx.Node, torch.fx.Proxy] = {}
    for tracer in tracers:
        for outer in tracer.lifted_operands:
            union.setdefault(outer.node, outer)
    for tracer in tracers:
        tracer.order_lifted(list(union.values()))
    return list(union.values())


def _output_tensors(result: VariableTracker, what: str) -> tuple[list[TensorVariable], type]:
    if isinstance(result, TensorVariable):
        return [result], TensorVariable
    if type(result) in (TupleVariable, ListVariable):
        items = result.items
        if items and all(isinstance(item, TensorVariable) for item in items):
            return items, type(result)
    unimplemented(f"{what}: its function returned {result!r}, not tensors")


def _check_no_inplace(graph: torch.fx.Graph, what: str) -> None:
    """An in-place tensor operation (``add_``, ``+=``, ``t[i] = v``) inside the function
    on one of its inputs or a view of one: the op's inputs must not change (Dynamo refuses
    that too). Tensors the function made may change."""
    inputs = {
        StorageWeakRef(node.meta["example_value"].untyped_storage())
        for node in graph.nodes
        if node.op == "placeholder" and isinstance(node.meta["example_value"], torch.Tensor)
    }
    for node in graph.nodes:
        if not is_inplace(node):
            continue
        changed = node.args[0]
        example = changed.meta.get("example_value") if isinstance(changed, torch.fx.Node) else None
        if not isinstance(example, torch.Tensor):
            continue
        if StorageWeakRef(example.untyped_storage()) in inputs:
            name = target_name(node.target)
            unimplemented(f"{what}: its function changes an input tensor in place ({name})")


def restructure(items: list[VariableTracker], kind: type) -> VariableTracker:
    if kind is TensorVariable:
        return items[0]
    return kind(items)


def call_op(
    tx: InstructionTranslatorBase, target: Any, args: tuple, kwargs: dict, what: str
) -> list[VariableTracker]:
    """Record the op's node; the VariableTrackers of its outputs."""
    result = tx.output.call_proxies(tx, "call_function", target, args, kwargs)
    if not isinstance(result, (TupleVariable, ListVariable)):
        unimplemented(f"{what} returned {result!r}")
    return result.items


class HigherOrderOpVariable(VariableTracker):
    """The Python function of a higher-order op (`torch.cond`), called in the trace."""

    def __init__(self, value: Any, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def python_type(self) -> type:
        return type(self.value)


class CondVariable(HigherOrderOpVariable):
    """``torch.cond(pred, true_fn, false_fn, operands)``: both branches traced; a
    predicate known now (a Python bool, a static size comparison) picks one, which is
    then inlined (Dynamo does the same, with a warning)."""

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        names = ("pred", "true_fn", "false_fn", "operands")
        bound = dict(zip(names, args, strict=False)) | kwargs
        if set(bound) != set(names) or len(args) > len(names):
            unimplemented("torch.cond called without (pred, true_fn, false_fn, operands)")
        pred, operands_vt = bound["pred"], bound["operands"]
        if not isinstance(operands_vt, (TupleVariable, ListVariable)):
            unimplemented(f"torch.cond: operands {operands_vt!r} are not a tuple or list")
        operands = list(operands_vt.items)
        if isinstance(pred, ConstantVariable):
            branch = bound["true_fn"] if pred.value else bound["false_fn"]
            return branch.call_function(tx, operands, {})
        if not isinstance(pred, (TensorVariable, SymNodeVariable)):
            unimplemented(f"torch.cond: a predicate {pred!r} that is not a tensor or a bool")
        true = speculate_subgraph(tx, bound["true_fn"], operands, "torch.cond's true_fn")
        false = speculate_subgraph(tx, bound["false_fn"], operands, "torch.cond's false_fn")
        _check_same_outputs(true, false)
        lifted = align_lifted([true.tracer, false.tracer])
        true_gm = tx.output.install_subgraph(tx, "cond_true", true.tracer)
        false_gm = tx.output.install_subgraph(tx, "cond_false", false.tracer)
        inputs = tuple(op.as_proxy() for op in operands) + tuple(lifted)
        items = call_op(
            tx,
            torch.ops.higher_order.cond,
            (pred.as_proxy(), true_gm, false_gm, inputs),
            {},
            "torch.cond",
        )
        return restructure(items, true.kind)


def _check_same_outputs(true: Subgraph, false: Subgraph) -> None:
    def meta(example: torch.Tensor) -> tuple:
        return (tuple(example.shape), example.dtype, example.device, example.requires_grad)

    if true.kind is not false.kind or [meta(e) for e in true.examples] != [
        meta(e) for e in false.examples
    ]:
        unimplemented("torch.cond: its branches return tensors of different kinds or shapes")


class CheckpointVariable(HigherOrderOpVariable):
    """``torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=...)``: `fn` traced
    into the body of a ``tag_activation_checkpoint`` node (its activations recomputed
    in the backward pass)."""

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if not args or set(kwargs) - {"use_reentrant"}:
            unimplemented("checkpoint called with options other than use_reentrant")
        options = {key: value.as_python_constant() for key, value in kwargs.items()}
        body = speculate_subgraph(tx, args[0], args[1:], "checkpoint")
        gm = tx.output.install_subgraph(tx, "wrap_body", body.tracer)
        inputs = tuple(arg.as_proxy() for arg in args[1:] if isinstance(arg, TensorVariable))
        items = call_op(
            tx,
            torch.ops.higher_order.tag_activation_checkpoint,
            (gm, *inputs, *body.tracer.lifted_operands),
            options,
            "checkpoint",
        )
        return restructure(items, body.kind)


HIGHER_ORDER_VARIABLES: dict[str, type[HigherOrderOpVariable]] = {
    "cond": CondVariable,
    "checkpoint": CheckpointVariable,
}
