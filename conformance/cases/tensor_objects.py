"""Tensors as Python objects: identity, attributes, hashing, and scalar constants.

A tensor is also a plain Python object: `x.add_(1)` returns `x` itself, tensors in sets
and `in` tests compare by identity, and numbers next to tensors may be numpy scalars.
"""

import numpy as np
import torch

from conformance.spec import Break, Call, Expect, T, case, one_graph


@case(tags=["tensor-objects", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True})
def inplace_method_returns_its_input(x):
    """`x.add_(1)` returns `x` itself (it was once a new object under compilation)."""
    y = x.add_(1)
    return x is y, y


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph(".clone", ".mul_", "add"))
def inplace_on_clone_returns_the_clone(x):
    z = x.clone()
    y = z.mul_(2)
    return y is z, y + 1


@case(
    tags=["tensor-objects", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, breaks=[Break("GB0059", 'print("between")')]),
)
def inplace_identity_across_graph_break(x):
    z = x.clone()
    y = z.add_(1)
    print("between")
    return y is z, x is y


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph(".view", ".sub_"))
def view_is_not_its_base(x):
    """A view is a new tensor object; an in-place method on it returns the view."""
    v = x.view(3)
    w = v.sub_(1)
    return v is x, w is v


SCALE = np.float64(2.5)


@case(tags=["tensor-objects", "globals"], calls=[Call(T(3))], expect=one_graph("mul"))
def numpy_scalar_constant_in_expression(x):
    """A numpy scalar next to a tensor (it once left `np.float64(2.5)` in the graph's
    code: NameError in the user's call)."""
    return x * SCALE


@case(tags=["tensor-objects", "builtins"], calls=[Call(T(3))], expect=one_graph("add"))
def hasattr_on_input_tensor(x):
    if hasattr(x, "flag"):
        return x - 1
    return x + 1


@case(tags=["tensor-objects", "builtins"], calls=[Call(T(3))], expect=one_graph("mul"))
def getattr_with_default_on_tensor(x):
    scale = getattr(x, "scale", 2)
    return x * scale


@case(tags=["tensor-objects", "builtins"], calls=[Call(T(2, 3))], expect=one_graph("add", "add"))
def getattr_of_tensor_property(x):
    name = "ndim"
    return x + getattr(x, "sha" + "pe")[1] + getattr(x, name)


@case(tags=["tensor-objects", "side-effects"], calls=[Call(T(3))], expect=one_graph("add"))
def attribute_set_on_new_tensor(x):
    y = x + 1
    y.flag = True
    if y.flag:
        return y
    return x


@case(tags=["tensor-objects", "side-effects"], calls=[Call(T(3))])
def attribute_set_on_input_tensor(x):
    """The attribute set on the input is visible to the caller after the call."""
    x.tag = "seen"
    return x * 2, hasattr(x, "tag")


@case(tags=["tensor-objects", "side-effects"], calls=[Call(T(3))])
def attribute_set_on_returned_tensor(x):
    """An attribute set on a tensor the graph made, then returned (minidynamo runs the
    frame eagerly: such a tensor has no source to replay the store on)."""
    y = x.sin()
    y.origin = "sin"
    return y, y.origin


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph("add"))
def type_name_of_tensor(x):
    if type(x).__name__ == "Tensor":
        return x + 1
    return x


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph("add"))
def tensor_type_string(x):
    if x.type() == "torch.FloatTensor":
        return x + 1
    return x


@case(
    tags=["tensor-objects", "loops"],
    calls=[Call(T(3, 2))],
    expect=one_graph("getitem", "getitem", "getitem", "add", "add"),
)
def iter_over_tensor_rows(x):
    it = iter(x)
    first = next(it)
    total = first
    for row in it:
        total = total + row
    return total


@case(tags=["tensor-objects", "containers"], calls=[Call(T(3), T(3))])
def tensors_in_set(x, y):
    """Tensors hash by identity: `{x, y, x}` has two items, `x in s` is True."""
    s = {x, y, x}
    return len(s), x in s, (x + y)


@case(tags=["tensor-objects", "containers"], calls=[Call(T(3), T(3))])
def tensor_in_frozenset(x, y):
    """`not in` on a frozenset of tensors compares by identity."""
    seen = frozenset([x])
    return [t * 2 for t in (x, y) if t not in seen]


@case(tags=["tensor-objects", "containers"], calls=[Call(T(3), T(3))], expect=one_graph("mul"))
def tensor_in_list_by_identity(x, y):
    """`in` tries identity before `==`: the first item is the tensor itself."""
    ts = [x, y]
    if x in ts:
        return y * 2
    return y


