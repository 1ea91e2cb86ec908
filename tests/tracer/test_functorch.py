"""torch.func's transforms (variables/functorch.py): vmap and grad traced through their
Python layer, the level and wrapping calls graph nodes; a trace that stops inside one
leaves functorch's global state as it found it."""

from __future__ import annotations

import functools

import minidynamo
import pytest
import torch
from minidynamo.exc import Unsupported


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def _functorch_state() -> tuple:
    return (
        torch._C._functorch.get_dynamic_layer_stack_depth(),
        torch._C._functorch.get_inplace_requires_grad_allowed(),
        torch._C._autograd._saved_tensors_hooks_get_disabled_error_message(),
    )


def test_vmap_of_grad_matches_eager():
    def fn(x):
        return torch.func.vmap(torch.func.grad(lambda a: (a**3).sum()))(x)

    x = torch.randn(4, 3)
    compiled = minidynamo.compile(fn, backend="eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), fn(x))
    assert _functorch_state() == (0, False, None)


def test_trace_stopped_inside_grad_restores_functorch_state():
    def fn(x):
        def loss(t):
            minidynamo.graph_break()
            return (t * t).sum()

        return torch.func.grad(loss)(x)

    before = _functorch_state()
    compiled = minidynamo.compile(fn, backend="eager", fullgraph=True)
    with pytest.raises(Unsupported):
        compiled(torch.randn(3))
    assert _functorch_state() == before


def test_break_inside_vmap_runs_it_eagerly():
    def fn(x):
        def body(a):
            minidynamo.graph_break()
            return a * 2

        return torch.func.vmap(body)(x) + 1

    x = torch.randn(4, 3)
    compiled = minidynamo.compile(fn, backend="eager")
    torch.testing.assert_close(compiled(x), fn(x))
    assert _functorch_state() == (0, False, None)


def test_function_made_under_functools_wraps_leaves_the_trace_wrapped():
    def fn(x):
        @functools.wraps(torch.cos)
        def inner(t):
            return t + 1

        return inner(x) * len(inner.__name__), inner

    out, inner = minidynamo.compile(fn, backend="eager", fullgraph=True)(torch.zeros(2))
    assert torch.equal(out, torch.full((2,), 3.0))
    assert inner.__name__ == "cos" and inner.__wrapped__ is torch.cos


def test_jacrev_matches_eager():
    def fn(x):
        return torch.func.jacrev(torch.sin)(x)

    x = torch.randn(3)
    torch.testing.assert_close(minidynamo.compile(fn, fullgraph=True)(x), fn(x))
