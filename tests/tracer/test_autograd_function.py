"""A custom `torch.autograd.Function` whose forward the trace inlined (the call recorded
nothing for backward) must not be reused where the call records a gradient: the
Function's own backward has to run then, as in eager."""

from __future__ import annotations

import minidynamo
import pytest
import torch


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


class SquareWithOwnBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        return 100 * grad  # not autograd's 2t: shows whose backward ran


def summed_square(x):
    return SquareWithOwnBackward.apply(x).sum()


def test_graph_traced_under_no_grad_is_not_reused_with_grad():
    compiled = minidynamo.compile(summed_square, backend="eager")
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        compiled(x)
    compiled(x).backward()
    assert torch.equal(x.grad, torch.full((3,), 100.0))
