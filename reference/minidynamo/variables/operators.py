"""Operators on VariableTrackers: what `a + b`, `a == b`, `a is b`, `x[i]` do in a trace
(opcodes/operators.py's BINARY_OP, COMPARE_OP, IS_OP; `operator.*` called directly).

On tensors an operator is a `call_function` node whose target is the `operator` function
(seed: `sub = l_x_ - l_y_`); on constants it is folded; on lists, tuples and dicts it calls
the container's method; on a user object its dunder method is inlined.
"""

from __future__ import annotations

import collections
import inspect
import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.variables.base import NotConstant, VariableTracker
from minidynamo.variables.constant import (
    ConstantVariable,
    ObjectIdVariable,
    fold,
)
from minidynamo.variables.dicts import ConstDictVariable, DictViewVariable, SetVariable
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.lazy import computed, holds_unrealized
from minidynamo.variables.lists import (
    BaseListVariable,
    ListVariable,
    TupleVariable,
)
from minidynamo.variables.numpy import NumpyNdarrayVariable, call_numpy_operator
from minidynamo.variables.symnode import SymNodeVariable, is_symbolic
from minidynamo.variables.tensor import DataPtrVariable, TensorVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase

_BINARY_NAMES = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                 "lshift", "rshift", "and_", "or_", "xor")  # fmt: skip

# In-place operators fall back to the plain operator on immutable values (`t += (1,)`).
INPLACE_TO_PLAIN = {
    getattr(operator, "i" + name.rstrip("_")): getattr(operator, name) for name in _BINARY_NAMES
}

# `operator` functions that compute a value from their operands (binary, in-place,
# unary and comparison operators of the bytecode).
ARITHMETIC_OPERATORS = frozenset(
    {getattr(operator, name) for name in _BINARY_NAMES}
    | set(INPLACE_TO_PLAIN)
    | {operator.neg, operator.pos, operator.invert, operator.abs, operator.lt, operator.le,
       operator.eq, operator.ne, operator.gt, operator.ge}
)  # fmt: skip

# Container operations: the operator becomes a method call on the first operand.
CONTAINER_METHODS = {
    operator.add: "__add__",
    operator.iadd: "__iadd__",
    operator.mul: "__mul__",
    operator.imul: "__imul__",
    operator.getitem: "__getitem__",
    operator.setitem: "__setitem__",
    operator.delitem: "__delitem__",
}

# Operators whose method a builtin type may have a polyfill of (trace_rules.METHOD_POLYFILLS).
POLYFILLED_OPERATORS = {operator.or_: "__or__", operator.ior: "__ior__"}

MUTATING_OPERATORS = frozenset({operator.setitem, operator.delitem} | set(INPLACE_TO_PLAIN))

OPERATOR_FUNCTIONS = (
    ARITHMETIC_OPERATORS
    | set(CONTAINER_METHODS)
    | {operator.is_, operator.is_not, operator.contains, operator.not_, operator.truth}
)


def is_tensor(vt: VariableTracker) -> bool:
    return isinstance(vt, TensorVariable)


def is_symbolic_arithmetic(args: list[VariableTracker]) -> bool:
    """Numbers, one of them symbolic: `n + 1` on a SymInt is a graph node (seed
    `add = l_n_ + 1`)."""
    return any(isinstance(arg, SymNodeVariable) for arg in args) and all(
        isinstance(arg, SymNodeVariable)
        or isinstance(arg, ConstantVariable)
        and isinstance(arg.value, (int, float))
        for arg in args
    )


