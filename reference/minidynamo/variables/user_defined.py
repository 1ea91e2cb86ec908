"""The fallback VariableTrackers for objects and classes the tracer has no special
model for (seed: "`UserDefinedObjectVariable`, Dynamo's catch-all class").

Attribute reads are answered from the real object, without running user descriptors:
instance attributes are wrapped with an `AttrSource` (and so guarded), methods and
properties are inlined. Attribute stores go to `SideEffects`. Calling a plain class
creates a new object (``object.__new__(cls)``, as Dynamo's `object_new`) and inlines its
``__init__``; the generated code rebuilds it the same way, then sets its attributes.
"""

from __future__ import annotations

import abc
import enum
import inspect
import operator
import random
import sys
import types
from typing import TYPE_CHECKING, Any

import torch
from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.bytecode import create_dup_top, create_instruction, create_swap
from minidynamo.exc import ObservedException, unimplemented
from minidynamo.side_effects import DELETED
from minidynamo.source import AttrSource, TypeSource
from minidynamo.trace_rules import is_namedtuple
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.class_lookup import (
    class_attribute,
    has_generic_getattr,
    inline_slot,
    may_raise_on_get,
    plain_class_problem,
    rebuild_object,
    traced_slot,
    user_slot,
    wrap_class_attribute,
)
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.instance_dict import InstanceDictVariable
from minidynamo.variables.lists import NamedTupleVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


def _keeps_type_attribute(metaclass: type, name: str) -> bool:
    """Whether `type`'s own attribute `name` (``__dict__``) is what a class of `metaclass`
    has: no metaclass between them redefines it."""
    return all(klass is type or name not in vars(klass) for klass in metaclass.__mro__[:-1])


def _metaclass_property(metaclass: type, name: str) -> property | None:
    """A user metaclass's property `name` with a getter (``Registry.names`` of
    ``class Meta(type): @property def names(cls)``): read on the class, it wins over the
    class's own attributes, as type.__getattribute__ gives data descriptors of the
    metaclass precedence."""
    for klass in metaclass.__mro__:
        if klass is type or name not in vars(klass):
            continue
        found = vars(klass)[name]
        return found if isinstance(found, property) and found.fget is not None else None
    return None


def _slot_hash(value: int) -> int:
    """What CPython's ``slot_tp_hash`` makes of the int a Python ``__hash__`` returned:
    itself where it fits a Py_ssize_t (-1, the error value, becomes -2), else its hash."""
    if -sys.maxsize - 1 <= value <= sys.maxsize:
        return -2 if value == -1 else value
    return hash(value)


