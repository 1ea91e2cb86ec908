"""Stack shuffling and instructions with no symbolic effect."""

from __future__ import annotations

from typing import TYPE_CHECKING

from minidynamo.opcodes import handler
from minidynamo.variables.misc import NullVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase


@handler("NOP")
@handler("RESUME", since=(3, 11))
@handler("PRECALL", since=(3, 11), until=(3, 11))
@handler("MAKE_CELL", since=(3, 11))  # cells are made when the frame starts
@handler("COPY_FREE_VARS", since=(3, 11))
def NOP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    pass


@handler("POP_TOP")
def POP_TOP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.pop()


@handler("PUSH_NULL", since=(3, 11))
def PUSH_NULL(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(NullVariable())


@handler("ROT_TWO", until=(3, 10))
def ROT_TWO(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.rotate(2)


@handler("ROT_THREE", until=(3, 10))
def ROT_THREE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.rotate(3)


@handler("ROT_FOUR", until=(3, 10))
def ROT_FOUR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.rotate(4)


@handler("ROT_N", until=(3, 10))
def ROT_N(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.rotate(inst.argval)


@handler("DUP_TOP", until=(3, 10))
def DUP_TOP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.stack[-1])


@handler("DUP_TOP_TWO", until=(3, 10))
def DUP_TOP_TWO(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.stack.extend(tx.stack[-2:])


@handler("COPY", since=(3, 11))
def COPY(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.stack[-inst.argval])


@handler("SWAP", since=(3, 11))
def SWAP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    stack, n = tx.stack, inst.argval
    stack[-1], stack[-n] = stack[-n], stack[-1]
