"""Running a case's calls eagerly and compiled, and comparing what the two runs did.

Both runs start from the same module globals and get fresh, identical inputs. After each
call the runner keeps a snapshot of the result, printed output, raised exception, the
arguments (they may be mutated) and the case module's data globals (check 1 of issue #6).
"""

from __future__ import annotations

import collections
import contextlib
import copy
import dataclasses
import functools
import inspect
import io
import math
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from conformance.adapters import Adapter
from conformance.spec import Case, materialize, materialize_args


@dataclasses.dataclass
class CallRecord:
    """What one call did, as snapshots that later calls cannot change."""

    result: Any
    error: tuple[type[BaseException], str] | None  # the exception's class and message
    stdout: str
    args: Any
    globals: dict[str, Any]
    aliases: list[tuple[str, str]]
    raw_error: BaseException | None = None


# Values that are code rather than data: compared by identity, never tracked as globals.
_CODE = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
    torch.jit.ScriptFunction,
    torch._library.custom_ops.CustomOpDef,  # a `torch.library.custom_op` function
    torch.library.Library,  # operator registrations
)


def _is_data(value: object) -> bool:
    """Module globals worth tracking: not code (see _CODE) and not suite objects."""
    if isinstance(value, _CODE):
        return False
    return not type(value).__module__.startswith("conformance.spec")


_INITIAL_GLOBALS: dict[str, dict[str, Any]] = {}


def restore_globals(module: types.ModuleType) -> None:
    """Put the module's data globals back to their state when first seen (deep copies)."""
    if module.__name__ not in _INITIAL_GLOBALS:
        data = {k: v for k, v in vars(module).items() if not k.startswith("__") and _is_data(v)}
        _INITIAL_GLOBALS[module.__name__] = copy.deepcopy(data)
    vars(module).update(copy.deepcopy(_INITIAL_GLOBALS[module.__name__]))


def _data_globals(module: types.ModuleType) -> dict[str, Any]:
    names = _INITIAL_GLOBALS[module.__name__]
    return {k: snapshot(vars(module).get(k)) for k in names}


@dataclasses.dataclass(frozen=True)
class TensorSnapshot:
    """A tensor's value and the properties eager code can observe."""

    value: torch.Tensor
    requires_grad: bool
    grad: TensorSnapshot | None  # `.grad`: what backward() or `p.grad = ...` left there


@dataclasses.dataclass(frozen=True)
class ArraySnapshot:
    """A NumPy array's value (a copy: a later call may mutate the array)."""

    value: np.ndarray


@dataclasses.dataclass(frozen=True)
class ObjectSnapshot:
    """A user object or nn.Module: its type and its attributes."""

    type: type
    attributes: dict[str, Any]


def snapshot(value: Any, _seen: dict[int, Any] | None = None) -> Any:
    """A copy of `value` for comparison (tensors detached, objects as attribute dicts).
    A container reached again within its own snapshot is a cycle, ``"<cycle>"``; one
    reached again elsewhere (the same tuple twice in a result) is its snapshot again."""
    seen = {} if _seen is None else _seen
    if id(value) in seen:
        return seen[id(value)]
    result = _snapshot(value, seen)
    if id(value) in seen:  # a container: its finished snapshot for later reaches
        seen[id(value)] = result
    return result


