"""Guards and the recompiles they trigger (seed: "Making Dynamo sound: Guards").

Each case calls a function twice or more, changing one property of one input between
calls: the first failing guard of each cache entry is the recompile reason.
"""

import torch

from conformance.spec import Call, Expect, Make, T, case, check_tensor

SCALE = 2


def set_scale_to_3():
    global SCALE
    SCALE = 3


class Box:
    """A user object whose attribute is read (and guarded) while tracing."""

    def __init__(self, scale):
        self.scale = scale


def _recompiles(*reasons: str) -> Expect:
    n = len(reasons) + 1
    return Expect(frames=n, graphs=n, recompiles=list(reasons))


@case(tags=["guards", "recompiles"], calls=[Call(T(3), 2), Call(T(3), 2)], expect=Expect(frames=1))
def same_inputs_hit_the_cache(x, n):
    return x * n


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), True), Call(T(3), False)],
    expect=_recompiles("L['flag'] == True"),
)
def bool_argument_changes(x, flag):
    return x + 1 if flag else x - 1


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), 0.5), Call(T(3), 1.5)],
    expect=_recompiles("L['f'] == 0.5"),
)
def float_argument_changes(x, f):
    """A float is guarded on its value; a new value recompiles it as a graph input."""
    return x * f


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), "relu"), Call(T(3), "tanh"), Call(T(3), "relu")],
    expect=_recompiles("L['mode'] == 'relu'"),
)
def string_mode_changes(x, mode):
    return torch.relu(x) if mode == "relu" else torch.tanh(x)


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), None), Call(T(3), T(3))],
    expect=_recompiles("L['bias'] is None"),
)
def none_then_tensor(x, bias):
    y = x * 2
    return y if bias is None else y + bias


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), None), Call(T(3), T(3))],
    expect=Expect(frames=0, graphs=0),
)
def frame_without_graph_is_not_retraced(x, bias):
    """The first call records no operation: Dynamo leaves the code to CPython for good,
    so the second call (which would add) is not compiled either."""
    return x if bias is None else x + bias


@case(
    tags=["guards", "recompiles", "containers"],
    calls=[Call([T(2), T(2)]), Call([T(2), T(2), T(2)])],
    expect=_recompiles("len(L['l']) == 2"),
)
def list_length_changes(l):  # noqa: E741
    return sum(l)


@case(
    tags=["guards", "recompiles", "containers"],
    calls=[Call({"a": T(2)}), Call({"b": T(2)})],
    expect=Expect(frames=2, graphs=2),
)
def dict_keys_change(d):
    return [v + 1 for v in d.values()]


@case(
    tags=["guards", "recompiles", "tensor-methods"],
    calls=[Call(T(3)), Call(T(3, dtype=torch.float64))],
    expect=_recompiles("tensor 'L['x']' dtype mismatch. expected Float, actual Double"),
)
def dtype_changes(x):
    return x * 2


@case(
    tags=["guards", "recompiles", "tensor-methods"],
    calls=[Call(T(3)), Call(T(3, requires_grad=True))],
    expect=_recompiles("tensor 'L['x']' requires_grad mismatch. expected requires_grad=0"),
)
def requires_grad_changes(x):
    return x * 2


@case(
    tags=["guards", "recompiles", "tensor-methods"],
    calls=[Call(T(3)), Call(T(3, 1))],
    expect=_recompiles("tensor 'L['x']' rank mismatch. expected 1, actual 2"),
)
def rank_changes(x):
    return x * 2


@case(
    tags=["guards", "recompiles", "tensor-methods"],
    calls=[Call(T(4, 3)), Call(Make(lambda: torch.randn(3, 4).t()))],
    expect=_recompiles("tensor 'L['x']' stride mismatch at index 0. expected 3, actual 1"),
)
def stride_changes(x):
    """A transposed input has the same size but other strides: check_tensor fails."""
    return x * 2


@case(
    tags=["guards", "recompiles", "globals"],
    calls=[Call(T(3)), Call(T(3), before=set_scale_to_3)],
    expect=_recompiles("G['SCALE'] == 2"),
)
def global_int_rebound(x):
    return x * SCALE


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), Box(2)), Call(T(3), Box(5))],
    expect=_recompiles("L['box'].scale == 2"),
)
def attribute_value_changes(x, box):
    return x * box.scale


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), 2), Call(T(3), 2.0)],
    expect=_recompiles("___check_type_id(L['n'], int)"),
)
def argument_type_changes(x, n):
    return x * n


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), "a"), Call(T(3), "b"), Call(T(3), "c"), Call(T(3), "a"), Call(T(3), "b")],
    expect=Expect(frames=3, graphs=3),
)
def cache_holds_every_entry(x, key):
    """Earlier entries stay in the cache: coming back to "a" or "b" compiles nothing."""
    return x * len(key) if key == "a" else x + len(key)


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), str(i)) for i in range(10)],
    expect=Expect(frames=8, graphs=8),
)
def recompile_limit_falls_back_to_eager(x, key):
    """After 8 cache entries (the recompile limit) the frame runs eagerly, correctly."""
    return x * int(key)


