"""`raise` and try/except/finally (seed 004: Dynamo traces them inside a frame).

A `raise` throws `ObservedException`; the translator unwinds to the handler that covers
the raising instruction (`InstructionTranslatorBase.handle_exception`). 3.11+ finds the
handler in the exception table and enters it with PUSH_EXC_INFO; 3.10 keeps a block
stack (SETUP_FINALLY, POP_BLOCK) and starts a handler with six values on the stack.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from minidynamo.exc import ObservedException, unimplemented
from minidynamo.opcodes import handler
from minidynamo.variables.constant import ConstantVariable, is_constant_none
from minidynamo.variables.exceptions import ExceptionVariable
from minidynamo.variables.user_defined import UserDefinedClassVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


@dataclasses.dataclass
class Block:
    """An entry of CPython 3.10's block stack: SETUP_FINALLY ("finally"), SETUP_WITH
    ("with"), or a running handler ("except_handler"); 3.11+ uses the exception table."""

    kind: str
    handler: Instruction | None
    level: int


def as_exception(tx: InstructionTranslatorBase, value: VariableTracker) -> VariableTracker:
    """What `raise value` raises: the exception, or an instance of the class."""
    if isinstance(value, UserDefinedClassVariable):
        value = value.call_function(tx, [], {})
    if not isinstance(value, ExceptionVariable):
        unimplemented(f"raise {value!r}")
    return value


def exception_matches(exc: VariableTracker, expected: VariableTracker) -> bool:
    """`except expected:` catches `exc` (3.10 compares the exception's class)."""
    exc_type = exc.python_type() if isinstance(exc, ExceptionVariable) else exc.as_python_constant()
    return issubclass(exc_type, expected.as_python_constant())


@handler("RAISE_VARARGS")
def RAISE_VARARGS(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if inst.argval == 0:  # a bare `raise` in an except clause
        if not tx.handled_exceptions:
            unimplemented("bare raise outside an except clause")
        raise ObservedException(tx.handled_exceptions[-1])
    if inst.argval == 2:  # raise exc from cause
        cause = tx.pop()
        exc = as_exception(tx, tx.pop())
        if not is_constant_none(cause):
            cause = as_exception(tx, cause)
        exc.cause = cause  # type: ignore[attr-defined]
        exc.suppress_context = True  # type: ignore[attr-defined]
        raise ObservedException(exc)
    raise ObservedException(as_exception(tx, tx.pop()))


@handler("LOAD_ASSERTION_ERROR")
def LOAD_ASSERTION_ERROR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """A failed ``assert`` on a known condition: the AssertionError class, called with
    the message (if any) and raised by the next instructions."""
    tx.push(UserDefinedClassVariable(AssertionError))


@handler("PUSH_EXC_INFO", since=(3, 11))
def PUSH_EXC_INFO(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Under the exception, the one handled before (restored by POP_EXCEPT); the
    translator keeps that in `handled_exceptions`, so a placeholder will do."""
    exc = tx.pop()
    tx.push(ConstantVariable(None))
    tx.push(exc)
    tx.handled_exceptions.append(exc)


@handler("CHECK_EXC_MATCH", since=(3, 11))
def CHECK_EXC_MATCH(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    expected = tx.pop()
    tx.push(ConstantVariable(exception_matches(tx.stack[-1], expected)))


@handler("JUMP_IF_NOT_EXC_MATCH", until=(3, 10))
def JUMP_IF_NOT_EXC_MATCH(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    exc_type, expected = tx.popn(2)
    if not exception_matches(exc_type, expected):
        tx.jump(inst)


@handler("POP_EXCEPT", since=(3, 11))
def POP_EXCEPT(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.pop()
    tx.handled_exceptions.pop()


@handler("POP_EXCEPT", until=(3, 10))
def POP_EXCEPT_block(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Leave the handler's block and pop the previous exception's three values."""
    tx.block_stack.pop()
    tx.popn(3)
    tx.handled_exceptions.pop()


@handler("RERAISE", since=(3, 11))
def RERAISE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    raise ObservedException(tx.pop())


@handler("RERAISE", until=(3, 10))
def RERAISE_three_values(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    _traceback, exc, _exc_type = tx.popn(3)
    raise ObservedException(exc)


@handler("SETUP_FINALLY", until=(3, 10))
def SETUP_FINALLY(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.block_stack.append(Block("finally", inst.target, len(tx.stack)))


@handler("POP_BLOCK", until=(3, 10))
def POP_BLOCK(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """The end of a try or `with` body: its handler is no longer active."""
    tx.block_stack.pop()
