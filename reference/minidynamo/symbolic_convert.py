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

import torch

from minidynamo import config, logs, resume
from minidynamo import graph_break_registry as gb
from minidynamo.builder import VariableBuilder
from minidynamo.bytecode import (
    Instruction,
    create_call_function,
    create_load_fast,
    create_load_global,
    create_push_null,
    create_rerun,
    create_return_value,
    create_rot_n,
    decode,
    stack_effect,
)
from minidynamo.exc import Unsupported, unimplemented
from minidynamo.opcodes import load_all
from minidynamo.side_effects import DELETED
from minidynamo.source import GlobalSource, LocalSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.ctx_manager import WithExitFunctionVariable
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
        grad_enabled = torch.is_grad_enabled()  # a traced `with no_grad()` switches it
        try:
            while not self.done:
                self.step()
        finally:
            torch._C._set_grad_enabled(grad_enabled)

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
                unimplemented(f"opcode {inst.opname}", gb.UNSUPPORTED_OPCODE)
            if inst.exn_tab_entry is not None and not self.is_cleanup_handler(inst):
                unimplemented("code inside a try block (exceptions are not modelled)")
            handler(self, inst)
        except Unsupported as e:
            filename, lineno, line = self.source_location()
            e.user_stack.append((filename, lineno, self.code.co_name, line))
            self.locate_break(e, self.instruction_pointer - 1)
            raise

    def locate_break(self, error: Unsupported, index: int) -> None:
        """Where the frame could break its graph for `error` (only the top-level frame)."""

    def is_cleanup_handler(self, inst: Instruction) -> bool:
        """A 3.12+ inlined comprehension's handler only restores locals and re-raises, a
        `with` block's handler calls ``__exit__`` with the exception: tracing as if it
        were absent is exact while nothing raises, unlike a user's `except`."""
        start = self.index_of[id(inst.exn_tab_entry.target)]
        if [i.opname for i in self.instructions[start : start + 2]] == _WITH_HANDLER:
            return True
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
        side_effects = self.output.side_effects
        stored = None
        if self.f_globals is self.output.root_globals:
            # A global assigned or changed in place by the trace reads back its new value.
            stored = side_effects.global_values.get(name)
            stored = stored or side_effects.mutated_container(GlobalSource(name).name)
            if stored is not None and stored is not DELETED:
                return stored
        if name in self.f_globals and stored is not DELETED:
            return VariableBuilder(self, self.global_source(name))(self.f_globals[name])
        if name in self.f_builtins:
            return VariableBuilder(self, None)(self.f_builtins[name])
        unimplemented(f"name {name!r} is not defined")

    def delete_global(self, name: str) -> None:
        """``del NAME``, the global read first (and so guarded): the generated code
        deletes it only where eager would find it."""
        if self.output.side_effects.global_values.get(name) is DELETED:
            unimplemented(f"del of global {name!r} raises NameError")
        if name not in self.output.side_effects.global_values:
            if name not in self.f_globals:
                unimplemented(f"del of global {name!r} raises NameError")
            VariableBuilder(self, GlobalSource(name))(self.f_globals[name])
        self.output.side_effects.delete_global(name)

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
        break_span: tuple[int, int] | None = None,
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
        # Set when translation restarts after an Unsupported: stop there and break.
        self.break_span = break_span

    def return_value(self, value: VariableTracker) -> None:
        self.output_instructions = self.output.compile_subgraph(self, [value])
        self.output_instructions += create_return_value()
        self.done = True

    # Graph breaks (seed "Graph Breaks").

    def step(self) -> None:
        if self.break_span is not None and self.instruction_pointer == self.break_span[0]:
            self.break_graph(*self.break_span)
        else:
            super().step()

    def locate_break(self, error: Unsupported, index: int) -> None:
        """A call breaks before it runs; a branch on a tensor breaks at its jump. Not in
        loops (as Dynamo: the frame is skipped), nor with closures (a continuation has none)."""
        inst = self.instructions[index]
        is_branch = error.gb_id == gb.DATA_DEPENDENT_BRANCH and inst.opname in _BRANCHES
        if not (inst.opname in _CALLS or is_branch):
            return
        if self.code.co_cellvars or self.code.co_freevars or self.has_backedge(index):
            return
        if any(isinstance(value, WithExitFunctionVariable) for value in self.stack):
            return  # inside a `with` block: Dynamo resumes inside it, we run eagerly
        first = index
        while self.instructions[first - 1].opname in _CALL_PREFIXES:
            first -= 1
        error.break_span = (first, index)

    def has_backedge(self, index: int) -> bool:
        """A jump back to before `index` ahead of the next return: we are in a loop."""
        offset = self.instructions[index].offset
        for inst in self.instructions[index:]:
            if inst.opname in ("RETURN_VALUE", "RETURN_CONST"):
                return False
            if inst.target is not None and inst.target.offset < offset:
                return True
        return False

    def break_graph(self, first: int, last: int) -> None:
        """Compile the graph so far, rebuild what instructions `first`..`last` read from
        the stack, keep the rest of the stack and the live locals in locals, run the
        instructions in CPython and return what the continuation returns."""
        inst = self.instructions[last]
        results = 0 if inst.target is not None else 1  # a branch pushes nothing, a call one
        effect = sum(stack_effect(self.instructions[i]) for i in range(first, last + 1))
        kept = self.stack[: len(self.stack) + effect - results]
        read = self.stack[len(kept) :]
        targets = [last + 1]
        if inst.target is not None:
            targets.append(self.index_of[id(inst.target)])
        live = self.live_locals(targets)
        stored = {name: value for name, value in self.symbolic_locals.items()
                  if name in live and not _is_unchanged_local(name, value)}  # fmt: skip
        slots = resume.stack_slots(kept, results)
        for slot, value in zip(slots, kept, strict=False):
            if slot is not None:
                stored[slot] = value
            elif not create_push_null():
                unimplemented("graph break with a method call pending (3.10 has no PUSH_NULL)")
        body = self.output.compile_subgraph(self, read, stored)
        rerun = [
            i for index in range(first, last + 1) for i in create_rerun(self.instructions[index])
        ]
        continuations = [self.call_resume(target, slots, results, live) for target in targets]
        if len(continuations) == 2:
            rerun[-1].target = continuations[1][0]
        self.output_instructions = body + rerun + [i for c in continuations for i in c]
        self.done = True

    def live_locals(self, targets: list[int]) -> list[str]:
        live = set().union(*(resume.live_locals(self.instructions, t) for t in targets))
        bound = [name for name in self.code.co_varnames if name in self.symbolic_locals]
        return [name for name in bound if name in live]

    def call_resume(
        self, target: int, slots: list[str | None], results: int, live: list[str]
    ) -> list[Instruction]:
        """``return __resume_at_<offset>_<n>(*results, *kept stack, *live locals)``: the
        instruction's results are on the stack, the rest of the stack in locals."""
        fn = resume.resume_function(
            self.code, self.instructions, target, slots, results, live, self.f_globals
        )
        self.output.install_global(fn.name, fn.fn)
        instructions = create_load_global(fn.name, push_null=False)
        instructions += create_rot_n(results + 1)
        for name in fn.params[results:]:
            instructions += create_load_fast(name)
        instructions += create_call_function(len(fn.params), push_null=True)
        return instructions + create_return_value()


# Instructions a graph break can run in CPython: calls, and the calls' set-up (3.11+).
_CALLS = frozenset(
    "CALL CALL_FUNCTION CALL_FUNCTION_KW CALL_METHOD CALL_KW CALL_FUNCTION_EX".split()
)
_CALL_PREFIXES = frozenset({"PRECALL", "KW_NAMES"})
_WITH_HANDLER = ["PUSH_EXC_INFO", "WITH_EXCEPT_START"]
_BRANCHES = frozenset(
    """POP_JUMP_IF_FALSE POP_JUMP_IF_TRUE POP_JUMP_FORWARD_IF_FALSE POP_JUMP_FORWARD_IF_TRUE
    POP_JUMP_BACKWARD_IF_FALSE POP_JUMP_BACKWARD_IF_TRUE""".split()
)


def _is_unchanged_local(name: str, value: Any) -> bool:
    """Still the frame's own argument: the continuation can be passed it as it is."""
    if isinstance(value, LazyVariableTracker):
        return True
    return value.source == LocalSource(name)


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
