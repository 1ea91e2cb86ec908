"""What a call met during a trace becomes, and which frames are converted at all (the
role of Dynamo's skipfiles and trace rules). Tables and predicates only: the builder and
the VariableTrackers consult them; nothing here imports the tracer.

For a callable, the most specific rule wins (`lookup`): a row for the callable itself
(`POLYFILLS`, `TRACE_TIME_RESULTS`, `CONSTANT_FOLD_FUNCTIONS`), then its module
(`INLINE_MODULES`, then the torch namespace: in graph), then its file (user code is
inlined, other library code is skipped: a graph break). Frames of library code (our
package, torch, the standard library, generated code) are never converted themselves.
Third-party packages (transformers, torchvision) are user code, except a few (numpy ...).
"""

from __future__ import annotations

import collections
import copy
import copyreg
import dataclasses
import enum
import functools
import inspect
import itertools
import math
import operator
import os
import re
import sys
import sysconfig
import types
import typing
import weakref
from collections.abc import Callable

import numpy as np
import torch
import torch._functorch.apis
import torch._functorch.eager_transforms
import torch._functorch.predispatch
import torch._numpy as tnp
import torch.backends.cuda
import torch.distributed
import torch.fx._symbolic_trace
import torch.onnx
import torch.utils.checkpoint
import torch.utils.hooks

import minidynamo
from minidynamo import decorators
from minidynamo import graph_break_registry as gb
from minidynamo.polyfills import builtins as builtins_polyfills
from minidynamo.polyfills import copy as copy_polyfills
from minidynamo.polyfills import foreach as foreach_polyfills
from minidynamo.polyfills import functools as functools_polyfills
from minidynamo.polyfills import itertools as itertools_polyfills
from minidynamo.polyfills import operator as operator_polyfills
from minidynamo.polyfills import stdlib as stdlib_polyfills


class Rule(enum.Enum):
    """What calling a library callable during a trace does (DESIGN.md "What is traced")."""

    IN_GRAPH = "in graph"  # a graph node (TorchInGraphFunctionVariable)
    CONSTANT_FOLD = "constant-fold"  # evaluated now, its result a constant
    INLINE = "inline"  # its Python code traced like user code
    POLYFILL = "polyfill"  # our plain-Python version of it inlined instead
    SKIP = "skip"  # not traced: a graph break


# (2) Constant-fold. Queries whose answer inside a compiled region is fixed: what the
# tracer answers while tracing, as Dynamo (`is_compiling` is True in compiled code).
TRACE_TIME_RESULTS: dict[Callable, object] = {
    decorators.is_compiling: True,
    torch.compiler.is_compiling: True,
    torch.compiler.is_dynamo_compiling: True,
    torch.jit.is_scripting: False,
    torch.jit.is_tracing: False,
    torch._utils.is_compiling: True,
    torch.fx._symbolic_trace.is_fx_tracing: False,
    torch.fx._symbolic_trace.is_fx_symbolic_tracing: False,
    # As Dynamo answers: nn.MultiheadAttention then takes its composite path (the ops a
    # backend can see) instead of the fused fast-path kernel.
    torch.nn.modules.activation._is_make_fx_tracing: True,
    torch.onnx.is_in_onnx_export: False,
    torch.compiler.is_exporting: False,
    # No user dispatch mode is active in the graph (the fake mode is the tracer's own).
    torch.utils._python_dispatch._get_current_dispatch_mode_stack: [],
    torch._C._get_tracing_state: None,
    torch._C._is_tracing: False,  # nn.Module._call_impl asks it on torch 2.15
}

# In graph without tensor arguments: torch functions called for their effect, which the
# graph repeats on every call as Dynamo's does (API usage logging).
EFFECT_NODES: frozenset[Callable] = frozenset({torch._C._log_api_usage_once})

# Functions that make a class from constants (`namedtuple("P", "a b")` in the traced
# function): called now; the class is then traced like any user class.
CLASS_FACTORIES: frozenset[Callable] = frozenset({collections.namedtuple})

# Of those, the queries of process-wide settings: their answer is guarded (Dynamo's
# global state guard), as the frame may be entered again with another.
GLOBAL_STATE_QUERIES: frozenset[Callable] = frozenset(
    {torch.get_default_dtype, torch.are_deterministic_algorithms_enabled}
)

