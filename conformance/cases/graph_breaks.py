"""Graph breaks (seed: "Making Dynamo complete: Graph Breaks"; seed 004).

Code Dynamo cannot trace runs in CPython between two graphs: the graph before it, the
offending instruction, then a resume function that is compiled as a frame of its own.
Each case states the break's reason id (Dynamo's GB id) and its user source line.
"""

import zlib

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
    """zlib.crc32 is a C function Dynamo does not model (its result is not even used; a
    deterministic one, so that a guard on the result reads the same on every run)."""
    y = x + 1
    zlib.crc32(b"minidynamo")
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


# --- more graph breaks: where they fall, how many per frame, what crosses them ---

COUNT = 0
SEEN = []


class Box:
    """A user object whose attribute is stored before and after a break."""

    def __init__(self):
        self.value = None


def shout(t):
    print("shout")
    return t + 1


def outer_helper(t):
    return shout(t) * 3


def item_helper(t):
    return t * t.sum().item()


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=1, ops=[["add"]], breaks=[Break(PRINT, 'print("start")')]),
)
def print_before_any_op(x):
    """Nothing is traced before the print: the frame compiles no graph, its resume one."""
    print("start")
    return x + 1


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["mul"]], breaks=[Break(PRINT, 'print("end")')]),
)
def print_after_last_op(x):
    y = x * 2
    print("end")
    return y


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=3,
        graphs=2,
        breaks=[Break(PRINT, 'print("a")'), Break(PRINT, 'print("b")')],
    ),
)
def two_prints_in_a_row(x):
    """The resume function after the first print starts at the second print."""
    y = x + 1
    print("a")
    print("b")
    return y * 2


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=4,
        graphs=4,
        ops=[["add"], ["mul"], ["sub"], ["truediv"]],
        breaks=[
            Break(PRINT, 'print("one")'),
            Break(PRINT, 'print("two")'),
            Break(PRINT, 'print("three")'),
        ],
    ),
)
def three_breaks_four_graphs(x):
    x = x + 1
    print("one")
    x = x * 2
    print("two")
    x = x - 3
    print("three")
    return x / 4


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=1, ops=[["mul"]], breaks=[Break(PRINT, "print(x.shape, n)")]),
)
def print_of_shape_and_int(x):
    """The printed values are Python values (a torch.Size and an int), not graph outputs:
    the frame records no operation before the print, and its resume function guards n."""
    n = x.shape[0] + 1
    print(x.shape, n)
    return x * n


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3), T(3))],
    expect=Expect(frames=2, graphs=2, ops=[["add", "mul"], ["sub", "add"]]),
)
def several_tensors_live_across_break(x, y):
    """Both intermediates are outputs of the first graph and inputs of the second."""
    a = x + y
    b = x * y
    print("live")
    return (a - b) + x


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["mul"]]),
)
def python_values_live_across_break(x):
    """An int, a string and a tuple cross the break as Python locals of the resume function."""
    n = 3
    label = "scale"
    pair = (1, 2)
    y = x + pair[1]
    print(label)
    return y * (n + pair[0])


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["mul"]]),
)
def print_result_is_used(x):
    """print returns None; the resume function receives it as a local."""
    y = x + 1
    r = print("value")
    return y * 2 if r is None else y


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break(ITEM, "s = x.sum().item()")]),
)
def item_in_python_arithmetic(x):
    """The item's float is a Python value of the resume function, used in its graph."""
    s = x.sum().item()
    return x + s * 2


