"""Tensor subclasses: ``class MyTensor(torch.Tensor)`` as the trace sees it.

A tensor of a Python subclass is an ordinary `TensorVariable` whose `class_type` is
the subclass: the graph computes plain tensors, and a result is made the subclass
again outside the graph (``graph_out_0[0].as_subclass(MyTensor)``), as Dynamo's
TensorWithTFOverrideVariable does. Which class an operation returns is what torch's
``__torch_function__`` protocol decides in eager:

- `torch.Tensor.__torch_function__` (the default) runs the op with subclass dispatch
  disabled and converts each tensor result to the most derived class of the
  arguments (`torch._tensor._convert`), or raises TypeError for unrelated classes;
- `torch._C._disabled_torch_function_impl` (`nn.Parameter`) leaves results plain;
- a class's own ``__torch_function__`` is user code, which the trace inlines as
  eager calls it (`dispatch_torch_function`): with the operation's eager ``func``
  (`eager_func`), the classes, the arguments tuple and the keyword dict; inside it,
  ``super().__torch_function__`` is the default above;
- inside ``with torch._C.DisableTorchFunctionSubclass()`` no class is asked.
"""

from __future__ import annotations

import functools
import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.descriptors import NamedCallableVariable
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase

_DEFAULT_TORCH_FUNCTION = torch.Tensor.__torch_function__.__func__  # type: ignore[attr-defined]
_PLAIN = (torch.Tensor, torch.nn.Parameter)
_TENSOR_BASES = (torch.Tensor, torch._C.TensorBase)


def is_subclass_tensor(value: object) -> bool:
    """A tensor of a Python subclass (`nn.Parameter`, torch's own, excepted)."""
    return isinstance(value, torch.Tensor) and type(value) not in _PLAIN


def without_subclass_dispatch(compiled: Callable) -> Callable:
    """The compiled graph called with subclass dispatch disabled: its subclass inputs
    compute plain tensors, as the graph was traced (the code after it makes a result
    the subclass the trace found, or leaves it plain)."""

    @functools.wraps(compiled)
    def run(*args: Any) -> Any:
        with torch._C.DisableTorchFunctionSubclass():
            return compiled(*args)

    return run


def dispatch_class(cls: type) -> str:
    """How `cls`'s ``__torch_function__`` treats an operation: "disabled" (results
    stay plain), "default" (`Tensor.__torch_function__`) or "override" (its own)."""
    impl = getattr(cls, "__torch_function__", None)
    if impl is torch._C._disabled_torch_function_impl:
        return "disabled"
    if getattr(impl, "__func__", None) is _DEFAULT_TORCH_FUNCTION:
        return "default"
    return "override"


# Special methods a subclass may define that the trace still follows: a tensor of it
# is made with `as_subclass` (neither is called), `__torch_function__` is asked, and
# the text of a tensor is never made in the trace (repr(), str() break the graph).
_FOLLOWED_SPECIAL_METHODS = frozenset(
    {"__new__", "__init__", "__torch_function__", "__repr__", "__str__", "__format__"}
)


def check_wrappable(cls: type) -> None:
    """A tensor of subclass `cls` is traced unless it dispatches at the ATen level
    (``__torch_dispatch__``: a wrapper subclass, whose data the fake tensor lacks) or
    redefines a special method of torch's (``__add__``, ``__getitem__``), which the
    trace's operators on tensors would skip."""
    if getattr(cls, "__torch_dispatch__", None) is not torch.Tensor.__torch_dispatch__:
        unimplemented(
            f"tensor subclass {cls.__qualname__} with __torch_dispatch__", gb.TENSOR_SUBCLASS
        )
    for klass in cls.__mro__[: cls.__mro__.index(torch.Tensor)]:
        for name, attr in vars(klass).items():
            special = name.startswith("__") and name not in _FOLLOWED_SPECIAL_METHODS
            method = callable(attr) or isinstance(attr, (classmethod, staticmethod, property))
            if special and method and hasattr(torch.Tensor, name):
                unimplemented(
                    f"tensor subclass {cls.__qualname__} redefines {name}", gb.TENSOR_SUBCLASS
                )


def _tensor_args(values: list[VariableTracker]) -> list[TensorVariable]:
    """The tensors among `values`, in lists and tuples too (``torch.cat([a, b])``)."""
    from minidynamo.variables.lists import BaseListVariable

    found: list[TensorVariable] = []
    for value in values:
        if isinstance(value, TensorVariable):
            found.append(value)
        elif isinstance(value, BaseListVariable):
            found.extend(_tensor_args(value.items))
    return found


def overloaded_types(values: list[VariableTracker]) -> list[type]:
    """The classes asked, in the order torch asks them: by first appearance, a
    subclass before its base classes (`torch.overrides._get_overloaded_args`)."""
    types: list[type] = []
    for tensor in _tensor_args(values):
        cls = tensor.class_type  # an ndarray's is its tensor's
        if cls in _PLAIN or cls in types or dispatch_class(cls) == "disabled":
            continue
        position = next((i for i, t in enumerate(types) if issubclass(cls, t)), len(types))
        types.insert(position, cls)
    return types


