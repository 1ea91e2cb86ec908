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
- a class's own ``__torch_function__`` is user code, which the trace does not run
  yet: the operation breaks the graph (GB0034) and runs in CPython;
- inside ``with torch._C.DisableTorchFunctionSubclass()`` no class is asked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase

_DEFAULT_TORCH_FUNCTION = torch.Tensor.__torch_function__.__func__  # type: ignore[attr-defined]
_PLAIN = (torch.Tensor, torch.nn.Parameter)


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
    for cls in types:
        if dispatch_class(cls) == "override":
            unimplemented(
                f"{name} of a tensor subclass {cls.__qualname__} with its own "
                "__torch_function__",
                gb.TENSOR_SUBCLASS_TORCH_FUNCTION,
            )
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
    check_wrappable(cls)
    if dispatch_class(tensor.class_type) == "override":
        unimplemented(
            f"as_subclass of a tensor subclass {tensor.class_type.__qualname__} with its own "
            "__torch_function__",
            gb.TENSOR_SUBCLASS_TORCH_FUNCTION,
        )
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
