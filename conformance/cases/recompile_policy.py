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


# Python scalars read from globals and closures are guarded only as far as the trace uses
# them (Dynamo's LazyConstantVariable): a counter only stored back, returned or computed
# with constants keeps its type guard, so a new value reuses the graph; a value the trace
# branches on, formats or puts in tensor math is guarded on its value.

COUNTER = 0
RATE = 1.0
STEP = 1
LABEL = "run"
TOTALS = {"n": 0}


class _Tally:
    def __init__(self, n: int) -> None:
        self.n = n


TALLY = _Tally(0)


def _bump_counter() -> None:
    global COUNTER
    COUNTER += 1


@case(
    tags=["recompiles", "globals", "side-effects"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_counter_incremented(x):
    """`COUNTER += 1` only stores the global back: computed at run time from the real
    global, guarded on its type alone, so each new count reuses the graph."""
    global COUNTER
    COUNTER += 1
    return x + 1


@case(
    tags=["recompiles", "globals", "side-effects"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_float_decremented(x):
    """A float global decremented and stored back: one graph, as for an int."""
    global RATE
    RATE -= 0.5
    return x.sin()


@case(
    tags=["recompiles", "globals", "side-effects"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_rebound_to_product(x):
    """`STEP = STEP * 2` rebinds the global to a product computed at run time."""
    global STEP
    STEP = STEP * 2
    return x.cos()


@case(
    tags=["recompiles", "globals", "side-effects"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_str_extended(x):
    """A str global extended by a constant: computed at run time too."""
    global LABEL
    LABEL = LABEL + "!"
    return x * 2


@case(
    tags=["recompiles", "globals", "inlining"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_counter_in_helper(x):
    """The increment made by an inlined helper is computed at run time as well."""
    _bump_counter()
    return x + 1


@case(tags=["recompiles", "globals"], calls=_sizes(3, 3, 3, 3), expect=Expect(frames=1, graphs=1))
def global_counter_twice(x):
    """Two increments in one frame: a computation of a computation."""
    global COUNTER
    COUNTER += 1
    COUNTER += 2
    return x + 1


@case(tags=["recompiles", "globals"], calls=_sizes(3, 3, 3, 3), expect=Expect(frames=1, graphs=1))
def global_counter_returned(x):
    """The new count returned with the graph's result: rebuilt from the global."""
    global COUNTER
    COUNTER += 1
    return x + 1, COUNTER


@case(
    tags=["recompiles", "globals"],
    calls=[Call(T(3), before=_set_scale(v)) for v in (2, 3, 4)],
    expect=Expect(frames=1, graphs=1),
)
def global_read_unused(x):
    """A sum of a global that the frame computes and drops guards nothing but its type."""
    z = SCALE + 1  # noqa: F841
    return x + 1


@case(
    tags=["recompiles", "globals", "side-effects"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_pair_swapped(x):
    """`A, B = B, A` of two globals: both new values are read before either is stored."""
    global COUNTER, STEP
    COUNTER, STEP = STEP, COUNTER
    return x + 1


@case(
    tags=["recompiles", "globals", "side-effects"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
)
def global_old_value_kept(x):
    """The value a local took before the global was rebound is the old one, though it
    is read from the global after the graph."""
    global COUNTER
    old = COUNTER
    COUNTER = COUNTER + 10
    return x + 1, old


# What still guards on the value.


@case(
    tags=["recompiles", "globals", "guards"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=4, graphs=4),
)
def global_counter_in_branch(x):
    """A branch on the new count needs its value: one compile per count."""
    global COUNTER
    COUNTER += 1
    if COUNTER > 2:
        return x + 1
    return x - 1


@case(
    tags=["recompiles", "globals", "guards"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=4, graphs=4),
)
def global_counter_in_tensor_math(x):
    """The count added to a tensor is a constant of the graph: guarded on its value."""
    global COUNTER
    COUNTER += 1
    return x + COUNTER


@case(
    tags=["recompiles", "globals", "guards"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=4, graphs=4),
)
def global_counter_formatted(x):
    """An f-string of the count is built at trace time: guarded on its value."""
    global COUNTER
    COUNTER += 1
    return x + 1, f"call {COUNTER}"


@case(
    tags=["recompiles", "globals", "guards"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=4, graphs=4),
)
def global_object_attribute_incremented(x):
    """An attribute of a global object is guarded on its value, as before."""
    TALLY.n += 1
    return x + 1


@case(
    tags=["recompiles", "globals", "guards"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=4, graphs=4),
)
def global_dict_item_incremented(x):
    """An item of a global dict is guarded on its value, as before."""
    TOTALS["n"] += 1
    return x + 1


def make_counting_closure():
    c = 0

    def step(x):
        nonlocal c
        c += 1
        return x + 1

    return step


def make_counting_closure_scaling():
    c = 0

    def step(x):
        nonlocal c
        c += 1
        return x * c

    return step


def make_counting_closure_returning():
    c = 0

    def step(x):
        nonlocal c
        c += 1
        return x + 1, c

    return step


@case(
    tags=["recompiles", "closures"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def closure_counter_incremented():
    """`nonlocal c; c += 1` in the compiled closure: computed at run time from the cell."""
    return make_counting_closure()


@case(
    tags=["recompiles", "closures"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def closure_counter_returned():
    """The new count of the cell returned: rebuilt from the cell, one graph."""
    return make_counting_closure_returning()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(3), _Tally(n)) for n in (1, 2, 3, 4)],
    expect=Expect(frames=2, graphs=2),
)
def argument_attribute_turns_dynamic(x, tally):
    """An int attribute of an argument object follows automatic dynamic, as the
    argument itself would: a constant first, after it changed a SymInt input."""
    tally.n += 1
    return x * tally.n


@case(
    tags=["recompiles", "globals", "guards"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=4, graphs=4),
)
def global_counter_in_long_loop(x):
    """A count computed by more than 64 operations is guarded on its value instead of
    rebuilt (Dynamo's computed_lazy_constant_max_nodes)."""
    global COUNTER
    for _ in range(70):
        COUNTER += 1
    return x + 1


@case(
    tags=["recompiles", "closures", "dynamic-shapes"],
    calls=_sizes(3, 3, 3, 3),
    expect=Expect(frames=2, graphs=2),
    factory=True,
)
def closure_counter_turns_dynamic():
    """A cell's count in tensor math is guarded on its value, then, having changed, a
    SymInt input (automatic dynamic, as for an argument)."""
    return make_counting_closure_scaling()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(4), v) for v in (2.0, 3.0, 4.0, 1.0)],
    expect=Expect(frames=3, graphs=3),
)
def float_branch_guards_symbolically(x, f):
    """A branch on a dynamic float guards its source (``L['f'] > 2.5``): 4.0 reuses the
    second entry, 1.0 (the other branch) compiles a third."""
    if f > 2.5:
        return x + f
    return x - f


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(4), v) for v in (2.0, 3.0, float("nan"), 4.0, float("inf"))],
    expect=Expect(frames=3, graphs=3),
)
def float_nan_stays_constant(x, f):
    """The dynamic entry is guarded not NaN: a NaN compiles as a constant; an infinity
    passes that guard and reuses the dynamic entry."""
    return x * f


@case(
    tags=["recompiles", "guards"],
    calls=_ints(1, 2, 1, 300),
    expect=Expect(frames=3, graphs=3, recompiles=["L['n'] == 1", "L['n'] == 1; L['n'] == 2"]),
)
def cache_hit_moves_entry_to_front(x, n):
    """The cache is searched most recently used entry first: a new entry goes to the
    front, and so does an entry that a call hits. The third call (n=1) hits the oldest
    entry, so the fourth call's miss lists it first ("n == 1" before "n == 2")."""
    return x * len(hex(n))


# Lazy guards on the items of argument containers: an item the trace never reads is not
# guarded (Dynamo wraps each item in a LazyVariableTracker), so a new value of it reuses
# the compiled code.


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), {"scale": 2, "step": n}) for n in (1, 2, 3)],
    expect=Expect(frames=1, graphs=1),
)
def dict_item_never_read(x, options):
    """Only ``options['scale']`` is read: a new ``step`` does not recompile."""
    return x * options["scale"]


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), {"model": {"width": 2, "name": name}}) for name in ("a", "b", "c")],
    expect=Expect(frames=1, graphs=1),
)
def nested_dict_string_never_read(x, config):
    """A nested config dict: the unread name is not guarded, the read width is."""
    return x * config["model"]["width"]


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), (2, 0.5 * n, n > 1)) for n in (1, 2, 3)],
    expect=Expect(frames=1, graphs=1),
)
def tuple_items_never_read(x, hparams):
    """A tuple of an int, a float and a bool of which the trace reads the int only."""
    return x * hparams[0]


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), [n, n + 1]) for n in (1, 2, 3)],
    expect=Expect(frames=1, graphs=1),
)
def list_read_for_its_length(x, items):
    """``len(items)`` is guarded (the length), the items are not."""
    return x * len(items)


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), {"scale": 2, "tag": n}) for n in (1, 2, 3)],
    expect=Expect(frames=1, graphs=1),
)
def dict_items_loop_reads_keys(x, options):
    """A loop over ``items()`` that tests the keys: the unread value is not guarded."""
    for key, value in options.items():
        if key == "scale":
            x = x * value
    return x


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), {"scale": 2, "step": n}) for n in (1, 2, 3)],
    expect=Expect(frames=1, graphs=1),
)
def unread_item_returned(x, options):
    """An item passed through to the result unread is loaded from the dict after the
    graph, not guarded: each call returns its own ``step``."""
    return x * options["scale"], options["step"]


