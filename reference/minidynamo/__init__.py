"""minidynamo: a readable reference implementation of TorchDynamo.

The public API (docs/design.md "Module map"): `compile` returns a wrapper that installs
the frame hook while the function runs (seed: "@torch.compile only installs the
scaffolding"); `reset` forgets compiled code; `disable` runs a function uncompiled;
`config` holds the knobs and `set_logs` turns on the log channels; `explain` reports what
one call captured; `graph_break`, `allow_in_graph` and `is_compiling` are the markers a
program uses (decorators.py); `mark_dynamic`, `maybe_mark_dynamic` and `mark_static` mark tensor
dims for the symbolic shapes policy.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import torch

from minidynamo import config, external_utils, structured_trace, versions
from minidynamo.decorators import allow_in_graph, graph_break, is_compiling
from minidynamo.eval_frame import set_callback
from minidynamo.logs import set_logs
from minidynamo.shapes import mark_dynamic, mark_static, maybe_mark_dynamic

versions.warn_if_untested()
structured_trace.enable_from_environment()

__all__ = [
    "OptimizedModule",
    "allow_in_graph",
    "compile",
    "config",
    "disable",
    "explain",
    "graph_break",
    "is_compiling",
    "mark_dynamic",
    "mark_static",
    "maybe_mark_dynamic",
    "reset",
    "set_logs",
]


def compile(
    fn: Callable | None = None,
    *,
    backend: str | Callable = "eager",
    fullgraph: bool = False,
    dynamic: bool | None = None,
) -> Any:
    """Compile `fn` (a function or an `nn.Module`) on its calls; usable as ``@compile``
    and ``@compile(backend=...)``. `dynamic` (seed "Symbolic Shapes"): None for static
    shapes first and automatic dynamic after a change, True to trace every size and int
    input as a symbol from the first call, False for static shapes only."""
    from minidynamo.backends import lookup_backend
    from minidynamo.convert_frame import ConvertFrame

    if dynamic not in (None, False, True):
        raise TypeError(f"dynamic must be None, True or False, not {dynamic!r}")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"fullgraph must be a bool, not {type(fullgraph).__name__}")
    callback = ConvertFrame(lookup_backend(backend), fullgraph=fullgraph, dynamic=dynamic)
    if fn is None:
        return functools.partial(_wrap, callback=callback)
    return _wrap(fn, callback=callback)


def _wrap(fn: Callable, *, callback: Callable) -> Any:
    if isinstance(fn, torch.nn.Module):
        return OptimizedModule(fn, callback)
    if not callable(fn):
        raise TypeError(f"compile() expects a function or an nn.Module, not {type(fn).__name__}")

    from minidynamo import trace_rules

    trace_rules.always_convert(fn)

    @functools.wraps(fn)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        return _call_with_callback(callback, fn, args, kwargs)

    compiled._minidynamo_compiled = True  # type: ignore[attr-defined]
    return compiled


def _call_with_callback(callback: Callable | None, fn: Callable, args: tuple, kwargs: dict) -> Any:
    previous = set_callback(callback)
    try:
        return fn(*args, **kwargs)
    finally:
        set_callback(previous)


def disable(fn: Callable) -> Callable:
    """`fn`, run without compiling it or anything it calls, even inside a compiled call."""

    @functools.wraps(fn)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        return _call_with_callback(None, fn, args, kwargs)

    disabled._minidynamo_disabled = True  # type: ignore[attr-defined]
    return disabled


def explain(fn: Callable) -> Callable[..., Any]:
    """``explain(fn)(*args, **kwargs)`` runs `fn` once compiled and returns a report of
    its graphs, ops, graph breaks and guards (as torch._dynamo.explain)."""
    from minidynamo.explain_report import explain as explain_call

    return explain_call(fn)


def reset() -> None:
    """Forget all compiled code, skip decisions and generated-name counters."""
    from minidynamo import convert_frame, output_graph

    convert_frame.reset()
    output_graph.reset_unique_ids()


class OptimizedModule(torch.nn.Module):
    """An `nn.Module` whose calls run under the frame hook (its `forward` compiles).
    Otherwise it behaves as the module it wraps, as torch.compile's does: attribute
    reads, writes and deletions other than its own go to the module, and so does
    ``training``; ``dir()`` lists the module's attributes."""

    _own_attributes = frozenset({"_orig_mod", "_callback", "forward", "__dict__"})

    def __init__(self, module: torch.nn.Module, callback: Callable) -> None:
        super().__init__()
        self._orig_mod = module  # a submodule: state_dict keys start with "_orig_mod."
        self._callback = callback

    def _wrapped(self) -> torch.nn.Module | None:
        """The module, once __init__ has registered it."""
        return self.__dict__.get("_modules", {}).get("_orig_mod")

    @property
    def training(self) -> bool:  # type: ignore[override]
        return self._orig_mod.training

    @training.setter
    def training(self, value: bool) -> None:
        # nn.Module.__init__ sets the default before the module is registered.
        if self._wrapped() is not None:
            self._orig_mod.training = value

    def __getattr__(self, name: str) -> Any:
        module = self._wrapped()
        if module is None:
            raise AttributeError(name)
        if name == "_orig_mod":
            return module
        return getattr(module, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(type(self), name) or name in self._own_attributes or self._wrapped() is None:
            super().__setattr__(name, value)
        else:
            setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if hasattr(type(self), name) or name in self._own_attributes:
            super().__delattr__(name)
        else:
            delattr(self._orig_mod, name)

    def __dir__(self) -> list[str]:
        own = self._orig_mod.__dir__()
        return own + [name for name in super().__dir__() if name not in own]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        module = self._orig_mod
        if _is_uninitialized_lazy(module):
            # As Dynamo's OptimizedModule._call_lazy_check: the module infers its
            # parameters from these arguments in CPython, then is compiled initialized.
            module._infer_parameters(module, args, kwargs)
        if _forward_is_library_code(module):
            # Frames of library code are never converted: as Dynamo (wrap_inline), convert
            # a wrapper frame calling the module, into which the call is inlined. The
            # hook stays installed for the frames it runs after a graph break.
            wrapper = external_utils.wrap_inline(module)
            call = self._callback.call_entry
            return _call_with_callback(self._callback, call, (wrapper, args, kwargs), {})
        if (
            _has_hooks(module)
            or type(module).__call__ is not torch.nn.Module.__call__
            or "forward" in vars(module)
        ):
            # As Dynamo's OptimizedModule: the module's own __call__ runs under the hook,
            # so hooks (its own and global ones, forward and backward), a user __call__
            # (an override calling super().__call__) and a forward patched on the
            # instance run as in eager, in the frames converted.
            return _call_with_callback(self._callback, module, args, kwargs)
        # A user-defined forward: its frame is the one converted.
        forward = type(module).forward
        call = self._callback.call_entry
        return _call_with_callback(self._callback, call, (forward, (module, *args), kwargs), {})


_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def _has_hooks(module: torch.nn.Module) -> bool:
    """Hooks that `nn.Module._call_impl` runs around the module's forward: the module's
    own or the global ones (`register_module_forward_hook` ...), forward or backward."""
    hooks_module = torch.nn.modules.module
    return any(getattr(module, name) for name in _HOOK_DICTS) or any(
        getattr(hooks_module, "_global" + name) for name in _HOOK_DICTS
    )


def _is_uninitialized_lazy(module: torch.nn.Module) -> bool:
    """A lazy module (nn.LazyLinear) before its first call: its initialization hook, a
    method of LazyModuleMixin, is gone once its class has become the initialized one."""
    return inspect.getattr_static(module, "_initialize_hook", None) is not None and callable(
        getattr(module, "_infer_parameters", None)
    )


def _forward_is_library_code(module: torch.nn.Module) -> bool:
    """The module's forward (an instance's own first) is a method whose code the trace
    rules skip: torch.nn's layers, containers and their subclasses without a forward."""
    from minidynamo import trace_rules

    forward = getattr(module, "forward", None)
    code = getattr(getattr(forward, "__func__", None), "__code__", None)
    return (
        isinstance(forward, types.MethodType)
        and isinstance(code, types.CodeType)
        and trace_rules.is_library_file(code.co_filename)
    )