def _from_metaclass(cls: type, name: str) -> bool:
    """Whether `cls.name` is found on the metaclass: no class of the MRO has it."""
    return all(name not in vars(klass) for klass in cls.__mro__)


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
        source = None if self.source is None else AttrSource(self.source, name)
        if name in ("__mro__", "__bases__", "__base__"):
            # type's own getset descriptors, read as CPython's type_getattro does: before
            # the class's dict (a metaclass's data descriptor wins). The classes are
            # guarded by identity where they are used.
            from minidynamo.builder import VariableBuilder

            return VariableBuilder(tx, source)(getattr(self.value, name))
        if name == "__dict__" and _keeps_type_attribute(type(self.value), name):
            from minidynamo.variables.class_dict import class_dict

            return class_dict(tx, self)
        if name == "apply" and issubclass(self.value, torch.autograd.Function):
            from minidynamo.variables.autograd_function import AutogradFunctionApplyVariable

            return AutogradFunctionApplyVariable(self.value, self.source)
        stored = tx.output.side_effects.load_class_attr(self.value, name)
        if stored is DELETED:
            unimplemented(f"read of the class attribute {name!r} after `del`")
        if stored is not None:
            return stored
        meta_property = _metaclass_property(type(self.value), name)
        if meta_property is not None:  # a data descriptor of the metaclass comes first
            from minidynamo.variables.functions import UserFunctionVariable

            return UserFunctionVariable(meta_property.fget).call_function(tx, [self], {})
        try:
            attr = inspect.getattr_static(self.value, name)
        except AttributeError:
            if type(self.value) is type and self.source is not None:
                tx.output.guards.add_hasattr(self.source, name, False)
                raise_observed(
                    AttributeError, f"type object {self.value.__name__!r} has no attribute {name!r}"
                )
            unimplemented(f"class {self.value.__qualname__} has no attribute {name!r}")
        polyfill = trace_rules.method_polyfill(self.value, name)
        if polyfill is not None and trace_rules.is_namedtuple(self.value):
            # `Pair._replace(p, a=1)`: the generated method, unbound, as its polyfill
            from minidynamo.variables.functions import PolyfilledFunctionVariable

            return PolyfilledFunctionVariable(attr, polyfill, source=source)
        if isinstance(attr, types.FunctionType) and _from_metaclass(self.value, name):
            # `class Meta(type): def describe(cls)`: the metaclass's method, bound to the class
            from minidynamo.variables.functions import UserFunctionVariable, UserMethodVariable

            return UserMethodVariable(UserFunctionVariable(attr), self)
        return wrap_class_attribute(tx, self, attr, source)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``Counter.created += 2``: recorded in SideEffects, replayed on the class after
        the graph. Only through `type.__setattr__` (a plain metaclass), and not a dunder
        name: those are type slots or type's own data descriptors (``__name__``)."""
        if type(self.value) not in (type, abc.ABCMeta):
            unimplemented(f"attribute assignment on {self!r} (metaclass {type(self.value)})")
        if name.startswith("__") and name.endswith("__"):
            unimplemented(f"assignment to the special class attribute {name}")
        if self.source is None:
            unimplemented(f"attribute assignment .{name} on {self!r}, which cannot be reached")
        tx.output.side_effects.store_attr(self, name, value)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        if self.value.__module__ == "builtins":
            codegen.load_builtin(self.value)
            return
        codegen.load_import(self.value)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``cls(*args)``: an exception (``raise ValueError("...")``), or a new object
        and then its ``__init__`` inlined."""
        from minidynamo.variables.exceptions import (
            ExceptionVariable,
            has_own_init,
            has_plain_constructor,
        )
        from minidynamo.variables.functions import UserFunctionVariable
        from minidynamo.variables.user_dict import dict_base

        cls = self.value
        if isinstance(cls, enum.EnumMeta):  # `Mode("eval")`: a member looked up by value
            from minidynamo.variables.builtin import fold_builtin

            return fold_builtin(cls, args, kwargs)
        if cls is random.Random and not kwargs and len(args) == 1 and args[0].is_python_constant():
            from minidynamo.variables.misc import RandomVariable

            return RandomVariable(random.Random(args[0].as_python_constant()))
        if cls is types.MappingProxyType and len(args) == 1 and not kwargs:
            proxy = mapping_proxy_of(args[0])
            if proxy is not None:
                return proxy
        if has_plain_constructor(cls) and not kwargs:
            return ExceptionVariable(cls, args, self.source)
        if has_own_init(cls) and not kwargs:
            exc = ExceptionVariable(cls, args, self.source)  # args: as BaseException.__new__
            UserFunctionVariable(vars(cls)["__init__"]).call_function(tx, [exc, *args], {})
            return exc
        if issubclass(cls, BaseException):
            return super().call_function(tx, args, kwargs)
        if is_namedtuple(cls):
            return self.call_namedtuple(tx, args, kwargs)
        if issubclass(cls, torch.nn.Module):
            from minidynamo.variables.nn_module import make_module

            return make_module(tx, self, args, kwargs)
        obj = self.new_instance()
        storage = dict_base(cls)
        init = inspect.getattr_static(cls, "__init__")
        if storage is not None and init is storage.__init__:
            obj.var_getattr(tx, "update").call_function(tx, args, kwargs)
        elif init is object.__init__:
            if args or kwargs:
                unimplemented(f"{cls.__qualname__}() takes no arguments")
        elif isinstance(init, types.FunctionType):
            UserFunctionVariable(init).call_function(tx, [obj, *args], kwargs)
        else:
            unimplemented(f"{cls.__qualname__}.__init__ of type {type(init).__name__}")
        return obj

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """An Enum class's own operations (``len(Mode)``, ``m in Mode``) on constants are
        folded: its members are fixed when the class is made."""
        if isinstance(self.value, enum.EnumMeta):
            from minidynamo.variables.builtin import fold_builtin

            return fold_builtin(getattr(self.value, name), args, kwargs)
        return super().call_method(tx, name, args, kwargs)

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        if isinstance(self.value, enum.EnumMeta):
            return [ConstantVariable(member) for member in self.value]
        return super().unpack_var_sequence(tx)

    def new_instance(self) -> UserDefinedObjectVariable:
        """``object.__new__(cls)``: an empty new object of a plain class."""
        from minidynamo.variables.user_dict import UserDefinedDictVariable, dict_base

        problem = plain_class_problem(self.value)
        if problem is not None:
            unimplemented(f"call to {self!r}: {problem}", gb.UNSUPPORTED_CALL)
        if dict_base(self.value) is not None:
            return UserDefinedDictVariable(self)
        return UserDefinedObjectVariable(object.__new__(self.value), cls_vt=self)

    def call_namedtuple(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """A namedtuple's generated ``__new__`` only binds its fields."""
        from minidynamo.builder import VariableBuilder

        try:
            bound = inspect.signature(self.value).bind(*args, **kwargs)
        except TypeError as e:
            unimplemented(f"{self.value.__qualname__}() raises TypeError: {e}")
        fields = [
            bound.arguments[name]
            if name in bound.arguments
            else VariableBuilder(tx, None)(self.value._field_defaults[name])
            for name in self.value._fields
        ]
        return NamedTupleVariable(fields, self.value)


