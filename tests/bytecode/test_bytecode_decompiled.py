"""python_source: depyf's decompiled text, or one line saying why there is none."""

from __future__ import annotations

import sys

import depyf
import pytest
from minidynamo.bytecode import python_source

# depyf 0.20 reads the bytecode of CPython 3.10-3.12 only.
DEPYF_READS_THIS_PYTHON = sys.version_info < (3, 13)


def returns_sum(a: int, b: int) -> int:
    total = a + b
    return total


def test_without_depyf_the_text_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "depyf", None)  # makes `import depyf` fail
    assert python_source(returns_sum.__code__) == (
        "# depyf is not installed (pip install 'minidynamo[readable]')\n"
    )


def test_a_decompiler_failure_names_its_kind_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(code: object) -> str:
        raise ValueError("invalid literal for int() with base 10: 'L1'")

    monkeypatch.setattr(depyf, "decompile", fail)
    assert python_source(returns_sum.__code__) == (
        "# depyf cannot decompile this code (ValueError): see the listing\n"
    )


def test_decompiled_source_of_a_plain_function() -> None:
    text = python_source(returns_sum.__code__)
    if DEPYF_READS_THIS_PYTHON:
        assert text == "def returns_sum(a, b):\n    total = a + b\n    return total\n"
    else:
        assert text.startswith("# depyf cannot decompile this code (")
