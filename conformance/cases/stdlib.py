"""The standard library while tracing: functools.partial and reduce, itertools, sorted
with a key, dict and set methods, frozensets, int and str methods, function attributes.

C functions among them are traced through their polyfills (plain-Python versions the
tracer inlines, trace_rules.POLYFILLS); queries on constants are folded; so each
program below is one graph.
"""

import collections
import functools
import itertools
import operator
import os

import torch

from conformance.spec import Call, T, case, one_graph

FULLGRAPH = {"fullgraph": True}


def scale(x, factor, *, shift=0):
    """A plain helper the cases wrap in partials."""
    return x * factor + shift


def with_defaults(x, k=2, *, bias=1):
    return x * k + bias


with_defaults.tag = "helper"
TRIPLE = functools.partial(scale, factor=3)


# functools.partial


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def partial_made_and_called(x):
    double = functools.partial(scale, factor=2)
    return double(x, shift=1)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.add"),
)
def partial_of_torch_function(x, y):
    add_twice = functools.partial(torch.add, alpha=2)
    return add_twice(x, y)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def partial_attributes(x):
    """`.func`, `.args` and `.keywords` of a partial made in the function."""
    p = functools.partial(scale, x, shift=3)
    return p.func(*p.args, 2, **p.keywords)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def partial_hasattr(x):
    p = functools.partial(scale, factor=4)
    if hasattr(p, "func") and not hasattr(p, "missing"):
        return p(x)
    return x


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def partial_global(x):
    """A partial made at module level: its function and arguments are read (and guarded)."""
    return TRIPLE(x)


# functools.reduce


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("add", "add"),
)
def reduce_with_operator(ts):
    return functools.reduce(operator.add, ts)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul"),
)
def reduce_with_lambda_and_initial(x, y):
    return functools.reduce(lambda acc, t: acc * t, [x, y], 2)


# itertools


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3)], (T(3),))],
    options=FULLGRAPH,
    expect=one_graph("add", "add", "add"),
)
def chain_two_sequences(a, b):
    total = 0
    for t in itertools.chain(a, b):
        total = total + t
    return total


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([[T(3)], [T(3), T(3)]])],
    options=FULLGRAPH,
    expect=one_graph("torch.stack"),
)
def chain_from_iterable(groups):
    return torch.stack(list(itertools.chain.from_iterable(groups)))


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul", "mul"),
)
def product_of_ranges(x):
    return [x * (i + 10 * j) for i, j in itertools.product(range(2), range(2))]


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul"),
)
def combinations_of_tensors(ts):
    return [a * b for a, b in itertools.combinations(ts, 2)]


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def permutations_count(x):
    return x * len(list(itertools.permutations("abc", 2)))


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3)], [T(3)])],
    options=FULLGRAPH,
    expect=one_graph("add", "add"),
)
def zip_longest_with_fill(a, b):
    return [p + q for p, q in itertools.zip_longest(a, b, fillvalue=1.0)]


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("add", "add"),
)
def accumulate_running_sum(ts):
    return list(itertools.accumulate(ts))


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3), T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def islice_every_other(ts):
    a, b = itertools.islice(ts, 0, None, 2)
    return a + b


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.cat"),
)
def repeat_n_times(x):
    return torch.cat(list(itertools.repeat(x, 3)))


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul"),
)
def count_zipped_with_items(ts):
    return [t * i for t, i in zip(ts, itertools.count(1))]


# sorted, any, all, len-like queries


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(4), T(2), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("torch.cat"),
)
def sorted_tensors_by_size(ts):
    return torch.cat(sorted(ts, key=lambda t: t.shape[0]))


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), {"b": 2, "a": 3, "c": 1})],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul"),
)
def sorted_items_reverse_by_value(x, weights):
    return [x * w for _, w in sorted(weights.items(), key=lambda kv: kv[1], reverse=True)]


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3, 2)])],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def any_all_over_shapes(ts):
    if any(t.dim() == 2 for t in ts) and all(t.shape[0] == 3 for t in ts):
        return ts[0] + 1
    return ts[0]


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), [1, 2, 3])],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def length_hint_of_list(x, items):
    return x * operator.length_hint(items)


