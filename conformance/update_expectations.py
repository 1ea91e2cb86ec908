"""`python -m conformance.update_expectations --impl NAME [pytest args]`.

Runs the suite for one implementation with `--update-expectations`: its expectation file
then lists exactly the differences of this run (reasons kept; new ones marked TODO).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.update_expectations")
    parser.add_argument("--impl", required=True, help="adapter name, e.g. torch_dynamo")
    args, pytest_args = parser.parse_known_args(argv)
    suite_dir = str(Path(__file__).parent)
    return pytest.main(
        [suite_dir, "--impl", args.impl, "--update-expectations", "-q", *pytest_args]
    )


if __name__ == "__main__":
    sys.exit(main())
