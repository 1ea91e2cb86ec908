"""Symbolic shapes (seed "符号形状 / Symbolic Shapes"): which tensor sizes and ints become
symbols, and when. The VariableBuilder asks a `ShapePolicy` (one per frame compile) for the
FakeTensor of each input tensor and the value of each int input; at the end of the trace the
OutputGraph asks it for the shape guards. `FrameShapeState` is automatic dynamic's memory of
one code object across its compiles. Built on torch's FakeTensorMode and ShapeEnv.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import sympy
import torch
from torch._guards import ChainedSource, Source
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import (
    ConstraintViolationError,
    DimDynamic,
    GuardOnDataDependentSymNode,
    ShapeEnv,
    StatelessSymbolicContext,
    StrictMinMaxConstraint,
    guard_scalar,
)
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.printers import PythonPrinter
from torch.utils._sympy.value_ranges import ValueRanges

from minidynamo import config
from minidynamo import graph_break_registry as gb
from minidynamo.bytecode import create_call_method, create_load_method
from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen

# Where mark_dynamic, maybe_mark_dynamic and mark_static record their dims on a tensor
# (torch uses `_dynamo_dynamic_indices` and friends): sets of dim indices.
DYNAMIC_DIMS = "_minidynamo_dynamic_dims"
WEAK_DYNAMIC_DIMS = "_minidynamo_weak_dynamic_dims"
STATIC_DIMS = "_minidynamo_static_dims"
# The bounds `mark_dynamic(..., min=, max=)` gave: {dim: (min, max)}, either one None.
DYNAMIC_RANGES = "_minidynamo_dynamic_ranges"
# Whether `mark_dynamic` ever marked a tensor: until it has, the check functions skip
# reading each tensor's DYNAMIC_DIMS (an attribute read per tensor per call).
dynamic_marks_made = False
# torch._dynamo.mark_dynamic and friends record their dims under these names: a program
# written for torch.compile marks its tensors that way, so both spellings are read.
_TORCH_MARKS = {
    DYNAMIC_DIMS: "_dynamo_dynamic_indices",
    WEAK_DYNAMIC_DIMS: "_dynamo_weak_dynamic_indices",
    STATIC_DIMS: "_dynamo_static_indices",
}


def marked_dims(t: object, attribute: str) -> set[int] | None:
    """The dims of `t` marked under `attribute` (DYNAMIC_DIMS ...) by minidynamo's or by
    torch._dynamo's marking functions; None where neither marked it."""
    global dynamic_marks_made
    ours = getattr(t, attribute, None)
    theirs = getattr(t, _TORCH_MARKS[attribute], None)
    if theirs is None:
        return ours
    if attribute == DYNAMIC_DIMS:
        dynamic_marks_made = True  # from now on the guards check the marks too
    return set(theirs) if ours is None else ours | set(theirs)


def marked_range(t: torch.Tensor, dim: int) -> tuple[int | None, int | None] | None:
    """The (min, max) bounds that minidynamo's or torch._dynamo's `mark_dynamic` gave dim
    `dim` of `t`; None where it was marked without bounds (or not at all)."""
    bounds = getattr(t, DYNAMIC_RANGES, {}).get(dim)
    if bounds is not None:
        return bounds
    for dim_range in getattr(t, "_dynamo_dynamic_range", ()):
        if dim_range.dim == dim and (dim_range.min is not None or dim_range.max is not None):
            return dim_range.min, dim_range.max
    return None


# Marking dims before the first call (seed: "mark_dynamic ... maybe_mark_dynamic、mark_static").


def _mark(t: torch.Tensor, attribute: str, index: int | Sequence[int]) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"expected a tensor, not {type(t).__name__}")
    if not hasattr(t, attribute):
        setattr(t, attribute, set())
    getattr(t, attribute).update([index] if isinstance(index, int) else index)


