"""Which code the tracer converts, inlines, puts in the graph, or leaves alone
(the role of Dynamo's skipfiles and trace rules).

Frames from our own package, from torch, from the standard library and from generated
code (FX `<eval_with_key>`, frozen modules) are never converted. Calls into torch become
graph nodes; calls into the standard library's Python functions are not traced.
"""

from __future__ import annotations

import os
import sysconfig
import types

import torch

import minidynamo

_PACKAGE_DIR = os.path.dirname(minidynamo.__file__) + os.sep
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_STDLIB_DIRS = tuple(
    {os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "platstdlib")}
)
_LIBRARY_DIRS = (_PACKAGE_DIR, _TORCH_DIR, *_STDLIB_DIRS)


def is_library_file(filename: str) -> bool:
    """Code of minidynamo, torch or the standard library, or generated code."""
    if filename.startswith("<"):
        return not filename.startswith(("<stdin>", "<string>", "<ipython"))
    return filename.startswith(_LIBRARY_DIRS) or os.path.realpath(filename).startswith(
        _LIBRARY_DIRS
    )


def is_library_module(module: types.ModuleType) -> bool:
    filename = getattr(module, "__file__", None)
    return filename is None or is_library_file(filename)


def is_torch_function(fn: object) -> bool:
    """A callable of the torch namespace (recorded in the graph rather than inlined)."""
    module = getattr(fn, "__module__", None) or ""
    return module == "torch" or module.startswith("torch.")


def skip_code(code: types.CodeType) -> bool:
    """Frames of `code` are run by CPython as they are, never converted."""
    return is_library_file(code.co_filename) or is_namedtuple_new(code)


def is_namedtuple_new(code: types.CodeType) -> bool:
    """The `__new__` that `collections.namedtuple` generates with `eval` (a lambda in
    `<string>` calling `_tuple_new`): stdlib code, though its file name says otherwise."""
    return code.co_filename == "<string>" and code.co_names == ("_tuple_new",)