@case(
    tags=["recompiles", "guards", "side-effects"],
    calls=[Call(T(4), {"scale": 2, "step": n}) for n in (1, 2, 3)],
    expect=Expect(frames=1, graphs=1),
)
def unread_item_returned_after_store(x, options):
    """The old ``step`` is returned after the dict item is replaced: it is loaded before
    the store is replayed, so it is the caller's old value."""
    old = options["step"]
    options["step"] = 0
    return x * options["scale"], old


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(3), mode) for mode in ("a", "bb", "ccc", "dddd", "a", "eeeee")],
    expect=Expect(
        frames=2,
        graphs=2,
        recompiles=["L['mode'] == 'a'", "L['mode'] == 'bb'; L['mode'] == 'a'"],
    ),
    config={"recompile_limit": 2},
)
def limit_hit_logged_once_as_recompile(x, mode):
    """The miss that hits the limit is logged as a recompile (its guard failures, as
    Dynamo logs them before it checks the limit); later misses are not logged."""
    return x * len(mode)


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(2), a) for a in (1.5, 2.5, 3.5)],
    expect=Expect(frames=1, graphs=1),
)
def float_argument_only_returned(x, a):
    """A float argument the trace only multiplies by a constant and returns: Dynamo
    guards it on its type (LazyConstantVariable over frame locals), computing ``a * 2``
    after the graph, so a new value reuses the compiled code."""
    return x + 1, a * 2


