"""What differs between CPython 3.10, 3.11, 3.12 and 3.13 bytecode, as data.

The only module of minidynamo that asks which Python is running. `ENCODING` is this
version's row of the table below; the opcode facts after it are read from `dis`/`opcode`.
decode.py, arguments.py, assemble.py and create.py consult these instead of branching.
"""

from __future__ import annotations

import dis
import opcode
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal


@dataclass(frozen=True)
class Encoding:
    """How one CPython version encodes what the rest of minidynamo treats alike."""

    # Where CALL wants the NULL (or self) that sits next to the callable on the stack.
    null: Literal["none", "below", "above"]
    # Instruction fields packed into the low bits of a name's oparg, lowest bit first.
    flag_bits: Mapping[str, tuple[str, ...]]
    # COMPARE_OP oparg = operator index << compare_shift | mask (3.12+) | bool bit (3.13).
    compare_shift: int
    compare_masks: bool
    compare_to_bool_bit: int
    # *_DEREF index varnames + unshared cells + freevars (3.11+), else cellvars + freevars.
    deref_in_localsplus: bool
    # One BINARY_OP with an operator argument (3.11+), else BINARY_ADD, INPLACE_ADD ...
    binary_op: bool
    # SWAP n / COPY n (3.11+), else ROT_TWO ... ROT_N / DUP_TOP.
    swap_copy: bool
    # Code starts with RESUME (3.11+).
    resume: bool
    # Handlers live in co_exceptiontable (3.11+), else SETUP_FINALLY ... instructions.
    exception_table: bool
    # Positions carry end line and columns (3.11+): co_linetable is a location table.
    columns: bool
    # The location table merges neighbours with equal positions into one entry (3.12+).
    merge_locations: bool
    # What codegen emits for an unconditional jump; assemble picks its direction.
    jump: str
    load_method: str
    call: tuple[str, ...]
    call_method: tuple[str, ...]
    call_kw: tuple[str, ...]
    # The instruction that hands keyword names to call_kw.
    kw_names: str


PY310 = Encoding(
    null="none",
    flag_bits={},
    compare_shift=0,
    compare_masks=False,
    compare_to_bool_bit=0,
    deref_in_localsplus=False,
    binary_op=False,
    swap_copy=False,
    resume=False,
    exception_table=False,
    columns=False,
    merge_locations=False,
    jump="JUMP_ABSOLUTE",
    load_method="LOAD_METHOD",
    call=("CALL_FUNCTION",),
    call_method=("CALL_METHOD",),
    call_kw=("CALL_FUNCTION_KW",),
    kw_names="LOAD_CONST",
)
PY311 = replace(
    PY310,
    null="below",
    flag_bits={"LOAD_GLOBAL": ("push_null",)},
    deref_in_localsplus=True,
    binary_op=True,
    swap_copy=True,
    resume=True,
    exception_table=True,
    columns=True,
    jump="JUMP_FORWARD",
    call=("PRECALL", "CALL"),
    call_method=("PRECALL", "CALL"),
    call_kw=("PRECALL", "CALL"),
    kw_names="KW_NAMES",
)
PY312 = replace(
    PY311,
    flag_bits={
        "LOAD_GLOBAL": ("push_null",),
        "LOAD_ATTR": ("is_method",),
        "LOAD_SUPER_ATTR": ("is_method", "super_with_args"),
    },
    compare_shift=4,
    compare_masks=True,
    merge_locations=True,
    load_method="LOAD_ATTR",
    call=("CALL",),
    call_method=("CALL",),
    call_kw=("CALL",),
)
PY313 = replace(
    PY312,
    null="above",
    compare_shift=5,
    compare_to_bool_bit=16,
    call_kw=("CALL_KW",),
    kw_names="LOAD_CONST",
)
ENCODINGS = {(3, 10): PY310, (3, 11): PY311, (3, 12): PY312, (3, 13): PY313}

if sys.version_info[:2] not in ENCODINGS:
    raise ImportError(f"minidynamo.bytecode supports CPython 3.10-3.13, not {sys.version}")
ENCODING = ENCODINGS[sys.version_info[:2]]

