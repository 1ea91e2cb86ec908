"""Small VariableTrackers: the NULL of the call protocol, bound attributes, closure
cells, Python modules, `os.environ`, weak references and seeded `random.Random`s."""

from __future__ import annotations

import inspect
import random
import types
from typing import TYPE_CHECKING, Any

import torch
from minidynamo.exc import unimplemented
from minidynamo.source import AttrSource, LocalSource
from minidynamo.variables.base import VariableTracker

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source


class NullVariable(VariableTracker):
    """The NULL that 3.11+ pushes beside a callable (PUSH_NULL, LOAD_GLOBAL's low bit)."""

    def __repr__(self) -> str:
        return "NullVariable"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.push_null()


class GetAttrVariable(VariableTracker):
    """``obj.name`` for a method not yet called: calling it is ``obj.call_method(name)``."""

    def __init__(self, obj: VariableTracker, name: str) -> None:
        super().__init__()
        self.obj = obj
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.obj!r}, {self.name})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen(self.obj)
        codegen.load_attr(self.name)

    def python_type(self) -> type:
        """A tensor's method, bound (``callable(x.add)``): a builtin method, or a bound
        Python method for those torch defines in Python (``x.unique``). Likewise a C
        method of a builtin container (``items.pop``)."""
        from minidynamo.variables.tensor import TensorVariable

        if isinstance(self.obj, TensorVariable):
            attr = inspect.getattr_static(torch.Tensor, self.name, None)
            python_method = isinstance(attr, types.FunctionType)
            return types.MethodType if python_method else types.BuiltinMethodType
        from minidynamo.variables.dicts import ConstDictVariable, SetVariable
        from minidynamo.variables.lists import BaseListVariable

        if isinstance(self.obj, (BaseListVariable, ConstDictVariable, SetVariable)):
            attr = inspect.getattr_static(self.obj.python_type(), self.name, None)
            if isinstance(attr, types.MethodDescriptorType):
                return types.BuiltinMethodType
        return super().python_type()

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return self.obj.call_method(tx, self.name, args, kwargs)


class OpaqueMethodVariable(GetAttrVariable):
    """``obj.name`` for a C method of an object the tracer does not model
    (`generator.manual_seed` of a torch.Generator made in CPython): the read is kept, and
    the call breaks the graph, where the frame can resume (as Dynamo's GetAttrVariable);
    a break at the read itself would leave the whole frame to CPython."""

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo import graph_break_registry as gb

        owner = self.obj.python_type().__qualname__
        unimplemented(f"call of C method {owner}.{self.name}", gb.UNSUPPORTED_CALL)


class CellVariable(VariableTracker):
    """A closure cell. Cells made by the traced code hold a VariableTracker; cells of
    the compiled frame's own closure are read from the real cell when first used."""

    def __init__(
        self,
        contents: VariableTracker | None = None,
        *,
        source: Source | None = None,
        real_cell: types.CellType | None = None,
    ) -> None:
        super().__init__(source=source)
        self._contents = contents
        self.real_cell = real_cell

    def load(self, tx: InstructionTranslatorBase) -> VariableTracker:
        if self._contents is None and self.real_cell is not None:
            from minidynamo.builder import VariableBuilder

            try:
                value = self.real_cell.cell_contents
            except ValueError:
                unimplemented("read of an empty closure cell")
            # Without a source (the closure of a method found on a guarded class, as a
            # decorator's `func`) the contents are taken as they are now, unguarded.
            self._contents = VariableBuilder(tx, self.source)(value)
        if self._contents is None:
            unimplemented("read of a closure variable before assignment")
        return self._contents

    def store(self, tx: InstructionTranslatorBase, value: VariableTracker) -> None:
        tx.output.side_effects.note_mutation(self)
        if self.real_cell is not None:  # outlives the frame: replayed after the graph
            tx.output.side_effects.store_cell(self, value)
        self._contents = value

    @property
    def contents(self) -> VariableTracker | None:
        return self._contents

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """``cell.cell_contents`` (of ``fn.__closure__[i]``) is what the cell holds."""
        if name == "cell_contents":
            return self.load(tx)
        return super().var_getattr(tx, name)

    def is_new_object(self) -> bool:
        """A cell an inlined function made: one cell however many closures share it."""
        return self.source is None and self.real_cell is None

    def reconstruct(self, codegen: PyCodegen) -> None:
        """The cell itself (for a closure tuple): the compiled frame's own cell, or a new
        cell (one an inlined function made, as `make(n)`'s closure kept in a dict) built
        with its final contents."""
        if isinstance(self.source, LocalSource) and self.source.is_cell:
            codegen.load_closure(self.source.local_name)
            return
        if not self.is_new_object():
            unimplemented("rebuilding a closure cell of an outside function")
        codegen.load_callable(types.CellType)
        if self._contents is None:
            codegen.call(0)
            return
        codegen(self._contents)
        codegen.call(1)


