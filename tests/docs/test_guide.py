"""The guide's examples (docs/guide.md) run, and print what the guide shows.

An example is a ```python block whose info line reads ``example: FILE logs=CHANNELS``
(optionally ``python=3.X``: the text shown is that CPython's); the ```text block after it
is what the channels print. The example runs as demo.run_example runs the seed's.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from minidynamo import demo

GUIDE = Path(__file__).parents[2] / "docs" / "guide.md"
_EXAMPLE = re.compile(
    r"```python example: (?P<file>\S+) logs=(?P<logs>\S+)(?: python=(?P<python>\S+))?\n"
    r"(?P<source>.*?)```\n\n```text\n(?P<text>.*?)```",
    re.DOTALL,
)


def guide_examples() -> list[tuple[str, re.Match]]:
    matches = list(_EXAMPLE.finditer(GUIDE.read_text()))
    return [(f"{i}-{m['file']}-{m['logs']}", m) for i, m in enumerate(matches)]


def test_guide_has_examples() -> None:
    # One per example block: a block the pattern misses would go unchecked.
    assert len(guide_examples()) == GUIDE.read_text().count("```python example:") >= 12


@pytest.mark.parametrize(
    "match", [m for _, m in guide_examples()], ids=[i for i, _ in guide_examples()]
)
def test_guide_example(match: re.Match) -> None:
    example = demo.Example(
        f"guide_{match.start()}", match["file"], tuple(match["logs"].split(",")), match["source"]
    )
    text = demo.run_example(example)
    if match["python"] in (None, f"{sys.version_info.major}.{sys.version_info.minor}"):
        assert text.rstrip("\n") == match["text"].rstrip("\n")
    else:
        # Another CPython's instructions, ending on the same stack.
        shown, printed = match["text"].splitlines(), text.splitlines()
        assert printed[-1].split(" [")[-1] == shown[-1].split(" [")[-1]
        assert all(line.startswith("TRACE ") for line in printed)


def test_readme_example() -> None:
    readme = (GUIDE.parents[1] / "README.md").read_text()
    source = readme.split("```python\n", 1)[1].split("```", 1)[0]
    source = source.replace('minidynamo.set_logs("graph_code,guards")', "")
    example = demo.Example("readme", "readme.py", ("graph_code", "guards"), source)
    text = demo.run_example(example)
    assert "sub = l_x_ - l_y_" in text
    assert "check_tensor(L['y'], torch.float32" in text
