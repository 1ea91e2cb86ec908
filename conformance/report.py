"""The end of a run: results gathered from every test report, the summary per feature tag,
and the rewrite of the implementation's expectation file (`--update-expectations`).

Registered as a pytest plugin by conformance/plugin.py; under xdist only the controller
sees every case (the workers' results arrive in the reports' user_properties).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conformance import expectations
from conformance.cases import load_all
from conformance.checks import CHECKS, DIFFERS, KNOWN, NOT_AVAILABLE, PASSED, STALE
from conformance.suite import PROPERTY


class Reporter:
    """Gathers the case results (on the xdist controller) and reports them at the end."""

    def __init__(self, config: pytest.Config, expectation_file: Path | None) -> None:
        self.config = config
        self.impl: str = config.getoption("impl")
        self.expectation_file = expectation_file
        self.results: dict[str, dict] = {}
        self.not_run: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "setup" and report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            self.not_run.append(crash.message if crash else report.longreprtext)
        for name, value in report.user_properties:
            if name == PROPERTY and report.when == "call":
                payload = json.loads(value)
                self.results[payload["case"]] = payload

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput") or not self.config.getoption("update_expectations"):
            return
        results = {
            case_id: {
                check: (status in (DIFFERS, KNOWN), detail)
                for check, status, detail in payload["checks"]
            }
            for case_id, payload in self.results.items()
        }
        known = expectations.load_file(self.expectation_file)
        known = expectations.updated(known, results, set(load_all()))
        text = expectations.render(self.impl, known)
        assert self.expectation_file is not None  # pytest_configure checked it
        self.expectation_file.write_text(text, encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.results and not self.not_run:
            return
        write = terminalreporter.write_line
        version = ".".join(map(str, sys.version_info[:3]))
        terminalreporter.section(f"conformance: {self.impl} on CPython {version}")
        if self.not_run:
            write(f"{len(self.not_run)} cases could not run: {self.not_run[0]}")
        if self.results:
            for line in summary_tables(self.results):
                write(line)
        differing = [
            case_id
            for case_id, payload in sorted(self.results.items())
            if any(c == "parity" and s in (DIFFERS, KNOWN) for c, s, _ in payload["checks"])
        ]
        if differing:
            write(f"graphs differ from real Dynamo's in {len(differing)} cases (--parity):")
            for case_id in differing:
                write(f"  {case_id}")
        todo = expectations.unexplained(expectations.load_file(self.expectation_file))
        if todo:
            write(f"{todo} known differences have no reason yet ({expectations.TODO!r})")
        if self.config.getoption("update_expectations"):
            write(f"rewrote {self.expectation_file}")


def summary_tables(results: dict[str, dict]) -> list[str]:
    """Cases per feature tag (passed / known differences / failed) and checks per kind."""
    by_tag: dict[str, list[int]] = {}
    by_check = {check: [0, 0, 0, 0] for check in CHECKS}
    for payload in results.values():
        statuses = [status for _, status, _ in payload["checks"]]
        failed = any(s in (DIFFERS, STALE) for s in statuses)
        row = [1, 0, 0, 0, statuses.count(NOT_AVAILABLE)]
        row[3 if failed else 2 if KNOWN in statuses else 1] = 1
        for tag in [*payload["tags"], "all"]:
            by_tag[tag] = [a + b for a, b in zip(by_tag.get(tag, [0] * 5), row, strict=True)]
        for check, status, _ in payload["checks"]:
            column = {PASSED: 0, KNOWN: 1, DIFFERS: 2, STALE: 2, NOT_AVAILABLE: 3}[status]
            by_check[check][column] += 1
    lines = [f"{'feature tag':<16}{'cases':>7}{'passed':>8}{'known':>7}{'failed':>8}{'n/a':>6}"]
    for tag in [*sorted(t for t in by_tag if t != "all"), "all"]:
        cases, passed, known, failed, na = by_tag[tag]
        lines.append(f"{tag:<16}{cases:>7}{passed:>8}{known:>7}{failed:>8}{na:>6}")
    lines += ["", f"{'check':<16}{'passed':>7}{'known':>8}{'failed':>7}{'n/a':>8}"]
    for check, (passed, known, failed, na) in by_check.items():
        if passed + known + failed + na:
            lines.append(f"{check:<16}{passed:>7}{known:>8}{failed:>7}{na:>8}")
    return lines