def overriding_types(
    tx: InstructionTranslatorBase,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker] | None,
) -> list[type]:
    """The classes asked (`overloaded_types`) when one of them has its own
    ``__torch_function__`` and dispatch is enabled; else none."""
    types = overloaded_types([*args, *(kwargs or {}).values()])
    if not any(dispatch_class(cls) == "override" for cls in types):
        return []
    tx.output.guards.add_torch_function_enabled(tx.output.initial_torch_function_enabled)
    return types if tx.output.torch_function_subclass_enabled else []


def _captured_func(op: Callable, tensor_first: bool) -> Callable:
    """The ``func`` eager gives ``__torch_function__`` for the operator `op`
    (``a + b`` asks with ``Tensor.add``, ``1 - t`` with ``Tensor.__rsub__``): found by
    running `op` on small tensors under a mode that records it."""
    found: list[Callable] = []

    class Record(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            found.append(func)
            return func(*args, **(kwargs or {}))

    operand = torch.ones(1, dtype=torch.int64)
    with Record():
        try:
            op(operand) if op in _UNARY_OPERATORS else (
                op(operand, 1) if tensor_first else op(1, operand)
            )
        except Exception:  # noqa: BLE001 - the operands are refused after the mode asked
            pass
    return found[0] if found else op


_UNARY_OPERATORS = frozenset({operator.neg, operator.pos, operator.invert, operator.abs})


@functools.cache
def _operator_func(op: Callable, tensor_first: bool) -> Callable:
    return _captured_func(op, tensor_first)


def eager_func(kind: str, target: Any, args: list[VariableTracker]) -> tuple[Any, list]:
    """The ``func`` eager passes ``__torch_function__`` for graph operation `target`,
    and the arguments as it passes them (a reflected operator's swapped)."""
    if kind == "call_method":
        return getattr(torch.Tensor, target), args
    if getattr(operator, getattr(target, "__name__", ""), None) is target:
        tensor_first = isinstance(args[0], TensorVariable)
        func = _operator_func(target, tensor_first)
        if not tensor_first and len(args) == 2:
            return func, [args[1], args[0]]
        return func, args
    return target, args


def func_variable(tx: InstructionTranslatorBase, func: Any) -> VariableTracker:
    """`func` as user code reads it: a tensor method as ``torch.Tensor.<name>`` (called,
    it is the method of its first argument), anything else as itself."""
    from minidynamo.builder import VariableBuilder, wrap_class

    getset = getattr(func, "__self__", None)
    if isinstance(getset, types.GetSetDescriptorType) and getset.__objclass__ in _TENSOR_BASES:
        return AttributeGetterVariable(getset.__name__)
    name = getattr(func, "__name__", None)
    if name is not None and getattr(torch.Tensor, name, None) is func:
        return wrap_class(torch.Tensor).var_getattr(tx, name)
    return VariableBuilder(tx, None)(func)


def dispatch_torch_function(
    tx: InstructionTranslatorBase,
    types: list[type],
    func: Any,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker] | None,
) -> VariableTracker:
    """``func(*args, **kwargs)`` as eager runs it on tensors of `types`: each class's
    ``__torch_function__(func, types, args, kwargs)`` inlined in turn until one does
    not return NotImplemented (its side effects replayed as any user code's)."""
    from minidynamo.builder import wrap_class
    from minidynamo.variables.dicts import ConstDictVariable
    from minidynamo.variables.lists import TupleVariable

    tf_args = [
        func_variable(tx, func),
        TupleVariable([wrap_class(cls) for cls in types]),
        TupleVariable(list(args)),
        ConstDictVariable(dict(kwargs or {})),
    ]
    for cls in types:
        method = wrap_class(cls).var_getattr(tx, "__torch_function__")
        result = method.call_function(tx, tf_args, {})
        if not (result.is_python_constant() and result.as_python_constant() is NotImplemented):
            return result
    names = ", ".join(cls.__qualname__ for cls in types)
    unimplemented(
        f"every __torch_function__ of {names} returned NotImplemented (eager raises TypeError)",
        gb.TENSOR_SUBCLASS_TORCH_FUNCTION,
    )


def result_class(
    tx: InstructionTranslatorBase,
    name: str,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker] | None,
) -> type | None:
    """The subclass the tensors of operation `name`'s result are, or None (plain)."""
    types = overloaded_types([*args, *(kwargs or {}).values()])
    if not types:
        return None
    tx.output.guards.add_torch_function_enabled(tx.output.initial_torch_function_enabled)
    if not tx.output.torch_function_subclass_enabled:
        return None
    for cls in types:  # only default ones: an own __torch_function__ was dispatched to
        if all(issubclass(cls, other) for other in types):
            return cls
    if types:  # every default implementation returned NotImplemented: eager raises
        names = ", ".join(cls.__qualname__ for cls in types)
        unimplemented(f"{name} of tensors of unrelated subclasses {names}", gb.TENSOR_SUBCLASS)
    return None


