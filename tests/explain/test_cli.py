"""`python -m minidynamo explain script.py [args]`: the script runs as __main__ with its
arguments, and the report of what it compiled follows its own output."""

from __future__ import annotations

import textwrap
from pathlib import Path

import minidynamo
import pytest
from minidynamo.__main__ import main

SCRIPT = textwrap.dedent(
    """\
    import sys
    import torch
    import minidynamo

    @minidynamo.compile
    def fn(a):
        b = a + 2
        print("Hi", sys.argv[1:])
        return b + a

    fn(torch.randn(4))
    """
)


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()
    minidynamo.set_logs()


def test_explain_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    assert main(["explain", "--logs", "graph_breaks", str(script), "x", "--flag"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Hi ['x', '--flag']\nGraph Count: 2\nGraph Break Count: 1\n")
    assert "Reason: call to builtin print() [GB0002]" in out
    assert "Graph break in user code at script.py:8" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["explain"])
    assert exit_info.value.code == 2
    assert "the following arguments are required: script" in capsys.readouterr().err
