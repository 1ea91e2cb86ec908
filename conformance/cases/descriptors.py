"""Descriptors and attribute protocols: unbound methods, slot wrappers, properties,
classmethods, callable instances and functions as values.

`list.append(l, x)` is `l.append(x)`; `object.__setattr__(self, k, v)` sets an instance
attribute; a property runs its getter; an instance with `__call__` is called through it.
"""

import operator

import torch

from conformance.spec import Break, Call, Expect, Make, T, case, one_graph


class Point:
    def __init__(self, x, y):
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)

    def __eq__(self, other):
        return isinstance(other, Point) and self.x == other.x and self.y == other.y

    @property
    def norm1(self):
        return abs(self.x) + abs(self.y)

    @classmethod
    def origin(cls):
        return cls(0, 0)

    @staticmethod
    def scale_of(p):
        return p.x * p.y


class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return t * self.k


class Temperature:
    def __init__(self):
        self._celsius = 20.0

    @property
    def celsius(self):
        return self._celsius

    @celsius.setter
    def celsius(self, value):
        self._celsius = value


@case(
    tags=["descriptors", "containers", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=2,
        graphs=2,
        breaks=[
            Break("GB0156", "list.append(out, x + 1)"),
            Break("GB0156", "list.append(out, x * 2)"),
        ],
    ),
)
def list_append_unbound(x):
    """Dynamo 2.14 does not trace `list.append` called on a list (GB0156, unsupported
    method call): each call breaks the graph."""
    out = []
    list.append(out, x + 1)
    list.append(out, x * 2)
    return out


@case(tags=["descriptors", "containers"], calls=[Call(T(3), {"a": 2, "b": 3})])
def dict_getitem_unbound(x, d):
    """`dict.__getitem__(d, k)`, a slot wrapper called directly, is `d[k]`."""
    return x * dict.__getitem__(d, "b")


@case(tags=["descriptors", "containers"], calls=[Call(T(3))], expect=one_graph("mul"))
def dict_get_unbound_with_default(x):
    d = {"a": 1}
    return x * dict.get(d, "b", 4)


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("add", "add"))
def object_setattr_in_init(x):
    p = Point(1, 2)
    return x + p.x + p.y


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def object_setattr_on_local_object(x):
    s = Scaler(1)
    object.__setattr__(s, "k", 5)
    return s(x)


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def property_getter(x):
    return x * Point(3, -4).norm1


@case(tags=["descriptors", "side-effects"], calls=[Call(T(3))], expect=one_graph("add"))
def property_setter(x):
    t = Temperature()
    t.celsius = 30.0
    return x + t.celsius


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("add"))
def classmethod_constructor(x):
    p = Point.origin()
    return x + p.x


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def classmethod_through_instance(x):
    p = Point(2, 3).origin()
    return x * (p.y + 1)


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def staticmethod_call(x):
    return x * Point.scale_of(Point(2, 3))


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def operator_eq_user_eq(x):
    if operator.eq(Point(1, 2), Point(1, 2)):
        return x * 2
    return x


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("add"))
def eq_operator_user_eq(x):
    if Point(1, 2) == Point(1, 3):
        return x - 1
    return x + 1


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def callable_instance(x):
    return Scaler(3)(x)


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul", "mul"))
def callable_instances_in_list(x):
    for f in [Scaler(2), Scaler(3)]:
        x = f(x)
    return x


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("add", "torch.relu"))
def lambdas_as_dict_values(x):
    ops = {"inc": lambda t: t + 1, "act": torch.relu}
    for name in ("inc", "act"):
        x = ops[name](x)
    return x


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def callable_builtin_on_objects(x):
    if callable(Scaler(2)) and not callable(Point(1, 2)):
        return x * 2
    return x


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("add"))
def type_name_getset(x):
    """`__name__` of a class and of a function: getset descriptors of type and function."""
    if Point.__name__ == "Point" and callable_instance.__name__ == "callable_instance":
        return x + 1
    return x


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph("mul"))
def getattr_unbound_method_call(x):
    s = Scaler(4)
    return Scaler.__call__(s, x)


@case(tags=["descriptors"], calls=[Call(T(3))], expect=one_graph(".mul"))
def tensor_method_unbound(x):
    return torch.Tensor.mul(x, 3)


@case(tags=["descriptors", "exceptions"], calls=[Call(T(3))], expect=Expect(outcome="raises"))
def unbound_method_on_wrong_type(x):
    """`list.append` called on a tuple raises TypeError, compiled as in eager."""
    list.append((1, 2), x)
    return x


# More attribute protocols, as library code writes them.

