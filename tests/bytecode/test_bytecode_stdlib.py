"""decode -> assemble over every code object of some stdlib modules, compiled from source
(module and class bodies included): the result must be the same program, byte for byte."""

from __future__ import annotations

import importlib

from bytecode_helpers import code_objects, differences

MODULES = (
    "json",
    "json.decoder",
    "json.encoder",
    "json.scanner",
    "dis",
    "inspect",
    "asyncio.base_events",
    "collections",
    "typing",
    "argparse",
    "dataclasses",
    "enum",
)


def test_stdlib_code_objects_round_trip_exactly() -> None:
    covered, problems = 0, []
    for name in MODULES:
        module = importlib.import_module(name)
        with open(module.__file__, encoding="utf-8") as source:
            module_code = compile(source.read(), module.__file__, "exec")
        for code in code_objects(module_code):
            covered += 1
            problems += differences(code)
    print(f"\nround trip: {covered} stdlib code objects, {len(problems)} differing")
    assert problems == []
    assert covered >= 1000
