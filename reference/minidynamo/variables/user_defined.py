"""The fallback VariableTrackers for objects and classes the tracer has no special
model for (seed: "`UserDefinedObjectVariable`, Dynamo's catch-all class").

Attribute reads are answered from the real object, without running user descriptors:
instance attributes are wrapped with an `AttrSource` (and so guarded), methods and
properties are inlined. Writing attributes or constructing objects is not modelled here.
"""

from __future__ import annotations

import builtins
import inspect
import types
from typing import TYPE_CHECKING, Any

from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


def wrap_class_attribute(
    tx: InstructionTranslatorBase,
    owner: VariableTracker,
    attr: object,
    source: Source | None,
) -> VariableTracker:
    """An attribute found on a class, bound to `owner` as Python's descriptors would."""
    from minidynamo.builder import VariableBuilder
    from minidynamo.variables.functions import UserFunctionVariable, UserMethodVariable

    if isinstance(attr, staticmethod):
        return VariableBuilder(tx, None)(attr.__func__)
    if isinstance(attr, classmethod):
        cls_vt = (
            owner
            if isinstance(owner, UserDefinedClassVariable)
            else VariableBuilder(tx, None)(owner.python_type())
        )
        return UserMethodVariable(UserFunctionVariable(attr.__func__), cls_vt)
    if isinstance(attr, types.FunctionType):
        if isinstance(owner, UserDefinedClassVariable):
            return UserFunctionVariable(attr)
        return UserMethodVariable(UserFunctionVariable(attr), owner)
    if isinstance(attr, property) and not isinstance(owner, UserDefinedClassVariable):
        if attr.fget is None:
            unimplemented("read of a property without getter")
        return UserFunctionVariable(attr.fget).call_function(tx, [owner], {})
    if hasattr(type(attr), "__get__"):
        unimplemented(f"descriptor of type {type(attr).__name__}")
    return VariableBuilder(tx, source)(attr)


class UserDefinedClassVariable(VariableTracker):
    """A class object, e.g. in ``isinstance(x, MyClass)`` or ``MyClass.CONSTANT``."""

    def __init__(self, value: type, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return f"UserDefinedClassVariable({self.value.__qualname__})"

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        return self.value

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name in ("__name__", "__qualname__", "__module__"):
            return ConstantVariable(getattr(self.value, name))
        try:
            attr = inspect.getattr_static(self.value, name)
        except AttributeError:
            unimplemented(f"class {self.value.__qualname__} has no attribute {name!r}")
        source = None if self.source is None else AttrSource(self.source, name)
        return wrap_class_attribute(tx, self, attr, source)

    def reconstruct(self, codegen: PyCodegen) -> None:
        """A builtin class (``Exception``, loaded without a source) by its name."""
        if self.source is None and getattr(builtins, self.value.__name__, None) is self.value:
            codegen.load_builtin(self.value)
        else:
            super().reconstruct(codegen)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """Only exceptions are constructed here (``raise ValueError("...")``)."""
        from minidynamo.variables.exceptions import ExceptionVariable, has_plain_constructor

        if has_plain_constructor(self.value) and not kwargs:
            return ExceptionVariable(self.value, args)
        return super().call_function(tx, args, kwargs)


class UserDefinedObjectVariable(VariableTracker):
    """Any other object: its type is guarded, its attributes are read lazily."""

    def __init__(self, value: object, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return f"UserDefinedObjectVariable({type(self.value).__qualname__})"

    def python_type(self) -> type:
        return type(self.value)

    def bool_value(self) -> bool:
        cls = type(self.value)
        if hasattr(cls, "__bool__") or hasattr(cls, "__len__"):
            unimplemented(f"truth value of a {cls.__qualname__} (user-defined __bool__/__len__)")
        return True

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.builder import VariableBuilder

        stored = tx.output.side_effects.load_attr(self, name)
        if stored is not None:
            return stored
        source = None if self.source is None else AttrSource(self.source, name)
        instance_dict = getattr(self.value, "__dict__", {})
        try:
            attr = inspect.getattr_static(self.value, name)
        except AttributeError:
            unimplemented(f"{type(self.value).__qualname__} has no attribute {name!r}")
        if name in instance_dict and attr is instance_dict[name]:
            return VariableBuilder(tx, source)(attr)
        return wrap_class_attribute(tx, self, attr, source)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return self.var_getattr(tx, name).call_function(tx, args, kwargs)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return self.call_method(tx, "__call__", args, kwargs)

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        """Iteration runs the class's own ``__iter__`` (e.g. `nn.Sequential`)."""
        return self.call_method(tx, "__iter__", [], {}).unpack_var_sequence(tx)
