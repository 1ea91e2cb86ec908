"""Index algebra: simplification must never change the value of an index in range."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from minidynamo.backends.triton.indexing import Index, decompose, flatten, var


def test_decompose_then_flatten_is_the_identity():
    x = var("xindex", 24)
    assert flatten(decompose(x, (2, 3, 4)), (2, 3, 4)) == x


def test_decompose_prints_like_inductor():
    x = var("xindex", 24)
    assert [str(c) for c in decompose(x, (2, 3, 4))] == [
        "(xindex // 12)",
        "((xindex // 4) % 3)",
        "(xindex % 4)",
    ]


def test_size_one_dims_index_zero():
    x = var("xindex", 8)
    assert decompose(x, (1, 8, 1)) == [Index(), x, Index()]


def test_contiguous_reshape_of_reshape_is_affine():
    x = var("x", 32)
    rows, cols = decompose(x, (4, 8))
    assert (rows * 8 + cols).affine_strides() == {"x": 1}


def test_transposed_reshape_is_not_affine():
    x = var("x", 32)
    rows, cols = decompose(x, (4, 8))
    assert (rows + cols * 4).affine_strides() is None


def test_floordiv_drops_terms_below_the_divisor():
    a, b = var("a", 5), var("b", 8)
    assert (a * 8 + b) // 8 == a
    assert (a * 8 + b) % 8 == b


def test_division_of_a_sum_prints_parentheses():
    x, r = var("x", 8), var("r", 15)
    assert str((x * 15 + r) // 13) == "((r + 15*x) // 13)"
    assert str((x * 15 + r) % 13) == "((r + 15*x) % 13)"


def test_printing_of_constants_and_negative_terms():
    a = var("a", 5)
    assert str(a * -1 + 4) == "-1*a + 4"
    assert str(Index()) == "0"


sizes_strategy = st.lists(st.integers(1, 4), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(sizes=sizes_strategy, data=st.data())
def test_reshape_chains_keep_their_values(sizes, data):
    """Reshape to random factorizations and back: each simplified index evaluates as Python."""
    numel = 1
    for s in sizes:
        numel *= s
    other = data.draw(st.permutations(sizes))
    x = var("x", numel)
    coords = decompose(x, tuple(other))
    flat = flatten(coords, tuple(other))
    back = decompose(flat, tuple(sizes))
    for value in range(numel):
        expected = [(value // _prod(sizes[i + 1 :])) % sizes[i] for i in range(len(sizes))]
        assert [c.evaluate({"x": value}) for c in back] == expected
        assert [eval(str(c), {"x": value}) for c in back] == expected  # the printed text too


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=2, max_size=3), data=st.data())
def test_flipped_and_permuted_coordinates_reshape_correctly(sizes, data):
    perm = data.draw(st.permutations(range(len(sizes))))
    flip = data.draw(st.lists(st.booleans(), min_size=len(sizes), max_size=len(sizes)))
    names = [f"i{d}" for d in range(len(sizes))]
    coords = [var(n, s) for n, s in zip(names, sizes, strict=True)]
    moved = [coords[p] for p in perm]
    moved_sizes = tuple(sizes[p] for p in perm)
    moved = [(s - 1) - c if f else c for c, s, f in zip(moved, moved_sizes, flip, strict=True)]
    target = tuple(reversed(moved_sizes))
    result = decompose(flatten(moved, moved_sizes), target)
    for point in itertools.product(*(range(s) for s in sizes)):
        values = dict(zip(names, point, strict=True))
        flat_value = flatten([Index((), v) for v in _moved_values(point, perm, flip, sizes)],
                             moved_sizes).const
        expected = [(flat_value // _prod(target[i + 1 :])) % target[i] for i in range(len(target))]
        assert [c.evaluate(values) for c in result] == expected
        assert [eval(str(c), dict(values)) for c in result] == expected


def _moved_values(point, perm, flip, sizes):
    moved = [point[p] for p in perm]
    return [(sizes[p] - 1) - v if f else v for v, p, f in zip(moved, perm, flip, strict=True)]


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out
