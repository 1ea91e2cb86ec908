"""Constructs of real models (issue 11), as plain-Python stand-ins for the library code
that uses them (no transformers needed): decorated forwards, `hasattr` on modules,
configs with their own `__getattribute__`, `__getattr__` that raises AttributeError,
`super()`, dataclass outputs with a custom `__setattr__`, torch's trace-time queries."""

import collections
import collections.abc
import dataclasses
import functools
import inspect
import warnings

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


@dataclasses.dataclass
class DictOutput(collections.OrderedDict):
    """Hugging Face's ``ModelOutput`` in small: an OrderedDict subclass and a dataclass
    whose fields are mirrored as items; indexing by name or position, ``to_tuple``."""

    logits: torch.Tensor = None
    hidden: torch.Tensor = None

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = self.__dict__.get(field.name)
            if value is not None:
                self[field.name] = value

    def __setattr__(self, name, value):
        if name in {f.name for f in dataclasses.fields(self)} and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __getitem__(self, key):
        if isinstance(key, str):
            return dict(self.items())[key]
        return self.to_tuple()[key]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@case(
    tags=["real-models", "containers", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add", "add", "sub"]]),
)
def dict_subclass_output(x):
    """A ``ModelOutput``-style dict subclass made in the trace: its items and attributes
    are set through ``super().__setitem__``/``__setattr__``, read back by name, position
    and attribute, and the returned object is rebuilt with eager's items and fields."""
    out = DictOutput(logits=x * 2)
    out.hidden = out[0] + 1
    y = out["logits"] + out.hidden
    return out, y - len(out), list(out.keys())


class Pair(collections.abc.Sequence):
    """A class whose iteration and ``in`` come from the ``Sequence`` ABC's mixins."""

    def __init__(self, a, b):
        self.items = [a, b]

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return 2


@case(
    tags=["real-models", "containers", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add", "add"]]),
)
def abc_sequence_subclass(x):
    """``collections.abc`` classes are traced: ``Sequence.__iter__`` and
    ``__contains__`` run the subclass's ``__getitem__``."""
    pair = Pair(x, x * 2)
    total = x
    for item in pair:
        total = total + item
    return total, x in pair, len(pair)


class Chunked(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def chunk(self, hidden):
        return self.lin(hidden)

    def forward(self, x):
        n_args = len(inspect.signature(self.chunk).parameters)
        names = list(inspect.signature(self.chunk).parameters)
        return self.chunk(x) * n_args, names


@case(
    tags=["real-models", "stdlib", "fullgraph"],
    calls=[Call(T(2, 3))],
    options={"fullgraph": True},
    factory=True,
    expect=Expect(frames=1, graphs=1),
)
def inspect_signature_of_method():
    """``inspect.signature`` of a bound method (as transformers'
    ``apply_chunking_to_forward``): answered at trace time from the function."""
    return Chunked()


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)])
        self.depth = 2

    def forward(self, x):
        for layer in self.layers[: self.depth]:
            x = layer(x)
        return x


@case(
    tags=["real-models", "nn-module", "fullgraph"],
    calls=[Call(T(2, 3))],
    options={"fullgraph": True},
    factory=True,
    expect=Expect(frames=1, graphs=1),
)
def module_list_slice():
    """``self.layers[:n]`` of a ModuleList (Llama's decoder loop) is a new ModuleList
    of the same layers; its construction logs API usage in the graph, as Dynamo's."""
    return Stack()


