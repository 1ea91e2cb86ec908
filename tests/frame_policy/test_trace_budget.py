"""No trace runs unbounded (config.trace_instruction_limit): a trace that runs past it
stops with the reason logged and the frame runs eagerly; under fullgraph=True the error
names the cause and the user's line."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import config, convert_frame, logs
from minidynamo.exc import Unsupported


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def long_int_loop(x):
    total = 0
    for i in range(10**7):
        total += i
    return x + total


def test_a_loop_of_ten_million_ints_runs_eagerly_with_the_reason_logged():
    x = torch.ones(2)
    with logs.capture("graph_breaks") as messages:
        result = minidynamo.compile(long_int_loop)(x)
    assert torch.equal(result, long_int_loop(x))
    assert convert_frame.counters["frames_failed"] == 1
    (message,) = messages
    assert message.startswith("Frame long_int_loop")
    assert "GB0015: trace budget" in message
    assert "in long_int_loop" in message


def test_under_fullgraph_the_budget_is_an_error_naming_the_cause_and_the_line(monkeypatch):
    monkeypatch.setattr(config, "trace_instruction_limit", 1000)
    with pytest.raises(Unsupported) as info:
        minidynamo.compile(long_int_loop, fullgraph=True)(torch.ones(2))
    text = str(info.value)
    assert "the trace ran past 1000 instructions (config.trace_instruction_limit)" in text
    loop = long_int_loop.__code__.co_firstlineno + 2  # the loop's two lines
    assert any(f'"test_trace_budget.py", line {line}, in long_int_loop' in text
               for line in (loop, loop + 1)), text  # fmt: skip


def count_to(n):
    total = 0
    for i in range(n):
        total += i
    return total


def calls_a_long_helper(x):
    y = x + 1
    total = count_to(10**5)
    return y * total


def test_a_budget_spent_in_an_inlined_call_breaks_the_graph_at_that_call(monkeypatch):
    """The call runs in CPython and the rest of the frame in a continuation."""
    monkeypatch.setattr(config, "trace_instruction_limit", 1000)
    x = torch.ones(2)
    result = minidynamo.compile(calls_a_long_helper)(x)
    assert torch.equal(result, calls_a_long_helper(x))
    assert convert_frame.counters["graph_breaks"] == 1
    assert convert_frame.counters["frames_compiled"] == 2
