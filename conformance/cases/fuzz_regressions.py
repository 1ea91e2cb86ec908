"""Programs found by the differential fuzzer (tests/fuzz), one per class of bug fixed.

Each case is the shrunk program the fuzzer printed, made readable; the fuzzer keeps
looking for new ones (benchmarks/fuzz.py for long campaigns).
"""

import torch

from conformance.spec import Call, Expect, T, case


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
