"""The version tables against the running CPython itself: the helpers emit what its own
compiler emits for the same source, and decode reads operators the same on every version."""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable
from pathlib import Path

import minidynamo.bytecode
import pytest
from minidynamo.bytecode import (
    Instruction,
    add_push_null,
    assemble,
    create_binary_op,
    create_binary_subscr,
    create_call_function,
    create_call_function_kw,
    create_call_method,
    create_load_attr,
    create_load_const,
    create_load_fast,
    create_load_global,
    create_load_method,
    create_return_value,
    decode,
)
from minidynamo.bytecode.versions import ENCODING, ENCODINGS


def compiled_body(statement: str) -> list[Instruction]:
    """Decoded instructions of `def f(x, o): <statement>`, after the RESUME (3.11+)."""
    scope: dict[str, object] = {}
    exec(f"def f(x, o):\n    {statement}\n", scope)
    instructions = decode(scope["f"].__code__)
    return [inst for inst in instructions if inst.opname != "RESUME"]


def summary(instructions: list[Instruction]) -> list[tuple[object, ...]]:
    return [(i.opname, i.argval, i.push_null, i.is_method) for i in instructions]


def global_callable(name: str) -> list[Instruction]:
    return add_push_null(create_load_global(name, push_null=False))


SAME_AS_COMPILER: dict[str, Callable[[], list[Instruction]]] = {
    "return f(x)": lambda: (
        global_callable("f") + create_load_fast("x") + create_call_function(1, push_null=False)
    ),
    "return x(1)": lambda: (
        add_push_null(create_load_fast("x"))
        + create_load_const(1)
        + create_call_function(1, push_null=False)
    ),
    "return o.m(x)": lambda: (
        create_load_fast("o")
        + create_load_method("m")
        + create_load_fast("x")
        + create_call_method(1)
    ),
    "return o.a.m(x)": lambda: (
        create_load_fast("o")
        + create_load_attr("a")
        + create_load_method("m")
        + create_load_fast("x")
        + create_call_method(1)
    ),
    "return f(x, key=1)": lambda: (
        global_callable("f")
        + create_load_fast("x")
        + create_load_const(1)
        + create_call_function_kw(2, ("key",))
    ),
    "return x * 2": lambda: create_load_fast("x") + create_load_const(2) + create_binary_op("*"),
    "return x[0]": lambda: create_load_fast("x") + create_load_const(0) + create_binary_subscr(),
}


@pytest.mark.parametrize("statement", sorted(SAME_AS_COMPILER))
def test_helpers_emit_what_the_compiler_emits(statement: str) -> None:
    built = SAME_AS_COMPILER[statement]() + create_return_value()
    assert summary(built) == summary(compiled_body(statement))


@pytest.mark.parametrize("symbol", ["+", "&", "//", "<<", "@", "*", "%", "|", "**", ">>", "-"])
def test_decode_names_binary_operators_by_symbol(symbol: str) -> None:
    """BINARY_OP's argval on 3.11+, and BINARY_* / INPLACE_* on 3.10, is the symbol."""
    body = compiled_body(f"y = x {symbol} o\n    x {symbol}= o")
    operators = [inst for inst in body if inst.opname.startswith(("BINARY_", "INPLACE_"))]
    assert [inst.argval for inst in operators] == [symbol, symbol + "="]


@pytest.mark.parametrize("symbol", dis.cmp_op)
def test_compare_op_round_trips_its_mask_and_bool_bits(symbol: str) -> None:
    scope: dict[str, object] = {}
    exec(f"def f(x, o):\n    if x {symbol} o:\n        return 1\n    return x {symbol} o\n", scope)
    code = scope["f"].__code__
    compares = [inst for inst in decode(code) if inst.opname == "COMPARE_OP"]
    assert [inst.argval for inst in compares] == [symbol, symbol]
    assert assemble(decode(code), code).co_code == code.co_code


def test_one_encoding_per_supported_version() -> None:
    assert sorted(ENCODINGS) == [(3, 10), (3, 11), (3, 12), (3, 13)]
    assert ENCODING is ENCODINGS[sys.version_info[:2]]


def test_only_versions_py_asks_which_python_runs() -> None:
    package = Path(minidynamo.bytecode.__file__).parent
    asking = [path.name for path in package.glob("*.py") if "version_info" in path.read_text()]
    assert asking == ["versions.py"]
