"""The recompile policy (shapes.py `Dynamism`, convert_frame.py): what a changed input
makes dynamic under each setting of Dynamo's knobs, and what runs after the recompile
limit. Each case's frame, graph and recompile counts are real Dynamo's on the same calls.
"""

import torch

from conformance.spec import Call, Expect, Same, T, case

SCALE = 2


def _ints(*values: int) -> list[Call]:
    return [Call(T(4), n) for n in values]


def _sizes(*sizes: int) -> list[Call]:
    return [Call(T(n)) for n in sizes]


def _set_scale(value: int):
    def before() -> None:
        global SCALE
        SCALE = value

    return before


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=2, graphs=2),
)
def int_argument_turns_dynamic(x, n):
    """An int argument is a constant first; after it changed, a SymInt input."""
    return x * n


@case(
    tags=["recompiles", "globals"],
    calls=[Call(T(4), before=_set_scale(v)) for v in (2, 3, 4)],
    expect=Expect(frames=3, graphs=3),
)
def global_int_stays_static(x):
    """An int read from a global is assumed not to vary: each value compiles anew."""
    return x * SCALE


def outer_with_closure(x, n):
    def inner(y):
        return y * n

    return inner(x)


@case(tags=["recompiles", "closures"], calls=_ints(2, 3, 4, 5), expect=Expect(frames=2, graphs=2))
def closure_int_turns_dynamic(x, n):
    """An int reached through a closure made per call follows its argument: dynamic."""
    return outer_with_closure(x, n)


def outer_breaking_in_closure(x, n):
    def inner(y):
        y = y * n
        print("inner")
        return y + n

    return inner(x)


@case(
    tags=["recompiles", "closures", "graph-breaks"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=8, graphs=4),
)
def closure_made_per_call_own_frame(x, n):
    """The closure breaks the graph, so it runs as a frame of its own, made anew per call:
    a cache entry compiled for one closure object serves the next one with its own cell."""
    return outer_breaking_in_closure(x, n)


# The table of shapes.Dynamism: each setting of the two knobs, for sizes and for ints.


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_sizes(2, 3, 4, 5),
    expect=Expect(frames=2, graphs=2),
)
def size_default_policy(x):
    """Static first, then automatic dynamic: two compiles for four sizes."""
    return x.sin()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_sizes(2, 3, 4, 5),
    expect=Expect(frames=4, graphs=4),
    config={"automatic_dynamic_shapes": False},
)
def size_without_automatic_dynamic(x):
    """Without automatic dynamic, every new size compiles a static graph."""
    return x.sin()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_sizes(2, 3, 4, 5),
    expect=Expect(frames=1, graphs=1),
    config={"assume_static_by_default": False},
)
def size_not_static_by_default(x):
    """Not static by default: the first compile is already dynamic."""
    return x.sin()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_sizes(2, 3, 4, 5),
    expect=Expect(frames=1, graphs=1),
    config={"assume_static_by_default": False, "automatic_dynamic_shapes": False},
)
def size_neither_knob(x):
    """Dynamic from the start needs no automatic dynamic."""
    return x.sin()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=4, graphs=4),
    config={"automatic_dynamic_shapes": False},
)
def int_without_automatic_dynamic(x, n):
    """An int argument that keeps changing recompiles on each value."""
    return x * n


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=1, graphs=1),
    config={"assume_static_by_default": False},
)
def int_not_static_by_default(x, n):
    """Not static by default: an int argument is a SymInt from the first compile."""
    return x * n


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(n, 3), n) for n in (2, 3, 4)],
    expect=Expect(frames=3, graphs=3),
    options={"dynamic": False},
)
def dynamic_false_recompiles_each_value(x, n):
    """`dynamic=False`: sizes and ints stay constants, whatever changes."""
    return x.sum(0) * n


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(n, 3), n) for n in (2, 3, 4)],
    expect=Expect(frames=1, graphs=1),
    options={"dynamic": True},
)
def dynamic_true_compiles_once(x, n):
    """`dynamic=True`: sizes and ints are symbols from the first compile."""
    return x.sum(0) * n


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=_ints(0, 1, 2, 3),
    expect=Expect(frames=2, graphs=2),
)
def int_zero_and_one_not_specialized(x, n):
    """Unlike sizes, an int 0 or 1 turns dynamic like any other value."""
    return x + n