# dicts, sets, frozensets


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "add"),
)
def dict_fromkeys_then_fill(x):
    d = dict.fromkeys(["a", "b"], 0)
    for i, key in enumerate(d):
        d[key] = x + i
    return d


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul"),
)
def dict_update_from_pairs(x):
    d = {"x": x}
    d.update([("y", x + 1)], z=2)
    return d["y"] * d["z"], d


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(["a", "b"], [T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("sub"),
)
def dict_update_from_zip(keys, values):
    d = {}
    d.update(zip(keys, values, strict=True))
    return d["a"] - d["b"]


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), {"lr": 2})],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def dict_update_from_mapping(x, config):
    merged = {"lr": 1, "wd": 0}
    merged.update(config)
    return x * merged["lr"] + merged["wd"]


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add", "add"),
)
def set_algebra_on_names(x):
    a = {"w", "b", "g"}
    b = {"b", "g", "s"}
    common = a.intersection(b)
    only_a = a.difference(b)
    return x * len(a.union(b)) + len(common) + len(only_a), a.symmetric_difference(b)


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def set_predicates(x):
    small = {1, 2}
    if small.issubset([1, 2, 3]) and small.isdisjoint({5}) and {1, 2, 3}.issuperset(small):
        return x + 1
    return x


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), ["weight", "bias"])],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def frozenset_membership(x, names):
    allowed = frozenset(names)
    return x * (2 if "bias" in allowed else 3)


# int and str methods, f-strings


@case(
    tags=["stdlib", "fullgraph"], calls=[Call(T(3), 12)], options=FULLGRAPH, expect=one_graph("mul")
)
def int_methods(x, n):
    num, den = n.as_integer_ratio()
    return x * (n.bit_length() + n.conjugate() + num - den)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), "layer")],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def str_methods(x, name):
    joined = "-".join([name, "0"])
    label = "{}_{}".format(name, 1)  # noqa: UP032 (str.format is what is traced)
    if joined.startswith("lay") and label.endswith("_1"):
        return x * len(joined)
    return x


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call({"fc0": T(3), "fc1": T(3)})],
    options=FULLGRAPH,
    expect=one_graph("add", "add"),
)
def fstring_keys(weights):
    total = 0
    for i in range(2):
        total = total + weights[f"fc{i}"]
    return total


# function attributes


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def function_name_attributes(x):
    return x * (len(scale.__name__) + len(scale.__module__))


@case(tags=["stdlib", "fullgraph", "dynamo-divergence"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))  # noqa: E501
def function_qualname(x):
    return x * len(scale.__qualname__)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def function_defaults_and_attribute(x):
    (k,) = with_defaults.__defaults__
    if with_defaults.tag == "helper":
        return with_defaults(x, k * 2, **with_defaults.__kwdefaults__)
    return x


# collections: containers made in the function


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul"),
)
def ordered_dict_built_and_returned(x):
    """An OrderedDict made in the function is returned as an OrderedDict, in its order."""
    d = collections.OrderedDict()
    d["first"] = x
    d["second"] = x + 1
    d.move_to_end("first")
    return d["first"] * d["second"], d


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def defaultdict_grouping(ts):
    groups = collections.defaultdict(list)
    for i, t in enumerate(ts):
        groups[i % 2].append(t)
    return groups[0][0] + groups[0][1], len(groups[1])


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call([T(3), T(3), T(3), T(3)])],
    options=FULLGRAPH,
    expect=one_graph("add", "sub"),
)
def deque_sliding_window(ts):
    window = collections.deque(maxlen=2)
    for t in ts:
        window.append(t)
    window.appendleft(window.pop() + 1)
    return window.popleft() - window[0], list(window)


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def namedtuple_made_inside(x):
    Point = collections.namedtuple("Point", ["x", "y"])
    p = Point(x, 2)
    return p.x * p.y


