"""list[Instruction] -> code object: the last step of codegen and of resume functions.

Checks the list, encodes arguments (arguments.py), picks jump directions, checks the stack
(stack.py), lays out EXTENDED_ARG prefixes and CACHE entries, and writes co_code and the
side tables (tables.py) into a copy of a template code object.
"""

from __future__ import annotations

import dis
from types import CodeType
from typing import Any

from .arguments import Tables, encode_arg
from .checks import check_instructions, check_loads_of_unbound_locals
from .instruction import BytecodeError, Instruction, Positions, describe, exception_table
from .stack import max_stack_depth
from .tables import exception_table_bytes, line_table
from .versions import (
    ABSOLUTE_JUMPS,
    CACHE_ENTRIES,
    ENCODING,
    is_backward_jump,
    reversed_jump,
)

# Fields taken from the template unless `replace` overrides them.
_COPIED_FIELDS = (
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_flags",
    "co_filename",
    "co_name",
    "co_qualname",  # 3.11+
    "co_firstlineno",
    "co_cellvars",
    "co_freevars",
)
# Tables the assembled code starts from; what the instructions need is appended.
_TABLE_FIELDS = ("co_consts", "co_names", "co_varnames")


def assemble(instructions: list[Instruction], template: CodeType, **replace: Any) -> CodeType:
    """Build a code object running `instructions` (which are not modified).

    Names, flags, argument counts, cell and free variables come from `template`, or from
    `replace` (any of _COPIED_FIELDS and _TABLE_FIELDS, e.g. co_name=..., co_varnames=...).
    co_consts, co_names and co_varnames start as given there and grow by what the
    instructions use. Offsets and `arg` of the instructions are ignored: jumps go to their
    `target` (a relative jump turns FORWARD or BACKWARD as needed), opargs come from argval.
    co_stacksize, the line table, the exception table and CACHE entries are computed.
    Raises BytecodeError, naming the instruction, for anything CPython could not run.
    """
    fields = _fields(template, replace)
    check_instructions(instructions)
    index_of = {id(inst): index for index, inst in enumerate(instructions)}
    tables = Tables(fields, instructions)
    args = [encode_arg(index, inst, tables) for index, inst in enumerate(instructions)]
    check_loads_of_unbound_locals(instructions, fields)
    opnames = [_directed_opname(index, inst, index_of) for index, inst in enumerate(instructions)]
    stacksize = max_stack_depth(instructions, opnames, args)
    starts = _layout(instructions, opnames, args, index_of)
    spans = [
        (starts[index + 1] - starts[index], _location(index, inst))
        for index, inst in enumerate(instructions)
    ]
    fields.update(
        co_code=_code_bytes(opnames, args),
        co_consts=tuple(tables.consts),
        co_names=tuple(tables.names),
        co_varnames=tuple(tables.varnames),
        co_nlocals=len(tables.varnames),
        co_stacksize=stacksize,
        co_linetable=line_table(fields["co_firstlineno"], spans),
    )
    if ENCODING.exception_table:
        rows = _exception_rows(instructions, starts, index_of)
        fields["co_exceptiontable"] = exception_table_bytes(rows)
    return template.replace(**fields)


def _fields(template: CodeType, replace: dict[str, Any]) -> dict[str, Any]:
    """The template's inputs to assembly, overridden by `replace`."""
    known = [field for field in (*_COPIED_FIELDS, *_TABLE_FIELDS) if hasattr(template, field)]
    unknown = set(replace) - set(known)
    if unknown:
        raise TypeError(f"assemble() cannot set {sorted(unknown)}; it can set {known}")
    fields = {field: getattr(template, field) for field in known}
    fields.update(replace)
    return fields


