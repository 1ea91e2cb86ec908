"""Memory of the frame cache (issue 12): compile and drop 10,000 fresh functions (each
with its own code object and globals), then make 100,000 warm calls of one compiled
function (guards checked, cache hit), and print the process's resident memory after each
round, with the rows left in convert_frame's and resume's tables (tests/frame_policy
counts the rows; RSS lives here, never in a test). Run from the repository root:

    PYTHONPATH=reference python benchmarks/code_cache.py [--n 10000] [--calls 100000]
"""

from __future__ import annotations

import argparse
import gc
import os

import minidynamo
import torch
from minidynamo import convert_frame

# One graph for every function (a new code object each, in its own file): a constant of
# its own per function would grow torch's FakeTensorMode dispatch cache, one entry per
# distinct scalar, which measures torch rather than the frame cache.
SOURCE = "def fn_{i}(x, n):\n    return x * n + 1\n"


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def compile_and_drop(count: int, x: torch.Tensor) -> None:
    for i in range(count):
        namespace: dict = {}
        exec(compile(SOURCE.format(i=i), f"<bench-{i}>", "exec"), namespace)
        minidynamo.compile(namespace[f"fn_{i}"])(x, 2)
    gc.collect()


def warm_calls(fn: object, count: int, x: torch.Tensor) -> None:
    for _ in range(count):
        fn(x, 2)
    gc.collect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="functions per round")
    parser.add_argument("--calls", type=int, default=100_000, help="warm calls per round")
    options = parser.parse_args()
    x = torch.randn(3)
    compile_and_drop(100, x)  # warm-up: torch's own frames, allocator pools
    print(f"after warm-up: {rss_mib():8.1f} MiB, {convert_frame.table_rows()} rows")
    for round_ in range(2):
        compile_and_drop(options.n, x)
        rows = convert_frame.table_rows()
        print(f"after round {round_ + 1}: {rss_mib():8.1f} MiB, {rows} rows")
    fn = minidynamo.compile(lambda x, n: x * n + 1)
    warm_calls(fn, 1_000, x)
    print(f"warm calls, warm-up: {rss_mib():8.1f} MiB")
    for round_ in range(2):
        warm_calls(fn, options.calls, x)
        print(f"after {options.calls} warm calls ({round_ + 1}): {rss_mib():8.1f} MiB")


if __name__ == "__main__":
    main()
