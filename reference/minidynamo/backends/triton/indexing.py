"""Index expressions: the integer arithmetic that turns loop variables into memory offsets.

Lowering builds them (each view composes an index function), the scheduler compares them
(a fused load must read the very element its producer stores) and codegen prints them into
Triton source. An `Index` is a sum of `coefficient * atom` terms plus a constant; an atom
is a loop variable, a floor division or a modulo. Simplification knows that a variable lies
in [0, size), which is all that reshapes and broadcasts need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Var:
    """A loop variable ranging over [0, size)."""

    name: str
    size: int

    def bounds(self) -> tuple[int, int]:
        return 0, max(self.size - 1, 0)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FloorDiv:
    base: Index
    divisor: int

    def bounds(self) -> tuple[int, int]:
        lo, hi = self.base.bounds()
        return lo // self.divisor, hi // self.divisor

    def __str__(self) -> str:
        return f"({self.base.operand()} // {self.divisor})"


@dataclass(frozen=True)
class Mod:
    base: Index
    divisor: int

    def bounds(self) -> tuple[int, int]:
        return 0, self.divisor - 1

    def __str__(self) -> str:
        return f"({self.base.operand()} % {self.divisor})"


@dataclass(frozen=True)
class AtLeastZero:
    """``max(base, 0)``: a coordinate shifted under a mask (pad, cat) is negative only in
    lanes the mask switches off; clamped, it keeps later // and % exact where it loads."""

    base: Index

    def bounds(self) -> tuple[int, int]:
        lo, hi = self.base.bounds()
        return max(lo, 0), max(hi, 0)

    def __str__(self) -> str:
        return f"tl.maximum({self.base}, 0)"


Atom = Var | FloorDiv | Mod | AtLeastZero


@dataclass(frozen=True)
class Index:
    """sum(coefficient * atom) + const, kept in a canonical (sorted, merged) form."""

    terms: tuple[tuple[Atom, int], ...] = ()
    const: int = 0

    def __add__(self, other: Index | int) -> Index:
        other = as_index(other)
        merged = dict(self.terms)
        for atom, coef in other.terms:
            merged[atom] = merged.get(atom, 0) + coef
        return _canonical(merged, self.const + other.const)

    __radd__ = __add__

    def __sub__(self, other: Index | int) -> Index:
        return self + as_index(other) * -1

    def __rsub__(self, other: int) -> Index:
        return as_index(other) + self * -1

    def __mul__(self, factor: int) -> Index:
        return _canonical({a: c * factor for a, c in self.terms}, self.const * factor)

    __rmul__ = __mul__

    def __floordiv__(self, divisor: int) -> Index:
        return _floordiv(self, divisor)

    def __mod__(self, divisor: int) -> Index:
        return _mod(self, divisor)

    def bounds(self) -> tuple[int, int]:
        lo = hi = self.const
        for atom, coef in self.terms:
            a_lo, a_hi = atom.bounds()
            lo += min(coef * a_lo, coef * a_hi)
            hi += max(coef * a_lo, coef * a_hi)
        return lo, hi

    def variables(self) -> set[str]:
        names: set[str] = set()
        for atom, _ in self.terms:
            names |= {atom.name} if isinstance(atom, Var) else atom.base.variables()
        return names

    def affine_strides(self) -> dict[str, int] | None:
        """{variable: coefficient} if this is affine in plain variables, else None."""
        if not all(isinstance(atom, Var) for atom, _ in self.terms):
            return None
        return {atom.name: coef for atom, coef in self.terms}

    def evaluate(self, values: dict[str, int]) -> int:
        """The integer value for concrete variable values (used by tests and checks)."""
        total = self.const
        for atom, coef in self.terms:
            total += coef * _evaluate_atom(atom, values)
        return total

    def operand(self) -> str:
        """The text, parenthesized unless it is a single atom or number."""
        single = len(self.terms) == 1 and self.terms[0][1] == 1 and self.const == 0
        return str(self) if single or not self.terms else f"({self})"

    def __str__(self) -> str:
        parts = [str(atom) if coef == 1 else f"{coef}*{atom}" for atom, coef in self.terms]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts).replace("+ -", "- ")


def as_index(value: Index | int) -> Index:
    return value if isinstance(value, Index) else Index((), value)


def var(name: str, size: int) -> Index:
    return Index(((Var(name, size), 1),), 0)


def _evaluate_atom(atom: Atom, values: dict[str, int]) -> int:
    if isinstance(atom, Var):
        return values[atom.name]
    base = atom.base.evaluate(values)
    if isinstance(atom, AtLeastZero):
        return max(base, 0)
    return base // atom.divisor if isinstance(atom, FloorDiv) else base % atom.divisor


def _canonical(terms: dict[Atom, int], const: int) -> Index:
    terms = {a: c for a, c in terms.items() if c != 0}
    while (merged := _merge_div_mod(terms)) is not None:
        terms, extra = merged
        const += extra
    ordered = tuple(sorted(terms.items(), key=lambda item: str(item[0])))
    return Index(ordered, const)


