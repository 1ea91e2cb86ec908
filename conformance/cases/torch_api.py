"""torch's Python-level queries while tracing: `torch.compiler.is_compiling`, the jit,
FX and ONNX tracing flags, device and backend availability, autocast state, dtype
information, and assertions (`torch._assert`, `torch._check`).

None of them is a graph operation: trace_rules constant-folds them (their answer inside
a compiled region is fixed), so the program around them traces into one graph.
"""

import torch
import torch.distributed
import torch.fx

from conformance.spec import Break, Call, Expect, T, case, one_graph

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


# More of torch's Python-side API, called inside compiled code.


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def distributed_is_initialized_folds(x):
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return x
    return x + 1


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def fx_symbolic_trace_query_folds(x):
    if torch.fx._symbolic_trace.is_fx_tracing():
        return x
    return x * 3


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3), 2)],
    options=FULLGRAPH,
    expect=one_graph("mul"),
)
def check_helpers_on_python_values(x, n):
    torch._check(n > 0)
    torch._check_value(n < 10, lambda: "too big")
    torch._check_type(isinstance(n, int), lambda: "not an int")
    torch._check_index(n >= 0, lambda: "negative")
    return x * n


@case(tags=["torch-api", "fullgraph"], calls=[Call(T(3, dtype=torch.float16))], options=FULLGRAPH,
      expect=one_graph(".clamp"))  # fmt: skip
def finfo_of_tensor_dtype_clamps(x):
    info = torch.finfo(x.dtype)
    return x.clamp(min=info.min, max=info.max), info.bits, info.tiny > 0


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def iinfo_bits_of_int_dtypes(x):
    return x * torch.iinfo(torch.int8).bits, torch.iinfo(torch.uint8).max


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.ones", "add"),
)
def device_and_dtype_built_in_function(x):
    dev = torch.device("cpu")
    dt = torch.float32
    return x + torch.ones(3, dtype=dt, device=dev), dev.type, str(dt), dt.is_floating_point


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("torch.zeros", "add"),
)
def factory_with_default_dtype(x):
    z = torch.zeros(3, dtype=torch.get_default_dtype(), device=x.device)
    return x + z, z.dtype == x.dtype


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(2, 3))],
    options=FULLGRAPH,
    expect=one_graph("torch.zeros"),
)
def size_arithmetic(x):
    """torch.Size with + and slicing is a torch.Size; `numel()` of it is a Python int."""
    shape = x.shape[:-1] + (4,)
    return torch.zeros(shape), isinstance(shape, torch.Size), shape.numel()


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(2, 3))],
    options=FULLGRAPH,
    expect=one_graph(".new_zeros", ".reshape"),
)
def size_made_from_list(x):
    shape = torch.Size([3, 2])
    return x.new_zeros(shape), x.reshape(shape), len(shape)


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def distribution_log_prob(x):
    d = torch.distributions.Normal(torch.zeros(3), torch.ones(3))
    return d.log_prob(x)


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def distribution_entropy_and_mean(x):
    d = torch.distributions.Normal(x, 2.0)
    return d.mean + d.entropy(), d.stddev


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def vmap_of_dot_product(x):
    return torch.func.vmap(lambda row: (row * row).sum())(x.unsqueeze(0).expand(2, 3))


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_grad_of_square(x):
    return torch.func.grad(lambda t: (t * t).sum())(x)


def double_inner(x):
    return x * 2


compiled_inner = torch.compile(double_inner, backend="eager")


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def compiled_function_called_inside(x):
    """A function compiled with torch.compile, called in a compiled region, is inlined."""
    return compiled_inner(x) + 1