# --- Opcode facts of the running version, read from dis/opcode ---------------------------

# Names that exist in dis.opmap but are no real instruction of a code object.
_NOT_INSTRUCTIONS = frozenset({"CACHE", "EXTENDED_ARG", "RESERVED", "ENTER_EXECUTOR"})


def opcode_of(opname: str) -> int | None:
    """The opcode of a real instruction; None for pseudo, instrumented or unknown names."""
    op = dis.opmap.get(opname)
    if op is None or op >= 256 or opname in _NOT_INSTRUCTIONS:
        return None
    return None if opname.startswith("INSTRUMENTED_") else op


# dis.hasarg is 3.12+; before it, exactly the opcodes from HAVE_ARGUMENT on took one.
_TAKES_ARGUMENT = frozenset(getattr(dis, "hasarg", range(dis.HAVE_ARGUMENT, 256)))


def has_argument(opname: str) -> bool:
    return dis.opmap[opname] in _TAKES_ARGUMENT


def _real_names(opcodes: list[int]) -> frozenset[str]:
    return frozenset(dis.opname[op] for op in opcodes if op < 256)


CONST_OPS = _real_names(dis.hasconst)
NAME_OPS = _real_names(dis.hasname)
LOCAL_OPS = _real_names(dis.haslocal)
FREE_OPS = _real_names(dis.hasfree)
COMPARE_OPS = _real_names(dis.hascompare)
ABSOLUTE_JUMPS = _real_names(dis.hasjabs)
JUMPS = ABSOLUTE_JUMPS | _real_names(dis.hasjrel)
# 3.13 superinstructions: two 4-bit local indexes in one oparg.
LOCAL_PAIR_OPS = frozenset({"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"})


def _cache_entries() -> dict[str, int]:
    """CACHE units after each instruction (3.11+). Private in opcode: no public spelling."""
    entries = getattr(opcode, "_inline_cache_entries", {})
    if isinstance(entries, dict):  # 3.13: by name
        return {name: n for name, n in entries.items() if n}
    return {opcode.opname[op]: n for op, n in enumerate(entries) if n}  # 3.11, 3.12: by opcode


CACHE_ENTRIES = _cache_entries()


def is_backward_jump(opname: str) -> bool:
    return "BACKWARD" in opname


def reversed_jump(opname: str) -> str | None:
    """The same relative jump in the other direction (3.11+ JUMP_FORWARD <-> JUMP_BACKWARD)."""
    if is_backward_jump(opname):
        twin = opname.replace("BACKWARD", "FORWARD")
    else:
        twin = opname.replace("FORWARD", "BACKWARD")
    return twin if twin != opname and opcode_of(twin) is not None else None


# BINARY_OP's oparg indexes this list (CPython's NB_* order); += and friends follow at +13.
BINARY_OPERATORS = ("+", "&", "//", "<<", "@", "*", "%", "|", "**", ">>", "-", "/", "^")
_OPERATOR_NAMES = (
    "ADD", "AND", "FLOOR_DIVIDE", "LSHIFT", "MATRIX_MULTIPLY", "MULTIPLY", "MODULO",
    "OR", "POWER", "RSHIFT", "SUBTRACT", "TRUE_DIVIDE", "XOR",
)  # fmt: skip
# 3.10 spells each operator as its own opcode: "+" BINARY_ADD, "+=" INPLACE_ADD ...
_NAMED_OPERATORS = list(zip(BINARY_OPERATORS, _OPERATOR_NAMES, strict=True))
OPCODE_OF_OPERATOR_310 = {
    **{op: f"BINARY_{name}" for op, name in _NAMED_OPERATORS},
    **{f"{op}=": f"INPLACE_{name}" for op, name in _NAMED_OPERATORS},
}
OPERATOR_OF_OPCODE_310 = {name: op for op, name in OPCODE_OF_OPERATOR_310.items()}

# COMPARE_OP's low 4 bits (3.12+) say which outcomes make the comparison true
# (CPython's compare_masks: 1 unordered, 2 less, 4 greater, 8 equal).
COMPARE_MASKS = {"<": 2, "<=": 10, "==": 8, "!=": 7, ">": 4, ">=": 12}
