"""Pointwise lowerings: elementwise aten ops -> Pointwise bodies built from `ir.op`.

Part of lowering (see lowering.py). `pointwise` does what every elementwise op shares:
broadcast the inputs, cast them to the computation dtype (float16 and bfloat16 compute in
float32, as torch does inside one op), apply the formula, cast to the result dtype. Ops
that Triton's interpreter lacks (it has no libdevice) are formulas over builtins here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

from .ir import Constant, Expr, IndexValue, Pointwise, TensorValue, View, cast, constant, op
from .lowering import GraphLowering, Unsupported, merge_origins, register
from .view_ops import expand_to

aten = torch.ops.aten
Formula = Callable[..., Expr]


def upcast(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def promoted(*args: object) -> torch.dtype:
    """torch's computation dtype for these operands (tensors and Python scalars)."""
    metas = [
        torch.empty(a.sizes, dtype=a.dtype, device="meta") if isinstance(a, TensorValue) else a
        for a in args
    ]
    kind = ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT
    return elementwise_dtypes(*metas, type_promotion_kind=kind)[0]


def pointwise(
    g: GraphLowering,
    formula: Formula,
    *args: object,
    compute: torch.dtype | Sequence[torch.dtype | None] | None = None,
) -> Pointwise:
    """out[i] = formula(*args[i]), broadcast to the node's output shape.

    Each operand is cast to `compute` (one dtype, or one per operand where None keeps the
    operand's own dtype); by default the upcast result dtype.
    """
    sizes, dtype = tuple(g.out.shape), g.out.dtype
    if not isinstance(compute, Sequence):
        compute = [compute or upcast(dtype)] * len(args)
    inputs = [expand_to(a, sizes) if isinstance(a, TensorValue) else a for a in args]

    def operand(value: object, target: torch.dtype | None, coords: Sequence[Any]) -> Expr:
        if not isinstance(value, TensorValue):
            return constant(value, target or upcast(dtype))  # type: ignore[arg-type]
        loaded = value.load(coords)
        return loaded if target is None else cast(loaded, target)

    def body(coords: Sequence[Any]) -> Expr:
        values = [operand(a, t, coords) for a, t in zip(inputs, compute, strict=True)]
        return cast(formula(*values), dtype)

    return g.pointwise_value(sizes, dtype, body, merge_origins(*args))


def const_like(value: float, like: Expr) -> Constant:
    return constant(value, like.dtype)


def where(cond: Expr, a: Expr, b: Expr) -> Expr:
    return op("where", cond, a, b)


def _floor_divide(a: Expr, b: Expr) -> Expr:
    if a.dtype.is_floating_point:
        return op("floor", op("truediv", a, b))
    quotient, rest = op("truncdiv", a, b), op("truncmod", a, b)
    return op("sub", quotient, cast(_signs_differ(rest, b), a.dtype))


def _remainder(a: Expr, b: Expr) -> Expr:
    if a.dtype.is_floating_point:
        return op("sub", a, op("mul", b, op("floor", op("truediv", a, b))))
    rest = op("truncmod", a, b)
    return op("add", rest, op("mul", b, cast(_signs_differ(rest, b), a.dtype)))


def _signs_differ(rest: Expr, b: Expr) -> Expr:
    zero = const_like(0, rest)
    return op("and", op("ne", rest, zero), op("ne", op("lt", rest, zero), op("lt", b, zero)))


def _expm1(x: Expr) -> Expr:
    # exp(x) - 1 loses every digit near 0; (u - 1) * x / log(u) with u = exp(x) does not.
    u = op("exp", x)
    one = const_like(1, x)
    u_1 = op("sub", u, one)
    ratio = op("truediv", op("mul", u_1, x), op("log", u))
    special = op("or", op("eq", u, one), op("eq", u, const_like(math.inf, x)))
    inner = where(op("eq", u_1, const_like(-1, x)), const_like(-1, x), ratio)
    return where(special, where(op("eq", u, one), x, u), inner)