# os.environ


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def environ_get_with_default(x):
    """The environment is read at trace time (this variable is never set)."""
    return x * int(os.environ.get("CONFORMANCE_UNSET_SCALE", "2"))


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def environ_membership(x):
    if "CONFORMANCE_UNSET_FLAG" in os.environ:
        return x
    return x + 1


# itertools.groupby


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH)
def groupby_runs_of_equal_items(x):
    """Runs of equal items, each group consumed before the next key."""
    return [x * key * len(list(group)) for key, group in itertools.groupby([1, 1, 2, 3, 3, 3])]


@case(tags=["stdlib", "fullgraph", "dynamo-divergence"], calls=[Call(T(3))], options=FULLGRAPH)
def groupby_group_emptied_by_advancing(x):
    """A group shares the input with groupby: moving to the next key empties it (the
    first list is [], as CPython's C iterator gives)."""
    groups = itertools.groupby([1, 3, 2], key=lambda v: v % 2)
    odd, first = next(groups)
    even, second = next(groups)
    return x + odd + even, list(first), list(second)


# Typing forms as values: a validator dispatching on typing.get_origin (as huggingface_hub's
# strict dataclasses do). The typing module's queries fold on constants; a dict of
# validators is keyed by classes and special forms.

import typing  # noqa: E402  (appended: the cases above keep their line numbers)


def _check_list(value, args):
    return isinstance(value, list) and all(_matches(item, args[0]) for item in value)


def _check_union(value, args):
    return any(_matches(value, option) for option in args)


_VALIDATORS = {list: _check_list, typing.Union: _check_union}
_HINTS = {"sizes": list[int], "scale": typing.Optional[float], "name": str, "count": int | None}  # noqa: UP045 (the typing form)


def _matches(value, hint):
    if hint is typing.Any:
        return True
    check = _VALIDATORS.get(typing.get_origin(hint))
    if check is not None:
        return check(value, typing.get_args(hint))
    return isinstance(value, hint)


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def typing_forms_dispatch_validators(x):
    """Each field checked against its hint: list[int], Optional[float], int | None."""
    values = {"sizes": [1, 2], "scale": 2.0, "name": "a", "count": None}
    ok = all(_matches(values[name], hint) for name, hint in _HINTS.items())
    return x * values["scale"], ok, _matches("no", list[int])


# torch.utils._pytree, as library code and models use it: SUPPORTED_NODES is a dict keyed
# by classes and the `namedtuple` function, read one entry at a time; map_only wraps the
# user's function with functools.wraps.

import torch.utils._pytree as pytree  # noqa: E402  (appended: the cases above keep their line numbers)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3), T(2))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul"),
)
def pytree_tree_map_dict_of_list(x, y, z):
    return pytree.tree_map(lambda t: t * 2, {"a": x, "b": [y, z]})


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3), T(2))],
    options=FULLGRAPH,
    expect=one_graph("add", "add", "add"),
)
def pytree_flatten_unflatten(x, y, z):
    leaves, spec = pytree.tree_flatten({"a": x, "b": (y, z)})
    return pytree.tree_unflatten([leaf + 1 for leaf in leaves], spec), spec.num_leaves


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3), T(2))],
    options=FULLGRAPH,
    expect=one_graph(".sin", ".sin", ".sin"),
)
def pytree_tree_map_only_tensors(x, y, z):
    """Only the tensors are mapped; the int leaf is kept."""
    return pytree.tree_map_only(torch.Tensor, lambda t: t.sin(), {"a": x, "b": [y, 3, z]})


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3), T(2))],
    options=FULLGRAPH,
    expect=one_graph(".sum", "add", ".sum", "add", ".sum", "add"),
)
def pytree_tree_leaves_sum(x, y, z):
    return sum(t.sum() for t in pytree.tree_leaves([x, {"k": y}, (z,)]))


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "add"),
)
def pytree_tree_map_two_trees(x, y):
    """Two trees zipped: the second is flattened up to the first's spec."""
    return pytree.tree_map(lambda a, b: a + b, {"p": x, "q": (y,)}, {"p": y, "q": (x,)})


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH)
def functools_wraps_decorator(x):
    """A decorator made in the frame: the wrapper takes the function's names and doc."""

    def logged(fn):
        @functools.wraps(fn)
        def inner(*args):
            return fn(*args) + 1

        return inner

    @logged
    def double(t):
        """Twice t."""
        return t * 2

    return double(x), double.__name__, double.__doc__, double.__wrapped__(x)


