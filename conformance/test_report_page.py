"""`python -m conformance.report --html OUT RESULTS...`: one page, implementations side by
side per feature tag, from the JSON that `pytest conformance --results PATH` writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conformance.report import main


def run(impl: str, statuses: dict[str, list[str]]) -> dict:
    cases = {
        case_id: {"case": case_id, "tags": ["guards"], "checks": [[s, s, ""] for s in checks]}
        for case_id, checks in statuses.items()
    }
    return {"impl": impl, "python": "3.12.1", "cases": cases}


def test_page_puts_implementations_side_by_side(tmp_path: Path) -> None:
    ours = run("ours", {"a": ["passed"], "b": ["known"], "c": ["differs"]})
    theirs = run("theirs", {"a": ["passed", "n/a"], "b": ["passed"], "c": ["passed"]})
    paths = []
    for result in (ours, theirs):
        paths.append(tmp_path / f"{result['impl']}.json")
        paths[-1].write_text(json.dumps(result))
    out = tmp_path / "page.html"
    main(["--html", str(out), *map(str, paths)])
    page = out.read_text()
    assert re.search(r'<th colspan="4">ours<br>.*<th colspan="4">theirs<br>', page)
    cells = re.findall(r"<tr><th>all</th>(.*?)</tr>", page)[0]
    assert re.findall(r"<td[^>]*>([^<]*)</td>", cells) == [
        "1/3", "1", "1", "0",  # ours: a passed, b known, c failed
        "3/3", "0", "0", "1",  # theirs: all passed, one check n/a
    ]  # fmt: skip
