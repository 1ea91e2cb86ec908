"""`InstructionTranslator`: the symbolic stack machine (seed "Rewriting CPython in
Python": `InstructionTranslatorBase`, about one method per bytecode).

It walks a frame's decoded instructions with a stack and locals of VariableTrackers,
dispatching each instruction to its handler in `opcodes/`. The top-level translator
ends at RETURN by compiling the graph; the inlining translator runs a called user
function inside the same graph and hands its return value back to the caller.
"""

from __future__ import annotations

import linecache
import logging
import os
import types
from typing import TYPE_CHECKING, Any

from minidynamo import config, logs
from minidynamo.builder import VariableBuilder
from minidynamo.bytecode import Instruction, decode
from minidynamo.exc import Unsupported, unimplemented
from minidynamo.opcodes import load_all
from minidynamo.source import GlobalSource, LocalSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.functions import globals_source
from minidynamo.variables.misc import CellVariable, NullVariable
from minidynamo.variables.tensor import TensorVariable

if TYPE_CHECKING:
    from collections.abc import Callable

    from torch._guards import Source

    from minidynamo.output_graph import OutputGraph
    from minidynamo.variables.functions import BaseUserFunctionVariable

trace_log = logs.get_logger("trace")
HANDLERS = load_all()


class LazyVariableTracker:
    """A frame argument not yet read: wrapped (and guarded) on its first load, so
    arguments the trace never reads add no guards and no graph inputs."""

    def __init__(self, value: object, source: Source) -> None:
        self.value = value
        self.source = source


