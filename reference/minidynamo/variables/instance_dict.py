"""`InstanceDictVariable`: an object's ``__dict__`` (``vars(obj)``), read and written by key.

``obj.__dict__.get("cache")``, ``"w" in vars(self)``, ``self.__dict__.update(state)``: a
read is the attribute read, or its absence, guarded as `has_attr` guards it; a store is the
attribute store past ``__setattr__``, kept in SideEffects. The class's counterpart is
`ClassDictVariable` (class_dict.py).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from minidynamo.exc import unimplemented
from minidynamo.side_effects import DELETED
from minidynamo.source import AttrSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.exceptions import raise_observed

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.user_defined import UserDefinedObjectVariable


class InstanceDictVariable(VariableTracker):
    """``obj.__dict__``, read by key (``.get``, ``[]``, ``in``): each read is the
    attribute read, or its absence, guarded as `has_attr` does (a new object's attributes
    are all in SideEffects); and for a new object, its keys (``len``, iteration)."""

    def __init__(self, obj: UserDefinedObjectVariable) -> None:
        super().__init__()
        self.obj = obj

    def __repr__(self) -> str:
        return f"InstanceDictVariable({self.obj!r})"

    def python_type(self) -> type:
        return dict

    def _present(self, tx: InstructionTranslatorBase, key: VariableTracker) -> bool:
        name = key.as_python_constant()
        new = self.obj.is_new_object()
        if not new and self.obj.source is None or not isinstance(name, str):
            unimplemented(f"__dict__[{name!r}] of {self.obj!r}")
        stored = tx.output.side_effects.load_attr(self.obj, name)
        if stored is not None:
            return stored is not DELETED
        present = name in vars(self.obj.value)
        if new:
            # Set by its constructor, run now (a module made in the trace: ``_buffers``).
            return present
        tx.output.guards.add_hasattr(self.obj.source, name, present)
        return present

    def method_get(
        self,
        tx: InstructionTranslatorBase,
        key: VariableTracker,
        default: VariableTracker | None = None,
    ) -> VariableTracker:
        if self._present(tx, key):
            return self.obj.generic_getattr(tx, key.as_python_constant())
        return default if default is not None else ConstantVariable(None)

    def method_getitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        if not self._present(tx, key):
            raise_observed(KeyError, key.as_python_constant())
        return self.obj.generic_getattr(tx, key.as_python_constant())

    def method_contains(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        return ConstantVariable(self._present(tx, key))

    def store(self, tx: InstructionTranslatorBase, name: object, value: VariableTracker) -> None:
        """``obj.__dict__[name] = value``: the attribute set past ``__setattr__`` and
        descriptors, unless a data descriptor of the class would still answer reads."""
        cls = type(self.obj.value)
        if not isinstance(name, str):
            unimplemented(f"__dict__[{name!r}] = ... on {self.obj!r}")
        # The value is kept as the attribute: reads would find it, where CPython's would
        # still go to a data descriptor of the class.
        attr = inspect.getattr_static(cls, name, None)
        if hasattr(type(attr), "__set__") or hasattr(type(attr), "__delete__"):
            descriptor = f"{cls.__qualname__}.{name}"
            unimplemented(f"__dict__[{name!r}] = ... under the data descriptor {descriptor}")
        # An input's attributes are replayed with STORE_ATTR, which would run the hook.
        custom_setattr = inspect.getattr_static(cls, "__setattr__") is not object.__setattr__
        if custom_setattr and not self.obj.is_new_object():
            unimplemented(f"__dict__[{name!r}] = ... on {self.obj!r} (custom __setattr__)")
        tx.output.side_effects.store_attr(self.obj, name, value)

    def method_setitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker, value: VariableTracker
    ) -> VariableTracker:
        self.store(tx, key.as_python_constant(), value)
        return ConstantVariable(None)

    def method_update(
        self,
        tx: InstructionTranslatorBase,
        other: VariableTracker | None = None,
        **kwargs: VariableTracker,
    ) -> VariableTracker:
        """``self.__dict__.update(kw)``: each item stored as by ``__dict__[k] = v``."""
        from minidynamo.variables.dicts import ConstDictVariable, key_constant

        items = list(kwargs.items())
        if isinstance(other, ConstDictVariable):
            items[:0] = [(key_constant(k), v) for k, v in other.items.items()]
        elif isinstance(other, InstanceDictVariable):  # a shallow copy's state
            items[:0] = [(k, other.obj.generic_getattr(tx, k)) for k in other._names(tx)]
        elif other is not None:
            unimplemented(f"__dict__.update() from {other!r}")
        for name, value in items:
            self.store(tx, name, value)
        return ConstantVariable(None)

    def _names(self, tx: InstructionTranslatorBase) -> list[str]:
        """All the keys: a new object's, as SideEffects has them; an input's, guarded on
        its ``__dict__``'s key list (as a dict the trace iterates is), with the stores and
        deletions of the trace applied."""
        stored = tx.output.side_effects.new_object_attributes(self.obj)
        if self.obj.is_new_object():
            return [name for name, _ in stored]
        if self.obj.source is None:
            unimplemented(f"the keys of {self!r}")
        instance_dict = vars(self.obj.value)
        tx.output.guards.add_dict_keys(AttrSource(self.obj.source, "__dict__"), instance_dict)
        changed = dict(stored)
        names = [name for name in instance_dict if changed.get(name) is not DELETED]
        return names + [n for n, v in stored if n not in instance_dict and v is not DELETED]

    def truth(self, tx: InstructionTranslatorBase) -> bool:
        return bool(self._names(tx))

    def method_keys(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return InstanceDictViewVariable(self, "keys")

    def method_values(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return InstanceDictViewVariable(self, "values")

    def method_items(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return InstanceDictViewVariable(self, "items")

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstantVariable(len(self._names(tx)))

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return [ConstantVariable(name) for name in self._names(tx)]


class InstanceDictViewVariable(VariableTracker):
    """``vars(obj).keys()``, ``.values()`` or ``.items()``: a live view, read from the
    object's attributes (`InstanceDictVariable._names`) each time it is used, so a store
    made after the view was taken is seen, as CPython's view sees it."""

    def __init__(self, dict_vt: InstanceDictVariable, kind: str) -> None:
        super().__init__()
        self.dict_vt = dict_vt
        self.kind = kind

    def __repr__(self) -> str:
        return f"InstanceDictViewVariable({self.kind})"

    def python_type(self) -> type:
        return type(getattr({}, self.kind)())

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        from minidynamo.variables.lists import TupleVariable

        names = self.dict_vt._names(tx)
        if self.kind == "keys":
            return [ConstantVariable(name) for name in names]
        values = [self.dict_vt.obj.generic_getattr(tx, name) for name in names]
        if self.kind == "values":
            return values
        return [TupleVariable([ConstantVariable(n), v]) for n, v in zip(names, values, strict=True)]

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        from minidynamo.variables.lists import ListIteratorVariable

        return ListIteratorVariable(self.unpack_var_sequence(tx))

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return self.dict_vt.method_len(tx)

    def method_contains(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        if self.kind == "keys":
            return self.dict_vt.method_contains(tx, key)
        unimplemented(f"`in` on {self!r}")
