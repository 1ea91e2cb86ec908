"""The seed's examples, runnable: `python -m minidynamo demo` prints their graphs,
guards, recompiles and graph breaks in the seed's formats (seed sections 1-6), and the golden tests
snapshot the same text.

Each example is the seed's program with `minidynamo.compile` for `torch.compile`, run
under the seed's file name (registered with linecache so `# File:` lines show code).
"""

from __future__ import annotations

import dataclasses
import linecache

from minidynamo import logs

_HEADER = "import torch\nimport minidynamo\n"

# The seed's fn(x, n), called with different ints by several examples.
SPECIALIZE = (
    _HEADER
    + """\
@minidynamo.compile
def fn(x, n):
    y = x ** 2
    if n >= 0:
        return (n + 1) * y
    else:
        return y / n

x = torch.randn(200)
"""
)


@dataclasses.dataclass(frozen=True)
class Example:
    name: str
    filename: str
    channels: tuple[str, ...]
    source: str

    @property
    def command(self) -> str:
        return f"MINIDYNAMO_LOGS={','.join(self.channels)} python {self.filename}"


SEED_EXAMPLES = [
    Example(
        "mse",
        "example.py",
        ("graph_code",),
        _HEADER
        + """\
@minidynamo.compile
def mse(x, y):
    z = (x - y) ** 2
    return z.sum()

x = torch.randn(200)
y = torch.randn(200)
mse(x, y)
""",
    ),
    Example(
        "specialize",
        "example.py",
        ("graph_code",),
        SPECIALIZE + "fn(x, 2)\n",
    ),
    Example(
        "specialize_three_calls",
        "a.py",
        ("graph_code", "recompiles"),
        SPECIALIZE + "fn(x, 2)\nfn(x, 3)\nfn(x, -2)\n",
    ),
    Example(
        "guards",
        "script.py",
        ("guards",),
        _HEADER
        + """\
@minidynamo.compile
def fn(a, b):
    return a * len(b)

fn(torch.arange(10), "Hello")
""",
    ),
    Example(
        "recompiles",
        "script.py",
        ("recompiles",),
        _HEADER
        + """\
@minidynamo.compile
def fn(a, b):
    return a * len(b)

fn(torch.arange(10), "Hello")
fn(torch.arange(10), "Hi")
""",
    ),
    Example(
        "getitem_guards",
        "script.py",
        ("guards",),
        _HEADER
        + """\
@minidynamo.compile
def fn(x, l):
    return x * len(l[0])

fn(torch.randn(8), ["Hi", "Hello"])
""",
    ),
    Example(
        "shape_recompiles",
        "script.py",
        ("graph_code", "guards", "recompiles"),
        _HEADER
        + """\
@minidynamo.compile
def fn(a, b):
    return a.shape[0] * a * b

fn(torch.randn(4, 3), torch.randn(4, 3))
fn(torch.randn(8, 3), torch.randn(8, 3))
""",
    ),
]


# Seed "Graph Breaks": `print` runs in CPython between two graphs.
GRAPH_BREAK_EXAMPLE = Example(
    "print_graph_break",
    "script.py",
    ("graph_code", "graph_breaks"),
    _HEADER
    + """\
@minidynamo.compile
def fn(a):
    b = a + 2
    print("Hi")
    return b + a

fn(torch.randn(4))
""",
)


def run_example(example: Example) -> str:
    """Run one example from a clean cache; the text its log channels print."""
    import minidynamo

    minidynamo.reset()
    lines = example.source.splitlines(keepends=True)
    linecache.cache[example.filename] = (len(example.source), None, lines, example.filename)
    try:
        code = compile(example.source, example.filename, "exec")
        with logs.capture(*example.channels) as messages:
            exec(code, {"__name__": f"minidynamo_demo_{example.name}"})
    finally:
        linecache.cache.pop(example.filename, None)
        minidynamo.reset()
    return "\n".join(messages) + "\n"


def main() -> None:
    for example in [*SEED_EXAMPLES, GRAPH_BREAK_EXAMPLE]:
        print(f"$ {example.command}    # seed example: {example.name}")
        print(example.source)
        print(run_example(example))
