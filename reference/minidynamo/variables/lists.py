"""Lists, tuples, `torch.Size` and list iterators (seed: `ListVariable`, `BUILD_LIST`).

A sequence is a Python list of VariableTrackers. Lists created inside the frame are
mutated in place, as CPython would; lists that came from the frame's inputs are
mutated too, and `check_mutable` records them for `SideEffects` to replay.
"""

from __future__ import annotations

import numbers
import operator
import types
from typing import TYPE_CHECKING, Any

import torch
from minidynamo import graph_break_registry as gb
from minidynamo.exc import unimplemented
from minidynamo.trace_rules import is_library_file, is_namedtuple
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_none
from minidynamo.variables.exceptions import raise_observed
from minidynamo.variables.symnode import SymNodeVariable, specialize

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


def check_mutable(tx: InstructionTranslatorBase, vt: VariableTracker) -> None:
    """`vt` is about to change in place: an input's new contents are replayed later."""
    tx.output.side_effects.mutate_container(vt)


def constant_index(index: VariableTracker, kind: str = "list") -> Any:
    """The int or slice indexing a `kind` ("list", "tuple"); another constant raises
    TypeError in the traced program, as CPython does."""
    value = specialize(index)
    if isinstance(value, (str, float, type(None), tuple)):
        name = type(value).__name__
        raise_observed(TypeError, f"{kind} indices must be integers or slices, not {name}")
    if isinstance(value, numbers.Integral) and not isinstance(value, int):
        return operator.index(value)  # a NumPy integer (`items[np.int64(1)]`)
    if not isinstance(value, (int, slice)):
        unimplemented(f"sequence index of type {type(value).__name__}")
    return value