# Values that never become symbols.


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), flag) for flag in (True, False, True, False)],
    expect=Expect(frames=2, graphs=2),
)
def bool_flip_flop(x, flag):
    """A bool is guarded on its value: two entries, and the flip-flop reuses both."""
    return x + 1 if flag else x - 1


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), [1] * n) for n in (2, 3, 4, 5)],
    expect=Expect(frames=4, graphs=4),
)
def list_length_stays_static(x, items):
    """A list's length is guarded, never a symbol: each length compiles anew."""
    return x * len(items)


@case(
    tags=["recompiles", "nn-module"],
    calls=[Call(T(n, 4)) for n in (2, 3, 4)],
    expect=Expect(frames=2, graphs=2),
    factory=True,
)
def module_batch_turns_dynamic():
    """The input's batch dim turns dynamic; the parameters' sizes stay static."""
    return torch.nn.Linear(4, 4)


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(4), v) for v in (2.0, 3.0, 4.0)],
    expect=Expect(frames=2, graphs=2),
)
def float_scalar_turns_dynamic(x, f):
    """A float argument is a constant first; after it changed, a graph input."""
    return x * f


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(4), v) for v in (2.0, 3.0, 4.0)],
    expect=Expect(frames=3, graphs=3),
    config={"specialize_float": True},
)
def float_scalar_specialized(x, f):
    """With `specialize_float`, a float stays a constant: each value compiles anew."""
    return x * f


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(2, 4), T(n, 4, parameter=True, mark_dynamic=(0,))) for n in (3, 5, 7)],
    expect=Expect(frames=3, graphs=3),
)
def mark_dynamic_on_parameter_ignored(x, w):
    """Parameters' sizes are always static: marking one dynamic changes nothing, and
    each new size compiles anew (as the parameters of a module)."""
    return x @ w.t()


# Aliasing: which inputs are the same object is guarded.


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(3), Same(0)), Call(T(3), T(3)), Call(T(3), Same(0)), Call(T(3), T(3))],
    expect=Expect(frames=2, graphs=2),
)
def same_tensor_twice_then_two(a, b):
    """One tensor passed twice is one graph input; two tensors need another entry."""
    return a + b


@case(
    tags=["recompiles", "guards", "side-effects"],
    calls=[Call(T(3), T(3)), Call(T(3), Same(0)), Call(T(3), T(3))],
    expect=Expect(frames=2, graphs=2),
)
def aliased_inputs_mutated(a, b):
    """An in-place update of `a` is seen through `b` only when they are one tensor."""
    a.add_(1)
    return a + b


# The recompile limit: past it, a call that misses the cache runs uncompiled, and so do
# the frames it calls.


def helper_called_after_limit(x):
    return x.cos()


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(3), mode) for mode in ("a", "bb", "ccc", "dddd", "a")],
    expect=Expect(frames=2, graphs=2),
    config={"recompile_limit": 2},
)
def limit_callee_runs_uncompiled(x, mode):
    """Past the limit the frame runs uncompiled, and the helper it calls is not compiled
    as a frame of its own; a call that fits an entry still runs it."""
    return helper_called_after_limit(x) + len(mode)


@case(
    tags=["recompiles", "fullgraph"],
    calls=[Call(T(3), mode) for mode in ("a", "bb", "ccc")],
    expect=Expect(outcome="compile-error", frames=2, graphs=2),
    options={"fullgraph": True},
    config={"recompile_limit": 2},
)
def limit_under_fullgraph_raises(x, mode):
    """Under fullgraph=True, the call that needs a compile past the limit raises."""
    return x * len(mode)
