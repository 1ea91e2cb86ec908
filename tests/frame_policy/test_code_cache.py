"""Cache entries live with their code object, by identity, and die with it (DESIGN.md):
two functions with equal code keep separate entries and budgets, and thousands of
compiled functions, once dropped, leave no row behind in convert_frame's or resume's
tables."""

from __future__ import annotations

import gc
import weakref

import minidynamo
import pytest
import torch
import torch.fx.graph_module
from minidynamo import convert_frame

SOURCE = """
def fn(x, n):
    return x + n
"""


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def fresh_function(source: str = SOURCE, filename: str = "<fuzz>"):
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["fn"]


def test_functions_with_equal_code_keep_their_own_entries():
    first, second = fresh_function(), fresh_function()
    assert first.__code__ == second.__code__ and first.__code__ is not second.__code__
    x = torch.randn(3)
    minidynamo.compile(first, dynamic=False)(x, 1)
    minidynamo.compile(second, dynamic=False)(x, 2)
    assert len(convert_frame.cache_entries(first.__code__)) == 1
    assert len(convert_frame.cache_entries(second.__code__)) == 1


def test_exec_sources_are_converted():
    fn = fresh_function(filename="<string>")
    x = torch.randn(3)
    assert torch.equal(minidynamo.compile(fn)(x, 1), x + 1)
    assert len(convert_frame.cache_entries(fn.__code__)) == 1


def test_cache_is_most_recently_used_first():
    # Dynamo's order: a new entry goes to the front, and so does the entry a call hits.
    fn = fresh_function()
    compiled = minidynamo.compile(fn, dynamic=False)
    x = torch.randn(3)
    for n in (1, 2, 3):
        compiled(x, n)
    assert guarded_values(fn.__code__) == [3, 2, 1]
    compiled(x, 1)
    assert guarded_values(fn.__code__) == [1, 3, 2]


def guarded_values(code) -> list[int]:
    """The value of `n` each cache entry of `code` is guarded on, in cache order."""
    values = []
    for entry in convert_frame.cache_entries(code):
        (text,) = [g.text for g in entry.check_fn.guards if g.text.startswith("L['n'] == ")]
        values.append(int(text.rsplit(" ", 1)[1]))
    return values


def compile_and_drop(source: str, count: int, *args: object) -> list[weakref.ref]:
    """Compile and call `count` fresh functions made from `source` (each with its own
    code object and globals), drop them, and return weak references to their code."""
    minidynamo.compile(fresh_function(source))(*args)  # torch's own frames met once
    gc.collect()
    before = convert_frame.table_rows()
    codes = []
    for i in range(count):
        fn = fresh_function(source.replace("x + n", f"x + n + {i}"))
        minidynamo.compile(fn)(*args)
        codes.append(weakref.ref(fn.__code__))
        del fn
    gc.collect()
    assert convert_frame.table_rows() == before
    return [ref for ref in codes if ref() is not None]


def test_thousands_of_dropped_frames_leave_no_rows():
    # The trace of `n + ...` records no operation: each frame is skip-marked and kept in
    # our tables (the cheap path; benchmarks/code_cache.py drops 10,000 and reads RSS).
    source = "def fn(x, n):\n    return x + n\n"
    assert compile_and_drop(source.replace("x + n", "n + x"), 2_000, 1, 2) == []


def test_dropped_compiled_functions_leave_no_rows():
    assert compile_and_drop(SOURCE, 100, torch.randn(3), 1) == []


def test_dropped_functions_with_graph_breaks_leave_no_rows():
    source = "def fn(x, n):\n    y = x + n\n    print('break')\n    return y * 2\n"
    assert compile_and_drop(source, 50, torch.randn(3), 1) == []


def test_dropped_graphs_give_back_their_fx_source():
    # FX keeps each generated forward's source for tracebacks; ours is dropped with the
    # graph, else every compiled-and-dropped function would leave its source behind.
    compile_and_drop(SOURCE, 1, torch.randn(3), 1)
    sources = len(torch.fx.graph_module._loader.eval_cache)
    assert compile_and_drop(SOURCE, 50, torch.randn(3), 1) == []
    assert len(torch.fx.graph_module._loader.eval_cache) == sources
