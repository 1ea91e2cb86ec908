"""Every create_* helper: functions built from created instructions run and give the
expected results on the running CPython, and the helpers emit what its `dis` documents."""

from __future__ import annotations

import math
import operator
import sys
from types import SimpleNamespace

import pytest
from bytecode_helpers import make_function
from minidynamo.bytecode import (
    BytecodeError,
    Instruction,
    add_push_null,
    create_binary_op,
    create_binary_subscr,
    create_build_tuple,
    create_call_function,
    create_call_function_kw,
    create_call_method,
    create_dup_top,
    create_enter_with,
    create_instruction,
    create_jump_absolute,
    create_load_attr,
    create_load_const,
    create_load_fast,
    create_load_global,
    create_load_method,
    create_resume,
    create_return_value,
    create_rot_n,
    create_store_fast,
    create_swap,
    create_try_finally,
    create_unpack_sequence,
    decode,
    without_method_calls,
)

VERSION = sys.version_info[:2]


def opnames(instructions: list[Instruction]) -> list[str]:
    return [inst.opname for inst in instructions]


def body_of(function: object) -> list[Instruction]:
    """The decoded instructions of a made function, without its RESUME."""
    instructions = decode(function.__code__)
    return instructions[len(create_resume()) :]


# What each helper emits, per version, as each version's `dis` documentation describes
# the call protocol (NULL below the callable on 3.11/3.12, above it on 3.13).
EMITTED = {
    "call_function": {
        (3, 10): ["CALL_FUNCTION"],
        (3, 11): ["PRECALL", "CALL"],
        (3, 12): ["CALL"],
        (3, 13): ["CALL"],
    },
    "call_function_push_null": {
        (3, 10): ["CALL_FUNCTION"],
        (3, 11): ["PUSH_NULL", "SWAP", "SWAP", "SWAP", "PRECALL", "CALL"],
        (3, 12): ["PUSH_NULL", "SWAP", "SWAP", "SWAP", "CALL"],
        (3, 13): ["PUSH_NULL", "SWAP", "SWAP", "CALL"],
    },
    "call_method": {
        (3, 10): ["CALL_METHOD"],
        (3, 11): ["PRECALL", "CALL"],
        (3, 12): ["CALL"],
        (3, 13): ["CALL"],
    },
    "call_function_kw": {
        (3, 10): ["LOAD_CONST", "CALL_FUNCTION_KW"],
        (3, 11): ["KW_NAMES", "PRECALL", "CALL"],
        (3, 12): ["KW_NAMES", "CALL"],
        (3, 13): ["LOAD_CONST", "CALL_KW"],
    },
    "load_method": {
        (3, 10): ["LOAD_METHOD"],
        (3, 11): ["LOAD_METHOD"],
        (3, 12): ["LOAD_ATTR"],
        (3, 13): ["LOAD_ATTR"],
    },
    "push_null_on_local": {
        (3, 10): ["LOAD_FAST"],
        (3, 11): ["PUSH_NULL", "LOAD_FAST"],
        (3, 12): ["PUSH_NULL", "LOAD_FAST"],
        (3, 13): ["LOAD_FAST", "PUSH_NULL"],
    },
    "push_null_on_attribute": {
        (3, 10): ["LOAD_GLOBAL", "LOAD_ATTR"],
        (3, 11): ["LOAD_GLOBAL", "LOAD_ATTR"],  # the NULL bit of LOAD_GLOBAL, first
        (3, 12): ["LOAD_GLOBAL", "LOAD_ATTR"],
        (3, 13): ["LOAD_GLOBAL", "LOAD_ATTR", "PUSH_NULL"],
    },
    "dup_top": {(3, 10): ["DUP_TOP"], (3, 11): ["COPY"], (3, 12): ["COPY"], (3, 13): ["COPY"]},
    "rot_3": {
        (3, 10): ["ROT_THREE"],
        (3, 11): ["SWAP", "SWAP"],
        (3, 12): ["SWAP", "SWAP"],
        (3, 13): ["SWAP", "SWAP"],
    },
    "binary_add": {
        (3, 10): ["BINARY_ADD"],
        (3, 11): ["BINARY_OP"],
        (3, 12): ["BINARY_OP"],
        (3, 13): ["BINARY_OP"],
    },
    "jump": {
        (3, 10): ["JUMP_ABSOLUTE"],
        (3, 11): ["JUMP_FORWARD"],
        (3, 12): ["JUMP_FORWARD"],
        (3, 13): ["JUMP_FORWARD"],
    },
}


