"""Constructs whose bytecode is rare or version-specific. test_bytecode_zoo.py compiles
this file's source (with generated additions), round-trips every code object, and
compares what `run()` returns before and after."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Generator, Iterator
from typing import Any

COUNTER = 0


def closures(n: int) -> tuple[list[int], int]:
    total = 0

    def add(k: int) -> int:
        nonlocal total
        total += k
        return total

    return [add(i) for i in range(n)], (lambda: total)()


class Base:
    def greet(self, name: str = "x") -> str:
        return f"base {name!r:>6}"


class Child(Base):
    __slots__ = ()

    def greet(self, name: str = "y") -> str:
        return "child " + super().greet(name) + super().greet()

    @classmethod
    def make(cls) -> Child:
        return cls()

    @property
    def kind(self) -> str:
        return type(self).__name__


def exceptions(x: int) -> list[object]:
    log: list[object] = []
    try:
        try:
            log.append(1 / x)
        except ZeroDivisionError as error:
            log.append(type(error).__name__)
            raise ValueError("wrapped") from error
        else:
            log.append("else")
        finally:
            log.append("finally")
    except ValueError as error:
        log.append(str(error))
    return log


def with_statements() -> list[object]:
    log: list[object] = []

    @contextlib.contextmanager
    def managed(tag: str) -> Iterator[str]:
        log.append(("enter", tag))
        try:
            yield tag
        finally:
            log.append(("exit", tag))

    with managed("a") as a, managed("b") as b:
        log.append(a + b)
    try:
        with managed("c"):
            raise KeyError("k")
    except KeyError:
        log.append("caught")
    return log


def matching(value: object) -> tuple[object, ...]:
    match value:
        case {"kind": "point", "x": x, **rest}:
            return ("mapping", x, rest)
        case [first, *others] if isinstance(first, int) and first > 0:
            return ("sequence", first, others)
        case complex(real=real, imag=imag):
            return ("class", real, imag)
        case str() | bytes():
            return ("text",)
        case None:
            return ("none",)
        case _:
            return ("other",)


def generators(n: int) -> list[object]:
    def inner() -> Generator[object, int | None, str]:
        received = yield "start"
        while received is not None and received < n:
            received = yield received * 2
        return "done"

    def delegate() -> Generator[object, int | None, None]:
        result = yield from inner()
        yield result

    gen = delegate()
    out = [next(gen), gen.send(1), gen.send(n + 5)]
    return out + list(x for x in range(n) if x % 2)


async def coroutines(n: int) -> list[object]:
    async def numbers() -> AsyncIterator[int]:
        for i in range(n):
            yield i

    class Manager:
        async def __aenter__(self) -> str:
            return "managed"

        async def __aexit__(self, *exc: object) -> bool:
            return False

    total: list[object] = [i async for i in numbers()]
    async with Manager() as tag:
        total.append(tag)
    async for i in numbers():
        total.append(-i)
    await asyncio.sleep(0)
    return total


def comprehensions(words: list[str]) -> tuple[object, ...]:
    return (
        {w: len(w) for w in words},
        {w[0] for w in words},
        [(i, j) for i in range(3) for j in range(i) if (i + j) % 2],
        sorted(words, key=lambda w: (-len(w), w)),
    )


def calls(*args: int, **kwargs: int) -> tuple[object, ...]:
    first, *middle, last = (*args, *range(3))
    merged = {**kwargs, "extra": 1}

    def target(a: int, b: int = 2, *rest: int, c: int, d: int = 4, **named: int) -> tuple:
        return a, b, rest, c, d, named

    return first, middle, last, merged, target(*args, c=3, **kwargs), target(1, c=2)


def walrus_and_slices(values: list[int]) -> tuple[object, ...]:
    kept = [y for x in values if (y := x * 2) > 2 and 0 < y <= 10 != y]
    return kept, values[1:-1:1], values[::-1], not values, -values[0], ~values[1]


def globals_and_deletes() -> int:
    global COUNTER
    COUNTER = COUNTER + 1
    local = [1, 2, 3]
    del local[0]
    del local
    return COUNTER


def strings(x: int) -> tuple[object, ...]:
    width = 8
    return f"{x!r} {x:>5} {x!s:^{width}} {x!a} {{}}", "%s-%d" % ("a", 3), b"b" + bytes(2)  # noqa: UP031


def imports_and_asserts(x: int) -> str:
    import math
    from os import path as os_path

    assert x > 0, "positive"
    try:
        assert x < 0, f"not negative: {x}"
    except AssertionError as error:
        return f"{math.floor(2.5)} {os_path.basename('/a/b')} {error}"
    return "unreachable"


def loops(n: int) -> list[int]:
    out = []
    i = 0
    while True:
        i += 1
        if i % 2:
            continue
        if i > n:
            break
        out.append(i)
    else:
        out.append(-1)
    for j in range(3):
        if j == 5:
            break
    else:
        out.append(j)
    return out


def run() -> list[Any]:
    return [
        closures(4),
        (Child().greet(), Child.make().kind),
        exceptions(0),
        exceptions(2),
        with_statements(),
        [matching(v) for v in ({"kind": "point", "x": 1, "y": 2}, [3, 4], [-1], 1 + 2j, "s", None)],
        generators(3),
        asyncio.run(coroutines(3)),
        comprehensions(["ab", "c", "abc"]),
        calls(1, 2, k=5),
        walrus_and_slices([1, 2, 3, 6]),
        globals_and_deletes(),
        strings(42),
        imports_and_asserts(3),
        loops(7),
    ]
