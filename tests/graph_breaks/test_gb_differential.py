"""Every graph-break program gives the same result, printed output and mutated
arguments compiled as eager; it breaks (or, where marked, runs eagerly); and it
captures as many graphs as real `torch.compile` does (the oracle)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable

import minidynamo
import pytest
import torch
from gb_programs import CASES
from minidynamo import convert_frame
from tracer_harness import (
    Case,
    RecordingBackend,
    check_same_outcome,
    real_dynamo_graphs,
    run_compiled,
    run_eager,
)


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def printed(run: Callable) -> tuple:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        outcome = run()
    return outcome, out.getvalue()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_compiled_matches_eager(case: Case) -> None:
    eager, eager_out = printed(lambda: run_eager(case))
    eager_grad_mode = torch.is_grad_enabled()
    compiled, compiled_out = printed(lambda: run_compiled(case, RecordingBackend()))
    check_same_outcome(case, eager, compiled)
    assert compiled_out == eager_out
    assert torch.is_grad_enabled() == eager_grad_mode, "the grad mode after the call differs"
    if case.fallback is None:
        assert convert_frame.counters["graph_breaks"] >= 1
        assert convert_frame.counters["frames_failed"] == 0
    else:
        assert convert_frame.counters["frames_failed"] >= 1


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_graph_count_matches_real_dynamo(case: Case) -> None:
    ours = RecordingBackend()
    with contextlib.redirect_stdout(io.StringIO()):
        # Real Dynamo's first run of a case in a process that already ran ours sometimes
        # captured one graph instead of two (3.10-3.12, under xdist; not yet understood):
        # the oracle's answer is taken from its second, settled run.
        real_dynamo_graphs(case)
        theirs, _ = real_dynamo_graphs(case)
        run_compiled(case, ours)
    if case.parity is None:
        assert len(ours.graphs) == len(theirs)
