"""`ClassDictVariable`: a user class's ``__dict__`` (``vars(cls)``), read by key.

``Config.__dict__["lr"]``, ``"forward" in vars(cls)``: each key's presence comes from the
class's own namespace (not its bases), guarded key by key; an entry is
the raw object stored there (a ``staticmethod`` object, not the function it wraps),
guarded through ``cls.__dict__[key]``. Stores are not modelled: a class the trace
changed is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource, GetItemSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.exceptions import raise_observed

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.user_defined import UserDefinedClassVariable


class ClassDictVariable(VariableTracker):
    """``cls.__dict__`` of a class reached through a source, whose attributes the trace
    has not changed. A key read is guarded on that key's presence; the whole key list
    (which CPython versions fill differently) only where the trace walks it."""

    def __init__(self, cls_vt: UserDefinedClassVariable) -> None:
        super().__init__()
        self.cls_vt = cls_vt
        self.namespace = vars(cls_vt.value)

    def __repr__(self) -> str:
        return f"ClassDictVariable({self.cls_vt.value.__qualname__})"

    def python_type(self) -> type:
        return type(self.namespace)

    def _names(self, tx: InstructionTranslatorBase) -> list[str]:
        """The keys, guarded: the class object is guarded by identity, its namespace can
        still gain or lose entries."""
        tx.output.guards.add_dict_keys(self._source(), self.namespace)  # type: ignore[arg-type]
        return list(self.namespace)

    def _source(self) -> AttrSource:
        return AttrSource(self.cls_vt.source, "__dict__")

    def _present(self, tx: InstructionTranslatorBase, key: VariableTracker) -> bool:
        name = key.as_python_constant()
        if not isinstance(name, str):
            unimplemented(f"{self!r}[{name!r}]")
        present = name in self.namespace
        tx.output.guards.add_key_presence(self._source(), name, present)
        return present

    def _entry(self, tx: InstructionTranslatorBase, key: VariableTracker) -> VariableTracker:
        from minidynamo.builder import VariableBuilder

        name = key.as_python_constant()
        if not self._present(tx, key):
            raise_observed(KeyError, name)
        return VariableBuilder(tx, GetItemSource(self._source(), name))(self.namespace[name])

    def method_getitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        return self._entry(tx, key)

    def method_get(
        self,
        tx: InstructionTranslatorBase,
        key: VariableTracker,
        default: VariableTracker | None = None,
    ) -> VariableTracker:
        if self._present(tx, key):
            return self._entry(tx, key)
        return default if default is not None else ConstantVariable(None)

    def method_contains(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        return ConstantVariable(self._present(tx, key))

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstantVariable(len(self._names(tx)))

    def method_keys(self, tx: InstructionTranslatorBase) -> VariableTracker:
        from minidynamo.variables.lists import ListIteratorVariable

        return ListIteratorVariable([ConstantVariable(name) for name in self._names(tx)])

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return [ConstantVariable(name) for name in self._names(tx)]


def class_dict(tx: InstructionTranslatorBase, cls_vt: UserDefinedClassVariable) -> VariableTracker:
    """``cls.__dict__`` where it can be read faithfully, else a graph break."""
    if cls_vt.source is None:
        unimplemented(f"__dict__ of {cls_vt!r}, which cannot be guarded")
    changed = any(
        tx.output.side_effects.load_class_attr(cls_vt.value, name) is not None
        for name in vars(cls_vt.value)
    )
    if changed:
        unimplemented(f"__dict__ of {cls_vt!r} after the trace changed its attributes")
    return ClassDictVariable(cls_vt)
