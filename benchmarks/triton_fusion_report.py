"""Kernel counts: minidynamo's Triton backend against Inductor, graph by graph, on the CPU.

The graphs are the ones tests/triton checks for correctness (their tables are imported
from the test modules) plus a few model blocks. Ours: kernels launched per call
(`CompiledGraph.kernel_count`, summed over the graphs torch.compile hands the backend),
with kernels run by Triton's interpreter. Inductor: `torch._inductor.metrics
.generated_kernel_count` for its CPU (C++) backend, where one kernel is one fused loop
nest. Prints a table, then every graph where we launch more kernels than Inductor makes.

    TRITON_INTERPRET=1 PYTHONPATH=reference python benchmarks/triton_fusion_report.py
    ... --filter softmax      only graphs whose name contains "softmax"
    ... --no-inductor         our counts only (fast)
    ... --verbose             also log our output code
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from minidynamo.backends.triton import CompiledGraph, triton_backend  # noqa: E402

TESTS = Path(__file__).resolve().parent.parent / "tests" / "triton"

# Where we launch more kernels than Inductor's CPU backend, and why.
KNOWN_DIFFERENCES = {
    "block/sum_of_a_million": "a full reduction this large is split in two kernels, so that "
    "many GPU programs share it (Inductor's GPU backend splits too; its CPU backend runs one "
    "OpenMP loop)",
}
Case = tuple[str, Callable[..., object], tuple[torch.Tensor, ...]]


def _test_module(name: str):
    spec = importlib.util.spec_from_file_location(f"triton_tests_{name}", TESTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def suite() -> Iterator[Case]:
    pointwise = _test_module("test_pointwise")
    reductions = _test_module("test_reductions")
    views = _test_module("test_views")
    models = _test_module("test_models")
    for name, (fn, make) in sorted(pointwise.UNARY.items()):
        yield f"unary/{name}", fn, (make(5, 37),)
    for name, fn in sorted(pointwise.BINARY.items()):
        yield f"binary/{name}", fn, (torch.randn(4, 1, 9), torch.randn(3, 1) + 0.5)
    for name, fn in sorted(pointwise.INTEGER_BINARY.items()):
        yield f"integer/{name}", fn, (pointwise.ints(6, 7), pointwise.nonzero_ints(7))
    for name, reduce in sorted(reductions.REDUCTIONS.items()):
        for dim_name, dim in sorted(reductions.DIMS.items()):
            yield (
                f"reduction/{name}/{dim_name}",
                lambda x, r=reduce, d=dim: r(x, d),
                (torch.randn(3, 5, 7),),
            )
    for name, fn in sorted(reductions.FULL.items()):
        yield f"reduction/full/{name}", fn, (torch.randn(6, 11),)
    for name, fn in sorted(reductions.POSITIONS.items()):
        yield f"reduction/position/{name}", fn, (torch.randn(5, 9),)
    for name, fn in sorted(views.VIEWS.items()):
        yield f"view/{name}", fn, (torch.randn(4, 6),)
    for name, fn in sorted(views.CATS.items()):
        yield f"cat/{name}", fn, (torch.randn(3, 3), torch.randn(3, 3))
    yield from _blocks(models)


def _blocks(models) -> Iterator[Case]:
    model = models.MLP().eval()
    transformer, classifier = models.TransformerBlock().eval(), models.Classifier().eval()
    blocks: list[Case] = [
        ("block/softmax", lambda x: torch.softmax(x, -1), (torch.randn(8, 100),)),
        ("block/log_softmax", lambda x: F.log_softmax(x, -1), (torch.randn(8, 100),)),
        (
            "block/layer_norm",
            lambda x, w, b: F.layer_norm(x, (64,), w, b),
            (torch.randn(4, 64), torch.randn(64), torch.randn(64)),
        ),
        ("block/gelu_bias", lambda x, b: F.gelu(x + b), (torch.randn(8, 32), torch.randn(32))),
        (
            "block/scale_bias_relu",
            lambda x, s, b: torch.relu(x * s + b),
            (torch.randn(8, 16), torch.randn(16), torch.randn(16)),
        ),
        ("block/mlp", lambda x: model(x), (torch.randn(2, 5, 16),)),
        ("block/pad", lambda x: F.pad(x, (1, 2, 0, 3), value=-1.5) * 2, (torch.randn(2, 4, 5),)),
        ("block/sum_of_a_million", lambda x: x.sum(), (torch.randn(1024, 1024),)),
        (
            "block/attention",
            lambda q, k, v: torch.softmax(q @ k.transpose(-1, -2) / 4, -1) @ v,
            tuple(torch.randn(2, 6, 16) for _ in range(3)),
        ),
        ("block/transformer", lambda x: transformer(x), (torch.randn(2, 8, 32),)),
        ("block/conv_classifier", lambda x: classifier(x), (torch.randn(2, 3, 8, 8),)),
    ]
    yield from blocks


def our_kernels(fn: Callable[..., object], inputs: tuple[torch.Tensor, ...]) -> int:
    compiled: list[CompiledGraph] = []

    def backend(gm, example_inputs):
        compiled.append(triton_backend(gm, example_inputs))
        return compiled[-1]

    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(fn, backend=backend)(*inputs)
    if any(c.kernel_count is None for c in compiled):
        raise RuntimeError("; ".join(c.fallback_reason or "" for c in compiled))
    return sum(c.kernel_count or 0 for c in compiled)


def inductor_kernels(fn: Callable[..., object], inputs: tuple[torch.Tensor, ...]) -> int:
    from torch._inductor import metrics

    torch._dynamo.reset()
    metrics.reset()
    with torch.no_grad():
        torch.compile(fn, backend="inductor")(*inputs)
    return metrics.generated_kernel_count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="")
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print our output code too")
    options = parser.parse_args()
    if not options.verbose:
        logging.getLogger("minidynamo.output_code").setLevel(logging.WARNING)
    torch.manual_seed(0)
    rows = []
    print(f"{'graph':42} {'ours':>5} {'inductor':>9}")
    for name, fn, inputs in suite():
        if options.filter not in name:
            continue
        ours = _measure(our_kernels, fn, inputs)
        theirs = "-" if options.no_inductor else _measure(inductor_kernels, fn, inputs)
        rows.append((name, ours, theirs))
        print(f"{name:42} {ours!s:>5} {theirs!s:>9}", flush=True)
    _summary(rows)
    return 0


def _measure(count: Callable[..., int], fn, inputs) -> int | str:
    try:
        return count(fn, inputs)
    except Exception as error:  # noqa: BLE001  (a report row, not a crash)
        return f"n/a ({type(error).__name__})"


def _summary(rows: list[tuple[str, object, object]]) -> None:
    compared = [(n, o, t) for n, o, t in rows if isinstance(o, int) and isinstance(t, int)]
    more = [(n, o, t) for n, o, t in compared if o > t]
    fewer = [(n, o, t) for n, o, t in compared if o < t]
    print(
        f"\n{len(rows)} graphs; compared with Inductor: {len(compared)}; "
        f"ours <= Inductor: {len(compared) - len(more)}; ours < Inductor: {len(fewer)}; "
        f"kernels ours {sum(o for _, o, _ in compared)} vs "
        f"Inductor {sum(t for _, _, t in compared)}"
    )
    for name, ours, theirs in more:
        why = KNOWN_DIFFERENCES.get(name, "unexplained")
        print(f"  more kernels than Inductor: {name}: {ours} > {theirs}: {why}")
    for name, ours, theirs in rows:
        if str(ours).startswith("n/a") or str(theirs).startswith("n/a"):
            print(f"  not measured: {name}: ours={ours} inductor={theirs}")


if __name__ == "__main__":
    sys.exit(main())
