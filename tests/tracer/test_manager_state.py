"""torch's global state after a compiled call equals eager's (issue 19): grad mode, autocast,
inference mode and the SDPA backends, after a block left normally, left by an exception
(raised in the graph's code or by the call that breaks the graph), after a graph break
inside it, and after a trace that stops inside it (fullgraph=True refusing a break)."""

from __future__ import annotations

from collections.abc import Callable

import minidynamo
import pytest
import torch
from minidynamo.exc import Unsupported
from torch.nn.attention import SDPBackend, sdpa_kernel
from tracer_harness import compile_count


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def global_state() -> tuple:
    return (
        torch.is_grad_enabled(),
        torch.is_autocast_enabled("cpu"),
        torch.get_autocast_dtype("cpu"),
        torch.is_inference_mode_enabled(),
        tuple(torch.nn.attention._cur_sdpa_kernel_backends()),
    )


def autocast_break(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ x
        print("inside")
        return y @ y, torch.is_autocast_enabled("cpu")


def autocast_raises(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ x
        raise ValueError(y.dtype)


def breaking_call_raises_in_nested_blocks(x):
    with torch.no_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
            print(y.dtype, sep=5)  # a graph break; raises TypeError in CPython
    return y


def exception_caught_outside_block(x):
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
            raise KeyError(y.dtype)
    except KeyError:
        return x + 1, torch.is_autocast_enabled("cpu")


def inference_mode_break(x):
    with torch.inference_mode():
        y = x * 2
        print("inside")
        z = y + 1
    return z, z.is_inference()


def sdpa_kernel_break(x):
    q = x.reshape(1, 1, 3, 3)
    with sdpa_kernel(SDPBackend.MATH):
        y = torch.nn.functional.scaled_dot_product_attention(q, q, q)
        print("inside")
        return y + 1


def no_grad_in_autocast_break(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.no_grad():
            y = x @ x
            print("inside")
            z = y @ y
    return z.float(), z.requires_grad


PROGRAMS = [
    autocast_break,
    autocast_raises,
    breaking_call_raises_in_nested_blocks,
    exception_caught_outside_block,
    inference_mode_break,
    sdpa_kernel_break,
    no_grad_in_autocast_break,
]


def outcome(fn: Callable, x: torch.Tensor) -> tuple:
    """What a call returns or raises, and the global state after it."""
    try:
        result = fn(x)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return type(e), global_state()
    return result, global_state()


def assert_same(eager: object, compiled: object) -> None:
    if isinstance(eager, torch.Tensor):
        assert isinstance(compiled, torch.Tensor)
        assert eager.dtype == compiled.dtype
        assert eager.requires_grad == compiled.requires_grad
        torch.testing.assert_close(compiled, eager)
    elif isinstance(eager, tuple):
        assert isinstance(compiled, tuple) and len(eager) == len(compiled)
        for e, c in zip(eager, compiled, strict=True):
            assert_same(e, c)
    else:
        assert eager == compiled


@pytest.mark.parametrize("grad", [True, False])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda fn: fn.__name__)
def test_state_after_call_equals_eager(fn: Callable, grad: bool, capsys) -> None:
    x = torch.randn(3, 3, requires_grad=True)
    with torch.set_grad_enabled(grad):
        before = global_state()
        eager = outcome(fn, x)
        assert global_state() == before
        compiled_fn = minidynamo.compile(fn, backend="eager")
        for _ in range(2):  # the first call traces, the second runs the compiled code
            assert_same(eager, outcome(compiled_fn, x))


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda fn: fn.__name__)
def test_trace_stopped_inside_block_restores_state(fn: Callable, capsys) -> None:
    """fullgraph=True refuses the break (or the exception leaving the frame) inside the
    block: the state the trace switched is switched back."""
    before = global_state()
    compiled_fn = minidynamo.compile(fn, backend="eager", fullgraph=True)
    try:
        compiled_fn(torch.randn(3, 3))
    except (Unsupported, ValueError, TypeError):
        pass
    assert global_state() == before


def enable_grad_inside_no_grad(x):
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 2
    return y


def test_nested_grad_blocks_guard_the_mode_the_frame_is_entered_in():
    """The inner block's guard names the frame's own mode, not the outer block's (an
    `is_grad_enabled() == False` guard on entry could never hold: a recompile per call)."""
    compiled = minidynamo.compile(enable_grad_inside_no_grad, backend="eager")
    x = torch.ones(2, requires_grad=True)
    for _ in range(3):
        assert compiled(x).requires_grad
    assert compile_count() == 1


def default_dtype_switched_inside(x):
    prior = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    y = torch.ones(2) + x
    inside = torch.get_default_dtype()
    torch.set_default_dtype(prior)
    return y, inside, torch.get_default_dtype()


def test_set_default_dtype_inside_is_replayed_and_restored():
    """`torch.set_default_dtype` in the trace: the graph sets it on every call, the trace
    sees the new dtype after it, and its entry dtype is guarded (one compile, not one per
    call: the guard names the frame's dtype, not the one set inside)."""
    compiled = minidynamo.compile(default_dtype_switched_inside, backend="eager", fullgraph=True)
    x = torch.ones(2)
    for _ in range(3):
        y, inside, after = compiled(x)
        assert (y.dtype, inside, after) == (torch.float64, torch.float64, torch.float32)
        assert torch.get_default_dtype() == torch.float32
    assert compile_count() == 1


def default_dtype_query(x):
    return torch.ones(2) + x, torch.get_default_dtype()


def test_default_dtype_query_is_guarded():
    """A folded `torch.get_default_dtype()` recompiles when the frame is entered with
    another default dtype (it returned the first one's)."""
    compiled = minidynamo.compile(default_dtype_query, backend="eager")
    x = torch.ones(2)
    assert compiled(x)[1] == torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert compiled(x)[1] == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    assert compile_count() == 2
