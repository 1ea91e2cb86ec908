"""Which frames are converted (trace_rules): Dynamo's pre-checks before translating a
frame, compared with real torch.compile's cache entries."""

from __future__ import annotations

import builtins
import collections
import contextlib
import io
from collections.abc import Callable

import minidynamo
import numpy as np
import pytest
import torch
from minidynamo import convert_frame, logs, trace_rules
from minidynamo.convert_frame import ConvertFrame
from minidynamo.trace_rules import has_tensor_in_frame

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
