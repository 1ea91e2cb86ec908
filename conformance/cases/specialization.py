"""Specialization: what the compiled code takes as fixed must be guarded.

Values read while tracing (a function in a closure cell, a builtin, a set) are baked
into the graph or folded away; each is guarded, so that another value on a later call
recompiles instead of silently reusing the first call's result.
"""

import operator

import torch

from conformance.spec import Call, Expect, T, case


def make_applier(f):
    def apply(t):
        return f(t)

    return apply


APPLY = make_applier(torch.sin)


def apply_sin():
    global APPLY
    APPLY = make_applier(torch.sin)


def apply_cos():
    global APPLY
    APPLY = make_applier(torch.cos)


@case(
    tags=["closures", "guards", "recompiles"],
    calls=[Call(T(3), before=apply_sin), Call(T(3), before=apply_cos)],
    expect=Expect(frames=2, graphs=2, ops=[["torch.sin"], ["torch.cos"]]),
)
def closure_cell_holds_other_function(x):
    """Two closures of one code, over torch.sin and torch.cos: the cell's content is
    guarded by identity, so the second call recompiles (it once returned sin's result)."""
    return APPLY(x)


def make_growing_set_reader():
    s = {1, 2}

    def read(t):
        n = len(s)
        s.add(n + 1)
        return t + n

    return read


@case(
    tags=["closures", "guards", "side-effects"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["add"]]),
    factory=True,
)
def closed_over_set_grows_between_calls():
    """A closed-over set that each call grows: the guard compares the set with a copy of
    its compile-time value, so the second call sees the new `len(s)` (it once kept 2)."""
    return make_growing_set_reader()


SEEN = {1, 2}


def grow_seen():
    SEEN.add(3)


@case(
    tags=["guards", "recompiles", "globals"],
    calls=[Call(T(3)), Call(T(3), before=grow_seen)],
    expect=Expect(frames=2, graphs=2, recompiles=["G['SEEN'] == {1, 2}"]),
)
def global_set_grows_between_calls(x):
    """A global set grown between calls: its guard holds a copy of the value it was
    compiled for, not the set itself."""
    return x + len(SEEN)


def make_mapper(op):
    def mapped(x):
        return x + 1, list(map(op, range(-4, 4)))

    return mapped


MAPPER = make_mapper(abs)


def use_mapper(op):
    """A `before` hook: MAPPER becomes a new closure (same code) over `op`."""

    def use():
        global MAPPER
        MAPPER = make_mapper(op)

    return use


@case(
    tags=["builtins", "closures", "fullgraph", "guards"],
    calls=[
        Call(T(2), before=use_mapper(op))
        for op in (abs, operator.neg, operator.pos, operator.truth)
    ],
    expect=Expect(frames=4, graphs=4),
    options={"fullgraph": True},
)
def map_builtin_from_closure_cell(x):
    """`map(op, ...)` over a builtin held in a closure cell: each op is guarded by
    identity, so a later op never gets the first one's results."""
    return MAPPER(x)


@case(
    tags=["builtins", "dynamic-shapes", "recompiles"],
    calls=[Call(T(2), a) for a in (2.2, 3.6, 4.1, 5.4)],
    expect=Expect(frames=2, graphs=2),
)
def round_of_dynamic_float(x, a):
    """``round(a)`` of a float that turned dynamic is a graph node, ``item.__round__()``
    (a SymInt), not a specialization: a third value reuses the second graph."""
    return x * round(a)


@case(
    tags=["builtins", "dynamic-shapes", "recompiles", "dynamo-divergence"],
    calls=[Call(T(2), n) for n in (22, 37, 41)],
    expect=Expect(frames=3, graphs=3),
)
def round_of_dynamic_int_with_ndigits(x, n):
    """``round(n, -1)`` of an int that turned dynamic is folded and guarded: a SymInt's
    ``__round__`` ignores ``ndigits`` (Dynamo 2.14 traces it, and returns ``n``)."""
    return x * round(n, -1)


_SHAPE_IDS: dict = {}


@case(
    tags=["builtins", "dynamic-shapes", "recompiles", "side-effects"],
    calls=[Call(T(3)), Call(T(3)), Call(T(4))],
    expect=Expect(frames=3, graphs=3),
)
def shape_tuple_as_dict_key(x):
    """``tuple(x.shape)`` as a key of a global cache dict: once the size turned dynamic
    (the third call), hashing the key specializes each symbolic size to its value, with
    a guard, as Dynamo does, instead of breaking the graph."""
    key = tuple(x.shape)
    if key not in _SHAPE_IDS:
        _SHAPE_IDS[key] = len(_SHAPE_IDS) + 1
    return x * _SHAPE_IDS[key]
