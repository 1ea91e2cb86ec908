"""Python semantics under compilation: classes (issue 14). Inheritance and `super`,
operator overloading, properties and descriptors, dataclasses, enums and `isinstance`
on ABCs, as helper classes beside tensor code use them.

The classes are defined at module level (a class statement inside a compiled function
is a graph break in Dynamo); their instances are made and used in the traced code.
"""

import abc
import collections.abc
import dataclasses
import enum
import functools
import typing

import torch

from conformance.spec import Call, Expect, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
TAGS = ["python-semantics", "fullgraph"]
DESCRIPTORS = ["python-semantics", "descriptors", "fullgraph"]


# inheritance and super


class Base:
    scale = 2

    def __init__(self, bias):
        self.bias = bias

    def apply(self, t):
        return t * self.scale + self.bias

    def describe(self):
        return f"{type(self).__name__}(scale={self.scale})"


class Child(Base):
    scale = 3

    def __init__(self, bias, shift):
        super().__init__(bias)
        self.shift = shift

    def apply(self, t):
        return super().apply(t) - self.shift


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add", "sub"))
def super_method_reads_subclass_attribute(x):
    """`super().apply` runs Base's code with the subclass's class attribute."""
    c = Child(1, 2)
    return c.apply(x), c.describe()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def instance_attribute_shadows_class_attribute(x):
    """An instance store shadows the class attribute for that instance only."""
    a, b = Base(0), Base(0)
    a.scale = 5
    return x * a.scale, b.scale, Base.scale, "scale" in vars(a)


class Right(Base):
    pass


class Root:
    def tag(self):
        return ["Root"]


class LeftR(Root):
    def tag(self):
        return ["Left", *super().tag()]


class RightR(Root):
    def tag(self):
        return ["Right", *super().tag()]


class Diamond(LeftR, RightR):
    def tag(self):
        return ["Diamond", *super().tag()]


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def super_follows_the_mro_in_a_diamond(x):
    """Cooperative `super()` in a diamond visits each class once, in MRO order."""
    tags = Diamond().tag()
    return x * len(tags), tags, [c.__name__ for c in Diamond.__mro__]


class Explicit(Child):
    def apply(self, t):
        return super(Child, self).apply(t) * 10


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add", "mul"))
def super_with_explicit_class_skips_one(x):
    """`super(Child, self)` starts the lookup after Child: Base's method runs."""
    return Explicit(1, 2).apply(x)


class Shape:
    def __init__(self, n):
        self.n = n

    @classmethod
    def unit(cls):
        return cls(1)

    def area(self):
        return self.n


class Square(Shape):
    def area(self):
        return self.n * self.n


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def classmethod_constructor_of_subclass(x):
    """A classmethod called on a subclass builds the subclass."""
    s = Square.unit()
    s.n = 3
    return x * s.area(), type(s).__name__, isinstance(s, Shape)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def isinstance_and_issubclass_with_tuples(x):
    """isinstance with a tuple of classes; issubclass along the hierarchy."""
    c = Child(0, 0)
    checks = isinstance(c, (int, Base)), issubclass(Child, Base), issubclass(Base, Child)
    return x * 2, checks, isinstance(c, Right), type(c) is Child


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def class_introspection(x):
    """`__class__`, `__name__`, `__qualname__`, `__bases__` and `__mro__` of classes."""
    c = Child(0, 0)
    names = c.__class__.__name__, Child.__qualname__, [b.__name__ for b in Child.__bases__]
    return x * len(Child.__mro__), names


# operator overloading


class Vec:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(self.a + other.a, self.b + other.b)
        return NotImplemented

    def __radd__(self, other):
        if other == 0:
            return self
        return NotImplemented

    def __mul__(self, k):
        return Vec(self.a * k, self.b * k)

    def __neg__(self):
        return Vec(-self.a, -self.b)

    def __eq__(self, other):
        return isinstance(other, Vec) and (self.a, self.b) == (other.a, other.b)

    def __hash__(self):
        return hash((self.a, self.b))

    def __getitem__(self, i):
        return (self.a, self.b)[i]

    def __len__(self):
        return 2