def _log1p(x: Expr) -> Expr:
    # log(1 + x) rounds 1 + x; scaling by x / (u - 1) restores the lost digits (Goldberg).
    u = op("add", x, const_like(1, x))
    one = const_like(1, x)
    scaled = op("mul", op("log", u), op("truediv", x, op("sub", u, one)))
    special = op("or", op("eq", u, one), op("eq", u, const_like(math.inf, x)))
    return where(special, where(op("eq", u, one), x, u), scaled)


def _tanh(x: Expr) -> Expr:
    # tanh(x) = -expm1(-2|x|) / (2 + expm1(-2|x|)), with the sign of x: exact near 0.
    e = _expm1(op("mul", op("abs", x), const_like(-2, x)))
    t = op("truediv", op("neg", e), op("add", e, const_like(2, x)))
    return where(op("lt", x, const_like(0, x)), op("neg", t), t)


def _sign(x: Expr) -> Expr:
    zero = const_like(0, x)
    negative = where(op("lt", x, zero), const_like(-1, x), op("mul", x, zero))
    return where(op("gt", x, zero), const_like(1, x), negative)


def _round_half_even(x: Expr) -> Expr:
    down = op("floor", x)
    frac = op("sub", x, down)
    half = const_like(0.5, x)
    odd = op("ne", op("sub", down, op("mul", op("floor", op("mul", down, half)),
                                      const_like(2, x))), const_like(0, x))
    up = op("or", op("gt", frac, half), op("and", op("eq", frac, half), odd))
    return where(up, op("add", down, const_like(1, x)), down)


def _trunc(x: Expr) -> Expr:
    return where(op("lt", x, const_like(0, x)), op("ceil", x), op("floor", x))


def _identity_if_integer(formula: Formula) -> Formula:
    """floor, ceil, round and trunc of an integer are the integer itself."""
    return lambda x: formula(x) if x.dtype.is_floating_point else x


UNARY: dict[Any, Formula] = {
    aten.abs: lambda x: op("abs", x),
    aten.neg: lambda x: op("neg", x),
    aten.exp: lambda x: op("exp", x),
    aten.exp2: lambda x: op("exp2", x),
    aten.expm1: _expm1,
    aten.log: lambda x: op("log", x),
    aten.log2: lambda x: op("log2", x),
    aten.log10: lambda x: op("mul", op("log", x), const_like(1 / math.log(10), x)),
    aten.log1p: _log1p,
    aten.sqrt: lambda x: op("sqrt", x),
    aten.rsqrt: lambda x: op("rsqrt", x),
    aten.reciprocal: lambda x: op("truediv", const_like(1, x), x),
    aten.sin: lambda x: op("sin", x),
    aten.cos: lambda x: op("cos", x),
    aten.tan: lambda x: op("truediv", op("sin", x), op("cos", x)),
    aten.tanh: _tanh,
    aten.sigmoid: lambda x: op("sigmoid", x),
    aten.erf: lambda x: op("erf", x),
    aten.relu: lambda x: where(op("lt", x, const_like(0, x)), const_like(0, x), x),
    aten.sign: _sign,
    aten.floor: _identity_if_integer(lambda x: op("floor", x)),
    aten.ceil: _identity_if_integer(lambda x: op("ceil", x)),
    aten.trunc: _identity_if_integer(_trunc),
    aten.round.default: _identity_if_integer(_round_half_even),
    aten.bitwise_not: lambda x: op("not", x) if x.dtype == torch.bool else op("bitnot", x),
}

BINARY: dict[Any, Formula] = {
    aten.mul: lambda a, b: op("mul", a, b),
    aten.maximum: lambda a, b: op("maximum", a, b),
    aten.minimum: lambda a, b: op("minimum", a, b),
    aten.floor_divide: _floor_divide,
    aten.remainder: _remainder,
    aten.bitwise_and: lambda a, b: op("and", a, b),
    aten.bitwise_or: lambda a, b: op("or", a, b),
    aten.bitwise_xor: lambda a, b: op("xor", a, b),
}

