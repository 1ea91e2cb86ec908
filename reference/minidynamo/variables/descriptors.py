"""`MethodDescriptorVariable`: a C-level method of a builtin class read from the class
and called directly (`list.append(l, x)`, `dict.__getitem__(d, k)`, `torch.Tensor.mul(x, 3)`,
`object.__setattr__(self, k, v)`). Made by attribute reads on classes (user_defined,
builtin); the call is the same method called on its first argument, so each receiver's
VariableTracker answers it as it answers `l.append(x)`.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase

# The C methods and slot wrappers of builtin classes (`list.append`, `object.__setattr__`).
DESCRIPTOR_TYPES = (types.MethodDescriptorType, types.WrapperDescriptorType)


def is_method_descriptor(attr: object) -> bool:
    return isinstance(attr, DESCRIPTOR_TYPES)


class NamedCallableVariable(VariableTracker):
    """A tracker of a C callable whose `as_python_constant` is that callable: its names
    (``func.__name__`` in a ``__torch_function__``) are constants."""

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name in ("__name__", "__qualname__"):
            return ConstantVariable(getattr(self.as_python_constant(), name))
        return super().var_getattr(tx, name)


class MethodDescriptorVariable(NamedCallableVariable):
    """``owner.name`` where the attribute is a C method descriptor, not yet called."""

    def __init__(self, owner: type, name: str) -> None:
        super().__init__()
        self.owner = owner
        self.name = name

    def __repr__(self) -> str:
        return f"MethodDescriptorVariable({self.owner.__qualname__}.{self.name})"

    def python_type(self) -> type:
        return type(getattr(self.owner, self.name))

    def as_python_constant(self) -> Any:
        return getattr(self.owner, self.name)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if not args:
            unimplemented(f"{self!r} called without its receiver")
        receiver, *rest = args
        if not issubclass(receiver.python_type(), self.owner):
            unimplemented(f"{self!r} called on a {receiver.python_type().__qualname__}")
        if self.owner is object and self.name in ("__setattr__", "__delattr__"):
            return self.call_object_slot(tx, receiver, rest, kwargs)
        base_method = getattr(receiver, "builtin_base_method", None)
        if base_method is not None:
            # `dict.__getitem__(self, k)` in a dict subclass's own `__getitem__`: the
            # base's C method on the items, not the class's override (which recurses).
            method = base_method(self.owner, self.name)
            if method is not None:
                return method.call_function(tx, rest, kwargs)
        return receiver.call_method(tx, self.name, rest, kwargs)

    def call_object_slot(
        self,
        tx: InstructionTranslatorBase,
        receiver: VariableTracker,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``object.__setattr__(obj, k, v)`` (``__delattr__``): the plain store (deletion),
        as `obj.k = v` without a custom ``__setattr__`` (the receiver refuses what it cannot
        model)."""
        if kwargs or not args or not args[0].is_python_constant():
            unimplemented(f"{self!r} with arguments {args!r}")
        name = args[0].as_python_constant()
        if self.name == "__setattr__" and len(args) == 2 and hasattr(receiver, "store_attr"):
            # object's own store: the class's Python __setattr__ is what it bypasses.
            store = getattr(receiver, "generic_store_attr", receiver.store_attr)
            store(tx, name, args[1])
        elif self.name == "__delattr__" and len(args) == 1 and hasattr(receiver, "delete_attr"):
            delete = getattr(receiver, "generic_delete_attr", receiver.delete_attr)
            delete(tx, name)
        else:
            unimplemented(f"{self!r} on {receiver!r}")
        return ConstantVariable(None)
