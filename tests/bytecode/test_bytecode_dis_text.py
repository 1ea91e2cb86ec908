"""dis_text: the deterministic listing that bytecode logs and golden files use."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stdout
from types import FunctionType

from minidynamo.bytecode import (
    Instruction,
    add_push_null,
    assemble,
    create_binary_subscr,
    create_call_function,
    create_load_const,
    create_load_fast,
    create_load_global,
    create_resume,
    create_return_value,
    create_rot_n,
    create_store_fast,
    dis_text,
)
from syrupy.assertion import SnapshotAssertion

VERSION = sys.version_info[:2]

# The seed's "MODIFIED BYTECODE fn script.py line 3", as printed there.
SEED_LISTING = (
    "0 LOAD_GLOBAL 1 (__compiled_fn_0) 2 LOAD_FAST 0 (a) 4 CALL_FUNCTION 1 6 STORE_FAST 3 "
    "(graph_out_0) 8 LOAD_GLOBAL 0 (print) 10 LOAD_CONST 2 ('Hi') 12 LOAD_FAST 3 (graph_out_0) "
    "14 LOAD_CONST 3 (0) 16 BINARY_SUBSCR 18 STORE_FAST 1 (b) 20 CALL_FUNCTION 1 22 LOAD_GLOBAL "
    "2 (__resume_at_14_1) 24 ROT_TWO 26 LOAD_FAST 0 (a) 28 LOAD_FAST 1 (b) 30 CALL_FUNCTION 3 "
    "32 RETURN_VALUE"
)


def fn(a: int) -> int:
    b = a + 1
    print("Hi")
    c = b
    return c


def seed_modified_instructions() -> list[Instruction]:
    """graph_out_0 = __compiled_fn_0(a); b = graph_out_0[0];
    return __resume_at_14_1(print("Hi"), a, b)"""
    return [
        *create_resume(),
        *add_push_null(create_load_global("__compiled_fn_0", push_null=False)),
        *create_load_fast("a"),
        *create_call_function(1, push_null=False),
        *create_store_fast("graph_out_0"),
        *add_push_null(create_load_global("print", push_null=False)),
        *create_load_const("Hi"),
        *create_load_fast("graph_out_0"),
        *create_load_const(0),
        *create_binary_subscr(),
        *create_store_fast("b"),
        *create_call_function(1, push_null=False),
        *create_load_global("__resume_at_14_1", push_null=False),
        *create_rot_n(2),
        *create_load_fast("a"),
        *create_load_fast("b"),
        *create_call_function(3, push_null=True),
        *create_return_value(),
    ]


def guarded(a: object) -> object:
    try:
        return a.x
    except AttributeError:
        return None


def test_seed_modified_bytecode_listing(golden_version: SnapshotAssertion) -> None:
    code = assemble(seed_modified_instructions(), fn.__code__)
    assert dis_text(code) == golden_version
    if VERSION == (3, 10):
        assert " ".join(dis_text(code).split()) == SEED_LISTING


def test_seed_modified_bytecode_runs() -> None:
    code = assemble(seed_modified_instructions(), fn.__code__)
    scope = {
        "__compiled_fn_0": lambda a: (a + 1,),
        "__resume_at_14_1": lambda printed, a, b: (printed, a, b),
        "print": print,
    }
    out = io.StringIO()
    with redirect_stdout(out):
        result = FunctionType(code, scope)(41)
    assert (result, out.getvalue()) == ((None, 41, 42), "Hi\n")


def test_exception_handling_listing(golden_version: SnapshotAssertion) -> None:
    assert dis_text(guarded.__code__) == golden_version


def test_listing_is_deterministic_and_free_of_addresses_and_paths() -> None:
    def outer(x: int) -> list[object]:
        return [lambda: x, sorted, object()]

    first, second = dis_text(outer.__code__), dis_text(outer.__code__)
    assert first == second
    assert "<code object <lambda>>" in first
    assert "0x" not in first and __file__ not in first
