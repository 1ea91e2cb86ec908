"""The suite's pytest plugin: `pytest conformance --impl NAME [--parity] [--update-expectations]`.

Adds the options, parametrizes `test_case` over every registered case (a case outside
its CPython range is a visible skip), provides the `suite` of the implementation under
test, and registers the `Reporter` (conformance/report.py) for the end of the run.
"""

from __future__ import annotations

import pytest

from conformance.adapters import load
from conformance.cases import load_all
from conformance.report import Reporter
from conformance.suite import Suite


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance")
    group.addoption(
        "--impl",
        default="minidynamo",
        help="implementation under test: an adapter of conformance/adapters/ (default minidynamo)",
    )
    group.addoption(
        "--parity",
        action="store_true",
        help="also run real Dynamo on each case and compare the graphs' structures",
    )
    group.addoption(
        "--update-expectations",
        action="store_true",
        help="rewrite conformance/expectations/<impl>.toml from this run's differences",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(Reporter(config), "conformance-reporter")


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
    return Suite(load(impl), load("torch_dynamo") if wants_oracle else None)
