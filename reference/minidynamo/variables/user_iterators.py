"""Iterating a user object as CPython's ``iter()`` does: its ``__iter__`` (stepped with
the result's ``__next__`` when that is a user object too, often the object itself), or
without one the old sequence protocol, ``__getitem__(0)``, ``(1)``... until IndexError.
Items are made one at a time: a ``for`` loop's body runs between the ``__next__`` calls,
as in eager.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import TYPE_CHECKING

from minidynamo.exc import ObservedException
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.lists import IteratorVariable, iterator_of

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker
    from minidynamo.variables.user_defined import UserDefinedObjectVariable


class _Indexable:
    """The smallest old-protocol iterable: what ``iter()`` makes of it names the type."""

    def __getitem__(self, index: int) -> None:
        raise IndexError(index)


SEQUENCE_ITERATOR = type(iter(_Indexable()))

_MISSING = object()


def _raised(e: ObservedException, *types: type[BaseException]) -> bool:
    """Whether the traced code's exception is one of `types` (a subclass included)."""
    return issubclass(e.exception.python_type(), types)


class UserIteratorVariable(IteratorVariable):
    """An iterator that is a user object: each item is its ``__next__``, inlined in the
    translator running then; StopIteration ends it."""

    def __init__(self, obj: UserDefinedObjectVariable) -> None:
        super().__init__()
        self.obj = obj

    def __repr__(self) -> str:
        return f"UserIteratorVariable({self.obj!r})"

    def python_type(self) -> type:
        return self.obj.python_type()

    def next_variable(self) -> VariableTracker | None:
        from minidynamo.symbolic_convert import current_tx

        try:
            return self.obj.call_method(current_tx(), "__next__", [], {})
        except ObservedException as e:
            if _raised(e, StopIteration):
                return None
            raise

    def reconstruct(self, codegen: PyCodegen) -> None:
        self.obj.reconstruct(codegen)


class SequenceIteratorVariable(IteratorVariable):
    """``iter(obj)`` of a class with ``__getitem__`` and no ``__iter__``."""

    def __init__(self, obj: UserDefinedObjectVariable) -> None:
        super().__init__()
        self.obj = obj
        self.items = self._items()

    def __repr__(self) -> str:
        return f"SequenceIteratorVariable({self.obj!r})"

    def python_type(self) -> type:
        return SEQUENCE_ITERATOR

    def _items(self) -> Iterator[VariableTracker]:
        from minidynamo.symbolic_convert import current_tx

        index = 0
        while True:
            try:
                item = self.obj.call_method(
                    current_tx(), "__getitem__", [ConstantVariable(index)], {}
                )
            except ObservedException as e:
                if _raised(e, IndexError, StopIteration):
                    return
                raise
            yield item
            index += 1

    def next_variable(self) -> VariableTracker | None:
        return next(self.items, None)


def user_iterator(tx: InstructionTranslatorBase, obj: UserDefinedObjectVariable) -> VariableTracker:
    """``iter(obj)`` of a user object; TypeError where CPython raises one."""
    from minidynamo.variables.user_defined import UserDefinedObjectVariable

    cls = obj.python_type()
    iter_method = inspect.getattr_static(cls, "__iter__", _MISSING)
    if iter_method is _MISSING and inspect.getattr_static(cls, "__getitem__", None) is not None:
        return SequenceIteratorVariable(obj)
    if iter_method is _MISSING or iter_method is None:  # `__iter__ = None` opts out
        raise_observed(TypeError, f"{cls.__name__!r} object is not iterable")
    result = obj.call_method(tx, "__iter__", [], {})
    if isinstance(result, IteratorVariable):
        return result
    returned = result.python_type()
    if inspect.getattr_static(returned, "__next__", None) is None:
        raise_observed(TypeError, f"iter() returned non-iterator of type {returned.__name__!r}")
    if isinstance(result, UserDefinedObjectVariable):
        return UserIteratorVariable(result)
    return iterator_of(tx, result)
