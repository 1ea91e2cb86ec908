"""Random whole programs as a new user would write them, for the differential fuzzer.

A program is a module (fixed prelude: globals, a user class, an nn.Module, a helper)
and one function `f(x, lst, k, box)` made of statements drawn from feature classes
(tensors, views, scalars, containers, loops, closures, globals, objects, prints,
exceptions, nn.Module, generators, with-blocks, comprehensions, f-strings, dynamic
shapes), called six times: new values, a changed int, a changed shape, a changed list
length, rebound globals. Drawing goes through a `Chooser`, so hypothesis (shrinking) and
a plain `random.Random` (long campaigns, benchmarks/fuzz.py) build the same programs.
"""

from __future__ import annotations

import dataclasses
import random
import textwrap
from typing import Protocol

from hypothesis import strategies as st

PRELUDE = """\
import torch

G = 2
W = torch.tensor(1.5)
LOG = []


class Box:
    def __init__(self, w, n):
        self.w = w
        self.n = n


class BoxModule(torch.nn.Module):
    def __init__(self, w, n):
        super().__init__()
        self.register_buffer("w", w)
        self.n = n


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 2.0

    def forward(self, t):
        return t * self.k


MOD = Scale()


def helper(t, m):
    return t + m


def rebind_globals():
    global G, W
    G = G + 5
    W = torch.tensor(-0.5)
"""

# Statement templates per feature class; `C` is replaced by a small constant (1..3).
STATEMENTS: dict[str, list[str]] = {
    "tensors": [
        "acc = acc + x * C",
        "acc = torch.relu(acc) - C",
        "acc = acc.sum() + acc",
        "acc = torch.cat([acc, x])[: acc.shape[0]]",
    ],
    "views": [
        "acc = acc + x.view(-1, 1).sum(1)",
        "acc = acc + x[:1]",
        "x.add_(C)",
        "x[0] = C",
        "x[:1].mul_(C)",
        "v = acc.view(-1)\nv.add_(C)",
    ],
    "scalars": [
        "n = n * C + k",
        "n = len(str(k + n))",
        "acc = acc * (n % 3 + 1)",
        "acc = acc + float(k) / C",
        "n = abs(n - C) // 2",
    ],
    "containers": [
        "lst.append(k + C)",
        "lst.append(acc * C)",
        "if lst:\n    lst.pop()",
        "if lst:\n    lst[0] = n",
        'd = {"a": acc, "n": n}\nacc = d["a"] + d["n"]',
        "t = tuple(lst)\nn = n + len(t)",
        "lst.insert(0, n)",
    ],
    "loops": [
        "for i in range(k % 3):\n    acc = acc + i",
        "for e in lst:\n    acc = acc + e",
        "for i, e in enumerate(lst):\n    n = n + i",
        "i = 0\nwhile i < C:\n    acc = acc * 1 + i\n    i += 1",
    ],
    "closures": [
        "def inner(z):\n    return z * C + k\nacc = inner(acc)",
        "scale = C\ndef inner2(z):\n    return z + scale + n\nacc = inner2(acc)",
        "acc = (lambda z: z - n)(acc)",
        "acc = helper(acc, k)",
        "def bump():\n    nonlocal n\n    n = n + C\nbump()",
    ],
    "globals": [
        "acc = acc + G",
        "acc = acc * W",
        "G = G + C",
        "LOG.append(n)",
        "W = W + C",
    ],
    "objects": [
        "acc = acc * box.w",
        "box.n = box.n + C",
        "box.extra = n",
        "box.w = box.w + C",
        "box.w.add_(C)",
        "n = n + box.n",
        "box.w = box.w * C\nacc = acc + box.w",
    ],
    "prints": [
        'print("n", n)',
        'print(f"k={k} n={n}")',
        "print(acc.shape)",
    ],
    "exceptions": [
        'if k > C + 3:\n    raise ValueError(f"k too big: {k}")',
        "try:\n    if n > C:\n        raise KeyError(n)\nexcept KeyError as e:\n"
        "    n = n + len(str(e))",
        "try:\n    lst[5]\nexcept IndexError:\n    n = n + 1",
        'if len(lst) > C + 2:\n    raise RuntimeError("list of " + str(len(lst)))',
    ],
    "nn-module": [
        "acc = MOD(acc)",
        "MOD.k = MOD.k + C",
    ],
    "generators": [
        "def gen():\n    for e in range(k % 4):\n        yield e * C\nn = n + sum(gen())",
        "n = n + sum(e * 2 for e in range(k % 4))",
    ],
    "with-blocks": [
        "with torch.no_grad():\n    acc = acc * C",
    ],
    "comprehensions": [
        "vals = [e for e in lst]\nn = n + len(vals)",
        "sq = {i: i * i for i in range(3)}\nn = n + sq[C % 3]",
        "acc = acc + sum([acc * i for i in range(C)])",
    ],
    "f-strings": [
        's = f"{n}-{k}"\nn = n + len(s)',
        'msg = f"{k:03d}"\nn = n + int(msg[-1])',
    ],
    "dynamic-shapes": [
        "acc = acc * x.shape[0]",
        "n = n + x.size(0)",
        "acc = acc + torch.ones(x.shape[0])",
    ],
}
FEATURES = tuple(STATEMENTS)

