"""The attribute lookup through a user class (seed: `UserDefinedObjectVariable`'s
`var_getattr`): which of a class's slots are the user's own Python code and so traced
(`user_slot`, `inline_slot`), what an attribute found on the class is once bound to its
owner (`wrap_class_attribute`: methods, staticmethods, classmethods, properties, cached
properties, descriptors), and how a new object of a plain class is made and rebuilt.
The VariableTrackers that ask are in user_defined.py.
"""

from __future__ import annotations

import abc
import functools
import inspect
import types
import typing
from typing import TYPE_CHECKING

from minidynamo import trace_rules
from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource
from minidynamo.trace_rules import is_library_file
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.descriptors import MethodDescriptorVariable, is_method_descriptor

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source




def plain_class_problem(cls: type) -> str | None:
    """Why instances of `cls` cannot be created and changed by the trace, or None: its
    metaclass, ``__new__``, ``__setattr__`` or attribute lookup could run any code."""
    from minidynamo.trace_rules import is_traced_module
    from minidynamo.variables.user_dict import DICT_BASES, dict_base

    # `cls(...)` runs the metaclass's __call__: type's makes the object as for any class
    # (a registry metaclass's __new__/__init__ ran when the class was made).
    if inspect.getattr_static(type(cls), "__call__", None) is not type.__call__:
        return f"metaclass {type(cls).__qualname__}"
    for base in cls.__mro__[:-1]:  # `object` last
        # No behaviour of their own for an instance (typing.Generic: subscription of the
        # class only); the items of a dict base
        if base in (abc.ABC, typing.Generic) or base in DICT_BASES:
            continue
        module = inspect.getmodule(base)
        if module is None or not is_traced_module(module):
            return f"base class {base.__qualname__} is not user code"
    storage = dict_base(cls) or object
    for name in _OBJECT_SLOTS:
        custom = inspect.getattr_static(cls, name, None) is not inspect.getattr_static(
            storage, name, None
        )
        if custom and (name not in _TRACED_SLOTS or user_slot(cls, name) is None):
            return f"custom {name}"
    return None


# Slots whose Python versions are inlined on every attribute access of the object.
_TRACED_SLOTS = ("__setattr__", "__delattr__", "__getattribute__")


def rebuild_object(cls: type, attributes: dict[str, object]) -> object:
    """A new object of a class with its own ``__setattr__``, its attributes set as the
    trace recorded them (what that ``__setattr__`` did is recorded too)."""
    obj = object.__new__(cls)
    for name, value in attributes.items():
        object.__setattr__(obj, name, value)
    return obj


_MISSING = object()