@case(
    tags=["stdlib", "fullgraph", "dynamo-divergence"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.clamp"),
)
def partial_of_partial_flattened(x):
    """CPython's partial() of a partial makes one partial: its keywords are both calls'."""
    clamp_low = functools.partial(torch.clamp, min=0)
    clamp_both = functools.partial(clamp_low, max=1)
    return clamp_both(x), clamp_both.keywords, clamp_both.func is torch.clamp


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def builtin_class_name_of_frozenset(x):
    """``type(s).__name__`` of a builtin container made in the frame."""
    s = frozenset([1, 2]) | {3}
    return x * len(s), type(s).__name__, type([]).__qualname__, 3 in s


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.neg", "torch.neg"),
)
def pytree_tree_map_defaultdict(x, y):
    """A defaultdict is flattened with its default_factory in the spec."""
    d = collections.defaultdict(list, {"a": [x], "b": [y]})
    out = pytree.tree_map(torch.neg, d)
    return out["a"][0], out["b"], out.default_factory is list


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul"),
)
def pytree_tree_map_deque(x, y):
    """A deque is flattened with its maxlen in the spec."""
    out = pytree.tree_map(lambda t: t * 3, collections.deque([x, y], maxlen=4))
    return list(out), out.maxlen


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3), T(3))], options=FULLGRAPH)
def pytree_treespec_repr(x, y):
    """A TreeSpec's __repr__ (Python code of a traced library module) is inlined."""
    spec = pytree.tree_structure({"a": x, "b": [y]})
    return str(spec), spec.is_leaf(), x + 1


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.sin"),
)
def functools_wraps_builtin_with_counter(x):
    """wraps() of a builtin (which has no __annotations__: skipped, as CPython does), and
    a wrapper counting its calls in an attribute of its own."""

    def counted(fn):
        @functools.wraps(fn)
        def inner(*args):
            inner.calls += 1
            return fn(*args)

        inner.calls = 0
        return inner

    sin = counted(torch.sin)
    return sin(x), sin.calls, sin.__name__


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul", "add", "add", "add", "add"),
)
def itertools_tee_interleaved(x):
    """tee's iterators share one pass over the input; each sees every item, whichever
    reads first."""
    a, b, c = itertools.tee(iter([x, x + 1, x * 3]), 3)
    first = next(a)
    return first + sum(b), list(c), list(a)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "sub", "sub"),
)
def itertools_tee_pairwise_idiom(x):
    """The pre-3.10 pairwise recipe: tee, advance one copy, zip."""
    a, b = itertools.tee([x, x * 2, x * 3])
    next(b, None)
    return [q - p for p, q in zip(a, b, strict=False)]


# Regular expressions: over constant strings they fold (Dynamo's RE_CONSTANT_FOLD_FNS); a
# Pattern or Match is an immutable constant whose methods fold too.
# Appended after the cases above, whose source lines their goldens name.
import re  # noqa: E402

from conformance.spec import Expect, Make  # noqa: E402

LAYER_NAME = re.compile(r"(\w+)\.(\d+)")


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def re_match_on_constant_string(x):
    """`re.match` on a constant string is folded: the graph multiplies by 12."""
    m = re.match(r"layer(\d+)", "layer12")
    return x * int(m.group(1)), m.span(), re.sub(r"\d", "#", "a1b2")


@case(
    tags=["stdlib", "fullgraph", "recompiles"],
    calls=[Call(T(3), "fc.3"), Call(T(3), "fc.3"), Call(T(3), "proj.5")],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2, ops=[["mul"], ["mul"]]),
)
def re_global_pattern_on_string_argument(x, name):
    """A compiled pattern global matched against a string argument: the string is guarded
    on its value (a new name recompiles), the pattern on its equality."""
    m = LAYER_NAME.match(name)
    return x * int(m.group(2)), m.groups(), LAYER_NAME.pattern


