"""The symbolic shapes policy (seed "符号形状"): static by default, automatic dynamic,
0/1 specialization, duck shaping, marks, dynamic=True/False, symbol names, int inputs."""

from __future__ import annotations

import logging

import pytest
import torch
from minidynamo.shapes import (
    FrameShapeState,
    ShapePolicy,
    mark_dynamic,
    mark_static,
    maybe_mark_dynamic,
    tensor_guard_sizes,
)
from minidynamo.source import LocalSource
from shapes_harness import (
    Frame,
    double,
    each_doubled,
    elementwise,
    randn,
    seed_int,
    seed_mul,
    specialize_on_8,
)
from torch.fx.experimental.symbolic_shapes import ConstraintViolationError


def sizes(entry, name="l_a_"):
    return tuple(entry.examples[name].size())


def names(values):
    return [str(v) for v in values]


# Static by default, automatic dynamic.


def test_first_compile_is_static():
    entry = Frame(seed_mul)(a=randn(4, 3), b=randn(4, 3))
    assert sizes(entry) == (4, 3)
    assert entry.symbol_inputs == []
    assert entry.shape_guards == []
    assert tensor_guard_sizes(entry.examples["l_a_"]) == ([4, 3], [3, 1])


def test_a_changed_dim_becomes_a_symbol_and_the_others_stay_static():
    frame = Frame(double)
    frame(a=randn(4, 3, 5))
    entry = frame(a=randn(4, 7, 5))
    assert names(sizes(entry)) == ["4", "s0", "5"]
    assert tensor_guard_sizes(entry.examples["l_a_"]) == ([4, None, 5], [None, 5, 1])
    assert entry.shape_guards == [
        "L['a'].stride()[0] == 5*L['a'].size()[1]",
        "2 <= L['a'].size()[1]",
    ]


def test_later_values_reuse_the_symbolic_entry():
    frame = Frame(seed_mul)
    entries = [frame(a=randn(n, 3), b=randn(n, 3)) for n in (4, 8, 16, 32, 5)]
    assert len(frame.entries) == 2
    assert entries[1:] == [frame.entries[1]] * 4


def test_a_rank_change_makes_every_dim_dynamic():
    frame = Frame(double)
    frame(a=randn(4, 3))
    entry = frame(a=randn(4, 3, 5))
    assert names(sizes(entry)) == ["s0", "s1", "s2"]


def test_automatic_dynamic_is_remembered_per_source():
    frame = Frame(each_doubled)
    frame(a=randn(4), b=randn(4))
    entry = frame(a=randn(6), b=randn(4))
    assert names(sizes(entry)) == ["s0"]
    assert names(sizes(entry, "l_b_")) == ["4"]


# 0/1 specialization.


@pytest.mark.parametrize("size", [0, 1])
def test_sizes_0_and_1_are_never_symbols(size):
    frame = Frame(double)
    frame(a=randn(4, 3))
    frame(a=randn(8, 3))
    entry = frame(a=randn(size, 3))
    assert len(frame.entries) == 3
    assert sizes(entry) == (size, 3)
    assert entry.shape_guards == []


@pytest.mark.parametrize("size", [0, 1])
def test_dynamic_true_specializes_0_and_1(size):
    entry = Frame(double, dynamic=True)(a=randn(size, 3))
    assert names(sizes(entry)) == [str(size), "s0"]


@pytest.mark.parametrize("mark", [mark_dynamic, maybe_mark_dynamic])
def test_a_marked_dim_of_size_1_is_specialized_silently(mark):
    # torch 2.14 neither raises nor warns: the graph is specialized to size 1.
    a = randn(1, 3)
    mark(a, 0)
    entry = Frame(double)(a=a)
    assert sizes(entry) == (1, 3)
    assert entry.shape_guards == []


# Duck shaping.


def test_equal_sizes_share_a_symbol_with_an_equality_guard():
    frame = Frame(seed_mul)
    frame(a=randn(4, 3), b=randn(4, 3))
    entry = frame(a=randn(8, 3), b=randn(8, 3))
    assert names(sizes(entry)) == names(sizes(entry, "l_b_")) == ["s0", "3"]
    assert entry.shape_guards == ["L['b'].size()[0] == L['a'].size()[0]", "2 <= L['a'].size()[0]"]


def test_inputs_that_stop_being_equal_fail_the_guard():
    frame = Frame(each_doubled)
    frame(a=randn(4, 3), b=randn(4, 3))
    duck = frame(a=randn(8, 3), b=randn(8, 3))
    assert not duck.check({"a": randn(8, 3), "b": randn(5, 3)}, {})
    entry = frame(a=randn(8, 3), b=randn(5, 3))
    assert len(frame.entries) == 3
    assert names(sizes(entry)) + names(sizes(entry, "l_b_")) == ["s0", "3", "s1", "3"]


