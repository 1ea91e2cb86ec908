"""`NNModuleVariable`: an `nn.Module` instance whose `forward` is inlined.

Parameters, buffers and submodules are found in the module's `_parameters`, `_buffers`
and `_modules` dicts and sourced through them, as real Dynamo does
(`L['self']._modules['lin']._parameters['weight']` -> placeholder
`l_self_modules_lin_parameters_weight_`). A call runs what `nn.Module.__call__` runs: a
class's own ``__call__``, or ``forward`` (an instance's own first) between its forward
hooks (polyfills/nn_module.py), which are guarded where a module has them. As in Dynamo
(`skip_nnmodule_hook_guards`), a module without hooks is not guarded against gaining
some. Backward hooks are not traced: a module with full ones is traced as far as the
BackwardHook that `_call_impl` makes, where the trace stops, as Dynamo's does. A module
the traced code makes (`nn.ReLU()`) is a `NewNNModuleVariable` (`make_module`).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import torch
from minidynamo.exc import unimplemented
from minidynamo.polyfills import nn_module as nn_module_polyfills
from minidynamo.source import AttrSource, GetItemSource, GlobalSource
from minidynamo.variables.base import NotConstant, VariableTracker
from minidynamo.variables.class_lookup import user_slot
from minidynamo.variables.collections_types import OrderedDictVariable
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.dicts import ConstDictVariable, key_constant
from minidynamo.variables.functions import inline_polyfill
from minidynamo.variables.lists import ListIteratorVariable, ListVariable, TupleVariable
from minidynamo.variables.misc import GetAttrVariable
from minidynamo.variables.tensor import TensorVariable
from minidynamo.variables.user_defined import UserDefinedObjectVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

_REGISTRIES = ("_parameters", "_buffers", "_modules")
_BACKWARD_HOOKS = ("_backward_hooks", "_backward_pre_hooks")
_GLOBAL_BACKWARD_HOOKS = ("_global_backward_hooks", "_global_backward_pre_hooks")
_FORWARD_HOOKS = ("_forward_pre_hooks", "_forward_hooks")
_SLICEABLE = (torch.nn.ModuleList.__getitem__, torch.nn.Sequential.__getitem__)

# Iterating a module's members: each query, its named form and the registry its members
# come from (None: the modules themselves).
_MEMBER_QUERIES: dict[str, tuple[str, str | None]] = {
    "parameters": ("named_parameters", "_parameters"),
    "named_parameters": ("named_parameters", "_parameters"),
    "buffers": ("named_buffers", "_buffers"),
    "named_buffers": ("named_buffers", "_buffers"),
    "children": ("named_children", None),
    "named_children": ("named_children", None),
    "modules": ("named_modules", None),
    "named_modules": ("named_modules", None),
}


class NNModuleVariable(UserDefinedObjectVariable):
    """An `nn.Module`: attributes through its registries, calls inline `forward`."""

    value: torch.nn.Module
    # A sliced container's submodules, by key: sources through the container sliced.
    slice_members: dict[str, Source] | None = None

    def __repr__(self) -> str:
        return f"NNModuleVariable({type(self.value).__qualname__})"

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.builder import VariableBuilder

        if tx.output.side_effects.load_attr(self, name) is not None:
            return super().var_getattr(tx, name)  # stored by this trace: read it back
        for registry in _REGISTRIES:
            entries = self.value.__dict__.get(registry, {})
            changed = self.changed_registry(tx, registry)
            if changed is not None:
                if name in changed.keys():
                    return changed.item_value(name)
                continue
            if name in entries:
                source = None
                if registry == "_modules" and self.slice_members is not None:
                    source = self.slice_members.get(name)
                if source is None and self.source is not None:
                    source = GetItemSource(AttrSource(self.source, registry), name)
                return VariableBuilder(tx, source)(entries[name])
        if self.is_member_query(name):
            tx.output.guards.add_not_in_instance_dict(self.source, name)
            return GetAttrVariable(self, name)
        found = super().var_getattr(tx, name)
        sliced = self.slice_members is not None and isinstance(found, ConstDictVariable)
        if name == "_modules" and sliced:
            # Iterating a slice (Sequential.forward) reaches the container's own modules.
            found.items = {
                key: VariableBuilder(tx, self.slice_members[key])(module)
                for key, module in self.value._modules.items()
            }
        return found

    def changed_registry(
        self, tx: InstructionTranslatorBase, registry: str
    ) -> ConstDictVariable | None:
        """The traced form of the registry dict `registry` where the trace changed it."""
        return _changed_registry(tx, self.value.__dict__.get(registry, {}))

    def is_member_query(self, name: str) -> bool:
        """`name` is nn.Module's own member query (``parameters`` ...) on a module the
        frame can reach (its members get sources)."""
        return (
            name in _MEMBER_QUERIES
            and self.source is not None
            and getattr(type(self.value), name) is getattr(torch.nn.Module, name)
            and name not in self.value.__dict__
        )

    def known_getattr(self) -> object:
        """`nn.Module.__getattr__` only finds parameters, buffers and submodules."""
        return torch.nn.Module.__getattr__

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        for registry in _REGISTRIES:
            entries = self.value.__dict__.get(registry, {})
            changed = self.changed_registry(tx, registry)
            if name in (entries if changed is None else changed.keys()):
                return True
        return super().has_attr(tx, name)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """Replayed through `nn.Module.__setattr__`, which files a tensor, a parameter or
        a submodule in its registry; the trace reads the stored value back. Storing a
        submodule guards the keys of ``_modules``, as Dynamo, which traces
        ``_modules[name] = value``, guards its length: a module that gained the
        submodule (``self.act = nn.GELU()`` in forward) compiles again once."""
        if isinstance(value, NNModuleVariable) and self.source is not None:
            modules = AttrSource(self.source, "_modules")
            tx.output.guards.add_dict_keys(modules, self.value._modules)
        tx.output.side_effects.store_attr(self, name, value)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``layers[:n]`` of a torch container makes a new container of the same
        submodules: made now, as Dynamo does, and reached again as ``source[slice]``;
        member queries (``parameters()`` ...) are answered now (`members`)."""
        from minidynamo.builder import VariableBuilder

        if self.is_member_query(name):
            if all(a.is_python_constant() for a in [*args, *kwargs.values()]):
                return self.members(tx, name, args, kwargs)
            return self.generic_getattr(tx, name).call_function(tx, args, kwargs)
        getitem = getattr(type(self.value), "__getitem__", None)
        if (
            name == "__getitem__"
            and getitem in _SLICEABLE
            and self.source is not None
            and len(args) == 1
            and args[0].is_python_constant()
            and isinstance(args[0].as_python_constant(), slice)
        ):
            index = args[0].as_python_constant()
            # The new container's `nn.Module.__init__` logs API usage: the graph repeats
            # that effect on each call, as Dynamo's (which traces the constructor) does.
            usage = [ConstantVariable("python.nn_module")]
            tx.output.call(tx, "call_function", torch._C._log_api_usage_once, usage)
            sliced = VariableBuilder(tx, GetItemSource(self.source, index))(self.value[index])
            # Its submodules are the container's own: reached (and their parameters named)
            # through the container's path, as in Dynamo, which traces the slicing.
            if isinstance(sliced, NNModuleVariable):
                keys = list(self.value._modules)[index]
                modules = AttrSource(self.source, "_modules")
                sliced.slice_members = {
                    new: GetItemSource(modules, old)
                    for new, old in zip(sliced.value._modules, keys, strict=True)
                }
            return sliced
        return super().call_method(tx, name, args, kwargs)

    def members(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``m.parameters()``, ``m.named_modules()`` ...: the real module answers now; each
        member is reached through its source (``L['m']._modules['0']._parameters['w']``),
        and the keys of every registry walked are guarded, so that a module that gains or
        loses a member recompiles. Iterated lazily like the generator it replaces."""
        from minidynamo.builder import VariableBuilder

        named, registry = _MEMBER_QUERIES[name]
        query = getattr(self.value, name)
        bound = inspect.signature(query).bind(
            *[a.as_python_constant() for a in args],
            **{k: v.as_python_constant() for k, v in kwargs.items()},
        )
        prefix = bound.arguments.get("prefix", "")
        found = [(n, m) for n, m in getattr(self.value, named)(**bound.arguments)]
        for module_name, module in self.value.named_modules():
            source = _member_source(self.source, module_name, None)
            tx.output.guards.add_dict_keys(AttrSource(source, "_modules"), module._modules)
            if registry is not None:
                registries = module.__dict__[registry]
                tx.output.guards.add_dict_keys(AttrSource(source, registry), registries)
        items: list[VariableTracker] = []
        for qualname, member in found:
            relative = qualname[len(prefix) :].lstrip(".") if prefix else qualname
            source = _member_source(self.source, relative, registry)
            vt = self if source is self.source else VariableBuilder(tx, source)(member)
            items.append(TupleVariable([ConstantVariable(qualname), vt]) if name == named else vt)
        return ListIteratorVariable(items)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        module = self.value
        if isinstance(module, torch.nn.modules.lazy.LazyModuleMixin):
            self.initialize_lazy(tx, args, kwargs)
        if user_slot(type(module), "__call__") is not None:
            return super().call_function(tx, args, kwargs)  # the class's own __call__
        hooks_module = torch.nn.modules.module
        if module._backward_pre_hooks or (module._backward_hooks and module._is_full_backward_hook):
            return inline_polyfill(tx, nn_module_polyfills.call_with_backward_hooks, [self], {})
        if any(getattr(module, name, None) for name in _BACKWARD_HOOKS) or any(
            getattr(hooks_module, name) for name in _GLOBAL_BACKWARD_HOOKS
        ):
            unimplemented(f"call of {type(module).__qualname__} with backward hooks")
        forward = self.var_getattr(tx, "forward")  # an instance's own forward wins
        pre_hooks = self.hooks(tx, "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs")
        hooks = self.hooks(tx, "_forward_hooks", "_forward_hooks_with_kwargs")
        if not pre_hooks and not hooks:
            return forward.call_function(tx, args, kwargs)
        call_args = [self, forward, TupleVariable(args), ConstDictVariable(dict(kwargs))]
        call_args += [ListVariable(pre_hooks), ListVariable(hooks)]
        return inline_polyfill(tx, nn_module_polyfills.call_with_hooks, call_args, {})

    def initialize_lazy(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> None:
        """A lazy module (`nn.LazyLinear`) not yet called: its parameters are made now, as
        its first call would make them (Dynamo's initialize_lazy_module), from empty
        tensors shaped as the arguments; it becomes its `cls_to_become`, which its type
        guard then names."""
        module = self.value
        if inspect.getattr_static(module, "_initialize_hook", None) is None:
            return
        try:
            real_args, real_kwargs = _empty_like_arguments(args, kwargs)
        except NotConstant:
            unimplemented(f"first call of lazy module {type(module).__qualname__}")
        module._infer_parameters(module, real_args, real_kwargs)  # type: ignore[operator]
        if self.source is not None:
            tx.output.guards.retype(self.source, module)

    def hooks(
        self, tx: InstructionTranslatorBase, name: str, with_kwargs: str
    ) -> list[VariableTracker]:
        """(hook, takes kwargs) pairs of the global hook dict `name`, then the module's,
        in the order `_call_impl` runs them. Where the owner (the module, or torch's
        global hooks) has forward hooks of either kind, the keys of both dicts are
        guarded, the empty one too: a pre-hook added beside a forward hook is seen. A
        dict the trace already holds (reached through a hook handle's weakref) is read
        as the trace left it: a hook removed in the frame does not run."""
        from minidynamo.builder import VariableBuilder
        from minidynamo.variables.dicts import ConstDictVariable, key_constant

        hooks_module = torch.nn.modules.module
        pairs: list[VariableTracker] = []
        for owner, prefix in ((hooks_module, "_global"), (self.value, "")):
            table = getattr(owner, prefix + name)
            kwargs_table = getattr(owner, prefix + with_kwargs, {})
            tracked = tx.output.input_by_id.get(id(table))
            if isinstance(tracked, ConstDictVariable):
                for key in tracked.keys():
                    takes_kwargs = ConstantVariable(key_constant(key) in kwargs_table)
                    pairs.append(TupleVariable([tracked.item_value(key), takes_kwargs]))
                continue
            if not any(getattr(owner, prefix + kind) for kind in _FORWARD_HOOKS):
                continue
            if owner is hooks_module:
                base = GlobalSource(tx.output.install_import(owner, hooks_module.__name__))
            elif self.source is None:
                unimplemented(f"hooks of {self!r}, which has no source to guard them")
            else:
                base = self.source
            source = AttrSource(base, prefix + name)
            tx.output.guards.add_dict_keys(source, table)
            for hook_id, hook in table.items():
                hook_vt = VariableBuilder(tx, GetItemSource(source, hook_id))(hook)
                takes_kwargs = ConstantVariable(hook_id in kwargs_table)
                pairs.append(TupleVariable([hook_vt, takes_kwargs]))
        return pairs


class NewNNModuleVariable(NNModuleVariable):
    """A module the traced code made with torch's constructor, made now (`make_module`).
    What the trace stores on it lives in SideEffects; where it outlives the frame, the
    generated code makes it again with the same arguments and then stores those."""

    def __init__(
        self,
        value: torch.nn.Module,
        *,
        made_by: tuple[VariableTracker, list[VariableTracker], dict[str, VariableTracker]],
    ) -> None:
        super().__init__(value)
        self.made_by = made_by
        # Its `_parameters`, `_buffers` and `_modules` dicts once the trace read them: one
        # VariableTracker each, so that a change (`add_module`, `register_buffer`) is
        # seen by later reads; with the (key, value) pairs each was read with.
        self.registries: dict[str, tuple[ConstDictVariable, list]] = {}

    def is_new_object(self) -> bool:
        return True

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name in _REGISTRIES and tx.output.side_effects.load_attr(self, name) is None:
            if name not in self.registries:
                from minidynamo.builder import VariableBuilder

                vt = VariableBuilder(tx, None)(self.value.__dict__[name])
                assert isinstance(vt, ConstDictVariable)
                self.registries[name] = (vt, list(vt.items.items()))
            return self.registries[name][0]
        return super().var_getattr(tx, name)

    def changed_registry(
        self, tx: InstructionTranslatorBase, registry: str
    ) -> ConstDictVariable | None:
        """The registry as the trace holds it, once read or replaced (Sequential's
        ``__delitem__`` stores a renumbered ``_modules``)."""
        stored = tx.output.side_effects.load_attr(self, registry)
        if isinstance(stored, ConstDictVariable):
            return stored
        read = self.registries.get(registry)
        return None if read is None else read[0]

    def delete_attr(self, tx: InstructionTranslatorBase, name: str) -> None:
        """``del m.name`` (``del seq[0]``): `nn.Module.__delattr__` drops a parameter or
        submodule from its registry."""
        for registry in ("_parameters", "_modules"):
            entries = self.var_getattr(tx, registry)
            if isinstance(entries, ConstDictVariable) and name in entries.keys():
                entries.call_method(tx, "__delitem__", [ConstantVariable(name)], {})
                return
        unimplemented(
            f"del of {type(self.value).__qualname__}.{name}, not a parameter or submodule"
        )

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``m.head = nn.Tanh()``: `nn.Module.__setattr__` files a submodule in
        ``_modules``, where the module's own code (Sequential.forward) finds it."""
        if isinstance(value, NNModuleVariable) and name not in self.value.__dict__:
            modules = self.var_getattr(tx, "_modules")
            modules.call_method(tx, "__setitem__", [ConstantVariable(name), value], {})
            return
        super().store_attr(tx, name, value)

    def reconstruct(self, codegen: PyCodegen) -> None:
        cls_vt, args, kwargs = self.made_by
        attributes = codegen.output.side_effects.new_object_attributes(self)
        attributes += self.added_submodules({name for name, _ in attributes})
        codegen.load_installed("__import_remake_module", remake_module, push_null=True)
        codegen(cls_vt)
        for arg in args:
            codegen(arg)
        codegen.build(tuple, len(args))
        for name, value in kwargs.items():
            codegen.load_const(name)
            codegen(value)
        codegen.build(dict, len(kwargs))
        for name, value in attributes:
            codegen.load_const(name)
            codegen(value)
        codegen.build(dict, len(attributes))
        codegen.call(4)

    def added_submodules(self, stored: set[str]) -> list[tuple[str, VariableTracker]]:
        """The submodules the trace added or replaced (``add_module``, ``m.head = ...``,
        ``seq[1] = ...``), which the generated code stores again, in order, through
        `nn.Module.__setattr__`; any other change to a registry cannot be made again
        from the constructor's arguments: the trace stops. A registry in `stored`
        (attribute names the trace stored) is given again whole, as that attribute."""
        added: list[tuple[str, VariableTracker]] = []
        for registry, (vt, pairs) in self.registries.items():
            if registry in stored:
                continue  # stored whole, as an attribute, before these are added
            now = list(vt.items.items())
            keys_kept = [k for k, _ in now[: len(pairs)]] == [k for k, _ in pairs]
            # A submodule replaced in place (``seq[1] = nn.GELU()``) keeps its position
            # when stored again, as `nn.Module.__setattr__` replaces it in ``_modules``.
            replaced = [
                (k, v)
                for (k, v), (_, v0) in zip(now[: len(pairs)], pairs, strict=keys_kept)
                if v is not v0
            ]
            if keys_kept and registry == "_modules":
                added += replaced + now[len(pairs) :]
                continue
            if keys_kept and len(now) == len(pairs) and not replaced:
                continue
            unimplemented(
                f"{type(self.value).__qualname__}() made in the trace, whose {registry} "
                "the trace changed, outlives the frame"
            )
        return added


def remake_module(cls: type, args: tuple, kwargs: dict, attributes: dict) -> torch.nn.Module:
    """The generated code's `cls(*args, **kwargs)`, then the attributes the trace stored
    (through `nn.Module.__setattr__`, as the traced code stored them)."""
    module = cls(*args, **kwargs)
    for name, value in attributes.items():
        setattr(module, name, value)
    return module


def make_module(
    tx: InstructionTranslatorBase,
    cls_vt: VariableTracker,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> NewNNModuleVariable:
    """``nn.ReLU()``, ``nn.Dropout(p)``, a user subclass keeping torch's ``__init__``:
    torch's constructor is library code with no effect outside the new object, so it runs
    now with the constant arguments, and its one outside effect (the API-usage log) is
    recorded as Dynamo's graph records it. Only modules without tensors: Dynamo refuses
    to make parameters in a trace too, and the generated code must be able to make the
    same module again (the RNG state a constructor uses is given back)."""
    cls = cls_vt.as_python_constant()
    init = inspect.getattr_static(cls, "__init__")
    if not _is_torch_code(init):
        unimplemented(f"{cls.__qualname__}() made in the trace: its __init__ is user code")
    try:
        values = [_value_of(a) for a in args]
        keywords = {k: _value_of(v) for k, v in kwargs.items()}
    except NotConstant:
        unimplemented(f"{cls.__qualname__}() made in the trace with non-constant arguments")
    args = [_frozen(a) for a in args]
    kwargs = {k: _frozen(v) for k, v in kwargs.items()}
    rng = torch.get_rng_state()
    try:
        module = cls(*values, **keywords)
    finally:
        torch.set_rng_state(rng)
    if any(
        isinstance(value, torch.Tensor) or (name in _REGISTRIES[:2] and value)
        for sub in module.modules()
        for name, value in vars(sub).items()
    ):
        unimplemented(f"{cls.__qualname__}() made in the trace holds tensors (parameters)")
    usage = [ConstantVariable("python.nn_module")]
    tx.output.call(tx, "call_function", torch._C._log_api_usage_once, usage)
    vt = NewNNModuleVariable(module, made_by=(cls_vt, list(args), dict(kwargs)))
    tx.output.new_modules[id(module)] = vt
    return vt


def _value_of(value: VariableTracker) -> object:
    """A constructor argument the generated code can give again, as the constructor gets
    it: a constant, a module made in the trace itself (``nn.Sequential(nn.ReLU())``), or a
    list, tuple or dict of those (``nn.ModuleList([...])``, ``nn.ModuleDict({...})``,
    ``nn.Sequential(OrderedDict(...))``); anything else raises NotConstant."""
    if isinstance(value, NewNNModuleVariable):
        return value.value
    if value.is_python_constant():
        return value.as_python_constant()
    if type(value) in (ListVariable, TupleVariable):
        items = [_value_of(item) for item in value.items]
        return value.python_type()(items)
    if type(value) in (ConstDictVariable, OrderedDictVariable):
        entries = {key_constant(k): _value_of(v) for k, v in value.items.items()}
        return value.python_type()(entries)
    raise NotConstant(f"{value!r} is not a constructor argument the code can give again")


def _frozen(value: VariableTracker) -> VariableTracker:
    """A container argument as the constructor got it: the generated code gives these
    contents again even where the traced code changes the container afterwards."""
    if type(value) in (ListVariable, TupleVariable):
        return TupleVariable([_frozen(item) for item in value.items])
    if type(value) in (ConstDictVariable, OrderedDictVariable):
        return type(value)({k: _frozen(v) for k, v in value.items.items()})
    return value


def _empty_like_arguments(
    args: list[VariableTracker], kwargs: dict[str, VariableTracker]
) -> tuple[tuple, dict]:
    """The call's arguments for a lazy module's shape inference: each tensor an empty one
    of its size (symbolic sizes at their hint) and dtype, the rest as constants."""

    def real(value: VariableTracker) -> object:
        if isinstance(value, TensorVariable):
            example = value.example_value
            size = [int(d.node.hint) if isinstance(d, torch.SymInt) else d for d in example.shape]
            return torch.empty(size, dtype=example.dtype, device=example.device)
        return value.as_python_constant()

    return tuple(map(real, args)), {name: real(value) for name, value in kwargs.items()}


def _changed_registry(tx: InstructionTranslatorBase, entries: dict) -> ConstDictVariable | None:
    """The traced form of a module's `_parameters` (`_buffers`, `_modules`) dict where
    the trace changed it in place (`torch.func.functional_call` swaps tensors in with
    ``module._parameters[name] = t``): attribute reads then see the traced contents."""
    vt = tx.output.input_by_id.get(id(entries))
    if not isinstance(vt, ConstDictVariable) or vt.source is None:
        return None
    return vt if tx.output.side_effects.mutated_container(vt.source.name) is vt else None


def _is_torch_code(fn: object) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and (getattr(fn, "__module__", "") or "").startswith("torch.")


def _member_source(root: Source, qualname: str, registry: str | None) -> Source:
    """The source of the member `qualname` (``"0.lin.weight"``) of the module at `root`:
    submodules through ``_modules``, the last step through `registry` when given."""
    parts = qualname.split(".") if qualname else []
    leaf = parts.pop() if registry is not None else None
    source = root
    for part in parts:
        source = GetItemSource(AttrSource(source, "_modules"), part)
    return source if leaf is None else GetItemSource(AttrSource(source, registry), leaf)
