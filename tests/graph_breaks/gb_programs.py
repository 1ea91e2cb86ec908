"""Programs that break the graph (issue #4), for the differential and graph-count tests.

Each `@case(make_args)` registers a program; `parity=` documents a known difference
from real Dynamo's number of graphs (None: they must be equal), `fallback=` marks a
program whose frame we run eagerly.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from minidynamo.bytecode import create_push_null
from tracer_harness import Case

CASES: list[Case] = []


def case(
    make_args: Callable[[], tuple], *, parity: str | None = None, fallback: str | None = None
) -> Callable[[Callable], Callable]:
    def register(fn: Callable) -> Callable:
        CASES.append(Case(fn, make_args, fallback=fallback, breaks="graph break", parity=parity))
        return fn

    return register


# 3.10 cannot push the NULL of a pending method call (`torch.add(x, <break>)`) into a
# continuation: such a frame runs eagerly there.
PENDING_METHOD_CALL = None if create_push_null() else "3.10: a method call pending at the break"


def t(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


def x3() -> tuple:
    return (t(3),)


def xy3() -> tuple:
    return (t(3), t(3))


class Box:
    def __init__(self, value):
        self.value = value


def log_value(v):
    print("value", v)


def helper_breaks(x):
    y = x * 2
    print("inside helper")
    return y + 1


def helper_item(x):
    return x.sum().item()


GLOBAL_LIST = []
GLOBAL_DICT = {}
SCALE = 1.0


# --- calls that break ----------------------------------------------------------------


@case(x3)
def print_constant(x):
    y = x + 1
    print("Hi")
    return y * 2


@case(x3)
def print_first(x):
    print("start")
    return x + 1


@case(x3)
def print_last(x):
    y = x.sin()
    print("end")
    return y


@case(x3)
def print_tensor(x):
    y = x * 3
    print(y)
    return y - 1


@case(xy3)
def two_prints(x, y):
    a = x + y
    print("one")
    b = a * x
    print("two")
    return b - y


@case(xy3)
def three_breaks(x, y):
    a = x + 1
    print(1)
    b = a + y
    print(2)
    c = b * 2
    print(3)
    return c


@case(x3)
def item_then_compute(x):
    s = x.sum().item()
    return x * s


@case(x3)
def tolist_then_compute(x):
    values = x.tolist()
    return x + len(values)


@case(x3, fallback=PENDING_METHOD_CALL, parity=PENDING_METHOD_CALL)
def item_in_argument_list(x):
    return torch.add(x, x.max().item())


@case(xy3, fallback=PENDING_METHOD_CALL, parity=PENDING_METHOD_CALL)
def break_with_tensor_on_stack(x, y):
    return torch.cat([x + 1, torch.full((1,), y.sum().item())])


@case(x3)
def break_with_constant_on_stack(x):
    return max(3, int(x.sum().item() > 100)) * x


@case(x3)
def break_in_binary_operand(x):
    return (x * 2) + x.mean().item()


@case(x3)
def break_in_keyword_argument(x):
    return torch.clamp(x, min=x.min().item() / 2)


@case(x3)
def print_with_keywords(x):
    y = x.cos()
    print("a", "b", sep="-")
    return y


@case(x3)
def user_function_prints(x):
    y = x + 1
    log_value(3)
    return y * y


@case(x3)
def inlined_function_breaks(x):
    a = x - 1
    b = helper_breaks(a)
    return b * a


@case(x3)
def inlined_item(x):
    s = helper_item(x)
    return x + s


@case(x3)
def method_call_breaks(x):
    box = Box(x)
    return box.value + 1


@case(x3)
def list_method_result_break(x):
    parts = [x, x * 2]
    print(len(parts))
    return parts[1] + parts[0]


# --- data-dependent control flow -----------------------------------------------------


@case(x3)
def if_sum_positive(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(lambda: (torch.ones(3),))
def if_sum_positive_taken(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y


@case(lambda: (-torch.ones(3),))
def if_sum_positive_not_taken(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y


@case(x3)
def if_tensor_bool(x):
    flag = x.max() > 10
    if flag:
        return x * 0
    return x * 3


@case(x3)
def if_not_tensor(x):
    if not (x.min() < -10):
        return x.abs()
    return x


@case(xy3)
def branch_then_print(x, y):
    z = x + y
    if z.mean() > 100:
        z = z * 0
    print("after branch")
    return z


@case(x3)
def item_branch(x):
    if x.sum().item() > 0:
        return x.exp()
    return x.sin()


# --- loops: Dynamo skips a frame that breaks inside a loop ---------------------------


@case(x3, fallback="a graph break inside a loop skips the frame, as in Dynamo")
def print_in_loop(x):
    for i in range(3):
        x = x + i
        print(i)
    return x


@case(x3, fallback="a graph break inside a loop skips the frame, as in Dynamo")
def item_in_loop(x):
    total = 0.0
    for v in [x, x * 2]:
        total += v.sum().item()
    return x * total


@case(x3)
def print_after_loop(x):
    for _ in range(2):
        x = x * 2
    print("done")
    return x + 1


# --- side effects around breaks ------------------------------------------------------


@case(lambda: (t(3), []))
def list_append_then_break(x, out):
    out.append(x + 1)
    print("between")
    out.append(x * 2)
    return x


@case(lambda: (t(3), {"a": 1}))
def dict_set_then_break(x, d):
    d["b"] = x + 1
    print("between")
    d["c"] = d["a"] + 1
    return x


@case(lambda: (t(3), Box(2)))
def attribute_store_then_break(x, box):
    box.value = x * 2
    print("between")
    box.value = box.value + 1
    return x


@case(x3)
def global_list_across_break(x):
    GLOBAL_LIST.clear()
    GLOBAL_LIST.append(x.sum())
    print("between")
    return x + len(GLOBAL_LIST)


@case(x3)
def global_store_across_break(x):
    global SCALE
    SCALE = 2.0
    print("between")
    return x * SCALE


@case(lambda: (t(3), [1, 2, 3]))
def list_pop_then_break(x, items):
    last = items.pop()
    print("popped", last)
    return x * last


@case(lambda: (t(3), {"k": 1, "j": 2}))
def dict_update_then_break(x, d):
    d.update({"k": 10})
    print(d["k"])
    return x + d["j"]