# torch's functions on numbers that may be symbolic (`torch.sym_max(x.shape[0], 2)`):
# a node of the graph where an argument is a SymNode, as Dynamo records them;
# evaluated now on constants.
SYMBOLIC_NUMBER_FUNCTIONS: frozenset[Callable] = frozenset(
    {
        torch.sym_max,
        torch.sym_min,
        torch.sym_float,
        torch.sym_int,
        torch.sym_not,
        torch.sym_ite,
        torch.sym_sum,
    }
)

# Side-effect-free functions called now on the constants and example values (tensor
# metadata, dtypes, devices, the process's configuration).
CONSTANT_FOLD_FUNCTIONS: frozenset[Callable] = frozenset(
    {
        torch.is_tensor,
        torch.is_floating_point,
        torch.is_complex,
        torch.numel,
        torch.get_default_dtype,
        torch.is_grad_enabled,
        torch.is_inference_mode_enabled,
        torch.is_autocast_enabled,
        torch.is_autocast_cpu_enabled,
        torch.is_autocast_cache_enabled,
        torch._C._is_any_autocast_enabled,
        torch._C._is_autocast_available,  # what torch.amp.is_autocast_available asks
        torch.get_autocast_dtype,
        torch.accelerator.is_available,
        torch.backends.mps.is_built,
        torch.mps.is_available,
        torch.are_deterministic_algorithms_enabled,
        # torch.func's state, which its traced transforms switch at trace time too
        torch._C._functorch.get_inplace_requires_grad_allowed,
        torch._C._is_fwd_grad_enabled,
        torch._C._autograd._saved_tensors_hooks_get_disabled_error_message,
        torch.device,
        torch.finfo,
        torch.iinfo,
        np.finfo,  # of a NumPy dtype: machine limits (`np.finfo(np.float32).eps`)
        np.iinfo,
        torch.result_type,
        torch.promote_types,
        torch.can_cast,
        torch.cuda.is_available,
        torch.cuda.device_count,
        torch.distributed.is_available,
        torch.backends.mha.get_fastpath_enabled,
        torch.backends.mps.is_available,  # an lru_cache wrapper: one answer per process
        torch.broadcast_shapes,  # of sizes known now (a symbolic one is not a constant)
        torch.overrides.is_tensor_like,
        torch._C._get_privateuse1_backend_name,  # the foreach kernels' devices
        # Queries on typing forms, constants to the trace (as Dynamo's TypingVariable)
        typing.get_origin,
        typing.get_args,
        # Regular expressions over constant strings; their Pattern and Match results are
        # constants too, whose methods fold the same way
        re.compile,
        re.escape,
        re.findall,
        re.fullmatch,
        re.match,
        re.search,
        re.split,
        re.sub,
        re.subn,
    }
    | ({torch.distributed.is_initialized} if torch.distributed.is_available() else set())
    | CLASS_FACTORIES
)

# Assertions: with a condition known at trace time they vanish (or raise, as eager).
ASSERT_FUNCTIONS: frozenset[Callable] = frozenset(
    {
        torch._assert,
        torch._check,
        torch._check_value,
        torch._check_type,
        torch._check_index,
        torch._check_not_implemented,
        torch._check_with,  # (error_type, cond, message)
        torch._check_is_size,  # (i): i >= 0
    }
)

# Objects holding the process's settings, their attributes computed by a Python
# `__getattr__` from torch's C getters (`torch.backends.cuda.matmul.allow_tf32`): read now.
SETTINGS_CLASSES: tuple[type, ...] = (torch.backends.cuda.cuBLASModule,)

# Wrappers whose call inside a traced region is a call of the function they hold, by
# the attribute holding it: torch.compile's (inlined, as Dynamo does),
# torch.jit._script_if_tracing's (not jit-tracing: it calls the function) and
# torch.jit.script's and torch.jit.trace's (their ScriptFunction keeps the Python original).
TRANSPARENT_WRAPPERS: tuple[str, ...] = (
    "_torchdynamo_orig_callable",
    "__original_fn",
    "_torchdynamo_inline",
)


def wrapped_by(fn: object) -> str | None:
    """The attribute of `fn` that holds the function it transparently wraps, or None.
    Read statically: no user `__getattr__` runs at trace time."""
    for name in TRANSPARENT_WRAPPERS:
        if isinstance(inspect.getattr_static(fn, name, None), types.FunctionType):
            return name
    return None


