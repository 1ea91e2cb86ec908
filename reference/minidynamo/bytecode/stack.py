"""Stack-depth analysis: why `assemble` refuses programs that would crash CPython.

assemble runs `max_stack_depth` on every instruction list before it builds a code object.
It yields co_stacksize and raises BytecodeError on a stack underflow, on two paths that
reach one instruction with different depths, and on execution running past the last
instruction. Net effects come from `dis.stack_effect`, as in CPython's own compiler.
"""

from __future__ import annotations

import dis
from collections.abc import Callable

from .instruction import BytecodeError, Instruction, describe
from .versions import has_argument

# After these, execution never continues with the next instruction.
TERMINATORS = frozenset(
    """RETURN_VALUE RETURN_CONST RAISE_VARARGS RERAISE JUMP_ABSOLUTE JUMP_FORWARD JUMP_BACKWARD
    JUMP_BACKWARD_NO_INTERRUPT""".split()
)


def max_stack_depth(
    instructions: list[Instruction], opnames: list[str], args: list[int | None]
) -> int:
    """co_stacksize of the program; `opnames`/`args` are the encoded form of `instructions`."""
    return _StackWalk(instructions, opnames, args).run()


class _StackWalk:
    """Propagates stack depths along every path, as CPython's compiler does."""

    def __init__(
        self, instructions: list[Instruction], opnames: list[str], args: list[int | None]
    ) -> None:
        self.instructions = instructions
        self.opnames = opnames
        self.args = args
        self.index_of = {id(inst): index for index, inst in enumerate(instructions)}
        self.depths: list[int | None] = [None] * len(instructions)
        self.pending: list[int] = []

    def run(self) -> int:
        if self.instructions:
            self.reach(0, _ENTRY_DEPTH.get(self.opnames[0], 0))
        while self.pending:
            self.step(self.pending.pop())
        return max((depth for depth in self.depths if depth is not None), default=0)

    def reach(self, index: int, depth: int) -> None:
        known = self.depths[index]
        if known is None:
            self.depths[index] = depth
            self.pending.append(index)
        elif known != depth:
            where = describe(index, self.instructions[index])
            raise BytecodeError(f"{where}: reached with stack depths {known} and {depth}")

    def step(self, index: int) -> None:
        inst, opname, depth = self.instructions[index], self.opnames[index], self.depths[index]
        assert depth is not None
        effect = self.effect(index, jump=False)
        needed = items_read(opname, self.args[index] or 0, effect)
        if needed > depth:
            raise BytecodeError(
                f"{describe(index, inst)}: stack underflow, reads {needed} items of {depth}"
            )
        if inst.exn_tab_entry is not None:
            self.enter_handler(index, depth)
        if inst.target is not None:
            self.jump(index, depth + self.effect(index, jump=True))
        if opname in TERMINATORS:
            return
        if index + 1 == len(self.instructions):
            raise BytecodeError(f"{describe(index, inst)}: execution runs past the end")
        self.reach(index + 1, depth + effect)

    def jump(self, index: int, depth: int) -> None:
        inst = self.instructions[index]
        if depth < 0:
            raise BytecodeError(f"{describe(index, inst)}: stack underflow when jumping")
        self.reach(self.index_of[id(inst.target)], depth)

    def enter_handler(self, index: int, depth: int) -> None:
        """On an exception CPython cuts the stack to entry.depth, then pushes lasti? + exc."""
        entry = self.instructions[index].exn_tab_entry
        assert entry is not None
        if depth < entry.depth:
            where = describe(index, self.instructions[index])
            raise BytecodeError(f"{where}: stack depth {depth} below its handler's {entry.depth}")
        self.reach(self.index_of[id(entry.target)], entry.depth + entry.lasti + 1)

    def effect(self, index: int, *, jump: bool) -> int:
        opname = self.opnames[index]
        if opname in _EFFECT:
            return _EFFECT[opname]
        arg = self.args[index] if has_argument(opname) else None
        return dis.stack_effect(dis.opmap[opname], arg, jump=jump)


