"""Polyfills of `copy.copy`, `copy.deepcopy` and `object.__reduce_ex__`: CPython's
algorithm (copy.py, typeobject.c's reduce_newobj) in plain Python, the same on every
CPython. The memo is keyed by `id()`, which the tracer answers with a stand-in for the
object's identity; an object other than a builtin container is rebuilt as pickle's
protocol 4 describes it (`__reduce_ex__`), so a class's own `__deepcopy__`,
`__reduce__`, `__getstate__` or `__setstate__` is honoured. Not modelled: reducers
registered in `copyreg.dispatch_table` (pickle's registry; none of its default entries
is a class these copy by reduction).
"""

from __future__ import annotations

import copyreg
import types
import weakref
from typing import Any

# The classes copy.deepcopy returns as they are (its _deepcopy_atomic).
_ATOMIC_TYPES = (type(None), type(Ellipsis), type(NotImplemented), int, float, bool, complex,
                 bytes, str, types.CodeType, type, range, types.BuiltinFunctionType,
                 types.FunctionType, weakref.ref, property)  # fmt: skip


# The classes copy.copy returns as they are, and those it copies with their copy().
_IMMUTABLE_TYPES = (type(None), int, float, bool, complex, str, tuple, bytes, frozenset, type,
                    range, slice, property, types.BuiltinFunctionType, type(Ellipsis),
                    type(NotImplemented), types.FunctionType, types.CodeType,
                    weakref.ref)  # fmt: skip
_COPIED_TYPES = (list, dict, set, bytearray)


def copy(x: Any) -> Any:
    cls = type(x)
    if cls in _IMMUTABLE_TYPES or issubclass(cls, type):
        return x
    if cls in _COPIED_TYPES:
        return x.copy()
    copier = getattr(cls, "__copy__", None)
    if copier is not None:
        return copier(x)
    rv = x.__reduce_ex__(4)
    return x if isinstance(rv, str) else _reconstruct(x, None, *rv)


def deepcopy(x: Any, memo: dict | None = None, _nil: Any = []) -> Any:  # noqa: B006
    """copy.deepcopy: atomic values as they are, builtin containers item by item,
    anything else by its ``__deepcopy__`` or its reduction."""
    if memo is None:
        memo = {}
    d = id(x)
    y = memo.get(d, _nil)
    if y is not _nil:
        return y
    cls = type(x)
    if cls in _ATOMIC_TYPES or issubclass(cls, type):
        return x
    if cls is list:
        y = []
        memo[d] = y
        for item in x:
            y.append(deepcopy(item, memo))
    elif cls is tuple:
        items = [deepcopy(item, memo) for item in x]
        if d in memo:  # a recursive structure made it while its items were copied
            return memo[d]
        y = x
        for old, new in zip(x, items, strict=True):
            if old is not new:
                y = tuple(items)
                break
    elif cls is dict:
        y = {}
        memo[d] = y
        for key, value in x.items():
            y[deepcopy(key, memo)] = deepcopy(value, memo)
    elif cls is types.MethodType:
        y = cls(x.__func__, deepcopy(x.__self__, memo))
    else:
        copier = getattr(x, "__deepcopy__", None)
        if copier is not None:
            y = copier(memo)
        else:
            rv = x.__reduce_ex__(4)
            y = x if isinstance(rv, str) else _reconstruct(x, memo, *rv)
    # CPython also keeps x alive in the memo (its ids must not be reused while it is
    # used); the objects of a trace live until its end.
    if y is not x:
        memo[d] = y
    return y


def _reconstruct(
    x: Any,
    memo: dict | None,
    func: Any,
    args: tuple,
    state: Any = None,
    listiter: Any = None,
    dictiter: Any = None,
) -> Any:
    """copy._reconstruct: the new object, then its state (deep-copied, given a memo)."""
    deep = memo is not None
    if deep and args:
        args = deepcopy(args, memo)
    if func is copyreg.__newobj__:  # type: ignore[attr-defined]
        cls, *rest = args
        y = cls.__new__(cls, *rest)
    else:
        y = func(*args)
    if deep:
        memo[id(x)] = y  # type: ignore[index]
    if state is not None:
        if deep:
            state = deepcopy(state, memo)
        if hasattr(y, "__setstate__"):
            y.__setstate__(state)
        else:
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                y.__dict__.update(state)
            if slotstate:
                for key, value in slotstate.items():
                    setattr(y, key, value)
    if listiter is not None:
        for item in listiter:
            y.append(deepcopy(item, memo) if deep else item)
    if dictiter is not None:
        for key, value in dictiter:
            if deep:
                key, value = deepcopy(key, memo), deepcopy(value, memo)
            y[key] = value
    return y


def object_reduce_ex(obj: Any, protocol: int) -> tuple:
    """``object.__reduce_ex__(obj, protocol)`` for protocol 2 and above: a class's own
    ``__reduce__`` if it has one, else ``cls.__new__(cls, *args)`` plus the state
    (``__getstate__``'s, or ``__dict__`` and the slots' values), and the items of a list
    or dict subclass."""
    cls = type(obj)
    if cls.__reduce__ is not object.__reduce__:
        return obj.__reduce__()
    if hasattr(cls, "__getnewargs_ex__"):
        args, kwargs = obj.__getnewargs_ex__()
    elif hasattr(cls, "__getnewargs__"):
        args, kwargs = obj.__getnewargs__(), {}
    else:
        args, kwargs = (), {}
    if kwargs:
        func, newargs = copyreg.__newobj_ex__, (cls, args, kwargs)  # type: ignore[attr-defined]
    else:
        func, newargs = copyreg.__newobj__, (cls, *args)  # type: ignore[attr-defined]
    default_getstate = getattr(object, "__getstate__", None)  # CPython 3.11+
    if getattr(cls, "__getstate__", None) is not default_getstate:
        state = obj.__getstate__()
    else:
        state = getattr(obj, "__dict__", None)
        if getattr(cls, "__slots__", None):
            slots = {}
            for name in copyreg._slotnames(cls):  # type: ignore[attr-defined]
                if hasattr(obj, name):
                    slots[name] = getattr(obj, name)
            if slots:
                state = (state, slots)
    listitems = iter(obj) if isinstance(obj, list) else None
    dictitems = iter(obj.items()) if isinstance(obj, dict) else None
    return func, newargs, state, listitems, dictitems
