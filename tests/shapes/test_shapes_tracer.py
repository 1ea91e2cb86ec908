"""Symbolic shapes through the real tracer (issue #5): the seed's examples in its formats
(graphs, guards, graph_sizes, the `dynamic` log), specializations on the `dynamic` log, and
compile counts of automatic dynamic, 0/1 specialization and duck shaping. The differential
programs are in `test_shapes_programs.py`."""

from __future__ import annotations

import minidynamo
import pytest
import torch
from minidynamo import convert_frame, demo, logs
from minidynamo.demo import Example
from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

SHAPE_CHANNELS = ("graph_code", "guards", "recompiles", "dynamic", "graph_sizes")

_HEADER = "import torch\nimport minidynamo\n"

SEED_SHAPE_EXAMPLES = [
    Example(
        "ints_become_symbolic",
        "a.py",
        ("graph_code", "guards", "recompiles", "dynamic"),
        demo.SPECIALIZE + "fn(x, 2)\nfn(x, 3)\nfn(x, -2)\nfn(x, 4)\n",
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
        "    mul = s0 * l_a_\n"  # as Dynamo: the size input, not size()/getitem nodes
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


def test_seed_int_example_then_fn_x_4_hits_the_second_graph() -> None:
    """Seed: "如果之后再调用fn(x, 4)，Dynamo 不会重新编译" (fn(x, 4) does not recompile)."""
    text = demo.run_example(SEED_SHAPE_EXAMPLES[0])
    assert text.count("Recompiling function fn") == 2
    assert text.endswith("L['n'] < 0\n")  # nothing logged after the third compile


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


def test_a_later_mark_dynamic_recompiles_with_the_dim_symbolic() -> None:
    """As Dynamo's DIMENSION_DYNAMIC_MARKING_GUARD: a static entry does not serve a
    tensor marked dynamic; the recompile honours the mark, and unmarked or equally
    marked tensors then reuse an entry."""
    fn = minidynamo.compile(double)
    fn(torch.randn(4))
    marked = torch.randn(4)
    minidynamo.mark_dynamic(marked, 0)
    with logs.capture("guards") as guards:
        assert torch.equal(fn(marked), marked * 2)
    assert compiles() == 2
    assert "size=[None], stride=[1])\n2 <= L['a'].size()[0]" in guards[-1]
    again = torch.randn(6)
    minidynamo.mark_dynamic(again, 0)
    fn(again)
    fn(torch.randn(4))
    assert compiles() == 2


def test_strides_that_change_alone_become_symbolic() -> None:
    """As Dynamo 2.14 (3 frames for the same inputs): the transposed input recompiles
    with its varied stride symbolic (stride 1 is specialized, as sizes 0/1 are); the
    first strided view makes both strides symbolic, the second reuses that graph."""
    fn = minidynamo.compile(double)
    a = torch.randn(4, 4)
    with logs.capture("guards") as guards:
        for t in (a, a.t(), torch.randn(4, 8)[:, ::2], torch.randn(4, 12)[:, ::3]):
            assert torch.equal(fn(t), t * 2)
    assert compiles() == 3
    assert "size=[4, 4], stride=[1, None])\n2 <= L['a'].stride()[1]" in guards[1]
    assert "size=[4, 4], stride=[None, None])" in guards[2]


def test_size_changes_alone_leave_strides_inferred() -> None:
    fn = minidynamo.compile(double)
    with logs.capture("guards") as guards:
        for n in (4, 8, 5):
            fn(torch.randn(3, n))
    assert compiles() == 2
    assert "size=[3, None], stride=[None, 1])" in guards[1]
    assert "L['a'].stride()[0] == L['a'].size()[1]" in guards[1]  # no symbol of its own


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


SPECIALIZATIONS = Example(
    "specializations",
    "script.py",
    ("guards", "dynamic"),
    _HEADER
    + """\
@minidynamo.compile(dynamic=True)
def fn(x, n):
    total = x[0]
    for row in x:
        total = total + row
    for i in range(len(x)):
        total = total + i
    if n:
        total = total * n
    return total

fn(torch.randn(4, 3), 5)
""",
)


def test_specializations_print_their_guards_on_the_dynamic_channel(golden_common) -> None:
    """Iterating a tensor and range(len(x)) specialize its symbolic first dim (Eq(s0, 4)),
    `if n` guards Ne(s2, 0) only: each guard is logged where it was added, like a branch's."""
    text = demo.run_example(SPECIALIZATIONS)
    assert "eval Eq(s0, 4) [guard added] at script.py:6 in fn" in text
    assert "L['n'] != 0" in text
    assert text == golden_common


STAYS_SYMBOLIC = Example(
    "stays_symbolic",
    "script.py",
    ("graph_code", "guards"),
    _HEADER
    + """\
@minidynamo.compile(dynamic=True)
def fn(x):
    n = x.shape[0]
    head = x[: n // 2] * float(n)
    return head + x[n - 1] * max(n, 3) + min(n - 1, 6)

fn(torch.randn(8))
""",
)


def test_slice_bounds_min_max_float_and_indices_stay_symbolic() -> None:
    """As in Dynamo's graphs: no value of s0 is guarded on, each becomes a node."""
    text = demo.run_example(STAYS_SYMBOLIC)
    for line in (
        "floordiv = s0 // 2",
        "getitem_1 = l_x_[slice(None, floordiv, None)]",
        "sym_float = torch.sym_float(s0)",
        "sub = s0 - 1",
        "select = torch.select(l_x_, 0, sub)",
        "sym_max = torch.sym_max(s0, 3)",
        "sym_min = torch.sym_min(sub, 6)",  # n - 1 computed once, as in Dynamo's graphs
    ):
        assert f"    {line}\n" in text
    assert "== 8" not in text and "Eq(" not in text


def _marked(n: int, *, min: int | None, max: int | None) -> torch.Tensor:  # noqa: A002
    a = torch.randn(n, 3)
    minidynamo.mark_dynamic(a, 0, min=min, max=max)
    return a


def test_mark_dynamic_bounds_are_guarded_and_enforced() -> None:
    """As Dynamo 2.14: the bounds of `mark_dynamic(min=, max=)` are the symbol's guard;
    a size past them fails it, and its compile raises ConstraintViolationError; sizes
    within them still reuse the graph."""
    fn = minidynamo.compile(double)
    with logs.capture("guards") as guards:
        for n in (3, 5):
            a = _marked(n, min=2, max=10)
            assert torch.equal(fn(a), a * 2)
        with pytest.raises(ConstraintViolationError, match=r"12 not in range \[2, 10\]"):
            fn(_marked(12, min=2, max=10))
        a = _marked(9, min=2, max=10)
        assert torch.equal(fn(a), a * 2)
    assert compiles() == 1
    assert guards[0].endswith("\n2 <= L['a'].size()[0] <= 10")


@pytest.mark.parametrize(
    ("bounds", "guard"),
    [((4, None), "4 <= L['a'].size()[0]"), ((None, 6), "2 <= L['a'].size()[0] <= 6")],
)
def test_mark_dynamic_with_one_bound(bounds: tuple, guard: str) -> None:
    """One bound only (Dynamo 2.14 fails on these with an internal assertion): the other
    side is the default, 2 (0/1 specialization) or unbounded."""
    lower, upper = bounds
    with logs.capture("guards") as guards:
        minidynamo.compile(double)(_marked(5, min=lower, max=upper))
    assert guards[0].endswith("\n" + guard)


def test_mark_dynamic_with_bounds_rejects_size_one() -> None:
    """A bounded mark is strict: 0/1 specialization of the dim violates it (an unbounded
    mark is specialized silently), as in Dynamo 2.14."""
    with pytest.raises(ConstraintViolationError, match=r"L\['a'\]\.size\(\)\[0\]"):
        minidynamo.compile(double)(_marked(1, min=1, max=10))
    a = torch.randn(1, 3)
    minidynamo.mark_dynamic(a, 0)
    assert torch.equal(minidynamo.compile(double)(a), a * 2)


def test_torch_dynamo_mark_dynamic_bounds_are_honoured() -> None:
    import torch._dynamo

    fn = minidynamo.compile(double)
    a = torch.randn(3, 3)
    torch._dynamo.mark_dynamic(a, 0, min=2, max=4)
    with logs.capture("guards") as guards:
        fn(a)
    assert guards[0].endswith("\n2 <= L['a'].size()[0] <= 4")
    b = torch.randn(5, 3)
    torch._dynamo.mark_dynamic(b, 0, min=2, max=4)
    with pytest.raises(ConstraintViolationError, match=r"5 not in range \[2, 4\]"):
        fn(b)