class BaseListVariable(VariableTracker):
    """Common behaviour of lists and tuples."""

    python_cls: type = list

    def __init__(self, items: list[VariableTracker], *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.items = list(items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(length={len(self.items)})"

    def python_type(self) -> type:
        return self.python_cls

    def as_python_constant(self) -> Any:
        return self.python_cls(item.as_python_constant() for item in self.items)

    def as_proxy(self) -> Any:
        return self.python_cls(item.as_proxy() for item in self.items)

    def bool_value(self) -> bool:
        return bool(self.items)

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        return list(self.items)

    def is_new_object(self) -> bool:
        return self.source is None

    def reconstruct(self, codegen: PyCodegen) -> None:
        # An input is returned as the very same object; a new sequence is rebuilt.
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        # Dynamo's codegen first asks a new sequence whether it is a constant, which reads
        # its items in order up to the first that is not: the lazy constants read on the
        # way are guarded on their values (``(n, x * 2)`` guards ``n``, ``(x * 2, n)`` not).
        self.is_python_constant()
        self.reconstruct_contents(codegen)

    def reconstruct_contents(self, codegen: PyCodegen) -> None:
        """A new sequence with the current items (an input's are replayed this way)."""
        for item in self.items:
            codegen(item)
        codegen.build(self.python_cls, len(self.items))

    def new(self, items: list[VariableTracker]) -> BaseListVariable:
        return type(self)(items)

    # Methods shared by lists and tuples.

    def method_len(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ConstantVariable(len(self.items))

    def method_getitem(
        self, tx: InstructionTranslatorBase, index: VariableTracker
    ) -> VariableTracker:
        kind = "tuple" if issubclass(self.python_type(), tuple) else "list"
        key = constant_index(index, kind)
        if isinstance(key, slice):
            return self.new(self.items[key])
        if not -len(self.items) <= key < len(self.items):
            raise_observed(IndexError, f"{kind} index out of range")
        return self.items[key]

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        # The very item list, not a copy: as CPython's list iterator, it sees the items
        # appended while the loop (or a generator reading the list) runs.
        cls = self.python_type()
        kind = next((it for base, it in _ITERATOR_TYPES.items() if issubclass(cls, base)), None)
        return ListIteratorVariable(self.items, kind=kind)

    def method_add_op(
        self, tx: InstructionTranslatorBase, other: VariableTracker
    ) -> VariableTracker:
        if type(other) is not type(self):
            unimplemented(f"{self!r} + {other!r}")
        return self.new(self.items + other.items)  # type: ignore[attr-defined]

    def method_mul_op(
        self, tx: InstructionTranslatorBase, count: VariableTracker
    ) -> VariableTracker:
        return self.new(self.items * specialize(count))

    def method_contains(
        self, tx: InstructionTranslatorBase, value: VariableTracker
    ) -> VariableTracker:
        from minidynamo.variables.operators import compare_identity_or_equal_if_known

        # An item whose ``==`` is a one-element tensor decides nothing yet: an item
        # found later (the tensor itself) is found whatever its value.
        undecided = False
        for item in self.items:
            equal = compare_identity_or_equal_if_known(tx, item, value)
            if equal:
                return ConstantVariable(True)
            undecided = undecided or equal is None
        if undecided:
            unimplemented(
                "data-dependent control flow: `in` decided by a tensor comparison",
                gb.DATA_DEPENDENT_BRANCH,
            )
        return ConstantVariable(False)

    def method_index(
        self,
        tx: InstructionTranslatorBase,
        value: VariableTracker,
        *bounds: VariableTracker,
    ) -> VariableTracker:
        """Identity first, then ``==``, as `list.index`: a tensor finds itself. `bounds`
        are the optional start and stop of the search."""
        from minidynamo.variables.constant import fold
        from minidynamo.variables.operators import compare_identity_or_equal

        limits = [b.as_python_constant() for b in bounds]
        start, stop = (*limits, None, None)[:2]
        for i in range(len(self.items))[start:stop]:
            if compare_identity_or_equal(tx, self.items[i], value):
                return ConstantVariable(i)
        # Not found: CPython's own ValueError (its message differs between versions).
        return fold(self.as_python_constant().index, [value.as_python_constant(), *limits], {})

    def method_count(
        self, tx: InstructionTranslatorBase, value: VariableTracker
    ) -> VariableTracker:
        from minidynamo.variables.operators import compare_identity_or_equal

        return ConstantVariable(
            sum(compare_identity_or_equal(tx, item, value) for item in self.items)
        )


class TupleVariable(BaseListVariable):
    python_cls = tuple

    def method_add_op(
        self, tx: InstructionTranslatorBase, other: VariableTracker
    ) -> VariableTracker:
        # tuple + tuple is a tuple, whatever their classes (a namedtuple's + is tuple's);
        # with a torch.Size on either side it is a torch.Size.
        if not isinstance(other, TupleVariable):
            unimplemented(f"{self!r} + {other!r}")
        items = self.items + other.items
        if SizeVariable not in (type(self), type(other)):
            return TupleVariable(items)
        if not all(item.python_type() is int for item in items):
            unimplemented(f"torch.Size + a tuple of non-ints: {other!r}")
        return SizeVariable(items)


class SizeVariable(TupleVariable):
    """`tensor.shape` / `tensor.size()`: a tuple of constants, and of SymNodeVariables
    for symbolic dims. A size read in the graph (`size = l_x_.size()`) keeps its node:
    given whole to an op, it is that node, as in Dynamo's graphs (`torch.ones(size)`)."""

    python_cls = torch.Size

    def __init__(
        self,
        items: list[VariableTracker],
        *,
        proxy: torch.fx.Proxy | None = None,
        source: Source | None = None,
    ) -> None:
        super().__init__(items, source=source)
        self.proxy = proxy

    @staticmethod
    def of(size: torch.Size) -> SizeVariable:
        return SizeVariable([ConstantVariable(int(d)) for d in size])

    def as_python_constant(self) -> Any:
        return torch.Size([item.as_python_constant() for item in self.items])

    def is_new_object(self) -> bool:
        return False  # rebuilt as a constant, or from graph values: no identity to keep

    def method_numel(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """The product of the dims (symbolic where a dim is)."""
        from minidynamo.variables.operators import call_operator

        result: VariableTracker = ConstantVariable(1)
        for item in self.items:
            result = call_operator(tx, operator.mul, [result, item])
        return result

    def as_proxy(self) -> Any:
        """A constant size, or (symbolic dims) a ``torch.Size([s0, 8])`` node: as Dynamo,
        an op given a size gets a torch.Size, not a tuple (the two print alike but
        count as one op more)."""
        if self.is_python_constant():
            return self.as_python_constant()
        if self.proxy is not None:
            return self.proxy
        from minidynamo.variables.symnode import SymNodeVariable

        items = [item.as_proxy() for item in self.items]
        tx = next(item.tx for item in self.items if isinstance(item, SymNodeVariable))
        example = torch.Size(
            [
                item.example_value if isinstance(item, SymNodeVariable) else proxy
                for item, proxy in zip(self.items, items, strict=True)
            ]
        )
        return tx.output.create_proxy(
            tx, "call_function", torch.Size, (items,), {}, example=example
        )

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.is_python_constant():
            codegen.load_const(self.as_python_constant())
            return
        codegen.load_callable(torch.Size)
        for item in self.items:
            codegen(item)
        codegen.build(tuple, len(self.items))
        codegen.call(1)


# The field names namedtuple() sets on the class it makes (tuples of str).
NAMEDTUPLE_CLASS_DATA = frozenset({"_fields", "__match_args__"})


class NamedTupleVariable(TupleVariable):
    """A namedtuple, or a structseq result of a torch op (`x.max(dim=0)` with
    `.values`/`.indices`)."""

    def __init__(
        self, items: list[VariableTracker], tuple_cls: type, *, source: Source | None = None
    ) -> None:
        super().__init__(items, source=source)
        self.tuple_cls = tuple_cls

    def python_type(self) -> type:
        return self.tuple_cls

    def new(self, items: list[VariableTracker]) -> BaseListVariable:
        return TupleVariable(items)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        # namedtuple classes have _fields; torch's structseq return types __match_args__.
        fields = getattr(self.tuple_cls, "_fields", None) or self.tuple_cls.__match_args__
        if name in fields:
            return self.items[list(fields).index(name)]
        if name in NAMEDTUPLE_CLASS_DATA and is_namedtuple(self.tuple_cls):
            # What namedtuple() writes on the class once: fixed with the class's type.
            return ConstantVariable.create(getattr(self.tuple_cls, name))
        own = self.own_attribute(name)
        if own is not None:
            from minidynamo.variables.class_lookup import wrap_class_attribute

            return wrap_class_attribute(tx, self, own, None)
        return super().var_getattr(tx, name)

    def own_attribute(self, name: str) -> object:
        """A method, property, staticmethod or classmethod written in user code on the
        namedtuple class (a `typing.NamedTuple` body), or None: the generated methods
        (``_replace``, ``_asdict``) and tuple's are modelled on their own; its
        classmethod ``_make`` is traced (it calls ``tuple.__new__``)."""
        for klass in self.tuple_cls.__mro__:
            if klass is tuple:
                return None
            if name in vars(klass):
                attr = vars(klass)[name]
                fn = attr.fget if isinstance(attr, property) else getattr(attr, "__func__", attr)
                user = isinstance(fn, types.FunctionType) and not is_library_file(
                    fn.__code__.co_filename
                )
                return attr if user or isinstance(attr, classmethod) else None
        return None

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        # A namedtuple takes its fields as arguments, a structseq one sequence.
        codegen.load_callable(self.tuple_cls)
        for item in self.items:
            codegen(item)
        if is_namedtuple(self.tuple_cls):
            codegen.call(len(self.items))
            return
        codegen.build(tuple, len(self.items))
        codegen.call(1)


class ListVariable(BaseListVariable):
    python_cls = list

    def method_setitem(
        self, tx: InstructionTranslatorBase, index: VariableTracker, value: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        key = constant_index(index)
        if isinstance(key, slice):
            self.items[key] = value.unpack_var_sequence(tx)
        else:
            self.items[key] = value
        return ConstantVariable(None)

    def method_delitem(
        self, tx: InstructionTranslatorBase, index: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        del self.items[constant_index(index)]
        return ConstantVariable(None)

    def method_append(
        self, tx: InstructionTranslatorBase, value: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.items.append(value)
        return ConstantVariable(None)

    def method_extend(
        self, tx: InstructionTranslatorBase, values: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        if isinstance(values, IteratorVariable):  # appended as they come: it may read the list
            while (item := values.next_variable()) is not None:
                self.items.append(item)
        else:
            self.items.extend(values.unpack_var_sequence(tx))
        return ConstantVariable(None)

    def method_iadd_op(
        self, tx: InstructionTranslatorBase, values: VariableTracker
    ) -> VariableTracker:
        self.method_extend(tx, values)
        return self

    def method_imul_op(
        self, tx: InstructionTranslatorBase, count: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.items *= specialize(count)
        return self

    def method_insert(
        self, tx: InstructionTranslatorBase, index: VariableTracker, value: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        self.items.insert(index.as_python_constant(), value)
        return ConstantVariable(None)

    def method_pop(
        self, tx: InstructionTranslatorBase, index: VariableTracker | None = None
    ) -> VariableTracker:
        check_mutable(tx, self)
        if not self.items:
            unimplemented("pop from an empty list")
        return self.items.pop(-1 if index is None else index.as_python_constant())

    def method_remove(
        self, tx: InstructionTranslatorBase, value: VariableTracker
    ) -> VariableTracker:
        check_mutable(tx, self)
        del self.items[self.method_index(tx, value).as_python_constant()]
        return ConstantVariable(None)

    def method_clear(self, tx: InstructionTranslatorBase) -> VariableTracker:
        check_mutable(tx, self)
        self.items.clear()
        return ConstantVariable(None)

    def method_reverse(self, tx: InstructionTranslatorBase) -> VariableTracker:
        check_mutable(tx, self)
        self.items.reverse()
        return ConstantVariable(None)

    def method_sort(
        self,
        tx: InstructionTranslatorBase,
        *,
        key: VariableTracker | None = None,
        reverse: VariableTracker | None = None,
    ) -> VariableTracker:
        check_mutable(tx, self)
        if key is not None and not is_constant_none(key):
            from minidynamo.polyfills.builtins import list_sort
            from minidynamo.variables.functions import inline_polyfill

            kwargs = {"key": key} if reverse is None else {"key": key, "reverse": reverse}
            return inline_polyfill(tx, list_sort, [self], kwargs)
        descending = bool(reverse and reverse.as_python_constant())
        self.items[:] = ConstantVariable.create(
            sorted(self.as_python_constant(), reverse=descending)
        ).items  # type: ignore[attr-defined]
        return ConstantVariable(None)

    def method_copy(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return ListVariable(self.items)


class IteratorVariable(VariableTracker):
    """An iterator: `for` loops, `next` and consuming builtins take its items one by one."""

    def next_variable(self) -> VariableTracker | None:
        """The next item, or None when the iterator is exhausted."""
        raise NotImplementedError

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        items = []
        while (item := self.next_variable()) is not None:
            items.append(item)
        return items

    def method_iter(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return self


def iterator_of(tx: InstructionTranslatorBase, iterable: VariableTracker) -> IteratorVariable:
    """``iter(iterable)``: an iterator is its own; a value that models ``__iter__`` makes
    one (a range makes its items lazily); any other iterable's items are unrolled."""
    if isinstance(iterable, IteratorVariable):
        return iterable
    make = getattr(iterable, "method_iter", None)
    if make is not None:
        return make(tx)
    return ListIteratorVariable(iterable.unpack_var_sequence(tx))


# The iterator classes of the builtin sequences, by the class they iterate.
_ITERATOR_TYPES: dict[type, type] = {list: type(iter([])), tuple: type(iter(()))}


class ListIteratorVariable(IteratorVariable):
    """The iterator of an unrolled `for` loop: items are known at trace time (a list's
    own item list, read as it grows). With a source, a tuple iterator of the frame's
    inputs (its items guarded, as Dynamo's): the items it gives are taken from the real
    one after the graph, by `SideEffects`."""

    def __init__(
        self,
        items: list[VariableTracker],
        *,
        source: Source | None = None,
        kind: type | None = None,
    ) -> None:
        super().__init__(source=source)
        self.items = items
        self.index = 0
        self.kind = kind  # list_iterator, tuple_iterator: where the iterable is known

    def __repr__(self) -> str:
        return f"ListIteratorVariable(length={len(self.items)}, index={self.index})"

    def python_type(self) -> type:
        if self.source is not None:
            return type(iter(()))
        # Where the iterable is not known (``m.parameters()``), a list iterator: what
        # `isinstance(params, torch.Tensor)` in library code asks is answered alike.
        return self.kind or type(iter([]))

    def advance(self, index: int) -> None:
        if index > self.index:
            from minidynamo.symbolic_convert import current_tx

            side_effects = current_tx().output.side_effects
            if self.source is not None:
                side_effects.advance_iterator(self)
            else:
                # Taking an item changes the iterator even where the trace made it: a
                # generator run to its end at a graph break may not (as Dynamo's).
                side_effects.note_mutation_of_new(self)
        self.index = index

    def method_length_hint(self, tx: InstructionTranslatorBase) -> VariableTracker:
        """What is left, as CPython's list and tuple iterators count it."""
        if self.kind is None:
            unimplemented(f"__length_hint__ of {self!r}")
        return ConstantVariable(max(len(self.items) - self.index, 0))

    def next_variable(self) -> VariableTracker | None:
        if self.index >= len(self.items):
            return None
        self.advance(self.index + 1)
        return self.items[self.index - 1]

    def unpack_var_sequence(self, tx: InstructionTranslatorBase) -> list[VariableTracker]:
        rest = self.items[self.index :]
        self.advance(len(self.items))
        return rest

    def reconstruct(self, codegen: PyCodegen) -> None:
        """``iter([...])`` of the items not yet taken: what the code after a graph break
        goes on consuming (``m.parameters()`` passed on to a library function); an
        input iterator is reloaded (the items taken are taken from it after the graph)."""
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        codegen.load_callable(iter)
        for item in self.items[self.index :]:
            codegen(item)
        codegen.build(list, len(self.items) - self.index)
        codegen.call(1)


class SliceVariable(VariableTracker):
    """A slice with a symbolic bound, ``x[: x.shape[0] // 2]``: indexing a tensor with it
    puts the bound into the graph (``l_x_[slice(None, floordiv, None)]``) instead of
    specializing the size. Where Python needs a real slice (a list, a string) its bounds
    are specialized, with guards (as in Dynamo)."""

    def __init__(self, items: list[VariableTracker]) -> None:
        super().__init__()
        self.items = items  # start, stop, step

    @staticmethod
    def create(bounds: list[VariableTracker]) -> VariableTracker:
        """``slice(*bounds)``: a constant unless a bound is symbolic."""
        items = [*bounds, *[ConstantVariable(None)] * (3 - len(bounds))]
        if any(isinstance(item, SymNodeVariable) for item in items):
            return SliceVariable(items)
        return ConstantVariable(slice(*(item.as_python_constant() for item in items)))

    def __repr__(self) -> str:
        return f"SliceVariable({', '.join(map(repr, self.items))})"

    def python_type(self) -> type:
        return slice

    def as_python_constant(self) -> Any:
        return slice(*(specialize(item) for item in self.items))

    def is_python_constant(self) -> bool:
        return False  # as_python_constant would specialize the symbolic bound

    def as_proxy(self) -> Any:
        return slice(*(item.as_proxy() for item in self.items))

    def reconstruct(self, codegen: PyCodegen) -> None:
        for item in self.items:
            codegen(item)
        codegen.build(slice, 3)
