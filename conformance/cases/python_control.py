"""Python semantics under compilation: control (issue 14). The iteration protocol of
user classes and builtin iterators, comprehensions and their scopes, exceptions with
`finally`, closures and their cells, and functools, itertools and operator helpers.

Each program runs as Python would: a user `__iter__`/`__next__` is inlined, a
`finally` block runs on every way out, a cell is shared by the closures made over it.
"""

import functools
import itertools
import operator

import torch

from conformance.spec import Call, Expect, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
TAGS = ["python-semantics", "fullgraph"]


# the iteration protocol


class Countdown:
    """An iterator class: `__iter__` returns self, `__next__` raises StopIteration."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


class Squares:
    """An iterable whose `__iter__` is a generator method; also sized and reversible."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield i * i

    def __len__(self):
        return self.n

    def __reversed__(self):
        return iter([i * i for i in reversed(range(self.n))])

    def __contains__(self, value):
        return any(i * i == value for i in range(self.n))


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "mul", "mul"))
def user_iterator_class(x):
    """A for loop over an object with `__iter__` and `__next__`."""
    for k in Countdown(3):
        x = x * (k + 1)
    return x


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def user_iterable_with_generator_iter(x):
    """list(), sum(), len(), reversed() and `in` on a user iterable."""
    sq = Squares(4)
    return x + sum(sq), list(sq), len(sq), list(reversed(sq)), 9 in sq, 5 in sq


@case(tags=TAGS, calls=[Call([T(3), T(3), T(3)])],
      options=FULLGRAPH, expect=one_graph("add", "mul"))  # fmt: skip
def manual_next_on_list_iterator(ts):
    """iter() and next() by hand; the rest of the iterator is consumed by list()."""
    it = iter(ts)
    first = next(it)
    rest = list(it)
    return (first + rest[0]) * rest[1], next(it, None) is None


@case(tags=TAGS, calls=[Call(T(3), [1, 2, 3])], options=FULLGRAPH, expect=one_graph("add"))
def iterator_exhausted_once(x, xs):
    """A second loop over an exhausted iterator runs no iteration; a list restarts."""
    it = iter(xs)
    first = [v for v in it]
    second = [v for v in it]
    return x + len(first), second, [v for v in xs] == first


@case(tags=TAGS, calls=[Call(T(3), ["a", "b", "c"])], options=FULLGRAPH, expect=one_graph("mul"))
def enumerate_with_start_and_unpacking(x, names):
    """enumerate(start=1) and unpacking of its pairs in a comprehension."""
    labels = [f"{i}:{n}" for i, n in enumerate(names, start=1)]
    return x * len(labels), labels, dict(enumerate(names, 10))


@case(tags=TAGS, calls=[Call(T(3), [1, 2, 3], [10, 20])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def map_over_two_iterables(x, a, b):
    """map with two iterables stops at the shorter; zip likewise."""
    return x * sum(map(operator.mul, a, b)), list(map(lambda p, q: p + q, a, b)), list(zip(a, b))  # noqa: B905


@case(tags=TAGS, calls=[Call(T(3), [3, 1, 2])], options=FULLGRAPH, expect=one_graph("mul"))
def reversed_and_sorted_iterators(x, xs):
    """reversed() of a list and of a range; sorted() returns a new list."""
    return x * next(reversed(xs)), list(reversed(range(2, 8, 2))), sorted(xs), xs


class Bag:
    """A container answering `len`, truthiness and `in` through its dunder methods."""

    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __contains__(self, item):
        return item in self.items


@case(tags=TAGS, calls=[Call(T(3), [2, 4])], options=FULLGRAPH, expect=one_graph("mul", "sub"))
def truthiness_from_len(x, items):
    """An object without `__bool__` is true when its `__len__` is non-zero."""
    full, empty = Bag(items), Bag([])
    y = x * 2 if full else x
    y = y - 1 if not empty else y
    return y, 4 in full, 3 in full


# comprehensions


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def nested_comprehension_with_conditions(x):
    """Two `for` clauses and two `if` clauses in one comprehension."""
    pairs = [(i, j) for i in range(4) if i % 2 for j in range(i) if j != 1]
    return x * len(pairs), pairs


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def comprehension_variable_does_not_leak(x):
    """The comprehension's variable is its own: the function's `i` is unchanged."""
    i = 7
    squares = [i * i for i in range(3)]
    return x * i, squares


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "mul"))
def lambdas_in_comprehension_bind_late(x):
    """Closures made in a comprehension all see the loop variable's last value."""
    late = [lambda: i for i in range(3)]  # noqa: B023
    early = [lambda i=i: i for i in range(3)]
    return x * late[0](), x * early[1](), [f() for f in late]


