"""Building and unpacking containers (seed: `BUILD_LIST`), slices and f-strings."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from minidynamo.exc import unimplemented
from minidynamo.opcodes import handler
from minidynamo.opcodes.operators import apply
from minidynamo.variables.constant import ConstantVariable, formatted, string_template
from minidynamo.variables.dicts import ConstDictVariable, SetVariable, constant_key
from minidynamo.variables.exceptions import generator_raised_stop_iteration
from minidynamo.variables.lists import ListVariable, SliceVariable, TupleVariable
from minidynamo.variables.symnode import SymNodeVariable, specialize
from minidynamo.variables.user_defined import UserDefinedObjectVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


@handler("BUILD_TUPLE")
def BUILD_TUPLE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(TupleVariable(tx.popn(inst.argval)))


@handler("BUILD_LIST")
def BUILD_LIST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(ListVariable(tx.popn(inst.argval)))


@handler("BUILD_SET")
def BUILD_SET(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(SetVariable(tx.popn(inst.argval)))


@handler("BUILD_MAP")
def BUILD_MAP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    flat = tx.popn(2 * inst.argval)
    tx.push(
        ConstDictVariable({constant_key(k): v for k, v in zip(flat[::2], flat[1::2], strict=True)})
    )


@handler("BUILD_CONST_KEY_MAP")
def BUILD_CONST_KEY_MAP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    keys = tx.pop().as_python_constant()
    tx.push(ConstDictVariable(dict(zip(keys, tx.popn(inst.argval), strict=True))))


@handler("BUILD_SLICE")
def BUILD_SLICE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(SliceVariable.create(tx.popn(inst.argval)))


@handler("LIST_APPEND")
def LIST_APPEND(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value = tx.pop()
    tx.stack[-inst.argval].call_method(tx, "append", [value], {})


@handler("LIST_EXTEND")
def LIST_EXTEND(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    values = tx.pop()
    tx.stack[-inst.argval].call_method(tx, "extend", [values], {})


@handler("SET_ADD")
def SET_ADD(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value = tx.pop()
    tx.stack[-inst.argval].call_method(tx, "add", [value], {})


@handler("SET_UPDATE")
def SET_UPDATE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    values = tx.pop().unpack_var_sequence(tx)
    target = tx.stack[-inst.argval]
    for value in values:
        target.call_method(tx, "add", [value], {})


@handler("MAP_ADD")
def MAP_ADD(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    key, value = tx.popn(2)
    tx.stack[-inst.argval].call_method(tx, "__setitem__", [key, value], {})


@handler("DICT_UPDATE")
@handler("DICT_MERGE")
def DICT_UPDATE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    other = tx.pop()
    target = tx.stack[-inst.argval]
    if inst.opname == "DICT_MERGE" and isinstance(other, ConstDictVariable):
        if set(other.items) & set(target.items):  # type: ignore[attr-defined]
            unimplemented("duplicate keyword argument in ** merge")
    target.call_method(tx, "update", [other], {})


@handler("LIST_TO_TUPLE", until=(3, 11))
def LIST_TO_TUPLE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(TupleVariable(tx.pop().unpack_var_sequence(tx)))


INTRINSIC_STOPITERATION_ERROR = 3
INTRINSIC_UNARY_POSITIVE = 5
INTRINSIC_LIST_TO_TUPLE = 6


@handler("CALL_INTRINSIC_1", since=(3, 12))
def CALL_INTRINSIC_1(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if inst.argval == INTRINSIC_LIST_TO_TUPLE:
        LIST_TO_TUPLE(tx, inst)
    elif inst.argval == INTRINSIC_UNARY_POSITIVE:
        apply(tx, operator.pos, 1)
    elif inst.argval == INTRINSIC_STOPITERATION_ERROR:
        # A generator's handler (PEP 479): StopIteration becomes RuntimeError, any
        # other exception passes on.
        tx.push(generator_raised_stop_iteration(tx.pop()))
    else:
        unimplemented(f"CALL_INTRINSIC_1 {inst.argval}")


@handler("UNPACK_SEQUENCE")
def UNPACK_SEQUENCE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    items = tx.pop().unpack_var_sequence(tx)
    if len(items) != inst.argval:
        unimplemented(f"unpacking {len(items)} values into {inst.argval} names")
    tx.stack.extend(reversed(items))


@handler("UNPACK_EX")
def UNPACK_EX(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    before, after = inst.argval & 0xFF, inst.argval >> 8
    items = tx.pop().unpack_var_sequence(tx)
    if len(items) < before + after:
        unimplemented(f"unpacking {len(items)} values into {before + after}+ names")
    middle = ListVariable(items[before : len(items) - after])
    tx.stack.extend(reversed([*items[:before], middle, *items[len(items) - after :]]))


# f-strings: formatting is folded on constants; a SymInt is specialized (as Dynamo), and
# a value only known at run time (a symbolic torch.Size) keeps the string lazy.

CONVERSIONS = {0: None, 1: str, 2: repr, 3: ascii}
CONVERSION_MARKS = {None: "", str: "!s", repr: "!r", ascii: "!a"}
FVS_HAVE_SPEC = 0x04


def format_value(
    tx: InstructionTranslatorBase, value: VariableTracker, spec: str = "", convert: Any = None
) -> None:
    """Push ``format(convert(value), spec)``."""
    if isinstance(value, SymNodeVariable):
        value = ConstantVariable(specialize(value))
    if isinstance(value, UserDefinedObjectVariable):  # its own Python methods, inlined
        if convert is None:
            value, spec = value.text(tx, "__format__", spec), ""
        elif convert in (str, repr):
            value, convert = value.text(tx, "__str__" if convert is str else "__repr__"), None
    field = "{" + CONVERSION_MARKS[convert] + (":" + spec if spec else "") + "}"
    tx.push(formatted(field, [value]))


@handler("FORMAT_VALUE", until=(3, 12))
def FORMAT_VALUE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    spec = tx.pop().as_python_constant() if inst.argval & FVS_HAVE_SPEC else ""
    value = tx.pop()
    format_value(tx, value, spec, CONVERSIONS[inst.argval & 0x03])


@handler("CONVERT_VALUE", since=(3, 13))
def CONVERT_VALUE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    format_value(tx, tx.pop(), convert=CONVERSIONS[inst.argval])


@handler("FORMAT_SIMPLE", since=(3, 13))
def FORMAT_SIMPLE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    format_value(tx, tx.pop())


@handler("FORMAT_WITH_SPEC", since=(3, 13))
def FORMAT_WITH_SPEC(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value, spec = tx.popn(2)
    format_value(tx, value, spec.as_python_constant())


@handler("BUILD_STRING")
def BUILD_STRING(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    templates, values = zip(*map(string_template, tx.popn(inst.argval)), strict=True)
    tx.push(formatted("".join(templates), [value for part in values for value in part]))
