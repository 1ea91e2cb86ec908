"""nn.Modules: compiled directly (factory cases) or called from a compiled function.

Their forward methods are inlined; parameters and buffers become graph inputs, and the
module's Python state (training flag, plain attributes) is guarded like any object.
"""

import torch
from torch import nn

from conformance.spec import Call, Expect, T, case


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Scaled(nn.Module):
    """A module with a plain Python attribute read in forward."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        self.register_buffer("offset", torch.ones(3))

    def forward(self, x):
        return x * self.factor + self.offset


class Dropper(nn.Module):
    """Behaves differently in training and evaluation mode."""

    def forward(self, x):
        return x * 2 if self.training else x


class Counter(nn.Module):
    """Mutates a buffer in forward, like BatchNorm's running statistics."""

    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count += 1
        return x + self.count


LAYER = nn.Linear(3, 3)


@case(
    tags=["nn-module"],
    calls=[Call(T(2, 4)), Call(T(2, 4))],
    factory=True,
    expect=Expect(
        frames=1, graphs=1, ops=[["torch._C._nn.linear", "torch.relu", "torch._C._nn.linear"]]
    ),
)
def mlp_module():
    return MLP()


@case(tags=["nn-module"], calls=[Call(T(2, 3))], factory=True, expect=Expect(frames=1, graphs=1))
def sequential_module():
    return nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))


@case(
    tags=["nn-module", "guards"],
    calls=[Call(T(3))],
    factory=True,
    expect=Expect(frames=1, graphs=1, ops=[["mul", "add"]]),
)
def module_attribute_and_buffer():
    return Scaled(2.0)


@case(
    tags=["nn-module", "guards"],
    calls=[Call(T(3))],
    factory=True,
    expect=Expect(frames=1, graphs=1, ops=[["mul"]]),
)
def training_flag_is_guarded():
    return Dropper()


@case(
    tags=["nn-module", "side-effects"],
    calls=[Call(T(2)), Call(T(2))],
    factory=True,
    expect=Expect(frames=1, graphs=1),
)
def buffer_mutated_in_forward():
    """The in-place update of the buffer happens in the graph, on the module's tensor."""
    return Counter()


@case(tags=["nn-module", "globals"], calls=[Call(T(2, 3))], expect=Expect(frames=1, graphs=1))
def global_module_called(x):
    return LAYER(x).sum()


@case(tags=["nn-module"], calls=[Call(T(2, 3))], expect=Expect(frames=1, graphs=1))
def functional_gelu(x):
    """torch.nn.functional, called from a compiled function."""
    return nn.functional.gelu(x) * 2


@case(
    tags=["nn-module"],
    calls=[Call(T(1, 1, 6, 6))],
    factory=True,
    expect=Expect(frames=1, graphs=1),
)
def conv_pool_module():
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2))


@case(tags=["nn-module"], calls=[Call(T(4, 5))], factory=True, expect=Expect(frames=1, graphs=1))
def layer_norm_module():
    return nn.LayerNorm(5)


@case(
    tags=["nn-module", "loops"],
    calls=[Call(T(2, 3))],
    factory=True,
    expect=Expect(frames=1, graphs=1),
)
def module_list_loop():
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(3))

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    return Stack()


@case(tags=["nn-module"], calls=[Call(T(2, 3))], factory=True, expect=Expect(frames=1, graphs=1))
def module_parameters_read_directly():
    class Affine(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return x * self.weight

    return Affine()


STACK = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3)))
NORM = nn.BatchNorm1d(3)


class CastsToParameterDtype(nn.Module):
    """Hugging Face's idiom: the input follows the dtype of the first parameter."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x.to(next(self.parameters()).dtype))


@case(
    tags=["nn-module", "fullgraph"],
    calls=[Call(T(3)), Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def parameters_summed(x):
    """`parameters()` of a module: every parameter, nested ones too, as graph inputs."""
    return x * sum(p.sum() for p in STACK.parameters())


@case(
    tags=["nn-module", "fullgraph"],
    calls=[Call(T(2, 3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def children_called_in_turn(x):
    """`children()`: the direct submodules, in order, each called."""
    for child in STACK.children():
        x = child(x)
    return x


@case(
    tags=["nn-module", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def named_parameters_by_name(x):
    """`named_parameters()` gives dotted names through nested containers."""
    weights = {name: p for name, p in STACK.named_parameters() if name.endswith("weight")}
    return x @ weights["2.0.weight"] + len(weights)


@case(
    tags=["nn-module", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def modules_filtered_by_type(x):
    """`modules()` walks the tree, the module itself first."""
    linears = [m for m in STACK.modules() if isinstance(m, nn.Linear)]
    return linears[-1](x) * len(list(STACK.modules()))


@case(
    tags=["nn-module", "fullgraph"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def named_buffers_with_prefix(x):
    """`named_buffers(prefix=...)` names each buffer under the prefix."""
    buffers = dict(NORM.named_buffers(prefix="norm"))
    return (x - buffers["norm.running_mean"]) * buffers["norm.num_batches_tracked"]


@case(
    tags=["nn-module", "fullgraph", "real-models"],
    calls=[Call(T(2, 3, dtype=torch.float64)), Call(T(2, 3, dtype=torch.float64))],
    options={"fullgraph": True},
    factory=True,
    expect=Expect(frames=1, graphs=1),
)
def next_parameter_dtype():
    return CastsToParameterDtype()


class Doubled(nn.Module):
    """A user subclass that keeps nn.Module's own constructor."""

    def forward(self, x):
        return x * 2