def emitted(helper: str) -> list[str]:
    anchor = create_instruction("NOP")
    made = {
        "call_function": lambda: create_call_function(2, push_null=False),
        "call_function_push_null": lambda: create_call_function(2, push_null=True),
        "call_method": lambda: create_call_method(1),
        "call_function_kw": lambda: create_call_function_kw(2, ("key",)),
        "load_method": lambda: create_load_method("join"),
        "push_null_on_local": lambda: add_push_null(create_load_fast("f")),
        "push_null_on_attribute": lambda: add_push_null(
            create_load_global("math", push_null=False) + create_load_attr("sqrt")
        ),
        "dup_top": create_dup_top,
        "rot_3": lambda: create_rot_n(3),
        "binary_add": lambda: create_binary_op("+"),
        "jump": lambda: create_jump_absolute(anchor),
    }[helper]()
    return opnames(made)


@pytest.mark.parametrize("helper", sorted(EMITTED))
def test_helpers_emit_this_versions_opcodes(helper: str) -> None:
    assert emitted(helper) == EMITTED[helper][VERSION]


def test_load_const_and_return() -> None:
    value = (1, "x", None, 2.5)
    assert make_function(create_load_const(value) + create_return_value())() == value


def test_store_fast_adds_a_local() -> None:
    body = create_load_fast("a") + create_store_fast("b") + create_load_fast("b")
    function = make_function(body + create_return_value(), "a")
    assert function(5) == 5
    assert function.__code__.co_varnames == ("a", "b")


def test_load_global() -> None:
    body = create_load_global("G", push_null=False) + create_return_value()
    assert make_function(body, globals={"G": 42})() == 42


def test_load_global_with_null_calls_it() -> None:
    load = create_load_global("add", push_null=True)
    assert load[0].push_null == (VERSION >= (3, 11))
    body = load + create_load_fast("a") + create_load_fast("b")
    body += create_call_function(2, push_null=False) + create_return_value()
    assert make_function(body, "a", "b", globals={"add": operator.add})(2, 3) == 5


def test_add_push_null_on_a_local_callable() -> None:
    body = add_push_null(create_load_fast("f")) + create_load_fast("x")
    body += create_call_function(1, push_null=False) + create_return_value()
    assert make_function(body, "f", "x")(abs, -3) == 3


def test_add_push_null_sets_the_bit_of_a_global() -> None:
    load = add_push_null(create_load_global("abs", push_null=False))
    assert opnames(load) == ["LOAD_GLOBAL"]
    assert load[0].push_null == (VERSION >= (3, 11))
    body = load + create_load_const(-4) + create_call_function(1, push_null=False)
    assert make_function(body + create_return_value(), globals={"abs": abs})() == 4


def test_add_push_null_on_an_attribute() -> None:
    load = create_load_global("math", push_null=False) + create_load_attr("sqrt")
    body = add_push_null(load) + create_load_fast("x")
    body += create_call_function(1, push_null=False) + create_return_value()
    assert make_function(body, "x", globals={"math": math})(16) == 4.0


@pytest.mark.parametrize("nargs", [0, 1, 2, 3])
def test_call_function_pushes_the_null_itself(nargs: int) -> None:
    args = [f"a{i}" for i in range(nargs)]
    body = create_load_fast("f") + [inst for name in args for inst in create_load_fast(name)]
    body += create_call_function(nargs, push_null=True) + create_return_value()
    function = make_function(body, "f", *args)
    assert function(lambda *xs: sum(xs) * 10, *range(1, nargs + 1)) == 10 * sum(range(nargs + 1))


def test_load_method_and_call_method() -> None:
    body = create_load_const(", ") + create_load_method("join") + create_load_fast("items")
    body += create_call_method(1) + create_return_value()
    assert make_function(body, "items")(["a", "b"]) == "a, b"


def test_load_method_of_a_plain_attribute() -> None:
    """Not a method: LOAD_METHOD leaves NULL and the attribute, and the call still works."""
    body = create_load_fast("obj") + create_load_method("fn") + create_load_fast("x")
    body += create_call_method(1) + create_return_value()
    assert make_function(body, "obj", "x")(SimpleNamespace(fn=abs), -2) == 2


