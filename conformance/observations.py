"""What an adapter reports after a case's compiled run, and the shared forms to compare.

Graphs are compared through a structural form that any implementation can produce from an
FX GraphModule: one line per node, ``%2 = call_function sub(%0, %1)``, independent of
node names; symbols are renumbered s0, s1 ... in order of appearance. Parity compares the
canonical form of two structures (`canonical`): placeholders in the order of their first
use, since when an implementation creates a graph input (at the first read of an argument,
or at its first use in an op, as Dynamo's LazyVariableTracker) is not part of the graph.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Final

import torch
import torch.fx
from torch.fx.node import _get_qualified_name

from conformance.spec import Break


class NotAvailable:
    """An observation the implementation cannot report (its checks count as "n/a")."""

    _instance: NotAvailable | None = None

    def __new__(cls) -> NotAvailable:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_AVAILABLE"


NOT_AVAILABLE: Final = NotAvailable()


@dataclasses.dataclass(frozen=True)
class GraphObs:
    """One captured graph: the implementation's code text and the structural form."""

    code: str
    structure: tuple[str, ...]

    @property
    def ops(self) -> list[str]:
        """The operations in order, in the notation of `Expect.ops`."""
        return [op_name(line) for line in self.structure if " = call_" in line]


@dataclasses.dataclass
class Observations:
    """Everything observed over one compiled run; each field may be NOT_AVAILABLE."""

    frames: int | NotAvailable = NOT_AVAILABLE
    graphs: list[GraphObs] | NotAvailable = NOT_AVAILABLE
    guards: list[list[str]] | NotAvailable = NOT_AVAILABLE
    breaks: list[Break] | NotAvailable = NOT_AVAILABLE
    recompiles: list[str] | NotAvailable = NOT_AVAILABLE
    bytecode: list[str] | NotAvailable = NOT_AVAILABLE

    def text(self) -> str:
        """The deterministic report of golden snapshots and `conformance.show`."""
        out = [f"frames compiled: {self.frames}"]
        if isinstance(self.graphs, list):
            for i, graph in enumerate(self.graphs):
                out += ["", f"graph {i}:", graph.code, "", f"graph {i} structure:"]
                out += [f"  {line}" for line in graph.structure]
        else:
            out.append(f"graphs: {self.graphs}")
        if isinstance(self.guards, list):
            for i, guards in enumerate(self.guards):
                out += ["", f"guards of frame {i}:", *(f"  {g}" for g in guards)]
        else:
            out += ["", f"guards: {self.guards}"]
        out += ["", _listing("graph breaks", self.breaks)]
        out += ["", _listing("recompiles", self.recompiles)]
        return "\n".join(out) + "\n"


def _listing(title: str, items: list[Any] | NotAvailable) -> str:
    if not isinstance(items, list):
        return f"{title}: {items}"
    return "\n".join([f"{title}: {len(items)}", *(f"  - {item}" for item in items)])


_SYMBOL = re.compile(r"^[su]\d+$")


def structure_of(gm: torch.fx.GraphModule) -> tuple[str, ...]:
    """The structural form of `gm` (see the module docstring)."""
    index = {node: i for i, node in enumerate(gm.graph.nodes)}
    symbols: dict[str, str] = {}
    lines = []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            lines.append(f"%{index[node]} = placeholder {_placeholder(node, symbols)}")
        elif node.op == "output":
            lines.append(f"output {_arg(node.args[0], index)}")
        else:
            args = [_arg(a, index) for a in node.args]
            args += [f"{k}={_arg(v, index)}" for k, v in node.kwargs.items()]
            target = _target(node)
            lines.append(f"%{index[node]} = {node.op} {target}({', '.join(args)})")
    return tuple(lines)


_NODE_REF = re.compile(r"%\d+\b")


def canonical(structure: tuple[str, ...]) -> tuple[str, ...]:
    """`structure` with its placeholders ordered by first use (then by name), every
    node renumbered to match."""
    placeholders = [line for line in structure if " = placeholder " in line]
    others = [line for line in structure if " = placeholder " not in line]

    def first_use(line: str) -> tuple[float, str]:
        ref = line.partition(" = ")[0]
        uses = (i for i, other in enumerate(others) if ref in _NODE_REF.findall(other))
        return (next(uses, float("inf")), line.partition(" placeholder ")[2])

    ordered = sorted(placeholders, key=first_use) + others
    number = {
        line.partition(" = ")[0]: f"%{i}" for i, line in enumerate(ordered) if " = " in line
    }
    return tuple(_NODE_REF.sub(lambda ref: number[ref.group(0)], line) for line in ordered)


def _placeholder(node: torch.fx.Node, symbols: dict[str, str]) -> str:
    name = str(node.target)
    if _SYMBOL.match(name):
        return symbols.setdefault(name, f"{name[0]}{len(symbols)}")
    return name.lower()


def _target(node: torch.fx.Node) -> str:
    if node.op == "call_function":
        name = _get_qualified_name(node.target)
        module, _, short = name.rpartition(".")
        # A NumPy call traced as a tensor function is named by what it wraps
        # (`wrapped_sin`, `numpy_attr_wrapper`), wherever the implementation defines it.
        numpy_wrapper = short.startswith("wrapped_") or short == "numpy_attr_wrapper"
        if module in ("_operator", "operator", "builtins", "") or numpy_wrapper:
            return short
        return name
    return str(node.target).lower() if node.op != "call_method" else str(node.target)


def _arg(value: Any, index: dict[torch.fx.Node, int]) -> str:
    if isinstance(value, torch.fx.Node):
        return f"%{index[value]}"
    if isinstance(value, tuple):
        inner = ", ".join(_arg(v, index) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(_arg(v, index) for v in value)}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_arg(v, index)}" for k, v in value.items()) + "}"
    if isinstance(value, slice):
        parts = (value.start, value.stop, value.step)
        return f"slice({', '.join(_arg(p, index) for p in parts)})"
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return str(value)
    return repr(value)


def op_name(line: str) -> str:
    """`%2 = call_method sum(%1)` -> ``.sum``; other kinds -> their target."""
    kind, _, rest = line.partition(" = ")[2].partition(" ")
    target = rest.partition("(")[0]
    return f".{target}" if kind == "call_method" else target


def graph_code(gm: torch.fx.GraphModule) -> str:
    """gm's Python code, without the `x = None` lines FX adds to free values early."""
    lines = []
    for line in gm.code.strip().splitlines():
        lines.append(line.split(";  ")[0].rstrip())
    return "\n".join(lines)