def mark_dynamic(
    t: torch.Tensor,
    index: int | Sequence[int],
    *,
    min: int | None = None,  # noqa: A002 (torch._dynamo.mark_dynamic's keyword names)
    max: int | None = None,  # noqa: A002
) -> None:
    """Trace dim(s) `index` of `t` as symbols from the first compile, without duck shaping.
    A trace that specializes one to a constant raises ConstraintViolationError. A dim of
    size 0 or 1 is still specialized, silently (as torch 2.14 does). `min` and `max`
    bound the size (inclusive): the guard checks them (``2 <= L['x'].size()[0] <= 10``),
    and a compile for a size outside them raises ConstraintViolationError."""
    global dynamic_marks_made
    _mark(t, DYNAMIC_DIMS, index)
    ranges = getattr(t, DYNAMIC_RANGES, {})
    for dim in [index] if isinstance(index, int) else index:
        # The last mark of a dim wins, an unbounded one included.
        ranges.pop(dim, None)
        if min is not None or max is not None:
            ranges[dim] = (min, max)
    setattr(t, DYNAMIC_RANGES, ranges)
    dynamic_marks_made = True


def maybe_mark_dynamic(t: torch.Tensor, index: int | Sequence[int]) -> None:
    """Like `mark_dynamic`, but a trace may specialize the dim."""
    _mark(t, WEAK_DYNAMIC_DIMS, index)


def mark_static(t: torch.Tensor, index: int | Sequence[int] | None = None) -> None:
    """Keep dim(s) `index` of `t` (all of them when None) static, even with dynamic=True
    or after they change; `mark_dynamic` of the same dim wins."""
    _mark(t, STATIC_DIMS, range(t.dim()) if index is None else index)


class FrameShapeState:
    """Automatic dynamic's memory of one code object: per source name, the sizes (or int
    value) seen so far, None where two compiles saw different values. Lives as long as the
    code object's cache; a value that varied is traced as a symbol from then on."""

    def __init__(self) -> None:
        # None for the whole tuple: the tensor's rank changed, so every dim is dynamic.
        self.sizes: dict[str, tuple[int | None, ...] | None] = {}
        self.strides: dict[str, tuple[int | None, ...] | None] = {}
        self.ints: dict[str, int | None] = {}

    def merge_sizes(self, name: str, sizes: Sequence[int]) -> tuple[bool, ...]:
        """Record the `sizes` of the tensor at `name`; per dim, whether it has varied.
        A number seen at `name` before makes every dim vary (as in Dynamo's frame state,
        where a scalar's entry has dynamic sizes)."""
        if name in self.ints:
            self.sizes[name] = None
        return _merge(self.sizes, name, tuple(sizes))

    def merge_strides(
        self, name: str, sizes: Sequence[int], strides: Sequence[int]
    ) -> tuple[bool, ...]:
        """Record the strides of the tensor at `name`; per dim, whether it has varied.
        A stride that follows from the next dim (``stride[i] == stride[i+1] * size[i+1]``,
        contiguous there) is recorded as `INFERRED`, so that a change of sizes alone
        does not make strides vary (as Dynamo's InferStride)."""
        pattern = tuple(
            INFERRED if i + 1 < len(strides) and stride == strides[i + 1] * sizes[i + 1] else stride
            for i, stride in enumerate(strides)
        )
        seen = self.strides.get(name)
        if name in self.ints:  # a number was seen there: every stride varies
            self.strides[name] = (None,) * len(pattern)
            return (True,) * len(pattern)
        if seen is None or len(seen) != len(pattern):  # first sight, or another rank
            self.strides[name] = pattern
            return (False,) * len(pattern)
        return _merge(self.strides, name, pattern)

    def merge_int(self, name: str, value: int | float) -> bool:
        """Record the int (or float) `value` at `name`; whether it has varied. After a
        tensor at `name` it has (a tensor's entry has a dynamic scalar, in Dynamo)."""
        if self.ints.setdefault(name, value) != value or name in self.sizes:
            self.ints[name] = None
        return self.ints[name] is None

    def seen_other(self, name: str, value: int | float) -> bool:
        """Whether `merge_int(name, value)` would find that the value has varied."""
        return self.ints.get(name, value) != value or name in self.sizes


# A stride that the next dim's size and stride explain (see `merge_strides`).
INFERRED = -1


