"""`TorchInGraphFunctionVariable`: functions of the `torch` namespace (seed:
`TorchInGraphFunctionVariable(<built-in method any>)`).

A call with tensor arguments, or a call of a tensor factory, becomes a `call_function`
node whose target is the torch function itself. A few functions that only inspect their
arguments are evaluated on the example values instead.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
import torch.utils._pytree as pytree
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_value
from minidynamo.variables.functions import UserFunctionVariable
from minidynamo.variables.lists import SizeVariable
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

# Functions answered at trace time from the (static) example values.
CONSTANT_RESULT_FUNCTIONS: frozenset[Callable] = frozenset(
    {
        torch.is_tensor,
        torch.is_floating_point,
        torch.is_complex,
        torch.numel,
        torch.get_default_dtype,
        torch.is_grad_enabled,
        torch.is_inference_mode_enabled,
        torch.device,
        torch.finfo,
        torch.iinfo,
        torch.result_type,
        torch.promote_types,
        torch.can_cast,
        torch.backends.mha.get_fastpath_enabled,
        torch.is_autocast_enabled,
        torch._assert,  # a constant condition: None, or the AssertionError eager raises
    }
)

# Queries whose answer inside a trace is not their answer outside one (no user
# dispatch mode is active in the graph: the fake mode is the tracer's own).
TRACE_TIME_ANSWERS: dict[Callable, object] = {
    torch.compiler.is_compiling: True,
    torch.compiler.is_dynamo_compiling: True,
    torch.compiler.is_exporting: False,
    torch.jit.is_scripting: False,
    torch.jit.is_tracing: False,
    torch.utils._python_dispatch._get_current_dispatch_mode_stack: [],
    torch._C._get_tracing_state: None,
}

# Calls made for their effect outside the graph only (usage logging): None, at trace time.
NO_OP_FUNCTIONS = frozenset({torch._C._log_api_usage_once})

# Modules whose Python functions are inlined when called without tensor arguments.
INLINED = ("torch.nn.",)

# Functions that make a tensor from constants only (no tensor argument).
TENSOR_FACTORIES = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "tensor",
        "as_tensor",
        "scalar_tensor",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
    }
)


class TorchInGraphFunctionVariable(VariableTracker):
    """A function from the torch namespace, recorded in the graph when called."""

    def __init__(self, fn: Callable, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.fn = fn

    def __repr__(self) -> str:
        module = getattr(self.fn, "__module__", None) or "torch"
        return f"TorchInGraphFunctionVariable({module}.{self.fn.__name__})"

    def python_type(self) -> type:
        return type(self.fn)

    def as_python_constant(self) -> Any:
        return self.fn

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if self.fn in TRACE_TIME_ANSWERS and not args and not kwargs:
            return ConstantVariable.create(TRACE_TIME_ANSWERS[self.fn])
        if self.fn in NO_OP_FUNCTIONS:
            return ConstantVariable.create(None)
        if self.fn in CONSTANT_RESULT_FUNCTIONS:
            return self._evaluate_on_examples(args, kwargs)
        if self.fn is torch.Size:
            return SizeVariable.of(torch.Size(args[0].as_python_constant() if args else ()))
        has_tensor = any(
            isinstance(arg, TensorVariable)
            for arg in pytree.tree_leaves(
                ([_flatten(a) for a in args], [_flatten(a) for a in kwargs.values()])
            )
        )
        if has_tensor or getattr(self.fn, "__name__", "") in TENSOR_FACTORIES:
            return tx.output.call(tx, "call_function", self.fn, args, kwargs)
        if isinstance(self.fn, types.FunctionType) and self.fn.__module__.startswith(INLINED):
            # A Python helper on non-tensors (`F._none_or_dtype(mask)`): traced, as Dynamo
            # inlines the modules of its MOD_INLINELIST.
            return UserFunctionVariable(self.fn).call_function(tx, args, kwargs)
        unimplemented(f"call to {self.fn!r} without tensor arguments")

    def _evaluate_on_examples(
        self, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
    ) -> VariableTracker:
        def example(vt: VariableTracker) -> Any:
            if isinstance(vt, TensorVariable):
                return vt.example_value
            return vt.as_python_constant()

        result = self.fn(*map(example, args), **{k: example(v) for k, v in kwargs.items()})
        if not is_constant_value(result):
            unimplemented(f"{self.fn!r} returned a {type(result).__name__}")
        return ConstantVariable.create(result)


def _flatten(vt: VariableTracker) -> Any:
    """The VariableTrackers inside nested lists and tuples (e.g. `torch.cat([x, y])`)."""
    items = getattr(vt, "items", None)
    if isinstance(items, list):
        return [_flatten(item) for item in items]
    return vt