RATE = 0.5


def _set_rate(value: float):
    def before() -> None:
        global RATE
        RATE = value

    return before


@case(
    tags=["recompiles", "globals", "dynamic-shapes"],
    calls=[Call(T(4), before=_set_rate(v)) for v in (0.5, 1.5, 2.5, 3.5)],
    expect=Expect(frames=2, graphs=2),
)
def global_float_turns_dynamic(x):
    """Unlike an int (global_int_stays_static), a float read from a global turns dynamic
    once it changed, as an argument's does: two compiles for four values."""
    return x * RATE


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(4), flag) for flag in (True, False, True, False)],
    expect=Expect(frames=2, graphs=2),
    options={"dynamic": True},
)
def bool_specialized_under_dynamic_true(x, flag):
    """`dynamic=True` makes ints symbols, never bools: one entry per value, then hits."""
    return x + 1 if flag else x - 1


# Appended after the cases above, whose source lines their goldens name.
import enum  # noqa: E402


class _Mode(enum.Enum):
    ADD = 1
    MUL = 2


@case(
    tags=["recompiles", "guards"],
    calls=[Call(T(4), mode) for mode in (_Mode.ADD, _Mode.MUL, _Mode.ADD, _Mode.MUL)],
    expect=Expect(frames=2, graphs=2),
)
def enum_member_flip_flop(x, mode):
    """An enum member is guarded by identity: two members, two entries, then hits."""
    return x + mode.value if mode is _Mode.ADD else x * mode.value


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(n)) for n in (1, 2, 0, 3, 1)],
    expect=Expect(frames=3, graphs=3),
    options={"dynamic": True},
)
def dynamic_true_still_specializes_zero_one(x):
    """`dynamic=True`: sizes 1 and 0 get graphs of their own; 2 and 3 share the symbolic
    one, and the second size 1 hits its entry."""
    return x * 2


# Int arguments are lazy constants too (Dynamo's LazyConstantVariable over frame locals):
# guarded on their type until the trace reads the value, so an int only passed through
# keeps one compile for every value.


@case(
    tags=["recompiles", "guards"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=1, graphs=1),
)
def int_argument_only_returned(x, n):
    """An int argument returned as it came is loaded from the frame after the graph,
    unguarded: each call returns its own ``n``."""
    return x + 1, n


