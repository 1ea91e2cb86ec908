"""Tensor methods and attributes: methods are `call_method` nodes, metadata is constant.

`x.shape`, `x.dtype`, `x.ndim`, `x.device`, `x.requires_grad` are read from the (fake)
example value at trace time and guarded by `check_tensor`; methods enter the graph.
"""

import torch

from conformance.spec import Break, Call, Expect, T, case, one_graph


@case(tags=["tensor-methods"], calls=[Call(T(2, 3))], expect=one_graph(".sum", ".mean"))
def reductions(x):
    return x.sum(0), x.mean(dim=1)


@case(tags=["tensor-methods"], calls=[Call(T(2, 6))], expect=one_graph(".view", ".reshape"))
def view_and_reshape(x):
    return x.view(3, 4), x.reshape(-1)


@case(tags=["tensor-methods"], calls=[Call(T(2, 3, 4))], expect=one_graph(".permute", ".transpose"))
def permute_and_transpose(x):
    return x.permute(2, 0, 1), x.transpose(0, 1)


@case(tags=["tensor-methods"], calls=[Call(T(2, 3))], expect=one_graph(".t", ".contiguous"))
def transpose_then_contiguous(x):
    return x.t().contiguous()


@case(tags=["tensor-methods"], calls=[Call(T(4))], expect=one_graph(".clamp", ".relu"))
def clamp_and_relu(x):
    return x.clamp(min=-0.5, max=0.5).relu()


@case(tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph("mul"))
def shape_attribute_is_constant(x):
    """`x.shape[1]` is the static 4: no size() call in the graph."""
    return x * x.shape[1]


@case(tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph("add"))
def size_method_is_constant(x):
    return x + x.size(0) * x.size()[1]


@case(tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph("mul"))
def ndim_and_dim(x):
    return x * (x.ndim + x.dim())


@case(tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph("mul"))
def numel_is_constant(x):
    return x * x.numel()


@case(tags=["tensor-methods", "guards"], calls=[Call(T(3))], expect=one_graph("add"))
def dtype_attribute_branch(x):
    if x.dtype == torch.float32:
        return x + 1
    return x - 1


@case(tags=["tensor-methods"], calls=[Call(T(3))], expect=one_graph(".to"))
def to_dtype(x):
    return x.to(torch.float64)


@case(tags=["tensor-methods"], calls=[Call(T(3))], expect=one_graph("add"))
def device_attribute(x):
    if x.device.type == "cpu":
        return x + 1
    return x


@case(
    tags=["tensor-methods", "guards"],
    calls=[Call(T(3, requires_grad=True))],
    expect=one_graph("mul"),
)
def requires_grad_attribute(x):
    if x.requires_grad:
        return x * 2
    return x * 3


@case(tags=["tensor-methods"], calls=[Call(T(4, 4))], expect=one_graph("getitem"))
def basic_indexing(x):
    return x[1:3, ::2]


@case(tags=["tensor-methods"], calls=[Call(T(4, 4))], expect=one_graph("getitem"))
def index_with_none_and_ellipsis(x):
    return x[None, ..., 0]


@case(
    tags=["tensor-methods", "graph-breaks"],
    calls=[Call(T(4))],
    expect=Expect(frames=1, graphs=1, ops=[["gt"]], breaks=[Break("GB0036", "return x[x > 0]")]),
)
def boolean_mask_indexing(x):
    """A boolean mask gives a data-dependent output size: the indexing breaks the graph."""
    return x[x > 0]


@case(tags=["tensor-methods"], calls=[Call(T(4))], expect=one_graph(".clone", "setitem"))
def setitem_on_clone(x):
    y = x.clone()
    y[0] = 5.0
    return y


@case(
    tags=["tensor-methods"],
    calls=[Call(T(2, 2), T(2, 2))],
    expect=one_graph("torch.cat", "torch.stack"),
)
def cat_and_stack(x, y):
    return torch.cat([x, y], dim=1), torch.stack((x, y))


@case(tags=["tensor-methods"], calls=[Call(T(4), T(4))], expect=one_graph("gt", "torch.where"))
def where_select(x, y):
    return torch.where(x > 0, x, y)


@case(tags=["tensor-methods"], calls=[Call(T(3, 4), T(4, 5))], expect=one_graph(".matmul", ".mm"))
def matmul_methods(x, y):
    return x.matmul(y), x.mm(y)


@case(
    tags=["tensor-methods"],
    calls=[Call(T(2, 3))],
    expect=one_graph(".unsqueeze", ".squeeze", ".flatten"),
)
def shape_methods(x):
    return x.unsqueeze(0).squeeze(0).flatten()


@case(tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph(".softmax", ".log_softmax"))
def softmax_methods(x):
    return x.softmax(-1), x.log_softmax(dim=-1)


@case(
    tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph("torch.nn.functional.softmax")
)
def functional_softmax(x):
    return torch.nn.functional.softmax(x, dim=1)


@case(
    tags=["tensor-methods"], calls=[Call(T(4))], expect=one_graph(".exp", ".log", ".abs", ".sqrt")
)
def elementwise_methods(x):
    return x.exp().log().abs().sqrt()


@case(
    tags=["tensor-methods"], calls=[Call(T(3, 4))], expect=one_graph(".max", "getitem", "getitem")
)
def max_with_dim_returns_pair(x):
    values, indices = x.max(dim=1)
    return values, indices


@case(
    tags=["tensor-methods"],
    calls=[Call(T(3, 4))],
    expect=one_graph(".chunk", "getitem", "getitem", "add"),
)
def chunk_and_combine(x):
    a, b = x.chunk(2, dim=1)
    return a + b


@case(
    tags=["tensor-methods"],
    calls=[Call(T(3))],
    expect=one_graph("torch.zeros_like", "torch.ones_like", "add"),
)
def like_constructors(x):
    return torch.zeros_like(x) + torch.ones_like(x)


@case(tags=["tensor-methods"], calls=[Call(T(3))], expect=one_graph(".new_zeros", "add"))
def new_zeros_method(x):
    return x.new_zeros(3) + x


@case(tags=["tensor-methods"], calls=[Call(T(3))], expect=one_graph(".float", ".int"))
def dtype_conversion_methods(x):
    return x.float(), x.int()


@case(tags=["tensor-methods"], calls=[Call(T(3, 1))], expect=one_graph(".expand", "add"))
def expand_and_broadcast(x):
    return x.expand(3, 4) + 1


@case(tags=["tensor-methods"], calls=[Call(T(3))], expect=one_graph(".detach", "mul"))
def detach_method(x):
    return x.detach() * 2


@case(
    tags=["tensor-methods"],
    calls=[Call(T(5, dtype=torch.int64))],
    expect=one_graph(".sum", ".argmax"),
)
def integer_reductions(x):
    return x.sum(), x.argmax()


@case(
    tags=["tensor-methods"],
    calls=[Call(T(2, 3))],
    expect=one_graph("torch.ops.aten.numpy_T", "add"),
)
def transpose_attribute(x):
    """`x.T` is recorded as the aten op numpy_T."""
    return x.T + 1


@case(
    tags=["tensor-methods", "graph-breaks"],
    calls=[Call(T(4, 3))],
    expect=Expect(frames=2, graphs=2, breaks=[Break("GB0208", "offset = view.storage_offset()")]),
)
def storage_offset_breaks_the_graph(x):
    """A tensor's storage facts (`storage_offset()`, `is_set_to()`) are not those of the
    trace's fake tensor: the call breaks the graph, as in Dynamo, and runs in CPython."""
    view = x[1:]
    offset = view.storage_offset()
    return view * offset