class InstructionTranslatorBase:
    """The state of one symbolically executed frame: its stack, locals and cells."""

    def __init__(
        self,
        *,
        output: OutputGraph,
        code: types.CodeType,
        f_globals: dict,
        f_builtins: dict,
        symbolic_locals: dict[str, Any],
        cells: dict[str, CellVariable],
        global_source: Callable[[str], Source | None],
        inline_depth: int = 0,
    ) -> None:
        self.output = output
        self.code = code
        self.instructions: list[Instruction] = decode(code)
        self.index_of = {id(inst): i for i, inst in enumerate(self.instructions)}
        self.instruction_pointer = 0
        self.stack: list[VariableTracker] = []
        self.symbolic_locals = symbolic_locals
        self.cells = cells
        self.f_globals = f_globals
        self.f_builtins = f_builtins
        self.global_source = global_source
        self.inline_depth = inline_depth
        self.lineno = code.co_firstlineno
        self.kw_names: tuple[str, ...] | None = None  # KW_NAMES, read by the next CALL
        self.done = False

    # The stack.

    def push(self, value: VariableTracker) -> None:
        self.stack.append(value)

    def pop(self) -> VariableTracker:
        return self.stack.pop()

    def popn(self, n: int) -> list[VariableTracker]:
        """The top `n` values, bottom first."""
        if n == 0:
            return []
        values = self.stack[-n:]
        del self.stack[-n:]
        return values

    def rotate(self, n: int) -> None:
        """Move the top of the stack `n - 1` places down (ROT_TWO, ROT_THREE ...)."""
        self.stack.insert(-n + 1, self.stack.pop())

    # The main loop.

    def run(self) -> None:
        while not self.done:
            self.step()

    def step(self) -> None:
        if self.instruction_pointer >= len(self.instructions):
            unimplemented("execution ran past the last instruction")
        inst = self.instructions[self.instruction_pointer]
        self.instruction_pointer += 1
        if inst.lineno is not None:
            self.lineno = inst.lineno
        if trace_log.isEnabledFor(logging.DEBUG):
            trace_log.debug("TRACE %s %s %s", inst.opname, _argrepr(inst), self.stack)
        handler = HANDLERS.get(inst.opname)
        try:
            if handler is None:
                unimplemented(f"opcode {inst.opname}")
            if inst.exn_tab_entry is not None and not self.is_cleanup_handler(inst):
                unimplemented("code inside a try block (exceptions are not modelled)")
            handler(self, inst)
        except Unsupported as e:
            filename, lineno, line = self.source_location()
            e.user_stack.append((filename, lineno, self.code.co_name, line))
            raise

    def is_cleanup_handler(self, inst: Instruction) -> bool:
        """A 3.12+ inlined comprehension's handler only restores locals and re-raises:
        tracing as if it were absent is exact, unlike a user's `except`."""
        start = self.index_of[id(inst.exn_tab_entry.target)]
        for handler_inst in self.instructions[start:]:
            if handler_inst.opname == "RERAISE":
                return True
            if handler_inst.opname not in ("SWAP", "POP_TOP", "STORE_FAST"):
                return False
        return False

    def jump(self, inst: Instruction) -> None:
        self.instruction_pointer = self.index_of[id(inst.target)]

    def source_location(self) -> tuple[str, int, str]:
        """(file name, line, source line) of the instruction being translated."""
        filename = self.code.co_filename
        line = linecache.getline(filename, self.lineno).strip()
        return os.path.basename(filename), self.lineno, line

    # Variables.

    def realize(self, name: str, value: Any) -> VariableTracker:
        if isinstance(value, LazyVariableTracker):
            value = VariableBuilder(self, value.source)(value.value)
            self.symbolic_locals[name] = value
        return value

    def load_local(self, name: str) -> VariableTracker:
        if name in self.symbolic_locals:
            return self.realize(name, self.symbolic_locals[name])
        if name in self.cells:  # 3.13 loads cells for closures with LOAD_FAST
            return self.cells[name]
        unimplemented(f"local variable {name!r} referenced before assignment")

    def store_local(self, name: str, value: VariableTracker) -> None:
        if isinstance(value, NullVariable):  # restoring a variable that was unbound
            self.symbolic_locals.pop(name, None)
            return
        if isinstance(value, TensorVariable):
            value.set_name_hint(name)
        self.symbolic_locals[name] = value

    def load_global(self, name: str) -> VariableTracker:
        if name in self.f_globals:
            return VariableBuilder(self, self.global_source(name))(self.f_globals[name])
        if name in self.f_builtins:
            return VariableBuilder(self, None)(self.f_builtins[name])
        unimplemented(f"name {name!r} is not defined")

    # Calls and returns.

    def call_function(
        self,
        fn: VariableTracker,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> None:
        self.push(fn.call_function(self, args, kwargs))

    def inline_user_function_return(
        self,
        fn: BaseUserFunctionVariable,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return InliningInstructionTranslator.inline_call(self, fn, args, kwargs)

    def return_value(self, value: VariableTracker) -> None:
        raise NotImplementedError


def _argrepr(inst: Instruction) -> str:
    """The argument as the seed's trace lines show it: `LOAD_GLOBAL y`."""
    if inst.target is not None:
        return f"to {inst.target.offset}"
    if isinstance(inst.argval, types.CodeType):
        return f"<code object {inst.argval.co_name}>"
    return "" if inst.argval is None else str(inst.argval)


class InstructionTranslator(InstructionTranslatorBase):
    """Translates the frame that was intercepted: its arguments are the graph's inputs."""

    def __init__(
        self,
        output: OutputGraph,
        code: types.CodeType,
        args: tuple,
        f_globals: dict,
        f_builtins: dict,
        closure: tuple[types.CellType, ...] | None,
    ) -> None:
        params = code.co_varnames[: len(args)]
        symbolic_locals: dict[str, Any] = {
            name: LazyVariableTracker(value, LocalSource(name))
            for name, value in zip(params, args, strict=True)
        }
        cells = {
            name: CellVariable(source=LocalSource(name, is_cell=True), real_cell=cell)
            for name, cell in zip(code.co_freevars, closure or (), strict=False)
        }
        super().__init__(
            output=output,
            code=code,
            f_globals=f_globals,
            f_builtins=f_builtins,
            symbolic_locals=symbolic_locals,
            cells=cells,
            global_source=GlobalSource,
        )
        for name in code.co_cellvars:
            # A parameter that is also a cell is read with LOAD_DEREF in the new code.
            value = symbolic_locals.pop(name, None)
            initial = None
            if value is not None:
                initial = VariableBuilder(self, LocalSource(name, is_cell=True))(value.value)
            self.cells[name] = CellVariable(initial)
        self.output_instructions: list[Instruction] = []

    def return_value(self, value: VariableTracker) -> None:
        self.output_instructions = self.output.compile_subgraph(self, value)
        self.done = True


class InliningInstructionTranslator(InstructionTranslatorBase):
    """Runs a called user function in the caller's graph (seed: inlining)."""

    @classmethod
    def inline_call(
        cls,
        parent: InstructionTranslatorBase,
        fn: BaseUserFunctionVariable,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if parent.inline_depth >= config.inline_depth_limit:
            unimplemented(f"inlining deeper than {config.inline_depth_limit} calls")
        code = fn.get_code()
        symbolic_locals: dict[str, Any] = fn.bind_args(parent, args, kwargs)
        cells = fn.closure_cells(parent)
        for name in code.co_cellvars:
            cells[name] = CellVariable(symbolic_locals.pop(name, None))
        tx = cls(
            output=parent.output,
            code=code,
            f_globals=fn.get_globals(),
            f_builtins=parent.f_builtins,
            symbolic_locals=symbolic_locals,
            cells=cells,
            global_source=globals_source(parent, fn.get_globals()),
            inline_depth=parent.inline_depth + 1,
        )
        tx.run()
        return tx.symbolic_result

    def return_value(self, value: VariableTracker) -> None:
        self.symbolic_result = value
        self.done = True
