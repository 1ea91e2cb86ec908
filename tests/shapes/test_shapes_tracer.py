"""Symbolic shapes through the real tracer (issue #5): the seed's examples in its formats
(graphs, guards, graph_sizes, the `dynamic` log), compile counts of automatic dynamic, 0/1
specialization and duck shaping, and differential tests of programs that compute with
sizes and ints, each run eagerly and compiled over several sizes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import minidynamo
import pytest
import torch
from minidynamo import convert_frame, demo
from minidynamo.demo import Example
from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

SHAPE_CHANNELS = ("graph_code", "guards", "recompiles", "dynamic", "graph_sizes")

_HEADER = "import torch\nimport minidynamo\n"

SEED_SHAPE_EXAMPLES = [
    Example(
        "ints_become_symbolic",
        "a.py",
        ("graph_code", "guards", "recompiles", "dynamic"),
        _HEADER
        + """\
@minidynamo.compile
def fn(x, n):
    y = x ** 2
    if n >= 0:
        return (n + 1) * y
    else:
        return y / n

x = torch.randn(200)
fn(x, 2)
fn(x, 3)
fn(x, -2)
fn(x, 4)
""",
    ),
    Example(
        "sizes_become_symbolic",
        "script.py",
        SHAPE_CHANNELS,
        _HEADER
        + """\
@minidynamo.compile
def fn(a, b):
    return a.shape[0] * a * b

fn(torch.randn(4, 3), torch.randn(4, 3))
fn(torch.randn(8, 3), torch.randn(8, 3))
fn(torch.randn(16, 3), torch.randn(16, 3))
""",
    ),
    Example(
        "guard_on_a_symbolic_branch",
        "script.py",
        SHAPE_CHANNELS,
        _HEADER
        + """\
@minidynamo.compile(dynamic=True)
def fn(a):
    if a.shape[0] * 2 < 16:
        return a
    else:
        return a + 1

