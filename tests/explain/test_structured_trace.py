"""MINIDYNAMO_TRACE: the structured trace is the one torch's TORCH_TRACE writes, so
`tlparse --strict` renders it (no unrecognized line, every payload's md5 right), with
each frame's graph, guards, graph breaks and metrics on the report's index page."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import minidynamo
import pytest
import torch
from minidynamo import demo, events
from minidynamo.structured_trace import TraceWriter

TLPARSE = Path(sysconfig.get_path("scripts")) / "tlparse"


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def trace_of(tmp_path: Path, example: demo.Example) -> Path:
    writer = TraceWriter(tmp_path / "trace")
    with events.listening(writer):
        demo.run_example(example)
    writer.close()
    return writer.path


def tlparse(trace: Path, out: Path) -> str:
    command = [str(TLPARSE), str(trace), "-o", str(out), "--strict", "--no-browser"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def test_seed_graph_break_renders(tmp_path: Path) -> None:
    trace = trace_of(tmp_path, demo.GRAPH_BREAK_EXAMPLE)
    stats = tlparse(trace, tmp_path / "report")
    assert re.search(r"Stats \{ ok: \d+ \}", stats)  # nothing failed or unrecognized
    index = (tmp_path / "report" / "index.html").read_text()
    links = re.findall(r'href="(-_[^"]+)"', index)
    assert links == [
        "-_0_0_0/dynamo_graph_break_reason_0.txt",
        "-_0_0_1/dynamo_output_graph_1.txt",
        "-_0_0_1/dynamo_guards_2.html",
        "-_0_0_1/compilation_metrics_3.html",
        "-_1_0_0/dynamo_output_graph_4.txt",
        "-_1_0_0/dynamo_guards_5.html",
        "-_1_0_0/compilation_metrics_6.html",
    ]
    report = tmp_path / "report"
    graph = (report / "-_0_0_1" / "dynamo_output_graph_1.txt").read_text()
    assert "b = l_a_ + 2" in graph
    reason = (report / "-_0_0_0" / "dynamo_graph_break_reason_0.txt").read_text()
    assert "call to builtin print() [GB0002: builtin call]" in reason
    guards = (report / "-_0_0_1" / "dynamo_guards_2.html").read_text()
    assert "<code>check_tensor(L[&#39;a&#39;], torch.float32, device=cpu," in guards


def test_recompile_with_symbols(tmp_path: Path) -> None:
    shape_example = demo.SEED_EXAMPLES[-1]  # a.shape[0] * a * b on (4, 3), then (8, 3)
    trace = trace_of(tmp_path, shape_example)
    tlparse(trace, tmp_path / "report")
    records = [
        json.loads(line.split("] ", 1)[1])
        for line in trace.read_text().splitlines()
        if not line.startswith("\t")
    ]
    metrics = [r["compilation_metrics"] for r in records if "compilation_metrics" in r]
    assert [m["compile_id"] for m in metrics] == ["0/0", "0/1"]
    assert all(m["has_guarded_code"] for m in metrics)
    sizes = [r["dynamo_output_graph"]["sizes"] for r in records if "dynamo_output_graph" in r]
    assert sizes[1]["l_a_"] == ["s0", 3]


def test_environment_variable(tmp_path: Path) -> None:
    script = "import torch, minidynamo\nminidynamo.compile(lambda x: x + 1)(torch.ones(2))\n"
    env = {**os.environ, "MINIDYNAMO_TRACE": str(tmp_path)}
    subprocess.run([sys.executable, "-c", script], env=env, check=True)
    (trace,) = tmp_path.glob("minidynamo_trace_*.log")
    assert '"dynamo_start"' in trace.read_text()
    tlparse(trace, tmp_path / "report")


def test_failed_frame_has_its_reason(tmp_path: Path) -> None:
    def fn(x):
        return x.nonexistent_method()

    writer = TraceWriter(tmp_path)
    with events.listening(writer):
        with pytest.raises(AttributeError):
            minidynamo.compile(fn)(torch.ones(2))
    writer.close()
    tlparse(writer.path, tmp_path / "report")
    assert '"fail_type"' in writer.path.read_text()


def test_report_page_in_chromium(tmp_path: Path) -> None:
    """The report as a person sees it: headless Chromium (README's prerequisites) loads
    the index page; its DOM links every frame's pages, and it renders to a screenshot."""
    chromium = shutil.which("chromium-headless-shell")
    assert chromium, "install chromium-headless-shell (see README, prerequisites)"
    tlparse(trace_of(tmp_path, demo.GRAPH_BREAK_EXAMPLE), tmp_path / "report")
    page = (tmp_path / "report" / "index.html").as_uri()
    browser = [chromium, "--no-sandbox", "--disable-gpu", "--window-size=1200,900"]
    dom = subprocess.run([*browser, "--dump-dom", page], capture_output=True, text=True).stdout
    pages = [
        ("0_0_0", "graph_break_reason"),
        ("0_0_1", "output_graph"),
        ("0_0_1", "guards"),
        ("1_0_0", "output_graph"),
        ("1_0_0", "guards"),
    ]
    for frame, item in pages:
        assert re.search(rf'href="-_{frame}/dynamo_{item}_\d+\.(txt|html)', dom), (frame, item)
    assert "Failures and Restarts" in dom
    shot = tmp_path / "index.png"
    subprocess.run([*browser, f"--screenshot={shot}", page], capture_output=True, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
