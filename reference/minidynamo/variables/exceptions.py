"""`ExceptionVariable`: an exception object of the traced program (seed 004 "Graph
Breaks": Dynamo traces `raise` and `except` inside a frame).

`raise`, an index or key out of range on a known container, or a failing constant fold
raise `ObservedException` with one of these; the translator unwinds to the handler in
the frame (symbolic_convert), and a frame the exception leaves runs in CPython.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, NoReturn

from minidynamo.exc import ObservedException, unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_none, is_constant_value

if TYPE_CHECKING:
    from minidynamo.source import Source
    from minidynamo.symbolic_convert import InstructionTranslatorBase


class ExceptionVariable(VariableTracker):
    """``exc_type(*args)``, created while tracing; never rebuilt in bytecode (it only
    lives between a `raise` and its handler)."""

    def __init__(
        self,
        exc_type: type[BaseException],
        args: list[VariableTracker],
        class_source: Source | None = None,
    ) -> None:
        super().__init__()
        self.exc_type = exc_type
        self.class_source = class_source  # where the class was read (guards its attributes)
        self.args = args
        self.cause: VariableTracker = ConstantVariable(None)  # `raise ... from cause`
        self.suppress_context = False  # set by `raise ... from ...`, as CPython does
        self.context: VariableTracker | None = None  # set where it is raised (set_context)
        self.attrs: dict[str, VariableTracker] = {}  # set by the class's own __init__
        # None until the exception is raised (`raised`), then an opaque traceback.
        self.traceback: VariableTracker = ConstantVariable(None)

    def __repr__(self) -> str:
        return f"ExceptionVariable({self.exc_type.__name__})"

    def python_type(self) -> type:
        return self.exc_type

    def as_python_constant(self) -> Any:
        """An equal exception, for `str(e)` and `repr(e)` (its arguments are constants);
        one of a class with its own __init__ is made without running it (its `args` are
        what BaseException.__new__ keeps), so its own __str__ cannot be asked."""
        args = [arg.as_python_constant() for arg in self.args]
        if has_plain_constructor(self.exc_type):
            return self.exc_type(*args)
        user_classes = [c for c in self.exc_type.__mro__ if c.__module__ != "builtins"]
        if any(name in vars(c) for c in user_classes for name in _OWN_TEXT):
            unimplemented(f"str() of {self!r}, whose class has its own __str__ or __repr__")
        return BaseException.__new__(self.exc_type, *args)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``self.code = code`` in the class's own __init__; ``exc.__traceback__ = tb``."""
        if name == "__traceback__":
            self.method_with_traceback(tx, value)
            return
        if name.startswith("__") or name in ("args", "with_traceback", "add_note"):
            unimplemented(f"assignment of {name!r} to the exception {self!r}")
        self.attrs[name] = value

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.lists import TupleVariable
        from minidynamo.variables.misc import GetAttrVariable

        if name in self.attrs:
            return self.attrs[name]
        if name == "args":
            return TupleVariable(list(self.args))
        if name == "__cause__":
            return self.cause
        if name == "__suppress_context__":
            return ConstantVariable(self.suppress_context)
        if name == "__context__" and self.context is not None:
            return self.context
        if name == "__traceback__":
            return self.traceback
        if name == "with_traceback":
            return GetAttrVariable(self, name)
        if name == "value" and issubclass(self.exc_type, StopIteration):
            return self.args[0] if self.args else ConstantVariable(None)
        if name == "__class__":  # as ``type(e)``
            from minidynamo.builder import wrap_class

            return wrap_class(self.exc_type)
        return self.class_attribute(tx, name)

    def class_attribute(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """An attribute of the exception's user class (a constant such as a ``code``, a
        method bound to the exception, a property's getter inlined), read through the
        class's source, so guarded as the class attribute it is."""
        from minidynamo.source import AttrSource
        from minidynamo.variables.class_lookup import wrap_class_attribute

        owner = next((c for c in self.exc_type.__mro__ if name in vars(c)), None)
        if owner is None or owner.__module__ == "builtins" or self.class_source is None:
            unimplemented(f"attribute {name!r} of the exception {self!r}")
        if tx.output.side_effects.load_class_attr(self.exc_type, name) is not None:
            unimplemented(f"read of {name!r} of the exception {self!r} after a class store")
        attr = vars(owner)[name]
        return wrap_class_attribute(tx, self, attr, AttrSource(self.class_source, name))

    def method_with_traceback(
        self, tx: InstructionTranslatorBase, traceback: VariableTracker
    ) -> VariableTracker:
        """``exc.with_traceback(tb)``: None, or the traceback of a raised exception
        (contextlib's ``__exit__`` sets back the one it was given)."""
        if not isinstance(traceback, TracebackVariable) and not is_constant_none(traceback):
            unimplemented(f"traceback {traceback!r} for the exception {self!r}")
        self.traceback = traceback
        return self

    def raised(self) -> None:
        """CPython gives an exception a traceback where it is raised (one more entry
        on the one it had): from then on its ``__traceback__`` is not None."""
        self.traceback = TracebackVariable()


class TracebackVariable(VariableTracker):
    """The traceback of an exception raised in the trace: known not to be None (``tb
    is None``, truthiness, passing it on), its frames not modelled (any other use, and
    rebuilding it at a graph break, break the graph)."""

    def __repr__(self) -> str:
        return "TracebackVariable()"

    def python_type(self) -> type:
        return types.TracebackType

    def is_new_object(self) -> bool:
        return True

    def bool_value(self) -> bool:
        return True


def set_context(
    exc: VariableTracker, handled: list[VariableTracker], callers_exception: VariableTracker | None
) -> None:
    """``exc.__context__``, as CPython sets it where `exc` is raised: the exception being
    handled there (`handled`, the frame's, else the one an inlining caller handles), if
    any."""
    if not isinstance(exc, ExceptionVariable) or exc.context is not None:
        return
    current = handled[-1] if handled else callers_exception
    exc.context = ConstantVariable(None) if current is None or current is exc else current


# Methods of a class that make its text; `as_python_constant` does not run them.
_OWN_TEXT = ("__str__", "__repr__")

# Builtin exception classes whose instances hold nothing but their arguments
# (StopIteration's `value` is its first argument).
_PLAIN_BUILTINS = frozenset(
    {BaseException, Exception, ArithmeticError, AssertionError, AttributeError, IndexError,
     KeyError, LookupError, NotImplementedError, OverflowError, RuntimeError, TypeError,
     ValueError, ZeroDivisionError, StopIteration}
)  # fmt: skip


def has_plain_constructor(cls: type) -> bool:
    """An exception class whose instances are just ``cls(*args)``: plain builtin bases,
    and user subclasses without their own ``__init__`` or ``__new__``."""
    if not issubclass(cls, BaseException):
        return False
    return all(
        c in _PLAIN_BUILTINS
        or c.__module__ != "builtins"
        and "__init__" not in vars(c)
        and "__new__" not in vars(c)
        for c in cls.__mro__[:-1]
    )


def has_own_init(cls: type) -> bool:
    """A user exception class with its own Python ``__init__`` (no ``__new__``) over a
    plain base: the trace makes ``cls(*args)`` and then inlines that ``__init__``."""
    init = vars(cls).get("__init__")
    return (
        issubclass(cls, BaseException)
        and isinstance(init, types.FunctionType)
        and "__new__" not in vars(cls)
        and all(has_plain_constructor(base) for base in cls.__bases__)
    )


def generator_raised_stop_iteration(exception: VariableTracker) -> VariableTracker:
    """PEP 479: a StopIteration leaving a generator's body becomes RuntimeError, caused
    by it (in CPython, the body's own handler on 3.12+, the generator's resume before);
    any other exception leaves unchanged."""
    if not issubclass(exception.python_type(), StopIteration):
        return exception
    error = ExceptionVariable(RuntimeError, [ConstantVariable("generator raised StopIteration")])
    error.cause = error.context = exception
    error.suppress_context = True
    error.raised()
    return error


def raise_observed(exc_type: type[BaseException], *args: object) -> NoReturn:
    """Raise ``exc_type(*args)`` in the traced program (constant arguments)."""
    raise ObservedException(ExceptionVariable(exc_type, [ConstantVariable(a) for a in args]))


def raise_folded(error: Exception) -> NoReturn:
    """Raise in the traced program what CPython raised while folding constants; an
    exception with other state than constant arguments stays unmodelled."""
    if not has_plain_constructor(type(error)) or not all(map(is_constant_value, error.args)):
        unimplemented(f"constant folding raised {type(error).__name__}: {error}")
    raise_observed(type(error), *error.args)
