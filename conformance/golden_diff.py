"""`python -m conformance.show --diff [REV]`: the golden snapshots that changed, as a
reviewer reads them in a pull request: for each changed file under golden/ (against REV,
default HEAD; new files too), the conformance case it belongs to and its source, then the
old and the new text side by side.
"""

from __future__ import annotations

import difflib
import inspect
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

from conformance.cases import load_all

REPO = Path(__file__).resolve().parents[1]
_CASE_FILE = re.compile(r"test_case\[(?P<case>[^\]]+)\]\.txt$")


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


def changed_golden_files(rev: str) -> list[str]:
    """Paths under golden/ that differ from `rev` in the work tree, and new ones."""
    changed = git("diff", "--name-only", rev, "--", "golden").split()
    new = git("ls-files", "--others", "--exclude-standard", "--", "golden").split()
    return sorted({*changed, *new})


def old_text(rev: str, path: str) -> str:
    try:
        return git("show", f"{rev}:{path}")
    except subprocess.CalledProcessError:  # not in rev: a new snapshot
        return ""


def side_by_side(old: str, new: str, width: int = 60) -> Iterator[str]:
    """Rows of ``old | new``; a changed row is marked ``|``, an added ``>``, a removed
    ``<``; runs of equal rows beyond three lines of context are folded."""
    a, b = old.splitlines(), new.splitlines()

    def row(left: str, mark: str, right: str) -> str:
        return f"{left[:width]:<{width}} {mark} {right[:width]}".rstrip()

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        if tag == "equal":
            lines = a[i1:i2]
            if len(lines) > 7:
                yield from (row(line, " ", line) for line in lines[:3])
                yield row(f"... {len(lines) - 6} equal lines", " ", "...")
                lines = lines[-3:]
            yield from (row(line, " ", line) for line in lines)
            continue
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            old_line = left[k] if k < len(left) else ""
            new_line = right[k] if k < len(right) else ""
            mark = "|" if k < len(left) and k < len(right) else "<" if k < len(left) else ">"
            yield row(old_line, mark, new_line)


def describe(path: str, rev: str) -> Iterator[str]:
    yield f"=== {path}"
    match = _CASE_FILE.search(path)
    case = load_all().get(match["case"]) if match else None
    if case is not None:
        yield f"case {case.id}: {case.doc.splitlines()[0] if case.doc else ''}".rstrip()
        yield from ("    " + line for line in inspect.getsource(case.fn).splitlines())
    new = (REPO / path).read_text() if (REPO / path).exists() else ""
    yield from side_by_side(old_text(rev, path), new)
    yield ""


def main(rev: str) -> None:
    paths = changed_golden_files(rev)
    if not paths:
        print(f"no golden snapshot differs from {rev}")
    for path in paths:
        print("\n".join(describe(path, rev)))