@case(
    tags=["recompiles", "guards"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=1, graphs=1),
)
def int_argument_incremented_and_returned(x, n):
    """``n + 1`` of a lazy int stays lazy, computed after the graph from ``L['n']``."""
    return x + 1, n + 1


@case(
    tags=["recompiles", "guards"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=2, graphs=2, recompiles=["L['n'] == 2"]),
)
def int_argument_before_a_tensor_in_the_result(x, n):
    """Dynamo asks a new tuple whether it is a constant before rebuilding it, reading
    its items in order up to the tensor: ``n`` first is read, so guarded (then dynamic);
    after the tensor (int_argument_only_returned) it is not."""
    return n, x * 2


@case(
    tags=["recompiles", "guards"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=2, graphs=2, recompiles=["L['n'] == 2"]),
)
def int_argument_in_a_nested_list_returned(x, n):
    """``[n]`` inside the result is a constant list to that question: ``n`` is guarded."""
    return x * 2, [n]


class _Box:
    def __init__(self) -> None:
        self.value = 0


@case(
    tags=["recompiles", "guards", "side-effects"],
    calls=[Call(T(4), _Box(), n) for n in (2, 3, 4, 5)],
    expect=Expect(frames=2, graphs=2, recompiles=["L['n'] == 2"]),
)
def int_argument_stored_as_an_attribute(x, box, n):
    """``box.value = n`` guards ``n`` (Dynamo's setattr realizes its arguments): a new
    value recompiles once, then the int is a graph input."""
    box.value = n
    return x * 2


@case(
    tags=["recompiles", "graph-breaks"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=2, graphs=2, recompiles=["L['n'] == 2"]),
)
def int_argument_printed(x, n):
    """An int passed to a builtin is guarded (Dynamo dispatches on whether it is a
    symbol), the one whose call breaks the graph included."""
    y = x + 1
    print("n", n)
    return y


@case(
    tags=["recompiles", "graph-breaks"],
    calls=[Call(T(4), s) for s in ("a", "b", "c")],
    expect=Expect(frames=1, graphs=1),
)
def str_argument_printed(x, s):
    """A str passed to a builtin keeps its type guard only: no recompile."""
    y = x + 1
    print(s)
    return y


@case(
    tags=["recompiles", "graph-breaks"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=3, graphs=1, recompiles=["L['n'] == 2"]),
)
def int_copy_alive_at_a_break(x, n):
    """A local that holds the int argument (not the argument itself) at a graph break
    is guarded on its value, as Dynamo checks each local it passes on."""
    m = n
    print("m")
    return x + 1, m


@case(
    tags=["recompiles", "graph-breaks"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=1, graphs=1),
)
def int_argument_alive_at_a_break(x, n):
    """The unchanged argument alive at a graph break is reloaded by the continuation
    from the frame: not guarded."""
    y = x + 1
    print("m")
    return y, n


