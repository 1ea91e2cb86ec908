"""The fuzzer's differential runner: a program's six calls eagerly and compiled, compared
call by call.

Each run executes the program's module afresh (its own globals), builds each call's
arguments from the call's seed, and records per call: the result (tensors by shape, dtype
and values), which returned objects are the arguments themselves (`is`), the arguments
after the call (list contents, object attributes, tensor values), the module's globals,
the printed text and the exception raised. The first difference is reported with the
program as a conformance case to paste.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import linecache
import logging
from typing import Any

import minidynamo
import torch
from fuzz_programs import Args, Program

_names = itertools.count()


@dataclasses.dataclass
class Observed:
    """What one call did."""

    result: Any
    identity: list
    args_after: Any
    globals_after: Any
    printed: str
    exception: tuple[type, str] | None


def load(program: Program) -> dict:
    """Execute the program's module under a fresh `<fuzz-N>` file name (its source
    registered with linecache, so tracebacks and graph code show the lines)."""
    filename = f"<fuzz-{next(_names)}>"
    source = program.source()
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"__name__": "fuzz_program"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def make_args(namespace: dict, a: Args) -> tuple:
    torch.manual_seed(a.seed)
    x, w = torch.randn(a.size), torch.randn(a.size)
    box = namespace["BoxModule" if a.module else "Box"](w, a.seed)
    return x, list(range(a.seed, a.seed + a.length)), a.k, box


def describe(value: Any, depth: int = 0) -> Any:
    """A comparable picture of a value (tensors stay tensors, compared by `same`)."""
    if depth > 6:
        return "..."
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [describe(v, depth + 1) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, describe(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, torch.nn.Module):
        attrs = {k: v for k, v in vars(value).items() if not k.startswith("_")}
        attrs |= dict(value.named_parameters(recurse=False))
        attrs |= dict(value.named_buffers(recurse=False))
        return (type(value).__name__, describe(dict(sorted(attrs.items())), depth + 1))
    if hasattr(value, "__dict__") and not callable(value):
        return (type(value).__name__, describe(dict(vars(value)), depth + 1))
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (
            isinstance(a, torch.Tensor)
            and isinstance(b, torch.Tensor)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and torch.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-4 * max(1.0, abs(a))
    return type(a) is type(b) and a == b


def identity(result: Any, args: tuple, namespace: dict) -> list:
    """For the result and each item of a returned list or tuple: which argument (or part
    of one, or global) it is, by identity, or None."""
    known = {"x": args[0], "lst": args[1], "box": args[3], "box.w": args[3].w}
    known |= {f"G[{name}]": namespace[name] for name in ("W", "LOG", "MOD")}
    items = [result, *(result if isinstance(result, (list, tuple)) else ())]
    return [next((name for name, v in known.items() if v is item), None) for item in items]


def data_globals(namespace: dict) -> Any:
    return describe({name: namespace[name] for name in ("G", "W", "LOG", "MOD")})


def run(program: Program, compiled: bool) -> list[Observed]:
    namespace = load(program)
    fn = namespace["f"]
    if compiled:
        minidynamo.reset()
        fn = minidynamo.compile(fn, backend="eager")
    observed = []
    for a in program.calls:
        if a.rebind:
            namespace["rebind_globals"]()
        args = make_args(namespace, a)
        out = io.StringIO()
        result, exception = None, None
        with contextlib.redirect_stdout(out):
            try:
                result = fn(*args)
            except Exception as e:
                exception = (type(e), str(e))
        observed.append(
            Observed(
                describe(result),
                identity(result, args, namespace),
                describe(args),
                data_globals(namespace),
                out.getvalue(),
                exception,
            )
        )
    return observed


def first_difference(eager: list[Observed], compiled: list[Observed]) -> str | None:
    for i, (e, c) in enumerate(zip(eager, compiled, strict=True)):
        if e.exception is not None or c.exception is not None:
            if e.exception is None or c.exception is None:
                return f"call {i}: exception {e.exception} vs {c.exception}"
            if c.exception[0] is not e.exception[0]:
                if not issubclass(c.exception[0], e.exception[0]):
                    return f"call {i}: exception {e.exception} vs {c.exception}"
            elif c.exception[1] != e.exception[1]:
                return f"call {i}: exception {e.exception} vs {c.exception}"
        for what in ("result", "identity", "args_after", "globals_after", "printed"):
            if not same(getattr(e, what), getattr(c, what)):
                seen = getattr(e, what), getattr(c, what)
                return f"call {i}: {what}:\n  eager:    {seen[0]!r}\n  compiled: {seen[1]!r}"
    return None


def check(program: Program) -> str | None:
    """None if the compiled program behaved as eager, else the difference and the case."""
    eager = run(program, compiled=False)
    root = logging.getLogger("minidynamo")
    level = root.level
    root.setLevel(logging.ERROR)  # internal errors fall back to eager: not differences
    try:
        compiled = run(program, compiled=True)
    finally:
        root.setLevel(level)
    difference = first_difference(eager, compiled)
    if difference is None:
        return None
    return f"{difference}\n\n{program.as_case()}"