def _merge(
    seen_by_name: dict[str, tuple[int | None, ...] | None], name: str, values: tuple[int, ...]
) -> tuple[bool, ...]:
    """Merge `values` into what was seen at `name` (None where they differed); per
    position, whether it has varied."""
    seen = seen_by_name.get(name, values)
    if seen is None or len(seen) != len(values):
        seen_by_name[name] = None
        return (True,) * len(values)
    merged = tuple(old if old == new else None for old, new in zip(seen, values, strict=True))
    seen_by_name[name] = merged
    return tuple(value is None for value in merged)


class _OrderedShapeEnv(ShapeEnv):
    """A ShapeEnv that names its symbols s0, s1 ... in creation order (torch names them
    after a hash of their source), so graphs, guards and logs read like the seed."""

    def _generate_unique_id(self, source_name: str) -> int:
        symbol_id = len(self.unique_ids)
        self.unique_ids.add(symbol_id)
        return symbol_id


@dataclasses.dataclass(frozen=True)
class TensorPropertySource(ChainedSource):
    """``base.size()[idx]``, ``base.stride()[idx]`` or ``base.storage_offset()``: where a
    symbol is read from a call's inputs, in guards and as a graph input (`s0`)."""

    prop: str
    idx: int | None = None

    @property
    def _name_template(self) -> str:
        index = "" if self.idx is None else f"[{self.idx}]"
        return "{0}." + f"{self.prop}(){index}"

    def reconstruct(self, codegen: PyCodegen) -> None:
        self.base.reconstruct(codegen)
        codegen.extend(create_load_method(self.prop))
        codegen.extend(create_call_method(0))
        if self.idx is not None:
            codegen.load_const(self.idx)
            codegen.subscr()


@dataclasses.dataclass(frozen=True)
class SymbolInput:
    """A size symbol that the graph takes as an input, ``s0: torch.SymInt``: `value` is
    its example value in the graph, `hint` the int this compile saw."""

    name: str
    value: torch.SymInt
    hint: int
    source: TensorPropertySource


def _size_constraints(
    value: torch.Tensor, sizes: list[DimDynamic]
) -> list[StrictMinMaxConstraint | None]:
    """Per dim, the bounds a `mark_dynamic(..., min=, max=)` gave it (as Dynamo's builder:
    a StrictMinMaxConstraint, which makes the ShapeEnv raise ConstraintViolationError
    for a size outside them); None for every other dim."""
    constraints: list[StrictMinMaxConstraint | None] = []
    for dim, dynamism in enumerate(sizes):
        bounds = marked_range(value, dim) if dynamism is DimDynamic.DYNAMIC else None
        if bounds is None:
            constraints.append(None)
            continue
        lower, upper = bounds
        vr = ValueRanges(0 if lower is None else lower, int_oo if upper is None else upper)
        constraints.append(StrictMinMaxConstraint(vr=vr, warn_only=False))
    return constraints


def _is_buffer(source: Source) -> bool:
    """`source` reads a module's buffer (``L['m']._buffers['w']``), or a part of one."""
    while isinstance(source, ChainedSource):
        if isinstance(source, AttrSource) and source.member == "_buffers":
            return True
        source = source.base
    return False


def _static_context(base: torch.Tensor | None) -> StatelessSymbolicContext | None:
    """The base of a view input is static: the view's own sizes and strides carry the
    symbols (torch would otherwise give the base fresh symbols of its own)."""
    if base is None:
        return None
    return StatelessSymbolicContext(dynamic_sizes=[DimDynamic.STATIC] * base.dim())


class _GuardPrinter(PythonPrinter):
    """Python text of a sympy expression, each symbol printed as where it is read from."""

    def __init__(self, symbol_text: Callable[[sympy.Symbol], str]) -> None:
        super().__init__()
        self.symbol_text = symbol_text

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        return self.symbol_text(expr)

    def _print_Float(self, expr: sympy.Float) -> str:
        return repr(float(expr))  # `2.5`, where sympy writes `2.5000000000000000`


