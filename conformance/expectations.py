"""Known differences per implementation: conformance/expectations/<impl>.toml.

Like test262's skip files or WPT metadata, kept outside the cases. The file is a small
subset of TOML, read here without tomllib (CPython 3.10 has none): comments, one
``["<case id>"]`` table per case, one ``check = "why"`` line per known difference; a
``check_py310 = "why"`` line is a difference on that CPython only (e.g. a golden text that
one CPython's tracer writes differently), a ``check_torch214 = "why"`` line one on that
torch only (e.g. a Dynamo bug fixed in the next release).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import torch

DIRECTORY = Path(__file__).parent / "expectations"
TODO = "TODO: explain: "
VERSION = f"py{sys.version_info.major}{sys.version_info.minor}"  # suffix of per-CPython keys
TORCH = "torch" + "".join(torch.__version__.split(".")[:2])  # suffix of per-torch keys

HEADER = """\
# Known differences of {impl} from the conformance cases: one table per case, one line per
# check (eager, frames, graphs, ops, guards, breaks, recompiles, parity, golden) with the
# reason. Rewrite with `python -m conformance.update_expectations --impl {impl}`; new
# entries read "{todo}...": replace that with the reason.
"""

_TABLE = re.compile(r'^\["(?P<case>[^"]+)"\]$')
_ENTRY = re.compile(r'^(?P<check>[a-z_]+(?:_py3\d+|_torch\d+)?) = (?P<reason>".*")$')

Expectations = dict[str, dict[str, str]]


def path_for(impl: str) -> Path:
    return DIRECTORY / f"{impl}.toml"


def parse(text: str) -> Expectations:
    """Read the restricted TOML format (raises ValueError on anything else)."""
    table: dict[str, str] | None = None
    known: Expectations = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if header := _TABLE.match(line):
            table = known.setdefault(header["case"], {})
        elif (entry := _ENTRY.match(line)) and table is not None:
            table[entry["check"]] = json.loads(entry["reason"])
        else:
            raise ValueError(f"line {number}: not in the expectation file format: {raw!r}")
    return known


def render(impl: str, known: Expectations) -> str:
    out = [HEADER.format(impl=impl, todo=TODO)]
    for case_id in sorted(known):
        if known[case_id]:
            out.append(f'["{case_id}"]')
            out += [
                f"{check} = {json.dumps(reason, ensure_ascii=False)}"
                for check, reason in sorted(known[case_id].items())
            ]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def unexplained(known: Expectations) -> int:
    """How many entries still carry a TODO instead of a reason."""
    return sum(reason.startswith(TODO) for checks in known.values() for reason in checks.values())


def reason_for(checks: dict[str, str], check: str) -> str | None:
    """The reason `check` differs here: its `check_torchXY` entry, else its `check_py3XX`
    entry, else `check`'s."""
    return checks.get(f"{check}_{TORCH}", checks.get(f"{check}_{VERSION}", checks.get(check)))


def load(impl: str) -> Expectations:
    return load_file(path_for(impl))


def load_file(path: Path | None) -> Expectations:
    return parse(path.read_text(encoding="utf-8")) if path and path.exists() else {}


def updated(
    known: Expectations, results: dict[str, dict[str, tuple[bool, str]]], registered: set[str]
) -> Expectations:
    """`known` after a run: `results[case][check] = (differs, detail)` for the cases run.

    Differences keep their reason or get a TODO one; checks that now pass lose their entry;
    cases that no longer exist are dropped; cases not run are kept as they are.
    """
    new = {case_id: dict(checks) for case_id, checks in known.items() if case_id in registered}
    for case_id, checks in results.items():
        entry = new.setdefault(case_id, {})
        for check, (differs, detail) in checks.items():
            if not differs:
                entry.pop(check, None)
                entry.pop(f"{check}_{VERSION}", None)
                entry.pop(f"{check}_{TORCH}", None)
            elif reason_for(entry, check) is None:
                entry[check] = TODO + " / ".join(detail.splitlines())[:200]
    return {case_id: checks for case_id, checks in new.items() if checks}
