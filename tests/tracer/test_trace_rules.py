"""Which frames are converted (trace_rules): Dynamo's pre-checks before translating a
frame, compared with real torch.compile's cache entries; and what a call met during a
trace becomes: the rule tables, and each polyfill against its original."""

from __future__ import annotations

import ast
import builtins
import collections
import contextlib
import functools
import inspect
import io
import itertools
import operator
from collections.abc import Callable

import minidynamo
import numpy as np
import pytest
import torch
from minidynamo import convert_frame, logs, trace_rules
from minidynamo.convert_frame import ConvertFrame
from minidynamo.polyfills import builtins as builtins_polyfills
from minidynamo.polyfills import functools as functools_polyfills
from minidynamo.polyfills import itertools as itertools_polyfills
from minidynamo.trace_rules import has_tensor_in_frame

POLYFILL_MODULES = [builtins_polyfills, functools_polyfills, itertools_polyfills]

Pair = collections.namedtuple("Pair", "left right")


class Box:
    def __init__(self, value: object) -> None:
        self.value = value


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def no_torch_global(a):
    return a


def uses_torch_global(a):
    return torch.ones(a)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (torch.ones(2), True),
        (torch.nn.Linear(2, 2), True),
        (torch.nn.Linear, True),
        (np.ones(2), True),
        ([1, [2, (torch.ones(1),)]], True),
        ({"a": {"b": torch.ones(1)}}, True),
        (Pair(1, torch.ones(1)), True),
        (3, False),
        ("text", False),
        ([1, 2.0, None], False),
        ({"a": 1}, False),
        (Box(torch.ones(1)), False),  # Dynamo does not look into user objects
        (Pair(1, 2), False),
    ],
)
def test_has_tensor_looks_into_containers_only(value: object, expected: bool) -> None:
    code = no_torch_global.__code__
    assert has_tensor_in_frame(code, {"a": value}, globals()) is expected


def test_a_global_torch_module_is_enough() -> None:
    assert has_tensor_in_frame(uses_torch_global.__code__, {"a": 3}, globals())
    assert not has_tensor_in_frame(uses_torch_global.__code__, {"a": 3}, {})


def test_cyclic_containers_end() -> None:
    cyclic: list = [1]
    cyclic.append(cyclic)
    assert not has_tensor_in_frame(no_torch_global.__code__, {"a": cyclic}, {})


def lengths(a, b):
    return len(a) + len(b)


def scale_box(box):
    return box.value * 2


def scale_second(pair):
    return pair[1] * 2


def convert(fn: Callable, *args: object) -> Callable | None:
    """What the frame hook's callback returns for a frame of `fn` called with `args`."""
    callback = ConvertFrame(lambda gm, inputs: gm.forward)
    return callback(fn.__code__, args, fn.__globals__, vars(builtins), fn.__closure__)


def test_a_frame_without_tensor_is_left_to_cpython() -> None:
    assert convert(lengths, [1], "ab") is None
    assert convert(scale_box, Box(torch.ones(2))) is None
    assert convert_frame.cache_entries(scale_box.__code__) == []
    assert convert(scale_second, (1, Box(torch.ones(2)))) is None
    assert convert(scale_second, (1, torch.ones(2))) is not None  # a tuple is looked into
    assert convert_frame.cache_entries(scale_second.__code__) != []


def test_this_call_only() -> None:
    assert convert(scale_second, (1, 2)) is None
    assert convert(scale_second, (1, torch.ones(1))) is not None


def shout(n):
    print("n is", n)
    return n + 1


def test_a_compiled_function_is_translated_without_tensors() -> None:
    with logs.capture("graph_breaks") as messages:
        assert minidynamo.compile(shout)(3) == 4
    assert any("print" in message for message in messages)  # it was translated
    torch._dynamo.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        torch.compile(shout, backend="eager")(3)
    assert torch._dynamo.utils.counters["frames"]["total"] >= 1  # so does Dynamo


def test_namedtuple_constructor_and_exec_code_are_skipped() -> None:
    new = Pair.__new__
    assert trace_rules.skip_code(new.__code__, new.__globals__.get("__builtins__", {}))
    exec_code = compile("y = 1", "<string>", "exec")
    assert trace_rules.skip_code(exec_code, {"len": len})
    user_lambda = eval("lambda x: x + 1")  # a user's lambda: its builtins are not empty
    assert not trace_rules.skip_code(user_lambda.__code__, {"len": len})


