"""`BuiltinVariable`: Python's builtins, and the `operator` and `math` functions that
the bytecode's operators map to (seed: "builtins such as abs, print").

A table maps each supported builtin to its handler; an `operator` function called goes
to variables/operators.py, which also serves the bytecode's operators.
"""

from __future__ import annotations

import builtins
import collections
import functools
import inspect
import math
import operator
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.exc import Unsupported, unimplemented
from minidynamo.source import AttrSource
from minidynamo.variables import lazy
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.builtin_iterators import (
    call_enumerate,
    call_filter,
    call_iter,
    call_map,
    call_next,
    call_reversed,
    call_zip,
    lazy_items,
)
from minidynamo.variables.constant import (
    ConstantVariable,
    ObjectIdVariable,
    fold,
)
from minidynamo.variables.descriptors import MethodDescriptorVariable, is_method_descriptor
from minidynamo.variables.dicts import (
    ConstDictVariable,
    DictViewVariable,
    SetVariable,
    constant_key,
)
from minidynamo.variables.lists import (
    BaseListVariable,
    IteratorVariable,
    ListVariable,
    NamedTupleVariable,
    TupleVariable,
)
from minidynamo.variables.numpy import is_numpy_scalar, is_numpy_scalar_input
from minidynamo.variables.numpy import specialize as specialize_numpy_scalar
from minidynamo.variables.operators import (
    ARITHMETIC_OPERATORS,
    OPERATOR_FUNCTIONS,
    call_operator,
    is_symbolic_arithmetic,
    is_tensor,
)
from minidynamo.variables.symnode import SymNodeVariable, specialize_all
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase

# Builtins without side effects: folded when every argument is a constant.
PURE_BUILTINS = frozenset(
    {abs, all, any, ascii, bin, bool, callable, chr, divmod, float, format, hash, int, len, max,
     min, oct, hex, ord, pow, repr, round, sorted, str, sum, tuple, list, dict, set, frozenset,
     range, slice, complex, bytes, isinstance, issubclass, type, reversed, enumerate, zip,
     operator.not_, operator.truth, operator.index, operator.contains, operator.is_,
     operator.is_not, operator.getitem}
    | ARITHMETIC_OPERATORS
    | {value for value in vars(math).values() if callable(value)}
    # Alternate constructors of immutable builtin types (read as `int.from_bytes`).
    | {int.from_bytes, float.fromhex, bytes.fromhex, str.maketrans, bytes.maketrans}
)  # fmt: skip
# Builtins that take a NumPy scalar as the number it is (`float(s)`, `range(n)`).
_NUMBER_BUILTINS = frozenset(
    {abs, bin, bool, chr, complex, divmod, float, format, hash, hex, int, max, min, oct, pow,
     range, repr, round, str}
)  # fmt: skip