def test_load_attr() -> None:
    body = create_load_fast("z") + create_load_attr("imag") + create_return_value()
    assert make_function(body, "z")(complex(1, 2)) == 2.0


@pytest.mark.parametrize("names", [("key",), ("x", "y")])
def test_call_function_kw(names: tuple[str, ...]) -> None:
    def target(*args: object, **kwargs: object) -> tuple[object, object]:
        return args, kwargs

    body = add_push_null(create_load_fast("f")) + create_load_const("positional")
    for index in range(len(names)):
        body += create_load_const(index)
    body += create_call_function_kw(1 + len(names), names) + create_return_value()
    expected = (("positional",), {name: index for index, name in enumerate(names)})
    assert make_function(body, "f")(target) == expected


def load_numbers(count: int) -> list[Instruction]:
    """Push 0, 1, ..., count - 1 (count - 1 on top)."""
    return [inst for value in range(count) for inst in create_load_const(value)]


@pytest.mark.parametrize("n", range(1, 7))
def test_rot_n(n: int) -> None:
    body = load_numbers(n) + create_rot_n(n) + create_build_tuple(n) + create_return_value()
    assert make_function(body)() == (n - 1, *range(n - 1))


@pytest.mark.parametrize("n", range(1, 7))
def test_swap(n: int) -> None:
    body = load_numbers(n) + create_swap(n) + create_build_tuple(n) + create_return_value()
    expected = list(range(n))
    expected[0], expected[-1] = expected[-1], expected[0]
    assert make_function(body)() == tuple(expected)


def test_dup_top() -> None:
    body = create_load_fast("a") + create_dup_top() + create_build_tuple(2) + create_return_value()
    assert make_function(body, "a")("x") == ("x", "x")


def test_unpack_sequence_and_build_tuple() -> None:
    body = create_load_fast("t") + create_unpack_sequence(3) + create_build_tuple(3)
    assert make_function(body + create_return_value(), "t")((1, 2, 3)) == (3, 2, 1)


def test_binary_subscr() -> None:
    body = create_load_fast("s") + create_load_fast("i") + create_binary_subscr()
    assert make_function(body + create_return_value(), "s", "i")("abc", 1) == "b"


class Matrix:
    def __init__(self, value: int) -> None:
        self.value = value

    def __matmul__(self, other: Matrix) -> int:
        return self.value * other.value + 1


OPERATORS = ["+", "&", "//", "<<", "*", "%", "|", "**", ">>", "-", "/", "^"]


@pytest.mark.parametrize("symbol", [*OPERATORS, *(op + "=" for op in OPERATORS)])
def test_binary_op(symbol: str) -> None:
    body = create_load_fast("a") + create_load_fast("b") + create_binary_op(symbol)
    function = make_function(body + create_return_value(), "a", "b")
    expected = eval(f"a {symbol.rstrip('=')} b", {"a": 7, "b": 3})
    assert function(7, 3) == expected


def test_matrix_multiply_and_in_place_add_keep_their_semantics() -> None:
    matmul = create_load_fast("a") + create_load_fast("b") + create_binary_op("@")
    assert make_function(matmul + create_return_value(), "a", "b")(Matrix(2), Matrix(5)) == 11
    iadd = create_load_fast("a") + create_load_fast("b") + create_binary_op("+=")
    items = [1]
    result = make_function(iadd + create_return_value(), "a", "b")(items, [2])
    assert result is items and items == [1, 2]  # += extends the list in place


@pytest.mark.parametrize("symbol", ["<", "<=", "==", "!=", ">", ">="])
def test_compare_op_survives_specialization(symbol: str) -> None:
    """Hundreds of calls let 3.12+ specialize COMPARE_OP, which reads the mask bits."""
    body = create_load_fast("a") + create_load_fast("b")
    body += [create_instruction("COMPARE_OP", argval=symbol)] + create_return_value()
    function = make_function(body, "a", "b")
    for a, b in [(1, 2), (2, 2), (3, 2), (1.5, 2.5), (2.5, 2.5), ("a", "b"), ("b", "b")] * 40:
        assert function(a, b) == eval(f"a {symbol} b", {"a": a, "b": b})


