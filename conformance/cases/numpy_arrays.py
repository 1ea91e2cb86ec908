"""NumPy inside compiled code: ndarrays are traced as tensors, through torch._numpy.

An ndarray argument is a tensor graph input (``torch.from_numpy`` of it, guarded as
``check_tensor(___from_numpy(L['a']), ...)``); `np.<fn>(...)`, ndarray methods and
operators are graph nodes calling torch._numpy's version (`wrapped_sin`); an ndarray
result is a real ndarray again after the graph. `Tensor.numpy()` and `torch.from_numpy`
convert inside the graph. What torch._numpy lacks (and `np.random`, whose values must be
NumPy's) breaks the graph.
"""

import numpy as np
import torch

from conformance.spec import Break, Call, Expect, Make, T, case, check_tensor, one_graph


def array(*shape: int) -> np.ndarray:
    """A float64 array of standard normal values, the same for every run."""
    return np.random.default_rng(sum(shape)).standard_normal(shape)


def int_array(*shape: int) -> np.ndarray:
    return np.random.default_rng(sum(shape)).integers(-8, 9, shape)


def array_guard(name: str, size: list[int], dtype: str = "torch.float64") -> str:
    return check_tensor(f"___from_numpy(L['{name}'])", size, dtype=dtype)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 4))],
    options={"fullgraph": True},
    expect=Expect(
        frames=1,
        graphs=1,
        ops=[["wrapped_sin", "wrapped_add"]],
        guards=[[array_guard("a", [4])]],
    ),
)
def ufunc_of_array_argument(a):
    """`np.sin(a) + 1` on an ndarray argument: one graph of torch._numpy calls on the
    tensor view of `a`; the result is an ndarray."""
    return np.sin(a) + 1


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 2, 3), Make(array, 3))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_dot", "wrapped_mul"),
)
def function_of_two_arrays(a, b):
    """`np.dot(a, b)`: both arrays are graph inputs."""
    return np.dot(a, b) * 2


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 2, 3))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_sum", "wrapped_max"),
)
def array_methods_with_axis(a):
    """ndarray methods with keyword arguments (`a.sum(axis=0)`) are graph nodes."""
    return a.sum(axis=0), a.max(axis=1)


@case(
    tags=["numpy", "fullgraph", "arithmetic"],
    calls=[Call(Make(array, 5), Make(array, 5))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_sub", "wrapped_mul", "wrapped_pow", "wrapped_add", "wrapped_truediv"),
)
def array_operators(a, b):
    """Operators between arrays and numbers follow NumPy's rules (torch._numpy's)."""
    return (a - b) * 2 / (b**2 + 1)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 6))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_gt", "wrapped_where"),
)
def comparison_and_where(a):
    """A comparison makes a boolean array; `np.where` selects with it."""
    return np.where(a > 0, a, 0.0)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 2, 3))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_reshape", "wrapped_mul"),
)
def shape_and_ndim_are_constants(a):
    """`a.shape`, `a.ndim` and `len(a)` are known at trace time (the input is guarded)."""
    return a.reshape(a.shape[1], -1) * a.ndim, len(a)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 2, 3))],
    options={"fullgraph": True},
    expect=one_graph("numpy_attr_wrapper", "wrapped_matmul"),
)
def transpose_and_matmul(a):
    """The `.T` attribute and the `@` operator of an ndarray."""
    return a.T @ a


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 3, 4))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_getitem", "wrapped_getitem", "wrapped_add"),
)
def indexing_and_slicing(a):
    """Basic indexing: slices with steps and an integer row."""
    return a[1:, ::2] + a[0, :2]


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 3))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_astype", "wrapped_ones", "wrapped_add"),
)
def astype_and_dtype_keyword(a):
    """NumPy dtypes as arguments (`np.float32`, `dtype=np.float32`) keep the result's
    dtype NumPy's."""
    return a.astype(np.float32) + np.ones(3, dtype=np.float32)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_linspace", "torch.as_tensor", "add"),
)
def array_made_inside_then_tensor(x):
    """An array made inside the function (no ndarray input) becomes a tensor again with
    `torch.from_numpy`."""
    return x + torch.from_numpy(np.linspace(0.0, 1.0, 3))


