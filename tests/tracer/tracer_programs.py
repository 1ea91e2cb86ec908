"""Small programs for the differential and graph-parity tests (issue #3 constructs).

Each `@case(make_args)` registers a function with a factory of its arguments (called
after seeding torch's RNG). `fallback=` marks programs expected to run eagerly, and
`breaks=` programs expected to graph-break, each with the reason; `parity=` documents
where our graphs differ from real Dynamo's.
"""

from __future__ import annotations

import dis
import math
import operator
from collections.abc import Callable

import minidynamo
import torch
import torch.nn.functional as F
from tracer_harness import Case

CASES: list[Case] = []


def case(
    make_args: Callable[[], tuple],
    *,
    fallback: str | None = None,
    breaks: str | None = None,
    parity: str | None = None,
) -> Callable[[Callable], Callable]:
    def register(fn: Callable) -> Callable:
        CASES.append(Case(fn, make_args, fallback=fallback, breaks=breaks, parity=parity))
        return fn

    return register


def t(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


def x43() -> tuple:
    return (t(4, 3),)


def xy43() -> tuple:
    return (t(4, 3), t(4, 3))


SCALE = 3
BIAS = torch.ones(3)
NAMES = ("a", "b")


def helper_mul(a, k=2):
    return a * k


def helper_kwonly(a, *, scale=1.5, shift=0.0):
    return a * scale + shift


def helper_varargs(*tensors):
    total = tensors[0]
    for other in tensors[1:]:
        total = total + other
    return total


def helper_kwargs(a, **options):
    return a * options.get("scale", 1) + options.get("shift", 0)


def helper_nested(a):
    return helper_mul(a) + helper_mul(a, k=3)


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y

    @property
    def total(self):
        return self.x + self.y

    @staticmethod
    def twice(v):
        return v * 2

    @classmethod
    def origin_name(cls):
        return cls.__name__


class Scaler:
    factor = 4

    def __call__(self, x):
        return x * self.factor


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = torch.nn.Linear(3, 5)
        self.lin2 = torch.nn.Linear(5, 2)
        self.scale = 2

    def forward(self, x):
        return self.lin2(torch.relu(self.lin1(x))) * self.scale


# --- straight-line tensor arithmetic (seed: mse) ---------------------------------------


@case(xy43)
def mse(x, y):
    z = (x - y) ** 2
    return z.sum()


@case(xy43)
def add(x, y):
    return x + y


@case(xy43)
def sub_mul_div(x, y):
    return (x - y) * y / (x.abs() + 1)


@case(xy43)
def floordiv_mod(x, y):
    return (x * 10) // 3, (x * 10) % 3


@case(x43)
def power(x):
    return x**2 + 2**x


@case(lambda: (t(4, 3), t(3, 5)))
def matmul(x, w):
    return x @ w


@case(lambda: (torch.arange(12).reshape(4, 3), torch.arange(12).reshape(4, 3) + 1))
def bitwise(a, b):
    return a & b, a | b, a ^ b, a << 1, b >> 1


@case(x43)
def unary(x):
    return -x, +x, abs(x)


@case(lambda: (torch.arange(6),))
def invert(a):
    return ~a


@case(xy43)
def compare_tensors(x, y):
    return x < y, x <= y, x == y, x != y, x > y, x >= y


@case(xy43)
def inplace_add(x, y):
    z = x * 1
    z += y
    z -= 1
    z *= 2
    z /= 4
    return z


@case(xy43)
def inplace_input(x, y):
    x.add_(y)
    x.mul_(2)


@case(x43)
def iadd_on_input(x):
    x += 1
    return x


@case(xy43)
def reuse_name(x, y):
    z = x + y
    z = z * z
    z = z - x
    return z


@case(x43)
def return_input(x):
    return x


@case(x43)
def return_input_and_new(x):
    return x, x + 1


@case(x43)
def return_constant(x):
    return 42


@case(x43)
def return_none(x):
    x.sin()


@case(x43)
def unused_computation(x):
    y = x + 1  # noqa: F841 (the graph keeps it, as real Dynamo's does)
    return x * 2


# --- constants and specialization (seed: fn(x, n)) -------------------------------------


@case(lambda: (t(200), 2))
def specialize_int(x, n):
    y = x**2
    if n >= 0:
        return (n + 1) * y
    else:
        return y / n


@case(lambda: (t(200), -2))
def specialize_negative(x, n):
    y = x**2
    if n >= 0:
        return (n + 1) * y
    else:
        return y / n


@case(lambda: (torch.arange(10), "Hello"))
def len_of_string(a, b):
    return a * len(b)


@case(lambda: (t(8), ["Hi", "Hello"]))
def len_of_item(x, items):
    return x * len(items[0])


@case(lambda: (t(3), 1.5))
def float_arg(x, f):
    return x * f + f**2


@case(lambda: (t(3), True))
def bool_arg(x, flag):
    if flag:
        return x + 1
    return x - 1


@case(lambda: (t(3), None))
def none_arg(x, maybe):
    if maybe is None:
        return x * 2
    return x * maybe


@case(lambda: (t(3), "relu"))
def string_dispatch(x, kind):
    if kind == "relu":
        return torch.relu(x)
    elif kind == "tanh":
        return torch.tanh(x)
    return x


@case(lambda: (t(3), 7))
def int_arithmetic(x, n):
    a = n * 3 - 1
    b = n // 2 + n % 3
    c = -n + abs(-n) + (n << 1) + (n >> 1) + (n & 3) + (n | 8) + (n ^ 5)
    return x * (a + b + c)


@case(lambda: (t(3), 3))
def constant_compare_chain(x, n):
    if 1 < n < 5:
        return x + n
    return x


@case(lambda: (t(3), 2.5))
def float_ops(x, f):
    return x * (f / 2) + (f // 1) + (f % 1.0) + round(f) + int(f) + float(3)


@case(lambda: (t(3), 4))
def not_and_or(x, n):
    a = not n
    b = n and 2
    c = 0 or n
    return x + int(a) + b + c


@case(lambda: (t(3),))
def global_constant(x):
    return x * SCALE


@case(lambda: (t(4, 3),))
def global_tensor(x):
    return x + BIAS


@case(lambda: (t(3),))
def global_tuple(x):
    return x * len(NAMES)


@case(lambda: (t(3), (1, 2, 3)))
def tuple_constant_arg(x, shape):
    return x * sum(shape)


@case(lambda: (t(3), 5))
def fstring(x, n):
    name = f"value-{n:>3}-{n!r}"
    return x * len(name)


@case(lambda: (t(3), "abc"))
def string_methods(x, s):
    u = s.upper() + s.replace("a", "zz")
    parts = "a,b,c".split(",")
    return x * (len(u) + len(parts) + s.find("c"))


@case(lambda: (t(3), 10))
def math_functions(x, n):
    return x * math.sqrt(n) + math.floor(2.7) + math.pi + math.log(n)


@case(lambda: (t(3), 6))
def operator_functions(x, n):
    return operator.mul(x, operator.add(n, 1)), operator.neg(x)


# --- control flow on guarded inputs -----------------------------------------------------


@case(lambda: (t(4, 3),))
def if_on_shape(x):
    if x.shape[0] > 2:
        return x.sum(0)
    return x.sum(1)


@case(lambda: (t(4, 3),))
def if_on_dtype(x):
    if x.dtype == torch.float32:
        return x.double()
    return x


@case(lambda: (t(4, 3), [1, 2]))
def if_on_list(x, items):
    if items:
        return x + items[0]
    return x


@case(lambda: (t(4, 3),))
def if_isinstance(x):
    if isinstance(x, torch.Tensor):
        return x + 1
    return x


@case(lambda: (t(4, 3),))
def if_ndim(x):
    return x.t() if x.ndim == 2 else x


@case(lambda: (t(3), 2))
def ternary(x, n):
    return x * 2 if n > 1 else x * 3


@case(lambda: (t(3), 5))
def while_constant(x, n):
    i = 0
    while i < n:
        x = x + i
        i += 1
    return x


@case(lambda: (t(3), 0))
def assert_passes(x, n):
    assert n == 0, "n must be zero"
    return x + 1


@case(lambda: (t(3),), breaks="data-dependent control flow")
def if_tensor_condition(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@case(lambda: (t(3), 4))
def early_return_in_loop(x, n):
    for i in range(10):
        if i == n:
            return x * i
        x = x + 1
    return x


# --- loops (unrolled) ------------------------------------------------------------------


@case(lambda: (t(3),))
def for_range(x):
    for i in range(3):
        x = x * 2 + i
    return x


@case(lambda: (t(3),))
def for_range_step(x):
    total = x
    for i in range(10, 0, -3):
        total = total + i
    return total


@case(lambda: ([t(3), t(3), t(3)],))
def for_list(xs):
    total = 0
    for x in xs:
        total = total + x
    return total


@case(lambda: ((t(3), t(3)),))
def for_tuple(xs):
    out = []
    for x in xs:
        out.append(x.sin())
    return out


@case(lambda: ({"a": t(3), "b": t(3)},))
def for_dict_items(d):
    total = 0
    for key, value in d.items():
        total = total + value * len(key)
    return total


@case(lambda: ({"a": t(3), "b": t(3)},))
def for_dict_keys(d):
    return [d[k] * 2 for k in d]


@case(lambda: ({"a": t(3), "b": t(3)},))
def for_dict_values(d):
    return sum(d.values())


@case(lambda: ([t(3), t(3)], [1.0, 2.0]))
def for_zip(xs, ws):
    total = 0
    for x, w in zip(xs, ws):  # noqa: B905
        total = total + x * w
    return total


@case(lambda: ([t(3), t(3), t(3)],))
def for_enumerate(xs):
    total = 0
    for i, x in enumerate(xs):
        total = total + x * i
    return total


@case(lambda: ([t(3), t(3)],))
def for_enumerate_start(xs):
    return [x * i for i, x in enumerate(xs, 1)]


@case(lambda: (t(3),))
def nested_loops(x):
    for i in range(2):
        for j in range(3):
            x = x + i * j
    return x


@case(lambda: (t(3),))
def loop_break_continue(x):
    for i in range(6):
        if i == 1:
            continue
        if i == 4:
            break
        x = x + i
    return x


@case(lambda: (t(4, 3),))
def for_over_tensor(x):
    rows = []
    for row in x:
        rows.append(row * 2)
    return rows


@case(lambda: (t(3),))
def for_reversed(x):
    out = []
    for i in reversed(range(3)):
        out.append(x * i)
    return out


@case(lambda: (t(3),))
def loop_else(x):
    for i in range(3):
        x = x + i
    else:
        x = x * 10
    return x


# --- comprehensions ---------------------------------------------------------------------


@case(lambda: ([t(3), t(3), t(3)],))
def list_comprehension(xs):
    return [x * 2 for x in xs]


@case(lambda: ([t(3), t(3), t(3)],))
def list_comprehension_if(xs):
    return [x + i for i, x in enumerate(xs) if i != 1]


@case(lambda: (t(3),))
def dict_comprehension(x):
    return {f"k{i}": x * i for i in range(3)}


@case(lambda: (t(3),))
def set_comprehension(x):
    return x * len({i % 3 for i in range(10)})


@case(lambda: (t(3), 3))
def comprehension_closure(x, n):
    return [x * n + i for i in range(n)]


@case(lambda: (t(3),))
def generator_sum(x):
    return sum(x * i for i in range(3)), x


# --- building and unpacking -------------------------------------------------------------


@case(xy43)
def build_tuple(x, y):
    return (x, y, x + y)


@case(xy43)
def build_list(x, y):
    items = [x, y]
    items.append(x * y)
    return items


@case(xy43)
def build_dict(x, y):
    return {"sum": x + y, "diff": x - y, 3: x}


@case(lambda: (t(3),))
def build_set(x):
    s = {1, 2, 3}
    s.add(4)
    return x * len(s), 2 in s


@case(xy43)
def unpack_tuple(x, y):
    a, b = x + y, x - y
    return a * b


@case(lambda: ([t(3), t(3), t(3), t(3)],))
def unpack_star(xs):
    first, *middle, last = xs
    return first + last, len(middle)


@case(lambda: ((t(3), (t(3), t(3))),))
def unpack_nested(pair):
    a, (b, c) = pair
    return a + b + c


@case(xy43)
def swap_values(x, y):
    x, y = y, x
    return x - y


@case(xy43)
def rotate_three(x, y):
    a, b, c = x, y, x + y
    a, b, c = c, a, b
    return a, b, c


@case(lambda: (t(3),))
def list_concat_repeat(x):
    items = [x] + [x * 2]
    items = items * 2
    return items, len(items)


@case(lambda: (t(3),))
def tuple_concat(x):
    tup = (1, 2) + (3,)
    tup += (4,)
    return x * sum(tup), tup


@case(lambda: (t(3),))
def list_methods(x):
    items = [3, 1, 2]
    items.sort()
    items.reverse()
    items.insert(0, 7)
    items.extend([5, 5])
    items.remove(5)
    last = items.pop()
    return x * last, items, items.index(7), items.count(1)


@case(lambda: (t(3),))
def list_setitem_delitem(x):
    items = [x, x, x]
    items[1] = x * 2
    del items[0]
    items[0:1] = [x * 3, x * 4]
    return items


@case(lambda: (t(3),))
def list_iadd(x):
    items = [x]
    items += [x + 1]
    return items


@case(lambda: (t(3),))
def dict_methods(x):
    d = {"a": x}
    d["b"] = x * 2
    d.update({"c": x * 3})
    d.setdefault("a", x * 100)
    value = d.pop("b")
    return d, value, d.get("z", 5), "a" in d, list(d.keys()), len(d)


@case(lambda: (t(3),))
def dict_constructor(x):
    d = dict(a=x, b=x + 1)
    e = dict([("c", x * 2)])
    return d, e


@case(lambda: (t(3),))
def star_unpack_build(x):
    a = [1, 2]
    b = [*a, 3, *a]
    c = (*b,)
    d = {**{"x": 1}, "y": 2}
    return x * len(b), c, d


@case(lambda: (t(6),))
def slicing(x):
    return x[1:4], x[::2], x[-1], x[:-2]


@case(lambda: (t(4, 5),))
def advanced_indexing(x):
    return x[:, 0], x[1:3, ::2], x[..., -1], x[None, 0]


@case(lambda: (t(4, 5),))
def setitem_tensor(x):
    y = x.clone()
    y[0] = 1.0
    y[:, 1] = y[:, 2]
    return y


@case(lambda: ([1, 2, 3, 4, 5], t(3)))
def slice_list_input(items, x):
    return x * sum(items[1:3]), items[::2]


@case(lambda: ("abcdef", t(3)))
def slice_string(s, x):
    return s[1:3], x * len(s[::2])


# --- calls ------------------------------------------------------------------------------


@case(lambda: (t(3),))
def call_default(x):
    return helper_mul(x)


@case(lambda: (t(3),))
def call_keyword(x):
    return helper_mul(x, k=5) + helper_mul(a=x)


@case(lambda: (t(3),))
def call_kwonly(x):
    return helper_kwonly(x, shift=1.0)


@case(lambda: (t(3), t(3), t(3)))
def call_varargs(a, b, c):
    return helper_varargs(a, b, c)


@case(lambda: (t(3),))
def call_star_args(x):
    args = (x, x * 2)
    return helper_varargs(*args)


@case(lambda: (t(3),))
def call_kwargs(x):
    return helper_kwargs(x, scale=3, shift=1)


@case(lambda: (t(3),))
def call_star_kwargs(x):
    opts = {"scale": 2}
    return helper_kwargs(x, **opts), helper_mul(*[x], **{"k": 4})


@case(lambda: (t(3),))
def call_nested(x):
    return helper_nested(x)


@case(lambda: (t(3),))
def call_lambda(x):
    f = lambda v, w=2: v * w  # noqa: E731
    return f(x) + f(x, w=3)


@case(lambda: (t(3), 2))
def call_closure(x, n):
    def scaled(v):
        return v * n

    return scaled(x)


@case(lambda: (t(3),))
def call_nested_closure(x):
    k = 3

    def outer(v):
        def inner(w):
            return w + k

        return inner(v) * k

    return outer(x)


@case(lambda: (t(3),))
def closure_mutated_locally(x):
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    bump()
    bump()
    return x * count


@case(lambda: (t(3),))
def returns_closure_over_traced_cell(x):
    k = x * 2

    def scaled(t):
        return t * k

    return scaled


@case(lambda: (t(3),))
def call_function_argument(x):
    return apply_fn(torch.sin, x) + apply_fn(helper_mul, x)


def apply_fn(f, v):
    return f(v)


def make_adder(k):
    def add_k(v):
        return v + k

    return add_k


ADD_FIVE = make_adder(5)


@case(lambda: (t(3),))
def call_global_closure(x):
    return ADD_FIVE(x)


@case(lambda: (t(3), make_adder(2)))
def closure_argument(x, f):
    return f(x)


compiled_helper = minidynamo.compile(helper_mul)


@case(
    lambda: (t(3),),
    parity="real Dynamo cannot trace minidynamo's compile wrapper (it sets our frame hook)",
)
def call_compiled_function(x):
    return compiled_helper(x, k=4) + 1


@case(lambda: (t(3),))
def recursion(x):
    return fact_like(x, 3)


def fact_like(v, n):
    if n == 0:
        return v
    return fact_like(v * n, n - 1)


@case(lambda: (t(3),))
def call_with_default_mutable(x):
    return with_list_default(x)


def with_list_default(v, items=(1, 2, 3)):
    return v * sum(items)


# --- builtins ---------------------------------------------------------------------------


@case(lambda: (t(3), [4, 1, 3]))
def builtins_min_max(x, items):
    return x * min(items) + max(items) + min(3, 4) + max(2.5, 1)


@case(lambda: (t(3), [1, 2, 3]))
def builtins_sum_len(x, items):
    return x * sum(items) + len(items)


@case(lambda: (t(3), [True, False]))
def builtins_any_all(x, flags):
    return x * int(any(flags)) + int(all(flags))


@case(lambda: (t(3), [3, 1, 2]))
def builtins_sorted(x, items):
    return x * sorted(items)[0], sorted(items, reverse=True)


@case(lambda: (t(3), 4))
def builtins_range_list(x, n):
    return list(range(n)), tuple(range(1, n)), x * len(range(0, n, 2))


@case(lambda: (t(3),))
def builtins_getattr(x):
    return x.shape, x.sum()


@case(lambda: (t(3), 3))
def builtins_conversions(x, n):
    return str(n), int("7") + n, float(n), bool(n), x * abs(-n)


@case(lambda: (t(3),))
def builtins_type(x):
    return int(4.7), x * 2 if type(x) is torch.Tensor else x


@case(lambda: ([t(3), t(3)],))
def builtins_list_of_list(xs):
    copy_ = list(xs)
    copy_.append(xs[0])
    return copy_


@case(lambda: (t(3), [1, 2]))
def builtins_map(x, items):
    return list(map(lambda v: v + 1, items)), [x * v for v in map(abs, [-1, -2])]


@case(lambda: (t(3),))
def builtins_iter_next(x):
    it = iter([x, x * 2])
    first = next(it)
    second = next(it)
    return first + second


@case(lambda: (t(3), 7))
def builtins_divmod_pow(x, n):
    q, r = divmod(n, 3)
    return x * q + r + pow(2, 3) + round(3.14159, 2)


@case(lambda: (t(3),), breaks="print runs in CPython")
def builtins_print(x):
    print("hello")
    return x


@case(lambda: (t(3),))
def builtins_isinstance_tuple(x):
    return isinstance(x, (int, torch.Tensor)), isinstance(3, int), isinstance("a", (int, float))


@case(lambda: (t(3), Point(1.0, 2.0)))
def builtins_hasattr_like(x, p):
    return x * p.x


# --- torch functions, tensor methods and attributes ----------------------------------


@case(lambda: (t(4, 3),))
def torch_functions(x):
    return torch.sin(x) + torch.cos(x) * torch.exp(x.clamp(max=1))


@case(lambda: (t(4, 3),))
def torch_nn_functional(x):
    return F.relu(x), F.softmax(x, dim=-1), F.gelu(x)


@case(xy43)
def torch_cat_stack(x, y):
    return torch.cat([x, y]), torch.stack((x, y), dim=1)


@case(lambda: (t(4, 3),))
def torch_factories(x):
    return x + torch.zeros(3) + torch.ones(4, 3) * 2 + torch.arange(3) + torch.full((3,), 7.0)


@case(lambda: (t(4, 3),))
def torch_like_factories(x):
    return torch.zeros_like(x) + torch.ones_like(x)


@case(lambda: (t(4, 3),))
def torch_tensor_constant(x):
    return x * torch.tensor([1.0, 2.0, 3.0])


@case(lambda: (t(4, 3),))
def torch_chunk(x):
    a, b = torch.chunk(x, 2)
    return a - b


@case(lambda: (t(4, 3),))
def torch_split_unused(x):
    a, b = x.split(2)
    return a


@case(lambda: (t(4, 3),))
def torch_max_dim(x):
    values, indices = torch.max(x, dim=0)
    return values, indices


@case(lambda: (t(4, 3),))
def tensor_max_named(x):
    return x.max(dim=0).values


@case(lambda: (t(4, 3),))
def tensor_return_namedtuple(x):
    return x.max(dim=1)


@case(lambda: (t(4, 3),))
def tensor_methods(x):
    return x.sum(dim=1, keepdim=True).abs().sqrt(), x.mean(), x.view(-1), x.reshape(3, 4)


@case(lambda: (t(4, 3),))
def tensor_method_chain(x):
    return torch.sin(x).cos().sum(dim=1, keepdim=True)


@case(lambda: (t(4, 3),))
def tensor_attributes(x):
    return x.shape, x.dtype, x.device, x.ndim, x.requires_grad, x.is_cuda


@case(lambda: (t(4, 3),))
def tensor_size_dim(x):
    return x.size(), x.size(0), x.size(-1), x.dim(), x.numel(), x.stride()


@case(lambda: (t(4, 3),))
def tensor_shape_arith(x):
    return x.shape[0] * x + x.shape[-1]


@case(lambda: (t(4, 3),))
def tensor_len(x):
    return x * len(x)


@case(lambda: (t(4, 3),))
def tensor_view_ops(x):
    return x.t(), x.transpose(0, 1), x.permute(1, 0), x.unsqueeze(0).squeeze(0), x.flatten()


@case(lambda: (t(4, 3),))
def tensor_to_dtype(x):
    return x.to(torch.float64), x.float(), x.int(), x.type(torch.float16)


@case(lambda: (t(4, 3),), breaks="Tensor.item() runs in CPython")
def tensor_item(x):
    return x.sum().item()


@case(lambda: (t(4, 3),), breaks="Tensor.tolist() runs in CPython")
def tensor_tolist(x):
    return x.tolist()


@case(lambda: (t(4, 3),))
def tensor_is_none(x):
    return x is None, x is not None


@case(
    lambda: (t(4, 3),),
    parity="Python's `in` tests identity first, so `x in [x, ...]` is True without a "
    "graph; real Dynamo compares by value (eq/or_ nodes)",
)
def tensor_in_list(x):
    items = [x, x + 1]
    return x in items


@case(
    lambda: (t(4, 3),), parity="real Dynamo rewrites x.T to aten.numpy_T; we record getattr(x, 'T')"
)
def tensor_T(x):
    return x.T + 1


@case(lambda: (t(4, 3),))
def tensor_contiguous_checks(x):
    return x.is_contiguous(), x.is_floating_point(), x.element_size()


@case(lambda: (t(4, 3).requires_grad_(),))
def requires_grad_input(x):
    return (x * 2).sum()


@case(lambda: (torch.randn(4, 3, dtype=torch.float64),))
def double_input(x):
    return x * 2


@case(lambda: (t(4, 3),))
def torch_dtype_constants(x):
    return x.to(dtype=torch.int32), torch.float32, torch.is_tensor(x), torch.is_floating_point(x)


@case(lambda: (t(4, 3),))
def torch_random_in_graph(x):
    return x + torch.randn(4, 3)


@case(lambda: (t(4, 3),))
def torch_where_clamp(x):
    return torch.where(x > 0, x, torch.zeros_like(x)), torch.clamp(x, -0.5, 0.5)


@case(lambda: (t(2, 3), t(3, 4)))
def torch_matmul_functions(a, b):
    return torch.matmul(a, b), torch.mm(a, b), a.mm(b)


@case(lambda: (t(4, 3),))
def torch_reductions(x):
    return x.sum(), x.max(), x.argmax(dim=1), torch.std(x), x.norm()


@case(lambda: (t(4, 3),))
def torch_size_constructor(x):
    return x.new_zeros(x.shape), x.reshape(torch.Size([3, 4]))


@case(lambda: (t(4, 3),))
def torch_expand_repeat(x):
    return x[0].expand(4, 3), x.repeat(2, 1)


# --- attributes, modules, objects ------------------------------------------------------


@case(lambda: (Point(t(3), t(3)),))
def object_attributes(p):
    return p.x * p.y


@case(lambda: (Point(t(3), t(3)),))
def object_method(p):
    return p.norm2()


@case(lambda: (Point(t(3), t(3)),))
def object_property(p):
    return p.total


@case(lambda: (Point(t(3), 2.0),))
def object_static_and_class_methods(p):
    return Point.twice(p.x) * p.y, p.origin_name()


@case(lambda: (Scaler(), t(3)))
def callable_object(s, x):
    return s(x)


@case(lambda: (t(3),))
def module_attribute_constant(x):
    return x * math.e


@case(lambda: (t(3, 3),))
def module_function_via_module(x):
    return torch.nn.functional.relu(x) + torch.linalg.norm(x)


@case(lambda: (MLP(), t(4, 3)))
def nn_module_argument(m, x):
    return m(x)


@case(lambda: (torch.nn.Linear(3, 2), t(4, 3)))
def nn_linear_argument(lin, x):
    return lin(x).relu()


@case(lambda: (torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU()), t(4, 3)))
def nn_sequential_argument(seq, x):
    return seq(x)


@case(lambda: (MLP(), t(4, 3)))
def nn_module_parameters(m, x):
    return x @ m.lin1.weight.t() + m.lin1.bias


@case(lambda: (t(3),))
def set_attribute_on_object(x):
    p = Point(1, 2)
    return x * p.x


@case(lambda: (Point(1, 2), t(3)))
def mutate_input_object(p, x):
    p.x = 5
    return x * p.x


# --- mutation of inputs and side effects (replayed after the graph) -------------------


@case(lambda: ([t(3)],))
def mutate_input_list(items):
    items.append(items[0] * 2)
    return items


@case(lambda: ({"a": t(3)},))
def mutate_input_dict(d):
    d["b"] = d["a"] + 1
    return d


HISTORY = [torch.zeros(3)]


@case(lambda: (t(3),))
def mutate_global_list(x):
    HISTORY[0] = x * 2  # a new tensor of the same kind: the next call's guards still pass
    return x


@case(lambda: (t(3),))
def assign_global(x):
    global SCALE
    SCALE = 3
    return x * SCALE


# --- exceptions: the compiled function raises what eager raises ------------------------


ESCAPES = "an exception leaves the frame: CPython runs it and raises (Dynamo's GB0088)"


@case(lambda: (t(3), 0), fallback=ESCAPES)
def raise_value_error(x, n):
    if n == 0:
        raise ValueError("n must not be zero")
    return x / n


@case(lambda: (t(3), t(4)), fallback="shape mismatch is raised by the eager frame")
def shape_mismatch(x, y):
    return x + y


@case(lambda: (t(3), [1]), fallback=ESCAPES)
def index_error(x, items):
    return x * items[3]


@case(lambda: (t(3), {"a": 1}), fallback=ESCAPES)
def key_error(x, d):
    return x * d["b"]


@case(lambda: (t(3),), breaks="the failing call runs in CPython", parity="Dynamo too breaks")
def type_error_call(x):
    return helper_mul(x, 1, 2, 3)


@case(lambda: (t(3), 0), fallback=ESCAPES)
def zero_division_constant(x, n):
    return x * (1 / n)


@case(lambda: (t(3), "a"), fallback=ESCAPES)
def type_error_operator(x, s):
    return x * (s + 1)


@case(lambda: (t(3),))
def try_except(x):
    try:
        return x + 1
    except ValueError:
        return x


# --- exceptions raised and caught while tracing (Dynamo traces both paths' choice) -------


class Stop(Exception):
    """A user exception class without a constructor of its own."""


class WithState(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def helper_raises(n):
    if n > 0:
        raise Stop("from helper", n)
    return n


@case(lambda: (t(3), {"a": 2}))
def except_key_error_from_dict(x, d):
    try:
        k = d["b"]
    except KeyError:
        k = d["a"]
    return x * k


@case(lambda: (t(3), [1, 2]))
def except_index_error_from_list(x, items):
    try:
        v = items[5]
    except IndexError as e:
        v = len(str(e))
    return x + v


@case(lambda: (t(3),))
def raise_and_catch_with_args(x):
    try:
        raise Stop("stopped", 4)
    except Stop as e:
        n = e.args[1]
    return x * n


@case(lambda: (t(3),))
def raise_class_without_call(x):
    try:
        raise Stop
    except Exception:
        x = x - 1
    return x


@case(lambda: (t(3),))
def except_tuple_of_classes(x):
    try:
        raise KeyError("k")
    except (IndexError, KeyError) as e:
        x = x + len(e.args)
    return x


@case(lambda: (t(3),))
def handler_order_first_match(x):
    try:
        raise Stop("s")
    except ValueError:
        x = x + 100
    except Stop:
        x = x + 1
    except Exception:
        x = x + 10
    return x


@case(lambda: (t(3),))
def exception_from_inlined_helper(x):
    y = x * 2
    try:
        helper_raises(1)
        y = y + 100
    except Stop as e:
        y = y + e.args[1]
    return y


@case(lambda: (t(3),))
def helper_without_exception_inside_try(x):
    try:
        n = helper_raises(0)
    except Stop:
        n = 7
    return x + n


@case(lambda: (t(3),))
def nested_try_reraise_to_outer(x):
    try:
        try:
            raise ValueError("inner")
        except ValueError:
            x = x + 1
            raise
    except ValueError as e:
        x = x * len(str(e))
    return x


@case(lambda: (t(3), [1]))
def finally_runs_on_exception(x, items):
    try:
        try:
            v = items[3]
        finally:
            x = x + 1
    except IndexError:
        v = 2
    return x * v


@case(lambda: (t(3),))
def try_except_else(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    else:
        y = y * 3
    return y


@case(lambda: (t(3),))
def return_inside_try_with_finally(x):
    try:
        return x + 1
    finally:
        x = x * 2


@case(lambda: (t(3),))
def raise_in_except_handled_outside(x):
    try:
        try:
            raise Stop("first")
        except Stop:
            raise ValueError("second")  # noqa: B904 (chaining with `from` is not modelled)
    except ValueError as e:
        return x + len(e.args[0])


@case(lambda: (t(3),))
def isinstance_of_caught_exception(x):
    try:
        raise Stop("s")
    except Exception as e:
        if isinstance(e, Stop):
            return x + 1
        return x - 1


@case(lambda: (t(3),))
def caught_constant_folding_error(x):
    try:
        r = 1 // 0
    except ZeroDivisionError:
        r = 5
    return x * r


@case(lambda: (t(3), 1), fallback=ESCAPES)
def exception_escapes_from_helper(x, n):
    y = x + 1
    helper_raises(n)
    return y


@case(lambda: (t(3),), fallback=ESCAPES)
def unmatched_handler_lets_it_escape(x):
    try:
        raise Stop("not caught")
    except ValueError:
        return x
    return x + 1


@case(lambda: (t(3),), fallback="an exception class with its own __init__ is not modelled")
def exception_with_own_init(x):
    try:
        raise WithState(3)
    except WithState as e:
        return x * e.code


@case(lambda: (t(3),))
def exception_inside_no_grad(x):
    """The exception leaves the block through its exit, which restores the grad mode."""
    try:
        with torch.no_grad():
            raise Stop("in with")
    except Stop:
        return x + 1, torch.is_grad_enabled()


@case(lambda: (t(3),))
def with_no_grad(x):
    with torch.no_grad():
        return x * 2


@case(lambda: (t(3),))
def call_generator(x):
    return sum(gen(x))


def gen(v):
    yield v
    yield v * 2


# --- generators, inlined one yield at a time (as Dynamo does) ---------------------------


def countdown(v, n):
    while n > 0:
        yield v * n
        n -= 1
    return "done"


@case(lambda: (t(3),))
def generator_expression_sum(x):
    return sum(x * k for k in range(3))


@case(lambda: (t(3),))
def generator_expressions_into_containers(x):
    pair = tuple(x + i for i in range(2))
    items = list(x * i for i in (1, 2))
    return pair[1] - items[0]


@case(lambda: (t(3), [1, 2, 3]))
def generator_expression_any_all_max(x, values):
    big = any(v > 2 for v in values)
    small = all(v > 0 for v in values)
    top = max(v * 2 for v in values)
    return x * top + big - small


@case(lambda: (t(3),))
def generator_expression_join(x):
    return x + len("-".join(str(i) for i in range(4)))


@case(lambda: (t(3),))
def generator_expression_with_condition(x):
    return sum(x * i for i in range(6) if i % 2 == 1)


@case(lambda: (t(3), [t(3), t(3)]))
def generator_expression_over_tensors(x, tensors):
    return sum(t * x for t in tensors)


@case(lambda: (t(3),))
def nested_generator_expressions(x):
    return sum(sum(x * i * j for j in range(2)) for i in range(3))


@case(lambda: (t(3),))
def generator_function_with_loop_and_return(x):
    return sum(countdown(x, 3))


@case(lambda: (t(3),))
def for_loop_over_generator(x):
    total = x
    for y in countdown(x, 2):
        total = total + y
    return total


@case(lambda: (t(3),))
def next_on_generator(x):
    g = countdown(x, 3)
    first = next(g)
    second = next(g)
    return first - second


@case(lambda: (t(3),))
def filter_and_map(x):
    odd = filter(lambda v: v % 2, range(5))
    return x + sum(map(lambda v: v * 10, odd))


@case(lambda: (t(3),))
def filter_none_over_constants(x):
    return x + len(list(filter(None, [0, 1, 2, 0])))


@case(lambda: (t(3),))
def zip_and_enumerate_generators(x):
    total = x
    for i, (a, b) in enumerate(zip((k for k in range(3)), [4, 5, 6])):  # noqa: B905
        total = total + i * a * b
    return total


def yield_then_raise(v):
    yield v + 1
    raise Stop("generator failed")


@case(lambda: (t(3),))
def generator_finished_after_raising(x):
    g = yield_then_raise(x)
    first = next(g)
    try:
        next(g)
    except Stop:
        pass
    return first + sum(g)


@case(lambda: (t(3),))
def exception_caught_around_generator(x):
    try:
        n = sum(10 // k for k in [1, 0])
    except ZeroDivisionError:
        n = -1
    return x * n


# --- match statements: the case that matches is followed, like an `if` ------------------

# Real Dynamo 2.14 has no handler for 3.10's COPY_DICT_WITHOUT_KEYS: no graph there.
DYNAMO_NO_DICT_REST = (
    "Dynamo 2.14 runs a `**rest` mapping pattern eagerly on 3.10 (COPY_DICT_WITHOUT_KEYS)"
    if "COPY_DICT_WITHOUT_KEYS" in dis.opmap
    else None
)


class Pair:
    __match_args__ = ("px", "py")

    def __init__(self, px, py):
        self.px = px
        self.py = py


def match_op(x, op):
    match op:
        case ("add", n):
            return x + n
        case ["mul", n, *rest]:
            return x * n + len(rest)
        case {"scale": s, **rest}:
            return x * s + len(rest)
        case int(n) if n > 2:
            return x - n
        case str() | None:
            return x
        case Pair(px, py=0):
            return x + px
        case _:
            return x * 0


@case(lambda: (t(3), ("add", 2)))
def match_tuple_pattern(x, op):
    return match_op(x, op)


@case(lambda: (t(3), ["mul", 3, 7, 8]))
def match_list_with_star(x, op):
    return match_op(x, op)


@case(lambda: (t(3), {"scale": 2, "other": 1}), parity=DYNAMO_NO_DICT_REST)
def match_mapping_with_rest(x, op):
    return match_op(x, op)


@case(lambda: (t(3), 5))
def match_class_int_with_guard(x, op):
    return match_op(x, op)


@case(lambda: (t(3), 1))
def match_falls_through_to_wildcard(x, op):
    return match_op(x, op)


@case(lambda: (t(3), None))
def match_or_pattern(x, op):
    return match_op(x, op)


@case(lambda: (t(3), Pair(4, 0)))
def match_user_class_attributes(x, op):
    return match_op(x, op)


@case(lambda: (t(3), Pair(4, 1)))
def match_user_class_keyword_mismatch(x, op):
    return match_op(x, op)


@case(lambda: (t(3), 2))
def match_literal_cases(x, n):
    match n:
        case 1:
            return x + 1
        case 2 | 3:
            return x + 2
    return x


@case(lambda: (t(2, 3),))
def match_on_tensor_shape(x):
    match x.shape:
        case (rows, cols):
            return x.sum(0) * rows + cols
        case _:
            return x


# --- miscellaneous ---------------------------------------------------------------------


@case(
    lambda: (t(3),),
    parity="real Dynamo passes the unchanged input through the graph's outputs; we "
    "reload it from its source",
)
def delete_local(x):
    y = x + 1
    del y
    return x


@case(lambda: (t(3), 3))
def is_and_in_constants(x, n):
    return n is None, n is not None, n in (1, 2, 3), n not in [4], "a" in "abc"


@case(lambda: (t(3),))
def nested_function_defaults(x):
    def f(a, b=2, *rest, c=3, **kw):
        return a * b + c + len(rest) + len(kw)

    return f(x), f(x, 1, 2, 3, c=1, d=4)


@case(lambda: (t(3),))
def keyword_only_default_override(x):
    return helper_kwonly(x, scale=2.0, shift=-1.0)


@case(lambda: (t(3),))
def positional_only(x):
    return posonly(x, 2)


def posonly(a, b, /):
    return a * b


@case(lambda: (t(2, 3),))
def chained_method_calls_on_constants(x):
    return x * "-".join(["a", "b"]).count("-")


@case(lambda: (t(3), (2, 3)))
def tuple_arg_indexing(x, shape):
    h, w = shape
    return x * h * w, shape[-1]


@case(lambda: (t(3), {"lr": 0.1, "steps": 2}))
def dict_argument(x, config):
    for _ in range(config["steps"]):
        x = x - config["lr"] * x
    return x


@case(lambda: (t(3), [[1, 2], [3]]))
def nested_list_argument(x, items):
    return x * len(items[0]) + items[1][0]


@case(lambda: (t(3), 2))
def many_locals(x, n):
    a = x + 1
    b = a * n
    c = b - a
    d = c / 2
    e = d**2
    f = e.sum()
    return f, e, d
