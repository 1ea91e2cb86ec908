"""Which code the tracer converts, inlines, puts in the graph, or leaves alone
(the role of Dynamo's skipfiles and trace rules).

Frames from our own package, from torch, from the standard library and from generated
code (FX `<eval_with_key>`, frozen modules) are never converted. Calls into torch become
graph nodes; calls into the standard library's Python functions are not traced.
Third-party packages (transformers, torchvision) are user code, except a few (numpy ...).
"""

from __future__ import annotations

import dataclasses
import os
import sysconfig
import types
import weakref

import numpy as np
import torch

import minidynamo
from minidynamo.variables.lists import is_namedtuple

_PACKAGE_DIR = os.path.dirname(minidynamo.__file__) + os.sep
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_STDLIB_DIRS = tuple(
    {os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "platstdlib")}
)
_OWN_DIRS = (_PACKAGE_DIR, _TORCH_DIR)
# In a virtual environment site-packages lies inside "platstdlib": it is told apart first.
_SITE_DIRS = tuple(
    {os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("purelib", "platlib")}
)
# Third-party packages left untraced, as Dynamo's THIRDPARTY_SKIPLIST (and torch's own
# dependencies, which only torch internals call).
_SKIPPED_PACKAGES = frozenset(
    {"numpy", "hypothesis", "pandas", "networkx", "tqdm", "tabulate", "sklearn", "onnx",
     "sympy", "triton", "functorch", "torchgen", "_pytest", "pytest", "pluggy", "syrupy"}
)  # fmt: skip


def is_library_file(filename: str) -> bool:
    """Code of minidynamo, torch, the standard library or a skipped third-party package,
    or generated code."""
    if filename.startswith("<"):
        return not filename.startswith(("<stdin>", "<string>", "<ipython"))
    path = os.path.realpath(filename)
    if path.startswith(_OWN_DIRS) or filename.startswith(_OWN_DIRS):
        return True
    for site in _SITE_DIRS:
        if path.startswith(site):
            return path[len(site) :].split(os.sep)[0] in _SKIPPED_PACKAGES
    return path.startswith(_STDLIB_DIRS)


# Library functions whose answer for an object depends on its type only: evaluated at
# trace time on the type (the type is guarded where the object is an input).
TYPE_QUERY_FUNCTIONS = frozenset({dataclasses.fields, dataclasses.is_dataclass})


def is_library_module(module: types.ModuleType) -> bool:
    filename = getattr(module, "__file__", None)
    return filename is None or is_library_file(filename)


def is_torch_function(fn: object) -> bool:
    """A callable of the torch namespace (recorded in the graph rather than inlined)."""
    module = getattr(fn, "__module__", None) or ""
    return module == "torch" or module.startswith("torch.")


def skip_code(code: types.CodeType, f_builtins: dict) -> bool:
    """Frames of `code` are run by CPython as they are, never converted: library code,
    and, as in Dynamo, a namedtuple's generated constructor (a `<string>` lambda with
    empty builtins), `__setattr__` methods and code run by exec()."""
    if is_library_file(code.co_filename):
        return True
    if code.co_filename == "<string>" and (
        code.co_name == "<module>" or (code.co_name == "<lambda>" and not f_builtins)
    ):
        return True
    return code.co_name == "__setattr__"


# Code of the functions given to `minidynamo.compile`: always translated (Dynamo's
# always_optimize_code_objects), even without a tensor in sight.
_compiled_codes: weakref.WeakSet[types.CodeType] = weakref.WeakSet()


def always_convert(fn: object) -> None:
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        _compiled_codes.add(code)


def has_tensor_in_frame(code: types.CodeType, f_locals: dict, f_globals: dict) -> bool:
    """Dynamo's check before it translates a frame other than a compiled function's
    own (`always_convert`): the code names a global torch or
    numpy module, or an argument holds a tensor, an nn.Module (or its class) or an
    ndarray, looking into lists, tuples, dicts and namedtuples only. A frame without
    one runs in CPython, this call only (so a continuation receiving a tensor inside a
    user object, or only through a global dict, is not compiled)."""
    if code in _compiled_codes:
        return True
    for name in code.co_names:
        value = f_globals.get(name)
        if isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in (
            "torch",
            "numpy",
        ):
            return True
    seen: set[int] = set()
    return any(_has_tensor(value, seen) for value in f_locals.values())


def _has_tensor(value: object, seen: set[int]) -> bool:
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, (torch.Tensor, torch.nn.Module, np.ndarray, np.generic)):
        return True
    if type(value) is type and issubclass(value, torch.nn.Module):  # type: ignore[arg-type]
        return True
    if type(value) in (list, tuple) or is_namedtuple(type(value)):
        return any(_has_tensor(item, seen) for item in value)  # type: ignore[attr-defined]
    if type(value) is dict:
        return any(_has_tensor(item, seen) for item in list(value.values()))
    return False
