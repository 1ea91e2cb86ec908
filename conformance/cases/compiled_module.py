"""Calling a module does what `nn.Module.__call__` does: a class's own ``__call__``; an
instance's own ``forward`` (guarded: ``'forward' not in ....__dict__``, so patching it
later recompiles); forward pre-hooks and hooks around forward, traced into the graph.
"""

import types

from torch import compiler, nn, zeros

from conformance.spec import Break, Call, Expect, T, case, one_graph

FULLGRAPH = {"fullgraph": True}


class Triple(nn.Module):
    def forward(self, x):
        return x * 3


class FiveTimes(nn.Module):
    def forward(self, x):
        return x * 3

    def __call__(self, x):
        return 5 * self.forward(x)


FIVE = FiveTimes()
PATCHED = Triple()
HOOKED = Triple()
HOOKED.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
HOOKED.register_forward_hook(lambda mod, args, out: out - 1)
KW_HOOKED = Triple()
KW_HOOKED.register_forward_hook(lambda mod, args, kwargs, out: out * 2, with_kwargs=True)
SEQ = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
SEQ[0].register_forward_hook(lambda mod, args, out: out * 0)


def minus_hundred(self, x):
    return x - 100


def patch_forward():
    PATCHED.forward = types.MethodType(minus_hundred, PATCHED)


def unpatch_forward():
    PATCHED.__dict__.pop("forward", None)


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "mul"))  # fmt: skip
def class_overrides_call(x):
    return FIVE(x)


@case(
    tags=["compiled-module", "guards", "recompiles"],
    calls=[Call(T(3), before=unpatch_forward), Call(T(3), before=patch_forward),
           Call(T(3), before=unpatch_forward)],  # fmt: skip
    expect=Expect(frames=2, graphs=2, ops=[["mul"], ["sub"]]),
)
def instance_forward_patched(x):
    return PATCHED(x)


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("add", "mul", "sub"))  # fmt: skip
def forward_pre_hook_and_hook(x):
    return HOOKED(x)


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "mul"))  # fmt: skip
def hook_with_kwargs(x):
    return KW_HOOKED(x)


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def sequential_with_hooked_layer(x):
    return SEQ(x)


# Issue 19: lazy modules, changing int attributes, hooks, parameters walked in forward.


class Counter(nn.Module):
    """An int attribute changed between calls."""

    def __init__(self):
        super().__init__()
        self.step = 1

    def forward(self, x):
        return x * self.step


COUNTER = Counter()


def bump_step():
    COUNTER.step += 1


class ParamSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 3)

    def forward(self, x):
        return x + sum(p.sum() for p in self.parameters())


class NamedWalk(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({"up": nn.Linear(3, 3), "down": nn.Linear(3, 3)})

    def forward(self, x):
        for name, _ in self.named_children():
            x = x + len(name)
        for key in self.layers:
            x = self.layers[key](x)
        return x


class Running(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", zeros(3))

    def forward(self, x):
        self.total.add_(x)
        return self.total * 1


class Helper(nn.Module):
    def scale(self, x):
        return x * 4

    def forward(self, x):
        return x


class UsesHelper(nn.Module):
    def __init__(self):
        super().__init__()
        self.helper = Helper()

    def forward(self, x):
        return self.helper.scale(x) + 1


class Toggle(nn.Module):
    def forward(self, x):
        if self.training:
            return x + 1
        return x - 1


TOGGLE = Toggle()


def to_eval():
    TOGGLE.eval()


BACKWARD_HOOK_LINE = "bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)"
BACKWARD_LOG = []
BACKWARD_HOOKED = nn.Linear(3, 3)
BACKWARD_HOOKED.register_full_backward_hook(lambda m, gi, go: BACKWARD_LOG.append(1))
SEQ_HOOKED = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
SEQ_HOOKED.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
SEQ_HOOKED.register_forward_hook(lambda mod, args, out: out + 1)


@case(tags=["compiled-module", "nn-module"], calls=[Call(T(2, 3)), Call(T(2, 3))], factory=True,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def lazy_linear_initialized():
    """nn.LazyLinear infers its weight at the first call; Dynamo initializes it."""
    return nn.LazyLinear(4)


@case(tags=["compiled-module", "recompiles"],
      calls=[Call(T(3)), Call(T(3), before=bump_step), Call(T(3), before=bump_step)],
      expect=Expect(frames=3, graphs=3))  # fmt: skip
def int_attribute_changes(x):
    """An int attribute of a module is specialized: each new value recompiles."""
    return COUNTER(x)


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      factory=True, expect=Expect(frames=1, graphs=1))  # fmt: skip
def parameters_summed_in_forward():
    return ParamSum()


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      factory=True, expect=Expect(frames=1, graphs=1))  # fmt: skip
def named_children_and_module_dict():
    return NamedWalk()


@case(tags=["compiled-module", "side-effects"], calls=[Call(T(3)), Call(T(3))], factory=True,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def buffer_accumulates():
    return Running()


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH,
      factory=True, expect=one_graph("mul", "add"))  # fmt: skip
def submodule_method_call():
    return UsesHelper()


@case(tags=["compiled-module", "recompiles"],
      calls=[Call(T(3)), Call(T(3), before=to_eval)],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def training_flag_flipped(x):
    return TOGGLE(x)


@case(tags=["compiled-module", "graph-breaks"], calls=[Call(T(2, 3, requires_grad=True))],
      expect=Expect(frames=1, graphs=0, breaks=[Break("GB0083", BACKWARD_HOOK_LINE)]))  # fmt: skip
def full_backward_hook_module(x):
    """A module with a full backward hook: Dynamo breaks at its BackwardHook (in
    nn.Module._call_impl) and records no graph."""
    y = BACKWARD_HOOKED(x)
    return y


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def sequential_with_own_hooks(x):
    return SEQ_HOOKED(x)


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      factory=True, expect=Expect(frames=1, graphs=1))  # fmt: skip
def module_list_indexed():
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(3))

        def forward(self, x):
            for i in range(len(self.layers)):
                x = self.layers[i](x) + self.layers[-1 - i].bias
            return x

    return Stack()


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      factory=True, expect=Expect(frames=1, graphs=1))  # fmt: skip
def module_set_attribute_in_forward():
    class Remember(nn.Module):
        def forward(self, x):
            self.last_shape = x.shape
            return x * 2

    return Remember()


