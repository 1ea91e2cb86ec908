"""Argument conventions: raw oparg <-> the version-independent `Instruction.argval`.

decode.py calls `decode_argval`/`decode_flags`; assemble.py calls `encode_arg` with the
`Tables` of the code object being built. Both sides classify opcodes with `arg_kind`, so
the two directions cannot disagree about which convention an opcode follows.
"""

from __future__ import annotations

import dis
from collections.abc import Iterable
from enum import Enum
from types import CodeType
from typing import Any

from .instruction import BytecodeError, Instruction, describe
from .versions import (
    BINARY_OPERATORS,
    COMPARE_MASKS,
    COMPARE_OPS,
    CONST_OPS,
    ENCODING,
    FREE_OPS,
    JUMPS,
    LOCAL_OPS,
    LOCAL_PAIR_OPS,
    NAME_OPS,
    OPERATOR_OF_OPCODE_310,
    has_argument,
)


class ArgKind(Enum):
    """What an opcode's argval is, and so how its oparg is encoded."""

    NONE = "None"
    INT = "an int"
    JUMP = "a jump target"
    CONST = "a constant"
    NAME = "a name in co_names"
    LOCAL = "a local variable name"
    LOCAL_PAIR = "a pair of local variable names"
    FREE = "a cell or free variable name"
    COMPARE = "a comparison operator"
    BINARY = "a binary operator symbol"


_KIND_OF_FAMILY = [
    (JUMPS, ArgKind.JUMP),
    (CONST_OPS, ArgKind.CONST),
    (NAME_OPS, ArgKind.NAME),
    (LOCAL_PAIR_OPS, ArgKind.LOCAL_PAIR),
    (LOCAL_OPS, ArgKind.LOCAL),
    (FREE_OPS, ArgKind.FREE),
    (COMPARE_OPS, ArgKind.COMPARE),
    ({"BINARY_OP", *OPERATOR_OF_OPCODE_310}, ArgKind.BINARY),
]


def arg_kind(opname: str) -> ArgKind:
    """The argument convention of a real opcode of this version."""
    for family, kind in _KIND_OF_FAMILY:
        if opname in family:
            return kind
    return ArgKind.INT if has_argument(opname) else ArgKind.NONE


# --- decoding --------------------------------------------------------------------------


def decode_argval(instr: dis.Instruction, code: CodeType) -> Any:
    """Our argval for an instruction as `dis` decoded it (jump targets are resolved later)."""
    kind = arg_kind(instr.opname)
    if kind in (ArgKind.NONE, ArgKind.JUMP):
        return None
    if kind is ArgKind.INT:
        return instr.arg  # dis sometimes decorates flags (FORMAT_VALUE); keep the number
    if kind is ArgKind.CONST:
        return code.co_consts[instr.arg]  # 3.11's dis leaves KW_NAMES unresolved
    if kind is ArgKind.BINARY:
        if instr.arg is None:  # 3.10: the operator is in the opname
            return OPERATOR_OF_OPCODE_310[instr.opname]
        return _binary_operator(instr.arg)
    return instr.argval  # names and compare operators, as dis resolved them


def _binary_operator(arg: int) -> str:
    symbol = BINARY_OPERATORS[arg % len(BINARY_OPERATORS)]
    return symbol + "=" if arg >= len(BINARY_OPERATORS) else symbol


def decode_flags(opname: str, arg: int | None) -> dict[str, bool]:
    """The flag fields (push_null, is_method, ...) packed into an oparg."""
    flags = {field: bool(arg >> bit & 1) for bit, field in enumerate(_flag_fields(opname))}
    if opname == "COMPARE_OP" and ENCODING.compare_to_bool_bit:
        flags["to_bool"] = bool(arg & ENCODING.compare_to_bool_bit)
    return flags


def _flag_fields(opname: str) -> tuple[str, ...]:
    return ENCODING.flag_bits.get(opname, ())


def carries_flag(opname: str, field: str) -> bool:
    """Whether this version packs the flag field (push_null, ...) into `opname`'s oparg."""
    if field == "to_bool":
        return opname == "COMPARE_OP" and bool(ENCODING.compare_to_bool_bit)
    return field in _flag_fields(opname)


_FLAG_FIELDS = ("push_null", "is_method", "super_with_args", "to_bool")


# --- encoding --------------------------------------------------------------------------


class Tables:
    """co_consts, co_names and the variable tables of the code object being assembled.

    They start as the template's (so unchanged instructions keep their indexes, and
    co_consts[0] stays the docstring slot); values the instructions need are appended.
    """

    def __init__(self, fields: dict[str, Any], instructions: list[Instruction]) -> None:
        self.consts = list(fields["co_consts"])
        self._const_index = _first_indexes(const_key(value) for value in self.consts)
        self.names = list(fields["co_names"])
        self._name_index = _first_indexes(self.names)
        self.varnames = list(fields["co_varnames"])
        self.cellvars = list(fields["co_cellvars"])
        self.freevars = list(fields["co_freevars"])
        for name in _local_names(instructions):
            if name not in self._fast_locals():
                self.varnames.append(name)
        self.fast_locals = self._fast_locals()
        if ENCODING.deref_in_localsplus:
            self.derefs = self.fast_locals
        else:
            self.derefs = self.cellvars + self.freevars

    def _fast_locals(self) -> list[str]:
        """What *_FAST opargs index: 3.11+ frames keep cells and free vars among the locals."""
        if not ENCODING.deref_in_localsplus:
            return self.varnames
        cells = [name for name in self.cellvars if name not in self.varnames]
        return self.varnames + cells + self.freevars

    def const(self, value: Any) -> int:
        return _index_or_append(self._const_index, const_key(value), self.consts, value)

    def name(self, name: str) -> int:
        return _index_or_append(self._name_index, name, self.names, name)


