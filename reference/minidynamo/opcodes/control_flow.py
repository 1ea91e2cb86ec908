"""Jumps and loops. A condition must be known at trace time (a constant, or a guarded
input): only the path taken is followed (seed: "Dynamo removed the if statement").
`for` loops over known sequences are unrolled: FOR_ITER takes the next item or exits.
`with` blocks enter at BEFORE_WITH / SETUP_WITH and exit at the block's call of
``__exit__(None, None, None)``, or at WITH_EXCEPT_START when an exception leaves the block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from minidynamo.builder import VariableBuilder
from minidynamo.exc import unimplemented
from minidynamo.opcodes import handler
from minidynamo.opcodes.exceptions import Block
from minidynamo.variables import ctx_manager
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.exceptions import ExceptionVariable
from minidynamo.variables.lists import IteratorVariable, iterator_of
from minidynamo.variables.operators import compare_identity
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


def is_none(value: VariableTracker) -> bool:
    return compare_identity(value, ConstantVariable(None))


@handler("JUMP_FORWARD")
@handler("JUMP_ABSOLUTE", until=(3, 10))
@handler("JUMP_BACKWARD", since=(3, 11))
@handler("JUMP_BACKWARD_NO_INTERRUPT", since=(3, 11))
def JUMP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.jump(inst)


@handler("POP_JUMP_IF_FALSE", until=(3, 10))
@handler("POP_JUMP_FORWARD_IF_FALSE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_BACKWARD_IF_FALSE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_IF_FALSE", since=(3, 12))
def POP_JUMP_IF_FALSE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if not tx.pop().truth(tx):
        tx.jump(inst)


@handler("POP_JUMP_IF_TRUE", until=(3, 10))
@handler("POP_JUMP_FORWARD_IF_TRUE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_BACKWARD_IF_TRUE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_IF_TRUE", since=(3, 12))
def POP_JUMP_IF_TRUE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value = tx.pop()
    message = assert_message(tx)
    if isinstance(value, TensorVariable) and message is not None:
        # ``assert tensor, "msg"`` becomes a check in the graph, as in Dynamo (it raises
        # RuntimeError when it fails, not AssertionError).
        check = VariableBuilder(tx, None)(torch._assert_async)
        check.call_function(tx, [value, ConstantVariable(message)], {})
        tx.jump(inst)
    elif value.truth(tx):
        tx.jump(inst)


# What follows the jump of ``assert cond`` / ``assert cond, "constant message"``.
_ASSERT_TAILS = (
    ["LOAD_ASSERTION_ERROR", "RAISE_VARARGS"],
    ["LOAD_ASSERTION_ERROR", "LOAD_CONST", "CALL_FUNCTION", "RAISE_VARARGS"],
    ["LOAD_ASSERTION_ERROR", "LOAD_CONST", "PRECALL", "CALL", "RAISE_VARARGS"],
    ["LOAD_ASSERTION_ERROR", "LOAD_CONST", "CALL", "RAISE_VARARGS"],
)


def assert_message(tx: InstructionTranslatorBase) -> str | None:
    """The message of the ``assert`` whose jump runs now (Dynamo's for one without),
    or None where the jump is not an assert's."""
    following = tx.instructions[tx.instruction_pointer : tx.instruction_pointer + 5]
    names = [i.opname for i in following]
    for tail in _ASSERT_TAILS:
        if names[: len(tail)] == tail:
            return following[1].argval if len(tail) > 2 else "assertion error"
    return None


@handler("POP_JUMP_FORWARD_IF_NONE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_BACKWARD_IF_NONE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_IF_NONE", since=(3, 12))
def POP_JUMP_IF_NONE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if is_none(tx.pop()):
        tx.jump(inst)


@handler("POP_JUMP_FORWARD_IF_NOT_NONE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_BACKWARD_IF_NOT_NONE", since=(3, 11), until=(3, 11))
@handler("POP_JUMP_IF_NOT_NONE", since=(3, 12))
def POP_JUMP_IF_NOT_NONE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if not is_none(tx.pop()):
        tx.jump(inst)


@handler("JUMP_IF_FALSE_OR_POP", until=(3, 11))
def JUMP_IF_FALSE_OR_POP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if tx.stack[-1].truth(tx):
        tx.pop()
    else:
        tx.jump(inst)


@handler("JUMP_IF_TRUE_OR_POP", until=(3, 11))
def JUMP_IF_TRUE_OR_POP(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if tx.stack[-1].truth(tx):
        tx.jump(inst)
    else:
        tx.pop()


@handler("GET_ITER")
def GET_ITER(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(iterator_of(tx, tx.pop()))


def next_item(tx: InstructionTranslatorBase) -> VariableTracker | None:
    iterator = tx.stack[-1]
    if not isinstance(iterator, IteratorVariable):
        unimplemented(f"FOR_ITER over {iterator!r}")
    return iterator.next_variable()


@handler("FOR_ITER", until=(3, 11))
def FOR_ITER(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    item = next_item(tx)
    if item is None:  # exhausted: pop the iterator and leave the loop
        tx.pop()
        tx.jump(inst)
    else:
        tx.push(item)


@handler("FOR_ITER", since=(3, 12))
def FOR_ITER_to_end_for(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    item = next_item(tx)
    if item is None:
        # CPython pops the iterator and skips END_FOR; jumping *to* END_FOR with a
        # placeholder on the stack has the same effect on the symbolic stack.
        tx.push(ConstantVariable(None))
        tx.jump(inst)
    else:
        tx.push(item)


@handler("END_FOR", since=(3, 12), until=(3, 12))
def END_FOR_pop_two(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.popn(2)


@handler("END_FOR", since=(3, 13))
def END_FOR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.pop()


def enter_with(tx: InstructionTranslatorBase, inst: Instruction) -> VariableTracker:
    """Push the manager's ``__exit__``, enter it and return what ``__enter__`` returns."""
    return ctx_manager.enter(tx, tx.pop(), setup=tx.index_of[id(inst)])


@handler("BEFORE_WITH", since=(3, 11))
def BEFORE_WITH(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(enter_with(tx, inst))


@handler("SETUP_WITH", until=(3, 10))
def SETUP_WITH(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """3.10 also opens a block whose handler calls ``__exit__`` with an exception."""
    value = enter_with(tx, inst)
    tx.block_stack.append(Block("with", inst.target, len(tx.stack)))
    tx.push(value)


def exit_with_exception(tx: InstructionTranslatorBase, exit_depth: int, exc_depth: int) -> None:
    """Call the block's ``__exit__`` (at stack depth `exit_depth`) with the exception (at
    `exc_depth`) and push what it returns: true suppresses the exception."""
    from minidynamo.builder import VariableBuilder

    exc = tx.stack[-exc_depth]
    exc_type = VariableBuilder(tx, None)(exc.python_type())
    traceback = exc.traceback if isinstance(exc, ExceptionVariable) else ConstantVariable(None)
    tx.push(tx.stack[-exit_depth].call_function(tx, [exc_type, exc, traceback], {}))


@handler("WITH_EXCEPT_START", since=(3, 11))
def WITH_EXCEPT_START(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Stack: ``__exit__``, lasti, the previous exception, the exception."""
    exit_with_exception(tx, exit_depth=4, exc_depth=1)


@handler("WITH_EXCEPT_START", until=(3, 10))
def WITH_EXCEPT_START_seven_values(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Stack: ``__exit__``, the previous exception's three values, then traceback,
    exception and its type."""
    exit_with_exception(tx, exit_depth=7, exc_depth=2)
