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

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


class _FunctorchState:
    """functorch's global state before the trace changed it, and how to restore it:
    the transform levels entered, in-place requires_grad allowed, saved-tensor hooks."""

    def __init__(self) -> None:
        self.depth = torch._C._functorch.get_dynamic_layer_stack_depth()
        self.inplace_requires_grad = torch._C._functorch.get_inplace_requires_grad_allowed()
        self.hooks_message = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()

    def __call__(self) -> None:
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
    if not any(isinstance(undo, _FunctorchState) for undo in output.global_state_undo):
        output.switch_global_state(_FunctorchState())
    proxy_args = tuple(arg.as_proxy() for arg in args)
    proxy_kwargs = {key: arg.as_proxy() for key, arg in kwargs.items()}
    result: Any = output.run_fake("call_function", fn, proxy_args, proxy_kwargs)
    output.create_proxy(tx, "call_function", fn, proxy_args, proxy_kwargs, example=result)
    return ConstantVariable(result)