def const_key(value: Any) -> Any:
    """Equal only for constants that CPython would share one co_consts slot for:
    1, 1.0 and True differ, and so do 0.0 and -0.0; code objects are never merged."""
    if isinstance(value, tuple):
        return (tuple, tuple(const_key(item) for item in value))
    if isinstance(value, frozenset):
        return (frozenset, frozenset(const_key(item) for item in value))
    if isinstance(value, (float, complex)):
        return (type(value), repr(value))
    if isinstance(value, CodeType) or not _hashable(value):
        return (type(value), id(value))
    return (type(value), value)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _first_indexes(keys: Iterable[Any]) -> dict[Any, int]:
    indexes: dict[Any, int] = {}
    for index, key in enumerate(keys):
        indexes.setdefault(key, index)
    return indexes


def _index_or_append(index: dict[Any, int], key: Any, values: list[Any], value: Any) -> int:
    if key not in index:
        index[key] = len(values)
        values.append(value)
    return index[key]


def _local_names(instructions: list[Instruction]) -> list[str]:
    names: list[str] = []
    for inst in instructions:
        kind = arg_kind(inst.opname)
        if kind is ArgKind.LOCAL and isinstance(inst.argval, str):
            names.append(inst.argval)
        elif kind is ArgKind.LOCAL_PAIR and _is_name_pair(inst.argval):
            names.extend(inst.argval)
    return names


def _is_name_pair(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, str) for v in value)


def encode_arg(index: int, inst: Instruction, tables: Tables) -> int | None:
    """The oparg of `inst` (0 for jumps: layout computes those); BytecodeError if invalid."""
    for field in _FLAG_FIELDS:
        if getattr(inst, field) and not carries_flag(inst.opname, field):
            raise BytecodeError(f"{describe(index, inst)}: {field} has no bit in it on this Python")
    kind = arg_kind(inst.opname)
    try:
        arg = _ENCODERS[kind](inst, tables)
    except (TypeError, ValueError) as error:
        message = f"{describe(index, inst)}: argval must be {kind.value}: {error}"
        raise BytecodeError(message) from None
    if arg is not None and not 0 <= arg < 2**31:
        raise BytecodeError(f"{describe(index, inst)}: oparg {arg} out of range")
    return arg


def _encode_none(inst: Instruction, tables: Tables) -> None:
    if inst.argval is not None:
        raise ValueError(f"{inst.opname} takes no argument")


def _encode_int(inst: Instruction, tables: Tables) -> int:
    if not isinstance(inst.argval, int):
        raise TypeError(f"got {type(inst.argval).__name__}")
    return inst.argval


def _encode_jump(inst: Instruction, tables: Tables) -> int:
    if inst.argval is not None and inst.argval is not inst.target:
        raise ValueError("a jump's destination is its target, not its argval")
    return 0


def _encode_const(inst: Instruction, tables: Tables) -> int:
    return tables.const(inst.argval)


def _encode_name(inst: Instruction, tables: Tables) -> int:
    _require_str(inst.argval)
    fields = _flag_fields(inst.opname)
    flags = sum(getattr(inst, field) << bit for bit, field in enumerate(fields))
    return tables.name(inst.argval) << len(fields) | flags


def _encode_local(inst: Instruction, tables: Tables) -> int:
    _require_str(inst.argval)
    return tables.fast_locals.index(inst.argval)


def _encode_local_pair(inst: Instruction, tables: Tables) -> int:
    if not _is_name_pair(inst.argval):
        raise TypeError(f"got {inst.argval!r}")
    first, second = (tables.fast_locals.index(name) for name in inst.argval)
    if first > 15 or second > 15:
        raise ValueError("both locals must be among the first 16")
    return first << 4 | second


def _encode_free(inst: Instruction, tables: Tables) -> int:
    _require_str(inst.argval)
    if inst.argval not in tables.derefs:
        raise ValueError(f"{inst.argval!r} is neither in co_cellvars nor in co_freevars")
    return tables.derefs.index(inst.argval)


def _encode_compare(inst: Instruction, tables: Tables) -> int:
    op = inst.argval
    arg = dis.cmp_op.index(op) << ENCODING.compare_shift
    if ENCODING.compare_masks:
        arg |= COMPARE_MASKS[op]
    return arg | (ENCODING.compare_to_bool_bit if inst.to_bool else 0)


def _encode_binary(inst: Instruction, tables: Tables) -> int | None:
    if inst.opname in OPERATOR_OF_OPCODE_310:  # 3.10: the opname is the operator
        if inst.argval not in (None, OPERATOR_OF_OPCODE_310[inst.opname]):
            raise ValueError(f"{inst.opname} is {OPERATOR_OF_OPCODE_310[inst.opname]!r}")
        return None
    symbol = inst.argval
    if isinstance(symbol, str) and symbol.endswith("="):  # in-place operators follow at +13
        return BINARY_OPERATORS.index(symbol[:-1]) + len(BINARY_OPERATORS)
    return BINARY_OPERATORS.index(symbol)


def _require_str(value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"got {type(value).__name__}")


_ENCODERS = {
    ArgKind.NONE: _encode_none,
    ArgKind.INT: _encode_int,
    ArgKind.JUMP: _encode_jump,
    ArgKind.CONST: _encode_const,
    ArgKind.NAME: _encode_name,
    ArgKind.LOCAL: _encode_local,
    ArgKind.LOCAL_PAIR: _encode_local_pair,
    ArgKind.FREE: _encode_free,
    ArgKind.COMPARE: _encode_compare,
    ArgKind.BINARY: _encode_binary,
}