@dataclasses.dataclass(frozen=True)
class Dynamism:
    """The recompile policy, as one table: what changed between calls, under which knobs
    (Dynamo's config names; `compile(dynamic=)` overrides them) -> what it is in the next
    compile. Each row has its cases in conformance/cases/recompile_policy.py.

    changed                     knobs / options               -> next compile
    a size, an int argument     defaults                      -> constant, then a symbol
        size_default_policy, int_argument_turns_dynamic, module_batch_turns_dynamic
    an int through a closure    defaults                      -> as its argument: a symbol
        closure_int_turns_dynamic, closure_made_per_call_own_frame
    a size or an int            automatic_dynamic_shapes=False -> constant, compiled anew
        size_without_automatic_dynamic, int_without_automatic_dynamic
    a size or an int            assume_static_by_default=False -> symbol from the 1st compile
        size_not_static_by_default, int_not_static_by_default, size_neither_knob
    a size or an int            dynamic=True                  -> symbol from the 1st compile
        dynamic_true_compiles_once
    a size or an int            dynamic=False                 -> constant, compiled anew
        dynamic_false_recompiles_each_value
    an int 0 or 1               defaults                      -> a symbol (sizes 0/1: constants)
        int_zero_and_one_not_specialized
    an int read from a global   any                           -> constant, compiled anew
        global_int_stays_static
    an int attribute of an      defaults                      -> as its argument: a symbol
    argument (L['o'].n; not of an nn.Module)
        argument_attribute_turns_dynamic, guards.attribute_value_changes
    a scalar of a global or     any                           -> no compile where the trace
    a cell that the trace only stores back, returns or adds/multiplies with constants: it
    is guarded on its type (variables/lazy.py); read as a value, as the rows above
        global_counter_incremented, global_counter_returned, closure_counter_incremented,
        global_read_unused, global_counter_in_branch, global_counter_in_tensor_math,
        global_counter_in_long_loop, closure_counter_turns_dynamic
        (an argument is guarded on its value: float_argument_only_returned, a known gap)
    a float (of any source:     defaults                      -> constant, then a SymFloat
    globals and module attributes too; not NaN or infinite)  read from a float64 0-dim
    tensor input, `l_f_.item()`, guarded `not math.isnan(L['f'])`
        float_scalar_turns_dynamic, float_branch_guards_symbolically,
        specialization.round_of_dynamic_float,
        float_nan_stays_constant, guards.float_argument_changes,
        stdlib_values.math_on_dynamic_float
    a float                     specialize_float=True         -> constant, compiled anew
        float_scalar_specialized
    a NumPy scalar argument     any                           -> its 0-dim tensor input: a
    (np.int64, np.float32)      value reused; read as a number (`int(s)`, `s.item()`), a
    symbol from the 1st compile (`wrapped_item(l_s_)`); as a size or a branch
    (`torch.zeros(s)`, `if s > 0:`), a constant guarded on its value
        numpy_arrays.int_of_numpy_integer_input_is_a_symbol,
        numpy_arrays.numpy_integer_scalar_as_a_size
    a bool                      any                           -> constant; entries reused
        bool_flip_flop
    a list's length             any                           -> constant (guarded length)
        list_length_stays_static
    a parameter's size          any, even mark_dynamic        -> constant, compiled anew
        mark_dynamic_on_parameter_ignored
    a module buffer's size      defaults                      -> constant, compiled anew
        module_buffer_size_stays_static
    one tensor twice / two      any                           -> another cache entry
        same_tensor_twice_then_two, aliased_inputs_mutated (guards.add_alias, add_no_aliasing)
    anything, at recompile_limit entries                     -> no compile: the call and
        the frames it calls run uncompiled (convert_frame.past_recompile_limit);
        under fullgraph=True, RecompileLimitExceeded is raised
        limit_callee_runs_uncompiled, limit_under_fullgraph_raises

    A dim marked dynamic is a symbol, one marked static a constant, before the table;
    `Dynamism` holds the rows that depend on the knobs, `ShapePolicy` the others."""

    static_first: bool
    automatic: bool

    @classmethod
    def of(cls, dynamic: bool | None) -> Dynamism:
        if dynamic is True:
            return cls(static_first=False, automatic=config.automatic_dynamic_shapes)
        if dynamic is False:
            return cls(static_first=True, automatic=False)
        return cls(config.assume_static_by_default, config.automatic_dynamic_shapes)

    def symbolic(self, varied: bool) -> bool:
        """Whether a value traced as a constant so far (`varied`: it changed between this
        code's compiles) is a symbol in this compile."""
        return not self.static_first or (self.automatic and varied)


