"""A generator alive at a graph break and the tuple iterator it becomes, the edges that the
conformance cases (generators) leave out: the caller's tuple iterator advanced by the items
the compiled frame took, an exhausted one, a generator reached through two names, and the
generators that must not run ahead of the break (a raise, a change of a list it made)."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo.convert_frame import counters


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def take_one(it, x):
    return x + next(it)


def test_tuple_iterator_argument_gives_its_items_to_the_caller_too():
    a, b, x = torch.ones(2), torch.full((2,), 2.0), torch.zeros(2)
    it = iter((a, b))
    compiled = minidynamo.compile(take_one, fullgraph=True)
    assert torch.equal(compiled(it, x), a)
    assert next(it) is b  # the compiled frame took `a` from the real iterator
    assert torch.equal(compiled(iter((b,)), x), b)  # a shorter one fails the length guard
    assert counters["frames_compiled"] == 2


def count_left(it, x):
    return x + len(list(it))


def test_exhausted_tuple_iterator_argument():
    it = iter((1, 2))
    list(it)
    out = minidynamo.compile(count_left, fullgraph=True)(it, torch.zeros(1))
    assert out.tolist() == [0.0]


def steps(x):
    yield x + 1
    yield x * 2
    yield x - 3


def two_names(x):
    g = steps(x)
    h = g
    a = next(g)
    print("between")
    return a + next(h) + next(g)


def test_generator_reached_through_two_names_stays_one_iterator(capsys):
    x = torch.ones(2)
    out = minidynamo.compile(two_names)(x)
    assert torch.equal(out, two_names(x))
    assert counters["frames_compiled"] == 2


def raising(x):
    yield x + 1
    raise ValueError("after the first item")


def raise_after_break(x):
    g = raising(x)
    a = next(g)
    print("between")
    try:
        next(g)
    except ValueError as e:
        return a, str(e)


def own_list(x):
    seen = []
    for i in range(3):
        seen.append(i)
        yield x * len(seen)


def own_list_after_break(x):
    g = own_list(x)
    a = next(g)
    print("between")
    return a + next(g)


@pytest.mark.parametrize("fn", [raise_after_break, own_list_after_break])
def test_generator_that_cannot_run_ahead_runs_eagerly(fn, capsys):
    x = torch.ones(2)
    assert repr(minidynamo.compile(fn)(x)) == repr(fn(x))
    assert counters["frames_compiled"] == 0
    assert capsys.readouterr().out == "between\n" * 2
