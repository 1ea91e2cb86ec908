"""Differential tests of programs that compute with sizes and ints in Python code (issue
#5): each runs eagerly and compiled over the sizes 4, 8, 5, 9, with our compile count
checked against the seed's policy and real Dynamo's (the oracle) against ours."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import convert_frame
from shape_programs import SHAPE_CASES, ShapeCase

SIZES = (4, 8, 5, 9)


@pytest.fixture(autouse=True)
def fresh_cache():
    minidynamo.reset()
    yield
    minidynamo.reset()


def same(a: object, b: object) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b)
    if isinstance(a, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


def check_against_eager(case: ShapeCase, compiled) -> None:
    for n in SIZES:
        torch.manual_seed(n)
        args = case.make_args(n)
        assert same(compiled(*args), case.fn(*args)), f"{case.name} differs at size {n}"
    assert convert_frame.counters["frames_failed"] == 0


def test_at_least_sixty_programs() -> None:
    assert len(SHAPE_CASES) >= 60
    assert len({case.name for case in SHAPE_CASES}) == len(SHAPE_CASES)


def frames_converted() -> int:
    """Frames compiled, and frames left to CPython because they record no operation:
    what Dynamo counts as frames "ok"."""
    return convert_frame.counters["frames_compiled"] + convert_frame.counters["frames_empty"]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda case: case.name)
def test_shape_program_matches_eager(case: ShapeCase) -> None:
    check_against_eager(case, minidynamo.compile(case.fn))
    assert frames_converted() == case.compiles


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda case: case.name)
def test_shape_program_matches_eager_with_dynamic_true(case: ShapeCase) -> None:
    check_against_eager(case, minidynamo.compile(case.fn, dynamic=True))


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda case: case.name)
def test_shape_program_compile_count_of_real_dynamo(case: ShapeCase) -> None:
    """Real torch.compile's frame compiles over the same sizes: ours, or the documented
    difference (`ShapeCase.dynamo`)."""
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(case.fn, backend="eager")
    for n in SIZES:
        torch.manual_seed(n)
        compiled(*case.make_args(n))
    assert counters["frames"]["ok"] == case.dynamo_compiles
    torch._dynamo.reset()
