"""The tested torch range: one place (versions.py), the same range as pyproject.toml, and
one clear warning outside it."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from minidynamo import versions


@pytest.mark.parametrize(
    ("version", "tested"),
    [
        ("2.14.1", True),
        ("2.14.1+cpu", True),
        ("2.15.0", True),
        ("2.15.2+cu130", True),
        ("2.14.0", False),
        ("2.16.0", False),
        ("2.16.0.dev20261201+cpu", False),
        ("nightly", False),
    ],
)
def test_tested_range(version: str, tested: bool) -> None:
    assert versions.is_tested_torch(version) is tested


def test_installed_torch_is_tested() -> None:
    assert versions.is_tested_torch(torch.__version__)


def test_warning_names_the_range() -> None:
    with pytest.warns(RuntimeWarning, match=r"tested with torch >=2\.14\.1,<2\.16\.0; torch 2\.16"):
        versions.warn_if_untested("2.16.0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        versions.warn_if_untested("2.15.0")


def test_pyproject_requires_the_same_range() -> None:
    text = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert f'dependencies = [\n    "torch{versions.tested_range_text()}",\n' in text