@case(
    tags=["graph-breaks", "tensor-methods", "control-flow"],
    calls=[Call(Make(torch.ones, 3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break(ITEM, "if x.sum().item() > 0:")]),
)
def item_in_branch_condition(x):
    if x.sum().item() > 0:
        return x + 1
    return x - 1


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(4))],
    expect=Expect(
        frames=3, graphs=3, breaks=[Break(ITEM, "a = x[0].item()"), Break(ITEM, "b = x[1].item()")]
    ),
)
def two_items_two_breaks(x):
    a = x[0].item()
    b = x[1].item()
    return x * (a + b)


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break("GB0109", "values = x.tolist()")]),
)
def tolist_then_tensor_ops(x):
    """The list crosses the break; its length is a Python int in the resume function."""
    y = x * 2
    values = x.tolist()
    return y + len(values)


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.full, (3,), -1.0))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[[".sum", "gt"], ["sub"]],
        breaks=[Break(DATA_DEPENDENT, "if x.sum() > 0:")],
    ),
)
def data_dependent_if_takes_else(x):
    """The jump runs in CPython; only the resume function of the side taken is compiled."""
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.ones, 3)), Call(Make(torch.full, (3,), -1.0))],
    expect=Expect(frames=3, graphs=3, ops=[[".sum", "gt"], ["add"], ["sub"]]),
)
def data_dependent_if_both_sides(x):
    """The second call reuses the first graph, then takes the other side: its resume
    function is compiled then."""
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.ones, 3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break(DATA_DEPENDENT, "if x.max() > 0:")]),
)
def data_dependent_if_without_else(x):
    y = x * 2
    if x.max() > 0:
        y = y + 1
    return y - 3


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.ones, 3))],
    expect=Expect(
        frames=2, graphs=2, breaks=[Break(DATA_DEPENDENT, "return x + 1 if x.sum() > 0 else x - 1")]
    ),
)
def data_dependent_conditional_expression(x):
    return x + 1 if x.sum() > 0 else x - 1


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.ones, 3))],
    expect=Expect(
        frames=3,
        graphs=3,
        breaks=[Break(DATA_DEPENDENT, "if x.sum() > 0:"), Break(DATA_DEPENDENT, "if x.min() > 0:")],
    ),
)
def two_data_dependent_ifs(x):
    if x.sum() > 0:
        x = x + 1
    if x.min() > 0:
        x = x * 2
    return x


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(Make(torch.ones, 3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break(DATA_DEPENDENT, "if x.any():")]),
)
def data_dependent_truthiness(x):
    if x.any():
        return x + 1
    return x


@case(
    tags=["graph-breaks", "inlining"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=6,
        graphs=4,
        ops=[["add"], ["add"], ["mul"], ["sub"]],
        breaks=[Break(PRINT, 'print("shout")')] * 3,
    ),
)
def break_two_calls_deep(x):
    """The break in shout breaks the caller at its call of outer_helper, then
    outer_helper (run as a frame) at its call of shout, then shout at its print."""
    return outer_helper(x + 1) - 1


@case(
    tags=["graph-breaks", "inlining", "tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(frames=4, graphs=3, breaks=[Break(ITEM, "return t * t.sum().item()")] * 2),
)
def item_inside_inlined_call(x):
    """Met once while inlining item_helper (the caller breaks at the call), once in
    item_helper's own frame; the item's float is a guarded constant of its resume."""
    y = item_helper(x)
    return y + 1


@case(
    tags=["graph-breaks", "inlining"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(
        frames=4, graphs=2, breaks=[Break(PRINT, 'print("shout")'), Break(PRINT, 'print("shout")')]
    ),
)
def inlined_break_second_call_hits_caches(x):
    """Caller, callee and resume functions are all cached: the breaks are met once."""
    return shout(x) * 2


@case(
    tags=["graph-breaks", "side-effects", "containers"],
    calls=[Call(T(3), [])],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["mul"]]),
)
def list_appends_on_both_sides_of_break(x, out):
    out.append(x + 1)
    print("middle")
    out.append(x * 2)
    return len(out)


@case(
    tags=["graph-breaks", "side-effects", "containers"],
    calls=[Call(T(3), {})],
    expect=Expect(frames=2, graphs=2),
)
def dict_stores_on_both_sides_of_break(x, d):
    d["before"] = x + 1
    print("middle")
    d["after"] = d["before"] * 2
    return d


@case(
    tags=["graph-breaks", "side-effects", "globals"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=1, ops=[["mul"]]),
)
def global_counter_across_break(x):
    """The first increment is stored before print runs (no graph: nothing is traced);
    the resume function guards the stored value and reads it."""
    global COUNT
    COUNT += 1
    print("count", COUNT)
    COUNT += 1
    return x * COUNT


@case(
    tags=["graph-breaks", "side-effects", "globals"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2),
)
def global_list_append_across_break(x):
    SEEN.append(x + 1)
    print(len(SEEN))
    SEEN.append(x - 1)
    return x


