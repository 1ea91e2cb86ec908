"""The log channels (seed appendix: TORCH_LOGS switches), through the `logging` module.

Each channel is a logger ``minidynamo.<channel>``; enable channels with
``MINIDYNAMO_LOGS=graph_code,guards`` (read at import) or `set_logs`. Messages are the
seed's text formats, printed bare to stderr.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator

CHANNELS = (
    "graph_code",
    "guards",
    "recompiles",
    "bytecode",
    "bytecode_source",
    "trace",
    "graph_breaks",
    "dynamic",
    "graph_sizes",
    "output_code",
)

_root = logging.getLogger("minidynamo")


class _StderrHandler(logging.Handler):
    """Writes bare messages to the *current* sys.stderr (so pytest capture sees them)."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(record.getMessage() + "\n")


def get_logger(channel: str) -> logging.Logger:
    """The logger of one channel; messages are emitted at DEBUG level."""
    if channel not in CHANNELS:
        raise ValueError(f"unknown log channel {channel!r}; known: {', '.join(CHANNELS)}")
    return logging.getLogger(f"minidynamo.{channel}")


def set_logs(spec: str | None = None, **channels: bool) -> None:
    """Enable exactly the given channels: ``set_logs("graph_code,guards")`` or
    ``set_logs(graph_code=True)``; ``set_logs()`` turns every channel off."""
    wanted = {name.strip() for name in (spec or "").split(",") if name.strip()}
    wanted |= {name for name, on in channels.items() if on}
    for name in wanted:
        get_logger(name)  # rejects unknown names before changing anything
    for name in CHANNELS:
        get_logger(name).setLevel(logging.DEBUG if name in wanted else logging.INFO)


def enabled_channels() -> list[str]:
    return [name for name in CHANNELS if get_logger(name).isEnabledFor(logging.DEBUG)]


@contextlib.contextmanager
def capture(*channels: str) -> Iterator[list[str]]:
    """Collect the messages of `channels` into a list (for tests and the demo)."""
    messages: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = _Collect()
    before = enabled_channels()
    set_logs(",".join(channels))
    _root.removeHandler(_stderr)
    _root.addHandler(handler)
    try:
        yield messages
    finally:
        _root.removeHandler(handler)
        _root.addHandler(_stderr)
        set_logs(",".join(before))


_stderr = _StderrHandler()
_root.addHandler(_stderr)
_root.propagate = False
_root.setLevel(logging.DEBUG)
set_logs(os.environ.get("MINIDYNAMO_LOGS", ""))