class Rotary(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("freq", torch.arange(3.0))

    @torch.no_grad()
    def forward(self, x):
        return x * self.freq, torch.is_grad_enabled()


@case(
    tags=["real-models", "context-managers", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def no_grad_decorated_method(x):
    """A method decorated with ``@torch.no_grad()`` (Llama's rotary embedding): the
    decorator's wrapper makes a fresh manager per call (``ctx.clone()``)."""
    return ROTARY(x)


ROTARY = Rotary()


def scale(x, k):
    acc = 0
    acc += x * k
    return acc


@case(
    tags=["real-models", "arithmetic", "fullgraph"],
    calls=[Call(T(3), 2)],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add", "add"]]),
)
def number_plus_equals_tensor(x, k):
    """``acc = 0; acc += tensor`` (T5's position buckets): an int has no in-place add,
    so Python computes ``0 + tensor``; the graph holds a plain add."""
    return scale(x, k) + scale.__class__.__name__.count("f")


@case(
    tags=["real-models", "torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def api_usage_logging(x):
    """``torch._C._log_api_usage_once`` (torchvision's ops call it) is a graph node, as
    in Dynamo: the graph repeats the effect on every call."""
    torch._C._log_api_usage_once("conformance.api_usage_logging")
    return x + 1


ATTENTION = nn.MultiheadAttention(4, 2, batch_first=True).eval()


@case(
    tags=["real-models", "nn-module"],
    calls=[Call(T(1, 3, 4))],
    expect=Expect(frames=1, graphs=1),
)
def attention_takes_composite_path(x):
    """``nn.MultiheadAttention`` without grad takes its composite path (the ops of
    ``F.multi_head_attention_forward``), as under Dynamo, not the fused fast path."""
    with torch.no_grad():
        return ATTENTION(x, x, x)[0]


@case(
    tags=["real-models", "dynamic-shapes", "builtins"],
    calls=[Call(T(2, 4, 3)), Call(T(3, 4, 3)), Call(T(5, 4, 3))],
    expect=Expect(frames=2, graphs=2, ops=[["add"], ["add"]]),
)
def symbolic_shape_in_assert_message(x):
    """torchvision's ViT: ``torch._assert(x.dim() == 3, f"... {x.shape}")``. The message
    of a true assert is never built: an f-string of a symbolic torch.Size stays lazy (as
    Dynamo's StringFormatVariable) instead of breaking or specializing the batch size."""
    torch._assert(x.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {x.shape}")
    return x + 1


@case(
    tags=["real-models", "dynamic-shapes", "builtins"],
    calls=[Call(T(2, 3)), Call(T(3, 3)), Call(T(4, 3))],
    expect=Expect(frames=2, graphs=2),
)
def formatted_symbolic_shape_is_returned(x):
    """An f-string of a symbolic shape the program keeps is built by the generated code
    after the graph, with the run's own sizes."""
    return x * 2, f"shape {x.shape}|"


@case(
    tags=["real-models", "dynamic-shapes"],
    calls=[Call(T(2, 3)), Call(T(3, 3)), Call(T(4, 3))],
    expect=Expect(
        frames=2,
        graphs=2,
        ops=[["torch.cat", ".view"], ["torch.cat", "mul", "mul", ".view", "add"]],
    ),
)
def size_queries_become_size_arithmetic(x):
    """``y.size(0)`` and ``y.shape[0]`` of an intermediate are computed from the size
    input (``mul_1 = 2 * s0``) once, as torch.fx's runtime-assert pass rewrites them in
    Dynamo's graphs: no ``size``/``getitem`` nodes, and ``y`` need not be kept for them."""
    y = torch.cat([x, x])
    n = y.size(0)
    return y.view(n * 3), y.shape[0] + 1


@case(
    tags=["real-models", "dynamic-shapes"],
    calls=[Call(T(2, 8, 6)), Call(T(3, 8, 6)), Call(T(4, 8, 6))],
    expect=Expect(frames=2, graphs=2, ops=[[".view"], ["torch.Size", ".view"]]),
)
def symbolic_size_argument_is_a_size_node(x):
    """GPT-2's attention: ``x.view(x.size()[:-1] + (2, 3))``. A size with a symbolic dim
    given to an op is a ``torch.Size([s0, 8, 2, 3])`` node, as in Dynamo's graphs."""
    return x.view(x.size()[:-1] + (2, 3))


class Scaler:
    def twice(self, t):
        t = t.sin()
        torch._dynamo.graph_break()
        return t.cos()


@case(
    tags=["real-models", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=2, graphs=2, ops=[[".sin"], [".cos"]]),
)
def break_in_method_of_new_object(x):
    """A graph break inside an inlined method of an object the frame created: Dynamo
    2.14/2.15 (``nested_graph_breaks`` off) break at the call in the caller, which needs
    the bound method on the stack; a method of a new object cannot be rebuilt, so the
    caller runs eagerly, and the method is compiled as its own frame (two graphs)."""
    y = x - 1
    y = Scaler().twice(y)
    return y.exp()


with warnings.catch_warnings():  # torch.jit.script is deprecated, still used by models
    warnings.simplefilter("ignore")

    @torch.jit.script
    def scripted_scale(x: torch.Tensor, factor: int) -> torch.Tensor:
        return x * (x.size(-1) * factor) ** -0.5


@case(
    tags=["real-models", "fullgraph"],
    calls=[Call(T(2, 4)), Call(T(2, 4))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1, ops=[["mul", ".sin"]]),
)
def jit_scripted_helper_is_inlined(x):
    """DeBERTa's `@torch.jit.script` helpers: the ScriptFunction keeps its Python
    original (`_torchdynamo_inline`), which is traced into the graph as Dynamo does."""
    return scripted_scale(x, 2).sin()


@case(
    tags=["real-models", "dynamic-shapes"],
    calls=[Call(T(2, 8, dtype=torch.int64)), Call(T(3, 8, dtype=torch.int64))],
    expect=Expect(frames=2, graphs=2),
)
def size_read_once_given_whole_to_ops(input_ids):
    """SqueezeBERT/DeBERTa embeddings: `input_shape = input_ids.size()` given whole to
    `torch.ones` and `torch.zeros`. Once the batch is dynamic, both ops take the one
    `size = l_input_ids_.size()` node, as in Dynamo's graph, not a new torch.Size each."""
    input_shape = input_ids.size()
    mask = torch.ones(input_shape)
    token_type_ids = torch.zeros(input_shape, dtype=torch.long)
    return input_ids * mask + token_type_ids
