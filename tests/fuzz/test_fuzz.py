"""The differential fuzzer's bounded, derandomized slice (issue 12): random programs
(programs.py), each run eagerly and compiled, must agree call by call (differential.py).

`SHARDS` test functions of `PROGRAMS_PER_SHARD` programs (2,000 per CPython in tox, about
a minute and a half with `-n 2`), each with its own fixed hypothesis seed, so that `-n 2`
spreads them; benchmarks/fuzz.py runs long campaigns. A failure prints the shrunk program as a
conformance case.
"""

from __future__ import annotations

import copy

import fuzz_differential as differential
import minidynamo
import pytest
from fuzz_programs import Args, Program, programs
from hypothesis import HealthCheck, given, seed, settings

SHARDS = 8
PROGRAMS_PER_SHARD = 250

CALLS = (
    Args(0, 3, 2, 1),
    Args(1, 3, 2, 1),
    Args(2, 3, 2, 2),
    Args(3, 4, 2, 2),
    Args(4, 4, 3, 2),
    Args(5, 4, 3, 2, rebind=True),
)


def _shard(number: int):
    @settings(
        max_examples=PROGRAMS_PER_SHARD,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @seed(number)
    @given(programs())
    def test(program: Program) -> None:
        difference = differential.check(program)
        assert difference is None, difference

    test.__name__ = f"test_fuzz_shard_{number}"
    return test


for _number in range(SHARDS):
    globals()[f"test_fuzz_shard_{_number}"] = _shard(_number)


def test_runner_sees_a_copied_result(monkeypatch):
    # A compiler that returns a copy of the result (the first wrong result):
    # same values, yet `is` the argument no more.
    def copying_compile(fn, **options):
        return lambda *args: copy.copy(fn(*args))

    monkeypatch.setattr(minidynamo, "compile", copying_compile)
    difference = differential.check(Program((("containers", "lst.append(k)"),), "lst", CALLS))
    assert difference is not None and "identity" in difference
    assert "@case(" in difference and "lst.append(k)" in difference


@pytest.mark.parametrize(
    ("code", "returns", "what"),
    [
        ("x.add_(1)", "acc", "args_after"),
        ("G = G + 1", "acc", "globals_after"),
        ('print("n", n)', "acc", "printed"),
    ],
)
def test_runner_sees_a_lost_effect(monkeypatch, code, returns, what):
    # A compiler that runs the function on copies of its arguments and globals loses the
    # mutation, the global store or the printed text.
    def losing_compile(fn, **options):
        def run(*args):
            quiet = copy.copy(fn.__globals__)
            quiet["print"] = lambda *a: None
            lost = type(fn)(fn.__code__, quiet)
            return lost(*copy.deepcopy(args))

        return run

    monkeypatch.setattr(minidynamo, "compile", losing_compile)
    difference = differential.check(Program((("misc", code),), returns, CALLS))
    assert difference is not None and what in difference
