"""Arithmetic and comparisons: on tensors (graph nodes) and on constants (folded away).

Each operator of Python's data model that a tensor supports lands in the graph as the
`operator` function of the same name; arithmetic between constants never reaches it.
"""

import math

import torch

from conformance.spec import Call, Expect, T, case, one_graph

INT = torch.int64


@case(tags=["arithmetic"], calls=[Call(T(4), T(4))], expect=one_graph("add"))
def add_tensors(x, y):
    return x + y


@case(tags=["arithmetic"], calls=[Call(T(4), T(4))], expect=one_graph("sub", "mul", "truediv"))
def sub_mul_truediv(x, y):
    return (x - y) * x / 2


@case(tags=["arithmetic"], calls=[Call(T(6, dtype=INT))], expect=one_graph("floordiv", "mod"))
def floordiv_mod_int_tensor(x):
    return x // 3, x % 3


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph("pow"))
def pow_constant_exponent(x):
    return x**3


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph("pow"))
def pow_constant_base(x):
    """`2 ** x` is `operator.pow(2, x)` in the graph (the reflected operand)."""
    return 2**x


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph("sub"))
def reflected_sub(x):
    return 1 - x


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph("neg"))
def unary_neg(x):
    return -x


@case(tags=["arithmetic", "builtins"], calls=[Call(T(4))], expect=one_graph("abs"))
def builtin_abs_of_tensor(x):
    return abs(x)


@case(tags=["arithmetic"], calls=[Call(T(3, 4), T(4, 2))], expect=one_graph("matmul"))
def matmul_operator(x, y):
    return x @ y


@case(tags=["arithmetic"], calls=[Call(T(4), T(4))], expect=one_graph("gt", "eq", "le"))
def comparisons(x, y):
    return x > y, x == y, x <= y


@case(
    tags=["arithmetic"],
    calls=[Call(T(5, dtype=INT), T(5, dtype=INT))],
    expect=one_graph("and_", "or_", "xor", "invert"),
)
def bitwise_int_tensors(x, y):
    return x & y, x | y, x ^ y, ~x


@case(
    tags=["arithmetic"],
    calls=[Call(T(5, dtype=INT))],
    expect=one_graph("lshift", "rshift"),
)
def shifts_int_tensor(x):
    return x << 1, x >> 1


@case(tags=["arithmetic"], calls=[Call(T(5, dtype=torch.bool))], expect=one_graph("invert"))
def invert_bool_tensor(x):
    return ~x


@case(tags=["arithmetic"], calls=[Call(T(4), 3)], expect=one_graph("mul"))
def constant_expression_folded(x, n):
    """`n * 2 + 1` is computed while tracing: the graph multiplies by 7."""
    return x * (n * 2 + 1)


@case(tags=["arithmetic"], calls=[Call(T(4), 0.5)], expect=one_graph("mul"))
def float_constant_folded(x, f):
    return x * (f / 2)


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph("mul", "add", "sub"))
def operator_precedence(x):
    return x + 2 * x - 1


@case(
    tags=["arithmetic", "tensor-methods"],
    calls=[Call(T(4))],
    expect=one_graph("add", "sub", "mul", ".sum"),
)
def difference_of_squares(x):
    return ((x + 1) * (x - 1)).sum()


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph(".clone", "iadd"))
def augmented_assign_tensor(x):
    """`y += 1` on a tensor is `operator.iadd` (in place on the fresh clone)."""
    y = x.clone()
    y += 1
    return y


@case(tags=["arithmetic"], calls=[Call(T(4), 2)], expect=one_graph("mul"))
def augmented_assign_constant(x, n):
    n += 3
    n *= 2
    return x * n


@case(tags=["arithmetic"], calls=[Call(T(4, dtype=INT))], expect=one_graph("truediv"))
def int_tensor_true_division(x):
    """Type promotion as in eager: int64 / int gives float32."""
    return x / 2


@case(tags=["arithmetic"], calls=[Call(T(4, dtype=INT))], expect=one_graph("add"))
def int_tensor_plus_float(x):
    return x + 1.5


@case(tags=["arithmetic"], calls=[Call(T(4, dtype=torch.float64), T(4))], expect=one_graph("add"))
def mixed_float_dtypes(x, y):
    return x + y


@case(tags=["arithmetic"], calls=[Call(T(4), 3, 4)], expect=one_graph("mul"))
def chained_comparison_constants(x, a, b):
    """`0 < a < b` between constants is decided while tracing."""
    if 0 < a < b:
        return x * a
    return x * b


@case(tags=["arithmetic", "builtins"], calls=[Call(T(4), 17)], expect=one_graph("add", "mul"))
def divmod_constants(x, n):
    q, r = divmod(n, 5)
    return (x + q) * r


@case(tags=["arithmetic"], calls=[Call(3, 4)], expect=Expect(frames=0, graphs=0))
def constants_only_no_graph(a, b):
    """No tensor is touched: nothing to compile, the frame is left to CPython."""
    return a * b + 1


@case(tags=["arithmetic"], calls=[Call(T(4))], expect=one_graph("torch.ones", "add"))
def tensor_created_inside(x):
    return torch.ones(4) + x


@case(tags=["arithmetic"], calls=[Call(T(4), T(4))], expect=one_graph("torch.add", "torch.mul"))
def torch_functions(x, y):
    return torch.mul(torch.add(x, y), 2)


@case(tags=["arithmetic"], calls=[Call(T(4), T(4))], expect=one_graph("torch.add"))
def torch_function_keyword(x, y):
    return torch.add(x, y, alpha=2)


@case(tags=["arithmetic"], calls=[Call(T(3))], expect=one_graph("mul", "add", "mul"))
def horner_polynomial(x):
    return (x * 3 + 2) * x


@case(
    tags=["arithmetic", "builtins"],
    calls=[Call(T(3))],
    python=("3.11", "3.13"),
    expect=one_graph("mul"),
)
def math_cbrt_constant(x):
    """math.cbrt is new in CPython 3.11: on constants it is computed while tracing."""
    return x * math.cbrt(27.0)


@case(
    tags=["arithmetic", "builtins", "dynamic-shapes"],
    calls=[Call(T(2, 3)), Call(T(4, 3)), Call(T(5, 3))],
    expect=Expect(frames=2, graphs=2),
)
def math_prod_of_symbolic_sizes(x):
    """`math.prod` of sizes that turned dynamic multiplies the symbols (its polyfill):
    the second graph serves every later batch size."""
    return x.reshape(-1) * math.prod(x.shape)