fn(torch.randn(8))
""",
    ),
]


@pytest.mark.parametrize("example", SEED_SHAPE_EXAMPLES, ids=lambda example: example.name)
def test_seed_shape_example_output(example: Example, golden_common) -> None:
    assert demo.run_example(example) == golden_common


def test_seed_second_graph_and_guards() -> None:
    text = demo.run_example(SEED_SHAPE_EXAMPLES[1])
    assert (
        "def forward(self, s0: torch.SymInt, l_a_: torch.Tensor, l_b_: torch.Tensor):\n"
        "    # File: script.py:5, code: return a.shape[0] * a * b\n"
        "    size = l_a_.size()\n"
        "    getitem = size[0]\n"
        "    mul = getitem * l_a_\n"
        "    mul_1 = mul * l_b_\n"
        "    return (mul_1,)\n"
    ) in text
    assert (
        "check_tensor(L['b'], torch.float32, device=cpu, requires_grad=False, "
        "size=[None, 3], stride=[3, 1])\n"
        "L['b'].size()[0] == L['a'].size()[0]\n"
        "2 <= L['a'].size()[0]\n"
    ) in text
    assert "l_a_: (s0, 3)\nl_a_ (concrete): (8, 3)" in text
    assert text.count("TRACED GRAPH\n") == 2  # size 16 reuses the symbolic graph


def test_seed_int_graphs() -> None:
    text = demo.run_example(SEED_SHAPE_EXAMPLES[0])
    assert text.count("def forward(self, l_x_: torch.Tensor, l_n_: torch.SymInt):") == 2
    assert "add = l_n_ + 1\n    mul = add * y" in text
    assert "truediv = y / l_n_" in text
    assert text.count("TRACED GRAPH\n") == 3  # fn(x, 4) reuses the second graph


def test_seed_guard_added_on_a_branch() -> None:
    text = demo.run_example(SEED_SHAPE_EXAMPLES[2])
    assert "2*L['a'].size()[0] >= 16" in text
    assert "eval 2*s0 >= 16 [guard added] at script.py:5 in fn" in text


@pytest.fixture(autouse=True)
def fresh_cache():
    minidynamo.reset()
    yield
    minidynamo.reset()


# Compile counts.


def compiles() -> int:
    return convert_frame.counters["frames_compiled"]


def double(a: torch.Tensor) -> torch.Tensor:
    return a * 2


def elementwise(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a * b


def test_sizes_4_8_16_32_compile_twice() -> None:
    fn = minidynamo.compile(double)
    for n in (4, 8, 16, 32):
        a = torch.randn(n, 3)
        assert torch.equal(fn(a), a * 2)
    assert compiles() == 2


def test_sizes_0_and_1_get_their_own_graphs() -> None:
    fn = minidynamo.compile(double)
    for n in (4, 8, 1, 0, 16, 1, 0):
        a = torch.randn(n)
        assert torch.equal(fn(a), a * 2)
    assert compiles() == 4


def test_duck_shaped_inputs_that_stop_being_equal_recompile() -> None:
    fn = minidynamo.compile(elementwise)
    for m, n in ((4, 4), (8, 8), (6, 6)):
        assert torch.equal(fn(torch.ones(m, 2), torch.ones(n, 1)), torch.ones(m, 2))
    assert compiles() == 2
    fn(torch.ones(6, 2), torch.ones(1, 2))
    fn(torch.ones(5, 2), torch.ones(7, 2).sum(0, keepdim=True))
    assert compiles() == 3


def test_dynamic_false_specializes_every_size() -> None:
    fn = minidynamo.compile(double, dynamic=False)
    for n in (4, 8, 16):
        fn(torch.randn(n))
    assert compiles() == 3


def test_dynamic_true_compiles_once() -> None:
    fn = minidynamo.compile(double, dynamic=True)
    for n in (4, 8, 16):
        fn(torch.randn(n))
    assert compiles() == 1


def test_mark_dynamic_skips_the_static_compile() -> None:
    fn = minidynamo.compile(double)
    for n in (4, 8, 16):
        a = torch.randn(n)
        minidynamo.mark_dynamic(a, 0)
        fn(a)
    assert compiles() == 1


def test_mark_dynamic_then_specialized_raises() -> None:
    def fn(a: torch.Tensor) -> torch.Tensor:
        if a.shape[0] == 8:
            return a + 1
        return a - 1

    a = torch.randn(8)
    minidynamo.mark_dynamic(a, 0)
    with pytest.raises(ConstraintViolationError, match="L\\['a'\\].size\\(\\)\\[0\\]"):
        minidynamo.compile(fn)(a)


def test_mark_static_keeps_a_dim_static() -> None:
    fn = minidynamo.compile(double, dynamic=True)
    for n in (4, 8):
        a = torch.randn(n)
        minidynamo.mark_static(a)
        fn(a)
    assert compiles() == 2


# Differential tests: programs that use sizes and ints in Python code.


@dataclasses.dataclass
class ShapeCase:
    """A program, the arguments it is called with for a size `n`, and its expected
    number of compiles over the sizes 4, 8, 5, 9 (None: not checked)."""

    fn: Callable
    make_args: Callable[[int], tuple]
    compiles: int | None = 2

    @property
    def name(self) -> str:
        return self.fn.__name__


def view_rows(x):
    return x.view(x.shape[0], -1) * 2


def reshape_by_size(x):
    return x.reshape(-1, x.size(1)).sum(0)


def slice_half(x):
    return x[: x.shape[0] // 2] + 1


def loop_over_range(x):
    out = x
    for i in range(x.shape[0]):
        out = out + i
    return out


def size_arithmetic(x):
    return x * (x.shape[0] + x.shape[1]) - x.numel()


def branch_on_size(x):
    if x.shape[0] > 6:
        return x + 1
    return x - 1


def int_arithmetic(x, n):
    return x * n + n * 2


def slice_by_int(x, n):
    return x[:n]


def return_shape(x):
    return x.shape


def return_sizes(x):
    return x.size(0), x.shape[1]


def zeros_of_size(x):
    return torch.zeros(x.shape[0], 2) + x.sum()


def expand_to_shape(x):
    return x.unsqueeze(0).expand(3, *x.shape)


def times_len(x):
    return x * len(x)


def divide_by_float_size(x):
    return x / float(x.shape[0])


def manual_mean(x):
    return x.sum(0) / x.shape[0]


def size_of_cat(x, y):
    return torch.cat([x, y], 0).shape[0] * x.sum()


def negated_int(x, n):
    return x - (-n)


def int_mod_floordiv(x, n):
    return x + (n % 3) + (n // 2)


def list_index_by_int(x, n):
    items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    return x * items[n]


def format_int(x, n):
    return x * len(f"{n}")


def max_of_size(x):
    return x * max(x.shape[0], 3)


def unpack_shape(x):
    a, b = x.shape
    return x.view(b, a)


def arange_of_size(x):
    return torch.arange(x.shape[0]) * x.sum()


def size_compared_to_int(x, n):
    return x + 1 if x.shape[0] > n else x - 1


def flatten_by_numel(x):
    return x.reshape(x.numel()) * x.shape[-1]


def new_ones_like_rows(x):
    return x.new_ones(x.shape[0], 1) * x


def int_times_int(x, n):
    return x + n * n - n


def shape_in_tuple(x):
    return x.sum(), x.shape[0] * 2


def sizes_through_a_helper(x, y):
    def rows(t):
        return t.shape[0]

    return x.view(rows(x), -1) + y.view(rows(y), -1).sum()


def slice_with_both_bounds(x):
    n = x.shape[0]
    return x[1 : n - 1] * n


def sum_over_sizes(x):
    return x * sum(x.shape)


def float_int(x, n):
    return x * (n / 2)


def int_is_truthy(x, n):
    if n:
        return x + n
    return x


def matmul_by_shape(x):
    w = torch.ones(x.shape[1], x.shape[0])
    return x @ w


def split_by_size(x):
    first, second = x.split(x.shape[0] // 2)
    return first + second


def size_used_twice(x, y):
    return x * x.shape[0] + y * y.shape[0]


def vector(n):
    return (torch.randn(n),)


def matrix(n):
    return (torch.randn(n, 3),)


def with_int(n):
    return (torch.randn(3), n)


def pair(n):
    return (torch.randn(n, 2), torch.randn(n + 1, 2))


SHAPE_CASES = [
    ShapeCase(view_rows, matrix),
    ShapeCase(reshape_by_size, matrix),
    ShapeCase(slice_half, matrix, compiles=3),  # `n // 2` specialized by the slice
    ShapeCase(loop_over_range, vector, compiles=4),  # range(n) specializes n
    ShapeCase(size_arithmetic, matrix),
    ShapeCase(branch_on_size, vector, compiles=3),  # guard `s0 > 6` flips at 5
    ShapeCase(int_arithmetic, with_int),
    ShapeCase(slice_by_int, lambda n: (torch.randn(10), n), compiles=4),
    ShapeCase(return_shape, matrix),
    ShapeCase(return_sizes, matrix),
    ShapeCase(zeros_of_size, lambda n: (torch.randn(n, 2),)),
    ShapeCase(expand_to_shape, lambda n: (torch.randn(n, 2),)),
    ShapeCase(times_len, vector),
    ShapeCase(divide_by_float_size, vector, compiles=4),  # float() specializes
    ShapeCase(manual_mean, lambda n: (torch.randn(n, 2),)),
    ShapeCase(size_of_cat, pair),
    ShapeCase(negated_int, with_int),
    ShapeCase(int_mod_floordiv, with_int),
    ShapeCase(list_index_by_int, with_int, compiles=4),  # a list index specializes
    ShapeCase(format_int, with_int, compiles=4),  # formatting specializes
    ShapeCase(max_of_size, vector, compiles=4),  # max() specializes
    ShapeCase(unpack_shape, matrix, compiles=None),
    ShapeCase(arange_of_size, vector),
    ShapeCase(size_compared_to_int, lambda n: (torch.randn(n), 6), compiles=3),
    ShapeCase(flatten_by_numel, matrix),
    ShapeCase(new_ones_like_rows, lambda n: (torch.randn(n, 2),)),
    ShapeCase(int_times_int, with_int),
    ShapeCase(shape_in_tuple, vector),
    ShapeCase(sizes_through_a_helper, pair),
    ShapeCase(slice_with_both_bounds, vector, compiles=None),
    ShapeCase(sum_over_sizes, matrix, compiles=None),
    ShapeCase(float_int, with_int),
    ShapeCase(int_is_truthy, lambda n: (torch.randn(3), n - 4), compiles=None),
    ShapeCase(matmul_by_shape, matrix),
    ShapeCase(split_by_size, lambda n: (torch.randn(2 * n),), compiles=None),
    ShapeCase(size_used_twice, lambda n: (torch.randn(n, 2), torch.randn(n, 2))),
]


def same(a: object, b: object) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b)
    if isinstance(a, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda case: case.name)
def test_shape_program_matches_eager(case: ShapeCase) -> None:
    compiled = minidynamo.compile(case.fn)
    for n in (4, 8, 5, 9):
        torch.manual_seed(n)
        args = case.make_args(n)
        assert same(compiled(*args), case.fn(*args)), f"{case.name} differs at size {n}"
    assert convert_frame.counters["frames_failed"] == 0
    if case.compiles is not None:
        assert compiles() == case.compiles


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda case: case.name)
def test_shape_program_matches_eager_with_dynamic_true(case: ShapeCase) -> None:
    compiled = minidynamo.compile(case.fn, dynamic=True)
    for n in (4, 8, 5, 9):
        torch.manual_seed(n)
        args = case.make_args(n)
        assert same(compiled(*args), case.fn(*args)), f"{case.name} differs at size {n}"
    assert convert_frame.counters["frames_failed"] == 0
