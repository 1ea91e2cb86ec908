"""A deterministic `dis`-style listing: the text of the modified-bytecode golden files.

The bytecode log channel and the per-version snapshots (golden/py3XX/) print code through
`dis_text`: offset, opname, oparg, and a readable argval; never an address, an object id
or an absolute path, so the same code gives the same text on every run.
"""

from __future__ import annotations

import re
from types import CodeType

from .arguments import ArgKind, arg_kind
from .decode import decode
from .instruction import Instruction, exception_table
from .versions import ENCODING

_CODE_REPR = re.compile(r'<code object (\S+) at 0x[0-9a-fA-F]+, file "[^"]*", line \d+>')
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def dis_text(code: CodeType) -> str:
    """One line per instruction, like `0 LOAD_GLOBAL 1 (__compiled_fn_0)`; then, on 3.11+,
    the exception table as `start to end -> target [depth] lasti` (offsets, end inclusive)."""
    instructions = decode(code)
    lines = [_line(inst) for inst in instructions]
    rows = exception_table(instructions)
    if rows:
        lines.append("ExceptionTable:")
        for row in rows:
            lasti = " lasti" if row.lasti else ""
            span = f"{row.start.offset} to {row.end.offset} -> {row.target.offset}"
            lines.append(f"  {span} [{row.depth}]{lasti}")
    return "\n".join(lines) + "\n"


def _line(inst: Instruction) -> str:
    text = f"{inst.offset:>4} {inst.opname:<20}"
    if inst.arg is not None:
        text += f" {inst.arg:>3}"
    shown = _argrepr(inst)
    if shown:
        text += f" ({shown})"
    return text.rstrip()


def _argrepr(inst: Instruction) -> str:
    kind = arg_kind(inst.opname)
    if kind is ArgKind.JUMP:
        assert inst.target is not None
        return f"to {inst.target.offset}"
    if kind is ArgKind.CONST:
        return _constant(inst.argval)
    if kind in (ArgKind.NAME, ArgKind.LOCAL, ArgKind.FREE):
        return _with_null(inst)
    if kind is ArgKind.LOCAL_PAIR:
        return ", ".join(inst.argval)
    if kind is ArgKind.COMPARE:
        return f"bool({inst.argval})" if inst.to_bool else inst.argval
    if kind is ArgKind.BINARY and inst.arg is not None:
        return inst.argval
    return ""


def _with_null(inst: Instruction) -> str:
    """Mark a NULL pushed next to a global or a method, on the side where it lands."""
    null = "NULL" if inst.push_null else "NULL|self" if inst.is_method else ""
    if not null:
        return inst.argval
    return f"{null} + {inst.argval}" if ENCODING.null == "below" else f"{inst.argval} + {null}"


def _constant(value: object) -> str:
    """repr without what changes between runs: addresses and the paths of code objects."""
    return _ADDRESS.sub("", _CODE_REPR.sub(r"<code object \1>", repr(value)))