FULLGRAPH = {"fullgraph": True}


class Record:
    """Stores its fields through `__setattr__` into a private dict; `__getattr__`
    raises AttributeError for names it does not hold."""

    def __init__(self, **fields):
        object.__setattr__(self, "_fields", dict(fields))

    def __setattr__(self, name, value):
        self._fields[name] = value

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def custom_setattr_and_getattr(x):
    r = Record(scale=2.0)
    r.shift = 1
    return x * r.scale, r.shift, r._fields


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def hasattr_false_through_getattr_error(x):
    """AttributeError raised by `__getattr__` makes hasattr False."""
    r = Record(a=1)
    if hasattr(r, "missing"):
        return x
    return x + r.a


class Slotted:
    __slots__ = ("w", "b")

    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __eq__(self, other):
        return (self.w, self.b) == (other.w, other.b)


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def slots_class_made_inside(x):
    s = Slotted(2.0, 1.0)
    s.b = 3.0
    return x * s.w + s.b


@case(tags=["descriptors", "fullgraph"], calls=[Call(T(3), Slotted(2.0, 1.0))], options=FULLGRAPH,
      expect=one_graph("mul", "add"))  # fmt: skip
def slots_object_argument(x, s):
    return x * s.w + s.b


class Registry:
    kinds: list = []

    def __init_subclass__(cls, kind="plain", **kwargs):
        super().__init_subclass__(**kwargs)
        cls.kind = kind


class Doubling(Registry, kind="double"):
    def apply(self, x):
        return x * 2


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def init_subclass_set_class_attribute(x):
    d = Doubling()
    return d.apply(x), d.kind, type(d).kind


class Counter:
    created = 0


@case(tags=["descriptors", "side-effects", "fullgraph"], calls=[Call(T(3)), Call(T(3))],
      options=FULLGRAPH, expect=one_graph("mul"))  # fmt: skip
def class_attribute_mutated(x):
    """A class attribute changed and restored inside the function."""
    Counter.created += 2
    y = x * Counter.created
    Counter.created -= 2
    return y


class Celsius:
    """A data descriptor: `__get__` and `__set__` on the class."""

    def __get__(self, obj, objtype=None):
        return obj._c if obj is not None else self

    def __set__(self, obj, value):
        obj._c = value * 1.0


class Reading:
    temp = Celsius()


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def user_data_descriptor(x):
    r = Reading()
    r.temp = 4
    return x + r.temp


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def dict_methods_unbound(x):
    d = {}
    dict.__setitem__(d, "k", 3)
    return x + dict.get(d, "k")


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def getattr_of_classmethod_and_staticmethod(x):
    make = getattr(Point, "origin")  # noqa: B009 - the builtin is what is traced
    p = make()
    return x * Point.norm1.fget(Point(1, 2)), p.x


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def operator_ne_and_eq_on_objects(x):
    same = operator.eq(Point(1, 1), Point(1, 1))
    diff = operator.ne(Point(1, 1), Point(2, 1))
    return x * (same + diff)


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul"),
)
def bound_method_as_value(x):
    s = Scaler(2.0)
    fns = {"double": s.__call__, "inc": lambda t: t + 1}
    return fns["double"](fns["inc"](x))


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def setattr_getattr_delattr_builtins(x):
    p = Point(1, 2)
    setattr(p, "z", 4)  # noqa: B010 - the builtins are what is traced
    z = getattr(p, "z")  # noqa: B009
    delattr(p, "z")
    return x * z, hasattr(p, "z")


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def vars_and_dict_of_instance(x):
    p = Point(3, 4)
    return x * len(vars(p)), sorted(p.__dict__)


class DoublingDict(dict):
    """Overrides reaching the base's storage through dict's own slot wrappers."""

    def __getitem__(self, key):
        return dict.__getitem__(self, key) * 2

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value + 1)


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul"),
)
def dict_slot_wrapper_inside_dict_subclass_override(x):
    """`dict.__getitem__(self, k)` in a dict subclass's own `__getitem__` is the base's
    lookup, not the override again (which would recurse)."""
    d = DoublingDict()
    d["a"] = x
    return d["a"], dict.get(d, "a"), len(d)


def make_call_counter():
    """A function counting its calls in an attribute of another function (a closure
    cell: a fresh one per run)."""

    def tally():
        pass

    tally.calls = 0

    def counted(x):
        tally.calls += 1
        return x * tally.calls, hasattr(tally, "calls")

    return counted


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3)), Call(T(3))],
    factory=True,
    options=FULLGRAPH,
    expect=Expect(graphs=2, ops=[["mul"], ["add", "mul"]]),
)
def existing_function_attribute_counter():
    """`fn.attr += 1` on an existing function is replayed on it after the graph; its
    value is guarded, so the second call recompiles."""
    return make_call_counter()