@case(
    tags=["graph-breaks", "side-effects"],
    calls=[Call(T(3), Box())],
    expect=Expect(frames=2, graphs=2),
)
def attribute_store_across_break(x, box):
    box.value = x + 1
    print("stored")
    box.value = box.value * 2
    return x


@case(
    tags=["graph-breaks", "side-effects", "tensor-methods"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, ops=[[".add_"], [".mul_"]]),
)
def inplace_mutation_across_break(x):
    """The first graph's in-place add is visible to the print and to the resume function."""
    x.add_(1)
    print("mutated")
    x.mul_(2)
    return x


@case(
    tags=["graph-breaks", "closures"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2),
)
def closure_cell_across_break(x):
    scale = 3

    def apply(t):
        return t * scale

    y = apply(x)
    print("closure")
    return apply(y)


@case(
    tags=["graph-breaks", "nn-module"],
    calls=[Call(T(2, 4))],
    factory=True,
    expect=Expect(frames=2, graphs=2, breaks=[Break(PRINT, 'print("forward")')]),
)
def break_in_module_forward():
    class Noisy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x):
            y = self.linear(x)
            print("forward")
            return y.relu()

    return Noisy()


@case(
    tags=["graph-breaks", "dynamic-shapes", "recompiles"],
    calls=[Call(T(4)), Call(T(8)), Call(T(16))],
    expect=Expect(
        frames=4, graphs=4, breaks=[Break(PRINT, 'print("break")'), Break(PRINT, 'print("break")')]
    ),
)
def break_with_changing_sizes(x):
    """The frame and its resume function each turn dynamic on the second size."""
    y = x + 1
    print("break")
    return y * 2


@case(
    tags=["graph-breaks", "fullgraph", "tensor-methods"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, ops=[[".sum", ".item", "mul"]], breaks=[]),
)
def fullgraph_item_is_traced(x):
    """Under fullgraph=True Dynamo captures the scalar output instead of breaking:
    `.item()` is a node of the one graph."""
    return x * x.sum().item()


