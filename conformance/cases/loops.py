"""Loops are unrolled while tracing: over lists, ranges, zip, enumerate, dict items.

The graph is linear (seed: "linear means no branches or control flow"): a loop of n
iterations over constants or containers leaves n copies of its body's operations.
"""

from conformance.spec import Call, T, case, one_graph


@case(tags=["loops"], calls=[Call([T(2), T(2), T(2)])], expect=one_graph("mul", "mul", "mul"))
def for_over_list_argument(l):  # noqa: E741
    out = []
    for t in l:
        out.append(t * 2)
    return out


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("mul", "mul", "mul", "mul"))
def for_over_range(x):
    for _ in range(4):
        x = x * 2
    return x


@case(tags=["loops"], calls=[Call(T(2), 3)], expect=one_graph("add", "add", "add"))
def for_over_range_of_argument(x, n):
    """The trip count comes from a constant input: unrolled n times, guarded on n."""
    for i in range(n):
        x = x + i
    return x


@case(tags=["loops"], calls=[Call({"a": T(2), "b": T(2)})], expect=one_graph("add", "add"))
def for_over_dict_items(d):
    total = 0
    for _key, value in d.items():
        total = total + value
    return total


@case(tags=["loops"], calls=[Call({"a": T(2), "b": T(2)})], expect=one_graph("mul", "mul"))
def for_over_dict_keys(d):
    return [d[k] * 2 for k in d]


@case(
    tags=["loops"],
    calls=[Call([T(2), T(2)], [1.0, 2.0])],
    expect=one_graph("mul", "mul", "add", "mul", "add"),
)
def for_over_zip(ts, weights):
    total = ts[0] * 0
    for t, w in zip(ts, weights):  # noqa: B905 (the traced program)
        total = total + t * w
    return total


@case(tags=["loops"], calls=[Call([T(2), T(2), T(2)])], expect=one_graph("mul", "mul", "mul"))
def for_over_enumerate(l):  # noqa: E741
    return [t * i for i, t in enumerate(l)]


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("add", "add", "add"))
def while_with_constant_condition(x):
    i = 0
    while i < 3:
        x = x + 1
        i += 1
    return x


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("mul", "mul", "mul", "mul"))
def nested_loops(x):
    for _ in range(2):
        for _ in range(2):
            x = x * 2
    return x


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("add", "add"))
def loop_with_break(x):
    for i in range(10):
        if i == 2:
            break
        x = x + i
    return x


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("add", "add"))
def loop_with_continue(x):
    for i in range(4):
        if i % 2:
            continue
        x = x + i
    return x


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("add"))
def for_else(x):
    for i in range(3):
        if i == 5:
            break
    else:
        x = x + 1
    return x


@case(
    tags=["loops"],
    calls=[Call(T(3, 2))],
    expect=one_graph("getitem", "getitem", "getitem", "add", "add"),
)
def for_over_tensor_rows(x):
    """Iterating a tensor with a static first dimension unrolls one getitem per row."""
    rows = [row for row in x]
    return rows[0] + rows[1] + rows[2]


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("mul", "mul"))
def loop_over_tuple_of_constants(x):
    for k in (2, 3):
        x = x * k
    return x


@case(tags=["loops"], calls=[Call(T(2))], expect=one_graph("add", "add", "add"))
def loop_over_string(x):
    for _ch in "abc":
        x = x + 1
    return x


@case(
    tags=["loops", "containers"], calls=[Call(T(2))], expect=one_graph("add", "add", "add", "add")
)
def generator_expression_sum(x):
    """sum() adds each item to a running total that starts at 0: four adds."""
    return sum(x + k for k in range(2))


def _countdown(v, n):
    while n > 0:
        yield v * n
        n -= 1


@case(tags=["loops", "inlining"], calls=[Call(T(2))], expect=one_graph("mul", "add", "mul", "add"))
def generator_function_consumed_by_sum(x):
    """The generator is inlined one yield at a time: its ops interleave with sum's."""
    return sum(_countdown(x, 2))
