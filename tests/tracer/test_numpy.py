"""NumPy through torch._numpy (variables/numpy.py): the trace_rules table from NumPy to
torch._numpy, the wrappers the graph runs, and the conversions at the graph's entry and
exit and between tensors and ndarrays, each against eager execution."""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable

import minidynamo
import numpy as np
import pytest
import torch
import torch._numpy as tnp
from minidynamo import convert_frame, trace_rules
from minidynamo.variables.numpy import (
    function_wrapper,
    method_wrapper,
    numpy_attr_wrapper,
    operator_wrapper,
)


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


@pytest.mark.parametrize(
    ("fn", "counterpart"),
    [
        (np.sin, tnp.sin),
        (np.dot, tnp.dot),
        (np.linalg.norm, tnp.linalg.norm),
        (np.fft.fft, tnp.fft.fft),
        (np.random.rand, None),  # NumPy's generator: never traced
        (np.interp, None),  # torch._numpy has none
        (np.float32, tnp.float32),  # a scalar type: converts what is not a constant
    ],
)
def test_numpy_functions_map_to_torch_numpy(fn: object, counterpart: object) -> None:
    assert trace_rules.torch_numpy_counterpart(fn) is counterpart
    assert trace_rules.is_numpy_callable(fn)


def test_ndarray_and_torch_are_not_numpy_callables() -> None:
    assert not trace_rules.is_numpy_callable(np.ndarray)
    assert trace_rules.torch_numpy_counterpart(np.ndarray) is None
    assert not trace_rules.is_numpy_callable(torch.sin)
    assert not trace_rules.is_numpy_callable(np.ones(2))


def test_wrappers_run_torch_numpy_on_tensors() -> None:
    a = np.arange(6.0).reshape(2, 3)
    t = torch.from_numpy(a)
    assert torch.equal(function_wrapper(tnp.sin)(t), torch.from_numpy(np.sin(a)))
    assert torch.equal(method_wrapper("sum")(t, axis=0), torch.from_numpy(a.sum(axis=0)))
    assert torch.equal(operator_wrapper(operator.truediv)(t, 4), torch.from_numpy(a / 4))
    assert torch.equal(numpy_attr_wrapper(t, "T"), torch.from_numpy(a.T))
    # One wrapper object per function: the graph refers to one target each.
    assert function_wrapper(tnp.sin) is function_wrapper(tnp.sin)


def run_both(fn: Callable, *args: object, fullgraph: bool = False) -> tuple[object, object]:
    """`fn` eagerly and compiled, each on its own copies of the ndarray arguments."""

    def fresh() -> list[object]:
        return [a.copy() if isinstance(a, np.ndarray) else a for a in args]

    return fn(*fresh()), minidynamo.compile(fn, fullgraph=fullgraph)(*fresh())


def test_integer_division_follows_numpy() -> None:
    """`a / 2` of an int array is float64 in NumPy (torch would keep float32 rules)."""
    eager, compiled = run_both(lambda a: a / 2 + a // 3, np.arange(5), fullgraph=True)
    assert type(compiled) is np.ndarray and compiled.dtype == eager.dtype == np.float64
    np.testing.assert_array_equal(compiled, eager)


def test_ndarray_result_shares_no_memory_with_graph_outputs_twice() -> None:
    """One array returned twice is one ndarray object, as in eager."""

    def fn(a):
        b = np.sin(a)
        return b, b

    _, (first, second) = run_both(fn, np.ones(3), fullgraph=True)
    assert first is second


def test_torch_tensor_of_ndarray_copies() -> None:
    """`torch.tensor(a)` is a copy: a later write to `a` does not reach it."""

    def fn(x, a):
        t = torch.tensor(a, dtype=torch.float32)
        a[0] = 100.0
        return x + t, a

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "copy construct from a tensor" warning
        (eager, eager_a), (compiled, compiled_a) = run_both(
            fn, torch.ones(3), np.ones(3), fullgraph=True
        )
    assert torch.equal(compiled, eager)
    np.testing.assert_array_equal(compiled_a, eager_a)


def test_tensor_operator_takes_ndarray_as_tensor() -> None:
    """`x + a` of a tensor and an ndarray is torch's operator: a tensor result."""
    eager, compiled = run_both(lambda x, a: x + a, torch.ones(3), np.ones(3), fullgraph=True)
    assert type(compiled) is torch.Tensor and torch.equal(compiled, eager)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, a: a * x,  # NumPy's operator on a tensor: eager raises TypeError
        lambda x, a: torch.sin(a),  # a torch function rejects an ndarray
    ],
)
def test_numpy_and_torch_mixed_raise_as_eager(fn: Callable) -> None:
    with pytest.raises(TypeError):
        fn(torch.ones(3), np.ones(3))
    with pytest.raises(TypeError):
        minidynamo.compile(fn)(torch.ones(3), np.ones(3))


def test_array_torch_cannot_view_runs_eagerly() -> None:
    """Negative strides have no tensor view: the frame runs in CPython."""
    reversed_array = np.arange(4.0)[::-1]
    compiled = minidynamo.compile(lambda a: a * 2)(reversed_array)
    np.testing.assert_array_equal(compiled, reversed_array * 2)
    assert convert_frame.counters["frames_failed"] == 1