COMPARISONS = {aten.eq: "eq", aten.ne: "ne", aten.lt: "lt", aten.le: "le", aten.gt: "gt",
               aten.ge: "ge"}

LOGICAL = {aten.logical_and: "and", aten.logical_or: "or", aten.logical_xor: "xor"}


def _register_table(table: dict[Any, Formula]) -> None:
    for target, formula in table.items():
        register(target)(lambda g, *args, _f=formula: pointwise(g, _f, *args))


_register_table(UNARY)
_register_table(BINARY)


def _register_comparisons() -> None:
    for target, name in COMPARISONS.items():
        register(target)(
            lambda g, a, b, _n=name: pointwise(
                g, lambda x, y: op(_n, x, y), a, b, compute=promoted(a, b)
            )
        )
    for target, name in LOGICAL.items():
        register(target)(
            lambda g, a, b, _n=name: pointwise(g, lambda x, y: op(_n, x, y), _truth(a), _truth(b),
                                               compute=torch.bool)
        )


_register_comparisons()


def _truth(value: object) -> object:
    return bool(value) if not isinstance(value, TensorValue) else value


@register(aten.logical_not)
def lower_logical_not(g: GraphLowering, x: TensorValue) -> Pointwise:
    return pointwise(g, lambda v: op("not", v), x, compute=torch.bool)


@register(aten.isnan)
def lower_isnan(g: GraphLowering, x: TensorValue) -> Pointwise:
    return pointwise(g, lambda v: op("ne", v, v), x, compute=upcast(x.dtype))


@register(aten.isinf)
def lower_isinf(g: GraphLowering, x: TensorValue) -> Pointwise:
    return pointwise(g, lambda v: op("eq", op("abs", v), const_like(math.inf, v)), x,
                     compute=upcast(x.dtype))


def _add_or_sub(name: str) -> Callable[..., Pointwise]:
    def lower(g: GraphLowering, a: object, b: object, alpha: float = 1) -> Pointwise:
        def formula(x: Expr, y: Expr) -> Expr:
            return op(name, x, y if alpha == 1 else op("mul", y, const_like(alpha, y)))

        return pointwise(g, formula, a, b)

    return lower


register(aten.add)(_add_or_sub("add"))
register(aten.sub)(_add_or_sub("sub"))


@register(aten.rsub)
def lower_rsub(g: GraphLowering, a: object, b: object, alpha: object = 1) -> Pointwise:
    return pointwise(g, lambda x, y: op("sub", y, op("mul", x, const_like(alpha, x))), a, b)


@register(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode)
def lower_div(g: GraphLowering, a: object, b: object, rounding_mode: str | None = None):
    if rounding_mode is None:
        return pointwise(g, lambda x, y: op("truediv", x, y), a, b)
    if rounding_mode == "floor":
        return pointwise(g, _floor_divide, a, b)
    if g.out.dtype.is_floating_point:
        return pointwise(g, lambda x, y: _trunc(op("truediv", x, y)), a, b)
    return pointwise(g, lambda x, y: op("truncdiv", x, y), a, b)


@register(aten.fmod)
def lower_fmod(g: GraphLowering, a: object, b: object) -> Pointwise:
    if g.out.dtype.is_floating_point:
        raise Unsupported("floating-point fmod needs libdevice")
    return pointwise(g, lambda x, y: op("truncmod", x, y), a, b)


