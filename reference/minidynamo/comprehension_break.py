"""A graph break inside an inlined list or dict comprehension (3.12+, PEP 709).

CPython 3.12 compiles ``[f(t) for t in xs]`` into the frame's own bytecode: the
iteration variable is saved (LOAD_FAST_AND_CLEAR), the list is built in a loop, the
variable restored, with an exception-table entry that restores it if the body raises.
A break inside that loop cannot resume mid-comprehension, so, as Dynamo does, the
translator (symbolic_convert.break_graph) compiles the graph up to the comprehension,
runs the whole comprehension in CPython and resumes after it. This module finds the
comprehension around a breaking instruction and copies its bytecode for that rerun.

The shape, 3.12 and 3.13 alike (3.13 adds a POP_TOP after END_FOR)::

    GET_ITER                            <- start: the iterable is on the stack
    LOAD_FAST_AND_CLEAR i  (one per iteration variable, nested comprehensions' too)
    SWAP n
    BUILD_LIST 0 / BUILD_MAP 0          (a set comprehension: Dynamo skips the frame)
    SWAP 2
    FOR_ITER ... END_FOR [POP_TOP]      (the loop, maybe nested loops)
    [SWAP n] STORE_FAST ...             <- end: the result stored (no SWAP) or left on
                                           the stack (SWAP), the variables restored
    [POP_TOP]                              a result nothing uses, popped (3.13: before
                                           the STORE_FASTs), is part of the span
"""

from __future__ import annotations

import dataclasses

import torch

from minidynamo.bytecode import (
    ExceptionTableEntry,
    Instruction,
    clone_instructions,
    stored_locals,
)
from minidynamo.exc import Unsupported, unimplemented
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.lists import IteratorVariable

_BUILDS = ("BUILD_LIST", "BUILD_MAP")
_CELLS = ("MAKE_CELL", "LOAD_CLOSURE", "STORE_DEREF", "DELETE_FAST")
_CLEANUP = ("SWAP", "POP_TOP", "STORE_FAST")
# Iterators Dynamo cannot rebuild at a break, and what a comprehension iterates to make one.
_ITERATORS = tuple({type(iter(it)) for it in ({}, {}.values(), {}.items(), set())})
_ITERABLES = (dict, set, frozenset, type({}.keys()), type({}.values()), type({}.items()),
              torch.nn.Module)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Comprehension:
    start: int  # its GET_ITER
    end: int  # its last STORE_FAST
    result: str | None  # the local it is stored in, or None (on the stack, or discarded)
    pushes: bool  # the result stays on the stack
    handlers: tuple[tuple[int, int], ...]  # first and last instruction of each cleanup


def around(instructions: list[Instruction], index: int) -> Comprehension | None:
    """The outermost inlined list or dict comprehension whose loop holds instruction
    `index`, if it is one the rerun handles: the body stores no other local (a walrus
    target may stay unbound, which the continuation cannot be passed) and makes no cell."""
    for start in range(index):
        comprehension = at(instructions, start)
        if comprehension is not None and index <= comprehension.end:
            return comprehension  # the first one reached is the outermost
    return None


