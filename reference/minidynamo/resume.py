"""Continuation functions (seed "Graph Breaks": `resume_in_fn`; DESIGN.md `resume.py`).

After a graph break the rest of the frame runs in a new function, `__resume_at_<offset>_<n>`,
built from the original bytecode: its arguments are the live stack values and the live
locals; it pushes the stack values back and jumps to the instruction where the frame
resumes. Calling it enters the frame hook, so it is translated and cached on its own.
"""

from __future__ import annotations

import dataclasses
import inspect
import types

from minidynamo import code_table
from minidynamo.bytecode import (
    Instruction,
    add_push_null,
    assemble,
    clone_instructions,
    create_call_function,
    create_copy_free_vars,
    create_enter_with,
    create_instruction,
    create_jump_absolute,
    create_load_const,
    create_load_fast,
    create_push_null,
    create_resume,
    without_method_calls,
)
from minidynamo.output_graph import next_unique_id
from minidynamo.variables.ctx_manager import WithExitFunctionVariable
from minidynamo.variables.misc import NullVariable

_READS = ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST",
          "DELETE_FAST")  # fmt: skip
_WRITES = ("STORE_FAST", "STORE_FAST_STORE_FAST", "DELETE_FAST")


@dataclasses.dataclass(frozen=True)
class ResumeFunction:
    name: str
    code: types.CodeType
    params: list[str]  # the instruction's results, the kept stack, the live locals
    # Made once, or None where the code closes over the frame's cells (cell and free
    # variables): then the compiled frame makes the function at each call, over its cells.
    fn: types.FunctionType | None


@dataclasses.dataclass(frozen=True)
class WithSlot:
    """A `with` block's ``__exit__`` on the stack. The continuation's parameter `name` is
    the context manager's class; it calls it with `args` and enters the block again
    (`setup`: the block's BEFORE_WITH / SETUP_WITH in the original instructions)."""

    name: str
    args: tuple
    setup: int


# A stack value of the continuation: a parameter, a block to enter again, or the NULL of
# the call protocol, which cannot be an argument and is pushed again (PUSH_NULL; 3.10's
# continuation calls with CALL_FUNCTION instead, see without_method_calls).
Slot = str | WithSlot | None

# One continuation per (code, resume point, stack layout, live locals): a recompiled
# frame calls the same function, whose own cache then holds its versions.
# Kept with the code object by identity (DESIGN.md), dying with it (code_table.py).
def _made(code: types.CodeType, f_globals: dict) -> dict[tuple, ResumeFunction]:
    return code_table.in_globals(f_globals, "resume").setdefault(code, dict)


def stack_slots(kept: list, results: int) -> list[Slot]:
    """The continuation's stack values, bottom first: `kept`, then the `results` of the
    instruction that broke the graph."""
    slots: list[Slot] = []
    for i, value in enumerate(kept):
        if isinstance(value, NullVariable):
            slots.append(None)
        elif isinstance(value, WithExitFunctionVariable):
            slots.append(WithSlot(f"___stack{i}", value.ctx.rebuilt()[1], value.setup))
        else:
            slots.append(f"___stack{i}")
    return slots + [f"___stack{len(kept) + i}" for i in range(results)]


def param_name(slot: str | WithSlot) -> str:
    return slot.name if isinstance(slot, WithSlot) else slot


def reset() -> None:
    for table in code_table.live_tables("resume"):
        table.clear()


def table_rows() -> int:
    return sum(len(table) for table in code_table.live_tables("resume"))


def _names(inst: Instruction, kinds: tuple[str, ...]) -> tuple[str, ...]:
    if inst.opname not in kinds:
        return ()
    if inst.opname == "STORE_FAST_LOAD_FAST":
        return ()
    return inst.argval if isinstance(inst.argval, tuple) else (inst.argval,)


def _successors(instructions: list[Instruction], index: int, index_of: dict) -> list[int]:
    inst = instructions[index]
    after = [] if inst.opname in _TERMINATORS else [index + 1]
    if inst.target is not None:
        after.append(index_of[id(inst.target)])
    if inst.exn_tab_entry is not None:
        after.append(index_of[id(inst.exn_tab_entry.target)])
    return [i for i in after if i < len(instructions)]


_TERMINATORS = frozenset(
    """RETURN_VALUE RETURN_CONST RAISE_VARARGS RERAISE JUMP_ABSOLUTE JUMP_FORWARD
    JUMP_BACKWARD JUMP_BACKWARD_NO_INTERRUPT""".split()
)