@torch.jit._script_if_tracing
def scripted_if_tracing(x):
    return x - 1


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("sub")
)
def script_if_tracing_helper(x):
    return scripted_if_tracing(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def autocast_gpu_dtype_query(x):
    if torch.is_autocast_enabled("cpu"):
        return x
    return x * 2, torch.get_autocast_dtype("cpu")


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def backends_cudnn_flags(x):
    if torch.backends.cudnn.enabled and not torch.backends.cudnn.deterministic:
        return x * 2
    return x * 3


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add")
)
def is_grad_enabled_branch(x):
    if torch.is_grad_enabled():
        return x + 1
    return x


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=one_graph("torch.sin", "add"),
)
def torch_function_name_attribute(x):
    """`torch.sin.__name__` of a torch builtin is a constant: a dispatch table keyed by
    the functions' names picks `sin` while tracing."""
    out = x
    for f in (torch.sin, torch.cos):
        if f.__name__ == "sin":
            out = out + f(x)
    return out


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=one_graph("mul", "add"),
)
def compile_of_lambda_called_inside(x):
    """`torch.compile(fn)` made inside a compiled region: the call of what it returns is
    a call of `fn`, inlined (as Dynamo), not a nested compilation."""
    scaled = torch.compile(lambda t: t * 5)
    return scaled(x) + 1


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3)), Call(T(4))], options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def check_with_and_check_is_size(x):
    """`torch._check_is_size(n)` and `torch._check_with(Error, cond, msg_fn)` on conditions
    known while tracing vanish, as `torch._check` does."""
    n = x.shape[0]
    torch._check_is_size(n)
    torch._check_with(ValueError, x.dim() == 1, lambda: "expected a vector")
    torch._check_not_implemented(n > 0, lambda: "empty input")
    return x + n


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul")
)
def cuda_matmul_tf32_flag(x):
    """`torch.backends.cuda.matmul.allow_tf32` is computed by its class's `__getattr__`
    from the process's settings: read now, as a constant."""
    matmul = torch.backends.cuda.matmul
    if matmul.allow_tf32:
        return x
    return x * 2


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=one_graph(".to", "mul"),
)
def mps_is_available_folds(x):
    """`torch.backends.mps.is_available` is an lru_cache wrapper: folded like the function
    it caches."""
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    return x.to(device) * 2


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(2, 5))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def categorical_entropy_and_probs(x):
    """`Categorical(logits=...).probs` is a `lazy_property` of torch.distributions, a
    descriptor in Python that computes the value and stores it on the instance."""
    dist = torch.distributions.Categorical(logits=x)
    return dist.entropy(), dist.probs, dist.probs.sum(-1)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(4))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def bernoulli_log_prob_and_mean(x):
    dist = torch.distributions.Bernoulli(probs=torch.sigmoid(x))
    return dist.log_prob(torch.ones_like(x)), dist.mean, dist.logits


