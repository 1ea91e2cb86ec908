"""The seed's symbolic shapes examples, in its text formats (section "符号形状"): guards,
graph_sizes and the `dynamic` log line."""

from __future__ import annotations

import logging

from shapes_harness import Frame, randn, seed_branch, seed_int, seed_mul


def transcript(frame: Frame, calls: list[dict]) -> str:
    """Per call: which entry serves it and, for a new one, its guards and graph sizes."""
    lines = []
    for number, inputs in enumerate(calls, 1):
        args = ", ".join(f"{k}={_describe(v)}" for k, v in inputs.items())
        known = len(frame.entries)
        entry = frame(**inputs)
        index = frame.entries.index(entry)
        if index < known:
            lines.append(f"# call {number}: fn({args}) hits entry {index}")
            continue
        lines.append(f"# call {number}: fn({args}) compiles entry {index}")
        lines += entry.guards
        lines.append(entry.graph_sizes(f"__compiled_fn_{index}"))
    return "\n".join(lines) + "\n"


def _describe(value: object) -> str:
    if hasattr(value, "shape"):
        return f"randn{tuple(value.shape)}"
    return repr(value)


def test_seed_shape_guards_first_and_second_call():
    frame = Frame(seed_mul)
    first = frame(a=randn(4, 3), b=randn(4, 3))
    assert first.guards == [
        "check_tensor(L['a'], torch.float32, device=cpu, requires_grad=False, "
        "size=[4, 3], stride=[3, 1])",
        "check_tensor(L['b'], torch.float32, device=cpu, requires_grad=False, "
        "size=[4, 3], stride=[3, 1])",
    ]
    second = frame(a=randn(8, 3), b=randn(8, 3))
    assert second.guards == [
        "check_tensor(L['a'], torch.float32, device=cpu, requires_grad=False, "
        "size=[None, 3], stride=[3, 1])",
        "check_tensor(L['b'], torch.float32, device=cpu, requires_grad=False, "
        "size=[None, 3], stride=[3, 1])",
        "L['b'].size()[0] == L['a'].size()[0]",
        "2 <= L['a'].size()[0]",
    ]


def test_seed_second_graph_takes_s0_before_l_a_():
    frame = Frame(seed_mul)
    frame(a=randn(4, 3), b=randn(4, 3))
    second = frame(a=randn(8, 3), b=randn(8, 3))
    (s0,) = second.symbol_inputs
    assert (s0.name, str(s0.value), s0.hint, s0.source.name) == ("s0", "s0", 8, "L['a'].size()[0]")


def test_seed_graph_sizes():
    frame = Frame(seed_mul)
    frame(a=randn(4, 3), b=randn(4, 3))
    second = frame(a=randn(8, 3), b=randn(8, 3))
    assert second.graph_sizes("__compiled_fn_1") == (
        "TRACED GRAPH TENSOR SIZES\n"
        "===== __compiled_fn_1 =====\n"
        "l_a_: (s0, 3)\n"
        "l_a_ (concrete): (8, 3)\n"
        "l_b_: (s0, 3)\n"
        "l_b_ (concrete): (8, 3)\n"
        "mul: (s0, 3)\n"
        "mul (concrete): (8, 3)\n"
        "mul_1: (s0, 3)\n"
        "mul_1 (concrete): (8, 3)"
    )


def test_seed_guard_on_a_symbolic_branch(caplog):
    log = logging.getLogger("test_shapes.dynamic")
    with caplog.at_level(logging.DEBUG, logger=log.name):
        entry = Frame(seed_branch, dynamic=True, log=log)(a=randn(8))
    assert "2*L['a'].size()[0] >= 16" in entry.shape_guards
    assert caplog.messages[-1] == "eval 2*s0 >= 16 [guard added] at script.py:5 in fn"


def test_seed_shapes_transcript(golden_common):
    frame = Frame(seed_mul)
    calls = [{"a": randn(n, 3), "b": randn(n, 3)} for n in (4, 8, 16, 32)]
    assert transcript(frame, calls) == golden_common


def test_seed_ints_transcript(golden_common):
    frame = Frame(seed_int)
    x = randn(200)
    calls = [{"x": x, "n": n} for n in (2, 3, -2, 4)]
    assert transcript(frame, calls) == golden_common


def test_seed_branch_transcript(golden_common):
    frame = Frame(seed_branch, dynamic=True)
    calls = [{"a": randn(n)} for n in (8, 20, 7, 2, 1)]
    assert transcript(frame, calls) == golden_common
