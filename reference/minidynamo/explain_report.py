"""`explain(fn)(*args, **kwargs)` and `python -m minidynamo explain script.py`: what a run
compiled, as torch._dynamo.explain reports it: the graphs and their ops, the graph breaks
with their reasons and user lines, the guards, and the compile times.

A `Recorder` listens to the compile events (events.py) of the run; nothing else changes.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from minidynamo import events

if TYPE_CHECKING:
    from minidynamo.exc import Unsupported
    from minidynamo.guards import CheckFunction


@dataclasses.dataclass
class BreakReason:
    """One graph break: the registry id, the reason, and the user's stack, innermost last."""

    gb_id: str
    reason: str
    user_stack: list[tuple[str, int, str, str]]

    def __str__(self) -> str:
        file, line, name, _text = self.user_stack[-1]
        return f"{self.reason} [{self.gb_id}] at {file}:{line} in {name}"


@dataclasses.dataclass
class ExplainOutput:
    """What one run compiled. As in torch._dynamo.explain, `graph_break_count` is
    ``graph_count - 1`` (the breaks that split graphs), and ops are the ``call_function``
    nodes (not tensor methods); `break_reasons` lists every break met, also one with no
    graph after it."""

    graphs: list[torch.fx.GraphModule]
    graph_count: int
    graph_break_count: int
    break_reasons: list[BreakReason]
    op_count: int
    ops_per_graph: list[list[Any]]
    out_guards: list[str]
    compile_times: list[tuple[str, float]]

    def __str__(self) -> str:
        lines = [
            f"Graph Count: {self.graph_count}",
            f"Graph Break Count: {self.graph_break_count}",
            f"Op Count: {self.op_count}",
            "Break Reasons:",
        ]
        for i, reason in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {reason.reason} [{reason.gb_id}]"]
            lines.append("    User Stack:")
            for file, line, name, text in reason.user_stack:
                lines.append(f"      {file}:{line} in {name}: {text}")
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    {torch.fx.node._get_qualified_name(op)}" for op in ops]
        lines.append("Out Guards:")
        for i, guard in enumerate(self.out_guards, 1):
            lines += [f"  Guard {i}:", f"    {guard}"]
        times = ", ".join(f"{name}: {seconds:.4f} s" for name, seconds in self.compile_times)
        lines.append(f"Compile Times: {times}")
        return "\n".join(lines) + "\n"


class Recorder(events.Listener):
    """An events listener keeping what `ExplainOutput` reports."""

    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []
        self.break_reasons: list[BreakReason] = []
        self.guards: list[str] = []
        self.compile_times: list[tuple[str, float]] = []

    def graph_compiled(self, name: str, gm: torch.fx.GraphModule) -> None:
        self.graphs.append(gm)

    def graph_break(self, error: Unsupported) -> None:
        self.break_reasons.append(BreakReason(error.gb_id, error.reason, error.user_stack[::-1]))

    def frame_compiled(self, code: types.CodeType, check_fn: CheckFunction, seconds: float) -> None:
        self.compile_times.append((code.co_name, seconds))
        self.guards += [guard.text for guard in check_fn.guards]

    def output(self) -> ExplainOutput:
        ops = [[n.target for n in gm.graph.nodes if n.op == "call_function"] for gm in self.graphs]
        return ExplainOutput(
            graphs=self.graphs,
            graph_count=len(self.graphs),
            graph_break_count=max(len(self.graphs) - 1, 0),
            break_reasons=self.break_reasons,
            op_count=sum(map(len, ops)),
            ops_per_graph=ops,
            out_guards=self.guards,
            compile_times=self.compile_times,
        )


def explain(fn: Callable) -> Callable[..., ExplainOutput]:
    """``explain(fn)(*args, **kwargs)``: the report of one call of `fn` (a function or an
    nn.Module) compiled with the eager backend; the cache is reset before and after."""
    import minidynamo

    def run(*args: Any, **kwargs: Any) -> ExplainOutput:
        minidynamo.reset()
        try:
            with events.listening(Recorder()) as recorder:
                minidynamo.compile(fn)(*args, **kwargs)
        finally:
            minidynamo.reset()
        return recorder.output()

    return run
