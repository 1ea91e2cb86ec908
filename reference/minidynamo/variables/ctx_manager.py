"""`GradModeVariable`: ``with torch.no_grad():`` and ``with torch.enable_grad():`` (seed
"Graph Breaks": Dynamo models the grad mode as a context-manager variable).

BEFORE_WITH / SETUP_WITH call `enter`, the block's exit call calls `exit`; each records a
``torch._C._set_grad_enabled(...)`` node, as Dynamo's graph does, and switches the real
grad mode so that the example values of the block have the block's ``requires_grad``.
A graph break inside the block is not modelled: the frame runs eagerly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase

GRAD_MODE_CLASSES = {torch.no_grad: False, torch.enable_grad: True}


class GradModeClassVariable(VariableTracker):
    """`torch.no_grad` or `torch.enable_grad` itself; calling it makes the manager."""

    def __init__(self, value: type, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.value = value

    def __repr__(self) -> str:
        return f"GradModeClassVariable({self.value.__name__})"

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> type:
        return self.value

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if args or kwargs:
            unimplemented(f"{self.value.__name__} called with arguments")
        return GradModeVariable(GRAD_MODE_CLASSES[self.value])


class GradModeVariable(VariableTracker):
    """A grad-mode context manager: `enter` switches to `target`, `exit` switches back."""

    def __init__(self, target: bool) -> None:
        super().__init__()
        self.target = target
        self.initial = target

    def __repr__(self) -> str:
        return f"GradModeVariable(enabled={self.target})"

    def python_type(self) -> type:
        return torch.enable_grad if self.target else torch.no_grad

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        self.initial = torch.is_grad_enabled()
        tx.output.guards.add_grad_mode(self.initial)
        set_grad_enabled(tx, self.target)
        return ConstantVariable(None)

    def exit(self, tx: InstructionTranslatorBase) -> VariableTracker:
        set_grad_enabled(tx, self.initial)
        return ConstantVariable(None)


class WithExitFunctionVariable(VariableTracker):
    """The bound ``__exit__`` that BEFORE_WITH / SETUP_WITH leave on the stack."""

    def __init__(self, ctx: GradModeVariable) -> None:
        super().__init__()
        self.ctx = ctx

    def __repr__(self) -> str:
        return f"WithExitFunctionVariable({self.ctx!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return self.ctx.exit(tx)

    def reconstruct(self, codegen: PyCodegen) -> None:
        unimplemented("a graph break inside a with block")


def set_grad_enabled(tx: InstructionTranslatorBase, mode: bool) -> None:
    """Record the switch in the graph and make it for the rest of the trace."""
    tx.output.create_proxy(
        tx, "call_function", torch._C._set_grad_enabled, (mode,), {}, example=None
    )
    torch._C._set_grad_enabled(mode)
