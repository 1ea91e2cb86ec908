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
frame runs eagerly, as in Dynamo (the manager's state cannot be rebuilt). The same holds
for torch's managers below: the graph exits them at the break, the breaking call runs
inside them entered again for real, and the continuation enters them again.

torch's other managers are rows of `TORCH_MANAGERS`: autocast and inference_mode record an
enter node (its result, the mode object, goes to the exit node), as Dynamo's graph does,
and are entered for real too, so that the block's example values have the block's dtypes;
the trace's OutputGraph undoes them if it stops inside the block. The profiler's
managers are ignored. ``torch.nn.attention.sdpa_kernel``, a contextlib manager of torch's,
is one too, as in Dynamo (not inlined: its graph records the backends it enables). A
manager applied as a decorator (``@torch.no_grad()`` inside the traced code) wraps the
function in `ContextWrappedFunctionVariable`; one decorated outside it (torch's wrapper,
traced) enters a manager made from the decorator's: `ManagerCloneVariable`, or the
autocast object itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
import torch.autograd.grad_mode
from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.exc import Unsupported, unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from torch.amp import autocast_mode
from torch.nn.attention import SDPBackend, sdpa_kernel

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase

# The managers that switch to a fixed mode; torch.set_grad_enabled takes the mode.
GRAD_MODE_CLASSES = {torch.no_grad: False, torch.enable_grad: True, torch.set_grad_enabled: None}


class ManagerClassVariable(VariableTracker):
    """A manager class of torch's (or `torch.set_grad_enabled`) itself, a constant;
    subclasses say what calling it makes."""

    def __init__(self, value: Callable, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.value = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value.__name__})"

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> type:
        return self.value


class GradModeClassVariable(ManagerClassVariable):
    """`torch.no_grad`, `torch.enable_grad` or `torch.set_grad_enabled` itself; calling
    it makes the manager."""

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
        ctx.switched = True
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
        self.switched = False  # set_grad_enabled switched when it was made: enter once less

    def __repr__(self) -> str:
        return f"GradModeVariable(enabled={self.target})"

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if self.switched:
            self.switched = False
        else:
            self.switch(tx)  # each entry (a decorated function's each call) switches
        return ConstantVariable(None)

    def switch(self, tx: InstructionTranslatorBase) -> None:
        self.initial = torch.is_grad_enabled()
        # The guard reads the mode the frame is entered in (a nested block's `initial` is
        # the outer block's mode, which the check function never sees).
        tx.output.guards.add_grad_mode(tx.output.initial_grad_mode)
        set_grad_enabled(tx, self.target)

    def exit(self, tx: InstructionTranslatorBase) -> VariableTracker:
        set_grad_enabled(tx, self.initial)
        return ConstantVariable(None)

    def exit_at_break(self, tx: InstructionTranslatorBase) -> None:
        """Leave the block in the graph that ends at a graph break (only where the mode
        differs: Dynamo coalesces the switches)."""
        if torch.is_grad_enabled() != self.initial:
            set_grad_enabled(tx, self.initial)

    def rebuilt(self) -> tuple[Callable, tuple] | None:
        """What the compiled code calls, and with which constants, to make the manager
        again (to enter its block again after a graph break); None where it cannot."""
        return self.cls, self.args

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return decorate(self, args, kwargs)


