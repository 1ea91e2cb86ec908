"""Lazily guarded constants (Dynamo's `LazyConstantVariable` and
`ComputedLazyConstantVariable`, variables/lazy.py there): an int, float, bool or str read
from an argument, a global, a closure cell, or an attribute or item of one, is guarded on
its type only, until the trace needs its value. A counter that the frame only increments
and stores back (``COUNTER += 1``) is then computed at run time from the real global,
``operator.add(G['COUNTER'], 1)``, and a new count reuses the compiled code instead of
recompiling it.

Reading `value` (`as_python_constant`: a branch, a tensor operand, formatting, a fold)
guards it on its value first, so the trace never depends on an unguarded value.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from minidynamo.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.guards import GuardSet
    from minidynamo.variables.base import VariableTracker
    from torch._guards import Source

LAZY_TYPES = (int, float, bool, str)

# The operations whose result stays lazy, as Dynamo's `_COMPUTED_LAZY_CONSTANT_OPS`; an
# in-place `+=` of a scalar is its plain operation.
COMPUTED_OPERATORS: dict[Callable, Callable] = {
    operator.add: operator.add,
    operator.sub: operator.sub,
    operator.mul: operator.mul,
    operator.iadd: operator.add,
    operator.isub: operator.sub,
    operator.imul: operator.mul,
}


class _LazyValue(ConstantVariable):
    """A constant whose value guard is added by `realize`, on the first read of `value`."""

    @property
    def value(self) -> Any:  # type: ignore[override]
        self.realize()
        return self._value

    @value.setter
    def value(self, value: object) -> None:
        self._value = value

    @property
    def realized(self) -> bool:
        raise NotImplementedError

    def realize(self) -> None:
        raise NotImplementedError

    def peek(self) -> Any:
        """The value, for a computation whose result stays lazy: no guard."""
        return self._value

    def python_type(self) -> type:
        return type(self._value)  # its type (or its operands' types) is guarded already

    def is_python_constant(self) -> bool:
        return True


class LazyConstantVariable(_LazyValue):
    """A scalar read from `source`, guarded on its type; `realize` adds the guard on
    its value, through `on_realize`."""

    def __init__(
        self,
        value: object,
        *,
        source: Source,
        guards: GuardSet,
        on_realize: Callable[[], None],
        computable: bool = True,
    ) -> None:
        super().__init__(value, source=source)
        self._on_realize: Callable[[], None] | None = on_realize
        # A global's or a cell's value may stay lazy through `computed`; an item of a
        # container is realized by any operation on it, as Dynamo's LazyVariableTracker.
        self.computable = computable
        guards.add_type_match(source, value)

    @property
    def realized(self) -> bool:
        return self._on_realize is None

    def realize(self) -> None:
        if self._on_realize is not None:
            on_realize, self._on_realize = self._on_realize, None
            on_realize()

    def __repr__(self) -> str:
        state = "" if self.realized else "lazy "
        return f"ConstantVariable({state}{type(self._value).__name__}: {self._value!r})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.realized:
            codegen.load_const(self._value)
        else:
            self.source.reconstruct(codegen)  # type: ignore[union-attr]


class ComputedLazyConstantVariable(_LazyValue):
    """``op(*args)`` over lazy constants and constants, computed now from their values
    but guarded only on their types; rebuilt after the graph as ``op(*args)`` from the
    operands' sources unless the trace read its value (which realizes the operands)."""

    def __init__(self, op: Callable, args: list[ConstantVariable], value: object) -> None:
        super().__init__(value)
        self.op = op
        self.args = args
        self.nodes = 1 + sum(arg.nodes for arg in args if isinstance(arg, type(self)))

    @property
    def realized(self) -> bool:
        return all(arg.realized for arg in self.args if isinstance(arg, _LazyValue))

    def realize(self) -> None:
        for arg in self.args:
            if isinstance(arg, _LazyValue):
                arg.realize()

    def __repr__(self) -> str:
        return f"ConstantVariable(computed {type(self._value).__name__}: {self._value!r})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.realized:
            codegen.load_const(self._value)
            return
        codegen.load_callable(self.op)
        for arg in self.args:
            codegen(arg)
        codegen.call(len(self.args))


# The most operations one computation rebuilds (Dynamo's computed_lazy_constant_max_nodes):
# a counter incremented in a long loop is guarded on its value instead.
MAX_NODES = 64


def computed(fn: Callable, args: list[VariableTracker]) -> VariableTracker | None:
    """``fn(*args)`` kept lazy where it is an add, sub or mul of two constants of which
    one at least is lazy and not realized; None where the operation needs the values."""
    op = COMPUTED_OPERATORS.get(fn)
    if op is None or len(args) != 2:
        return None
    if not all(isinstance(arg, ConstantVariable) for arg in args):
        return None
    if not any(isinstance(arg, _LazyValue) and not arg.realized for arg in args):
        return None
    if any(isinstance(arg, LazyConstantVariable) and not arg.computable for arg in args):
        return None
    nodes = 1 + sum(arg.nodes for arg in args if isinstance(arg, ComputedLazyConstantVariable))
    if nodes > MAX_NODES:
        return None
    values = [arg.peek() if isinstance(arg, _LazyValue) else arg.value for arg in args]
    if not all(type(value) in LAZY_TYPES for value in values):
        return None
    try:
        value = op(*values)
    except Exception:  # raised with the values, guarded: the usual fold says so
        return None
    if type(value) not in LAZY_TYPES:
        return None
    return ComputedLazyConstantVariable(op, args, value)  # type: ignore[arg-type]


def realize(value: VariableTracker) -> VariableTracker:
    """`value`, guarded on its value first where it is a lazy constant: for an operation
    that keeps the value beyond the frame's return (``obj.attr = n``: Dynamo's setattr
    realizes its arguments), so that a new value compiles anew as Dynamo's does."""
    if isinstance(value, _LazyValue):
        value.realize()
    return value


def realize_numbers(args: list[VariableTracker]) -> None:
    """Realize each lazy int or float among `args` (not within them). Dynamo does where
    it asks a tracker's type: a builtin dispatched on its arguments' types (unless it
    keeps its result lazy: ``isinstance(n, int)`` guards ``n``), and the values a graph
    leaves on the stack (at a graph break, or one returned alone), for an int or a
    float may turn out a symbol; a bool or a str keeps its type guard only."""
    for arg in args:
        if isinstance(arg, _LazyValue) and type(arg.peek()) in (int, float):
            arg.realize()


def holds_unrealized(container: VariableTracker) -> bool:
    """Whether a list or tuple holds a lazy constant whose value is not guarded yet, or
    a dict a value not read yet."""
    from minidynamo.variables.dicts import ConstDictVariable

    if isinstance(container, ConstDictVariable):
        return container.has_unread()
    items = getattr(container, "items", None)
    return isinstance(items, list) and any(
        isinstance(item, _LazyValue) and not item.realized for item in items
    )


def realize_within(value: object, seen: set[int] | None = None) -> None:
    """Realize every lazy constant in `value` and the VariableTrackers it holds: for a
    value rebuilt after the side effects are replayed, when its source may have changed."""
    from minidynamo.variables.base import VariableTracker

    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, _LazyValue):
        value.realize()
    elif isinstance(value, VariableTracker):
        for item in vars(value).values():
            realize_within(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            realize_within(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            realize_within(item, seen)