@torch.library.custom_op("conformance::scaled_sin", mutates_args=())
def scaled_sin(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x.sin() * scale


@scaled_sin.register_fake
def _scaled_sin_fake(x, scale):
    return torch.empty_like(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(4))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def custom_op_called_in_graph(x):
    """An op made with `torch.library.custom_op`, called as the decorated function and
    through `torch.ops`: one graph node each, its fake implementation giving the shape."""
    return scaled_sin(x, 2.0) + torch.ops.conformance.scaled_sin.default(x, 0.5)


_no_fake_lib = torch.library.Library("conformance_nofake", "DEF")
_no_fake_lib.define("double(Tensor x) -> Tensor")
_no_fake_lib.impl("double", lambda x: x * 2, "CPU")


NO_FAKE_LINE = "doubled = torch.ops.conformance_nofake.double(y)"


@case(
    tags=["torch-api", "graph-breaks"], calls=[Call(T(3))],
    expect=Expect(frames=3, graphs=3, breaks=[Break("GB0090", NO_FAKE_LINE)]),
)
def custom_op_without_fake_kernel_breaks(x):
    """An operator with a CPU kernel only cannot run on fake tensors (it is not PT2
    compliant): the trace breaks at its call, which runs eagerly, and says so. Its kernel,
    a Python function of this file, is compiled as a frame of its own (3 graphs)."""
    y = x + 1
    doubled = torch.ops.conformance_nofake.double(y)
    return doubled - 1


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def multivariate_normal_log_prob(x):
    """MultivariateNormal's constructor broadcasts its parameters' shapes with
    `torch.broadcast_shapes` of sizes known now: folded to a torch.Size."""
    dist = torch.distributions.MultivariateNormal(torch.zeros(3), torch.eye(3))
    return dist.log_prob(x), dist.batch_shape, dist.event_shape


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(4, 3), T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def vmap_in_dims_out_dims(x, y):
    """`in_dims=(0, None)` batches `x` only (one `_add_batch_dim`), `out_dims=1` puts the
    batch last (`_remove_batch_dim(..., 1)`); the body is recorded once, unbatched."""
    return torch.func.vmap(torch.mul, in_dims=(0, None), out_dims=1)(x, y)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(2, 3, 4), T(2, 3, 4))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def vmap_nested(x, y):
    """vmap of vmap: two levels entered and left, each input batched twice."""
    return torch.vmap(torch.vmap(torch.dot))(x, y)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(5, 3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1), factory=True,
)
def vmap_over_module_call():
    """A module called in the vmapped function: its parameters are graph inputs, used
    unbatched by the batched body."""
    linear = torch.nn.Linear(3, 2)

    def rows(x):
        return torch.func.vmap(lambda row: linear(row).relu())(x)

    return rows


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(5, 3), T(5))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_grad_of_closure_loss(x, y):
    """grad of a loss over a closure's data, at weights made in the function: the body
    between `_wrap_for_grad` and `_autograd_grad`, as Dynamo records it."""
    weights = torch.ones(3)

    def loss(w):
        return ((x @ w - y) ** 2).mean()

    return torch.func.grad(loss)(weights)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_grad_and_value(x):
    """grad_and_value: the gradient and the value, both unwrapped from the grad level."""
    return torch.func.grad_and_value(lambda t: t.sin().sum())(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(2, 3), T(2, 3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def independent_normal_log_prob(loc, x):
    """Independent is a `Distribution, Generic[D]`: typing.Generic gives an instance no
    behaviour of its own, so the object is made and traced like any user object."""
    dist = torch.distributions.Independent(torch.distributions.Normal(loc, loc.exp()), 1)
    return dist.log_prob(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_jacrev_of_sin(x):
    """jacrev: vjp's grad level, then a vmap over the standard basis of the output; its
    wrapper is made under functools.wraps (torch.func's `_wraps_without_dynamo_attrs`)."""
    return torch.func.jacrev(torch.sin)(x)


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(4, 3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def functional_call_with_new_weights():
    """functional_call swaps tensors into the module's `_parameters` for the call
    (``module._parameters[name] = t``): the forward reads the swapped-in ones."""
    linear = torch.nn.Linear(3, 2)

    def run(x):
        weights = {"weight": x[:2] * 2, "bias": torch.zeros(2)}
        return torch.func.functional_call(linear, weights, (x,)), linear.weight + 0

    return run


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(4, 3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def func_grad_over_functional_call():
    """The usual torch.func training step: grad of a loss of functional_call, over the
    module's own parameters; the linear uses the grad level's wrapped weights."""
    linear = torch.nn.Linear(3, 2)
    params = dict(linear.named_parameters())

    def step(x):
        def loss(p, x):
            return torch.func.functional_call(linear, p, (x,)).pow(2).sum()

        return torch.func.grad(loss)(params, x)

    return step


def _linear_with_grads():
    linear = torch.nn.Linear(3, 2)
    for param in linear.parameters():
        param.grad = torch.linspace(-2.0, 3.0, param.numel()).reshape(param.shape)
    return linear


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(4, 3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def clip_grad_norm_of_module_grads():
    """clip_grad_norm_ groups the gradients by device and dtype
    (`torch._C._group_tensors_by_device_and_dtype`, a polyfill here as in Dynamo), then
    scales them in place with the foreach kernels; the total norm is returned."""
    linear = _linear_with_grads()

    def clip(x):
        norm = torch.nn.utils.clip_grad_norm_(linear.parameters(), 0.5)
        return linear.weight.grad * x.sum(), norm

    return clip


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(4, 3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def clip_grad_value_of_module_grads():
    """clip_grad_value_ clamps each group of gradients in place (`_foreach_clamp_min_`)."""
    linear = _linear_with_grads()

    def clip(x):
        torch.nn.utils.clip_grad_value_(linear.parameters(), 0.5)
        return linear.bias.grad + x.sum()

    return clip


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(4, 3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def parameters_to_vector_of_module():
    """parameters_to_vector checks each parameter's device (`_check_param_device`) and
    concatenates their views."""
    linear = torch.nn.Linear(3, 2)

    def flat(x):
        return torch.nn.utils.parameters_to_vector(linear.parameters()) * x.sum()

    return flat


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def dynamo_is_compiling_is_true_inside(x):
    """`torch._dynamo.is_compiling()` asks `torch.compiler.is_compiling()`: True while
    compiled; both branches compute the same value."""
    import torch._dynamo

    if torch._dynamo.is_compiling():
        return x + 1
    return (x * 2 + 2) / 2


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def autocast_and_accelerator_queries_fold(x):
    """The CPU autocast state and the accelerators' availability are constants of the
    trace, as in Dynamo's constant-fold list."""
    off = not (torch.is_autocast_cpu_enabled() or torch._C._is_any_autocast_enabled())
    devices = torch.accelerator.is_available() + torch.mps.is_available()
    return x + off + devices + torch.is_autocast_cache_enabled()


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(8))],
    options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
    factory=True,
)
def vector_to_parameters_then_forward():
    """`nn.utils.vector_to_parameters` assigns each parameter's `.data` a view of the
    vector: `aten.shallow_copy_data_` under no_grad, then the forward reads the new
    values."""
    linear = torch.nn.Linear(3, 2)

    def load(vector):
        torch.nn.utils.vector_to_parameters(vector, linear.parameters())
        return linear(torch.ones(1, 3))

    return load


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_jvp_of_sin(x):
    """Forward mode: `_jvp_increment_nesting`, the forward-grad switch and a dual level
    are effect nodes run while tracing too, `_make_dual`/`_unpack_dual` graph nodes;
    functorch's JVP_NESTING global goes 0 -> 1 -> 0 (a module attribute, replayed)."""
    return torch.func.jvp(torch.sin, (x,), (torch.ones_like(x),))


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3), T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_jvp_of_two_inputs_with_aux(x, y):
    def f(a, b):
        return (a * b).sin(), {"total": a.sum()}

    out, tangent, aux = torch.func.jvp(f, (x, y), (torch.ones_like(x), y), has_aux=True)
    return out, tangent, aux["total"]


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3), T(3, 3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_jacfwd_of_matrix_map(x, m):
    """jacfwd: a vmap over the basis of tangents of a jvp, all in one graph."""
    return torch.func.jacfwd(lambda v: torch.tanh(m @ v))(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def func_hessian_of_sum_of_sines(x):
    """hessian is jacfwd(jacrev): a grad level inside a jvp level inside a vmap."""
    return torch.func.hessian(lambda v: v.sin().sum())(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1), factory=True,
)
def func_jacfwd_of_module_through_functional_call():
    """The Jacobian of a module's output in its input, the parameters passed by
    functional_call."""
    net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())

    def jacobian(x):
        params = dict(net.named_parameters())
        return torch.func.jacfwd(
            lambda p, v: torch.func.functional_call(net, p, (v,)), argnums=1
        )(params, x)

    return jacobian


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def vmap_of_jvp(x):
    return torch.func.vmap(lambda a: torch.func.jvp(torch.cos, (a,), (a,))[1])(x)


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3), T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def forward_ad_dual_level_block(x, y):
    """torch.autograd.forward_ad is traced: entering the dual level and leaving it are
    effect nodes; `_current_level`, the module's global, is set and reset."""
    import torch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.ones_like(x))
        primal, tangent = fwAD.unpack_dual((dual * y).sin())
        untouched = fwAD.unpack_dual(y).tangent
    return primal, tangent, untouched is None


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3), T(3, dtype=torch.int64))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def dtype_promotion_queries_fold(x, i):
    """promote_types and the default dtype are answered while tracing (Dynamo folds
    them too); the tensors' dtypes are guarded."""
    common = torch.promote_types(x.dtype, i.dtype)
    return x.to(common) + i.to(common), common == torch.get_default_dtype()


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def set_default_dtype_inside(x):
    """`torch.set_default_dtype` is a node (the graph sets it on every call, as
    Dynamo's); the factories and `get_default_dtype` after it see the new dtype, and
    the one of the frame's entry is guarded."""
    prior = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        y = torch.ones(3) + x
        inside = torch.get_default_dtype()
    finally:
        torch.set_default_dtype(prior)
    return y, inside, torch.zeros(2).dtype