class ShapePolicy:
    """The symbolic shapes policy of one frame compile (seed: static by default, automatic
    dynamic, 0/1 specialization, duck shaping, mark_dynamic, dynamic=True/False).

    `dynamic`: `compile(dynamic=)`, which with the config knobs gives the `Dynamism`.
    `log`: the `dynamic` log channel (symbol creations, guards added), or None.
    `one_graph`: `fullgraph=True`, where data-dependent output sizes are captured."""

    def __init__(
        self,
        frame_state: FrameShapeState,
        *,
        dynamic: bool | None = None,
        log: logging.Logger | None = None,
        one_graph: bool = False,
    ) -> None:
        self.frame_state = frame_state
        self.dynamism = Dynamism.of(dynamic)
        self.log = log
        # An op whose output shape depends on the data (nonzero, x[mask]) raises, and the
        # graph breaks there; under fullgraph=True (`one_graph`) its sizes are unbacked
        # symbols (u0) instead, as Dynamo captures them there (and `.item()`'s scalars).
        self.shape_env = _OrderedShapeEnv(allow_dynamic_output_shape_ops=one_graph)
        self.fake_mode = FakeTensorMode(shape_env=self.shape_env)
        # Each symbol's source: where it first appeared among the inputs.
        self.symbol_sources: dict[sympy.Symbol, Source] = {}
        # Every symbolic size, stride and storage offset of the input tensors, as wrapped.
        self._properties: list[tuple[TensorPropertySource, sympy.Expr]] = []
        self._tensor_symbols: list[sympy.Symbol] = []
        # Each tensor symbol's (lower, upper) bounds when created; upper None: unbounded.
        self._created_ranges: dict[sympy.Symbol, tuple[int, int | None]] = {}
        self._marked_dynamic: list[tuple[Source, sympy.Expr]] = []
        self._new_inputs: list[SymbolInput] = []
        # The symbol of each NumPy scalar input's number, by source name: each read of it
        # (`int(s)`, then `float(s)`) is the same symbol.
        self._scalar_items: dict[str, torch.SymInt | torch.SymFloat] = {}

    # Inputs.

    def wrap_tensor(self, value: torch.Tensor, source: Source) -> torch.Tensor:
        """The FakeTensor that stands for input `value` (read from `source`) in the trace:
        each dim a constant, or a symbol where `_dim_dynamism` says so and its size is not
        0 or 1. New symbols are logged and queued for `new_symbol_inputs`."""
        sizes = self._dim_dynamism(value, source)
        strides = self._stride_dynamism(value, source)
        if all(d is DimDynamic.STATIC for d in sizes) and all(
            d is DimDynamic.INFER_STRIDE for d in strides
        ):
            # No symbol can arise (strides and storage offset follow static sizes): the
            # ShapeEnv's per-dim bookkeeping, a third of a static compile's fakeification,
            # is skipped.
            fake = self.fake_mode.from_tensor(value, source=source, static_shapes=True)
        else:
            context = StatelessSymbolicContext(
                dynamic_sizes=sizes,
                dynamic_strides=strides,
                constraint_sizes=_size_constraints(value, sizes),
                view_base_context=_static_context(value._base),
            )
            fake = self.fake_mode.from_tensor(value, source=source, symbolic_context=context)
        self._record_properties(fake, source)
        marked = marked_dims(value, DYNAMIC_DIMS) or set()
        for dim, size in enumerate(fake.size()):
            prop = TensorPropertySource(source, "size", dim)
            if dim in marked and isinstance(size, torch.SymInt):
                self._marked_dynamic.append((prop, size.node.expr))
            elif dim in marked and marked_range(value, dim) is not None:
                # A size 0 or 1 is specialized. Without bounds, silently; with them (a
                # strict constraint in Dynamo), it violates the mark, as in torch 2.14.
                raise ConstraintViolationError(
                    f"Constraints violated ({prop.name})! It was marked dynamic with "
                    f"bounds, but the trace specialized it to {size} (0/1 specialization)."
                )
        return fake

    def _dim_dynamism(self, value: torch.Tensor, source: Source) -> list[DimDynamic]:
        """Per dim: DYNAMIC (its own symbol) if marked dynamic; else STATIC if marked
        static; else DUCK (a symbol shared by equal sizes) where the `Dynamism` says so;
        else STATIC. Parameters and buffers are always static (Dynamo's
        force_parameter_static_shapes: a module's tensors keep their sizes)."""
        if isinstance(value, torch.nn.Parameter) or _is_buffer(source):
            return [DimDynamic.STATIC] * value.dim()
        varied = self.frame_state.merge_sizes(source.name, value.size())
        marked = (marked_dims(value, DYNAMIC_DIMS) or set()) | (
            marked_dims(value, WEAK_DYNAMIC_DIMS) or set()
        )
        static = marked_dims(value, STATIC_DIMS) or set()
        dims = []
        for dim in range(value.dim()):
            if dim in marked:
                dims.append(DimDynamic.DYNAMIC)
            elif dim in static or not self.dynamism.symbolic(varied[dim]):
                dims.append(DimDynamic.STATIC)
            else:
                dims.append(DimDynamic.DUCK)
        return dims

    def _stride_dynamism(self, value: torch.Tensor, source: Source) -> list[DimDynamic]:
        """Per dim: DYNAMIC once the stride has varied between compiles (automatic
        dynamic, as for sizes: ``x`` then ``x.t()``); else INFER_STRIDE (computed from
        the sizes, or static). Parameters never vary; without automatic dynamic, nor do
        strides."""
        if isinstance(value, torch.nn.Parameter):
            return [DimDynamic.INFER_STRIDE] * value.dim()
        varied = self.frame_state.merge_strides(source.name, value.size(), value.stride())
        automatic = self.dynamism.automatic
        return [DimDynamic.DYNAMIC if v and automatic else DimDynamic.INFER_STRIDE for v in varied]

    def _record_properties(self, fake: torch.Tensor, source: Source) -> None:
        properties = [
            *((TensorPropertySource(source, "size", i), s) for i, s in enumerate(fake.size())),
            *((TensorPropertySource(source, "stride", i), s) for i, s in enumerate(fake.stride())),
            (TensorPropertySource(source, "storage_offset"), fake.storage_offset()),
        ]
        for prop, value in properties:
            if not isinstance(value, torch.SymInt):
                continue
            expr = value.node.expr
            self._properties.append((prop, expr))
            if isinstance(expr, sympy.Symbol) and expr not in self.symbol_sources:
                self.symbol_sources[expr] = prop
                self._tensor_symbols.append(expr)
                bounds = self.shape_env.var_to_range[expr]
                upper = None if bounds.upper == int_oo else int(bounds.upper)
                self._created_ranges[expr] = (int(bounds.lower), upper)
                self._new_inputs.append(SymbolInput(str(expr), value, value.node.hint, prop))
                self._log_created(expr, value.node.hint, prop)

    def new_symbol_inputs(self) -> list[SymbolInput]:
        """The size symbols created since the last call, in creation order: each becomes a
        graph input (``s0: torch.SymInt``) placed before the tensor input it came from."""
        inputs, self._new_inputs = self._new_inputs, []
        return inputs

    def is_symbolic_int(self, value: int, source: Source) -> bool:
        """Whether `wrap_int` would make `value` a symbol now (records nothing)."""
        if isinstance(value, bool):
            return False
        return self.dynamism.symbolic(self.frame_state.seen_other(source.name, value))

    def wrap_int(self, value: int, source: Source) -> int | torch.SymInt:
        """Input `value` (read from `source`) as the trace sees it: the int itself (to be
        guarded as a constant), or, where the `Dynamism` says so, a SymInt that the graph
        takes as an input (``l_n_: torch.SymInt``). Unlike sizes, ints 0 and 1 are not
        specialized; bools never become symbols."""
        if isinstance(value, bool):
            return value
        if not self.dynamism.symbolic(self.frame_state.merge_int(source.name, value)):
            return value
        symint = self.shape_env.create_unspecified_symint_and_symbol(
            value, source, DimDynamic.DYNAMIC
        )
        symbol = symint.node.expr
        self.symbol_sources[symbol] = source
        self._log_created(symbol, value, source)
        return symint

    def is_symbolic_float(self, value: float, source: Source) -> bool:
        """Whether `wrap_float` would make `value` a symbol now (records nothing)."""
        varied = self.frame_state.seen_other(source.name, value)
        return _unspecialized(value) and self.dynamism.symbolic(varied)

    def wrap_float(self, value: float, source: Source) -> float | torch.SymFloat:
        """Float input `value` (read from `source`) as the trace sees it: the float itself
        (to be guarded as a constant), or, without `config.specialize_float` and where the
        `Dynamism` says so (as for ints: once it changed), a SymFloat that the graph reads
        from a float64 0-dim tensor input (``l_f_.item()``). NaN and infinities stay
        constants. Floats of any source may vary, as in Dynamo (globals, defaults, module
        attributes: there ints stay constants)."""
        varied = self.frame_state.merge_int(source.name, value)
        if not (_unspecialized(value) and self.dynamism.symbolic(varied)):
            return value
        symbol = self.shape_env.create_unspecified_symbol(value, source, DimDynamic.DYNAMIC)
        symfloat = self.shape_env.create_symfloatnode(symbol, hint=value, source=source)
        self.symbol_sources[symbol] = source
        self._log_created(symbol, value, source)
        return symfloat

    def wrap_numpy_scalar_item(
        self, value: int | float, source: Source
    ) -> torch.SymInt | torch.SymFloat:
        """The number a NumPy scalar input holds (read by `int(s)`, `s.item()`): a symbol
        from the first compile, whatever the knobs, as in Dynamo: the scalar is a 0-dim
        tensor input, so its value is data, not a constant of the graph."""
        if source.name in self._scalar_items:
            return self._scalar_items[source.name]
        if isinstance(value, int):
            number = self.shape_env.create_unspecified_symint_and_symbol(
                value, source, DimDynamic.DYNAMIC
            )
        else:
            symbol = self.shape_env.create_unspecified_symbol(value, source, DimDynamic.DYNAMIC)
            number = self.shape_env.create_symfloatnode(symbol, hint=value, source=source)
        self.symbol_sources[number.node.expr] = source
        self._log_created(number.node.expr, value, source)
        self._scalar_items[source.name] = number
        return number

    # Tracing.

    def evaluate(self, value: Any, where: str) -> bool | int | float:
        """The Python value of a SymBool, SymInt or SymFloat (a plain value is returned as
        is), guarding on it: ``if a.shape[0] * 2 < 16`` adds ``2*s0 >= 16`` when s0 is 8."""
        with self.guards_added_at(where):
            try:
                return guard_scalar(value)
            except GuardOnDataDependentSymNode:
                # A captured `.item()` (u0) has no value to branch on while tracing.
                unimplemented(f"data-dependent control flow on {value}", gb.DATA_DEPENDENT_BRANCH)

    @contextlib.contextmanager
    def guards_added_at(self, where: str) -> Iterator[None]:
        """Log each guard that the body adds (running fake ops can add some too), as
        ``eval 2*s0 >= 16 [guard added] at script.py:5 in fn``."""
        first = len(self.shape_env.guards)
        yield
        for guard in self.shape_env.guards[first:]:
            self._log("eval %s [guard added] at %s", guard.expr, where)

    # Guards.

    def produce_guards(self) -> list[str]:
        """The shape guards of this compile, as Python text over the frame's `L` and `G`:
        sizes and strides equal to other inputs' (duck shaping: ``L['b'].size()[0] ==
        L['a'].size()[0]``), ``2 <= L['a'].size()[0]`` for each size symbol (0/1
        specialization), then the guards the trace added (``2*L['a'].size()[0] >= 16``).
        Raises ConstraintViolationError if the trace specialized a dim marked dynamic."""
        self._check_marked_dynamic()
        texts = [
            f"{prop.name} == {self.format_expr(expr)}"
            for prop, expr in self._properties
            if self.symbol_sources.get(expr) != prop
        ]
        texts += [self._range_guard(symbol) for symbol in self._tensor_symbols]
        texts += [self.format_expr(guard.expr) for guard in self.shape_env.guards]
        return list(dict.fromkeys(texts))

    def _range_guard(self, symbol: sympy.Symbol) -> str:
        """``2 <= L['a'].size()[0]``, the bounds of `symbol` when it was created: 2 (0/1
        specialization) or a `mark_dynamic` min above it, and a `mark_dynamic` max."""
        lower, upper = self._created_ranges[symbol]
        text = f"{lower} <= {self.symbol_sources[symbol].name}"
        return text if upper is None else f"{text} <= {upper}"

    def format_expr(self, expr: sympy.Expr) -> str:
        """`expr` as Python text with sources for symbols: ``2*L['a'].size()[0] >= 16``."""
        return _GuardPrinter(self._symbol_text).doprint(expr)

    def _symbol_text(self, symbol: sympy.Symbol) -> str:
        source = self.symbol_sources.get(symbol)
        if source is None:  # a symbol of a view's base, which torch fakifies with the view
            source = self.shape_env.var_to_sources[symbol][0]
        return source.name

    def _check_marked_dynamic(self) -> None:
        for source, symbol in self._marked_dynamic:
            value = self.shape_env.replace(symbol)
            if value.is_number:
                raise ConstraintViolationError(
                    f"Constraints violated ({source.name})! It was marked dynamic with "
                    f"mark_dynamic, but the trace specialized it to {value} "
                    "(maybe_mark_dynamic allows that)."
                )

    # The `dynamic` log channel.

    def _log_created(self, symbol: sympy.Symbol, hint: int, source: Source) -> None:
        bounds = self.shape_env.var_to_range[symbol]
        self._log(
            "create_symbol %s = %s for %s [%s, %s]",
            symbol,
            hint,
            source.name,
            bounds.lower,
            bounds.upper,
        )

    def _log(self, message: str, *args: object) -> None:
        if self.log is not None:
            self.log.debug(message, *args)