@case(
    tags=["numpy", "fullgraph", "tensor-methods"],
    calls=[Call(T(2, 3))],
    options={"fullgraph": True},
    expect=one_graph("mul", ".view_as", "wrapped_exp", "wrapped_sum", "torch.as_tensor"),
)
def tensor_to_numpy_and_back(x):
    """`Tensor.numpy()`, NumPy calls, then `torch.from_numpy`: all in one graph."""
    y = (x * 2).numpy()
    return torch.from_numpy(np.exp(y).sum(axis=1))


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(T(4), Make(array, 4))],
    options={"fullgraph": True},
    expect=one_graph("torch.as_tensor", "add"),
)
def from_numpy_of_array_argument(x, a):
    """`torch.from_numpy(a)` of an ndarray argument is its tensor view: a tensor result."""
    return x + torch.from_numpy(a)


@case(
    tags=["numpy"],
    calls=[Call(Make(array, 3))],
    expect=one_graph("wrapped_cos"),
)
def array_argument_returned_as_is(a):
    """The argument itself is returned (the same object), beside a new array."""
    return a, np.cos(a)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 2), Make(array, 3))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_concatenate", "wrapped_mul", "wrapped_stack"),
)
def concatenate_and_stack(a, b):
    """NumPy functions taking a list of arrays."""
    c = np.concatenate([a, b])
    return np.stack([c, c * 0])


@case(
    tags=["numpy", "control-flow"],
    calls=[Call(Make(array, 3, 2))],
    expect=one_graph(
        "wrapped_getitem",
        "getitem",
        "getitem",
        "wrapped_mul",
        "wrapped_add",
        "wrapped_mul",
        "wrapped_add",
    ),
)
def loop_over_array_rows(a):
    """Iterating over an ndarray unrolls over its rows (each a 1-d ndarray)."""
    total = a[0]
    for i, row in enumerate(a):
        if i > 0:
            total = total + row * i
    return total


@case(
    tags=["numpy", "side-effects"],
    calls=[Call(Make(array, 4))],
    expect=one_graph("wrapped___setitem__", "wrapped_mul"),
)
def setitem_on_array_argument(a):
    """`a[0] = 5.0` writes into the caller's array, as in eager."""
    a[0] = 5.0
    return a * 2


@case(
    tags=["numpy", "side-effects", "dynamo-divergence"],
    calls=[Call(Make(array, 4))],
    expect=one_graph("wrapped_iadd"),
)
def inplace_add_on_array_argument(a):
    """`a += 1` updates the caller's array, and `a` is still that very array."""
    a += 1
    return a


@case(
    tags=["numpy", "recompiles", "dynamic-shapes"],
    calls=[Call(Make(array, 3)), Call(Make(array, 5)), Call(Make(array, 7))],
    expect=Expect(frames=2, graphs=2),
)
def new_shape_recompiles_then_dynamic(a):
    """An array of a new length recompiles as a tensor would; the second graph is
    dynamic in that length (automatic dynamic), so a third length hits it."""
    return np.cumsum(a) * 2


@case(
    tags=["numpy", "guards"],
    calls=[Call(Make(int_array, 4), np.float64(2.5)), Call(Make(int_array, 4), np.float64(2.5))],
    expect=Expect(frames=1, graphs=1),
)
def numpy_scalar_argument(a, s):
    """A NumPy float scalar argument next to an array."""
    return a * s


@case(
    tags=["numpy", "guards"],
    calls=[Call(T(3), np.int64(2))],
    expect=Expect(frames=1, graphs=1),
)
def numpy_integer_scalar_argument(x, n):
    """A NumPy integer scalar used as a Python number next to a tensor."""
    return x * n + 1


def seed_numpy() -> None:
    np.random.seed(0)


