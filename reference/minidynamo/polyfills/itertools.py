"""Polyfills of `itertools`: generators, inlined by the tracer one `yield` at a time, so
their items are made as the caller asks for them (as the C iterators make them). Plain
`yield` in loops, not `yield from`: the tracer has no handler for SEND / YIELD_FROM."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any


def chain(*iterables: Iterable) -> Iterator:
    for iterable in iterables:
        for item in iterable:  # noqa: UP028
            yield item


def chain_from_iterable(iterables: Iterable[Iterable]) -> Iterator:
    for iterable in iterables:
        for item in iterable:  # noqa: UP028
            yield item


def product(*iterables: Iterable, repeat: int = 1) -> Iterator[tuple]:
    pools = [tuple(pool) for pool in iterables] * repeat
    rows: list[tuple] = [()]
    for pool in pools:
        rows = [row + (item,) for row in rows for item in pool]
    for row in rows:  # noqa: UP028
        yield row


def combinations(iterable: Iterable, r: int) -> Iterator[tuple]:
    pool = tuple(iterable)
    n = len(pool)
    if r > n:
        return
    indices = list(range(r))
    yield tuple(pool[i] for i in indices)
    while True:
        for i in reversed(range(r)):
            if indices[i] != i + n - r:
                break
        else:
            return
        indices[i] += 1
        for j in range(i + 1, r):
            indices[j] = indices[j - 1] + 1
        yield tuple(pool[i] for i in indices)


def permutations(iterable: Iterable, r: int | None = None) -> Iterator[tuple]:
    pool = tuple(iterable)
    n = len(pool)
    r = n if r is None else r
    for indices in product(range(n), repeat=r):
        if len(set(indices)) == r:
            yield tuple(pool[i] for i in indices)


def zip_longest(*iterables: Iterable, fillvalue: Any = None) -> Iterator[tuple]:
    pools = [list(iterable) for iterable in iterables]
    longest = max([len(pool) for pool in pools], default=0)
    for i in range(longest):
        yield tuple(pool[i] if i < len(pool) else fillvalue for pool in pools)


def accumulate(
    iterable: Iterable, func: Callable[[Any, Any], Any] | None = None, *, initial: Any = None
) -> Iterator:
    total = initial
    started = initial is not None
    if started:
        yield total
    for item in iterable:
        if not started:
            total = item
            started = True
        elif func is None:
            total = total + item
        else:
            total = func(total, item)
        yield total


def islice(iterable: Iterable, *args: int | None) -> Iterator:
    bounds = slice(*args)
    start = bounds.start or 0
    stop = bounds.stop
    step = bounds.step or 1
    # As CPython's: never pull an item past the last one yielded (the iterator may be
    # shared, and a generator's code runs on each pull), though items before `start`
    # are pulled even when `stop` is smaller.
    iterator = iter(iterable)
    pulled, wanted = 0, start
    while True:
        try:
            for _ in range(wanted - pulled):  # the items between two yielded ones
                next(iterator)
            pulled = wanted
            if stop is not None and pulled >= stop:
                return
            item = next(iterator)
        except StopIteration:
            return
        pulled += 1
        yield item
        wanted = wanted + step if stop is None else min(wanted + step, stop)


def repeat(obj: Any, times: int | None = None) -> Iterator:
    if times is None:
        while True:
            yield obj
    for _ in range(times):
        yield obj


def count(start: Any = 0, step: Any = 1) -> Iterator:
    value = start
    while True:
        yield value
        value = value + step


def pairwise(iterable: Iterable) -> Iterator[tuple]:
    first = True
    previous = None
    for item in iterable:
        if not first:
            yield previous, item
        previous = item
        first = False


def groupby(iterable: Iterable, key: Callable | None = None) -> Iterator[tuple[Any, Iterator]]:
    """CPython's documented equivalent: each group is a lazy iterator over the shared
    input, emptied when the caller moves on to the next key."""
    keyfunc = (lambda value: value) if key is None else key
    iterator = iter(iterable)
    exhausted = False

    def grouper(target_key: Any) -> Iterator:
        nonlocal current_value, current_key, exhausted
        yield current_value
        for current_value in iterator:
            current_key = keyfunc(current_value)
            if current_key != target_key:
                return
            yield current_value
        exhausted = True

    try:
        current_value = next(iterator)
    except StopIteration:
        return
    current_key = keyfunc(current_value)
    while not exhausted:
        target_key = current_key
        group = grouper(target_key)
        yield current_key, group
        if current_key == target_key:
            for _ in group:
                pass


def takewhile(predicate: Callable[[Any], Any], iterable: Iterable) -> Iterator:
    for item in iterable:
        if not predicate(item):
            return
        yield item


def dropwhile(predicate: Callable[[Any], Any], iterable: Iterable) -> Iterator:
    dropping = True
    for item in iterable:
        if dropping and predicate(item):
            continue
        dropping = False
        yield item


def starmap(func: Callable[..., Any], iterable: Iterable) -> Iterator:
    for args in iterable:
        yield func(*args)


def compress(data: Iterable, selectors: Iterable) -> Iterator:
    for item, selected in zip(data, selectors, strict=False):
        if selected:
            yield item


def filterfalse(predicate: Callable[[Any], Any] | None, iterable: Iterable) -> Iterator:
    for item in iterable:
        if not (bool(item) if predicate is None else predicate(item)):
            yield item


def cycle(iterable: Iterable) -> Iterator:
    saved = []
    for item in iterable:
        yield item
        saved.append(item)
    while saved:
        yield from saved


def tee(iterable: Iterable, n: int = 2) -> tuple[Iterator, ...]:
    """`n` iterators over one input, each item read once from it and kept in a shared
    linked list ``[value, next_link]`` until every iterator has passed it."""
    if n < 0:
        raise ValueError("n must be >= 0")
    iterator = iter(iterable)

    def follow(link: list) -> Iterator:
        while True:
            if link[1] is None:
                try:
                    link[0] = next(iterator)
                except StopIteration:
                    return
                link[1] = [None, None]
            value, link = link
            yield value

    start: list = [None, None]
    return tuple(follow(start) for _ in range(n))


def combinations_with_replacement(iterable: Iterable, r: int) -> Iterator[tuple]:
    pool = tuple(iterable)
    n = len(pool)
    if n == 0 and r > 0:
        return
    indices = [0] * r
    yield tuple(pool[i] for i in indices)
    while True:
        for i in reversed(range(r)):
            if indices[i] != n - 1:
                break
        else:
            return
        indices[i:] = [indices[i] + 1] * (r - i)
        yield tuple(pool[i] for i in indices)


def batched(iterable: Iterable, n: int, *, strict: bool = False) -> Iterator[tuple]:
    """CPython 3.12's ``itertools.batched`` (``strict`` from 3.13): tuples of `n` items,
    the last one shorter."""
    if n < 1:
        raise ValueError("n must be at least one")
    batch: list = []
    for item in iterable:
        batch.append(item)
        if len(batch) == n:
            yield tuple(batch)
            batch = []
    if batch:
        if strict:
            raise ValueError("batched(): incomplete batch")
        yield tuple(batch)
