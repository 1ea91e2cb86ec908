"""The syntax zoo: rare constructs, EXTENDED_ARG and 3.11+ exception groups, round-tripped
exactly and running the same."""

from __future__ import annotations

import sys
from pathlib import Path
from types import CodeType
from typing import Any

from bytecode_helpers import code_objects, differences, reassemble_tree

VERSION = sys.version_info[:2]

# More than 256 constants, names and locals, and jumps over thousands of bytes.
BIG = (
    "def big(flag):\n    total = 0\n    for step in range(2):\n        if flag:\n"
    + "".join(f"            v{i} = {i} * 1000 + step + g{i}\n" for i in range(300))
    + "            total += v299\n    return total\n"
    + "".join(f"g{i} = {i}\n" for i in range(300))
)
EXCEPT_STAR = """
def exception_groups():
    caught = []
    try:
        raise ExceptionGroup("group", [ValueError("v"), TypeError("t")])
    except* ValueError as group:
        caught.append(len(group.exceptions))
    except* TypeError:
        caught.append("type")
    return caught
"""


def zoo_code() -> CodeType:
    source = (Path(__file__).parent / "syntax_zoo.py").read_text() + BIG
    if VERSION >= (3, 11):
        source += EXCEPT_STAR
    return compile(source, "syntax_zoo.py", "exec")


def run_zoo(module_code: CodeType) -> list[Any]:
    namespace: dict[str, Any] = {"__name__": "syntax_zoo"}
    exec(module_code, namespace)
    extras = [namespace["big"](True), namespace["big"](False)]
    if "exception_groups" in namespace:
        extras.append(namespace["exception_groups"]())
    return namespace["run"]() + extras


def test_zoo_round_trips_exactly() -> None:
    codes = list(code_objects(zoo_code()))
    assert [problem for code in codes for problem in differences(code)] == []
    print(f"\nzoo: {len(codes)} code objects")


def test_zoo_runs_the_same_after_a_round_trip() -> None:
    original = zoo_code()
    covered: list[CodeType] = []
    assert run_zoo(reassemble_tree(original, covered)) == run_zoo(original)
    assert len(covered) == len(list(code_objects(original)))
