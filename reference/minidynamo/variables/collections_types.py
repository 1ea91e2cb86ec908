"""`collections.deque`, `OrderedDict` and `defaultdict` made by the traced code: the
stdlib containers with an identity and mutations the tracer must follow (DESIGN.md
"What is traced", rule 5). Each is the list or dict VariableTracker with its own type,
its own methods, and a rebuild that calls its class (``deque([...], maxlen)``).
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_none
from minidynamo.variables.dicts import ConstDictVariable, constant_key
from minidynamo.variables.lists import ListVariable, check_mutable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


class DequeVariable(ListVariable):
    """A `collections.deque`: a list that also grows and shrinks on the left, bounded
    by `maxlen` (items fall off the other end)."""

    python_cls = collections.deque

    def __init__(
        self,
        items: list[VariableTracker],
        *,
        maxlen: int | None = None,
        source: Source | None = None,
    ) -> None:
        super().__init__(items, source=source)
        self.maxlen = maxlen
        self._trim(left=True)

    def as_python_constant(self) -> Any:
        return collections.deque(
            (item.as_python_constant() for item in self.items), maxlen=self.maxlen
        )

    def new(self, items: list[VariableTracker]) -> DequeVariable:
        return DequeVariable(items, maxlen=self.maxlen)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name == "maxlen":  # read-only
            return ConstantVariable(self.maxlen)
        return super().var_getattr(tx, name)

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        codegen.load_callable(collections.deque)
        for item in self.items:
            codegen(item)
        codegen.build(list, len(self.items))
        codegen.load_const(self.maxlen)
        codegen.call(2)

    def _trim(self, *, left: bool) -> None:
        """Drop items beyond `maxlen`, from the left end when `left`."""
        if self.maxlen is not None and len(self.items) > self.maxlen:
            extra = len(self.items) - self.maxlen
            self.items = self.items[extra:] if left else self.items[: self.maxlen]

    def method_append(
        self, tx: InstructionTranslatorBase, value: VariableTracker
    ) -> VariableTracker:
        super().method_append(tx, value)
        self._trim(left=True)
        return ConstantVariable(None)

    def method_extend(
        self, tx: InstructionTranslatorBase, values: VariableTracker
    ) -> VariableTracker:
        super().method_extend(tx, values)
        self._trim(left=True)
        return ConstantVariable(None)

    def method_appendleft(
        self, tx: InstructionTranslatorBase, value: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.items.insert(0, value)
        self._trim(left=False)
        return ConstantVariable(None)

    def method_extendleft(
        self, tx: InstructionTranslatorBase, values: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.items[:0] = reversed(values.unpack_var_sequence(tx))
        self._trim(left=False)
        return ConstantVariable(None)

    def method_pop(self, tx: InstructionTranslatorBase) -> VariableTracker:  # type: ignore[override]
        """``deque.pop()`` takes no index (``pop(0)`` raises, as in CPython)."""
        return super().method_pop(tx)

    def method_popleft(self, tx: InstructionTranslatorBase) -> VariableTracker:
        check_mutable(tx, self)
        if not self.items:
            unimplemented("popleft from an empty deque")
        return self.items.pop(0)

    def method_rotate(
        self, tx: InstructionTranslatorBase, n: VariableTracker | None = None
    ) -> VariableTracker:
        check_mutable(tx, self)
        steps = 1 if n is None else n.as_python_constant()
        if self.items:
            steps %= len(self.items)
            self.items = self.items[-steps:] + self.items[:-steps] if steps else self.items
        return ConstantVariable(None)

    def method_copy(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return self.new(self.items)


class OrderedDictVariable(ConstDictVariable):
    """A `collections.OrderedDict`: a dict (whose order is kept anyway) that can also
    move a key to either end."""

    def python_type(self) -> type:
        return collections.OrderedDict

    def as_python_constant(self) -> Any:
        return collections.OrderedDict(super().as_python_constant())

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        codegen.load_callable(collections.OrderedDict)
        super().reconstruct_contents(codegen)
        codegen.call(1)

    def method_copy(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return OrderedDictVariable(self.items)

    def method_popitem(  # type: ignore[override]
        self, tx: InstructionTranslatorBase, last: VariableTracker | None = None
    ) -> VariableTracker:
        """``popitem(last=False)`` takes the first pair."""
        return self.pop_item(tx, last=last is None or bool(last.as_python_constant()))

    def method_move_to_end(
        self,
        tx: InstructionTranslatorBase,
        key: VariableTracker,
        last: VariableTracker | None = None,
    ) -> VariableTracker:
        check_mutable(tx, self)
        k = constant_key(key)
        value = self.items.pop(k)
        if last is None or last.as_python_constant():
            self.items[k] = value
        else:
            self.items = {k: value, **self.items}
        return ConstantVariable(None)


class DefaultDictVariable(ConstDictVariable):
    """A `collections.defaultdict`: reading a missing key stores and returns
    ``default_factory()``."""

    def __init__(
        self,
        default_factory: VariableTracker,
        items: dict[Any, VariableTracker],
        *,
        source: Source | None = None,
    ) -> None:
        super().__init__(items, source=source)
        self.default_factory = default_factory

    def python_type(self) -> type:
        return collections.defaultdict

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name == "default_factory":
            return self.default_factory
        return super().var_getattr(tx, name)

    def as_python_constant(self) -> Any:
        factory = self.default_factory.as_python_constant()
        return collections.defaultdict(factory, super().as_python_constant())

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        codegen.load_callable(collections.defaultdict)
        codegen(self.default_factory)
        super().reconstruct_contents(codegen)
        codegen.call(2)

    def method_copy(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return DefaultDictVariable(self.default_factory, self.items)

    def method_getitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        k = constant_key(key)
        if k not in self.items:
            if is_constant_none(self.default_factory):
                return super().method_getitem(tx, key)
            check_mutable(tx, self)
            self.items[k] = self.default_factory.call_function(tx, [], {})
        return self.items[k]