RETURNS = ("acc", "x", "lst", "(acc, n)", "box", "(acc, lst, n)", "n", "[acc, x]", "box.w")


@dataclasses.dataclass(frozen=True)
class Args:
    """How to build one call's arguments: `x` and `box.w` are seeded randn of `size`;
    `box` is a `Box`, or a `BoxModule` (an nn.Module with `w` a buffer)."""

    seed: int
    size: int
    length: int
    k: int
    rebind: bool = False
    module: bool = False


@dataclasses.dataclass(frozen=True)
class Program:
    statements: tuple[tuple[str, str], ...]  # (feature, code)
    returns: str
    calls: tuple[Args, ...]

    @property
    def features(self) -> frozenset[str]:
        return frozenset(feature for feature, _ in self.statements)

    def function_source(self) -> str:
        body = ["global G, W", "acc = x * 1", "n = k"]
        body += [code for _, code in self.statements]
        body.append(f"return {self.returns}")
        return "def f(x, lst, k, box):\n" + textwrap.indent("\n".join(body), "    ") + "\n"

    def source(self) -> str:
        return PRELUDE + "\n\n" + self.function_source()

    def as_case(self) -> str:
        """The program as a conformance case to paste (conformance/cases/fuzz_regressions)."""
        calls = []
        for a in self.calls:
            lst = list(range(a.seed, a.seed + a.length))
            before = ", before=rebind_globals" if a.rebind else ""
            box = f"Make({'BoxModule' if a.module else 'Box'}, T({a.size}), {a.seed})"
            calls.append(f"    Call(T({a.size}), {lst}, {a.k}, {box}{before}),")
        header = "# prelude: tests/fuzz/fuzz_programs.py PRELUDE (G, W, LOG, MOD, Box ...)"
        lines = [header, '@case(tags=["side-effects"], calls=[', *calls, "])"]
        return "\n".join(lines) + "\n" + self.function_source()


class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...


class RandomChooser:
    """Draws from a seeded `random.Random` (long campaigns)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class HypothesisChooser:
    """Draws through hypothesis, which then shrinks a failing program."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))


def build_program(choose: Chooser, max_statements: int = 6) -> Program:
    statements = []
    for _ in range(choose.integer(1, max_statements)):
        feature = FEATURES[choose.integer(0, len(FEATURES) - 1)]
        templates = STATEMENTS[feature]
        code = templates[choose.integer(0, len(templates) - 1)]
        statements.append((feature, code.replace("C", str(choose.integer(1, 3)))))
    returns = RETURNS[choose.integer(0, len(RETURNS) - 1)]
    size, length, k = choose.integer(2, 4), choose.integer(0, 3), choose.integer(0, 4)
    module = choose.integer(0, 1) == 1
    # Each change is kept and pushed further in the later calls: the call after an int
    # or a size became dynamic (automatic dynamic) shows a value baked in without a guard.
    calls = (
        Args(0, size, length, k, module=module),
        Args(1, size, length, k, module=module),
        Args(2, size, length, k + 1, module=module),
        Args(3, size + 1, length, k + 2, module=module),
        Args(4, size + 2, length + 1, k + 3, module=module),
        Args(5, size + 3, length + 2, k + 4, rebind=True, module=module),
    )
    return Program(tuple(statements), returns, calls)


@st.composite
def programs(draw: st.DrawFn) -> Program:
    return build_program(HypothesisChooser(draw))
