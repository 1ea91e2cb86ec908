"""User objects' iteration and instance dicts in the trace, the edges that the conformance
cases (python_classes, python_control) leave out: iter()'s TypeErrors, an old-protocol
iterator or a user iterator left alive at a graph break, ``__dict__`` stores that must not
be traced (under a data descriptor; on an input whose ``__setattr__`` the replay would run),
and a property on a typing.NamedTuple class."""

from __future__ import annotations

import typing

import minidynamo
import pytest
import torch


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def same_as_eager(fn, *args, fullgraph=False):
    """Run `fn` eagerly and compiled on the same arguments; return the compiled result."""
    eager = fn(*args)
    compiled = minidynamo.compile(fn, fullgraph=fullgraph)(*args)
    assert repr(compiled) == repr(eager)
    return compiled


class OptedOut:
    __iter__ = None

    def __getitem__(self, index):
        return index


class Opaque:
    pass


def iter_type_errors(x):
    messages = []
    for obj in (OptedOut(), Opaque()):
        try:
            iter(obj)
        except TypeError as e:
            messages.append(str(e))
    return x + 1, messages


def test_iter_raises_type_error_as_eager():
    _, messages = same_as_eager(iter_type_errors, torch.ones(2), fullgraph=True)
    assert messages == ["'OptedOut' object is not iterable", "'Opaque' object is not iterable"]


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


class Steps:
    def __getitem__(self, index):
        if index >= 3:
            raise IndexError(index)
        return index + 1


def iterators_across_a_break(x):
    user, steps = iter(Countdown(3)), iter(Steps())
    x = x * next(user) + next(steps)
    minidynamo.graph_break()
    return x, list(user), list(steps)


def test_iterators_alive_at_a_graph_break_keep_eager_results():
    same_as_eager(iterators_across_a_break, torch.ones(2))


class Guarded:
    @property
    def size(self):
        return 7


class Hooked:
    def __init__(self):
        self.calls = 0

    def __setattr__(self, name, value):
        object.__setattr__(self, "calls", getattr(self, "calls", 0) + 1)
        object.__setattr__(self, name, value)


def dict_store_on_new_object(x):
    obj = Opaque()
    obj.__dict__["a"] = 2
    obj.__dict__.update({"b": 3}, c=4)
    return x * obj.a + obj.b + obj.c, list(obj.__dict__)


def dict_store_under_a_property(x):
    obj = Guarded()
    obj.__dict__["size"] = 1
    return x * obj.size


def dict_update_on_hooked_input(x, obj):
    obj.__dict__.update(width=5)
    return x * obj.width


def test_dict_stores_on_a_new_object_are_traced():
    same_as_eager(dict_store_on_new_object, torch.ones(2), fullgraph=True)


def test_dict_store_under_a_data_descriptor_reads_the_descriptor():
    assert same_as_eager(dict_store_under_a_property, torch.ones(2))[0] == 7


def test_dict_update_on_an_input_bypasses_its_setattr():
    eager_obj, compiled_obj = Hooked(), Hooked()
    eager = dict_update_on_hooked_input(torch.ones(2), eager_obj)
    compiled = minidynamo.compile(dict_update_on_hooked_input)(torch.ones(2), compiled_obj)
    torch.testing.assert_close(compiled, eager)
    assert vars(compiled_obj) == vars(eager_obj)


class Span(typing.NamedTuple):
    start: int
    stop: int

    @property
    def length(self):
        return self.stop - self.start

    @classmethod
    def empty(cls):
        return cls(0, 0)


def namedtuple_property_and_classmethod(x):
    span = Span(2, 5)
    return x * span.length, span.empty(), span.count(2)


def test_namedtuple_property_and_classmethod():
    same_as_eager(namedtuple_property_and_classmethod, torch.ones(2), fullgraph=True)
