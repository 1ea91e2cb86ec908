"""`InstructionTranslator`: the symbolic stack machine (seed "Rewriting CPython in
Python": `InstructionTranslatorBase`, about one method per bytecode).

It walks a frame's decoded instructions with a stack and locals of VariableTrackers,
dispatching each instruction to its handler in `opcodes/`. The top-level translator
ends at RETURN by compiling the graph; the inlining translator runs a called user
function inside the same graph and hands its return value back to the caller.
"""

from __future__ import annotations

import functools
import linecache
import logging
import os
import types
from typing import TYPE_CHECKING, Any

import torch

from minidynamo import comprehension_break, config, logs, resume
from minidynamo import graph_break_registry as gb
from minidynamo.builder import VariableBuilder
from minidynamo.bytecode import (
    Instruction,
    create_build_tuple,
    create_call_function,
    create_instruction,
    create_jump_absolute,
    create_load_closure,
    create_load_fast,
    create_load_global,
    create_make_function,
    create_rerun,
    create_return_value,
    create_rot_n,
    create_try_finally,
    decode,
    stack_effect,
)
from minidynamo.codegen import PyCodegen
from minidynamo.exc import ObservedException, SkipFrame, Unsupported, unimplemented
from minidynamo.opcodes import load_all
from minidynamo.opcodes.build import INTRINSIC_STOPITERATION_ERROR
from minidynamo.opcodes.exceptions import Block
from minidynamo.side_effects import DELETED
from minidynamo.source import GlobalSource, LocalSource
from minidynamo.variables import lazy
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable, is_constant_none
from minidynamo.variables.ctx_manager import WithExitFunctionVariable
from minidynamo.variables.exceptions import (
    ExceptionVariable,
    generator_raised_stop_iteration,
    raise_observed,
    set_context,
)
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


# The translators running an instruction, innermost last: a dict or set compares user
# objects as keys by inlining their ``__eq__`` in the one running now.
_RUNNING: list[InstructionTranslatorBase] = []


