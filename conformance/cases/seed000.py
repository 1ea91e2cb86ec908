"""Every example and log excerpt of seed 000 (the Dynamo deep dive), named after its section.

Where the seed's log was printed by an older Dynamo and today's prints the same fact in
another spelling, the case states today's fact and the docstring quotes the seed.
"""

import torch

from conformance.spec import Break, Call, Expect, Make, T, case, check_tensor

X200 = T(200)


@case(
    tags=["seed"],
    seed="000: A gentle introduction to Dynamo",
    calls=[Call(X200, X200)],
    expect=Expect(frames=1, graphs=1, ops=[["sub", "pow", ".sum"]]),
)
def intro_mse(x, y):
    """`z = (x - y) ** 2` is traced as two ops, `sub` and `z`; then `z.sum()`."""
    z = (x - y) ** 2
    return z.sum()


@case(
    tags=["seed", "control-flow"],
    seed="000: A gentle introduction to Dynamo",
    calls=[Call(X200, 2)],
    expect=Expect(frames=1, graphs=1, ops=[["pow", "mul"]], guards=[["L['n'] == 2"]]),
)
def intro_int_constant_specialised(x, n):
    """The `if` disappears and `n + 1` is folded: the graph records `mul = 3 * y`."""
    y = x**2
    if n >= 0:
        return (n + 1) * y
    else:
        return y / n


@case(
    tags=["seed", "control-flow", "dynamic-shapes", "recompiles"],
    seed="000: A gentle introduction to Dynamo",
    calls=[Call(X200, 2), Call(X200, 3), Call(X200, -2), Call(X200, 4)],
    expect=Expect(
        frames=3,
        graphs=3,
        ops=[["pow", "mul"], ["pow", "add", "mul"], ["pow", "truediv"]],
        recompiles=["L['n'] == 2", "0 <= L['n']; L['n'] == 2"],
    ),
)
def intro_int_becomes_symbolic(x, n):
    """n changes on the second call: it is traced as a SymInt (`l_n_`), one graph per
    branch; the fourth call, n=4, reuses the symbolic graph of the n >= 0 branch."""
    y = x**2
    if n >= 0:
        return (n + 1) * y
    else:
        return y / n


@case(
    tags=["seed", "guards"],
    seed="000: Guards",
    calls=[Call(Make(torch.arange, 10), "Hello")],
    expect=Expect(
        frames=1,
        ops=[["mul"]],
        guards=[["___check_type_id(L['b'], str)", "L['b'] == 'Hello'"]],
    ),
)
def guards_string_constant(a, b):
    """A constant input is guarded on its type and its value."""
    return a * len(b)


@case(
    tags=["seed", "guards", "recompiles"],
    seed="000: Guards",
    calls=[Call(Make(torch.arange, 10), "Hello"), Call(Make(torch.arange, 10), "Hi")],
    expect=Expect(
        frames=2,
        graphs=2,
        guards=[["L['b'] == 'Hello'"], ["L['b'] == 'Hi'"]],
        recompiles=["L['b'] == 'Hello'"],
    ),
)
def guards_string_recompile(a, b):
    """Seed's `TORCH_LOGS=recompiles`: "Recompiling function fn ... triggered by the
    following guard failure(s): - L['b'] == 'Hello'"."""
    return a * len(b)


@case(
    tags=["seed", "guards"],
    seed="000: Sources",
    calls=[Call(T(4), [T(4), T(4)])],
    expect=Expect(
        frames=1,
        ops=[["mul", "mul"]],
        guards=[
            [
                check_tensor("L['x']", [4]),
                check_tensor("L['y'][0]", [4]),
            ]
        ],
    ),
)
def sources_local_and_getitem(x, y):
    """x and y have a LocalSource, y[0] a GetItemSource; `a` has none (a graph value)."""
    a = x * y[0]
    return a * x