def _snapshot(value: Any, seen: dict[int, Any]) -> Any:
    if isinstance(value, torch.Tensor):
        grad = None if value.grad is None else snapshot(value.grad, seen)
        return TensorSnapshot(value.detach().clone(), value.requires_grad, grad)
    if isinstance(value, np.ndarray):
        return ArraySnapshot(value.copy())
    if isinstance(value, types.GeneratorType):  # its state: created, suspended or closed
        return ObjectSnapshot(types.GeneratorType, {"state": inspect.getgeneratorstate(value)})
    if isinstance(value, (list, tuple, set, frozenset)):
        seen[id(value)] = "<cycle>"
        items = [snapshot(v, seen) for v in value]
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*items)
        return type(value)(items) if not isinstance(value, torch.Size) else value
    if isinstance(value, dict):
        seen[id(value)] = "<cycle>"
        items = {k: snapshot(v, seen) for k, v in value.items()}
        if type(value) in (dict, collections.OrderedDict):
            return type(value)(items)
        # A dict subclass (a ModelOutput): its items, and attributes, whatever its
        # constructor takes.
        attributes = {k: snapshot(v, seen) for k, v in getattr(value, "__dict__", {}).items()}
        return ObjectSnapshot(type(value), {"items": items, "attributes": attributes})
    if isinstance(value, torch.nn.Module):
        state = {k: snapshot(v, seen) for k, v in value.state_dict().items()}
        return ObjectSnapshot(type(value), {"training": value.training, **state})
    if hasattr(value, "__dict__") and not isinstance(value, _CODE):
        seen[id(value)] = "<cycle>"
        attributes = {k: snapshot(v, seen) for k, v in vars(value).items()}
        return ObjectSnapshot(type(value), attributes)
    return value


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where `actual` differs from `expected` (both snapshots), one line per place."""
    where = path or "value"
    if type(expected) is not type(actual):
        return [f"{where}: {type(expected).__name__} != {type(actual).__name__} ({actual!r})"]
    if isinstance(expected, TensorSnapshot):
        return _tensor_differences(expected, actual, where)
    if isinstance(expected, ArraySnapshot):
        return _array_differences(expected.value, actual.value, where)
    if isinstance(expected, ObjectSnapshot):
        if expected.type is not actual.type:
            return [f"{where}: type {expected.type.__name__} != {actual.type.__name__}"]
        return differences(expected.attributes, actual.attributes, path)
    if isinstance(expected, dict):
        if list(expected) != list(actual):
            return [f"{where}: keys {list(expected)} != {list(actual)}"]
        return [d for k in expected for d in differences(expected[k], actual[k], f"{path}[{k!r}]")]
    if isinstance(expected, (list, tuple)) and not isinstance(expected, torch.Size):
        if len(expected) != len(actual):
            return [f"{where}: length {len(expected)} != {len(actual)}"]
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in differences(e, a, f"{path}[{i}]")
        ]
    if isinstance(expected, float) and math.isnan(expected) and math.isnan(actual):
        return []
    if isinstance(expected, float) and math.isclose(expected, actual, rel_tol=1e-6, abs_tol=1e-9):
        return []
    return [] if expected == actual else [f"{where}: {expected!r} != {actual!r}"]


def _tensor_differences(expected: TensorSnapshot, actual: TensorSnapshot, where: str) -> list[str]:
    e, a = expected.value, actual.value
    if (e.dtype, e.shape, e.device) != (a.dtype, a.shape, a.device):
        return [f"{where}: tensor {e.dtype}{list(e.shape)} != {a.dtype}{list(a.shape)}"]
    if expected.requires_grad != actual.requires_grad:
        return [f"{where}: requires_grad {expected.requires_grad} != {actual.requires_grad}"]
    if (expected.grad is None) != (actual.grad is None):
        kinds = ["None" if grad is None else "a tensor" for grad in (expected.grad, actual.grad)]
        return [f"{where}.grad: {kinds[0]} != {kinds[1]}"]
    if expected.grad is not None:
        found = differences(expected.grad, actual.grad, f"{where}.grad")
        if found:
            return found
    try:
        torch.testing.assert_close(a, e, equal_nan=True)
    except AssertionError as error:
        return [f"{where}: tensor values differ: {str(error).splitlines()[1:3]}"]
    return []


def _array_differences(e: np.ndarray, a: np.ndarray, where: str) -> list[str]:
    if (e.dtype, e.shape) != (a.dtype, a.shape):
        return [f"{where}: ndarray {e.dtype}{list(e.shape)} != {a.dtype}{list(a.shape)}"]
    if not np.allclose(a, e, rtol=1.3e-6, atol=1e-5, equal_nan=True):
        return [f"{where}: ndarray values differ: {e!r} != {a!r}"]
    return []


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}[{key!r}]")
    else:
        yield path, value


def _aliases(result: Any, args: tuple[Any, ...]) -> list[tuple[str, str]]:
    """Which tensors and arrays of the result *are* argument ones (identity, not
    equality)."""
    arrays = (torch.Tensor, np.ndarray)
    by_id = {id(v): p for p, v in _leaves(args, "args") if isinstance(v, arrays)}
    return [
        (path, by_id[id(v)])
        for path, v in _leaves(result, "result")
        if isinstance(v, arrays) and id(v) in by_id
    ]


def run_calls(
    case: Case, fn: Callable[..., Any], adapter: Adapter | None = None
) -> list[CallRecord]:
    """Make the case's calls on `fn`; with an adapter, mark declared dims dynamic through it."""
    restore_globals(case.module)
    records = []
    for i, call in enumerate(case.calls):
        torch.manual_seed(1000 + i)
        marks: list[tuple[torch.Tensor, int]] = []
        args = materialize_args(call.args, marks)
        kwargs = materialize(call.kwargs, marks)
        if adapter is not None:
            for tensor, dim in marks:
                adapter.mark_dynamic(tensor, dim)
        if call.before is not None:
            call.before()
        records.append(_call(case, fn, args, kwargs))
    return records


def _call(case: Case, fn: Callable[..., Any], args: tuple, kwargs: dict) -> CallRecord:
    out = io.StringIO()
    result, error = None, None
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # the case's own exception, compared with eager's
            error = exc
    return CallRecord(
        result=snapshot(result),
        error=None if error is None else (type(error), str(error)),
        stdout=out.getvalue(),
        args=snapshot((args, kwargs)),
        globals=_data_globals(case.module),
        aliases=_aliases(result, (args, kwargs)),
        raw_error=error,
    )


def same_exception(
    eager: tuple[type[BaseException], str] | None,
    compiled: tuple[type[BaseException], str] | None,
) -> bool:
    """The compiled run raised what eager raised: the same class and message, or an
    instance of a subclass of eager's class (Dynamo's TorchRuntimeError is a
    RuntimeError), which every `except` clause of the program catches alike; such a
    wrapper's message is its own and is not compared."""
    if eager is None or compiled is None:
        return eager is compiled
    if compiled[0] is eager[0]:
        return compiled[1] == eager[1]
    return issubclass(compiled[0], eager[0])


def _show_error(error: tuple[type[BaseException], str] | None) -> str:
    return "none" if error is None else f"{error[0].__name__}({error[1]!r})"


def compare_runs(eager: list[CallRecord], compiled: list[CallRecord]) -> list[str]:
    """Check 1: every call returned, printed, raised and mutated the same in both runs."""
    problems = []
    for i, (e, c) in enumerate(zip(eager, compiled, strict=True)):
        at = f"call {i}: "
        if not same_exception(e.error, c.error):
            problems.append(f"{at}exception {_show_error(e.error)} != {_show_error(c.error)}")
        problems += [at + d for d in differences(e.result, c.result, "result")]
        if e.stdout != c.stdout:
            problems.append(f"{at}stdout {e.stdout!r} != {c.stdout!r}")
        problems += [at + d for d in differences(e.args, c.args, "args")]
        problems += [at + d for d in differences(e.globals, c.globals, "globals")]
        if e.aliases != c.aliases:
            problems.append(f"{at}aliasing {e.aliases} != {c.aliases}")
    return problems