def convert_result(result: VariableTracker, cls: type | None) -> VariableTracker:
    """`result` with its tensors made `cls` (`torch._tensor._convert`): the tensor
    itself, or those of a list or tuple result."""
    from minidynamo.variables.lists import BaseListVariable

    if cls is None:
        return result
    if isinstance(result, TensorVariable) and not issubclass(result.class_type, cls):
        result.class_type = cls
    elif isinstance(result, BaseListVariable):
        for item in result.items:
            convert_result(item, cls)
    return result


def as_subclass(tensor: TensorVariable, cls: type) -> TensorVariable:
    """``t.as_subclass(cls)``: a new tensor object of `cls` on the same data; no graph
    node, as in Dynamo (the graph sees one tensor)."""
    if not (isinstance(cls, type) and issubclass(cls, torch.Tensor)):
        unimplemented(f"as_subclass of {cls!r}", gb.TENSOR_SUBCLASS)
    check_wrappable(cls)  # torch does not ask __torch_function__ about as_subclass
    return TensorVariable(tensor.proxy, tensor.example_value, class_type=cls)


def make_subclass(
    tx: InstructionTranslatorBase,
    cls: VariableTracker,
    data: VariableTracker,
    require_grad: VariableTracker | None = None,
) -> VariableTracker:
    """``torch.Tensor._make_subclass(cls, data)``: `data` detached, made `cls` (as
    Dynamo records it: a ``detach`` node)."""
    if not (cls.is_python_constant() and isinstance(data, TensorVariable)):
        unimplemented("torch.Tensor._make_subclass of a non-tensor", gb.TENSOR_SUBCLASS)
    if require_grad is not None and (
        not require_grad.is_python_constant() or require_grad.as_python_constant()
    ):
        unimplemented("torch.Tensor._make_subclass(..., require_grad=True)", gb.TENSOR_SUBCLASS)
    detached = tx.output.call_proxies(tx, "call_method", "detach", (data.as_proxy(),), {})
    assert isinstance(detached, TensorVariable)
    return as_subclass(detached, cls.as_python_constant())


class DefaultTorchFunctionVariable(VariableTracker):
    """``torch.Tensor.__torch_function__`` bound to subclass `cls` (what
    ``super().__torch_function__`` finds): called with ``(func, types, args, kwargs)``,
    NotImplemented unless `cls` derives from every class of `types`, else ``func``
    run with subclass dispatch disabled and its tensors made `cls`
    (`torch._tensor._convert`), as the method does in eager."""

    def __init__(self, cls: type) -> None:
        super().__init__()
        self.cls = cls

    def __repr__(self) -> str:
        return f"DefaultTorchFunctionVariable({self.cls.__qualname__})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.variables.constant import ConstantVariable
        from minidynamo.variables.dicts import ConstDictVariable
        from minidynamo.variables.lists import BaseListVariable

        names = ("func", "types", "args", "kwargs")
        bound = dict(zip(names, args[: len(names)], strict=False)) | kwargs
        func, classes = bound.get("func"), bound.get("types")
        op_args, op_kwargs = bound.get("args"), bound.get("kwargs")
        no_kwargs = (
            op_kwargs is None
            or op_kwargs.is_python_constant()
            and not (op_kwargs.as_python_constant())
        )
        if (
            len(args) > len(names)
            or func is None
            or not (classes is not None and classes.is_python_constant())
            or not (op_args is None or isinstance(op_args, BaseListVariable))
            or not (no_kwargs or isinstance(op_kwargs, ConstDictVariable))
        ):
            unimplemented(
                f"Tensor.__torch_function__ of {self.cls.__qualname__} with these arguments",
                gb.TENSOR_SUBCLASS_TORCH_FUNCTION,
            )
        if not all(issubclass(self.cls, other) for other in classes.as_python_constant()):
            return ConstantVariable(NotImplemented)
        positional = list(op_args.items) if op_args is not None else []
        keywords = dict(op_kwargs.items) if isinstance(op_kwargs, ConstDictVariable) else {}
        output = tx.output
        enabled, output.torch_function_subclass_enabled = (
            output.torch_function_subclass_enabled,
            False,
        )
        try:
            result = func.call_function(tx, positional, keywords)
        finally:
            output.torch_function_subclass_enabled = enabled
        if func.is_python_constant() and func.as_python_constant() in _NOWRAP_FUNCTIONS:
            return result
        return convert_result(result, self.cls)


_NOWRAP_FUNCTIONS = torch.overrides.get_default_nowrap_functions()


class AttributeGetterVariable(NamedCallableVariable):
    """``torch.Tensor.<name>.__get__``, the ``func`` eager gives ``__torch_function__``
    for reading attribute `name` (``x.shape``): called on a tensor, the attribute."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __repr__(self) -> str:
        return f"AttributeGetterVariable({self.name})"

    def as_python_constant(self) -> Any:
        return getattr(torch.Tensor, self.name).__get__

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if len(args) != 1 or kwargs or not isinstance(args[0], TensorVariable):
            unimplemented(f"Tensor.{self.name}.__get__ with {args!r}", gb.TENSOR_SUBCLASS)
        return args[0].var_getattr(tx, self.name)