def _merge_div_mod(terms: dict[Atom, int]) -> tuple[dict[Atom, int], int] | None:
    """Rewrite k*d*(e // d) + k*(e % d) as k*e: what a reshape of a reshape leaves behind."""
    for atom, k in terms.items():
        if not isinstance(atom, Mod):
            continue
        quotient = _floordiv(atom.base, atom.divisor)
        if quotient.const != 0 or len(quotient.terms) != 1 or quotient.terms[0][1] != 1:
            continue
        partner = quotient.terms[0][0]
        if terms.get(partner, 0) == k * atom.divisor:
            rest = {a: c for a, c in terms.items() if a not in (atom, partner)}
            for inner, inner_coef in atom.base.terms:
                rest[inner] = rest.get(inner, 0) + k * inner_coef
            return {a: c for a, c in rest.items() if c != 0}, k * atom.base.const
    return None


def _split(index: Index, divisor: int) -> tuple[Index, Index]:
    """(multiples, rest): index == multiples + rest, multiples divisible by `divisor`."""
    multiples = {a: c for a, c in index.terms if c % divisor == 0}
    rest = {a: c for a, c in index.terms if c % divisor != 0}
    const_q, const_r = divmod(index.const, divisor)
    return _canonical(multiples, const_q * divisor), _canonical(rest, const_r)


def _floordiv(index: Index, divisor: int) -> Index:
    if divisor == 1:
        return index
    multiples, rest = _split(index, divisor)
    quotient = _canonical({a: c // divisor for a, c in multiples.terms}, multiples.const // divisor)
    lo, hi = rest.bounds()
    if 0 <= lo and hi < divisor:
        return quotient
    if lo >= 0:
        factor = _common_factor(index, divisor)
        if factor is not None:
            return _floordiv(_split(index, factor)[0] // factor, divisor // factor)
        return quotient + _nested_floordiv(rest, divisor)
    return _atom(FloorDiv(_non_negative(index), divisor))


def _common_factor(index: Index, divisor: int) -> int | None:
    """A factor g of divisor with index = g*q + r, 0 <= r < g: then index // divisor is
    q // (divisor / g), as when a row of 16 elements splits into rows of 5 x 16."""
    for coef in sorted({abs(c) for _, c in index.terms}, reverse=True):
        factor = math.gcd(coef, divisor)
        if 1 < factor < divisor:
            lo, hi = _split(index, factor)[1].bounds()
            if 0 <= lo and hi < factor:
                return factor
    return None


def _nested_floordiv(index: Index, divisor: int) -> Index:
    """(e // a) // b == e // (a*b) for non-negative e."""
    if index.const == 0 and len(index.terms) == 1:
        ((atom, coef),) = index.terms
        if coef == 1 and isinstance(atom, FloorDiv):
            return _floordiv(atom.base, atom.divisor * divisor)
    return _atom(FloorDiv(index, divisor))


def _mod(index: Index, divisor: int) -> Index:
    if divisor == 1:
        return Index()
    _, rest = _split(index, divisor)
    lo, hi = rest.bounds()
    if 0 <= lo and hi < divisor:
        return rest
    if lo < 0:
        return _atom(Mod(_non_negative(index), divisor))
    factor = _common_factor(rest, divisor)
    if factor is not None:
        multiples, remainder = _split(rest, factor)
        return (multiples // factor) % (divisor // factor) * factor + remainder
    if rest.const == 0 and len(rest.terms) == 1:
        ((atom, coef),) = rest.terms
        if coef == 1 and isinstance(atom, Mod) and atom.divisor % divisor == 0:
            return _mod(atom.base, divisor)
    return _atom(Mod(rest, divisor))


def _non_negative(index: Index) -> Index:
    # Triton's // and % truncate toward zero; they agree with Python's only on values >= 0.
    if index.bounds()[0] < 0:
        raise ValueError(f"cannot divide the possibly negative index {index}")
    return index


def at_least_zero(index: Index) -> Index:
    """`index`, or ``max(index, 0)`` where it may be negative (see AtLeastZero)."""
    return index if index.bounds()[0] >= 0 else _atom(AtLeastZero(index))


def _atom(atom: Atom) -> Index:
    return Index(((atom, 1),), 0)


def decompose(flat: Index, sizes: tuple[int, ...]) -> list[Index]:
    """Row-major coordinates of a flat position: the inverse of `flatten`."""
    if 0 in sizes:
        return [Index()] * len(sizes)  # an empty tensor has no element to locate
    coords: list[Index] = []
    stride = 1
    for size in reversed(sizes):
        coords.append(Index() if size == 1 else (flat // stride) % size)
        stride *= size
    return coords[::-1]


def flatten(coords: list[Index], sizes: tuple[int, ...]) -> Index:
    """The row-major flat position of coordinates in a tensor of `sizes`."""
    flat = Index()
    for coord, size in zip(coords, sizes, strict=True):
        flat = flat * size + coord
    return flat