# Issue 19: which frame a compiled module is converted through (Dynamo's OptimizedModule).
# These hooks are registered when a case runs, not at import: none of their handle ids is
# in a snapshot, and registering them at import would shift the ids of the hooks that
# later case modules register (which are).


class Doubler(nn.Module):
    def forward(self, x):
        return x * 2


class SubclassedLinear(nn.Linear):
    """A user subclass of a torch.nn layer that keeps the layer's forward."""


@case(tags=["compiled-module", "nn-module"], calls=[Call(T(3))], factory=True,
      expect=Expect(frames=2, graphs=2, ops=[["mul"], ["add"]]))  # fmt: skip
def user_module_with_hook_compiled():
    """A compiled module with its own forward and a forward hook: Dynamo runs
    `nn.Module.__call__` in CPython, so the forward and the hook are compiled as frames
    of their own."""
    doubler = Doubler()
    doubler.register_forward_hook(lambda mod, args, out: out + 1)
    return doubler


@case(tags=["compiled-module", "nn-module", "fullgraph"], calls=[Call(T(2, 3))], options=FULLGRAPH,
      factory=True, expect=one_graph("torch._C._nn.linear"))  # fmt: skip
def linear_subclass_compiled():
    """A subclass of nn.Linear without a forward of its own: its forward is torch's, so
    the module is compiled through a wrapper frame calling it, as a torch.nn layer is."""
    return SubclassedLinear(3, 3)


@case(tags=["compiled-module", "graph-breaks"], calls=[Call(T(2, 3, requires_grad=True))],
      factory=True,
      expect=Expect(graphs=1, ops=[["mul"]],
                    breaks=[Break("GB0083", BACKWARD_HOOK_LINE)]))  # fmt: skip
def full_backward_pre_hook_module():
    """A module with a full backward pre-hook makes a BackwardHook too: the graph breaks
    at the module's call; the code after it is compiled."""
    layer = nn.Linear(3, 3)
    layer.register_full_backward_pre_hook(lambda mod, grad_output: None)

    def call(x):
        return layer(x) * 2

    return call


@case(tags=["compiled-module", "graph-breaks"], calls=[Call(T(2, 3, requires_grad=True))],
      factory=True,
      expect=Expect(graphs=0, breaks=[Break("GB0083", BACKWARD_HOOK_LINE)]))  # fmt: skip
def compiled_module_with_full_backward_hook():
    """torch.compile of a module with a full backward hook: its call breaks at the
    BackwardHook and runs in CPython, with no graph."""
    layer = nn.Linear(3, 3)
    layer.register_full_backward_hook(lambda mod, grad_input, grad_output: None)
    return layer


STEPPER = Counter()


def bump_stepper():
    STEPPER.step += 1


def reset_stepper():
    STEPPER.step = 1


@case(tags=["compiled-module", "recompiles"],
      calls=[Call(T(3), before=reset_stepper), Call(T(3), before=bump_stepper),
             Call(T(3), before=bump_stepper), Call(T(3), before=bump_stepper)],
      expect=Expect(frames=4, graphs=4, ops=[["mul"]] * 4,
                    recompiles=["G['STEPPER'].step == 1",
                                "G['STEPPER'].step == 2; G['STEPPER'].step == 1",
                                "G['STEPPER'].step == 3; G['STEPPER'].step == 2; "
                                "G['STEPPER'].step == 1"]))  # fmt: skip