def test_different_sizes_get_different_symbols_in_creation_order():
    entry = Frame(double, dynamic=True)(a=randn(5, 7, 5))
    assert names(sizes(entry)) == ["s0", "s1", "s0"]
    assert [(s.name, s.hint, s.source.name) for s in entry.symbol_inputs] == [
        ("s0", 5, "L['a'].size()[0]"),
        ("s1", 7, "L['a'].size()[1]"),
    ]


def test_symbol_numbering_restarts_with_each_compile():
    frame = Frame(each_doubled, dynamic=True)
    first = frame(a=randn(5), b=randn(7))
    second = frame(a=randn(2), b=randn(3, 1))
    assert [s.name for s in first.symbol_inputs] == ["s0", "s1"]
    assert [s.name for s in second.symbol_inputs] == ["s0", "s1"]


def test_new_symbol_inputs_are_handed_out_once():
    policy = ShapePolicy(FrameShapeState(), dynamic=True)
    policy.wrap_tensor(randn(5, 3), LocalSource("a"))
    assert [s.name for s in policy.new_symbol_inputs()] == ["s0", "s1"]
    policy.wrap_tensor(randn(3, 5, 6), LocalSource("b"))
    assert [s.name for s in policy.new_symbol_inputs()] == ["s2"]
    assert policy.new_symbol_inputs() == []


# Marks.


def test_mark_dynamic_makes_a_symbol_on_the_first_compile():
    a = randn(4, 3)
    mark_dynamic(a, 0)
    frame = Frame(double)
    entry = frame(a=a)
    assert names(sizes(entry)) == ["s0", "3"]
    assert frame(a=randn(9, 3)) is entry


def test_torch_dynamo_marks_are_honoured():
    """A program written for torch.compile marks dims with torch._dynamo's functions:
    a marked dim is a symbol from the first compile (broadcasting against a static 1
    does not specialize it), a dim marked static stays static under dynamic=True."""
    import torch._dynamo

    a = randn(4, 3)
    torch._dynamo.mark_dynamic(a, 0)
    frame = Frame(elementwise)
    entry = frame(a=a, b=randn(1, 3))
    assert names(sizes(entry)) == ["s0", "3"]
    c = randn(5, 3)
    torch._dynamo.mark_dynamic(c, 0)
    assert frame(a=c, b=randn(1, 3)) is entry
    b = randn(4, 3)
    torch._dynamo.mark_static(b, 0)
    assert names(sizes(Frame(double, dynamic=True)(a=b))) == ["4", "s0"]


def test_mark_dynamic_dims_are_not_duck_shaped():
    a, b = randn(4, 3), randn(4, 3)
    mark_dynamic(a, 0)
    mark_dynamic(b, 0)
    entry = Frame(elementwise)(a=a, b=b)
    assert [s.name for s in entry.symbol_inputs] == ["s0", "s1"]
    # The product of the two tensors guards them equal (torch.mul broadcasting).
    assert "L['a'].size()[0] == L['b'].size()[0]" in entry.shape_guards


def test_mark_dynamic_accepts_a_list_of_dims():
    a = randn(4, 5, 6)
    mark_dynamic(a, [0, 2])
    assert names(sizes(Frame(double)(a=a))) == ["s0", "5", "s1"]


def test_specializing_a_mark_dynamic_dim_raises():
    a = randn(8, 3)
    mark_dynamic(a, 0)
    with pytest.raises(ConstraintViolationError, match=r"L\['a'\]\.size\(\)\[0\]"):
        Frame(specialize_on_8)(a=a)


def test_specializing_a_maybe_mark_dynamic_dim_is_allowed():
    a = randn(8, 3)
    maybe_mark_dynamic(a, 0)
    entry = Frame(specialize_on_8)(a=a)
    assert "L['a'].size()[0] == 8" in entry.shape_guards


def test_mark_static_wins_over_dynamic_true_and_automatic_dynamic():
    a = randn(4, 3)
    mark_static(a, 0)
    assert names(sizes(Frame(double, dynamic=True)(a=a))) == ["4", "s0"]
    frame = Frame(double)
    frame(a=a)
    b = randn(8, 3)
    mark_static(b)
    assert sizes(frame(a=b)) == (8, 3)


