"""Property tests: generated Python functions survive a round trip unchanged, and
generated stack programs are refused exactly when their stack underflows, and otherwise
compute what a reference stack machine computes."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import FunctionType
from typing import Any

import pytest
from bytecode_helpers import make_function, stream, without_stray_opargs
from hypothesis import given, settings
from hypothesis import strategies as st
from minidynamo.bytecode import (
    BytecodeError,
    Instruction,
    assemble,
    create_binary_op,
    create_build_tuple,
    create_dup_top,
    create_instruction,
    create_load_const,
    create_return_value,
    create_rot_n,
    create_swap,
    decode,
)

ARITHMETIC = ["+", "-", "*", "//", "%", "&", "|", "^"]
COMPARISONS = ["<", "<=", "==", "!=", ">", ">="]


def _expressions(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def binary(symbols: list[str]) -> st.SearchStrategy[str]:
        parts = st.tuples(children, st.sampled_from(symbols), children)
        return parts.map(lambda p: f"({p[0]} {p[1]} {p[2]})")

    ternary = st.tuples(children, children, children).map(
        lambda p: f"({p[0]} if {p[1]} else {p[2]})"
    )
    return (
        binary(ARITHMETIC)
        | binary(COMPARISONS)
        | binary(["and", "or"])
        | ternary
        | children.map(lambda e: f"(-{e})")
    )


leaves = st.sampled_from(["a", "b", "c"]) | st.integers(-5, 5).map(str)
expressions = st.recursive(leaves, _expressions, max_leaves=10)


def outcome(function: Callable[..., Any], *args: Any) -> Any:
    """The result, or the type of the exception raised."""
    try:
        return function(*args)
    except Exception as error:  # the property compares which error, whatever it is
        return type(error)


@settings(max_examples=60, deadline=None)
@given(st.lists(expressions, min_size=1, max_size=4), st.tuples(*[st.integers(-20, 20)] * 3))
def test_generated_functions_round_trip(bodies: list[str], args: tuple[int, int, int]) -> None:
    statements = "".join(f"    t{i} = {body}\n" for i, body in enumerate(bodies))
    returned = ", ".join(f"t{i}" for i in range(len(bodies)))
    scope: dict[str, Any] = {}
    exec(f"def generated(a, b, c):\n{statements}    return ({returned},)\n", scope)
    original = scope["generated"]
    code = assemble(decode(original.__code__), original.__code__)
    assert without_stray_opargs(code) == without_stray_opargs(original.__code__)
    assert stream(decode(code)) == stream(decode(original.__code__))
    assert outcome(FunctionType(code, scope), *args) == outcome(original, *args)


@dataclass
class Step:
    """One step of a stack program: its instructions, and what it does to a Python list
    standing in for the value stack."""

    name: str
    reads: int  # items it needs on the stack
    effect: int  # net change of the stack height
    apply: Callable[[list[Any]], None]
    instructions: list[Instruction]


STACK_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv}


def push(value: int) -> Step:
    return Step(f"push {value}", 0, 1, lambda s: s.append(value), create_load_const(value))


def binary(symbol: str) -> Step:
    def apply(stack: list[Any]) -> None:
        right, left = stack.pop(), stack.pop()
        stack.append(STACK_OPS[symbol](left, right))

    return Step(symbol, 2, -1, apply, create_binary_op(symbol))


def dup() -> Step:
    return Step("dup", 1, 1, lambda s: s.append(s[-1]), create_dup_top())


def pop() -> Step:
    return Step("pop", 1, -1, lambda s: s.pop(), [create_instruction("POP_TOP")])


def swap(n: int) -> Step:
    def apply(stack: list[Any]) -> None:
        stack[-1], stack[-n] = stack[-n], stack[-1]

    return Step(f"swap {n}", n, 0, apply, create_swap(n))


def rot(n: int) -> Step:
    def apply(stack: list[Any]) -> None:
        top = stack.pop()
        stack.insert(len(stack) - n + 1, top)

    return Step(f"rot {n}", n, 0, apply, create_rot_n(n))


def build_tuple(n: int) -> Step:
    def apply(stack: list[Any]) -> None:
        items = tuple(stack[len(stack) - n :])
        del stack[len(stack) - n :]
        stack.append(items)

    return Step(f"tuple {n}", n, 1 - n, apply, create_build_tuple(n))


steps = st.one_of(
    st.builds(push, st.integers(-3, 3)),
    st.builds(binary, st.sampled_from(sorted(STACK_OPS))),
    st.builds(dup),
    st.builds(pop),
    st.builds(swap, st.integers(2, 4)),
    st.builds(rot, st.integers(2, 4)),
    st.builds(build_tuple, st.integers(0, 3)),
)


def underflows(program: list[Step]) -> bool:
    """Whether some step, or the final RETURN_VALUE, finds too few items on the stack."""
    height = 0
    for step in program:
        if height < step.reads:
            return True
        height += step.effect
    return height < 1


def reference_run(program: list[Step]) -> Any:
    """What the program returns, or the type of the exception it raises."""
    stack: list[Any] = []
    try:
        for step in program:
            step.apply(stack)
    except Exception as error:  # a type error or a division by zero ends the run
        return type(error)
    return stack[-1]


@settings(max_examples=150, deadline=None)
@given(st.lists(steps, max_size=8))
def test_stack_programs_are_refused_exactly_when_they_underflow(program: list[Step]) -> None:
    names = [step.name for step in program]
    body = [inst for step in program for inst in step.instructions] + create_return_value()
    if underflows(program):
        with pytest.raises(BytecodeError, match="stack underflow"):
            make_function(body)
    else:
        assert outcome(make_function(body)) == reference_run(program), names
