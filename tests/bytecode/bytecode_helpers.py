"""Helpers shared by the bytecode tests: walking code objects, comparing instruction
streams, and building functions from created instructions."""

from __future__ import annotations

import dis
from collections.abc import Iterator
from types import CodeType, FunctionType
from typing import Any

from minidynamo.bytecode import Instruction, assemble, create_resume, decode


def code_objects(code: CodeType) -> Iterator[CodeType]:
    """`code` and every code object nested in its constants."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from code_objects(const)


def stream(instructions: list[Instruction]) -> list[tuple[Any, ...]]:
    """Everything decode reports, with objects replaced by list positions, so two decodes
    compare equal exactly when they describe the same program."""
    index = {id(inst): position for position, inst in enumerate(instructions)}
    rows = []
    for inst in instructions:
        entry = inst.exn_tab_entry
        rows.append(
            (
                inst.opname,
                _comparable(inst.argval),
                index.get(id(inst.target)),
                inst.lineno,
                inst.positions,
                (inst.push_null, inst.is_method, inst.super_with_args, inst.to_bool),
                entry
                and (index[id(entry.start)], index[id(entry.end)], index[id(entry.target)])
                + (entry.depth, entry.lasti),
            )
        )
    return rows


def _comparable(value: Any) -> Any:
    """Nested code objects compare by what they are, not by identity."""
    if isinstance(value, CodeType):
        return ("code", value.co_name, value.co_firstlineno)
    if isinstance(value, tuple):
        return tuple(_comparable(item) for item in value)
    return (type(value), repr(value))


def without_stray_opargs(code: CodeType) -> bytes:
    """co_code with the oparg byte of argument-less opcodes zeroed: CPython 3.10 sometimes
    leaves a stale oparg there (e.g. `ROT_TWO 2`), which the interpreter never reads."""
    raw = bytearray(code.co_code)
    for offset in range(0, len(raw), 2):
        if raw[offset] < dis.HAVE_ARGUMENT:
            raw[offset + 1] = 0
    return bytes(raw)


# Fields that a round trip must reproduce exactly (co_exceptiontable, co_qualname: 3.11+).
FIELDS = (
    "co_consts",
    "co_names",
    "co_varnames",
    "co_cellvars",
    "co_freevars",
    "co_stacksize",
    "co_flags",
    "co_argcount",
    "co_kwonlyargcount",
    "co_posonlyargcount",
    "co_firstlineno",
    "co_name",
    "co_qualname",
    "co_linetable",
    "co_exceptiontable",
)


def differences(code: CodeType) -> list[str]:
    """How assemble(decode(code), code) differs from `code`; empty when it does not."""
    new = assemble(decode(code), code)
    found = [
        field
        for field in FIELDS
        if hasattr(code, field) and getattr(new, field) != getattr(code, field)
    ]
    if without_stray_opargs(new) != without_stray_opargs(code):
        found.append("co_code")
    if stream(decode(new)) != stream(decode(code)):
        found.append("decoded instructions")
    return [f"{code.co_filename}:{code.co_firstlineno} {code.co_name}: {field}" for field in found]


def reassemble_tree(code: CodeType, covered: list[CodeType]) -> CodeType:
    """Decode and assemble `code` and, first, every code object nested in it."""
    instructions = decode(code)
    for inst in instructions:
        if isinstance(inst.argval, CodeType):
            inst.argval = reassemble_tree(inst.argval, covered)
    covered.append(code)
    return assemble(instructions, code)


def template(*argnames: str) -> CodeType:
    """The code object of `def generated(<argnames>): pass`."""
    source = f"def generated({', '.join(argnames)}):\n    pass\n"
    module = compile(source, "<generated>", "exec")
    return next(const for const in module.co_consts if isinstance(const, CodeType))


def make_function(
    body: list[Instruction], *argnames: str, globals: dict[str, Any] | None = None
) -> FunctionType:
    """A function of `argnames` running `body` (after RESUME on 3.11+)."""
    code = assemble([*create_resume(), *body], template(*argnames))
    return FunctionType(code, {} if globals is None else globals)
