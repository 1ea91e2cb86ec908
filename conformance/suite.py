"""One implementation's run of the suite: every case through its adapter, judged.

`Suite.run` makes the eager run and the compiled run of a case, computes its checks and
applies the implementation's expectation file (listed differences become "known").
"""

from __future__ import annotations

import dataclasses
import json

from conformance import expectations
from conformance.adapters import Adapter
from conformance.checks import (
    DIFFERS,
    KNOWN,
    PASSED,
    STALE,
    CheckResult,
    CompiledRun,
    check_observations,
    check_outcome,
    check_parity,
    run_compiled,
)
from conformance.observations import Observations
from conformance.runner import run_calls
from conformance.spec import Case

PROPERTY = "conformance"  # the user_properties key of a test report's case results


@dataclasses.dataclass
class CaseReport:
    """A case's checks for one implementation, after its expectation file is applied."""

    case: Case
    run: CompiledRun
    results: list[CheckResult]

    @property
    def compiled(self) -> bool:
        """Whether the compiled run was made (the adapter did not fail)."""
        return bool(self.run.records)

    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.failed]

    def payload(self) -> str:
        """The results as JSON, for the test report (read back by `report.Reporter`)."""
        checks = [[r.check, r.status, r.detail] for r in self.results]
        return json.dumps({"case": self.case.id, "tags": list(self.case.tags), "checks": checks})


class Suite:
    """The implementation under test, optionally real Dynamo for parity, and known diffs."""

    def __init__(
        self,
        adapter: Adapter,
        oracle: Adapter | None = None,
        known: expectations.Expectations | None = None,
    ) -> None:
        self.adapter = adapter
        self.oracle = oracle
        self.known = expectations.load(adapter.name) if known is None else known

    def run(self, case: Case) -> CaseReport:
        eager = run_calls(case, case.target())
        try:
            compiled = run_compiled(case, self.adapter)
        except Exception as error:  # the adapter itself failed: the case cannot pass
            detail = f"the compiled run could not be made: {error!r}"
            results = [self.judge(case.id, CheckResult("eager", DIFFERS, detail))]
            return CaseReport(case, CompiledRun([], Observations()), results)
        results = [check_outcome(case, eager, compiled, self.adapter)]
        results += check_observations(case, compiled.observations)
        if self.oracle is not None:
            oracle_run = run_compiled(case, self.oracle)
            results.append(check_parity(compiled.observations, oracle_run.observations))
        return CaseReport(case, compiled, [self.judge(case.id, r) for r in results])

    def judge(self, case_id: str, result: CheckResult) -> CheckResult:
        """Apply the expectation file to one raw (passed / differs / n/a) result."""
        reason = expectations.reason_for(self.known.get(case_id, {}), result.check)
        if reason is None:
            return result
        if result.status == DIFFERS:
            return CheckResult(result.check, KNOWN, f"{result.detail}\nknown: {reason}")
        if result.status == PASSED:
            detail = f"listed as a known difference ({reason}) but passes"
            return CheckResult(result.check, STALE, detail)
        return result