@case(tags=[*TAGS, "dynamo-divergence"], calls=[Call([T(2), T(3), T(4)])], options=FULLGRAPH, expect=one_graph("add"))  # noqa: E501
def walrus_in_comprehension(ts):
    """`:=` inside a comprehension binds in the enclosing function."""
    sizes = [n for t in ts if (n := t.numel()) > 2]
    return ts[0] + n, sizes


@case(tags=TAGS, calls=[Call([T(3), T(3)], ["a", "b"])],
      options=FULLGRAPH, expect=one_graph("mul", "mul"))  # fmt: skip
def dict_comprehension_over_zip_of_tensors(ts, names):
    """A dict comprehension keyed by names, valued by tensors computed in it."""
    out = {name: t * 2 for name, t in zip(names, ts)}  # noqa: B905
    return out


@case(tags=TAGS, calls=[Call([T(3), T(3)])],
      options=FULLGRAPH, expect=one_graph(".sum", ".sum", "torch.stack"))  # fmt: skip
def comprehension_of_tensor_methods_stacked(ts):
    """A list of tensor method results made by a comprehension, then stacked."""
    return torch.stack([t.sum() for t in ts])


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def comprehension_reads_enclosing_names(x):
    """A comprehension reads the function's locals and a closure over them."""
    base, step = 10, 3
    scale = lambda v: v * step  # noqa: E731
    values = [scale(base + i) for i in range(2)]
    return x * values[1], values


@case(tags=TAGS, calls=[Call(T(3), [[1, 2], [3], []])], options=FULLGRAPH, expect=one_graph("mul"))
def flatten_nested_lists(x, nested):
    """Flattening with a double comprehension and with sum(..., [])."""
    flat = [v for row in nested for v in row]
    return x * len(flat), flat, sum(nested, [])


