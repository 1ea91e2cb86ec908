"""assemble refuses what CPython could not run, with a BytecodeError that names the
instruction (its index, opname and argval), before any code object exists."""

from __future__ import annotations

import sys

import pytest
from bytecode_helpers import make_function, template
from minidynamo.bytecode import (
    BytecodeError,
    ExceptionTableEntry,
    Instruction,
    assemble,
    create_binary_op,
    create_instruction,
    create_load_const,
    create_load_fast,
    create_return_value,
    create_store_fast,
)

VERSION = sys.version_info[:2]
# A conditional jump as this version spells it when the target lies ahead.
POP_JUMP_IF_TRUE = "POP_JUMP_FORWARD_IF_TRUE" if VERSION == (3, 11) else "POP_JUMP_IF_TRUE"
# An opcode that exists in another supported version but not in this one.
FOREIGN_OPCODE = {
    (3, 10): "SWAP",
    (3, 11): "CALL_FUNCTION",
    (3, 12): "PRECALL",
    (3, 13): "KW_NAMES",
}[VERSION]
NO_TABLE = "exception table entries need 3.11"


def refused(instructions: list[Instruction], match: str) -> str:
    with pytest.raises(BytecodeError, match=match) as error:
        assemble(instructions, template("a"))
    return str(error.value)


@pytest.mark.parametrize("opname", ["NOT_AN_OPCODE", "CACHE", "EXTENDED_ARG", FOREIGN_OPCODE])
def test_unknown_opcode(opname: str) -> None:
    body = create_load_const(None) + [Instruction(opname)] + create_return_value()
    refused(body, rf"instruction #1 {opname} None: no such opcode")


def test_jump_to_an_instruction_outside_the_list() -> None:
    elsewhere = create_instruction("NOP")
    jump = create_instruction("JUMP_FORWARD" if VERSION >= (3, 11) else "JUMP_ABSOLUTE")
    jump.target = elsewhere
    body = [jump, *create_load_const(None), *create_return_value()]
    refused(body, r"instruction #0 JUMP_\w+ None: jump target <NOP None> is not in the list")


def test_jump_without_target() -> None:
    body = [create_instruction(POP_JUMP_IF_TRUE), *create_return_value()]
    refused(body, rf"instruction #0 {POP_JUMP_IF_TRUE} None: jump target None")


def test_pop_from_an_empty_stack() -> None:
    body = [create_instruction("POP_TOP"), *create_load_const(None), *create_return_value()]
    refused(body, r"instruction #0 POP_TOP None: stack underflow, reads 1 items of 0")


def test_binary_operator_with_one_operand() -> None:
    body = create_load_const(1) + create_binary_op("+") + create_return_value()
    refused(body, r"instruction #1 \w+ '\+': stack underflow, reads 2 items of 1")


def test_two_paths_reaching_one_instruction_with_different_depths() -> None:
    join = create_instruction("LOAD_CONST", argval="join")
    body = create_load_fast("a") + [create_instruction(POP_JUMP_IF_TRUE, target=join)]
    body += create_load_const("extra") + [join] + create_return_value()
    refused(body, r"instruction #3 LOAD_CONST 'join': reached with stack depths 0 and 1")


def test_running_past_the_last_instruction() -> None:
    refused(create_load_const(None), r"instruction #0 LOAD_CONST None: execution runs past the end")


def test_argval_of_the_wrong_kind() -> None:
    body = [Instruction("LOAD_FAST", argval=0), *create_return_value()]
    refused(body, r"instruction #0 LOAD_FAST 0: argval must be a local variable name")


def test_flag_without_a_bit_in_the_opcode() -> None:
    body = [Instruction("LOAD_FAST", argval="a", push_null=True), *create_return_value()]
    refused(body, r"instruction #0 LOAD_FAST 'a': push_null has no bit")


def test_free_variable_that_the_code_does_not_have() -> None:
    body = [create_instruction("LOAD_DEREF", argval="nope"), *create_return_value()]
    refused(body, r"instruction #0 LOAD_DEREF 'nope': .*neither in co_cellvars nor in co_freevars")


def test_exception_entries_need_3_11_and_a_handler_in_the_list() -> None:
    guarded = create_load_const(None)[0]
    outside = create_instruction("NOP")
    guarded.exn_tab_entry = ExceptionTableEntry(guarded, guarded, outside, depth=0, lasti=False)
    problem = "handler <NOP None> is not in the list" if VERSION >= (3, 11) else NO_TABLE
    refused([guarded, *create_return_value()], rf"instruction #0 LOAD_CONST None: {problem}")


def test_a_handler_deeper_than_the_stack() -> None:
    guarded = create_load_const(None)[0]
    handler = create_instruction("RERAISE", argval=0)
    guarded.exn_tab_entry = ExceptionTableEntry(guarded, guarded, handler, depth=2, lasti=False)
    problem = "stack depth 0 below its handler's 2" if VERSION >= (3, 11) else NO_TABLE
    body = [guarded, *create_return_value(), handler]
    refused(body, rf"instruction #0 LOAD_CONST None: {problem}")


def test_a_backward_conditional_jump_exists_only_until_3_11() -> None:
    """total = 0; loop: total += a; a -= 1; if a: goto loop; return total"""
    loop = create_load_fast("total")
    body = create_load_const(0) + create_store_fast("total")
    body += loop + create_load_fast("a") + create_binary_op("+=")
    body += create_store_fast("total")
    body += create_load_fast("a") + create_load_const(1) + create_binary_op("-=")
    body += create_store_fast("a")
    body += create_load_fast("a") + [create_instruction(POP_JUMP_IF_TRUE, target=loop[0])]
    body += create_load_fast("total") + create_return_value()
    if VERSION >= (3, 12):
        refused(body, rf"instruction #\d+ {POP_JUMP_IF_TRUE} None: cannot jump backward")
    else:
        assert make_function(body, "a")(4) == 10


def test_unknown_replace_field() -> None:
    with pytest.raises(TypeError, match="co_code"):
        assemble(create_load_const(None) + create_return_value(), template(), co_code=b"")


def test_loading_a_local_that_nothing_stores() -> None:
    """Refused on every Python (3.12+ LOAD_FAST would crash; before, generated code would
    raise UnboundLocalError in the user's call); 3.12's LOAD_FAST_CHECK raises that."""
    body = create_load_fast("ghost") + create_return_value()
    refused(body, r"instruction #0 LOAD_FAST 'ghost': loads 'ghost', which nothing stores")
    if VERSION >= (3, 12):
        body[0] = create_instruction("LOAD_FAST_CHECK", argval="ghost")
        with pytest.raises(UnboundLocalError):
            make_function(body)()
