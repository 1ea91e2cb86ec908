"""`TorchInGraphFunctionVariable`: functions of the `torch` namespace (seed:
`TorchInGraphFunctionVariable(<built-in method any>)`).

A call with tensor arguments, or a call of a tensor factory, becomes a `call_function`
node whose target is the torch function itself. A few functions that only inspect their
arguments are evaluated on the example values instead.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
import torch._refs
import torch.utils._pytree as pytree
from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.exc import unimplemented
from minidynamo.trace_rules import Rule
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, fold
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.functions import FUNCTION_NAME_ATTRIBUTES, UserFunctionVariable
from minidynamo.variables.functorch import call_functorch_effect
from minidynamo.variables.lists import SizeVariable, TupleVariable
from minidynamo.variables.numpy import is_ndarray, is_numpy_scalar, specialize_arguments
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

# Functions that make a tensor from constants only (no tensor argument).
TENSOR_FACTORIES = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "empty_strided",
        "empty_permuted",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "tril_indices",
        "triu_indices",
        "hann_window",
        "hamming_window",
        "bartlett_window",
        "blackman_window",
        "kaiser_window",
        "normal",  # normal(mean, std, size) of two numbers
        "tensor",
        "as_tensor",
        "asarray",
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

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """Its names (``torch.sin.__name__``) are constants of the function."""
        if name in FUNCTION_NAME_ATTRIBUTES and hasattr(self.fn, name):
            return ConstantVariable(getattr(self.fn, name))
        if isinstance(self.fn, torch._ops.OpOverloadPacket) and not name.startswith("_"):
            # An overload of an operator (`torch.ops.aten.add.Tensor`): an operator too.
            try:
                overload = getattr(self.fn, name)
            except AttributeError:
                unimplemented(f"operator {self.fn} has no overload {name!r}")
            return TorchInGraphFunctionVariable(overload)
        if not hasattr(self.fn, name):  # `functools.wraps` asks a builtin for __annotations__
            kind = type(self.fn).__name__
            raise_observed(AttributeError, f"{kind!r} object has no attribute {name!r}")
        return super().var_getattr(tx, name)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if trace_rules.lookup(self.fn) is Rule.CONSTANT_FOLD:
            if self.fn in trace_rules.TRACE_TIME_RESULTS:
                return ConstantVariable.create(trace_rules.TRACE_TIME_RESULTS[self.fn])
            if self.fn in trace_rules.GLOBAL_STATE_QUERIES:
                _guard_global_query(tx, self.fn)
            return self._evaluate_on_examples(args, kwargs)
        if self.fn in trace_rules.SYMBOLIC_NUMBER_FUNCTIONS and not kwargs:
            if any(_holds_symbol(arg) for arg in args):
                return tx.output.call(tx, "call_function", self.fn, args)
            return self._evaluate_on_examples(args, kwargs)
        if self.fn in trace_rules.FUNCTORCH_EFFECTS:
            return call_functorch_effect(tx, self.fn, args, kwargs)
        if self.fn in trace_rules.ASSERT_FUNCTIONS:
            return self._assert(tx, args, kwargs)
        if self.fn is torch.compile:
            return _compile_in_region(args, kwargs)
        if self.fn is torch.set_default_dtype:
            return _set_default_dtype(tx, args, kwargs)
        if self.fn is torch.autograd.grad:
            unimplemented("torch.autograd.grad runs in CPython", gb.AUTOGRAD_GRAD)
        if self.fn is torch.Size:
            return _make_size(tx, args, kwargs)
        if any(is_ndarray(arg) for arg in [*args, *kwargs.values()]):
            return self._call_on_ndarray(tx, args, kwargs)
        has_tensor = any(
            isinstance(arg, TensorVariable)
            for arg in pytree.tree_leaves(
                ([_flatten(a) for a in args], [_flatten(a) for a in kwargs.values()])
            )
        )
        if self.fn is torch.tensor and args and _holds_graph_numbers(args[0]):
            # `torch.tensor([x.sum().item(), 1.0])`, `torch.tensor([x[0], x[1]])`: torch's
            # Python reference builds the tensor from symbolic numbers and 0-dim tensors
            # without reading their values, as Dynamo does.
            return tx.output.call(tx, "call_function", torch._refs.tensor, args, kwargs)
        if (
            has_tensor
            or getattr(self.fn, "__name__", "") in TENSOR_FACTORIES
            or self.fn in trace_rules.EFFECT_NODES
        ):
            return tx.output.call(tx, "call_function", self.fn, args, kwargs)
        if isinstance(self.fn, types.FunctionType) and trace_rules.in_modules(
            self.fn.__module__, trace_rules.INLINE_WITHOUT_TENSORS
        ):
            # A Python helper on non-tensors (`F._none_or_dtype(mask)`): traced, as Dynamo
            # inlines the modules of its MOD_INLINELIST.
            return UserFunctionVariable(self.fn).call_function(tx, args, kwargs)
        unimplemented(f"call to {self.fn!r} without tensor arguments")

    def _call_on_ndarray(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """An ndarray is in the graph as its tensor already: `torch.from_numpy(a)` and
        `torch.as_tensor(a)` are a tensor view of it (``torch.as_tensor``, as Dynamo),
        `torch.tensor(a)` a copy. Other torch functions reject an ndarray in eager."""
        if self.fn in (torch.from_numpy, torch.as_tensor) and len(args) == 1:
            return tx.output.call(tx, "call_function", torch.as_tensor, args, kwargs)
        if self.fn is torch.tensor and len(args) == 1:
            view = tx.output.call(tx, "call_function", torch.as_tensor, args, kwargs)
            return view.call_method(tx, "clone", [], {})
        arrays = [arg for arg in [*args, *kwargs.values()] if is_ndarray(arg)]
        if all(is_numpy_scalar(arg) for arg in arrays):
            return self.call_function(tx, *specialize_arguments(tx, args, kwargs))
        unimplemented(f"{self.fn.__name__}() of an ndarray")

    def _assert(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``torch._assert(cond, msg)`` / ``torch._check(cond)``: a condition known now
        (a constant, or a size guarded on) vanishes when true and raises as eager when
        false. On a tensor Dynamo stops with a data-dependent error: we run eagerly."""
        condition = _assert_condition(tx, self.fn, args, kwargs)
        if condition is None or isinstance(condition, TensorVariable):
            unimplemented(f"{self.fn.__name__}() on a tensor condition")
        if condition.bool_value():
            return ConstantVariable(None)
        return self._evaluate_on_examples(args, kwargs)

    def _evaluate_on_examples(
        self, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
    ) -> VariableTracker:
        from minidynamo.variables.symnode import SymNodeVariable

        def example(vt: VariableTracker) -> Any:
            if isinstance(vt, TensorVariable):
                return vt.example_value
            if isinstance(vt, SymNodeVariable) and self.fn is torch.is_tensor:
                return vt.example_value  # a number: `torch.is_tensor(f)` of a dynamic float
            return vt.as_python_constant()

        values = list(map(example, args))
        kwvalues = {k: example(v) for k, v in kwargs.items()}
        if self.fn in trace_rules.CLASS_FACTORIES:
            from minidynamo.builder import wrap_class

            return wrap_class(self.fn(*values, **kwvalues))
        return fold(self.fn, values, kwvalues)


