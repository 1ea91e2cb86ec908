"""Generators driven by the traced code: `yield from`, `send`, `throw`, `close`
(GeneratorExit inside the generator), `next` with a default and StopIteration, and a
generator consumed while the list it reads grows (`list.extend` takes its items one by one).
"""


from conformance.spec import Break, Call, Expect, Make, T, case, one_graph

FULLGRAPH = {"fullgraph": True}


def squares(n):
    for i in range(n):
        yield i * i


def delegating(n):
    total = yield from squares(n)
    yield -1
    return total


def running_total():
    total = 0
    while True:
        sent = yield total
        total += sent


def closing(log):
    try:
        yield 1
        yield 2
    except GeneratorExit:
        log.append("closed")
        raise


def recovering():
    try:
        yield 1
    except ValueError:
        yield 10


def counting():
    i = 0
    while True:
        yield i
        i += 1


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def yield_from(x):
    return x + sum(delegating(3))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def send_values(x):
    g = running_total()
    next(g)
    g.send(2)
    return x + g.send(3)


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def close_runs_generator_exit(x):
    log = []
    g = closing(log)
    next(g)
    g.close()
    return x + len(log)


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def throw_caught_inside(x):
    g = recovering()
    next(g)
    return x + g.throw(ValueError("resume"))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def next_with_default(x):
    return x + next(iter([]), 5)