def is_lru_cached_user_function(fn: object) -> bool:
    """A `functools.lru_cache` (or `functools.cache`) wrapper of a function the rules
    inline: calling it traces that function, as Dynamo does; library ones stay skipped."""
    if not isinstance(fn, functools._lru_cache_wrapper):
        return False
    wrapped = inspect.getattr_static(fn, "__wrapped__", None)
    return isinstance(wrapped, types.FunctionType) and lookup(wrapped) is Rule.INLINE


# Skip, with the reason the user asked for: explicit graph breaks. torch's own
# marker (torch._dynamo.graph_break) is named, not imported: we never import torch._dynamo.
EXPLICIT_BREAKS: dict[Callable, str] = {decorators.graph_break: gb.USER_GRAPH_BREAK}
EXPLICIT_BREAKS_BY_NAME: dict[tuple[str, str], str] = {
    ("torch._dynamo.decorators", "graph_break"): gb.USER_GRAPH_BREAK,
}

# Skip: torch functions that Dynamo's trace rules skip though they take or give tensors.
# The global generator's state is a byte tensor outside any graph (`set_rng_state(s)` of
# a fake tensor cannot run): the call is a graph break, run by CPython.
SKIPPED_FUNCTIONS: frozenset[Callable] = frozenset({torch.get_rng_state, torch.set_rng_state})

# Skip, with a reason of their own: library classes whose construction stops the trace.
REFUSED_CLASSES: dict[type, tuple[str, str]] = {
    torch.utils.hooks.BackwardHook: (
        gb.MODULE_BACKWARD_HOOKS,
        "module-level backward hooks (torch.utils.hooks.BackwardHook)",
    ),
}

# In graph, by the user's choice (`minidynamo.allow_in_graph`); kept by id, as a
# callable need not be hashable or weakly referenceable.
_ALLOWED_IN_GRAPH: dict[int, Callable] = {}


def allow_in_graph(fn: Callable) -> None:
    _ALLOWED_IN_GRAPH[id(fn)] = fn


# torch's switches that stop its Dynamo converting the frames a call runs, read by code
# object (we never import torch._dynamo, whose wrappers are found once the user's program
# has made one): `torch._disable_dynamo`'s wrapper; torch.compiler.disable's (recursive:
# the frames under it; recursive=False: the function's own frame only).
_TORCH_DISABLE_DYNAMO = next(
    c for c in torch._compile._disable_dynamo.__code__.co_consts if isinstance(c, types.CodeType)
)


def _nested_code(module: str, path: str, name: str) -> types.CodeType | None:
    """The code of function `name` nested in `path` (``Class.method``) of a loaded module."""
    outer: object = sys.modules.get(module)
    for part in path.split("."):
        outer = getattr(outer, part, None)
    consts = getattr(getattr(outer, "__code__", None), "co_consts", ())
    return next((c for c in consts if isinstance(c, types.CodeType) and c.co_name == name), None)


def disables_frames_under(code: types.CodeType) -> bool:
    """`code` is a torch wrapper whose frame, and the frames it calls, Dynamo leaves to
    CPython."""
    return code is _TORCH_DISABLE_DYNAMO or code is _nested_code(
        "torch._dynamo.eval_frame", "DisableContext.__call__", "_fn"
    )


def disables_frame_of_closure(code: types.CodeType) -> bool:
    """`code` is torch.compiler.disable(recursive=False)'s wrapper: the frame of the
    function in its closure is left to CPython, the frames that one calls are not."""
    return code is _nested_code(
        "torch._dynamo.external_utils",
        "get_nonrecursive_disable_wrapper",
        "nonrecursive_disable_wrapper",
    )


def disabled_by_torch(fn: object) -> bool | None:
    """Whether `fn` is wrapped by torch.compiler.disable or torch._disable_dynamo, whose
    call the trace leaves to CPython (Dynamo's "Skip calling torch.compiler.disable()d
    function"): True where the frames it calls are left too, False where they are
    converted (recursive=False), None where it is not. Read statically: no user
    `__getattr__` runs."""
    if getattr(fn, "__code__", None) is _TORCH_DISABLE_DYNAMO:
        return True
    if inspect.getattr_static(fn, "_torchdynamo_disable", False) is not True:
        return None
    return inspect.getattr_static(fn, "_torchdynamo_disable_recursive", True) is not False


