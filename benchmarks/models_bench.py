"""Side by side on the real models of tests/models/model_zoo.py: minidynamo vs
torch.compile(backend="eager"), in one run. Per model it prints the graphs and their op
counts of each, the first-call (compile) time of each and the ratio minidynamo / torch.
Ratios only: absolute times depend on the machine. Run from the repository root:

    PYTHONPATH=reference python benchmarks/models_bench.py [resnet18 gpt2 ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import minidynamo
import torch
import torch._dynamo

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "models"))
from model_zoo import MODELS, CountingBackend, build  # noqa: E402


def first_call(compile_fn, name: str) -> tuple[list[int], float]:
    model = build(name).eval()
    torch.manual_seed(2)
    x = MODELS[name].inputs(2)
    backend = CountingBackend()
    compiled = compile_fn(model, backend)
    start = time.perf_counter()
    with torch.no_grad():
        compiled(*x)
    return backend.ops, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*", default=list(MODELS))
    names = parser.parse_args().models
    print(f"{'model':16} {'minidynamo ops':24} {'torch.compile ops':24} {'ours s':>7} "
          f"{'torch s':>7} {'ratio':>6}")  # fmt: skip
    for name in names:
        minidynamo.reset()
        ours, ours_s = first_call(lambda m, b: minidynamo.compile(m, backend=b), name)
        torch._dynamo.reset()
        theirs, theirs_s = first_call(lambda m, b: torch.compile(m, backend=b), name)
        print(f"{name:16} {str(ours):24} {str(theirs):24} {ours_s:7.2f} {theirs_s:7.2f} "
              f"{ours_s / theirs_s:6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