# What a call met during a trace becomes: one table row per rule.


@pytest.mark.parametrize(
    ("fn", "rule"),
    [
        (torch.sin, trace_rules.Rule.IN_GRAPH),
        (torch.nn.functional.relu, trace_rules.Rule.IN_GRAPH),
        (torch.jit.is_scripting, trace_rules.Rule.CONSTANT_FOLD),
        (torch.compiler.is_compiling, trace_rules.Rule.CONSTANT_FOLD),
        (torch.cuda.is_available, trace_rules.Rule.CONSTANT_FOLD),
        (torch.finfo, trace_rules.Rule.CONSTANT_FOLD),
        (collections.namedtuple, trace_rules.Rule.CONSTANT_FOLD),  # a class factory
        (torch.nn.modules.linear.Linear.forward, trace_rules.Rule.INLINE),
        (torch.utils._pytree.tree_flatten, trace_rules.Rule.INLINE),
        (itertools.chain, trace_rules.Rule.POLYFILL),
        (functools.reduce, trace_rules.Rule.POLYFILL),
        (operator.length_hint, trace_rules.Rule.POLYFILL),
        (no_torch_global, trace_rules.Rule.INLINE),  # user code
        (contextlib.nullcontext.__enter__, trace_rules.Rule.INLINE),  # contextlib is traced
        (inspect.signature, trace_rules.Rule.SKIP),  # other standard library code
        (print, trace_rules.Rule.SKIP),
    ],
)
def test_lookup_takes_the_most_specific_rule(fn: object, rule: trace_rules.Rule) -> None:
    assert trace_rules.lookup(fn) is rule


def test_method_polyfills_follow_the_mro_unless_redefined() -> None:
    class Counted(dict):
        def update(self, *args, **kwargs):  # redefined: not the builtin's polyfill
            super().update(*args, **kwargs)

    assert trace_rules.method_polyfill(dict, "fromkeys") is not None
    assert trace_rules.method_polyfill(collections.OrderedDict, "fromkeys") is None
    assert trace_rules.method_polyfill(Counted, "update") is None
    assert trace_rules.method_polyfill(set, "union") is not None
    assert trace_rules.method_polyfill(list, "union") is None


def _imports(module: object) -> set[str]:
    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("module", [trace_rules, *POLYFILL_MODULES])
def test_tables_and_polyfills_do_not_import_the_tracer(module: object) -> None:
    allowed = {"minidynamo", "minidynamo.polyfills"} if module is trace_rules else set()
    tracer = {name for name in _imports(module) if name.startswith("minidynamo")}
    assert tracer <= allowed


@pytest.mark.parametrize(
    ("original", "args", "kwargs"),
    [
        (itertools.chain, ([1, 2], (3,), "ab"), {}),
        (itertools.chain.from_iterable, ([[1], [], [2, 3]],), {}),
        (itertools.product, ([1, 2], "ab"), {}),
        (itertools.product, ([0, 1],), {"repeat": 3}),
        (itertools.combinations, (range(5), 3), {}),
        (itertools.combinations, (range(2), 3), {}),
        (itertools.permutations, ("abc",), {}),
        (itertools.permutations, (range(4), 2), {}),
        (itertools.zip_longest, ([1, 2, 3], "a"), {"fillvalue": 0}),
        (itertools.accumulate, ([1, 2, 3, 4],), {}),
        (itertools.accumulate, ([3, 1, 2],), {"func": max, "initial": 2}),
        (itertools.islice, (range(10), 2, 8, 3), {}),
        (itertools.islice, (range(10), 4), {}),
        (itertools.repeat, ("x", 3), {}),
        (functools.reduce, (operator.mul, [1, 2, 3, 4]), {}),
        (functools.reduce, (operator.add, [], 7), {}),
        (sorted, ([3, 1, 2, 1],), {"key": lambda v: -v}),
        (sorted, ([(1, "b"), (0, "c"), (1, "a")],), {"key": lambda p: p[0], "reverse": True}),
        (any, ([0, "", 3],), {}),
        (all, ([1, [], 3],), {}),
        (operator.length_hint, ([1, 2],), {}),
        (operator.length_hint, (iter(()), 5), {}),
        (dict.fromkeys, ("abc", 0), {}),
    ],
)
def test_polyfill_agrees_with_its_original(original: Callable, args: tuple, kwargs: dict) -> None:
    polyfill = _polyfill_of(original)
    result = polyfill(*args, **kwargs)
    expected = original(*args, **kwargs)
    if not isinstance(expected, (int, bool, list, dict)):
        result, expected = list(result), list(expected)
    assert result == expected


