"""Operators: unary, binary and in-place, comparisons, `is`, `in` and subscripts.

Each becomes a call of the matching `operator` function on VariableTrackers
(`BuiltinVariable(operator.sub)`), so tensors get `call_function` nodes with the
seed's targets (`sub = l_x_ - l_y_`) and constants are folded.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from minidynamo.bytecode.versions import OPCODE_OF_OPERATOR_310
from minidynamo.opcodes import handler
from minidynamo.variables.lists import SliceVariable
from minidynamo.variables.operators import call_operator
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker

BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
    "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_, "|": operator.or_,
    "^": operator.xor,
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "@=": operator.imatmul, "<<=": operator.ilshift, ">>=": operator.irshift,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
}  # fmt: skip

COMPARE_OPERATORS = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
    ">": operator.gt, ">=": operator.ge,
}  # fmt: skip

UNARY_OPERATORS = {
    "UNARY_NEGATIVE": operator.neg, "UNARY_POSITIVE": operator.pos,
    "UNARY_INVERT": operator.invert, "UNARY_NOT": operator.not_,
}  # fmt: skip


def apply(tx: InstructionTranslatorBase, fn: object, nargs: int) -> None:
    tx.push(call_operator(tx, fn, tx.popn(nargs)))  # type: ignore[arg-type]


@handler("BINARY_OP", since=(3, 11))
def BINARY_OP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    apply(tx, BINARY_OPERATORS[inst.argval], 2)


# 3.10 spells each binary operator as its own opcode; its argval is the symbol.
for _opname in OPCODE_OF_OPERATOR_310.values():
    handler(_opname, until=(3, 10))(BINARY_OP)


@handler("UNARY_NEGATIVE")
@handler("UNARY_POSITIVE", until=(3, 11))
@handler("UNARY_INVERT")
@handler("UNARY_NOT")
def UNARY_OP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    apply(tx, UNARY_OPERATORS[inst.opname], 1)


def to_bool(tx: InstructionTranslatorBase) -> None:
    """A tensor stays a tensor: the jump that follows breaks the graph on its value."""
    if not isinstance(tx.stack[-1], TensorVariable):
        apply(tx, operator.truth, 1)


@handler("TO_BOOL", since=(3, 13))
def TO_BOOL(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    to_bool(tx)


@handler("COMPARE_OP")
def COMPARE_OP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    apply(tx, COMPARE_OPERATORS[inst.argval], 2)
    if inst.to_bool:
        to_bool(tx)


@handler("IS_OP")
def IS_OP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    apply(tx, operator.is_not if inst.argval else operator.is_, 2)


@handler("CONTAINS_OP")
def CONTAINS_OP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    item, container = tx.popn(2)
    found = call_operator(tx, operator.contains, [container, item])
    tx.push(call_operator(tx, operator.not_, [found]) if inst.argval else found)


@handler("BINARY_SUBSCR")
def BINARY_SUBSCR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    apply(tx, operator.getitem, 2)


@handler("STORE_SUBSCR")
def STORE_SUBSCR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value, container, key = tx.popn(3)
    call_operator(tx, operator.setitem, [container, key, value])


@handler("DELETE_SUBSCR")
def DELETE_SUBSCR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    call_operator(tx, operator.delitem, tx.popn(2))


def make_slice(start: VariableTracker, stop: VariableTracker) -> VariableTracker:
    return SliceVariable.create([start, stop])


@handler("BINARY_SLICE", since=(3, 12))
def BINARY_SLICE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    container, start, stop = tx.popn(3)
    tx.push(call_operator(tx, operator.getitem, [container, make_slice(start, stop)]))


@handler("STORE_SLICE", since=(3, 12))
def STORE_SLICE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value, container, start, stop = tx.popn(4)
    call_operator(tx, operator.setitem, [container, make_slice(start, stop), value])
