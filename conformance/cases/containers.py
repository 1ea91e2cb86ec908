"""Lists, tuples, dicts and sets: built, indexed, unpacked and returned while tracing.

Containers are not graph values: they are modelled item by item (ListVariable,
ConstDictVariable ...), guarded through GetItemSource, and rebuilt after the graph.
"""

import collections

import torch

from conformance.spec import Call, Expect, Make, T, case, one_graph

Pair = collections.namedtuple("Pair", ["left", "right"])


@case(tags=["containers"], calls=[Call([T(3), T(3)])], expect=one_graph("add"))
def list_argument_items(l):  # noqa: E741
    return l[0] + l[1]


@case(tags=["containers"], calls=[Call([T(3), T(3), T(3)])], expect=one_graph("mul"))
def list_negative_index(l):  # noqa: E741
    return l[-1] * 2


@case(tags=["containers"], calls=[Call([[T(2), T(2)], [T(2)]])], expect=one_graph("sub"))
def nested_list_items(l):  # noqa: E741
    return l[0][1] - l[1][0]


@case(tags=["containers"], calls=[Call([T(2), T(2), T(2), T(2)])], expect=one_graph("add"))
def list_slice(l):  # noqa: E741
    a, b = l[1:3]
    return a + b


@case(tags=["containers"], calls=[Call((T(3), T(3)))], expect=one_graph("mul"))
def tuple_argument(t):
    return t[0] * t[1]


@case(
    tags=["containers"], calls=[Call({"w": T(3), "b": T(3)}, T(3))], expect=one_graph("mul", "add")
)
def dict_argument(d, x):
    return d["w"] * x + d["b"]


@case(tags=["containers"], calls=[Call({"a": 2}, T(3))], expect=one_graph("mul", "mul"))
def dict_get_with_default(d, x):
    return x * d.get("a", 1) * d.get("z", 1)


@case(tags=["containers"], calls=[Call(Pair(T(2), T(2)))], expect=one_graph("sub"))
def namedtuple_argument(p):
    return p.left - p.right


@case(tags=["containers"], calls=[Call(T(3), T(3))], expect=one_graph("add", "sub"))
def return_tuple(x, y):
    return x + y, x - y


@case(tags=["containers"], calls=[Call(T(3), T(3))], expect=one_graph("add", "mul"))
def return_list(x, y):
    return [x + y, x * y]


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add", "sub"))
def return_dict(x):
    return {"plus": x + 1, "minus": x - 1}


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add"))
def return_input_in_tuple(x):
    """The input itself is returned next to a graph output: no copy, same object."""
    return x, x + 1


@case(tags=["containers"], calls=[Call(T(3), T(3))], expect=one_graph("add"))
def list_concatenation(x, y):
    l = [x] + [y]  # noqa: E741
    return l[0] + l[1]


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("mul", "mul", "mul"))
def list_comprehension(x):
    """A comprehension (inlined as a function before 3.12, inline bytecode after)."""
    ys = [x * k for k in (1, 2, 3)]
    return ys


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add", "add"))
def dict_comprehension(x):
    return {k: x + k for k in range(2)}


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add", "add"))
def local_list_append(x):
    """A list built locally is not a side effect: it is returned, rebuilt from the graph."""
    out = []
    out.append(x + 1)
    out.append(x + 2)
    return out


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("mul"))
def membership_of_constants(x):
    if 3 in [1, 2, 3] and "k" not in {"a": 1}:
        return x * 2
    return x


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("mul"))
def set_of_constants(x):
    return x * len({1, 2, 2, 3})  # noqa: B033 (duplicates on purpose)


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add", "add"))
def list_methods_on_constants(x):
    l = [3, 1, 2]  # noqa: E741
    l.sort()
    l.reverse()
    return x + l.index(1) + l.count(3)


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add", "add"))
def dict_methods_local(x):
    d = {"a": 1}
    d["b"] = 2
    d.update(c=3)
    del d["a"]
    return x + sum(d.values()) + len(d.keys())


@case(tags=["containers", "unpacking"], calls=[Call((T(2), T(2)))], expect=one_graph("mul"))
def tuple_unpacking(t):
    a, b = t
    return a * b


@case(
    tags=["containers", "unpacking"],
    calls=[Call([T(2), T(2), T(2)])],
    expect=one_graph("add", "add"),
)
def star_unpacking(l):  # noqa: E741
    first, *rest = l
    return first + rest[0] + rest[1]


