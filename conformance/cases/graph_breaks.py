"""Graph breaks (seed: "Making Dynamo complete: Graph Breaks"; seed 004).

Code Dynamo cannot trace runs in CPython between two graphs: the graph before it, the
offending instruction, then a resume function that is compiled as a frame of its own.
Each case states the break's reason id (Dynamo's GB id) and its user source line.
"""

import time

import torch

from conformance.spec import Break, Call, Expect, Make, T, case

PRINT = "GB0059"  # a builtin Dynamo cannot trace, e.g. print
DATA_DEPENDENT = "GB0170"  # branching on a tensor's value
ITEM = "GB0124"  # Tensor.item() without capture_scalar_outputs


def log_value(t):
    print("value", t.shape)
    return t * 2


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=2, graphs=2, ops=[["add"], ["mul"]], breaks=[Break(PRINT, 'print("between")')]
    ),
)
def print_between_two_graphs(x):
    y = x + 1
    print("between")
    return y * 2


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["add"]], breaks=[Break(PRINT, "print(y)")]),
)
def print_of_graph_value(x):
    """The printed tensor is a graph output, materialized before print runs; the resume
    function only returns it, so it is not compiled."""
    y = x + 1
    print(y)
    return y


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.ones, 3))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[[".sum", "gt"], ["add"]],
        breaks=[Break(DATA_DEPENDENT, "if x.sum() > 0:")],
    ),
)
def data_dependent_if(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[[".sum"], ["mul"]],
        breaks=[Break(ITEM, "s = x.sum().item()")],
    ),
)
def item_breaks(x):
    s = x.sum().item()
    return x * s


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=0, breaks=[Break("GB0109", "values = x.tolist()")]),
)
def tolist_breaks(x):
    """Nothing is traced before the break, nor after it: the frame is compiled only to
    call tolist and the resume function, which records nothing and is not compiled."""
    values = x.tolist()
    return len(values)


@case(
    tags=["graph-breaks", "inlining"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=4,
        graphs=3,
        ops=[["add"], ["mul"], ["sub"]],
        breaks=[Break(PRINT, 'print("value", t.shape)'), Break(PRINT, 'print("value", t.shape)')],
    ),
)
def break_inside_inlined_call(x):
    """Inlining log_value fails, so the caller breaks at the call; log_value then runs as
    a frame of its own and breaks at its print: caller, callee and both resume functions
    are compiled, and the break is met twice."""
    y = x + 1
    z = log_value(y)
    return z - 1


@case(
    tags=["graph-breaks", "loops"],
    calls=[Call(T(3))],
    expect=Expect(frames=0, graphs=0, breaks=[Break(PRINT, "print(i)")]),
)
def break_inside_for_loop(x):
    """A break inside a loop body cannot resume mid-loop: the whole frame runs eagerly."""
    for i in range(3):
        x = x + 1
        print(i)
    return x


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["torch._C._set_grad_enabled", "mul", "torch._C._set_grad_enabled"], ["add"]],
        breaks=[Break(PRINT, 'print("inside")')],
    ),
)
def break_inside_with_block(x):
    """A break under torch.no_grad(): the graph leaves the grad mode as it found it, the
    print runs under no_grad, and the resume function continues after the block."""
    with torch.no_grad():
        y = x * 2
        print("inside")
    return y + 1


@case(
    tags=["graph-breaks", "exceptions"],
    calls=[Call(T(3))],
    expect=Expect(frames=0, graphs=0, breaks=[Break(PRINT, 'print("trying")')]),
)
def break_inside_try_block(x):
    try:
        y = x * 2
        print("trying")
    except ValueError:
        y = x
    return y + 1


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=3, graphs=3, ops=[["add"], ["mul"], ["sub"]]),
)
def two_breaks_three_graphs(x):
    x = x + 1
    print("one")
    x = x * 2
    print("two")
    return x - 1


@case(
    tags=["graph-breaks", "builtins"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["mul"]]),
)
def unsupported_c_function(x):
    """time.time() is a C function Dynamo does not model (its result is not even used)."""
    y = x + 1
    time.time()
    return y * 2


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(frames=2, graphs=2),
)
def second_call_reuses_both_graphs(x):
    """Both the frame and its resume function hit their caches on the second call."""
    y = x.cos()
    print("break")
    return y.sin()


@case(
    tags=["graph-breaks", "side-effects"],
    calls=[Call(T(3), [])],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["mul"]]),
)
def side_effect_before_break_is_applied(x, out):
    """The list append recorded before the break is replayed before print runs."""
    out.append(x + 1)
    print(len(out))
    return out[0] * 2


@case(
    tags=["graph-breaks", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(outcome="compile-error"),
)
def fullgraph_turns_break_into_error(x):
    y = x + 1
    print("no graph break allowed")
    return y


@case(
    tags=["graph-breaks", "fullgraph", "control-flow"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(outcome="compile-error"),
)
def fullgraph_data_dependent_if_is_error(x):
    if x.max() > 10:
        return x
    return -x


@case(
    tags=["fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add"]]),
)
def fullgraph_without_breaks_compiles(x):
    return x * 2 + 1


@case(
    tags=["tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["mul", ".view_as", "torch.as_tensor", "add"]]),
)
def numpy_roundtrip_is_traced(x):
    """`.numpy()` and `torch.from_numpy` are traced, not broken on."""
    y = (x * 2).numpy()
    return torch.from_numpy(y) + 1
