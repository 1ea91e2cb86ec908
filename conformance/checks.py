"""The checks of one case, in the order of issue #6, and their outcome for one implementation.

First the compiled run must behave as eager execution ("eager"); then each observation the
case states is compared ("frames", "graphs", "ops", "guards", "breaks", "recompiles"),
plus "parity" (graph structures equal real Dynamo's) and "golden" (our snapshot texts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from conformance.adapters import Adapter
from conformance.observations import NotAvailable, Observations, canonical
from conformance.runner import CallRecord, compare_runs, run_calls
from conformance.spec import Case

PASSED = "passed"
DIFFERS = "differs"
KNOWN = "known"  # differs, and the implementation's expectation file says why
STALE = "stale"  # listed in the expectation file, yet passed
NOT_AVAILABLE = "n/a"

CHECKS = ("eager", "frames", "graphs", "ops", "guards", "breaks", "recompiles", "parity", "golden")


class CaseError(Exception):
    """The case itself is wrong (e.g. eager raises but the case expects a return)."""


@dataclasses.dataclass
class CheckResult:
    check: str
    status: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status in (DIFFERS, STALE)


@dataclasses.dataclass
class CompiledRun:
    """The compiled run of a case: what the calls did and what the adapter observed."""

    records: list[CallRecord]
    observations: Observations


def run_compiled(case: Case, adapter: Adapter) -> CompiledRun:
    adapter.reset()
    with adapter.configured(case.config):
        compiled = adapter.compile(case.target(), **case.options)
        records = run_calls(case, compiled, adapter)
    return CompiledRun(records, adapter.observations())


def check_outcome(
    case: Case, eager: list[CallRecord], run: CompiledRun, adapter: Adapter
) -> CheckResult:
    """Check 1: results, output, mutations and exceptions equal eager execution's."""
    raised = [r.error for r in eager if r.error is not None]
    outcome = case.expect.outcome
    if outcome != "raises" and raised:
        raise CaseError(f"eager execution raised {raised[0]}; declare outcome='raises'")
    if outcome == "raises" and not raised:
        raise CaseError("the case expects an exception, but eager execution raised none")
    if outcome == "compile-error":
        return _check_compile_error(eager, run, adapter)
    problems = compare_runs(eager, run.records)
    return CheckResult("eager", DIFFERS if problems else PASSED, "\n".join(problems))


def _check_compile_error(
    eager: list[CallRecord], run: CompiledRun, adapter: Adapter
) -> CheckResult:
    """The first call of the compiled run that raises raises a compile error (usually the
    first call: a fullgraph break; a later one: the recompile limit hit under fullgraph),
    and the calls before it did what eager did."""
    failing = next((i for i, r in enumerate(run.records) if r.raw_error is not None), None)
    if failing is None:
        return CheckResult("eager", DIFFERS, "expected a compile error, no call raised one")
    error = run.records[failing].raw_error
    if not adapter.is_compile_error(error):
        return CheckResult("eager", DIFFERS, f"expected a compile error, got {error!r}")
    problems = compare_runs(eager[:failing], run.records[:failing])
    return CheckResult("eager", DIFFERS if problems else PASSED, "\n".join(problems))


def check_observations(case: Case, obs: Observations) -> list[CheckResult]:
    """Check 2: each observation the case states, unless the adapter cannot report it."""
    expect = case.expect
    graphs = obs.graphs
    stated: list[tuple[str, Any, Any, Callable[[Any, Any], bool]]] = [
        ("frames", expect.frames, obs.frames, _equal),
        ("graphs", expect.graphs, _map(graphs, len), _equal),
        ("ops", expect.ops, _map(graphs, lambda gs: [g.ops for g in gs]), _equal),
        ("guards", expect.guards, obs.guards, _guards_included),
        ("breaks", expect.breaks, obs.breaks, _equal),
        ("recompiles", expect.recompiles, obs.recompiles, _equal),
    ]
    results = []
    for name, expected, observed, matches in stated:
        if expected is None:
            continue
        if isinstance(observed, NotAvailable):
            results.append(CheckResult(name, NOT_AVAILABLE))
        elif matches(expected, observed):
            results.append(CheckResult(name, PASSED))
        else:
            detail = f"expected {_show(expected)}\nobserved {_show(observed)}"
            results.append(CheckResult(name, DIFFERS, detail))
    return results


def check_parity(obs: Observations, oracle: Observations) -> CheckResult:
    """Structural parity: the same graphs as real Dynamo, node for node (placeholders in
    the order of their first use: observations.canonical)."""
    if isinstance(obs.graphs, NotAvailable) or isinstance(oracle.graphs, NotAvailable):
        return CheckResult("parity", NOT_AVAILABLE)
    ours = [canonical(g.structure) for g in obs.graphs]
    theirs = [canonical(g.structure) for g in oracle.graphs]
    if ours == theirs:
        return CheckResult("parity", PASSED)
    return CheckResult("parity", DIFFERS, f"ours {_show(ours)}\nreal Dynamo {_show(theirs)}")


def _map(value: Any, fn: Callable[[Any], Any]) -> Any:
    return value if isinstance(value, NotAvailable) else fn(value)


def _equal(expected: Any, observed: Any) -> bool:
    return bool(expected == observed)


def _guards_included(expected: list[list[str]], observed: list[list[str]]) -> bool:
    if len(observed) < len(expected):
        return False
    return all(set(want) <= set(have) for want, have in zip(expected, observed, strict=False))


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value) if not isinstance(value, tuple) else repr(value)
