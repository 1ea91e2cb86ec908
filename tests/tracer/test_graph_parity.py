"""Graph parity: for each program that compiles, the FX graphs (op, target, argument
structure) equal those real `torch.compile(backend=...)` captures, unless the case
documents why they differ (`parity=`)."""

from __future__ import annotations

import minidynamo
import object_programs  # noqa: F401  (registers its programs in CASES)
import pytest
from tracer_harness import (
    Case,
    RecordingBackend,
    normalized_graph,
    real_dynamo_graphs,
    run_compiled,
)
from tracer_programs import CASES


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.fallback is None and c.parity is None],
    ids=lambda case: case.name,
)
def test_graphs_match_real_dynamo(case: Case) -> None:
    minidynamo.reset()
    ours = RecordingBackend()
    run_compiled(case, ours)
    theirs, _ = real_dynamo_graphs(case)
    assert [normalized_graph(gm) for gm in ours.graphs] == [normalized_graph(gm) for gm in theirs]
