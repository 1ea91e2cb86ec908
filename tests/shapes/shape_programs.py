"""Programs that compute with tensor sizes and ints in Python code (issue #5), for the
differential tests of `test_shapes_programs.py`: each with the arguments it is called with
for a size `n`, our compile count over the sizes 4, 8, 5, 9 under the seed's policy (static
first, one recompile to dynamic, then hits), and real Dynamo's count where it differs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch


@dataclasses.dataclass
class ShapeCase:
    """A program, the arguments it is called with for a size `n`, its number of frames
    converted (compiled, or found empty and left to CPython) over the sizes 4, 8, 5, 9,
    and real Dynamo's (torch 2.14, its frames "ok") where it differs."""

    fn: Callable
    make_args: Callable[[int], tuple]
    compiles: int = 2
    dynamo: int | None = None

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def dynamo_compiles(self) -> int:
        return self.compiles if self.dynamo is None else self.dynamo


# Programs already in issue #5's first round.


def view_rows(x):
    return x.view(x.shape[0], -1) * 2


def reshape_by_size(x):
    return x.reshape(-1, x.size(1)).sum(0)


def slice_half(x):
    return x[: x.shape[0] // 2] + 1


def loop_over_range(x):
    out = x
    for i in range(x.shape[0]):
        out = out + i
    return out


def size_arithmetic(x):
    return x * (x.shape[0] + x.shape[1]) - x.numel()


def branch_on_size(x):
    if x.shape[0] > 6:
        return x + 1
    return x - 1


def int_arithmetic(x, n):
    return x * n + n * 2


def slice_by_int(x, n):
    return x[:n]


def return_shape(x):
    return x.shape


def return_sizes(x):
    return x.size(0), x.shape[1]


def zeros_of_size(x):
    return torch.zeros(x.shape[0], 2) + x.sum()


def expand_to_shape(x):
    return x.unsqueeze(0).expand(3, *x.shape)


def times_len(x):
    return x * len(x)


def divide_by_float_size(x):
    return x / float(x.shape[0])


def manual_mean(x):
    return x.sum(0) / x.shape[0]


def size_of_cat(x, y):
    return torch.cat([x, y], 0).shape[0] * x.sum()


def negated_int(x, n):
    return x - (-n)


def int_mod_floordiv(x, n):
    return x + (n % 3) + (n // 2)


def list_index_by_int(x, n):
    items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    return x * items[n]


def format_int(x, n):
    return x * len(f"{n}")


def max_of_size(x):
    return x * max(x.shape[0], 3)


def unpack_shape(x):
    a, b = x.shape
    return x.view(b, a)


def arange_of_size(x):
    return torch.arange(x.shape[0]) * x.sum()


def size_compared_to_int(x, n):
    return x + 1 if x.shape[0] > n else x - 1


def flatten_by_numel(x):
    return x.reshape(x.numel()) * x.shape[-1]


def new_ones_like_rows(x):
    return x.new_ones(x.shape[0], 1) * x


def int_times_int(x, n):
    return x + n * n - n


def shape_in_tuple(x):
    return x.sum(), x.shape[0] * 2


def sizes_through_a_helper(x, y):
    def rows(t):
        return t.shape[0]

    return x.view(rows(x), -1) + y.view(rows(y), -1).sum()


def slice_with_both_bounds(x):
    n = x.shape[0]
    return x[1 : n - 1] * n


def sum_over_sizes(x):
    return x * sum(x.shape)


def float_int(x, n):
    return x * (n / 2)


def int_is_truthy(x, n):
    if n:
        return x + n
    return x


def matmul_by_shape(x):
    w = torch.ones(x.shape[1], x.shape[0])
    return x @ w


def split_by_size(x):
    first, second = x.split(x.shape[0] // 2)
    return first + second


def size_used_twice(x, y):
    return x * x.shape[0] + y * y.shape[0]


# Programs of the second round: views, sizes of views, loops, lists and mixed ints.


def size_of_last_dim(x):
    return x.sum(-1) * x.size(-1)


def dim_of(x):
    return x * x.dim()


def mean_by_numel(x):
    return x.sum() / x.numel()


def view_pairs(x):
    return x.view(-1, 2) + x.shape[0]


def expand_first_row(x):
    return x[:1].expand(x.shape[0], -1) + x


def flatten_then_size(x):
    y = x.flatten()
    return y * y.shape[0]


def narrow_half(x):
    return x.narrow(0, 0, x.shape[0] // 2) * 2


def new_zeros_of_shape(x):
    return x.new_zeros(x.shape) + x


def zeros_rows_by_three(x):
    return torch.zeros(x.shape[0], 3) + x


def arange_float(x):
    return torch.arange(x.shape[0], dtype=torch.float32) * x


def cat_then_slice(x):
    return torch.cat([x, x * 2], 0)[x.shape[0] :]


def chunk_in_two(x):
    a, b = x.chunk(2)
    return a * b


def transpose_reshape(x):
    return x.transpose(0, 1).reshape(x.shape[1], -1)


def int_and_size(x, n):
    return x * n + x.shape[0]


def compare_sizes(x, y):
    return x.sum() if x.shape[0] < y.shape[0] else y.sum()


def min_of_sizes(x, y):
    n = min(x.shape[0], y.shape[0])
    return x[:n] + y[:n]


def len_of_list(x):
    items = [x, x + 1, x * 2]
    return torch.stack(items).sum(0) * len(items)


def len_of_list_input(x, items):
    return x * len(items)


def reshape_swapped(x):
    return x.reshape(x.shape[1], x.shape[0])


def unpack_size_call(x):
    h, w = x.size()
    return x.reshape(h * w)


def permute_then_view(x):
    return x.permute(1, 0).contiguous().view(-1)


def full_of_rows(x):
    return torch.full((x.shape[0], 2), 1.5) * x


def ones_matmul(x):
    return torch.ones(x.size(0)) @ x


def size_squared(x):
    return x * x.shape[0] ** 2


def abs_of_int(x, n):
    return x * abs(n - 6)


def chained_comparison(x, n):
    if 0 < n < 10:
        return x + n
    return x


def loop_over_int(x, n):
    for _ in range(n):
        x = x + 1
    return x


def loop_over_tensor(x):
    total = torch.zeros(x.shape[1])
    for row in x:
        total = total + row
    return total


def length_of_tensor_range(x):
    return [x[i] * i for i in range(len(x))][-1]


def empty_check(x):
    if x.numel() == 0:
        return x
    return x / x.numel()


def branch_on_dim(x):
    if x.dim() == 2:
        return x.sum(1)
    return x


def divmod_of_size(x):
    q, r = divmod(x.shape[0], 3)
    return x * q + r


def zeros_of_trailing_shape(x):
    return x.new_zeros(x.shape[1:]) + x.sum(0)


def reshape_product(x):
    return x.reshape(x.shape[0] * x.shape[1])


def index_last_row(x):
    return x[x.shape[0] - 1]


def split_first_and_rest(x):
    head, tail = x.split([1, x.shape[0] - 1])
    return tail * head


def max_of_int_and_size(x, n):
    return x * max(n, x.shape[0])


def size_equality(x, y):
    if x.shape[0] == y.shape[0]:
        return x + y
    return x


# Programs of the third round: values that stay symbolic (slice bounds, min/max, int and
# float conversions, symbolic indices, factory functions of computed sizes).


def int_of_half_size(x):
    return x * int(x.shape[0] / 2)


def float_of_int(x, n):
    return x * float(n)


def max_of_shape(x):
    return x * max(x.shape)


def min_of_three(x, n):
    return x[: min(x.shape[0], 7, n)]


def slice_with_step(x):
    return x[1 : x.shape[0] : 2] * 2


def assign_to_symbolic_slice(x):
    y = x.clone()
    y[: x.shape[0] // 2] = 0
    return y


def list_sliced_by_size(x):
    items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    return x * len(items[: x.shape[0]])


def index_by_int(x, n):
    return x[n - 1]


def view_by_computed_sizes(x):
    return x.view(x.shape[0] // 2, 2 * x.shape[1])


def zeros_of_int(x, n):
    return torch.zeros(n) + x.sum()


def arange_of_int(x, n):
    return torch.arange(n) * x.sum()


def full_of_double_size(x):
    return torch.full((x.shape[0] * 2,), 3.0) + x.sum()


def ones_of_sliced_size(x):
    return torch.ones(x[: x.shape[0] // 2].shape[0]) * x.sum()


def negative_slice_of_int(x, n):
    return x[-n:] * 2


# Arguments for a size n.


def vector(n: int) -> tuple:
    return (torch.randn(n),)


def matrix(n: int) -> tuple:
    return (torch.randn(n, 3),)


def wide(n: int) -> tuple:
    return (torch.randn(3, n),)


def rows_of_two(n: int) -> tuple:
    return (torch.randn(n, 2),)


def even_vector(n: int) -> tuple:
    return (torch.randn(2 * n),)


def with_int(n: int) -> tuple:
    return (torch.randn(3), n)


def sized_with_int(n: int) -> tuple:
    return (torch.randn(n), n)


def pair(n: int) -> tuple:
    return (torch.randn(n, 2), torch.randn(n + 1, 2))


def same_pair(n: int) -> tuple:
    return (torch.randn(n, 2), torch.randn(n, 2))


# Why a count is not 2 (static at 4, dynamic at 8, hits at 5 and 9):
SPECIALIZED = 4  # Python needed the size's value: one graph per size
EMPTY = 1  # the first trace records no operation: the code is left to CPython for good

SHAPE_CASES = [
    ShapeCase(view_rows, matrix),
    ShapeCase(reshape_by_size, matrix),
    ShapeCase(slice_half, matrix),
    ShapeCase(loop_over_range, vector, compiles=SPECIALIZED),  # range(n)
    ShapeCase(size_arithmetic, matrix),
    ShapeCase(branch_on_size, vector, compiles=3),  # guard `s0 > 6` flips at 5
    ShapeCase(int_arithmetic, with_int),
    ShapeCase(slice_by_int, lambda n: (torch.randn(10), n)),
    ShapeCase(return_shape, matrix, compiles=EMPTY),
    ShapeCase(return_sizes, matrix, compiles=EMPTY),
    ShapeCase(zeros_of_size, rows_of_two),
    ShapeCase(expand_to_shape, rows_of_two),
    ShapeCase(times_len, vector),
    ShapeCase(divide_by_float_size, vector),
    ShapeCase(manual_mean, rows_of_two),
    ShapeCase(size_of_cat, pair),
    ShapeCase(negated_int, with_int),
    ShapeCase(int_mod_floordiv, with_int),
    ShapeCase(list_index_by_int, with_int, compiles=SPECIALIZED),  # a list index
    ShapeCase(format_int, with_int, compiles=SPECIALIZED),  # formatting
    ShapeCase(max_of_size, vector),
    ShapeCase(unpack_shape, matrix, compiles=3),  # view(3, s0) guards on s0 % 3 at 9
    ShapeCase(arange_of_size, vector),
    ShapeCase(size_compared_to_int, lambda n: (torch.randn(n), 6), compiles=3),
    ShapeCase(flatten_by_numel, matrix),
    ShapeCase(new_ones_like_rows, rows_of_two),
    ShapeCase(int_times_int, with_int),
    ShapeCase(shape_in_tuple, vector),
    ShapeCase(sizes_through_a_helper, pair),
    ShapeCase(slice_with_both_bounds, vector),
    ShapeCase(sum_over_sizes, matrix),
    ShapeCase(float_int, with_int),
    ShapeCase(int_is_truthy, lambda n: (torch.randn(3), n - 4), compiles=EMPTY),  # n is 0 first
    ShapeCase(matmul_by_shape, matrix),
    ShapeCase(split_by_size, even_vector),
    ShapeCase(size_used_twice, same_pair),
    ShapeCase(size_of_last_dim, wide),
    ShapeCase(dim_of, vector),
    ShapeCase(mean_by_numel, matrix),
    ShapeCase(view_pairs, even_vector),
    ShapeCase(expand_first_row, matrix),
    ShapeCase(flatten_then_size, matrix),
    ShapeCase(narrow_half, vector),
    ShapeCase(new_zeros_of_shape, matrix),
    ShapeCase(zeros_rows_by_three, matrix),
    ShapeCase(arange_float, vector),
    ShapeCase(cat_then_slice, vector),
    ShapeCase(chunk_in_two, even_vector),
    ShapeCase(transpose_reshape, matrix),
    ShapeCase(int_and_size, sized_with_int),
    ShapeCase(compare_sizes, pair),
    ShapeCase(min_of_sizes, pair),
    ShapeCase(len_of_list, vector),
    # A list's length is always static, in Dynamo too: one compile per length.
    ShapeCase(len_of_list_input, lambda n: (torch.randn(3), [0] * n), compiles=SPECIALIZED),
    ShapeCase(reshape_swapped, matrix, compiles=3),  # reshape(3, s0) guards on s0 % 3
    ShapeCase(unpack_size_call, matrix),
    ShapeCase(permute_then_view, matrix),
    ShapeCase(full_of_rows, rows_of_two),
    ShapeCase(ones_matmul, matrix),
    ShapeCase(size_squared, vector),
    ShapeCase(abs_of_int, with_int),
    ShapeCase(chained_comparison, lambda n: (torch.randn(3), n + 2), compiles=3),  # n < 10
    ShapeCase(loop_over_int, with_int, compiles=SPECIALIZED),  # range(n)
    ShapeCase(loop_over_tensor, matrix, compiles=SPECIALIZED),  # iterating a tensor
    ShapeCase(length_of_tensor_range, vector, compiles=SPECIALIZED),  # range(len(x))
    ShapeCase(empty_check, matrix),
    ShapeCase(branch_on_dim, matrix),
    # divmod(s0, 3) is specialized here; Dynamo fails the frame at the dynamic compile and
    # runs it eagerly from then on.
    ShapeCase(divmod_of_size, vector, compiles=SPECIALIZED, dynamo=1),
    ShapeCase(zeros_of_trailing_shape, matrix),
    ShapeCase(reshape_product, matrix),
    ShapeCase(index_last_row, matrix),
    ShapeCase(split_first_and_rest, matrix),
    ShapeCase(max_of_int_and_size, lambda n: (torch.randn(n), 6)),
    ShapeCase(size_equality, same_pair),
    ShapeCase(int_of_half_size, vector),
    ShapeCase(float_of_int, with_int),
    ShapeCase(max_of_shape, matrix),
    ShapeCase(min_of_three, lambda n: (torch.randn(n + 1), n)),
    ShapeCase(slice_with_step, vector),
    ShapeCase(assign_to_symbolic_slice, vector),
    ShapeCase(list_sliced_by_size, vector, compiles=SPECIALIZED),  # a list slice, in Dynamo too
    ShapeCase(index_by_int, lambda n: (torch.randn(10, 2), n)),
    ShapeCase(view_by_computed_sizes, lambda n: (torch.randn(2 * n, 3),)),
    ShapeCase(zeros_of_int, with_int),
    ShapeCase(arange_of_int, with_int),
    ShapeCase(full_of_double_size, vector),
    ShapeCase(ones_of_sliced_size, vector),
    ShapeCase(negative_slice_of_int, lambda n: (torch.randn(10), n)),
]