def compare_identity(
    a: VariableTracker, b: VariableTracker, tx: InstructionTranslatorBase | None = None
) -> bool:
    """``a is b``, decided at trace time; two objects the trace did not make (a
    sentinel default, `dataclasses.MISSING`) are compared as they are now and, given
    `tx`, guarded by identity where they were read from an input."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    if a is b:
        return True
    if a.is_new_object() or b.is_new_object():
        return False  # an object the trace created has exactly one VariableTracker
    if a.source is not None and b.source is not None and a.source.name == b.source.name:
        return True
    if is_tensor(a) and is_tensor(b):
        # One tensor object has one FakeTensor: an in-place op (`y = x.add_(1)`) returns
        # its input's, a view or a copy gets a new one.
        return a.example_value is b.example_value  # type: ignore[attr-defined]
    if is_tensor(a) or is_tensor(b):
        return False
    if a.is_python_constant() and b.is_python_constant():
        return a.as_python_constant() is b.as_python_constant()
    if type(a) is not type(b):
        return False
    if tx is not None and isinstance(a, UserDefinedObjectVariable):
        for vt in (a, b):
            if vt.source is not None:
                tx.output.guards.add_id_match(vt.source, vt.value)  # type: ignore[attr-defined]
        return a.value is b.value  # type: ignore[attr-defined]
    unimplemented(f"`is` between {a!r} and {b!r}")


def compare_identity_or_equal(
    tx: InstructionTranslatorBase, a: VariableTracker, b: VariableTracker
) -> bool:
    """The comparison behind `in`: identity first, then ``==``."""
    equal = compare_identity_or_equal_if_known(tx, a, b)
    if equal is None:
        unimplemented(
            "data-dependent control flow: the truth value of a tensor comparison",
            gb.DATA_DEPENDENT_BRANCH,
        )
    return equal


def compare_identity_or_equal_if_known(
    tx: InstructionTranslatorBase, a: VariableTracker, b: VariableTracker
) -> bool | None:
    """`compare_identity_or_equal`, or None where the answer is the value of a
    one-element tensor ``a == b`` (known only when the graph runs)."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    if isinstance(a, SymNodeVariable) or isinstance(b, SymNodeVariable):
        # A number has no identity to compare first: ``==``, decided by a guard.
        return call_operator(tx, operator.eq, [a, b]).truth(tx)
    if compare_identity(a, b, tx):
        return True
    if is_tensor(a) or is_tensor(b):
        return tensor_equal_truth(tx, call_operator(tx, operator.eq, [a, b]))
    if a.is_python_constant() and b.is_python_constant():
        return bool(a.as_python_constant() == b.as_python_constant())
    for left, right in ((a, b), (b, a)):
        if isinstance(left, UserDefinedObjectVariable):  # its own __eq__, inlined
            return left.compare_equal(tx, operator.eq, right).truth(tx)
    if not _comparable_types(a, b):
        return False
    if isinstance(a, BaseListVariable) and isinstance(b, BaseListVariable):
        return sequences_equal(tx, a, b)
    if isinstance(a, ConstDictVariable) and isinstance(b, ConstDictVariable):
        return dicts_equal(tx, a, b)
    unimplemented(f"`==` between {a!r} and {b!r}")


def tensor_equal_truth(tx: InstructionTranslatorBase, equal: VariableTracker) -> bool | None:
    """``bool(a == b)`` where a tensor is compared: a boolean tensor of one element has a
    value only the graph computes (None); of any other size ``bool()`` raises, in eager
    as in the traced program (CPython's `in`, `list.count` and `list.index` call it)."""
    if not is_tensor(equal):  # `t == None` is False
        return equal.truth(tx)
    numel = equal.example_value.numel()  # type: ignore[attr-defined]
    if is_symbolic(numel) or numel == 1:
        return None
    amount = "no values" if numel == 0 else "more than one value"
    raise_observed(RuntimeError, f"Boolean value of Tensor with {amount} is ambiguous")


def sequences_equal(
    tx: InstructionTranslatorBase, left: BaseListVariable, right: BaseListVariable
) -> bool:
    """``left == right`` of two lists or tuples as CPython compares them: the lengths,
    then the items in order, each by identity first and then ``==`` (a symbolic size
    against a number is decided, and guarded, by the shape environment)."""
    if len(left.items) != len(right.items):
        return False
    pairs = zip(left.items, right.items, strict=True)
    return all(compare_identity_or_equal(tx, a, b) for a, b in pairs)


