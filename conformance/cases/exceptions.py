"""Exceptions: raised by the compiled code exactly as eager raises them (type and message).

A raise on a traced path, a try/except handled while tracing, and errors of tensor
operations themselves; `outcome="raises"` cases compare the exception of each call.
"""

import torch

from conformance.spec import Break, Call, Expect, T, case


class Stop(Exception):
    """A user exception class."""


UNCAUGHT = "GB0088"  # an exception leaves the traced code: the frame runs in CPython


@case(
    tags=["exceptions", "graph-breaks"],
    calls=[Call(T(3), -1)],
    expect=Expect(
        outcome="raises",
        frames=0,
        breaks=[Break(UNCAUGHT, 'raise ValueError(f"n must be non-negative, got {n}")')],
    ),
)
def raise_value_error(x, n):
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    return x * n


@case(
    tags=["exceptions"],
    calls=[Call(T(3), 2), Call(T(3), -2)],
    expect=Expect(outcome="raises"),
)
def raise_on_second_call_only(x, n):
    if n < 0:
        raise ValueError("negative")
    return x * n


@case(tags=["exceptions"], calls=[Call(T(3), {})], expect=Expect(frames=1, graphs=1))
def try_except_handled_while_tracing(x, d):
    try:
        k = d["missing"]
    except KeyError:
        k = 3
    return x * k


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def try_finally(x):
    try:
        y = x + 1
    finally:
        y = y * 2
    return y


@case(
    tags=["exceptions", "tensor-methods"],
    calls=[Call(T(3), T(4))],
    expect=Expect(outcome="raises"),
)
def shape_mismatch_error(x, y):
    return x + y


@case(
    tags=["exceptions", "graph-breaks"],
    calls=[Call(T(3), [1])],
    expect=Expect(outcome="raises", frames=0, breaks=[Break(UNCAUGHT, "return x * l[3]")]),
)
def index_error(x, l):  # noqa: E741
    return x * l[3]


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(outcome="raises"))
def assertion_on_tensor_metadata(x):
    assert x.dim() == 2, "expected a matrix"
    return x


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def raise_and_catch_custom_error(x):
    try:
        raise Stop("done")
    except Stop:
        return x + 1


@case(
    tags=["exceptions", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=1, breaks=[Break("GB8977", "class Local(Exception):")]),
)
def local_class_definition_breaks(x):
    """Defining a class inside traced code is not supported: a break at the class."""

    class Local(Exception):
        pass

    return x + len(Local.__name__)


@case(tags=["exceptions"], calls=[Call(T(3), "x")], expect=Expect(outcome="raises"))
def type_error_on_constants(x, s):
    return x * (s + 1)


@case(tags=["exceptions"], calls=[Call(T(2, 3))], expect=Expect(outcome="raises"))
def bad_view_error(x):
    return x.view(4)


@case(tags=["exceptions"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def context_manager_no_grad(x):
    with torch.no_grad():
        y = x * 2
    return y + 1


def _raise_stop(n):
    if n > 0:
        raise Stop("from helper", n)
    return n


@case(tags=["exceptions", "inlining"], calls=[Call(T(3))], expect=Expect(frames=1, graphs=1))
def exception_from_inlined_call_caught(x):
    """The helper's raise unwinds to the caller's handler while tracing: one graph."""
    try:
        _raise_stop(2)
        return x
    except Stop as e:
        return x * e.args[1]


@case(tags=["exceptions"], calls=[Call(T(3), [1, 2])], expect=Expect(frames=1, graphs=1))
def finally_runs_when_index_error_is_caught(x, items):
    try:
        try:
            v = items[5]
        finally:
            x = x + 1
    except IndexError:
        v = 2
    return x * v
