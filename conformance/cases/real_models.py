"""Constructs of real models (issue 11), as plain-Python stand-ins for the library code
that uses them (no transformers needed): decorated forwards, `hasattr` on modules,
configs with their own `__getattribute__`, `__getattr__` that raises AttributeError,
`super()`, dataclass outputs with a custom `__setattr__`, and torch's trace-time queries.
"""

import dataclasses
import functools

import torch
from torch import nn

from conformance.spec import Call, Expect, T, case


def forwards_arguments(fn):
    """A decorator as Hugging Face's: ``*args/**kwargs`` forwarded, ``functools.wraps``."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    return wrapper


class Config:
    """A config whose aliases are resolved by its own ``__getattribute__``."""

    attribute_map = {"width": "hidden_size"}

    def __init__(self):
        self.hidden_size = 3
        self.scale = 2.0

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


class Decorated(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.config = Config()

    @forwards_arguments
    def forward(self, x, scale=None):
        scale = self.config.scale if scale is None else scale
        return self.lin(x) * scale


@case(
    tags=["real-models", "nn-module", "calls"],
    calls=[Call(T(2, 3)), Call(T(2, 3), kwargs={"scale": 3.0})],
    factory=True,
    expect=Expect(graphs=2),
)
def decorated_forward():
    """A forward wrapped by a ``functools.wraps`` decorator binds by the wrapper's own
    signature (``inspect.signature`` would follow ``__wrapped__``)."""
    return Decorated()


class WithOptional(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.config = Config()

    def forward(self, x):
        y = self.lin(x) if hasattr(self, "lin") else x
        if hasattr(self, "head"):
            y = self.head(y)
        return y * self.config.width if hasattr(self, "config") else y


@case(
    tags=["real-models", "nn-module", "builtins"],
    calls=[Call(T(2, 3))],
    factory=True,
    expect=Expect(frames=1, graphs=1, ops=[["torch._C._nn.linear", "mul"]]),
)
def module_hasattr():
    """``hasattr`` on a module: submodules through ``nn.Module.__getattr__``, instance
    attributes, and a missing name; a config alias through ``__getattribute__``."""
    return WithOptional()


class Lazy:
    """Computes some attributes on demand; others raise AttributeError."""

    def __getattr__(self, name):
        if name == "factor":
            return 4
        raise AttributeError(name)


LAZY = Lazy()


@case(
    tags=["real-models", "builtins"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add"]]),
)
def getattr_raising_attribute_error(x):
    """An AttributeError from ``__getattr__`` makes ``hasattr`` False and ``getattr``
    return its default."""
    y = x * LAZY.factor
    if hasattr(LAZY, "bias"):
        y = y + LAZY.bias
    return y + getattr(LAZY, "offset", 1)


class Base:
    def __init__(self, a):
        self.a = a

    def apply(self, x):
        return x + self.a


class Child(Base):
    def __init__(self, a):
        super().__init__(a)
        self.b = 2

    def apply(self, x):
        return super().apply(x) * self.b


@case(
    tags=["real-models", "calls"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["add", "mul"]]),
)
def super_calls(x):
    """``super().__init__`` and ``super().method`` of an object made in the trace."""
    return Child(3).apply(x)


@dataclasses.dataclass
class Output:
    """A model output: a dataclass whose ``__setattr__`` keeps a list of set fields."""

    logits: torch.Tensor = None
    loss: torch.Tensor = None

    def __post_init__(self):
        names = [f.name for f in dataclasses.fields(self)]
        super().__setattr__("present", [n for n in names if getattr(self, n) is not None])

    def __setattr__(self, name, value):
        super().__setattr__(name, value)

    def to_tuple(self):
        return tuple(getattr(self, n) for n in self.present)


@case(
    tags=["real-models", "side-effects"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["mul", ".sum"]]),
)
def dataclass_output(x):
    """A dataclass output made, read and returned: its ``__setattr__``, ``__post_init__``
    and ``dataclasses.fields`` are traced; the returned object has eager's attributes."""
    out = Output(logits=x * 2)
    out.loss = out.to_tuple()[0].sum()
    return out.logits, out.loss, out.present


@case(
    tags=["real-models"],
    calls=[Call(T(2, 4))],
    expect=Expect(frames=1, graphs=1, ops=[["add", "mul", "mul"]]),
)
def trace_time_queries(x):
    """``torch._assert`` on a constant, ``torch.jit.is_scripting()`` and
    ``torch.compiler.is_compiling()`` are answered at trace time, as inside Dynamo (the
    latter differs from eager's answer, so it only chooses between equal results)."""
    torch._assert(x.dim() == 2, "expects a matrix")
    y = x + 1
    if not torch.jit.is_scripting():
        y = y * 2
    return y * 1 if torch.compiler.is_compiling() else y


@case(
    tags=["real-models"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, ops=[["torch.sin", "mul"]]),
)
def import_in_function(x):
    """An import statement of a module imported already (``import torch`` inside a
    function, as library helpers do)."""
    import math

    import torch.nn.functional as F  # noqa: F401

    return torch.sin(x) * math.pi
