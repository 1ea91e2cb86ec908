"""Programs found by the differential fuzzer (tests/fuzz), one per class of bug fixed.

Each case is the shrunk program the fuzzer printed, made readable; the fuzzer keeps
looking for new ones (benchmarks/fuzz.py for long campaigns).
"""

import torch

from conformance.spec import Call, Expect, Make, T, case, one_graph


# Code generated at run time (exec, templates) under a `<...>` file name is user code:
# Dynamo traces it; only FX's `<eval_with_key>` code and frozen modules are library.
def _generate(source: str, name: str):
    namespace = {"torch": torch}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace[name]


scaled = _generate("def scaled(t, n):\n    return torch.sin(t) * n\n", "scaled")


@case(
    tags=["calls", "inlining"],
    calls=[Call(T(3), 2), Call(T(3), 2)],
    expect=Expect(frames=1, graphs=1, ops=[["torch.sin", "mul", "add"]]),
)
def exec_generated_helper_is_inlined(x, n):
    """A helper made by exec() under the file name `<generated>` is inlined into the
    graph like any user function."""
    return scaled(x, n) + 1


class Buffered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.ones(3))


@case(
    tags=["nn-module", "side-effects"],
    calls=[Call(T(3), Make(Buffered)), Call(T(3), Make(Buffered))],
    expect=one_graph("add", "mul"),
)
def module_buffer_read_after_store(x, box):
    """`box.w = ...` replaces an nn.Module's buffer (Module.__setattr__ files it in
    `_buffers`); the trace then reads back the value it stored, not the old buffer."""
    box.w = box.w + x
    return box.w * 2


class Box:
    """A plain object whose attributes the program sets."""


@case(
    tags=["graph-breaks", "side-effects"],
    calls=[Call(T(2), T(2), T(2))],
    expect=Expect(frames=2, graphs=1),
)
def locals_swapped_before_break(x, a, b):
    """Both locals are reloaded from the frame after the break: `a` must be read before
    `b`'s store changes it (each value is rebuilt before any local is stored)."""
    a, b = b, a
    print("break")
    return a - b + x


@case(
    tags=["graph-breaks", "side-effects", "dynamic-shapes"],
    calls=[Call(T(2), 1, Make(Box)), Call(T(2), 2, Make(Box)), Call(T(2), 3, Make(Box))],
    expect=Expect(outcome="returns"),
)
def attribute_stored_then_local_rebound(x, k, box):
    """The replayed `box.extra = n` stores the value `n` had then (the SymInt input),
    not the value the rebound local holds after the graph."""
    n = k
    print("n", n)
    box.extra = n
    n = n + x.size(0)
    print("n", n)
    return box
