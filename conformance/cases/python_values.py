"""Python semantics under compilation: values (issue 14). Ints, floats, complex numbers,
strings and their formatting, and the methods of lists, tuples, dicts and sets, as a
torch.compile user's helper code computes them beside tensor code.

Everything here is a constant at trace time, so each program is one graph under
`fullgraph=True`: the tracer must give Python's exact answers (floor division of
negatives, banker's rounding, format specs, insertion order, aliasing of nested lists).
"""

import math
import string

import torch

from conformance.spec import Call, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
TAGS = ["python-semantics", "fullgraph"]


# ints


@case(tags=TAGS, calls=[Call(T(3), -7)], options=FULLGRAPH, expect=one_graph("mul"))
def int_floor_division_of_negatives(x, n):
    """`//` and `%` round toward negative infinity; divmod agrees with them."""
    return x * 2, n // 2, n % 2, 7 // -2, 7 % -2, divmod(n, 3)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def int_power_variants(x):
    """A negative exponent gives a float; three-argument pow is modular."""
    return x * 2**3, 2**-1, pow(3, 4, 5), (-2) ** 3, 0**0


@case(tags=TAGS, calls=[Call(T(3), "ff")], options=FULLGRAPH, expect=one_graph("mul"))
def int_parsed_with_base(x, digits):
    """int() of strings with an explicit base, base 0 (prefix decides) and underscores."""
    return x * int(digits, 16), int("0b101", 0), int("0o17", 0), int("1_000"), int(" -12 ")


@case(tags=TAGS, calls=[Call(T(3), True)], options=FULLGRAPH, expect=one_graph("mul"))
def bool_is_an_int(x, flag):
    """bool is an int subclass: arithmetic, sum and indexing with it."""
    return x * (flag + True), sum([True, False, True]), "ab"[flag], isinstance(flag, int)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def int_arbitrary_precision(x):
    """Integers past 64 bits keep exact values."""
    big = 2**70 + 1
    return x * (big % 7), big, big // 3, -(2**65) >> 3


@case(tags=TAGS, calls=[Call(T(3), 0b1010)], options=FULLGRAPH, expect=one_graph("mul"))
def int_bitwise_operators(x, bits):
    """&, |, ^, ~, << and >> on Python ints, negatives included."""
    return x * (bits & 0b0110), bits | 1, bits ^ 0b1111, ~bits, bits << 3, -bits >> 1


@case(tags=TAGS, calls=[Call(T(3), 255)], options=FULLGRAPH, expect=one_graph("mul"))
def int_builtin_conversions(x, n):
    """bin, oct, hex and abs of ints; int() of floats truncates toward zero."""
    return x * int(-2.7), bin(n), oct(n), hex(n), int(2.9), abs(-n)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def int_chained_and_mixed_comparisons(x):
    """1 == 1.0, True == 1, chained comparisons, and max/min mixing ints and floats."""
    return x * 2, 1 == 1.0, True == 1, 1 < 2.5 <= 2.5, max(1, 2.0), min(3, 3.0)  # noqa: E712


# floats


@case(tags=TAGS, calls=[Call(T(3), 2.5)], options=FULLGRAPH, expect=one_graph("mul"))
def float_rounding(x, v):
    """round() rounds half to even; floor, ceil and trunc return ints."""
    return x * round(v), round(3.5), round(2.675, 2), math.floor(-v), math.ceil(v), math.trunc(-v)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def float_special_values(x):
    """inf and nan: comparisons with nan are false, isinf/isnan recognize them."""
    inf, nan = float("inf"), float("nan")
    return x * 2, inf > 1e308, nan == nan, nan != nan, math.isinf(-inf), math.isnan(nan)  # noqa: PLR0124


@case(tags=TAGS, calls=[Call(T(3), 0.75)], options=FULLGRAPH, expect=one_graph("mul"))
def float_methods_and_representation(x, v):
    """is_integer, as_integer_ratio, the repr of an inexact sum, float() of strings."""
    return x * v, (2.0).is_integer(), v.as_integer_ratio(), repr(0.1 + 0.2), float("1e-3")


@case(tags=TAGS, calls=[Call(T(3), 3.0)], options=FULLGRAPH, expect=one_graph("mul"))
def float_int_true_and_floor_division(x, v):
    """/ always gives a float; // and % of floats keep float results."""
    return x * (7 / 2), 6 / 3, v // 2, -v % 2, divmod(7.5, 2)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def complex_numbers(x):
    """Complex arithmetic, parts, abs and conjugate."""
    c = complex(3, 4)
    d = c * (1 - 2j)
    return x * abs(c), d, d.real, d.imag, c.conjugate()


