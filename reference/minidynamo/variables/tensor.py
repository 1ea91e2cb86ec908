"""`TensorVariable`: a tensor in the graph (seed "Generating the output graph").

It holds the FX proxy of the node that produces the tensor and a FakeTensor example
value. Tensor methods become `call_method` nodes; static properties (dtype, shape,
`size()`, `dim()`) are read from the FakeTensor and become constants, as the frame is
guarded on them, except symbolic sizes: those are computed in the graph (seed:
`size = l_a_.size(); getitem = size[0]`).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.symnode import guards_added_here, is_symbolic

if TYPE_CHECKING:
    import torch.fx
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

# Properties that are fixed by the TENSOR_MATCH guard, so they are constants here. Other
# static properties (`is_leaf`, `itemsize`) are constants too, but Dynamo reads them with
# a getattr node (left unused), and so does minidynamo: see `getset_attribute`.
STATIC_ATTRIBUTES = frozenset(
    {
        "dtype",
        "device",
        "shape",
        "ndim",
        "requires_grad",
        "is_cuda",
        "is_sparse",
        "layout",
        "is_quantized",
        "is_nested",
    }
)

# View attributes, recorded as the aten op their C++ getter dispatches to (as Dynamo
# does): the node is an op like any other view, not a getattr of the base.
VIEW_ATTRIBUTE_OPS = {
    "T": torch.ops.aten.numpy_T,
    "mT": torch.ops.aten.mT,
    "H": torch.ops.aten.matrix_H,
    "mH": torch.ops.aten.mH,
}

# Methods answered from the example value without a graph node.
STATIC_METHODS = frozenset(
    {
        "size",
        "dim",
        "ndimension",
        "numel",
        "nelement",
        "stride",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "element_size",
        "get_device",
        "__len__",
    }
)

# Methods whose result depends on the data, or that leave the graph's world.
_DATA_DEPENDENT_IDS = {"item": gb.TENSOR_ITEM, "tolist": gb.TENSOR_TOLIST}
DATA_DEPENDENT_METHODS = frozenset(
    {
        "item",
        "tolist",
        "backward",
        "__bool__",
        "__index__",
        "__int__",
        "__float__",
        "untyped_storage",
        "storage",
    }
)


def _metadata(tensor: torch.Tensor) -> tuple:
    return tensor.dtype, tensor.device, tensor.shape, tensor.stride()


class TensorVariable(VariableTracker):
    """A tensor produced by (or fed into) the FX graph."""

    def __init__(
        self,
        proxy: torch.fx.Proxy,
        example_value: torch.Tensor,
        *,
        class_type: type = torch.Tensor,
        source: Source | None = None,
        instance_dict: dict | None = None,
    ) -> None:
        super().__init__(source=source)
        self.proxy = proxy
        self.example_value = example_value
        self.class_type = class_type
        # An input's own attributes (``x.flag = True`` before the call), read when asked.
        self.instance_dict = instance_dict or {}
        # Placeholders keep their source-derived name; other nodes take the name of
        # the first local they are stored to (seed: `z = sub ** 2`).
        self.name_is_set = proxy.node.op == "placeholder"

    def python_type(self) -> type:
        return self.class_type

    def as_proxy(self) -> Any:
        return self.proxy

    def bool_value(self) -> bool:
        unimplemented(
            "data-dependent control flow: the truth value of a tensor", gb.DATA_DEPENDENT_BRANCH
        )

    def is_new_object(self) -> bool:
        # A result made a subclass outside the graph: one object however often used.
        return self.source is None and self.class_type is not torch.Tensor

    def reconstruct(self, codegen: PyCodegen) -> None:
        # An input is reloaded from the frame; a computed tensor is a graph output,
        # made its subclass again (``graph_out_0[0].as_subclass(MyTensor)``).
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        codegen.load_graph_output(self.proxy.node)
        if self.class_type is not torch.Tensor:
            codegen.call_method("as_subclass", [lambda: codegen.load_import(self.class_type)])

    def set_name_hint(self, name: str) -> None:
        if not self.name_is_set:
            self.proxy.node._rename(name)
            self.name_is_set = True

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.lists import SizeVariable
        from minidynamo.variables.misc import GetAttrVariable

        if name != "__class__" and hasattr(torch.Tensor, name):
            found = self.subclass_attribute(tx, name)
            if found is not None:
                return found
            if not callable(getattr(torch.Tensor, name)):
                # `x.shape` of a class with its own __torch_function__ runs it, with
                # the attribute's getter as ``func``
                from minidynamo.variables import tensor_subclass as subclass

                types = subclass.overriding_types(tx, [self], {})
                if types:
                    getter = getattr(torch.Tensor, name).__get__
                    return subclass.dispatch_torch_function(tx, types, getter, [self], {})
                subclass.result_class(tx, name, [self], {})
        if name == "shape":
            if is_symbolic(self.example_value.shape):  # seed: `size = l_a_.size()`
                return self.call_method(tx, "size", [], {})
            return SizeVariable.of(self.example_value.shape)
        if name in STATIC_ATTRIBUTES:
            return ConstantVariable.create(getattr(self.example_value, name))
        if name in VIEW_ATTRIBUTE_OPS:
            return tx.output.call(tx, "call_function", VIEW_ATTRIBUTE_OPS[name], [self])
        if name == "grad":
            return self.grad_attribute(tx)
        # At the attribute, as Dynamo: the trace cannot resume there, the frame runs eagerly.
        if name == "retain_grad":
            unimplemented("Tensor.retain_grad() is not traced", gb.RETAIN_GRAD)
        if name == "data":  # the C++ getter's function, as Dynamo records it
            return tx.output.call(tx, "call_function", torch._C._autograd._get_data_attr, [self])
        if name == "__class__":  # guarded with the tensor's other properties
            from minidynamo.builder import wrap_class

            return wrap_class(self.python_type())
        if not hasattr(torch.Tensor, name):
            found = self.subclass_attribute(tx, name)
            return self.instance_attribute(tx, name) if found is None else found
        attr = getattr(torch.Tensor, name, None)
        if callable(attr):
            return GetAttrVariable(self, name)
        if isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
            return self.getset_attribute(tx, name)
        unimplemented(f"tensor attribute {name!r}")

    def getset_attribute(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """Another of torch's attributes (``x.real``, ``x.is_leaf``, ``x.nbytes``): a
        getattr node, as Dynamo records it. A static value (a bool, an int) is a
        constant read from the fake tensor; its node stays in the graph, unused, as in
        Dynamo's graph."""
        output = tx.output
        args = (self.as_proxy(), name)
        example = output.run_fake("call_function", getattr, args, {})
        if example is None:  # `grad_fn` of a tensor without grad: no node, as Dynamo
            return ConstantVariable(None)
        if isinstance(example, (bool, int, float)):
            output.create_proxy(tx, "call_function", getattr, args, {}, example=example)
            return ConstantVariable(example)
        return output.call(tx, "call_function", getattr, [self, ConstantVariable(name)])

    def grad_attribute(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """``x.grad``: of an input, the attribute's own value, wrapped by the builder from
        ``L['x'].grad`` as Dynamo does (None is guarded as such, a tensor becomes the
        graph input ``l_x_grad``). A tensor the graph made has none: only backward()
        fills ``.grad``, and it breaks the graph."""
        from minidynamo.builder import VariableBuilder

        owner = self.input_tensor(tx)
        stored = None if owner is None else tx.output.side_effects.load_attr(owner, "grad")
        if stored is not None:  # `p.grad = None` earlier in the trace
            return stored
        if owner is None:
            return ConstantVariable(None)
        value = owner.proxy.node.meta["grapharg"].example  # the real input tensor
        return VariableBuilder(tx, AttrSource(owner.source, "grad"))(value.grad)

    def subclass_attribute(
        self, tx: InstructionTranslatorBase, name: str
    ) -> VariableTracker | None:
        """An attribute a tensor subclass defines (a method, a property, a class
        constant), bound to this tensor as Python would; None where torch's own applies.
        An instance attribute of the same name (the input's, or one the trace set) comes
        first, as for any object, except where the class's is a data descriptor."""
        from minidynamo.side_effects import DELETED
        from minidynamo.variables.class_lookup import wrap_class_attribute

        stored = tx.output.side_effects.load_attr(self, name)
        if stored is None:
            shadowed = name in self.instance_dict
        else:
            shadowed = stored is not DELETED
        for klass in self.class_type.__mro__:
            if klass in (torch.Tensor, torch._C.TensorBase, object):
                return None
            if name in klass.__dict__:
                attr = klass.__dict__[name]
                if shadowed and not hasattr(type(attr), "__set__"):
                    return None
                return wrap_class_attribute(tx, self, attr, None)
        return None

    # The tensor as a Python object: attributes of its own, set before or during the call.

    def instance_attribute(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.builder import VariableBuilder
        from minidynamo.side_effects import DELETED

        stored = tx.output.side_effects.load_attr(self, name)
        if stored is not None and stored is not DELETED:
            return stored
        if stored is None and self.source is not None and name in self.instance_dict:
            return VariableBuilder(tx, AttrSource(self.source, name))(self.instance_dict[name])
        cls = self.python_type()
        if not hasattr(cls, "__getattr__"):  # no __getattr__ that may know more
            from minidynamo.variables.exceptions import raise_observed

            if self.source is not None:
                tx.output.guards.add_hasattr(self.source, name, False)
            raise_observed(AttributeError, f"{cls.__name__!r} object has no attribute {name!r}")
        unimplemented(f"tensor attribute {name!r}")

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        """``hasattr(t, name)``: torch's attributes, those the trace set, and an input's
        own (guarded: ``hasattr(L['x'], 'flag')``); a tensor the graph made has none."""
        from minidynamo.side_effects import DELETED

        if hasattr(torch.Tensor, name):
            return True
        stored = tx.output.side_effects.load_attr(self, name)
        if stored is not None:
            return stored is not DELETED
        if self.source is None:
            return False
        present = name in self.instance_dict
        tx.output.guards.add_hasattr(self.source, name, present)
        return present

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``t.name = value`` of a new attribute on an input, or ``p.grad = None`` (or a
        tensor like ``p``) on an input: replayed after the graph."""
        if name == "grad":
            owner = self.input_tensor(tx)
            if owner is not None and self._fits_as_grad(value):
                tx.output.side_effects.store_attr(owner, name, value)
                return
        if name == "data":
            self.set_data(tx, value)
            return
        if hasattr(torch.Tensor, name):
            unimplemented(f"assignment to the tensor attribute {name!r}")
        tx.output.side_effects.store_attr(self, name, value)

    def set_data(self, tx: InstructionTranslatorBase, value: VariableTracker) -> None:
        """``t.data = value`` (`nn.utils.vector_to_parameters`): the input tensor takes
        the value's storage, an ``aten.shallow_copy_data_`` node under no_grad, as Dynamo
        records it. Only a value of the same metadata: the input's guards and every fake
        tensor read so far describe the tensor before and after alike."""
        from minidynamo.variables.ctx_manager import set_grad_enabled

        if self.source is None or not isinstance(value, TensorVariable):
            unimplemented(f"assignment of {value!r} to .data of {self!r}", gb.DATA_ASSIGNMENT)
        mine, theirs = self.example_value, value.example_value
        if _metadata(mine) != _metadata(theirs):
            unimplemented(
                "assignment to .data of a tensor of another dtype, device, size or strides",
                gb.DATA_ASSIGNMENT,
            )
        grad_mode = torch.is_grad_enabled()
        if grad_mode:
            set_grad_enabled(tx, False)
        tx.output.call(tx, "call_function", torch.ops.aten.shallow_copy_data_, [self, value])
        if grad_mode:
            set_grad_enabled(tx, True)

    def input_tensor(self, tx: InstructionTranslatorBase) -> TensorVariable | None:
        """The graph input this tensor is: itself, or the input an in-place op returned
        (``p -= lr * p.grad``: one FakeTensor, one tensor object); None for a new one."""
        if self.source is not None:
            return self
        for arg in tx.output.graphargs:
            if arg.proxy.node.meta.get("example_value") is self.example_value:
                owner = tx.output.input_by_id.get(id(arg.example))
                return owner if isinstance(owner, TensorVariable) else None
        return None

    def _fits_as_grad(self, value: VariableTracker) -> bool:
        """None, or a tensor of this tensor's size, dtype and device: what the setter of
        ``.grad`` accepts (anything else raises there, in eager)."""
        if value.is_python_constant():
            return value.as_python_constant() is None
        if not isinstance(value, TensorVariable):
            return False
        mine, theirs = self.example_value, value.example_value
        return (mine.shape, mine.dtype, mine.device) == (theirs.shape, theirs.dtype, theirs.device)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.variables.lists import SizeVariable
        from minidynamo.variables.numpy import specialize_arguments

        args, kwargs = specialize_arguments(tx, args, kwargs)
        if name == "item" and tx.output.one_graph and not args and not kwargs:
            # A captured scalar output: an unbacked symbol (u0) the graph computes.
            return tx.output.call(tx, "call_method", name, [self])
        if name in ("data_ptr", "const_data_ptr") and not args and not kwargs:
            return DataPtrVariable(self, name)
        if name in DATA_DEPENDENT_METHODS:
            gb_id = _DATA_DEPENDENT_IDS.get(name, gb.DATA_DEPENDENT_METHOD)
            unimplemented(f"data-dependent tensor method Tensor.{name}()", gb_id)
        if name == "numpy" and not args:
            return self.numpy(tx, kwargs)
        if name == "new_tensor" and len(args) == 1:
            from minidynamo.variables.torch import tensor_of_graph_numbers

            built = tensor_of_graph_numbers(tx, self, args[0], kwargs)
            if built is not None:
                return built
        if name == "requires_grad_":
            return self.requires_grad_(tx, args, kwargs)
        if name == "register_hook" and len(args) == 1 and not kwargs:
            from minidynamo.variables.tensor_hooks import register_hook

            return register_hook(tx, self, args[0])
        if name == "__getitem__" and len(args) == 1 and not kwargs:
            # `Tensor.__getitem__(t, k)` (the func a __torch_function__ gets for `t[k]`)
            # is `t[k]`: a getitem node, as Dynamo records it.
            from minidynamo.variables.operators import call_operator

            return call_operator(tx, operator.getitem, [self, args[0]])
        if name == "as_subclass" and len(args) == 1 and not kwargs and args[0].is_python_constant():
            from minidynamo.variables.tensor_subclass import as_subclass

            return as_subclass(self, args[0].as_python_constant())
        if name == "type" and not args and not kwargs:  # "torch.FloatTensor"
            return ConstantVariable(self.example_value.type())
        if name == "type" and args and _is_legacy_tensor_type(args[0]):
            # `t.type(torch.LongTensor)`: FX cannot hold the class, so the node gets its
            # name, which Tensor.type takes too (as Dynamo's method_type does).
            cls = args[0].as_python_constant()
            named = ConstantVariable(f"{cls.__module__}.{cls.__name__}")
            return tx.output.call(tx, "call_method", "type", [self, named, *args[1:]], kwargs)
        if name in STATIC_METHODS:
            values = [arg.as_python_constant() for arg in args]
            kwvalues = {k: v.as_python_constant() for k, v in kwargs.items()}
            with guards_added_here(tx):  # e.g. is_contiguous() of symbolic strides
                result = getattr(self.example_value, name)(*values, **kwvalues)
            if is_symbolic(result):  # a symbolic size: computed in the graph
                return tx.output.call(tx, "call_method", name, [self, *args], kwargs)
            if isinstance(result, torch.Size):
                return SizeVariable.of(result)
            return ConstantVariable.create(result)
        result = tx.output.call(tx, "call_method", name, [self, *args], kwargs)
        if isinstance(result, ConstantVariable) and type(result.value) in (bool, int, float):
            # A number read from the FakeTensor (`storage_offset()`, `is_set_to(y)`):
            # storage facts of the fake, not of the tensor; Dynamo breaks there too.
            unimplemented(f"Tensor.{name}() returned a number", gb.TENSOR_METHOD_NUMBER)
        return result

    def numpy(
        self, tx: InstructionTranslatorBase, kwargs: dict[str, VariableTracker]
    ) -> VariableTracker:
        """`t.numpy()`: the ndarray that shares the tensor's memory, in the graph a view
        of it; `t.numpy(force=True)` detaches and moves to the CPU first, as Dynamo's
        method_numpy (so a tensor that requires grad converts). Without force, one that
        requires grad raises, as in eager: the call runs on the fake tensor."""
        from minidynamo.variables.numpy import as_ndarray

        force = kwargs.get("force", ConstantVariable(False))
        if set(kwargs) - {"force"} or not force.is_python_constant():
            return tx.output.call(tx, "call_method", "numpy", [self], kwargs)
        if force.as_python_constant():
            detached = tx.output.call(tx, "call_method", "detach", [self])
            return as_ndarray(tx.output.call(tx, "call_method", "cpu", [detached]))
        if self.example_value.requires_grad:
            return tx.output.call(tx, "call_method", "numpy", [self])
        return as_ndarray(tx.output.call(tx, "call_method", "view_as", [self, self]))

    def requires_grad_(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``t.requires_grad_(flag)`` as Dynamo 2.14 does it: nothing where the flag is set
        already. An input's flag is state of an object the graph does not own: the call
        breaks the graph. On a tensor made in the graph it is a node; where that tensor,
        or one computed from it, is a graph output the translation starts again and
        breaks here instead (`OutputGraph.check_requires_grad`)."""
        flag_arg = args[0] if args else kwargs.get("requires_grad", ConstantVariable(True))
        flag = flag_arg.as_python_constant()
        if self.example_value.requires_grad == flag:
            return self
        if self.source is not None:
            unimplemented("requires_grad_() changes an input's flag", gb.REQUIRES_GRAD_INPUT)
        if tx.output.break_at_requires_grad:
            unimplemented(
                "requires_grad_() of a tensor made in the graph that reaches its outputs",
                gb.REQUIRES_GRAD_OUTPUT,
            )
        # In place: the variable keeps its node (whose example now requires grad), as
        # Dynamo's graph uses the tensor, not the call's result, afterwards.
        tx.output.call(tx, "call_method", "requires_grad_", [self, *args], kwargs)
        if flag:
            tx.output.requires_grad_leaves.add(self.proxy.node)
        return self

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        if self.example_value.dim() == 0:
            unimplemented("iteration over a 0-d tensor")
        with guards_added_here(tx):  # a symbolic first dim is specialized
            length = int(self.example_value.shape[0])
        return [
            tx.output.call(tx, "call_function", operator.getitem, [self, ConstantVariable(i)])
            for i in range(length)
        ]


class DataPtrVariable(VariableTracker):
    """``t.data_ptr()``, as Dynamo's DataPtrVariable: an address that exists only at run
    time. Two are equal where the trace proves one storage (the same tensor, or a
    ``detach()`` of it, not written between the calls); any other comparison, and any
    use of the number, breaks the graph. Left in a local, it is read again after the
    graph (``t.data_ptr()`` of the same tensor)."""

    def __init__(self, tensor: TensorVariable, method: str) -> None:
        super().__init__()
        self.tensor = tensor
        self.method = method
        self.version = tensor.example_value._version

    def __repr__(self) -> str:
        return f"DataPtrVariable({self.tensor!r})"

    def python_type(self) -> type:
        return int

    def storage_root(self) -> torch.fx.Node:
        node = self.tensor.proxy.node
        while node.op == "call_method" and node.target == "detach" and len(node.args) == 1:
            node = node.args[0]  # type: ignore[assignment]
        return node

    def same_storage(self, other: VariableTracker) -> bool:
        if not (isinstance(other, DataPtrVariable) and self.version == other.version):
            unimplemented("data_ptr() compared with another value", gb.DATA_POINTER_COMPARISON)
        if self.storage_root() is not other.storage_root():
            unimplemented("data_ptr() of two tensors compared", gb.DATA_POINTER_COMPARISON)
        return True

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.call_method_of(self.tensor, self.method)


def _is_legacy_tensor_type(arg: VariableTracker) -> bool:
    """`arg` is a constant legacy tensor class (`torch.LongTensor`, of metaclass tensortype)."""
    return arg.is_python_constant() and isinstance(
        arg.as_python_constant(), type(torch.FloatTensor)
    )
