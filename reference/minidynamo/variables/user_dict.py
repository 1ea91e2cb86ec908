"""Objects of user classes derived from `dict` or `OrderedDict` (Hugging Face's
`ModelOutput` dataclasses), created by the traced code. `UserDefinedDictVariable` is a
new object like any other (attributes in SideEffects, its class's Python methods
inlined) whose items live in a `ConstDictVariable`: a dict method the class does not
override, or ``super().__setitem__``, works on those items. The generated code rebuilds
the object with `rebuild_dict_object`, bypassing the class's own methods.
"""

from __future__ import annotations

import collections
import inspect
import types
from typing import TYPE_CHECKING

from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.collections_types import OrderedDictVariable
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.dicts import ConstDictVariable
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.user_defined import (
    UserDefinedClassVariable,
    UserDefinedObjectVariable,
)

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase

# The builtin classes that hold a user dict's items, with the VariableTracker of items.
DICT_BASES: dict[type, type[ConstDictVariable]] = {
    collections.OrderedDict: OrderedDictVariable,
    dict: ConstDictVariable,
}


def dict_base(cls: type) -> type | None:
    """The builtin dict class that stores the items of `cls`'s instances, or None."""
    return next((base for base in cls.__mro__ if base in DICT_BASES), None)


# What the guards and the item sources call on an object given to the frame: the class
# must take them from its dict base.
_BASE_READS = ("keys", "values", "__getitem__")
# What the replay of changed items calls: where a `dict` subclass overrides them
# (Counter's counting `update`), the replay calls dict's own (`replay_class`).
_BASE_REPLAY = ("clear", "update")


def reads_items_as_base(cls: type) -> bool:
    """`cls` derives from dict or OrderedDict and keeps the base's methods that read its
    items (and, under OrderedDict, that replace them), so an object of it given to the
    frame is traced as its items."""
    base = dict_base(cls)
    if base is None:
        return False
    names = _BASE_READS if base is dict else _BASE_READS + _BASE_REPLAY
    return all(_owner_of(cls, name) in (base, dict) for name in names)


def replay_class(cls: type) -> type | None:
    """`dict` where `cls`, a dict subclass, overrides what the replay of its changed
    items calls (``d.clear(); d.update(...)``), so the replay calls dict's C methods on
    it instead; None where the object's own methods are dict's."""
    overridden = any(_owner_of(cls, name) is not dict for name in _BASE_REPLAY)
    return dict if dict_base(cls) is dict and overridden else None


def _owner_of(cls: type, name: str) -> type | None:
    """The class of `cls`'s MRO that defines `name`."""
    return next((klass for klass in cls.__mro__ if name in vars(klass)), None)


def rebuild_dict_object(
    cls: type, attributes: dict[str, object], items: dict[object, object]
) -> object:
    """A new object of a dict subclass with the items and attributes the trace
    recorded, set without the class's own ``__setitem__``/``__setattr__`` (the trace
    recorded what they did)."""
    base = dict_base(cls)
    obj = base.__new__(cls)  # type: ignore[union-attr]
    for key, value in items.items():
        base.__setitem__(obj, key, value)  # type: ignore[union-attr]
    for name, value in attributes.items():
        object.__setattr__(obj, name, value)
    return obj


