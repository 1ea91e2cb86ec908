"""Loads and stores: locals, constants, globals, closure cells and attributes.

Where 3.11+ puts a NULL beside a callable (LOAD_GLOBAL's push_null bit, LOAD_ATTR's
method form), it sits below the callable on 3.11/3.12 and above it on 3.13; that is the
only reason some loads have two registrations.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import TYPE_CHECKING

from minidynamo.exc import unimplemented
from minidynamo.opcodes import handler
from minidynamo.variables import lazy
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.functions import store_module_global
from minidynamo.variables.misc import NullVariable
from minidynamo.variables.user_defined import UserDefinedObjectVariable

if TYPE_CHECKING:
    from minidynamo.bytecode import Instruction
    from minidynamo.symbolic_convert import InstructionTranslatorBase
    from minidynamo.variables.base import VariableTracker


@handler("LOAD_FAST")
@handler("LOAD_FAST_CHECK", since=(3, 12))
def LOAD_FAST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.load_local(inst.argval))


@handler("LOAD_FAST_AND_CLEAR", since=(3, 12))
def LOAD_FAST_AND_CLEAR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    # Saves a variable an inlined comprehension reuses; NULL if it was unbound.
    value = tx.symbolic_locals.pop(inst.argval, None)
    tx.push(NullVariable() if value is None else tx.realize(inst.argval, value))


@handler("LOAD_FAST_LOAD_FAST", since=(3, 13))
def LOAD_FAST_LOAD_FAST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    first, second = inst.argval
    tx.push(tx.load_local(first))
    tx.push(tx.load_local(second))


@handler("STORE_FAST")
def STORE_FAST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.store_local(inst.argval, tx.pop())


@handler("STORE_FAST_LOAD_FAST", since=(3, 13))
def STORE_FAST_LOAD_FAST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    stored, loaded = inst.argval
    tx.store_local(stored, tx.pop())
    tx.push(tx.load_local(loaded))


@handler("STORE_FAST_STORE_FAST", since=(3, 13))
def STORE_FAST_STORE_FAST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    first, second = inst.argval
    tx.store_local(first, tx.pop())
    tx.store_local(second, tx.pop())


@handler("DELETE_FAST")
def DELETE_FAST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.load_local(inst.argval)  # UnboundLocalError is CPython's to raise
    del tx.symbolic_locals[inst.argval]


@handler("LOAD_CONST")
def LOAD_CONST(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(ConstantVariable.create(inst.argval))


@handler("LOAD_GLOBAL", until=(3, 10))
def LOAD_GLOBAL(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.load_global(inst.argval))


@handler("LOAD_GLOBAL", since=(3, 11), until=(3, 12))
def LOAD_GLOBAL_null_below(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if inst.push_null:
        tx.push(NullVariable())
    tx.push(tx.load_global(inst.argval))


@handler("LOAD_GLOBAL", since=(3, 13))
def LOAD_GLOBAL_null_above(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.load_global(inst.argval))
    if inst.push_null:
        tx.push(NullVariable())


@handler("STORE_GLOBAL")
def STORE_GLOBAL(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if tx.f_globals is not tx.output.root_globals:
        store_module_global(tx, inst.argval, tx.pop())
        return
    tx.output.side_effects.store_global(inst.argval, tx.pop())


@handler("DELETE_GLOBAL")
def DELETE_GLOBAL(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    if tx.f_globals is not tx.output.root_globals:
        unimplemented(f"deletion of global {inst.argval!r} of another module")
    tx.delete_global(inst.argval)


@handler("LOAD_CLOSURE", until=(3, 12))
def LOAD_CLOSURE(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.cells[inst.argval])


@handler("LOAD_DEREF")
def LOAD_DEREF(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.cells[inst.argval].load(tx))


@handler("STORE_DEREF")
def STORE_DEREF(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.cells[inst.argval].store(tx, tx.pop())


def load_attribute(tx: InstructionTranslatorBase, inst: Instruction) -> VariableTracker:
    return tx.pop().var_getattr(tx, inst.argval)


@handler("LOAD_ATTR", until=(3, 11))
def LOAD_ATTR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(load_attribute(tx, inst))


# LOAD_METHOD (and LOAD_ATTR's method form) push [NULL, bound attribute]: CALL then
# treats the bound attribute as a plain callable.
@handler("LOAD_METHOD", until=(3, 11))
def LOAD_METHOD(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    attr = load_attribute(tx, inst)
    tx.push(NullVariable())
    tx.push(attr)


@handler("LOAD_ATTR", since=(3, 12), until=(3, 12))
def LOAD_ATTR_null_below(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    attr = load_attribute(tx, inst)
    if inst.is_method:
        tx.push(NullVariable())
    tx.push(attr)


@handler("LOAD_ATTR", since=(3, 13))
def LOAD_ATTR_null_above(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(load_attribute(tx, inst))
    if inst.is_method:
        tx.push(NullVariable())


@handler("STORE_ATTR")
def STORE_ATTR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    obj, value = tx.pop(), tx.pop()
    if not hasattr(obj, "store_attr"):  # the kinds of value whose attributes are modelled
        unimplemented(f"attribute assignment .{inst.argval} on {obj!r}")
    obj.store_attr(tx, inst.argval, lazy.realize(value))


@handler("DELETE_ATTR")
def DELETE_ATTR(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    obj = tx.pop()
    if not isinstance(obj, UserDefinedObjectVariable):
        unimplemented(f"attribute deletion .{inst.argval} on {obj!r}")
    obj.delete_attr(tx, inst.argval)


@handler("IMPORT_NAME")
def IMPORT_NAME(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    """``import a.b`` / ``from . import c`` of a module imported already: the import
    statement's value, found without running any import code."""
    fromlist = tx.pop().as_python_constant()
    level = tx.pop().as_python_constant()
    name = inst.argval
    if level:
        package = tx.f_globals.get("__package__") or tx.f_globals.get("__name__", "")
        name = importlib.util.resolve_name("." * level + name, package)
    if name not in sys.modules:
        unimplemented(f"import of {name!r}, not imported yet")
    module = sys.modules[name] if fromlist else sys.modules[name.partition(".")[0]]
    tx.push(tx.output.import_source_variable(tx, module))


@handler("IMPORT_FROM")
def IMPORT_FROM(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(tx.stack[-1].var_getattr(tx, inst.argval))


def load_super_attribute(tx: InstructionTranslatorBase, inst: Instruction) -> VariableTracker:
    """``super().name``: the stack holds the `super` global, the class and the object."""
    from minidynamo.variables.superclass import make_super

    obj, cls = tx.pop(), tx.pop()
    tx.pop()  # the `super` builtin itself
    return make_super(tx, cls, obj).var_getattr(tx, inst.argval)


@handler("LOAD_SUPER_ATTR", since=(3, 12), until=(3, 12))
def LOAD_SUPER_ATTR_null_below(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    attr = load_super_attribute(tx, inst)
    if inst.is_method:
        tx.push(NullVariable())
    tx.push(attr)


@handler("LOAD_SUPER_ATTR", since=(3, 13))
def LOAD_SUPER_ATTR_null_above(tx: InstructionTranslatorBase, inst: Instruction) -> None:
    tx.push(load_super_attribute(tx, inst))
    if inst.is_method:
        tx.push(NullVariable())
