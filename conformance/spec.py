"""The case model of the conformance suite (DESIGN.md "Conformance suite"), test262 style.

A case is a small program (a function of a module under conformance/cases/), the calls to
make, and what to expect. Inputs are declared (`T(4, 3)`), so the eager run and the
compiled run each get fresh, identical values.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

import torch

TAGS = frozenset(
    {
        "arithmetic",
        "autograd",
        "builtins",
        "calls",
        "closures",
        "compiled-module",
        "containers",
        "context-managers",
        "control-flow",
        "descriptors",
        "dynamic-shapes",
        "dynamo-divergence",
        "exceptions",
        "fullgraph",
        "generators",
        "globals",
        "graph-breaks",
        "guards",
        "inlining",
        "loops",
        "model-idioms",
        "nn-idioms",
        "nn-module",
        "numpy",
        "python-semantics",
        "real-models",
        "recompiles",
        "seed",
        "side-effects",
        "stdlib",
        "tensor-methods",
        "tensor-objects",
        "torch-api",
        "unpacking",
    }
)

OUTCOMES = ("returns", "raises", "compile-error")
PYTHONS = ("3.10", "3.11", "3.12", "3.13")


class T:
    """A tensor to create afresh for every run: `T(4, 3)`, `T(5, dtype=torch.int64)`.

    Floating dtypes draw from randn, integer dtypes from [-8, 8], bool from coin flips;
    the runner seeds torch's generator before each call, so every run draws the same
    values. `mark_dynamic` names dims the compiled run marks dynamic (seed: mark_dynamic);
    `parameter=True` makes an `nn.Parameter` (floating, requires_grad).
    """

    def __init__(
        self,
        *shape: int,
        dtype: torch.dtype = torch.float32,
        requires_grad: bool = False,
        mark_dynamic: Sequence[int] = (),
        parameter: bool = False,
    ) -> None:
        self.shape = shape
        self.dtype = dtype
        self.requires_grad = requires_grad
        self.mark_dynamic = tuple(mark_dynamic)
        self.parameter = parameter

    def make(self) -> torch.Tensor:
        if self.parameter:
            return torch.nn.Parameter(torch.randn(self.shape, dtype=self.dtype))
        if self.dtype == torch.bool:
            return torch.rand(self.shape) > 0.5
        if self.dtype.is_floating_point:
            value = torch.randn(self.shape, dtype=self.dtype)
            return value.requires_grad_(self.requires_grad)
        return torch.randint(-8, 9, self.shape, dtype=self.dtype)

    def __repr__(self) -> str:
        extras = [str(n) for n in self.shape]
        if self.dtype != torch.float32:
            extras.append(f"dtype={self.dtype}")
        if self.requires_grad:
            extras.append("requires_grad=True")
        if self.mark_dynamic:
            extras.append(f"mark_dynamic={self.mark_dynamic}")
        if self.parameter:
            extras.append("parameter=True")
        return f"T({', '.join(extras)})"


class Make:
    """Any other fresh value: `Make(torch.arange, 10)` calls ``torch.arange(10)`` per run."""

    def __init__(self, factory: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.factory = factory
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        name = getattr(self.factory, "__qualname__", repr(self.factory))
        return f"Make({name}, {', '.join(map(repr, self.args))})"


class Call:
    """One call of the case's function: `Call(T(8), "Hello")`.

    `before` runs just before this call, in the eager and in the compiled run alike (a
    function of the case module: rebind a global, append to a global list ...).
    """

    def __init__(
        self,
        *args: Any,
        kwargs: dict[str, Any] | None = None,
        before: Callable[[], None] | None = None,
    ) -> None:
        self.args = args
        self.kwargs = kwargs or {}
        self.before = before

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"Call({', '.join(parts)})"


@dataclasses.dataclass(frozen=True)
class Break:
    """A graph break: its stable reason id (Dynamo's GB id) and the user source line."""

    reason: str
    line: str

    def __str__(self) -> str:
        return f"{self.reason} at `{self.line}`"


@dataclasses.dataclass(frozen=True)
class Expect:
    """What a case shows. Unset fields (None) are not checked.

    outcome  "returns" (default), "raises" (eager raises; so must the compiled run) or
             "compile-error" (a call of the compiled run stops with the implementation's
             error, the calls before it doing what eager did).
    frames   frames compiled: cache entries made, resume functions included (a frame that
             records no operation is left to CPython, not compiled).
    graphs   graphs handed to the backend.
    ops      per graph, the operations in order: `sub`, `pow` (operator functions),
             `torch.sin` (other functions), `.sum` (methods), module paths.
    guards   per compiled frame, guard lines that must be among its guards.
    breaks   every graph break, in order.
    recompiles  per recompile, the failing guard(s) of the cache entries ("; "-joined,
             newest entry first).
    """

    outcome: str = "returns"
    frames: int | None = None
    graphs: int | None = None
    ops: list[list[str]] | None = None
    guards: list[list[str]] | None = None
    breaks: list[Break] | None = None
    recompiles: list[str] | None = None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {self.outcome!r}")


@dataclasses.dataclass
class Case:
    """One registered case; `id` is ``<case module>.<function name>``."""

    id: str
    fn: Callable[..., Any]
    module: types.ModuleType
    tags: tuple[str, ...]
    calls: tuple[Call, ...]
    expect: Expect
    seed: str | None
    python: tuple[str, str]
    options: dict[str, Any]
    factory: bool
    config: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()

    def runs_on(self, version: tuple[int, int] = sys.version_info[:2]) -> bool:
        low, high = (tuple(int(p) for p in v.split(".")) for v in self.python)
        return low <= version <= high

    def target(self) -> Callable[..., Any]:
        """The callable under test, fresh for each run when the case is a factory."""
        if not self.factory:
            return self.fn
        torch.manual_seed(0)
        return self.fn()


REGISTRY: dict[str, Case] = {}


def case(
    *,
    tags: Sequence[str],
    calls: Sequence[Call],
    expect: Expect | None = None,
    seed: str | None = None,
    python: tuple[str, str] = (PYTHONS[0], PYTHONS[-1]),
    options: dict[str, Any] | None = None,
    factory: bool = False,
    config: dict[str, Any] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as a case (see conformance/README.md).

    `options` go to the implementation's compile (`fullgraph`, `dynamic`); with
    `factory=True` the function builds the callable under test (an nn.Module, a closure).
    `config` sets Dynamo's config knobs of these names (`recompile_limit`,
    `automatic_dynamic_shapes` ...) for the compiled run (`Adapter.configured`).
    """
    unknown = set(tags) - TAGS
    if unknown:
        raise ValueError(f"unknown tags {sorted(unknown)}; known: {sorted(TAGS)}")
    if not calls:
        raise ValueError("a case makes at least one call")
    if not all(v in PYTHONS for v in python):
        raise ValueError(f"python range must use versions from {PYTHONS}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        module = sys.modules[fn.__module__]
        case_id = f"{fn.__module__.rpartition('.')[2]}.{fn.__name__}"
        if case_id in REGISTRY:
            raise ValueError(f"duplicate case id {case_id}")
        REGISTRY[case_id] = Case(
            id=case_id,
            fn=fn,
            module=module,
            tags=tuple(tags),
            calls=tuple(calls),
            expect=expect or Expect(),
            seed=seed,
            python=python,
            options=dict(options or {}),
            factory=factory,
            config=dict(config or {}),
        )
        return fn

    return register


def one_graph(*ops: str) -> Expect:
    """The most common expectation: one frame compiled, one graph with these ops."""
    return Expect(frames=1, graphs=1, ops=[list(ops)])


def check_tensor(
    source: str,
    size: Sequence[int | None],
    stride: Sequence[int | None] | None = None,
    dtype: str = "torch.float32",
    requires_grad: bool = False,
) -> str:
    """The guard text of a CPU tensor input (DESIGN.md "Output formats"); `stride`
    defaults to the contiguous strides of a static `size`."""
    if stride is None:
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= n  # type: ignore[operator]
    return (
        f"check_tensor({source}, {dtype}, device=cpu, requires_grad={requires_grad}, "
        f"size={list(size)}, stride={list(stride)})"
    )


class Same:
    """The very object that argument `index` of the same call is: `Call(T(3), Same(0))`
    passes one tensor twice (an aliasing guard), where `Call(T(3), T(3))` passes two."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"Same({self.index})"


def materialize_args(args: tuple, marks: list[tuple[torch.Tensor, int]]) -> tuple:
    """Fresh copies of a call's positional arguments, `Same` resolved."""
    fresh = materialize(tuple(a for a in args if not isinstance(a, Same)), marks)
    it = iter(fresh)
    made: list[Any] = []
    for a in args:
        made.append(made[a.index] if isinstance(a, Same) else next(it))
    return tuple(made)


def materialize(value: Any, marks: list[tuple[torch.Tensor, int]]) -> Any:
    """A fresh copy of a declared argument; tensors to mark dynamic go to `marks`."""
    if isinstance(value, T):
        tensor = value.make()
        marks.extend((tensor, dim) for dim in value.mark_dynamic)
        return tensor
    if isinstance(value, Make):
        return value.factory(*value.args, **value.kwargs)
    if type(value) in (list, tuple):
        return type(value)(materialize(v, marks) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*(materialize(v, marks) for v in value))
    if type(value) is dict:
        return {k: materialize(v, marks) for k, v in value.items()}
    return copy.deepcopy(value)
