"""The parts of the shapes module: automatic dynamic's memory, the size sources that
symbols are read from (names and bytecode), graph_sizes formatting, view inputs."""

from __future__ import annotations

import types

import pytest
import torch
from minidynamo.codegen import PyCodegen, modified_code
from minidynamo.shapes import (
    FrameShapeState,
    ShapePolicy,
    TensorPropertySource,
    compile_guards,
    format_graph_sizes,
)
from minidynamo.source import GetItemSource, LocalSource


def test_merge_sizes_marks_dims_that_vary():
    state = FrameShapeState()
    assert state.merge_sizes("L['a']", (4, 3)) == (False, False)
    assert state.merge_sizes("L['a']", (4, 3)) == (False, False)
    assert state.merge_sizes("L['a']", (8, 3)) == (True, False)
    assert state.merge_sizes("L['a']", (4, 3)) == (True, False)
    assert state.sizes == {"L['a']": (None, 3)}


def test_merge_sizes_of_another_rank_makes_every_dim_dynamic():
    state = FrameShapeState()
    state.merge_sizes("L['a']", (4, 3))
    assert state.merge_sizes("L['a']", (4, 3, 2)) == (True, True, True)
    assert state.merge_sizes("L['a']", (4,)) == (True,)


def test_merge_strides_ignores_strides_that_follow_from_sizes():
    state = FrameShapeState()
    assert state.merge_strides("L['a']", (3, 4), (4, 1)) == (False, False)
    assert state.merge_strides("L['a']", (3, 8), (8, 1)) == (False, False)  # contiguous
    assert state.merge_strides("L['a']", (4, 3), (1, 4)) == (True, True)  # transposed


def test_merge_int_remembers_that_it_varied():
    state = FrameShapeState()
    assert [state.merge_int("L['n']", n) for n in (2, 2, 3, 2)] == [False, False, True, True]


SOURCES = [
    (TensorPropertySource(LocalSource("a"), "size", 1), "L['a'].size()[1]", 7),
    (TensorPropertySource(LocalSource("a"), "stride", 0), "L['a'].stride()[0]", 7),
    (TensorPropertySource(LocalSource("a"), "storage_offset"), "L['a'].storage_offset()", 0),
    (
        TensorPropertySource(GetItemSource(LocalSource("a"), 0), "size", 0),
        "L['a'][0].size()[0]",
        7,
    ),
]


@pytest.mark.parametrize(("source", "name", "value"), SOURCES)
def test_tensor_property_source_name(source, name, value):
    assert source.name == name


@pytest.mark.parametrize(("source", "name", "value"), SOURCES)
def test_tensor_property_source_reconstruct_loads_the_value(source, name, value):
    def target(a):
        return None

    codegen = PyCodegen(None, graph_output_var="graph_out_0")  # type: ignore[arg-type]
    source.reconstruct(codegen)
    code = modified_code(target.__code__, codegen.instructions + codegen.return_value())
    load = types.FunctionType(code, {})
    assert load(torch.empty(4, 7)) == value


def test_format_graph_sizes_skips_non_tensors_and_static_concrete_lines():
    text = format_graph_sizes("__compiled_fn_0", [("s0", 3), ("l_x_", torch.empty(2, 5))])
    assert text == "TRACED GRAPH TENSOR SIZES\n===== __compiled_fn_0 =====\nl_x_: (2, 5)"


@pytest.mark.parametrize(
    "view",
    [
        torch.randn(10, 3)[2:],
        torch.randn(4, 5).t(),
        torch.randn(4, 5, 6)[:, 1],
    ],
    ids=["slice", "transpose", "select"],
)
def test_view_inputs_get_guards_that_hold_for_them(view):
    policy = ShapePolicy(FrameShapeState(), dynamic=True)
    policy.wrap_tensor(view, LocalSource("a"))
    guards = policy.produce_guards()
    assert compile_guards(guards)({"a": view}, {})
    for symbol in policy.new_symbol_inputs():
        assert symbol.source.name.startswith("L['a'].")