def explicit_break(fn: object) -> str | None:
    """The graph-break id of a graph_break() marker, or None for any other callable."""
    if _row(EXPLICIT_BREAKS, fn):
        return EXPLICIT_BREAKS[fn]
    name = (getattr(fn, "__module__", None), getattr(fn, "__qualname__", None))
    return EXPLICIT_BREAKS_BY_NAME.get(name)  # type: ignore[arg-type]


# (3) Inline. Library modules whose Python functions are traced like user code (as
# Dynamo's MOD_INLINELIST): our polyfills, and torch's pure-Python layers.
INLINE_MODULES: tuple[str, ...] = (
    "_collections_abc",
    # Counter, ChainMap, UserDict (C helpers polyfilled); collections.abc's classes too,
    # whose `__module__` names the public module
    "collections",
    "contextlib",
    "dataclasses",  # `dataclasses.replace`, `asdict`: Python over the fields
    "heapq",  # `Counter.most_common(n)` calls heapq.nlargest
    "minidynamo.polyfills",
    "torch.amp.autocast_mode",  # the wrapper of a function decorated with `@torch.autocast()`
    "torch.autograd.forward_ad",  # dual_level, make_dual: see FUNCTORCH_IN_GRAPH
    "torch.distributions",
    "torch._functorch",  # torch.func's transforms (vmap, grad): see FUNCTORCH_IN_GRAPH
    # `torch._dynamo.is_compiling()` (named, never imported here): it asks
    # torch.compiler.is_compiling(), True in the trace
    "torch._dynamo.external_utils",
    "torch.nn.init",  # in-place fills under no_grad, fans computed from the sizes
    "torch.nn.modules",
    "torch.nn.utils",
    "torch.utils._foreach_utils",  # clip_grad_norm_'s grouping of tensors by device
    "torch.utils._contextlib",  # the wrapper of a function decorated with `@torch.no_grad()`
    "torch.utils._pytree",
)

# torch.func: the Python layer of its transforms is traced (INLINE_MODULES); these
# calls in it are graph nodes, as Dynamo records them. The ones on tensors wrap or unwrap
# a tensor for one transform level (batched, differentiable); the others change
# functorch's global state (`FUNCTORCH_EFFECTS`).
_predispatch = torch._functorch.predispatch
_eager_transforms = torch._functorch.eager_transforms
FUNCTORCH_EFFECTS: frozenset[Callable] = frozenset(
    {
        _predispatch.lazy_load_decompositions,
        _predispatch._vmap_increment_nesting,
        _predispatch._vmap_decrement_nesting,
        _predispatch._jvp_increment_nesting,
        _predispatch._jvp_decrement_nesting,
        _predispatch._enter_dual_level,
        _predispatch._exit_dual_level,
        torch._C._set_fwd_grad_enabled,
        torch.autograd.forward_ad._maybe_load_decompositions,
        torch._C._functorch._grad_increment_nesting,
        torch._C._functorch._grad_decrement_nesting,
        torch._C._functorch.set_inplace_requires_grad_allowed,
        torch._C._autograd._saved_tensors_hooks_disable,
        torch._C._autograd._saved_tensors_hooks_enable,
    }
)
FUNCTORCH_IN_GRAPH: frozenset[Callable] = FUNCTORCH_EFFECTS | frozenset(
    {
        _predispatch._add_batch_dim,
        _predispatch._remove_batch_dim,
        _predispatch._unwrap_for_grad,
        _predispatch._make_dual,
        _predispatch._unpack_dual,
        torch._C._functorch._wrap_for_grad,
        _eager_transforms._set_tensor_requires_grad,
        _eager_transforms._autograd_grad,
    }
)


# `functools.wraps(fn)` and torch.func's variant of it: the decorated function is traced
# as it is; a wrapper that leaves the trace is rebuilt and wrapped then (WrapsVariable).
WRAPS_DECORATORS: frozenset[Callable] = frozenset(
    {functools.wraps, torch._functorch.apis._wraps_without_dynamo_attrs}
)

# The code of every `functools.singledispatch` function's dispatching wrapper.
_SINGLEDISPATCH_CODE = functools.singledispatch(lambda arg: arg).__code__


def is_singledispatch(fn: types.FunctionType) -> bool:
    """A `functools.singledispatch` function: its call is the implementation that its
    first argument's class selects (SingleDispatchVariable)."""
    return fn.__code__ is _SINGLEDISPATCH_CODE