# A new generator finds the value sent into it on the stack when it first runs: 3.10
# code starts there (GEN_START pops it); 3.11+ RETURN_GENERATOR resumes with it pushed,
# which dis counts from 3.13 on.
_ENTRY_DEPTH = {"GEN_START": 1}
_EFFECT = {"RETURN_GENERATOR": 1}


def _reads(count: int) -> Callable[[int, int], int]:
    return lambda arg, effect: count


def _one_result(arg: int, effect: int) -> int:
    """Replaces its inputs by one result, so reads one more than it removes."""
    return 1 - effect


# Items read from the stack by instructions that read more than they remove; called with
# (oparg, net effect). Everything else reads exactly what it removes. Where unsure a rule
# errs low: an overestimate would refuse valid code.
_READS: dict[str, Callable[[int, int], int]] = {
    **dict.fromkeys(
        """COMPARE_OP IS_OP CONTAINS_OP GET_ITER GET_AWAITABLE GET_AITER GET_YIELD_FROM_ITER
        FORMAT_VALUE FORMAT_SIMPLE FORMAT_WITH_SPEC CONVERT_VALUE TO_BOOL LIST_TO_TUPLE
        IMPORT_NAME MAKE_FUNCTION SET_FUNCTION_ATTRIBUTE YIELD_VALUE LOAD_FROM_DICT_OR_DEREF
        LOAD_FROM_DICT_OR_GLOBALS""".split(),
        _one_result,
    ),
    **dict.fromkeys(
        """LOAD_ATTR LOAD_METHOD FOR_ITER GET_LEN GET_ANEXT UNPACK_SEQUENCE UNPACK_EX
        IMPORT_FROM MATCH_MAPPING MATCH_SEQUENCE DUP_TOP STORE_FAST_LOAD_FAST PUSH_EXC_INFO
        BEFORE_WITH BEFORE_ASYNC_WITH SETUP_WITH""".split(),
        _reads(1),
    ),
    **dict.fromkeys(
        "DUP_TOP_TWO ROT_TWO MATCH_KEYS SEND END_SEND CHECK_EXC_MATCH CHECK_EG_MATCH".split(),
        _reads(2),
    ),
    **dict.fromkeys(("ROT_THREE", "MATCH_CLASS", "LOAD_SUPER_ATTR"), _reads(3)),
    "ROT_FOUR": _reads(4),
    **dict.fromkeys(("ROT_N", "SWAP", "COPY"), lambda arg, effect: arg),
    # Pop one item, then add it to the container `arg` items below.
    **dict.fromkeys(
        "LIST_APPEND SET_ADD LIST_EXTEND SET_UPDATE DICT_UPDATE DICT_MERGE".split(),
        lambda arg, effect: arg + 1,
    ),
    "MAP_ADD": lambda arg, effect: arg + 2,
    # RERAISE 1 also reads the saved lasti under what it pops.
    "RERAISE": lambda arg, effect: arg - effect,
}

# Families that replace their inputs by one result, whatever their argument.
_ONE_RESULT_PREFIXES = ("UNARY_", "BINARY_", "INPLACE_", "BUILD_", "CALL")


def items_read(opname: str, arg: int, effect: int) -> int:
    """How many stack items an instruction reads; `effect` is its net change (dis)."""
    rule = _READS.get(opname)
    if rule is not None:
        return rule(arg, effect)
    if opname.startswith(_ONE_RESULT_PREFIXES):
        return _one_result(arg, effect)
    return max(0, -effect)


def stack_effect(inst: Instruction, *, jump: bool = False) -> int:
    """Net stack effect of a decoded instruction (its raw `arg` is the one decode found),
    along its jump (`jump=True`) or its fall-through: how deep the stack is after a graph
    break runs it in CPython."""
    arg = inst.arg if has_argument(inst.opname) else None
    return dis.stack_effect(dis.opmap[inst.opname], arg, jump=jump)