@case(
    tags=["containers", "unpacking"],
    calls=[Call(T(2), T(2), T(2))],
    expect=one_graph("sub", "add"),
)
def nested_unpacking(x, y, z):
    (a, b), c = (x, y), z
    return a - c + b


@case(tags=["containers", "unpacking"], calls=[Call(T(2), T(2))], expect=one_graph("sub"))
def swap_by_unpacking(x, y):
    x, y = y, x
    return x - y


@case(
    tags=["containers", "unpacking"],
    calls=[Call(T(2, 3))],
    expect=one_graph("getitem", "getitem", "add"),
)
def unpack_tensor(x):
    """Unpacking a tensor iterates its first dimension: one getitem per row."""
    a, b = x
    return a + b


@case(tags=["containers", "unpacking"], calls=[Call(T(2))], expect=one_graph("add", "mul"))
def unpack_return_of_call(x):
    def pair(t):
        return t + 1, t * 2

    a, b = pair(x)
    return a, b


@case(tags=["containers"], calls=[Call(T(3), [2, 5])], expect=one_graph("mul", "add"))
def list_of_constants_argument(x, factors):
    return x * factors[0] + factors[1]


@case(tags=["containers"], calls=[Call(T(4), (2, 2))], expect=one_graph(".view"))
def tuple_as_shape(x, shape):
    return x.view(shape)


@case(tags=["containers"], calls=[Call([T(2), T(2), T(2)])], expect=one_graph("torch.stack"))
def stack_list_argument(l):  # noqa: E741
    return torch.stack(l)


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add"))
def tuple_of_constants_len(x):
    t = (1, "two", 3.0, None)
    return x + len(t)


@case(tags=["containers"], calls=[Call(T(3))], expect=one_graph("add"))
def zip_and_dict_constructor(x):
    d = dict(zip(["a", "b"], [1, 2]))  # noqa: B905 (the traced program)
    return x + d["b"]


@case(tags=["containers"], calls=[Call(T(3), [T(3), T(3)])], expect=one_graph("torch.cat"))
def star_list_in_call(x, l):  # noqa: E741
    return torch.cat([x, *l])


# A dict's values are guarded when the trace reads them (Dynamo wraps each lazily): a
# value the program never reads may change without a recompile.


@case(
    tags=["containers", "guards"],
    calls=[Call(T(3), {"w": T(3), "unused": T(2)}), Call(T(3), {"w": T(3), "unused": T(5)})],
    expect=Expect(frames=1, graphs=1, ops=[["mul"]]),
)
def dict_unread_value_not_guarded(x, d):
    return x * d["w"]


def _relu(t):
    return t.relu()


def _neg(t):
    return -t


@case(
    tags=["containers", "guards"],
    calls=[Call(T(3), Make(dict, [(_relu, 2), (_neg, 3)]))],
    expect=one_graph("mul"),
)
def dict_keyed_by_functions(x, weights):
    """Functions as keys: the key guard names them (no address in the guard text)."""
    return x * weights[_neg]


@case(
    tags=["containers", "guards"],
    calls=[Call(T(3), {"a": 1, "b": T(2)}), Call(T(3), {"a": 2, "b": T(2)})],
)
def dict_argument_equality(x, d):
    """``==`` of dicts compares their keys, then each key's values."""
    if d == {"a": 1, "b": d["b"]}:
        return x + 1
    return x - 1


# Appended after the cases above, whose source lines their goldens name.
import enum  # noqa: E402


class _Mode(enum.Enum):
    SMALL = "small"
    LARGE = "large"


@case(
    tags=["containers", "guards", "dynamo-divergence"],
    calls=[Call(T(3), _Mode.SMALL), Call(T(3), _Mode.LARGE), Call(T(3), _Mode.SMALL)],
    expect=Expect(graphs=2, ops=[["mul"], ["mul"]]),
)
def dict_indexed_by_enum_argument(x, mode):
    """An enum member as the key of a lookup: the argument is guarded by identity
    (``___check_obj_id(L['mode'], ...)``), so the other member recompiles and picks its
    own value."""
    return x * {_Mode.SMALL: 2, _Mode.LARGE: 3}[mode]


_SETTINGS = {"scale": 2}


@case(
    tags=["containers", "guards"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(frames=1, graphs=1),
)
def id_of_a_dict_is_one_token(x):
    """``id(d)`` of one dict twice gives one value (copy.deepcopy's memo asks it): it is
    a token of the dict's tracker, not of a bound method made anew for each call."""
    return x * _SETTINGS["scale"] + (id(_SETTINGS) == id(_SETTINGS))