def current_tx() -> InstructionTranslatorBase:
    """The translator whose instruction is being run."""
    if not _RUNNING:
        unimplemented("a traced operation outside of an instruction")
    return _RUNNING[-1]


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
        self.block_stack: list[Block] = []
        # The exceptions being handled, innermost last (a bare `raise` re-raises it).
        self.handled_exceptions: list[VariableTracker] = []
        # The exception an inlining caller handles, innermost (sys.exc_info() in a
        # function called from an except clause or a with's __exit__), if any.
        self.callers_exception: VariableTracker | None = None
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
        self.charge_budget()
        inst = self.instructions[self.instruction_pointer]
        self.instruction_pointer += 1
        if inst.lineno is not None:
            self.lineno = inst.lineno
        if trace_log.isEnabledFor(logging.DEBUG):
            trace_log.debug("TRACE %s %s %s", inst.opname, _argrepr(inst), self.stack)
        handler = HANDLERS.get(inst.opname)
        _RUNNING.append(self)
        try:
            if handler is None:
                unimplemented(f"opcode {inst.opname}", gb.UNSUPPORTED_OPCODE)
            handler(self, inst)
        except ObservedException as e:
            if not e.user_stack:  # raised here
                set_context(e.exception, self.handled_exceptions, self.callers_exception)
            e.user_stack.append(self.frame_summary())
            self.handle_exception(inst, e)
        except Unsupported as e:
            e.user_stack.append(self.frame_summary())
            self.locate_break(e, self.instruction_pointer - 1)
            raise
        finally:
            _RUNNING.pop()

    def charge_budget(self) -> None:
        """Count one instruction against the trace's budget; past it the trace stops
        here, where no graph break is placed (the frame runs in CPython)."""
        self.output.instructions_run += 1
        if self.output.instructions_run > config.trace_instruction_limit:
            error = Unsupported(
                f"the trace ran past {config.trace_instruction_limit} instructions "
                "(config.trace_instruction_limit)",
                gb.TRACE_BUDGET,
            )
            error.user_stack.append(self.frame_summary())
            raise error

    def frame_summary(self) -> tuple[str, int, str, str]:
        filename, lineno, line = self.source_location()
        return filename, lineno, self.code.co_name, line

    def locate_break(self, error: Unsupported, index: int) -> None:
        """Where the frame could break its graph for `error` (only the top-level frame)."""

    # Exceptions raised by the traced program (seed 004: Dynamo traces try/except).

    def handle_exception(self, inst: Instruction, error: ObservedException) -> None:
        """Continue at the handler that catches `error` raised by `inst`, as CPython
        does (3.11+: the exception table; 3.10: the block stack), or let it leave."""
        if isinstance(error.exception, ExceptionVariable):
            error.exception.raised()
        entry = inst.exn_tab_entry
        if entry is not None:
            del self.stack[entry.depth :]
            if entry.lasti:
                self.push(ConstantVariable(inst.offset))
            self.push(error.exception)
            self.instruction_pointer = self.index_of[id(entry.target)]
            return
        while self.block_stack:
            block = self.block_stack.pop()
            del self.stack[block.level :]
            if block.kind == "except_handler":  # the handler raised: it is done
                self.handled_exceptions.pop()
                continue
            self.block_stack.append(Block("except_handler", None, len(self.stack)))
            self.handled_exceptions.append(error.exception)
            exc_type = VariableBuilder(self, None)(error.exception.python_type())
            none = ConstantVariable(None)  # tracebacks, and the previous exception
            for value in (none, none, none, none, error.exception, exc_type):
                self.push(value)
            self.instruction_pointer = self.index_of[id(block.handler)]
            return
        raise error

    def is_with_handler(self, handler: Instruction) -> bool:
        start = self.index_of[id(handler)]
        return [i.opname for i in self.instructions[start : start + 2]] == _WITH_HANDLER

    def in_try_block(self, index: int) -> bool:
        """Inside a user's try/except/finally (not a `with` block or the cleanup of an
        inlined comprehension): a graph break there skips the frame, as in Dynamo."""
        inst = self.instructions[index]
        if inst.exn_tab_entry is not None:
            return not self.is_cleanup_handler(inst)
        return any(block.kind != "with" for block in self.block_stack)

    def is_cleanup_handler(self, inst: Instruction) -> bool:
        """A 3.12+ inlined comprehension's handler only restores locals and re-raises, a
        `with` block's handler calls ``__exit__`` with the exception: tracing as if it
        were absent is exact while nothing raises, unlike a user's `except`."""
        if self.is_with_handler(inst.exn_tab_entry.target):
            return True
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
        side_effects = self.output.side_effects
        stored = None
        if self.f_globals is self.output.root_globals:
            # A global assigned or changed in place by the trace reads back its new value.
            stored = side_effects.global_values.get(name)
            stored = stored or side_effects.mutated_container(GlobalSource(name).name)
            if stored is not None and stored is not DELETED:
                return stored
        else:  # another module's global, which the trace may have set as `mod.name`
            stored = side_effects.load_module_global(self.f_globals, name)
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

    def inline_generator(
        self,
        fn: BaseUserFunctionVariable,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> InliningGeneratorTranslator:
        return InliningGeneratorTranslator.build(self, fn, args, kwargs)

    def return_value(self, value: VariableTracker) -> None:
        raise NotImplementedError

    def yield_value(self, value: VariableTracker, inst: Instruction) -> None:
        unimplemented("yield outside a generator being inlined")


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
            name: output.cell_variable(cell, LocalSource(name, is_cell=True))
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
                source = LocalSource(name, is_cell=True)
                initial = VariableBuilder(self, source, lazy=False)(value.value)
            self.cells[name] = CellVariable(initial, source=LocalSource(name, is_cell=True))
        self.output_instructions: list[Instruction] = []
        # Set when translation restarts after an Unsupported: stop there and break.
        self.break_span = break_span

    def run(self) -> None:
        """An exception that leaves the frame is raised by CPython running the frame
        (Dynamo's "observed exception": the frame is skipped). The grad mode the trace
        switched (a traced `with no_grad()`) is restored here, not where an inlined call
        returns: a called function may leave it switched (a contextmanager's __enter__)."""
        grad_enabled = torch.is_grad_enabled()
        try:
            super().run()
        except ObservedException as e:
            error = Unsupported(
                f"exception {e.exception!r} raised while tracing", gb.OBSERVED_EXCEPTION
            )
            error.user_stack = e.user_stack
            raise error from None
        finally:
            self.output.restore_global_state()
            torch._C._set_grad_enabled(grad_enabled)

    def return_value(self, value: VariableTracker) -> None:
        # Dynamo's test, made before unused nodes are pruned: no call in the graph (under
        # fullgraph=True the graph is compiled all the same).
        if not self.output.count_calls() and not self.output.one_graph:
            raise SkipFrame("its trace records no operation")
        lazy.realize_numbers([value])  # `return n`, but not `return x, n`, guards `n`
        self.output_instructions = self.output.compile_subgraph(
            self,
            [value],
            stored_cells=self.changed_cells(),
            value_from_graph=self.returns_graph_tensor(value),
        )
        self.output_instructions += create_return_value()
        self.done = True

    def returns_graph_tensor(self, value: VariableTracker) -> bool:
        """Dynamo's common case: a frame that returns one plain tensor and mutates nothing
        returns it from the graph, an input too (so ``return x`` under fullgraph=True
        compiles a graph that returns its input). Not an ndarray (its python_type)."""
        from minidynamo.variables.tensor import TensorVariable

        return (
            isinstance(value, TensorVariable)
            and value.python_type() in (torch.Tensor, torch.nn.Parameter)
            and not self.output.side_effects
        )

    # Graph breaks (seed "Graph Breaks").

    def step(self) -> None:
        if self.break_span is not None and self.instruction_pointer == self.break_span[0]:
            self.break_graph(*self.break_span)
        else:
            super().step()

    def locate_break(self, error: Unsupported, index: int) -> None:
        """A call, subscript or comparison breaks before it runs; a branch on a tensor
        breaks at its jump. Not in loops or try blocks (as Dynamo: the frame is skipped).
        Inside `with` blocks the continuation enters them again; it is a closure over the
        frame's cells."""
        inst = self.instructions[index]
        is_branch = error.gb_id == gb.DATA_DEPENDENT_BRANCH and inst.opname in _BRANCHES
        if not error.breakable:
            return
        comprehension = comprehension_break.around(self.instructions, index)
        if comprehension is not None:
            if not self.in_try_block(comprehension.start) and self.can_reenter_blocks():
                error.break_span = (comprehension.start, comprehension.end)
            return
        if not (inst.opname in _CALLS or is_branch):
            return
        if self.has_backedge(index):
            return
        if self.in_try_block(index):
            return  # as Dynamo: a break inside a try block skips the frame
        if not self.can_reenter_blocks():
            return
        first = index
        while self.instructions[first - 1].opname in _CALL_PREFIXES:
            first -= 1
        error.break_span = (first, index)

    def can_reenter_blocks(self) -> bool:
        """As Dynamo: a manager other than a grad mode cannot be entered again."""
        return not any(
            isinstance(v, WithExitFunctionVariable) and not v.can_reenter() for v in self.stack
        )

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
        targets = [last + 1]
        comprehension = comprehension_break.at(self.instructions, first)
        if comprehension is not None:  # it reads the iterable, stores or pushes its result
            results = int(comprehension.pushes)
            kept = self.stack[:-1]
        else:
            results = 0 if inst.target is not None else 1  # a branch pushes nothing, a call one
            effect = sum(stack_effect(self.instructions[i]) for i in range(first, last + 1))
            kept = self.stack[: len(self.stack) + effect - results]
        read = self.stack[len(kept) :]
        for value in read:
            comprehension_break.check_rebuilt(value, iterated=comprehension is not None)
        if inst.target is not None and comprehension is None:
            targets.append(self.index_of[id(inst.target)])
        live = self.live_locals(targets)
        # What the rerun instructions read from locals is stored too (a comprehension's).
        needed = self.live_locals([first]) if comprehension is not None else live
        if comprehension is not None and comprehension.result in resume.live_locals(
            self.instructions, last + 1
        ):
            live.append(comprehension.result)
        stored = {name: value for name, value in self.symbolic_locals.items()
                  if name in needed and not _is_unchanged_local(name, value)}  # fmt: skip
        # As Dynamo, a lazy constant the continuation receives is guarded on its value: a
        # live local that is not the frame's own unchanged argument, and all the stack
        # kept under the operands of the breaking instruction (of those, ints and floats).
        for value in stored.values():
            lazy.realize(value)
        lazy.realize_within(kept)
        lazy.realize_numbers(read)
        slots = resume.stack_slots(kept, results)
        for slot, value in zip(slots, kept, strict=False):
            if slot is not None:
                stored[resume.param_name(slot)] = value
        blocks = [value.ctx for value in kept if isinstance(value, WithExitFunctionVariable)]
        for block in reversed(blocks):
            # The graph leaves the global state as the outermost block found it.
            block.exit_at_break(self)  # type: ignore[attr-defined]
        # Rebuilding a lazy iterator (`enumerate(gen)`) runs it on: as part of this frame.
        _RUNNING.append(self)
        try:
            body = self.output.compile_subgraph(
                self, read, stored, self.changed_cells(), continuation_cells=self.code.co_cellvars
            )
        finally:
            _RUNNING.pop()
        handler: list[Instruction] = []
        if comprehension is not None:
            rerun, handler = comprehension_break.rerun(self.instructions, comprehension, len(kept))
            if blocks:  # the blocks enclose its cleanup too; the normal path jumps over it
                after = create_instruction("NOP")
                rerun += [*create_jump_absolute(after), *handler, after]
                handler = []
        else:
            rerun = [i for index in range(first, last + 1)
                     for i in create_rerun(self.instructions[index])]  # fmt: skip
        if blocks and inst.target is None:
            body += self.in_blocks(rerun, blocks)
        else:
            body += rerun
        continuations = [self.call_resume(target, slots, results, live) for target in targets]
        if len(continuations) == 2:
            rerun[-1].target = continuations[1][0]
        self.output_instructions = body + [i for c in continuations for i in c] + handler
        self.done = True

    def changed_cells(self) -> dict[str, VariableTracker]:
        """The frame's own cells the trace assigned: the continuation and the functions
        made here read them from the real cells."""
        return {
            name: self.cells[name].contents
            for name in self.code.co_cellvars
            if self.cells[name].contents is not None
            and self.cells[name].contents.source != LocalSource(name, is_cell=True)
        }

    def in_blocks(
        self, call: list[Instruction], blocks: list[VariableTracker]
    ) -> list[Instruction]:
        """The breaking `call` inside the `with` blocks it is in, made and entered again
        for real (outermost first, as Dynamo does), and exited afterwards, also when the
        call raises. A branch needs none of this: a tensor's truth does not depend on
        them. The managers are torch's own, whose making and entering do not raise."""
        names = [f"___block{i}" for i in range(len(blocks))]
        codegen = PyCodegen(self.output, graph_output_var="graph_out_0")
        for name, block in zip(names, blocks, strict=True):
            cls, args = block.rebuilt()  # type: ignore[attr-defined]
            codegen.load_callable(cls)
            for arg in args:
                codegen.load_const(arg)
            codegen.call(len(args))
            codegen.store_fast(name)
            codegen.load_fast(name)
            codegen.call_method("__enter__", [])
            codegen.extend([create_instruction("POP_TOP")])

        def exit_all() -> list[Instruction]:
            exits = PyCodegen(self.output, graph_output_var="graph_out_0")
            for name in reversed(names):
                exits.load_fast(name)
                exits.call_method("__exit__", [lambda: exits.load_const(None)] * 3)
                exits.extend([create_instruction("POP_TOP")])
            return exits.instructions

        return codegen.instructions + create_try_finally(call, exit_all)

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
        if fn.fn is not None:
            self.output.install_global(fn.name, fn.fn)
            instructions = create_load_global(fn.name, push_null=False)
        else:  # a closure over this frame's cells, as the nested functions it defines
            freevars = fn.code.co_freevars
            instructions = [i for name in freevars for i in create_load_closure(name)]
            instructions += create_build_tuple(len(freevars))
            instructions += create_make_function(fn.code, fn.name, ("closure",))
        instructions += create_rot_n(results + 1)
        for name in fn.params[results:]:
            instructions += create_load_fast(name)
        instructions += create_call_function(len(fn.params), push_null=True)
        return instructions + create_return_value()


# Instructions a graph break can run in CPython (as Dynamo's break_graph_if_unsupported):
# calls, subscripts and comparisons, each pushing one result; and the calls' set-up (3.11+).
_CALLS = frozenset(
    """CALL CALL_FUNCTION CALL_FUNCTION_KW CALL_METHOD CALL_KW CALL_FUNCTION_EX BINARY_SUBSCR
    COMPARE_OP""".split()
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

    symbolic_result: VariableTracker | None = None  # what it returned, once done

    @classmethod
    def inline_call(
        cls,
        parent: InstructionTranslatorBase,
        fn: BaseUserFunctionVariable,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        tx = cls.build(parent, fn, args, kwargs)
        tx.run()
        return tx.symbolic_result

    @classmethod
    def build(
        cls,
        parent: InstructionTranslatorBase,
        fn: BaseUserFunctionVariable,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> InliningInstructionTranslator:
        """A translator for `fn`'s body, its arguments bound, not yet run."""
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
        handled = parent.handled_exceptions
        tx.callers_exception = handled[-1] if handled else parent.callers_exception
        return tx

    def return_value(self, value: VariableTracker) -> None:
        self.symbolic_result = value
        self.done = True


class InliningGeneratorTranslator(InliningInstructionTranslator):
    """Runs a generator function's body in the caller's graph, one `yield` at a time
    (Dynamo inlines generators): each item asked for steps it to its next yield; `send`
    and `throw` resume it with a value or an exception, as the generator protocol does."""

    yielded: VariableTracker | None = None
    paused_at: Instruction | None = None  # the yield it waits at (None: not started)
    delegating = False  # paused inside `yield from`, whose inner generator would get `thrown`

    def resume(
        self, sent: VariableTracker | None = None, thrown: ObservedException | None = None
    ) -> VariableTracker | None:
        """The next value yielded, or None once the body has returned (or raised: a
        generator that raised is finished). `sent` becomes the value of the paused
        `yield` expression; `thrown` is raised there."""
        if self.done:
            if thrown is not None:
                raise thrown
            return None
        if sent is not None and not is_constant_none(sent):
            if self.paused_at is None:
                raise_observed(TypeError, "can't send non-None value to a just-started generator")
            self.stack[-1] = sent  # type: ignore[assignment]
        self.yielded = None
        try:
            if thrown is not None and self.paused_at is None:
                raise thrown
            if thrown is not None and self.delegating:
                thrown = self.throw_into_inner(thrown)
            if thrown is not None:
                self.handle_exception(self.paused_at, thrown)
            while not self.done and self.yielded is None:
                self.step()
        except ObservedException as e:
            self.done = True
            if self.converts_stop_iteration:
                raise
            raise ObservedException(generator_raised_stop_iteration(e.exception)) from None
        return self.yielded

    @functools.cached_property
    def converts_stop_iteration(self) -> bool:
        """The body's own handler turns StopIteration into RuntimeError (CPython 3.12+,
        PEP 479; it does not cover a throw() before the first item); before, the
        generator's resume does, for all that leaves the body."""
        return any(
            inst.opname == "CALL_INTRINSIC_1" and inst.argval == INTRINSIC_STOPITERATION_ERROR
            for inst in self.instructions
        )

    def throw_into_inner(self, thrown: ObservedException) -> ObservedException | None:
        """throw() while paused in `yield from`: the inner generator gets the exception,
        as in CPython. What it raises goes on at the paused `yield from`; None where it
        yielded (the value is ours) or returned (the loop, resumed, takes its value)."""
        from minidynamo.variables.generators import GeneratorVariable

        inner = self.stack[-2]
        if not isinstance(inner, GeneratorVariable) or issubclass(
            thrown.exception.python_type(), GeneratorExit
        ):
            unimplemented(f"throw() into `yield from` {inner!r}")
        try:
            self.yielded = inner.tx.resume(thrown=thrown)
        except ObservedException as e:
            self.delegating = False
            return e
        return None

    def yield_value(self, value: VariableTracker, inst: Instruction) -> None:
        self.yielded = value
        self.paused_at = inst