def test_data_dependent_value_breaks_unless_fullgraph() -> None:
    """`float(a.sum())` needs the data: a graph break, the result as eager's; under
    fullgraph=True a captured unbacked float (`wrapped_item`), as in Dynamo."""
    eager, compiled = run_both(lambda a: float(a.sum()) + 1, np.ones(3))
    assert compiled == eager
    assert convert_frame.counters["graph_breaks"] == 1
    assert minidynamo.compile(lambda a: float(a.sum()), fullgraph=True)(np.ones(3)) == 3.0


def test_one_array_passed_twice_is_another_trace() -> None:
    """Two distinct arrays, then one array twice: the aliasing guard compares the arrays
    (their tensor views are made afresh per call), so the second call recompiles."""

    def fn(a, b):
        a += 1
        return a + b

    compiled = minidynamo.compile(fn)
    compiled(np.zeros(2), np.zeros(2))
    shared = np.zeros(2)
    np.testing.assert_array_equal(compiled(shared, shared), [2.0, 2.0])  # (0 + 1) twice
    assert convert_frame.counters["frames_compiled"] == 2


def test_numpy_scalar_input_keeps_its_type_and_promotion() -> None:
    """A NumPy scalar input is a 0-dim array graph input, yet the program sees its type
    (`isinstance(s, float)` of np.float64 holds) and torch promotes with it as with a
    number: an int tensor times np.float64 is float32, in both operand orders."""

    def fn(x, s):
        return (x * s, s * x, x > s) if isinstance(s, float) else None

    eager, compiled = run_both(fn, torch.arange(4), np.float64(0.5), fullgraph=True)
    for e, c in zip(eager, compiled, strict=True):
        assert c.dtype == e.dtype
        assert torch.equal(c, e)


def test_numpy_scalar_new_value_and_type() -> None:
    """A new value reuses the graph; a new type (a Python float, an ndarray of the same
    dtype and shape) fails the type guard and compiles again."""
    compiled = minidynamo.compile(lambda x, s: x * s + 1)
    x = torch.ones(2)
    for s in (np.float64(2.0), np.float64(3.0), 4.0, np.array(5.0)):
        assert torch.equal(compiled(x, s), x * s + 1)
    assert convert_frame.counters["frames_compiled"] == 3


def test_numpy_scalar_nan_and_passed_twice_compile_once() -> None:
    """NaN is held by the 0-dim input (no not-NaN guard to fail on it), and one scalar
    object passed twice is two inputs, with no aliasing guard: each compiles once."""
    compiled = minidynamo.compile(lambda x, s, t: x * s + t)
    x, nan = torch.ones(2), np.float64("nan")
    for _ in range(3):
        assert compiled(x, nan, nan).isnan().all()
    assert convert_frame.counters["frames_compiled"] == 1


def test_numpy_scalar_results_are_scalars() -> None:
    """An operator or ufunc on NumPy scalars gives a NumPy scalar, returned as one (not a
    0-dim ndarray); `s += 1` binds a new scalar and leaves the caller's alone."""

    def fn(x, s):
        t = s * 2 + np.exp(s)
        s += 1
        return x * t, t, s

    eager, compiled = run_both(fn, torch.ones(2), np.float64(0.5), fullgraph=True)
    assert torch.equal(compiled[0], eager[0])
    for e, c in zip(eager[1:], compiled[1:], strict=True):
        assert type(c) is type(e) is np.float64
        assert c == e


def test_numpy_scalar_input_as_a_python_number() -> None:
    """Where the program asks for the number (`float(s)`, `range(n)`, `if flag:`,
    `n.item()`), a NumPy scalar input is its value, guarded: a new value compiles again."""

    def fn(x, s, n, flag):
        for _ in range(n):
            x = x + float(s) + n.item()
        return x if flag else -x

    compiled = minidynamo.compile(fn, fullgraph=True)
    x = torch.ones(2)
    for args in ((np.float64(0.5), np.int64(2), np.bool_(True)),) * 2 + (
        (np.float64(0.5), np.int64(3), np.bool_(False)),
    ):
        assert torch.equal(compiled(x, *args), fn(x, *args))
    assert convert_frame.counters["frames_compiled"] == 2


def test_numpy_scalar_input_where_python_or_torch_needs_a_number() -> None:
    """A slice bound, a list index, `math.log`, a format, a tensor method's `dim`: the
    scalar input's value, guarded (the graph gets its Python number)."""
    import math

    def fn(x, n, s):
        items = [x, x * 2]
        return items[n][:n].sum(dim=n - 1) * math.log(s), f"{s:.1f}"

    eager, compiled = run_both(fn, torch.arange(4.0), np.int64(1), np.float64(2.0), fullgraph=True)
    assert torch.equal(compiled[0], eager[0])
    assert compiled[1] == eager[1]


def test_branch_on_arithmetic_of_numpy_scalars() -> None:
    """`s * 2 - 1 > 0` of a scalar input is a scalar whose value NumPy computes at trace
    time: the branch is taken on it, the input's value guarded (Dynamo 2.14 fails)."""

    def fn(x, s):
        return x * s if s * 2 - 1 > 0 else x - s

    compiled = minidynamo.compile(fn, fullgraph=True)
    x = torch.ones(2)
    for s in (np.float64(1.0), np.float64(1.0), np.float64(0.25)):
        assert torch.equal(compiled(x, s), fn(x, s))
    assert convert_frame.counters["frames_compiled"] == 2