@case(
    tags=["guards"],
    calls=[Call(T(2, 3), 4)],
    expect=Expect(frames=1, guards=[[check_tensor("L['x']", [2, 3]), "L['n'] == 4"]]),
)
def guards_of_tensor_and_int(x, n):
    return x + n


@case(
    tags=["guards", "containers"],
    calls=[Call(T(2), (1, 2))],
    expect=Expect(
        frames=1,
        guards=[
            [
                "___check_type_id(L['t'], tuple)",
                "len(L['t']) == 2",
                "L['t'][0] == 1",
                "L['t'][1] == 2",
            ]
        ],
    ),
)
def guards_of_tuple_items(x, t):
    return x * t[0] + t[1]


@case(
    tags=["guards"],
    calls=[Call(T(2), Box(3))],
    expect=Expect(frames=1, guards=[["___check_type_id(L['box'], Box)", "L['box'].scale == 3"]]),
)
def guards_of_attribute_source(x, box):
    """AttrSource: `L['box'].scale`."""
    return x * box.scale


@case(
    tags=["guards", "globals"],
    calls=[Call(T(2))],
    expect=Expect(frames=1, guards=[["G['SCALE'] == 2"]]),
)
def guards_of_global(x):
    """GlobalSource: `G['SCALE']`."""
    return x * SCALE


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), [1, 2]), Call(T(3), [1, 3])],
    expect=_recompiles("L['l'][1] == 2"),
)
def list_item_value_changes(x, l):  # noqa: E741
    return x * l[0] + l[1]


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), T(3)), Call(T(3), T(3))],
    expect=Expect(frames=1, graphs=1),
)
def new_tensor_values_same_metadata(x, y):
    """Guards look at tensor metadata, never at values: fresh values reuse the graph."""
    return x + y


@case(
    tags=["guards", "containers"],
    calls=[
        Call(T(3), {(3, torch.float32, torch.device("cpu")): T(1)}),
        Call(T(3), {(3, torch.float32, torch.device("cpu")): T(1)}),
    ],
    expect=Expect(frames=1, graphs=1),
)
def dict_keyed_by_dtype_and_device_hits_the_cache(x, cache):
    """A key whose printed form is not a literal (a dtype, a device) is read by the key
    object itself: the guard on the value holds on the next call, no recompile."""
    return x * cache[(x.shape[0], x.dtype, x.device)]


@case(
    tags=["guards", "recompiles"],
    calls=[Call(T(3), 1, Box(0)), Call(T(3), 2, Box(5))],
    expect=Expect(frames=1, graphs=1),
)
def unread_attribute_of_argument_is_not_guarded(x, k, box):
    """An int attribute of an argument is a lazy constant, as an int argument is: a sum
    of the two that the function never reads guards neither value (Dynamo's
    ComputedLazyConstantVariable), so new values reuse the graph."""
    n = k + box.scale
    del n
    return x * 1


@case(
    tags=["guards", "recompiles", "dynamic-shapes"],
    calls=[Call(T(3), Box(n)) for n in (1, 2, 3)],
    expect=Expect(frames=2, graphs=2, ops=[["mul", "add"], ["mul", "add"]]),
)
def dynamic_attribute_read_twice_is_one_graph_input(x, box):
    """An int attribute that changed is a SymInt graph input from the second compile
    (automatic dynamic): read twice, it is the same input, not two placeholders of one
    name (which made the graph's code invalid and the frame run eagerly)."""
    return x * box.scale + box.scale


@case(
    tags=["guards", "recompiles", "dynamo-divergence"],
    calls=[Call(T(3), 0.0), Call(T(3), -0.0)],
    expect=Expect(frames=2, graphs=2, ops=[["mul"], ["mul"]]),
)
def negative_zero_float_argument_recompiles(x, s):
    """0.0 == -0.0, so a value guard alone lets -0.0 reuse the graph made for 0.0; the
    sign tells them apart (str(s), math.copysign, x * s), so a float 0 is also guarded
    on its sign (``math.copysign(1.0, L['s']) == 1.0``) and -0.0 compiles again."""
    return x * len(str(s))
