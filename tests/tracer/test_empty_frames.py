"""Frames whose trace records no operation (issue #5, goal 2): as Dynamo ("no content in
function call"), the code object is left to CPython for good: no cache entry, no guards,
and later calls, whatever their inputs, are not converted again. `fullgraph=True` still
compiles them."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import convert_frame, logs
from tracer_harness import compile_count


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def empty_frames() -> int:
    return convert_frame.counters["frames_empty"]


def add_bias(x, bias):
    if bias is None:
        return x
    return x + bias


def test_frame_without_operation_is_left_to_cpython_for_good():
    fn = minidynamo.compile(add_bias)
    x = torch.randn(3)
    with logs.capture("guards") as guards:
        assert fn(x, None) is x
        assert torch.equal(fn(x, torch.ones(3)), x + 1)  # would add, but is not converted
    assert (empty_frames(), compile_count()) == (1, 0)
    assert guards == []
    assert convert_frame.cache_entries(add_bias.__code__) == []


def test_fullgraph_still_compiles_a_frame_without_operation():
    fn = minidynamo.compile(add_bias, fullgraph=True)
    x = torch.randn(3)
    assert fn(x, None) is x
    assert (empty_frames(), compile_count()) == (0, 1)


def test_a_later_empty_trace_leaves_the_code_to_cpython():
    def scale(x, n):
        if n:
            return x * n
        return x

    fn = minidynamo.compile(scale)
    x = torch.randn(3)
    for n in (4, 0, 4, 5, 0):
        assert torch.equal(fn(x, n), scale(x, n))
    assert (compile_count(), empty_frames()) == (1, 1)


def test_side_effects_alone_are_replayed_by_cpython():
    def append_one(x, items):
        items.append(1)
        return x

    fn = minidynamo.compile(append_one)
    items: list[int] = []
    x = torch.randn(3)
    fn(x, items)
    fn(x, items)
    assert items == [1, 1]
    assert (compile_count(), empty_frames()) == (0, 1)


def test_resume_function_that_only_returns_is_not_compiled():
    def double_then_print(x):
        y = x * 2
        print("between")
        return y, 3

    fn = minidynamo.compile(double_then_print)
    x = torch.randn(3)
    for _ in range(2):
        y, three = fn(x)
        assert torch.equal(y, x * 2) and three == 3
    assert convert_frame.counters["graph_breaks"] == 1
    assert (compile_count(), empty_frames()) == (1, 1)