class BuiltinVariable(VariableTracker):
    """A builtin function or type (`len`, `range`, `int`) or an `operator`/`math` function."""

    def __init__(self, fn: Callable, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fn = fn

    def __repr__(self) -> str:
        return f"BuiltinVariable({self.fn.__name__})"

    def python_type(self) -> type:
        return type(self.fn)

    def as_python_constant(self) -> Any:
        return self.fn

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            self.source.reconstruct(codegen)
        else:
            codegen.load_builtin(self.fn)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """A builtin class's attribute: polyfilled (``dict.fromkeys``, ``set.union``) or
        a C method, unbound (``list.append``, ``dict.__getitem__``)."""
        from minidynamo.variables.functions import PolyfilledFunctionVariable

        if name in ("__name__", "__qualname__", "__module__"):  # `type(s).__name__`
            return ConstantVariable(getattr(self.fn, name))
        if not isinstance(self.fn, type):
            return super().var_getattr(tx, name)
        polyfill = trace_rules.method_polyfill(self.fn, name)
        if polyfill is not None:
            source = None if self.source is None else AttrSource(self.source, name)
            return PolyfilledFunctionVariable(getattr(self.fn, name), polyfill, source=source)
        if is_method_descriptor(inspect.getattr_static(self.fn, name, None)):
            return MethodDescriptorVariable(self.fn, name)
        attr = getattr(self.fn, name, None)  # a builtin class's own attribute: no user code
        if isinstance(attr, types.BuiltinFunctionType) and (
            attr in BUILTIN_HANDLERS or attr in PURE_BUILTINS
        ):
            return BuiltinVariable(attr)  # `tuple.__new__`, `object.__new__`, `int.from_bytes`
        return super().var_getattr(tx, name)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if self.fn not in lazy.COMPUTED_OPERATORS:
            lazy.realize_numbers(args)
        # `int(s)` of a NumPy scalar input reads it as a symbol (`s.item()`), others
        # take its guarded value.
        read_as_symbol = (
            self.fn in (int, float) and len(args) == 1 and is_numpy_scalar_input(args[0])
        )
        if self.fn in _NUMBER_BUILTINS and any(map(is_numpy_scalar, args)) and not read_as_symbol:
            args = [specialize_numpy_scalar(arg, tx) for arg in args]
        if self.fn in _TENSOR_EXTREMES and not kwargs:
            items = _extreme_candidates(tx, args)
            if _all_scalar_tensors(items):
                return _tensor_extreme(tx, self.fn, items)
            if len(args) == 1:  # the iterable is consumed: the polyfill takes its items
                args = [TupleVariable(items)]
        polyfill = trace_rules.FALLBACK_POLYFILLS.get(self.fn)
        # `max(s0, 3)` of symbolic sizes is a graph node (its handler), not a polyfill.
        symbolic = not kwargs and is_symbolic_arithmetic(args)
        # A list holding symbols is folded (specialized) only by the handlers that do.
        specializes = self.fn in BUILTIN_HANDLERS
        if polyfill is not None and not symbolic and not _foldable(args, kwargs, specializes):
            from minidynamo.variables.functions import inline_polyfill

            return inline_polyfill(tx, polyfill, args, kwargs)
        handler = BUILTIN_HANDLERS.get(self.fn)
        if handler is not None:
            try:
                return handler(tx, *args, **kwargs)
            except TypeError as e:
                unimplemented(f"{self.fn.__name__}() raises TypeError: {e}")
        if self.fn in OPERATOR_FUNCTIONS:
            if kwargs:
                unimplemented(f"keyword arguments to operator.{self.fn.__name__}")
            return call_operator(tx, self.fn, args)
        if self.fn in PURE_BUILTINS:
            return fold_builtin(self.fn, args, kwargs)
        unimplemented(f"call to builtin {self.fn.__name__}()", gb.BUILTIN_CALL)


def _foldable(
    args: list[VariableTracker], kwargs: dict[str, VariableTracker], specializes: bool
) -> bool:
    """Constant arguments, or (where the handler `specializes`) one list/tuple of
    constants and symbolic numbers: what `_fold_over_constants` evaluates now
    (specializing the numbers)."""
    if not all(value.is_python_constant() for value in kwargs.values()):
        return False
    if all(arg.is_python_constant() for arg in args):
        return True
    return (
        specializes
        and len(args) == 1
        and isinstance(args[0], BaseListVariable)
        and all(
            item.is_python_constant() or isinstance(item, SymNodeVariable) for item in args[0].items
        )
    )


def fold_builtin(
    fn: Callable, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
) -> VariableTracker:
    """A pure builtin called now on constants; symbolic arguments are specialized."""
    values = [arg.as_python_constant() for arg in specialize_all(args)]
    kwvalues = {key: arg.as_python_constant() for key, arg in kwargs.items()}
    return fold(fn, values, kwvalues)


# Handlers of builtins whose arguments are not all constants.


def _iterate(tx: InstructionTranslatorBase, iterable: VariableTracker) -> list[VariableTracker]:
    return iterable.unpack_var_sequence(tx)


def _call_len(tx: InstructionTranslatorBase, obj: VariableTracker) -> VariableTracker:
    return obj.call_method(tx, "__len__", [], {})


def _call_isinstance(
    tx: InstructionTranslatorBase, obj: VariableTracker, classes: VariableTracker
) -> VariableTracker:
    cls = classes.as_python_constant()
    if isinstance(obj, TensorVariable) and _has_legacy_tensor_type(cls):
        # `torch.FloatTensor`'s check reads the dtype and device (guarded with the tensor).
        return ConstantVariable(isinstance(obj.example_value, cls))
    return ConstantVariable(issubclass(obj.python_type(), cls))


def _has_legacy_tensor_type(cls: object) -> bool:
    """`cls` (a class or nested tuple of them) holds a legacy type (`torch.FloatTensor`)."""
    if isinstance(cls, tuple):
        return any(_has_legacy_tensor_type(item) for item in cls)
    return isinstance(cls, type(torch.FloatTensor))  # the metaclass `torch.tensortype`


def _call_type(tx: InstructionTranslatorBase, *args: VariableTracker) -> VariableTracker:
    """``type(obj)``: its class; ``type(name, bases, namespace)`` of constants: the new
    class, made now as Dynamo folds it (its ``__module__`` the calling function's, as
    CPython sets it), which must not leave the trace (TraceTimeClassVariable)."""
    from minidynamo.builder import wrap_class
    from minidynamo.variables.exceptions import raise_observed
    from minidynamo.variables.user_defined import TraceTimeClassVariable

    if len(args) == 1:
        return wrap_class(args[0].python_type())
    if not all(arg.is_python_constant() for arg in args):
        unimplemented("type(name, bases, namespace) of values other than constants")
    values = [arg.as_python_constant() for arg in args]
    if len(values) == 3 and isinstance(values[2], dict):
        values[2] = {"__module__": tx.f_globals.get("__name__"), **values[2]}
    try:
        cls = type(*values)
    except TypeError as e:  # bad arguments: eager's TypeError, which the code may catch
        raise_observed(TypeError, str(e))
    return TraceTimeClassVariable(cls)


def _has_attr(tx: InstructionTranslatorBase, obj: VariableTracker, name: str) -> bool:
    from minidynamo.variables.functions import (
        FunctoolsPartialVariable,
        NestedUserFunctionVariable,
        UserFunctionVariable,
    )
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    has_attr_types = (
        UserDefinedObjectVariable,
        TensorVariable,
        NestedUserFunctionVariable,
        UserFunctionVariable,
    )
    if isinstance(obj, has_attr_types):
        return obj.has_attr(tx, name)
    if isinstance(obj, FunctoolsPartialVariable):
        return obj.has_attr(name)
    if obj.is_python_constant():
        return hasattr(obj.as_python_constant(), name)
    cls = obj.python_type()
    if cls.__module__ == "builtins":  # a list, tuple, dict, iterator: attributes of its type
        return hasattr(cls, name)
    unimplemented(f"hasattr on {obj!r}")


def _call_hasattr(
    tx: InstructionTranslatorBase, obj: VariableTracker, name: VariableTracker
) -> VariableTracker:
    return ConstantVariable(_has_attr(tx, obj, name.as_python_constant()))


def _call_getattr(
    tx: InstructionTranslatorBase,
    obj: VariableTracker,
    name: VariableTracker,
    default: VariableTracker | None = None,
) -> VariableTracker:
    attr = name.as_python_constant()
    if default is not None and not _has_attr(tx, obj, attr):
        return default
    return obj.var_getattr(tx, attr)


def _call_delattr(
    tx: InstructionTranslatorBase, obj: VariableTracker, name: VariableTracker
) -> VariableTracker:
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    if not isinstance(obj, UserDefinedObjectVariable):
        unimplemented(f"delattr on {obj!r}")
    obj.delete_attr(tx, name.as_python_constant())
    return ConstantVariable(None)


def _call_vars(tx: InstructionTranslatorBase, obj: VariableTracker) -> VariableTracker:
    """``vars(obj)`` is ``obj.__dict__``."""
    return obj.var_getattr(tx, "__dict__")


def _call_super(
    tx: InstructionTranslatorBase,
    cls: VariableTracker | None = None,
    obj: VariableTracker | None = None,
) -> VariableTracker:
    from minidynamo.variables.superclass import make_super

    return make_super(tx, cls, obj)


def _call_setattr(
    tx: InstructionTranslatorBase,
    obj: VariableTracker,
    name: VariableTracker,
    value: VariableTracker,
) -> VariableTracker:
    if not hasattr(obj, "store_attr"):
        unimplemented(f"setattr on {obj!r}")
    obj.store_attr(tx, name.as_python_constant(), lazy.realize(value))
    return ConstantVariable(None)


def _call_partial(
    tx: InstructionTranslatorBase,
    fn: VariableTracker,
    *args: VariableTracker,
    **kwargs: VariableTracker,
) -> VariableTracker:
    from minidynamo.variables.functions import FunctoolsPartialVariable

    return FunctoolsPartialVariable.of(fn, list(args), kwargs)


def _call_method_type(
    tx: InstructionTranslatorBase, fn: VariableTracker, obj: VariableTracker
) -> VariableTracker:
    """``types.MethodType(fn, obj)``: `fn` bound to `obj` (contextlib.ExitStack binds a
    manager's ``__exit__`` so)."""
    from minidynamo.variables.functions import UserMethodVariable

    return UserMethodVariable(fn, obj)  # type: ignore[arg-type]


def _exception_info(as_tuple: bool) -> Callable[..., VariableTracker]:
    """``sys.exc_info()`` (`as_tuple`) / ``sys.exception()`` (contextlib.ExitStack's
    ``__exit__`` asks): the exception the function handles, else the one a caller in the
    trace handles (a with's ``__exit__`` runs while its block's exception is handled),
    or none."""

    def handler(tx: InstructionTranslatorBase) -> VariableTracker:
        from minidynamo.builder import wrap_class
        from minidynamo.variables.exceptions import ExceptionVariable
        from minidynamo.variables.lists import TupleVariable

        exc = tx.handled_exceptions[-1] if tx.handled_exceptions else tx.callers_exception
        if exc is None:
            return ConstantVariable.create((None, None, None) if as_tuple else None)
        if not isinstance(exc, ExceptionVariable):
            unimplemented(f"sys.exc_info() while {exc!r} is handled")
        if not as_tuple:
            return exc
        return TupleVariable([wrap_class(exc.python_type()), exc, exc.traceback])

    return handler


def _call_id(tx: InstructionTranslatorBase, obj: VariableTracker) -> VariableTracker:
    """``id(obj)``: of an input (a tracker with a source), its real id, a constant
    guarded by identity (Dynamo's ID_MATCH: a dict key ``cache[id(x)]`` that leaves the
    trace); else a token of the object's identity, the same for every tracker of one
    object (a tensor's FakeTensor, the object a tracker holds, else the tracker itself:
    an object the trace made has exactly one)."""
    real = _input_object(tx, obj)
    if real is not None:
        tx.output.guards.add_id_match(obj.source, real)  # type: ignore[arg-type]
        return ConstantVariable(id(real))
    if is_tensor(obj):
        return ObjectIdVariable(id(obj.example_value))  # type: ignore[attr-defined]
    return ObjectIdVariable(id(getattr(obj, "value", obj)))


def _input_object(tx: InstructionTranslatorBase, obj: VariableTracker) -> object | None:
    """The object input `obj` stands for, or None: a tensor's by the builder's record of
    inputs, another's is the value its tracker holds (a constant's is not its own)."""
    if obj.source is None or isinstance(obj, ConstantVariable):
        return None
    if is_tensor(obj):
        return tx.output.input_tensors.get(id(obj))
    value = getattr(obj, "value", obj)
    return None if value is obj else value


def _call_hash(tx: InstructionTranslatorBase, obj: VariableTracker) -> VariableTracker:
    """``hash(obj)``: a user object's own ``__hash__`` (a frozen dataclass's) inlined, as
    `hash_value` finds it; object's identity hash is no constant of the program."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    if isinstance(obj, UserDefinedObjectVariable):
        if inspect.getattr_static(type(obj.value), "__hash__", None) is object.__hash__:
            unimplemented(f"hash() of {obj!r}, by identity")
        return ConstantVariable(obj.hash_value(tx))
    return fold_builtin(hash, [obj], {})


def _call_object_new(
    tx: InstructionTranslatorBase, cls: VariableTracker, *args: VariableTracker
) -> VariableTracker:
    """``object.__new__(cls)`` of a user class (copy's reconstruction, a class's own
    ``__new__`` calling up): an empty new object, its ``__init__`` not run."""
    from minidynamo.variables.user_defined import UserDefinedClassVariable

    if args or not isinstance(cls, UserDefinedClassVariable):
        unimplemented(f"object.__new__({cls!r}, ...)")
    return cls.new_instance()


def _call_callable(tx: InstructionTranslatorBase, obj: VariableTracker) -> VariableTracker:
    """``callable(obj)``: whether its type has ``__call__`` (as CPython decides)."""
    return ConstantVariable(any("__call__" in vars(cls) for cls in obj.python_type().__mro__))


def _call_bool(
    tx: InstructionTranslatorBase, obj: VariableTracker | None = None
) -> VariableTracker:
    return ConstantVariable(False if obj is None else obj.truth(tx))


def _call_list(
    tx: InstructionTranslatorBase, iterable: VariableTracker | None = None
) -> VariableTracker:
    return ListVariable([] if iterable is None else _iterate(tx, iterable))


def _call_tuple(
    tx: InstructionTranslatorBase, iterable: VariableTracker | None = None
) -> VariableTracker:
    return TupleVariable([] if iterable is None else _iterate(tx, iterable))


def _call_tuple_new(
    tx: InstructionTranslatorBase, cls: VariableTracker, iterable: VariableTracker | None = None
) -> VariableTracker:
    """``tuple.__new__(cls, items)``: a namedtuple's `_make` builds its instance so,
    without the generated ``__new__`` (the field count is checked by its caller)."""
    items = [] if iterable is None else _iterate(tx, iterable)
    if not cls.is_python_constant():
        unimplemented(f"tuple.__new__({cls!r}, ...)")
    value = cls.as_python_constant()
    if value is tuple:
        return TupleVariable(items)
    if not (isinstance(value, type) and trace_rules.is_namedtuple(value)):
        unimplemented(f"tuple.__new__ of {value!r}")
    return NamedTupleVariable(items, value)


def _call_set(
    tx: InstructionTranslatorBase, iterable: VariableTracker | None = None
) -> VariableTracker:
    return SetVariable([] if iterable is None else _iterate(tx, iterable))


def _call_frozenset(
    tx: InstructionTranslatorBase, iterable: VariableTracker | None = None
) -> VariableTracker:
    """A frozenset of constants is a constant; one of tensors tracks them by identity."""
    from minidynamo.variables.dicts import FrozensetVariable

    if iterable is None or iterable.is_python_constant():
        return fold_builtin(frozenset, [] if iterable is None else [iterable], {})
    return FrozensetVariable(_iterate(tx, iterable))


def _call_dict(
    tx: InstructionTranslatorBase, arg: VariableTracker | None = None, **kwargs: VariableTracker
) -> VariableTracker:
    from minidynamo.variables.user_dict import UserDefinedDictVariable

    items: dict[Any, VariableTracker] = {}
    if isinstance(arg, UserDefinedDictVariable) and all(
        arg.dict_method(name) for name in ("__iter__", "keys", "__getitem__")
    ):
        arg = arg.items  # a dict subclass's items, read as its dict base reads them
    if isinstance(arg, ConstDictVariable):
        items.update(arg.items)
    elif arg is not None and _is_mapping(arg):
        # Another mapping (an instance of a dict subclass): read through keys(), as
        # CPython's dict() does.
        result = ConstDictVariable({})
        result.method_update(tx, arg, **kwargs)
        return result
    elif arg is not None:
        for pair in _iterate(tx, arg):
            key, value = _iterate(tx, pair)
            items[constant_key(key)] = value
    items.update(kwargs)
    return ConstDictVariable(items)


def _is_mapping(vt: VariableTracker) -> bool:
    try:
        return hasattr(vt.python_type(), "keys")
    except Unsupported:
        return False


def _call_ordered_dict(
    tx: InstructionTranslatorBase, arg: VariableTracker | None = None, **kwargs: VariableTracker
) -> VariableTracker:
    from minidynamo.variables.collections_types import OrderedDictVariable

    return OrderedDictVariable(_call_dict(tx, arg, **kwargs).items)  # type: ignore[attr-defined]


def _call_defaultdict(
    tx: InstructionTranslatorBase,
    default_factory: VariableTracker | None = None,
    arg: VariableTracker | None = None,
    **kwargs: VariableTracker,
) -> VariableTracker:
    from minidynamo.variables.collections_types import DefaultDictVariable

    factory = default_factory or ConstantVariable(None)
    return DefaultDictVariable(factory, _call_dict(tx, arg, **kwargs).items)  # type: ignore[attr-defined]


def _call_deque(
    tx: InstructionTranslatorBase,
    iterable: VariableTracker | None = None,
    maxlen: VariableTracker | None = None,
) -> VariableTracker:
    from minidynamo.variables.collections_types import DequeVariable

    items = [] if iterable is None else _iterate(tx, iterable)
    return DequeVariable(items, maxlen=None if maxlen is None else maxlen.as_python_constant())


def _call_sum(
    tx: InstructionTranslatorBase, iterable: VariableTracker, start: VariableTracker | None = None
) -> VariableTracker:
    total = ConstantVariable(0) if start is None else start
    for item in lazy_items(tx, iterable):
        total = call_operator(tx, operator.add, [total, item])
    return total


def _call_build_class(tx: InstructionTranslatorBase, *args: VariableTracker) -> VariableTracker:
    """A class statement: the graph breaks there (Dynamo too) and CPython builds the class."""
    unimplemented("class statement (__build_class__)", gb.CLASS_DEFINITION)


def _call_abs(tx: InstructionTranslatorBase, value: VariableTracker) -> VariableTracker:
    return call_operator(tx, operator.abs, [value])


def _text_of(fn: Callable, slot: str) -> Callable[..., VariableTracker]:
    """``str(obj)``, ``repr(obj)``, ``format(obj, spec)``: a user object's own Python
    method (`slot`) inlined; folded on constants."""

    def call(
        tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
    ) -> VariableTracker:
        from minidynamo.variables.user_defined import UserDefinedObjectVariable

        if args and isinstance(args[0], UserDefinedObjectVariable) and not kwargs:
            spec = args[1].as_python_constant() if slot == "__format__" and len(args) == 2 else ""
            if len(args) == 1 or spec:
                return args[0].text(tx, slot, spec)
        return fold_builtin(fn, list(args), kwargs)

    return call


def _item_of_tensor(
    tx: InstructionTranslatorBase, args: tuple[VariableTracker, ...]
) -> tuple[VariableTracker, ...]:
    """`float(t)` / `int(t)` of a one-element tensor convert its ``t.item()``."""
    if len(args) == 1 and isinstance(args[0], TensorVariable):
        return (args[0].call_method(tx, "item", [], {}),)
    return args


def _call_float(
    tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
) -> VariableTracker:
    """``float(n)`` of a symbolic int stays symbolic: ``torch.sym_float(s0)``; of a
    tensor, its ``.item()`` (captured under fullgraph, else a break), as Dynamo."""
    args = _item_of_tensor(tx, args)
    if len(args) == 1 and isinstance(args[0], SymNodeVariable):
        if args[0].python_type() is float:
            return args[0]
        return tx.output.call(tx, "call_function", torch.sym_float, list(args))
    return fold_builtin(float, list(args), kwargs)


def _call_int(
    tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
) -> VariableTracker:
    """``int(n)`` of a SymInt is itself; of a SymFloat, ``torch.sym_int`` (truncation); of
    a tensor, its ``.item()`` first."""
    args = _item_of_tensor(tx, args)
    if len(args) == 1 and isinstance(args[0], SymNodeVariable):
        if args[0].python_type() is int:
            return args[0]
        return tx.output.call(tx, "call_function", torch.sym_int, list(args))
    return fold_builtin(int, list(args), kwargs)


def _call_round(
    tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
) -> VariableTracker:
    """``round(f)`` of a symbolic number stays symbolic, ``item.__round__()`` (a SymInt;
    Dynamo's call_round), so a float that turned dynamic is not specialized by it. A
    SymInt's `__round__` ignores `ndigits`: ``round(n, -1)`` of an int is folded, guarded."""
    if (
        args
        and isinstance(args[0], SymNodeVariable)
        and (len(args) == 1 or args[0].python_type() is float)
    ):
        return tx.output.call(tx, "call_method", "__round__", list(args), kwargs)
    return fold_builtin(round, list(args), kwargs)


def _math_on_symbols(
    fn: Callable, sym_fn: Callable | None = None
) -> Callable[..., VariableTracker]:
    """``math.sqrt(f)`` of a symbolic number stays symbolic, ``torch._sym_sqrt(item)``,
    for each math function torch has a `_sym_` twin of (as Dynamo); `sym_fn`: the node's
    target where it is not that twin (``math.ceil(truediv)``: SymFloat's own __ceil__).
    Of constants, folded."""
    if sym_fn is None:
        sym_fn = getattr(torch, f"_sym_{fn.__name__}")

    def handler(
        tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
    ) -> VariableTracker:
        if not kwargs and any(isinstance(arg, SymNodeVariable) for arg in args):
            return tx.output.call(tx, "call_function", sym_fn, list(args))
        return fold_builtin(fn, list(args), kwargs)

    return handler


def _fold_over_constants(fn: Callable) -> Callable[..., VariableTracker]:
    """min/max/any/all/sorted on constants; a single non-constant iterable (a list
    variable, a range) is unpacked first. Tensors are not modelled (data-dependent)."""

    def handler(
        tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
    ) -> VariableTracker:
        if len(args) == 1 and not args[0].is_python_constant():
            args = (TupleVariable(specialize_all(_iterate(tx, args[0]))),)
        return fold_builtin(fn, list(args), kwargs)

    return handler


_TENSOR_EXTREMES: dict[Callable, Callable] = {max: torch.maximum, min: torch.minimum}


def _extreme_candidates(
    tx: InstructionTranslatorBase, args: list[VariableTracker]
) -> list[VariableTracker]:
    """What ``min(*args)`` / ``max(*args)`` compares: the arguments, or the items of one
    (a list, an iterator, a set, a dict's keys/values view)."""
    iterables = (BaseListVariable, IteratorVariable, SetVariable, DictViewVariable)
    if len(args) == 1 and isinstance(args[0], iterables):
        return _iterate(tx, args[0])
    return list(args)


def _all_scalar_tensors(items: list[VariableTracker]) -> bool:
    """Tensors of one element and one dtype: the builtin compares their values and returns
    the largest (smallest), which is what torch.maximum (minimum) computes."""
    if len(items) < 2 or not all(isinstance(item, TensorVariable) for item in items):
        return False
    examples = [item.example_value for item in items]  # type: ignore[attr-defined]
    shape = examples[0].shape
    return all(
        e.shape == shape and e.dtype == examples[0].dtype and e.numel() == 1 for e in examples
    )


def _tensor_extreme(
    tx: InstructionTranslatorBase, fn: Callable, items: list[VariableTracker]
) -> VariableTracker:
    """``max(a, b, c)`` of tensors as Dynamo records it: ``torch.maximum`` pairwise from
    the left."""
    result = items[0]
    for item in items[1:]:
        result = tx.output.call(tx, "call_function", _TENSOR_EXTREMES[fn], [result, item])
    return result


def _min_or_max(fn: Callable, sym_fn: Callable) -> Callable[..., VariableTracker]:
    """min/max of numbers, some symbolic: ``torch.sym_max(s0, 3)`` nodes, one per pair
    from the left (as Dynamo records them), so the sizes stay symbolic."""
    on_constants = _fold_over_constants(fn)

    def handler(
        tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
    ) -> VariableTracker:
        items = list(args)
        if len(args) == 1 and isinstance(args[0], BaseListVariable):
            items = _iterate(tx, args[0])
        if kwargs or len(items) < 2 or not is_symbolic_arithmetic(items):
            return on_constants(tx, *args, **kwargs)
        result = items[0]
        for item in items[1:]:
            result = tx.output.call(tx, "call_function", sym_fn, [result, item])
        return result

    return handler


def _call_make_subclass(
    tx: InstructionTranslatorBase, *args: VariableTracker, **kwargs: VariableTracker
) -> VariableTracker:
    from minidynamo.variables.tensor_subclass import make_subclass

    return make_subclass(tx, *args, **kwargs)


BUILTIN_HANDLERS: dict[Callable, Callable[..., VariableTracker]] = {
    len: _call_len,
    isinstance: _call_isinstance,
    type: _call_type,
    getattr: _call_getattr,
    hasattr: _call_hasattr,
    setattr: _call_setattr,
    delattr: _call_delattr,
    vars: _call_vars,
    super: _call_super,
    functools.partial: _call_partial,
    types.MethodType: _call_method_type,
    sys.exc_info: _exception_info(as_tuple=True),
    # sys.exception (CPython 3.11+) is what ExitStack asks there.
    **{fn: _exception_info(as_tuple=False) for fn in [getattr(sys, "exception", None)] if fn},
    bool: _call_bool,
    callable: _call_callable,
    id: _call_id,
    hash: _call_hash,
    object.__new__: _call_object_new,
    list: _call_list,
    tuple: _call_tuple,
    tuple.__new__: _call_tuple_new,
    set: _call_set,
    frozenset: _call_frozenset,
    dict: _call_dict,
    collections.OrderedDict: _call_ordered_dict,
    collections.defaultdict: _call_defaultdict,
    collections.deque: _call_deque,
    iter: call_iter,
    next: call_next,
    enumerate: call_enumerate,
    zip: call_zip,
    reversed: call_reversed,
    map: call_map,
    filter: call_filter,
    sum: _call_sum,
    abs: _call_abs,
    str: _text_of(str, "__str__"),
    repr: _text_of(repr, "__repr__"),
    format: _text_of(format, "__format__"),
    builtins.__build_class__: _call_build_class,
    torch.Tensor._make_subclass: _call_make_subclass,
    float: _call_float,
    int: _call_int,
    round: _call_round,
    min: _min_or_max(min, torch.sym_min),
    max: _min_or_max(max, torch.sym_max),
    **{fn: _fold_over_constants(fn) for fn in (any, all, sorted)},
    **{
        fn: _math_on_symbols(fn)
        for fn in vars(math).values()
        if callable(fn) and hasattr(torch, f"_sym_{getattr(fn, '__name__', '')}")
    },
    # Rounding a SymFloat to a SymInt: the math function itself is the node, as Dynamo's.
    **{fn: _math_on_symbols(fn, fn) for fn in (math.ceil, math.floor, math.trunc)},
}
