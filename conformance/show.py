"""`python -m conformance.show PATTERN [--impl NAME]`: what an implementation observes.

Runs each case whose id contains PATTERN through the adapter and prints its checks and
its observations in the golden text format: the tool for writing a case's `Expect`.
`python -m conformance.show --diff [REV]` prints the changed golden snapshots instead,
each with its case's source, old and new text side by side (golden_diff.py).
"""

from __future__ import annotations

import argparse

from conformance import golden_diff
from conformance.adapters import load
from conformance.cases import load_all
from conformance.checks import CaseError
from conformance.suite import Suite


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m conformance.show", description=__doc__)
    parser.add_argument("pattern", nargs="?", help="a substring of case ids, e.g. seed000.intro")
    parser.add_argument("--impl", default="torch_dynamo")
    parser.add_argument(
        "--diff",
        nargs="?",
        const="HEAD",
        metavar="REV",
        help="show the golden snapshots changed since REV (default HEAD), side by side",
    )
    args = parser.parse_args(argv)
    if args.diff is not None:
        golden_diff.main(args.diff)
        return
    if args.pattern is None:
        parser.error("give a PATTERN of case ids, or --diff")
    suite = Suite(load(args.impl))
    for case_id, case in load_all().items():
        if args.pattern not in case_id or not case.runs_on():
            continue
        print(f"=== {case_id} ({args.impl})")
        try:
            report = suite.run(case)
        except CaseError as error:
            print(f"case error: {error}")
            continue
        for result in report.results:
            print(f"[{result.check}: {result.status}] {result.detail}".rstrip())
        print(report.run.observations.text())


if __name__ == "__main__":
    main()