@case(
    tags=["torch-api", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
    expect=Expect(frames=1, graphs=1),
)
def global_state_queries_fold(x):
    """The grad mode (switched by a plain `torch.set_grad_enabled` call), deterministic
    algorithms and autocast state are answered while tracing."""
    torch.set_grad_enabled(False)
    y = x * 2
    torch.set_grad_enabled(True)
    flags = (torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled())
    return y, flags, torch.is_autocast_enabled(), torch.backends.cudnn.enabled


@case(
    tags=["torch-api", "fullgraph", "dynamic-shapes"],
    calls=[Call(T(2, 3)), Call(T(3, 4)), Call(T(4, 5))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def size_made_from_symbolic_sizes(x):
    """`torch.Size([...])` of dims that turned dynamic holds the symbols (as Dynamo's
    Size.__new__): the second shape compiles a dynamic graph that the third reuses
    (it raised under fullgraph: a SymNode is not a constant)."""
    return x.view(torch.Size([x.shape[0] * x.shape[1]]))


@case(
    tags=["torch-api", "fullgraph", "dynamic-shapes"],
    calls=[Call(T(3)), Call(T(4)), Call(T(6))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def sym_max_and_sym_float_of_sizes(x):
    """`torch.sym_max` / `sym_min` / `sym_float` of a size: nodes on the SymInt once the
    size turned dynamic (`torch.sym_max(s0, 2)`), as Dynamo records them, so the third
    size reuses the graph (it raised under fullgraph: a call without tensor arguments)."""
    n = torch.sym_max(x.shape[0], 4) + torch.sym_min(x.shape[0], 5)
    return x * n / torch.sym_float(x.shape[0])


@case(
    tags=["torch-api", "fullgraph", "dynamic-shapes", "recompiles"],
    calls=[Call(T(1, 1, 4)), Call(T(1, 1, 6)), Call(T(1, 1, 8))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def interpolate_scale_factor_of_dynamic_length(x):
    """`F.interpolate(x, scale_factor=0.5)` of a length that turned dynamic guards on
    ``math.trunc(0.5*torch.sym_float(L['x'].size()[2]))``: the guard's `torch` is
    the module, so the third length reuses the graph (the name was missing: the guard
    failed and every length compiled anew)."""
    return torch.nn.functional.interpolate(x, scale_factor=0.5, mode="linear")


@case(
    tags=["torch-api", "fullgraph", "dynamic-shapes"],
    calls=[Call(T(4)), Call(T(6)), Call(T(10))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def tensor_of_float_of_dynamic_size(x):
    """`torch.tensor(float(x.shape[0]))` of a size that turned dynamic: torch's Python
    reference builds it from the SymFloat (``torch._refs.tensor(sym_float)``), as
    Dynamo does, so the third size reuses the graph (torch.tensor guarded the value)."""
    return x / torch.tensor(float(x.shape[0]))


# Imported here: the cases above keep the source lines their goldens name.
import math  # noqa: E402


@case(
    tags=["torch-api", "fullgraph", "dynamic-shapes"],
    calls=[Call(T(5)), Call(T(6)), Call(T(10))],
    options=FULLGRAPH,
    expect=Expect(frames=2, graphs=2),
)
def pad_to_multiple_with_math_ceil(x):
    """Zero-padding to a multiple of 4 through `math.ceil(n / 4)` of a size that turned
    dynamic: `math.ceil` of the SymFloat is a node (``math_ceil(truediv)``), as in
    Dynamo, so the third size reuses the graph (the float was guarded on its value)."""
    n = math.ceil(x.shape[0] / 4)
    return torch.cat([x, x.new_zeros(n * 4 - x.shape[0])])


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(2, 3))],
    options=FULLGRAPH,
    expect=one_graph(
        "torch.empty", "torch._C._set_grad_enabled", ".fill_", "torch._C._set_grad_enabled",
        "torch.empty", "torch._C._set_grad_enabled", ".zero_", "torch._C._set_grad_enabled",
        "matmul", "add",
    ),
)
def nn_init_fills_a_new_tensor(x):
    """`torch.nn.init.constant_` / `zeros_` on tensors the function made: torch.nn.init
    is traced (its fill under `torch.no_grad()` is `_set_grad_enabled` nodes around
    `.fill_`), as Dynamo inlines torch.nn; it was one opaque `torch.nn.init.constant_`
    node."""
    w = torch.nn.init.constant_(torch.empty(3, 3), 0.5)
    b = torch.nn.init.zeros_(torch.empty(3))
    return x @ w + b


@case(
    tags=["torch-api", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(
        frames=3,
        graphs=2,
        breaks=[
            Break("GB0007", "state = torch.get_rng_state()"),
            Break("GB0007", "torch.set_rng_state(state)"),
        ],
    ),
)
def rng_state_saved_and_restored_breaks(x):
    """`torch.get_rng_state()` / `torch.set_rng_state(s)` replaying a random draw: both
    are skipped (the generator's state is a byte tensor outside any graph), each call a
    graph break, as in Dynamo: graphs before and after the restore (it ran set_rng_state
    on a fake tensor, failed, and the whole resumed frame ran eagerly)."""
    state = torch.get_rng_state()
    a = torch.rand(3)
    torch.set_rng_state(state)
    return x + a - torch.rand(3)


@case(
    tags=["torch-api", "fullgraph"],
    calls=[Call(T(3, 3))],
    options=FULLGRAPH,
    expect=one_graph(
        "torch.tril_indices", "getitem", "getitem", "getitem", "torch.hann_window", "mul",
        "torch.empty_strided", ".copy_", "add",
    ),
)
def factories_without_tensor_arguments(x):
    """Tensor factories of numbers only beyond `zeros`/`arange` (`torch.tril_indices`,
    the window functions, `torch.empty_strided`) are graph nodes, as Dynamo records
    them (fullgraph raised: a torch call without tensor arguments)."""
    i = torch.tril_indices(3, 3)
    y = x[i[0], i[1]] * torch.hann_window(6)
    z = torch.empty_strided((6,), (1,))
    z.copy_(y)
    return z + 1
