"""`PyCodegen`: bytecode that rebuilds Python values after the graph ran (seed: "each
VariableTracker has a `reconstruct` method"), and the modified code object itself.

A VariableTracker with a source is reloaded from the frame (`LOAD_FAST x`); a tensor
computed by the graph is read from the graph's output tuple (`graph_out_0[i]`);
containers are rebuilt item by item (BUILD_TUPLE ...).
"""

from __future__ import annotations

import builtins
import dataclasses
import types
from typing import TYPE_CHECKING, Any

from minidynamo.bytecode import (
    Instruction,
    add_push_null,
    assemble,
    create_binary_subscr,
    create_call_function,
    create_call_method,
    create_instruction,
    create_load_attr,
    create_load_closure,
    create_load_const,
    create_load_fast,
    create_load_global,
    create_load_method,
    create_push_null,
    create_return_value,
    create_store_fast,
    decode,
)

if TYPE_CHECKING:
    import torch.fx
    from torch._guards import Source

    from minidynamo.output_graph import OutputGraph
    from minidynamo.variables.base import VariableTracker

_BUILD = {
    list: "BUILD_LIST",
    tuple: "BUILD_TUPLE",
    set: "BUILD_SET",
    dict: "BUILD_MAP",
    slice: "BUILD_SLICE",
}

# The frame set-up that precedes the body on 3.11+ and must stay in the new code.
_PROLOGUE = frozenset({"MAKE_CELL", "COPY_FREE_VARS", "RESUME"})


class PyCodegen:
    """Accumulates instructions; ``codegen(vt)`` emits the rebuilding of `vt`."""

    def __init__(self, output: OutputGraph, graph_output_var: str) -> None:
        self.output = output
        self.graph_output_var = graph_output_var
        self.instructions: list[Instruction] = []
        self.graph_outputs: dict[torch.fx.Node, int] = {}
        self.closures: set[str] = set()  # the frame's cells put into a closure tuple

    def __call__(self, value: VariableTracker) -> None:
        value.reconstruct(self)

    def extend(self, instructions: list[Instruction]) -> None:
        self.instructions.extend(instructions)

    # Loads.

    def load_fast(self, name: str) -> None:
        self.extend(create_load_fast(name))

    def load_deref(self, name: str) -> None:
        self.extend([create_instruction("LOAD_DEREF", argval=name)])

    def store_fast(self, name: str) -> None:
        self.extend(create_store_fast(name))

    def load_closure(self, name: str) -> None:
        self.closures.add(name)
        self.extend(create_load_closure(name))

    def store_deref(self, name: str) -> None:
        self.extend([create_instruction("STORE_DEREF", argval=name)])

    def push_null(self) -> None:
        self.extend(create_push_null())

    def load_builtin(self, fn: Any) -> None:
        """A builtin by its name (``LOAD_GLOBAL print``) unless a global shadows it."""
        name = fn.__name__
        if name in self.output.root_globals or getattr(builtins, name, None) is not fn:
            qualified = f"{fn.__module__}.{fn.__qualname__}"
            name = "__import_" + qualified.replace(".", "_dot_")
            self.output.install_global(name, fn)
        self.load_global(name)

    def load_global(self, name: str) -> None:
        self.extend(create_load_global(name, push_null=False))

    def load_const(self, value: Any) -> None:
        self.extend(create_load_const(value))

    def load_attr(self, name: str) -> None:
        self.extend(create_load_attr(name))

    def subscr(self) -> None:
        self.extend(create_binary_subscr())

    def load_graph_output(self, node: torch.fx.Node) -> None:
        """``graph_out_0[i]``: the graph output `node`, added to the outputs if new."""
        index = self.graph_outputs.setdefault(node, len(self.graph_outputs))
        self.load_fast(self.graph_output_var)
        self.load_const(index)
        self.subscr()

    def load_import(self, obj: Any) -> None:
        """Load `obj`, installed as a global named after it (``__import_torch_dot_...``)."""
        qualified = f"{obj.__module__}.{obj.__qualname__}"
        name = "__import_" + qualified.replace(".", "_dot_")
        self.output.install_global(name, obj)
        self.load_global(name)

    def load_callable(self, obj: Any) -> None:
        """Load `obj` as `load_import` does, ready for `call`."""
        self.load_import(obj)
        self.instructions[-1:] = add_push_null(self.instructions[-1:])

    # Building and calling.

    def build(self, cls: type, count: int) -> None:
        self.extend([create_instruction(_BUILD[cls], argval=count)])

    def call(self, nargs: int) -> None:
        self.extend(create_call_function(nargs, push_null=False))

    def call_method_of(self, value: VariableTracker, name: str) -> None:
        """``value.name()``."""
        self(value)
        self.extend(create_load_method(name))
        self.extend(create_call_method(0))

    def call_method(self, name: str, local_args: list[str]) -> None:
        """``TOS.name(*local_args)``, the arguments read from locals."""
        self.extend(create_load_method(name))
        for arg in local_args:
            self.load_fast(arg)
        self.extend(create_call_method(len(local_args)))

    def new_temp(self) -> str:
        """A fresh local of the generated code (``___tmp_0``)."""
        self.output.temp_count += 1
        return f"___tmp_{self.output.temp_count - 1}"

    def call_compiled_graph(self, name: str, inputs: list[Source]) -> None:
        """``graph_out_0 = __compiled_fn_N(inputs...)``."""
        self.extend(create_load_global(name, push_null=True))
        for source in inputs:
            source.reconstruct(self)
        self.call(len(inputs))
        self.extend(create_store_fast(self.graph_output_var))

    def return_value(self) -> list[Instruction]:
        return create_return_value()


def modified_code(code: types.CodeType, body: list[Instruction]) -> types.CodeType:
    """`code` with its body replaced by `body` (its 3.11+ prologue kept)."""
    prologue = []
    for inst in decode(code):
        if inst.opname not in _PROLOGUE:
            break
        prologue.append(dataclasses.replace(inst, offset=None, arg=None))
    for inst in body:
        if inst.lineno is None:
            inst.lineno = code.co_firstlineno
    return assemble(prologue + body, code)