@case(
    tags=["recompiles", "guards"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(frames=2, graphs=2, recompiles=["L['n'] == 2"]),
)
def int_argument_isinstance(x, n):
    """``isinstance(n, int)`` guards ``n``: Dynamo realizes an int to know its tracker."""
    if isinstance(n, int):
        return x + 1
    return x


@case(
    tags=["recompiles", "containers"],
    calls=_ints(2, 3, 4, 5),
    expect=Expect(
        frames=4,
        graphs=4,
        breaks=[],
        recompiles=[
            "L['n'] == 2",
            "L['n'] == 3; L['n'] == 2",
            "L['n'] == 4; L['n'] == 3; L['n'] == 2",
        ],
    ),
)
def symbolic_int_as_a_dict_key(x, n):
    """A dict key is hashed by its value: the SymInt ``n`` is specialized (guarded)
    there, each value compiling anew, instead of breaking the graph."""
    d = {n: x}
    return d[n] * 2


# Appended after the cases above, whose source lines their goldens name.
from conformance.spec import Make  # noqa: E402


class _Buffered(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.register_buffer("w", torch.ones(n))


@case(
    tags=["recompiles", "dynamic-shapes", "nn-module"],
    calls=[Call(T(n), Make(_Buffered, n)) for n in (2, 3, 4)],
    expect=Expect(frames=3, graphs=3),
)
def module_buffer_size_stays_static(x, m):
    """A buffer of a module argument keeps its sizes static, as a parameter's (Dynamo's
    force_parameter_static_shapes): `x` turns dynamic on the second call, the buffer's
    new size compiles anew on the third."""
    return x + m.w


def _grad_on() -> None:
    torch.set_grad_enabled(True)


def _grad_off() -> None:
    torch.set_grad_enabled(False)


@case(
    tags=["recompiles", "guards", "autograd"],
    calls=[Call(T(3), before=_grad_on), Call(T(3), before=_grad_off), Call(T(3), before=_grad_on)],
    expect=Expect(frames=2, graphs=2, recompiles=["GLOBAL_STATE changed: grad_mode"]),
)
def grad_mode_change_recompiles(x):
    """Every frame is guarded on the grad mode it was compiled in (Dynamo's GLOBAL_STATE
    guard), though the trace never reads it: a call under no_grad compiles again, and the
    next call with grad enabled reuses the first entry."""
    return x * 2


def _float32_default() -> None:
    torch.set_default_dtype(torch.float32)


def _float64_default() -> None:
    torch.set_default_dtype(torch.float64)


@case(
    tags=["recompiles", "guards"],
    calls=[
        Call(T(3), before=_float32_default),
        Call(T(3), before=_float64_default),
        Call(T(3), before=_float32_default),
    ],
    expect=Expect(frames=2, graphs=2, recompiles=["GLOBAL_STATE changed: default_dtype"]),
)
def default_dtype_change_recompiles(x):
    """The default dtype is part of every frame's global state guard: ``torch.ones(3)``
    of the trace assumed float32, and the branch on its dtype was taken at trace time, so
    a call after ``torch.set_default_dtype(torch.float64)`` compiles again (before: the
    float32 graph ran again and returned x * 2 where eager returns x * 3)."""
    ones = torch.ones(3)
    return x * (2 if ones.dtype == torch.float32 else 3) + ones.sum()


@case(
    tags=["recompiles", "dynamic-shapes", "fullgraph"],
    calls=[
        Call(T(6), torch.Size([2, 3])),
        Call(T(12), torch.Size([3, 4])),
        Call(T(20), torch.Size([4, 5])),
    ],
    options={"fullgraph": True},
    expect=Expect(frames=2, graphs=2, recompiles=["L['s'][0] == 2"]),
)
def size_argument_dims_turn_dynamic(x, s):
    """A torch.Size argument is a tuple of ints, each read by index (``L['s'][0]``): a
    dim that changed is a symbol from the second compile on, so the third call reuses
    the graph, as in Dynamo (the whole Size was guarded as a constant: each new Size
    compiled anew)."""
    return x.view(s) * 2


@case(
    tags=["recompiles", "dynamic-shapes", "fullgraph"],
    calls=[Call(T(3), T(3)), Call(T(3), 2.0), Call(T(3), 3.0), Call(T(3), 4)],
    options={"fullgraph": True},
    expect=Expect(frames=3, graphs=3),
)
def number_where_a_tensor_was_is_dynamic_at_once(x, y):
    """A float where the last compile saw a tensor is dynamic on its first compile (in
    Dynamo's frame state a tensor's entry has a dynamic scalar), so `torch.is_tensor` of
    it answers False from the symbol and the next float reuses the graph (it was a
    constant and compiled again); an int then is another type, one more compile."""
    if torch.is_tensor(y):
        return x + y
    return x * y


class _Repeats:
    n = 2
    current: "_Repeats | None" = None  # the instance of this run's closure


def _bump_repeats() -> None:
    _Repeats.current.n += 1  # the first bump shadows the class's 2 on the instance


def _closure_of_repeats():
    cfg = _Repeats.current = _Repeats()

    def repeat_by_config(x):
        return x.repeat(cfg.n)

    return repeat_by_config


@case(
    tags=["recompiles", "dynamic-shapes", "fullgraph"],
    calls=[
        Call(T(3)),
        Call(T(3), before=_bump_repeats),
        Call(T(3), before=_bump_repeats),
        Call(T(3), before=_bump_repeats),
    ],
    options={"fullgraph": True},
    expect=Expect(frames=3, graphs=3),
    factory=True,
)
def class_default_then_instance_attribute_int():
    """`cfg.n` read from the class (2), then from the instance (3, 4, 5): the class's
    number is reached as ``type(cfg).n`` (Dynamo's type-dict source), a name of its own,
    so the instance's 3 is a constant and only 4 turns dynamic, as in Dynamo (the one
    name made 3 dynamic: a compile fewer)."""
    return _closure_of_repeats()
