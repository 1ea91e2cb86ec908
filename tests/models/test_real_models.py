"""Issue 11: real models compiled as a new user would, next to torch.compile. Each model
of `model_zoo` must give eager's results on a first call, a repeated call and a new batch
size; one training step's gradients must equal eager's (and `eval()` after `train()` is
guarded); its graphs and their op counts are compared with torch.compile's."""

from __future__ import annotations

import minidynamo
import pytest
import torch
import torch._dynamo
from model_zoo import MODELS, CountingBackend, build, outputs


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def inputs(name: str, batch: int) -> tuple:
    torch.manual_seed(batch)
    return MODELS[name].inputs(batch)


def assert_same(actual: object, expected: object) -> None:
    got, want = outputs(actual), outputs(expected)
    assert len(got) == len(want) > 0
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_model_gives_eagers_results(name: str) -> None:
    model = build(name).eval()
    backend = CountingBackend()
    compiled = minidynamo.compile(model, backend=backend)
    with torch.no_grad():
        for batch in (2, 2, 3):  # first call, cache hit, new batch size
            x = inputs(name, batch)
            assert_same(compiled(*x), model(*x))
    assert backend.ops, "no graph captured"


@pytest.mark.parametrize("name", list(MODELS))
def test_graphs_and_ops_equal_torch_compile(name: str) -> None:
    model = build(name).eval()
    x = inputs(name, 2)
    ours, theirs = CountingBackend(), CountingBackend()
    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(model, backend=theirs)(*x)
        minidynamo.compile(model, backend=ours)(*x)
    torch._dynamo.reset()
    assert ours.ops == theirs.ops


def loss_and_grads(model: torch.nn.Module, call: object, x: tuple) -> tuple:
    model.zero_grad()
    torch.manual_seed(0)  # dropout draws the same masks in both runs
    loss = sum(t.float().sum() for t in outputs(call(*x)) if t.is_floating_point())
    loss.backward()
    grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
    return loss.detach(), grads


@pytest.mark.parametrize("name", list(MODELS))
def test_training_step_gives_eagers_gradients(name: str) -> None:
    model = build(name).train()
    compiled = minidynamo.compile(model, backend=CountingBackend())
    x = inputs(name, 2)
    want_loss, want_grads = loss_and_grads(model, model, x)
    got_loss, got_grads = loss_and_grads(model, compiled, x)
    torch.testing.assert_close(got_loss, want_loss, rtol=1e-4, atol=1e-4)
    assert len(got_grads) == len(want_grads) > 0
    for got, want in zip(got_grads, want_grads, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    model.eval()  # the training flag is guarded: eval mode recompiles
    with torch.no_grad():
        assert_same(compiled(*x), model(*x))
