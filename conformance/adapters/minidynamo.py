"""The reference implementation, minidynamo, behind the suite's adapter interface.

Graphs come from a capturing backend; everything else from minidynamo's log channels
(`minidynamo.<channel>` loggers), whose texts are already our formats, so this adapter's
observations are also compared with the golden snapshots. The records it reads are listed
in conformance/README.md ("What the minidynamo adapter reads").
"""

from __future__ import annotations

import contextlib
import linecache
import logging
import re
from collections.abc import Callable
from typing import Any

import torch

from conformance.adapters import Adapter, AdapterUnavailable
from conformance.observations import GraphObs, Observations, graph_code, structure_of
from conformance.spec import Break

CHANNELS = ("graph_code", "guards", "recompiles", "graph_breaks", "bytecode")


class _Channels(logging.Handler):
    """Keeps the records of minidynamo's log channels, by channel."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: dict[str, list[logging.LogRecord]] = {c: [] for c in CHANNELS}

    def emit(self, record: logging.LogRecord) -> None:
        channel = record.name.removeprefix("minidynamo.")
        if channel in self.records:
            self.records[channel].append(record)

    def messages(self, channel: str) -> list[str]:
        return [record.getMessage() for record in self.records[channel]]

    def clear(self) -> None:
        for records in self.records.values():
            records.clear()


class MinidynamoAdapter(Adapter):
    """`minidynamo.compile` with a backend that keeps every GraphModule."""

    name = "minidynamo"
    golden = True

    def __init__(self, minidynamo: Any) -> None:
        self.md = minidynamo
        self._graphs: list[torch.fx.GraphModule] = []
        self._channels = _Channels()
        minidynamo.logs.set_logs(",".join(CHANNELS))
        for channel in CHANNELS:
            logger = logging.getLogger(f"minidynamo.{channel}")
            logger.addHandler(self._channels)
            logger.propagate = False  # keep minidynamo's own stderr printing out of reports

    def compile(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        return self.md.compile(fn, backend=self._backend, **options)

    def reset(self) -> None:
        self.md.reset()
        self._graphs.clear()
        self._channels.clear()

    def configured(self, knobs: dict[str, Any]) -> contextlib.AbstractContextManager[None]:
        return self.md.config.patch(**knobs)

    def mark_dynamic(self, tensor: torch.Tensor, dim: int) -> None:
        if not hasattr(self.md, "mark_dynamic"):
            raise NotImplementedError("minidynamo.mark_dynamic does not exist yet")
        self.md.mark_dynamic(tensor, dim)

    def is_compile_error(self, error: BaseException) -> bool:
        return isinstance(error, (self.md.exc.Unsupported, self.md.exc.RecompileLimitExceeded))

    def observations(self) -> Observations:
        codes = self._channels.messages("graph_code")
        graphs = [
            GraphObs(codes[i] if i < len(codes) else graph_code(gm), structure_of(gm))
            for i, gm in enumerate(self._graphs)
        ]
        guards = [
            [line for line in text.splitlines()[1:] if line.strip()]
            for text in self._channels.messages("guards")
        ]
        return Observations(
            frames=len(guards),
            graphs=graphs,
            guards=guards,
            breaks=[_break(record) for record in self._channels.records["graph_breaks"]],
            recompiles=[_failures(text) for text in self._channels.messages("recompiles")],
            bytecode=[
                text
                for text in self._channels.messages("bytecode")
                if text.startswith("MODIFIED BYTECODE")
            ],
        )

    def _backend(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
        self._graphs.append(gm)
        return gm.forward


_GB_ID = re.compile(r"\[(GB\d+): ")
_FRAME = re.compile(r'^\s*File "(.+)", line (\d+), in ')


def _break(record: logging.LogRecord) -> Break:
    """A graph break record: `Graph break in user code at <file>:<line>` (the frame that
    breaks) or `Frame <name> (...) runs eagerly:` (the frame is skipped), then
    `Unsupported.describe()`'s text: `Graph Break Reason: ... [GB0002: builtin call]` and
    the user code traceback, outermost frame first, each `File "<base name>", line N, in
    f` line followed by its source line (none for `<string>` code). Like Dynamo's
    graph_breaks log, the break is reported where it happened: the innermost user frame.
    Attributes `reason_id`, `user_filename` and `user_lineno`, where a record carries
    them, take precedence."""
    lines = record.getMessage().splitlines()
    reason = next((m[1] for m in map(_GB_ID.search, lines) if m is not None), "<no reason_id>")
    reason = dynamo_reason_id(getattr(record, "reason_id", reason))
    if hasattr(record, "user_filename") and hasattr(record, "user_lineno"):
        source = linecache.getline(record.user_filename, record.user_lineno)
        return Break(reason, source.strip())
    frames = [(i, m[1]) for i, m in enumerate(map(_FRAME.match, lines)) if m is not None]
    if not frames or frames[-1][1].startswith("<"):
        # No traceback (the frame failed outside user code), or code without a source file
        # (`<string>`: whatever linecache holds under that name is not its source).
        return Break(reason, "")
    innermost = frames[-1][0] + 1
    return Break(reason, lines[innermost].strip() if innermost < len(lines) else "")


def dynamo_reason_id(gb_id: str) -> str:
    """The case's ids are Dynamo's: our registry names Dynamo's id for the same reason;
    a reason Dynamo has no id for stays ours, marked so it cannot match one of Dynamo's."""
    from minidynamo.graph_break_registry import REGISTRY

    reason = REGISTRY.get(gb_id)
    if reason is None:
        return gb_id
    return reason.dynamo_id or f"{gb_id} (minidynamo)"


def _failures(message: str) -> str:
    """The guard failures of one recompile message, one per `- ` line, joined by `; `."""
    _, _, failures = message.partition("guard failure(s):")
    reasons = [line.strip()[2:] for line in failures.splitlines() if line.strip().startswith("- ")]
    return "; ".join(reasons)


def make_adapter() -> MinidynamoAdapter:
    try:
        import minidynamo
        import minidynamo.exc
        import minidynamo.logs
    except ImportError as error:
        raise AdapterUnavailable(f"minidynamo cannot be imported: {error}") from error
    missing = [name for name in ("compile", "reset") if not hasattr(minidynamo, name)]
    if missing:
        raise AdapterUnavailable(
            f"minidynamo has no {', '.join(missing)} yet (reference/minidynamo/__init__.py): "
            "the tracer's public API has not landed, so no case can run on minidynamo"
        )
    return MinidynamoAdapter(minidynamo)
