"""The seed's graph-break example (seed "Graph Breaks", acceptance of issue #4): two
graphs, `a + 2` then `b + a`, with `print("Hi")` run by CPython between them on every
call, and the modified bytecode of `fn` and of its continuation as per-version text."""

from __future__ import annotations

import minidynamo
import torch
from minidynamo import convert_frame, demo
from minidynamo.demo import GRAPH_BREAK_EXAMPLE, Example


def test_graphs_and_break_reason(golden_common) -> None:
    assert demo.run_example(GRAPH_BREAK_EXAMPLE) == golden_common


def test_modified_bytecode(golden_version) -> None:
    example = GRAPH_BREAK_EXAMPLE
    bytecode = Example("print_bytecode", example.filename, ("bytecode",), example.source)
    text = demo.run_example(bytecode)
    assert text.count("MODIFIED BYTECODE") == 2
    assert "MODIFIED BYTECODE resume_in_fn script.py" in text
    assert text == golden_version


def test_modified_bytecode_as_python(golden_version) -> None:
    """The `bytecode_source` channel: depyf's decompiled source of fn and of its
    continuation on 3.10-3.12; on 3.13, which depyf 0.20 cannot read, a line saying so."""
    example = GRAPH_BREAK_EXAMPLE
    source = Example("print_source", example.filename, ("bytecode_source",), example.source)
    text = demo.run_example(source)
    assert text.count("MODIFIED BYTECODE AS PYTHON") == 2
    assert text == golden_version


def fn(a):
    b = a + 2
    print("Hi")
    return b + a


def test_print_runs_between_the_two_graphs_on_every_call(capsys) -> None:
    minidynamo.reset()

    def backend(gm, example_inputs):
        def run(*args):
            print(f"graph {len(gm.graph.nodes) - len(example_inputs) - 1} node(s)")
            return gm.forward(*args)

        return run

    compiled = minidynamo.compile(fn, backend=backend)
    x = torch.randn(4)
    for _ in range(2):
        assert torch.equal(compiled(x), fn(x))
    out = capsys.readouterr().out.split("\n")
    # Per call: graph `a + 2`, Hi, graph `b + a`; then the eager reference's Hi.
    assert out[:8] == ["graph 1 node(s)", "Hi", "graph 1 node(s)", "Hi"] * 2
    assert convert_frame.counters["graph_breaks"] == 1
    assert convert_frame.counters["frames_compiled"] == 2
    minidynamo.reset()
