"""`wrap_fx_proxy`: the result of a graph node (its FakeTensor example value) -> a
VariableTracker (seed: `wrap_fx_proxy`, the other half of `VariableBuilder`, for values
the graph computes rather than values the frame holds). Called by OutputGraph for every
node the trace records.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import torch
from torch.fx.experimental.symbolic_shapes import guard_scalar

from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.lists import ListVariable, NamedTupleVariable, SizeVariable, TupleVariable
from minidynamo.variables.symnode import SYM_TYPES, SymNodeVariable, is_symbolic
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from minidynamo.symbolic_convert import InstructionTranslatorBase


def wrap_fx_proxy(
    tx: InstructionTranslatorBase, proxy: torch.fx.Proxy, example_value: Any
) -> VariableTracker:
    """The VariableTracker of a new graph node, given its FakeTensor example value."""
    if isinstance(example_value, torch.Tensor):
        return TensorVariable(proxy, example_value)
    if is_symbolic(example_value) and isinstance(example_value, SYM_TYPES):
        return SymNodeVariable(tx, proxy, example_value)
    if isinstance(example_value, torch.Size) and not is_symbolic(example_value):
        return SizeVariable.of(example_value)
    if isinstance(example_value, (tuple, list)):
        items = [
            wrap_fx_proxy(
                tx,
                tx.output.create_proxy(
                    tx, "call_function", operator.getitem, (proxy, i), {}, example=item
                ),
                item,
            )
            for i, item in enumerate(example_value)
        ]
        if isinstance(example_value, torch.Size):
            return SizeVariable(items, proxy=proxy)
        if type(example_value) is list:
            return ListVariable(items)
        if type(example_value) is tuple:
            return TupleVariable(items)
        return NamedTupleVariable(items, type(example_value))
    if example_value is None:
        return ConstantVariable(None)
    if isinstance(example_value, (bool, int, float, *SYM_TYPES)):
        # A static number (a SymInt whose value is known is one): no graph value needed.
        tx.output.graph.erase_node(proxy.node)
        return ConstantVariable(guard_scalar(example_value))
    if isinstance(example_value, str):
        # ``v.hex()`` of a SymFloat: v specialized, guarded; its node stays, as Dynamo's.
        return ConstantVariable(example_value)
    unimplemented(f"graph operation returned a {type(example_value).__name__}")
