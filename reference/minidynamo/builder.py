"""`VariableBuilder`: a Python value from the frame -> a VariableTracker plus guards
(seed: `VariableBuilder._wrap`, there "a very long elif chain"; here a table from type
to wrapper). The result of a graph node becomes one in graph_values.py.
"""

from __future__ import annotations

import collections
import enum
import functools
import inspect
import operator
import os
import types
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch._library.custom_ops import CustomOpDef

from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.exc import unimplemented
from minidynamo.source import (
    AttrSource,
    DictValueSource,
    FloatTensorSource,
    GetItemSource,
    GlobalSource,
    LocalSource,
    NumpyTensorSource,
    TupleIteratorGetItemSource,
    WeakRefCallSource,
    placeholder_name,
    tuple_iterator_items,
)
from minidynamo.trace_rules import Rule, is_namedtuple
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.builtin import BUILTIN_HANDLERS, PURE_BUILTINS, BuiltinVariable
from minidynamo.variables.collections_types import DequeVariable, OrderedDictVariable
from minidynamo.variables.constant import (
    TYPING_FORMS,
    ConstantVariable,
    is_constant_value,
    is_static_value,
)
from minidynamo.variables.ctx_manager import (
    GRAD_MODE_CLASSES,
    TORCH_MANAGERS,
    GradModeClassVariable,
    ManagerCloneVariable,
    TorchManagerClassVariable,
    TorchManagerVariable,
)
from minidynamo.variables.dicts import (
    ConstDictVariable,
    FrozensetVariable,
    LazyItem,
    MappingProxyVariable,
    SetVariable,
)
from minidynamo.variables.functions import (
    FunctoolsPartialVariable,
    GeneratorFrameFunction,
    PolyfilledFunctionVariable,
    SkipFunctionVariable,
    TypeQueryFunctionVariable,
    UserFunctionVariable,
    UserMethodVariable,
    WrapsVariable,
)
from minidynamo.variables.generators import ExistingGeneratorVariable
from minidynamo.variables.higher_order_ops import HIGHER_ORDER_VARIABLES
from minidynamo.variables.lazy import LAZY_TYPES, LazyConstantVariable
from minidynamo.variables.lists import (
    ListIteratorVariable,
    ListVariable,
    NamedTupleVariable,
    SizeVariable,
    TupleVariable,
)
from minidynamo.variables.misc import (
    EnvironVariable,
    PythonModuleVariable,
    SettingsObjectVariable,
    SingleDispatchVariable,
    WeakRefClassVariable,
    WeakRefVariable,
)
from minidynamo.variables.nn_module import NNModuleVariable
from minidynamo.variables.numpy import NumpyNdarrayVariable, NumpyVariable
from minidynamo.variables.symnode import SymNodeVariable
from minidynamo.variables.tensor import TensorVariable
from minidynamo.variables.tensor_subclass import check_wrappable, is_subclass_tensor
from minidynamo.variables.torch import TorchInGraphFunctionVariable
from minidynamo.variables.user_defined import (
    UserDefinedClassVariable,
    UserDefinedObjectVariable,
)
from minidynamo.variables.user_dict import (
    DICT_BASES,
    UserDefinedDictVariable,
    dict_base,
    reads_items_as_base,
    replay_class,
)

if TYPE_CHECKING:
    import torch.fx
    from torch._guards import Source

    from minidynamo.symbolic_convert import InstructionTranslatorBase

# Builtin classes and functions the BuiltinVariable models.
_BUILTIN_CALLABLES = (
    frozenset(BUILTIN_HANDLERS)
    | PURE_BUILTINS
    | {value for value in vars(operator).values() if callable(value)}
)


def wrap_class(cls: type, source: Source | None = None) -> VariableTracker:
    if cls in _BUILTIN_CALLABLES:
        return BuiltinVariable(cls, source=source)
    return UserDefinedClassVariable(cls, source=source)


