"""Calls in every form of every version, function creation, and `return`.

The call protocol differs most between versions: 3.10 has CALL_FUNCTION,
CALL_FUNCTION_KW and CALL_METHOD; 3.11 PRECALL + CALL with KW_NAMES; 3.12 CALL with
KW_NAMES; 3.13 CALL and CALL_KW, with the NULL above the callable instead of below.
All of them end in `tx.call_function(fn, args, kwargs)`.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from minidynamo.exc import unimplemented
from minidynamo.opcodes import handler
from minidynamo.variables.builtin import BuiltinVariable
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.dicts import ConstDictVariable
from minidynamo.variables.functions import NestedUserFunctionVariable
from minidynamo.variables.generators import GeneratorVariable
from minidynamo.variables.lists import IteratorVariable
from minidynamo.variables.misc import NullVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


def split_kwargs(
    values: list[VariableTracker], names: tuple[str, ...]
) -> tuple[list[VariableTracker], dict[str, VariableTracker]]:
    """Positional arguments and keyword arguments: the last len(names) are keywords."""
    split = len(values) - len(names)
    return values[:split], dict(zip(names, values[split:], strict=True))


def call_null_below(tx: InstructionTranslatorBase, nargs: int, names: tuple[str, ...]) -> None:
    """Stack: [NULL, callable, args...] or [callable, self, args...] (3.10 methods, 3.11, 3.12)."""
    args, kwargs = split_kwargs(tx.popn(nargs), names)
    first, second = tx.popn(2)
    if isinstance(first, NullVariable):
        tx.call_function(second, args, kwargs)
    else:
        tx.call_function(first, [second, *args], kwargs)


def call_null_above(tx: InstructionTranslatorBase, nargs: int, names: tuple[str, ...]) -> None:
    """Stack: [callable, NULL, args...] or [callable, self, args...] (3.13)."""
    args, kwargs = split_kwargs(tx.popn(nargs), names)
    fn, self_or_null = tx.popn(2)
    if not isinstance(self_or_null, NullVariable):
        args = [self_or_null, *args]
    tx.call_function(fn, args, kwargs)


@handler("CALL_FUNCTION", until=(3, 10))
def CALL_FUNCTION(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    args = tx.popn(inst.argval)
    tx.call_function(tx.pop(), args, {})


@handler("CALL_FUNCTION_KW", until=(3, 10))
def CALL_FUNCTION_KW(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    names = tx.pop().as_python_constant()
    args, kwargs = split_kwargs(tx.popn(inst.argval), names)
    tx.call_function(tx.pop(), args, kwargs)


@handler("CALL_METHOD", until=(3, 10))
def CALL_METHOD(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    call_null_below(tx, inst.argval, ())


@handler("KW_NAMES", since=(3, 11), until=(3, 12))
def KW_NAMES(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.kw_names = inst.argval


@handler("CALL", since=(3, 11), until=(3, 12))
def CALL(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    names, tx.kw_names = tx.kw_names or (), None
    call_null_below(tx, inst.argval, names)


@handler("CALL", since=(3, 13))
def CALL_null_above(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    call_null_above(tx, inst.argval, ())


@handler("CALL_KW", since=(3, 13))
def CALL_KW(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    names = tx.pop().as_python_constant()
    call_null_above(tx, inst.argval, names)


def unpack_call_ex(
    tx: InstructionTranslatorBase, inst: Instruction
) -> tuple[list[VariableTracker], dict[str, VariableTracker]]:
    """The ``*args`` sequence and ``**kwargs`` dict of CALL_FUNCTION_EX."""
    kwargs: dict[str, VariableTracker] = {}
    if inst.argval & 0x01:
        mapping = tx.pop()
        if not isinstance(mapping, ConstDictVariable):
            unimplemented(f"**{mapping!r} in a call")
        kwargs = dict(mapping.items)
    return tx.pop().unpack_var_sequence(tx), kwargs


@handler("CALL_FUNCTION_EX", until=(3, 10))
def CALL_FUNCTION_EX(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    args, kwargs = unpack_call_ex(tx, inst)
    tx.call_function(tx.pop(), args, kwargs)


@handler("CALL_FUNCTION_EX", since=(3, 11), until=(3, 12))
def CALL_FUNCTION_EX_null_below(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    args, kwargs = unpack_call_ex(tx, inst)
    _null, fn = tx.popn(2)
    tx.call_function(fn, args, kwargs)


@handler("CALL_FUNCTION_EX", since=(3, 13))
def CALL_FUNCTION_EX_null_above(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    args, kwargs = unpack_call_ex(tx, inst)
    fn, _null = tx.popn(2)
    tx.call_function(fn, args, kwargs)


# MAKE_FUNCTION's flags say which optional parts sit below the code object (3.13 sets
# them afterwards with SET_FUNCTION_ATTRIBUTE, one flag at a time).
FUNCTION_PARTS = {0x08: "closure", 0x04: "annotations", 0x02: "kwdefaults", 0x01: "defaults"}


def make_function(tx: InstructionTranslatorBase, flags: int, qualname: str | None = None) -> None:
    code = tx.pop().as_python_constant()
    parts = {name: tx.pop() for flag, name in FUNCTION_PARTS.items() if flags & flag}
    has_annotations = parts.pop("annotations", None) is not None
    tx.push(
        NestedUserFunctionVariable(
            code, tx.f_globals, qualname=qualname, has_annotations=has_annotations, **parts
        )
    )


@handler("MAKE_FUNCTION", until=(3, 10))
def MAKE_FUNCTION_with_qualname(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    qualname = tx.pop().as_python_constant()  # above the code object
    make_function(tx, inst.argval, qualname)


@handler("MAKE_FUNCTION", since=(3, 11), until=(3, 12))
def MAKE_FUNCTION(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    make_function(tx, inst.argval)


@handler("MAKE_FUNCTION", since=(3, 13))
def MAKE_FUNCTION_code_only(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    make_function(tx, 0)


@handler("SET_FUNCTION_ATTRIBUTE", since=(3, 13))
def SET_FUNCTION_ATTRIBUTE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value, fn = tx.popn(2)
    name = FUNCTION_PARTS[inst.argval]
    if name == "annotations":
        fn.has_annotations = True
    else:
        setattr(fn, name, value)
    tx.push(fn)


@handler("LOAD_BUILD_CLASS")
def LOAD_BUILD_CLASS(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(BuiltinVariable(builtins.__build_class__))


# Generators: their body runs in an InliningGeneratorTranslator, paused at each yield.


@handler("GEN_START", until=(3, 10))
def GEN_START(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Pops the value sent into a new generator, which our translator never pushed."""


