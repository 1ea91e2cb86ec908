"""Swap the code of live stdlib functions for decoded-and-reassembled code, run a workload
through them, and require the same results as with the original code."""

from __future__ import annotations

import asyncio
import asyncio.base_events
import collections
import dis
import inspect
import io
import json
import json.decoder
import json.encoder
import json.scanner
from collections.abc import Iterator
from types import CodeType, FunctionType, ModuleType
from typing import Any

from bytecode_helpers import reassemble_tree, stream
from minidynamo.bytecode import decode

MODULES = (
    json,
    json.decoder,
    json.encoder,
    json.scanner,
    dis,
    inspect,
    asyncio.base_events,
    collections,
)


def live_functions(module: ModuleType) -> Iterator[FunctionType]:
    """Functions defined in `module`: module level, and methods, static and class methods
    and property accessors of its classes."""
    for value in vars(module).values():
        if isinstance(value, FunctionType) and value.__module__ == module.__name__:
            yield value
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for attribute in vars(value).values():
                yield from _functions_in(attribute)


def _functions_in(attribute: Any) -> Iterator[FunctionType]:
    if isinstance(attribute, (staticmethod, classmethod)):
        attribute = attribute.__func__
    if isinstance(attribute, property):
        accessors = (attribute.fget, attribute.fset, attribute.fdel)
        yield from (f for f in accessors if isinstance(f, FunctionType))
    elif isinstance(attribute, FunctionType):
        yield attribute


def sample(a: int, b: str = "x", *args: float, key: bool = False, **kwargs: object) -> str:
    """A function for inspect and dis to look at."""
    total = [a * 2 for _ in range(3)]
    return f"{b}{total}{args}{key}{kwargs}"


class Sample:
    attribute = 1

    def method(self, value: int) -> int:
        return value + self.attribute

    @property
    def prop(self) -> int:
        return self.attribute


async def event_loop_workload() -> tuple[Any, ...]:
    loop = asyncio.get_running_loop()
    seen: list[str] = []
    loop.call_soon(seen.append, "soon")
    loop.call_later(0.001, seen.append, "later")

    async def square(i: int) -> int:
        await asyncio.sleep(0)
        return i * i

    squares = await asyncio.gather(*(square(i) for i in range(5)))
    await asyncio.sleep(0.02)
    future = loop.create_future()
    loop.call_soon(future.set_result, 42)
    task = asyncio.ensure_future(square(7))
    return squares, seen, await future, await task


def workload() -> list[Any]:
    results: list[Any] = []
    data = {"name": "minidynamo", "v": [3.1, 2, None, True], "nested": {"é": 'q"\n'}, "e": {}}
    text = json.dumps(data)
    results += [text, json.dumps(data, indent=2, sort_keys=True), json.loads(text)]
    decoder = json.JSONDecoder()
    decoder.parse_string = json.decoder.py_scanstring
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    results.append(decoder.decode(text))
    try:
        json.loads('{"unterminated": ')
    except json.JSONDecodeError as error:
        results.append(str(error))

    results.append(str(inspect.signature(sample)))
    results.append(inspect.getsource(sample))
    results.append(inspect.getfullargspec(sample))
    results.append([name for name, _ in inspect.getmembers(Sample) if not name.startswith("__")])
    results.append(str(inspect.signature(collections.Counter.most_common)))
    results.append(inspect.cleandoc("  first\n    second\n  third"))

    listing = io.StringIO()
    dis.dis(sample, file=listing)
    results += [listing.getvalue(), dis.code_info(sample)]
    results.append([i.opname for i in dis.get_instructions(Sample.method)])

    point = collections.namedtuple("Point", "x y", defaults=[0])
    p = point(1)
    results.append((p, p._replace(y=3), p._asdict(), point._make([4, 5])))
    counter = collections.Counter("abracadabra")
    results.append((counter.most_common(2), sorted((counter + collections.Counter("ab")).items())))
    ordered = collections.OrderedDict(a=1, b=2)
    ordered.move_to_end("a")
    ring = collections.deque(range(5), maxlen=4)
    ring.rotate(1)
    chain = collections.ChainMap({"a": 1}, {"a": 2, "b": 3})
    lists = collections.defaultdict(list)
    lists["x"].append(1)
    user = collections.UserList([3, 1, 2])
    user.sort()
    results.append((list(ordered), list(ring), chain["a"], dict(chain.new_child()), dict(lists)))
    strings = collections.UserString("abc").upper()
    results.append((list(user), strings, dict(collections.UserDict(k=1))))

    results.append(asyncio.run(event_loop_workload()))
    return results


def test_live_stdlib_functions_behave_the_same_after_a_round_trip() -> None:
    expected = workload()
    functions = {id(f): f for module in MODULES for f in live_functions(module)}.values()
    covered: list[CodeType] = []
    reassembled = {f: reassemble_tree(f.__code__, covered) for f in functions}
    for function, code in reassembled.items():
        assert stream(decode(code)) == stream(decode(function.__code__)), function.__qualname__
    originals = {function: function.__code__ for function in reassembled}
    try:
        for function, code in reassembled.items():
            function.__code__ = code
        actual = workload()
    finally:
        for function, code in originals.items():
            function.__code__ = code
    print(f"\nlive round trip: {len(reassembled)} functions, {len(covered)} code objects")
    assert actual == expected
    assert len(covered) >= 300