# exceptions and finally


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "add"))  # fmt: skip
def finally_runs_before_return(x):
    """A `finally` block runs after the return value is computed, before leaving."""
    events = []

    def inner(t):
        try:
            events.append("try")
            return t * 2
        finally:
            events.append("finally")

    return inner(x) + 1, events


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def nested_try_finally_order(x):
    """Nested try/except/finally blocks record their events in order."""
    events = []
    try:
        try:
            events.append(1)
            raise KeyError("k")
        finally:
            events.append(2)
    except KeyError as e:
        events.append(repr(e))
    finally:
        events.append(3)
    return x * len(events), events


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3), {"a": 1})],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def key_error_from_missing_key(x, d):
    """A missing key raises KeyError; the handler falls back to a default."""
    try:
        v = d["missing"]
    except KeyError as e:
        v = len(e.args)
    return x * v


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def zero_division_caught(x):
    """ZeroDivisionError from Python arithmetic on constants, caught."""
    try:
        ratio = 1 / 0
    except ZeroDivisionError:
        ratio = -1
    return x + ratio


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def subclass_caught_by_base_handler(x):
    """`except LookupError` catches an IndexError; the handler sees its class."""
    try:
        [][1]  # noqa: B018
    except LookupError as e:
        kind = type(e).__name__
    return x * 2, kind, issubclass(IndexError, LookupError)


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def exception_args_and_str(x):
    """An exception's args, its str with one and with several arguments."""
    e1, e2 = ValueError("bad"), ValueError("bad", 2)
    return x * len(e2.args), str(e1), e2.args, str(e2)


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3), [1, 0, 2])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def try_in_loop_with_break_and_finally(x, xs):
    """`break` inside a `try` runs its `finally`; an exception skips to the next item."""
    seen = []
    for v in xs:
        try:
            if v == 2:
                break
            seen.append(10 // v)
        except ZeroDivisionError:
            seen.append("zero")
            continue
        finally:
            seen.append("f")
    return x * len(seen), seen


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def raise_from_none_suppresses_context(x):
    """`raise ... from None` sets `__suppress_context__` and no cause."""
    try:
        try:
            raise KeyError("inner")
        except KeyError:
            raise ValueError("outer") from None
    except ValueError as e:
        flags = (e.__cause__ is None, e.__suppress_context__)
    return x * 2, flags


@case(tags=["python-semantics", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def else_runs_only_without_exception(x):
    """The `else` of a try runs when nothing was raised, before `finally`."""
    events = []
    for v in (1, 0):
        try:
            1 // v
        except ZeroDivisionError:
            events.append("except")
        else:
            events.append("else")
        finally:
            events.append("finally")
    return x + len(events), events


@case(tags=["python-semantics", "exceptions"], calls=[Call(T(3))], expect=Expect(outcome="raises"))
def finally_runs_when_error_escapes(x):
    """An exception leaving the function still runs `finally` (its tensor op included)."""
    try:
        y = x * 2
        raise RuntimeError(f"escaping with {y.dim()} dims")
    finally:
        x.add_(1)


# closures and cells


def make_counter():
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    def read():
        return count

    return bump, read


@case(tags=["python-semantics", "closures", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def closures_share_one_cell(x):
    """Two closures over one variable: a store by one is seen by the other."""
    bump, read = make_counter()
    bump()
    bump()
    return x * read()


@case(tags=["python-semantics", "closures", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "mul"))  # fmt: skip
def closure_sees_rebinding_after_creation(x):
    """A closure reads its cell when called, not when made."""
    k = 2

    def scale(t):
        return t * k

    first = scale(x)
    k = 5
    return first, scale(x)


@case(tags=["python-semantics", "closures", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def nonlocal_through_two_levels(x):
    """`nonlocal` in a doubly nested function writes the outermost variable."""
    total = 0

    def outer():
        def inner():
            nonlocal total
            total += 3

        inner()
        inner()

    outer()
    return x + total


@case(tags=["python-semantics", "closures", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def closure_over_mutable_dict(x):
    """A closure over a dict mutates it in place; no `nonlocal` needed."""
    cache = {}

    def remember(key, value):
        cache[key] = value
        return len(cache)

    remember("a", 1)
    n = remember("b", 2)
    return x * n, cache


@case(tags=["python-semantics", "closures", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def closure_attributes(x):
    """`__closure__`, `__code__.co_freevars` and a cell's contents of a nested function."""
    k = 4

    def f(t):
        return t * k

    return f(x), f.__code__.co_freevars, f.__closure__[0].cell_contents


# functools, itertools, operator


@functools.lru_cache(maxsize=8)
def table_size(n):
    return n * (n + 1) // 2


@case(tags=["python-semantics", "stdlib"], calls=[Call(T(3), 4)], expect=one_graph("mul"))
def lru_cached_helper(x, n):
    """A helper decorated with `functools.lru_cache` called with a constant."""
    return x * table_size(n)


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1

    return wrapper


@logged
def affine(t, k=2):
    """Scale by k."""
    return t * k


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "add"))  # fmt: skip
def wraps_copies_name_and_doc(x):
    """`functools.wraps` gives the wrapper the wrapped function's name, doc and `__wrapped__`."""
    return affine(x, k=3), affine.__name__, affine.__doc__, affine.__wrapped__ is not None


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3), [3, -1, 2])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def cmp_to_key_sorting(x, xs):
    """sorted with `functools.cmp_to_key` of a comparison function."""
    order = sorted(xs, key=functools.cmp_to_key(lambda a, b: abs(a) - abs(b)))
    return x * order[0], order


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3), "aabccc")],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def itertools_groupby_runs(x, s):
    """groupby of consecutive equal items: run lengths."""
    runs = [(k, len(list(g))) for k, g in itertools.groupby(s)]
    return x * len(runs), runs


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3), [1, 2, 5, 1, 7])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def itertools_takewhile_and_dropwhile(x, xs):
    """takewhile and dropwhile split a list at the first failing item."""
    head = list(itertools.takewhile(lambda v: v < 3, xs))
    tail = list(itertools.dropwhile(lambda v: v < 3, xs))
    return x * len(head), head, tail


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call([T(3), T(3)], [2, 3])],
      options=FULLGRAPH, expect=one_graph("mul", "mul", "add"))  # fmt: skip