def sequences_ordered(
    tx: InstructionTranslatorBase, fn: Callable, left: BaseListVariable, right: BaseListVariable
) -> VariableTracker:
    """``left < right`` (``<=``, ``>``, ``>=``) of two lists or tuples as CPython orders
    them (`sorted(d.items())`): `fn` of the first items that differ (by identity, then
    ``==``); where none differ, of the lengths."""
    for a, b in zip(left.items, right.items, strict=False):
        if not compare_identity_or_equal(tx, a, b):
            return call_operator(tx, fn, [a, b])
    return ConstantVariable(fn(len(left.items), len(right.items)))


def dicts_equal(
    tx: InstructionTranslatorBase, left: ConstDictVariable, right: ConstDictVariable
) -> bool:
    """``left == right`` of two dicts as CPython compares them: the same keys (in the
    same order where both are OrderedDicts), each with values equal by identity first,
    then ``==``; only the values compared are read."""
    keys, other_keys = left.keys(), right.keys()
    if len(keys) != len(other_keys) or any(key not in other_keys for key in keys):
        return False
    ordered = all(issubclass(d.python_type(), collections.OrderedDict) for d in (left, right))
    if ordered and keys != other_keys:
        return False
    return all(compare_identity_or_equal(tx, left.item_value(k), right.item_value(k)) for k in keys)


def holds_mutable(vt: VariableTracker) -> bool:
    """A list, dict or set, a dict's view (it follows its dict), or a tuple with one
    inside: its items have an identity."""
    if isinstance(vt, (ListVariable, ConstDictVariable, SetVariable, DictViewVariable)):
        return True
    return isinstance(vt, TupleVariable) and any(holds_mutable(item) for item in vt.items)


def call_operator(
    tx: InstructionTranslatorBase, fn: Callable, args: list[VariableTracker]
) -> VariableTracker:
    """An `operator` function applied to VariableTrackers."""
    if fn in (operator.is_, operator.is_not):
        same = compare_identity(*args, tx)
        return ConstantVariable(same if fn is operator.is_ else not same)
    if fn is operator.contains:
        return args[0].call_method(tx, "__contains__", [args[1]], {})
    if fn in (operator.not_, operator.truth):
        truth = args[0].truth(tx)
        return ConstantVariable(truth if fn is operator.truth else not truth)
    if any(isinstance(arg, NumpyNdarrayVariable) for arg in args):
        return call_numpy_operator(tx, fn, args)
    if fn in (operator.eq, operator.ne) and all(isinstance(arg, ObjectIdVariable) for arg in args):
        same = args[0].token == args[1].token  # type: ignore[attr-defined]
        return ConstantVariable(same if fn is operator.eq else not same)
    if fn in (operator.eq, operator.ne) and isinstance(args[0], DataPtrVariable):
        same = args[0].same_storage(args[1])  # or the graph breaks
        return ConstantVariable(same if fn is operator.eq else not same)
    if fn is operator.getitem and is_tensor(args[0]) and isinstance(args[1], SymNodeVariable):
        # As Dynamo does: `x[n - 1]` as `torch.select(x, 0, n - 1)`, which fake tensors
        # trace symbolically where `getitem` would specialize the index.
        index = [args[0], ConstantVariable(0), args[1]]
        return tx.output.call(tx, "call_function", torch.select, index)
    if any(is_tensor(arg) for arg in args) and (fn in ARITHMETIC_OPERATORS or is_tensor(args[0])):
        if not is_tensor(args[0]):  # `n += t` of a number: Python falls back to `n + t`
            fn = INPLACE_TO_PLAIN.get(fn, fn)
        return tx.output.call(tx, "call_function", fn, args)
    if fn in ARITHMETIC_OPERATORS and is_symbolic_arithmetic(args):
        return tx.output.call(tx, "call_function", INPLACE_TO_PLAIN.get(fn, fn), args)
    lazy = computed(fn, args)  # `COUNTER += 1` of a global: computed at run time
    if lazy is not None:
        return lazy
    # Folding works on copies: a mutation (`l[0] = 1`), or an item that is itself a
    # mutable object (`nested[0].append(v)`), must reach the container's own items.
    # An item of a tuple argument is taken as its VariableTracker, not folded: folding
    # would read, and so guard, every item where the trace reads only one.
    lazy_item = fn is operator.getitem and holds_unrealized(args[0])
    if (
        fn not in MUTATING_OPERATORS
        and not (fn in CONTAINER_METHODS and holds_mutable(args[0]))
        and not lazy_item
    ):
        try:
            return fold(fn, [arg.as_python_constant() for arg in args], {})
        except NotConstant:
            pass
    return call_container_operator(tx, fn, args)


