"""Checks of an instruction list that `assemble` runs besides those of argvals
(arguments.py) and of the stack (stack.py). Each raises BytecodeError naming the
instruction: an opcode this Python lacks, a jump or handler outside the list, a
LOAD_FAST of a local that nothing binds.
"""

from __future__ import annotations

import inspect
from typing import Any

from .instruction import BytecodeError, Instruction, describe
from .versions import ENCODING, JUMPS, opcode_of


def check_instructions(instructions: list[Instruction]) -> None:
    """What must hold before anything is encoded: real opcodes, targets in the list."""
    members = {id(inst) for inst in instructions}
    for index, inst in enumerate(instructions):
        where = describe(index, inst)
        if opcode_of(inst.opname) is None:
            raise BytecodeError(f"{where}: no such opcode on this Python")
        if inst.opname in JUMPS and id(inst.target) not in members:
            raise BytecodeError(f"{where}: jump target {inst.target!r} is not in the list")
        if inst.opname not in JUMPS and inst.target is not None:
            raise BytecodeError(f"{where}: has a target but is not a jump")
        _check_exception_entry(index, inst, members)


def _check_exception_entry(index: int, inst: Instruction, members: set[int]) -> None:
    entry = inst.exn_tab_entry
    if entry is None:
        return
    if not ENCODING.exception_table:
        raise BytecodeError(f"{describe(index, inst)}: exception table entries need 3.11+")
    if id(entry.target) not in members:
        raise BytecodeError(f"{describe(index, inst)}: handler {entry.target!r} is not in the list")


def check_loads_of_unbound_locals(instructions: list[Instruction], fields: dict[str, Any]) -> None:
    """Refuse the sure case of reading an unbound local: a LOAD_FAST of a name that is no
    argument, cell or free variable and that no instruction stores. On 3.12+ LOAD_FAST
    does not check (it would crash); before 3.12 it raises UnboundLocalError, which in
    generated code would reach the user's call instead of making the frame run eagerly.
    (Whether every path stores it first is not checked; LOAD_FAST_CHECK is not refused.)"""
    bound = {*_arguments(fields), *fields["co_cellvars"], *fields["co_freevars"]}
    bound.update(name for inst in instructions for name in stored_locals(inst))
    for index, inst in enumerate(instructions):
        for name in _loaded_locals(inst):
            if name not in bound:
                raise BytecodeError(
                    f"{describe(index, inst)}: loads {name!r}, which nothing stores"
                )


def _arguments(fields: dict[str, Any]) -> tuple[str, ...]:
    flags = fields["co_flags"]
    count = fields["co_argcount"] + fields["co_kwonlyargcount"]
    count += bool(flags & inspect.CO_VARARGS) + bool(flags & inspect.CO_VARKEYWORDS)
    return tuple(fields["co_varnames"][:count])


def stored_locals(inst: Instruction) -> tuple[str, ...]:
    """STORE_FAST x, STORE_FAST_STORE_FAST (x, y), STORE_FAST_LOAD_FAST (x, _) store x."""
    if inst.opname == "STORE_FAST":
        return (inst.argval,)
    if inst.opname == "STORE_FAST_STORE_FAST":
        return tuple(inst.argval)
    return (inst.argval[0],) if inst.opname == "STORE_FAST_LOAD_FAST" else ()


def _loaded_locals(inst: Instruction) -> tuple[str, ...]:
    if inst.opname == "LOAD_FAST":
        return (inst.argval,)
    if inst.opname == "LOAD_FAST_LOAD_FAST":
        return tuple(inst.argval)
    return (inst.argval[1],) if inst.opname == "STORE_FAST_LOAD_FAST" else ()
