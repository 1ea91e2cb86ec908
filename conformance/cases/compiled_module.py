"""Calling a module does what `nn.Module.__call__` does: a class's own ``__call__``; an
instance's own ``forward`` (guarded: ``'forward' not in ....__dict__``, so patching it
later recompiles); forward pre-hooks and hooks around forward, traced into the graph.
"""

import types

from torch import nn

from conformance.spec import Call, Expect, T, case, one_graph

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