def enter(tx: InstructionTranslatorBase, ctx: VariableTracker, setup: int) -> VariableTracker:
    """Enter the manager `ctx` of the `with` statement at instruction `setup`: push its
    ``__exit__`` and return what ``__enter__`` returns."""
    if isinstance(ctx, (GradModeVariable, TorchManagerVariable)):
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
    from minidynamo.variables.class_lookup import wrap_class_attribute
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    method = inspect.getattr_static(obj.python_type(), name, None)
    is_python = isinstance(method, types.FunctionType)
    if is_python and trace_rules.lookup(method) is not trace_rules.Rule.INLINE:
        unimplemented(f"with {obj!r} (its {name} is library code)", gb.SKIPPED_INLINE)
    if not isinstance(obj, UserDefinedObjectVariable) or not is_python:
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
        """A continuation can enter the block again (torch's managers only, as in Dynamo)."""
        reenterable = (GradModeVariable, TorchManagerVariable)
        return isinstance(self.ctx, reenterable) and self.ctx.rebuilt() is not None

    def __repr__(self) -> str:
        return f"WithExitFunctionVariable({self.ctx!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if self.exit_fn is None:
            return self.ctx.exit(tx)  # type: ignore[attr-defined]
        try:
            return self.exit_fn.call_function(tx, args, kwargs)
        except Unsupported as e:
            # Its block is left, but a continuation would have to call this __exit__
            # of a manager it cannot enter again: no graph break here.
            e.breakable = self.can_reenter()
            raise

    def reconstruct(self, codegen: PyCodegen) -> None:
        """The manager's class: at a graph break the continuation calls it to enter the
        block again (resume.WithSlot), as Dynamo passes ``torch.set_grad_enabled``."""
        codegen.load_import(self.ctx.rebuilt()[0])  # type: ignore[attr-defined]


def set_grad_enabled(tx: InstructionTranslatorBase, mode: bool) -> None:
    """Record the switch in the graph and make it for the rest of the trace; none where
    the mode is in force already (as Dynamo: under inference_mode a no_grad block
    switches nothing)."""
    if torch.is_grad_enabled() == mode:
        return
    tx.output.create_proxy(
        tx, "call_function", torch._C._set_grad_enabled, (mode,), {}, example=None
    )
    torch._C._set_grad_enabled(mode)


@dataclasses.dataclass(frozen=True)
class TorchManager:
    """How the trace enters one of torch's managers: `params` are the constructor's
    parameters (their defaults filled in, they are the arguments of `enter`); `enter`
    and `exit` are recorded in the graph (`exit` takes what `enter` returns), or the
    manager is ignored when they are None."""

    params: Callable[..., tuple]
    enter: Callable | None = None
    exit: Callable | None = None
    variable: type[TorchManagerVariable] | None = None  # None: TorchManagerVariable


def _autocast_params(
    device_type: str,
    dtype: torch.dtype | None = None,
    enabled: bool = True,
    cache_enabled: bool | None = None,
) -> tuple:
    return device_type, dtype, enabled, cache_enabled


def _any_params(*args: object, **kwargs: object) -> tuple:
    return ()


def _sdpa_kernel_params(
    backends: list[SDPBackend] | SDPBackend, set_priority: bool = False
) -> tuple:
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, list):
        unimplemented(f"sdpa_kernel({backends!r}): not a backend or a list of them")
    return tuple(dict.fromkeys(backends)), bool(set_priority)


class TorchManagerClassVariable(ManagerClassVariable):
    """A class (or contextmanager function) of `TORCH_MANAGERS`; calling it makes the
    manager."""

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        rule = TORCH_MANAGERS[self.value]
        return (rule.variable or TorchManagerVariable).create(self.value, rule, args, kwargs)


