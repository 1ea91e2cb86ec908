"""`PyCodegen`: bytecode that rebuilds Python values after the graph ran (seed: "each
VariableTracker has a `reconstruct` method"), and the modified code object itself.

A VariableTracker with a source is reloaded from the frame (`LOAD_FAST x`); a tensor
computed by the graph is read from the graph's output tuple (`graph_out_0[i]`), and so
is the one tensor a frame returns when it mutates nothing, an input too (Dynamo's common
case, `InstructionTranslator.returns_graph_tensor`);
containers are rebuilt item by item (BUILD_TUPLE ...). An object the trace created and
that is used more than once (returned and stored, ``return l, l``) is built once and
kept in a temporary local, so that it stays one object, as in eager.
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from minidynamo.bytecode import (
    Instruction,
    add_push_null,
    assemble,
    create_binary_subscr,
    create_call_function,
    create_call_method,
    create_dup_top,
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
    decode_prefix,
)
from minidynamo.exc import unimplemented

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
    """Accumulates instructions; ``codegen(vt)`` emits the rebuilding of `vt`.

    `shared` holds the new objects known to be rebuilt more than once (a first pass over
    the same values counts `uses`): the first rebuild stores the object in a temporary
    local (`tempvars`), each later one loads it from there."""

    def __init__(
        self,
        output: OutputGraph,
        graph_output_var: str,
        shared: frozenset[int] = frozenset(),
    ) -> None:
        self.output = output
        self.graph_output_var = graph_output_var
        self.instructions: list[Instruction] = []
        self.graph_outputs: dict[torch.fx.Node, int] = {}
        self.closures: set[str] = set()  # the frame's cells put into a closure tuple
        self.shared = shared
        self.uses: collections.Counter[int] = collections.Counter()
        self.tempvars: dict[int, str | None] = {}  # None: being built

    def __call__(self, value: VariableTracker) -> None:
        if not value.is_new_object():
            value.reconstruct(self)
            return
        key = id(value)
        self.uses[key] += 1
        if key not in self.shared:
            value.reconstruct(self)
            return
        if key in self.tempvars:
            temp = self.tempvars[key]
            if temp is None:
                unimplemented(f"{value!r} contains itself")
            self.load_fast(temp)
            return
        self.tempvars[key] = None
        value.reconstruct(self)
        temp = self.tempvars[key] = self.new_temp()
        self.extend(create_dup_top())
        self.store_fast(temp)

    def shared_objects(self) -> frozenset[int]:
        """The new objects this pass rebuilt more than once."""
        return frozenset(key for key, count in self.uses.items() if count > 1)

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
            name = self.output.install_import(fn, f"{fn.__module__}.{fn.__qualname__}")
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
        self.load_global(self.output.install_import(obj, f"{obj.__module__}.{obj.__qualname__}"))

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

    def call_method(self, name: str, args: list[Callable[[], None]]) -> None:
        """``TOS.name(*args)``, each argument pushed by its emitter."""
        self.extend(create_load_method(name))
        for emit in args:
            emit()
        self.extend(create_call_method(len(args)))

    def load_installed(self, name: str, obj: Any, *, push_null: bool = False) -> None:
        """`obj` installed as the global `name` and loaded (ready for `call` if
        `push_null`)."""
        self.output.install_global(name, obj)
        load = create_load_global(name, push_null=False)
        self.extend(add_push_null(load) if push_null else load)

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
    prologue = [
        dataclasses.replace(inst, offset=None, arg=None) for inst in decode_prefix(code, _PROLOGUE)
    ]
    for inst in body:
        if inst.lineno is None:
            inst.lineno = code.co_firstlineno
    return assemble(prologue + body, code)