@handler("RETURN_GENERATOR", since=(3, 11))
def RETURN_GENERATOR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """The generator's first resumption finds the value sent into it (None)."""
    tx.push(ConstantVariable(None))


@handler("YIELD_VALUE")
def YIELD_VALUE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Hand the value to the consumer; on resumption the value sent (None) is pushed."""
    tx.yield_value(tx.pop(), inst)
    tx.push(ConstantVariable(None))


# `yield from`: the delegating generator passes each value of the inner iterator on.


@handler("GET_YIELD_FROM_ITER")
def GET_YIELD_FROM_ITER(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if not isinstance(tx.stack[-1], GeneratorVariable):
        tx.push(BuiltinVariable(iter).call_function(tx, [tx.pop()], {}))


def send(
    tx: InstructionTranslatorBase, receiver: VariableTracker, value: VariableTracker
) -> tuple[VariableTracker | None, VariableTracker]:
    """``receiver.send(value)``: (the value it yields, None) or, once it has returned,
    (None, its return value)."""
    if isinstance(receiver, GeneratorVariable):
        item = receiver.tx.resume(sent=value)
        result = receiver.returned()
    elif isinstance(receiver, IteratorVariable):
        item, result = receiver.next_variable(), ConstantVariable(None)
    else:
        unimplemented(f"yield from {receiver!r}")
    tx.delegating = item is not None  # type: ignore[attr-defined]
    return item, result


@handler("SEND", since=(3, 11), until=(3, 11))
def SEND_replacing_receiver(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Stack: receiver, value. A yielded value is pushed above the receiver; the return
    value replaces it (and the loop is left)."""
    value = tx.pop()
    item, result = send(tx, tx.stack[-1], value)
    if item is None:
        tx.stack[-1] = result
        tx.jump(inst)
    else:
        tx.push(item)


@handler("SEND", since=(3, 12))
def SEND(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Stack: receiver, value -> receiver, yielded value (or return value, leaving the
    loop for END_SEND)."""
    item, result = send(tx, tx.stack[-2], tx.pop())
    tx.push(result if item is None else item)
    if item is None:
        tx.jump(inst)


@handler("END_SEND", since=(3, 12))
def END_SEND(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    value = tx.pop()
    tx.pop()
    tx.push(value)


@handler("YIELD_FROM", until=(3, 10))
def YIELD_FROM(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """Stack: receiver, value. A yielded value is yielded from here, and YIELD_FROM runs
    again on resumption; the return value replaces the receiver."""
    item, result = send(tx, tx.stack[-2], tx.pop())
    if item is None:
        tx.stack[-1] = result
        return
    tx.yield_value(item, inst)
    tx.push(ConstantVariable(None))
    tx.instruction_pointer -= 1


@handler("RETURN_VALUE")
def RETURN_VALUE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.return_value(tx.pop())


@handler("RETURN_CONST", since=(3, 12))
def RETURN_CONST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.return_value(ConstantVariable.create(inst.argval))