def at(instructions: list[Instruction], start: int) -> Comprehension | None:
    """The comprehension whose GET_ITER is instruction `start`, if it is one (above)."""
    if instructions[start].opname != "GET_ITER":
        return None
    if instructions[start + 1].opname != "LOAD_FAST_AND_CLEAR":
        return None
    cleared = []
    i = start + 1
    while instructions[i].opname == "LOAD_FAST_AND_CLEAR":
        cleared.append(instructions[i].argval)
        i += 1
    build = instructions[i + 1]
    if instructions[i].opname != "SWAP" or build.opname not in _BUILDS or build.argval != 0:
        return None
    depth = 0
    for loop_end in range(i + 1, len(instructions)):
        opname = instructions[loop_end].opname
        depth += opname == "FOR_ITER"
        depth -= opname == "END_FOR"
        if opname == "END_FOR" and depth == 0:
            break
    else:
        return None
    i = loop_end + 1
    if instructions[i].opname == "POP_TOP":  # 3.13: END_FOR leaves the iterator
        i += 1
    discarded = instructions[i].opname == "POP_TOP"  # 3.13: a result nothing uses
    on_stack = instructions[i].opname == "SWAP"
    i += on_stack or discarded
    stores: list[str] = []
    while len(stores) < len(cleared) + (not on_stack and not discarded):
        inst = instructions[i]
        if inst.opname == "STORE_FAST":
            stores.append(inst.argval)
        elif inst.opname == "STORE_FAST_STORE_FAST":
            stores.extend(inst.argval)
        else:
            return None
        i += 1
    if on_stack and instructions[i].opname == "POP_TOP":  # 3.12: a result nothing uses
        on_stack = False
        i += 1
    end = i - 1
    result = stores[0] if len(stores) > len(cleared) else None
    if sorted(stores[result is not None :]) != sorted(cleared):
        return None
    body = instructions[start : end + 1]
    written = {name for inst in body for name in stored_locals(inst)}
    restored = {inst.argval for inst in body if inst.opname == "LOAD_FAST_AND_CLEAR"}
    if written - restored - {result} or any(inst.opname in _CELLS for inst in body):
        return None
    outer = instructions[start - 1].exn_tab_entry  # the with block around it, if any
    handlers = _cleanup_handlers(instructions, body, outer.target if outer else None)
    if handlers is None:
        return None
    return Comprehension(start, end, result, on_stack, handlers)


def _cleanup_handlers(
    instructions: list[Instruction], body: list[Instruction], outer: Instruction | None
) -> tuple[tuple[int, int], ...] | None:
    """The (first, last) instructions of the handlers that `body` (and those handlers)
    jump to on an exception, but the `outer` one around the comprehension, if all are
    cleanups: they restore locals and re-raise."""
    index_of = {id(inst): i for i, inst in enumerate(instructions)}
    found: dict[int, int] = {}
    pending = [inst for inst in body if _handled(inst, outer)]
    while pending:
        first = index_of[id(pending.pop().exn_tab_entry.target)]
        if first in found:
            continue
        last = first
        while instructions[last].opname in _CLEANUP:
            last += 1
        if instructions[last].opname != "RERAISE":
            return None
        found[first] = last
        pending += [inst for inst in instructions[first : last + 1] if _handled(inst, outer)]
    return tuple(sorted(found.items()))


def check_rebuilt(value: VariableTracker, iterated: bool) -> None:
    """As Dynamo, which rebuilds the iterators a break leaves on the stack (3.10/3.11: the
    argument of a comprehension's function) and those a 3.12+ inlined comprehension
    makes (`iterated`), but not one over a dict, a dict view, a set or a module
    (ModuleList): there the frame runs in CPython."""
    if not iterated and not isinstance(value, IteratorVariable):
        return
    try:
        kind = value.python_type()
    except Unsupported:  # not known: nothing Dynamo tells apart either
        return
    if issubclass(kind, _ITERATORS + (_ITERABLES if iterated else ())):
        unimplemented(f"graph break with an iterator over a {kind.__name__} to rebuild")


def _handled(inst: Instruction, outer: Instruction | None) -> bool:
    return inst.exn_tab_entry is not None and inst.exn_tab_entry.target is not outer


def rerun(
    instructions: list[Instruction], comprehension: Comprehension, below: int
) -> tuple[list[Instruction], list[Instruction]]:
    """Copies of the comprehension's instructions and of its cleanup handler, to run in
    the compiled frame with only the iterable on the stack: the handler's stack depth
    loses the `below` values the original had under it (the continuation keeps them)."""
    body = instructions[comprehension.start : comprehension.end + 1]
    handler = [inst for first, last in comprehension.handlers
               for inst in instructions[first : last + 1]]  # fmt: skip
    copies = clone_instructions(body + handler)
    entries: dict[int, ExceptionTableEntry] = {}
    for inst in copies:
        entry = inst.exn_tab_entry
        if entry is not None:
            if id(entry) not in entries:
                entries[id(entry)] = dataclasses.replace(entry, depth=entry.depth - below)
            inst.exn_tab_entry = entries[id(entry)]
    return copies[: len(body)], copies[len(body) :]
