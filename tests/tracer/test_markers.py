"""The markers a program uses (decorators.py): graph_break() splits the graph where it is
called (and is an error under fullgraph=True), is_compiling() is True only while traced,
allow_in_graph puts a function into the graph as one node instead of tracing it."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo.exc import Unsupported


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def with_break(x):
    y = x + 1
    minidynamo.graph_break()
    return y * 2


def test_graph_break_splits_the_graph_with_its_own_reason():
    report = minidynamo.explain(with_break)(torch.ones(3))
    assert report.graph_count == 2
    (reason,) = report.break_reasons
    assert "user-inserted graph break" in reason.reason
    assert reason.gb_id == "GB0014"
    assert reason.user_stack[-1][:3] == ("test_markers.py", 22, "with_break")


def test_graph_break_result_matches_eager():
    x = torch.randn(4)
    assert torch.equal(minidynamo.compile(with_break)(x), with_break(x))


def test_graph_break_under_fullgraph_names_the_line():
    compiled = minidynamo.compile(with_break, fullgraph=True)
    with pytest.raises(Unsupported, match="user-inserted graph break") as info:
        compiled(torch.ones(3))
    assert "test_markers.py" in str(info.value)


def test_graph_break_eagerly_does_nothing():
    assert minidynamo.graph_break("a message") is None


def branch_on_compiling(x):
    if minidynamo.is_compiling():
        return x + 1
    return x - 1


def test_is_compiling_is_true_only_in_a_trace():
    x = torch.zeros(2)
    assert torch.equal(branch_on_compiling(x), x - 1)
    report = minidynamo.explain(branch_on_compiling)(x)
    assert report.graph_count == 1
    assert torch.equal(minidynamo.compile(branch_on_compiling)(x), x + 1)


calls_of_opaque: list[int] = []


@minidynamo.allow_in_graph
def opaque(x):
    calls_of_opaque.append(1)  # not traced: this list only grows when it runs
    return x.sin() * 2


def use_opaque(x):
    return opaque(x) + 1


def test_allow_in_graph_makes_one_node():
    x = torch.randn(3)
    report = minidynamo.explain(use_opaque)(x)
    assert report.graph_count == 1
    assert opaque in report.ops_per_graph[0]
    assert torch.allclose(minidynamo.compile(use_opaque)(x), use_opaque(x))


def test_allow_in_graph_returns_the_function_and_checks_its_argument():
    assert minidynamo.allow_in_graph(opaque) is opaque
    with pytest.raises(TypeError, match="expects a callable"):
        minidynamo.allow_in_graph(3)
