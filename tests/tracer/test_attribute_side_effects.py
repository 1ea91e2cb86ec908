"""Attribute stores on a class (`Tally.count += 5`) are side effects the trace reads back:
through the class, a subclass and an instance, as eagerly (real Dynamo 2.14 reads the
old value through an instance). A function made in the frame keeps the attributes set
on it when it is returned."""

from __future__ import annotations

import minidynamo
import pytest
import torch


class Tally:
    count = 0


class SubTally(Tally):
    pass


def reads_after_class_store(x):
    Tally.count += 5
    t = SubTally()
    y = x * t.count + SubTally.count
    Tally.count -= 2
    return y, t.count


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    Tally.count = 0
    yield
    minidynamo.reset()


def test_class_store_read_through_instance_and_subclass():
    x = torch.randn(3)
    compiled = minidynamo.compile(reads_after_class_store, fullgraph=True)
    y, seen = compiled(x)
    assert seen == 3 and Tally.count == 3 and "count" not in vars(SubTally)
    torch.testing.assert_close(y, x * 5 + 5)


def returns_tagged_function(x):
    def inner(t):
        return t + 1

    inner.tag = "fast"
    return inner(x), inner, inner


def test_new_function_keeps_its_attributes():
    compiled = minidynamo.compile(returns_tagged_function, fullgraph=True)
    _, fn, again = compiled(torch.zeros(2))
    assert fn is again and fn.tag == "fast" and fn.__qualname__.endswith("inner")