def int_attribute_never_turns_dynamic(x):
    """An int attribute of a module stays specialized however often it changes (Dynamo
    2.14: no automatic dynamic for nn.Module ints): each value recompiles, the failures
    listed newest entry first."""
    return STEPPER(x)


class PreScaled(nn.Module):
    def forward(self, x):
        return x * 2

    def __call__(self, x):
        return super().__call__(x + 1) - 3


@case(tags=["compiled-module", "fullgraph"], calls=[Call(T(3))], options=FULLGRAPH, factory=True,
      expect=one_graph("add", "mul", "sub"))  # fmt: skip
def compiled_module_own_call_runs():
    """torch.compile of a module whose class overrides ``__call__`` (calling
    ``super().__call__``) runs that ``__call__``, not only forward: Dynamo compiles
    ``module.__call__``, and the override, forward included, is one graph."""
    return PreScaled()


class StepCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        self.step += 1
        return x * self.step


@case(tags=["compiled-module", "recompiles"], calls=[Call(T(3)), Call(T(3)), Call(T(3))],
      factory=True,
      expect=Expect(frames=3, graphs=3, ops=[["mul"]] * 3,
                    recompiles=["L['self'].step == 0",
                                "L['self'].step == 1; L['self'].step == 0"]))  # fmt: skip
def compiled_module_counter_stays_static():
    """A compiled module counting its calls in an int attribute (``self.step += 1`` in
    forward): the int of a module stays a constant even though it is an attribute of the
    frame's own argument ``self``; each value recompiles, as in Dynamo."""
    return StepCounter()


class LastBuilt:
    """The module the latest factory call built (a class attribute: not a data global)."""

    module: nn.Module | None = None


def build_triple():
    LastBuilt.module = Triple()
    return LastBuilt.module


def patch_last():
    LastBuilt.module.forward = types.MethodType(minus_hundred, LastBuilt.module)


@case(tags=["compiled-module", "recompiles"], calls=[Call(T(3)), Call(T(3), before=patch_last)],
      factory=True, expect=Expect(frames=2, graphs=2, ops=[["mul"], ["sub"]]))  # fmt: skip
def compiled_module_forward_patched_later():
    """``forward`` patched on the instance after the compiled module's first call: the
    next call runs the new forward, as the module itself would (before: the class's
    forward ran again, a wrong result)."""
    return build_triple()


class LazyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.LazyLinear(2)

    def forward(self, x):
        return self.proj(x).relu()


@case(tags=["compiled-module", "nn-module"], calls=[Call(T(3, 5)), Call(T(3, 5))], factory=True,
      expect=Expect(frames=1, graphs=1, ops=[["torch._C._nn.linear", ".relu"]]))  # fmt: skip
def compiled_module_with_lazy_linear():
    """A LazyLinear's parameters are made when the trace meets its first call, from the
    argument's shape, as its own first call would make them; it is a Linear from then on
    (its type guard names Linear), so the second call hits the cache."""
    return LazyHead()


class ActivationChosenInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        self.act = nn.GELU()
        return self.act(self.proj(x))


@case(tags=["compiled-module", "nn-module", "recompiles"],
      calls=[Call(T(2, 3)), Call(T(2, 3)), Call(T(2, 3))], factory=True,
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def compiled_module_submodule_assigned_in_forward():
    """``self.act = nn.GELU()`` in forward: storing a submodule guards the keys of
    ``_modules``, as Dynamo guards its length, so the module that gained ``act``
    compiles once more and then hits the cache (before: one graph, against Dynamo's
    two)."""
    return ActivationChosenInForward()


@compiler.disable
def _doubled_eagerly(x):
    return x * 2


class DoubledEagerlyThenCubed(nn.Module):
    def forward(self, x):
        return _doubled_eagerly(x) ** 3


@case(tags=["compiled-module", "nn-module", "graph-breaks"], calls=[Call(T(2, 3))],
      factory=True,
      expect=Expect(frames=3, graphs=1, ops=[["pow"]],
                    breaks=[Break("GB0098", "return _doubled_eagerly(x) ** 3")] * 2))  # fmt: skip
def compiled_sequential_child_breaks():
    """A compiled nn.Sequential (library code: its wrapper frame is converted) whose
    user-defined child breaks: the wrapper's frame runs in CPython, and the frames it
    runs (the child's forward, then its continuation, ``pow``) are converted as in
    Dynamo (before: they ran without the frame hook, no graph at all)."""
    return nn.Sequential(nn.Linear(3, 3), DoubledEagerlyThenCubed(), nn.Tanh())