@case(tags=["tensor-objects", "containers"], calls=[Call(T(3), T(3), T(3))])
def list_index_of_tensor(a, b, c):
    """`list.index` finds a tensor by identity (the first item is tried first)."""
    ts = [a, b, c]
    return ts.index(a), ts[ts.index(a)] + 1


@case(tags=["tensor-objects", "builtins"], calls=[Call(T(2), T(4), T(3))])
def sorted_tensors_by_size(a, b, c):
    """`sorted(key=)` over tensors, keyed by a static size."""
    ts = sorted([a, b, c], key=lambda t: t.shape[0])
    return [t.sum() for t in ts]


@case(tags=["tensor-objects", "builtins"], calls=[Call(T(2), T(4), T(3))])
def min_max_tensors_by_numel(a, b, c):
    """`min`/`max` with a key over tensors pick one of the tensors themselves."""
    small = min([a, b, c], key=lambda t: t.numel())
    big = max(a, b, c, key=lambda t: t.numel())
    return small * 2, big + 1


@case(tags=["tensor-objects", "graph-breaks"], calls=[Call(T(3))])
def item_of_sum(x):
    """`.item()`: Dynamo's default is a graph break (capture_scalar_outputs=False)."""
    s = x.sum().item()
    return x + s


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph("mul"))
def is_tensor_and_isinstance(x):
    if torch.is_tensor(x) and isinstance(x, torch.Tensor):
        return x * 2
    return x


# More of a tensor as a Python object.

FULLGRAPH = {"fullgraph": True}
OBJ = ["tensor-objects", "fullgraph"]


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def attribute_set_on_intermediate_tensor(x):
    y = x * 2
    y.tag = "scaled"
    return y, y.tag, hasattr(y, "tag")


@case(tags=OBJ, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=one_graph("add"))
def tensor_properties_as_values(x):
    n = x.ndim + x.shape[-1] + x.dim() + x.numel() + x.element_size()
    return x + n, x.is_cuda, x.device.type, x.dtype.is_floating_point, x.is_contiguous()


@case(
    tags=OBJ,
    calls=[Call(T(2, 3))],
    options=FULLGRAPH,
    expect=one_graph("torch.ops.aten.numpy_T", "add", "torch.ops.aten.mT"),
)
def tensor_transpose_properties(x):
    return x.T + 1, x.mT.shape


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def tensor_real_of_real(x):
    return x.real + 1, x.is_complex()


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def type_of_tensor_checks(x):
    return x * 2, type(x) is torch.Tensor, type(x).__name__, x.type(), isinstance(x, torch.Tensor)


@case(tags=OBJ, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=one_graph("add"))
def tensors_as_dict_keys(x, y):
    d = {x: "first", y: "second"}
    return x + y, d[y], x in d


