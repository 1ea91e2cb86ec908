"""`GradModeVariable`: ``with torch.no_grad():``, ``with torch.enable_grad():`` and
``with torch.set_grad_enabled(mode):`` (seed "Graph Breaks": Dynamo models the grad mode
as a context-manager variable).

BEFORE_WITH / SETUP_WITH call `enter`, the block's exit call calls `exit`; each records a
``torch._C._set_grad_enabled(...)`` node, as Dynamo's graph does, and switches the real
grad mode so that the example values of the block have the block's ``requires_grad``.
At a graph break inside a block the `WithExitFunctionVariable` left on the stack is what
the continuation needs to enter the block again (symbolic_convert.break_graph).
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

# The managers that switch to a fixed mode; torch.set_grad_enabled takes the mode.
GRAD_MODE_CLASSES = {torch.no_grad: False, torch.enable_grad: True, torch.set_grad_enabled: None}


class GradModeClassVariable(VariableTracker):
    """`torch.no_grad`, `torch.enable_grad` or `torch.set_grad_enabled` itself; calling
    it makes the manager."""

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
        mode = GRAD_MODE_CLASSES[self.value]
        if mode is not None:
            if args or kwargs:
                unimplemented(f"{self.value.__name__} called with arguments")
            return GradModeVariable(self.value, (), mode)
        if kwargs or len(args) != 1 or not args[0].is_python_constant():
            unimplemented("torch.set_grad_enabled with a mode that is not a constant")
        mode = bool(args[0].as_python_constant())
        ctx = GradModeVariable(self.value, (mode,), mode)
        # set_grad_enabled(mode) switches when it is made (it also works as a plain call);
        # its __enter__ does nothing.
        ctx.switch(tx)
        return ctx


class GradModeVariable(VariableTracker):
    """A grad-mode context manager, made by ``cls(*args)``: entering it switches to
    `target`, exiting it switches back to the mode it found."""

    def __init__(self, cls: type, args: tuple, target: bool) -> None:
        super().__init__()
        self.cls = cls
        self.args = args
        self.target = target
        self.initial = target
        self.switched = False  # set_grad_enabled switched already, when it was made

    def __repr__(self) -> str:
        return f"GradModeVariable(enabled={self.target})"

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if not self.switched:
            self.switch(tx)
        return ConstantVariable(None)

    def switch(self, tx: InstructionTranslatorBase) -> None:
        self.switched = True
        self.initial = torch.is_grad_enabled()
        tx.output.guards.add_grad_mode(self.initial)
        set_grad_enabled(tx, self.target)

    def exit(self, tx: InstructionTranslatorBase) -> VariableTracker:
        set_grad_enabled(tx, self.initial)
        return ConstantVariable(None)


class WithExitFunctionVariable(VariableTracker):
    """The bound ``__exit__`` that BEFORE_WITH / SETUP_WITH (instruction `setup` of the
    frame's code) leave on the stack."""

    def __init__(self, ctx: GradModeVariable, setup: int) -> None:
        super().__init__()
        self.ctx = ctx
        self.setup = setup

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
        """The manager's class: at a graph break the continuation calls it to enter the
        block again (resume.WithSlot), as Dynamo passes ``torch.set_grad_enabled``."""
        codegen.load_import(self.ctx.cls)


def set_grad_enabled(tx: InstructionTranslatorBase, mode: bool) -> None:
    """Record the switch in the graph and make it for the rest of the trace."""
    tx.output.create_proxy(
        tx, "call_function", torch._C._set_grad_enabled, (mode,), {}, example=None
    )
    torch._C._set_grad_enabled(mode)
