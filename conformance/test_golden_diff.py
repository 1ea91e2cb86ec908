"""`python -m conformance.show --diff`: a changed golden snapshot shown with its case's
source and the old and new text side by side."""

from __future__ import annotations

from conformance.golden_diff import describe, side_by_side


def test_side_by_side_marks_changes_and_folds_equal_runs() -> None:
    old = "\n".join(f"line {i}" for i in range(10)) + "\nold tail\n"
    new = "\n".join(f"line {i}" for i in range(10)) + "\nnew tail\nadded\n"
    rows = list(side_by_side(old, new, width=12))
    assert rows[:3] == ["line 0         line 0", "line 1         line 1", "line 2         line 2"]
    assert rows[3] == "... 4 equal    ..."
    assert rows[-2:] == ["old tail     | new tail", "             > added"]


def test_describe_names_the_case_and_its_source() -> None:
    path = "golden/common/test_conformance/test_case[seed000.intro_mse].txt"
    text = "\n".join(describe(path, "HEAD"))
    assert text.startswith(f"=== {path}\ncase seed000.intro_mse: ")
    assert "    def intro_mse(x, y):" in text
    assert "frames compiled: 1" in text and "equal lines" in text  # unchanged: folded
