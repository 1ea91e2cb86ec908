"""Guards: the assumptions a compiled frame makes about its inputs (seed "Guards").

The VariableBuilder adds a `Guard` for every input it wraps (type, value, tensor
properties, length, identity). All guards of a cache entry are compiled into one check
function `check(L, G)` over the frame's locals and globals; on a miss, `failure_reason`
names the first guard that failed, for the `recompiles` log.
Text format: DESIGN.md "Output formats" (type names, never ids).
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Callable
from typing import Any

import torch
from torch._guards import Source

from minidynamo.shapes import DYNAMIC_DIMS, sizes_match, tensor_guard_sizes
from minidynamo.source import NumpyTensorSource


@dataclasses.dataclass(frozen=True)
class Guard:
    """One assumption: `text` is what the logs print, `expr` what the check evaluates."""

    source: Source | None
    text: str
    expr: str


def describe(obj: object) -> str:
    """A stable name for `obj` in guard text (ids and addresses are never printed)."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return obj.__qualname__
    if isinstance(obj, types.CodeType):
        return obj.co_name
    return f"<{type(obj).__qualname__} object>"


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """The static properties `check_tensor` compares: type, dtype, device, grad, sizes.
    A size or stride is None where it is symbolic (the shape guards check it).
    `dynamic_dims`: the dims `mark_dynamic` had marked at compile time (None: no mark);
    a later tensor marked on other dims fails, so that its marks are honoured by a
    recompile (Dynamo's DIMENSION_DYNAMIC_MARKING_GUARD)."""

    type: type
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool
    size: tuple[int | None, ...]
    stride: tuple[int | None, ...]
    dynamic_dims: frozenset[int] | None = None

    @classmethod
    def of(cls, t: torch.Tensor, fake: torch.Tensor | None = None) -> TensorSpec:
        """The spec of input `t`; with its FakeTensor `fake`, symbolic dims are None."""
        size, stride = tensor_guard_sizes(t if fake is None else fake)
        marks = getattr(t, DYNAMIC_DIMS, None)
        dynamic_dims = None if marks is None else frozenset(marks)
        return cls(
            type(t), t.dtype, t.device, t.requires_grad, tuple(size), tuple(stride), dynamic_dims
        )

    def matches(self, value: object) -> bool:
        # Field by field, cheapest first: this runs on every call of compiled code.
        return (
            type(value) is self.type
            and value.dtype == self.dtype  # type: ignore[attr-defined]
            and value.requires_grad == self.requires_grad  # type: ignore[attr-defined]
            and sizes_match(self.size, value.size())  # type: ignore[attr-defined]
            and sizes_match(self.stride, value.stride())  # type: ignore[attr-defined]
            and value.device == self.device  # type: ignore[attr-defined]
            and self._marks_allowed(getattr(value, DYNAMIC_DIMS, None))
        )

    def _marks_allowed(self, marks: set[int] | None) -> bool:
        if marks is None:
            return True
        return self.dynamic_dims is not None and marks <= self.dynamic_dims

    def __str__(self) -> str:
        # The seed's text: the marks are checked too, but not printed.
        return (
            f"{self.dtype}, device={self.device}, requires_grad={self.requires_grad}, "
            f"size={list(self.size)}, stride={list(self.stride)}"
        )


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _distinct(*values: object) -> bool:
    return len({id(v) for v in values}) == len(values)


