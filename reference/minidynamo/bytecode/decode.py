"""Code object -> list[Instruction]: the first step of translating a frame.

convert_frame decodes a frame's code and InstructionTranslator walks the result. `dis`
reads the bytes (EXTENDED_ARG folding, CACHE skipping, jump offsets, exception table);
here offsets become instruction objects and opargs become arguments.py's argvals.
"""

from __future__ import annotations

import bisect
import dis
from types import CodeType

from .arguments import ArgKind, arg_kind, decode_argval, decode_flags
from .instruction import ExceptionTableEntry, Instruction, Positions
from .versions import ENCODING


def decode(code: CodeType) -> list[Instruction]:
    """The instructions of `code`, with jump targets and exception entries resolved.

    Each instruction covered by a try block (3.11+) has `exn_tab_entry` set; instructions
    of one co_exceptiontable row share one ExceptionTableEntry object.
    """
    listing = dis.Bytecode(code)
    found = [instr for instr in listing if instr.opname != "EXTENDED_ARG"]
    lines = _lines_by_offset(code)
    instructions = [_instruction(instr, code, lines.get(instr.offset)) for instr in found]
    offsets = _Offsets(instructions)
    for inst, instr in zip(instructions, found, strict=True):
        if arg_kind(inst.opname) is ArgKind.JUMP:
            inst.target = instructions[offsets.first_from(instr.argval)]
    if ENCODING.exception_table:
        _attach_exception_entries(instructions, offsets, listing.exception_entries)
    return instructions


def decode_prefix(code: CodeType, opnames: frozenset[str]) -> list[Instruction]:
    """The leading instructions of `code` whose opnames are in `opnames` (jumps among
    them are not resolved): reads only as far as the first other instruction, where
    `decode` would read the whole code."""
    lines = _lines_by_offset(code)
    prefix = []
    for instr in dis.get_instructions(code):
        if instr.opname == "EXTENDED_ARG":
            continue
        if instr.opname not in opnames:
            break
        prefix.append(_instruction(instr, code, lines.get(instr.offset)))
    return prefix


def _instruction(instr: dis.Instruction, code: CodeType, lineno: int | None) -> Instruction:
    return Instruction(
        opname=instr.opname,
        argval=decode_argval(instr, code),
        arg=instr.arg,
        offset=instr.offset,
        lineno=lineno,
        positions=Positions(*instr.positions) if ENCODING.columns else None,
        **decode_flags(instr.opname, instr.arg),
    )


def _lines_by_offset(code: CodeType) -> dict[int, int | None]:
    """The line of every code unit; None where CPython records no line."""
    return {offset: line for start, end, line in code.co_lines() for offset in range(start, end, 2)}


class _Offsets:
    """Maps byte offsets to instruction indexes. An offset may point at an EXTENDED_ARG
    prefix (jumps land on the prefix) or past a CACHE entry (ends of handler ranges)."""

    def __init__(self, instructions: list[Instruction]) -> None:
        self._offsets = [inst.offset for inst in instructions]

    def first_from(self, offset: int) -> int:
        return bisect.bisect_left(self._offsets, offset)

    def last_before(self, offset: int) -> int:
        return bisect.bisect_left(self._offsets, offset) - 1


def _attach_exception_entries(
    instructions: list[Instruction], offsets: _Offsets, rows: list
) -> None:
    for row in rows:  # dis rows: byte offsets, `end` exclusive
        first, last = offsets.first_from(row.start), offsets.last_before(row.end)
        entry = ExceptionTableEntry(
            start=instructions[first],
            end=instructions[last],
            target=instructions[offsets.first_from(row.target)],
            depth=row.depth,
            lasti=row.lasti,
        )
        for inst in instructions[first : last + 1]:
            inst.exn_tab_entry = entry