def class_attribute(cls: type, name: str, default: object = _MISSING) -> object:
    """`name` as an instance of `cls` finds it on its class (CPython's _PyType_Lookup: the
    dicts of ``cls.__mro__``), unlike ``inspect.getattr_static(cls, name)``, which looks
    up an attribute of the class object and so finds the metaclass's ``__dict__``,
    ``__name__`` or ``mro`` that no instance has."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    if default is _MISSING:
        raise AttributeError(name)
    return default


# `__del__` too: the empty object made while tracing must not run user code when freed.
# A class that keeps these of `object` (or of its dict base) is plain.
_OBJECT_SLOTS = ("__del__", "__new__", "__setattr__", "__delattr__", "__getattribute__")


def user_slot(cls: type, name: str) -> types.FunctionType | None:
    """The class's own Python `name` method (``__getattribute__``, ``__setattr__``,
    ``__getattr__``) from user code, traced like any method; None if it has none."""
    from minidynamo.trace_rules import is_library_file

    fn = inspect.getattr_static(cls, name, None)
    if isinstance(fn, types.FunctionType) and not is_library_file(fn.__code__.co_filename):
        return fn
    return None


# CPython's generic attribute lookup (PyObject_GenericGetAttr), as the builtin bases of
# user classes (and types.SimpleNamespace) expose it.
_GENERIC_GETATTRIBUTE = tuple(
    inspect.getattr_static(base, "__getattribute__")
    for base in (object, dict, list, tuple, set, frozenset, int, float, str, BaseException)
    + (types.SimpleNamespace,)
)


def has_generic_getattr(cls: type, known_getattr: object = None) -> bool:
    """Whether an attribute that `inspect.getattr_static` cannot find on an instance of
    `cls` is missing: CPython's own ``__getattribute__`` and no ``__getattr__`` (or only
    `known_getattr`, one whose answers the caller has already looked at)."""
    getattribute = inspect.getattr_static(cls, "__getattribute__", None)
    return inspect.getattr_static(cls, "__getattr__", None) is known_getattr and any(
        getattribute is generic for generic in _GENERIC_GETATTRIBUTE
    )


def traced_slot(cls: type, name: str) -> types.FunctionType | None:
    """The class's Python method `name` that the trace can follow: user code's, or a
    traced library module's (`lazy_property.__get__` of torch.distributions, pytree's
    `TreeSpec.__repr__`); None otherwise."""
    fn = inspect.getattr_static(cls, name, None)
    if isinstance(fn, types.FunctionType) and trace_rules.lookup(fn) is trace_rules.Rule.INLINE:
        return fn
    return None


def may_raise_on_get(attr: object) -> bool:
    """Whether reading the class attribute `attr` through an instance runs code that may
    raise AttributeError (a property's getter, a user descriptor's ``__get__``, an unset
    ``__slots__`` member), so that ``hasattr`` must do the lookup; functions, class/static
    methods and plain values cannot."""
    if isinstance(attr, (property, types.MemberDescriptorType)):
        return True
    return not isinstance(attr, types.FunctionType) and user_slot(type(attr), "__get__") is not None


def inline_slot(
    tx: InstructionTranslatorBase, fn: types.FunctionType, args: list[VariableTracker]
) -> VariableTracker:
    from minidynamo.variables.functions import UserFunctionVariable

    return UserFunctionVariable(fn).call_function(tx, args, {})


def wrap_class_attribute(
    tx: InstructionTranslatorBase,
    owner: VariableTracker,
    attr: object,
    source: Source | None,
) -> VariableTracker:
    """An attribute found on a class, bound to `owner` as Python's descriptors would."""
    from minidynamo.builder import VariableBuilder
    from minidynamo.variables.functions import UserFunctionVariable, UserMethodVariable
    from minidynamo.variables.user_defined import UserDefinedClassVariable

    if isinstance(attr, staticmethod):  # guarded: `cls.name` is the function itself
        return VariableBuilder(tx, _program_code(attr.__func__, source))(attr.__func__)
    if isinstance(attr, classmethod):
        cls_vt = (
            owner
            if isinstance(owner, UserDefinedClassVariable)
            else VariableBuilder(tx, None)(owner.python_type())
        )
        function = UserFunctionVariable(attr.__func__)
        if isinstance(owner, UserDefinedClassVariable) and source is not None:
            function_source = _program_code(attr.__func__, AttrSource(source, "__func__"))
            function = VariableBuilder(tx, function_source)(attr.__func__)
        return UserMethodVariable(function, cls_vt)
    if isinstance(attr, types.FunctionType):
        if isinstance(owner, UserDefinedClassVariable):  # guarded: `cls.name` is it
            return VariableBuilder(tx, _program_code(attr, source))(attr)
        return UserMethodVariable(UserFunctionVariable(attr), owner)
    if isinstance(attr, property) and not isinstance(owner, UserDefinedClassVariable):
        if attr.fget is None:
            unimplemented("read of a property without getter")
        return UserFunctionVariable(attr.fget).call_function(tx, [owner], {})
    if isinstance(attr, functools.cached_property) and not isinstance(
        owner, UserDefinedClassVariable
    ):
        return read_cached_property(tx, owner, attr)
    if isinstance(attr, property):  # read from its class: the property object itself
        return VariableBuilder(tx, source)(attr)
    if is_method_descriptor(attr) and isinstance(owner, UserDefinedClassVariable):
        return MethodDescriptorVariable(owner.value, attr.__name__)  # type: ignore[attr-defined]
    if is_method_descriptor(attr):  # a C method bound to an instance
        polyfill = owner.method_polyfill(attr.__name__)
        if polyfill is not None:  # `obj.__reduce_ex__` of object
            return UserMethodVariable(UserFunctionVariable(polyfill), owner)
        from minidynamo.variables.misc import OpaqueMethodVariable

        return OpaqueMethodVariable(owner, attr.__name__)  # type: ignore[attr-defined]
    getter = traced_slot(type(attr), "__get__")
    if getter is not None:  # a user's descriptor: its __get__(obj or None, cls) inlined
        instance = ConstantVariable(None) if isinstance(owner, UserDefinedClassVariable) else owner
        cls_vt = owner if instance is not owner else VariableBuilder(tx, None)(owner.python_type())
        return inline_slot(tx, getter, [VariableBuilder(tx, None)(attr), instance, cls_vt])
    if hasattr(type(attr), "__get__"):
        unimplemented(f"descriptor of type {type(attr).__name__}")
    return VariableBuilder(tx, source)(attr)


def _program_code(function: object, source: Source | None) -> Source | None:
    """`source` for a function of the program's own code, read from its class: it is
    guarded, as a program may replace it between calls (``Cls.helper = other``); None
    for library code (a namedtuple's ``_make``), taken as fixed."""
    code = getattr(function, "__code__", None)
    return source if code is not None and not is_library_file(code.co_filename) else None


def read_cached_property(
    tx: InstructionTranslatorBase, owner: VariableTracker, attr: functools.cached_property
) -> VariableTracker:
    """The first read of a `functools.cached_property`: its function inlined, the value
    put in the instance dict (as ``__set_name__``'s name, past ``__setattr__``), where
    later reads find it before the descriptor."""
    from minidynamo.variables.functions import UserFunctionVariable

    cls = owner.python_type()
    if not hasattr(owner.value, "__dict__") or attr.attrname is None:  # type: ignore[attr-defined]
        unimplemented(f"cached_property {cls.__qualname__}.{attr.attrname} without a __dict__")
    if inspect.getattr_static(cls, "__setattr__") is not object.__setattr__:
        unimplemented(f"cached_property on {cls.__qualname__} (custom __setattr__)")
    value = UserFunctionVariable(attr.func).call_function(tx, [owner], {})
    tx.output.side_effects.store_attr(owner, attr.attrname, value)
    return value
