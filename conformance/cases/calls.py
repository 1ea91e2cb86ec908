"""Calls of every form into user code: inlined into the caller's graph (seed: Inlining).

Every signature kind (defaults, keywords, *args, **kwargs, keyword-only), methods,
static and class methods, lambdas, partials and recursion: one frame, one graph.
"""

import functools

import torch

from conformance.spec import Call, T, case, one_graph


def double(t):
    return t * 2


def affine(t, scale=3, shift=1):
    return t * scale + shift


def total(*parts):
    out = parts[0]
    for part in parts[1:]:
        out = out + part
    return out


def scaled(t, **factors):
    return t * factors["k"]


def keyword_only(t, *, power):
    return t**power


def positional_only(t, k, /):
    return t - k


def factorial_scale(t, n):
    return t if n == 0 else factorial_scale(t * n, n - 1)


class Scaler:
    """A user class whose methods are inlined."""

    def __init__(self, k):
        self.k = k

    def apply(self, t):
        return t * self.k

    @staticmethod
    def twice(t):
        return t + t

    @classmethod
    def make(cls, k):
        return cls(k)

    def __call__(self, t):
        return t - self.k


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def call_positional(x):
    return double(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def call_with_defaults(x):
    return affine(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def call_with_keywords(x):
    return affine(x, shift=5, scale=2)


@case(tags=["calls", "inlining"], calls=[Call(T(3), T(3), T(3))], expect=one_graph("add", "add"))
def call_varargs(x, y, z):
    return total(x, y, z)


@case(tags=["calls", "inlining"], calls=[Call(T(3), T(3))], expect=one_graph("add"))
def call_star_args(x, y):
    args = (x, y)
    return total(*args)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def call_var_keywords(x):
    return scaled(x, k=4)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def call_star_star_kwargs(x):
    options = {"scale": 2, "shift": 3}
    return affine(x, **options)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("pow"))
def call_keyword_only(x):
    return keyword_only(x, power=3)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("sub"))
def call_positional_only(x):
    return positional_only(x, 1)


@case(
    tags=["calls", "inlining"],
    calls=[Call(T(3), kwargs={"shift": 4})],
    expect=one_graph("mul", "add"),
)
def compiled_function_called_with_keywords(x, scale=2, shift=0):
    return x * scale + shift


@case(tags=["calls", "inlining"], calls=[Call(T(3), T(3), T(3))], expect=one_graph("add", "add"))
def compiled_function_with_varargs(*xs):
    return xs[0] + xs[1] + xs[2]


@case(tags=["calls", "inlining"], calls=[Call(T(3), kwargs={"k": 2})], expect=one_graph("mul"))
def compiled_function_with_var_keywords(x, **options):
    return x * options.get("k", 5)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "mul"))
def nested_calls(x):
    return double(double(x))


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "mul", "mul"))
def recursion_unrolled(x):
    """Recursion on a constant is unrolled: 3 * 2 * 1, then the base case."""
    return factorial_scale(x, 3)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("add"))
def call_lambda(x):
    inc = lambda t: t + 1  # noqa: E731
    return inc(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "add"))
def call_partial(x):
    shifted = functools.partial(affine, shift=7)
    return shifted(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def call_method_of_object(x):
    return Scaler(3).apply(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("add"))
def call_staticmethod(x):
    return Scaler.twice(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def call_classmethod(x):
    return Scaler.make(5).apply(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("sub"))
def call_dunder_call(x):
    return Scaler(1)(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3), Scaler(2))], expect=one_graph("mul"))
def object_argument_method(x, scaler):
    return scaler.apply(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul"))
def bound_method_as_value(x):
    method = Scaler(4).apply
    return method(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3), double)], expect=one_graph("mul"))
def function_argument(x, f):
    return f(x)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("mul", "mul", "add"))
def function_from_table(x):
    table = {"double": double, "affine": affine}
    return table["affine"](table["double"](x), shift=0)


@case(tags=["calls", "inlining"], calls=[Call(T(3))], expect=one_graph("torch.relu", "mul"))
def torch_function_inside_user_function(x):
    def activate(t):
        return torch.relu(t) * 2

    return activate(x)


@case(
    tags=["calls", "inlining"],
    calls=[Call(T(3))],
    expect=one_graph("torch.sin", "torch.cos", "add"),
)
def decorated_function(x):
    return _decorated(x)


def _traced_twice(f):
    @functools.wraps(f)
    def wrapper(t):
        return f(t)

    return wrapper


@_traced_twice
def _decorated(t):
    return torch.sin(t) + torch.cos(t)
