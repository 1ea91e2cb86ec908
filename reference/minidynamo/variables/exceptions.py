"""`ExceptionVariable`: an exception object of the traced program (seed 004 "Graph
Breaks": Dynamo traces `raise` and `except` inside a frame).

`raise`, an index or key out of range on a known container, or a failing constant fold
raise `ObservedException` with one of these; the translator unwinds to the handler in
the frame (symbolic_convert), and a frame the exception leaves runs in CPython.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from minidynamo.exc import ObservedException, unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_value

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase


class ExceptionVariable(VariableTracker):
    """``exc_type(*args)``, created while tracing; never rebuilt in bytecode (it only
    lives between a `raise` and its handler)."""

    def __init__(self, exc_type: type[BaseException], args: list[VariableTracker]) -> None:
        super().__init__()
        self.exc_type = exc_type
        self.args = args
        self.cause: VariableTracker = ConstantVariable(None)  # `raise ... from cause`

    def __repr__(self) -> str:
        return f"ExceptionVariable({self.exc_type.__name__})"

    def python_type(self) -> type:
        return self.exc_type

    def as_python_constant(self) -> Any:
        """An equal exception, for `str(e)` and `repr(e)` (its arguments are constants)."""
        return self.exc_type(*(arg.as_python_constant() for arg in self.args))

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.lists import TupleVariable

        if name == "args":
            return TupleVariable(list(self.args))
        if name == "__cause__":
            return self.cause
        if name == "value" and issubclass(self.exc_type, StopIteration):
            return self.args[0] if self.args else ConstantVariable(None)
        unimplemented(f"attribute {name!r} of the exception {self!r}")


# Builtin exception classes whose instances hold nothing but their arguments.
_PLAIN_BUILTINS = frozenset(
    {BaseException, Exception, ArithmeticError, AssertionError, AttributeError, IndexError,
     KeyError, LookupError, NotImplementedError, OverflowError, RuntimeError, TypeError,
     ValueError, ZeroDivisionError}
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


def raise_observed(exc_type: type[BaseException], *args: object) -> NoReturn:
    """Raise ``exc_type(*args)`` in the traced program (constant arguments)."""
    raise ObservedException(ExceptionVariable(exc_type, [ConstantVariable(a) for a in args]))


def raise_folded(error: Exception) -> NoReturn:
    """Raise in the traced program what CPython raised while folding constants; an
    exception with other state than constant arguments stays unmodelled."""
    if not has_plain_constructor(type(error)) or not all(map(is_constant_value, error.args)):
        unimplemented(f"constant folding raised {type(error).__name__}: {error}")
    raise_observed(type(error), *error.args)