def _polyfill_of(original: Callable) -> Callable:
    if original in trace_rules.POLYFILLS:
        return trace_rules.POLYFILLS[original]
    if original in trace_rules.FALLBACK_POLYFILLS:
        return trace_rules.FALLBACK_POLYFILLS[original]
    owner = getattr(original, "__self__", None)
    return trace_rules.METHOD_POLYFILLS[(owner, original.__name__)]  # type: ignore[index]


def test_count_and_unbounded_repeat_are_lazy() -> None:
    counted = zip("ab", trace_rules.POLYFILLS[itertools.count](3, 2), strict=False)
    assert list(counted) == [("a", 3), ("b", 5)]
    endless = trace_rules.POLYFILLS[itertools.repeat](1)
    assert [next(endless) for _ in range(3)] == [1, 1, 1]


@pytest.mark.parametrize(
    ("name", "left", "others"),
    [
        ("union", {1, 2}, ([2, 3], {4})),
        ("intersection", {1, 2, 3}, ([2, 3, 5], {3})),
        ("difference", {1, 2, 3}, ([2], {3})),
        ("symmetric_difference", {1, 2, 3}, ([3, 4],)),
        ("isdisjoint", {1, 2}, ([3],)),
        ("isdisjoint", {1, 2}, ([2],)),
        ("issubset", {1, 2}, ([1, 2, 3],)),
        ("issuperset", {1, 2}, ([1, 3],)),
    ],
)
def test_set_polyfills_agree_with_set_methods(name: str, left: set, others: tuple) -> None:
    polyfill = trace_rules.METHOD_POLYFILLS[(set, name)]
    assert polyfill(set(left), *others) == getattr(set(left), name)(*others)


def test_dict_update_polyfill_takes_pairs_mappings_and_keywords() -> None:
    update = trace_rules.METHOD_POLYFILLS[(dict, "update")]
    for other in ([("a", 1)], {"a": 1}, collections.Counter("a"), ()):
        mine, theirs = {"z": 0}, {"z": 0}
        update(mine, other, k=2)
        theirs.update(other, k=2)
        assert mine == theirs


def chained_sum(x):
    total = functools.reduce(operator.add, itertools.chain([x], (x * 2,)))
    ordered = sorted([x, x + 1], key=lambda t: 0, reverse=True)
    return total + ordered[0] + len(dict.fromkeys("ab")) + len({1, 2}.union([3]))


def probe_queries(x):
    if torch.jit.is_scripting() or torch.onnx.is_in_onnx_export():
        return x - 1
    torch._assert(x.dim() == 1, "a vector")
    return x * torch.finfo(x.dtype).eps * (1 if torch.compiler.is_compiling() else 1)


@pytest.mark.parametrize("fn", [chained_sum, probe_queries])
def test_polyfilled_and_folded_calls_trace_into_one_graph(fn: Callable) -> None:
    x = torch.arange(3.0)
    compiled = minidynamo.compile(fn, backend="eager", fullgraph=True)
    torch.testing.assert_close(compiled(x), fn(x))
    assert convert_frame.counters["graph_breaks"] == 0


def test_transparent_wrappers_are_read_statically() -> None:
    """A torch.jit.script function's Python original is found without calling the
    object's `__getattr__`: a user object that answers every name is no wrapper."""

    class AnswersEverything:
        def __getattr__(self, name: str) -> object:
            return lambda: None

    def original() -> None:
        return None

    scripted = type("Scripted", (), {})()
    scripted._torchdynamo_inline = original
    assert trace_rules.wrapped_by(scripted) == "_torchdynamo_inline"
    assert trace_rules.wrapped_by(AnswersEverything()) is None