@case(
    tags=["numpy", "graph-breaks", "dynamo-divergence"],
    calls=[Call(Make(array, 3), before=seed_numpy)],
    expect=Expect(breaks=[Break("GB0294", "noise = np.random.rand(3)")]),
)
def numpy_random_breaks(a):
    """`np.random` draws from NumPy's generator: the values must be NumPy's, so the call
    runs in CPython (the generator is seeded before each call)."""
    noise = np.random.rand(3)
    return a + noise


@case(
    tags=["numpy", "graph-breaks"],
    calls=[Call(Make(array, 4))],
    expect=Expect(
        frames=2,
        graphs=2,
        breaks=[Break("GB0294", "c = np.interp(b, [-1.0, 1.0], [0.0, 10.0])")],
    ),
)
def function_missing_from_torch_numpy_breaks(a):
    """`np.interp` has no torch._numpy version: a graph break, the rest compiled."""
    b = np.sin(a)
    c = np.interp(b, [-1.0, 1.0], [0.0, 10.0])
    return c + 1


@case(
    tags=["numpy", "graph-breaks"],
    calls=[Call(Make(array, 3))],
    expect=Expect(breaks=[Break("GB0157", "if a.dtype == np.float64:")]),
)
def dtype_attribute_breaks(a):
    """`a.dtype` is not traced (Dynamo: "Unsupported ndarray attribute access")."""
    b = a * 2
    if a.dtype == np.float64:
        return b + 1
    return b - 1


@case(
    tags=["numpy", "recompiles"],
    calls=[Call(T(3), np.float64(2.5)), Call(T(3), np.float64(-4.0)), Call(T(3), np.int64(3))],
    expect=Expect(frames=2, graphs=2),
)
def numpy_scalar_new_value_reuses_the_graph(x, s):
    """A NumPy scalar is a 0-dim array graph input: a new value reuses the graph, a new
    type (np.int64) compiles again."""
    return x * s + s


@case(
    tags=["numpy", "arithmetic", "dynamo-divergence"],
    calls=[Call(Make(torch.arange, 4), np.float64(0.5))],
    expect=Expect(frames=1, graphs=1, ops=[[".to", "mul", ".to", "gt"]]),
)
def int_tensor_times_numpy_float_scalar(x, s):
    """torch takes a NumPy scalar as a Python number: an int64 tensor times np.float64
    is float32, as with 0.5. The 0-dim float64 input is cast to float32 first (Dynamo
    2.14 is not, and returns float64)."""
    return x * s, x > s


@case(
    tags=["numpy", "guards"],
    calls=[Call(np.int64(3)), Call(np.int64(3))],
    expect=Expect(frames=1, graphs=1, ops=[["torch.zeros"]]),
)
def numpy_integer_scalar_as_a_size(n):
    """A torch function takes a NumPy scalar as a number (`torch.zeros(n)`): the trace
    specializes it, guarded on its value."""
    return torch.zeros(n)


@case(
    tags=["numpy", "arithmetic"],
    calls=[Call(T(3), np.float64(0.25)), Call(T(3), np.float64(4.0))],
    expect=Expect(frames=1, graphs=1, ops=[["wrapped_sub", "mul", "wrapped_mul", "mul"]]),
)
def numpy_scalar_arithmetic_is_a_scalar(x, s):
    """An operator on NumPy scalars and numbers gives a NumPy scalar (`1 - s`), which a
    tensor takes as a number: `(1 - s) * x` is torch's mul."""
    return (1 - s) * x, x * (s * 2)


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(Make(array, 4))],
    options={"fullgraph": True},
    expect=one_graph("wrapped_clip"),
)
def numpy_finfo_is_a_constant(a):
    """`np.finfo(np.float64).eps` is a machine limit, known at trace time."""
    return np.clip(a, np.finfo(np.float64).eps, None)


@case(
    tags=["numpy"],
    calls=[Call(Make(array, 3, 4))],
    expect=Expect(frames=1, graphs=1),
)
def softmax_and_norm_of_rows(a):
    """`np.exp`, reductions with `keepdims` broadcast against the array, and
    `np.linalg.norm` along an axis: one graph of torch._numpy calls."""
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True), np.linalg.norm(a, axis=1)


