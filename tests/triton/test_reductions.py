"""Reductions and what fuses around them: sum, mean, max/min, var, softmax, norms."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from minidynamo.backends.triton import codegen, reduction_ops

REDUCTIONS = {
    "sum": lambda x, d: x.sum(d),
    "mean": lambda x, d: x.mean(d),
    "amax": lambda x, d: x.amax(d),
    "amin": lambda x, d: x.amin(d),
    "var": lambda x, d: x.var(d),
    "std": lambda x, d: x.std(d),
    "var_unbiased0": lambda x, d: x.var(d, correction=0),
    "sum_keepdim": lambda x, d: x.sum(d, keepdim=True),
    "mean_keepdim": lambda x, d: x.mean(d, keepdim=True),
    "max_keepdim": lambda x, d: x.amax(d, keepdim=True),
}

DIMS = {"last": -1, "first": 0, "middle": 1, "last_two": (1, 2), "outer_and_inner": (0, 2)}


@pytest.mark.parametrize("dim", sorted(DIMS))
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_over_dims(check, name, dim):
    check(lambda x: REDUCTIONS[name](x, DIMS[dim]), torch.randn(3, 5, 7), kernels=1)


FULL = {
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "max": lambda x: x.max(),
    "min": lambda x: x.min(),
    "var": lambda x: x.var(),
    "prod": lambda x: x.prod(),
    "argmax": lambda x: x.argmax(),
    "argmin": lambda x: x.argmin(),
}


@pytest.mark.parametrize("name", sorted(FULL))
def test_full_reduction(check, name):
    check(FULL[name], torch.randn(6, 11) * 0.5 + 1, kernels=1)


POSITIONS = {
    "argmax": lambda x: x.argmax(1),
    "argmin_keepdim": lambda x: x.argmin(0, keepdim=True),
    "max_dim": lambda x: x.max(1),
    "min_dim_keepdim": lambda x: x.min(-1, keepdim=True),
    "prod_dim": lambda x: x.prod(1),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_values_and_positions(check, name):
    x = torch.randint(-3, 3, (5, 9)).float()  # many ties: the first position wins
    x[2, 4] = float("nan")
    check(POSITIONS[name], x, kernels=1)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float16], ids=str)
def test_positions_of_other_dtypes(check, dtype):
    x = torch.randint(-3, 3, (4, 7)).to(dtype)
    check(lambda t: (t.argmax(1), t.amax(1), t.max(0)), x)


def test_max_of_bools(check):
    check(lambda t: (t.amax(1), t.max(0), t.min()), torch.randn(4, 7) > 0.5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int32, torch.bool],
                         ids=str)
def test_sum_accumulates_like_torch(check, dtype):
    x = (torch.randn(4, 50) * 3).to(dtype)
    check(lambda t: (t.sum(1), t.sum()), x, kernels=2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_precision_mean_and_max(check, dtype):
    check(lambda t: (t.mean(-1), t.amax(0)), torch.randn(8, 24).to(dtype))


def test_any_all(check):
    check(lambda t: (t.any(1), t.all(0), (t > 0).any()), torch.randn(5, 6) > 0.5)


def test_max_propagates_nan(check):
    x = torch.randn(3, 6)
    x[1, 2] = float("nan")
    check(lambda t: (t.amax(1), t.amin(1)), x, kernels=1)


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_softmax(check, dim):
    check(lambda x: torch.softmax(x, dim), torch.randn(4, 9, 10), kernels=1)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_softmax_half(check, dtype):
    check(lambda x: torch.softmax(x, -1), torch.randn(6, 33).to(dtype), kernels=1)


def test_log_softmax(check):
    check(lambda x: F.log_softmax(x, -1), torch.randn(5, 20), kernels=1)


def test_layer_norm(check):
    weight, bias = torch.randn(24), torch.randn(24)
    check(lambda x, w, b: F.layer_norm(x, (24,), w, b), torch.randn(2, 3, 24), weight, bias,
          kernels=1)


def test_layer_norm_without_affine(check):
    check(lambda x: F.layer_norm(x, (5, 6)), torch.randn(3, 5, 6), kernels=1)


def test_rms_norm_by_hand(check):
    def rms_norm(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    check(rms_norm, torch.randn(4, 32), torch.randn(32), kernels=1)


def test_batch_norm_inference(check):
    mean, var = torch.randn(6), torch.rand(6) + 0.5
    weight, bias = torch.randn(6), torch.randn(6)
    check(lambda x: F.batch_norm(x, mean, var, weight, bias, training=False),
          torch.randn(4, 6, 5), kernels=1)


def test_reduction_output_and_its_input_in_one_kernel(check):
    check(lambda x: (x * 2, (x * 2).sum(-1)), torch.randn(7, 13), kernels=1)


def test_mean_of_a_pointwise_prologue(check):
    check(lambda x, y: ((x - y) ** 2).mean(-1), torch.randn(5, 40), torch.randn(40), kernels=1)


def test_reduction_of_a_reduction(check):
    check(lambda x: x.sum(-1).amax(), torch.randn(5, 9), kernels=2)


def test_sizes_one_and_zero(check):
    check(lambda x, y: (x.sum(1), x.mean(0), y.sum(0), y.amax(1)),
          torch.randn(1, 1), torch.randn(0, 4))


@pytest.fixture
def looped(monkeypatch):
    """Rows longer than 16 elements reduce in `for roffset` loops of 8."""
    monkeypatch.setattr(codegen.config, "persistent_reduction_limit", 16)
    monkeypatch.setattr(codegen.config, "looped_rblock", 8)


LOOPED = {**REDUCTIONS, **POSITIONS}


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "var", "max_keepdim", "argmax",
                                  "max_dim", "prod_dim"])
def test_looped_reductions(check, looped, name):
    x = torch.randint(-3, 3, (3, 37)).float()
    x[1, 30] = float("nan")
    compiled = check(lambda t: LOOPED[name](t, -1) if name in REDUCTIONS else LOOPED[name](t),
                     x, kernels=1)
    assert "for roffset in range(0, rnumel, RBLOCK):" in compiled.output_code.source


def test_looped_softmax_has_three_loops(check, looped):
    compiled = check(lambda x: torch.softmax(x, -1), torch.randn(3, 50), kernels=1)
    assert compiled.output_code.source.count("for roffset") == 3


def test_looped_layer_norm(check, looped):
    check(lambda x: F.layer_norm(x, (45,)), torch.randn(2, 45), kernels=1)


@pytest.fixture
def split(monkeypatch):
    """Full reductions of 64 elements or more run as 8 partial rows, then a final row."""
    monkeypatch.setattr(reduction_ops.split_reduction, "min_elements", 64)
    monkeypatch.setattr(reduction_ops.split_reduction, "parts", 8)


SPLIT = {
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "amax_keepdim": lambda x: x.amax((0, 1), keepdim=True),
    "amin_of_transposed": lambda x: x.t().amin(),
    "var": lambda x: x.var(),
    "any": lambda x: (x > 2).any(),
    "int_sum": lambda x: (x * 10).int().sum(),
}


@pytest.mark.parametrize("name", sorted(SPLIT))
def test_split_full_reductions(check, split, name):
    kernels = 4 if name == "var" else 2
    check(SPLIT[name], torch.randn(9, 13), kernels=kernels)
