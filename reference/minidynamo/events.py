"""Compile events, for observers of a run (`explain`, `python -m minidynamo explain`, the
structured trace of MINIDYNAMO_TRACE).

`convert_frame` and `OutputGraph` report each frame they start to translate, each graph
handed to the backend, each graph break, each new cache entry and each frame left to run
eagerly to the listeners registered here; nothing in the data flow depends on them.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

    from minidynamo.exc import Unsupported
    from minidynamo.guards import CheckFunction


class Listener:
    """What a listener is told; each event does nothing unless a subclass says otherwise."""

    def frame_started(self, code: types.CodeType) -> None:
        pass

    def graph_compiled(self, name: str, gm: torch.fx.GraphModule) -> None:
        pass

    def graph_break(self, error: Unsupported) -> None:
        pass

    def frame_compiled(self, code: types.CodeType, check_fn: CheckFunction, seconds: float) -> None:
        pass

    def frame_failed(self, code: types.CodeType, error: Exception) -> None:
        pass


_listeners: list[Listener] = []


def frame_started(code: types.CodeType) -> None:
    for listener in _listeners:
        listener.frame_started(code)


def graph_compiled(name: str, gm: torch.fx.GraphModule) -> None:
    for listener in _listeners:
        listener.graph_compiled(name, gm)


def graph_break(error: Unsupported) -> None:
    for listener in _listeners:
        listener.graph_break(error)


def frame_compiled(code: types.CodeType, check_fn: CheckFunction, seconds: float) -> None:
    for listener in _listeners:
        listener.frame_compiled(code, check_fn, seconds)


def frame_failed(code: types.CodeType, error: Exception) -> None:
    """The frame runs eagerly: `error` is the Unsupported construct or internal error."""
    for listener in _listeners:
        listener.frame_failed(code, error)


def add_listener(listener: Listener) -> None:
    _listeners.append(listener)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[Listener]:
    """Report the events of the block to `listener`."""
    add_listener(listener)
    try:
        yield listener
    finally:
        _listeners.remove(listener)