def _directed_opname(index: int, inst: Instruction, index_of: dict[int, int]) -> str:
    """A relative jump's opname pointing the way its target lies (3.11+: FORWARD/BACKWARD)."""
    if inst.target is None or inst.opname in ABSOLUTE_JUMPS:
        return inst.opname
    target_index = index_of[id(inst.target)]
    backward = target_index <= index
    if backward == is_backward_jump(inst.opname):
        return inst.opname
    twin = reversed_jump(inst.opname)
    if twin is None:
        way = "backward" if backward else "forward"
        raise BytecodeError(f"{describe(index, inst)}: cannot jump {way} to #{target_index}")
    return twin


def _layout(
    instructions: list[Instruction],
    opnames: list[str],
    args: list[int | None],
    index_of: dict[int, int],
) -> list[int]:
    """Sets the jump opargs in `args`; returns each instruction's first code unit, and the end.

    A jump's oparg depends on offsets, and offsets on how many EXTENDED_ARG prefixes the
    opargs need: repeat until the prefixes stop changing (distances only grow, so this ends).
    """
    while True:
        starts = _starts(opnames, args)
        grew = False
        for index, inst in enumerate(instructions):
            if inst.target is not None:
                arg = _jump_arg(index, opnames[index], starts, index_of[id(inst.target)])
                grew |= _prefixes(arg) != _prefixes(args[index])
                args[index] = arg
        if not grew:
            return starts


def _starts(opnames: list[str], args: list[int | None]) -> list[int]:
    starts = [0]
    for opname, arg in zip(opnames, args, strict=True):
        starts.append(starts[-1] + _prefixes(arg) + 1 + CACHE_ENTRIES.get(opname, 0))
    return starts


def _prefixes(arg: int | None) -> int:
    """EXTENDED_ARG instructions needed to carry `arg` 8 bits at a time."""
    return 0 if arg is None else (max(arg, 1).bit_length() - 1) // 8


def _jump_arg(index: int, opname: str, starts: list[int], target_index: int) -> int:
    """In code units: absolute (3.10), or relative to the end of the jump and its caches."""
    target = starts[target_index]
    if opname in ABSOLUTE_JUMPS:
        return target
    after = starts[index + 1]
    return after - target if is_backward_jump(opname) else target - after


def _code_bytes(opnames: list[str], args: list[int | None]) -> bytes:
    """co_code: per instruction, EXTENDED_ARG prefixes for the high bytes of its oparg,
    the opcode with the low byte, then its CACHE entries (zeros)."""
    code = bytearray()
    for opname, arg in zip(opnames, args, strict=True):
        value = arg or 0
        for shift in range(8 * _prefixes(arg), 0, -8):
            code += bytes((dis.opmap["EXTENDED_ARG"], value >> shift & 0xFF))
        code += bytes((dis.opmap[opname], value & 0xFF))
        code += bytes(2 * CACHE_ENTRIES.get(opname, 0))
    return bytes(code)


def _location(index: int, inst: Instruction) -> Positions:
    """The positions to record: `positions` while its line agrees with `lineno`."""
    positions = inst.positions
    if positions is None or positions.lineno != inst.lineno:
        positions = Positions(inst.lineno, None, None, None)
    if not _valid(positions):
        raise BytecodeError(f"{describe(index, inst)}: bad line or positions {positions}")
    return positions


def _valid(positions: Positions) -> bool:
    """Non-negative ints or None; columns only with a line; no span ending before its start."""
    if not all(value is None or isinstance(value, int) and value >= 0 for value in positions):
        return False
    lineno, end_lineno = positions.lineno, positions.end_lineno
    if lineno is None:
        return positions == (None, None, None, None)
    return end_lineno is None or end_lineno >= lineno


def _exception_rows(
    instructions: list[Instruction], starts: list[int], index_of: dict[int, int]
) -> list[tuple[int, int, int, int, bool]]:
    """(start, size, target, depth, lasti) in code units; a row covers whole instructions,
    CACHE entries included, as CPython writes it."""
    rows = []
    for row in exception_table(instructions):
        first, last = index_of[id(row.start)], index_of[id(row.end)]
        target = starts[index_of[id(row.target)]]
        rows.append((starts[first], starts[last + 1] - starts[first], target, row.depth, row.lasti))
    return rows
