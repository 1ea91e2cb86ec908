"""The graph-break reasons, each with a stable id (like Dynamo's GB ids), a category, a
one-line explanation and a hint (seed "Graph Breaks": "run with graph_breaks to see how
many breaks your program hits"). `exc.unimplemented(..., gb=...)` names one of them;
the `graph_breaks` channel and `fullgraph=True` errors print them. Our own reasons are
numbered from GB0001; a reason added later that Dynamo also has takes Dynamo's number.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class GraphBreakType:
    gb_id: str
    category: str
    explanation: str
    hint: str


_TYPES = [
    GraphBreakType(
        "GB0001",
        "unsupported",
        "The tracer does not model this construct.",
        "Move it out of the compiled function, or wrap it in minidynamo.disable.",
    ),
    GraphBreakType(
        "GB0002",
        "builtin call",
        "A builtin function without a tracing rule (e.g. print) runs in CPython.",
        "Avoid calling it in the compiled region, or call it before or after it.",
    ),
    GraphBreakType(
        "GB0003",
        "data-dependent control flow",
        "A branch on the value of a tensor needs that value, which only exists at run time.",
        "Use torch.where or torch.cond, or branch on shapes and Python values instead.",
    ),
    GraphBreakType(
        "GB0004",
        "data-dependent tensor method",
        "The result of this tensor method is a Python value that depends on tensor data.",
        "Keep the computation in tensors (avoid .item(), .tolist(), .numpy()).",
    ),
    GraphBreakType(
        "GB0005",
        "skipped function",
        "A library function or a function wrapped in minidynamo.disable is not traced.",
        "Use an equivalent torch operation, or accept the break.",
    ),
    GraphBreakType(
        "GB0006",
        "unsupported opcode",
        "The translator has no handler for this bytecode instruction.",
        "Rewrite the statement with simpler Python.",
    ),
    GraphBreakType(
        "GB0007",
        "unsupported call",
        "A call to an object the tracer cannot enter (a C function without a rule).",
        "Use an equivalent torch operation, or accept the break.",
    ),
    GraphBreakType(
        "GB0088",
        "observed exception",
        "The traced code raised an exception that no handler in the frame catches.",
        "CPython runs the frame and raises it; avoid raising on the compiled path.",
    ),
    GraphBreakType(
        "GB8977",
        "class definition",
        "A class statement inside the compiled function is not traced: CPython runs it.",
        "Define the class outside the compiled function.",
    ),
]

REGISTRY: dict[str, GraphBreakType] = {gb.gb_id: gb for gb in _TYPES}

UNSUPPORTED = "GB0001"
BUILTIN_CALL = "GB0002"
DATA_DEPENDENT_BRANCH = "GB0003"
DATA_DEPENDENT_METHOD = "GB0004"
SKIPPED_FUNCTION = "GB0005"
UNSUPPORTED_OPCODE = "GB0006"
UNSUPPORTED_CALL = "GB0007"
OBSERVED_EXCEPTION = "GB0088"
CLASS_DEFINITION = "GB8977"