@case(
    tags=["graph-breaks", "fullgraph", "inlining"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(outcome="compile-error"),
)
def fullgraph_break_in_inlined_call_is_error(x):
    return shout(x) * 2


@case(
    tags=["graph-breaks", "control-flow"],
    calls=[Call(T(3), True), Call(T(3), False)],
    expect=Expect(frames=2, graphs=2),
)
def branch_on_python_bool_is_no_break(x, flag):
    """A branch on a Python bool is guarded, not broken on: each value compiles once."""
    if flag:
        return x + 1
    return x - 1


@case(
    tags=["graph-breaks", "fullgraph", "tensor-methods"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, breaks=[]),
)
def fullgraph_item_as_int_and_output(x):
    """A captured scalar output converted by `int()` (a `sym_int` node) and returned
    as is: both come from the graph."""
    total = x.sum().item()
    return x + int(total), total


@case(
    tags=["graph-breaks", "fullgraph", "control-flow"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(outcome="compile-error"),
)
def fullgraph_branch_on_item_is_error(x):
    """A branch on a captured scalar output needs its value while tracing: under
    fullgraph=True, an error."""
    if x.sum().item() > 0:
        return x
    return -x


def cubed_plus_one(a):
    return a * a * a + 1


@torch.compiler.disable
def disabled_by_torch(a):
    return cubed_plus_one(a) * 2


@case(
    tags=["graph-breaks", "calls"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["add"], ["sub"]],
        breaks=[Break("GB0098", "y = disabled_by_torch(x + 1)")],
    ),
)
def torch_compiler_disable_runs_its_callees_eagerly(x):
    """A function wrapped by torch.compiler.disable is not traced (a graph break) and
    the frames it runs are not converted: `cubed_plus_one` compiles no graph."""
    y = disabled_by_torch(x + 1)
    return y - 1


@torch.compiler.disable(recursive=False)
def disabled_itself_only(a):
    return cubed_plus_one(a) * 2


@case(
    tags=["graph-breaks", "calls"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=3,
        graphs=3,
        ops=[["add"], ["mul", "mul", "add"], ["sub"]],
        breaks=[Break("GB0099", "y = disabled_itself_only(x + 1)")],
    ),
)
def torch_compiler_disable_non_recursive_compiles_callees(x):
    """With recursive=False only the function's own frame runs uncompiled: the
    `cubed_plus_one` it calls is converted (its own graph)."""
    y = disabled_itself_only(x + 1)
    return y - 1


@case(
    tags=["graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(graphs=2, ops=[["mul"], ["add"]]),
)
def c_method_of_opaque_object_breaks_at_its_call(x):
    """A torch.Generator made in CPython (the first break) and its C method `manual_seed`:
    reading the method is kept, its call breaks the graph there, and the code after it
    resumes in a graph of its own (a break at the read would leave the frame to CPython)."""
    y = x * 2
    g = torch.Generator()
    g.manual_seed(0)
    return y + 1


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(graphs=1, ops=[["add", ".detach", "mul"]]),
)
def data_ptr_of_one_storage_compares_equal(x):
    """`data_ptr()` is an address known at run time only (Dynamo's DataPtrVariable): an
    unused one costs nothing, and two of one storage (a tensor and its detach()) compare
    equal while tracing."""
    y = x + 1
    y.data_ptr()
    return y * 2 if x.data_ptr() == x.detach().data_ptr() else y


@case(
    tags=["graph-breaks", "tensor-methods"],
    calls=[Call(T(3), T(3))],
    expect=Expect(
        graphs=1, ops=[["mul"]], breaks=[Break("GB5976", "same = a.data_ptr() == b.data_ptr()")]
    ),
)
def data_ptr_of_two_tensors_compared_breaks(a, b):
    """Whether two tensors share an address is known at run time only: the comparison
    breaks the graph (it and the rest run in CPython)."""
    y = a * 2
    same = a.data_ptr() == b.data_ptr()
    return y, same


@case(
    python=("3.12", "3.13"),
    tags=["graph-breaks", "loops"],
    calls=[Call([T(1), T(1), T(1)])],
    expect=Expect(frames=2, graphs=2, ops=[["mul"], ["add"]]),
)
def break_inside_list_comprehension_runs_it_in_cpython(xs):
    """A break inside a comprehension cannot resume mid-loop: the graph ends before the
    comprehension, which runs in CPython, and the frame resumes after it. On 3.10/3.11
    the comprehension is a function of its own (broken at its call); on 3.12+ it is
    inlined in the frame's bytecode (PEP 709) and its bytecode is run as it is."""
    y = xs[0] * 2
    values = []
    [values.append(t.item()) for t in xs]
    return y + sum(values)


@case(
    python=("3.12", "3.13"),
    tags=["graph-breaks", "loops"],
    calls=[Call(T(2))],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["mul", "add"]]),
)
def break_inside_nested_comprehension_left_on_the_stack(x):
    """A nested comprehension whose result is an operand (left on the stack, subscripted):
    the continuation gets it on its stack."""
    y = x + 1
    last = [[print("", end="") or i * j for j in range(2)] for i in range(3)][2]
    return y * sum(last) + y


@case(
    tags=["graph-breaks", "loops"],
    calls=[Call({"a": T(1), "b": T(1)})],
    expect=Expect(frames=0, graphs=0),
)
def break_inside_comprehension_over_a_dict_runs_the_frame_eagerly(d):
    """As Dynamo, which rebuilds the comprehension's iterator at the break and cannot for
    one over a dict: the frame runs in CPython."""
    y = d["a"] + 1
    values = {k: v.item() for k, v in d.items()}
    return y * values["b"]


@case(
    python=("3.12", "3.13"),
    tags=["graph-breaks", "loops", "context-managers"],
    calls=[Call(T(2, requires_grad=True))],
    expect=Expect(frames=2, graphs=2),
)
def break_inside_comprehension_in_no_grad_block(x):
    """The comprehension that breaks is inside ``torch.no_grad()``: it runs in CPython
    with the block entered again around it (its own cleanup handler inside the block
    too), and the continuation resumes inside the block."""
    with torch.no_grad():
        y = x * 2
        r1 = [y * i + (print("", end="") or 0) for i in range(2)][1]
    return y + r1, r1.requires_grad