class UserDefinedDictVariable(UserDefinedObjectVariable):
    """A new object of a user class derived from `dict` or `OrderedDict`."""

    def __init__(self, cls_vt: UserDefinedClassVariable) -> None:
        cls = cls_vt.value
        base = dict_base(cls)
        super().__init__(base.__new__(cls), cls_vt=cls_vt)  # type: ignore[union-attr]
        self.items = DICT_BASES[base]({})  # type: ignore[index]

    @classmethod
    def existing(cls, value: dict, items: ConstDictVariable) -> UserDefinedDictVariable:
        """An object given to the frame (`items` read through its source): its changed
        items are replayed with its `clear` and `update`, which are dict's."""
        vt = cls.__new__(cls)
        UserDefinedObjectVariable.__init__(vt, value, source=items.source)
        vt.items = items
        return vt

    def __repr__(self) -> str:
        return f"UserDefinedDictVariable({type(self.value).__qualname__})"

    def bool_value(self) -> bool:
        if self.dict_method("__len__") is None or self.dict_method("__bool__") is None:
            name = type(self.value).__qualname__
            unimplemented(f"truth value of a {name} (own __bool__/__len__)")
        return bool(self.items.items)

    def dict_method(self, name: str) -> str | None:
        """`name` if the class takes it from its dict base (or lacks it), else None."""
        for klass in type(self.value).__mro__:
            if name in vars(klass):
                return name if klass in DICT_BASES else None
        return name

    def builtin_base_method(self, owner: type, name: str) -> VariableTracker | None:
        """``owner.name`` bound to the items, where `owner` is the dict base (or `dict`
        under OrderedDict) whose C method it is: what `dict.__getitem__(obj, k)` calls."""
        base = dict_base(type(self.value))
        attr = inspect.getattr_static(owner, name, None)
        descriptor = isinstance(attr, (types.MethodDescriptorType, types.WrapperDescriptorType))
        if owner is object or not descriptor or not issubclass(base, owner):  # type: ignore[arg-type]
            return None
        return DictItemsMethodVariable(self, name)

    def generic_getattr(
        self, tx: InstructionTranslatorBase, name: str, *, object_lookup: bool = False
    ) -> VariableTracker:
        stored = tx.output.side_effects.load_attr(self, name)
        if stored is None and name != "__init__" and self.dict_method(name) is not None:
            attr = inspect.getattr_static(dict_base(type(self.value)), name, None)
            if isinstance(attr, (types.MethodDescriptorType, types.WrapperDescriptorType)):
                return DictItemsMethodVariable(self, name)
        return super().generic_getattr(tx, name, object_lookup=object_lookup)

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if self.dict_method("__iter__") is not None:
            return self.items.method_iter(tx)
        return super().method_iter(tx)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if not self.is_new_object():
            super().reconstruct(codegen)
            return
        attributes = codegen.output.side_effects.new_object_attributes(self)
        codegen.load_installed("__import_rebuild_dict_object", rebuild_dict_object, push_null=True)
        codegen(self.cls_vt)  # type: ignore[arg-type]
        for name, value in attributes:
            codegen.load_const(name)
            codegen(value)
        codegen.build(dict, len(attributes))
        self.items.reconstruct_contents(codegen)
        codegen.call(3)


class DictItemsMethodVariable(VariableTracker):
    """A dict method bound to a `UserDefinedDictVariable`'s items (``obj.keys``,
    ``super().__setitem__``); ``__init__`` adds items as `dict.update` does."""

    def __init__(self, obj: UserDefinedDictVariable, name: str) -> None:
        super().__init__()
        self.obj = obj
        self.name = name

    def __repr__(self) -> str:
        return f"DictItemsMethodVariable({self.name}, {self.obj!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        name = "update" if self.name == "__init__" else self.name
        if name == "update" and not args and not kwargs:
            return ConstantVariable(None)
        missing = hasattr(type(self.obj.value), "__missing__")
        if name == "__getitem__" and len(args) == 1 and missing:
            # dict.__getitem__ asks the class's `__missing__` for an absent key (Counter's 0)
            if not self.obj.items.method_contains(tx, args[0]).as_python_constant():
                if _owner_of(type(self.obj.value), "__missing__") is collections.defaultdict:
                    return self.default_factory_item(tx, args[0])
                return self.obj.var_getattr(tx, "__missing__").call_function(tx, args, {})
        return self.obj.items.call_method(tx, name, args, kwargs)

    def default_factory_item(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        """What defaultdict's C `__missing__` does: store and return a new value of its
        `default_factory`, or raise KeyError without one."""
        factory = self.obj.var_getattr(tx, "default_factory")
        if factory.is_python_constant() and factory.as_python_constant() is None:
            raise_observed(KeyError, key.as_python_constant())
        value = factory.call_function(tx, [], {})
        self.obj.items.call_method(tx, "__setitem__", [key, value], {})
        return value
