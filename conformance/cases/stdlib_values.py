"""Python values from the standard library while tracing: str methods and formatting,
math on numbers, enum members, namedtuple and dataclass classes made in the function,
function attributes, os.environ, typing helpers and int methods on sizes.

All of them are computed at trace time (the tensors' shapes are static), so each
program is one graph under `fullgraph=True`, as in Dynamo.
"""

import dataclasses
import enum
import math
import os
import sys
import typing

import torch

from conformance.spec import Call, Expect, Make, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
TAGS = ["stdlib", "fullgraph"]


# str


@case(tags=TAGS, calls=[Call(T(3), "layer.0.weight")], options=FULLGRAPH, expect=one_graph("mul"))
def str_split_and_join(x, name):
    parts = name.split(".")
    prefix = "/".join(parts[:-1])
    return x * len(parts), prefix, name.endswith("weight")


@case(tags=TAGS, calls=[Call(T(3), "Conv2d")], options=FULLGRAPH, expect=one_graph("add"))
def str_replace_lower_strip(x, name):
    key = f"  {name}  ".strip().lower().replace("2d", "")
    return x + len(key), key, key.upper(), key.title()


@case(tags=TAGS, calls=[Call(T(3), "relu")], options=FULLGRAPH, expect=one_graph("torch.relu"))
def str_format_method(x, act):
    label = "{}_{:03d}".format(act, 7)  # noqa: UP032 - str.format is what is traced
    return torch.relu(x), label, "{name}!".format(name=act)  # noqa: UP032


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def percent_formatting(x):
    s = "%s-%d-%.2f" % ("w", 3, 0.5)  # noqa: UP031 - %-formatting is what is traced
    return x * 2, s, "%(k)s" % {"k": "v"}  # noqa: UP031


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=one_graph("add"))
def fstring_of_shape_and_dtype(x):
    return x + 1, f"{tuple(x.shape)} {x.dtype} {x.dim():>3}"


class Unit:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Unit({self.name!r})"

    def __str__(self):
        return self.name


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def fstring_of_user_object(x):
    u = Unit("cm")
    return x * 2, f"{u}|{u!r}", str(u)


@case(tags=TAGS, calls=[Call(T(3), "a,b,,c")], options=FULLGRAPH, expect=one_graph("mul"))
def str_predicates_and_find(x, s):
    fields = [f for f in s.split(",") if f]
    return x * len(fields), s.find("b"), s.count(","), s.isdigit(), s.startswith(("a", "z"))


# math


@case(tags=TAGS, calls=[Call(T(3), 16)], options=FULLGRAPH, expect=one_graph("mul"))
def math_on_int_argument(x, n):
    scale = math.sqrt(n) + math.log2(n) + math.ceil(n / 3) + math.floor(2.5)
    return x * scale


@case(tags=TAGS, calls=[Call(T(4, 6))], options=FULLGRAPH, expect=one_graph("mul"))
def math_on_shape(x):
    return x * (math.gcd(*x.shape) + math.prod(x.shape) + math.isqrt(x.shape[1]))


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def math_constants_and_trig(x):
    return x * (math.pi + math.cos(0.0)) + math.exp(1) * math.e


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def math_isclose_and_isfinite(x):
    if math.isclose(0.1 + 0.2, 0.3) and math.isfinite(1.0) and not math.isnan(1.0):
        return x * 2
    return x


# enum