@functools.singledispatch
def scale_of(value):
    return 1


@scale_of.register
def _(value: torch.Tensor):
    return value.abs().max()


@scale_of.register(list)
@scale_of.register(tuple)
def _(value):
    return len(value)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3)), Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph(".abs", ".max", "truediv", "mul", "add", "add"),
)
def singledispatch_on_argument_class(x):
    """A `functools.singledispatch` function: each call traces the implementation its
    first argument's class selects (a tensor, a list, a tuple, the default)."""
    return x / scale_of(x) * scale_of([1, 2]) + scale_of((3,)) + scale_of("s")


@case(
    tags=["stdlib", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(graphs=2, ops=[[".sin"], ["mul", "add"]]),
)
def lru_cache_made_in_the_function_breaks(x):
    """`functools.lru_cache` applied in the compiled function is a skipped library call:
    a break there (and at the decorator it returns), the code around it still traced."""
    y = x.sin()

    @functools.lru_cache(maxsize=8)
    def square(n):
        return n * n

    return y * square(3) + square(3)


import inspect  # noqa: E402  (appended: the cases above keep their line numbers)


def _scale_by_two(t):
    return t * 2


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), _scale_by_two), Call(T(3), torch.neg)],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2, ops=[["mul", "add"], ["torch.neg", "sub"]]),
)
def inspect_predicates_pick_a_path(x, fn):
    """``inspect.isfunction(fn)`` and its kin are isinstance checks, traced (as Dynamo
    traces them): a Python function and a builtin take different paths."""
    if inspect.isfunction(fn) and not inspect.isclass(fn):
        y = fn(x) + 1
    elif inspect.isroutine(fn):
        y = fn(x) - 1
    else:
        y = x
    return y, inspect.ismodule(torch), inspect.ismethod(x.add), inspect.isbuiltin(len)


import weakref  # noqa: E402  (appended: the cases above keep their line numbers)


def _scaler_ref():
    return weakref.ref(_scale_by_two)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(3), Make(_scaler_ref)), Call(T(3), Make(_scaler_ref))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def weakref_argument_called(x, ref):
    """A `weakref.ref` given to the frame: calling it is its referent, guarded through
    ``L['ref']()`` (None once the object is gone), as Dynamo does."""
    fn = ref()
    if fn is None:
        return x
    return fn(x) + 1


_HEAD = torch.nn.Linear(3, 3)


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(2, 3))],
    options=FULLGRAPH,
    expect=one_graph("torch._C._nn.linear"),
)
def weakref_made_and_called(x):
    """``weakref.ref(module)`` made in the function: calling it is the module; a weak
    reference returned is rebuilt as ``weakref.ref(obj)``."""
    ref = weakref.ref(_HEAD)
    return ref()(x), isinstance(ref, weakref.ref), ref() is _HEAD


DROPPED_HEADS: list = []


@case(
    tags=["stdlib", "fullgraph"],
    calls=[Call(T(2, 3))],
    options=FULLGRAPH,
    expect=one_graph("torch._C._nn.linear"),
)
def weakref_with_callback_made_and_called(x):
    """``weakref.ref(obj, callback)`` made in the function, as a cache keyed by weak
    references makes it: calling it is the object (one that leaves the trace is rebuilt
    with its callback)."""
    ref = weakref.ref(_HEAD, lambda dead: DROPPED_HEADS.append(dead))
    plain = weakref.ref(_HEAD, None)
    return ref()(x), ref() is plain(), isinstance(ref, weakref.ref)


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def environ_items_filtered(x):
    """``os.environ.items()`` / ``keys()`` / ``copy()``, as a launcher's settings are
    collected by prefix: the environment read at trace time."""
    settings = {k: v for k, v in os.environ.items() if k.startswith("CONFORMANCE_UNSET_")}
    names = [k for k in os.environ.keys() if k.startswith("CONFORMANCE_UNSET_")]
    snapshot = os.environ.copy()
    return x * (len(settings) + 1), names, "CONFORMANCE_UNSET_FLAG" in snapshot
