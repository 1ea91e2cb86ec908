"""The entry path of issue 11: a compiled module whose `forward` is wrapped by a
decorator (`functools.wraps`, ``*args/**kwargs`` forwarding, as Hugging Face's), and
arguments that do not bind, reach the user's call as eager's results and errors only."""

from __future__ import annotations

import functools

import minidynamo
import pytest
import torch
from minidynamo import convert_frame


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def forwarding(fn):
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    return wrapper


class Decorated(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    @forwarding
    def forward(self, x, scale=2.0):
        return self.lin(x) * scale


def counting_backend(graphs):
    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    return backend


def test_decorated_forward_with_keyword_arguments_compiles():
    graphs: list = []
    module = Decorated()
    compiled = minidynamo.compile(module, backend=counting_backend(graphs))
    x = torch.randn(2, 3)
    assert torch.allclose(compiled(x, scale=3.0), module(x, scale=3.0))
    assert torch.allclose(compiled(x), module(x))
    assert len(graphs) >= 1


def test_arguments_that_do_not_bind_raise_eagers_type_error():
    compiled = minidynamo.compile(torch.nn.Linear(3, 3))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        compiled(torch.randn(2, 3), bogus=1)


def test_an_internal_error_in_the_entry_path_runs_the_call_eagerly(monkeypatch, capsys):
    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(convert_frame, "flat_arguments", broken)
    module = Decorated()
    x = torch.randn(2, 3)
    assert torch.allclose(minidynamo.compile(module)(x, scale=3.0), module(x, scale=3.0))
    assert "running it eagerly" in capsys.readouterr().err
