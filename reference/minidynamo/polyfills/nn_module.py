"""Polyfill of `nn.Module._call_impl` for a module with forward hooks: the pre-hooks, the
forward and the hooks, traced like user code (variables/nn_module.py passes the hooks
it found, each with whether it takes keyword arguments). For a module with full backward
hooks, `_call_impl` up to the BackwardHook it makes, which stops the trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch.utils.hooks import BackwardHook


def call_with_hooks(
    module: Any,
    forward: Callable,
    args: tuple,
    kwargs: dict,
    pre_hooks: list[tuple[Callable, bool]],
    hooks: list[tuple[Callable, bool]],
) -> Any:
    for hook, with_kwargs in pre_hooks:
        if with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs),"
                        f" but got {result}."
                    )
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    result = forward(*args, **kwargs)
    for hook, with_kwargs in hooks:
        if with_kwargs:
            hook_result = hook(module, args, kwargs, result)
        else:
            hook_result = hook(module, args, result)
        if hook_result is not None:
            result = hook_result
    return result


def call_with_backward_hooks(self: Any) -> Any:
    """`_call_impl` of a module with full backward hooks or backward pre-hooks, as far as
    the BackwardHook that wraps its inputs: the trace refuses to make one (so does
    Dynamo 2.14 without compiled autograd), breaking on the line where `_call_impl`
    makes it; the module's call then runs in CPython."""
    full_backward_hooks = list(self._backward_hooks.values())
    backward_pre_hooks = list(self._backward_pre_hooks.values())
    bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
    return bw_hook
