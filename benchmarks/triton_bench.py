"""Memory bandwidth of memory-bound graphs: eager, torch.compile (Inductor), minidynamo's Triton.

For a fixed suite (pointwise chains, softmax, layer norm, reductions over large tensors),
prints the GB/s each achieves, counting the bytes the graph must move at least (every
input read once, every output written once) over the median time of
`triton.testing.do_bench`, and that as a fraction of the device's peak bandwidth (memory
clock x bus width). Each of our results is also compared with eager's.

    PYTHONPATH=reference python benchmarks/triton_bench.py            needs a CUDA GPU
    PYTHONPATH=reference python benchmarks/triton_bench.py --smoke    tiny sizes on the CPU,
        through Triton's interpreter: checks this script, its timings mean nothing

Without a GPU (and without --smoke) it says so and exits 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.utils import _pytree as pytree


@dataclass
class Case:
    name: str
    fn: Callable[..., object]
    make_inputs: Callable[[int, str], tuple[torch.Tensor, ...]]


def _randn(*sizes: int, scale: int, device: str, dtype=torch.float32) -> torch.Tensor:
    return torch.randn(*[max(s // scale, 1) for s in sizes], device=device, dtype=dtype)


def suite() -> list[Case]:
    half = torch.float16
    return [
        Case(
            "relu(x*s+b) f32 [16384, 4096]",
            lambda x, s, b: torch.relu(x * s + b),
            lambda k, d: (
                _randn(16384, 4096, scale=k, device=d),
                _randn(4096, scale=k, device=d),
                _randn(4096, scale=k, device=d),
            ),
        ),
        Case(
            "gelu(x)*y+z f16 [8192, 8192]",
            lambda x, y, z: F.gelu(x) * y + z,
            lambda k, d: tuple(_randn(8192, 8192, scale=k, device=d, dtype=half) for _ in range(3)),
        ),
        Case(
            "softmax f32 [32768, 1024]",
            lambda x: torch.softmax(x, -1),
            lambda k, d: (_randn(32768, 1024, scale=k, device=d),),
        ),
        Case(
            "softmax f32 [4096, 16384]",
            lambda x: torch.softmax(x, -1),
            lambda k, d: (_randn(4096, 16384, scale=k, device=d),),
        ),
        Case(
            "layer_norm f16 [16384, 4096]",
            lambda x, w, b: F.layer_norm(x, x.shape[-1:], w, b),
            lambda k, d: (
                _randn(16384, 4096, scale=k, device=d, dtype=half),
                _randn(4096, scale=k, device=d, dtype=half),
                _randn(4096, scale=k, device=d, dtype=half),
            ),
        ),
        Case(
            "sum(-1) f32 [16384, 8192]",
            lambda x: x.sum(-1),
            lambda k, d: (_randn(16384, 8192, scale=k, device=d),),
        ),
        Case(
            "sum(0) f32 [8192, 16384]",
            lambda x: x.sum(0),
            lambda k, d: (_randn(8192, 16384, scale=k, device=d),),
        ),
        Case(
            "var_mean(-1) f32 [16384, 4096]",
            lambda x: torch.var_mean(x, -1),
            lambda k, d: (_randn(16384, 4096, scale=k, device=d),),
        ),
        Case(
            "sum() f32 [2**26]",
            lambda x: x.sum(),
            lambda k, d: (_randn(2**26, scale=k * k, device=d),),
        ),
    ]


def moved_bytes(inputs: tuple[torch.Tensor, ...], outputs: object) -> int:
    tensors = list(inputs) + [t for t in pytree.tree_leaves(outputs) if isinstance(t, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in tensors)


def peak_gbps() -> float:
    props = torch.cuda.get_device_properties(0)
    # memory_clock_rate is in kHz; double data rate; bus width in bits.
    return 2 * props.memory_clock_rate * 1e3 * props.memory_bus_width / 8 / 1e9


def timer(smoke: bool) -> Callable[[Callable[[], object]], float]:
    """Median milliseconds of one call."""
    if not smoke:
        from triton.testing import do_bench

        return lambda fn: do_bench(fn, warmup=25, rep=100, return_mode="median")

    def cpu_median(fn: Callable[[], object]) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times)

    return cpu_median


def run_case(case: Case, smoke: bool, bench: Callable, peak: float | None) -> str:
    from minidynamo.backends.triton import triton_backend

    inputs = case.make_inputs(64 if smoke else 1, "cpu" if smoke else "cuda")
    torch._dynamo.reset()
    eager_out = case.fn(*inputs)
    inductor = torch.compile(case.fn)
    ours_graphs = []

    def backend(gm, example_inputs):
        ours_graphs.append(triton_backend(gm, example_inputs))
        return ours_graphs[-1]

    ours = torch.compile(case.fn, backend=backend)
    correct = _matches(ours(*inputs), eager_out)
    inductor(*inputs)  # compile outside the timed calls
    size = moved_bytes(inputs, eager_out)
    cells = []
    for fn in (case.fn, inductor, ours):
        ms = bench(lambda f=fn: f(*inputs))
        gbps = size / ms / 1e6
        cells.append(f"{gbps:9.1f}" + (f" ({gbps / peak:4.0%})" if peak else ""))
    kernels = sum(g.kernel_count or 0 for g in ours_graphs)
    return f"{case.name:32} {' '.join(cells)}  {kernels:>3}  {'ok' if correct else 'MISMATCH'}"


def _matches(actual: object, expected: object) -> bool:
    pairs = zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected), strict=True)
    return all(torch.allclose(a.float(), e.float(), rtol=2e-2, atol=2e-2) for a, e in pairs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes on the CPU")
    parser.add_argument("--verbose", action="store_true", help="also log our output code")
    options = parser.parse_args()
    if not options.verbose:
        logging.getLogger("minidynamo.output_code").setLevel(logging.WARNING)
    if options.smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
    elif not torch.cuda.is_available():
        print(
            "No CUDA GPU here: nothing to measure (this benchmark needs one; "
            "--smoke checks the script on the CPU)."
        )
        return 0
    elif os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        print("TRITON_INTERPRET is set: kernels would run in the interpreter; unset it.")
        return 0
    peak = None if options.smoke else peak_gbps()
    device = (
        "cpu (smoke run: timings mean nothing)"
        if options.smoke
        else (f"{torch.cuda.get_device_name(0)}, peak {peak:.0f} GB/s (memory clock x bus width)")
    )
    print(f"device: {device}")
    print(
        f"{'graph':32} {'eager GB/s':>16} {'inductor GB/s':>16} {'ours GB/s':>16}  "
        f"{'krn':>3}  check"
    )
    bench = timer(options.smoke)
    with torch.no_grad():
        for case in suite():
            print(run_case(case, options.smoke, bench, peak), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
