"""Programs that break the graph (issue #4), for the differential and graph-count tests.

Each `@case(make_args)` registers a program; `parity=` documents a known difference
from real Dynamo's number of graphs (None: they must be equal), `fallback=` marks a
program whose frame we run eagerly.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from tracer_harness import Case

CASES: list[Case] = []


def case(
    make_args: Callable[[], tuple], *, parity: str | None = None, fallback: str | None = None
) -> Callable[[Callable], Callable]:
    def register(fn: Callable) -> Callable:
        CASES.append(Case(fn, make_args, fallback=fallback, breaks="graph break", parity=parity))
        return fn

    return register


# Documented differences from real Dynamo (torch 2.14.1).
NUMPY = "Dynamo traces float() of a NumPy value (an unbacked float in its graph); we break there"
RAISE = "the continuation raises (Dynamo's GB0088): CPython runs it (no graph, as in Dynamo)"


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


@case(x3)
def item_in_argument_list(x):
    return torch.add(x, x.max().item())


@case(xy3)
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


# --- more calls that break -----------------------------------------------------------


def unknown_library_call(x):
    return x


@case(x3, parity=NUMPY)
def numpy_then_compute(x):
    array = x.numpy()
    return x + float(array.sum())


@case(x3)
def tolist_of_values(x):
    values = (x * 2).tolist()
    return x + values[0]


@case(x3)
def item_twice(x):
    a = x.sum().item()
    b = x.max().item()
    return x * a + b


@case(x3)
def print_two_tensors(x):
    y = x + 1
    print(y, y * 2)
    return y


@case(x3)
def print_formatted(x):
    y = x * 4
    print(f"n={x.numel()}")
    return y


@case(x3)
def print_returns_none(x):
    result = print("value")
    return x if result is None else x * 0


@case(xy3)
def four_breaks(x, y):
    a = x + y
    print("a")
    b = a.sum().item()
    c = a * b
    print("c")
    d = c.tolist()
    return c + len(d)


@case(x3)
def breaks_without_graph_between(x):
    print("one")
    print("two")
    return x + 1


@case(x3)
def break_only_constant_work(x):
    n = 3
    print("n", n)
    return x * n


@case(x3)
def item_in_nested_call(x):
    return torch.relu(x * max(1.0, x.abs().sum().item()))


@case(x3)
def break_in_list_literal(x):
    values = [x + 1, x.sum().item(), 3]
    return values[0] * values[1] + values[2]


@case(x3)
def break_in_tuple_literal(x):
    pair = (x * 2, x.mean().item())
    return pair[0] + pair[1]


@case(x3)
def break_in_dict_literal(x):
    d = {"t": x - 1, "s": x.sum().item()}
    return d["t"] * d["s"]


@case(x3)
def break_in_comparison(x):
    return (x + 1, x.sum().item() > 1000)


@case(xy3)
def break_in_right_operand(x, y):
    return x - y * x.max().item()


@case(x3)
def break_in_fstring(x):
    label = f"{x.sum().item():.2f}"
    return x + len(label)


@case(x3)
def break_in_keyword_and_positional(x):
    return torch.clamp(x.sin(), x.min().item(), max=x.max().item())


@case(xy3)
def print_in_inlined_with_tensor_args(x, y):
    z = x * y
    log_value(z.shape)
    return z + x


def helper_two_breaks(x):
    print("first")
    y = x + 2
    print("second")
    return y


@case(x3)
def inlined_function_breaks_twice(x):
    return helper_two_breaks(x * 3) - 1


def helper_nested(x):
    return helper_breaks(x) * 2


@case(x3)
def break_two_inlines_deep(x):
    return helper_nested(x + 1)


@case(x3)
def inlined_tolist(x):
    values = helper_values(x)
    return x + sum(values)


def helper_values(x):
    return (x * 2).tolist()


@case(x3)
def lambda_breaks(x):
    f = lambda v: print("lambda") or v  # noqa: E731
    return f(x) + 1


@case(x3)
def unknown_callable_object(x):
    class Callable_:
        def __call__(self, v):
            print("called")
            return v

    y = x * 2
    return Callable_()(y) + 1


# --- closures: cell and free variables across a break ---------------------------------


@case(x3)
def closure_read_across_break(x):
    scale = 3

    def apply(t):
        return t * scale

    y = apply(x)
    print("closure")
    return apply(y)


@case(x3)
def nonlocal_written_across_break(x):
    n = 1

    def bump():
        nonlocal n
        n += 1

    bump()
    y = x * n
    print("mid")
    bump()
    return y + n


@case(x3)
def cell_changed_after_break_seen_by_inner(x):
    k = 2

    def times_k(t):
        return t * k

    y = times_k(x)
    print("before change")
    k = 5
    return times_k(y) + k


@case(x3)
def cell_argument_across_break(x):
    def add_x(t):
        return t + x

    y = add_x(x * 2)
    print("cell argument")
    return add_x(y)


def make_free_variable_frame(k):
    def inner(x):
        y = x * k
        print("free variable")
        return y + k

    return inner


free_variable_frame = make_free_variable_frame(4)
case(x3)(free_variable_frame)


def make_nonlocal_frame():
    total = 0

    def accumulate(x):
        nonlocal total
        total = 1
        y = x * total
        print("accumulate")
        total += 10
        return y + total

    return accumulate


nonlocal_frame = make_nonlocal_frame()
case(x3)(nonlocal_frame)


# --- data-dependent branches ---------------------------------------------------------


@case(xy3)
def if_and_of_tensors(x, y):
    if x.sum() > 0 and y.sum() > 0:
        return x + y
    return x - y


@case(xy3)
def if_or_of_tensors(x, y):
    if x.sum() > 100 or y.sum() > 100:
        return x * 0
    return x * y


@case(x3)
def ternary_on_tensor(x):
    y = x + 1
    return y * 2 if y.mean() > 0 else y / 2


@case(x3)
def elif_chain_on_tensor(x):
    s = x.sum()
    if s > 10:
        return x * 10
    elif s > 0:
        return x * 2
    return x * -1


@case(x3)
def branch_then_branch(x):
    if x.sum() > 0:
        x = x + 1
    if x.mean() < 100:
        x = x * 2
    return x


@case(lambda: (torch.zeros(3),))
def if_any_tensor(x):
    if x.any():
        return x + 1
    return x - 1


@case(x3)
def if_item_comparison_both_sides(x):
    a = x.sum().item()
    if a > 0:
        y = x * a
    else:
        y = x / (a - 1)
    return y


@case(x3)
def branch_in_inlined_function(x):
    return helper_branch(x) + 1


def helper_branch(x):
    if x.sum() > 0:
        return x * 2
    return x * 3


# --- loops ---------------------------------------------------------------------------


@case(x3, fallback="a graph break inside a loop skips the frame, as in Dynamo")
def while_loop_with_print(x):
    n = 0
    while n < 2:
        print("n", n)
        x = x + n
        n += 1
    return x


@case(x3, fallback="a graph break inside a loop skips the frame, as in Dynamo")
def loop_branch_on_tensor(x):
    for _ in range(2):
        if x.sum() > 0:
            x = x - 1
    return x


@case(x3)
def print_before_loop(x):
    print("start")
    for i in range(3):
        x = x + i
    return x


@case(x3)
def loop_between_breaks(x):
    print("before")
    for _ in range(2):
        x = x * 2
    print("after")
    return x


@case(x3)
def comprehension_then_break(x):
    parts = [x * i for i in range(3)]
    print(len(parts))
    return sum(parts)


# --- side effects around breaks: never lost, never run twice ---------------------------


CALLS: list = []


def counted(x):
    CALLS.append(1)
    return x + 1


@case(x3)
def counted_call_before_break(x):
    CALLS.clear()
    y = counted(x)
    print("between")
    return y, len(CALLS)


@case(x3)
def counted_calls_across_breaks(x):
    CALLS.clear()
    y = counted(x)
    print("one")
    y = counted(y)
    print("two")
    return y, len(CALLS)


@case(lambda: (t(3), []))
def list_appends_across_two_breaks(x, out):
    out.append(1)
    print("a")
    out.append(2)
    print("b")
    out.append(3)
    return x + len(out)


@case(lambda: (t(3), []))
def list_extend_insert_then_break(x, out):
    out.extend([x, x + 1])
    out.insert(0, "head")
    print(len(out))
    return out[1] * 2


@case(lambda: (t(3), [3, 1, 2]))
def list_sort_reverse_then_break(x, items):
    items.sort()
    items.reverse()
    print(items)
    return x * items[0]


@case(lambda: (t(3), [1, 2, 3]))
def list_setitem_delitem_then_break(x, items):
    items[0] = 10
    del items[1]
    print(items)
    return x + items[0]


@case(lambda: (t(3), {"a": 1, "b": 2}))
def dict_pop_del_then_break(x, d):
    value = d.pop("a")
    del d["b"]
    d["c"] = value
    print(d)
    return x * value


@case(lambda: (t(3), {}))
def dict_setdefault_then_break(x, d):
    d.setdefault("k", []).append(1)
    print(d)
    return x + len(d["k"])


@case(lambda: (t(3), {"a": 1}))
def dict_mutated_across_two_breaks(x, d):
    d["a"] += 1
    print("one")
    d["a"] += 1
    print("two")
    return x * d["a"]


@case(lambda: (t(3), {1, 2}))
def set_add_then_break(x, s):
    s.add(3)
    s.discard(1)
    print(sorted(s))
    return x + len(s)


@case(lambda: (t(3), Box(1)))
def attribute_increment_across_breaks(x, box):
    box.value += 1
    print("one")
    box.value += 1
    print("two")
    return x * box.value


@case(lambda: (t(3), Box(1)))
def new_attribute_then_break(x, box):
    box.extra = x + 1
    print("between")
    return box.extra * 2


@case(x3)
def new_object_across_break(x):
    box = Box(x * 2)
    print("between")
    box.value = box.value + 1
    return box.value


GLOBAL_COUNTER = 0


@case(x3)
def global_counter_across_breaks(x):
    global GLOBAL_COUNTER
    GLOBAL_COUNTER = 0
    GLOBAL_COUNTER += 1
    print("one")
    GLOBAL_COUNTER += 1
    print("two")
    return x + GLOBAL_COUNTER


@case(x3)
def global_dict_across_break(x):
    GLOBAL_DICT.clear()
    GLOBAL_DICT["x"] = x * 2
    print("between")
    GLOBAL_DICT["y"] = GLOBAL_DICT["x"] + 1
    return dict(GLOBAL_DICT)


@case(x3)
def global_tensor_store_across_break(x):
    global SCALE
    SCALE = x.sum()
    print("between")
    result = x * SCALE
    SCALE = 1.0
    return result


@case(lambda: (t(3), []))
def mutation_in_inlined_function_then_break(x, out):
    append_twice(out, x)
    print(len(out))
    return out[0] + out[1]


def append_twice(out, value):
    out.append(value)
    out.append(value * 2)


@case(lambda: (t(3), []))
def append_then_break_in_inlined_function(x, out):
    out.append(x)
    helper_breaks(x)
    out.append(x + 1)
    return len(out)


@case(lambda: (t(3), []))
def list_alias_across_break(x, out):
    alias = out
    alias.append(x)
    print("between")
    alias.append(x * 2)
    return out[1] - out[0]


@case(x3)
def local_list_across_break(x):
    items = [x]
    items.append(x + 1)
    print("between")
    items.append(x + 2)
    return items


@case(x3)
def local_dict_across_break(x):
    d = {"a": x}
    print("between")
    d["b"] = d["a"] * 2
    return d


# --- nested containers and new objects around breaks --------------------------------


class Holder:
    def __init__(self):
        self.table = {"hist": []}


@case(lambda: (t(3), [[]]))
def nested_list_mutated_across_break(x, nested):
    nested[0].append(x)
    print("between")
    nested[0].append(x + 1)
    return len(nested[0])


@case(lambda: (t(3), [{}, {"a": 1}]))
def dict_in_list_mutated_before_break(x, items):
    items[0]["double"] = x * 2
    del items[1]["a"]
    print("between")
    return x + len(items[1])


@case(lambda: (t(3), Holder()))
def list_in_dict_attribute_mutated_after_break(x, holder):
    print("first")
    holder.table["hist"].append(x.sum())
    return x * len(holder.table["hist"])


@case(lambda: (t(3), [[1], [2]]))
def outer_and_inner_lists_mutated_across_break(x, nested):
    nested.insert(0, [])
    nested[1].append(x)
    print("between")
    nested[0].append(x + 1)
    return len(nested)


@case(lambda: (t(3), []))
def new_list_stored_and_live_across_break(x, out):
    items = [x + 1]
    out.append(items)
    print("between")
    items.append(x * 2)
    return items


@case(lambda: (t(3), []))
def new_object_stored_then_break(x, out):
    box = Box(x * 2)
    out.append(box)
    print("between")
    return box.value + 1


# --- exceptions ----------------------------------------------------------------------


@case(x3, fallback=RAISE)
def raise_after_break(x):
    print("before")
    if x.numel() == 3:
        raise ValueError("three")
    return x


@case(lambda: (t(3), []))
def raise_after_append_and_break(x, out):
    out.append(1)
    print("before")
    out.append(2)
    raise RuntimeError("after two appends")


# --- with and try blocks ---------------------------------------------------------------

# Where a break sits: what real Dynamo (torch 2.14.1) does, and what we do.
DIFFERENCES = {
    "with no_grad/enable_grad, no break inside": (
        "one graph with torch._C._set_grad_enabled(False)/(True) nodes",
        "the same (guarded on torch.is_grad_enabled())",
    ),
    "break before or after a grad-mode block": ("breaks there", "the same"),
    "break inside a grad-mode block": (
        "resumes inside the block: the graph ends in the mode the block found, the breaking "
        "call runs in the block's mode, the continuation enters the block again",
        "the same",
    ),
    "break in a frame with cell or free variables": (
        "the continuation is a closure over the frame's cells, made at each call",
        "the same",
    ),
    "break inside try/except/finally": ("the frame is skipped", "the same"),
    "break inside a loop": ("the frame is skipped", "the same"),
}

BREAK_IN_TRY = "a graph break inside a try block skips the frame, as in Dynamo"


def grad_args() -> tuple:
    return (torch.randn(3, requires_grad=True),)


@case(grad_args)
def print_before_no_grad(x):
    y = x + 1
    print("before")
    with torch.no_grad():
        z = y * 2
    return z + y


@case(grad_args)
def print_after_no_grad(x):
    with torch.no_grad():
        z = x * 2
    print("after")
    return z + x


@case(grad_args)
def item_after_enable_grad(x):
    with torch.no_grad():
        with torch.enable_grad():
            z = x * 2
        w = z + 1
    return w * x.sum().item()


@case(grad_args)
def no_grad_between_breaks(x):
    print("one")
    with torch.no_grad():
        y = x.sin()
    print("two")
    return y + x


@case(grad_args)
def branch_after_no_grad(x):
    with torch.no_grad():
        y = x * 3
    if y.sum() > 0:
        return y + x
    return y - x


@case(grad_args)
def print_inside_no_grad(x):
    y = x + 1
    with torch.no_grad():
        z = y * 2
        print("inside")
        z = z + 1
    return z + y


@case(grad_args)
def item_inside_no_grad(x):
    with torch.no_grad():
        s = x.sum().item()
    return x * s


@case(grad_args)
def print_last_in_no_grad(x):
    with torch.no_grad():
        y = x * 2
        print("last")
    return y + x


@case(grad_args)
def two_breaks_in_no_grad(x):
    with torch.no_grad():
        y = x * 2
        print("one")
        y = y + 1
        print("two")
        y = y * 3
    return y + x


@case(grad_args)
def print_in_nested_grad_blocks(x):
    with torch.no_grad():
        y = x * 2
        with torch.enable_grad():
            z = x * 3
            print("inner")
            z = z + y
        w = z * 2
    return w + x


@case(grad_args)
def print_in_set_grad_enabled(x):
    y = x + 1
    with torch.set_grad_enabled(False):
        z = y * 2
        print("inside")
        z = z + 1
    return z + y


@case(grad_args)
def return_inside_no_grad_after_print(x):
    with torch.no_grad():
        y = x * 2
        print("inside")
        return y + 1


@case(grad_args)
def stack_value_across_break_in_no_grad(x):
    with torch.no_grad():
        y = x + helper_breaks(x)
    return y * x


@case(grad_args)
def branch_inside_no_grad(x):
    with torch.no_grad():
        y = x * 2
        if y.sum() > 0:
            y = y + 1
        else:
            y = y - 1
    return y * x


@case(grad_args)
def raise_at_break_inside_no_grad(x):
    with torch.no_grad():
        y = x * 2
        print("raises", sep=0)  # TypeError from the breaking call, inside the block
    return y


@case(x3, fallback=BREAK_IN_TRY)
def print_inside_try(x):
    y = x + 1
    try:
        print("inside")
        y = y * 2
    except ValueError:
        y = y - 1
    return y + 1


@case(x3, fallback=BREAK_IN_TRY)
def print_inside_finally_block(x):
    y = x + 1
    try:
        y = y * 2
        print("inside")
    finally:
        y = y - 1
    return y + 1


@case(x3, fallback=BREAK_IN_TRY)
def print_inside_except_handler(x):
    try:
        raise ValueError("caught")
    except ValueError:
        print("handling")
        x = x + 1
    return x * 2


@case(x3)
def class_statement_between_ops(x):
    y = x * 2

    class Local(Exception):
        pass

    return y + len(Local.__name__)


@case(x3)
def print_after_try_block(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    print("after")
    return y * 2


@case(x3)
def print_after_caught_exception(x):
    try:
        [][0]
    except IndexError:
        x = x + 1
    print("after")
    return x * 2


@case(x3, fallback=BREAK_IN_TRY)
def item_inside_try(x):
    try:
        s = x.sum().item()
    except RuntimeError:
        s = 0.0
    return x * s


# --- operations whose output shape depends on the data (Dynamo: GB0036) -------------


@case(x3)
def boolean_mask_subscript(x):
    y = x * 2
    z = y[y > 0]
    return z.sum() + y


@case(x3)
def nonzero_function(x):
    y = x - 0.5
    idx = torch.nonzero(y > 0)
    return idx.float().sum() + y


@case(x3)
def nonzero_method_in_arguments(x):
    y = x + 1
    return torch.add(y, y.nonzero().sum())


@case(lambda: (t(3), {"a": t(3)}))
def subscript_of_mask_in_dict(x, d):
    w = d["a"] * x
    return w[w > 0].sum() * 2


@case(x3)
def returns_closure_over_assigned_cell(x):
    k = x * 2

    def scaled(t):
        return t * k

    print("made")
    return scaled