def _unspecialized(value: float) -> bool:
    """Whether a float may be a symbol: not under `config.specialize_float`, and finite
    (the ShapeEnv cannot reason about NaN or infinities)."""
    return not config.specialize_float and math.isfinite(value)


def tensor_guard_sizes(fake: torch.Tensor) -> tuple[list[int | None], list[int | None]]:
    """The `size` and `stride` lists of an input's `check_tensor` guard: None where
    symbolic (the shape guards check those), e.g. ``size=[None, 3], stride=[3, 1]``."""

    def static(values: Iterable[int | torch.SymInt]) -> list[int | None]:
        return [None if isinstance(v, torch.SymInt) else v for v in values]

    return static(fake.size()), static(fake.stride())


def sizes_match(expected: Sequence[int | None], actual: Sequence[int]) -> bool:
    """Whether `actual` fits a `tensor_guard_sizes` list (None matches any value)."""
    return len(expected) == len(actual) and all(
        e is None or e == a for e, a in zip(expected, actual, strict=True)
    )


def compile_guards(texts: Sequence[str]) -> Callable[[dict, dict], bool]:
    """One function ``check(L, G)``: whether every guard in `texts` holds for a call's
    locals `L` and globals `G`."""
    body = " and ".join(f"({text})" for text in texts) or "True"
    return eval(f"lambda L, G: {body}", {"math": math, "torch": torch})


def format_graph_sizes(name: str, values: Iterable[tuple[str, Any]]) -> str:
    """The `graph_sizes` log of graph `name` from its nodes' (name, example value): each
    tensor's size, then its concrete size if symbolic (``l_a_: (s0, 3)``,
    ``l_a_ (concrete): (8, 3)``)."""
    lines = ["TRACED GRAPH TENSOR SIZES", f"===== {name} ====="]
    for node_name, value in values:
        if not isinstance(value, torch.Tensor):
            continue
        size = tuple(value.size())
        lines.append(f"{node_name}: {size}")
        if any(isinstance(s, torch.SymInt) for s in size):
            concrete = tuple(s.node.hint if isinstance(s, torch.SymInt) else s for s in size)
            lines.append(f"{node_name} (concrete): {concrete}")
    return "\n".join(lines)