# Library functions traced like user code, outside the modules of INLINE_MODULES: the
# context manager torch.func's grad enters (undecorated: the generator function); and
# inspect's predicates on an object's kind (isinstance checks), which Dynamo, tracing the
# whole standard library, inlines.
INLINE_FUNCTIONS: frozenset[Callable] = frozenset(
    {
        torch.autograd.graph.disable_saved_tensors_hooks.__wrapped__,  # type: ignore[attr-defined]
        inspect.isbuiltin,
        inspect.isclass,
        inspect.isfunction,
        inspect.ismethod,
        inspect.ismethoddescriptor,
        inspect.ismodule,
        inspect.isroutine,
    }
)

# Torch modules whose private Python helpers (`F._none_or_dtype(mask)`, which returns the
# mask's dtype; `F._canonical_mask`) are traced, tensors or not: Dynamo inlines torch.nn's
# Python functions, and none of these is on its list of functions recorded in the graph.
INLINE_PRIVATE_HELPERS: tuple[str, ...] = ("torch.nn.functional",)

# Torch modules whose Python functions, called without a tensor argument (a helper on
# Python values: `F._none_or_dtype(dtype)`), are traced instead of put in the graph.
INLINE_WITHOUT_TENSORS: tuple[str, ...] = ("torch.nn",)

# Modules whose globals an inlined function reads unguarded: ours, which never change,
# and pytree's, whose registry of node types (SUPPORTED_NODES, a hundred entries) is
# filled as modules are imported; guarding it would check each entry on every call.
FIXED_GLOBALS_MODULES: tuple[str, ...] = ("minidynamo.polyfills", "torch.utils._pytree")

# (4) Polyfills: a C function we cannot enter, replaced by our Python version of it.
POLYFILLS: dict[Callable, Callable] = {
    itertools.chain: itertools_polyfills.chain,
    itertools.product: itertools_polyfills.product,
    itertools.combinations: itertools_polyfills.combinations,
    itertools.combinations_with_replacement: itertools_polyfills.combinations_with_replacement,
    itertools.permutations: itertools_polyfills.permutations,
    itertools.zip_longest: itertools_polyfills.zip_longest,
    itertools.groupby: itertools_polyfills.groupby,
    itertools.accumulate: itertools_polyfills.accumulate,
    itertools.islice: itertools_polyfills.islice,
    itertools.repeat: itertools_polyfills.repeat,
    itertools.count: itertools_polyfills.count,
    itertools.pairwise: itertools_polyfills.pairwise,
    itertools.takewhile: itertools_polyfills.takewhile,
    itertools.dropwhile: itertools_polyfills.dropwhile,
    itertools.starmap: itertools_polyfills.starmap,
    itertools.compress: itertools_polyfills.compress,
    itertools.filterfalse: itertools_polyfills.filterfalse,
    itertools.cycle: itertools_polyfills.cycle,
    itertools.tee: itertools_polyfills.tee,
    functools.reduce: functools_polyfills.reduce,
    functools.cmp_to_key: functools_polyfills.cmp_to_key,
    functools.wraps: functools_polyfills.wraps,
    functools.update_wrapper: functools_polyfills.update_wrapper,
    operator.length_hint: builtins_polyfills.length_hint,
    operator.itemgetter: operator_polyfills.itemgetter,
    operator.attrgetter: operator_polyfills.attrgetter,
    operator.methodcaller: operator_polyfills.methodcaller,
    typing.cast: stdlib_polyfills.cast,
    collections._count_elements: stdlib_polyfills.count_elements,  # type: ignore[attr-defined]
    os.getenv: stdlib_polyfills.getenv,
    copy.copy: copy_polyfills.copy,
    copy.deepcopy: copy_polyfills.deepcopy,
    torch._C._group_tensors_by_device_and_dtype: foreach_polyfills.group_by_device_and_dtype,
}
if hasattr(itertools, "batched"):  # new in CPython 3.12
    POLYFILLS[itertools.batched] = itertools_polyfills.batched