def make_flagged_once():
    """A function marking another with an attribute on its first call."""

    def marked():
        pass

    def run(x):
        if not hasattr(marked, "seen"):
            marked.seen = True
            return x + 1
        return x - 1

    return run


@case(
    tags=["descriptors", "fullgraph", "dynamo-divergence"],
    calls=[Call(T(3)), Call(T(3)), Call(T(3))],
    factory=True,
    options=FULLGRAPH,
    expect=Expect(graphs=2, ops=[["add"], ["sub"]]),
)
def existing_function_hasattr_flag():
    """hasattr on an existing function is guarded: once the flag is set the other
    branch runs."""
    return make_flagged_once()


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "mul", "mul"),
)
def nested_function_defaults(x):
    """A nested function's `__defaults__` / `__kwdefaults__` are what MAKE_FUNCTION got."""

    def scale(a, b=2, *, c=3):
        return a * b * c

    shift = lambda a, b=x: a + b  # noqa: E731 - a lambda's defaults
    return scale(x), scale.__defaults__, scale.__kwdefaults__, shift.__defaults__[0] * 2


class Settings:
    """A class whose namespace is read as a mapping."""

    scale = 3

    def apply(self, x):
        return x * self.scale

    @staticmethod
    def shift(v):
        return v + 1


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def class_dict_read_by_key(x):
    """`cls.__dict__[k]` / `vars(cls)`: the class's own namespace, its entries raw (a
    staticmethod object), the keys guarded."""
    ns = vars(Settings)
    y = x * Settings.__dict__["scale"]
    shift = ns["shift"]
    return (
        y + 1,
        "apply" in ns,
        "missing" in ns,
        ns.get("missing", 0),
        isinstance(shift, staticmethod),
    )


class _Registered(type):
    """A metaclass whose properties describe its classes."""

    @property
    def weight_names(cls):
        return [name for name in ("w_in", "w_mid", "w_out") if name in vars(cls)]

    @property
    def size(cls):
        return len(cls.weight_names)


class _Layer(metaclass=_Registered):
    w_in = 1
    w_out = 2
    size = 99  # the metaclass's property, a data descriptor, wins over this


@case(tags=["descriptors", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "add"))  # fmt: skip
def metaclass_property_read_on_class(x):
    """A property of the metaclass, read on the class, is inlined with the class as its
    argument, before the class's own attribute of that name (type.__getattribute__)."""
    return x * _Layer.size + len(_Layer.weight_names)


class _Described(type):
    """A metaclass with a plain method, called through its classes."""

    def describe(cls, prefix):
        return f"{prefix}{cls.__name__}"


class _Block(metaclass=_Described):
    scale = 2


@case(tags=["descriptors", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul"))  # fmt: skip
def metaclass_method_called_on_class(x):
    """A metaclass's method, found on no class of the MRO, is bound to the class."""
    return x * _Block.scale, _Block.describe("block:")


class _Gain:
    def __init__(self, k):
        self.k = k

    def apply(self, t, times=2):
        return t * self.k * times


@case(tags=["descriptors", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "mul", "mul", "mul", "add"))  # fmt: skip
def bound_method_self_func_and_names(x):
    """A bound method's `__self__` is its object, `__func__` its function; its names and
    defaults are its function's (a method forwards them)."""
    method = _Gain(3).apply
    again = method.__func__(method.__self__, x)
    return method(x) + again, method.__self__.k, method.__name__, method.__defaults__


class Layer:
    def __init__(self, bias):
        self.scale = 2.0
        self.bias = bias
        self.name = "layer"


def _layer():
    return Layer(torch.ones(3))


@case(
    tags=["descriptors", "fullgraph"],
    calls=[Call(T(3), Make(_layer))],
    options=FULLGRAPH,
    expect=one_graph("add", "mul", "add"),
)
def vars_keys_values_items_views(x, layer):
    """`vars(obj).keys()` / `.values()` / `.items()`: views of the attributes, live (a
    store after the view was taken is in it), for an input and for a new object."""
    out = x + layer.bias
    for _, v in vars(layer).items():
        if isinstance(v, float):
            out = out * v
    fresh = Layer(x)
    keys = vars(fresh).keys()
    fresh.extra = 1.0
    floats = [v for v in fresh.__dict__.values() if isinstance(v, float)]
    return out + len(keys), sorted(vars(layer).keys()), "extra" in keys, floats