class TraceTimeClassVariable(UserDefinedClassVariable):
    """A class that ``type(name, bases, namespace)`` made while tracing: one class for
    every run of the graph, where each call makes a new one in CPython, so it (or an
    instance of it) must not leave the trace."""

    def reconstruct(self, codegen: PyCodegen) -> None:
        unimplemented(
            f"the class {self.value.__qualname__} made by type() leaves the trace",
            gb.TRACE_TIME_CLASS_ESCAPES,
        )


class UserDefinedObjectVariable(VariableTracker):
    """Any other object: its type is guarded, its attributes are read lazily. An object
    the trace created (`cls_vt` set) holds the real, empty ``object.__new__(cls)``; its
    attributes live in `SideEffects` until the generated code rebuilds it."""

    def __init__(
        self,
        value: object,
        *,
        source: Source | None = None,
        cls_vt: UserDefinedClassVariable | None = None,
    ) -> None:
        super().__init__(source=source)
        self.value = value
        self.cls_vt = cls_vt

    def is_new_object(self) -> bool:
        return self.cls_vt is not None

    def reconstruct(self, codegen: PyCodegen) -> None:
        if not self.is_new_object():
            super().reconstruct(codegen)
            return
        attributes = codegen.output.side_effects.new_object_attributes(self)
        if user_slot(type(self.value), "__setattr__") is not None:
            codegen.load_installed("__import_rebuild_object", rebuild_object, push_null=True)
            codegen(self.cls_vt)  # type: ignore[arg-type]
            for name, value in attributes:
                codegen.load_const(name)
                codegen(value)
            codegen.build(dict, len(attributes))
            codegen.call(2)
            return
        codegen.load_installed("__import_object_new", object.__new__, push_null=True)
        codegen(self.cls_vt)  # type: ignore[arg-type]
        codegen.call(1)
        for name, value in attributes:
            # obj -> obj, obj -> obj, obj, value -> obj, value, obj -> obj.name = value
            codegen.extend(create_dup_top())
            codegen(value)
            codegen.extend(create_swap(2))
            codegen.extend([create_instruction("STORE_ATTR", argval=name)])

    def __repr__(self) -> str:
        return f"UserDefinedObjectVariable({type(self.value).__qualname__})"

    def python_type(self) -> type:
        return type(self.value)

    def bool_value(self) -> bool:
        cls = type(self.value)
        if hasattr(cls, "__bool__") or hasattr(cls, "__len__"):
            unimplemented(f"truth value of a {cls.__qualname__} (user-defined __bool__/__len__)")
        return True

    def truth(self, tx: InstructionTranslatorBase) -> bool:
        """As CPython's ``PyObject_IsTrue``: the class's Python ``__bool__`` inlined, else
        its ``__len__`` (true when non-zero); true without either."""
        cls = type(self.value)
        for name in ("__bool__", "__len__"):
            if inspect.getattr_static(cls, name, None) is None:
                continue
            if user_slot(cls, name) is None:
                return self.bool_value()  # a C method of a base: its own model decides
            result = self.call_method(tx, name, [], {})
            if not result.is_python_constant():
                unimplemented(f"{cls.__qualname__}.{name} returned {result!r}")
            value = result.as_python_constant()
            if name == "__bool__" and not isinstance(value, bool):
                returned = type(value).__name__
                raise_observed(TypeError, f"__bool__ should return bool, returned {returned}")
            return bool(value)
        return True

    def hash_value(self, tx: InstructionTranslatorBase) -> int:
        """``hash(obj)`` as CPython's ``slot_tp_hash`` finds it on the class: a Python
        ``__hash__`` inlined, object's identity hash of the real object (an input, or the
        trace's empty new object), None as ``unhashable type``."""
        cls = type(self.value)
        for klass in cls.__mro__:
            if "__hash__" not in vars(klass):
                continue
            fn = vars(klass)["__hash__"]
            if fn is None:
                raise_observed(TypeError, f"unhashable type: {cls.__name__!r}")
            if klass is object:
                return hash(self.value)
            if fn is not user_slot(klass, "__hash__"):
                unimplemented(f"hash of a {cls.__qualname__} ({klass.__qualname__}.__hash__)")
            result = self.call_method(tx, "__hash__", [], {})
            if not result.is_python_constant() or not isinstance(result.as_python_constant(), int):
                unimplemented(f"{cls.__qualname__}.__hash__ returned {result!r}")
            return _slot_hash(result.as_python_constant())
        return hash(self.value)

    def text(self, tx: InstructionTranslatorBase, slot: str, spec: str = "") -> VariableTracker:
        """``str(obj)``, ``repr(obj)``, ``format(obj, spec)`` (`slot` ``__str__``,
        ``__repr__``, ``__format__``): the class's Python method inlined; object's own
        ``__format__`` is ``str`` (empty spec), its ``__str__`` is ``repr``. object's
        ``__repr__`` (an address) is not modelled."""
        cls = type(self.value)
        fn = traced_slot(cls, slot)
        if fn is None:
            own = inspect.getattr_static(cls, slot)
            if slot == "__format__" and own is object.__format__ and not spec:
                return self.text(tx, "__str__")
            if slot == "__str__" and own is object.__str__:
                return self.text(tx, "__repr__")
            unimplemented(f"{slot} of a {cls.__qualname__} ({type(own).__name__} of a library)")
        args = [self, ConstantVariable(spec)] if slot == "__format__" else [self]
        result = inline_slot(tx, fn, args)
        if not result.is_python_constant() or not isinstance(result.as_python_constant(), str):
            unimplemented(f"{cls.__qualname__}.{slot} returned {result!r}")
        return result

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """``obj.name``: through the class's own ``__getattribute__`` (inlined) if it has
        one in Python, else the generic lookup."""
        getattribute = user_slot(type(self.value), "__getattribute__")
        if getattribute is not None:
            return inline_slot(tx, getattribute, [self, ConstantVariable(name)])
        return self.generic_getattr(tx, name)

    def generic_getattr(
        self, tx: InstructionTranslatorBase, name: str, *, object_lookup: bool = False
    ) -> VariableTracker:
        """``object.__getattribute__``, then the class's Python ``__getattr__``; a missing
        attribute raises AttributeError in the traced program (`missing_attribute`).
        `object_lookup`: the program calls ``object.__getattribute__`` itself
        (``super().__getattribute__(name)``), whatever the class overrides."""
        from minidynamo.builder import VariableBuilder

        stored = tx.output.side_effects.read_attr(self, name)
        if stored is not None:
            return stored
        source = None if self.source is None else AttrSource(self.source, name)
        class_source = None if self.cls_vt is None else self.cls_vt.source
        if name == "__class__":
            # A new object's class is where it came from, not an attribute of that class.
            return VariableBuilder(tx, class_source or source)(type(self.value))
        if class_source is not None:
            # A new object's own attributes are all in SideEffects: this is its class's.
            source = AttrSource(class_source, name)
        if name == "__dict__" and class_attribute(type(self.value), name, None) is not None:
            return InstanceDictVariable(self)  # not of a class whose __slots__ leave none
        instance_dict = getattr(self.value, "__dict__", {})
        try:
            attr = inspect.getattr_static(self.value, name)
        except AttributeError:
            return self.missing_attribute(tx, name, object_lookup)
        if name in instance_dict and attr is instance_dict[name]:
            return VariableBuilder(tx, source)(attr)
        if self.source is not None and not self.is_new_object() and hasattr(self.value, "__dict__"):
            tx.output.guards.add_not_in_instance_dict(self.source, name)
        stored = tx.output.side_effects.load_class_attr(type(self.value), name)
        if stored is not None:
            if stored is DELETED or not isinstance(stored, ConstantVariable):
                unimplemented(f"read of {name!r} through an instance after a class store")
            return stored
        if isinstance(attr, types.MemberDescriptorType) and not self.is_new_object():
            try:  # a __slots__ value, read in C (dataclasses.Field.name)
                value = attr.__get__(self.value, type(self.value))
            except AttributeError:
                return self.missing_attribute(tx, name, object_lookup)
            return VariableBuilder(tx, source)(value)
        if type(attr) in (int, float) and class_source is None and source is not None:
            # A number on the class (a default an instance may later shadow): read as
            # ``type(obj).n``, a name of its own for automatic dynamic.
            source = AttrSource(TypeSource(self.source), name)
        return wrap_class_attribute(tx, self, attr, source)

    def known_getattr(self) -> object:
        """The ``__getattr__`` whose answers `has_attr` already knows (none here)."""
        return None

    def missing_attribute(
        self, tx: InstructionTranslatorBase, name: str, object_lookup: bool
    ) -> VariableTracker:
        """An attribute the object's dict and class lack: the class's Python
        ``__getattr__``, else AttributeError in the traced program (a ``try`` or
        ``getattr(obj, name, default)`` catches it) when CPython's generic lookup is all
        there is, or a ``__getattr__`` whose answers the lookup already had
        (`known_getattr`: nn.Module's registries); a C ``__getattribute__`` or another
        library ``__getattr__`` may know more."""
        cls = type(self.value)
        getattr_fn = user_slot(cls, "__getattr__")
        if getattr_fn is not None and getattr_fn is not self.known_getattr():
            return inline_slot(tx, getattr_fn, [self, ConstantVariable(name)])
        generic = object_lookup or has_generic_getattr(cls, self.known_getattr())
        if generic and (self.source is not None or self.is_new_object()):
            if self.source is not None and not self.is_new_object():
                tx.output.guards.add_hasattr(self.source, name, False)
            raise_observed(AttributeError, f"{cls.__name__!r} object has no attribute {name!r}")
        unimplemented(f"{cls.__qualname__} has no attribute {name!r}")

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        """``hasattr(obj, name)``, without running user code, or through the class's
        Python ``__getattribute__``/``__getattr__``, where an AttributeError means False.
        An instance attribute of an input is guarded (``hasattr(L['p'], 'z')``); the
        class is already guarded."""
        cls = type(self.value)
        getattr_fn = user_slot(cls, "__getattr__")
        if user_slot(cls, "__getattribute__") is not None or (
            getattr_fn is not None and getattr_fn is not self.known_getattr()
        ):
            return self.has_attr_by_lookup(tx, name)
        if not has_generic_getattr(cls, self.known_getattr()):
            unimplemented(f"hasattr on {cls.__qualname__} (a C __getattribute__ or __getattr__)")
        stored = tx.output.side_effects.load_attr(self, name)
        if stored is not None and stored is not DELETED:
            return True
        try:
            attr = class_attribute(cls, name)
        except AttributeError:
            pass
        else:
            if isinstance(attr, types.MemberDescriptorType) and self.is_new_object():
                return False  # a new object's slots set so far are all in SideEffects
            if may_raise_on_get(attr):  # a property's getter may raise AttributeError
                return self.has_attr_by_lookup(tx, name)
            if stored is DELETED:
                unimplemented(f"hasattr of {name!r} after `del` on {cls.__qualname__}")
            return True
        if stored is DELETED or self.is_new_object():
            return False
        if self.source is None:
            unimplemented(f"hasattr on {self!r} that cannot be guarded")
        present = name in getattr(self.value, "__dict__", {})
        tx.output.guards.add_hasattr(self.source, name, present)
        return present

    def has_attr_by_lookup(self, tx: InstructionTranslatorBase, name: str) -> bool:
        try:
            self.var_getattr(tx, name)
        except ObservedException as e:
            if not issubclass(e.exception.python_type(), AttributeError):
                raise
            return False
        return True

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``obj.name = value``: the class's Python ``__setattr__`` inlined, if any."""
        setattr_fn = user_slot(type(self.value), "__setattr__")
        if setattr_fn is not None:
            inline_slot(tx, setattr_fn, [self, ConstantVariable(name), value])
            return
        self.generic_store_attr(tx, name, value)

    def generic_store_attr(
        self, tx: InstructionTranslatorBase, name: str, value: VariableTracker
    ) -> None:
        """``object.__setattr__``: a plain store (no setter, no custom ``__setattr__``)."""
        cls = type(self.value)
        if user_slot(cls, "__setattr__") is None and (
            inspect.getattr_static(cls, "__setattr__") is not object.__setattr__
        ):
            unimplemented(f"attribute assignment on {cls.__qualname__} (custom __setattr__)")
        attr = class_attribute(cls, name, None)
        if isinstance(attr, property) and isinstance(attr.fset, types.FunctionType):
            self.call_property_setter(tx, attr.fset, value)
            return
        setter = user_slot(type(attr), "__set__")
        if setter is not None:  # a user's data descriptor: its __set__ inlined
            from minidynamo.builder import VariableBuilder

            inline_slot(tx, setter, [VariableBuilder(tx, None)(attr), self, value])
            return
        if hasattr(type(attr), "__set__") and not isinstance(attr, types.MemberDescriptorType):
            unimplemented(f"assignment to the descriptor {cls.__qualname__}.{name}")
        tx.output.side_effects.store_attr(self, name, value)

    def call_property_setter(
        self, tx: InstructionTranslatorBase, fset: types.FunctionType, value: VariableTracker
    ) -> None:
        """``obj.prop = value`` through a Python property setter: the setter is inlined."""
        from minidynamo.variables.functions import UserFunctionVariable

        UserFunctionVariable(fset).call_function(tx, [self, value], {})

    def delete_attr(self, tx: InstructionTranslatorBase, name: str) -> None:
        """``del obj.name``: the class's Python ``__delattr__`` inlined, if any (a frozen
        dataclass's raises)."""
        delattr_fn = user_slot(type(self.value), "__delattr__")
        if delattr_fn is not None:
            inline_slot(tx, delattr_fn, [self, ConstantVariable(name)])
            return
        self.generic_delete_attr(tx, name)

    def generic_delete_attr(self, tx: InstructionTranslatorBase, name: str) -> None:
        """``object.__delattr__`` of an instance attribute, read first (and so guarded):
        the generated code deletes it only where eager would find it."""
        cls = type(self.value)
        if user_slot(cls, "__delattr__") is None and (
            inspect.getattr_static(cls, "__delattr__") is not object.__delattr__
        ):
            unimplemented(f"attribute deletion on {cls.__qualname__} (custom __delattr__)")
        attr = class_attribute(cls, name, None)
        if isinstance(attr, property):  # a data descriptor: its deleter, not the dict
            from minidynamo.variables.functions import UserFunctionVariable

            if not isinstance(attr.fdel, types.FunctionType):
                unimplemented(f"del of the property {cls.__qualname__}.{name} (no Python deleter)")
            UserFunctionVariable(attr.fdel).call_function(tx, [self], {})
            return
        stored = tx.output.side_effects.load_attr(self, name)
        if stored is None and name in getattr(self.value, "__dict__", {}):
            self.var_getattr(tx, name)
        elif stored is None or stored is DELETED:
            unimplemented(f"del of {cls.__qualname__}.{name} raises AttributeError")
        tx.output.side_effects.delete_attr(self, name)

    def compare_equal(
        self, tx: InstructionTranslatorBase, fn: Any, other: VariableTracker
    ) -> VariableTracker:
        """``obj == other`` / ``!=`` through the class's own Python ``__eq__`` (``__ne__``
        defaults to its negation); identity where the class keeps object's."""
        from minidynamo.variables.operators import call_operator, compare_identity

        name = "__ne__" if fn is operator.ne else "__eq__"
        own = inspect.getattr_static(type(self.value), name)
        if fn is operator.ne and not isinstance(own, types.FunctionType):
            return call_operator(tx, operator.not_, [self.compare_equal(tx, operator.eq, other)])
        if isinstance(own, types.FunctionType):
            result = self.call_method(tx, name, [other], {})
            if result.is_python_constant() and result.as_python_constant() is NotImplemented:
                unimplemented(f"{type(self.value).__qualname__}.{name} returned NotImplemented")
            return result
        if own is not object.__eq__ or not other.is_new_object() and other.source is None:
            unimplemented(f"{name} of {self!r} and {other!r}")
        return ConstantVariable(compare_identity(self, other, tx))

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

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """``iter(obj)``: the class's own ``__iter__`` (e.g. `nn.Sequential`), or the
        old ``__getitem__`` protocol."""
        from minidynamo.variables.user_iterators import user_iterator

        return user_iterator(tx, self)

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return self.method_iter(tx).unpack_var_sequence(tx)


def mapping_proxy_of(mapping: VariableTracker) -> VariableTracker | None:
    """``types.MappingProxyType(d)`` of a dict the trace models (an Enum class's
    ``__members__`` is one, of its member map): a read-only view of it."""
    from minidynamo.variables.dicts import ConstDictVariable, MappingProxyVariable

    if type(mapping) is ConstDictVariable or isinstance(mapping, MappingProxyVariable):
        return MappingProxyVariable.view_of(mapping)
    return None