@register(aten.pow.Tensor_Scalar)
def lower_pow(g: GraphLowering, x: TensorValue, exponent: float) -> Pointwise:
    if float(exponent).is_integer() and abs(exponent) <= 8:
        return pointwise(g, lambda v: _integer_power(v, int(exponent)), x)
    if exponent == 0.5:
        return pointwise(g, lambda v: op("sqrt", v), x)
    if not g.out.dtype.is_floating_point:
        raise Unsupported("integer power with a large exponent")
    # A non-integral power of a negative base is NaN, as log2 makes it.
    return pointwise(
        g, lambda v: op("exp2", op("mul", op("log2", v), const_like(exponent, v))), x
    )


def _integer_power(x: Expr, n: int) -> Expr:
    if n < 0:
        return op("truediv", const_like(1, x), _integer_power(x, -n))
    result: Expr = const_like(1, x)
    base = x
    while n:
        if n & 1:
            result = base if isinstance(result, Constant) else op("mul", result, base)
        n >>= 1
        if n:
            base = op("mul", base, base)
    return result


@register(aten.where.self)
def lower_where(g: GraphLowering, cond: object, a: object, b: object) -> Pointwise:
    compute = upcast(g.out.dtype)
    return pointwise(g, where, cond, a, b, compute=[torch.bool, compute, compute])


@register(aten.clamp.default, aten.clamp.Tensor)
def lower_clamp(g: GraphLowering, x: TensorValue, low: object = None, high: object = None):
    bounds = [b for b in (low, high) if b is not None]

    def formula(v: Expr, *limits: Expr) -> Expr:
        rest = iter(limits)
        if low is not None:
            v = op("maximum", v, next(rest))
        if high is not None:
            v = op("minimum", v, next(rest))
        return v

    return pointwise(g, formula, x, *bounds)


@register(aten._to_copy, aten.clone, aten.lift_fresh_copy)
def lower_copy(g: GraphLowering, x: TensorValue, **kwargs: object) -> Pointwise:
    device = kwargs.get("device")
    if device is not None and torch.device(device) != x.device:  # type: ignore[arg-type]
        raise Unsupported("copy to another device")
    return pointwise(g, lambda v: v, x, compute=g.out.dtype)


@register(aten.copy.default)
def lower_functional_copy(g: GraphLowering, target: TensorValue, source: object, *_: object):
    return pointwise(g, lambda v: v, source, compute=g.out.dtype)


@register(aten.copy_.default)
def lower_copy_(g: GraphLowering, target: TensorValue, source: object, *_: object):
    """An input mutation that functionalization left at the end of the graph."""
    if not (isinstance(target, View) and target.is_whole_buffer()
            and target.buffer.name in g.input_names):
        raise Unsupported("copy_ into a value that is not a graph input")
    g.mutations.append((target, g.realize(pointwise(g, lambda v: v, source, compute=target.dtype))))
    return target


def _filled(g: GraphLowering, value: float) -> Pointwise:
    fill = constant(value, g.out.dtype)
    return g.pointwise_value(g.out.shape, g.out.dtype, lambda _: fill)


@register(aten.full.default)
def lower_full(g: GraphLowering, size: Sequence[int], value: float, **_: object) -> Pointwise:
    return _filled(g, value)


@register(aten.full_like)
def lower_full_like(g: GraphLowering, x: TensorValue, value: float, **_: object) -> Pointwise:
    return _filled(g, value)


@register(aten.scalar_tensor)
def lower_scalar_tensor(g: GraphLowering, value: float, **_: object) -> Pointwise:
    return _filled(g, value)


@register(aten.arange.start_step)
def lower_arange(g: GraphLowering, start: float, end: float, step: float = 1, **_: object):
    dtype = g.out.dtype

    def body(coords: Sequence[Any]) -> Expr:
        if not dtype.is_floating_point:
            return IndexValue(coords[0] * int(step) + int(start), dtype)
        position = IndexValue(coords[0], upcast(dtype))
        value = op("add", op("mul", position, const_like(step, position)),
                   const_like(start, position))
        return cast(value, dtype)

    return g.pointwise_value(g.out.shape, dtype, body)