# Methods and class attributes of builtin types, by (class, name): `dict.fromkeys(ks)`,
# `s.union(t)` (the polyfill takes the instance first, as the unbound method does).
METHOD_POLYFILLS: dict[tuple[type, str], Callable] = {
    (itertools.chain, "from_iterable"): itertools_polyfills.chain_from_iterable,
    # What copy.copy and copy.deepcopy rebuild an object from (pickle's protocol).
    (object, "__reduce_ex__"): copy_polyfills.object_reduce_ex,
    (dict, "fromkeys"): builtins_polyfills.dict_fromkeys,
    (dict, "update"): builtins_polyfills.dict_update,
    (dict, "__or__"): builtins_polyfills.dict_or,
    (dict, "__ior__"): builtins_polyfills.dict_ior,
    (set, "union"): builtins_polyfills.set_union,
    (set, "update"): builtins_polyfills.set_update,
    (set, "copy"): builtins_polyfills.set_copy,
    (set, "intersection_update"): builtins_polyfills.set_intersection_update,
    (set, "difference_update"): builtins_polyfills.set_difference_update,
    (set, "symmetric_difference_update"): builtins_polyfills.set_symmetric_difference_update,
    (set, "intersection"): builtins_polyfills.set_intersection,
    (set, "difference"): builtins_polyfills.set_difference,
    (set, "symmetric_difference"): builtins_polyfills.set_symmetric_difference,
    (set, "isdisjoint"): builtins_polyfills.set_isdisjoint,
    (set, "issubset"): builtins_polyfills.set_issubset,
    (set, "issuperset"): builtins_polyfills.set_issuperset,
}

# Methods every namedtuple class has (generated by `collections.namedtuple`, whose code
# the rules skip), by name.
NAMEDTUPLE_POLYFILLS: dict[str, Callable] = {
    "_replace": builtins_polyfills.namedtuple_replace,
    "_asdict": builtins_polyfills.namedtuple_asdict,
}

# Builtins the BuiltinVariable folds when every argument is a constant; over traced
# values (tensors, a `key=` function) their polyfill runs instead.
FALLBACK_POLYFILLS: dict[Callable, Callable] = {
    sorted: builtins_polyfills.sorted,
    min: builtins_polyfills.min,
    max: builtins_polyfills.max,
    any: builtins_polyfills.any,
    all: builtins_polyfills.all,
    math.prod: builtins_polyfills.prod,
}


# NumPy, traced as Dynamo does: each function of these modules runs as the
# torch._numpy function of the same name, on tensors. np.random is left out on purpose:
# torch._numpy.random draws from torch's generator, so its values would not be NumPy's.
NUMPY_MODULES: dict[types.ModuleType, types.ModuleType] = {
    np: tnp,
    np.fft: tnp.fft,
    np.linalg: tnp.linalg,
}


@functools.cache
def _numpy_table() -> dict[int, tuple[object, Callable]]:
    """id(NumPy callable) -> (the callable, its torch._numpy counterpart). Of NumPy's
    types, only the scalar types (`np.float32(n)`) have one."""
    table = {}
    for np_module, tnp_module in NUMPY_MODULES.items():
        for name, tnp_fn in vars(tnp_module).items():
            np_fn = getattr(np_module, name, None)
            is_other_type = isinstance(np_fn, type) and not issubclass(np_fn, np.generic)
            if callable(tnp_fn) and callable(np_fn) and not is_other_type:
                table[id(np_fn)] = (np_fn, tnp_fn)
    return table


def torch_numpy_counterpart(fn: object) -> Callable | None:
    """The torch._numpy function that stands for NumPy's `fn` in a graph, or None."""
    row = _numpy_table().get(id(fn))
    return row[1] if row is not None and row[0] is fn else None


def is_numpy_callable(value: object) -> bool:
    """A function, ufunc or scalar type of NumPy (`np.sin`, `np.random.rand`,
    `np.float32`): traced by the NumPy rules, never inlined or called."""
    if isinstance(value, type):
        return issubclass(value, np.generic)
    module = getattr(value, "__module__", None) or ""
    return callable(value) and (module == "numpy" or module.startswith("numpy."))


def _row(table: dict | frozenset, fn: object) -> bool:
    try:
        return fn in table
    except TypeError:  # an unhashable callable has no row
        return False