class PythonModuleVariable(VariableTracker):
    """A module object (`torch`, `math`, a user module): attributes are looked up on it."""

    def __init__(self, value: types.ModuleType, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return f"PythonModuleVariable({self.value.__name__})"

    def python_type(self) -> type:
        return types.ModuleType

    def as_python_constant(self) -> object:
        return self.value

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.builder import VariableBuilder
        from minidynamo.trace_rules import is_library_module

        stored = tx.output.side_effects.read_attr(self, name, "module ")
        if stored is not None:
            return stored
        if not hasattr(self.value, name):
            from minidynamo.variables.exceptions import raise_observed

            raise_observed(
                AttributeError, f"module {self.value.__name__!r} has no attribute {name!r}"
            )
        source = None if self.source is None else AttrSource(self.source, name)
        value = getattr(self.value, name)
        # Library namespaces (torch, the stdlib) are assumed fixed: no guard per attribute.
        guard = not is_library_module(self.value)
        return VariableBuilder(tx, source, guard=guard)(value)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``mod.N += 1`` on a user module: recorded in SideEffects, replayed after the
        graph; functions of `mod` inlined later read the new value as their global."""
        from minidynamo.trace_rules import is_library_module

        if is_library_module(self.value) or self.source is None:
            unimplemented(f"attribute assignment .{name} on {self!r}")
        if vars(self.value) is tx.output.root_globals:  # a global store, by another name
            unimplemented(f"attribute assignment .{name} on the compiled function's module")
        tx.output.side_effects.store_attr(self, name, value)


class SettingsObjectVariable(VariableTracker):
    """An object of torch's process settings (`torch.backends.cuda.matmul`): an attribute
    read is answered now from the process, a constant (not guarded, as Dynamo folds the
    getters behind it); writing to it is not modelled."""

    def __init__(self, value: object, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return f"SettingsObjectVariable({type(self.value).__qualname__})"

    def python_type(self) -> type:
        return type(self.value)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.constant import ConstantVariable, is_constant_value

        try:
            value = getattr(self.value, name)
        except Exception as error:  # noqa: BLE001 - eager raises it: not modelled
            unimplemented(f"setting {name!r} of {self!r}: {type(error).__name__}")
        if not is_constant_value(value):
            unimplemented(f"setting {name!r} of {self!r} is a {type(value).__name__}")
        return ConstantVariable.create(value)


class EnvironVariable(VariableTracker):
    """`os.environ`, read only: lookups are answered now from the process's environment
    and guarded on the variables read (Dynamo does not guard them: a variable set
    between calls is not seen there); writing to it is not modelled."""

    READ_METHODS = frozenset({"get", "__getitem__", "__contains__", "__len__"})
    # Answered by a snapshot of the environment as a dict (``os.environ.copy()`` is one).
    SNAPSHOT_METHODS = frozenset({"items", "keys", "values", "copy"})

    def __init__(self, value: Any, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return "EnvironVariable()"

    def python_type(self) -> type:
        return type(self.value)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name not in self.READ_METHODS | self.SNAPSHOT_METHODS:
            unimplemented(f"os.environ.{name}")
        return GetAttrVariable(self, name)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.builder import VariableBuilder
        from minidynamo.variables.constant import fold

        if name in self.SNAPSHOT_METHODS:
            if self.source is not None:
                tx.output.guards.add_environ_snapshot(self.source)
            snapshot = VariableBuilder(tx, None)(dict(self.value))
            return snapshot if name == "copy" else snapshot.call_method(tx, name, args, kwargs)
        if name not in self.READ_METHODS:
            unimplemented(f"os.environ.{name}()")
        values = [arg.as_python_constant() for arg in args]
        kwvalues = {key: arg.as_python_constant() for key, arg in kwargs.items()}
        if self.source is not None and name == "__len__":
            tx.output.guards.add_environ_read(self.source, None)
        elif self.source is not None and values and isinstance(values[0], str):
            tx.output.guards.add_environ_read(self.source, values[0])
        return fold(getattr(self.value, name), values, kwvalues)


class SingleDispatchVariable(VariableTracker):
    """A `functools.singledispatch` function: a call is the implementation registered for
    its first argument's class, chosen now (`dispatch`) and traced. Its registry is
    guarded by length, as registrations add to it."""

    def __init__(self, value: Any, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value

    def __repr__(self) -> str:
        return f"SingleDispatchVariable({self.value.__qualname__})"

    def python_type(self) -> type:
        return type(self.value)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.builder import VariableBuilder

        if not args:
            unimplemented(f"{self.value.__qualname__}() without a positional argument")
        impl = self.value.dispatch(args[0].python_type())
        return VariableBuilder(tx, None)(impl).call_function(tx, args, kwargs)


class WeakRefVariable(VariableTracker):
    """A `weakref.ref`: calling it is its referent. One given to the frame reads the
    referent through `WeakRefCallSource` (``L['r']()``), guarded as any input (None once
    it is gone), as Dynamo's WeakRefVariable; one made in the trace is rebuilt as
    ``weakref.ref(referent, callback)`` (a reference the program drops is never made, and
    neither is its callback ever called in CPython)."""

    def __init__(
        self,
        referent: VariableTracker,
        callback: VariableTracker | None = None,
        *,
        source: Source | None = None,
    ) -> None:
        super().__init__(source=source)
        self.referent = referent
        self.callback = callback

    def __repr__(self) -> str:
        return f"WeakRefVariable({self.referent!r})"

    def python_type(self) -> type:
        import weakref

        return weakref.ref

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if args or kwargs:
            unimplemented("a weak reference called with arguments (eager raises)")
        return self.referent

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            super().reconstruct(codegen)
            return
        import weakref

        codegen.load_installed("__import_weakref_ref", weakref.ref, push_null=True)
        codegen(self.referent)
        if self.callback is None:
            codegen.call(1)
            return
        codegen(self.callback)
        codegen.call(2)


class WeakRefClassVariable(VariableTracker):
    """`weakref.ref` itself: ``weakref.ref(obj[, callback])`` is a `WeakRefVariable` of
    the object."""

    def __repr__(self) -> str:
        return "WeakRefClassVariable"

    def python_type(self) -> type:
        return type

    def as_python_constant(self) -> Any:
        import weakref

        return weakref.ref

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if not 1 <= len(args) <= 2 or kwargs:
            unimplemented("weakref.ref() with other than an object and a callback")
        callback = args[1] if len(args) == 2 else None
        if callback is not None and callback.is_python_constant():
            callback = None if callback.as_python_constant() is None else callback
        return WeakRefVariable(args[0], callback)


def _random_from_state(state: tuple) -> random.Random:
    """A `random.Random` in the given state: a generator the trace made, rebuilt."""
    generator = random.Random()
    generator.setstate(state)
    return generator


class RandomVariable(VariableTracker):
    """``random.Random(seed)`` made by the traced code with a constant seed: its draws
    depend only on that seed, so they are drawn while tracing, from a generator kept
    here in step with the program's, and are constants of the trace (the same values
    each call, as eager gives; Dynamo draws them before the graph from the state it
    saved while tracing, which gives the same values as graph inputs). Where the object
    outlives the frame it is rebuilt in its final state."""

    def __init__(self, generator: random.Random) -> None:
        super().__init__()
        self.generator = generator

    def __repr__(self) -> str:
        return "RandomVariable()"

    def python_type(self) -> type:
        return random.Random

    def is_new_object(self) -> bool:
        return True

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_installed("___random_from_state", _random_from_state, push_null=True)
        codegen.load_const(self.generator.getstate())
        codegen.call(1)

    def _draw(self, name: str, args: list[VariableTracker]) -> VariableTracker:
        from minidynamo.variables.constant import ConstantVariable
        from minidynamo.variables.symnode import specialize

        values = [specialize(arg) for arg in args]
        return ConstantVariable(getattr(self.generator, name)(*values))

    def method_random(self, tx: InstructionTranslatorBase) -> VariableTracker:
        return self._draw("random", [])

    def method_randint(
        self, tx: InstructionTranslatorBase, a: VariableTracker, b: VariableTracker
    ) -> VariableTracker:
        return self._draw("randint", [a, b])

    def method_randrange(
        self, tx: InstructionTranslatorBase, *args: VariableTracker
    ) -> VariableTracker:
        return self._draw("randrange", list(args))

    def method_uniform(
        self, tx: InstructionTranslatorBase, a: VariableTracker, b: VariableTracker
    ) -> VariableTracker:
        return self._draw("uniform", [a, b])

    def method_gauss(
        self, tx: InstructionTranslatorBase, *args: VariableTracker
    ) -> VariableTracker:
        return self._draw("gauss", list(args))

    def method_seed(self, tx: InstructionTranslatorBase, seed: VariableTracker) -> VariableTracker:
        return self._draw("seed", [seed])

    def method_choice(self, tx: InstructionTranslatorBase, seq: VariableTracker) -> VariableTracker:
        """``seq[r._randbelow(len(seq))]``, as CPython's `choice`: the item's tracker."""
        items = seq.unpack_var_sequence(tx)
        if not items:
            unimplemented("random.Random.choice of an empty sequence")
        return items[self.generator._randbelow(len(items))]

    def method_shuffle(
        self, tx: InstructionTranslatorBase, seq: VariableTracker
    ) -> VariableTracker:
        """A list shuffled in place: the permutation depends only on its length."""
        from minidynamo.variables.constant import ConstantVariable
        from minidynamo.variables.lists import ListVariable, check_mutable

        if type(seq) is not ListVariable:
            unimplemented(f"random.Random.shuffle of {seq!r}")
        order = list(range(len(seq.items)))
        self.generator.shuffle(order)
        check_mutable(tx, seq)
        seq.items[:] = [seq.items[i] for i in order]
        return ConstantVariable(None)
