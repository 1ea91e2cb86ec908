"""Golden snapshots for every test directory (tests/, conformance/), and the conformance
suite's pytest plugin (an installed suite is run with `-p conformance.plugin` instead).

Two syrupy fixtures, one text file per snapshot (reviewed like code):
  golden_common   golden/common/<test module>/<test>.txt: text that must be identical on
                  every CPython (graphs, guards, graph breaks);
  golden_version  golden/py3XX/<test module>/<test>.txt: text that differs per CPython
                  (bytecode).
`pytest --snapshot-update` rewrites them; an unused snapshot fails the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

pytest_plugins = ["conformance.plugin"]

GOLDEN = Path(__file__).parent / "golden"
VERSION_DIR = f"py{sys.version_info.major}{sys.version_info.minor}"


class _GoldenText(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    _file_extension = "txt"
    subdir = ""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(GOLDEN / cls.subdir / test_location.basename)


class CommonGolden(_GoldenText):
    subdir = "common"


class VersionGolden(_GoldenText):
    subdir = VERSION_DIR


@pytest.fixture
def golden_common(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(CommonGolden)


@pytest.fixture
def golden_version(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(VersionGolden)
