"""Adapters from outside this repository: `--impl package.module:factory`, entry points of
`minidynamo.conformance_adapters`, `--expectations PATH`, and the installed suite run
from a fresh directory (conformance/README.md, "Writing an adapter")."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance.adapters import AdapterUnavailable, is_builtin, load

ADAPTER_MODULE = textwrap.dedent(
    """\
    from conformance.adapters.eager_example import EagerExampleAdapter

    class OutsideAdapter(EagerExampleAdapter):
        name = "outside"

    def make():
        return OutsideAdapter()

    def not_an_adapter():
        return object()
    """
)


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with an adapter module and an installed distribution naming it as an
    entry point, on sys.path."""
    (tmp_path / "outside_impl.py").write_text(ADAPTER_MODULE)
    dist_info = tmp_path / "outside_impl-0.1.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-impl\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text(
        "[minidynamo.conformance_adapters]\noutside = outside_impl:make\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_factory_spec(outside: Path) -> None:
    assert load("outside_impl:make").name == "outside"
    assert not is_builtin("outside_impl:make")


def test_entry_point(outside: Path) -> None:
    assert load("outside").name == "outside"
    assert not is_builtin("outside")


def test_builtin_names() -> None:
    assert load("eager_example").name == "eager_example"
    assert is_builtin("eager_example")


def test_bad_specs_name_the_cause(outside: Path) -> None:
    with pytest.raises(AdapterUnavailable, match=r"no adapter named 'nope'.*\(outside\)"):
        load("nope")
    with pytest.raises(AdapterUnavailable, match="has no callable 'missing'"):
        load("outside_impl:missing")
    with pytest.raises(AdapterUnavailable, match="returned a object, not an Adapter"):
        load("outside_impl:not_an_adapter")


def test_installed_suite_runs_an_outside_adapter(outside: Path) -> None:
    """From a directory that is not this repository, as another project would run it."""
    work = outside / "work"
    work.mkdir()
    listed = work / "outside.toml"
    listed.write_text(
        '["graph_breaks.fullgraph_turns_break_into_error"]\neager = "compiles nothing"\n'
    )
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "conformance.plugin",
        "-q", "--pyargs", "conformance.test_conformance", "--impl", "outside_impl:make",
        "--expectations", str(listed), "-k", "seed000 or fullgraph_turns_break_into_error",
    ]  # fmt: skip
    paths = [str(outside), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    result = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "conformance: outside_impl:make on CPython" in result.stdout
    assert " passed" in result.stdout.splitlines()[-1]