@case(tags=OBJ, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def set_of_tensors_dedup(x, y):
    s = {x, y, x}
    return len(s), y in s, x * 2


@case(tags=OBJ, calls=[Call([T(3), T(3), T(3)])], options=FULLGRAPH, expect=one_graph("mul"))
def list_remove_and_index_of_tensor(xs):
    a, b, _ = xs
    xs = list(xs)
    xs.remove(a)
    return xs.index(b), len(xs), b * 2


@case(tags=OBJ, calls=[Call([T(3), T(2, 2), T(1)])], options=FULLGRAPH, expect=one_graph("mul"))
def max_tensor_by_key_lambda(xs):
    biggest = max(xs, key=lambda t: t.numel())
    return biggest * 2


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", "getattr"))
def tensor_requires_grad_and_grad_attribute(x):
    return x * 2, x.requires_grad, x.grad is None, x.is_leaf


@case(tags=OBJ, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def unbind_and_iterate_rows(x):
    return [r.sum() for r in x]


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def getattr_dynamic_name_on_tensor(x):
    name = "shape"
    return x + getattr(x, name)[0], getattr(x, "names", None)


@case(
    tags=OBJ, calls=[Call(T(3)), Call(T(4))], options=FULLGRAPH, expect=Expect(frames=2, graphs=2)
)
def len_and_size_of_tensor(x):
    return x * len(x) + x.size(0) + x.size()[-1]


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def dtype_and_device_comparisons(x):
    same = (
        x.dtype == torch.float32
        and x.device == torch.device("cpu")
        and x.dtype in (torch.float16, torch.float32)
    )
    return x * same, x.dtype.itemsize, x.dtype.is_signed


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def callable_bound_tensor_method(x):
    """A tensor's method read without a call (`x.add`) is a callable; `grad_fn` is an
    attribute every tensor has."""
    return x * 2, callable(x.add), callable(x.shape), hasattr(x, "grad_fn")


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add"))
def tensor_class_attribute_name(x):
    cls = x.__class__
    return x + 1, cls.__name__, cls is torch.Tensor, x.__class__.__qualname__


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def grad_fn_is_none_without_grad(x):
    """Without requires_grad no tensor has a `grad_fn`: None, known while tracing (no
    graph node reads it)."""
    y = x * 2
    return y, x.grad_fn is None, y.grad_fn


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul"))
def isinstance_of_legacy_tensor_type(x):
    """`torch.FloatTensor` is a legacy type whose isinstance check looks at the tensor's
    dtype and device (a float32 CPU tensor is one), not at its class."""
    if isinstance(x, torch.FloatTensor) and not isinstance(x, (torch.DoubleTensor,)):
        return x * 2
    return x


@case(
    tags=["tensor-objects", "dynamo-divergence"],
    calls=[Call(T(3))],
    expect=Expect(outcome="raises"),
)
def tensor_in_list_compares_earlier_items_by_value(x):
    """`x in items` compares each item before `x` itself by `==` and takes its truth:
    of a three-element tensor that raises RuntimeError, as in eager."""
    return x in [x + 1, x]


@case(
    tags=["tensor-objects", "dynamo-divergence"],
    calls=[Call(T(3))],
    expect=Expect(outcome="raises"),
)
def list_count_of_tensor_compares_by_value(x):
    """`items.count(x)` compares every item that is not `x` by `==`: the truth of a
    three-element tensor raises RuntimeError, as in eager."""
    return [x, x * 2].count(x)


@case(
    tags=[*OBJ, "dynamo-divergence"],
    calls=[Call(T(1))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def one_element_tensor_in_list_found_by_identity(x):
    """The `==` of a one-element tensor has a truth (known when the graph runs), and the
    item after it is `x` itself: `x in items` is True whatever that value."""
    return x in [x + 1, x], x * 2


@case(
    tags=OBJ,
    calls=[Call(T(3), T(3))],
    options=FULLGRAPH,
    expect=one_graph(
        "torch._C._set_grad_enabled",
        "torch.ops.aten.shallow_copy_data_",
        "torch._C._set_grad_enabled",
        ".add_",
        "add",
    ),
)
def data_assignment_shares_the_value_storage(x, y):
    """`x.data = y` makes the argument share `y`'s storage: an in-place op on `y`
    afterwards changes `x` too, in the caller's tensors."""
    x.data = y
    y.add_(1)
    return x + 1


@case(
    tags=OBJ,
    calls=[Call(T(4)), Call(T(4))],
    options=FULLGRAPH,
    expect=one_graph(".mean", ".item", "mul", ".argmax", ".item", "mul"),
)
def float_and_int_of_tensor_captured(x):
    """`float(t)` and `int(t)` are `t.item()`: under fullgraph=True a scalar the graph
    computes (zuf0, u0), so new data reuses the graph."""
    return x * float(x.mean()), x * int(x.argmax())


@case(
    tags=OBJ,
    calls=[Call(T(4)), Call(T(4))],
    options=FULLGRAPH,
    expect=one_graph(".sum", ".item", "torch._refs.tensor"),
)
def tensor_built_from_captured_scalar(x):
    """`torch.tensor([...])` of a captured scalar: torch's Python reference
    (`torch._refs.tensor`) builds it without reading the number, as Dynamo does."""
    return torch.tensor([x.sum().item(), 1.0])


# Appended after the cases above, whose source lines their goldens name.
from conformance.spec import Make  # noqa: E402


class Tagged(torch.Tensor):
    """A tensor subclass with the default __torch_function__, a method and a property."""

    LABEL = "tagged"

    def scaled(self, k):
        return self * k

    @property
    def doubled(self):
        return self + self


class SubTagged(Tagged):
    pass


class Unrelated(torch.Tensor):
    pass


TORCH_FUNCTION_CALLS = []


class Counting(torch.Tensor):
    """A subclass with its own __torch_function__ (counting the operations)."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        TORCH_FUNCTION_CALLS.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs or {})


def _tensor_of(cls, *shape):
    return torch.randn(shape).as_subclass(cls)


def _tagged_with_meta():
    t = _tensor_of(Tagged, 3)
    t.meta = 2.0
    return t


@case(tags=OBJ, calls=[Call(Make(_tensor_of, Tagged, 3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def subclass_input_ops_return_the_subclass(x):
    """Ops on a tensor of a subclass with the default __torch_function__ return that
    subclass (the graph computes plain tensors; the result is made the class after it)."""
    y = torch.sin(x).cos() + 1
    return y, type(y).__name__, isinstance(y, Tagged), type(x.sum()).__name__


@case(tags=[*OBJ, "dynamo-divergence"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def as_subclass_inside_the_function(x):
    """`x.as_subclass(cls)` makes no node; ops on it, and their results, are `cls`
    (Dynamo 2.14 returns the tensor of `x.as_subclass(cls)` itself as a plain Tensor)."""
    y = x.as_subclass(Tagged)
    z = y * 2
    return z, type(y).__name__, type(z).__name__, type(x).__name__


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def make_subclass_of_a_computed_tensor(x):
    """`torch.Tensor._make_subclass(cls, t)` detaches `t` and makes it `cls`."""
    y = torch.Tensor._make_subclass(Tagged, x * 2)
    return y + 1, type(y).__name__, y.requires_grad


@case(tags=OBJ, calls=[Call(Make(_tensor_of, SubTagged, 3), Make(_tensor_of, Tagged, 3))],
      options=FULLGRAPH, expect=Expect(frames=1, graphs=1))  # fmt: skip
def mixed_subclasses_give_the_most_derived(a, b):
    """Of a subclass and its base class, the result is the subclass, in either order;
    with a plain tensor, the subclass."""
    return type(a + b).__name__, type(b * a).__name__, type(torch.cat([b, a.detach()])).__name__


@case(tags=["tensor-objects"],
      calls=[Call(Make(_tensor_of, Tagged, 3)), Call(T(3)), Call(Make(_tensor_of, SubTagged, 3))],
      expect=Expect(frames=3, graphs=3))  # fmt: skip
def subclass_of_input_is_guarded(x):
    """The input's class is guarded: a plain tensor, or another subclass, recompiles."""
    y = x + 1
    return y, type(y).__name__


@case(tags=OBJ, calls=[Call(Make(_tensor_of, Tagged, 3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def disable_torch_function_subclass_gives_plain_tensors(x):
    """Inside `torch._C.DisableTorchFunctionSubclass()` results are plain tensors;
    after it, the subclass again."""
    with torch._C.DisableTorchFunctionSubclass():
        y = x + 1
    z = x * 2
    return y, type(y).__name__, type(z).__name__


@case(tags=OBJ, calls=[Call(Make(_tensor_of, Tagged, 3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def subclass_method_property_and_class_attribute(x):
    """A method, a property and a class attribute of the subclass are inlined."""
    y = x.scaled(3) + x.doubled
    return y, type(y).__name__, x.LABEL


@case(tags=OBJ, calls=[Call(Make(_tagged_with_meta))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def subclass_input_with_python_attribute(x):
    """An attribute set on the subclass tensor before the call is read (guarded)."""
    return x * x.meta, hasattr(x, "missing")


@case(tags=["tensor-objects", "graph-breaks"], calls=[Call(Make(_tensor_of, Tagged, 3))])
def subclass_result_across_graph_break(x):
    """A subclass tensor alive at a graph break is made the subclass for the code after it."""
    y = x * 2
    print("between")
    z = y + 1
    return z, type(y).__name__, type(z).__name__


@case(tags=["tensor-objects", "graph-breaks"],
      calls=[Call(Make(_tensor_of, Unrelated, 3), Make(_tensor_of, Tagged, 3))],
      expect=Expect(outcome="raises"))  # fmt: skip
def unrelated_subclasses_raise_type_error(a, b):
    """Of two unrelated subclasses, every default __torch_function__ returns
    NotImplemented: eager raises TypeError."""
    return a + b


@case(tags=["tensor-objects", "graph-breaks"],
      calls=[Call(Make(_tensor_of, Counting, 3))])  # fmt: skip
def subclass_with_own_torch_function_runs_it(x):
    """A class's own __torch_function__ runs for every operation: inlined, with its
    side effect on a global list replayed (as Dynamo)."""
    del TORCH_FUNCTION_CALLS[:]
    y = x.sin()
    return y, type(y).__name__, list(TORCH_FUNCTION_CALLS)


class Described(torch.Tensor):
    """A subclass with its own text and a method calling torch's through super()."""

    def __repr__(self):
        return f"Described({self.shape[0]})"

    def plus_self(self):
        return super().add(self)


@case(tags=OBJ, calls=[Call(Make(_tensor_of, Described, 3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def subclass_method_calls_torch_through_super(x):
    """`super().add(self)` in a subclass's method is torch's method (its result the
    subclass); a subclass defining `__repr__` is traced as any other."""
    y = x.plus_self() * 2
    return y, type(y).__name__


class Passthrough(torch.Tensor):
    """The usual own __torch_function__: torch's default with dispatch disabled."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        with torch._C.DisableTorchFunctionSubclass():
            return super().__torch_function__(func, types, args, kwargs)


class DoubledAdd(torch.Tensor):
    """An own __torch_function__ that changes one function (`func is torch.add`) and
    returns plain tensors, computed with the subclass unwrapped."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        with torch._C.DisableTorchFunctionSubclass():
            out = func(*args, **kwargs)
        return out * 2 if func is torch.add else out


class Rewrapping(torch.Tensor):
    """An own __torch_function__ that refuses foreign classes and rewraps results."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with torch._C.DisableTorchFunctionSubclass():
            out = func(*args, **(kwargs or {}))
        return out.as_subclass(cls) if isinstance(out, torch.Tensor) else out


@case(tags=OBJ, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def own_torch_function_passthrough_is_one_graph(x):
    """Functions, methods, operators, indexing and attributes of a tensor whose class
    has the usual passthrough __torch_function__ are one graph, results of the class."""
    t = x.as_subclass(Passthrough)
    y = torch.sin(t).relu() * 2 + t[0] - torch.nn.functional.gelu(t.T).T
    return y, type(y).__name__, t.shape, t.dtype, type(t.sum(dim=0)).__name__


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def own_torch_function_logs_operator_names(x):
    """`func.__name__` of operators as eager names them (`x * 2` asks with Tensor.mul),
    appended to a global list the compiled code then holds."""
    del TORCH_FUNCTION_CALLS[:]
    t = x.as_subclass(Counting)
    y = (t * 2 + t).exp()
    return y, list(TORCH_FUNCTION_CALLS)


@case(tags=OBJ, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def own_torch_function_checks_func_identity(x, other):
    """A __torch_function__ that tests `func is torch.add` and returns plain tensors."""
    t = x.as_subclass(DoubledAdd)
    a = torch.add(t, other)
    b = torch.mul(t, other)
    return a, b, type(a).__name__, type(b).__name__


@case(tags=OBJ, calls=[Call(T(3), T(3))], options=FULLGRAPH, expect=Expect(frames=1, graphs=1))
def own_torch_function_rewraps_and_mixes_plain(x, other):
    """Results rewrapped with as_subclass; a plain tensor beside it is no foreign class."""
    t = x.as_subclass(Rewrapping)
    y = torch.where(t > 0, t, other) + 1
    return y, type(y).__name__, type(y.sum().item()).__name__


@case(
    tags=OBJ,
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("getitem", "getitem", "torch._refs.tensor"),
)
def tensor_built_from_zero_dim_elements(x):
    """`torch.tensor([x[0], x[1]])` of 0-dim tensors: torch's Python reference builds it
    from the graph values, as Dynamo does (the fake tensors' values were read: it
    raised under fullgraph)."""
    return torch.tensor([x[0], x[1]])


@case(
    tags=[*OBJ, "dynamic-shapes"],
    calls=[Call(T(5)), Call(T(6)), Call(T(10))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def new_tensor_of_dynamic_sizes(x):
    """`x.new_tensor([n, n * 0.5])` of a size that turned dynamic is Dynamo's
    method_new_tensor: `torch.tensor` of x's dtype and device, built from the SymInt by
    torch._refs.tensor, so the third size reuses the graph (it guarded the value)."""
    return x.new_tensor([x.shape[0], x.shape[0] * 0.5])



@case(
    tags=OBJ, calls=[Call(T(3)), Call(T(3))], options=FULLGRAPH, expect=Expect(frames=2, graphs=2)
)
def id_of_input_tensor_is_a_number(x):
    """`id(x)` of an input is its real id, a constant guarded by identity (Dynamo's
    ID_MATCH), so it can be computed with (a key of a cache dict); each new tensor
    compiles again."""
    key = id(x)
    return x * 2, key > 0


@case(tags=OBJ, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph(".type"))
def type_cast_to_legacy_tensor_class(x):
    """`x.type(torch.LongTensor)` casts: FX cannot hold the class, so the node takes its
    name "torch.LongTensor" (Dynamo's method_type); it broke on the class argument."""
    return x.type(torch.LongTensor), x.type()
