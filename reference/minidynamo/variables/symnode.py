"""`SymNodeVariable`: a symbolic int, bool or float in the graph (seed "符号形状 / Symbolic
Shapes": "SymInt behaves like an int but records every operation on it in the FX graph").

It holds the FX proxy of the node that computes it (a placeholder ``l_n_`` / ``s0``, or
``getitem = size[0]``) and a SymInt/SymBool/SymFloat example value. Arithmetic and
comparisons become nodes (`BuiltinVariable` routes them through `OutputGraph.call`). Where
Python needs the actual value (an `if`, `range(n)`, a slice bound, a list index), the
value is specialized: `ShapePolicy.evaluate` returns it and records the guard that makes it
hold (``if a.shape[0] * 2 < 16`` -> ``2*L['a'].size()[0] >= 16``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import torch
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable

if TYPE_CHECKING:
    import torch.fx
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from torch._guards import Source

SYM_TYPES = (torch.SymInt, torch.SymBool, torch.SymFloat)

_PYTHON_TYPES = {torch.SymInt: int, torch.SymBool: bool, torch.SymFloat: float}


def is_symbolic(value: object) -> bool:
    """Whether `value` (a number, or a sequence of them) holds a symbol."""
    if isinstance(value, (tuple, list)):
        return any(is_symbolic(item) for item in value)
    return isinstance(value, SYM_TYPES) and not value.node.expr.is_number


class SymNodeVariable(VariableTracker):
    """A SymInt, SymBool or SymFloat computed by (or fed into) the FX graph."""

    def __init__(
        self,
        tx: InstructionTranslatorBase,
        proxy: torch.fx.Proxy,
        example_value: torch.SymInt | torch.SymBool | torch.SymFloat,
        *,
        source: Source | None = None,
    ) -> None:
        super().__init__(source=source)
        # The translator it was made in: where a guard on its value is reported to be added.
        self.tx = tx
        self.proxy = proxy
        self.example_value = example_value
        self._as_tensor: VariableTracker | None = None

    def __repr__(self) -> str:
        return f"SymNodeVariable({self.example_value})"

    def python_type(self) -> type:
        return _PYTHON_TYPES[type(self.example_value)]

    def as_proxy(self) -> Any:
        return self.proxy

    def evaluate(self) -> bool | int | float:
        """The value this compile saw, guarded on (the value is specialized)."""
        return self._evaluate(self.example_value)

    def bool_value(self) -> bool:
        """Truthiness: ``if n`` guards ``Ne(s0, 0)``, leaving n symbolic."""
        if isinstance(self.example_value, torch.SymBool):
            return bool(self.evaluate())
        return bool(self._evaluate(self.example_value != 0))

    def _evaluate(self, value: torch.SymInt | torch.SymBool | torch.SymFloat) -> Any:
        filename, lineno, _line = self.tx.source_location()
        where = f"{filename}:{lineno} in {self.tx.code.co_name}"
        return self.tx.output.shapes.evaluate(value, where)

    def has_number_method(self, name: str) -> bool:
        """A public method of the number that its Sym type has too (``n.bit_length``)."""
        return (
            not name.startswith("_")
            and callable(getattr(type(self.example_value), name, None))
            and hasattr(self.python_type(), name)
        )

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.misc import GetAttrVariable

        if self.has_number_method(name):
            return GetAttrVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        """``n.bit_length()``: a graph node, as Dynamo records it; where the Sym type
        computes it from the concrete value, the result is specialized (and guarded)."""
        if self.has_number_method(name):
            return tx.output.call(tx, "call_method", name, [self, *args], kwargs)
        return super().call_method(tx, name, args, kwargs)

    def reconstruct(self, codegen: PyCodegen) -> None:
        # An input is reloaded from the frame; a computed value is a graph output.
        if self.source is not None:
            self.source.reconstruct(codegen)
        elif self.python_type() is float:
            # As Dynamo: a float leaves the graph as a float64 scalar tensor, and
            # ``.item()`` makes it a float again.
            codegen.load_graph_output(self.as_tensor().as_proxy().node)
            codegen.call_method("item", [])
        else:
            codegen.load_graph_output(self.proxy.node)

    def as_tensor(self) -> VariableTracker:
        """``torch.scalar_tensor(n, dtype=torch.float64)`` in the graph, made once (a
        rebuild may run twice)."""
        if self._as_tensor is None:
            self._as_tensor = self.tx.output.call(
                self.tx,
                "call_function",
                torch.scalar_tensor,
                [self],
                {"dtype": ConstantVariable(torch.float64)},
            )
        return self._as_tensor


def guards_added_here(tx: InstructionTranslatorBase) -> AbstractContextManager[None]:
    """Log on the `dynamic` channel each guard that the body adds, at the line `tx` is
    on: ``eval 2*s0 >= 16 [guard added] at script.py:5 in fn``. Wraps what may specialize
    a symbol, e.g. iterating a tensor over its symbolic first dim."""
    filename, lineno, _line = tx.source_location()
    return tx.output.shapes.guards_added_at(f"{filename}:{lineno} in {tx.code.co_name}")


def specialize(vt: VariableTracker) -> Any:
    """The Python constant of `vt`; a SymNodeVariable is specialized to its value (with
    a guard), for the places that need a real number: `range(n)`, slice bounds, list
    indices and repeats, `int(n)`, formatting."""
    if isinstance(vt, SymNodeVariable):
        return vt.evaluate()
    return vt.as_python_constant()


def specialize_all(vts: list[VariableTracker]) -> list[VariableTracker]:
    """`vts` with each SymNodeVariable replaced by the constant it is specialized to."""
    return [
        ConstantVariable(specialize(vt)) if isinstance(vt, SymNodeVariable) else vt for vt in vts
    ]