@case(
    tags=["seed", "guards"],
    seed="000: Sources",
    calls=[Call(T(8), ["Hi", "Hello"])],
    expect=Expect(
        frames=1,
        ops=[["mul"]],
        guards=[
            [
                "___check_type_id(L['l'], list)",
                "len(L['l']) == 2",
                "___check_type_id(L['l'][0], str)",
                "L['l'][0] == 'Hi'",
                "___check_type_id(L['l'][1], str)",
                # l[1] is never read: guarded on its type only (lazily, as Dynamo does)
            ]
        ],
    ),
)
def sources_getitem_guards(x, l):  # noqa: E741 (the seed's name)
    """GetItemSource ([0], [1]) wraps LocalSource (L['l']) in the guards' text."""
    return x * len(l[0])


@case(
    tags=["seed", "dynamic-shapes", "recompiles", "guards"],
    seed="000: Static by default",
    calls=[Call(T(4, 3), T(4, 3)), Call(T(8, 3), T(8, 3))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["mul", "mul"], [".size", "getitem", "mul", "mul"]],
        guards=[
            [
                check_tensor("L['a']", [4, 3]),
                check_tensor("L['b']", [4, 3]),
            ],
            [
                check_tensor("L['a']", [None, 3], [3, 1]),
                check_tensor("L['b']", [None, 3], [3, 1]),
                "L['b'].size()[0] == L['a'].size()[0]",
                "2 <= L['a'].size()[0]",
            ],
        ],
        recompiles=["tensor 'L['a']' size mismatch at index 0. expected 4, actual 8"],
    ),
)
def static_by_default(a, b):
    """First graph: `mul = 4 * l_a_`; the size changes, so the second traces s0:
    `size = l_a_.size(); getitem = size[0]; mul = getitem * l_a_`."""
    return a.shape[0] * a * b


@case(
    tags=["seed", "dynamic-shapes", "guards", "control-flow"],
    seed="000: Guards on symbolic ints",
    calls=[Call(T(8))],
    options={"dynamic": True},
    expect=Expect(frames=1, graphs=1, ops=[["add"]], guards=[["8 <= L['a'].size()[0]"]]),
)
def symbolic_guard_from_if(a):
    """The `if` on a SymNode installs a guard mid-trace; the seed prints it as
    `2*L['a'].size()[0] >= 16` (`eval 2*s0 >= 16 [guard added]`), today's ShapeEnv
    simplifies it to `8 <= L['a'].size()[0]`."""
    if a.shape[0] * 2 < 16:
        return a
    else:
        return a + 1


@case(
    tags=["seed", "dynamic-shapes", "recompiles"],
    seed="000: 0 and 1 are always specialized",
    calls=[Call(T(4, 3)), Call(T(8, 3)), Call(T(1, 3)), Call(T(16, 3))],
    expect=Expect(frames=3, graphs=3),
)
def zero_one_specialisation(a):
    """Size 1 fails the dynamic graph's `2 <= L['a'].size()[0]` and gets its own graph;
    size 16 reuses the dynamic one."""
    return a * 2


@case(
    tags=["seed", "dynamic-shapes"],
    seed="000: 0 and 1 are always specialized",
    calls=[Call(T(1, 3, mark_dynamic=(0,)))],
    expect=Expect(
        frames=1,
        guards=[[check_tensor("L['a']", [1, 3])]],
    ),
)
def zero_one_specialised_even_if_marked(a):
    """A dim marked dynamic is still specialized when its size is 1."""
    return a * 2


@case(
    tags=["seed", "dynamic-shapes", "guards"],
    seed="000: Duck shaping",
    calls=[Call(T(4), T(4)), Call(T(8), T(8)), Call(T(16), T(16))],
    expect=Expect(
        frames=2,
        graphs=2,
        guards=[[], ["L['b'].size()[0] == L['a'].size()[0]"]],
    ),
)
def duck_shaping(a, b):
    """Equal dynamic sizes share one symbol, with a guard that they stay equal."""
    return a + b


