"""Instructions made by name, for codegen: one call whatever CPython version runs.

codegen and the resume functions build new bytecode with these helpers. Each `create_*`
returns a list of instructions valid on the running version, choosing opcodes from the
version table in versions.py; `create_instruction` makes one instruction of any opcode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .arguments import ArgKind, arg_kind, carries_flag
from .instruction import BytecodeError, ExceptionTableEntry, Instruction
from .versions import ENCODING, OPCODE_OF_OPERATOR_310, OPERATOR_OF_OPCODE_310, opcode_of

_MISSING: Any = object()


def create_instruction(
    opname: str,
    *,
    argval: Any = _MISSING,
    arg: int | None = None,
    target: Instruction | None = None,
    push_null: bool = False,
    is_method: bool = False,
) -> Instruction:
    """One instruction. Give `argval` (see Instruction), or `arg` where argval is that int;
    jumps take `target`. Raises BytecodeError if this Python has no such opcode."""
    if opcode_of(opname) is None:
        raise BytecodeError(f"{opname}: no such opcode on this Python")
    if argval is _MISSING:
        argval = _implied_argval(opname, arg)
    return Instruction(
        opname, argval=argval, arg=arg, target=target, push_null=push_null, is_method=is_method
    )


def _implied_argval(opname: str, arg: int | None) -> Any:
    kind = arg_kind(opname)
    if kind is ArgKind.INT and arg is not None:
        return arg
    if kind is ArgKind.BINARY and opname in OPERATOR_OF_OPCODE_310:
        return OPERATOR_OF_OPCODE_310[opname]
    if kind in (ArgKind.NONE, ArgKind.JUMP):
        return None
    raise BytecodeError(f"{opname}: give its argval ({kind.value})")


def create_load_const(value: Any) -> list[Instruction]:
    return [create_instruction("LOAD_CONST", argval=value)]


def create_load_fast(name: str) -> list[Instruction]:
    return [create_instruction("LOAD_FAST", argval=name)]


def create_store_fast(name: str) -> list[Instruction]:
    return [create_instruction("STORE_FAST", argval=name)]


def create_load_global(name: str, *, push_null: bool) -> list[Instruction]:
    """Load a global; push_null: also push the NULL that calling it needs (3.11+: a bit of
    LOAD_GLOBAL; 3.10 calls without NULL)."""
    push_null = push_null and carries_flag("LOAD_GLOBAL", "push_null")
    return [create_instruction("LOAD_GLOBAL", argval=name, push_null=push_null)]


def create_load_attr(name: str) -> list[Instruction]:
    return [create_instruction("LOAD_ATTR", argval=name)]


def create_load_method(name: str) -> list[Instruction]:
    """Load a method for `create_call_method`: LOAD_METHOD (3.10, 3.11), LOAD_ATTR with
    the method bit (3.12+). Leaves two items: the method and self, or NULL and the attribute."""
    is_method = carries_flag(ENCODING.load_method, "is_method")
    return [create_instruction(ENCODING.load_method, argval=name, is_method=is_method)]


def add_push_null(load_instructions: list[Instruction]) -> list[Instruction]:
    """Add the NULL that CALL expects next to the callable that `load_instructions` load.

    3.11 and 3.12 want it below the callable, 3.13 above it; 3.10 calls without NULL.
    A LOAD_GLOBAL at that end gets its NULL bit set (in place) instead of a PUSH_NULL.
    """
    instructions = list(load_instructions)
    if ENCODING.null == "none":
        return instructions
    below = ENCODING.null == "below"
    edge = instructions[0] if below else instructions[-1]
    if edge.opname == "LOAD_GLOBAL" and not edge.push_null:
        edge.push_null = True
        return instructions
    null = create_instruction("PUSH_NULL")
    return [null, *instructions] if below else [*instructions, null]


def create_call_function(nargs: int, *, push_null: bool) -> list[Instruction]:
    """Call with the callable and `nargs` arguments on the stack.

    push_null=False: the stack is already laid out as CALL wants (NULL placed by
    add_push_null or a LOAD_GLOBAL bit, or a method and self). push_null=True: there is no
    NULL yet; push one and rotate it into place. CALL_FUNCTION (3.10), PRECALL + CALL
    (3.11), CALL (3.12+).
    """
    instructions = []
    if push_null and ENCODING.null != "none":
        instructions.append(create_instruction("PUSH_NULL"))
        # Below the callable (3.11, 3.12) or between the callable and its arguments (3.13).
        instructions += create_rot_n(nargs + 2 if ENCODING.null == "below" else nargs + 1)
    return instructions + [create_instruction(op, argval=nargs) for op in ENCODING.call]


def create_call_method(nargs: int) -> list[Instruction]:
    """Call what `create_load_method` loaded, with `nargs` arguments above it."""
    return [create_instruction(op, argval=nargs) for op in ENCODING.call_method]


def create_call_function_kw(nargs: int, kw_names: tuple[str, ...]) -> list[Instruction]:
    """Call with `nargs` arguments, the last len(kw_names) of them passed by keyword.

    The names reach the call as LOAD_CONST (3.10, 3.13) or KW_NAMES (3.11, 3.12); the call
    is CALL_FUNCTION_KW (3.10), PRECALL + CALL (3.11), CALL (3.12), CALL_KW (3.13).
    The stack needs what create_call_function(push_null=False) needs.
    """
    names = create_instruction(ENCODING.kw_names, argval=tuple(kw_names))
    return [names, *(create_instruction(op, argval=nargs) for op in ENCODING.call_kw)]


def create_rot_n(n: int) -> list[Instruction]:
    """Move the top of stack down to position n, lifting the n - 1 items above it."""
    if n <= 1:
        return []
    if ENCODING.swap_copy:
        return [create_instruction("SWAP", argval=i) for i in range(n, 1, -1)]
    named = {2: "ROT_TWO", 3: "ROT_THREE", 4: "ROT_FOUR"}
    if n in named:
        return [create_instruction(named[n])]
    return [create_instruction("ROT_N", argval=n)]


def create_swap(n: int) -> list[Instruction]:
    """Exchange the top of stack with the n-th item (SWAP n; on 3.10 a ROT sequence)."""
    if n <= 1:
        return []
    if ENCODING.swap_copy:
        return [create_instruction("SWAP", argval=n)]
    # [x1 .. xn] -> ROT n -> [xn x1 .. xn-1]; each ROT n-1 then lifts x1 one step.
    rotations = [create_rot_n(n - 1) for _ in range(n - 2)]
    return create_rot_n(n) + [inst for rotation in rotations for inst in rotation]


def create_dup_top() -> list[Instruction]:
    if ENCODING.swap_copy:
        return [create_instruction("COPY", argval=1)]
    return [create_instruction("DUP_TOP")]


def create_jump_absolute(target: Instruction) -> list[Instruction]:
    """Jump to `target`; assemble picks the direction (3.11+ JUMP_FORWARD/JUMP_BACKWARD)."""
    return [create_instruction(ENCODING.jump, target=target)]


def create_return_value() -> list[Instruction]:
    return [create_instruction("RETURN_VALUE")]


def create_build_tuple(n: int) -> list[Instruction]:
    return [create_instruction("BUILD_TUPLE", argval=n)]


def create_binary_subscr() -> list[Instruction]:
    return [create_instruction("BINARY_SUBSCR")]


def create_unpack_sequence(n: int) -> list[Instruction]:
    return [create_instruction("UNPACK_SEQUENCE", argval=n)]


def create_binary_op(operator: str) -> list[Instruction]:
    """A binary or in-place operator by symbol ("+", "+=", "@", ...): BINARY_OP (3.11+),
    BINARY_ADD, INPLACE_ADD ... (3.10)."""
    if operator not in OPCODE_OF_OPERATOR_310:  # keyed by every binary and in-place symbol
        raise BytecodeError(f"{operator!r}: not a binary operator")
    if ENCODING.binary_op:
        return [create_instruction("BINARY_OP", argval=operator)]
    return [create_instruction(OPCODE_OF_OPERATOR_310[operator])]


def create_resume() -> list[Instruction]:
    """The RESUME that starts every 3.11+ code object (after MAKE_CELL/COPY_FREE_VARS)."""
    return [create_instruction("RESUME", argval=0)] if ENCODING.resume else []


def create_push_null() -> list[Instruction]:
    """A NULL for the call protocol (3.11+); 3.10 has none (see `create_rerun`)."""
    return [] if ENCODING.null == "none" else [create_instruction("PUSH_NULL")]


def create_rerun(inst: Instruction) -> list[Instruction]:
    """A decoded instruction to run again after a graph break, its stack rebuilt.

    The rebuilt stack has no NULL on 3.10, where a method call (CALL_METHOD, whose
    LOAD_METHOD pushed a NULL or self) becomes a plain CALL_FUNCTION of the bound method.
    A conditional jump on 3.13 tests a bool by identity, so it gets its TO_BOOL back (the
    traced TO_BOOL left the tensor). Jumps keep their target, which the caller sets."""
    if inst.opname == "CALL_METHOD" and ENCODING.null == "none":
        return create_call_function(inst.argval, push_null=False)
    to_bool = []
    if inst.opname.startswith("POP_JUMP") and opcode_of("TO_BOOL") is not None:
        to_bool = [create_instruction("TO_BOOL")]
    return to_bool + [
        Instruction(
            inst.opname,
            argval=inst.argval,
            arg=inst.arg,
            target=inst.target,
            lineno=inst.lineno,
            positions=inst.positions,
            push_null=inst.push_null,
            is_method=inst.is_method,
            super_with_args=inst.super_with_args,
            to_bool=inst.to_bool,
        )
    ]


def create_load_closure(name: str) -> list[Instruction]:
    """Push the cell of variable `name` itself, for a closure tuple: LOAD_CLOSURE (3.10 -
    3.12); on 3.13 that is a pseudo-instruction the compiler emits as LOAD_FAST."""
    if opcode_of("LOAD_CLOSURE") is None:
        return [create_instruction("LOAD_FAST", argval=name)]
    return [create_instruction("LOAD_CLOSURE", argval=name)]


def create_copy_free_vars(count: int) -> list[Instruction]:
    """What a 3.11+ code object with free variables starts with; 3.10 copies them itself."""
    if not ENCODING.resume or count == 0:
        return []
    return [create_instruction("COPY_FREE_VARS", argval=count)]


# MAKE_FUNCTION's flags for the optional parts below the code object, in the order
# SET_FUNCTION_ATTRIBUTE (3.13) sets them.
FUNCTION_FLAGS = {"closure": 0x08, "annotations": 0x04, "kwdefaults": 0x02, "defaults": 0x01}


def create_make_function(code: Any, qualname: str, parts: tuple[str, ...]) -> list[Instruction]:
    """Make a function of `code` in the frame's globals, its `parts` (names of
    FUNCTION_FLAGS) on the stack below, pushed in the order defaults, kwdefaults,
    annotations, closure. 3.10 also pushes the qualified name; 3.13 makes the bare
    function and sets each part with SET_FUNCTION_ATTRIBUTE."""
    flags = sum(FUNCTION_FLAGS[part] for part in parts)
    instructions = create_load_const(code)
    if not ENCODING.resume:
        instructions += create_load_const(qualname)
    if opcode_of("SET_FUNCTION_ATTRIBUTE") is None:
        return [*instructions, create_instruction("MAKE_FUNCTION", argval=flags)]
    instructions.append(create_instruction("MAKE_FUNCTION"))
    for part, flag in FUNCTION_FLAGS.items():
        if part in parts:
            instructions.append(create_instruction("SET_FUNCTION_ATTRIBUTE", argval=flag))
    return instructions


def create_enter_with(handler: Instruction | None) -> list[Instruction]:
    """Enter the context manager on top of the stack, leaving its ``__exit__`` and the
    ``__enter__`` result: BEFORE_WITH (3.11+, whose handler is in the exception table),
    SETUP_WITH (3.10, which also pushes the block of `handler`, the with statement's
    exception handler, that the block's POP_BLOCK pops)."""
    if ENCODING.exception_table:
        return [create_instruction("BEFORE_WITH")]
    return [create_instruction("SETUP_WITH", target=handler)]


def create_try_finally(
    body: list[Instruction], final: Callable[[], list[Instruction]]
) -> list[Instruction]:
    """``try: body finally: final()``, for a `body` that starts on an empty stack and
    falls through, and a `final` that leaves the stack as it found it.

    On an exception the handler runs its own copy of `final` and re-raises: a
    SETUP_FINALLY block (3.10) or exception-table entries (3.11+), laid out as CPython
    compiles the statement; the normal path jumps over the handler.
    """
    end = create_instruction("NOP")
    if not ENCODING.exception_table:
        handler = [*final(), create_instruction("RERAISE", argval=0)]
        return [
            create_instruction("SETUP_FINALLY", target=handler[0]),
            *body,
            create_instruction("POP_BLOCK"),
            *final(),
            *create_jump_absolute(end),
            *handler,
            end,
        ]
    handler = [
        create_instruction("PUSH_EXC_INFO"),
        *final(),
        create_instruction("RERAISE", argval=0),
    ]
    cleanup = [
        create_instruction("COPY", argval=3),
        create_instruction("POP_EXCEPT"),
        create_instruction("RERAISE", argval=1),
    ]
    _protect(body, handler[0], depth=0, lasti=False)
    _protect(handler, cleanup[0], depth=1, lasti=True)
    return [*body, *final(), *create_jump_absolute(end), *handler, *cleanup, end]


def _protect(
    instructions: list[Instruction], handler: Instruction, depth: int, lasti: bool
) -> None:
    entry = ExceptionTableEntry(instructions[0], instructions[-1], handler, depth, lasti)
    for inst in instructions:
        if inst.exn_tab_entry is None:  # an inner handler's own range keeps its handler
            inst.exn_tab_entry = entry


def without_method_calls(instructions: list[Instruction]) -> None:
    """Make LOAD_METHOD / CALL_METHOD plain LOAD_ATTR / CALL_FUNCTION, in place, on 3.10
    (as Dynamo does for its continuations): the same calls, but the stack has no slot
    for the NULL that LOAD_METHOD may push, which nothing else can push there."""
    if ENCODING.null != "none":
        return
    plain = {"LOAD_METHOD": "LOAD_ATTR", "CALL_METHOD": "CALL_FUNCTION"}
    for inst in instructions:
        inst.opname = plain.get(inst.opname, inst.opname)


def clone_instructions(instructions: list[Instruction]) -> list[Instruction]:
    """Copies of `instructions` whose jumps and exception entries point to the copies
    (a resume function runs a copy of the original code). An entry whose handler is not
    among them is dropped: the caller puts the copies in a block of its own."""
    copies = [dataclasses.replace(inst, offset=None) for inst in instructions]
    copy_of = {id(old): new for old, new in zip(instructions, copies, strict=True)}
    entries: dict[int, ExceptionTableEntry] = {}
    for new in copies:
        if new.target is not None:
            new.target = copy_of[id(new.target)]
        entry = new.exn_tab_entry
        if entry is not None and id(entry.target) not in copy_of:
            new.exn_tab_entry = None
        elif entry is not None:
            if id(entry) not in entries:
                entries[id(entry)] = dataclasses.replace(
                    entry,
                    start=copy_of[id(entry.start)],
                    end=copy_of[id(entry.end)],
                    target=copy_of[id(entry.target)],
                )
            new.exn_tab_entry = entries[id(entry)]
    return copies
