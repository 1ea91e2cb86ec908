"""nn.Module idioms under compilation (issue 14): containers (ModuleList, ModuleDict,
ParameterList, ParameterDict, Sequential slices), buffers (persistent or not, None),
train/eval behaviour of dropout and batch norm, hooks added and removed,
parametrizations, weight tying and loops over named parameters and modules.

Most cases compile the module itself (`factory=True`: the function builds it); the
module's forward is inlined, its parameters and buffers are graph inputs.
"""

import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn
from torch.nn.utils import parametrize

from conformance.spec import Call, Expect, T, case

FULLGRAPH = {"fullgraph": True}
TAGS = ["nn-idioms", "nn-module", "fullgraph"]
ONE = Expect(frames=1, graphs=1)


# containers


class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 2)})

    def forward(self, x):
        return {name: head(x) for name, head in self.heads.items()}


@case(tags=TAGS, calls=[Call(T(2, 4))], options=FULLGRAPH, factory=True, expect=ONE)
def module_dict_items_loop():
    """A loop over `ModuleDict.items()` calling each submodule."""
    return Branches()


class Router(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})

    def forward(self, x, kind):
        return self.experts[kind](x), kind in self.experts, list(self.experts.keys())


@case(tags=TAGS, calls=[Call(T(3), "relu"), Call(T(3), "tanh")], options=FULLGRAPH, factory=True,
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def module_dict_indexed_by_string_argument():
    """`ModuleDict[name]` with a string argument: each name is its own graph."""
    return Router()


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)])
        self.scales = [1.0, 0.5, 0.25]

    def forward(self, x):
        for scale, layer in zip(self.scales, self.layers):  # noqa: B905
            x = x + scale * layer(x)
        return x


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def module_list_zipped_with_floats():
    """A ModuleList zipped with a list of Python floats (residual scales)."""
    return Stack()


class Reverse(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3)])

    def forward(self, x):
        for layer in reversed(self.layers):
            x = layer(x)
        return x, len(self.layers), self.layers[-1] is self.layers[2]


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def module_list_reversed_and_negative_index():
    """reversed() and negative indices of a ModuleList; len() of it."""
    return Reverse()


class Grows(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList()
        self.blocks.append(nn.Linear(3, 3))
        self.blocks.extend([nn.GELU(), nn.Linear(3, 2)])
        self.blocks.insert(1, nn.LayerNorm(3))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def module_list_built_with_append_extend_insert():
    """A ModuleList grown by append, extend and insert in `__init__`."""
    return Grows()


@case(tags=TAGS, calls=[Call(T(2, 4))], options=FULLGRAPH, factory=True, expect=ONE)
def sequential_slice_and_index():
    """A Sequential sliced (`seq[1:]` is a Sequential) and indexed inside forward."""

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2), nn.Sigmoid())

        def forward(self, x):
            h = self.seq[0](x)
            return self.seq[1:](h), self.seq[-1](h)

    return Head()


class Mixture(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.ParameterList([nn.Parameter(torch.randn(3)) for _ in range(3)])
        self.named = nn.ParameterDict({"gain": nn.Parameter(torch.ones(3))})

    def forward(self, x):
        out = sum(w * x for w in self.weights)
        return out * self.named["gain"], len(self.weights), "gain" in self.named


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, factory=True, expect=ONE)
def parameter_list_and_dict():
    """ParameterList iterated and ParameterDict indexed in forward."""
    return Mixture()


class Numbered(nn.Module):
    def __init__(self):
        super().__init__()
        for i in range(3):
            setattr(self, f"layer{i}", nn.Linear(3, 3))
        self.add_module("extra", nn.Tanh())

    def forward(self, x):
        for i in range(3):
            x = getattr(self, f"layer{i}")(x)
        return self.extra(x)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def submodules_by_formatted_name():
    """`getattr(self, f"layer{i}")` over submodules set with setattr and add_module."""
    return Numbered()


class MaybeProjected(nn.Module):
    def __init__(self, with_proj):
        super().__init__()
        self.proj = nn.Linear(3, 3) if with_proj else None
        self.norm = nn.LayerNorm(3)

    def forward(self, x):
        if self.proj is not None:
            x = self.proj(x)
        return self.norm(x), hasattr(self, "norm")


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def optional_submodule_set_to_none():
    """A submodule attribute that is None in one configuration is skipped."""
    return MaybeProjected(with_proj=False)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def optional_submodule_present():
    """The same module with its optional projection present."""
    return MaybeProjected(with_proj=True)


# buffers


class Normalizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(3))
        self.register_buffer("std", torch.ones(3) * 2, persistent=False)
        self.register_buffer("mask", None)

    def forward(self, x):
        y = (x - self.mean) / self.std
        if self.mask is not None:
            y = y * self.mask
        return y, [name for name, _ in self.named_buffers()]


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def buffers_persistent_and_none():
    """A non-persistent buffer is used like any; a None buffer is skipped by `is not None`."""
    return Normalizer()


class RunningMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(3))
        self.momentum = 0.1

    def forward(self, x):
        with torch.no_grad():
            self.running.mul_(1 - self.momentum).add_(self.momentum * x.mean(0))
        return x - self.running


@case(tags=TAGS, calls=[Call(T(4, 3)), Call(T(4, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def buffer_updated_in_place_under_no_grad():
    """A running statistic updated in place under no_grad, read in the same forward."""
    return RunningMean()


class Registers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.tensor(0))

    def forward(self, x):
        self.steps = self.steps + 1
        return x * self.steps


@case(tags=TAGS, calls=[Call(T(3)), Call(T(3))], options=FULLGRAPH, factory=True, expect=ONE)
def buffer_reassigned_in_forward():
    """Assigning a new tensor to a buffer's name replaces the buffer."""
    return Registers()


# train / eval


class DropNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


@case(tags=TAGS, calls=[Call(T(2, 4))], options=FULLGRAPH, factory=True, expect=ONE)
def dropout_in_eval_mode_is_identity():
    """`.eval()` before compiling: dropout does nothing (and the graph holds no dropout)."""
    return DropNet().eval()


class BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(x)


@case(tags=TAGS, calls=[Call(T(4, 3)), Call(T(4, 3))], options=FULLGRAPH, factory=True,
      expect=ONE)  # fmt: skip
def batchnorm_training_updates_running_stats():
    """BatchNorm in training mode normalizes by batch statistics and updates its buffers."""
    return BNNet()


@case(tags=TAGS, calls=[Call(T(4, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def batchnorm_eval_uses_running_stats():
    """BatchNorm in eval mode normalizes by its running statistics."""
    net = BNNet()
    net.bn.running_mean.fill_(0.5)
    return net.eval()


EVAL_NET = BNNet()


def to_eval():
    EVAL_NET.eval()


@case(tags=["nn-idioms", "nn-module", "recompiles"],
      calls=[Call(T(4, 3)), Call(T(4, 3), before=to_eval)],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def eval_between_calls_recompiles(x):
    """`model.eval()` between calls flips `training`: the guard fails, a new graph is made."""
    return EVAL_NET(x)


class ModeAware(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        y = self.fc(x)
        if self.training:
            y = y + 0.1 * torch.ones_like(y)
        return y, self.training, self.fc.training


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def train_false_reaches_children():
    """`train(False)` sets `training` of the module and of every child."""
    return ModeAware().train(False)


# hooks


# Hooks are registered at import: their handle ids (a process-wide counter) are in the
# guards, so modules hooked per run would give each run other guard text.
HALVED = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
HALVED[0].register_forward_hook(lambda mod, args, out: out * 0.5)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def forward_hook_on_child_changes_output():
    """A forward hook on a child module replaces the child's output inside the parent."""
    return HALVED


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def removed_hook_does_not_run():
    """A hook removed through its handle before compiling is not called."""
    net = nn.Linear(3, 3)
    handle = net.register_forward_hook(lambda mod, args, out: out + 100)
    handle.remove()
    return net


FEATURES: list = []


def record_shape(mod, args, out):
    FEATURES.append(tuple(out.shape))


EXTRACTOR = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
for _layer in EXTRACTOR:
    _layer.register_forward_hook(record_shape)


@case(tags=["nn-idioms", "nn-module", "side-effects"], calls=[Call(T(2, 3))], factory=True,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def forward_hook_appends_to_global_list():
    """A feature-extraction hook appending to a global list (the effect is replayed)."""
    return EXTRACTOR


class Scale(nn.Module):
    def forward(self, x, k=1.0):
        return x * k


RESCALED = Scale()
RESCALED.register_forward_pre_hook(lambda m, args, kwargs: (args, {"k": 3.0}), with_kwargs=True)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True,
      expect=Expect(graphs=1))  # fmt: skip
def forward_pre_hook_with_kwargs_rewrites_input():
    """A pre-hook registered `with_kwargs=True` rewrites a keyword argument."""
    return RESCALED


# parametrizations and weight tying


class Symmetric(nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def parametrization_recomputes_weight():
    """`parametrize.register_parametrization`: the weight is computed from the original."""
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    return layer


@case(tags=TAGS, calls=[Call(T(2, 3))], factory=True, expect=ONE)
def weight_norm_parametrization():
    """`nn.utils.parametrizations.weight_norm`: weight = g * v / |v|."""
    return nn.utils.parametrizations.weight_norm(nn.Linear(3, 4))


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.out = nn.Linear(4, 10, bias=False)
        self.out.weight = self.embed.weight

    def forward(self, ids):
        h = self.embed(ids)
        return self.out(h), len(list(self.parameters()))


@case(tags=TAGS, calls=[Call(torch.tensor([[1, 2, 3]]))], options=FULLGRAPH, factory=True,
      expect=ONE)  # fmt: skip
def tied_embedding_and_output_weights():
    """An output layer sharing the embedding's weight (one parameter, counted once)."""
    return Tied()


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Linear(3, 3)

    def forward(self, x):
        return self.block(torch.relu(self.block(x)))


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def submodule_called_twice():
    """One submodule applied twice in a forward."""
    return Shared()


# loops over parameters and modules


class Regularized(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        out = self.fc2(torch.relu(self.fc1(x)))
        penalty = sum((p**2).sum() for name, p in self.named_parameters() if "weight" in name)
        return out, penalty


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def weight_decay_over_named_parameters():
    """An L2 penalty summed over `named_parameters()` filtered by name."""
    return Regularized()


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(3, 3)
        self.head = nn.Linear(3, 1)
        for p in self.backbone.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        trainable = sum(p.numel() for p in self.parameters() if p.requires_grad)
        return self.head(self.backbone(x)), trainable


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def frozen_backbone_counts_trainable_parameters():
    """Parameters with `requires_grad=False`; a count of the trainable ones in forward."""
    return Frozen()


class Counts(nn.Module):
    def __init__(self):
        super().__init__()
        inner = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
        self.body = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), inner)

    def forward(self, x):
        linears = [name for name, m in self.named_modules() if isinstance(m, nn.Linear)]
        return self.body(x), linears, len(list(self.children()))


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def named_modules_filtered_by_class():
    """`named_modules()` walks nested Sequentials; names are dotted paths."""
    return Counts()


class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 3))
        self.bias = nn.Parameter(torch.zeros(4))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias).softmax(-1)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, factory=True, expect=ONE)
def raw_parameters_with_functional_linear():
    """A module holding raw Parameters and calling `F.linear` itself."""
    return Functional()


class Padded(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 3, padding_idx=0)
        self.flatten = nn.Flatten()
        self.skip = nn.Identity()

    def forward(self, ids):
        return self.skip(self.flatten(self.embed(ids)))


@case(tags=TAGS, calls=[Call(torch.tensor([[0, 2], [3, 0]]))], options=FULLGRAPH, factory=True,
      expect=ONE)  # fmt: skip
def embedding_with_padding_flatten_identity():
    """Embedding with a padding index, then Flatten and Identity modules."""
    return Padded()


@case(tags=TAGS, calls=[Call(T(2, 3, 2))], options=FULLGRAPH, expect=ONE)
def sequential_of_new_modules(x):
    """``nn.Sequential(nn.Identity(), nn.Flatten())`` built in the function: modules made in
    the trace are arguments the generated code can give again, so the container is made
    too and its forward inlined."""
    layers = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Flatten())
    return layers(x)


@case(tags=TAGS[:2], calls=[Call(T(2, 3))])
def sequential_of_new_modules_returned(x):
    """The container and one of its modules leave the frame: rebuilt as one container
    that holds that very module."""
    relu = torch.nn.ReLU()
    layers = torch.nn.Sequential(relu, torch.nn.Tanh())
    return layers(x), layers, layers[0] is relu, relu


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_sequential_grown_then_called(x):
    """A Sequential made in the function, grown by ``add_module`` and by storing a
    submodule as an attribute: its forward runs the added modules too (before: the
    modules as made, a wrong result)."""
    layers = torch.nn.Sequential(torch.nn.ReLU())
    layers.add_module("squash", torch.nn.Tanh())
    layers.gate = torch.nn.Sigmoid()
    return layers(x)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_sequential_grown_returned(x):
    """The grown Sequential leaves the frame: made again with its constructor's
    arguments, then given the added submodules in order."""
    layers = torch.nn.Sequential(torch.nn.ReLU())
    layers.add_module("squash", torch.nn.Tanh())
    layers.gate = torch.nn.Sigmoid()
    return layers(x), layers, list(layers._modules)


@case(tags=TAGS, calls=[Call(T(4))], options=FULLGRAPH, expect=ONE)
def buffer_registered_on_new_module(x):
    """``register_buffer`` on a module made in the function: its check
    ``'_buffers' in self.__dict__`` sees what the constructor set (before: a new object's
    ``__dict__`` held only what the trace stored, so it raised AttributeError)."""
    holder = torch.nn.Identity()
    holder.register_buffer("offset", torch.ones(4))
    return holder(x) + holder.offset


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_module_list_of_new_modules(x):
    """``nn.ModuleList([...])`` of modules made in the function, grown by ``insert`` and
    ``extend`` and walked backwards: a list of new modules is an argument the generated
    code can give again (before: non-constant arguments, raised under fullgraph)."""
    layers = torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Sigmoid()])
    layers.insert(1, torch.nn.Tanh())
    layers.extend([torch.nn.Softsign()])
    for layer in reversed(layers):
        x = layer(x)
    return x, len(layers)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_module_dict_and_sequential_slice(x):
    """``nn.ModuleDict({...})`` made in the function and a slice of a Sequential made in
    the function (``Sequential.__getitem__`` makes ``Sequential(OrderedDict(...))``)."""
    heads = torch.nn.ModuleDict({"relu": torch.nn.ReLU(), "tanh": torch.nn.Tanh()})
    heads["gate"] = torch.nn.Sigmoid()
    layers = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh(), torch.nn.Sigmoid())
    return [heads[k](x) for k in heads], layers[1:](x), layers[::2](x)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_module_list_after_its_list_changed(x):
    """The list a ModuleList was made from changes afterwards: the container holds the
    modules it was made with, then the one appended to it."""
    made_from = [torch.nn.ReLU()]
    layers = torch.nn.ModuleList(made_from)
    made_from.append(torch.nn.Tanh())
    layers.append(torch.nn.Sigmoid())
    for layer in layers:
        x = layer(x)
    return x, len(layers), len(made_from)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_sequential_del_and_pop(x):
    """``del seq[0]``, ``del seq[1:]`` and ``seq.pop(0)`` on Sequentials made in the
    function: `nn.Module.__delattr__` drops the submodule from ``_modules``, which
    ``Sequential.__delitem__`` then stores renumbered (before: raised under fullgraph)."""
    first = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh(), torch.nn.Sigmoid())
    del first[0]
    second = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh(), torch.nn.Sigmoid())
    del second[1:]
    third = torch.nn.Sequential(torch.nn.Softsign(), torch.nn.Tanh())
    popped = third.pop(0)
    return first(x), second(x), third(x) + popped(x), len(first), list(first._modules)


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_sequential_del_returned(x):
    """The Sequential a submodule was deleted from leaves the frame: made again, then
    given the renumbered ``_modules`` the trace stored."""
    layers = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh(), torch.nn.Sigmoid())
    del layers[0]
    return layers(x), layers


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def new_sequential_submodule_replaced_returned(x):
    """``seq[1] = nn.Sigmoid()`` on a Sequential made in the function, which leaves the
    frame: made again, then the replacement stored at its place (before: the trace
    stopped, the function ran eagerly)."""
    layers = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh())
    layers[1] = torch.nn.Sigmoid()
    layers.append(torch.nn.Softsign())
    return layers(x), layers