@case(
    tags=["seed", "dynamic-shapes", "recompiles"],
    seed="000: Duck shaping",
    calls=[Call(T(8), T(8)), Call(T(8), T(16))],
    options={"dynamic": True},
    expect=Expect(frames=2, graphs=2),
)
def duck_shaping_broken_recompiles(a, b):
    """Unrelated sizes equal when traced share one symbol; once they differ, the frame
    recompiles."""
    return a.sum() + b.sum()


@case(
    tags=["seed", "dynamic-shapes", "recompiles"],
    seed="000: Duck shaping",
    calls=[Call(T(4), T(4)), Call(T(8), T(8)), Call(T(8), T(16))],
    expect=Expect(frames=3, graphs=3),
)
def duck_shaping_after_automatic_dynamic(a, b):
    """The seed's example: sizes that turn dynamic on a recompile are duck-shaped too, so
    (8, 16) fails `L['b'].size()[0] == L['a'].size()[0]` and compiles a third time."""
    return a.sum() + b.sum()


@case(
    tags=["seed", "dynamic-shapes"],
    seed="000: Static by default (mark_dynamic)",
    calls=[Call(T(8, 3, mark_dynamic=(0,))), Call(T(16, 3, mark_dynamic=(0,)))],
    expect=Expect(
        frames=1,
        graphs=1,
        guards=[[check_tensor("L['a']", [None, 3], [3, 1])]],
    ),
)
def mark_dynamic_compiles_once(a):
    """mark_dynamic spares the first, static compile: one graph serves both sizes."""
    return a.shape[0] * a


@case(
    tags=["seed", "dynamic-shapes"],
    seed="000: Static by default (dynamic=True)",
    calls=[Call(T(4, 3)), Call(T(8, 3)), Call(T(5, 7))],
    options={"dynamic": True},
    expect=Expect(frames=1, graphs=1),
)
def dynamic_true_traces_every_size(a):
    """torch.compile(dynamic=True) traces every size symbolically from the first call."""
    return (a * 2).sum(0)


@case(
    tags=["seed", "containers"],
    seed="000: Reimplementing CPython in Python (BUILD_LIST)",
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["mul"]]),
)
def build_list(x):
    """`l = [2, 3, 4]` is BUILD_LIST 3: a ListVariable of three constants."""
    l = [2, 3, 4]  # noqa: E741 (the seed's name)
    return x * l[1]


Y = torch.linspace(-1.0, 1.0, 4)


@case(
    tags=["seed", "globals", "guards"],
    seed="000: Reimplementing CPython in Python (TRACE LOAD_GLOBAL)",
    calls=[Call(T(4))],
    expect=Expect(frames=1, graphs=1, ops=[["gt", "torch.any"]]),
)
def trace_load_global(x):
    """The seed's `TRACE LOAD_GLOBAL y [TorchInGraphFunctionVariable(<built-in method
    any>), TensorVariable()]`: a global tensor loaded with torch.any on the stack."""
    return torch.any(x > Y)


class Point:
    """A plain user class: Dynamo's fallback UserDefinedObjectVariable."""

    def __init__(self, x: float, y: float) -> None:
        self.x = x
        self.y = y


@case(
    tags=["seed", "guards"],
    seed="000: Reimplementing CPython in Python (UserDefinedObjectVariable)",
    calls=[Call(T(3), Point(2.0, 3.0))],
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add"]]),
)
def user_defined_object(x, p):
    """Attributes of a user object are read (and guarded) like constants."""
    return x * p.x + p.y


@case(
    tags=["seed", "graph-breaks"],
    seed="000: Making Dynamo complete: Graph Breaks",
    calls=[Call(T(4))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["add"], ["add"]],
        breaks=[Break("GB0059", 'print("Hi")')],
    ),
)
def graph_break_print(a):
    """`print` cannot be traced: graph 1 (a + 2), print in CPython, then the resume
    function `__resume_at_14_1` runs graph 2 (b + a)."""
    b = a + 2
    print("Hi")
    return b + a
