"""torch's Python-level queries while tracing: `torch.compiler.is_compiling`, the jit,
FX and ONNX tracing flags, device and backend availability, autocast state, dtype
information, and assertions (`torch._assert`, `torch._check`).

None of them is a graph operation: trace_rules constant-folds them (their answer inside
a compiled region is fixed), so the program around them traces into one graph.
"""

import torch
import torch.distributed
import torch.fx

from conformance.spec import Call, T, case, one_graph

FULLGRAPH = {"fullgraph": True}


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def is_compiling_is_true_inside(x):
    """As in Dynamo, `torch.compiler.is_compiling()` is True while compiled; both branches
    compute the same value, so eager and compiled agree while tracing only the first."""
    if torch.compiler.is_compiling():
        return x + 1
    return (x * 2 + 2) / 2


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def jit_is_scripting_is_false(x):
    if torch.jit.is_scripting():
        return x
    return x * 2


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("sub")
)
def jit_is_tracing_is_false(x):
    if not torch.jit.is_tracing():
        return x - 1
    return x


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def fx_is_tracing_is_false(x):
    if torch.fx._symbolic_trace.is_fx_tracing():
        return x
    return x * 3


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def onnx_export_is_false(x):
    return x + int(torch.onnx.is_in_onnx_export())


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def cuda_is_available_folds(x):
    """The device query is answered at trace time (a CPU-only or a GPU machine alike)."""
    scale = 2 if torch.cuda.is_available() else 2.0
    return x * scale


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def distributed_is_available_folds(x):
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return x + torch.distributed.get_world_size()
    return x + 1


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def autocast_is_enabled_folds(x):
    if torch.is_autocast_enabled("cpu"):
        return x.half()
    return x * 2


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph(".to")
)
def autocast_dtype_folds(x):
    return x.to(torch.get_autocast_dtype("cpu"))


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def backends_flag_is_read(x):
    """A `torch.backends` flag is a module attribute, read like a constant."""
    return x + torch.backends.cudnn.enabled


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3, 2))],
    options=FULLGRAPH,
    expect=one_graph("add"),
)
def assert_on_shape_vanishes(x):
    """`torch._assert` with a condition known at trace time leaves nothing in the graph."""
    torch._assert(x.shape[1] == 2, "expected two columns")
    return x + 1


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(4))], options=FULLGRAPH, expect=one_graph("mul")
)
def check_on_dim_vanishes(x):
    torch._check(x.dim() == 1)
    torch._check(x.numel() > 0, lambda: "empty input")
    return x * 2


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph(".clamp"),
)
def finfo_of_input_dtype(x):
    info = torch.finfo(x.dtype)
    return x.clamp(min=info.min, max=info.max)


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3, dtype=torch.int64))],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def iinfo_max(x):
    return x * torch.iinfo(torch.int8).max


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def finfo_eps_as_epsilon(x):
    return x + torch.finfo(torch.float32).eps


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.zeros", "add"),
)
def device_built_in_function(x):
    device = torch.device("cpu")
    return x + torch.zeros(3, device=device)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def grad_mode_query(x):
    return x * (2 if torch.is_grad_enabled() else 3)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph(".to")
)
def default_dtype_query(x):
    return x.to(torch.get_default_dtype())


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def deterministic_algorithms_query(x):
    if torch.are_deterministic_algorithms_enabled():
        return x - 1
    return x + 1
