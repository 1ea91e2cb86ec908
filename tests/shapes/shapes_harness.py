"""A miniature convert_frame over `ShapePolicy`, to test the policy alone: each call runs
the cache entries' guards on its inputs and, on a miss, "compiles" a program on FakeTensors
the way the VariableBuilder and OutputGraph use the policy (wrap inputs, trace, guards)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import torch
from minidynamo.shapes import (
    FrameShapeState,
    ShapePolicy,
    SymbolInput,
    compile_guards,
    format_graph_sizes,
    sizes_match,
    tensor_guard_sizes,
)
from minidynamo.source import LocalSource, placeholder_name

WHERE = "script.py:5 in fn"


@dataclasses.dataclass
class Entry:
    """One compile: the graph's inputs and example values, its guards and their check."""

    policy: ShapePolicy
    symbol_inputs: list[SymbolInput]
    examples: dict[str, Any]
    output: Any
    tensor_guards: list[str]
    constant_guards: list[str]
    shape_guards: list[str]
    check: Callable[[dict, dict], bool]

    @property
    def guards(self) -> list[str]:
        return self.tensor_guards + self.constant_guards + self.shape_guards

    def graph_sizes(self, name: str) -> str:
        """The graph's inputs, then the values its program named (a dict it returned)."""
        return format_graph_sizes(name, [*self.examples.items(), *self.output.items()])


class Frame:
    """The cache of one code object: entries, and automatic dynamic's memory."""

    def __init__(
        self,
        program: Callable[..., Any],
        *,
        dynamic: bool | None = None,
        log: logging.Logger | None = None,
    ) -> None:
        self.program = program
        self.dynamic = dynamic
        self.log = log
        self.state = FrameShapeState()
        self.entries: list[Entry] = []

    def __call__(self, **inputs: Any) -> Entry:
        """The entry that serves this call: the first whose guards pass, or a new one."""
        for entry in self.entries:
            if entry.check(inputs, {}):
                return entry
        entry = self.compile(inputs)
        self.entries.append(entry)
        return entry

    def compile(self, inputs: dict[str, Any]) -> Entry:
        policy = ShapePolicy(self.state, dynamic=self.dynamic, log=self.log)
        examples: dict[str, Any] = {}
        symbol_inputs: list[SymbolInput] = []
        tensor_guards: list[str] = []
        constant_guards: list[str] = []
        checks: list[Callable[[dict], bool]] = []
        for name, value in inputs.items():
            source = LocalSource(name)
            if isinstance(value, torch.Tensor):
                fake = policy.wrap_tensor(value, source)
                symbol_inputs += policy.new_symbol_inputs()
                size, stride = tensor_guard_sizes(fake)
                tensor_guards.append(
                    f"check_tensor({source.name}, {value.dtype}, device={value.device}, "
                    f"requires_grad={value.requires_grad}, size={size}, stride={stride})"
                )
                checks.append(_tensor_check(name, size, stride))
                examples[placeholder_name(source)] = fake
            else:
                wrapped = policy.wrap_int(value, source)
                if not isinstance(wrapped, torch.SymInt):
                    constant_guards.append(f"{source.name} == {value!r}")
                    checks.append(lambda L, name=name, value=value: L[name] == value)
                examples[placeholder_name(source)] = wrapped
        with policy.fake_mode:
            output = self.program(policy, *examples.values())
        shape_guards = policy.produce_guards()
        shape_check = compile_guards(shape_guards)
        return Entry(
            policy,
            symbol_inputs,
            examples,
            output,
            tensor_guards,
            constant_guards,
            shape_guards,
            lambda L, G: all(check(L) for check in checks) and shape_check(L, G),
        )


def _tensor_check(name: str, size: list, stride: list) -> Callable[[dict], bool]:
    def check(L: dict) -> bool:
        return sizes_match(size, L[name].size()) and sizes_match(stride, L[name].stride())

    return check


# The seed's programs, as the tracer would run them on FakeTensors. A program returns its
# graph's values by node name, for graph_sizes.


def seed_mul(policy: ShapePolicy, a: Any, b: Any) -> Any:
    """``return a.shape[0] * a * b``, with the graph's node names."""
    mul = a.shape[0] * a
    return {"mul": mul, "mul_1": mul * b}


def seed_branch(policy: ShapePolicy, a: Any) -> Any:
    """``if a.shape[0] * 2 < 16: return a`` ``else: return a + 1``"""
    if policy.evaluate(a.shape[0] * 2 < 16, WHERE):
        return {}
    return {"add": a + 1}


def seed_int(policy: ShapePolicy, x: Any, n: Any) -> Any:
    """``y = x ** 2`` ``if n >= 0: return (n + 1) * y`` ``else: return y / n``"""
    y = x**2
    if policy.evaluate(n >= 0, WHERE):
        return {"y": y, "mul": (n + 1) * y}
    return {"y": y, "truediv": y / n}


def double(policy: ShapePolicy, a: Any) -> Any:
    return a * 2


def elementwise(policy: ShapePolicy, a: Any, b: Any) -> Any:
    return a * b


def each_doubled(policy: ShapePolicy, a: Any, b: Any) -> Any:
    """Two inputs that are never combined."""
    return a * 2, b * 2


def specialize_on_8(policy: ShapePolicy, a: Any) -> Any:
    """``if a.shape[0] == 8: ...``: specializes dim 0."""
    if policy.evaluate(a.shape[0] == 8, WHERE):
        return a + 1
    return a - 1


def randn(*sizes: int) -> torch.Tensor:
    return torch.randn(*sizes)
