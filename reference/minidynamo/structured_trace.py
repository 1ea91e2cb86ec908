"""The structured trace: `MINIDYNAMO_TRACE=DIR` writes the log torch's `TORCH_TRACE=DIR`
writes, so that `tlparse` renders a minidynamo run as its HTML report (frames, graphs,
guards, graph breaks, compilation metrics).

An events listener (events.py). Each record is one line, ``V<date> <time> <pid>
<file>:<line>] <json>``, followed by its payload (a graph's code, the guards) as lines
that start with a tab; ``has_payload`` is the payload's md5. Strings of file names are
interned (``{"str": [name, index]}``), as torch does.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from minidynamo import events
from minidynamo.exc import Unsupported

if TYPE_CHECKING:
    import torch

    from minidynamo.guards import CheckFunction


class TraceWriter(events.Listener):
    """Writes one run's structured trace to ``DIR/minidynamo_trace_<pid>.log``."""

    def __init__(self, directory: str | os.PathLike) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        self.path = Path(directory) / f"minidynamo_trace_{os.getpid()}.log"
        self.file: TextIO = self.path.open("a", encoding="utf-8")
        self.strings: dict[str, int] = {}
        self.frame_ids: dict[types.CodeType, int] = {}
        self.compiles: dict[types.CodeType, int] = {}
        self.current: dict[str, int] = {}  # frame_id, frame_compile_id, attempt
        self.restart_reasons: list[str] = []

    def close(self) -> None:
        self.file.close()

    def record(self, metadata: dict[str, Any], payload: str | None = None) -> None:
        if self.current and "str" not in metadata:
            metadata = {**metadata, **self.current}
        if payload is not None:
            payload = payload.rstrip("\n")  # each line is written as a tab and the line
            metadata["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
        now = datetime.datetime.now()
        prefix = f"V{now:%m%d %H:%M:%S.%f} {os.getpid()} minidynamo/structured_trace.py:0] "
        self.file.write(prefix + json.dumps(metadata) + "\n")
        if payload is not None:
            self.file.writelines(f"\t{line}\n" for line in payload.split("\n"))
        self.file.flush()

    def interned(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.strings)
            self.record({"str": [text, self.strings[text]]})
        return self.strings[text]

    # The events.

    def frame_started(self, code: types.CodeType) -> None:
        frame_id = self.frame_ids.setdefault(code, len(self.frame_ids))
        compile_id = self.compiles.get(code, 0)
        self.compiles[code] = compile_id + 1
        self.current = {"frame_id": frame_id, "frame_compile_id": compile_id, "attempt": 0}
        self.restart_reasons = []
        frame = {
            "line": code.co_firstlineno,
            "name": code.co_name,
            "filename": self.interned(code.co_filename),
        }
        self.record({"dynamo_start": {"stack": [frame]}})

    def graph_compiled(self, name: str, gm: torch.fx.GraphModule) -> None:
        from minidynamo.output_graph import graph_code

        sizes = {
            node.name: list(value.shape)
            for node in gm.graph.nodes
            if hasattr(value := node.meta.get("example_value"), "shape")
        }
        self.record({"dynamo_output_graph": {"sizes": _json_sizes(sizes)}}, graph_code(gm.graph))

    def graph_break(self, error: Unsupported) -> None:
        self.record(
            {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}},
            error.describe(),
        )
        self.restart_reasons.append(error.reason)
        self.current["attempt"] += 1  # the frame is translated again, up to the break

    def frame_compiled(self, code: types.CodeType, check_fn: CheckFunction, seconds: float) -> None:
        guards = [{"code": guard.text} for guard in check_fn.guards]
        self.record({"dynamo_guards": {}}, json.dumps(guards))
        self.metrics(
            code,
            has_guarded_code=True,
            entire_frame_compile_time_s=seconds,
            guard_count=len(guards),
        )

    def frame_failed(self, code: types.CodeType, error: Exception) -> None:
        if not self.current:  # failed before translation started
            return
        reason = error.describe() if isinstance(error, Unsupported) else repr(error)
        self.metrics(
            code, has_guarded_code=False, fail_type=type(error).__name__, fail_reason=reason
        )

    def metrics(self, code: types.CodeType, **values: Any) -> None:
        frame_id, compile_id = self.current["frame_id"], self.current["frame_compile_id"]
        metrics = {
            "compile_id": f"{frame_id}/{compile_id}",
            "co_name": code.co_name,
            "co_filename": code.co_filename,
            "co_firstlineno": code.co_firstlineno,
            "cache_size": compile_id,
            "restart_reasons": self.restart_reasons,
            **values,
        }
        self.record({"compilation_metrics": metrics})
        self.current = {}


def _json_sizes(sizes: dict[str, list]) -> dict[str, list]:
    """Sizes with symbols as their names (``s0``), as torch writes them."""
    return {
        name: [d if isinstance(d, int) else str(d) for d in dims]
        for name, dims in sizes.items()
    }


def enable(directory: str | os.PathLike) -> TraceWriter:
    """Write the structured trace of every compile from now on to `directory`."""
    writer = TraceWriter(directory)
    events.add_listener(writer)
    return writer


def enable_from_environment() -> None:
    if directory := os.environ.get("MINIDYNAMO_TRACE"):
        enable(directory)