@case(
    tags=["numpy"],
    calls=[Call(Make(array, 3, 4), Make(array, 4))],
    expect=Expect(frames=1, graphs=1),
)
def where_between_broadcast_arrays(a, b):
    """`np.where` of two arrays of different ranks, broadcast, with a mask of both."""
    return np.where(a > b, a, b) + np.concatenate([b, b])[:4]


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(T(4)), Call(T(4))],
    options={"fullgraph": True},
    expect=one_graph(".view_as", "wrapped_mean", "wrapped_item", "mul"),
)
def mean_of_array_read_as_float_under_fullgraph(x):
    """`float(np.mean(a))` under fullgraph=True: the ndarray's `item()` is a captured
    scalar (an unbacked SymFloat), as `Tensor.item()` is, and scales the tensor."""
    return x * float(np.mean(x.numpy()))


@case(
    tags=["numpy", "dynamic-shapes", "recompiles"],
    calls=[Call(T(6), np.int64(2)), Call(T(6), np.int64(3)), Call(T(6), np.int64(4))],
    expect=Expect(frames=1, graphs=1),
)
def int_of_numpy_integer_input_is_a_symbol(x, n):
    """`int(n)` of a NumPy integer input reads its 0-dim tensor (`wrapped_item`): a
    SymInt from the first compile, so a new value reuses the graph, as in Dynamo."""
    return x[: int(n)] * float(n)


@case(
    tags=["numpy", "dynamic-shapes", "recompiles"],
    calls=[Call(T(3), 4), Call(T(3), 9), Call(T(3), 16)],
    options={"fullgraph": True},
    expect=Expect(frames=3, graphs=3),
)
def numpy_functions_of_a_dynamic_int(x, n):
    """`np.sqrt(n)` and `np.float32(n)` of an int argument: once `n` changed it is a
    SymInt, and both are graph nodes on it (`wrapped_sqrt(l_n_)`), not constants to
    fold. torch._numpy makes the SymInt a tensor, which specializes it (`L['n'] == 9`):
    each value compiles, as in Dynamo."""
    return x * np.sqrt(n) + x * np.float32(n)


@case(
    tags=["numpy", "autograd", "fullgraph"],
    calls=[Call(T(2, 3, requires_grad=True))],
    options={"fullgraph": True},
    expect=one_graph("mul", ".detach", ".cpu", "wrapped_add"),
)
def numpy_force_of_tensor_requiring_grad(x):
    """`t.numpy(force=True)` of a tensor that requires grad detaches and moves to the
    CPU in the graph, as Dynamo's method_numpy (it raised: numpy() of a grad tensor)."""
    return (x * 2).numpy(force=True) + 1


_SCALAR_CONSTANT_OPS = [
    ".view_as", "wrapped_float64", "wrapped_add", "torch.as_tensor",
    "wrapped_int64", "wrapped_maximum", "torch.as_tensor",
]  # fmt: skip


@case(
    tags=["numpy", "fullgraph"],
    calls=[Call(T(3)), Call(T(3, dtype=torch.int32))],
    options={"fullgraph": True},
    expect=Expect(frames=2, graphs=2, ops=[_SCALAR_CONSTANT_OPS, _SCALAR_CONSTANT_OPS]),
)
def numpy_scalar_constant_keeps_its_dtype(x):
    """`a + np.float64(1.0)` of a float32 array is float64 in NumPy 2 (a NumPy scalar
    promotes as an array of its type, NEP 50), and `a + np.int64(1)` of an int32 one is
    int64: the scalar is the graph's 0-dim array of its type (``wrapped_float64(1.0)``),
    as Dynamo records it; its bare number promoted weakly, and the result kept the
    array's dtype (float32, int32)."""
    a = x.numpy()
    return torch.from_numpy(a + np.float64(1.0)), torch.from_numpy(np.maximum(a, np.int64(0)))
