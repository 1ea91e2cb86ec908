"""Side by side: minidynamo vs torch.compile(backend="eager") on the same functions.

For each function it prints the per-frame compile time (first call) and the warm-call
overhead (a cached call minus the eager call), and their ratios minidynamo / torch.
Ratios only: absolute times depend on the machine. Run from the repository root:

    PYTHONPATH=reference python benchmarks/tracer_bench.py [--repeat 5] [--calls 2000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import minidynamo
import torch
import torch._dynamo


def mse(x, y):
    z = (x - y) ** 2
    return z.sum()


def specialize(x, n):
    y = x**2
    if n >= 0:
        return (n + 1) * y
    return y / n


def helper(a, k=2):
    return a * k + 1


def inlined_calls(x):
    return helper(helper(x), k=3).relu()


def unrolled_loop(x):
    for i in range(8):
        x = x * 0.5 + i
    return x


class MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin1 = torch.nn.Linear(16, 32)
        self.lin2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.lin2(torch.relu(self.lin1(x)))


def workloads() -> list[tuple[str, Callable, tuple]]:
    x, y = torch.randn(64), torch.randn(64)
    return [
        ("mse", mse, (x, y)),
        ("specialize", specialize, (x, 2)),
        ("inlined_calls", inlined_calls, (x,)),
        ("unrolled_loop", unrolled_loop, (x,)),
        ("mlp_module", MLP(), (torch.randn(8, 16),)),
    ]


def compile_time(
    make: Callable[[], Callable], reset: Callable[[], None], args: tuple, repeat: int
) -> float:
    """Median seconds of a first call (translation, backend, bytecode) after a reset."""
    times = []
    for _ in range(repeat):
        reset()
        compiled = make()
        start = time.perf_counter()
        compiled(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def call_time(fn: Callable, args: tuple, calls: int) -> float:
    """Median seconds per call over a few batches of `calls` calls."""
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        batches.append((time.perf_counter() - start) / calls)
    return statistics.median(batches)


def ratio(ours: float, theirs: float) -> str:
    """ours / theirs; "n/a" when the reference is within timer noise of zero."""
    return f"{ours / theirs:.2f}" if theirs > 1e-7 else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="first calls timed per function")
    parser.add_argument("--calls", type=int, default=1000, help="warm calls per batch")
    options = parser.parse_args()

    header = f"{'function':<15}{'compile ms (ours/torch)':>28}{'ratio':>8}"
    header += f"{'warm overhead us (ours/torch)':>34}{'ratio':>8}"
    print(header)
    for name, fn, args in workloads():
        ours = lambda fn=fn: minidynamo.compile(fn)  # noqa: E731
        theirs = lambda fn=fn: torch.compile(fn, backend="eager")  # noqa: E731
        ours_compile = compile_time(ours, minidynamo.reset, args, options.repeat)
        theirs_compile = compile_time(theirs, torch._dynamo.reset, args, options.repeat)

        minidynamo.reset()
        torch._dynamo.reset()
        ours_fn, theirs_fn = ours(), theirs()
        ours_fn(*args)
        theirs_fn(*args)
        eager = call_time(fn, args, options.calls)
        ours_overhead = call_time(ours_fn, args, options.calls) - eager
        theirs_overhead = call_time(theirs_fn, args, options.calls) - eager

        print(
            f"{name:<15}{ours_compile * 1e3:>14.1f} / {theirs_compile * 1e3:<11.1f}"
            f"{ratio(ours_compile, theirs_compile):>8}"
            f"{ours_overhead * 1e6:>17.1f} / {theirs_overhead * 1e6:<14.1f}"
            f"{ratio(ours_overhead, theirs_overhead):>8}"
        )


if __name__ == "__main__":
    main()
