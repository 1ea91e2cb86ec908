"""Objects the trace creates stay one object after the frame, as eagerly: a new list or
user object that is returned and also stored in a global is the same object, at RETURN
and across a graph break (the generated code builds it once, then reuses it)."""

from __future__ import annotations

import contextlib
import io

import minidynamo
import pytest
import torch
from minidynamo import convert_frame

STORED = None


class Box:
    def __init__(self, value):
        self.value = value


def list_stored_and_returned(x):
    global STORED
    items = [x + 1]
    STORED = items
    return items


def object_stored_then_break(x):
    global STORED
    box = Box(x * 2)
    STORED = box
    print("break")
    box.value = box.value + 1
    return box


def dict_stored_twice_then_break(x):
    global STORED
    d = {"x": x}
    STORED = [d, d]
    print("break")
    return d


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


@pytest.mark.parametrize(
    "fn", [list_stored_and_returned, object_stored_then_break, dict_stored_twice_then_break]
)
def test_returned_object_is_the_stored_one(fn):
    x = torch.randn(3)
    with contextlib.redirect_stdout(io.StringIO()):
        eager = fn(x)
        eager_stored = STORED
        compiled = minidynamo.compile(fn)(x)
    stored = STORED
    assert convert_frame.counters["frames_failed"] == 0
    if isinstance(eager_stored, list) and len(eager_stored) == 2:
        assert eager_stored[0] is eager_stored[1] is eager
        assert stored[0] is stored[1] is compiled
    else:
        assert eager_stored is eager
        assert stored is compiled


def _leaf_with_grad():
    t = torch.randn(3, requires_grad=True)
    (t * t).sum().backward()
    return t


def grad_of_inplace_result(x):
    with torch.no_grad():
        y = x.mul_(2)
    return y.grad + 1


def test_inplace_result_has_its_inputs_grad():
    """`y = x.mul_(2)` is `x`: `y.grad` is `x.grad`, not None as for a new tensor."""
    x = _leaf_with_grad()
    expected = x.grad + 1
    out = minidynamo.compile(grad_of_inplace_result, fullgraph=True)(x)
    torch.testing.assert_close(out, expected)


def rest_of_an_iterator_after_a_break(x):
    it = iter([x, x + 1, x + 2])
    first = next(it)
    print("break")
    return first, list(it)


def test_list_iterator_rebuilt_at_a_break():
    """An iterator the trace made, half consumed at a graph break: the code after the
    break goes on with the items not yet taken."""
    x = torch.randn(3)
    with contextlib.redirect_stdout(io.StringIO()):
        first, rest = minidynamo.compile(rest_of_an_iterator_after_a_break)(x)
    assert convert_frame.counters["frames_failed"] == 0
    torch.testing.assert_close(first, x)
    assert len(rest) == 2
    torch.testing.assert_close(rest[1], x + 2)