def itertools_starmap_over_pairs(ts, ks):
    """starmap applies a function to unpacked pairs of tensors and ints."""
    scaled = list(itertools.starmap(operator.mul, zip(ts, ks)))  # noqa: B905
    return scaled[0] + scaled[1]


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3), [1, 2, 3, 4])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def itertools_compress_and_filterfalse(x, xs):
    """compress by a list of flags; filterfalse keeps what the predicate rejects."""
    kept = list(itertools.compress(xs, [1, 0, 1, 0]))
    odd = list(itertools.filterfalse(lambda v: v % 2 == 0, xs))
    return x * sum(kept), kept, odd


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call([T(3), T(3)])],
      options=FULLGRAPH, expect=one_graph("mul", "mul", "mul"))  # fmt: skip
def itertools_cycle_with_islice(ts):
    """cycle over a list of tensors, cut by islice: round-robin reuse."""
    out = [t * 2 for t in itertools.islice(itertools.cycle(ts), 3)]
    return out


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3), [5, 6, 7])],
      options=FULLGRAPH, expect=one_graph("mul", "neg"))  # fmt: skip
def operator_functions_as_values(x, xs):
    """operator.getitem, neg, truth, contains and index used as plain functions."""
    picked = operator.getitem(xs, 1)
    return operator.neg(x * picked), operator.truth([]), operator.contains(xs, 7), operator.index(3)


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3), [1])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def operator_inplace_functions(x, xs):
    """operator.iadd on a list extends it in place; on an int returns a new int."""
    ys = list(xs)
    zs = operator.iadd(ys, [2])
    n = operator.iadd(3, 4)
    return x * n, zs is ys, ys


class Block:
    def __init__(self):
        self.cfg = Config()


class Config:
    width = 3
    name = "cfg"


@case(tags=["python-semantics", "stdlib", "fullgraph"], calls=[Call(T(3))],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def attrgetter_with_dotted_path(x):
    """operator.attrgetter of a dotted path and of several names at once."""
    width = operator.attrgetter("cfg.width")(Block())
    both = operator.attrgetter("width", "name")(Config())
    return x * width, both


# more of the iteration protocol (after the others: their goldens name source lines)


class Steps:
    """The old iteration protocol: no `__iter__`, a `__getitem__` raising IndexError."""

    def __getitem__(self, index):
        if index >= 3:
            raise IndexError(index)
        return index + 1


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "mul", "mul"))
def for_loop_over_getitem_sequence(x):
    """A for loop over `__getitem__(0)`, `(1)`, ... until IndexError, its body in between."""
    for k in Steps():
        x = x * k
    return x


class ListFromIter:
    """`__iter__` returns a list, not an iterator."""

    def __iter__(self):
        return [1, 2]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def iter_returning_non_iterator_raises_type_error(x):
    """`iter()` raises TypeError when `__iter__` returns a non-iterator; caught in the frame."""
    try:
        for k in ListFromIter():
            x = x * k
    except TypeError as e:
        return x + 1, str(e)
    return x
