"""Builtins while tracing: len, isinstance, range, min, max, abs, getattr and friends.

On constants they are evaluated at trace time (the graph sees their results); on tensors
they map to graph operations (`abs(x)`, `max(x, y)` ...) or to tensor metadata.
"""

import torch

from conformance.spec import Call, T, case, one_graph


class Box:
    """A user object with one attribute."""

    def __init__(self) -> None:
        self.scale = 3


@case(tags=["builtins"], calls=[Call(T(3), [1, 2, 3])], expect=one_graph("mul"))
def len_of_list(x, l):  # noqa: E741
    return x * len(l)


@case(tags=["builtins"], calls=[Call(T(5, 2))], expect=one_graph("mul"))
def len_of_tensor(x):
    """len(tensor) is its first dimension: the static constant 5."""
    return x * len(x)


@case(tags=["builtins", "guards"], calls=[Call(T(3), 2)], expect=one_graph("mul"))
def isinstance_of_constant(x, n):
    if isinstance(n, int):
        return x * n
    return x


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def isinstance_of_tensor(x):
    if isinstance(x, torch.Tensor) and not isinstance(x, (list, tuple)):
        return x + 1
    return x


@case(tags=["builtins", "loops"], calls=[Call(T(3))], expect=one_graph("add", "add", "add"))
def range_loop(x):
    for i in range(3):
        x = x + i
    return x


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("mul"))
def range_arithmetic(x):
    r = range(2, 10, 3)
    return x * (len(r) + r[1] + r[-1])


@case(tags=["builtins"], calls=[Call(T(3), 4, 7)], expect=one_graph("mul"))
def min_max_constants(x, a, b):
    return x * (max(a, b) - min(a, b, 5))


@case(tags=["builtins"], calls=[Call(T(3, 5))], expect=one_graph("mul", "mul"))
def max_of_sizes(x):
    return x * max(x.shape) * min(x.shape[0], 2)


@case(tags=["builtins"], calls=[Call(T(3), -4)], expect=one_graph("add"))
def abs_of_constant(x, n):
    return x + abs(n)


@case(tags=["builtins"], calls=[Call(T(3), Box())], expect=one_graph("mul"))
def getattr_with_name(x, box):
    return x * getattr(box, "scale")  # noqa: B009 (the builtin is what is traced)


@case(tags=["builtins"], calls=[Call(T(3), Box())], expect=one_graph("add"))
def getattr_with_default(x, box):
    return x + getattr(box, "missing", 7)


@case(tags=["builtins"], calls=[Call(T(3), Box())], expect=one_graph("mul"))
def hasattr_on_object(x, box):
    if hasattr(box, "scale") and not hasattr(box, "shift"):
        return x * 2
    return x


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def sum_of_constants(x):
    return x + sum([1, 2, 3])


@case(tags=["builtins"], calls=[Call([T(3), T(3), T(3)])], expect=one_graph("add", "add", "add"))
def sum_of_tensors(l):  # noqa: E741
    """sum() starts from 0: `0 + l[0]` is the first add."""
    return sum(l)


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("mul"))
def any_all_constants(x):
    if any([0, 0, 1]) and all((1, 2)):
        return x * 2
    return x


@case(tags=["builtins", "loops"], calls=[Call([T(2), T(2)])], expect=one_graph("mul", "mul"))
def enumerate_list(l):  # noqa: E741
    return [t * i for i, t in enumerate(l, start=1)]


@case(
    tags=["builtins", "loops"],
    calls=[Call([T(2), T(2)], [T(2), T(2)])],
    expect=one_graph("add", "add"),
)
def zip_lists(a, b):
    return [x + y for x, y in zip(a, b)]  # noqa: B905 (the traced program)


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def sorted_reversed_constants(x):
    values = sorted([3, 1, 2], reverse=True)
    return x + list(reversed(values))[0]


@case(tags=["builtins"], calls=[Call(T(3), "7", 2.9)], expect=one_graph("add"))
def int_float_str_conversions(x, s, f):
    return x + (int(s) + int(f) + float(1)) * len(str(12))


@case(tags=["builtins"], calls=[Call(T(3), 0)], expect=one_graph("sub"))
def bool_of_constant(x, n):
    if bool(n):
        return x + n
    return x - 1


@case(tags=["builtins"], calls=[Call(T(3), 2)], expect=one_graph("mul"))
def type_of_constant(x, n):
    if type(n) is int:
        return x * n
    return x


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def type_of_tensor(x):
    if type(x) is torch.Tensor:
        return x + 1
    return x


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("mul"))
def callable_builtin(x):
    if callable(len) and not callable(3):
        return x * 2
    return x


@case(tags=["builtins"], calls=[Call(T(3), 2.6)], expect=one_graph("add"))
def round_constant(x, f):
    return x + round(f)


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def map_over_constants(x):
    return x + sum(map(lambda v: v * 2, [1, 2]))


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def filter_over_constants(x):
    return x + len(list(filter(None, [0, 1, 2, 0])))


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("mul"))
def pow_builtin_constants(x):
    return x * pow(2, 3)


@case(tags=["builtins"], calls=[Call(T(3))], expect=one_graph("mul"))
def ord_chr_constants(x):
    return x * (ord("b") - ord(chr(97)))


@case(
    tags=["builtins", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=one_graph("mul", "add"),
)
def builtin_alternate_constructors(x):
    """`int.from_bytes` and `float.fromhex` of constants fold while tracing, as the
    builtins they are."""
    n = int.from_bytes(b"\x02\x00", "little")
    return x * n + float.fromhex("0x1p-1")
