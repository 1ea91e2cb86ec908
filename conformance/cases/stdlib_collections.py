"""The standard library's containers and iteration helpers while tracing, as
torch.compile users write them: functools.partial objects, itertools, collections
(OrderedDict, deque, defaultdict, Counter, dict subclasses), dict and set methods and
operators, sorted/min/max with keys, operator's getters, heapq, bisect and copy.

Each program traces into one graph under `fullgraph=True`, as in Dynamo; a second call
with new values reuses it, a changed Python value recompiles where Dynamo does.
"""

import collections
import copy
import functools
import itertools
import operator

import torch

from conformance.spec import Call, Expect, Make, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
TAGS = ["stdlib", "fullgraph"]


def affine(x, w, b=0.0):
    return x * w + b


# functools.partial


@case(tags=TAGS, calls=[Call(T(3)), Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def partial_keywords_read_and_merged(x):
    """`p.keywords` is a dict the program may copy and extend."""
    p = functools.partial(affine, w=2.0)
    kw = dict(p.keywords)
    kw["b"] = 1.0
    return p.func(x, **kw)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def partial_of_partial(x):
    """A partial of a partial flattens: its args and keywords accumulate."""
    p = functools.partial(affine, w=3.0)
    q = functools.partial(p, b=2.0)
    return q(x)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def partial_positional_args_tuple(x):
    p = functools.partial(affine, x, 2.0)
    assert isinstance(p.args, tuple)
    return p(b=len(p.args))


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("torch.relu", "torch.mul"))
def partial_in_list_of_callables(x):
    fns = [torch.relu, functools.partial(torch.mul, other=2.0)]
    for f in fns:
        x = f(x)
    return x


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("torch.add"))
def partial_callable_and_isinstance(x):
    p = functools.partial(torch.add, other=1)
    if callable(p) and isinstance(p, functools.partial):
        return p(x)
    return x


# functools.reduce


@case(
    tags=TAGS, calls=[Call([T(3), T(3), T(3)])], options=FULLGRAPH, expect=one_graph("mul", "mul")
)
def reduce_product_of_list(xs):
    return functools.reduce(operator.mul, xs)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=one_graph("mul"))
def reduce_product_of_shape(x):
    """`reduce(mul, x.shape, 1)`: the element count, a constant of static shapes."""
    n = functools.reduce(operator.mul, x.shape, 1)
    return x * n


# itertools


@case(tags=TAGS, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=one_graph("add", "add"))
def chain_of_list_and_tuple(a, b):
    total = 0
    for t in itertools.chain([a], (b,)):
        total = total + t
    return total


@case(
    tags=TAGS,
    calls=[Call([[T(2)], [T(2), T(2)]])],
    options=FULLGRAPH,
    expect=one_graph("torch.cat"),
)
def chain_from_iterable_flattens(groups):
    return torch.cat(list(itertools.chain.from_iterable(groups)))


@case(
    tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add", "mul", "add")
)
def product_over_two_lists(x):
    out = []
    for scale, shift in itertools.product([1.0, 2.0], [0.5]):
        out.append(x * scale + shift)
    return out


@case(
    tags=TAGS,
    calls=[Call([T(2), T(2), T(2)])],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul"),
)
def combinations_pairwise_products(xs):
    return [a * b for a, b in itertools.combinations(xs, 2)]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def permutations_of_names(x):
    orders = list(itertools.permutations("abc"))
    return x * len(orders), orders[1]


@case(
    tags=TAGS, calls=[Call([T(2), T(2)], [T(2)])], options=FULLGRAPH, expect=one_graph("add", "mul")
)
def zip_longest_default_none(xs, ys):
    out = []
    for a, b in itertools.zip_longest(xs, ys):
        out.append(a * 2 if b is None else a + b)
    return out


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def accumulate_with_initial(x):
    sums = list(itertools.accumulate([1, 2, 3], initial=10))
    return x * sums[-1], sums


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def accumulate_with_function(x):
    running = list(itertools.accumulate([3, 1, 4, 1, 5], max))
    return x * running[-1], running


@case(tags=TAGS, calls=[Call([T(2), T(2), T(2), T(2)])], options=FULLGRAPH, expect=one_graph("add"))
def islice_start_stop(xs):
    a, b = itertools.islice(xs, 1, 3)
    return a + b


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "mul"))
def repeat_zipped_with_scales(x):
    return [x * s for x, s in zip(itertools.repeat(x), [1.0, 2.0])]


@case(tags=TAGS, calls=[Call([T(2), T(2)])], options=FULLGRAPH, expect=one_graph("mul", "mul"))
def count_with_start_and_step(xs):
    return [x * k for k, x in zip(itertools.count(2, 3), xs)]