def call_container_operator(
    tx: InstructionTranslatorBase, fn: Callable, args: list[VariableTracker]
) -> VariableTracker:
    """An operator on lists, tuples and dicts: a method call on the container."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    left, *rest = args
    dunder = POLYFILLED_OPERATORS.get(fn)
    if dunder is not None and left.method_polyfill(dunder) is not None:
        return left.call_method(tx, dunder, rest, {})  # `d1 | d2`, `d |= pairs`
    if fn in (operator.eq, operator.ne) and isinstance(left, UserDefinedObjectVariable):
        return left.compare_equal(tx, fn, rest[0])
    if fn in USER_OPERATOR_DUNDERS and any(isinstance(a, UserDefinedObjectVariable) for a in args):
        return call_user_operator(tx, fn, args)
    if fn is operator.mul and isinstance(rest[0], BaseListVariable):
        return rest[0].call_method(tx, "__mul__", [left], {})
    if fn in INPLACE_TO_PLAIN and isinstance(left, UserDefinedObjectVariable):
        result = call_user_inplace(tx, fn, left, rest[0])
        if result is not None:
            return result
    if fn in INPLACE_TO_PLAIN and not isinstance(left, ListVariable):
        # `t += (1,)` on an immutable value means `t = t + (1,)`.
        return call_operator(tx, INPLACE_TO_PLAIN[fn], args)
    if fn in (operator.eq, operator.ne) and _set_like(left) and _set_like(rest[0]):
        equal = _as_set(tx, left) == _as_set(tx, rest[0])  # `vars(o).keys() == {"a"}`
        return ConstantVariable(equal if fn is operator.eq else not equal)
    if fn in (operator.eq, operator.ne) and not _comparable_types(left, rest[0]):
        return ConstantVariable(fn is operator.ne)
    if fn in (operator.eq, operator.ne) and isinstance(left, BaseListVariable):
        equal = sequences_equal(tx, left, rest[0])  # type: ignore[arg-type]
        return ConstantVariable(equal if fn is operator.eq else not equal)
    if fn in (operator.eq, operator.ne) and isinstance(left, ConstDictVariable):
        equal = dicts_equal(tx, left, rest[0])  # type: ignore[arg-type]
        return ConstantVariable(equal if fn is operator.eq else not equal)
    if (
        fn in (operator.lt, operator.le, operator.gt, operator.ge)
        and isinstance(left, BaseListVariable)
        and isinstance(rest[0], BaseListVariable)
        and _comparable_types(left, rest[0])
    ):
        return sequences_ordered(tx, fn, left, rest[0])
    if fn not in CONTAINER_METHODS:
        unimplemented(f"operator.{fn.__name__} on {', '.join(map(repr, args))}")
    return left.call_method(tx, CONTAINER_METHODS[fn], rest, {})


_SET_LIKE_TYPES = (set, frozenset, type({}.keys()), type({}.items()))


def _set_like(vt: VariableTracker) -> bool:
    """A set, or a keys or items view: `==` between any two compares their elements."""
    return issubclass(vt.python_type(), _SET_LIKE_TYPES)


def _as_set(tx: InstructionTranslatorBase, vt: VariableTracker) -> frozenset:
    """The elements of a set-like value, as constants (else the graph breaks)."""
    try:
        return frozenset(item.as_python_constant() for item in vt.unpack_var_sequence(tx))
    except (NotConstant, TypeError):
        unimplemented(f"`==` on {vt!r}: elements that are not constants")


def _comparable_types(left: VariableTracker, right: VariableTracker) -> bool:
    """Whether `==` compares the two containers' items: one's type is the other's or a
    subclass of it (`torch.Size` and a tuple, a namedtuple and a tuple); a list never
    equals a tuple."""
    left_type, right_type = left.python_type(), right.python_type()
    return issubclass(left_type, right_type) or issubclass(right_type, left_type)


# Operators a user class implements with Python dunder methods, and for binary ones the
# reflected method Python tries on the right operand next.
USER_OPERATOR_DUNDERS = {
    operator.neg: "__neg__", operator.pos: "__pos__", operator.invert: "__invert__",
    operator.lt: "__lt__", operator.le: "__le__", operator.gt: "__gt__", operator.ge: "__ge__",
    operator.add: "__add__", operator.sub: "__sub__", operator.mul: "__mul__",
    operator.truediv: "__truediv__", operator.floordiv: "__floordiv__",
    operator.mod: "__mod__", operator.matmul: "__matmul__", operator.pow: "__pow__",
    operator.and_: "__and__", operator.or_: "__or__", operator.xor: "__xor__",
    operator.lshift: "__lshift__", operator.rshift: "__rshift__",
}  # fmt: skip
REFLECTED_DUNDERS = {
    operator.lt: "__gt__", operator.le: "__ge__", operator.gt: "__lt__", operator.ge: "__le__",
    operator.add: "__radd__", operator.sub: "__rsub__", operator.mul: "__rmul__",
    operator.truediv: "__rtruediv__", operator.floordiv: "__rfloordiv__",
    operator.mod: "__rmod__", operator.matmul: "__rmatmul__", operator.pow: "__rpow__",
    operator.and_: "__rand__", operator.or_: "__ror__", operator.xor: "__rxor__",
    operator.lshift: "__rlshift__", operator.rshift: "__rrshift__",
}  # fmt: skip


def call_user_inplace(
    tx: InstructionTranslatorBase, fn: Callable, left: VariableTracker, right: VariableTracker
) -> VariableTracker | None:
    """``obj += other`` on a user object whose class defines ``__iadd__``: its result
    (usually the object itself); None where it has none or it returns NotImplemented,
    and Python falls back to ``obj = obj + other``."""
    name = f"__i{INPLACE_TO_PLAIN[fn].__name__.rstrip('_')}__"
    method = inspect.getattr_static(type(left.value), name, None)  # type: ignore[attr-defined]
    if not isinstance(method, types.FunctionType):
        return None
    result = left.call_method(tx, name, [right], {})
    if result.is_python_constant() and result.as_python_constant() is NotImplemented:
        return None
    return result


def call_user_operator(
    tx: InstructionTranslatorBase, fn: Callable, args: list[VariableTracker]
) -> VariableTracker:
    """`-obj`, `a < b`, `0 + obj` on user objects: the left operand's dunder method, then
    the right one's reflected method where the first is missing or returns NotImplemented
    (the right first when its class is a subclass of the left's, as Python does)."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    attempts = [(args[0], USER_OPERATOR_DUNDERS[fn], args[1:])]
    if len(args) == 2 and fn in REFLECTED_DUNDERS:
        reflected = (args[1], REFLECTED_DUNDERS[fn], args[:1])
        left_type, right_type = (arg.python_type() for arg in args)
        first = right_type is not left_type and issubclass(right_type, left_type)
        attempts.insert(0 if first else 1, reflected)
    for obj, name, rest in attempts:
        if not isinstance(obj, UserDefinedObjectVariable):
            continue
        if not isinstance(inspect.getattr_static(type(obj.value), name, None), types.FunctionType):
            continue
        result = obj.call_method(tx, name, rest, {})
        if not (result.is_python_constant() and result.as_python_constant() is NotImplemented):
            return result
    unimplemented(f"operator.{fn.__name__} on {', '.join(map(repr, args))}")
