"""Device-side helpers that generated kernels call (`helpers.max_with_nan(x, 1)`).

Imported by the output code modules that wrapper.py writes. They give reductions torch's
semantics where Triton's differ: torch's max and min propagate NaN (tl.max and tl.min drop
it), and argmax/argmin rank NaN first and break ties toward the first index.
"""

import triton
import triton.language as tl


@triton.jit
def _maximum(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _minimum(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def max_with_nan(x, axis: tl.constexpr):
    return tl.reduce(x, axis, _maximum, keep_dims=True)


@triton.jit
def min_with_nan(x, axis: tl.constexpr):
    return tl.reduce(x, axis, _minimum, keep_dims=True)


@triton.jit
def _multiply(a, b):
    return a * b


@triton.jit
def prod(x, axis: tl.constexpr):
    return tl.reduce(x, axis, _multiply, keep_dims=True)


@triton.jit
def argmax_combine(value_a, index_a, value_b, index_b):
    """torch's argmax order: NaN is the largest value; ties go to the first index."""
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    tie = (value_a == value_b) | (a_nan & b_nan)
    a_wins = (value_a > value_b) | (a_nan & (b_nan == 0)) | (tie & (index_a < index_b))
    return tl.where(a_wins, value_a, value_b), tl.where(a_wins, index_a, index_b)


@triton.jit
def argmin_combine(value_a, index_a, value_b, index_b):
    """torch's argmin order: NaN is the smallest value; ties go to the first index."""
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    tie = (value_a == value_b) | (a_nan & b_nan)
    a_wins = (value_a < value_b) | (a_nan & (b_nan == 0)) | (tie & (index_a < index_b))
    return tl.where(a_wins, value_a, value_b), tl.where(a_wins, index_a, index_b)


@triton.jit
def argmax(values, indices, axis: tl.constexpr):
    indices = tl.broadcast_to(indices, values.shape)
    _, index = tl.reduce((values, indices), axis, argmax_combine, keep_dims=True)
    return index


@triton.jit
def argmin(values, indices, axis: tl.constexpr):
    indices = tl.broadcast_to(indices, values.shape)
    _, index = tl.reduce((values, indices), axis, argmin_combine, keep_dims=True)
    return index
