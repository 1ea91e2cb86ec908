"""Every conformance case as one test: `pytest conformance --impl NAME`.

A case passes when each of its checks passes, is not available for the implementation,
or is a known difference listed in conformance/expectations/<impl>.toml. Adapters that
report our own text formats (minidynamo) also compare golden snapshots.
"""

from __future__ import annotations

import pytest

from conformance.checks import DIFFERS, PASSED, CheckResult
from conformance.observations import Observations
from conformance.spec import REGISTRY
from conformance.suite import PROPERTY, Suite


def test_case(case_id: str, suite: Suite, request: pytest.FixtureRequest) -> None:
    report = suite.run(REGISTRY[case_id])
    if suite.adapter.golden and report.compiled:
        golden = golden_check(report.run.observations, request)
        report.results.append(suite.judge(case_id, golden))
    request.node.user_properties.append((PROPERTY, report.payload()))
    failures = report.failures()
    assert not failures, "\n\n".join(f"[{r.check}: {r.status}]\n{r.detail}" for r in failures)


def golden_check(obs: Observations, request: pytest.FixtureRequest) -> CheckResult:
    """Observations in our text formats equal golden/common/ and golden/py3XX/ snapshots."""
    bytecode = "\n".join(obs.bytecode) if isinstance(obs.bytecode, list) else str(obs.bytecode)
    same_text = request.getfixturevalue("golden_common") == obs.text()
    same_bytecode = request.getfixturevalue("golden_version") == bytecode
    if same_text and same_bytecode:
        return CheckResult("golden", PASSED)
    which = [
        name for name, same in (("common", same_text), ("bytecode", same_bytecode)) if not same
    ]
    return CheckResult(
        "golden",
        DIFFERS,
        f"golden {' and '.join(which)} snapshot differs: review with "
        "`pytest conformance --snapshot-update` and `git diff golden/`",
    )