def _assert_condition(
    tx: InstructionTranslatorBase,
    fn: Callable,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> VariableTracker | None:
    """The condition an assertion function checks: its first argument, but the second
    of ``torch._check_with(error_type, cond, message)``, and ``i >= 0`` for
    ``torch._check_is_size(i)``."""
    from minidynamo.variables.operators import call_operator

    if fn is torch._check_with:
        return args[1] if len(args) > 1 else kwargs.get("cond")
    if fn is torch._check_is_size:
        size = args[0] if args else kwargs.get("i")
        if size is None or len(args) > 1 or "max" in kwargs:
            return None  # with an upper bound: not modelled
        return call_operator(tx, operator.ge, [size, ConstantVariable(0)])
    return args[0] if args else kwargs.get("cond", kwargs.get("condition"))


def _make_size(
    tx: InstructionTranslatorBase,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> VariableTracker:
    """``torch.Size(seq)``: the tuple of its items, as Dynamo simulates Size.__new__; a
    symbolic dim (``torch.Size([x.shape[0] * 2])``) stays a SymNode item. Anything but
    ints is left to torch.Size itself, on constants (which raises as eager)."""
    from minidynamo.variables.builtin import BuiltinVariable

    if len(args) == 1 and not kwargs and not args[0].is_python_constant():
        items = BuiltinVariable(tuple).call_function(tx, args, kwargs)
        if isinstance(items, TupleVariable) and all(
            item.python_type() is int for item in items.items
        ):
            return SizeVariable(items.items)
    values = [arg.as_python_constant() for arg in args]
    kwvalues = {k: v.as_python_constant() for k, v in kwargs.items()}
    return SizeVariable.of(torch.Size(*values, **kwvalues))


def _compile_in_region(
    args: list[VariableTracker], kwargs: dict[str, VariableTracker]
) -> VariableTracker:
    """``torch.compile(fn, ...)`` inside a compiled region: calling what it returns calls
    `fn`, inlined in this trace as Dynamo does (the options do not apply to it)."""
    from minidynamo.variables.functions import NestedUserFunctionVariable

    model = args[0] if args else kwargs.get("model")
    if isinstance(model, (UserFunctionVariable, NestedUserFunctionVariable)):
        return model
    unimplemented(f"torch.compile() of {model!r} inside a compiled region")


def _holds_symbol(vt: VariableTracker) -> bool:
    """A symbolic number among the items of (nested) lists and tuples."""
    from minidynamo.variables.symnode import SymNodeVariable

    return any(isinstance(leaf, SymNodeVariable) for leaf in pytree.tree_leaves(_flatten(vt)))


def tensor_of_graph_numbers(
    tx: InstructionTranslatorBase,
    like: TensorVariable,
    data: VariableTracker,
    kwargs: dict[str, VariableTracker],
) -> VariableTracker | None:
    """``like.new_tensor(data)`` of symbolic numbers or 0-dim tensors: Dynamo's
    method_new_tensor, ``torch.tensor(data)`` of `like`'s dtype and device (so built by
    torch._refs.tensor in the graph); None for other data, an ordinary method call."""
    if not _holds_graph_numbers(data) or set(kwargs) - {"dtype", "device", "requires_grad"}:
        return None
    example = like.example_value
    defaults = {
        "dtype": ConstantVariable(example.dtype),
        "device": ConstantVariable(example.device),
    }
    return TorchInGraphFunctionVariable(torch.tensor).call_function(
        tx, [data], {**defaults, **kwargs}
    )


def _holds_graph_numbers(data: VariableTracker) -> bool:
    """`torch.tensor(data)` of a symbolic number, or of a list holding symbolic numbers
    or 0-dim tensors and no tensor of more dims (eager reads that as a sequence,
    torch._refs.tensor does not)."""
    if not isinstance(getattr(data, "items", None), list):
        return _holds_symbol(data)
    tensors = [
        leaf for leaf in pytree.tree_leaves(_flatten(data)) if isinstance(leaf, TensorVariable)
    ]
    if any(tensor.example_value.dim() != 0 for tensor in tensors):
        return False
    return bool(tensors) or _holds_symbol(data)


def _flatten(vt: VariableTracker) -> Any:
    """The VariableTrackers inside nested lists and tuples (e.g. `torch.cat([x, y])`)."""
    items = getattr(vt, "items", None)
    if isinstance(items, list):
        return [_flatten(item) for item in items]
    return vt


def _guard_global_query(tx: InstructionTranslatorBase, query: Callable) -> None:
    """Guard the setting `query` reads on its value when the frame is entered."""
    output = tx.output
    entry = output.initial_default_dtype if query is torch.get_default_dtype else query()
    output.guards.add_global_query(query, entry)


def _set_default_dtype(
    tx: InstructionTranslatorBase,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> VariableTracker:
    """``torch.set_default_dtype(d)``: a node, so the graph sets it on every call, as
    Dynamo's does; set for real for the rest of the trace (the factories after it make
    `d`, `torch.get_default_dtype()` folds to it) and set back when the trace ends."""
    values = [*args, *kwargs.values()]
    dtype = (
        values[0].as_python_constant()
        if len(values) == 1 and values[0].is_python_constant()
        else None
    )
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        unimplemented("torch.set_default_dtype of something else than a floating dtype")
    prior = torch.get_default_dtype()
    tx.output.create_proxy(tx, "call_function", torch.set_default_dtype, (dtype,), {}, example=None)
    torch.set_default_dtype(dtype)
    tx.output.switch_global_state(lambda: torch.set_default_dtype(prior))
    return ConstantVariable(None)
