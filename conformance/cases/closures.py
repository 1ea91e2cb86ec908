"""Closures: free variables read through cells, nested functions, factories, nonlocal.

A compiled closure's free variables are guarded like locals; closures made while tracing
are inlined when called. Cases with `factory=True` build the closure under test.
"""

import torch

from conformance.spec import Break, Call, Expect, T, case, one_graph


def make_scaler(k):
    def scale(t):
        return t * k

    return scale


@case(tags=["closures"], calls=[Call(T(3))], expect=one_graph("mul"), factory=True)
def compiled_closure_constant():
    """The compiled function is itself a closure over the constant 3."""
    return make_scaler(3)


@case(tags=["closures"], calls=[Call(T(3))], expect=one_graph("mul"), factory=True)
def compiled_closure_over_tensor():
    """A closed-over tensor becomes a graph input, like a local."""
    weight = torch.linspace(0.0, 1.0, 3)

    def scale(t):
        return t * weight

    return scale


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("add"))
def nested_function_reads_local(x):
    offset = 5

    def shift(t):
        return t + offset

    return shift(x)


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def closure_from_factory_call(x):
    return make_scaler(4)(x)


@case(tags=["closures", "inlining"], calls=[Call(T(3), T(3))], expect=one_graph("sub"))
def closure_over_tensor_argument(x, y):
    def minus_y(t):
        return t - y

    return minus_y(x)


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("add", "add"))
def nonlocal_counter(x):
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    bump()
    return x + bump() + count


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def doubly_nested_closure(x):
    a = 2

    def outer(t):
        b = 3

        def inner(u):
            return u * a + b

        return inner(t)

    return outer(x)


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "mul", "mul"))
def closures_made_in_loop(x):
    scalers = [make_scaler(k) for k in (1, 2, 3)]
    return [f(x) for f in scalers]


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def closure_cell_rebound_before_call(x):
    k = 1

    def scale(t):
        return t * k

    k = 10
    return scale(x)


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("add"))
def lambda_capturing_local(x):
    n = 4
    return (lambda t: t + n)(x)


@case(
    tags=["closures", "recompiles", "guards"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def compiled_closure_called_twice():
    """A second call with the same cell contents reuses the compiled frame."""
    return make_scaler(2)


@case(tags=["closures", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def closure_returns_closure(x):
    def adder(n):
        def add(t):
            return t + n

        return add

    return adder(1)(x * 2)


def make_counter(n):
    def get():
        return n

    def inc():
        nonlocal n
        n += 1

    return get, inc


@case(
    tags=["closures", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break("GB0059", 'print("between")')]),
)
def closures_made_inline_live_across_graph_break(x):
    """Two closures `make_counter` made share a new cell: at the break they are rebuilt
    with one new cell (types.CellType) holding its value then, so `inc()` after the break
    is seen by `get()`; rebuilding such a cell was unsupported (the frame ran eagerly)."""
    get, inc = make_counter(2)
    inc()
    y = x * get()
    print("between")
    inc()
    return y + get()