def live_locals(instructions: list[Instruction], start: int) -> set[str]:
    """Locals that some path from `start` reads before writing (backward dataflow)."""
    index_of = {id(inst): i for i, inst in enumerate(instructions)}
    live_in: list[set[str]] = [set() for _ in instructions]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(instructions))):
            inst = instructions[i]
            out: set[str] = set()
            for j in _successors(instructions, i, index_of):
                out |= live_in[j]
            new = set(_reads(inst)) | (out - set(_names(inst, _WRITES)))
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    return live_in[start]


def _reachable(instructions: list[Instruction], starts: list[int]) -> set[int]:
    index_of = {id(inst): i for i, inst in enumerate(instructions)}
    seen, pending = set(starts), list(starts)
    while pending:
        for j in _successors(instructions, pending.pop(), index_of):
            if j not in seen:
                seen.add(j)
                pending.append(j)
    return seen


def _reads(inst: Instruction) -> tuple[str, ...]:
    if inst.opname == "STORE_FAST_LOAD_FAST":
        return (inst.argval[1],)
    return _names(inst, _READS)


def resume_function(
    code: types.CodeType,
    instructions: list[Instruction],
    target: int,
    slots: list[Slot],
    results: int,
    live: list[str],
    f_globals: dict,
) -> ResumeFunction:
    """The continuation that runs `code` from instruction `target`, its stack `slots`
    rebuilt and the locals `live` bound."""
    key = (target, tuple(slots), results, tuple(live))
    made = _made(code, f_globals)
    if key not in made:
        kept = [param_name(slot) for slot in slots[: len(slots) - results] if slot is not None]
        params = [*slots[len(slots) - results :], *kept, *live]
        name = f"__resume_at_{instructions[target].offset}_{next_unique_id()}"
        new_code = _resume_code(code, instructions, target, slots, params)
        fn = None if new_code.co_freevars else types.FunctionType(new_code, f_globals, name)
        made[key] = ResumeFunction(name, new_code, params, fn)  # type: ignore[arg-type]
    return made[key]


def _resume_code(
    code: types.CodeType,
    instructions: list[Instruction],
    target: int,
    slots: list[Slot],
    params: list[str],
) -> types.CodeType:
    # A 3.10 `with` block's handler is reached only through the block that SETUP_WITH
    # pushes (the prologue pushes it again), not through a jump or the exception table.
    handlers = [
        instructions.index(instructions[slot.setup].target)
        for slot in slots
        if isinstance(slot, WithSlot) and instructions[slot.setup].target is not None
    ]
    reachable = _reachable(instructions, [target, *handlers])
    body = clone_instructions(instructions)
    without_method_calls(body)
    entry = body[target]
    # The frame's cells are the continuation's free variables: it is made over them.
    freevars = code.co_cellvars + code.co_freevars
    prologue = create_copy_free_vars(len(freevars)) + create_resume()
    for slot in slots:
        if slot is None:
            prologue += create_push_null()
        elif isinstance(slot, WithSlot):
            prologue += _enter_with(slot, body[slot.setup].target)
        else:
            prologue += create_load_fast(slot)
    prologue += create_jump_absolute(entry)
    for inst in prologue:
        inst.lineno = code.co_firstlineno
    # Code before the resume point is dead here; CPython 3.12+ rejects its loads of locals
    # that are no longer parameters.
    body = [inst for i, inst in enumerate(body) if i in reachable]
    varnames = [name for name in code.co_varnames if name not in params + list(freevars)]
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    replace = {
        "co_name": f"resume_in_{code.co_name}",
        "co_cellvars": (),
        "co_freevars": freevars,
        "co_argcount": len(params),
        "co_posonlyargcount": 0,
        "co_kwonlyargcount": 0,
        "co_flags": flags,
        "co_varnames": tuple(params + varnames),
    }
    if hasattr(code, "co_qualname"):
        replace["co_qualname"] = replace["co_name"]
    return assemble(prologue + body, code, **replace)


def _enter_with(slot: WithSlot, handler: Instruction | None) -> list[Instruction]:
    """``with <slot.name>(*slot.args):`` up to the block's body: __exit__ stays on the stack."""
    instructions = add_push_null(create_load_fast(slot.name))
    for arg in slot.args:
        instructions += create_load_const(arg)
    instructions += create_call_function(len(slot.args), push_null=False)
    instructions += create_enter_with(handler)
    return instructions + [create_instruction("POP_TOP")]