@case(tags=TAGS, calls=[Call(T(3), 0.1)], options=FULLGRAPH, expect=one_graph("mul", "add"))
def float_math_helpers(x, eps):
    """math.sqrt, log, exp, hypot, fsum and prod on Python floats."""
    scale = math.sqrt(2.0) * math.exp(eps) / math.log(10)
    return x * scale + math.hypot(3, 4), math.fsum([0.1] * 10), math.prod([2, 3, 4])


# strings


@case(tags=TAGS, calls=[Call(T(3), "encoder")], options=FULLGRAPH, expect=one_graph("mul"))
def str_indexing_and_slicing(x, s):
    """Indexing, negative indices, slices with steps and reversal."""
    return x * len(s[1:4]), s[0], s[-1], s[::-1], s[::2], s[-3:]


@case(tags=TAGS, calls=[Call(T(3), "model.layers.3.mlp")],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def str_partition_and_rsplit(x, name):
    """rpartition, partition and rsplit with a maxsplit, as parameter-name parsing does."""
    head, _, leaf = name.rpartition(".")
    first, sep, rest = name.partition(".")
    return x * int(name.rsplit(".", 2)[1]), head, leaf, first, sep, rest


@case(tags=TAGS, calls=[Call(T(2, 3, 4))], options=FULLGRAPH, expect=one_graph("add"))
def str_join_of_generator(x):
    """str.join over a generator of formatted sizes."""
    return x + 1, "x".join(str(d) for d in x.shape), ", ".join(map(str, range(3)))


@case(tags=TAGS, calls=[Call(T(3), "7")], options=FULLGRAPH, expect=one_graph("mul"))
def str_padding_methods(x, s):
    """zfill, center, ljust, rjust and removeprefix/removesuffix."""
    padded = s.zfill(3), s.center(5, "*"), s.ljust(3, "."), s.rjust(3)
    return x * 2, padded, "v1.pt".removesuffix(".pt"), "v1.pt".removeprefix("v")


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def format_spec_mini_language(x):
    """Width, precision, alignment, sign, thousands separator, percent and bases."""
    f = f"{3.14159:.2f}|{42:>5}|{42:<4}|{42:^6}|{7:+d}|{1234567:,}|{0.25:.0%}|{255:#x}|{5:08b}"
    return x * 2, f


@case(tags=TAGS, calls=[Call(T(3), 0.000123)], options=FULLGRAPH, expect=one_graph("mul"))
def format_builtin_and_exponent(x, v):
    """format() with the general format, and %-style with repr conversion and widths."""
    return x * 2, format(v, ".3g"), format(1e20, "g"), "%r|%5.1f|%x" % ("a", 2.25, 255)  # noqa: UP031


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def repr_and_str_of_containers(x):
    """repr/str of nested lists, tuples, dicts, None and bools."""
    return x * 2, repr([1, "a", (2,), None]), str({"k": 1.5, "b": True}), repr((1,)), str([])


@case(tags=TAGS, calls=[Call(T(3), "ab")], options=FULLGRAPH, expect=one_graph("mul"))
def str_repetition_and_membership(x, s):
    """`*` on strings, `in` for substrings, and concatenation in a loop."""
    acc = ""
    for ch in s:
        acc += ch.upper()
    return x * len(s * 3), "ba" in s * 2, acc, "" in s


@case(tags=TAGS, calls=[Call(T(3), ["beta", "alpha", "Gamma"])],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def str_ordering_and_sorting(x, names):
    """Strings compare by code point; sorted with key=str.lower and max of strings."""
    return x * 2, sorted(names), sorted(names, key=str.lower), max(names), "abc" < "abd"


@case(tags=TAGS, calls=[Call(T(3), "Hello World")], options=FULLGRAPH, expect=one_graph("mul"))
def str_case_methods(x, s):
    """swapcase, casefold, capitalize, istitle, isupper, islower."""
    return x * 2, s.swapcase(), s.casefold(), s.lower().capitalize(), s.istitle(), s.isupper()


@case(tags=TAGS, calls=[Call(T(3), "q")], options=FULLGRAPH, expect=one_graph("mul"))
def string_module_constants(x, ch):
    """The `string` module's constants, read as globals of another module."""
    return x * string.ascii_lowercase.index(ch), string.digits[3], ch in string.ascii_letters


@case(tags=TAGS, calls=[Call(T(3), "a\tb\nc d")], options=FULLGRAPH, expect=one_graph("mul"))
def str_split_whitespace_and_lines(x, s):
    """split() with no separator, splitlines and strip of chosen characters."""
    return x * len(s.split()), s.splitlines(), "--x--".strip("-"), "xxabxx".lstrip("x")


@case(tags=TAGS, calls=[Call(T(3), "relu")], options=FULLGRAPH, expect=one_graph("mul"))
def str_ord_chr_and_encode_length(x, s):
    """ord/chr round trips and comparisons of single characters."""
    shifted = "".join(chr(ord(c) + 1) for c in s)
    return x * ord(s[0]), shifted, chr(65), "a" < "b"


# lists


@case(tags=TAGS, calls=[Call(T(3), [3, 1, 4, 1, 5])], options=FULLGRAPH, expect=one_graph("mul"))
def list_index_and_count(x, xs):
    """index (with a start), count, and `in` on a list argument."""
    return x * xs.index(1), xs.index(1, 2), xs.count(1), 9 in xs


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def list_sort_local_with_key(x):
    """sort(key=..., reverse=True) on a list made in the function; sorting is stable."""
    pairs = [("b", 2), ("a", 2), ("c", 1)]
    pairs.sort(key=lambda p: p[1], reverse=True)
    return x * pairs[0][1], pairs


@case(tags=TAGS, calls=[Call(T(3), [1, 2])], options=FULLGRAPH, expect=one_graph("mul"))
def list_copy_is_independent(x, xs):
    """copy(), list() and a full slice make new lists; the argument is left alone."""
    a, b, c = xs.copy(), list(xs), xs[:]
    a.append(3)
    b.insert(0, 0)
    c.clear()
    return x * len(a), a, b, c, xs


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def list_repetition_aliases_rows(x):
    """`[[0] * 2] * 2` repeats one inner list: a store through one row shows in both."""
    rows = [[0] * 2] * 2
    rows[0][0] = 5
    return x * rows[1][0], rows, rows[0] is rows[1]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def list_comparisons(x):
    """Lists compare lexicographically; equality is element-wise."""
    return x * 2, [1, 2] < [1, 3], [1, 2] < [1, 2, 0], [1, [2]] == [1, [2]], [] == []


@case(tags=TAGS, calls=[Call(T(3), list(range(8)))], options=FULLGRAPH, expect=one_graph("mul"))
def list_slice_steps_and_delete(x, xs):
    """Slices with negative steps; del of a slice and of a stepped slice on a copy."""
    ys = list(xs)
    del ys[1:3]
    del ys[::2]
    return x * len(ys), xs[::-2], xs[-2:1:-3], ys


@case(tags=TAGS, calls=[Call(T(3), [1])], options=FULLGRAPH, expect=one_graph("mul"))
def list_inplace_add_extends(x, xs):
    """`+=` extends the same list with any iterable (a tuple, a range); `+` makes a new one."""
    ys = xs
    ys += (2, 3)
    ys += range(2)
    zs = ys + [9]
    return x * len(xs), xs, zs is ys


@case(tags=TAGS, calls=[Call([T(3), T(3), T(3)])],
      options=FULLGRAPH, expect=one_graph("add", "mul"))  # fmt: skip
def list_of_tensors_pop_and_insert(ts):
    """pop from the end and from the front, insert, on a list of tensors made here."""
    work = list(ts)
    last = work.pop()
    first = work.pop(0)
    work.insert(0, last)
    return (work[0] + first) * work[1]


# tuples


@case(tags=TAGS, calls=[Call(T(3), (2, 3, 2))], options=FULLGRAPH, expect=one_graph("mul"))
def tuple_methods_and_operators(x, t):
    """count, index, concatenation, repetition and comparison of tuples."""
    return x * t.count(2), t.index(3), t + (4,), t * 2, (1, 2) < (1, 2, 0), t[::-1]


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=one_graph("torch.reshape"))
def tuple_from_shape_arithmetic(x):
    """A shape tuple rebuilt with slicing and concatenation (as reshapes in models do)."""
    new_shape = x.shape[:-1] + (3, 1)
    return torch.reshape(x, new_shape), tuple(reversed(x.shape)), x.shape[::-1] == (3, 2)


# dicts


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dict_popitem_is_lifo(x):
    """popitem removes the last inserted item."""
    d = {"a": 1, "b": 2, "c": 3}
    k, v = d.popitem()
    return x * v, k, d


@case(tags=TAGS, calls=[Call(T(3), {"lr": 0.1})], options=FULLGRAPH, expect=one_graph("mul"))
def dict_copy_is_shallow(x, cfg):
    """copy() makes a new dict with the same values; dict(cfg, k=v) adds keywords."""
    c = cfg.copy()
    c["lr"] = 1.0
    merged = dict(cfg, momentum=0.9)
    return x * cfg["lr"], c, merged, cfg


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dict_views_see_later_changes(x):
    """keys(), values() and items() are live views of their dict."""
    d = {"a": 1}
    keys, values = d.keys(), d.values()
    d["b"] = 2
    return x * len(keys), list(keys), sum(values), ("b", 2) in d.items()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dict_equality_ignores_order(x):
    """Dicts are equal regardless of insertion order; key order is still kept."""
    a, b = {"a": 1, "b": 2}, {"b": 2, "a": 1}
    return x * 2, a == b, list(a) == list(b), {1: 1} == {1.0: 1}


@case(tags=TAGS, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def dict_with_int_tuple_and_str_keys(x, y):
    """Keys of several types, tuples included; True and 1 are the same key."""
    d = {0: x, "y": y, (1, 2): 3, 1: "one"}
    d[True] = 2
    return (d[0] + d["y"]) * d[(1, 2)], d[1], len(d)


@case(tags=TAGS, calls=[Call(T(3), {"a": 1, "b": 2})], options=FULLGRAPH, expect=one_graph("mul"))
def dict_delete_and_reinsert_order(x, d):
    """Deleting a key and inserting it again moves it to the end (on a copy)."""
    c = dict(d)
    del c["a"]
    c["a"] = 3
    return x * c["a"], list(c), "a" in d


@case(tags=TAGS, calls=[Call(T(3), {"a": [1], "b": [2, 3]})],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def dict_sorted_by_value_length(x, groups):
    """sorted over items with a key function, and dict rebuilt from the sorted pairs."""
    ordered = dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))
    return x * len(ordered["b"]), list(ordered)


# sets


@case(tags=TAGS, calls=[Call(T(3), [1, 2, 3, 4])], options=FULLGRAPH, expect=one_graph("mul"))
def set_inplace_update_methods(x, xs):
    """update, intersection_update, difference_update and symmetric_difference_update."""
    s = set(xs)
    s.update([5, 6])
    s.intersection_update(range(2, 7))
    s.difference_update({3})
    s.symmetric_difference_update({4, 9})
    return x * len(s), sorted(s)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_relations(x):
    """isdisjoint, issubset via <=, proper superset via >, and union of several sets."""
    a, b = {1, 2}, {1, 2, 3}
    return x * 2, a.isdisjoint({3}), a <= b, b > a, a.union({4}, [5]) == {1, 2, 4, 5}


@case(tags=TAGS, calls=[Call(T(3), "mississippi")], options=FULLGRAPH, expect=one_graph("mul"))
def set_of_characters_deduplicates(x, s):
    """set() of a string and of a list with repeats; sorted gives a stable result."""
    return x * len(set(s)), sorted(set(s)), len({1, 1.0, True})  # noqa: B033


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_copy_and_discard_on_copy(x):
    """copy() of a set is independent; discard of a missing element is a no-op."""
    s = {1, 2}
    t = s.copy()
    t.discard(1)
    t.discard(7)
    return x * len(s), sorted(t), s == {1, 2}


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dict_items_and_values_membership(x):
    """`in` on items() checks the key and its value (a non-pair is never in it); `in`
    on values() compares by equality (1 == 1.0)."""
    d = {"a": 1, "b": [2]}
    return (
        x * 2,
        ("a", 1) in d.items(),
        ("a", 2) in d.items(),
        ("b", [2]) in d.items(),
        ("z", 1) in d.items(),
        "a" in d.items(),
        1.0 in d.values(),
        3 in d.values(),
    )


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def tuples_holding_tensors_are_ordered(x):
    """`sorted(d.items())` and `<` of tuples holding tensors: CPython orders them by
    the first items that differ (the keys), never comparing the tensors."""
    d = {"b": x, "a": x + 1}
    ordered = dict(sorted(d.items()))
    return ordered, (1, x * 2) < (2, x), [1, 2] <= [1, 2, 3], (1, x) >= (1,)


@case(tags=TAGS, calls=[Call(T(3), "é")], options=FULLGRAPH, expect=one_graph("mul"))
def ascii_of_constants(x, s):
    """``ascii(value)`` of a constant is folded like ``repr``: its non-ASCII characters
    escaped."""
    return x * len(ascii(s)), ascii(s), ascii(["ü", 1])