def test_mark_dynamic_wins_over_mark_static():
    a = randn(4, 3)
    mark_static(a, 0)
    mark_dynamic(a, 0)
    assert names(sizes(Frame(double)(a=a))) == ["s0", "3"]


def test_marks_reject_non_tensors():
    with pytest.raises(TypeError):
        mark_dynamic([1, 2], 0)


def test_parameters_stay_static():
    frame = Frame(double)
    frame(a=torch.nn.Parameter(randn(4)))
    entry = frame(a=torch.nn.Parameter(randn(8)))
    assert sizes(entry) == (8,)


# dynamic=True / dynamic=False.


def test_dynamic_true_traces_every_size_and_int_symbolically_from_the_start():
    entry = Frame(seed_int, dynamic=True)(x=randn(200), n=2)
    assert names(sizes(entry, "l_x_")) == ["s0"]
    assert str(entry.examples["l_n_"]) == "s1"
    assert entry.shape_guards == ["2 <= L['x'].size()[0]", "L['n'] >= 0"]


def test_dynamic_false_never_makes_symbols():
    frame = Frame(seed_int, dynamic=False)
    for size, n in ((4, 2), (8, 3), (16, 4)):
        entry = frame(x=randn(size), n=n)
        assert entry.symbol_inputs == []
        assert entry.shape_guards == []
    assert len(frame.entries) == 3


def test_dynamic_false_still_honours_mark_dynamic():
    a = randn(4, 3)
    mark_dynamic(a, 0)
    assert names(sizes(Frame(double, dynamic=False)(a=a))) == ["s0", "3"]


# Int inputs.


def test_a_changed_int_becomes_a_symint_input():
    frame = Frame(seed_int)
    first = frame(x=randn(200), n=2)
    assert first.examples["l_n_"] == 2
    assert first.constant_guards == ["L['n'] == 2"]
    second = frame(x=randn(200), n=3)
    assert isinstance(second.examples["l_n_"], torch.SymInt)
    assert str(second.examples["l_n_"]) == "s0"
    assert second.symbol_inputs == []  # the int itself is the graph input (l_n_)
    assert second.constant_guards == []
    assert second.shape_guards == ["L['n'] >= 0"]
    assert frame(x=randn(200), n=4) is second


def test_a_negative_int_takes_the_other_branch_in_a_third_graph():
    frame = Frame(seed_int)
    for n in (2, 3, -2):
        frame(x=randn(200), n=n)
    third = frame.entries[2]
    assert third.shape_guards == ["L['n'] < 0"]
    assert frame(x=randn(200), n=-7) is third
    assert frame(x=randn(200), n=9) is frame.entries[1]


@pytest.mark.parametrize("n", [0, 1])
def test_ints_0_and_1_are_not_specialized(n):
    frame = Frame(seed_int)
    frame(x=randn(3), n=2)
    entry = frame(x=randn(3), n=n)
    assert isinstance(entry.examples["l_n_"], torch.SymInt)


def test_bools_never_become_symbols():
    policy = ShapePolicy(FrameShapeState(), dynamic=True)
    assert policy.wrap_int(True, LocalSource("flag")) is True


# The `dynamic` log channel.


def test_the_dynamic_log_shows_symbols_and_added_guards(caplog):
    log = logging.getLogger("test_shapes.dynamic")
    with caplog.at_level(logging.DEBUG, logger=log.name):
        frame = Frame(seed_int, log=log)
        frame(x=randn(200), n=2)
        frame(x=randn(200), n=3)
    assert caplog.messages == [
        "create_symbol s0 = 3 for L['n'] [-int_oo, int_oo]",
        "eval s0 >= 0 [guard added] at script.py:5 in fn",
    ]


def test_guards_added_by_fake_ops_are_logged(caplog):
    a, b = randn(4, 3), randn(4, 3)
    mark_dynamic(a, 0)
    mark_dynamic(b, 0)
    log = logging.getLogger("test_shapes.dynamic")
    policy = ShapePolicy(FrameShapeState(), log=log)
    fa = policy.wrap_tensor(a, LocalSource("a"))
    fb = policy.wrap_tensor(b, LocalSource("b"))
    with caplog.at_level(logging.DEBUG, logger=log.name):
        with policy.guards_added_at("script.py:3 in fn"), policy.fake_mode:
            fa * fb
    assert caplog.messages == ["eval Eq(s0, s1) [guard added] at script.py:3 in fn"]


def test_evaluate_passes_plain_values_through():
    policy = ShapePolicy(FrameShapeState())
    assert policy.evaluate(True, "x") is True
    assert policy.evaluate(3, "x") == 3
