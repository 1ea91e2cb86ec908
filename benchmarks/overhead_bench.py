"""Warm-call overhead: minidynamo vs torch.compile(backend="eager"), one process, interleaved.

For each function of a corpus (lists of tensors, a large dict, many globals, modules passed
as arguments or read as globals, a compiled nn.Module, mixed guards, a graph break, scalars,
small tensor functions) it times a warm call under eager, torch.compile and
minidynamo.compile, in rounds that interleave the three, and prints per function:

- the warm-call overhead of each compiler (median over rounds of compiled minus eager),
- their ratio ours / torch (lower is better; the issue-15 target is <= 0.5 at the median
  and <= 1.0 everywhere),
- the compile-time ratio (first call after a reset, ours / torch; target <= 0.25).
  Both first calls start with torch's FakeTensor dispatch cache empty, as in a fresh
  process: `torch._dynamo.reset()` clears that process-wide cache, `minidynamo.reset()`
  does not, so the benchmark clears it before our first call too. Cold fake kernels cost
  both compilers the same, and they are most of our compile of a small graph (each
  `addmm` miss runs its Python decomposition: fake dispatch is ~12 ms of mlp_global's
  ~20 ms here, ~14 ms of torch's ~65 ms), which bounds the ratio from below.

The median and the worst overhead ratio come last. Times are this thread's CPU time
(`time.thread_time`), so that a loaded machine's preemptions do not count; ratios only,
as absolute times depend on the machine: raise --rounds until the ratios stop moving.
Run from the repository root:

    PYTHONHASHSEED=0 PYTHONPATH=reference python benchmarks/overhead_bench.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

import minidynamo
import torch
import torch._dynamo
from torch._subclasses.fake_tensor import FakeTensorMode
from tracer_bench import MLP, inlined_calls, mse, unrolled_loop


class Config:
    def __init__(self) -> None:
        self.scale = 3
        self.shift = 0.5


GLOBAL_MLP = MLP()
_TWENTY = [torch.randn(8) for _ in range(20)]
(W0, W1, W2, W3, W4, W5, W6, W7, W8, W9,
 W10, W11, W12, W13, W14, W15, W16, W17, W18, W19) = _TWENTY  # fmt: skip


def list_sum(xs):
    return torch.stack(xs).sum(0)


def dict_sum(d):
    return torch.stack(list(d.values())).sum(0)


def twenty_globals(x):
    a = W0 + W1 + W2 + W3 + W4 + W5 + W6 + W7 + W8 + W9
    b = W10 + W11 + W12 + W13 + W14 + W15 + W16 + W17 + W18 + W19
    return x * a + b


def mlp_argument(model, x):
    return model(x)


def mlp_global(x):
    return GLOBAL_MLP(x).sum()


def mixed_guards(x, n, f, name, flag, nothing, pair, cfg):
    y = x * n + f
    if flag and nothing is None and name == "relu":
        y = torch.relu(y)
    return y * pair[0] + pair[1] * cfg.scale - cfg.shift


def with_graph_break(x):
    y = x.sin() + 1
    torch._dynamo.graph_break()
    return y.cos() * 2


def scalars(x, a, b):
    return x * a + b


def one_op(x):
    return x + 1


@dataclasses.dataclass
class Workload:
    name: str
    fn: Callable  # a function, or an nn.Module compiled as a module
    args: tuple


def workloads() -> list[Workload]:
    x, y = torch.randn(8), torch.randn(8)
    cfg = Config()
    return [
        Workload("list_8", list_sum, ([torch.randn(8) for _ in range(8)],)),
        Workload("list_32", list_sum, ([torch.randn(8) for _ in range(32)],)),
        Workload("dict_40", dict_sum, ({f"k{i}": torch.randn(8) for i in range(40)},)),
        Workload("globals_20", twenty_globals, (x,)),
        Workload("mlp_argument", mlp_argument, (MLP(), torch.randn(4, 16))),
        Workload("mlp_global", mlp_global, (torch.randn(4, 16),)),
        Workload("compiled_module", MLP(), (torch.randn(4, 16),)),
        Workload("mixed_guards", mixed_guards, (x, 2, 1.5, "relu", True, None, (3, y), cfg)),
        Workload("graph_break", with_graph_break, (x,)),
        Workload("scalars", scalars, (x, 3, 0.25)),
        Workload("mse", mse, (x, y)),
        Workload("inlined_calls", inlined_calls, (x,)),
        Workload("unrolled_loop", unrolled_loop, (x,)),
        Workload("one_op", one_op, (x,)),
    ]


def first_call_time(make: Callable[[], Callable], reset: Callable[[], None], args: tuple) -> float:
    """Seconds of a first call (translation, backend, bytecode) after a reset."""
    reset()
    compiled = make()
    start = time.thread_time()
    compiled(*args)
    return time.thread_time() - start


def batch_time(fn: Callable, args: tuple, calls: int) -> float:
    """Seconds per call over `calls` calls."""
    start = time.thread_time()
    for _ in range(calls):
        fn(*args)
    return (time.thread_time() - start) / calls


@dataclasses.dataclass
class Result:
    name: str
    ours_overhead: float
    torch_overhead: float
    ours_compile: float
    torch_compile: float

    @property
    def overhead_ratio(self) -> float | None:
        # Below 0.1 us torch's overhead is timer noise: no ratio.
        return self.ours_overhead / self.torch_overhead if self.torch_overhead > 1e-7 else None

    @property
    def compile_ratio(self) -> float:
        return self.ours_compile / self.torch_compile


def reset_ours() -> None:
    """minidynamo.reset(), and the fake dispatch cache emptied as torch's reset does."""
    minidynamo.reset()
    FakeTensorMode.cache_clear()


