"""Dicts and sets with constant keys (seed: guards are also added "during dict
operations"; here an input dict's key list is guarded when it is wrapped).

`ConstDictVariable` maps Python constants to VariableTrackers; `SetVariable` holds
constants. A tensor, which hashes by identity, is a key too (`IdentityKey`): `{x, y, x}`
has two items. As with lists, only dicts and sets created in the frame are mutated.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from minidynamo import trace_rules
from minidynamo.exc import unimplemented
from minidynamo.variables.base import DUNDER_NAMES, VariableTracker
from minidynamo.variables.constant import ConstantVariable, ObjectIdVariable
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.lists import ListIteratorVariable, TupleVariable, check_mutable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


class IdentityKey:
    """A dict key or set item that hashes by identity, as a tensor does: the tracker of
    the tensor, equal to another key of the same tensor (its one FakeTensor, as
    `compare_identity` decides `is`)."""

    def __init__(self, vt: VariableTracker) -> None:
        self.vt = vt

    def __hash__(self) -> int:
        return id(self.vt.example_value)  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, IdentityKey) and other.vt.example_value is self.vt.example_value  # type: ignore[attr-defined]
        )


class UserObjectKey:
    """A dict key or set item that is a user object, as CPython's dict treats it: hashed
    by its class's ``__hash__`` (inlined once, when it becomes a key), and compared by
    identity, then its ``__eq__`` (inlined in the running translator) where the hashes
    are equal."""

    def __init__(self, vt: VariableTracker, hash_value: int) -> None:
        self.vt = vt
        self.hash_value = hash_value

    def __hash__(self) -> int:
        return self.hash_value

    def __eq__(self, other: object) -> bool:
        from minidynamo.symbolic_convert import current_tx
        from minidynamo.variables.operators import compare_identity_or_equal

        return compare_identity_or_equal(current_tx(), self.vt, key_variable(other))


class ObjectIdKey:
    """A dict key or set item that is an ``id()`` made during the trace (the memo of
    ``copy.deepcopy``): equal to the id of the same object only."""

    def __init__(self, vt: ObjectIdVariable) -> None:
        self.vt = vt

    def __hash__(self) -> int:
        return hash(self.vt.token)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectIdKey) and other.vt.token == self.vt.token


def constant_key(key: VariableTracker) -> Any:
    from minidynamo.symbolic_convert import current_tx
    from minidynamo.variables.symnode import specialize
    from minidynamo.variables.tensor import TensorVariable
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    if isinstance(key, TensorVariable):
        return IdentityKey(key)
    if isinstance(key, ObjectIdVariable):
        return ObjectIdKey(key)
    if isinstance(key, UserDefinedObjectVariable):
        return UserObjectKey(key, key.hash_value(current_tx()))
    # A symbolic int key is hashed by its value, guarded as Dynamo's; so are those in a
    # plain tuple key (`tuple(x.shape)` of a dynamic tensor).
    if type(key) is TupleVariable and not key.is_python_constant():
        value = tuple(specialize(item) for item in key.items)
    else:
        value = specialize(key)
    try:
        hash(value)
    except TypeError:
        unimplemented(f"unhashable dict key of type {type(value).__name__}")
    return value


def key_variable(key: Any) -> VariableTracker:
    """The tracker of a key made by `constant_key`."""
    if isinstance(key, (IdentityKey, UserObjectKey, ObjectIdKey)):
        return key.vt
    if isinstance(key, type):  # a class key (a dict of validators by type)
        from minidynamo.builder import VariableBuilder
        from minidynamo.symbolic_convert import current_tx

        return VariableBuilder(current_tx(), None)(key)
    return ConstantVariable.create(key)


def key_constant(key: Any) -> Any:
    """A key as a Python value: a tensor key or a user object is not one."""
    if isinstance(key, (IdentityKey, UserObjectKey, ObjectIdKey)):
        return key.vt.as_python_constant()
    return key


class LazyItem:
    """A value of an input dict the trace has not read: wrapped, and so guarded, on its
    first read (as Dynamo's LazyVariableTracker), so a dict of many values (pytree's
    SUPPORTED_NODES) costs only the guards on what the program uses."""

    def __init__(self, build: Callable[[], VariableTracker]) -> None:
        self._build: Callable[[], VariableTracker] | None = build
        self._vt: VariableTracker | None = None

    def realize(self) -> VariableTracker:
        if self._build is not None:
            build, self._build = self._build, None
            self._vt = build()
        assert self._vt is not None
        return self._vt


def _realized(value: VariableTracker | LazyItem) -> VariableTracker:
    return value.realize() if isinstance(value, LazyItem) else value


class ConstDictVariable(VariableTracker):
    """A `dict` whose keys are constants and whose values are VariableTrackers (or, for
    an input dict, LazyItems until read: `items` reads them all, `value` one)."""

    def __init__(
        self, items: dict[Any, VariableTracker | LazyItem], *, source: Source | None = None
    ) -> None:
        super().__init__(source=source)
        self._items = dict(items)
        # The class whose `clear` and `update` replay changed items on the input (a
        # Counter's are dict's), where not the object's own (side_effects.py).
        self.replay_class: type | None = None

    @property
    def items(self) -> dict[Any, VariableTracker]:
        """Every value, read (wrapped and guarded) where it was not yet."""
        for key, value in self._items.items():
            if isinstance(value, LazyItem):
                self._items[key] = value.realize()
        return self._items  # type: ignore[return-value]

    @items.setter
    def items(self, items: dict[Any, VariableTracker]) -> None:
        self._items = items  # type: ignore[assignment]

    def keys(self) -> list[Any]:
        """The keys, without reading the values."""
        return list(self._items)

    def has_unread(self) -> bool:
        return any(isinstance(value, LazyItem) for value in self._items.values())

    def item_value(self, key: Any) -> VariableTracker:
        """The value of a present key, read (wrapped and guarded) now if it was not."""
        value = self._items[key] = _realized(self._items[key])
        return value

    def __repr__(self) -> str:
        return f"ConstDictVariable(length={len(self._items)})"

    def python_type(self) -> type:
        return dict

    def as_python_constant(self) -> Any:
        return {key_constant(key): value.as_python_constant() for key, value in self.items.items()}

    def as_proxy(self) -> Any:
        return {key_constant(key): value.as_proxy() for key, value in self.items.items()}

    def bool_value(self) -> bool:
        return bool(self._items)

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return [key_variable(key) for key in self._items]

    def is_new_object(self) -> bool:
        return self.source is None

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        self.is_python_constant()  # guards the lazy constants it reads, as a sequence's
        self.reconstruct_contents(codegen)

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        for key, value in self.items.items():
            codegen(key_variable(key))
            codegen(value)
        codegen.build(dict, len(self.items))

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstantVariable(len(self._items))

    def method_getitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        k = constant_key(key)
        if k not in self._items:
            raise_observed(KeyError, key_constant(k))
        return self.item_value(k)

    def method_get(
        self,
        tx: InstructionTranslatorBase,
        key: VariableTracker,
        default: VariableTracker | None = None,
    ) -> VariableTracker:
        k = constant_key(key)
        if k not in self._items:
            return default or ConstantVariable(None)
        return self.item_value(k)

    def method_contains(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        return ConstantVariable(constant_key(key) in self._items)

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ListIteratorVariable(self.unpack_var_sequence(tx), kind=type(iter({})))

    def method_keys(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return DictViewVariable(self, "keys")

    def method_values(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return DictViewVariable(self, "values")

    def method_items(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return DictViewVariable(self, "items")

    def method_copy(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstDictVariable(self._items)

    def method_setitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker, value: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.items[constant_key(key)] = value
        return ConstantVariable(None)

    def method_delitem(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.method_getitem(tx, key)
        del self.items[constant_key(key)]
        return ConstantVariable(None)

    def method_pop(
        self,
        tx: InstructionTranslatorBase,
        key: VariableTracker,
        default: VariableTracker | None = None,
    ) -> VariableTracker:
        check_mutable(tx, self)
        k = constant_key(key)
        if k not in self.items and default is None:
            raise_observed(KeyError, k)
        return self.items.pop(k, default)

    def method_popitem(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """The last (key, value) pair, removed."""
        return self.pop_item(tx, last=True)

    def pop_item(self, tx: InstructionTranslatorBase, *, last: bool) -> VariableTracker:
        check_mutable(tx, self)
        if not self.items:
            raise_observed(KeyError, "popitem(): dictionary is empty")
        k = next(reversed(self.items)) if last else next(iter(self.items))
        return TupleVariable([key_variable(k), self.items.pop(k)])

    def method_setdefault(
        self,
        tx: InstructionTranslatorBase,
        key: VariableTracker,
        default: VariableTracker | None = None,
    ) -> VariableTracker:
        check_mutable(tx, self)
        return self.items.setdefault(constant_key(key), default or ConstantVariable(None))

    def method_update(
        self, tx: InstructionTranslatorBase, other: VariableTracker | None = None, **kwargs: Any
    ) -> VariableTracker:
        check_mutable(tx, self)
        if other is not None and not isinstance(other, ConstDictVariable):
            from minidynamo.variables.functions import inline_polyfill

            polyfill = trace_rules.METHOD_POLYFILLS[(dict, "update")]
            return inline_polyfill(tx, polyfill, [self, other], kwargs)
        if other is not None:
            self.items.update(other.items)
        self.items.update(kwargs)
        return ConstantVariable(None)

    def method_clear(self, tx: InstructionTranslatorBase) -> VariableTracker:
        check_mutable(tx, self)
        self.items.clear()
        return ConstantVariable(None)


class MappingProxyVariable(ConstDictVariable):
    """A read-only `types.MappingProxyType` of constant keys (``Signature.parameters``,
    a class's ``__dict__``): a dict whose changing methods are not modelled."""

    _CHANGING = frozenset({"setitem", "delitem", "pop", "setdefault", "update", "clear"})

    @classmethod
    def view_of(cls, mapping: ConstDictVariable) -> MappingProxyVariable:
        """``types.MappingProxyType(d)`` made by the traced code: a live view, so a
        later change of `d` in the trace is read through it, as in CPython."""
        proxy = cls({})
        proxy._target = mapping
        return proxy

    @property
    def _items(self) -> dict[Any, VariableTracker | LazyItem]:  # type: ignore[override]
        target = self.__dict__.get("_target")
        return self.__dict__["_own"] if target is None else target._items

    @_items.setter
    def _items(self, items: dict[Any, VariableTracker | LazyItem]) -> None:
        self.__dict__["_own"] = items

    def python_type(self) -> type:
        return types.MappingProxyType

    def as_python_constant(self) -> Any:
        return types.MappingProxyType(super().as_python_constant())

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        codegen.load_callable(types.MappingProxyType)
        super().reconstruct_contents(codegen)
        codegen.call(1)

    def method_copy(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstDictVariable(self._items)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if DUNDER_NAMES.get(name, name) in self._CHANGING:
            unimplemented(f"{name}() of a mappingproxy (eager raises)")
        return super().call_method(tx, name, args, kwargs)


class DictViewVariable(VariableTracker):
    """`d.keys()`, `d.values()` or `d.items()` of a ConstDictVariable."""

    def __init__(self, dict_vt: ConstDictVariable, kind: str) -> None:
        super().__init__()
        self.dict_vt = dict_vt
        self.kind = kind

    def __repr__(self) -> str:
        return f"DictViewVariable({self.kind})"

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        if self.kind == "keys":
            return [key_variable(key) for key in self.dict_vt.keys()]
        items = self.dict_vt.items
        if self.kind == "values":
            return list(items.values())
        return [TupleVariable([key_variable(k), v]) for k, v in items.items()]

    def python_type(self) -> type:
        return type(getattr({}, self.kind)())

    def as_python_constant(self) -> Any:
        """A keys view is a constant set-like value (`a.keys() & b.keys()` folds); the
        others are as constant as the dict's values."""
        if self.kind == "keys":
            return dict.fromkeys(key_constant(key) for key in self.dict_vt.keys()).keys()
        return getattr(self.dict_vt.as_python_constant(), self.kind)()

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        kind = type(iter(getattr({}, self.kind)()))
        return ListIteratorVariable(self.unpack_var_sequence(tx), kind=kind)

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstantVariable(len(self.dict_vt.keys()))

    def method_contains(
        self, tx: InstructionTranslatorBase, key: VariableTracker
    ) -> VariableTracker:
        """``k in d.keys()``; ``(k, v) in d.items()``: k is a key whose value is (or
        equals) v; ``v in d.values()``: some value is (or equals) v."""
        from minidynamo.variables.operators import compare_identity_or_equal

        if self.kind == "keys":
            return self.dict_vt.method_contains(tx, key)
        if self.kind == "values":
            found = any(compare_identity_or_equal(tx, v, key) for v in self.dict_vt.items.values())
            return ConstantVariable(found)
        pair = key.unpack_var_sequence(tx) if isinstance(key, TupleVariable) else []
        if len(pair) != 2:
            return ConstantVariable(False)
        value = self.dict_vt.items.get(constant_key(pair[0]))
        return ConstantVariable(value is not None and compare_identity_or_equal(tx, value, pair[1]))

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.call_method_of(self.dict_vt, self.kind)


class SetVariable(VariableTracker):
    """A `set` of constants."""

    def __init__(self, items: list[VariableTracker], *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.values = {constant_key(item) for item in items}

    def __repr__(self) -> str:
        return f"SetVariable(length={len(self.values)})"

    def python_type(self) -> type:
        return set

    def as_python_constant(self) -> Any:
        return {key_constant(value) for value in self.values}

    def bool_value(self) -> bool:
        return bool(self.values)

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return [key_variable(value) for value in self.values]

    def is_new_object(self) -> bool:
        return self.source is None

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        self.reconstruct_contents(codegen)

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        for value in self.values:
            codegen(key_variable(value))
        codegen.build(set, len(self.values))

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstantVariable(len(self.values))

    def method_contains(
        self, tx: InstructionTranslatorBase, item: VariableTracker
    ) -> VariableTracker:
        return ConstantVariable(constant_key(item) in self.values)

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ListIteratorVariable(self.unpack_var_sequence(tx), kind=type(iter(set())))

    def method_add(self, tx: InstructionTranslatorBase, item: VariableTracker) -> VariableTracker:
        check_mutable(tx, self)
        self.values.add(constant_key(item))
        return ConstantVariable(None)

    def method_discard(
        self, tx: InstructionTranslatorBase, item: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.values.discard(constant_key(item))
        return ConstantVariable(None)

    def method_remove(
        self, tx: InstructionTranslatorBase, item: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        key = constant_key(item)
        if key not in self.values:
            raise_observed(KeyError, key_constant(key))
        self.values.remove(key)
        return ConstantVariable(None)

    def method_pop(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """The item CPython's ``set.pop`` takes: `values` is a real set of the same keys,
        built and changed by the same steps, so its own ``pop`` picks the same one."""
        check_mutable(tx, self)
        if not self.values:
            raise_observed(KeyError, "pop from an empty set")
        return key_variable(self.values.pop())


class FrozensetVariable(SetVariable):
    """A `frozenset`: a set without the methods that change it."""

    _CHANGING = frozenset({"add", "discard", "remove", "update", "clear", "pop"})

    def __repr__(self) -> str:
        return f"FrozensetVariable(length={len(self.values)})"

    def python_type(self) -> type:
        return frozenset

    def as_python_constant(self) -> Any:
        return frozenset(super().as_python_constant())

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        codegen.load_builtin(frozenset)
        super().reconstruct_contents(codegen)
        codegen.call(1)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if name in self._CHANGING:
            unimplemented(f"frozenset has no method {name}() (eager raises)")
        return super().call_method(tx, name, args, kwargs)
