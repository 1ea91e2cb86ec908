"""``Tensor.register_hook(hook)`` in the traced code, as Dynamo does it.

On a tensor the frame was given (it has a source) the hook is registered after the graph
ran, by the side-effect replay (`SideEffects.register_hook`): the backward pass that
calls it runs after the frame anyway. On a tensor the graph computes, it cannot be: the
tensor exists only inside the graph. There the hook is traced into a subgraph and the
graph registers it itself with the ``register_hook`` higher-order op, whose output is the
same tensor (later uses read the op's output, so the hook is on the tensor they use).
A hook that is not a pure function of the gradient breaks the graph, as in Dynamo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from minidynamo.exc import unimplemented
from minidynamo.variables.base import VariableTracker
from torch._higher_order_ops.register_hook import register_hook_op

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.tensor import TensorVariable


class RemovableHandleVariable(VariableTracker):
    """The handle `register_hook` returns. The trace does not model removing the hook."""

    def python_type(self) -> type:
        return torch.utils.hooks.RemovableHandle

    def is_new_object(self) -> bool:
        return True

    def call_method(
        self,
        tx: InstructionTranslatorBase,
        name: str,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        unimplemented(f"RemovableHandle.{name}() of a hook registered in the trace")

    def reconstruct(self, codegen: PyCodegen) -> None:
        unimplemented("the handle of a hook registered in the trace outlives the graph")


def register_hook(
    tx: InstructionTranslatorBase, tensor: TensorVariable, hook: VariableTracker
) -> VariableTracker:
    if not tensor.example_value.requires_grad:
        unimplemented("Tensor.register_hook on a tensor that does not require grad")
    handle = RemovableHandleVariable()
    if tensor.source is not None:
        tx.output.side_effects.register_hook(tensor, hook, handle)
        return handle
    from minidynamo.variables.higher_order_ops import align_lifted, speculate_subgraph

    # Its input is named as the hook's parameter (`g`), as Dynamo names it.
    code = getattr(hook, "get_code", lambda: None)()
    names = list(code.co_varnames[:1]) if code is not None and code.co_argcount else None
    body = speculate_subgraph(tx, hook, [tensor], "Tensor.register_hook's hook", names)
    if len(body.outputs) != 1 or body.kind is not type(tensor):
        unimplemented("Tensor.register_hook's hook does not return one gradient")
    # The hook returns the gradient itself, where a traced function returns a tuple.
    output = body.tracer.graph.output_node()
    output.args = (output.args[0][0],)
    lifted = align_lifted([body.tracer])
    graph = tx.output.install_subgraph(tx, "hook_body", body.tracer)
    tensor.proxy = tx.output.create_proxy(
        tx,
        "call_function",
        register_hook_op,
        (tensor.as_proxy(), graph, *lifted),
        {},
        example=tensor.example_value,
    )
    return handle
