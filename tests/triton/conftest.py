"""Shared checks for the Triton backend's tests; every kernel runs on the CPU: Triton's
interpreter (TRITON_INTERPRET=1, set by tests/conftest.py) runs the generated kernels on
CPU tensors (with numpy), exactly as written.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import pytest
import torch
from minidynamo.backends.triton import CompiledGraph, triton_backend
from torch._prims_common import is_non_overlapping_and_dense_or_false
from torch.utils import _pytree as pytree

TOLERANCES = {
    torch.float32: {"rtol": 1e-5, "atol": 1e-5},
    torch.float64: {"rtol": 1e-7, "atol": 1e-7},
}


def assert_same(actual: object, expected: object) -> None:
    """Equal to eager: structure, dtypes, shapes, strides of dense results, values."""
    actual_leaves, actual_spec = pytree.tree_flatten(actual)
    expected_leaves, expected_spec = pytree.tree_flatten(expected)
    assert actual_spec == expected_spec
    for got, want in zip(actual_leaves, expected_leaves, strict=True):
        if not isinstance(want, torch.Tensor):
            assert got == want
            continue
        assert got.dtype == want.dtype and got.shape == want.shape
        if is_non_overlapping_and_dense_or_false(want):
            assert _strides(got) == _strides(want)
        torch.testing.assert_close(got, want, equal_nan=True, **TOLERANCES.get(want.dtype, {}))


def _strides(t: torch.Tensor) -> tuple[int, ...]:
    """Strides of the dims that have more than one element: the others never matter."""
    return tuple(st for size, st in zip(t.shape, t.stride(), strict=True) if size > 1)


def compile_and_check(
    fn: Callable[..., object],
    *inputs: object,
    kernels: int | None = None,
    graph: str = "fx",
) -> CompiledGraph:
    """Compile fn's graph with the backend, run it, compare with eager, count kernels."""
    if graph == "fx":
        gm = torch.fx.symbolic_trace(_as_function(fn, len(inputs)))
    else:
        from torch.fx.experimental.proxy_tensor import make_fx

        gm = make_fx(fn)(*inputs)
    compiled = triton_backend(gm, list(inputs))
    expected = fn(*_clone(inputs))
    actual = compiled(*inputs)
    assert compiled.fallback_reason is None, compiled.fallback_reason
    assert_same(actual, expected)
    if kernels is not None:
        assert compiled.kernel_count == kernels, compiled.output_code.source
    return compiled


def _as_function(fn: Callable[..., object], arity: int) -> Callable[..., object]:
    """symbolic_trace wants a function or a Module: wrap builtins like torch.exp in a lambda."""
    if isinstance(fn, types.FunctionType | torch.nn.Module):
        return fn
    names = ", ".join(f"x{i}" for i in range(arity))
    return eval(f"lambda {names}: fn({names})", {"fn": fn})


def _clone(inputs: tuple[object, ...]) -> list[object]:
    return [i.clone() if isinstance(i, torch.Tensor) else i for i in inputs]


def pytest_configure(config: pytest.Config) -> None:
    # Masked-off lanes still compute, on the interpreter's placeholder zeros: numpy warns
    # about their divisions by zero and overflows, which never reach a result.
    config.addinivalue_line("filterwarnings", "ignore::RuntimeWarning:triton.runtime.interpreter")


@pytest.fixture
def check() -> Callable[..., CompiledGraph]:
    return compile_and_check


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)
