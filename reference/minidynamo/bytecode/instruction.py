"""The instruction model shared by every stage that reads or writes bytecode.

`decode` produces these objects from a code object, the symbolic interpreter reads them,
codegen creates new ones, and `assemble` turns a list of them back into a code object.
Values are version-independent; how CPython packs them into opargs lives in versions.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


class BytecodeError(Exception):
    """An instruction list that cannot become a valid code object on this Python."""


class Positions(NamedTuple):
    """Source span of an instruction, as `dis.Positions` (columns only on 3.11+)."""

    lineno: int | None
    end_lineno: int | None
    col_offset: int | None
    end_col_offset: int | None


@dataclass(eq=False)
class Instruction:
    """One bytecode instruction, without CACHE entries or EXTENDED_ARG prefixes.

    `argval` is the resolved value, the same on every CPython version:
    a name for *_NAME, *_GLOBAL, *_ATTR, *_FAST, *_DEREF (3.13 LOAD_FAST_LOAD_FAST and
    friends: a tuple of two names); the constant for LOAD_CONST, KW_NAMES, RETURN_CONST;
    the operator for COMPARE_OP ("<", "==", ...); the operator symbol for BINARY_OP and,
    on 3.10, for BINARY_ADD, INPLACE_ADD ... ("+", "+=", ...); an int for every other op
    with an argument (counts, flags); None for jumps, whose destination is `target`.

    Bits that CPython packs next to a name or an operator are fields of their own:

    | field           | opcodes (versions)                 | bit | meaning                     |
    |-----------------|------------------------------------|-----|-----------------------------|
    | push_null       | LOAD_GLOBAL (3.11+)                | 1   | also push a NULL for CALL   |
    | is_method       | LOAD_ATTR, LOAD_SUPER_ATTR (3.12+) | 1   | method load (was LOAD_METHOD) |
    | super_with_args | LOAD_SUPER_ATTR (3.12+)            | 2   | super(C, o), not super()    |
    | to_bool         | COMPARE_OP (3.13)                  | 16  | result passed to bool()     |

    `arg` (raw oparg) and `offset` are what decode found; assemble ignores both.
    `lineno` is the line the instruction belongs to; `positions` adds columns (3.11+) and is
    written only while its line agrees with `lineno`.
    `exn_tab_entry` (3.11+) is the exception-table entry covering the instruction; assemble
    builds co_exceptiontable from these attributes (see `exception_table`).
    """

    opname: str
    argval: Any = None
    arg: int | None = None
    target: Instruction | None = None
    offset: int | None = None
    lineno: int | None = None
    positions: Positions | None = None
    push_null: bool = False
    is_method: bool = False
    super_with_args: bool = False
    to_bool: bool = False
    exn_tab_entry: ExceptionTableEntry | None = None

    def __repr__(self) -> str:
        where = f" @{self.offset}" if self.offset is not None else ""
        to = f" to {self.target.opname}@{self.target.offset}" if self.target else ""
        return f"<{self.opname} {self.argval!r}{to}{where}>"


@dataclass
class ExceptionTableEntry:
    """A handler range of co_exceptiontable (3.11+); `end` is the last covered instruction.

    On an exception inside start..end, CPython pops the stack down to `depth`, pushes the
    offset of the failing instruction if `lasti`, pushes the exception and jumps to `target`.
    """

    start: Instruction
    end: Instruction
    target: Instruction
    depth: int
    lasti: bool

    def __repr__(self) -> str:
        lasti = " lasti" if self.lasti else ""
        return f"<{self.start!r}..{self.end!r} -> {self.target!r} [{self.depth}]{lasti}>"


def describe(index: int, inst: Instruction) -> str:
    """Name an instruction in an error message: position, opname and argval."""
    return f"instruction #{index} {inst.opname} {inst.argval!r}"


def exception_table(instructions: list[Instruction]) -> list[ExceptionTableEntry]:
    """The co_exceptiontable rows of an instruction list (3.11+; empty on 3.10).

    Each run of consecutive instructions sharing one `exn_tab_entry` object is a row; the
    rows' start and end are those runs, so instructions inserted into a try block only
    need the block's entry on their `exn_tab_entry`.
    """
    rows: list[ExceptionTableEntry] = []
    previous = None
    for inst in instructions:
        entry = inst.exn_tab_entry
        if entry is not None and entry is previous:
            rows[-1].end = inst
        elif entry is not None:
            rows.append(ExceptionTableEntry(inst, inst, entry.target, entry.depth, entry.lasti))
        previous = entry
    return rows
