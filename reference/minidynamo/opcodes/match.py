"""`match` statements (PEP 634): the subject's kind, length, keys and class are known at
trace time (a guarded input, a constant, a list, tuple or dict), so only the case that
matches is followed, as for `if`.

3.10 pushes a success flag after MATCH_KEYS and MATCH_CLASS and copies the rest of a
mapping with COPY_DICT_WITHOUT_KEYS; 3.11+ pushes the values or None alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minidynamo.exc import unimplemented
from minidynamo.opcodes import handler
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.dicts import ConstDictVariable, constant_key
from minidynamo.variables.lists import TupleVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker

# CPython's type flags behind collections.abc.Sequence / Mapping in `match`.
_TPFLAGS_SEQUENCE = 1 << 5
_TPFLAGS_MAPPING = 1 << 6

# Builtin classes whose one positional sub-pattern matches the subject itself (`int(v)`).
_MATCH_SELF = frozenset(
    {bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple}
)


@handler("GET_LEN")
def GET_LEN(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.stack[-1].call_method(tx, "__len__", [], {}))


@handler("MATCH_SEQUENCE")
def MATCH_SEQUENCE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(ConstantVariable(bool(tx.stack[-1].python_type().__flags__ & _TPFLAGS_SEQUENCE)))


@handler("MATCH_MAPPING")
def MATCH_MAPPING(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(ConstantVariable(bool(tx.stack[-1].python_type().__flags__ & _TPFLAGS_MAPPING)))


def match_keys(subject: VariableTracker, keys: VariableTracker) -> VariableTracker:
    """The values of `keys` in the mapping `subject`, or None if one is missing."""
    if not isinstance(subject, ConstDictVariable):
        unimplemented(f"mapping pattern on {subject!r}")
    wanted = [constant_key(ConstantVariable(key)) for key in keys.as_python_constant()]
    if not all(key in subject.items for key in wanted):
        return ConstantVariable(None)
    return TupleVariable([subject.items[key] for key in wanted])


@handler("MATCH_KEYS", until=(3, 10))
def MATCH_KEYS_with_flag(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    values = match_keys(tx.stack[-2], tx.stack[-1])
    tx.push(values)
    tx.push(ConstantVariable(isinstance(values, TupleVariable)))


@handler("MATCH_KEYS", since=(3, 11))
def MATCH_KEYS(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(match_keys(tx.stack[-2], tx.stack[-1]))


@handler("COPY_DICT_WITHOUT_KEYS", until=(3, 10))
def COPY_DICT_WITHOUT_KEYS(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """`**rest`: a copy of the subject (below the keys) without the matched keys."""
    keys = {constant_key(ConstantVariable(key)) for key in tx.pop().as_python_constant()}
    subject = tx.stack[-1]
    if not isinstance(subject, ConstDictVariable):
        unimplemented(f"mapping pattern on {subject!r}")
    tx.push(ConstDictVariable({k: v for k, v in subject.items.items() if k not in keys}))


def match_class(
    tx: InstructionTranslatorBase,
    subject: VariableTracker,
    cls: VariableTracker,
    names: VariableTracker,
    count: int,
) -> VariableTracker:
    """The attributes a class pattern ``cls(p0, ..., name=p)`` extracts from `subject`,
    or None if it is not an instance of `cls`."""
    klass = cls.as_python_constant()
    if not issubclass(subject.python_type(), klass):
        return ConstantVariable(None)
    if count == 1 and klass in _MATCH_SELF:
        positional = [subject]
    else:
        match_args = getattr(klass, "__match_args__", ())
        if count > len(match_args):
            unimplemented(f"{klass.__name__}() accepts {len(match_args)} positional sub-patterns")
        positional = [subject.var_getattr(tx, name) for name in match_args[:count]]
    keywords = [subject.var_getattr(tx, name) for name in names.as_python_constant()]
    return TupleVariable(positional + keywords)


@handler("MATCH_CLASS", until=(3, 10))
def MATCH_CLASS_with_flag(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    subject, cls, names = tx.popn(3)
    attrs = match_class(tx, subject, cls, names, inst.argval)
    tx.push(attrs)
    tx.push(ConstantVariable(isinstance(attrs, TupleVariable)))


@handler("MATCH_CLASS", since=(3, 11))
def MATCH_CLASS(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    subject, cls, names = tx.popn(3)
    tx.push(match_class(tx, subject, cls, names, inst.argval))