@case(tags=TAGS, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=one_graph("add", "mul", "neg"))
def operator_overloading_on_tensors_inside(x, y):
    """`+`, `*` and unary `-` of a user class whose fields are tensors."""
    v = -((Vec(x, 1) + Vec(y, 2)) * 3)
    return v.a, v.b


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def radd_makes_sum_work(x):
    """sum() starts from 0: `0 + Vec` falls to `Vec.__radd__`."""
    total = sum([Vec(1, 2), Vec(3, 4)])
    return x * total.a, total.b


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def eq_and_hash_in_set_and_dict(x):
    """Objects equal by `__eq__` with equal hashes collapse in a set and as dict keys."""
    vs = {Vec(1, 2), Vec(1, 2), Vec(2, 1)}
    d = {Vec(0, 0): "origin"}
    return x * len(vs), d[Vec(0, 0)], Vec(1, 2) != Vec(1, 3)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def getitem_and_len_make_unpacking_work(x):
    """Unpacking and list() of an object with `__getitem__` raising IndexError at the end."""
    a, b = Vec(4, 5)
    return x * a, b, list(Vec(6, 7))


@functools.total_ordering
class Version:
    def __init__(self, major, minor):
        self.key = (major, minor)

    def __eq__(self, other):
        return self.key == other.key

    def __lt__(self, other):
        return self.key < other.key


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def total_ordering_and_sorted_objects(x):
    """`functools.total_ordering` fills in `>=`; sorted uses `__lt__`."""
    vs = [Version(2, 0), Version(1, 5), Version(1, 10)]
    ordered = [v.key for v in sorted(vs)]
    return x * ordered[-1][0], ordered, Version(1, 5) >= Version(1, 4)


class Flag:
    def __init__(self, on):
        self.on = on

    def __bool__(self):
        return self.on


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def bool_dunder_in_conditions(x):
    """`__bool__` decides `if`, `not`, `and`/`or` results and filter()."""
    flags = [Flag(True), Flag(False)]
    kept = [f.on for f in filter(None, flags)]
    y = x * 2 if flags[0] and not flags[1] else x
    return y, kept, (flags[1] or "default")


# properties and descriptors


class Temperature:
    def __init__(self, celsius):
        self._c = celsius

    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32

    @fahrenheit.setter
    def fahrenheit(self, value):
        self._c = (value - 32) * 5 / 9

    @fahrenheit.deleter
    def fahrenheit(self):
        self._c = 0


@case(tags=DESCRIPTORS, calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "truediv", "add"))  # fmt: skip
def property_getter_setter_deleter(x):
    """A property with setter and deleter, on tensor and Python values."""
    t = Temperature(x)
    hot = t.fahrenheit
    t.fahrenheit = 212
    boiling = t._c
    del t.fahrenheit
    return hot, boiling, t._c


class Lazy:
    calls = 0

    def __init__(self, k):
        self.k = k

    @functools.cached_property
    def table(self):
        Lazy.calls += 1
        return [i * self.k for i in range(3)]


@case(tags=DESCRIPTORS, calls=[Call(T(3))], expect=one_graph("mul"))
def cached_property_computed_once(x):
    """`functools.cached_property` computes once, then reads the instance dict."""
    obj = Lazy(2)
    first = obj.table
    second = obj.table
    return x * second[2], first is second, "table" in vars(obj)


class Positive:
    """A data descriptor that validates and stores under a private name."""

    def __set_name__(self, owner, name):
        self.private = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.private)

    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError("must be positive")
        setattr(obj, self.private, value)


class Layer:
    width = Positive()

    def __init__(self, width):
        self.width = width