def lookup(fn: object) -> Rule:
    """The rule for calling `fn` (a function, builtin or class) during a trace."""
    if _ALLOWED_IN_GRAPH.get(id(fn)) is fn:
        return Rule.IN_GRAPH
    if _row(SKIPPED_FUNCTIONS, fn):
        return Rule.SKIP
    if _row(POLYFILLS, fn):
        return Rule.POLYFILL
    if _row(FUNCTORCH_IN_GRAPH, fn):
        return Rule.IN_GRAPH
    if _row(INLINE_FUNCTIONS, fn):
        return Rule.INLINE
    if _row(TRACE_TIME_RESULTS, fn) or _row(CONSTANT_FOLD_FUNCTIONS, fn):
        return Rule.CONSTANT_FOLD
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, types.FunctionType):
        # Where the code lives: functools.wraps copies the wrapped function's __module__.
        module = fn.__globals__.get("__name__", module)
        if in_modules(module, INLINE_MODULES):
            return Rule.INLINE
        if module in INLINE_PRIVATE_HELPERS and fn.__name__.startswith("_"):
            return Rule.INLINE
    if is_torch_function(fn):
        return Rule.IN_GRAPH
    if isinstance(fn, types.FunctionType) and not is_library_file(fn.__code__.co_filename):
        return Rule.INLINE
    return Rule.SKIP


def in_modules(module: str, names: tuple[str, ...]) -> bool:
    """`module` is one of `names` or inside one of them."""
    return any(module == name or module.startswith(name + ".") for name in names)


def method_polyfill(cls: type, name: str) -> Callable | None:
    """The polyfill of attribute `name` of `cls` (found through its MRO, unless a
    subclass redefines it), or None."""
    if is_namedtuple(cls) and name in NAMEDTUPLE_POLYFILLS:
        return NAMEDTUPLE_POLYFILLS[name]
    for base in cls.__mro__:
        polyfill = METHOD_POLYFILLS.get((base, name))
        if polyfill is not None:
            same = inspect.getattr_static(cls, name, None) is inspect.getattr_static(base, name)
            return polyfill if same else None
    return None


def is_namedtuple(cls: type) -> bool:
    """A class made by `collections.namedtuple` (or `typing.NamedTuple`)."""
    return issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


# torch's struct sequence classes (an op's named results), read by field name.
TORCH_STRUCTSEQ_MODULES = frozenset({"torch.return_types", "torch.autograd.forward_ad"})
_PY_TPFLAGS_BASETYPE = 1 << 10  # a class that can be subclassed (struct sequences cannot)


def is_structseq(cls: type) -> bool:
    """A C struct sequence class (`sys.version_info`'s, `torch.return_types.max`): a
    final direct subclass of tuple with the `n_sequence_fields` CPython gives them."""
    return (
        cls.__bases__ == (tuple,)
        and isinstance(getattr(cls, "n_sequence_fields", None), int)
        and not cls.__flags__ & _PY_TPFLAGS_BASETYPE
    )


_PACKAGE_DIR = os.path.dirname(minidynamo.__file__) + os.sep
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_STDLIB_DIRS = tuple(
    {os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "platstdlib")}
)
_OWN_DIRS = (_PACKAGE_DIR, _TORCH_DIR)
# In a virtual environment site-packages lies inside "platstdlib": it is told apart first.
_SITE_DIRS = tuple(
    {os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("purelib", "platlib")}
)
# Third-party packages left untraced, as Dynamo's THIRDPARTY_SKIPLIST (and torch's own
# dependencies, which only torch internals call).
_SKIPPED_PACKAGES = frozenset(
    {"numpy", "hypothesis", "pandas", "networkx", "tqdm", "tabulate", "sklearn", "onnx",
     "sympy", "triton", "functorch", "torchgen", "_pytest", "pytest", "pluggy", "syrupy"}
)  # fmt: skip


@functools.cache  # called for every function the trace meets; realpath is a syscall
def is_library_file(filename: str) -> bool:
    """Code of minidynamo, torch, the standard library or a skipped third-party package,
    FX's generated code or frozen modules (other `<...>` sources, exec'd or generated by
    the user, are user code)."""
    if filename.startswith("<"):
        return filename.startswith(("<eval_with_key", "<frozen", "<__array_function__"))
    path = os.path.realpath(filename)
    if path.startswith(_OWN_DIRS) or filename.startswith(_OWN_DIRS):
        return True
    for site in _SITE_DIRS:
        if path.startswith(site):
            return path[len(site) :].split(os.sep)[0] in _SKIPPED_PACKAGES
    return path.startswith(_STDLIB_DIRS)


# Library functions whose answer for an object depends on its type only: evaluated at
# trace time on the type (the type is guarded where the object is an input); and
# `inspect.signature`, whose answer depends on a function's code and defaults only.
TYPE_QUERY_FUNCTIONS = frozenset(
    {dataclasses.fields, dataclasses.is_dataclass, inspect.signature, copyreg._slotnames}  # type: ignore[attr-defined]
)


