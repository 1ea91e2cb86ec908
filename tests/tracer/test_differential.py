"""Every program of tracer_programs.py gives the same result compiled as eager: return
value, mutated arguments and raised exception; and it compiles (or, where marked, runs
eagerly, or graph-breaks). A second call with equal inputs hits the cache."""

from __future__ import annotations

import minidynamo
import object_programs  # noqa: F401  (registers its programs in CASES)
import pytest
from minidynamo import convert_frame
from tracer_harness import (
    Case,
    RecordingBackend,
    check_same_outcome,
    compile_count,
    frames_converted,
    fresh_args,
    run,
    run_compiled,
    run_eager,
)
from tracer_programs import CASES


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_compiled_matches_eager(case: Case) -> None:
    eager = run_eager(case)
    compiled = run_compiled(case, RecordingBackend())
    check_same_outcome(case, eager, compiled)
    failed = convert_frame.counters["frames_failed"]
    breaks = convert_frame.counters["graph_breaks"]
    if case.fallback is None:
        assert failed == 0 and frames_converted() >= 1, "expected the frame to compile"
        assert (breaks > 0) == (case.breaks is not None), f"graph breaks: {breaks}"
    else:
        assert failed >= 1, f"expected an eager fallback: {case.fallback}"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.fallback is None], ids=lambda case: case.name
)
def test_second_call_hits_the_cache(case: Case) -> None:
    backend = RecordingBackend()
    compiled = minidynamo.compile(case.fn, backend=backend)
    run(compiled, fresh_args(case))
    compiles = compile_count()
    run(compiled, fresh_args(case))
    assert compile_count() == compiles
