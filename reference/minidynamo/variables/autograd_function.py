"""`MyFunction.apply(*args)` of a custom `torch.autograd.Function`, read from its class by
UserDefinedClassVariable.var_getattr.

Where the call records nothing for backward (grad mode off, or no tensor argument requires
grad), apply is just ``forward(ctx, *args)``: the forward is inlined like user code, with a
new `polyfills.autograd.FunctionCtx` as ctx, and its ops land in the graph (Dynamo's
AutogradFunctionVariable does the same). Where a gradient is recorded, Dynamo builds a
higher-order op holding forward and backward; we do not model that: a graph break, and
CPython's apply runs the Function as in eager.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.polyfills.autograd import FunctionCtx
from minidynamo.source import AttrSource, Source
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.lists import BaseListVariable, TupleVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase


def records_grad(values: list[VariableTracker]) -> bool:
    """Whether a call with these arguments would be recorded by autograd: grad mode on
    (the mode the trace is in) and some tensor among them, nested ones too, requiring grad."""
    from minidynamo.variables.dicts import ConstDictVariable
    from minidynamo.variables.tensor import TensorVariable

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
        from minidynamo.builder import VariableBuilder
        from minidynamo.variables.user_defined import UserDefinedClassVariable

        name = self.fn_cls.__qualname__
        # Whether forward may be inlined depends on the grad mode: a call in another mode
        # must not reuse this graph (its backward would be autograd's, not the Function's).
        tx.output.guards.add_grad_mode(tx.output.initial_grad_mode)
        if records_grad([*args, *kwargs.values()]):
            unimplemented(
                f"{name}.apply with an input that requires grad (its backward is not traced)",
                gb.UNSUPPORTED_CALL,
            )
        forward = inspect.getattr_static(self.fn_cls, "forward")
        if not isinstance(forward, staticmethod):
            unimplemented(f"{name}.forward is not a staticmethod", gb.UNSUPPORTED_CALL)
        source = None if self.cls_source is None else AttrSource(self.cls_source, "forward")
        fn = VariableBuilder(tx, source)(forward.__func__)  # its code guarded, as Dynamo does
        if len(inspect.signature(forward.__func__).parameters) == len(args) + len(kwargs):
            return fn.call_function(tx, args, kwargs)  # a forward without ctx (setup_context)
        no_grads = TupleVariable([ConstantVariable(False) for _ in args])
        ctx = UserDefinedClassVariable(FunctionCtx).call_function(tx, [no_grads], {})
        return fn.call_function(tx, [ctx, *args], kwargs)