class VariableBuilder:
    """Wraps values read from `source`; ``guard=False`` for values of library
    namespaces (torch, the stdlib), which are assumed not to change; ``lazy=False`` for
    an argument the frame keeps in a cell, guarded as any argument is, not as a closure
    variable."""

    def __init__(
        self,
        tx: InstructionTranslatorBase,
        source: Source | None,
        *,
        guard: bool = True,
        lazy: bool = True,
    ) -> None:
        self.tx = tx
        self.source = source
        self.guards = tx.output.guards if guard and source is not None else None
        self.lazy = lazy

    def __call__(self, value: object) -> VariableTracker:
        if isinstance(value, (np.number, np.bool_)) and self.guards is not None:
            return self.wrap_numpy_scalar(value)
        if is_constant_value(value) and not isinstance(value, (tuple, list)):
            return self.wrap_constant(value)
        if type(value) in _MUTABLE_TYPES and self.guards is not None:
            return self.wrap_mutable(value)
        if trace_rules.is_numpy_callable(value):
            self.guard_identity(value)
            return NumpyVariable(value, source=self.source)
        for types_, wrapper in _WRAPPERS:
            if isinstance(value, types_):
                return wrapper(self, value)
        return self.wrap_object(value)

    def wrap_mutable(self, value: object) -> VariableTracker:
        """A list, dict, set or iterator reached twice (`alias = out`) is one
        VariableTracker, so a mutation through one name is seen through the other."""
        output = self.tx.output
        seen = output.input_by_id.get(id(value))
        if seen is not None:
            output.guards.add_alias(self.source, seen.source)
            return seen
        wrapper = next(wrapper for types_, wrapper in _WRAPPERS if isinstance(value, types_))
        vt = wrapper(self, value)
        output.input_by_id[id(value)] = vt
        return vt

    def child(self, source_step: Callable[[Source], Source]) -> VariableBuilder:
        """A builder for a part of this value (an item, an attribute)."""
        source = None if self.source is None else source_step(self.source)
        return VariableBuilder(self.tx, source, guard=self.guards is not None)

    def wrap_constant(self, value: object) -> VariableTracker:
        guarded = self.guards is not None
        if type(value) in LAZY_TYPES and guarded and self.lazy and _is_lazy_source(self.source):
            lazy = self.wrap_lazy(value)
            if lazy is not None:
                return lazy
        if type(value) is int and guarded and may_be_symbolic(self.source, self.tx):
            return self.wrap_int(value)
        if type(value) is float and guarded:
            return self.wrap_float(value)
        if self.guards is not None and isinstance(value, enum.Enum):
            self.guards.add_id_match(self.source, value)  # as Dynamo: the member itself
        elif self.guards is not None:
            self.guards.add_constant_match(self.source, value)
        return ConstantVariable(value, source=self.source)

    def wrap_lazy(self, value: object) -> VariableTracker | None:
        """A scalar of a global or a closure cell, guarded on its value only when the
        trace reads it (variables/lazy.py); None where it is a symbol already (an int of
        a cell that changed between compiles, a float that did)."""
        guards, source = self.guards, self.source
        assert guards is not None and source is not None
        if type(value) is int and may_be_symbolic(source, self.tx):
            shapes = self.tx.output.shapes
            if shapes.is_symbolic_int(value, source):
                return None

            def on_realize() -> None:
                shapes.wrap_int(value, source)  # remembered, for automatic dynamic
                guards.add_constant_match(source, value)

        elif type(value) is float:
            shapes = self.tx.output.shapes
            if shapes.is_symbolic_float(value, source):
                return None

            def on_realize() -> None:
                shapes.wrap_float(value, source)  # remembered, for automatic dynamic
                guards.add_constant_match(source, value)

        else:

            def on_realize() -> None:
                guards.add_constant_match(source, value)

        computable = not isinstance(source, GetItemSource)
        return LazyConstantVariable(
            value, source=source, guards=guards, on_realize=on_realize, computable=computable
        )

    def wrap_int(self, value: int) -> VariableTracker:
        """An int input: a constant (guarded on its value), or, once the ShapePolicy says
        it is dynamic, a SymInt graph input ``l_n_: torch.SymInt`` (guarded on its type)."""
        output = self.tx.output
        seen = output.input_by_source.get(self.source)
        if seen is not None:
            return seen
        wrapped = output.shapes.wrap_int(value, self.source)
        if not isinstance(wrapped, torch.SymInt):
            output.guards.add_constant_match(self.source, value)
            return ConstantVariable(value, source=self.source)
        output.guards.add_type_match(self.source, value)
        name = placeholder_name(self.source)
        proxy = output.create_graph_input(name, value, wrapped, self.source)
        vt = SymNodeVariable(self.tx, proxy, wrapped, source=self.source)
        output.input_by_source[self.source] = vt
        return vt

    def wrap_float(self, value: float) -> VariableTracker:
        """A float input: a constant (guarded on its value), or, once the ShapePolicy says
        it is dynamic, a float64 0-dim tensor graph input read back as a SymFloat,
        ``item = l_f_.item()`` (guarded on its type and on not being NaN)."""
        output = self.tx.output
        seen = output.input_by_source.get(self.source)
        if seen is not None:
            return seen
        wrapped = output.shapes.wrap_float(value, self.source)
        if not isinstance(wrapped, torch.SymFloat):
            output.guards.add_constant_match(self.source, value)
            return ConstantVariable(value, source=self.source)
        output.guards.add_type_match(self.source, value)
        output.guards.add_not_nan(self.source)
        source = FloatTensorSource(self.source)
        tensor = torch.tensor(value, dtype=torch.float64)
        fake = output.fake_mode.from_tensor(tensor, source=source)
        proxy = output.create_graph_input(placeholder_name(source), tensor, fake, source)
        item = output.create_proxy(self.tx, "call_method", "item", (proxy,), {}, example=wrapped)
        vt = SymNodeVariable(self.tx, item, wrapped, source=self.source)
        output.input_by_source[self.source] = vt
        return vt

    def wrap_tensor(self, value: torch.Tensor) -> VariableTracker:
        output = self.tx.output
        if self.source is None:
            unimplemented("a tensor that cannot be reached from the frame's inputs")
        if is_subclass_tensor(value):
            check_wrappable(type(value))
        seen = output.input_by_id.get(id(value))
        if seen is not None:
            # The same tensor reached twice feeds one graph input (seed example f6).
            output.guards.add_alias(self.source, seen.source)
            return seen
        proxy, fake = self.tensor_input(value, self.source)
        vt = TensorVariable(
            proxy, fake, class_type=type(value), source=self.source, instance_dict=value.__dict__
        )
        output.input_by_id[id(value)] = vt
        output.input_tensors[id(vt)] = value
        return vt

    def tensor_input(
        self, value: torch.Tensor, source: Source, *, aliasable: bool = True
    ) -> tuple[torch.fx.Proxy, Any]:
        """A graph input for tensor `value` read from `source`, guarded: its proxy and
        FakeTensor (with symbols where the ShapePolicy makes dims dynamic)."""
        output = self.tx.output
        # Reading a subclass tensor's properties must not run its __torch_function__.
        with torch._C.DisableTorchFunctionSubclass():
            fake = output.shapes.wrap_tensor(value, source)
            for symbol in output.shapes.new_symbol_inputs():
                output.create_graph_input(symbol.name, symbol.hint, symbol.value, symbol.source)
            output.guards.add_tensor_match(source, value, fake, aliasable=aliasable)
            proxy = output.create_graph_input(placeholder_name(source), value, fake, source)
        return proxy, fake

    def wrap_ndarray(self, value: np.ndarray) -> VariableTracker:
        """An ndarray input: its tensor view ``___from_numpy(L['a'])`` is the graph
        input, guarded as a tensor (so a new shape or dtype recompiles)."""
        output = self.tx.output
        if self.source is None:
            unimplemented("an ndarray that cannot be reached from the frame's inputs")
        if type(value) is not np.ndarray:
            unimplemented(f"ndarray subclass {type(value).__qualname__}")
        seen = output.input_by_id.get(id(value))
        if seen is not None:
            output.guards.add_alias(self.source, seen.source)
            return seen
        try:
            tensor = torch.from_numpy(value)
        except (TypeError, ValueError) as e:  # an object array, negative strides ...
            unimplemented(f"ndarray of dtype {value.dtype}: {e}")
        proxy, fake = self.tensor_input(tensor, NumpyTensorSource(self.source))
        vt = NumpyNdarrayVariable(proxy, fake, source=self.source)
        output.input_by_id[id(value)] = vt
        return vt

    def wrap_numpy_scalar(self, value: np.number | np.bool_) -> VariableTracker:
        """A NumPy scalar input (`np.float64(2.5)`) is a 0-dim array to the trace, as in
        Dynamo: the graph input ``___from_numpy(L['s'])`` guarded as a tensor (a new
        value reuses the graph), and its type, which an ndarray of the same dtype shares;
        a floating one is guarded not NaN as Dynamo does (a NaN is not: the tensor holds
        it as well)."""
        assert self.guards is not None and self.source is not None
        self.guards.add_type_match(self.source, value)
        source = NumpyTensorSource(self.source)
        proxy, fake = self.tensor_input(torch.as_tensor(value), source, aliasable=False)
        if isinstance(value, np.floating) and not np.isnan(value):
            self.guards.add_not_nan(source, item=True)
        guard_value = functools.partial(self.guards.add_constant_match, self.source, value)
        return NumpyNdarrayVariable(
            proxy, fake, source=self.source, scalar=value, guard_value=guard_value
        )

    def wrap_size(self, value: torch.Size) -> VariableTracker:
        """A torch.Size value: as a tuple, its type and length are guarded and each dim
        is read by index (``L['s'][0]``), an int like any other, so a dim that changed
        between compiles is a symbol (automatic dynamic), as Dynamo wraps it."""
        if self.guards is not None:
            self.guards.add_length(self.source, value)
        items = [
            self.child(lambda s, i=i: GetItemSource(s, i))(item) for i, item in enumerate(value)
        ]
        return SizeVariable(items, source=self.source)

    def wrap_sequence(self, value: tuple | list) -> VariableTracker:
        if is_namedtuple(type(value)):
            return self.wrap_namedtuple(value)  # type: ignore[arg-type]
        if trace_rules.is_structseq(type(value)):
            return self.wrap_structseq(value)  # type: ignore[arg-type]
        if type(value) not in (tuple, list):
            return self.wrap_object(value)
        if self.guards is not None:
            self.guards.add_length(self.source, value)
        items = [
            self.child(lambda s, i=i: GetItemSource(s, i))(item) for i, item in enumerate(value)
        ]
        cls = TupleVariable if type(value) is tuple else ListVariable
        return cls(items, source=self.source)

    def wrap_deque(self, value: collections.deque) -> VariableTracker:
        """A deque given to the frame: its items, each read by index, and its `maxlen`
        (fixed for the object) guarded with its length; changes replay on it."""
        if type(value) is not collections.deque:
            return self.wrap_object(value)
        if self.guards is not None:
            self.guards.add_length(self.source, value)
            self.guards.add_constant_match(AttrSource(self.source, "maxlen"), value.maxlen)
        items = [
            self.child(lambda s, i=i: GetItemSource(s, i))(item) for i, item in enumerate(value)
        ]
        return DequeVariable(items, maxlen=value.maxlen, source=self.source)

    def wrap_tuple_iterator(self, value: Any) -> VariableTracker:
        """``iter(t)``: its items left, each read without taking it."""
        if self.guards is not None:
            self.guards.add_tuple_iterator_length(self.source, value)
        items = [
            self.child(lambda s, i=i: TupleIteratorGetItemSource(s, i))(item)
            for i, item in enumerate(tuple_iterator_items(value))
        ]
        return ListIteratorVariable(items, source=self.source)

    def wrap_namedtuple(self, value: tuple) -> VariableTracker:
        """A namedtuple: its class is guarded (and so its length), each field read by
        its name (``L['p'].left``, as Dynamo)."""
        if self.guards is not None:
            self.guards.add_type_match(self.source, value)
        items = [
            self.child(lambda s, f=field: AttrSource(s, f))(item)
            for field, item in zip(type(value)._fields, value, strict=True)  # type: ignore[attr-defined]
        ]
        return NamedTupleVariable(items, type(value), source=self.source)

    def wrap_structseq(self, value: tuple) -> VariableTracker:
        """A struct sequence (`sys.version_info`, a `torch.return_types.max` argument):
        a tuple of its class, each item read by index (``G['sys'].version_info[0]``), or
        by field name for torch's (``L['r'].values``), which Dynamo counts as namedtuples;
        its fields outside the sequence are not modelled."""
        if self.guards is not None:
            self.guards.add_length(self.source, value)
        if type(value).__module__ in trace_rules.TORCH_STRUCTSEQ_MODULES:
            fields = type(value).__match_args__
            items = [
                self.child(lambda s, f=field: AttrSource(s, f))(item)
                for field, item in zip(fields, value, strict=True)
            ]
        else:
            items = [
                self.child(lambda s, i=i: GetItemSource(s, i))(item) for i, item in enumerate(value)
            ]
        return NamedTupleVariable(items, type(value), source=self.source)

    def wrap_dict(self, value: dict) -> VariableTracker:
        kinds = {
            dict: ConstDictVariable,
            collections.OrderedDict: OrderedDictVariable,
            types.MappingProxyType: MappingProxyVariable,
        }
        kind = kinds.get(type(value))
        if not all(_is_dict_key(key) for key in value):
            return self.wrap_object(value)
        if kind is None and self.guards is not None and reads_items_as_base(type(value)):
            return self.wrap_user_dict(value)
        if kind is None:
            return self.wrap_object(value)
        return self.dict_items(value, kind)

    def dict_items(self, value: dict, kind: type[ConstDictVariable]) -> ConstDictVariable:
        """The items of `value` (its keys guarded), each value read when used."""
        if self.guards is not None:
            self.guards.add_dict_keys(self.source, value)
        items = {
            key: LazyItem(
                functools.partial(
                    self.child(lambda s, k=key, i=i: _dict_value_source(s, k, i)), item
                )
            )
            for i, (key, item) in enumerate(value.items())
        }
        return kind(items, source=self.source)

    def wrap_user_dict(self, value: dict) -> VariableTracker:
        """An object of a dict subclass given to the frame (an attribute-access dict, a
        config mapping): its items as its dict base's, its attributes as any object's.
        Reached twice, it is one VariableTracker, as a list or dict input."""
        output = self.tx.output
        seen = output.input_by_id.get(id(value))
        if seen is not None:
            output.guards.add_alias(self.source, seen.source)
            return seen
        items = self.dict_items(value, DICT_BASES[dict_base(type(value))])  # type: ignore[index]
        items.replay_class = replay_class(type(value))
        vt = UserDefinedDictVariable.existing(value, items)
        output.input_by_id[id(value)] = vt
        return vt

    def wrap_set(self, value: set | frozenset) -> VariableTracker:
        if not all(_is_dict_key(item) for item in value):
            return self.wrap_object(value)
        if self.guards is not None:
            self.guards.add_constant_match(self.source, value)
        kind = FrozensetVariable if isinstance(value, frozenset) else SetVariable
        items = [VariableBuilder(self.tx, None)(item) for item in value]
        return kind(items, source=self.source)

    def wrap_module(self, value: torch.nn.Module) -> VariableTracker:
        if isinstance(value, (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM)):
            unimplemented(f"{type(value).__name__} module", gb.RNN_MODULE)
        made = self.tx.output.new_modules.get(id(value))
        if made is not None and self.source is None:
            return made
        if self.source is not None:
            self.tx.output.module_sources.add(self.source)
        if self.guards is not None:
            self.guards.add_type_match(self.source, value)
        return NNModuleVariable(value, source=self.source)

    def wrap_python_module(self, value: types.ModuleType) -> VariableTracker:
        if self.guards is not None:
            self.guards.add_id_match(self.source, value)
        return PythonModuleVariable(value, source=self.source)

    def wrap_environ(self, value: object) -> VariableTracker:
        if value is not os.environ:
            return self.wrap_object(value)
        return EnvironVariable(value, source=self.source)

    def wrap_function(self, value: types.FunctionType) -> VariableTracker:
        if getattr(value, "_minidynamo_compiled", False):
            # A compiled function called from compiled code is inlined, like any other.
            return self.child(lambda s: AttrSource(s, "__wrapped__"))(value.__wrapped__)
        recursive = trace_rules.disabled_by_torch(value)
        if recursive is not None and value not in trace_rules.HIGHER_ORDER_OPS:
            self.guard_identity(value)
            reason = "call of a function wrapped by torch.compiler.disable"
            gb_id = gb.TORCH_DISABLED_FUNCTION if recursive else gb.TORCH_DISABLED_FRAME
            return SkipFunctionVariable(value, reason, gb_id, source=self.source)
        inner = trace_rules.wrapped_by(value)
        if inner is not None:
            return self.child(lambda s: AttrSource(s, inner))(getattr(value, inner))
        if getattr(value, "_minidynamo_disabled", False):
            reason = "call of a function wrapped by minidynamo.disable"
            return SkipFunctionVariable(value, reason, gb.DISABLED_FUNCTION)
        break_id = trace_rules.explicit_break(value)
        if break_id is not None:
            self.guard_identity(value)
            reason = f"user-inserted graph break ({value.__qualname__}())"
            return SkipFunctionVariable(value, reason, break_id)
        if value in TORCH_MANAGERS:
            self.guard_identity(value)
            return TorchManagerClassVariable(value, source=self.source)
        if value in trace_rules.TYPE_QUERY_FUNCTIONS:
            self.guard_identity(value)
            return TypeQueryFunctionVariable(value, source=self.source)
        if value in trace_rules.WRAPS_DECORATORS:
            self.guard_identity(value)
            return WrapsVariable(value, source=self.source)
        if value in trace_rules.HIGHER_ORDER_OPS:
            self.guard_identity(value)
            kind = HIGHER_ORDER_VARIABLES[trace_rules.HIGHER_ORDER_OPS[value]]
            return kind(value, source=self.source)
        if trace_rules.is_singledispatch(value):
            self.guard_identity(value)
            if self.guards is not None:
                self.guards.add_length(AttrSource(self.source, "registry"), value.registry)
            return SingleDispatchVariable(value, source=self.source)
        rule = trace_rules.lookup(value)
        if rule is not Rule.INLINE:
            self.guard_identity(value)
        if rule is Rule.SKIP:
            reason = f"call of library function {value.__qualname__}"
            return SkipFunctionVariable(value, reason, source=self.source)
        if rule is not Rule.INLINE:
            return self.wrap_by_rule(value, rule)
        if self.guards is not None:
            # The code, not the function object: a closure made anew per call still hits
            # (its defaults and cell contents are guarded when they are read).
            self.guards.add_id_match(AttrSource(self.source, "__code__"), value.__code__)
        return UserFunctionVariable(value, source=self.source)

    def guard_identity(self, value: object) -> None:
        """A function or class the trace specializes on (`torch.sin`, `abs`, `int`): a
        local, closure cell or global may hold another one on the next call."""
        if self.guards is not None:
            self.guards.add_id_match(self.source, value)

    def wrap_builtin(self, value: types.BuiltinFunctionType) -> VariableTracker:
        self.guard_identity(value)
        rule = trace_rules.lookup(value)
        if rule in (Rule.IN_GRAPH, Rule.CONSTANT_FOLD, Rule.POLYFILL):
            return self.wrap_by_rule(value, rule)
        return BuiltinVariable(value, source=self.source)

    def wrap_by_rule(self, value: Callable, rule: Rule) -> VariableTracker:
        """A library callable that trace_rules puts in the graph, folds or polyfills."""
        if rule is Rule.POLYFILL:
            return PolyfilledFunctionVariable(
                value, trace_rules.POLYFILLS[value], source=self.source
            )
        return TorchInGraphFunctionVariable(value, source=self.source)

    def wrap_method(self, value: types.MethodType) -> VariableTracker:
        manager = type(value.__self__)
        if GRAD_MODE_CLASSES.get(manager) is not None and value.__func__ is manager.clone:
            # `@torch.no_grad()` makes a fresh manager per call with `ctx.clone`: the class.
            if self.guards is not None:
                self.guards.add_type_match(AttrSource(self.source, "__self__"), value.__self__)
            return GradModeClassVariable(manager)
        if manager is torch.inference_mode and value.__func__ is manager.clone:
            # `@torch.inference_mode(mode)`'s fresh manager per call: the class called
            # with the object's mode.
            if self.guards is not None:
                obj = AttrSource(self.source, "__self__")
                self.guards.add_type_match(obj, value.__self__)
                self.guards.add_constant_match(AttrSource(obj, "mode"), value.__self__.mode)
            rule = TORCH_MANAGERS[manager]
            return ManagerCloneVariable(manager, rule, rule.params(value.__self__.mode))
        fn = self.child(lambda s: AttrSource(s, "__func__"))(value.__func__)
        obj = self.child(lambda s: AttrSource(s, "__self__"))(value.__self__)
        if not isinstance(fn, UserFunctionVariable):
            unimplemented(f"bound method of {type(value.__self__).__qualname__}")
        return UserMethodVariable(fn, obj)

    def wrap_type(self, value: type) -> VariableTracker:
        self.guard_identity(value)
        if value is torch.Size:
            return TorchInGraphFunctionVariable(value, source=self.source)
        if value in GRAD_MODE_CLASSES:
            return GradModeClassVariable(value, source=self.source)
        if value in TORCH_MANAGERS:
            return TorchManagerClassVariable(value, source=self.source)
        if value is weakref.ref:
            return WeakRefClassVariable(source=self.source)
        if value in trace_rules.REFUSED_CLASSES:
            gb_id, reason = trace_rules.REFUSED_CLASSES[value]
            return SkipFunctionVariable(value, reason, gb_id, source=self.source)
        rule = trace_rules.lookup(value)
        if rule in (Rule.CONSTANT_FOLD, Rule.POLYFILL):
            return self.wrap_by_rule(value, rule)
        return wrap_class(value, self.source)

    def wrap_partial(self, value: functools.partial) -> VariableTracker:
        """A partial passed in: its function, arguments and keywords, each read from it."""
        if type(value) is not functools.partial:
            return self.wrap_object(value)
        if self.guards is not None:
            self.guards.add_type_match(self.source, value)
            self.guards.add_length(AttrSource(self.source, "args"), value.args)
            self.guards.add_dict_keys(AttrSource(self.source, "keywords"), value.keywords)
        fn = self.child(lambda s: AttrSource(s, "func"))(value.func)
        args = [
            self.child(lambda s, i=i: GetItemSource(AttrSource(s, "args"), i))(arg)
            for i, arg in enumerate(value.args)
        ]
        kwargs = {
            key: self.child(lambda s, k=key: GetItemSource(AttrSource(s, "keywords"), k))(arg)
            for key, arg in value.keywords.items()
        }
        return FunctoolsPartialVariable(
            fn, args, kwargs, source=self.source, has_attributes=bool(value.__dict__)
        )

    def wrap_generator(self, value: types.GeneratorType) -> VariableTracker:
        """A generator the frame was given, not yet started: traced from its code and
        frame (`ExistingGeneratorVariable`), guarded by its identity (as Dynamo: a new
        generator compiles again) and its state (one that ran since is another)."""
        if self.guards is None or inspect.getgeneratorstate(value) != inspect.GEN_CREATED:
            return self.wrap_object(value)
        output = self.tx.output
        seen = output.input_by_id.get(id(value))
        if isinstance(seen, ExistingGeneratorVariable) and seen.tx.code is value.gi_code:
            if seen.source.name != self.source.name:
                output.guards.add_alias(self.source, seen.source)
            return seen
        self.guards.add_id_match(self.source, value)
        self.guards.add_generator_created(self.source)
        fn = GeneratorFrameFunction(value, self.source)
        vt = ExistingGeneratorVariable(self.tx.inline_generator(fn, [], {}), self.source)
        output.input_by_id[id(value)] = vt
        return vt

    def wrap_weakref(self, value: weakref.ref) -> VariableTracker:
        """A weak reference (not a subclass: WeakMethod's call differs): its referent is
        read through ``source()`` when it is called."""
        if type(value) is not weakref.ref or self.source is None:
            return self.wrap_object(value)
        if self.guards is not None:
            self.guards.add_type_match(self.source, value)
        referent = self.child(WeakRefCallSource)(value())
        return WeakRefVariable(referent, source=self.source)

    def wrap_object(self, value: object) -> VariableTracker:
        # A torch.jit.script/trace function: its Python original (looked up only for
        # them: wrapped_by reads three attributes statically).
        script = isinstance(value, torch.jit.ScriptFunction)
        inner = trace_rules.wrapped_by(value) if script else None
        if inner is not None:
            return self.child(lambda s: AttrSource(s, inner))(getattr(value, inner))
        if trace_rules.is_lru_cached_user_function(value):
            # As Dynamo: the cache is ignored and the wrapped function traced in the frame
            # (its result depends only on its arguments, which the trace sees).
            if self.guards is not None:
                self.guards.add_type_match(self.source, value)
            wrapped = value.__wrapped__  # type: ignore[attr-defined]
            return self.child(lambda s: AttrSource(s, "__wrapped__"))(wrapped)
        if isinstance(value, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            # An operator (`torch.ops.aten.sin.default`, a custom op): a graph node.
            self.guard_identity(value)
            return TorchInGraphFunctionVariable(value, source=self.source)
        if isinstance(value, CustomOpDef):  # `@torch.library.custom_op`: its operator
            self.guard_identity(value)
            return TorchInGraphFunctionVariable(value._opoverload)
        if type(value) is torch.autocast:
            # Made outside the trace (the manager of an `@torch.autocast()` function): as
            # one made inside it, from its settings; Dynamo guards its identity.
            self.guard_identity(value)
            rule = TORCH_MANAGERS[torch.autocast]
            params = rule.params(
                value.device, value.fast_dtype, value._enabled, value._cache_enabled
            )
            return TorchManagerVariable(torch.autocast, rule, params)
        if isinstance(value, trace_rules.SETTINGS_CLASSES):
            return SettingsObjectVariable(value, source=self.source)
        if (
            isinstance(value, functools._lru_cache_wrapper)
            and trace_rules.lookup(value) is Rule.CONSTANT_FOLD
        ):  # a cached query (`torch.backends.mps.is_available`)
            self.guard_identity(value)
            return self.wrap_by_rule(value, Rule.CONSTANT_FOLD)
        if self.guards is None:
            return UserDefinedObjectVariable(value, source=self.source)
        # One object reached twice (a global and a decorator's closure cell) is one
        # tracker, so that an attribute stored through one is read through the other.
        output = self.tx.output
        seen = output.input_by_id.get(id(value))
        if isinstance(seen, UserDefinedObjectVariable) and seen.value is value:
            if seen.source.name != self.source.name:
                output.guards.add_alias(self.source, seen.source)
            return seen
        self.guards.add_type_match(self.source, value)
        vt = UserDefinedObjectVariable(value, source=self.source)
        output.input_by_id[id(value)] = vt
        return vt


def _is_dict_key(key: object) -> bool:
    """A dict key or set item the trackers hold as itself: a constant, a class, or a
    function (pytree's SUPPORTED_NODES is keyed by classes and `namedtuple`)."""
    return is_static_value(key) or isinstance(key, (types.FunctionType, types.BuiltinFunctionType))


def _dict_value_source(base: Source, key: object, index: int) -> Source:
    """``base[key]`` where the key is a literal constant, else the value by position."""
    if is_constant_value(key) and not isinstance(key, TYPING_FORMS):
        return GetItemSource(base, key)
    return DictValueSource(base, index)


_TUPLE_ITERATOR = type(iter(()))
_MUTABLE_TYPES = (list, dict, collections.OrderedDict, set, collections.deque, _TUPLE_ITERATOR)

# First match wins: order matters where classes overlap (Parameter is a Tensor,
# torch.Size is a tuple).
_WRAPPERS: list[
    tuple[type | tuple[type, ...], Callable[[VariableBuilder, Any], VariableTracker]]
] = [
    (torch.Tensor, VariableBuilder.wrap_tensor),
    (np.ndarray, VariableBuilder.wrap_ndarray),
    (torch.Size, VariableBuilder.wrap_size),
    ((tuple, list), VariableBuilder.wrap_sequence),
    (collections.deque, VariableBuilder.wrap_deque),
    (_TUPLE_ITERATOR, VariableBuilder.wrap_tuple_iterator),
    ((dict, types.MappingProxyType), VariableBuilder.wrap_dict),
    ((set, frozenset), VariableBuilder.wrap_set),
    (torch.nn.Module, VariableBuilder.wrap_module),
    (functools.partial, VariableBuilder.wrap_partial),
    (types.ModuleType, VariableBuilder.wrap_python_module),
    (type(os.environ), VariableBuilder.wrap_environ),
    (types.FunctionType, VariableBuilder.wrap_function),
    (types.BuiltinFunctionType, VariableBuilder.wrap_builtin),
    (types.MethodType, VariableBuilder.wrap_method),
    (types.GeneratorType, VariableBuilder.wrap_generator),
    (type, VariableBuilder.wrap_type),
    (weakref.ref, VariableBuilder.wrap_weakref),
]


def _is_lazy_source(source: Source | None) -> bool:
    """An argument, a global, an attribute (a closure cell's contents among them) or an
    item of a list, tuple or dict: where Dynamo guards a scalar lazily (its
    VariableTracker.build makes each a LazyConstantVariable), so one the trace never
    reads is unguarded."""
    return isinstance(source, (LocalSource, GlobalSource, AttrSource, GetItemSource))


def may_be_symbolic(source: Source, tx: InstructionTranslatorBase) -> bool:
    """Whether an int read from `source` may become a symbol: an argument or closure
    variable of the frame, or an item or attribute of one (``L['o'].n``). Globals and
    what is reached from them, function defaults, the values an unstarted generator's
    frame holds and the attributes of nn.Modules stay constants, as in Dynamo, which
    assumes a program does not mean to vary those."""
    while isinstance(source, (GetItemSource, AttrSource)):
        if isinstance(source, AttrSource) and source.member in (
            "__defaults__",
            "__kwdefaults__",
            "gi_frame",
        ):
            return False
        source = source.base
        # Checked on each base, the frame's own argument included (``L['self'].step`` in
        # a compiled module's forward).
        if source in tx.output.module_sources:
            return False
    return isinstance(source, LocalSource)
