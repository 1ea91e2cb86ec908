"""`with` blocks: `GradModeVariable` for ``with torch.no_grad():``, ``with
torch.enable_grad():`` and ``with torch.set_grad_enabled(mode):`` (seed "Graph Breaks":
Dynamo models the grad mode as a context-manager variable), and any other manager whose
``__enter__``/``__exit__`` are Python code (a user's class, contextlib's managers), whose
methods are inlined.

BEFORE_WITH / SETUP_WITH enter the manager and leave a `WithExitFunctionVariable` on the
stack; the block's exit (normal, or WITH_EXCEPT_START with an exception) calls it. A
grad-mode switch records a ``torch._C._set_grad_enabled(...)`` node, as Dynamo's graph
does, and switches the real grad mode so that the example values of the block have the
block's ``requires_grad``. At a graph break inside a grad-mode block the continuation
enters it again (symbolic_convert.break_graph); inside any other manager's block the
frame runs eagerly, as in Dynamo (the manager's state cannot be rebuilt).
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING

import torch
from minidynamo import trace_rules
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


def enter(tx: InstructionTranslatorBase, ctx: VariableTracker, setup: int) -> VariableTracker:
    """Enter the manager `ctx` of the `with` statement at instruction `setup`: push its
    ``__exit__`` and return what ``__enter__`` returns."""
    if isinstance(ctx, GradModeVariable):
        tx.push(WithExitFunctionVariable(ctx, setup))
        return ctx.enter(tx)
    enter_fn = special_method(tx, ctx, "__enter__")
    tx.push(WithExitFunctionVariable(ctx, setup, special_method(tx, ctx, "__exit__")))
    return enter_fn.call_function(tx, [], {})


def special_method(
    tx: InstructionTranslatorBase, obj: VariableTracker, name: str
) -> VariableTracker:
    """``type(obj).name`` bound to `obj`, as CPython looks up ``__enter__``/``__exit__``:
    Python code the trace can inline, or a graph break."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable, wrap_class_attribute

    method = inspect.getattr_static(obj.python_type(), name, None)
    traceable = isinstance(method, types.FunctionType) and (
        trace_rules.lookup(method) is trace_rules.Rule.INLINE
    )
    if not isinstance(obj, UserDefinedObjectVariable) or not traceable:
        unimplemented(f"with {obj!r} (its {name} is not Python code the trace can inline)")
    return wrap_class_attribute(tx, obj, method, None)


class WithExitFunctionVariable(VariableTracker):
    """The bound ``__exit__`` that BEFORE_WITH / SETUP_WITH (instruction `setup` of the
    frame's code) leave on the stack: a grad-mode manager's exit, or `exit_fn`, the
    manager's own ``__exit__`` method."""

    def __init__(
        self, ctx: VariableTracker, setup: int, exit_fn: VariableTracker | None = None
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.setup = setup
        self.exit_fn = exit_fn

    def can_reenter(self) -> bool:
        """A continuation can enter the block again (grad modes only, as in Dynamo)."""
        return isinstance(self.ctx, GradModeVariable)

    def __repr__(self) -> str:
        return f"WithExitFunctionVariable({self.ctx!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if self.exit_fn is not None:
            return self.exit_fn.call_function(tx, args, kwargs)
        return self.ctx.exit(tx)  # type: ignore[attr-defined]

    def reconstruct(self, codegen: PyCodegen) -> None:
        """The manager's class: at a graph break the continuation calls it to enter the
        block again (resume.WithSlot), as Dynamo passes ``torch.set_grad_enabled``."""
        codegen.load_import(self.ctx.cls)  # type: ignore[attr-defined]


def set_grad_enabled(tx: InstructionTranslatorBase, mode: bool) -> None:
    """Record the switch in the graph and make it for the rest of the trace."""
    tx.output.create_proxy(
        tx, "call_function", torch._C._set_grad_enabled, (mode,), {}, example=None
    )
    torch._C._set_grad_enabled(mode)
