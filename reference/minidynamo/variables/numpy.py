"""NumPy in the graph, as Dynamo traces it: through torch._numpy, NumPy's API on tensors.

An ndarray is a `NumpyNdarrayVariable`: a tensor in the graph (an ndarray argument is
the graph input ``torch.from_numpy(a)``, guarded as a tensor) that behaves as an
ndarray. A NumPy function (`NumpyVariable`), an ndarray method, attribute or operator
becomes a graph node whose target is one of the wrappers below: it calls torch._numpy's
version on the tensors and hands tensors back (`wrapped_sin(l_a_)`). After the graph an
ndarray result is made a real ndarray again (`to_numpy`). `Tensor.numpy()` and
`torch.from_numpy` convert inside the graph. A NumPy function that torch._numpy lacks,
or `np.random` (its values must be NumPy's), breaks the graph.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch._numpy as tnp
from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.lists import TupleVariable
from minidynamo.variables.symnode import SymNodeVariable, is_symbolic
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

# --- What the graph runs: torch._numpy on tensors, tensors out. ---


def to_tensor(value: Any) -> Any:
    """torch._numpy's ndarrays (in lists and tuples too) as the tensors they wrap."""
    if isinstance(value, tnp.ndarray):
        return value.tensor
    if isinstance(value, (tuple, list)):
        return type(value)(to_tensor(item) for item in value)
    return value


def to_numpy(value: torch.Tensor) -> np.ndarray:
    """A graph output that the program sees as an ndarray (run after the graph)."""
    return value.numpy(force=True)


def to_numpy_scalar(value: torch.Tensor) -> np.generic:
    """A 0-dim graph output that the program sees as a NumPy scalar (`s * 2`)."""
    return value.numpy(force=True)[()]


