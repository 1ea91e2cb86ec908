"""User functions, inlined into the caller's graph (seed: "InliningInstructionTranslator").

`UserFunctionVariable` wraps a real function, `NestedUserFunctionVariable` one created by
MAKE_FUNCTION inside the traced code, `UserMethodVariable` a function bound to an
object. Calling any of them binds the arguments as CPython would (defaults, keyword-only,
``*args``, ``**kwargs``) and runs the function's bytecode symbolically. Calling a
generator function (a generator expression too) gives a `GeneratorVariable`, whose body
runs one `yield` at a time as its items are asked for.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from minidynamo import graph_break_registry as gb
from minidynamo import trace_rules
from minidynamo.bytecode import (
    create_call_function_kw,
    create_dup_top,
    create_instruction,
    create_make_function,
    create_swap,
)
from minidynamo.exc import unimplemented
from minidynamo.side_effects import DELETED
from minidynamo.source import AttrSource, GetItemSource, GlobalSource
from minidynamo.variables.base import VariableTracker
from minidynamo.variables.constant import ConstantVariable
from minidynamo.variables.dicts import ConstDictVariable, MappingProxyVariable
from minidynamo.variables.generators import GeneratorVariable
from minidynamo.variables.lists import TupleVariable
from minidynamo.variables.misc import CellVariable

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen
    from minidynamo.symbolic_convert import (
        InstructionTranslatorBase,
    )
    from torch._guards import Source

CO_GENERATOR_LIKE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def bind_args(
    code: types.CodeType,
    f_globals: dict,
    defaults: tuple[VariableTracker, ...],
    kwdefaults: dict[str, VariableTracker],
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> dict[str, VariableTracker]:
    """Bind VariableTrackers to parameters exactly as CPython binds values."""
    cells = tuple(types.CellType() for _ in code.co_freevars)
    template = types.FunctionType(code, f_globals, code.co_name, defaults, cells)
    template.__kwdefaults__ = kwdefaults
    signature = inspect.signature(template)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        unimplemented(f"call of {code.co_name}() raises TypeError: {e}")
    bound.apply_defaults()
    result: dict[str, VariableTracker] = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            value = TupleVariable(list(value))
        elif kind is inspect.Parameter.VAR_KEYWORD:
            value = ConstDictVariable(dict(value))
        # inspect calls a comprehension's `.0` parameter `implicit0`.
        if name not in code.co_varnames:
            name = "." + name.removeprefix("implicit")
        result[name] = value
    return result


class BaseUserFunctionVariable(VariableTracker):
    """What the InliningInstructionTranslator needs to know about a Python function."""

    def get_code(self) -> types.CodeType:
        raise NotImplementedError

    def get_globals(self) -> dict:
        raise NotImplementedError

    def bind_args(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> dict[str, VariableTracker]:
        raise NotImplementedError

    def closure_cells(self, tx: InstructionTranslatorBase) -> dict[str, CellVariable]:
        raise NotImplementedError

    def python_type(self) -> type:
        return types.FunctionType

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        flags = self.get_code().co_flags
        if flags & inspect.CO_GENERATOR:
            return GeneratorVariable(tx.inline_generator(self, args, kwargs))
        if flags & CO_GENERATOR_LIKE:
            unimplemented(f"call of coroutine function {self.get_code().co_name}")
        return tx.inline_user_function_return(self, args, kwargs)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.variables.user_defined import UserDefinedClassVariable

        if name == "__class__":
            return UserDefinedClassVariable(types.FunctionType)
        if name == "__closure__":
            cells = list(self.closure_cells(tx).values())
            return TupleVariable(cells) if cells else ConstantVariable(None)  # type: ignore[arg-type]
        if name != "__name__":
            unimplemented(f"function attribute {name!r}")
        return ConstantVariable(self.get_code().co_name)


# Attributes of a function object that are fixed once it exists: read as constants.
FUNCTION_NAME_ATTRIBUTES = ("__name__", "__qualname__", "__module__", "__doc__")
# Attributes of an existing function read from it, guarded through its source.
_READ_ATTRIBUTES = (
    "__defaults__",
    "__kwdefaults__",
    "__annotations__",
    "__dict__",
    "__type_params__",
)

# What a bound method reads from its function (the other dunders are the method's own).
_METHOD_FORWARDED = (*FUNCTION_NAME_ATTRIBUTES, "__code__", "__defaults__", "__kwdefaults__")


def globals_source(tx: InstructionTranslatorBase, f_globals: dict) -> Any:
    """How LOAD_GLOBAL in a function with these globals is reached from the frame:
    directly, or through the function's module installed as ``__import_<module>``."""
    if f_globals is tx.output.root_globals:
        return GlobalSource
    module = _reachable_module(f_globals)
    if module is None:
        return lambda name: None
    alias = tx.output.install_import(module, module.__name__)
    return lambda name: AttrSource(GlobalSource(alias), name)


