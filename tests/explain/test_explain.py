"""`minidynamo.explain` against torch._dynamo.explain (the oracle) on the seed's examples
and a few more: the same graph, break and op counts."""

from __future__ import annotations

import minidynamo
import pytest
import torch


def mse(x, y):
    z = (x - y) ** 2
    return z.sum()


def specialize(x, n):
    y = x**2
    if n >= 0:
        return (n + 1) * y
    return y / n


def print_break(a):
    b = a + 2
    print("Hi")
    return b + a


def two_breaks(a):
    b = a.sin()
    print("one")
    c = b.cos()
    print("two")
    return c + 1


def tensor_branch(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


PROGRAMS = {
    "mse": (mse, lambda: (torch.randn(200), torch.randn(200))),
    "specialize": (specialize, lambda: (torch.randn(200), 2)),
    "print_break": (print_break, lambda: (torch.randn(4),)),
    "two_breaks": (two_breaks, lambda: (torch.randn(4),)),
    "tensor_branch": (tensor_branch, lambda: (torch.ones(3),)),
    "module": (
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU()),
        lambda: (torch.randn(2, 3),),
    ),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_counts_equal_dynamo(name: str) -> None:
    fn, make_args = PROGRAMS[name]
    ours = minidynamo.explain(fn)(*make_args())
    import torch._dynamo  # the oracle

    theirs = torch._dynamo.explain(fn)(*make_args())
    assert ours.graph_count == theirs.graph_count
    assert ours.graph_break_count == theirs.graph_break_count
    assert ours.op_count == theirs.op_count
    assert len(ours.break_reasons) == len(theirs.break_reasons)


def test_report_text() -> None:
    out = minidynamo.explain(print_break)(torch.randn(4))
    text = str(out)
    assert text.startswith("Graph Count: 2\nGraph Break Count: 1\nOp Count: 2\nBreak Reasons:\n")
    assert "Reason: call to builtin print() [GB0002]" in text
    assert "test_explain.py:" in text and 'print("Hi")' in text
    assert "Ops 1:\n    _operator.add\n  Ops 2:\n    _operator.add\n" in text
    assert "check_tensor(L['a'], torch.float32" in text
    assert [name for name, _ in out.compile_times] == ["print_break", "resume_in_print_break"]
    assert str(out.break_reasons[0]).startswith("call to builtin print() [GB0002] at ")


def test_cache_is_clean_after() -> None:
    from minidynamo import convert_frame

    minidynamo.explain(mse)(torch.randn(3), torch.randn(3))
    assert convert_frame.counters["frames_compiled"] == 0
