"""The iterator builtins: ``iter``, ``next``, ``enumerate``, ``zip``, ``reversed``, ``map``
and ``filter``, called from `BuiltinVariable` (builtin.py).

``enumerate``, ``zip``, ``map`` and ``filter`` return a `LazyIteratorVariable`: their items
are made as the program asks for them, so an endless iterable (``zip(items, count())``)
stays finite and a generator's body runs between the consumer's steps, as in CPython.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NoReturn

from minidynamo.bytecode import add_push_null
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_none
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.lists import (
    IteratorVariable,
    ListIteratorVariable,
    TupleVariable,
    iterator_of,
)

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase


def call_iter(
    tx: InstructionTranslatorBase, obj: VariableTracker, sentinel: VariableTracker | None = None
) -> VariableTracker:
    """``iter(obj)``, or ``iter(fn, sentinel)``: our generator calling ``fn`` is inlined,
    so ``fn`` runs between the consumer's steps as in CPython."""
    if sentinel is None:
        return iterator_of(tx, obj)
    from minidynamo.polyfills.builtins import callable_iterator
    from minidynamo.variables.functions import inline_polyfill

    return inline_polyfill(tx, callable_iterator, [obj, sentinel], {})


def call_next(
    tx: InstructionTranslatorBase, it: VariableTracker, default: VariableTracker | None = None
) -> VariableTracker:
    if not isinstance(it, IteratorVariable):
        unimplemented(f"next() of {it!r}")
    from minidynamo.variables.generators import GeneratorVariable

    if default is None and isinstance(it, GeneratorVariable):
        return it.method_next(tx)  # its StopIteration carries the return value
    item = it.next_variable()
    if item is None:
        if default is None:
            raise_observed(StopIteration)
        return default
    return item


def call_enumerate(
    tx: InstructionTranslatorBase, iterable: VariableTracker, start: VariableTracker | None = None
) -> VariableTracker:
    """Pairs made as they are asked for: the iterable may be endless."""
    first = 0 if start is None else start.as_python_constant()
    pairs = (
        TupleVariable([ConstantVariable(i), item])
        for i, item in enumerate(lazy_items(tx, iterable), first)
    )
    return LazyIteratorVariable(pairs, enumerate)


def call_zip(
    tx: InstructionTranslatorBase,
    *iterables: VariableTracker,
    strict: VariableTracker | None = None,
) -> VariableTracker:
    """Rows made as they are asked for, ending at the shortest iterable (which may be
    endless: ``zip(items, itertools.count())``); ``strict=True`` checks the lengths."""
    iterators = [call_iter(tx, iterable) for iterable in iterables]
    check = strict is not None and strict.bool_value()

    def rows() -> Iterator[VariableTracker]:
        while iterators:
            row = []
            for iterator in iterators:
                item = iterator.next_variable()
                if item is None:
                    if check and row:
                        zip_length_error(len(row), "shorter")
                    if check and not row:
                        for index, other in enumerate(iterators[1:], 1):
                            if other.next_variable() is not None:
                                zip_length_error(index, "longer")
                    return
                row.append(item)
            yield TupleVariable(row)

    # ``zip(..., strict=True)`` is run to its end at a break instead: it needs a keyword.
    return LazyIteratorVariable(rows(), zip, arguments=None if check else iterators)


def zip_length_error(index: int, relation: str) -> NoReturn:
    """CPython's ValueError of ``zip(strict=True)``: argument `index` (0-based) ended
    before, or went on after, the ones before it."""
    before = "argument 1" if index == 1 else f"arguments 1-{index}"
    raise_observed(ValueError, f"zip() argument {index + 1} is {relation} than {before}")


def call_reversed(tx: InstructionTranslatorBase, seq: VariableTracker) -> VariableTracker:
    return ListIteratorVariable(list(reversed(seq.unpack_var_sequence(tx))))


def lazy_items(
    tx: InstructionTranslatorBase, iterable: VariableTracker
) -> Iterator[VariableTracker]:
    """The items one at a time: a generator's body runs between the consumer's steps,
    so the graph interleaves their operations as Dynamo's does."""
    return items_of(call_iter(tx, iterable))


def items_of(iterator: VariableTracker) -> Iterator[VariableTracker]:
    """`iterator`'s items, one at a time, as the consumer asks for them."""
    while (item := iterator.next_variable()) is not None:
        yield item


class LazyIteratorVariable(IteratorVariable):
    """The iterator `map`, `filter` and `zip` return (`cls`): items made as they are
    asked for. A range's iterator also knows how many are left (`length_hint`).
    `arguments`, where known, rebuild it as ``cls(*arguments)`` at a graph break."""

    def __init__(
        self,
        items: Iterator[VariableTracker],
        cls: type,
        *,
        length_hint: Callable[[], int] | None = None,
        arguments: list[VariableTracker] | None = None,
    ) -> None:
        super().__init__()
        self.items = items
        self.cls = cls
        self.length_hint = length_hint
        self.arguments = arguments
        self.remaining: list[VariableTracker] | None = None  # run to its end at a break

    def method_length_hint(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if self.length_hint is None:
            unimplemented(f"__length_hint__ of {self.cls.__name__}")
        return ConstantVariable(self.length_hint())

    def python_type(self) -> type:
        return self.cls

    def next_variable(self) -> VariableTracker | None:
        return next(self.items, None)

    def is_new_object(self) -> bool:
        return True

    def reconstruct(self, codegen: PyCodegen) -> None:
        """Alive at a graph break, a ``map``, ``filter`` or ``zip`` is made again over its
        function and iterators (a generator among them run to its end), so that the
        function runs after the break, in CPython, as Dynamo rebuilds them. Another
        (``enumerate(gen)`` between two ``next``) is run to its end in the graph and
        rebuilt over the items it had left, as a generator is and as Dynamo rebuilds an
        enumerate."""
        from minidynamo.symbolic_convert import current_tx
        from minidynamo.variables.generators import rebuild_remaining, run_to_end

        if self.arguments is not None:
            codegen.load_builtin(self.cls)
            codegen.instructions[-1:] = add_push_null(codegen.instructions[-1:])
            for argument in self.arguments:
                codegen(argument)
            codegen.call(len(self.arguments))
            return
        if self.remaining is None:
            self.remaining = run_to_end(self, current_tx(), self.cls.__name__)
        rebuild_remaining(codegen, self.remaining)


def call_map(
    tx: InstructionTranslatorBase, fn: VariableTracker, *iterables: VariableTracker
) -> VariableTracker:
    iterators = [call_iter(tx, iterable) for iterable in iterables]
    rows = zip(*[items_of(iterator) for iterator in iterators], strict=False)
    results = (fn.call_function(tx, list(row), {}) for row in rows)
    return LazyIteratorVariable(results, map, arguments=[fn, *iterators])


def call_filter(
    tx: InstructionTranslatorBase, fn: VariableTracker, iterable: VariableTracker
) -> VariableTracker:
    """The items whose ``fn(item)`` (or the item itself, for ``filter(None, ...)``) is true."""

    def keep(item: VariableTracker) -> bool:
        if is_constant_none(fn):
            return item.truth(tx)
        return fn.call_function(tx, [item], {}).truth(tx)

    iterator = call_iter(tx, iterable)
    kept = (item for item in items_of(iterator) if keep(item))
    return LazyIteratorVariable(kept, filter, arguments=[fn, iterator])