# attention with masks


class CausalSelfAttention(nn.Module):
    """nn.MultiheadAttention with a float causal mask built in forward: its forward asks
    ``F._none_or_dtype(attn_mask)``, a helper that returns the mask's dtype."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        n = x.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        out, weights = self.attn(x, x, x, attn_mask=mask, average_attn_weights=False)
        return out, weights


@case(tags=TAGS, calls=[Call(T(2, 5, 8))], options=FULLGRAPH, factory=True, expect=ONE)
def multihead_attention_float_mask():
    """torch.nn.functional's private helpers are traced (as Dynamo inlines torch.nn's
    Python functions), not recorded as graph calls: one graph, no break at the dtype."""
    return CausalSelfAttention()


PRE_HOOKED = nn.Identity()
PRE_HOOKED.register_forward_hook(lambda module, args, out: out + 1)


def _triple_input(module, args):
    return (args[0] * 3,)


# The pre-hook's id is taken at import (hook ids are printed in guards, and one taken at
# run time would depend on the order the cases run in); the calls put it in and out.
_PRE_HOOK_ID = PRE_HOOKED.register_forward_pre_hook(_triple_input).id
del PRE_HOOKED._forward_pre_hooks[_PRE_HOOK_ID]


def _without_pre_hook() -> None:
    PRE_HOOKED._forward_pre_hooks.pop(_PRE_HOOK_ID, None)


def _with_pre_hook() -> None:
    PRE_HOOKED._forward_pre_hooks[_PRE_HOOK_ID] = _triple_input


@case(
    tags=["nn-idioms", "nn-module", "recompiles"],
    calls=[
        Call(T(3), before=_without_pre_hook),
        Call(T(3), before=_with_pre_hook),
        Call(T(3), before=_without_pre_hook),
    ],
    expect=Expect(frames=2, graphs=2),
)
def forward_pre_hook_added_beside_forward_hook(x):
    """A module that has a forward hook has both of its hook dicts guarded: a pre-hook
    registered between calls is run (before: the second call returned x + 1 where eager
    returns 3x + 1); removed again, the first graph serves."""
    return PRE_HOOKED(x)
