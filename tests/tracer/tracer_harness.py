"""Differential testing of the core tracer: run a program eagerly and compiled, compare.

Each case's inputs are rebuilt from the same seed for both runs; results, the inputs
after the call (mutations) and raised exceptions must agree. A recording backend keeps
the captured FX graphs, which the graph-parity tests compare with real Dynamo's.
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Callable
from typing import Any

import minidynamo
import torch
import torch.fx
from minidynamo import convert_frame
from minidynamo.bytecode import dis_text


@dataclasses.dataclass
class Case:
    """A small program, how to make its arguments, and what to expect of it."""

    fn: Callable
    make_args: Callable[[], tuple]
    # Expected to run eagerly (a construct this issue does not model), with the reason.
    fallback: str | None = None
    # Expected to break the graph (and continue in a resume function), with the reason.
    breaks: str | None = None
    # Why our graph legitimately differs from real Dynamo's (None: they must match).
    parity: str | None = None

    @property
    def name(self) -> str:
        return self.fn.__name__


@dataclasses.dataclass
class Outcome:
    result: Any
    args_after: tuple
    exception: BaseException | None


class RecordingBackend:
    """The eager backend, keeping every graph it is given."""

    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        self.graphs.append(gm)
        return gm.forward


def fresh_args(case: Case) -> tuple:
    torch.manual_seed(0)
    return case.make_args()


def run(fn: Callable, args: tuple) -> Outcome:
    try:
        result = fn(*args)
    except Exception as e:
        return Outcome(None, args, e)
    return Outcome(result, args, None)


def run_eager(case: Case) -> Outcome:
    args = fresh_args(case)
    torch.manual_seed(1)
    return run(case.fn, args)


def run_compiled(case: Case, backend: Callable) -> Outcome:
    args = fresh_args(case)
    compiled = minidynamo.compile(case.fn, backend=backend)
    torch.manual_seed(1)
    return run(compiled, args)


def same(a: Any, b: Any) -> bool:
    """Equal values, structure and types; tensors equal elementwise (NaN equals NaN)."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (
            type(a) is type(b)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and a.requires_grad == b.requires_grad
            and bool(torch.allclose(a.detach(), b.detach(), equal_nan=True, atol=1e-6))
        )
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, torch.nn.Module):
        return same(list(a.state_dict().values()), list(b.state_dict().values()))
    if isinstance(a, types.FunctionType):
        cells = [[c.cell_contents for c in f.__closure__ or ()] for f in (a, b)]
        return a.__code__ is b.__code__ and same(*cells)
    if hasattr(a, "__dict__") and not isinstance(a, type):
        return same(vars(a), vars(b))
    return a == b


def alias_pattern(value: Any) -> list[int]:
    """Which mutable parts of `value` (lists, dicts, sets, user objects) are one object:
    in visiting order, each part is numbered by its first visit. `l = []; return l, l`
    gives [0, 1, 1] (the tuple, then the same list twice); two equal lists [0, 1, 2]."""
    numbers: dict[int, int] = {}
    pattern: list[int] = []

    def visit(v: Any) -> None:
        is_object = hasattr(v, "__dict__") and not isinstance(
            v, (type, types.ModuleType, types.FunctionType, torch.Tensor, torch.nn.Module)
        )
        if not isinstance(v, (list, tuple, dict, set)) and not is_object:
            return
        if id(v) in numbers:
            pattern.append(numbers[id(v)])
            return
        numbers[id(v)] = len(numbers)
        pattern.append(numbers[id(v)])
        parts = v.values() if isinstance(v, dict) else vars(v).values() if is_object else v
        for part in parts:
            visit(part)

    visit(value)
    return pattern


def check_same_outcome(case: Case, eager: Outcome, compiled: Outcome) -> None:
    context = f"\n{case.name}:\n{dis_text(case.fn.__code__)}"
    if eager.exception is not None or compiled.exception is not None:
        assert type(eager.exception) is type(compiled.exception), context
        assert str(eager.exception) == str(compiled.exception), context
    else:
        assert same(eager.result, compiled.result), f"results differ{context}"
    assert same(eager.args_after, compiled.args_after), f"mutated arguments differ{context}"
    assert alias_pattern((eager.result, eager.args_after)) == alias_pattern(
        (compiled.result, compiled.args_after)
    ), f"objects shared differently (identity){context}"


def normalized_graph(gm: torch.fx.GraphModule) -> tuple[list[str], list[tuple]]:
    """A graph as (input names, [(op, target, args, kwargs)]): inputs are referred to by
    name (their order is a calling convention), other nodes by position."""
    inputs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    nodes = [n for n in gm.graph.nodes if n.op != "placeholder"]
    position = {node: i for i, node in enumerate(nodes)}

    def arg(a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            return ("input", a.name) if a.op == "placeholder" else ("node", position[a])
        if isinstance(a, (list, tuple)):
            return type(a)(map(arg, a))
        if isinstance(a, dict):
            return {k: arg(v) for k, v in a.items()}
        return a

    def target(node: torch.fx.Node) -> Any:
        return node.op if node.op == "output" else node.target

    return sorted(inputs), [(n.op, target(n), arg(n.args), arg(n.kwargs)) for n in nodes]


def real_dynamo_graphs(case: Case) -> tuple[list[torch.fx.GraphModule], Outcome]:
    """The graphs real `torch.compile(backend=...)` captures for the case (the oracle)."""
    import torch._dynamo

    torch._dynamo.reset()
    backend = RecordingBackend()
    args = fresh_args(case)
    compiled = torch.compile(case.fn, backend=backend)
    torch.manual_seed(1)
    outcome = run(compiled, args)
    torch._dynamo.reset()
    return backend.graphs, outcome


def compile_count() -> int:
    return convert_frame.counters["frames_compiled"]


def frames_converted() -> int:
    """Frames translated without failure: compiled, or left to CPython because their
    trace records no operation."""
    return compile_count() + convert_frame.counters["frames_empty"]