@case(tags=DESCRIPTORS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_name_descriptor_validates(x):
    """A descriptor named by `__set_name__` stores and validates; a bad value raises."""
    layer = Layer(4)
    try:
        layer.width = -1
        ok = True
    except ValueError:
        ok = False
    return x * layer.width, ok, layer._width, isinstance(Layer.width, Positive)


class Constant:
    """A non-data descriptor: an instance attribute of the same name wins over it."""

    def __get__(self, obj, objtype=None):
        return 10


class Holder:
    value = Constant()


@case(tags=DESCRIPTORS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def non_data_descriptor_shadowed_by_instance(x):
    """A descriptor with only `__get__` is shadowed by the instance dict."""
    h = Holder()
    before = h.value
    h.value = 1
    return x * before + h.value


class Config:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getattr__(self, name):
        if name.startswith("use_"):
            return False
        raise AttributeError(name)


@case(tags=DESCRIPTORS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def getattr_fallback_for_flag_defaults(x):
    """`__getattr__` answers only for missing names: defaults for `use_*` flags."""
    cfg = Config(hidden=4, use_bias=True)
    return x * cfg.hidden, cfg.use_bias, cfg.use_cache, getattr(cfg, "other", None)


# dataclasses


@dataclasses.dataclass
class TrainConfig:
    lr: float = 0.1
    layers: list = dataclasses.field(default_factory=lambda: [8, 8])
    name: str = "run"
    steps: int = dataclasses.field(default=0, init=False)

    def __post_init__(self):
        self.steps = len(self.layers) * 10


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dataclass_default_factory_and_post_init(x):
    """`default_factory` gives each instance its own list; `__post_init__` fills a field."""
    a, b = TrainConfig(), TrainConfig(lr=0.5)
    a.layers.append(4)
    return x * b.lr, a.layers, b.layers, a.steps, b.steps


@dataclasses.dataclass(order=True)
class Priority:
    level: int
    name: str = dataclasses.field(compare=False)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dataclass_ordering_and_compare_false(x):
    """`order=True` compares fields in order; `compare=False` fields are ignored."""
    ps = [Priority(2, "b"), Priority(1, "z"), Priority(2, "a")]
    ordered = sorted(ps)
    return x * ordered[0].level, [p.name for p in ordered], Priority(1, "x") == Priority(1, "y")


@dataclasses.dataclass
class Output:
    logits: torch.Tensor
    loss: typing.Optional[torch.Tensor] = None  # noqa: UP045


@dataclasses.dataclass
class OutputWithHidden(Output):
    hidden: tuple = ()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", ".sum"))
def dataclass_inheritance_adds_fields(x):
    """A dataclass subclass adds fields after its base's; fields() lists them all."""
    out = OutputWithHidden(x * 2, hidden=(x,))
    out.loss = out.logits.sum()
    return out, [f.name for f in dataclasses.fields(out)]


@case(tags=TAGS, calls=[Call(T(3))], expect=one_graph("mul"))
def dataclass_asdict_and_astuple(x):
    """asdict and astuple of a dataclass with a list field (copied, not shared)."""
    cfg = TrainConfig(lr=2.0)
    d = dataclasses.asdict(cfg)
    d["layers"].append(1)
    return x * d["lr"], dataclasses.astuple(cfg), cfg.layers


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def frozen_dataclass_is_hashable_and_immutable(x):
    """A frozen dataclass hashes by value and refuses assignment."""
    p = Point(1, 2)
    try:
        p.x = 5
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    return x * p.x, frozen, len({p, Point(1, 2)}), p == Point(1, 2)


# enums


class Mode(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"

    @property
    def is_train(self):
        return self is Mode.TRAIN

    def scale(self):
        return 2 if self.is_train else 1


@case(tags=TAGS, calls=[Call(T(3), Mode.TRAIN), Call(T(3), Mode.EVAL)], options=FULLGRAPH,
      expect=None)  # fmt: skip
def enum_methods_and_properties(x, mode):
    """An enum member's method and property; lookup by value; identity comparison."""
    return x * mode.scale(), mode.is_train, Mode("eval") is Mode.EVAL, mode.name


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def int_enum_behaves_as_int(x):
    """IntEnum members take part in arithmetic and compare with ints."""
    return x * Level.HIGH, Level.LOW + 1, Level.HIGH > 2, sorted([Level.HIGH, Level.LOW])


class Perm(enum.Flag):
    R = enum.auto()
    W = enum.auto()
    X = enum.auto()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def flag_enum_combinations(x):
    """Flag members combine with `|`, test with `in` and `&`; auto() numbers them."""
    rw = Perm.R | Perm.W
    return x * rw.value, Perm.W in rw, bool(rw & Perm.X), Perm.X.value


class Color(enum.Enum):
    RED = enum.auto()
    GREEN = enum.auto()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def enum_members_as_dict_keys(x):
    """Enum members as dict keys; `Color["RED"]` lookup by name; len of the class."""
    weights = {Color.RED: 2, Color.GREEN: 3}
    return x * weights[Color["RED"]], len(Color), [c.name for c in Color]


# isinstance on ABCs and typing


class Model(abc.ABC):
    @abc.abstractmethod
    def forward(self, t): ...

    def __call__(self, t):
        return self.forward(t)


class Doubler(Model):
    def forward(self, t):
        return t * 2


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def abstract_base_class_subclass(x):
    """A subclass of an `abc.ABC` implementing its abstract method; isinstance of the ABC."""
    m = Doubler()
    return m(x), isinstance(m, Model), isinstance(m, abc.ABC)


class Registered:
    pass


collections.abc.Sized.register(Registered)


@case(tags=TAGS, calls=[Call(T(3), {"a": 1})], options=FULLGRAPH, expect=one_graph("mul"))
def isinstance_on_collection_abcs(x, d):
    """Builtins against Mapping, Iterable, Hashable, Callable; a virtual subclass (`register`)."""
    checks = (
        isinstance(d, collections.abc.Mapping),
        isinstance(d, collections.abc.Hashable),
        isinstance([], collections.abc.MutableSequence),
        isinstance((), collections.abc.MutableSequence),
        isinstance(len, collections.abc.Callable),
        isinstance(Registered(), collections.abc.Sized),
        isinstance("s", collections.abc.Iterable),
    )
    return x * sum(checks), checks


@case(tags=TAGS, calls=[Call(T(3), [1, 2])], options=FULLGRAPH, expect=one_graph("mul"))
def isinstance_on_tensor_and_abcs(x, xs):
    """A tensor is not a Sequence, but is Iterable and Sized; a list is a Sequence."""
    checks = (
        isinstance(x, collections.abc.Sequence),
        isinstance(x, collections.abc.Iterable),
        isinstance(xs, collections.abc.Sequence),
        isinstance(x, (list, tuple)),
    )
    return x * sum(checks), checks


class Pair(typing.NamedTuple):
    key: str
    value: int = 0

    def doubled(self):
        return self._replace(value=self.value * 2)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def typing_namedtuple_with_method_and_default(x):
    """A typing.NamedTuple class: default field, a method, `_replace`, tuple behaviour."""
    p = Pair("a").doubled()
    q = Pair("b", 3).doubled()
    return x * q.value, p, q, isinstance(q, tuple), q[0]


Span = collections.namedtuple("Span", "a b")


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul"))
def namedtuple_make_new_and_replace(x):
    """`_make` from an iterable, `tuple.__new__(cls, items)`, `_replace` bound and
    called through the class."""
    p = Span._make([x + 1, 2])
    q = p._replace(b=3)
    r = tuple.__new__(Span, (x, 4))
    s = Span._replace(r, a=5)
    return p.a * q.b, r, s, type(r).__name__


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def namedtuple_fields_of_an_instance(x):
    """`p._fields` and `__match_args__`, read on an instance, are the class's field names:
    constants, as `dict(zip(p._fields, p))` in model code."""
    p = Pair("k", 2)
    named = dict(zip(p._fields, p, strict=True))
    return x * named["value"], p._fields, Span(1, 2).__match_args__


@case(tags=[*TAGS, "dynamo-divergence"], calls=[Call(T(3)), Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def type_with_three_arguments_makes_a_class(x):
    """`type(name, bases, namespace)` of constants: the class is made while tracing, as
    Dynamo folds it, with the caller's `__module__` as CPython sets it (Dynamo's is its
    own module's)."""
    made = type("Made", (), {"scale": 2})
    return x * made.scale, made.__name__, made.__module__


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))  # fmt: skip
def type_with_bad_bases_raises_type_error(x):
    """type()'s TypeError is eager's, caught by the function."""
    try:
        type("Made", 1, {})
    except TypeError:
        return x + 1
    return x


@case(tags=TAGS, calls=[Call(T(3)), Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def new_instance_class_guards_its_class(x):
    """`obj.__class__` of an object made in the trace is its class (dataclasses.replace
    calls it): guarded as that class, so a second call reuses the graph."""
    cfg = dataclasses.replace(TrainConfig(lr=2.0), name="b")
    return x * cfg.lr, cfg.__class__ is TrainConfig, cfg.name


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def hash_of_frozen_dataclass(x):
    """`hash()` of a frozen dataclass is its generated `__hash__`, inlined: equal values
    hash alike."""
    p = Point(1, 2)
    return x * p.y, hash(p) == hash(Point(1, 2)), hash(p) == hash((1, 2))


class ActivationTable(collections.OrderedDict):
    """A table whose lookup builds what it holds (HF transformers' `ACT2FN`)."""

    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


ACTIVATIONS = ActivationTable(
    {"relu": torch.nn.ReLU, "gelu_tanh": (torch.nn.GELU, {"approximate": "tanh"})}
)


# Each module made in the trace records torch's API-usage call, as Dynamo's graphs do.
MADE_ACTIVATIONS = [
    "torch._C._log_api_usage_once",
    "torch._C._nn.gelu",
    "torch._C._log_api_usage_once",
    "torch.nn.functional.relu",
    "add",
]


def _add_activation() -> None:
    ACTIVATIONS["tanh"] = torch.nn.Tanh


@case(
    tags=TAGS,
    calls=[Call(T(3)), Call(T(3)), Call(T(3), before=_add_activation)],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2, ops=[MADE_ACTIVATIONS] * 2),
)
def super_getitem_of_global_dict_subclass(x):
    """`super().__getitem__(key)` in a dict subclass's own `__getitem__`, on an object the
    function did not make: the base's items, guarded by their keys (a new key
    recompiles)."""
    return ACTIVATIONS["gelu_tanh"](x) + ACTIVATIONS["relu"](x)


class OpRegistry(type):
    """A registry metaclass: its ``__new__`` files each class made under it by name."""

    table: dict = {}

    def __new__(mcs, name, bases, namespace):
        cls = super().__new__(mcs, name, bases, namespace)
        mcs.table[name.lower()] = cls
        return cls


class RegisteredOp(metaclass=OpRegistry):
    def __init__(self, scale=1.0):
        self.scale = scale

    def __call__(self, x):
        return x * self.scale


class RegisteredNeg(RegisteredOp):
    def __call__(self, x):
        return -x * self.scale


@case(
    tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "neg", "mul", "add")
)
def class_of_registry_metaclass_instantiated(x):
    """``Registry.table[name](...)``: a class whose metaclass has its own ``__new__`` but
    type's ``__call__`` makes its instances as any class does."""
    scaled = OpRegistry.table["registeredop"](2.0)
    neg = OpRegistry.table["registeredneg"](3.0)
    return scaled(x) + neg(x), type(neg).__name__, isinstance(neg, RegisteredOp)


class Activation:
    """Functions read from the class, replaced between calls (as a plugin patches them)."""

    @staticmethod
    def act(x):
        return x + 1

    def plain(x):  # noqa: N805  (read from the class: a plain function)
        return x * 2


def _original_activation() -> None:
    Activation.act = staticmethod(lambda x: x + 1)
    Activation.plain = lambda x: x * 2


def _replaced_activation() -> None:
    Activation.act = staticmethod(lambda x: x * 10)
    Activation.plain = lambda x: x - 3


@case(
    tags=["python-semantics", "guards", "recompiles"],
    calls=[
        Call(T(3), before=_original_activation),
        Call(T(3), before=_replaced_activation),
        Call(T(3), before=_original_activation),
    ],
    expect=Expect(frames=2, graphs=2),
)
def class_functions_replaced_between_calls(x):
    """A staticmethod and a plain function read from a user class are guarded (by
    their code), so replacing them on the class compiles again (before: the first graph
    ran again and returned the old functions' result); the originals' code back, the
    first graph serves again."""
    return Activation.act(x) + Activation.plain(x)


class SlottedPair:
    """A class whose ``__slots__`` leave its instances no ``__dict__``."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b


class PlainPair:
    def __init__(self, a):
        self.a = a


PLAIN_PAIR = PlainPair(2.0)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "mul"))
def hasattr_finds_what_instances_have(x):
    """``hasattr(obj, name)`` looks on the object's class, not on the class object: a
    slotted object has no ``__dict__`` (reading it raises AttributeError), and no instance
    has its class's ``__name__`` or ``mro``, which the metaclass gives the class."""
    pair = SlottedPair(x, 3)
    try:
        size = len(pair.__dict__)
        dict_read = f"read {size}"
    except AttributeError:
        dict_read = "raised"
    facts = (
        hasattr(pair, "__dict__"),
        hasattr(pair, "__name__"),
        hasattr(PlainPair(x), "mro"),
        hasattr(PLAIN_PAIR, "__name__"),
        hasattr(PlainPair(x), "__dict__"),
    )
    return pair.a * pair.b * PLAIN_PAIR.a, facts, dict_read


class Accumulator:
    """A value with `+`, and `+=` that changes the object itself."""

    def __init__(self, t):
        self.t = t

    def __add__(self, other):
        return Accumulator(self.t + other.t)

    def __iadd__(self, other):
        self.t = self.t + other.t
        return self


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "add"))
def user_inplace_operator_keeps_identity(x):
    """``acc += other`` on an object whose class defines ``__iadd__`` calls it (not
    ``__add__``): the name keeps the same object, so another name bound to it sees the
    change and `is` holds."""
    acc = Accumulator(x)
    alias = acc
    acc += Accumulator(x * 2)
    return alias.t, alias is acc


class Record:
    """A plain object, its attributes set at run time."""


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def instance_dict_keys_equal_a_set(x):
    """``vars(obj).keys()`` is set-like: `==` with a set (either side) compares the
    names, as for a dict's keys view."""
    rec = Record()
    object.__setattr__(rec, "v", x)
    rec.w = 2
    names = vars(rec).keys()
    return rec.v * rec.w, names == {"v", "w"}, {"v"} != names, names == {"w", "v"}


class BitSet:
    """Flags with the bitwise operators: `&`, `|`, `<<`, and `^` from the right."""

    def __init__(self, bits):
        self.bits = bits

    def __and__(self, other):
        return BitSet(self.bits & other.bits)

    def __or__(self, other):
        return BitSet(self.bits | other.bits)

    def __rxor__(self, other):
        return BitSet(other ^ self.bits)

    def __lshift__(self, n):
        return BitSet(self.bits << n)


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def user_bitwise_operators(x):
    """``a & b``, ``a | b``, ``a << n`` on user objects call their class's dunder
    methods, and ``1 ^ a`` the right operand's ``__rxor__`` (as `collections.Counter`'s
    ``&`` and ``|``): inlined, so the flags are constants."""
    flags = (BitSet(6) & BitSet(3)) | BitSet(8)
    flipped = 1 ^ flags
    return x * (flags << 1).bits, flipped.bits