class TorchManagerVariable(VariableTracker):
    """A manager of `TORCH_MANAGERS`, made with the constant parameters `params`."""

    def __init__(self, cls: type, rule: TorchManager, params: tuple) -> None:
        super().__init__()
        self.cls = cls
        self.rule = rule
        self.params = params
        self.entered: list[tuple[torch.fx.Proxy, Callable[[], None]]] = []  # nested entries

    @classmethod
    def create(
        cls,
        manager: type,
        rule: TorchManager,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> TorchManagerVariable:
        """The manager ``manager(*args, **kwargs)``, whose arguments are constants."""
        if not all(v.is_python_constant() for v in [*args, *kwargs.values()]):
            unimplemented(f"{manager.__name__} with arguments that are not constants")
        try:
            params = rule.params(
                *(a.as_python_constant() for a in args),
                **{k: v.as_python_constant() for k, v in kwargs.items()},
            )
        except TypeError as e:
            unimplemented(f"{manager.__name__}() raises TypeError: {e}")
        return cls(manager, rule, params)

    def __repr__(self) -> str:
        return f"TorchManagerVariable({self.cls.__name__}{self.params})"

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if self.rule.enter is None:
            return ConstantVariable(None)
        handle = tx.output.create_proxy(
            tx, "call_function", self.rule.enter, self.params, {}, example=None
        )
        mode = self.rule.enter(*self.params)
        undo = tx.output.switch_global_state(lambda: self.rule.exit(mode))  # type: ignore[misc]
        self.entered.append((handle, undo))
        return ConstantVariable(None)

    def exit(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if self.rule.exit is None:
            return ConstantVariable(None)
        handle, undo = self.entered.pop()
        tx.output.create_proxy(tx, "call_function", self.rule.exit, (handle,), {}, example=None)
        tx.output.restore_global_state(undo)
        return ConstantVariable(None)

    def exit_at_break(self, tx: InstructionTranslatorBase) -> None:
        self.exit(tx)

    def rebuilt(self) -> tuple[Callable, tuple] | None:
        """As `GradModeVariable.rebuilt`; an ignored manager is rebuilt as a
        ``contextlib.nullcontext()``, as Dynamo does."""
        if self.rule.enter is None:
            return contextlib.nullcontext, ()
        return self.cls, self.params

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return decorate(self, args, kwargs)


class ManagerCloneVariable(VariableTracker):
    """``manager.clone`` of a manager made outside the trace, the bound method that
    `@torch.inference_mode()` calls for a fresh manager on each call of the function it
    decorates: calling it makes one with the constant `params`."""

    def __init__(self, cls: type, rule: TorchManager, params: tuple) -> None:
        super().__init__()
        self.cls = cls
        self.rule = rule
        self.params = params

    def __repr__(self) -> str:
        return f"ManagerCloneVariable({self.cls.__name__}{self.params})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if args or kwargs:
            unimplemented(f"{self.cls.__name__}.clone called with arguments")
        return TorchManagerVariable(self.cls, self.rule, self.params)


class NullContextVariable(TorchManagerVariable):
    """``contextlib.nullcontext(enter_result)``, Dynamo's NullContextVariable: entering
    it gives `enter_result` (any value, a tensor too) and records nothing, and a graph
    break inside its block enters a plain ``nullcontext()`` again in the continuation,
    where a user class's block would run the frame eagerly."""

    def __init__(
        self, cls: type, rule: TorchManager, params: tuple, enter_result: VariableTracker
    ) -> None:
        super().__init__(cls, rule, params)
        self.enter_result = enter_result

    @classmethod
    def create(
        cls,
        manager: type,
        rule: TorchManager,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> TorchManagerVariable:
        bound = {**dict(zip(("enter_result",), args, strict=False)), **kwargs}
        if len(args) > 1 or set(bound) - {"enter_result"}:
            unimplemented("contextlib.nullcontext() with arguments other than enter_result")
        return cls(manager, rule, (), bound.get("enter_result", ConstantVariable(None)))

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return self.enter_result


class TorchFunctionSubclassVariable(TorchManagerVariable):
    """``torch._C.DisableTorchFunctionSubclass()``: no node, as in Dynamo; inside its
    block no tensor subclass decides the class of a result (results are plain)."""

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        self.entered.append((tx.output.torch_function_subclass_enabled, lambda: None))  # type: ignore[arg-type]
        tx.output.torch_function_subclass_enabled = False
        return ConstantVariable(None)

    def exit(self, tx: InstructionTranslatorBase) -> VariableTracker:
        tx.output.torch_function_subclass_enabled = self.entered.pop()[0]  # type: ignore[assignment]
        return ConstantVariable(None)

    def rebuilt(self) -> tuple[Callable, tuple] | None:
        return self.cls, ()


class SDPAKernelVariable(TorchManagerVariable):
    """``sdpa_kernel(backends, set_priority)``: the graph enables `backends` on entry and
    the backends it found on exit, each a ``_backend_from_string`` node (an enum member
    cannot be a node's argument), as Dynamo's graph does."""

    def enter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        backends, set_priority = self.params
        found = torch.nn.attention._cur_sdpa_kernel_backends(with_priority=set_priority)
        self._record(tx, backends)
        torch.nn.attention._sdpa_kernel(backends, set_priority)
        undo = tx.output.switch_global_state(
            lambda: torch.nn.attention._sdpa_kernel(found, set_priority)
        )
        self.entered.append((found, undo))  # type: ignore[arg-type]
        return ConstantVariable(None)

    def exit(self, tx: InstructionTranslatorBase) -> VariableTracker:
        found, undo = self.entered.pop()
        self._record(tx, found)  # type: ignore[arg-type]
        tx.output.restore_global_state(undo)
        return ConstantVariable(None)

    def _record(self, tx: InstructionTranslatorBase, backends: list[SDPBackend]) -> None:
        nodes = [
            tx.output.create_proxy(
                tx,
                "call_function",
                torch.nn.attention._backend_from_string,
                (backend.name,),
                {},
                example=None,
            )
            for backend in backends
        ]
        tx.output.create_proxy(
            tx,
            "call_function",
            torch.nn.attention._sdpa_kernel,
            (nodes, self.params[1]),
            {},
            example=None,
        )

    def rebuilt(self) -> tuple[Callable, tuple] | None:
        """torch's variadic sdpa_kernel takes the backends as constants, not the priority."""
        backends, set_priority = self.params
        if set_priority:
            return None
        return torch.nn.attention._sdpa_kernel_variadic, backends


TORCH_MANAGERS: dict[Callable, TorchManager] = {
    torch.autocast: TorchManager(
        _autocast_params, autocast_mode._enter_autocast, autocast_mode._exit_autocast
    ),
    torch.inference_mode: TorchManager(
        lambda mode=True: (mode,),
        torch.autograd.grad_mode._enter_inference_mode,
        torch.autograd.grad_mode._exit_inference_mode,
    ),
    contextlib.nullcontext: TorchManager(_any_params, variable=NullContextVariable),
    torch._C.DisableTorchFunctionSubclass: TorchManager(
        lambda: (), variable=TorchFunctionSubclassVariable
    ),
    # Dynamo leaves the profiler's managers out of the graph.
    torch.autograd.profiler.record_function: TorchManager(_any_params),
    torch.autograd.profiler.profile: TorchManager(_any_params),
    torch.profiler.profile: TorchManager(_any_params),
    # contextlib.contextmanager functions of torch's, entered as the others; their nodes
    # (the backends they enable) are recorded by `SDPAKernelVariable`. The variadic one
    # is how a graph break enters the block again, as in Dynamo.
    sdpa_kernel: TorchManager(_sdpa_kernel_params, variable=SDPAKernelVariable),
    torch.nn.attention._sdpa_kernel_variadic: TorchManager(
        lambda *backends: _sdpa_kernel_params(list(backends)), variable=SDPAKernelVariable
    ),
}


def decorate(
    ctx: VariableTracker, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
) -> VariableTracker:
    """``ctx(fn)``: a manager used as a decorator."""
    if kwargs or len(args) != 1:
        unimplemented(f"call to {ctx!r}")
    return ContextWrappedFunctionVariable(ctx, args[0])


class ContextWrappedFunctionVariable(VariableTracker):
    """`fn` decorated with the manager `ctx`: each call runs inside ``with ctx:``."""

    def __init__(self, ctx: VariableTracker, fn: VariableTracker) -> None:
        super().__init__()
        self.ctx = ctx
        self.fn = fn

    def __repr__(self) -> str:
        return f"ContextWrappedFunctionVariable({self.ctx!r}, {self.fn!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.exc import ObservedException

        self.ctx.enter(tx)  # type: ignore[attr-defined]
        try:
            result = self.fn.call_function(tx, args, kwargs)
        except ObservedException:
            self.ctx.exit(tx)  # type: ignore[attr-defined]
            raise
        self.ctx.exit(tx)  # type: ignore[attr-defined]
        return result