@case(tags=TAGS, calls=[Call(T(4))], options=FULLGRAPH, expect=one_graph("add", "add"))
def pairwise_over_list(x):
    total = x
    for a, b in itertools.pairwise([1, 2, 3]):
        total = total + a * b
    return total


# collections


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def ordered_dict_move_to_end(x):
    d = collections.OrderedDict()
    d["a"] = x + 1
    d["b"] = x * 2
    d.move_to_end("a")
    return list(d.keys()), list(d.values())


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def ordered_dict_popitem(x):
    d = collections.OrderedDict(a=x + 1, b=x * 2)
    key, value = d.popitem(last=False)
    return key, value, len(d)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "mul", "mul"))
def deque_maxlen_drops_oldest(x):
    q = collections.deque(maxlen=2)
    for k in range(3):
        q.append(x * k)
    return list(q), len(q)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "sub"))
def deque_appendleft_and_pop(x):
    q = collections.deque([x])
    q.appendleft(x + 1)
    q.append(x - 1)
    last = q.pop()
    first = q.popleft()
    return first, last, len(q)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "add"))
def defaultdict_of_list(x):
    d = collections.defaultdict(list)
    d["a"].append(x + 1)
    d["a"].append(x + 2)
    return d["a"], len(d["b"])


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def defaultdict_of_int_counting(x):
    counts = collections.defaultdict(int)
    for name in ["a", "b", "a"]:
        counts[name] += 1
    return x + counts["a"], dict(counts)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def counter_most_common(x):
    c = collections.Counter(["relu", "gelu", "relu"])
    name, n = c.most_common(1)[0]
    return x * n, name


class Config(dict):
    """A dict subclass with attribute access, as configs are often written."""

    def __getattr__(self, name):
        return self[name]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def dict_subclass_made_inside(x):
    cfg = Config(scale=2.0, shift=1.0)
    return x * cfg.scale + cfg["shift"]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def dict_fromkeys_with_value(x):
    d = dict.fromkeys(["a", "b"], 0)
    d["a"] = x + 1
    return d


@case(tags=TAGS, calls=[Call(T(3), {"w": 2.0})], options=FULLGRAPH, expect=one_graph("mul", "add"))
def dict_update_with_keywords(x, opts):
    d = {"w": 1.0}
    d.update(opts, bias=0)
    return x * d["w"] + d["bias"]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def dict_merge_operator(x):
    a = {"p": x + 1}
    b = {"q": x * 2}
    merged = a | b
    a |= {"r": 3}
    return merged, sorted(a)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "add"))
def dict_items_view_iteration(x):
    d = {"a": 1, "b": 2}
    for _, v in d.items():
        x = x + v
    return x, list(d.keys()) == ["a", "b"], "a" in d.keys()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dict_keys_set_operations(x):
    a = {"p": 1, "q": 2}
    b = {"q": 3, "r": 4}
    common = a.keys() & b.keys()
    return x * len(common), sorted(a.keys() | b.keys())


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "add"))
def dict_setdefault_and_pop(x):
    d = {}
    d.setdefault("a", []).append(1)
    d.setdefault("a", []).append(2)
    n = d.pop("missing", 0)
    return x + len(d["a"]) + n


# sets


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_operators(x):
    a = {1, 2, 3}
    b = {2, 3, 4}
    both = a & b
    either = a | b
    only_a = a - b
    one_side = a ^ b
    return x * len(both), sorted(either), only_a, sorted(one_side)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def set_comparisons(x):
    a = {1, 2}
    b = {1, 2, 3}
    if a <= b and a < b and b >= a and a.issubset(b) and b.issuperset(a):
        return x + 1
    return x


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_add_discard_remove(x):
    s = set()
    s.add("a")
    s.add("b")
    s.discard("c")
    s.remove("b")
    return x * len(s), "a" in s


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def frozenset_algebra(x):
    a = frozenset(["relu", "gelu"])
    b = frozenset(["gelu", "silu"])
    return x * len(a | b), a & b, a.isdisjoint(b)


@case(tags=TAGS, calls=[Call(T(3), "relu"), Call(T(3), "tanh")], options=FULLGRAPH,
      expect=Expect(frames=2, graphs=2, ops=[["torch.relu"], ["torch.tanh"]]))  # fmt: skip
def frozenset_dispatch_on_string(x, act):
    if act in frozenset({"relu", "gelu"}):
        return torch.relu(x)
    return torch.tanh(x)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_comprehension_of_shapes(x):
    dims = {d for d in (3, 3, 4)}
    return x * len(dims)