def _reachable_module(f_globals: dict) -> types.ModuleType | None:
    """The imported module whose namespace `f_globals` is, unless its globals are
    taken as fixed (`FIXED_GLOBALS_MODULES`)."""
    module = sys.modules.get(f_globals.get("__name__", ""))
    if module is None or module.__dict__ is not f_globals:
        return None
    if trace_rules.in_modules(module.__name__, trace_rules.FIXED_GLOBALS_MODULES):
        return None
    return module


def store_module_global(
    tx: InstructionTranslatorBase, name: str, value: VariableTracker
) -> None:
    """``global N; N += 1`` in a function of another module than the frame's
    (functorch's ``JVP_NESTING``, forward AD's ``_current_level``): a change of that
    module's attribute, replayed after the graph as Dynamo does; its functions inlined
    later read the new value."""
    from minidynamo.builder import VariableBuilder

    module = _reachable_module(tx.f_globals)
    if module is None:
        unimplemented(f"assignment to global {name!r} of another module")
    alias = tx.output.install_import(module, module.__name__)
    module_vt = VariableBuilder(tx, GlobalSource(alias))(module)
    tx.output.side_effects.store_attr(module_vt, name, value)


class UserFunctionVariable(BaseUserFunctionVariable):
    """A Python function object that already exists (a global, an argument ...)."""

    def __init__(self, fn: types.FunctionType, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.fn = fn

    def __repr__(self) -> str:
        return f"UserFunctionVariable({self.fn.__qualname__})"

    def as_python_constant(self) -> Any:
        return self.fn

    def get_code(self) -> types.CodeType:
        return self.fn.__code__

    def get_globals(self) -> dict:
        return self.fn.__globals__

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """Its names and code are constants (the code is guarded); ``__defaults__``,
        ``__kwdefaults__`` and attributes set on it (``fn.tag``) are read from the
        function, guarded through its source."""
        from minidynamo.builder import VariableBuilder

        stored = tx.output.side_effects.read_attr(self, name, "function ")
        if stored is not None:
            return stored
        if name in FUNCTION_NAME_ATTRIBUTES or name == "__code__":
            return ConstantVariable(getattr(self.fn, name))
        if (name in _READ_ATTRIBUTES and hasattr(self.fn, name)) or name in self.fn.__dict__:
            source = None if self.source is None else AttrSource(self.source, name)
            return VariableBuilder(tx, source)(getattr(self.fn, name))
        return super().var_getattr(tx, name)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``helper.calls = 1`` on an existing function: recorded in SideEffects, set on
        the function after the graph. Dunder attributes (``__defaults__``, ``__code__``)
        change how it is called: not modelled."""
        if name.startswith("__") and name.endswith("__"):
            unimplemented(f"assignment to the function attribute {name}")
        if self.source is None:
            unimplemented(f"attribute assignment .{name} on {self!r}, which cannot be reached")
        tx.output.side_effects.store_attr(self, name, value)

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        stored = tx.output.side_effects.load_attr(self, name)
        if stored is not None:
            return stored is not DELETED
        if hasattr(types.FunctionType, name):
            return True
        if self.source is None:
            unimplemented(f"hasattr on {self!r} that cannot be guarded")
        present = name in self.fn.__dict__  # set outside the region later: guarded
        tx.output.guards.add_hasattr(self.source, name, present)
        return present

    def _wrap_part(
        self, tx: InstructionTranslatorBase, value: object, attribute: str, key: Any
    ) -> VariableTracker:
        """Wrap a default value, sourced as ``fn.__defaults__[i]`` / ``__kwdefaults__[k]``."""
        from minidynamo.builder import VariableBuilder

        source = None
        if self.source is not None:
            source = GetItemSource(AttrSource(self.source, attribute), key)
        return VariableBuilder(tx, source)(value)

    def bind_args(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> dict[str, VariableTracker]:
        defaults = tuple(
            self._wrap_part(tx, value, "__defaults__", i)
            for i, value in enumerate(self.fn.__defaults__ or ())
        )
        kwdefaults = {
            name: self._wrap_part(tx, value, "__kwdefaults__", name)
            for name, value in (self.fn.__kwdefaults__ or {}).items()
        }
        return bind_args(self.get_code(), self.fn.__globals__, defaults, kwdefaults, args, kwargs)

    def closure_cells(self, tx: InstructionTranslatorBase) -> dict[str, CellVariable]:
        cells = {}
        for i, (name, cell) in enumerate(
            zip(self.fn.__code__.co_freevars, self.fn.__closure__ or (), strict=False)
        ):
            source = None
            if self.source is not None:
                source = AttrSource(
                    GetItemSource(AttrSource(self.source, "__closure__"), i), "cell_contents"
                )
            cells[name] = tx.output.cell_variable(cell, source)
        return cells


class GeneratorFrameFunction(BaseUserFunctionVariable):
    """The function call an unstarted generator object stands for, read from its frame:
    the code, the globals, and the arguments and closure values the frame holds, each
    sourced as ``gen.gi_frame.f_locals[name]``. Its closure cells are this trace's own
    (the real cells are out of reach): a store to one cannot be replayed, and breaks."""

    def __init__(self, gen: types.GeneratorType, source: Source) -> None:
        super().__init__()
        self.gen = gen
        self.frame_source = AttrSource(AttrSource(source, "gi_frame"), "f_locals")

    def get_code(self) -> types.CodeType:
        return self.gen.gi_code

    def get_globals(self) -> dict:
        return self.gen.gi_frame.f_globals  # type: ignore[union-attr]

    def _local(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        from minidynamo.builder import VariableBuilder

        value = self.gen.gi_frame.f_locals[name]  # type: ignore[union-attr]
        return VariableBuilder(tx, GetItemSource(self.frame_source, name))(value)

    def bind_args(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> dict[str, VariableTracker]:
        code = self.get_code()
        count = code.co_argcount + code.co_kwonlyargcount
        count += bool(code.co_flags & inspect.CO_VARARGS)
        count += bool(code.co_flags & inspect.CO_VARKEYWORDS)
        return {name: self._local(tx, name) for name in code.co_varnames[:count]}

    def closure_cells(self, tx: InstructionTranslatorBase) -> dict[str, CellVariable]:
        return {name: CellVariable(self._local(tx, name)) for name in self.get_code().co_freevars}


# What `functools.wraps` sets on a function: its names, kept in the function's slots,
# and ``__wrapped__``, kept in its ``__dict__``.
_FUNCTION_SLOTS = frozenset(functools.WRAPPER_ASSIGNMENTS) | {"__type_params__"}
_WRAPPER_NAMES = _FUNCTION_SLOTS | {"__wrapped__"}


class NestedUserFunctionVariable(BaseUserFunctionVariable):
    """A function created while tracing (MAKE_FUNCTION): a nested def, lambda or
    comprehension; its closure holds this trace's own CellVariables."""

    def __init__(
        self,
        code: types.CodeType,
        f_globals: dict,
        *,
        defaults: VariableTracker | None = None,
        kwdefaults: VariableTracker | None = None,
        closure: VariableTracker | None = None,
        qualname: str | None = None,
        has_annotations: bool = False,
    ) -> None:
        super().__init__()
        self.code = code
        self.has_annotations = has_annotations
        self.qualname = qualname or getattr(code, "co_qualname", code.co_name)
        # ``functools.wraps(wrapped)`` applied to it: (the decorator, wrapped)
        self.wrapped_by: tuple[Callable, VariableTracker] | None = None
        self.f_globals = f_globals
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.closure = closure

    def __repr__(self) -> str:
        return f"NestedUserFunctionVariable({self.code.co_name})"

    def get_code(self) -> types.CodeType:
        return self.code

    def get_globals(self) -> dict:
        return self.f_globals

    def bind_args(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> dict[str, VariableTracker]:
        defaults = tuple(self.defaults.unpack_var_sequence(tx)) if self.defaults else ()
        kwdefaults = {}
        if self.kwdefaults is not None:
            kwdefaults = dict(self.kwdefaults.items)  # type: ignore[attr-defined]
        return bind_args(self.code, self.f_globals, defaults, kwdefaults, args, kwargs)

    def closure_cells(self, tx: InstructionTranslatorBase) -> dict[str, CellVariable]:
        cells = self.closure.unpack_var_sequence(tx) if self.closure else []
        return dict(zip(self.code.co_freevars, cells, strict=False))  # type: ignore[arg-type]

    def is_new_object(self) -> bool:
        return True  # one function object however often it is used, with its attributes

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """Attributes the trace set on it (``inner.calls = 1``), and its names."""
        stored = tx.output.side_effects.read_attr(self, name, "function ")
        if stored is not None:
            return stored
        if self.wrapped_by is not None and name in _WRAPS_ATTRIBUTES:
            wrapped = self.wrapped_by[1]
            return wrapped if name == "__wrapped__" else wrapped.var_getattr(tx, name)
        if name == "__qualname__":
            return ConstantVariable(self.qualname)
        if name == "__module__":
            return ConstantVariable(self.f_globals.get("__name__"))
        if name == "__code__":
            return ConstantVariable(self.code)
        if name in ("__defaults__", "__kwdefaults__"):  # as MAKE_FUNCTION was given them
            given = self.defaults if name == "__defaults__" else self.kwdefaults
            return ConstantVariable(None) if given is None else given
        if name == "__doc__":
            first = self.code.co_consts[0] if self.code.co_consts else None
            return ConstantVariable(first if isinstance(first, str) else None)
        if name == "__type_params__" and hasattr(types.FunctionType, name):
            return TupleVariable([])
        if name == "__annotations__" and not self.has_annotations:
            # Made on first read and kept, as CPython's; annotations given are not kept.
            annotations = ConstDictVariable({})
            tx.output.side_effects.store_attr(self, name, annotations)
            return annotations
        if name == "__dict__":
            attributes = tx.output.side_effects.new_object_attributes(self)
            return MappingProxyVariable(
                {
                    key: value
                    for key, value in attributes
                    if key not in _FUNCTION_SLOTS and value is not DELETED
                }
            )
        return super().var_getattr(tx, name)

    def store_attr(self, tx: InstructionTranslatorBase, name: str, value: VariableTracker) -> None:
        """``inner.calls = 1``: kept in SideEffects, set again when the function is
        rebuilt; so are the names `functools.wraps` copies. Other dunder attributes
        (``__defaults__``, ``__code__``) change the function."""
        if name.startswith("__") and name.endswith("__") and name not in _WRAPPER_NAMES:
            unimplemented(f"assignment to the function attribute {name}")
        tx.output.side_effects.store_attr(self, name, value)

    def has_attr(self, tx: InstructionTranslatorBase, name: str) -> bool:
        stored = tx.output.side_effects.load_attr(self, name)
        if stored is not None:
            return stored is not DELETED
        return hasattr(types.FunctionType, name)  # a new function's own __dict__ is empty

    def reconstruct(self, codegen: PyCodegen) -> None:
        """MAKE_FUNCTION again, over the same cells (annotations are not kept), then the
        attributes the trace set on it; under `functools.wraps`, wrapped again. Only a
        function of the frame's own module: MAKE_FUNCTION gives it the frame's globals."""
        if self.f_globals is not codegen.output.root_globals:
            unimplemented(f"rebuilding {self.qualname}, a function made in another module")
        if self.wrapped_by is not None:
            from minidynamo import external_utils

            codegen.load_callable(external_utils.apply_wraps)
            codegen.load_import(self.wrapped_by[0])
            codegen(self.wrapped_by[1])
        parts = []
        for part in ("defaults", "kwdefaults", "closure"):  # MAKE_FUNCTION's stack order
            value = getattr(self, part)
            if value is not None:
                codegen(value)
                parts.append(part)
        codegen.extend(create_make_function(self.code, self.qualname, tuple(parts)))
        for name, value in codegen.output.side_effects.new_object_attributes(self):
            # fn -> fn, fn -> fn, fn, value -> fn, value, fn -> fn.name = value
            codegen.extend(create_dup_top())
            codegen(value)
            codegen.extend(create_swap(2))
            codegen.extend([create_instruction("STORE_ATTR", argval=name)])
        if self.wrapped_by is not None:
            codegen.call(3)


# What `functools.wraps` copies from the wrapped function, and its `__wrapped__`.
_WRAPS_ATTRIBUTES = frozenset(functools.WRAPPER_ASSIGNMENTS) | {"__wrapped__"}


class WrapsVariable(VariableTracker):
    """`functools.wraps` (or torch.func's `_wraps_without_dynamo_attrs`), then that called
    with the wrapped function: the decorator, which marks the function it decorates
    (made in the trace) as wrapping that one, as Dynamo's FunctoolsWrapsVariable."""

    def __init__(
        self,
        decorator: Callable,
        wrapped: VariableTracker | None = None,
        *,
        source: Source | None = None,
    ) -> None:
        super().__init__(source=source)
        self.decorator = decorator
        self.wrapped = wrapped

    def __repr__(self) -> str:
        return f"WrapsVariable({self.decorator.__qualname__}, {self.wrapped!r})"

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        if len(args) != 1 or kwargs:
            unimplemented(f"{self.decorator.__qualname__} with options")
        if self.wrapped is None:
            return WrapsVariable(self.decorator, args[0])
        fn = args[0]
        if not isinstance(fn, NestedUserFunctionVariable) or fn.wrapped_by is not None:
            unimplemented(f"{self.decorator.__qualname__}(...) applied to {fn!r}")
        fn.wrapped_by = (self.decorator, self.wrapped)
        return fn


class UserMethodVariable(VariableTracker):
    """A function bound to an object: calling it passes the object as first argument."""

    def __init__(self, fn: BaseUserFunctionVariable, obj: VariableTracker) -> None:
        super().__init__()
        self.fn = fn
        self.obj = obj

    def __repr__(self) -> str:
        return f"UserMethodVariable({self.fn!r}, {self.obj!r})"

    def python_type(self) -> type:
        return types.MethodType

    def reconstruct(self, codegen: PyCodegen) -> None:
        """``obj.name`` again, where that is how the method was found (a graph break
        inside it leaves the bound method on the caller's stack)."""
        fn = self.fn.as_python_constant() if self.fn.is_python_constant() else None
        name = getattr(fn, "__name__", None)
        owner = getattr(self.obj, "value", None)
        if self.obj.source is None or name is None or getattr(type(owner), name, None) is not fn:
            super().reconstruct(codegen)
            return
        codegen(self.obj)
        codegen.load_attr(name)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """``__self__`` and ``__func__``; its function's names, code, defaults and own
        attributes, which a bound method forwards (``m.__name__``, ``m.tag``)."""
        if name == "__self__":
            return self.obj
        if name == "__func__":
            return self.fn
        if name in _METHOD_FORWARDED or not name.startswith("__"):
            return self.fn.var_getattr(tx, name)
        return super().var_getattr(tx, name)

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return self.fn.call_function(tx, [self.obj, *args], kwargs)


class SkipFunctionVariable(VariableTracker):
    """A function the tracer does not enter: library code, or `minidynamo.disable`."""

    def __init__(
        self,
        value: Any,
        reason: str,
        gb_id: str = gb.SKIPPED_FUNCTION,
        *,
        source: Source | None = None,
    ) -> None:
        super().__init__(source=source)
        self.value = value
        self.reason = reason
        self.gb_id = gb_id

    def __repr__(self) -> str:
        return f"SkipFunctionVariable({getattr(self.value, '__qualname__', '?')})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        """From its source; a graph_break() marker read from an unguarded module (our
        package, torch._dynamo) as the object it is. Other skipped functions without a
        source still make the frame run eagerly: rebuilding them all gave BERT (tests/
        models) wrong results, a bug of the resume path not found yet."""
        if self.source is None and self.gb_id == gb.USER_GRAPH_BREAK:
            codegen.load_import(self.value)
            return
        super().reconstruct(codegen)

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        return self.value

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        unimplemented(self.reason, self.gb_id)


class TypeQueryFunctionVariable(VariableTracker):
    """A library function of an object's type only (`dataclasses.fields`): called on
    the type at trace time; or `inspect.signature`, called on the function."""

    def __init__(self, fn: Callable, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.fn = fn

    def __repr__(self) -> str:
        return f"TypeQueryFunctionVariable({self.fn.__qualname__})"

    def as_python_constant(self) -> Any:
        return self.fn

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        from minidynamo.builder import VariableBuilder
        from minidynamo.variables.exceptions import raise_folded

        if len(args) != 1 or kwargs:
            unimplemented(f"{self.fn.__qualname__}() with {len(args)} arguments")
        arg = args[0]
        if self.fn is inspect.signature:
            target = signature_target(arg)
        else:
            target = arg.as_python_constant() if arg.is_python_constant() else arg.python_type()
        try:
            result = self.fn(target)
        except TypeError as e:  # `fields` of a class that is no dataclass
            raise_folded(e)
        return VariableBuilder(tx, None)(result)


def signature_target(fn: VariableTracker) -> Callable:
    """The callable whose signature `inspect.signature(fn)` reads: a known function,
    or a method bound to an object the trace knows (the object itself is not read)."""
    if fn.is_python_constant():
        return fn.as_python_constant()
    if isinstance(fn, UserMethodVariable) and fn.fn.is_python_constant():
        obj = getattr(fn.obj, "value", None)
        if obj is not None:
            return types.MethodType(fn.fn.as_python_constant(), obj)
    unimplemented(f"inspect.signature of {fn!r}")


class FunctoolsPartialVariable(VariableTracker):
    """``functools.partial(fn, *args, **kwargs)`` made by the trace: calling it calls
    `fn` with the stored arguments first; rebuilt by calling ``functools.partial``."""

    def __init__(
        self,
        fn: VariableTracker,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
        *,
        source: Source | None = None,
        has_attributes: bool = False,
    ) -> None:
        super().__init__(source=source)
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.has_attributes = has_attributes  # a `__dict__` (only an input's: see `of`)

    @classmethod
    def of(
        cls, fn: VariableTracker, args: list[VariableTracker], kwargs: dict[str, VariableTracker]
    ) -> FunctoolsPartialVariable:
        """``functools.partial(fn, *args, **kwargs)``: a partial of a partial without
        attributes is flattened into one, as CPython's constructor does (the trace sets
        no attribute on a partial it makes)."""
        if isinstance(fn, FunctoolsPartialVariable) and not fn.has_attributes:
            return cls(fn.fn, [*fn.args, *args], {**fn.kwargs, **kwargs})
        return cls(fn, args, kwargs)

    def __repr__(self) -> str:
        return f"FunctoolsPartialVariable({self.fn!r})"

    def python_type(self) -> type:
        return functools.partial

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return self.fn.call_function(tx, [*self.args, *args], {**self.kwargs, **kwargs})

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        if name == "func":
            return self.fn
        if name == "args":
            return TupleVariable(list(self.args))
        if name == "keywords":
            return ConstDictVariable(dict(self.kwargs))
        unimplemented(f"attribute {name!r} of a functools.partial")

    def has_attr(self, name: str) -> bool:
        return name in ("func", "args", "keywords") or hasattr(functools.partial, name)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            self.source.reconstruct(codegen)
            return
        codegen.load_callable(functools.partial)
        codegen(self.fn)
        for arg in self.args:
            codegen(arg)
        for value in self.kwargs.values():
            codegen(value)
        nargs = 1 + len(self.args) + len(self.kwargs)
        if self.kwargs:
            codegen.extend(create_call_function_kw(nargs, tuple(self.kwargs)))
        else:
            codegen.call(nargs)


def inline_polyfill(
    tx: InstructionTranslatorBase,
    polyfill: Callable,
    args: list[VariableTracker],
    kwargs: dict[str, VariableTracker],
) -> VariableTracker:
    """Call our plain-Python version of a C function: its code is traced like user code."""
    return UserFunctionVariable(polyfill).call_function(tx, args, kwargs)  # type: ignore[arg-type]


class PolyfilledFunctionVariable(VariableTracker):
    """A C builtin or stdlib callable (`itertools.chain`, `functools.reduce`) that the
    trace replaces by its polyfill (trace_rules.POLYFILLS); rebuilt from its source."""

    def __init__(self, value: Any, polyfill: Callable, *, source: Source | None = None) -> None:
        super().__init__(source=source)
        self.value = value
        self.polyfill = polyfill

    def __repr__(self) -> str:
        return f"PolyfilledFunctionVariable({getattr(self.value, '__qualname__', '?')})"

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        return self.value

    def call_function(
        self,
        tx: InstructionTranslatorBase,
        args: list[VariableTracker],
        kwargs: dict[str, VariableTracker],
    ) -> VariableTracker:
        return inline_polyfill(tx, self.polyfill, args, kwargs)

    def var_getattr(self, tx: InstructionTranslatorBase, name: str) -> VariableTracker:
        """A polyfilled class attribute: ``itertools.chain.from_iterable``."""
        polyfill = None
        if isinstance(self.value, type):
            polyfill = trace_rules.method_polyfill(self.value, name)
        if polyfill is None:
            unimplemented(f"attribute {name!r} of {self.value!r}")
        source = None if self.source is None else AttrSource(self.source, name)
        return PolyfilledFunctionVariable(getattr(self.value, name), polyfill, source=source)
