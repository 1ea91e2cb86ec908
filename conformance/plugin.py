"""The suite's pytest plugin: `pytest conformance --impl SPEC [--expectations PATH]
[--parity] [--update-expectations]`; in this repository the root conftest.py loads it,
elsewhere `pytest -p conformance.plugin --pyargs conformance.test_conformance ...`.

Adds the options, parametrizes `test_case` over every registered case (a case outside
its CPython range is a visible skip), provides the `suite` of the implementation under
test, and registers the `Reporter` (conformance/report.py) for the end of the run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import expectations
from conformance.adapters import is_builtin, load
from conformance.cases import load_all
from conformance.report import Reporter
from conformance.suite import Suite


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance")
    group.addoption(
        "--impl",
        default="minidynamo",
        help="implementation under test: package.module:factory, an entry point of "
        "minidynamo.conformance_adapters, or an adapter of conformance/adapters/ "
        "(default minidynamo)",
    )
    group.addoption(
        "--expectations",
        default=None,
        help="the implementation's expectation file (default: conformance/expectations/"
        "<impl>.toml for the adapters of this package, none for others)",
    )
    group.addoption(
        "--parity",
        action="store_true",
        help="also run real Dynamo on each case and compare the graphs' structures",
    )
    group.addoption(
        "--results",
        default=None,
        metavar="PATH",
        help="write every case's checks as JSON to PATH (for `python -m conformance.report`)",
    )
    group.addoption(
        "--update-expectations",
        action="store_true",
        help="rewrite the expectation file (see --expectations) from this run's differences",
    )


def expectation_file(config: pytest.Config) -> Path | None:
    """Where the implementation's known differences are read from and rewritten to."""
    given = config.getoption("expectations")
    if given is not None:
        return Path(given)
    impl = config.getoption("impl")
    return expectations.path_for(impl) if is_builtin(impl) else None


def pytest_configure(config: pytest.Config) -> None:
    path = expectation_file(config)
    if config.getoption("update_expectations") and path is None:
        raise pytest.UsageError("--update-expectations needs --expectations PATH for this --impl")
    config.pluginmanager.register(Reporter(config, path), "conformance-reporter")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case_id" not in metafunc.fixturenames:
        return
    params = []
    for case_id, case in load_all().items():
        marks = []
        if not case.runs_on():
            low, high = case.python
            marks.append(pytest.mark.skip(reason=f"the case runs on CPython {low} to {high}"))
        params.append(pytest.param(case_id, id=case_id, marks=marks))
    metafunc.parametrize("case_id", params)


@pytest.fixture(scope="session")
def suite(pytestconfig: pytest.Config) -> Suite:
    impl = pytestconfig.getoption("impl")
    wants_oracle = pytestconfig.getoption("parity") and impl != "torch_dynamo"
    reporter = pytestconfig.pluginmanager.get_plugin("conformance-reporter")
    known = expectations.load_file(reporter.expectation_file)
    return Suite(load(impl), load("torch_dynamo") if wants_oracle else None, known)