# sorted, min, max, operator getters


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def sorted_pairs_by_second(x):
    pairs = [("a", 3), ("b", 1), ("c", 2)]
    ranked = sorted(pairs, key=lambda p: p[1], reverse=True)
    return x * ranked[0][1], [name for name, _ in ranked]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def sorted_with_itemgetter(x):
    pairs = [("a", 3), ("b", 1)]
    ranked = sorted(pairs, key=operator.itemgetter(1))
    return x * ranked[0][1]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def max_of_dict_by_value(x):
    d = {"a": 3, "b": 5, "c": 1}
    best = max(d, key=d.get)
    return x * d[best], best


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=one_graph("add"))
def itemgetter_on_shape(x):
    first, last = operator.itemgetter(0, -1)(x.shape)
    return x + first * last


Pair = collections.namedtuple("Pair", ["left", "right"])


@case(tags=TAGS, calls=[Call(Pair(T(3), T(3)))], options=FULLGRAPH, expect=one_graph("sub"))
def attrgetter_on_namedtuple(p):
    get = operator.attrgetter("left", "right")
    left, right = get(p)
    return left - right


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph(".mul"))
def methodcaller_on_tensor(x):
    return operator.methodcaller("mul", 2)(x)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def length_hint_of_range_iterator(x):
    return x * operator.length_hint(iter(range(5)))


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def operator_functions_on_ints(x):
    n = operator.add(operator.mul(2, 3), operator.floordiv(7, 2))
    return operator.add(x, n)


# copy


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def deepcopy_of_nested_config(x):
    cfg = {"layers": [1, 2], "name": "m"}
    other = copy.deepcopy(cfg)
    other["layers"].append(3)
    return x + len(cfg["layers"]), other


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def counter_missing_key_and_update(x):
    """`c[k] += 1` on a Counter reads an absent key through Counter.__missing__ (0);
    `update` counts a string's characters."""
    c = collections.Counter()
    for k in ["relu", "gelu", "relu"]:
        c[k] += 1
    c.update("ab")
    return x * c["relu"] + sum(c.values()), c["zzz"]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add", "add"))
def chainmap_lookup_order(x):
    """A ChainMap finds a key in its first mapping that has it; `get` falls back."""
    cm = collections.ChainMap({"a": 2}, {"a": 5, "b": 3})
    return x * cm["a"] + cm["b"] + cm.get("c", 0)


class _LayerConfig:
    def __init__(self, width):
        self.width = width
        self.names = ["q", "k"]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def deepcopy_of_user_object(x):
    """copy.deepcopy of a plain object rebuilds it (object.__reduce_ex__'s protocol) with
    copies of its attributes: changing the copy leaves the original alone."""
    cfg = _LayerConfig(2)
    other = copy.deepcopy(cfg)
    other.names.append("v")
    other.width = 5
    return x * cfg.width + len(cfg.names), other.width, other.names


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def deepcopy_keeps_shared_and_recursive_structure(x):
    """The memo (keyed by id()) copies an object reached twice once, and a list that
    contains itself stays recursive."""
    inner = [1]
    loop = [inner, inner]
    loop.append(loop)
    deep = copy.deepcopy(loop)
    return x + len(deep), deep[0] is deep[1], deep[2] is deep, deep[0] is inner


class FieldsOutput(collections.OrderedDict):
    """A model output in the style of transformers' ModelOutput: items mirrored as
    attributes through the base class's slots."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True})
def ordered_dict_subclass_super_setitem(x):
    """`super().__setitem__` of an OrderedDict subclass, then item and attribute reads."""
    out = FieldsOutput()
    out["logits"] = x * 2
    out["loss"] = x.sum()
    return out.logits + out["loss"], list(out.keys())


@case(tags=TAGS, calls=[Call(T(3), [1, 2, 3])], expect=one_graph("mul"))
def length_hint_of_list_iterator(x, items):
    """A list iterator's hint counts the items left after a `next`."""
    it = iter(items)
    next(it)
    return x * operator.length_hint(it)


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True})
def dict_of_ordered_dict_subclass(x):
    """dict() of a model output (an OrderedDict subclass): a plain dict of its items."""
    out = FieldsOutput()
    out["logits"] = x * 2
    out["hidden"] = x + 1
    plain = dict(out)
    return type(plain).__name__, list(plain), plain["logits"] - plain["hidden"]


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("mul", "add"))  # fmt: skip
def min_and_max_of_dict_views(x):
    """min/max over a dict's values view and keys view compare the items."""
    widths = {"small": 3, "tiny": 1, "large": 7}
    return x * min(widths.values()) + len(max(widths.keys(), key=len))


