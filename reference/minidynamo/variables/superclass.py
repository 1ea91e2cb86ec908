"""`SuperVariable`: ``super()`` and ``super(cls, obj)`` in traced code (Dynamo's
SuperVariable), made by the ``super`` builtin or LOAD_SUPER_ATTR. An attribute is looked
up in ``type(obj).__mro__`` after `cls`: a Python function is inlined bound to `obj`;
`object`'s own ``__init__``, ``__setattr__`` and ``__getattribute__`` are the generic
attribute behaviour of `UserDefinedObjectVariable` (`ObjectSlotVariable`).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.builder import VariableBuilder
from minidynamo.exc import unimplemented
from minidynamo.source import DictContentsSource, dict_contents
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.class_lookup import wrap_class_attribute
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.misc import CellVariable, GetAttrVariable
from minidynamo.variables.tensor import TensorVariable
from minidynamo.variables.user_defined import UserDefinedObjectVariable
from minidynamo.variables.user_dict import (
    DICT_BASES,
    DictItemsMethodVariable,
    UserDefinedDictVariable,
)

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase

_OBJECT_SLOTS = ("__init__", "__setattr__", "__getattribute__")
# The dict methods that only read the items, for ``super().<name>`` on an existing object.
_DICT_READERS = ("__getitem__", "__contains__", "__len__", "__iter__", "get", "keys", "values")
TENSOR_BASES = (torch.Tensor, torch._C.TensorBase)


class SuperVariable(VariableTracker):
    """``super(cls, obj)`` for an instance `obj`."""

    def __init__(self, cls: type, obj: VariableTracker) -> None:
        super().__init__()
        self.cls = cls
        self.obj = obj

    def __repr__(self) -> str:
        return f"SuperVariable({self.cls.__qualname__}, {self.obj!r})"

    def python_type(self) -> type:
        return super

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        owner = self.obj.as_python_constant() if self.obj.is_python_constant() else None
        if isinstance(owner, type):  # ``super()`` in a classmethod: the class's own mro
            return self.class_getattr(tx, owner, name)
        mro = self.obj.python_type().__mro__
        if self.cls not in mro:
            unimplemented(f"super({self.cls.__qualname__}, obj) of an unrelated object")
        for base in mro[mro.index(self.cls) + 1 :]:
            if name in vars(base):
                attr = vars(base)[name]
                break
        else:
            unimplemented(f"super() has no attribute {name!r}")
        if base in DICT_BASES and isinstance(self.obj, UserDefinedDictVariable):
            return DictItemsMethodVariable(self.obj, name)
        if base in DICT_BASES and name in _DICT_READERS and self.obj.source is not None:
            # an existing object's items (HF's ACT2FN, `super().__getitem__(key)`): read
            # as a plain dict, guarded by its keys as a dict argument is
            source = DictContentsSource(self.obj.source)
            contents = VariableBuilder(tx, source)(dict_contents(self.obj.value))
            return GetAttrVariable(contents, name)
        if base is object and name in _OBJECT_SLOTS:
            if not isinstance(self.obj, UserDefinedObjectVariable):
                unimplemented(f"super().{name} of {self.obj!r}")
            return ObjectSlotVariable(self.obj, name)
        if isinstance(attr, (types.FunctionType, staticmethod, classmethod, property)):
            return wrap_class_attribute(tx, self.obj, attr, None)
        if isinstance(self.obj, TensorVariable) and base in TENSOR_BASES and callable(attr):
            # `super().add(other)` in a tensor subclass's method: torch's method
            return GetAttrVariable(self.obj, name)
        unimplemented(
            f"super().{name} of {base.__qualname__} ({type(attr).__name__})", gb.SUPER_ATTRIBUTE
        )

    def class_getattr(
        self, tx: InstructionTranslatorBase, owner: type, name: str
    ) -> VariableTracker:
        """``super().<name>`` where the object is class `owner`: a classmethod bound to
        it; torch's default ``__torch_function__`` as `DefaultTorchFunctionVariable`."""
        from minidynamo.variables.tensor_subclass import DefaultTorchFunctionVariable

        if self.cls not in owner.__mro__:
            unimplemented(
                f"super({self.cls.__qualname__}, {owner.__qualname__}) of an unrelated class"
            )
        mro = owner.__mro__
        base = next((base for base in mro[mro.index(self.cls) + 1 :] if name in vars(base)), None)
        if base is None:
            unimplemented(f"super() has no attribute {name!r}")
        attr = vars(base)[name]
        if base in TENSOR_BASES and name == "__torch_function__":
            return DefaultTorchFunctionVariable(owner)
        if isinstance(attr, (classmethod, staticmethod)):
            return wrap_class_attribute(tx, self.obj, attr, None)
        unimplemented(
            f"super().{name} of {base.__qualname__} ({type(attr).__name__})", gb.SUPER_ATTRIBUTE
        )


class ObjectSlotVariable(VariableTracker):
    """``object.<name>`` bound to `obj`: the attribute access that no class overrides."""

    def __init__(self, obj: UserDefinedObjectVariable, name: str) -> None:
        super().__init__()
        self.obj = obj
        self.name = name

    def __repr__(self) -> str:
        return f"ObjectSlotVariable({self.name}, {self.obj!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if kwargs:
            unimplemented(f"object.{self.name}() with keyword arguments")
        if self.name == "__init__" and not args:
            return ConstantVariable(None)
        if self.name == "__getattribute__" and len(args) == 1:
            return self.obj.generic_getattr(tx, args[0].as_python_constant(), object_lookup=True)
        if self.name == "__setattr__" and len(args) == 2:
            self.obj.generic_store_attr(tx, args[0].as_python_constant(), args[1])
            return ConstantVariable(None)
        if self.name == "__delattr__" and len(args) == 1:
            self.obj.generic_delete_attr(tx, args[0].as_python_constant())
            return ConstantVariable(None)
        unimplemented(f"object.{self.name}() with {len(args)} arguments")


def make_super(
    tx: InstructionTranslatorBase, cls: VariableTracker | None, obj: VariableTracker | None
) -> SuperVariable:
    """``super()`` finds its class in the ``__class__`` cell and its object in the
    function's first argument, as CPython does."""
    if cls is None or obj is None:
        code = tx.code
        if "__class__" not in tx.cells or not code.co_argcount:
            unimplemented("super() outside a method")
        cls = tx.cells["__class__"].load(tx)
        obj = tx.load_local(code.co_varnames[0])
        if isinstance(obj, CellVariable):  # `self` captured by a nested function
            obj = obj.load(tx)
    return SuperVariable(cls.as_python_constant(), obj)
