"""The end of a run: results gathered from every test report, the summary per feature tag,
the rewrite of the implementation's expectation file (`--update-expectations`), and the
results as JSON (`--results PATH`).

Registered as a pytest plugin by conformance/plugin.py; under xdist only the controller
sees every case (the workers' results arrive in the reports' user_properties).

`python -m conformance.report --html OUT RESULTS...` writes one page with the per-tag
table of every implementation side by side, from the JSON of their runs.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path

import pytest

from conformance import expectations
from conformance.cases import load_all
from conformance.checks import CHECKS, DIFFERS, KNOWN, NOT_AVAILABLE, PASSED, STALE
from conformance.suite import PROPERTY

PYTHON = ".".join(map(str, sys.version_info[:3]))


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
        if hasattr(self.config, "workerinput"):
            return
        if results_path := self.config.getoption("results"):
            run = {"impl": self.impl, "python": PYTHON, "cases": self.results}
            Path(results_path).write_text(json.dumps(run, indent=1), encoding="utf-8")
        if not self.config.getoption("update_expectations"):
            return
        # A check not made in this run (n/a: `--parity` not given) keeps its entries.
        results = {
            case_id: {
                check: (status in (DIFFERS, KNOWN), detail)
                for check, status, detail in payload["checks"]
                if status != NOT_AVAILABLE
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
        terminalreporter.section(f"conformance: {self.impl} on CPython {PYTHON}")
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


def tag_counts(results: dict[str, dict]) -> dict[str, list[int]]:
    """Per feature tag (and "all"): cases, passed, known differences, failed, n/a checks."""
    by_tag: dict[str, list[int]] = {}
    for payload in results.values():
        statuses = [status for _, status, _ in payload["checks"]]
        failed = any(s in (DIFFERS, STALE) for s in statuses)
        row = [1, 0, 0, 0, statuses.count(NOT_AVAILABLE)]
        row[3 if failed else 2 if KNOWN in statuses else 1] = 1
        for tag in [*payload["tags"], "all"]:
            by_tag[tag] = [a + b for a, b in zip(by_tag.get(tag, [0] * 5), row, strict=True)]
    return by_tag


def summary_tables(results: dict[str, dict]) -> list[str]:
    """Cases per feature tag (passed / known differences / failed) and checks per kind."""
    by_tag = tag_counts(results)
    by_check = {check: [0, 0, 0, 0] for check in CHECKS}
    for payload in results.values():
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


def html_page(runs: list[dict]) -> str:
    """One table: a row per feature tag, per implementation its cases passed, known
    differences, failed, and checks it could not report (n/a: such a case passes on its
    other checks alone)."""
    counts = [tag_counts(run["cases"]) for run in runs]
    tags = sorted({tag for by_tag in counts for tag in by_tag if tag != "all"}) + ["all"]
    head = "".join(
        f'<th colspan="4">{html.escape(run["impl"])}<br><small>CPython {run["python"]}'
        "</small></th>"
        for run in runs
    )
    sub = "<th>passed</th><th>known</th><th>failed</th><th>n/a</th>" * len(runs)
    rows = []
    for tag in tags:
        cells = ""
        for by_tag in counts:
            cases, passed, known, failed, na = by_tag.get(tag, [0] * 5)
            style = ' class="failed"' if failed else ""
            cells += f"<td>{passed}/{cases}</td><td>{known}</td><td{style}>{failed}</td>"
            cells += f"<td>{na}</td>"
        rows.append(f"<tr><th>{html.escape(tag)}</th>{cells}</tr>")
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Conformance</title>"
        "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 8px}"
        "td{text-align:right}.failed{background:#f99}</style></head><body>"
        "<h1>Conformance by feature tag</h1>"
        f"<table><tr><th rowspan=\"2\">feature tag</th>{head}</tr><tr>{sub}</tr>"
        + "".join(rows)
        + "</table></body></html>\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m conformance.report")
    parser.add_argument("--html", required=True, metavar="OUT", help="the page to write")
    parser.add_argument("results", nargs="+", help="JSON files written by pytest --results")
    args = parser.parse_args(argv)
    runs = [json.loads(Path(path).read_text(encoding="utf-8")) for path in args.results]
    Path(args.html).write_text(html_page(runs), encoding="utf-8")


if __name__ == "__main__":
    main()