def measure(work: Workload, rounds: int, compile_repeat: int, batch_s: float) -> Result:
    def ours() -> Callable:
        return minidynamo.compile(work.fn, backend="eager")

    def theirs() -> Callable:
        return torch.compile(work.fn, backend="eager")

    # Compile times interleaved too, one first call each per repeat.
    ours_compile, torch_compile = [], []
    for _ in range(compile_repeat):
        ours_compile.append(first_call_time(ours, reset_ours, work.args))
        torch_compile.append(first_call_time(theirs, torch._dynamo.reset, work.args))

    minidynamo.reset()
    torch._dynamo.reset()
    variants = {"eager": work.fn, "ours": ours(), "torch": theirs()}
    for fn in variants.values():  # compile, then warm up
        for _ in range(3):
            fn(*work.args)
    calls = max(20, int(batch_s / batch_time(work.fn, work.args, 50)))
    # Per round, each compiled variant minus the eager batch of the same round: load
    # from other processes moves all three alike.
    differences: dict[str, list[float]] = {"ours": [], "torch": []}
    order = list(variants)
    for i in range(rounds):
        rotated = order[i % 3 :] + order[: i % 3]
        times = {name: batch_time(variants[name], work.args, calls) for name in rotated}
        for name in differences:
            differences[name].append(times[name] - times["eager"])
    return Result(
        work.name,
        statistics.median(differences["ours"]),
        statistics.median(differences["torch"]),
        statistics.median(ours_compile),
        statistics.median(torch_compile),
    )


def ratio_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds of batches")
    parser.add_argument("--compile-repeat", type=int, default=3, help="first calls timed")
    parser.add_argument("--batch-ms", type=float, default=4.0, help="eager time per batch")
    parser.add_argument("-k", default="", help="only functions whose name contains this")
    options = parser.parse_args()
    # One intra-op thread: on a shared machine more make the eager times (and with them
    # the differences) jump.
    torch.set_num_threads(1)

    header = f"{'function':<17}{'overhead us (ours / torch)':>28}{'ratio':>8}"
    header += f"{'compile ms (ours / torch)':>30}{'ratio':>8}"
    print(header)
    results = []
    for work in workloads():
        if options.k not in work.name:
            continue
        result = measure(work, options.rounds, options.compile_repeat, options.batch_ms / 1e3)
        results.append(result)
        print(
            f"{result.name:<17}"
            f"{result.ours_overhead * 1e6:>14.2f} / {result.torch_overhead * 1e6:<11.2f}"
            f"{ratio_text(result.overhead_ratio):>8}"
            f"{result.ours_compile * 1e3:>16.1f} / {result.torch_compile * 1e3:<11.1f}"
            f"{result.compile_ratio:>8.2f}",
            flush=True,
        )
    overhead = [r.overhead_ratio for r in results if r.overhead_ratio is not None]
    compile_ratios = [r.compile_ratio for r in results]
    if overhead:
        worst = max(results, key=lambda r: r.overhead_ratio or 0.0)
        print(
            f"overhead ratio: median {statistics.median(overhead):.2f}, "
            f"worst {max(overhead):.2f} ({worst.name})"
        )
    if compile_ratios:
        print(
            f"compile ratio: median {statistics.median(compile_ratios):.2f}, "
            f"worst {max(compile_ratios):.2f}"
        )


if __name__ == "__main__":
    main()