@case(
    tags=["nn-module", "fullgraph", "real-models"],
    calls=[Call(T(2, 3)), Call(T(2, 3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def activation_made_in_function(x):
    """`nn.ReLU()` made inside the compiled function (DistilBERT's feed-forward does so):
    torch's constructor runs at trace time; its API-usage log is in the graph."""
    return nn.ReLU()(x) + nn.Softmax(dim=-1)(x)


@case(
    tags=["nn-module", "fullgraph"],
    calls=[Call(T(2, 3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def dropout_made_then_eval(x):
    """`m.eval()` on a module made in the trace: dropout then does nothing."""
    drop = nn.Dropout(0.5)
    drop.eval()
    return drop(x)


@case(
    tags=["nn-module", "fullgraph", "inlining"],
    calls=[Call(T(3))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def user_module_made_in_function(x):
    """A user subclass without an `__init__` of its own, made and called."""
    return Doubled()(x) + 1


@case(
    tags=["nn-module", "side-effects"],
    calls=[Call(T(3)), Call(T(3))],
    expect=Expect(frames=1, graphs=1),
)
def module_made_and_returned(x):
    """A module made in the function outlives it: the caller gets a new `nn.GELU` each
    call, with the attribute the function stored on it."""
    act = nn.GELU(approximate="tanh")
    act.scale = 3
    return act, act(x) * act.scale


@case(
    tags=["nn-module", "graph-breaks"],
    calls=[Call(T(2, 4))],
    expect=Expect(graphs=1),
)
def weight_norm_of_module_made_in_function(x):
    """`weight_norm` of a `nn.Linear` made in the function: the module's parameters
    break the graph; the module passed on is not a constructor argument the generated
    code can give again, so that call breaks too (not an internal error)."""
    lin = nn.Linear(4, 3)
    lin = nn.utils.parametrizations.weight_norm(lin)
    return lin(x) * 2


class OptionalScale(nn.Module):
    """A module whose optional `scale` may be missing: forward catches the
    AttributeError that nn.Module.__getattr__ raises."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        try:
            scale = self.scale
        except AttributeError as error:
            return self.lin(x) * 2, str(error)
        return self.lin(x) * scale, ""


@case(tags=["nn-module", "exceptions", "fullgraph"], calls=[Call(T(2, 3))], factory=True,
      options={"fullgraph": True}, expect=Expect(frames=1, graphs=1))  # fmt: skip
def missing_module_attribute_caught():
    """A module attribute in none of its registries nor its dict raises AttributeError
    in the trace (guarded absent, as hasattr), and forward's handler is traced."""
    return OptionalScale()


RECURRENT = nn.GRU(3, 4)


@case(tags=["nn-module", "graph-breaks"], calls=[Call(T(5, 2, 3))],
      expect=Expect(frames=0, graphs=0))  # fmt: skip
def recurrent_module_runs_frame_in_cpython(x):
    """An nn.GRU (RNN, LSTM) is not traced, as in Dynamo (allow_rnn off): the break is
    where the module is read, where the trace cannot resume, so the whole frame runs in
    CPython, the ops around the call included."""
    y = x.sin()
    out, h = RECURRENT(y)
    return out.cos() + h.sum()


class HookedChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)
        self.handles = [self.proj.register_forward_hook(_zeroed)]

    def forward(self, x, remove):
        if remove and self.handles:
            self.handles.pop().remove()
        return self.proj(x)


def _zeroed(module, args, out):
    return out * 0


HOOKED_CHILD = HookedChild()  # made at import: its hook's id, in the guards, is fixed


@case(tags=["nn-module", "side-effects", "recompiles"],
      calls=[Call(T(2, 3), False), Call(T(2, 3), True), Call(T(2, 3), True)], factory=True,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def child_hook_removed_in_forward():
    """A hook of a child removed by ``handle.remove()`` in the frame, then the child
    called: the call reads the hook dict the removal changed (one dict, reached through
    the handle's weakref and through the child), so the hook no longer runs (it ran,
    a silent wrong result: zeros). Dynamo 2.14 cannot trace the removal: from the
    second call the frame runs in CPython."""
    import copy

    return copy.deepcopy(HOOKED_CHILD)


def _printing_hook(module, args, out):
    print("hook saw", tuple(out.shape))
    return out * 2


@case(tags=["nn-module", "graph-breaks"], calls=[Call(T(2, 3))], factory=True,
      expect=Expect(frames=5, graphs=2, ops=[["torch._C._nn.linear"], ["mul"]]))  # fmt: skip
def break_in_hook_of_builtin_module():
    """A graph break in a forward hook of an nn.Linear leaves the module call to CPython;
    the Linear's own forward is converted then, as in Dynamo (an inbuilt module's
    forward frame is converted where the module has forward hooks), and makes a graph
    (it ran in CPython: only the hook's continuation made one)."""
    m = nn.Linear(3, 3)
    m.register_forward_hook(_printing_hook)

    def f(x):
        with torch.no_grad():
            y = m(x)
        return y, y.requires_grad

    return f


class Annealed(nn.Module):
    def __init__(self):
        super().__init__()
        self.temp = 1.0

    def forward(self, x):
        self.temp = self.temp * 0.5
        return x * self.temp, self.temp


@case(tags=["nn-module", "recompiles", "side-effects"],
      calls=[Call(T(3)), Call(T(3)), Call(T(3))], factory=True,
      expect=Expect(frames=2, graphs=2,
                    ops=[["mul"], [".item", "mul", "mul", "torch.scalar_tensor"]]))  # fmt: skip
def float_attribute_computed_and_returned():
    """A float attribute that changes at each call is a graph input from the second
    compile; the float computed from it leaves the graph as Dynamo returns one: a
    float64 ``torch.scalar_tensor`` output, made a float again by ``.item()`` (it was
    the symbolic float itself)."""
    return Annealed()