# Higher-order operators, by kind: their function arguments are traced into subgraphs
# that one node calls (variables/higher_order_ops.py), as Dynamo records them.
HIGHER_ORDER_OPS: dict[Callable, str] = {
    torch.cond: "cond",
    torch.utils.checkpoint.checkpoint: "checkpoint",
}


def is_library_module(module: types.ModuleType) -> bool:
    """Of the interpreter or a library. One without a file is a built-in module, a part
    of a library package's C code (`torch._C._nn`), or one a program made at run time
    (``types.ModuleType("cfg")``): only the last is the user's, its attributes guarded."""
    filename = getattr(module, "__file__", None)
    if filename is not None:
        return is_library_file(filename)
    name = getattr(module, "__name__", "")
    if name in sys.builtin_module_names:
        return True
    package = sys.modules.get(name.partition(".")[0])
    return package is not None and package is not module and is_library_module(package)


def is_traced_module(module: types.ModuleType) -> bool:
    """Its Python code is traced: user code, or a library module of `INLINE_MODULES`."""
    return not is_library_module(module) or in_modules(module.__name__, INLINE_MODULES)


def is_torch_function(fn: object) -> bool:
    """A callable of the torch namespace (recorded in the graph rather than inlined)."""
    module = getattr(fn, "__module__", None) or ""
    return module == "torch" or module.startswith("torch.")


def skip_code(code: types.CodeType, f_builtins: dict) -> bool:
    """Frames of `code` are run by CPython as they are, never converted: library code,
    and, as in Dynamo, a namedtuple's generated constructor (a `<string>` lambda with
    empty builtins), `__setattr__` methods and code run by exec()."""
    if is_library_file(code.co_filename):
        return True
    if code.co_filename == "<string>" and (
        code.co_name == "<module>" or (code.co_name == "<lambda>" and not f_builtins)
    ):
        return True
    return code.co_name == "__setattr__"


# The hook dicts whose entries make a torch.nn module's forward frame converted.
_FORWARD_HOOK_DICTS = (
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_forward_hooks_with_kwargs",
    "_forward_hooks",
)


def is_hooked_builtin_forward(code: types.CodeType, args: tuple) -> bool:
    """The frame of the ``forward`` of one of torch's own modules that has forward hooks
    is converted, library code though it is, as in Dynamo: a graph break in a hook
    leaves the whole module call to CPython, and its forward then makes a graph of its
    own. It is decided at each frame the cache misses, by the module of that call."""
    if code.co_name != "forward" or not args or code.co_varnames[:1] != ("self",):
        return False
    module = args[0]
    return (
        isinstance(module, torch.nn.Module)
        and type(module).__module__.startswith(("torch.nn.", "torch.ao."))
        and any(getattr(module, name, None) for name in _FORWARD_HOOK_DICTS)
    )


# Code of the functions given to `minidynamo.compile`: always translated (Dynamo's
# always_optimize_code_objects), even without a tensor in sight.
_compiled_codes: weakref.WeakSet[types.CodeType] = weakref.WeakSet()


def always_convert(fn: object) -> None:
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        _compiled_codes.add(code)


def has_tensor_in_frame(code: types.CodeType, f_locals: dict, f_globals: dict) -> bool:
    """Dynamo's check before it translates a frame other than a compiled function's
    own (`always_convert`): the code names a global torch or
    numpy module, or an argument holds a tensor, an nn.Module (or its class) or an
    ndarray, looking into lists, tuples, dicts and namedtuples only. A frame without
    one runs in CPython, this call only (so a continuation receiving a tensor inside a
    user object, or only through a global dict, is not compiled)."""
    if code in _compiled_codes:
        return True
    for name in code.co_names:
        value = f_globals.get(name)
        if isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in (
            "torch",
            "numpy",
        ):
            return True
    seen: set[int] = set()
    return any(_has_tensor(value, seen) for value in f_locals.values())


def _has_tensor(value: object, seen: set[int]) -> bool:
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, (torch.Tensor, torch.nn.Module, np.ndarray, np.generic)):
        return True
    if type(value) is type and issubclass(value, torch.nn.Module):  # type: ignore[arg-type]
        return True
    if type(value) in (list, tuple) or is_namedtuple(type(value)):
        return any(_has_tensor(item, seen) for item in value)  # type: ignore[attr-defined]
    if type(value) is dict:
        return any(_has_tensor(item, seen) for item in list(value.values()))
    return False
