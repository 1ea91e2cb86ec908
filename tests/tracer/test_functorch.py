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


def _forward_ad_state() -> tuple:
    """The forward-grad switch, functorch's JVP_NESTING and forward_ad's current level,
    and the dual level a new block gets (0 when none was left entered)."""
    import torch._functorch.eager_transforms as eager_transforms
    import torch.autograd.forward_ad as fwAD

    with fwAD.dual_level() as level:
        pass
    return (
        torch._C._is_fwd_grad_enabled(),
        eager_transforms.JVP_NESTING,
        fwAD._current_level,
        level,
    )


def test_trace_stopped_inside_jvp_restores_forward_ad_state():
    """The trace entered a jvp level, switched forward grad on and entered a dual level
    before the break: all are undone, and the module globals were never written."""

    def fn(x):
        def f(t):
            minidynamo.graph_break()
            return t.sin()

        return torch.func.jvp(f, (x,), (x,))

    before = (_functorch_state(), _forward_ad_state())
    compiled = minidynamo.compile(fn, backend="eager", fullgraph=True)
    with pytest.raises(Unsupported):
        compiled(torch.randn(3))
    assert (_functorch_state(), _forward_ad_state()) == before


def test_jacfwd_and_hessian_match_eager():
    def fn(x):
        f = lambda v: (v.sin() * v).sum()  # noqa: E731
        return torch.func.jacfwd(torch.tanh)(x), torch.func.hessian(f)(x)

    x = torch.randn(3)
    torch.testing.assert_close(minidynamo.compile(fn, fullgraph=True)(x), fn(x))
    assert _forward_ad_state() == (True, 0, -1, 0)


def test_global_of_another_module_assigned_by_inlined_code_is_replayed():
    """forward_ad's `enter_dual_level` sets its module's `_current_level`: the graph
    leaves it as eager does, and `make_dual` inlined after it reads the new value."""
    import torch.autograd.forward_ad as fwAD

    def fn(x):
        level = fwAD.enter_dual_level()
        primal, tangent = fwAD.unpack_dual(fwAD.make_dual(x, x) * 2)
        return primal, tangent, level

    x = torch.randn(3)
    try:
        primal, tangent, level = minidynamo.compile(fn, fullgraph=True)(x)
        assert fwAD._current_level == level == 0
    finally:
        fwAD.exit_dual_level()
    torch.testing.assert_close((primal, tangent), (x * 2, x * 2))
    assert fwAD._current_level == -1
