"""The ctx that a custom `torch.autograd.Function`'s forward receives when the call
records nothing for backward (no input requires grad, or grad mode is off): then
`Function.apply(*args)` is just `forward(ctx, *args)`, which the tracer inlines with a
new one of these (variables/autograd_function.py), as Dynamo does. The methods keep what
they are given, as torch's FunctionCtx does; nothing reads it, as no backward runs.
"""

from __future__ import annotations

from typing import Any


class FunctionCtx:
    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self.to_save: tuple[Any, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self.saved_for_forward = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        return self.to_save

    def mark_dirty(self, *tensors: Any) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value
