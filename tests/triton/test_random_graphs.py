"""Differential property test: random graphs of fusable ops must equal eager, op for op."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from minidynamo.backends.triton import codegen

# Every op keeps the shape of its first operand, so any two values can meet.
OPS = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "sub_scalar": lambda x, y: 0.5 - x,
    "maximum": torch.maximum,
    "where": lambda x, y: torch.where(x > y, x, y * 2),
    "sigmoid": lambda x, y: torch.sigmoid(x),
    "tanh": lambda x, y: torch.tanh(x),
    "abs": lambda x, y: x.abs(),
    "flip": lambda x, y: x.flip(0),
    "rotate": lambda x, y: torch.cat([x[1:], x[:1]]),
    "flat_flip": lambda x, y: x.reshape(-1).flip(0).reshape(x.shape),
    "center": lambda x, y: x - x.mean(-1, keepdim=True),
    "scale_by_max": lambda x, y: x / (x.abs().amax(0, keepdim=True) + 1),
    "softmax": lambda x, y: torch.softmax(x, -1),
    "normalize": lambda x, y: x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + 1),
    "pad_crop": lambda x, y: torch.nn.functional.pad(x, (1, 0))[..., :-1],
    "argmax_pick": lambda x, y: torch.where(x.argmax(-1, keepdim=True) > 0, x, y),
}

SHAPES = [(3, 5), (4, 1, 6), (7,), (2, 3, 4), (1, 9)]


@pytest.mark.parametrize("reductions", ["persistent", "looped"])
# Derandomized: every run (and CI) tries the same examples, so a failure is a regression;
# for a wider search, run locally with derandomize=False.
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shape=st.sampled_from(SHAPES),
    steps=st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 63)),
                   min_size=1, max_size=7),
    seed=st.integers(0, 2**16),
)
# Found by the search: a padded column read a shifted index that is negative only in the
# masked-off lanes, and a later flip could not divide it.
@example(shape=(3, 5), steps=[("abs", 0), ("abs", 0), ("flat_flip", 0), ("flip", 24),
                              ("pad_crop", 41)], seed=0)
def test_random_graphs_match_eager(check, monkeypatch, reductions, shape, steps, seed):
    if reductions == "looped":
        monkeypatch.setattr(codegen.config, "persistent_reduction_limit", 2)
        monkeypatch.setattr(codegen.config, "looped_rblock", 2)

    def program(a, b):
        values = [a, b]
        for name, pick in steps:
            x, y = values[pick % len(values)], values[(pick // 8) % len(values)]
            values.append(OPS[name](x, y))
        return values[-1], values[len(values) // 2]

    generator = torch.Generator().manual_seed(seed)
    a, b = (torch.rand(shape, generator=generator) * 2 - 1 for _ in range(2))
    check(program, a, b)
