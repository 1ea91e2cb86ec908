"""torch.func's transforms (`vmap`, `grad`, `grad_and_value`, ...), traced as Dynamo
traces them: their Python layer (torch._functorch) is inlined, and the calls in it that
enter or leave a transform level, or wrap a tensor for one, are graph nodes
(trace_rules.FUNCTORCH_IN_GRAPH). The body runs on example values wrapped for the level
(batched, differentiable FakeTensors), so its ops are recorded once, on the unbatched
shapes, between ``_add_batch_dim`` and ``_remove_batch_dim``.

The calls made for their effect (``_vmap_increment_nesting(2, 'error')``) change
functorch's global state at trace time as they will when the graph runs: a trace that
stops halfway leaves it as it found it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from minidynamo.variables.constant import ConstantVariable
from torch._functorch.predispatch import _enter_dual_level, _exit_dual_level

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


class _FunctorchState:
    """functorch's global state before the trace changed it, and how to restore it:
    the transform levels entered, in-place requires_grad allowed, saved-tensor hooks,
    forward-mode AD's switch and the dual levels entered (`dual_levels`, which the
    trace's ``_enter_dual_level``/``_exit_dual_level`` keep: torch cannot tell them)."""

    def __init__(self) -> None:
        self.depth = torch._C._functorch.get_dynamic_layer_stack_depth()
        self.inplace_requires_grad = torch._C._functorch.get_inplace_requires_grad_allowed()
        self.hooks_message = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()
        self.fwd_grad = torch._C._is_fwd_grad_enabled()
        self.dual_levels: list[int] = []

    def __call__(self) -> None:
        while self.dual_levels:
            torch._C._exit_dual_level(level=self.dual_levels.pop())
        torch._C._set_fwd_grad_enabled(self.fwd_grad)
        torch._C._functorch.pop_dynamic_layer_stack_and_undo_to_depth(self.depth)
        torch._C._functorch.set_inplace_requires_grad_allowed(self.inplace_requires_grad)
        if self.hooks_message is None:
            torch._C._autograd._saved_tensors_hooks_enable()
        else:
            torch._C._autograd._saved_tensors_hooks_disable(self.hooks_message)


def call_functorch_effect(
    tx: InstructionTranslatorBase,
    fn: Callable,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> VariableTracker:
    """Record ``fn(*args)`` (its result unused in the graph) and run it now; its result
    (a level's number, or None) is a constant of the trace."""
    output = tx.output
    state = next((u for u in output.global_state_undo if isinstance(u, _FunctorchState)), None)
    if state is None:
        state = _FunctorchState()
        output.switch_global_state(state)
    proxy_args = tuple(arg.as_proxy() for arg in args)
    proxy_kwargs = {key: arg.as_proxy() for key, arg in kwargs.items()}
    result: Any = output.run_fake("call_function", fn, proxy_args, proxy_kwargs)
    output.create_proxy(tx, "call_function", fn, proxy_args, proxy_kwargs, example=result)
    if fn is _enter_dual_level:
        state.dual_levels.append(result)
    elif fn is _exit_dual_level and proxy_kwargs.get("level") in state.dual_levels:
        state.dual_levels.remove(proxy_kwargs["level"])
    return ConstantVariable(result)
