"""Pointwise graphs: each op, dtypes, type promotion and broadcasting, against eager."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F


def randn(*sizes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*sizes).to(dtype)


def positive(*sizes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return (torch.rand(*sizes) + 0.1).to(dtype)


def ints(*sizes: int, dtype: torch.dtype = torch.int32, low: int = -20, high: int = 20):
    return torch.randint(low, high, sizes, dtype=dtype)


def nonzero_ints(*sizes: int, dtype: torch.dtype = torch.int32) -> torch.Tensor:
    values = ints(*sizes, dtype=dtype, low=1, high=9)
    return values * torch.where(torch.rand(sizes) < 0.5, -1, 1).to(dtype)


UNARY = {
    "abs": (torch.abs, randn),
    "neg": (torch.neg, randn),
    "exp": (torch.exp, randn),
    "exp2": (torch.exp2, randn),
    "expm1": (torch.expm1, randn),
    "log": (torch.log, positive),
    "log2": (torch.log2, positive),
    "log10": (torch.log10, positive),
    "log1p": (torch.log1p, positive),
    "sqrt": (torch.sqrt, positive),
    "rsqrt": (torch.rsqrt, positive),
    "reciprocal": (torch.reciprocal, positive),
    "sin": (torch.sin, randn),
    "cos": (torch.cos, randn),
    "tan": (torch.tan, randn),
    "tanh": (torch.tanh, randn),
    "sigmoid": (torch.sigmoid, randn),
    "erf": (torch.erf, randn),
    "relu": (torch.relu, randn),
    "sign": (torch.sign, randn),
    "floor": (torch.floor, lambda *s: randn(*s) * 4),
    "ceil": (torch.ceil, lambda *s: randn(*s) * 4),
    "trunc": (torch.trunc, lambda *s: randn(*s) * 4),
    "round": (torch.round, lambda *s: torch.randint(-8, 8, s) / 2),
    "square": (torch.square, randn),
    "silu": (F.silu, randn),
    "gelu": (F.gelu, randn),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), randn),
    "softplus": (F.softplus, randn),
    "mish": (F.mish, randn),
    "hardswish": (F.hardswish, randn),
    "hardsigmoid": (F.hardsigmoid, randn),
    "leaky_relu": (F.leaky_relu, randn),
    "elu": (F.elu, randn),
    "hardtanh": (F.hardtanh, randn),
    "isnan": (torch.isnan, lambda *s: torch.where(randn(*s) > 0, float("nan"), 1.0)),
    "isinf": (torch.isinf, lambda *s: torch.where(randn(*s) > 0, float("inf"), 1.0)),
    "logical_not": (torch.logical_not, lambda *s: (randn(*s) > 0).float()),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32(check, name):
    fn, make = UNARY[name]
    check(fn, make(5, 37), kernels=1)


HALF_OPS = ["exp", "tanh", "sigmoid", "gelu", "relu", "sqrt", "silu"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", HALF_OPS)
def test_unary_half_precision(check, name, dtype):
    fn, make = UNARY[name]
    check(fn, make(3, 33).to(dtype), kernels=1)


def test_nan_propagates_through_relu_and_maximum(check):
    x = torch.tensor([float("nan"), -1.0, 2.0, float("inf")])
    check(lambda a: torch.maximum(torch.relu(a), a.flip(0)), x)


BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
    "gt": torch.gt,
    "ge": torch.ge,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=3),
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=0.5),
    "floor_divide": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "trunc_divide": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": torch.remainder,
    "where": lambda a, b: torch.where(a > b, a, b),
    "clamp_tensor": lambda a, b: torch.clamp(a, min=b, max=b + 1),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_broadcasting(check, name):
    check(BINARY[name], randn(4, 1, 9), randn(3, 1) + 0.5, kernels=1)


INTEGER_BINARY = {
    "add": torch.add,
    "mul": torch.mul,
    "floor_divide": torch.floor_divide,
    "trunc_divide": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "true_divide": torch.true_divide,
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor,
    "maximum": torch.maximum,
    "lt": torch.lt,
}


@pytest.mark.parametrize("name", sorted(INTEGER_BINARY))
def test_integer_binary(check, name):
    check(INTEGER_BINARY[name], ints(6, 7), nonzero_ints(7), kernels=1)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical(check, name):
    fn = getattr(torch, name)
    check(fn, randn(5, 6) > 0, randn(5, 6), kernels=1)


def test_bitwise_not_of_bool_and_int(check):
    check(lambda a, b: (~a, ~b), randn(9) > 0, ints(9), kernels=1)


def test_integer_unary(check):
    check(lambda a: (a.abs(), -a, a * a), ints(4, 9, dtype=torch.int64), kernels=1)


MIXED = [
    (torch.float16, torch.float32),
    (torch.bfloat16, torch.float16),
    (torch.int32, torch.float32),
    (torch.int64, torch.float16),
    (torch.bool, torch.float32),
    (torch.uint8, torch.int8),
    (torch.float64, torch.float32),
]


@pytest.mark.parametrize("dtypes", MIXED, ids=lambda d: f"{d[0]}-{d[1]}".replace("torch.", ""))
def test_type_promotion(check, dtypes):
    a = (randn(4, 8) * 5).to(dtypes[0])
    b = (randn(8) * 5).to(dtypes[1])
    check(lambda x, y: (x + y, x * y, x > y), a, b, kernels=1)


@pytest.mark.parametrize("scalar", [2, 2.5, True], ids=["int", "float", "bool"])
def test_python_scalars_promote_like_torch(check, scalar):
    check(lambda x, y: (x * scalar, y + scalar, y < scalar), ints(8), randn(8), kernels=1)


def test_zero_dim_tensor_operand(check):
    check(lambda x, s: x * s + s, randn(3, 5, dtype=torch.float16), torch.tensor(1.5), kernels=1)


@pytest.mark.parametrize("exponent", [2, 3, -1, 0.5, 2.5, 0])
def test_pow_scalar_exponent(check, exponent):
    check(lambda x: x**exponent, positive(7, 5), kernels=1)


def test_pow_integer_base(check):
    check(lambda x: x**3, ints(11, dtype=torch.int64), kernels=1)


def test_clamp_scalars(check):
    check(lambda x: (x.clamp(-0.5, 0.5), x.clamp(min=0.1), x.clamp(max=-0.1)), randn(6, 6))


@pytest.mark.parametrize(
    "dtype", [torch.float16, torch.bfloat16, torch.int32, torch.int8, torch.bool], ids=str
)
def test_casts(check, dtype):
    check(lambda x: (x * 3).to(dtype), randn(6, 10), kernels=1)


def test_casts_from_integers_and_bools(check):
    check(lambda a, b: (a.float() / 3, b.to(torch.int64) + 1, a.bool()), ints(12), randn(12) > 0)


def test_constants_and_arange(check):
    def fn(x):
        ones = torch.ones_like(x)
        steps = torch.arange(x.shape[1], dtype=torch.float32)
        return x + ones * 2 + steps, torch.full((3,), 7, dtype=torch.int64), torch.arange(2, 11, 3)

    check(fn, randn(4, 5))


def test_masked_fill(check):
    check(lambda x: x.masked_fill(x > 0, -1.0), randn(4, 5), kernels=1)


def test_long_chain_is_one_kernel(check):
    def fn(x, scale, bias):
        y = x * scale + bias
        for _ in range(12):
            y = y + y * 0.5
        return torch.sigmoid(y).tanh()

    check(fn, randn(4, 16), randn(16), randn(4, 1), kernels=1)


def test_values_used_twice_at_every_step_stay_linear(check):
    """A DAG where each step reads the previous value twice: 2**40 paths, 40 operations."""

    def fn(x):
        for _ in range(40):
            x = x * 0.5 + x * 0.5
        return x

    check(fn, randn(16), kernels=1)


@pytest.mark.parametrize("numel", [1, 7, 1023, 1025, 3000])
def test_sizes_that_are_not_block_multiples(check, numel):
    check(lambda x: (x * 2).exp(), randn(numel), kernels=1)


def test_size_zero(check):
    compiled = check(lambda x, y: (x + 1, y.sum(0)), randn(0, 4), randn(0, 3))
    assert compiled.kernel_count == 1


def test_scalar_tensor_graph(check):
    check(lambda x: x.sin() * 3, torch.tensor(0.25), kernels=1)
