"""The oracle: real TorchDynamo (`torch.compile`) behind the suite's adapter interface.

Graphs come from a capturing backend; guards (one set per frame compiled), graph breaks
and recompiles from Dynamo's `guards`, `graph_breaks` and `recompiles` log artifacts, rewritten
into our text format (DESIGN.md "Output formats") where the two differ only in spelling.
The only module of the project that imports torch._dynamo.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import logging
import re
import tokenize
import types
from collections.abc import Callable
from typing import Any

import torch
import torch._dynamo
from torch._dynamo.exc import FailOnRecompileLimitHit, Unsupported, UserError
from torch._dynamo.types import GuardFail

from conformance.adapters import Adapter
from conformance.observations import (
    NOT_AVAILABLE,
    GraphObs,
    Observations,
    graph_code,
    structure_of,
)
from conformance.spec import Break

_LOGGERS = {
    "guards": "torch._dynamo.guards.__guards",
    "recompiles": "torch._dynamo.guards.__recompiles",
    "graph_breaks": "torch._dynamo.symbolic_convert.__graph_breaks",
}

# Guards Dynamo installs on every frame, about global state rather than the inputs.
_AMBIENT = (
    "GLOBAL_STATE",
    "TORCH_FUNCTION_MODE_STACK",
    "DEFAULT_DEVICE",
    "DIMENSION_DYNAMIC_MARKING_GUARD",
    "NO_TENSOR_ALIASING",
)
_LEAF = re.compile(r"^[| ]*\+- ([A-Z][A-Z_]+): (.*)$")
_TENSOR_MATCH = re.compile(r"check_tensor\((.*?), \w+, DispatchKeySet\([^)]*\), ")
_TYPE_ID = re.compile(r"___check_type_id\((.*), \d+\), type=<class '([^']+)'>")
_OBJ_ID = re.compile(r"___check_obj_id\((.*), \d+\)(, type=<class '[^']+'>)?")
_BREAK_AT = re.compile(r"in user code at (.+):(\d+)")
_GB_ID = re.compile(r"/gb/gb(\d+)\.html")
_COMPILE_ID = re.compile(r"^\d+/\d+: ")


class _Collector(logging.Handler):
    """Hands each record of one artifact logger to a callback."""

    def __init__(self, on_message: Callable[[str], None]) -> None:
        super().__init__(logging.DEBUG)
        self.on_message = on_message

    def emit(self, record: logging.LogRecord) -> None:
        self.on_message(record.getMessage())


class TorchDynamoAdapter(Adapter):
    """torch.compile with a backend that keeps every GraphModule and runs it eagerly."""

    name = "torch_dynamo"

    def __init__(self) -> None:
        self._graphs: list[torch.fx.GraphModule] = []
        self._guards: list[list[str]] = []
        self._breaks: list[Break] = []
        self._recompiles: list[str] = []
        self._failures: list[str] = []
        torch._logging.set_logs(guards=True, recompiles=True, graph_breaks=True)
        for kind, on_message in (
            ("guards", self._on_guards),
            ("recompiles", self._on_recompile),
            ("graph_breaks", self._on_graph_break),
        ):
            logger = logging.getLogger(_LOGGERS[kind])
            logger.addHandler(_Collector(on_message))
            logger.propagate = False  # keep Dynamo's own stderr printing out of reports

    def compile(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        # What torch.compile(fn, backend=..., fullgraph=..., dynamic=...) expands to, plus
        # the hook that names the code object of each guard failure.
        return torch._dynamo.optimize(
            backend=self._backend,
            nopython=options.pop("fullgraph", False),
            dynamic=options.pop("dynamic", None),
            guard_fail_fn=self._on_guard_fail,
            **options,
        )(fn)

    def reset(self) -> None:
        torch._dynamo.reset()
        for observed in (self._graphs, self._guards, self._breaks, self._recompiles):
            observed.clear()
        self._failures.clear()

    def configured(self, knobs: dict[str, Any]) -> contextlib.AbstractContextManager[None]:
        return torch._dynamo.config.patch(**knobs)

    def mark_dynamic(self, tensor: torch.Tensor, dim: int) -> None:
        torch._dynamo.mark_dynamic(tensor, dim)

    def is_compile_error(self, error: BaseException) -> bool:
        return isinstance(error, (Unsupported, UserError, FailOnRecompileLimitHit))

    def observations(self) -> Observations:
        return Observations(
            frames=len(self._guards),
            graphs=[GraphObs(graph_code(gm), structure_of(gm)) for gm in self._graphs],
            guards=list(self._guards),
            breaks=list(self._breaks),
            recompiles=list(self._recompiles),
            bytecode=NOT_AVAILABLE,
        )

    def _backend(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
        self._graphs.append(gm)
        return gm.forward

    def _on_guards(self, message: str) -> None:
        if "TREE_GUARD_MANAGER" in message:
            self._guards.append(guard_lines(message))

    def _on_guard_fail(self, failure: GuardFail) -> None:
        self._failures.append(failure_reason(failure.reason, failure.orig_code))

    def _on_recompile(self, message: str) -> None:
        self._recompiles.append("; ".join(self._failures))
        self._failures.clear()

    def _on_graph_break(self, message: str) -> None:
        where = _BREAK_AT.search(message)
        gb_id = _GB_ID.search(message)
        if where is None:
            return
        line = linecache.getline(where[1], int(where[2])).strip()
        self._breaks.append(Break(f"GB{gb_id[1]}" if gb_id else "GB????", line))


def guard_lines(tree: str) -> list[str]:
    """The leaf guards of Dynamo's guard tree, spelled as in our format, ambient ones left out.

    ``check_tensor(L['a'], Tensor, DispatchKeySet(..), torch.float32, device=None, ..)``
    becomes ``check_tensor(L['a'], torch.float32, device=cpu, ..)`` (the suite runs on CPU,
    where Dynamo's device index is None); type and object ids become names.
    """
    lines = []
    for row in tree.splitlines():
        leaf = _LEAF.match(row)
        if leaf is None or leaf[1] in _AMBIENT:
            continue
        code = _strip_comment(leaf[2])
        if "top_saved_tensors_hooks" in code or "__builtins_dict__" in code:
            continue
        code = _TENSOR_MATCH.sub(r"check_tensor(\1, ", code).replace("device=None", "device=cpu")
        code = _TYPE_ID.sub(lambda m: f"___check_type_id({m[1]}, {m[2].rpartition('.')[2]})", code)
        lines.append(_OBJ_ID.sub(r"___check_obj_id(\1, <id>)", code))
    return lines


def failure_reason(reason: str, code: types.CodeType) -> str:
    """One guard failure in our format: `0/0: b == 'Hello'  # ...` -> `L['b'] == 'Hello'`.

    Dynamo strips `L[...]` from sources for readability; put it back for the frame's locals.
    """
    text = _strip_comment(_COMPILE_ID.sub("", reason.splitlines()[0]))
    local_names = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
    tensor = re.match(r"^tensor '([^']+)' (.*)$", text)
    if tensor:  # `tensor 'x' size mismatch ...`: only the quoted source is code
        return f"tensor '{_with_local_scope(tensor[1], local_names)}' {tensor[2]}"
    return _with_local_scope(text, local_names)


def _with_local_scope(expression: str, local_names: set[str]) -> str:
    tokens = list(tokenize.generate_tokens(io.StringIO(expression).readline))
    locals_at = [
        (token.start[1], token.string)
        for previous, token in zip([None, *tokens], tokens, strict=False)
        if token.type == tokenize.NAME
        and token.string in local_names
        and (previous is None or previous.string != ".")
    ]
    for start, name in reversed(locals_at):
        expression = f"{expression[:start]}L['{name}']{expression[start + len(name) :]}"
    return expression


def _strip_comment(code: str) -> str:
    """Dynamo pads each guard's code and appends `  # user line  # file:line`."""
    return re.split(r"\s{2,}# ", code, maxsplit=1)[0].strip()


def make_adapter() -> TorchDynamoAdapter:
    return TorchDynamoAdapter()
