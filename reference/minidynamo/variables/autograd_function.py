"""`MyFunction.apply(*args)` of a custom `torch.autograd.Function`, read from its class by
UserDefinedClassVariable.var_getattr.

Where the call records nothing for backward (grad mode off, or no tensor argument requires
grad), apply is just ``forward(ctx, *args)``: the forward is inlined like user code, with a
new `polyfills.autograd.FunctionCtx` as ctx, and its ops land in the graph (Dynamo's
AutogradFunctionVariable does the same).

Where a gradient is recorded, forward and backward are each traced into a subgraph, under
no grad (`speculate_fwd_bwd`), and one node calls them: Dynamo's higher-order op
``torch.ops.higher_order.autograd_function_apply(fwd_body_0, bwd_body_0, *tensors, ...)``,
which at run time is an autograd.Function whose forward runs the first graph (returning
the outputs and the tensors saved for backward) and whose backward runs the second on the
incoming gradients and those saved tensors. Outside that shape (a forward that reads a
tensor of the enclosing graph, a tensor kept as a ctx attribute, mark_dirty ...) the call
is a graph break and CPython's apply runs the Function as in eager.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import TYPE_CHECKING

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.polyfills.autograd import FunctionCtx
from minidynamo.source import AttrSource, Source
from minidynamo.variables.base import VariableTracker, next_serial
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.ctx_manager import set_grad_enabled
from minidynamo.variables.higher_order_ops import call_op, restructure, speculate
from minidynamo.variables.lists import BaseListVariable, TupleVariable
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.output_graph import SubgraphTracer
    from minidynamo.symbolic_convert import InstructionTranslatorBase


def records_grad(values: list[VariableTracker]) -> bool:
    """Whether a call with these arguments would be recorded by autograd: grad mode on
    (the mode the trace is in) and some tensor among them, nested ones too, requiring grad."""
    from minidynamo.variables.dicts import ConstDictVariable

    if not torch.is_grad_enabled():
        return False
    for value in values:
        if isinstance(value, TensorVariable) and value.example_value.requires_grad:
            return True
        if isinstance(value, BaseListVariable) and records_grad(value.items):
            return True
        if isinstance(value, ConstDictVariable) and records_grad(list(value.items.values())):
            return True
    return False


class AutogradFunctionApplyVariable(VariableTracker):
    """``cls.apply`` of a `torch.autograd.Function` subclass `cls`."""

    def __init__(self, fn_cls: type[torch.autograd.Function], cls_source: Source | None) -> None:
        super().__init__()
        self.fn_cls = fn_cls
        self.cls_source = cls_source

    def __repr__(self) -> str:
        return f"AutogradFunctionApplyVariable({self.fn_cls.__qualname__})"

    def python_type(self) -> type:
        return type(self.fn_cls.apply)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.variables.user_defined import UserDefinedClassVariable

        name = self.fn_cls.__qualname__
        # Whether forward may be inlined depends on the grad mode: a call in another mode
        # must not reuse this graph (its backward would be autograd's, not the Function's).
        tx.output.guards.add_grad_mode(tx.output.initial_grad_mode)
        forward = self.static_method(tx, "forward")
        takes_ctx = len(inspect.signature(forward.fn).parameters) != len(args) + len(kwargs)
        if records_grad([*args, *kwargs.values()]):
            if kwargs or not takes_ctx:
                unimplemented(f"{name}.apply with keywords or setup_context", gb.UNSUPPORTED_CALL)
            return apply_with_backward(tx, self, forward, self.static_method(tx, "backward"), args)
        if not takes_ctx:
            return forward.call_function(tx, args, kwargs)  # a forward without ctx (setup_context)
        no_grads = TupleVariable([ConstantVariable(False) for _ in args])
        ctx = UserDefinedClassVariable(FunctionCtx).call_function(tx, [no_grads], {})
        return forward.call_function(tx, [ctx, *args], kwargs)

    def static_method(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """The class's `forward` or `backward` (a staticmethod), its code guarded, as
        Dynamo does."""
        from minidynamo.builder import VariableBuilder

        method = inspect.getattr_static(self.fn_cls, name)
        if not isinstance(method, staticmethod):
            unimplemented(
                f"{self.fn_cls.__qualname__}.{name} is not a staticmethod", gb.UNSUPPORTED_CALL
            )
        source = None if self.cls_source is None else AttrSource(self.cls_source, name)
        return VariableBuilder(tx, source)(method.__func__)


def apply_with_backward(
    tx: InstructionTranslatorBase,
    apply: AutogradFunctionApplyVariable,
    forward: VariableTracker,
    backward: VariableTracker,
    args: list[VariableTracker],
) -> VariableTracker:
    """``Function.apply(*args)`` recording a gradient: forward and backward traced into
    subgraphs, called through ``autograd_function_apply``; its outputs."""
    from minidynamo.variables.user_defined import UserDefinedClassVariable

    name = apply.fn_cls.__qualname__
    for arg in args:
        if not isinstance(arg, (TensorVariable, ConstantVariable)):
            unimplemented(f"{name}.apply with an argument {arg!r}", gb.UNSUPPORTED_CALL)
    tensors = [arg for arg in args if _is_tensor(arg)]
    needs_grad = TupleVariable(
        [ConstantVariable(_is_tensor(arg) and arg.example_value.requires_grad) for arg in args]
    )
    since = next_serial()  # the ctx is the Function's own: forward and backward change it
    ctx = UserDefinedClassVariable(FunctionCtx).call_function(tx, [needs_grad], {})

    def run_forward(tracer: SubgraphTracer, inner: list[VariableTracker]) -> tuple:
        inner_tensors = iter(inner)
        inner_args = [next(inner_tensors) if _is_tensor(arg) else arg for arg in args]
        with _grad_disabled(tx):
            result = forward.call_function(tx, [ctx, *inner_args], {})
        outputs, kind = _tensors_of(result, f"{name}.forward's result")
        saved = tx.output.side_effects.load_attr(ctx, "to_save")
        saved_items = [] if saved is None else list(saved.items)  # type: ignore[attr-defined]
        if not all(_is_tensor(item) for item in saved_items):
            unimplemented(f"{name} saves a value that is not a tensor", gb.UNSUPPORTED_CALL)
        tracer.graph.output(
            (
                tuple(tracer.lift(out.as_proxy()).node for out in outputs),
                tuple(tracer.lift(t.as_proxy()).node for t in saved_items),
            )
        )
        return outputs, kind, saved_items

    fwd_tracer, (outputs, kind, saved) = speculate(
        tx, tensors, run_forward, f"{name}.forward", since
    )
    for attr in ("dirty_tensors", "non_differentiable", "materialize_grads"):
        if tx.output.side_effects.load_attr(ctx, attr) is not None:
            unimplemented(f"{name}.forward sets ctx.{attr}", gb.UNSUPPORTED_CALL)

    def run_backward(tracer: SubgraphTracer, inner: list[VariableTracker]) -> None:
        grads, saved_inner = inner[: len(outputs)], inner[len(outputs) :]
        tx.output.side_effects.store_attr(ctx, "to_save", TupleVariable(saved_inner))
        with _grad_disabled(tx):
            result = backward.call_function(tx, [ctx, *grads], {})
        items = result.items if isinstance(result, TupleVariable) else [result]
        if len(items) != len(args):
            unimplemented(f"{name}.backward returns {len(items)} gradients for {len(args)} inputs")
        # one gradient per tensor input: the HOP's Function takes only the tensors
        grads_out = [item for item, arg in zip(items, args, strict=True) if _is_tensor(arg)]
        for grad in grads_out:
            if not isinstance(grad, TensorVariable) and not grad.is_python_constant():
                unimplemented(f"{name}.backward returns {grad!r}", gb.UNSUPPORTED_CALL)
        tracer.graph.output(
            tuple(
                tracer.lift(g.as_proxy()).node if isinstance(g, TensorVariable) else None
                for g in grads_out
            )
        )

    # The backward's inputs: the gradients, named as its parameters, then the saved tensors.
    params = list(inspect.signature(backward.fn).parameters.values())[1:]  # type: ignore[attr-defined]
    grad_names = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    if len(grad_names) != len(outputs):  # ``backward(ctx, *grads)``
        grad_names = [f"grad_{i}" for i in range(len(outputs))]
    names = grad_names + [t.as_proxy().node.name for t in saved]
    detached = [_detached(out) for out in outputs] + [_detached(t) for t in saved]
    bwd_tracer, _ = speculate(
        tx, detached, run_backward, f"{name}.backward", since, names
    )
    if fwd_tracer.lifted or bwd_tracer.lifted:
        unimplemented(f"{name}: forward or backward reads a tensor of the enclosing graph")
    fwd_gm = tx.output.install_subgraph(tx, "fwd_body", fwd_tracer)
    bwd_gm = tx.output.install_subgraph(tx, "bwd_body", bwd_tracer)
    options = {"non_differentiable_idx": [], "saved_for_backward_idx": list(range(len(saved)))}
    items = call_op(
        tx,
        torch.ops.higher_order.autograd_function_apply,
        (fwd_gm, bwd_gm, *(t.as_proxy() for t in tensors)),
        options,
        name,
    )
    return restructure(items, kind)


@contextlib.contextmanager
def _grad_disabled(tx: InstructionTranslatorBase) -> Iterator[None]:
    """Forward and backward run under no grad in the op's Function: the switches are
    recorded in their graphs, as Dynamo's are."""
    before = torch.is_grad_enabled()
    set_grad_enabled(tx, False)
    try:
        yield
    finally:
        set_grad_enabled(tx, before)


def _is_tensor(value: VariableTracker) -> bool:
    return isinstance(value, TensorVariable)


def _tensors_of(result: VariableTracker, what: str) -> tuple[list[TensorVariable], type]:
    if isinstance(result, TensorVariable):
        return [result], TensorVariable
    if isinstance(result, TupleVariable) and all(
        isinstance(item, TensorVariable) for item in result.items
    ):
        return list(result.items), TupleVariable
    unimplemented(f"{what} is {result!r}, not tensors", gb.UNSUPPORTED_CALL)


def _detached(value: TensorVariable) -> TensorVariable:
    """A backward input standing for `value` (a gradient of it or the tensor saved):
    the same proxy (its placeholder's name), an example that requires no grad."""
    return TensorVariable(value.as_proxy(), value.example_value.detach())