@case(tags=["stdlib", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True},
      expect=one_graph("mul", "add"))  # fmt: skip
def set_pop_until_empty(x):
    """``set.pop`` takes the item CPython's would (the set's table order, not the order
    the items were added), down to empty."""
    pending = set()
    for size in (7, 2, 5, 12):
        pending.add(size)
    pending.discard(12)
    order = []
    while pending:
        order.append(pending.pop())
    return x * order[0] + order[-1], order


@case(tags=TAGS, calls=[Call([T(2), T(2), T(2)])], options=FULLGRAPH,
      expect=one_graph(*["mul"] * 6))  # fmt: skip
def combinations_with_replacement_of_tensors(xs):
    """`itertools.combinations_with_replacement` pairs each tensor with itself and the
    ones after it (a polyfill, as Dynamo's)."""
    return [a * b for a, b in itertools.combinations_with_replacement(xs, 2)]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dict_values_view_in_a_tuple_follows_its_dict(x):
    """`max(view, key=...)` runs its polyfill, which reads the view out of its `*args`
    tuple: an item of a tuple that is a dict's view is that view (it shows the dict's
    later items), not a folded copy."""
    widths = {"a": 3, "b": 7, "c": 1}
    views = (widths.values(),)
    widths["d"] = -2
    return x * max(widths.values(), key=lambda v: -v), sorted(views[0])


class AttrConfig(dict):
    """A dict whose items are also read and written as attributes."""

    def __getattr__(self, name):
        return self[name]

    def __setattr__(self, name, value):
        self[name] = value


def _attribute_config():
    return AttrConfig(scale=2.0, shift=1.0)


@case(tags=TAGS, calls=[Call(T(3), Make(_attribute_config))], options=FULLGRAPH,
      expect=one_graph("mul", "mul", "add"))  # fmt: skip
def dict_subclass_argument_read_and_written(x, cfg):
    """An object of a dict subclass given to the frame is traced as its items (its keys
    guarded, each value read by key): `__getattr__` reads an item, `__setattr__` writes
    one, and the new items are set on the object after the graph (dict's clear and
    update, which the class keeps)."""
    cfg.steps = 3
    cfg["out"] = x * 2
    return x * cfg.scale + cfg.shift, len(cfg), sorted(cfg)


@case(tags=TAGS, calls=[Call(T(3), Make(collections.defaultdict, list))], options=FULLGRAPH,
      expect=one_graph("add", "mul", "add"))  # fmt: skip
def defaultdict_argument_fills_missing_keys(x, groups):
    """A defaultdict argument: a missing key stores and returns a new `default_factory()`
    (its C `__missing__`), in the graph's replay too."""
    groups["a"].append(x + 1)
    groups["a"].append(x * 2)
    return len(groups["b"]), sorted(groups), groups["a"][0] + groups["a"][1]


def _usage():
    return collections.Counter(relu=2, gelu=1)


@case(
    tags=TAGS,
    calls=[Call(T(3), Make(_usage)), Call(T(3), Make(_usage))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add", "add"),
)
def counter_argument_read_and_counted(x, counts):
    """A Counter given to the frame is traced as its items (its `update` counts, so the
    changed items are put back with dict's own `clear` and `update`): `c[k]` of an absent
    key is Counter.__missing__'s 0, `update` adds."""
    counts["relu"] += 1
    counts.update(["gelu", "silu"])
    return x * counts["relu"] + sum(counts.values()) + counts["absent"], counts.most_common(1)


@case(
    tags=TAGS,
    python=("3.12", "3.13"),
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul", "torch.stack", "torch.stack"),
)
def itertools_batched_groups(x):
    """``itertools.batched(items, n)`` (CPython 3.12+): tuples of n items, the last one
    shorter, traced through its polyfill."""
    parts = [x * 1, x * 2, x * 3]
    return [torch.stack(batch) for batch in itertools.batched(parts, 2)]


def _window():
    return collections.deque([1.0, 2.0], maxlen=3)


@case(
    tags=TAGS,
    calls=[Call(T(3), Make(_window)), Call(T(3), Make(_window))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul"),
)
def deque_argument_indexed_and_appended(x, window):
    """A deque given to the frame is traced as its items (its length and `maxlen`
    guarded): indexing reads an item, and `append`/`popleft` change it, replayed on the
    caller's deque (`clear` and `extend`) after the graph."""
    y = x + window[0]
    window.append(len(window))
    first = window.popleft()
    return y * first, window[-1], len(window)

