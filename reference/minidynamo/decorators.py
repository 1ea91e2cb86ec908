"""The markers a user puts in the program (as torch.compile's users do with
`torch._dynamo.graph_break`, `torch.compiler.allow_in_graph` and `is_compiling`).

Each is a plain function here; what it does while tracing is a row of trace_rules'
tables (DESIGN.md "What is traced"): `graph_break` is skipped with its own reason
(a graph break), `is_compiling` is answered True at trace time, and a function given to
`allow_in_graph` is put into the graph as one node instead of being traced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def graph_break(msg: str = "") -> None:
    """Break the graph here when traced (the rest of the frame runs in a resume
    function); called eagerly, it does nothing. `msg` is shown with the break."""


def is_compiling() -> bool:
    """True inside code minidynamo is tracing, False when it runs eagerly."""
    return False


def allow_in_graph(fn: F) -> F:
    """Trace calls of `fn` as one graph node (its body is not traced; it must accept
    fake tensors, as torch's ops do). Returns `fn` itself, so it can decorate."""
    from minidynamo import trace_rules

    if not callable(fn):
        raise TypeError(f"allow_in_graph() expects a callable, not {type(fn).__name__}")
    trace_rules.allow_in_graph(fn)
    return fn