@case(tags=["generators", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def stop_iteration_caught(x):
    g = squares(1)
    next(g)
    try:
        next(g)
    except StopIteration:
        return x + 1
    return x


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add", "add"))  # fmt: skip
def infinite_generator_zipped(x):
    for _, v in zip(range(3), counting()):  # noqa: B905 (an infinite generator)
        x = x + v
    return x


@case(tags=["generators", "containers", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add", "add"))  # fmt: skip
def extend_reads_growing_list(x):
    y = [x]
    y.extend(y[-1] + z for z in range(3))
    return y


@case(tags=["exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def raise_from_cause(x):
    try:
        try:
            raise KeyError("k")
        except KeyError as e:
            raise ValueError("v") from e
    except ValueError as e:
        return x + (1 if isinstance(e.__cause__, KeyError) else 0)


# Issue 19: throw into `yield from`, a returned generator's StopIteration, infinite
# generators consumed partly, generators handed to builtins.


def inner_recovering():
    try:
        yield 1
    except KeyError:
        yield 100
    return 7


def outer_delegating():
    result = yield from inner_recovering()
    yield result


def returning(n):
    yield n
    return n * 10


def guarded(log):
    try:
        yield 1
        yield 2
    finally:
        log.append("done")


class Bag:
    def __init__(self, items):
        self.items = items

    def doubled(self):
        for item in self.items:
            yield item * 2


@case(tags=["generators", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add"))  # fmt: skip
def throw_into_yield_from(x):
    """The thrown exception reaches the inner generator, which recovers and yields."""
    g = outer_delegating()
    next(g)
    a = g.throw(KeyError("k"))
    b = next(g)
    return x + a + b


@case(tags=["generators", "exceptions", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def stop_iteration_value(x):
    """next() on a generator that returns raises StopIteration carrying the value."""
    g = returning(2)
    next(g)
    try:
        next(g)
    except StopIteration as e:
        return x + e.value
    return x


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add", "add", "add"))  # fmt: skip
def next_in_loop_on_infinite(x):
    g = counting()
    for _ in range(4):
        x = x + next(g)
    return x


@case(tags=["generators", "stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def islice_of_infinite(x):
    import itertools

    return x + sum(itertools.islice(counting(), 2, 6))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def any_short_circuits_infinite(x):
    return x + any(v > 3 for v in counting())


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "add", "mul", "add", "mul", "add"))  # fmt: skip
def sum_of_tensor_generator(x):
    return sum(x * i for i in range(3))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def stack_generator_expression(x):
    import torch

    return torch.stack(tuple(x + i for i in range(3)))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def dict_from_generator(x):
    d = dict((f"k{i}", i) for i in range(3))  # noqa: C402
    return x * d["k2"]


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def enumerate_generator(x):
    total = 0
    for i, v in enumerate(squares(4)):
        total += i * v
    return x + total


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def break_out_runs_finally_on_close(x):
    log = []
    g = guarded(log)
    for v in g:
        if v == 1:
            break
    g.close()
    return x + v, log


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def send_none_starts(x):
    g = running_total()
    g.send(None)
    return x + g.send(4)


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def yield_from_list(x):
    def gen():
        yield from [1, 2, 3]

    return x + sum(gen())


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def generator_method(x):
    return x + sum(Bag([1, 2, 3]).doubled())


@case(tags=["generators", "builtins", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def map_filter_over_generator(x):
    odd = filter(lambda v: v % 2, squares(5))
    return x + sum(map(lambda v: v + 1, odd))


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add"))  # fmt: skip
def generator_list_grows_while_consumed(x):
    items = [1, 2]
    for v in (i for i in items):
        if v < 4:
            items.append(v + 2)
    return x + len(items)


@case(tags=["generators", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "add"))  # fmt: skip
def next_exhausted_with_default(x):
    g = returning(1)
    a = next(g)
    b = next(g, 5)
    return x + a + b


def tensor_powers(x):
    p = x
    while True:
        yield p
        p = p * x


@case(tags=["generators", "stdlib", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "mul", "mul"))  # fmt: skip
def islice_pulls_no_item_past_stop(x):
    """``islice(gen, 4)`` pulls four items and no fifth, as CPython's: the generator's
    code after the fourth yield (one more ``mul``) never runs."""
    import itertools

    return list(itertools.islice(tensor_powers(x), 4))


@case(tags=["generators", "stdlib"], calls=[Call([T(2), T(2), T(2), T(2), T(2)])],
      expect=one_graph("add", "add"))  # fmt: skip
def islice_leaves_shared_iterator_rest(ts):
    """islice of a shared iterator leaves the items after the slice to the iterator:
    ``islice(it, 1, 3)`` takes the second and third, the loop after it gets the fourth
    and fifth."""
    import itertools

    it = iter(ts)
    a, b = itertools.islice(it, 1, 3)
    c, d = it
    return a + b, c + d


def three_steps(x):
    yield x + 1
    yield x * 2
    yield x - 3


@case(tags=["generators", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2, ops=[["add", "mul", "sub"], ["add", "add"]],
                    breaks=[Break("GB0059", 'print("between")')],
                    guards=[[], ["___tuple_iterator_len(L['g']) == 2"]]))  # fmt: skip
def generator_alive_at_break_is_rebuilt(x):
    """A generator alive at a graph break runs to its end in the first graph (its two
    last items are computed there) and is passed on as ``iter((mul, sub))``: the
    resume function takes its items from that tuple iterator, guarded on its length."""
    g = three_steps(x)
    a = next(g)
    print("between")
    b = next(g)
    return a + b + next(g)


STEPS_LOG = []


def logging_steps(x):
    STEPS_LOG.append("first")
    yield x + 1
    STEPS_LOG.append("second")
    yield x * 2


@case(tags=["generators", "graph-breaks", "side-effects"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def generator_with_side_effect_alive_at_break_runs_eagerly(x):
    """The generator would have to run ahead of the print to be rebuilt, and it appends
    to a global list as it goes: the frame runs eagerly instead (Dynamo's "Generator
    reconstruction with mutations"), so the list gets "first" and "second" once each,
    in order."""
    g = logging_steps(x)
    a = next(g)
    print("between", STEPS_LOG)
    return a + next(g)


def bumping(x):
    yield x.clone()
    x.add_(1)
    yield x.clone()


@case(tags=["generators", "graph-breaks", "dynamo-divergence"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def generator_changing_tensor_in_place_alive_at_break(x):
    """Run ahead of the print, the generator would add 1 to x before the print shows x:
    the frame runs eagerly instead, and the print shows x unchanged."""
    g = bumping(x)
    a = next(g)
    print("x is", x)
    return a + next(g)


def row_sums(x):
    for row in x:
        yield row.sum()


@case(tags=["generators", "builtins", "fullgraph"], calls=[Call(T(4, 3))], options=FULLGRAPH,
      expect=one_graph("getitem", "getitem", "getitem", "getitem", ".sum", ".sum", ".sum",
                       ".sum", "torch.maximum", "torch.maximum", "torch.maximum"))  # fmt: skip
def max_of_generator_of_scalar_tensors(x):
    """``max`` of one-element tensors, as Dynamo records it: ``torch.maximum`` pairwise
    from the left, where CPython compares them (the largest value either way)."""
    return max(row_sums(x))


def two_steps(x):
    yield x + 1
    yield x + 2


@case(tags=["generators", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def enumerate_over_generator_alive_at_break(x):
    """The enumerate is run to its end before the print, as a generator is, and rebuilt
    as an iterator over the pairs it had left."""
    pairs = enumerate(two_steps(x))
    a = next(pairs)
    print("between")
    b = next(pairs)
    return a[1] + b[1] * b[0]


@case(tags=["generators", "graph-breaks", "control-flow"], calls=[Call(T(3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def any_of_generator_branching_on_tensor(x):
    """``any`` breaks on a tensor's truth inside its loop: the generator, alive at that
    break, would have to be run to its end first, stepping the list iterator it reads
    (a change, as Dynamo counts them): the frame runs eagerly, as in Dynamo."""
    if any(v.sum() > 0 for v in [x, -x]):
        return x + 1
    return x - 1


def yield_each(xs):
    for v in xs:
        yield v * 2


@case(tags=["generators", "graph-breaks"], calls=[Call([T(3), T(3)])],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def generator_over_list_alive_at_break(xs):
    """A generator stepping through a list, alive at a print: running it to its end
    steps the list iterator, so the frame runs eagerly, as in Dynamo."""
    g = yield_each(xs)
    a = next(g)
    print("between")
    return a + next(g)


def scaled(x):
    for i in range(3):
        yield x * i


@case(tags=["generators", "graph-breaks", "builtins"], calls=[Call(T(3))],
      expect=Expect(frames=4, graphs=3))  # fmt: skip
def map_over_generator_alive_at_break(x):
    """A ``map`` alive at a print is made again over its function and the generator's
    items (the generator run to its end): the lambda runs after the print, in CPython,
    and its own frame is compiled, as in Dynamo (``sum`` of a map object breaks)."""
    it = map(lambda t: t + 1, scaled(x))
    a = next(it)
    print("between")
    return a + sum(it)


@case(tags=["generators", "graph-breaks", "builtins"], calls=[Call(T(3))],
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def zip_of_generator_and_list_alive_at_break(x):
    """A ``zip`` alive at a print is made again over its iterators: after the print the
    frame iterates a zip object, which it cannot trace, so it runs eagerly, as in Dynamo."""
    it = zip(scaled(x), [1, 2, 3], strict=False)
    a, k = next(it)
    print("between")
    return a * k + sum(v * w for v, w in it)


def next_of_each(it):
    while True:
        yield next(it)


@case(tags=["generators", "exceptions"], calls=[Call(T(3))],
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def stop_iteration_inside_generator_is_runtime_error(x):
    """``next()`` on an exhausted iterator inside a generator: the StopIteration
    becomes RuntimeError caused by it (PEP 479), caught in the frame, as eager."""
    try:
        return list(next_of_each(iter([1, 2]))), x + 1
    except RuntimeError as e:
        return str(e), isinstance(e.__cause__, StopIteration), e.__suppress_context__, x + 2


def _tens(n):
    for i in range(n):
        yield i * 10


@case(tags=["generators", "guards", "side-effects", "dynamo-divergence"],
      calls=[Call(T(3), Make(_tens, 3))] * 2,
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def generator_object_passed_in_consumed(x, gen):
    """A generator made by the caller, not started, consumed whole in the frame: traced
    from its code and the arguments its frame holds (guarded by the generator's
    identity, as Dynamo: each call's new generator compiles again); the caller's
    generator is finished after the call, as in eager."""
    for v in gen:
        x = x + v
    return x


@case(tags=["generators", "side-effects", "dynamo-divergence"], calls=[Call(T(3), Make(_tens, 3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def generator_object_passed_in_taken_once(x, gen):
    """One item taken from the caller's generator: its paused state cannot be given
    back to the caller's object, so the frame runs in CPython (Dynamo's trace leaves
    the caller's generator unstarted: the next item the caller takes is the first)."""
    return x + next(gen)


@case(tags=["generators", "builtins", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1, ops=[["add", "add", "add"]]))  # fmt: skip
def iter_of_callable_and_sentinel(x):
    """``iter(fn, sentinel)`` calls ``fn`` for each item until it returns the sentinel:
    ``fn`` is traced (a closure over a list it mutates), the loop unrolled; it was a
    graph break (TypeError of the one-argument ``iter``)."""
    state = [0]

    def step():
        state[0] += 1
        return state[0]

    for v in iter(step, 4):
        x = x + v
    return x, state


@case(tags=["generators", "builtins", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def iter_of_bound_method_and_sentinel(x):
    """``iter(items.pop, 1)`` stops at the first item equal to the sentinel, leaving the
    items after it (before it, in pop order) in the list; ``sum`` consumes it."""
    items = [3, 2, 1, 0, 5]
    return x + sum(iter(items.pop, 1)), items