class NumpyFunctionWrapper:
    """``np.<fn>(...)`` in the graph: torch._numpy's `fn` (it takes tensors as arrays)."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.__name__ = f"wrapped_{fn.__name__}"

    def __repr__(self) -> str:
        return f"<NumPy function {self.fn.__name__} on tensors>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return to_tensor(self.fn(*args, **kwargs))


class NumpyMethodWrapper:
    """``a.<name>(...)`` of an ndarray in the graph."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = f"wrapped_{name}"

    def __repr__(self) -> str:
        return f"<ndarray method {self.name} on tensors>"

    def __call__(self, obj: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        return to_tensor(getattr(tnp.ndarray(obj), self.name)(*args, **kwargs))


class NumpyOperatorWrapper:
    """An operator (`a + 1`, `a += b`, `a > 0`) with NumPy's semantics in the graph."""

    def __init__(self, op: Callable) -> None:
        self.op = op
        self.__name__ = f"wrapped_{op.__name__}"

    def __repr__(self) -> str:
        return f"<ndarray operator {self.op.__name__} on tensors>"

    def __call__(self, *args: Any) -> Any:
        arrays = [tnp.ndarray(a) if isinstance(a, torch.Tensor) else a for a in args]
        return to_tensor(self.op(*arrays))


def numpy_attr_wrapper(obj: torch.Tensor, name: str) -> Any:
    """``a.<name>`` of an ndarray in the graph (`a.T`, `a.real`)."""
    return to_tensor(getattr(tnp.ndarray(obj), name))


# One wrapper per function, method and operator: the graph refers to one object each.
function_wrapper = functools.cache(NumpyFunctionWrapper)
method_wrapper = functools.cache(NumpyMethodWrapper)
operator_wrapper = functools.cache(NumpyOperatorWrapper)

# --- Tracing. ---

# Read from the example value: fixed by the tensor guard of the input.
_STATIC_ATTRIBUTES = frozenset({"ndim", "itemsize", "shape", "size", "nbytes"})
# Not modelled by torch._numpy as Dynamo traces it (it breaks on them too).
_UNSUPPORTED_ATTRIBUTES = frozenset({"dtype", "base", "flags", "__version__", "strides", "ctypes"})
# Methods whose result is a Python value that depends on the data, or bytes.
_DATA_DEPENDENT_METHODS = frozenset(
    {"item", "tolist", "tobytes", "tostring", "__bool__", "__int__", "__float__", "__index__"}
)
_INPLACE_OPERATORS = frozenset(
    {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
     operator.imod, operator.ipow, operator.imatmul, operator.iand, operator.ior,
     operator.ixor, operator.ilshift, operator.irshift}
)  # fmt: skip
# A NumPy scalar is immutable: `s += 1` binds a new scalar, `s + 1`.
_OUT_OF_PLACE = {
    fn: getattr(operator, f"__{fn.__name__[1:]}__") for fn in _INPLACE_OPERATORS
}  # fmt: skip
# A number of each kind, standing for a NumPy scalar in torch's type promotion.
_NUMBER_OF_KIND = {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}


def is_ndarray(vt: VariableTracker) -> bool:
    return isinstance(vt, NumpyNdarrayVariable)


def is_numpy_scalar(vt: VariableTracker) -> bool:
    return isinstance(vt, NumpyNdarrayVariable) and vt.scalar_type is not None


def is_numpy_scalar_input(vt: VariableTracker) -> bool:
    """A NumPy integer or finite floating scalar input, whose `item()` is a symbol (a
    NaN or infinity stays its guarded value, as a Python float's)."""
    return (
        isinstance(vt, NumpyNdarrayVariable)
        and vt.source is not None
        and isinstance(vt.scalar, (np.integer, np.floating))
        and bool(np.isfinite(vt.scalar))
    )


def is_scalar_operand(vt: VariableTracker) -> bool:
    """A NumPy scalar, or a number: operands of which NumPy's result is a scalar."""
    return is_numpy_scalar(vt) or not isinstance(vt, TensorVariable)


def is_known_scalar(vt: VariableTracker) -> bool:
    """A NumPy scalar whose value the trace knows (an input, or computed from inputs and
    constants), to be guarded where it is used as a number."""
    return isinstance(vt, NumpyNdarrayVariable) and vt.scalar is not None


def specialize(vt: VariableTracker, tx: InstructionTranslatorBase) -> VariableTracker:
    """A known NumPy scalar as its guarded constant; any other value as it is (a scalar
    computed from an array stays its 0-dim tensor)."""
    return vt.specialize(tx) if is_known_scalar(vt) else vt  # type: ignore[attr-defined]


def known_scalar_result(
    fn: Callable, args: list[VariableTracker], kwargs: dict[str, VariableTracker] | None = None
) -> tuple[np.generic, Callable[[], None]] | None:
    """The value NumPy computes for `fn` on known scalars and numbers, and how to guard
    the scalars it came from; None where an operand is not known."""
    if kwargs or not all(
        is_known_scalar(arg) or (is_number(arg) and arg.is_python_constant()) for arg in args
    ):  # a symbolic number (`np.sqrt(n)` of a dynamic int) is computed by the graph
        return None
    known = [arg for arg in args if is_known_scalar(arg)]
    values = [
        arg.scalar if is_known_scalar(arg) else arg.as_python_constant()  # type: ignore[attr-defined]
        for arg in args
    ]
    try:
        with np.errstate(all="ignore"):  # warned once, by the program's own run
            value = fn(*values)
    except Exception:  # NumPy raises: the graph's run will raise it too
        return None
    if not isinstance(value, np.generic):
        return None

    def guard_value() -> None:
        for arg in known:
            arg.guard_value()  # type: ignore[attr-defined]

    return value, guard_value


def specialize_arguments(
    tx: InstructionTranslatorBase,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> tuple[list[VariableTracker], dict[str, VariableTracker]]:
    """The arguments of a torch function or tensor method, which takes a NumPy scalar
    as a number (`x.sum(dim=n)`, `torch.zeros(n)`): each one its guarded constant."""
    return (
        [specialize(arg, tx) for arg in args],
        {key: specialize(arg, tx) for key, arg in kwargs.items()},
    )


def is_number(vt: VariableTracker) -> bool:
    """A NumPy scalar, a number or a symbolic one: what NumPy's operators compute on."""
    if is_numpy_scalar(vt) or isinstance(vt, SymNodeVariable):
        return True
    return vt.is_python_constant() and isinstance(vt.as_python_constant(), (int, float, complex))


def is_torch_tensor(vt: VariableTracker) -> bool:
    return isinstance(vt, TensorVariable) and not is_ndarray(vt)


def call_torch_operator_with_scalar(
    tx: InstructionTranslatorBase, fn: Callable, args: list[VariableTracker]
) -> VariableTracker:
    """`x * s` (or `s * x`) of a tensor and a NumPy scalar: torch's operator, which takes
    the scalar as a Python number (NumPy's defers to it). The scalar is the graph's 0-dim
    tensor; where that would promote otherwise than a number does (an int tensor times a
    float: float32, not float64), it is first cast to the dtype eager computes in (Dynamo
    2.14 does not, and differs from eager there). `s += x` binds `s + x`."""
    if is_numpy_scalar(args[0]):
        fn = _OUT_OF_PLACE.get(fn, fn)
    tensor = next(arg for arg in args if is_torch_tensor(arg))
    operands = []
    for arg in args:
        if is_numpy_scalar(arg):
            number = _NUMBER_OF_KIND[np.dtype(arg.scalar_type).kind]  # type: ignore[attr-defined]
            dtype = torch.result_type(tensor.example_value, number)
            if torch.result_type(tensor.example_value, arg.example_value) != dtype:
                arg = tx.output.call(tx, "call_method", "to", [arg, ConstantVariable(dtype)])
        operands.append(arg)
    return tx.output.call(tx, "call_function", fn, operands)


def as_ndarray(
    vt: VariableTracker,
    *,
    scalar: bool = False,
    known: tuple[np.generic, Callable[[], None]] | None = None,
) -> VariableTracker:
    """A graph value the program sees as an ndarray: tensors become ndarrays (in tuples
    and lists too, e.g. `np.histogram`'s pair); numbers and None stay as they are.
    `scalar`: a 0-dim result is a NumPy scalar (of an operator or ufunc on scalars), of
    value `known` (with its guard) where NumPy computed the same type."""
    if isinstance(vt, NumpyNdarrayVariable) or not isinstance(vt, (TensorVariable, TupleVariable)):
        return vt
    if isinstance(vt, TupleVariable):
        return TupleVariable([as_ndarray(item) for item in vt.items])
    if not scalar or vt.example_value.dim() != 0:
        return NumpyNdarrayVariable(vt.proxy, vt.example_value)
    scalar_type = type(to_numpy_scalar(torch.empty((), dtype=vt.example_value.dtype)))
    value, guard_value = known if known and type(known[0]) is scalar_type else (None, None)
    return NumpyNdarrayVariable(
        vt.proxy, vt.example_value, scalar=value, scalar_type=scalar_type, guard_value=guard_value
    )


def call_numpy(
    tx: InstructionTranslatorBase,
    target: Callable,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker] | None = None,
    *,
    scalar: bool = False,
    known: tuple[np.generic, Callable[[], None]] | None = None,
) -> VariableTracker:
    """A graph node calling `target` (one of the wrappers); its result as ndarrays (a
    0-dim one as a NumPy scalar where `scalar`, of value `known`)."""
    for arg in [*args, *(kwargs or {}).values()]:
        if isinstance(arg, TensorVariable) and not isinstance(arg, NumpyNdarrayVariable):
            unimplemented("a NumPy operation on a torch.Tensor")
    result = tx.output.call(tx, "call_function", target, args, kwargs)
    return as_ndarray(result, scalar=scalar, known=known)


def typed_scalar_operand(tx: InstructionTranslatorBase, vt: VariableTracker) -> VariableTracker:
    """A NumPy scalar constant operand of an array operation (`a + np.float64(1.0)`):
    the graph's 0-dim array of its type (``wrapped_float64(1.0)``), as Dynamo records it.
    The bare number would promote as a Python number does, weakly (NEP 50): a float32
    array plus np.float64 is float64 in NumPy. Any other operand stays as it is."""
    if not (isinstance(vt, ConstantVariable) and isinstance(vt.value, np.generic)):
        return vt
    value = vt.value
    counterpart = trace_rules.torch_numpy_counterpart(type(value))
    if counterpart is None:
        return vt
    result = tx.output.call(tx, "call_function", function_wrapper(counterpart), [vt])
    return NumpyNdarrayVariable(
        result.proxy, result.example_value, scalar=value, guard_value=lambda: None
    )


def call_numpy_operator(
    tx: InstructionTranslatorBase, fn: Callable, args: list[VariableTracker]
) -> VariableTracker:
    """An `operator` function with an ndarray operand. An in-place one (`a += 1`)
    writes into the ndarray's tensor and gives back the same ndarray, as NumPy does."""
    if any(is_torch_tensor(arg) for arg in args) and any(is_numpy_scalar(arg) for arg in args):
        return call_torch_operator_with_scalar(tx, fn, args)
    if is_torch_tensor(args[0]):
        # `x + a` of a tensor: torch's operator, which takes the ndarray as a tensor.
        return tx.output.call(tx, "call_function", fn, args)
    if not any(isinstance(arg, TensorVariable) and not is_numpy_scalar(arg) for arg in args) and (
        not all(is_number(arg) for arg in args)
    ):  # `items[n]`, `"ab" * n`: Python's operator on the scalar input's number
        from minidynamo.variables.operators import call_operator

        return call_operator(tx, fn, [specialize(arg, tx) for arg in args])
    if fn is operator.setitem:
        return args[0].call_method(tx, "__setitem__", args[1:], {})
    if fn is operator.delitem:
        unimplemented("del of ndarray items")
    if is_numpy_scalar(args[0]):
        fn = _OUT_OF_PLACE.get(fn, fn)
    args = [typed_scalar_operand(tx, arg) for arg in args]
    scalar = all(is_scalar_operand(arg) for arg in args)
    known = known_scalar_result(fn, args) if scalar else None
    result = call_numpy(tx, operator_wrapper(fn), args, scalar=scalar, known=known)
    if fn in _INPLACE_OPERATORS and isinstance(args[0], NumpyNdarrayVariable):
        return args[0]
    return result


class NumpyNdarrayVariable(TensorVariable):
    """An np.ndarray, held in the graph as the tensor it wraps (torch._numpy's view); or
    a NumPy scalar (`scalar_type`), held as a 0-dim one: an input, or the result of an
    operator or ufunc on scalars. `scalar` is its value where the trace knows it (of an
    input, and what NumPy computes from inputs and numbers), `guard_value` what guards
    the inputs' values where the program uses it as a number."""

    def __init__(
        self,
        proxy: torch.fx.Proxy,
        example_value: torch.Tensor,
        *,
        source: Source | None = None,
        scalar: np.generic | None = None,
        scalar_type: type | None = None,
        guard_value: Callable[[], None] | None = None,
    ) -> None:
        # `source` is the ndarray's own (``L['a']``); the graph input's is
        # ``___from_numpy(L['a'])``.
        super().__init__(proxy, example_value, source=source)
        self.scalar = scalar
        self.scalar_type = type(scalar) if scalar is not None else scalar_type
        self.guard_value = guard_value

    def __repr__(self) -> str:
        return f"NumpyNdarrayVariable({list(self.example_value.shape)})"

    def python_type(self) -> type:
        return self.scalar_type or np.ndarray

    def as_python_constant(self) -> Any:
        """A known NumPy scalar's value, guarded, where the program needs the number
        (`x[:n]`, `math.log(s)`, `f"{s}"`); an array is no constant."""
        if self.scalar is None or self.guard_value is None:
            return super().as_python_constant()
        self.guard_value()
        return self.scalar

    def specialize(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """A known NumPy scalar as the constant it is, guarded on its value: where torch
        takes it as a Python number (`torch.zeros(n)`), which a 0-dim array is not."""
        if self.scalar is None:
            unimplemented("a NumPy scalar computed from an array, taken as a number")
        return ConstantVariable(self.as_python_constant())

    def truth(self, tx: InstructionTranslatorBase) -> bool:
        # `if flag:`, `if s > 0:` of a known NumPy scalar: its value, guarded.
        if self.scalar is not None:
            return self.specialize(tx).truth(tx)
        return super().truth(tx)

    def is_new_object(self) -> bool:
        # An array the graph made is one ndarray object however often it is rebuilt.
        return self.source is None

    def reconstruct(self, codegen: PyCodegen) -> None:
        # An input is reloaded from the frame; a computed array is made from its tensor.
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        if self.scalar_type is None:
            codegen.load_installed("___to_numpy", to_numpy, push_null=True)
        else:
            codegen.load_installed("___to_numpy_scalar", to_numpy_scalar, push_null=True)
        codegen.load_graph_output(self.proxy.node)
        codegen.call(1)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.misc import GetAttrVariable

        if name in _UNSUPPORTED_ATTRIBUTES:
            unimplemented(f"ndarray attribute {name!r}", gb.NUMPY_ATTRIBUTE)
        if name in _STATIC_ATTRIBUTES:
            value = getattr(tnp.ndarray(self.example_value), name)
            if not is_symbolic(value):
                return ConstantVariable.create(value)
        elif callable(getattr(tnp.ndarray, name, None)):
            return GetAttrVariable(self, name)
        elif not hasattr(tnp.ndarray, name):
            unimplemented(f"ndarray attribute {name!r}", gb.NUMPY_ATTRIBUTE)
        return call_numpy(tx, numpy_attr_wrapper, [self, ConstantVariable(name)])

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        return hasattr(np.ndarray, name)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        unimplemented(f"assignment to ndarray attribute {name!r}")

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if name == "item" and not args and not kwargs:
            item = self.item(tx)
            if item is not None:
                return item
        if name in _DATA_DEPENDENT_METHODS and self.scalar is not None:
            # `s.item()` of a known NumPy scalar: its value, guarded.
            return self.specialize(tx).call_method(tx, name, args, kwargs)
        if name in _DATA_DEPENDENT_METHODS:
            unimplemented(f"data-dependent ndarray method {name}()", gb.DATA_DEPENDENT_METHOD)
        if name == "__len__":
            return super().call_method(tx, name, args, kwargs)
        if name == "astype" and any(
            arg.is_python_constant() and arg.as_python_constant() in ("O", object)
            for arg in [*args, *kwargs.values()]
        ):
            unimplemented("ndarray.astype(object): torch has no object dtype")
        if name == "clip":  # NumPy's keyword names, torch._numpy's
            renamed = {"a_min": "min", "a_max": "max"}
            kwargs = {renamed.get(key, key): value for key, value in kwargs.items()}
        return call_numpy(tx, method_wrapper(name), [self, *args], kwargs)

    def item(self, tx: InstructionTranslatorBase) -> VariableTracker | None:
        """``a.item()`` (and `int(a)`, `float(a)`) in the graph, ``wrapped_item(l_a_)``, as
        Dynamo: of a NumPy scalar input, a symbol from the first compile (a new value
        reuses the graph); of a computed array under fullgraph, a captured scalar output
        (an unbacked symbol, as `Tensor.item()`). None: the caller's rules (a known
        bool or complex scalar is its guarded value; elsewhere a break)."""
        if is_numpy_scalar_input(self):
            number = tx.output.shapes.wrap_numpy_scalar_item(self.scalar.item(), self.source)
            proxy = tx.output.create_proxy(
                tx, "call_function", method_wrapper("item"), (self.as_proxy(),), {}, example=number
            )
            return SymNodeVariable(tx, proxy, number)
        if self.scalar is None and tx.output.one_graph:
            return tx.output.call(tx, "call_function", method_wrapper("item"), [self])
        return None

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return [as_ndarray(row) for row in super().unpack_var_sequence(tx)]


class NumpyVariable(VariableTracker):
    """A function or type of NumPy's namespace (`np.sin`, `np.float32`): a call is a
    graph node calling torch._numpy's version; a type passed to one is its name."""

    def __init__(self, value: Any, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return f"NumpyVariable({getattr(self.value, '__name__', self.value)})"

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        return self.value

    def as_proxy(self) -> Any:
        # torch._numpy takes dtypes by name; the graph keeps no NumPy object.
        if isinstance(self.value, type):
            return self.value.__name__
        return super().as_proxy()

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.variables.constant import fold

        if isinstance(self.value, type) and all(
            arg.is_python_constant() for arg in [*args, *kwargs.values()]
        ):  # `np.float32(2.0)`: a NumPy scalar constant
            values = [arg.as_python_constant() for arg in args]
            return fold(self.value, values, {k: v.as_python_constant() for k, v in kwargs.items()})
        counterpart = trace_rules.torch_numpy_counterpart(self.value)
        if counterpart is None:
            name = getattr(self.value, "__name__", repr(self.value))
            unimplemented(f"NumPy function {name} is not traced", gb.NUMPY_FUNCTION)
        if isinstance(self.value, np.ufunc) and any(is_ndarray(arg) for arg in args):
            args = [typed_scalar_operand(tx, arg) for arg in args]
        # A ufunc of scalars (`np.exp(s)`) is a scalar, as an operator's is; so is a
        # scalar type's conversion of a 0-dim array (`np.float32(a.sum())`).
        scalar = isinstance(self.value, type) or (
            isinstance(self.value, np.ufunc)
            and all(is_scalar_operand(arg) for arg in [*args, *kwargs.values()])
        )
        known = known_scalar_result(self.value, args, kwargs) if scalar else None
        return call_numpy(
            tx, function_wrapper(counterpart), args, kwargs, scalar=scalar, known=known
        )