class Mode(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@case(tags=TAGS, calls=[Call(T(3), Mode.TRAIN), Call(T(3), Mode.EVAL)], options=FULLGRAPH,
      expect=Expect(frames=2, graphs=2, ops=[["mul"], ["add"]]))  # fmt: skip
def enum_member_argument(x, mode):
    if mode is Mode.TRAIN:
        return x * 2
    return x + 1


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def enum_value_name_and_lookup(x):
    m = Mode("eval")
    return x * Level.HIGH, m.name, m.value, Mode["TRAIN"].value, len(Mode)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def enum_iteration_and_membership(x):
    names = [m.name for m in Level]
    return x + Level.LOW.value, names, Level.HIGH in Level


# namedtuple and dataclass classes


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def namedtuple_fields_and_replace(x):
    import collections

    Out = collections.namedtuple("Out", ["a", "b"])
    o = Out(x + 1, x * 2)
    o2 = o._replace(b=3)
    return tuple(o), o2.b, Out._fields, o._asdict()["a"]


@dataclasses.dataclass
class Options:
    scale: float = 1.0
    names: list = dataclasses.field(default_factory=list)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dataclass_instance_made_inside(x):
    opts = Options(scale=3.0)
    opts.names.append("x")
    return x * opts.scale, opts.names


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dataclass_replace_and_fields(x):
    opts = dataclasses.replace(Options(), scale=4.0)
    names = [f.name for f in dataclasses.fields(opts)]
    return x * opts.scale, names


@dataclasses.dataclass(frozen=True)
class Frozen:
    k: int


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def frozen_dataclass_equality(x):
    a, b = Frozen(2), Frozen(2)
    return x * a.k, a == b


# function attributes


def helper(x, k=3):
    return x * k


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def function_module_and_defaults(x):
    return helper(x), helper.__module__.split(".")[-1], helper.__defaults__, helper.__name__


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def function_attribute_set_on_local_function(x):
    def inner(t):
        return t * 2

    inner.calls = 1
    return inner(x), inner.calls, hasattr(inner, "missing")


# os.environ


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def environ_get_missing_is_default(x):
    v = os.environ.get("MINIDYNAMO_SURELY_UNSET", "0")
    return x + int(v), os.getenv("MINIDYNAMO_SURELY_UNSET") is None


# typing


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def typing_cast_is_identity(x):
    y = typing.cast(torch.Tensor, x)
    return y + 1


@case(tags=TAGS, calls=[Call(T(3), [1, 2])], options=FULLGRAPH, expect=one_graph("mul"))
def isinstance_with_abc_classes(x, xs):
    import collections.abc

    if isinstance(xs, collections.abc.Sequence) and not isinstance(xs, collections.abc.Mapping):
        return x * len(xs)
    return x


# int methods on sizes


@case(
    tags=TAGS, calls=[Call(T(6)), Call(T(10))], options=FULLGRAPH, expect=Expect(frames=2, graphs=2)
)
def int_bit_length_of_size(x):
    n = x.shape[0]
    return x * n.bit_length(), n.as_integer_ratio(), n.conjugate()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def float_methods(x):
    f = 2.5
    return x * f.is_integer(), f.as_integer_ratio(), (4.0).is_integer()


@case(
    tags=["recompiles", "dynamic-shapes"],
    calls=[Call(T(4), v) for v in (2.0, 3.0, 4.0)],
    expect=Expect(frames=2, graphs=2),
)
def math_on_dynamic_float(x, f):
    """`math.sqrt` of a dynamic float is a graph node, ``torch._sym_sqrt(item)``."""
    return x * math.sqrt(f)


# formatting user objects, frozen dataclasses (probe of user-style programs, issue 18)


class Width:
    """A value with its own __repr__ only: object's __str__ and __format__ use it."""

    def __init__(self, n):
        self.n = n

    def __repr__(self):
        return f"Width({self.n})"


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def fstring_conversions_and_spec_of_user_repr(x):
    """f-string fields of a user object with only __repr__: `!r` then a width spec,
    a plain field and `!s` (object's __format__ and __str__ fall back to __repr__)."""
    w = Width(3)
    return x * w.n, f"{w!r:<10}|{w}|{w!s:>9}", str(w)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def frozen_dataclass_refuses_deletion(x):
    """`del` of a frozen dataclass's field runs its generated __delattr__, which raises
    FrozenInstanceError; the field stays."""
    f = Frozen(4)
    try:
        del f.k
        deleted = True
    except dataclasses.FrozenInstanceError:
        deleted = False
    return x * f.k, deleted


# struct sequences (probe of user-style programs, h_std)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def sys_version_info_compared_and_read(x):
    """`sys.version_info` is a tuple of its class, its items read by index and guarded
    (``G['sys'].version_info[0] == 3``): compared with a tuple, sliced, its fields read."""
    v = sys.version_info
    if v >= (3, 8):
        x = x * v.major
    return x, v[:1], len(v), v.major == v[0]


def _column_max():
    return torch.arange(12.0).reshape(3, 4).max(0)


@case(
    tags=TAGS,
    calls=[Call(Make(_column_max), T(4))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add", ".sum"),
)
def struct_sequence_argument_unpacked(r, x):
    """A `torch.return_types.max` argument (a struct sequence) is unpacked and its fields
    read by name."""
    values, indices = r
    return r.values * x + indices, r.indices.sum(), len(r)


def _scale_unset() -> None:
    os.environ.pop("CONFORMANCE_SCALE_BETWEEN_CALLS", None)


def _scale_set() -> None:
    os.environ["CONFORMANCE_SCALE_BETWEEN_CALLS"] = "5"


@case(
    tags=[*TAGS, "recompiles", "dynamo-divergence"],
    calls=[
        Call(T(3), before=_scale_unset),
        Call(T(3), before=_scale_set),
        Call(T(3), before=_scale_unset),
    ],
    expect=Expect(
        frames=2,
        graphs=2,
        recompiles=["G['os'].environ.get('CONFORMANCE_SCALE_BETWEEN_CALLS') == None"],
    ),
)
def environ_variable_set_between_calls(x):
    """An environment variable read in the function is guarded on its value: set between
    calls, the function compiles again and reads it (Dynamo folds the read unguarded and
    returns x * 2 again)."""
    return x * int(os.environ.get("CONFORMANCE_SCALE_BETWEEN_CALLS", "2"))


@case(
    tags=TAGS,
    calls=[Call(T(3), 2.5), Call(T(3), 3.0), Call(T(3), 3.5)],
    options=FULLGRAPH,
    expect=Expect(frames=3, graphs=3),
)
def float_argument_methods_specialize(x, v):
    """``v.hex()``, ``v.as_integer_ratio()`` of a float argument that turned dynamic (the
    second call): SymFloat computes them from the value, so they are constants and the
    value is guarded (``L['v'] == 3.0``): each new value recompiles, as in Dynamo."""
    return x * v, v.hex(), v.as_integer_ratio()


ACTIVATION_LOG: list = []


class Activation(enum.Enum):
    """An enum of activations whose members pick their function and log their use."""

    RELU = "relu"
    TANH = "tanh"

    def fn(self):
        ACTIVATION_LOG.append(self.name)
        return torch.relu if self is Activation.RELU else torch.tanh


@case(
    tags=TAGS,
    calls=[Call(T(3)), Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2, ops=[["torch.tanh", "torch.relu", "add"]] * 2),
)
def enum_member_method_traced(x):
    """``Activation.TANH.fn()``: a user method of an enum member is traced like any
    method, not run once at trace time: it returns a function, and its append to a
    global happens on every call (the global list read is guarded: the second call
    recompiles, as in Dynamo)."""
    return Activation.TANH.fn()(x) + Activation.RELU.fn()(x)


PRECISION_SCALES = {"half": 2.0, "full": 1.0}


def _rescale_half() -> None:
    PRECISION_SCALES["half"] = 4.0


class Precision(enum.Enum):
    """An enum whose members read their scale from a global table through a property."""

    HALF = "half"
    FULL = "full"

    @property
    def scale(self):
        return PRECISION_SCALES[self.value]


@case(
    tags=TAGS,
    calls=[Call(T(3)), Call(T(3)), Call(T(3), before=_rescale_half)],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2, ops=[["mul", "add"], [".item", "mul", "add"]]),
)
def enum_member_property_traced(x):
    """``Precision.HALF.scale``: a user property of an enum member is traced like its
    methods, so the global it reads is guarded (a new value recompiles) rather than read
    once at trace time."""
    return x * Precision.HALF.scale + Precision.FULL.scale


SimpleNamespace = type(sys.implementation)  # types.SimpleNamespace


@case(
    tags=TAGS,
    calls=[Call(T(3), SimpleNamespace(a=1)), Call(T(3), SimpleNamespace(a=1, b=5))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2, ops=[["add", "add"], ["add", "add"]]),
)
def simple_namespace_getattr_with_default(x, ns):
    """``getattr(ns, name, default)`` on a SimpleNamespace argument: its lookup is CPython's
    generic one, so a missing attribute is the default, guarded as absent
    (``not hasattr(L['ns'], 'b')``); given ``b`` the next call compiles again."""
    return x + getattr(ns, "a", 0) + getattr(ns, "b", 10)


class _Palette(enum.Enum):
    RED = 1
    GREEN = 2


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add", "add"))
def enum_members_mapping_proxy(x):
    """``Enum.__members__`` is a `types.MappingProxyType` of the class's member map,
    made by the metaclass's property: a read-only view of that dict, whose names,
    members and length are constants."""
    members = _Palette.__members__
    y = x * len(members)
    for _, member in members.items():
        y = y + member.value
    return y, list(members), "RED" in members, members["GREEN"] is _Palette.GREEN


@case(tags=TAGS, calls=[Call(T(3)), Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def seeded_random_generator_inside(x):
    """``random.Random(seed)`` made in the function: its draws (``random``, ``randint``,
    ``uniform``, ``shuffle``) depend only on the seed, so every call sees the same values,
    in eager and compiled alike; the global generator is not touched."""
    import random

    rng = random.Random(1)
    scales = [1, 2, 3]
    rng.shuffle(scales)
    return x + rng.random(), x * scales[0], rng.randint(0, 10), rng.uniform(1, 2), scales