class GuardSet:
    """The ordered, de-duplicated guards of one frame, with the objects they refer to."""

    def __init__(self) -> None:
        self.guards: dict[str, Guard] = {}
        # `___from_numpy(L['a'])`: the tensor view of an ndarray input (NumpyTensorSource).
        self.namespace: dict[str, Any] = {"___from_numpy": torch.from_numpy}
        # The sources of tensor inputs, parameters aside, for `add_no_aliasing`.
        self.tensor_sources: dict[str, Source] = {}

    def __iter__(self):
        return iter(self.guards.values())

    def __len__(self) -> int:
        return len(self.guards)

    def _bind(self, obj: object) -> str:
        name = f"___obj{len(self.namespace)}"
        self.namespace[name] = obj
        return name

    def _add(self, source: Source | None, text: str, expr: str) -> None:
        if text not in self.guards:
            self.guards[text] = Guard(source, text, expr)

    def add_type_match(self, source: Source, value: object) -> None:
        kind = type(value)
        self._add(
            source,
            f"___check_type_id({source.name}, {describe(kind)})",
            f"type({source.name}) is {self._bind(kind)}",
        )

    def add_constant_match(self, source: Source, value: object) -> None:
        """Specialize on a constant: its type, and its value (seed: `L['b'] == 'Hello'`)."""
        if value is None:
            self._add(source, f"{source.name} is None", f"{source.name} is None")
            return
        self.add_type_match(source, value)
        if _is_nan(value):
            self._add(source, f"math.isnan({source.name})", f"{source.name} != {source.name}")
        else:
            # A set is compared with a copy: the set itself may grow before the next call.
            expected = frozenset(value) if isinstance(value, set) else value
            self._add(
                source, f"{source.name} == {value!r}", f"{source.name} == {self._bind(expected)}"
            )

    def add_id_match(self, source: Source, value: object) -> None:
        self._add(
            source,
            f"___check_obj_id({source.name}, {describe(value)})",
            f"{source.name} is {self._bind(value)}",
        )

    def add_length(self, source: Source, value: object) -> None:
        self.add_type_match(source, value)
        n = len(value)  # type: ignore[arg-type]
        self._add(source, f"len({source.name}) == {n}", f"len({source.name}) == {n}")

    def add_dict_keys(self, source: Source, value: dict) -> None:
        self.add_type_match(source, value)
        keys = list(value.keys())
        self._add(
            source,
            f"list({source.name}.keys()) == {keys!r}",
            f"list({source.name}.keys()) == {self._bind(keys)}",
        )

    def add_tensor_match(
        self, source: Source, value: torch.Tensor, fake: torch.Tensor | None = None
    ) -> None:
        spec = TensorSpec.of(value, fake)
        if type(value) is not torch.nn.Parameter:
            # An ndarray's tensor view is made afresh per call: the arrays are compared.
            distinct = source.base if isinstance(source, NumpyTensorSource) else source
            self.tensor_sources.setdefault(distinct.name, distinct)
        self._add(
            source,
            f"check_tensor({source.name}, {spec})",
            f"{self._bind(spec)}.matches({source.name})",
        )

    def add_grad_mode(self, enabled: bool) -> None:
        """The global grad mode a traced `with no_grad()` restores on exit."""
        self._add(
            None,
            f"torch.is_grad_enabled() == {enabled}",
            f"{self._bind(torch.is_grad_enabled)}() == {enabled}",
        )

    def add_hasattr(self, source: Source, name: str, present: bool) -> None:
        """The object at `source` has (or has not) the instance attribute `name`."""
        text = f"hasattr({source.name}, {name!r})"
        self._add(source, text if present else f"not {text}", text if present else f"not {text}")

    def add_not_in_instance_dict(self, source: Source, name: str) -> None:
        """The object at `source` has no instance attribute `name` (one would shadow the
        class attribute the trace read)."""
        text = f"{name!r} not in {source.name}.__dict__"
        self._add(source, text, text)

    def add_alias(self, source: Source, other: Source) -> None:
        """`source` and `other` are the same object (one graph input serves both)."""
        self._add(source, f"{source.name} is {other.name}", f"{source.name} is {other.name}")

    def add_no_aliasing(self) -> None:
        """The frame's tensor inputs are distinct objects, as when it was traced: one
        tensor passed twice is another trace (one graph input, an `add_alias` guard).
        Dynamo's NO_TENSOR_ALIASING guard; parameters are left out, as there."""
        if len(self.tensor_sources) > 1:
            names = ", ".join(self.tensor_sources)
            self._add(None, f"check_no_aliasing({names})", f"{self._bind(_distinct)}({names})")

    def add_shape_guards(self, texts: list[str]) -> None:
        """The shape guards of `ShapePolicy.produce_guards`: Python text over `L` and `G`
        (``L['b'].size()[0] == L['a'].size()[0]``), checked as written."""
        self.namespace.setdefault("math", math)
        for text in texts:
            self._add(None, text, text)

    def text(self) -> str:
        return "\n".join(self.guards)

    def compile(self) -> CheckFunction:
        return CheckFunction(list(self), dict(self.namespace))


class CheckFunction:
    """All guards of one cache entry, compiled into a single Python function."""

    def __init__(self, guards: list[Guard], namespace: dict[str, Any]) -> None:
        self.guards = guards
        self.namespace = namespace
        body = " and ".join(f"({g.expr})" for g in guards) or "True"
        self._check = self._compile(body)

    def _compile(self, body: str) -> Callable[[dict, dict], bool]:
        source = f"def ___check_guards(L, G):\n    return {body}\n"
        scope = dict(self.namespace)
        exec(compile(source, "<minidynamo guards>", "exec"), scope)
        return scope["___check_guards"]

    def __call__(self, f_locals: dict, f_globals: dict) -> bool:
        try:
            return bool(self._check(f_locals, f_globals))
        except Exception:  # a guard on a missing item or attribute simply fails
            return False

    def failure_reason(self, f_locals: dict, f_globals: dict) -> str | None:
        """The text of the first guard that fails on these locals, or None."""
        for guard in self.guards:
            if not CheckFunction([guard], self.namespace)(f_locals, f_globals):
                return guard.text
        return None
