"""The shape guards, compiled, accept exactly the inputs the graph is valid for
(hypothesis over sizes), and automatic dynamic recompiles a bounded number of times."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from minidynamo.shapes import compile_guards, sizes_match
from shapes_harness import Frame, double, each_doubled, randn, seed_branch, seed_int, seed_mul

SIZES = st.integers(min_value=0, max_value=64)
FAST = settings(max_examples=60, deadline=None)


@pytest.fixture(scope="module")
def duck_entry():
    frame = Frame(seed_mul)
    frame(a=randn(4, 3), b=randn(4, 3))
    return frame(a=randn(8, 3), b=randn(8, 3))


@FAST
@given(a=SIZES, b=SIZES)
def test_duck_shaped_entry_accepts_equal_sizes_of_at_least_2(duck_entry, a, b):
    inputs = {"a": torch.empty(a, 3), "b": torch.empty(b, 3)}
    assert duck_entry.check(inputs, {}) == (a == b and a >= 2)


@FAST
@given(a=SIZES, width=st.integers(min_value=1, max_value=5))
def test_static_dims_stay_checked(duck_entry, a, width):
    inputs = {"a": torch.empty(a, width), "b": torch.empty(a, width)}
    assert duck_entry.check(inputs, {}) == (a >= 2 and width == 3)


@FAST
@given(size=SIZES)
def test_branch_guard_accepts_the_branch_it_traced(size):
    entry = Frame(seed_branch, dynamic=True)(a=randn(8))
    assert entry.check({"a": torch.empty(size)}, {}) == (size >= 8)


@FAST
@given(n=st.integers(min_value=-1000, max_value=1000))
def test_int_guard_accepts_the_sign_it_traced(n):
    frame = Frame(seed_int)
    frame(x=randn(5), n=2)
    entry = frame(x=randn(5), n=3)
    assert entry.check({"x": torch.empty(5), "n": n}, {}) == (n >= 0)


@FAST
@given(st.lists(st.integers(min_value=2, max_value=64), min_size=1, max_size=8))
def test_automatic_dynamic_compiles_at_most_twice(sizes):
    frame = Frame(double)
    for size in sizes:
        frame(a=randn(size, 3))
    assert len(frame.entries) == min(2, len(set(sizes)))


@FAST
@given(st.lists(st.tuples(SIZES, SIZES), min_size=1, max_size=6))
def test_every_served_entry_passes_its_own_guards(calls):
    frame = Frame(each_doubled)
    for a, b in calls:
        inputs = {"a": torch.empty(a, 2), "b": torch.empty(b, 2)}
        entry = frame(**inputs)
        assert entry.check(inputs, {})
        assert entry.examples["l_a_"].size(1) == 2


def test_compile_guards_of_no_guards_accepts_everything():
    assert compile_guards([])({}, {}) is True


def test_compile_guards_reads_locals_and_globals():
    check = compile_guards(["L['a'].size()[0] == G['n']"])
    assert check({"a": torch.empty(3)}, {"n": 3})
    assert not check({"a": torch.empty(4)}, {"n": 3})


def test_sizes_match_compares_rank_and_static_dims():
    assert sizes_match([None, 3], (8, 3))
    assert not sizes_match([None, 3], (8, 4))
    assert not sizes_match([None, 3], (8, 3, 1))