def test_jump_forward_and_backward() -> None:
    """x = a; goto double; back: return x; double: x = 2 * x; goto back"""
    back = create_load_fast("x")
    double = create_load_fast("x")
    body = create_load_fast("a") + create_store_fast("x") + create_jump_absolute(double[0])
    body += back + create_return_value()
    body += double + create_load_const(2) + create_binary_op("*") + create_store_fast("x")
    body += create_jump_absolute(back[0])
    function = make_function(body, "a")
    assert function(21) == 42
    jumps = [op for op in opnames(body_of(function)) if op.startswith("JUMP")]
    expected = ["JUMP_ABSOLUTE"] * 2 if VERSION == (3, 10) else ["JUMP_FORWARD", "JUMP_BACKWARD"]
    assert jumps == expected


def test_create_instruction_takes_arg_for_int_arguments() -> None:
    assert create_instruction("BUILD_TUPLE", arg=2).argval == 2
    assert create_instruction("BUILD_TUPLE", argval=3).argval == 3


def test_create_instruction_refuses_unknown_opcodes_and_missing_argvals() -> None:
    with pytest.raises(BytecodeError, match="NOT_AN_OPCODE"):
        create_instruction("NOT_AN_OPCODE")
    with pytest.raises(BytecodeError, match="LOAD_FAST"):
        create_instruction("LOAD_FAST")
    with pytest.raises(BytecodeError, match="'<>'"):
        create_binary_op("<>")


def test_create_resume_only_from_3_11() -> None:
    assert opnames(create_resume()) == (["RESUME"] if VERSION >= (3, 11) else [])


def append_statement(value: str) -> list[Instruction]:
    """``log.append(value)``, its result popped."""
    body = create_load_fast("log") + create_load_method("append") + create_load_const(value)
    return body + create_call_method(1) + [create_instruction("POP_TOP")]


@pytest.mark.parametrize("raises", [False, True])
def test_try_finally_runs_final_on_both_paths(raises: bool) -> None:
    body = append_statement("body")
    body += add_push_null(create_load_fast("f")) + create_call_function(0, push_null=False)
    body += [create_instruction("POP_TOP")]
    code = create_try_finally(body, lambda: append_statement("final"))
    function = make_function(code + create_load_const("done") + create_return_value(), "log", "f")
    log: list[str] = []

    def f() -> None:
        if raises:
            raise ValueError("from the body")

    if raises:
        with pytest.raises(ValueError, match="from the body"):
            function(log, f)
    else:
        assert function(log, f) == "done"
    assert log == ["body", "final"]


def test_enter_with_leaves_exit_below_the_enter_result() -> None:
    """Entered, then left by calling the __exit__ it left (3.10's SETUP_WITH block is
    popped by POP_BLOCK; the handler is not reached while nothing raises)."""
    handler = create_instruction("NOP")
    body = create_load_fast("manager") + create_enter_with(handler)
    body += [create_instruction("STORE_FAST", argval="entered")]
    if not create_resume():
        body.append(create_instruction("POP_BLOCK"))
    body += [create_instruction("STORE_FAST", argval="exit")]
    body += add_push_null(create_load_fast("exit")) + create_load_const(None) * 3
    body += create_call_function(3, push_null=False) + [create_instruction("POP_TOP")]
    body += create_load_fast("entered") + create_return_value()
    body += [handler, *create_load_const("handler"), *create_return_value()]
    events: list[str] = []

    class Manager:
        def __enter__(self) -> str:
            events.append("enter")
            return "entered"

        def __exit__(self, *exc: object) -> None:
            events.append(f"exit {exc}")

    assert make_function(body, "manager")(Manager()) == "entered"
    assert events == ["enter", "exit (None, None, None)"]


def test_without_method_calls_keeps_the_call() -> None:
    body = create_load_fast("s") + create_load_method("upper") + create_call_method(0)
    without_method_calls(body)
    expected = (
        ["LOAD_ATTR", "CALL_FUNCTION"]
        if VERSION == (3, 10)
        else opnames(create_load_method("upper") + create_call_method(0))
    )
    assert opnames(body[1:]) == expected
    assert make_function(body + create_return_value(), "s")("abc") == "ABC"
