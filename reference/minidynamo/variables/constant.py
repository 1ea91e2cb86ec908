"""`ConstantVariable`: values Dynamo treats as compile-time constants (seed: "non-tensor
values are specialized as constants"): numbers, strings, None, ranges, slices, dtypes.
Operations on constants are folded at trace time; the frame is guarded on their value.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

# Typing forms (`list[int]`, `Optional[float]`, `int | None`, `Union`): immutable
# constants, as Dynamo's TypingVariable; the typing module's queries on them fold.
TYPING_FORMS: tuple[type, ...] = (
    typing._BaseGenericAlias,  # type: ignore[attr-defined]
    types.GenericAlias,
    types.UnionType,
    typing._SpecialForm,  # type: ignore[attr-defined]
    typing.TypeVar,
    typing.ForwardRef,
)

# Immutable values whose methods have no side effects: safe to evaluate while tracing
# and to embed in bytecode with LOAD_CONST.
CONSTANT_TYPES: tuple[type, ...] = (
    int,
    float,
    bool,
    complex,
    str,
    bytes,
    type(None),
    type(Ellipsis),
    type(NotImplemented),
    range,
    slice,
    torch.dtype,
    torch.device,
    torch.layout,
    torch.memory_format,
    torch.finfo,
    torch.iinfo,
    np.finfo,
    np.iinfo,
    types.CodeType,
    np.number,  # NumPy scalars (`np.float64(2.5)`), guarded on their value as numbers are
    np.bool_,
    enum.Enum,  # members are fixed objects of their class (guarded by identity)
    torch.nn.attention.SDPBackend,  # a C++ enum (pybind11), sdpa_kernel's argument
    re.Pattern,  # compiled regular expressions and their matches: immutable, as Dynamo's
    re.Match,  # ConstantLikeVariable (their methods fold)
    *TYPING_FORMS,
)


def is_constant_value(value: object) -> bool:
    if isinstance(value, (tuple, list, frozenset)):
        return all(is_constant_value(item) for item in value)
    return isinstance(value, CONSTANT_TYPES)


def is_constant_none(value: VariableTracker) -> bool:
    """`value` is the constant None (``filter(None, ...)``, ``raise e from None``)."""
    return value.is_python_constant() and value.as_python_constant() is None


class ConstantVariable(VariableTracker):
    """A constant: `ConstantVariable(int: 3)` in trace logs."""

    def __init__(self, value: object, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    @staticmethod
    def create(value: object, source: Source | None = None) -> VariableTracker:
        """A constant, or a tuple/list/set/dict VariableTracker of constants (a folded
        `a & b` of two sets is a set the program may change)."""
        from minidynamo.trace_rules import is_namedtuple
        from minidynamo.variables.dicts import ConstDictVariable, SetVariable
        from minidynamo.variables.lists import (
            ListVariable,
            NamedTupleVariable,
            SizeVariable,
            TupleVariable,
        )

        if isinstance(value, (tuple, list)):
            # The container keeps its class: a folded `x.shape + (1,)` is still a torch.Size.
            items = [ConstantVariable.create(item) for item in value]
            if type(value) is torch.Size:
                return SizeVariable(items, source=source)
            if type(value) in (tuple, list):
                cls = TupleVariable if isinstance(value, tuple) else ListVariable
                return cls(items, source=source)
            if is_namedtuple(type(value)):
                return NamedTupleVariable(items, type(value), source=source)
        if type(value) is set:
            return SetVariable([ConstantVariable.create(item) for item in value], source=source)
        if type(value) is dict:
            items = {key: ConstantVariable.create(item) for key, item in value.items()}
            return ConstDictVariable(items, source=source)
        return ConstantVariable(value, source=source)

    def __repr__(self) -> str:
        shown = self.value
        if isinstance(shown, types.CodeType):  # its repr has an address
            shown = f"<code object {shown.co_name}>"
        return f"ConstantVariable({type(self.value).__name__}: {shown!r})"

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        return self.value

    def as_proxy(self) -> Any:
        # The graph's code prints a constant by its repr; a numpy scalar's (`np.float64(2.5)`)
        # names a module that code does not import, so the graph gets its Python number
        # (a slice's bounds too: `x[:n]`).
        if isinstance(self.value, np.generic):
            return self.value.item()
        if isinstance(self.value, slice):
            bounds = (self.value.start, self.value.stop, self.value.step)
            return slice(*(b.item() if isinstance(b, np.generic) else b for b in bounds))
        if isinstance(self.value, enum.Enum) and isinstance(self.value, (int, float, str)):
            return self.value._value_  # an IntEnum member is its number in the graph
        return self.value

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_const(self.value)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.misc import GetAttrVariable

        try:
            attr = getattr(self.value, name)
        except AttributeError as error:
            from minidynamo.variables.exceptions import raise_observed

            raise_observed(AttributeError, str(error))
        method = _user_enum_method(self.value, name)
        if method is not None:
            from minidynamo.variables.functions import UserFunctionVariable, UserMethodVariable

            if isinstance(inspect.getattr_static(type(self.value), name), property):
                return UserFunctionVariable(method).call_function(tx, [self], {})
            return UserMethodVariable(UserFunctionVariable(method), self)
        if callable(attr) and not isinstance(attr, CONSTANT_TYPES):
            return GetAttrVariable(self, name)
        if name in ("value", "_value_") and isinstance(self.value, enum.Enum) and self.source:
            return _member_value(tx, self.source, attr)
        return ConstantVariable.create(attr)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.variables.lists import IteratorVariable, TupleVariable

        # An iterator argument (`"".join(str(i) for i in ...)`) is consumed first.
        args = [
            TupleVariable(arg.unpack_var_sequence(tx)) if isinstance(arg, IteratorVariable) else arg
            for arg in args
        ]
        if _user_enum_method(self.value, name) is not None:
            return self.var_getattr(tx, name).call_function(tx, args, kwargs)
        values = [arg.as_python_constant() for arg in args]
        kwvalues = {key: arg.as_python_constant() for key, arg in kwargs.items()}
        return fold(getattr(self.value, name), values, kwvalues)

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """A range's items are made as the loop asks for them: a long loop costs only
        the iterations the trace runs (its budget stops it early)."""
        from minidynamo.variables.builtin_iterators import LazyIteratorVariable
        from minidynamo.variables.lists import ListIteratorVariable

        if isinstance(self.value, range):
            items = iter(self.value)  # its __length_hint__ counts what is left
            return LazyIteratorVariable(
                map(ConstantVariable, items), type(items), length_hint=items.__length_hint__
            )
        return ListIteratorVariable(self.unpack_var_sequence(tx))

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        if isinstance(self.value, (str, bytes, range, frozenset)):
            return [ConstantVariable.create(item) for item in self.value]
        return super().unpack_var_sequence(tx)


def _user_enum_method(value: object, name: str) -> types.FunctionType | None:
    """The user-code method `name` (or property getter) of an enum member's class
    (``Act.RELU.fn()``): traced like any method, never run now (it may return a function,
    touch tensors or globals)."""
    from minidynamo import trace_rules

    if not isinstance(value, enum.Enum):
        return None
    fn = inspect.getattr_static(type(value), name, None)
    if isinstance(fn, property):
        fn = fn.fget
    if isinstance(fn, types.FunctionType) and trace_rules.lookup(fn) is trace_rules.Rule.INLINE:
        return fn
    return None


def fold(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> VariableTracker:
    """Evaluate a side-effect-free call on constants now; if it raises, so does the
    traced program (a frame the exception leaves runs eagerly: the user sees CPython's
    own exception)."""
    from minidynamo.variables.exceptions import raise_folded

    try:
        result = fn(*args, **kwargs)
    except Exception as e:
        raise_folded(e)
    if is_static_value(result) and not is_constant_value(result):
        # A class, or a tuple holding classes (`typing.get_args(list[int])`).
        from minidynamo.builder import VariableBuilder
        from minidynamo.symbolic_convert import current_tx

        return VariableBuilder(current_tx(), None)(result)
    if not is_constant_value(result) and not (
        type(result) in (set, dict) and is_constant_value(list(_contents(result)))
    ):
        unimplemented(f"constant folding produced a {type(result).__name__}")
    return ConstantVariable.create(result)


def is_static_value(value: object) -> bool:
    """A constant or a class, or a tuple of them: fixed values a fold may return and a
    dict may be keyed by (a class compares and hashes by identity)."""
    if type(value) is tuple:
        return all(is_static_value(item) for item in value)
    return isinstance(value, type) or is_constant_value(value)


def _contents(value: set | dict) -> Any:
    return value if isinstance(value, set) else [*value.keys(), *value.values()]


class FormattedStringVariable(VariableTracker):
    """An f-string with a part known only at run time (``f"got {x.shape}"`` where the
    shape is symbolic), as Dynamo's StringFormatVariable: kept as ``template.format(*values)``
    and built by the generated code if the program keeps the string; a trace that needs
    its text (a comparison, a dict key) cannot have it and stops there."""

    def __init__(self, template: str, values: list[VariableTracker]) -> None:
        super().__init__()
        self.template = template
        self.values = values

    def __repr__(self) -> str:
        return f"FormattedStringVariable({self.template!r})"

    def python_type(self) -> type:
        return str

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_const(self.template)
        codegen.call_method("format", [lambda value=value: codegen(value) for value in self.values])


class ObjectIdVariable(VariableTracker):
    """The result of ``id(obj)``, as Dynamo's FakeIdVariable: a number standing for the
    object's identity during the trace (the memo key of ``copy.deepcopy``), equal for
    the same object only. An object the trace made has no real id yet, so this is never
    a constant: the generated code cannot rebuild it, and a trace that needs its value
    (arithmetic, a result) stops there instead of returning a made-up number."""

    def __init__(self, token: int) -> None:
        super().__init__()
        self.token = token

    def __repr__(self) -> str:
        return "ObjectIdVariable()"

    def python_type(self) -> type:
        return int

    def reconstruct(self, codegen: PyCodegen) -> None:
        unimplemented("id() of an object, known only during the trace, cannot leave it")


# Values whose text is only known at run time, and whose formatting runs no user code
# (so building the string later, in the generated code, is not observable).
LAZILY_FORMATTED = (torch.Size, torch.Tensor, str)


def formatted(template: str, values: list[VariableTracker]) -> VariableTracker:
    """``template.format(*values)``: folded now when every value is a constant."""
    if all(value.is_python_constant() for value in values):
        return fold(template.format, [value.as_python_constant() for value in values], {})
    for value in values:
        if not value.is_python_constant() and not issubclass(value.python_type(), LAZILY_FORMATTED):
            value.as_python_constant()  # raises: why it cannot be formatted now
    return FormattedStringVariable(template, values)


def string_template(part: VariableTracker) -> tuple[str, list[VariableTracker]]:
    """One part of an f-string as a `str.format` template and its run-time values."""
    if isinstance(part, FormattedStringVariable):
        return part.template, part.values
    text = part.as_python_constant()
    return text.replace("{", "{{").replace("}", "}}"), []


def _member_value(tx: InstructionTranslatorBase, source: Source, value: object) -> VariableTracker:
    """An enum member's value as Dynamo reads it: the ``value`` property returns
    ``self._value_``, an attribute of the member's source. An int one of an argument is
    guarded (``L['mode']._value_ == 1``) and turns dynamic once it changed, as any int
    attribute of an argument; other values are constants of the member's identity guard."""
    from minidynamo.builder import VariableBuilder, may_be_symbolic
    from minidynamo.source import AttrSource

    attr_source = AttrSource(source, "_value_")
    if type(value) is not int or not may_be_symbolic(attr_source, tx):
        return ConstantVariable.create(value)
    return VariableBuilder(tx, attr_source)(value)
