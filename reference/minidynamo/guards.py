"""Guards: the assumptions a compiled frame makes about its inputs (seed "Guards").

The VariableBuilder adds a `Guard` for every input it wraps (type, value, tensor
properties, length, identity). All guards of a cache entry are compiled into one flat
check function `check(args, G, closure)` over the frame's parameter values, globals and
closure cells; on a miss, `failure_reason` names the first guard that failed, for the
`recompiles` log. The check runs on every call of compiled code, so it is built for
speed: each source is read once into a local, cheap and selective checks come first,
and all tensors are checked by one call of torch's C `TensorGuards`.
Text format: DESIGN.md "Output formats" (type names, never ids).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import math
import os
import re
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch._C._dynamo.guards import TensorGuards
from torch._guards import ChainedSource, Source

from minidynamo import shapes
from minidynamo.eval_frame import param_count
from minidynamo.shapes import DYNAMIC_DIMS, marked_dims, tensor_guard_sizes
from minidynamo.source import (
    GetItemSource,
    GlobalSource,
    LocalSource,
    NumpyTensorSource,
    dict_contents,
    from_numpy,
    tuple_iterator_getitem,
    tuple_iterator_len,
)

# The parts of the process-wide state every frame is guarded on (Dynamo's GLOBAL_STATE
# guard; its names, as a recompile prints them).
GLOBAL_STATE_PARTS: dict[str, Callable[[], object]] = {
    "grad_mode": torch.is_grad_enabled,
    "default_dtype": torch.get_default_dtype,
    "deterministic_algorithms": torch.are_deterministic_algorithms_enabled,
    "autocast(cpu)_enabled": functools.partial(torch.is_autocast_enabled, "cpu"),
}

# The order a check function evaluates guards in: type and identity checks (cheap, and
# they make the later reads safe), then values, then the tensors (one C call), then the
# relations between inputs (aliasing, shape guards).
TYPE, VALUE, TENSOR, RELATION = range(4)


@dataclasses.dataclass(frozen=True)
class Guard:
    """One assumption: `text` is what the logs print, `expr` what the check evaluates
    (Python over the sources' names `L['x']`, `G['w']`), `rank` when (TYPE ... RELATION).
    A tensor guard names its `TensorCheck` in `tensor`. An `ambient` guard (the global
    state every frame is checked for) is left out of the printed guards, as Dynamo's
    GLOBAL_STATE guard is left out of conformance's listing; a recompile names it."""

    source: Source | None
    text: str
    expr: str
    rank: int = VALUE
    tensor: str | None = None
    ambient: bool = False


def describe(obj: object) -> str:
    """A stable name for `obj` in guard text (ids and addresses are never printed)."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return obj.__qualname__
    if isinstance(obj, types.CodeType):
        return obj.co_name
    return f"<{type(obj).__qualname__} object>"


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """The static properties a tensor guard compares: type, dtype, device, grad, sizes.
    A size or stride is None where it is symbolic (the shape guards check it).
    `dynamic_dims`: the dims `mark_dynamic` had marked at compile time (None: no mark);
    a later tensor marked on other dims fails, so that its marks are honoured by a
    recompile (Dynamo's DIMENSION_DYNAMIC_MARKING_GUARD)."""

    type: type
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool
    size: tuple[int | None, ...]
    stride: tuple[int | None, ...]
    dynamic_dims: frozenset[int] | None = None

    @classmethod
    def of(cls, t: torch.Tensor, fake: torch.Tensor | None = None) -> TensorSpec:
        """The spec of input `t`; with its FakeTensor `fake`, symbolic dims are None."""
        size, stride = tensor_guard_sizes(t if fake is None else fake)
        marks = marked_dims(t, DYNAMIC_DIMS)
        dynamic_dims = None if marks is None else frozenset(marks)
        return cls(
            type(t), t.dtype, t.device, t.requires_grad, tuple(size), tuple(stride), dynamic_dims
        )

    def marks_allowed(self, value: object) -> bool:
        marks = marked_dims(value, DYNAMIC_DIMS)
        if marks is None:
            return True
        return self.dynamic_dims is not None and marks <= self.dynamic_dims

    def __str__(self) -> str:
        # The seed's text: the marks are checked too, but not printed.
        return (
            f"{self.dtype}, device={self.device}, requires_grad={self.requires_grad}, "
            f"size={list(self.size)}, stride={list(self.stride)}"
        )


def tensor_guards(pairs: list[tuple[TensorSpec, torch.Tensor]]) -> TensorGuards:
    """torch's C check of tensors like these examples, one per argument of its `check`:
    Python type, dispatch keys (device type, layout, under the dispatch state of this
    thread now), dtype, device index, requires_grad, and the spec's sizes and strides
    (None: any). Made when the entry is compiled, in the calling context, as the check
    compares the dispatch keys against that context's."""
    return TensorGuards(
        *[example for _spec, example in pairs],
        dynamic_dims_sizes=[list(spec.size) for spec, _example in pairs],
        dynamic_dims_strides=[list(spec.stride) for spec, _example in pairs],
    )


class TensorCheck:
    """The check of one tensor guard on its own (`failure_reason`); a check function
    checks all its tensors in one `tensor_guards` call instead."""

    def __init__(self, spec: TensorSpec, example: torch.Tensor) -> None:
        self.spec = spec
        self.example = example  # until the entry is compiled (`GuardSet.compile`)
        self._guards = tensor_guards([(spec, example)])

    def __call__(self, value: object) -> bool:
        return self._guards.check(value) and self.spec.marks_allowed(value)


class GuardSet:
    """The ordered, de-duplicated guards of one frame, with the objects they refer to."""

    def __init__(self) -> None:
        self.guards: dict[str, Guard] = {}
        # `___from_numpy(L['a'])`: the tensor view of an ndarray input (NumpyTensorSource).
        self.namespace: dict[str, Any] = {
            "___from_numpy": from_numpy,
            "___tuple_iterator_len": tuple_iterator_len,
            "___tuple_iterator_getitem": tuple_iterator_getitem,
            "___dict_contents": dict_contents,
        }
        # The sources of tensor inputs, parameters aside, for `add_no_aliasing`.
        self.tensor_sources: dict[str, Source] = {}
        # Every source a guard reads, by name: the check function reads each once.
        self.sources: dict[str, Source] = {}
        # The tensor guards' specs and example inputs, made into checks by `compile`.
        self._tensors: dict[str, tuple[TensorSpec, torch.Tensor]] = {}

    def __iter__(self):
        return iter(_tree_order(list(self.guards.values())))

    def __len__(self) -> int:
        return len(self.guards)

    def _bind(self, obj: object) -> str:
        name = f"___obj{len(self.namespace)}"
        self.namespace[name] = obj
        return name

    def _add(
        self,
        source: Source | None,
        text: str,
        expr: str,
        rank: int = VALUE,
        tensor: str | None = None,
        ambient: bool = False,
    ) -> None:
        if text not in self.guards:
            if source is not None:
                self.sources.setdefault(source.name, source)
            self.guards[text] = Guard(source, text, expr, rank, tensor, ambient)

    def add_type_match(self, source: Source, value: object) -> None:
        kind = type(value)
        self._add(
            source,
            f"___check_type_id({source.name}, {describe(kind)})",
            f"type({source.name}) is {self._bind(kind)}",
            TYPE,
        )

    def retype(self, source: Source, value: object) -> None:
        """`value` changed its class while traced (a lazy module became its
        `cls_to_become`): its type guard names the class it has now."""
        prefix = f"___check_type_id({source.name}, "
        stale = [text for text in self.guards if text.startswith(prefix)]
        for text in stale:
            del self.guards[text]
        if stale:
            self.add_type_match(source, value)

    def add_constant_match(self, source: Source, value: object) -> None:
        """Specialize on a constant: its type, and its value (seed: `L['b'] == 'Hello'`)."""
        if value is None:
            self._add(source, f"{source.name} is None", f"{source.name} is None", TYPE)
            return
        self.add_type_match(source, value)
        if isinstance(value, float) and math.isnan(value):
            self._add(source, f"math.isnan({source.name})", f"{source.name} != {source.name}")
        else:
            # A set is compared with a copy: the set itself may grow before the next call.
            expected = frozenset(value) if isinstance(value, set) else value
            self._add(
                source,
                f"{source.name} == {_show_constant(value)}",
                f"{source.name} == {self._bind(expected)}",
            )
            if isinstance(value, float) and value == 0.0:
                # 0.0 == -0.0, yet 1 / x, str(x) and x * tensor tell them apart.
                self.namespace.setdefault("math", math)
                sign = f"math.copysign(1.0, {source.name}) == {math.copysign(1.0, value)}"
                self._add(source, sign, sign)

    def add_not_nan(self, source: Source, *, item: bool = False) -> None:
        """A float traced as a symbol is not NaN: the ShapeEnv cannot reason about NaN, so
        a NaN is compiled as a constant (as Dynamo: ``not math.isnan(L['f'])``); ``item``:
        the value of a 0-dim tensor (``not math.isnan(___from_numpy(L['s']).item())``)."""
        self.namespace.setdefault("math", math)
        value = f"{source.name}.item()" if item else source.name
        self._add(source, f"not math.isnan({value})", f"{value} == {value}")

    def add_id_match(self, source: Source, value: object) -> None:
        self._add(
            source,
            f"___check_obj_id({source.name}, {describe(value)})",
            f"{source.name} is {self._bind(value)}",
            TYPE,
        )

    def add_generator_created(self, source: Source) -> None:
        """A generator not yet started (one that ran since, even the same object, is
        another trace's)."""
        self.namespace.setdefault("inspect", inspect)
        text = f"inspect.getgeneratorstate({source.name}) == 'GEN_CREATED'"
        self._add(source, text, text)

    def add_length(self, source: Source, value: object) -> None:
        self.add_type_match(source, value)
        n = len(value)  # type: ignore[arg-type]
        self._add(source, f"len({source.name}) == {n}", f"len({source.name}) == {n}")

    def add_tuple_iterator_length(self, source: Source, value: object) -> None:
        self.add_type_match(source, value)
        text = f"___tuple_iterator_len({source.name}) == {tuple_iterator_len(value)}"
        self._add(source, text, text)

    def add_dict_keys(self, source: Source, value: dict) -> None:
        self.add_type_match(source, value)
        keys = list(value.keys())
        shown = ", ".join(_show_key(key) for key in keys)
        self._add(
            source,
            f"list({source.name}.keys()) == [{shown}]",
            f"list({source.name}.keys()) == {self._bind(keys)}",
        )

    def add_tensor_match(
        self,
        source: Source,
        value: torch.Tensor,
        fake: torch.Tensor | None = None,
        *,
        aliasable: bool = True,
    ) -> None:
        """`aliasable=False`: a tensor made afresh per call (of a NumPy scalar), which
        no other input can share memory with."""
        spec = TensorSpec.of(value, fake)
        if type(value) is not torch.nn.Parameter and aliasable:
            # An ndarray's tensor view is made afresh per call: the arrays are compared.
            distinct = source.base if isinstance(source, NumpyTensorSource) else source
            self.tensor_sources.setdefault(distinct.name, distinct)
            self.sources.setdefault(distinct.name, distinct)
        text = f"check_tensor({source.name}, {spec})"
        if text not in self.guards:
            check = f"___tensor{len(self._tensors)}"
            self._tensors[check] = (spec, value)
            self._add(source, text, f"{check}({source.name})", TENSOR, check)

    def add_grad_mode(self, enabled: bool) -> None:
        """The global grad mode the frame is entered in (what a traced `with no_grad()`
        restores on exit, and what decides whether autograd.Function forward is inlined)."""
        self._add(
            None,
            f"torch.is_grad_enabled() == {enabled}",
            f"{self._bind(torch.is_grad_enabled)}() is {enabled}",
            TYPE,
        )

    def add_global_state(self) -> None:
        """The global state of every frame's entry (Dynamo's GLOBAL_STATE guard): the
        grad mode, the default dtype, deterministic algorithms and CPU autocast, as they
        are now. A call under `torch.no_grad()` of a frame compiled with grad enabled
        recompiles, even where the trace never asked for the mode; so does one after
        `torch.set_default_dtype`, whose dtype a ``torch.ones(n)`` of the trace assumed.
        One guard per part, so that a recompile names the part that changed."""
        for part, query in GLOBAL_STATE_PARTS.items():
            self._add(
                None,
                f"GLOBAL_STATE changed: {part}",
                f"{self._bind(query)}() is {self._bind(query())}",  # bools, dtypes: singletons
                TYPE,
                ambient=True,
            )

    def add_torch_function_enabled(self, enabled: bool) -> None:
        """Whether tensor subclasses' ``__torch_function__`` is asked when the frame is
        entered (not inside ``DisableTorchFunctionSubclass()``): it decides the class of
        an operation's result."""
        self._add(
            None,
            f"torch._C._is_torch_function_enabled() == {enabled}",
            f"{self._bind(torch._C._is_torch_function_enabled)}() is {enabled}",
            TYPE,
        )

    def add_global_query(self, query: Callable[[], object], value: object) -> None:
        """A process-wide setting the trace read (``torch.get_default_dtype()``, folded
        to `value`, what it is when the frame is entered): it must be the same."""
        name = f"torch.{query.__name__}"
        self._add(
            None,
            f"{name}() == {value}",
            f"{self._bind(query)}() == {self._bind(value)}",
            TYPE,
        )

    def add_hasattr(self, source: Source, name: str, present: bool) -> None:
        """The object at `source` has (or has not) the instance attribute `name`."""
        text = f"hasattr({source.name}, {name!r})"
        self._add(source, text if present else f"not {text}", text if present else f"not {text}")

    def add_environ_read(self, source: Source, key: str | None) -> None:
        """`os.environ` (at `source`) has, for `key`, the value it has now (None: unset);
        with no key, as many variables as now. Dynamo folds these reads unguarded: a
        variable set between calls would go unseen."""
        if key is None:
            text = f"len({source.name}) == {len(os.environ)}"
        else:
            text = f"{source.name}.get({key!r}) == {os.environ.get(key)!r}"
        self._add(source, text, text)

    def add_environ_snapshot(self, source: Source) -> None:
        """`os.environ` (at `source`) holds what it holds now, every variable (its
        text does not print them: they are the machine's)."""
        text = f"dict({source.name}) == the environment read at trace time"
        self._add(source, text, f"dict({source.name}) == {self._bind(dict(os.environ))}")

    def add_key_presence(self, source: Source, key: str, present: bool) -> None:
        """The mapping at `source` has (or has not) the key `key`."""
        text = f"{key!r} {'in' if present else 'not in'} {source.name}"
        self._add(source, text, text)

    def add_not_in_instance_dict(self, source: Source, name: str) -> None:
        """The object at `source` has no instance attribute `name` (one would shadow the
        class attribute the trace read)."""
        text = f"{name!r} not in {source.name}.__dict__"
        self._add(source, text, text)

    def add_alias(self, source: Source, other: Source) -> None:
        """`source` and `other` are the same object (one graph input serves both)."""
        self.sources.setdefault(other.name, other)
        self._add(source, f"{source.name} is {other.name}", f"{source.name} is {other.name}")

    def add_no_aliasing(self) -> None:
        """The frame's tensor inputs are distinct objects, as when it was traced: one
        tensor passed twice is another trace (one graph input, an `add_alias` guard).
        Dynamo's NO_TENSOR_ALIASING guard; parameters are left out, as there."""
        if len(self.tensor_sources) > 1:
            names = ", ".join(self.tensor_sources)
            # An identity hash, not id(): see code_table._identity.
            identity = self._bind(object.__hash__)
            ids = ", ".join(f"{identity}({name})" for name in self.tensor_sources)
            self._add(
                None,
                f"check_no_aliasing({names})",
                f"len({{{ids}}}) == {len(self.tensor_sources)}",
                RELATION,
            )

    def add_shape_guards(self, texts: list[str]) -> None:
        """The shape guards of `ShapePolicy.produce_guards`: Python text over `L` and `G`
        (``L['b'].size()[0] == L['a'].size()[0]``), checked as written. Their names are
        math's and torch's (a float of a size prints ``torch.sym_float(L['x'].size()[2])``)."""
        self.namespace.setdefault("math", math)
        self.namespace.setdefault("torch", torch)
        for text in texts:
            self._add(None, text, text, RELATION)

    def text(self) -> str:
        return "\n".join(guard.text for guard in self if not guard.ambient)

    def compile(self, code: types.CodeType) -> CheckFunction:
        """The check function of a cache entry of `code`. It holds no input: the
        example tensors are dropped once their checks are made."""
        checks = {
            name: TensorCheck(spec, example) for name, (spec, example) in self._tensors.items()
        }
        check_fn = CheckFunction(list(self), {**self.namespace, **checks}, dict(self.sources), code)
        for check in checks.values():
            del check.example
        return check_fn


def _tree_order(guards: list[Guard]) -> list[Guard]:
    """The guards in the order Dynamo lists them, which does not depend on the order the
    trace installed them in (that differs between CPythons: a 3.10 comprehension is a
    frame of its own). Dynamo sorts its guards by (locals before globals, length of the
    source's name, the name) and builds its guard tree from them in that order; its text
    is that tree, depth first: each source's guards, then those of the sources reached
    from it, in the order they were first reached. The guards of one source keep their
    installation order (type before value); those of no source (grad mode, aliasing,
    shapes) come last, but for the ambient ones, first as Dynamo's root guards."""
    sourced = sorted(
        (guard for guard in guards if guard.source is not None),
        key=lambda guard: (
            guard.source.guard_source.value,  # type: ignore[union-attr]
            len(guard.source.name),  # type: ignore[union-attr]
            guard.source.name,  # type: ignore[union-attr]
        ),
    )
    root = _Node()
    for guard in sourced:
        node = root
        for source in _chain(guard.source):  # type: ignore[arg-type]
            node = node.children.setdefault(source.name, _Node())
        node.guards.append(guard)
    unsourced = [guard for guard in guards if guard.source is None]
    return [
        *(guard for guard in unsourced if guard.ambient),
        *root.walk(),
        *(guard for guard in unsourced if not guard.ambient),
    ]


class _Node:
    """A source in the guard tree: its guards, and the sources reached from it."""

    def __init__(self) -> None:
        self.guards: list[Guard] = []
        self.children: dict[str, _Node] = {}

    def walk(self) -> Iterator[Guard]:
        yield from self.guards
        for child in self.children.values():
            yield from child.walk()


def _chain(source: Source) -> list[Source]:
    """`source` and its bases, root first: ``L['a']``, ``L['a'].b``, ``L['a'].b[0]``."""
    chain = [source]
    while isinstance(chain[-1], ChainedSource):
        chain.append(chain[-1].base)
    return chain[::-1]


# A guard's reference to a frame local or a global: L['x'], G['w'].
_ROOT = re.compile(r"\b([LG])\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


class CheckFunction:
    """All guards of one cache entry, compiled into a single flat Python function
    `check(args, G, closure)`: `args` are the frame's parameter values in co_varnames
    order (what the frame hook passes), `closure` its cells or None.

    Its body reads each source once into a local (``v1 = v0['k']``), at its first use,
    and returns False at the first guard that fails or raises (a guard on a missing item
    or attribute simply fails); nothing is allocated when all pass, beyond what a guard
    itself builds (`list(d.keys())`)."""

    def __init__(
        self,
        guards: list[Guard],
        namespace: dict[str, Any],
        sources: dict[str, Source],
        code: types.CodeType,
        batch_tensors: bool = True,
    ) -> None:
        self.guards = guards
        self.namespace = namespace
        self.sources = sources
        self.code = code
        self.check = self._compile(self._body(batch_tensors))

    def _compile(self, body: list[str]) -> Callable[[tuple, dict, tuple | None], bool]:
        lines = "".join(f"        {line}\n" for line in body)
        # Kept for reading (tests, debugging): what the check evaluates.
        self.source = (
            "def ___check_guards(args, G, closure):\n"
            f"    try:\n{lines}        return True\n"
            "    except Exception:\n        return False\n"
        )
        scope = dict(self.namespace)
        exec(compile(self.source, "<minidynamo guards>", "exec"), scope)
        return scope["___check_guards"]

    def __call__(self, args: tuple, f_globals: dict, closure: tuple | None) -> bool:
        return self.check(args, f_globals, closure)

    def failure_reason(self, args: tuple, f_globals: dict, closure: tuple | None) -> str | None:
        """The text of the first guard that fails on these arguments, or None."""
        for guard in self.guards:
            alone = CheckFunction(
                [guard], self.namespace, self.sources, self.code, batch_tensors=False
            )
            if not alone(args, f_globals, closure):
                return guard.text
        return None

    def _body(self, batch_tensors: bool) -> list[str]:
        reads = _Reads(self.sources, self.code, self.namespace)
        body: list[str] = []
        ordered = sorted(self.guards, key=lambda guard: guard.rank)
        batched = [guard for guard in ordered if guard.tensor is not None and batch_tensors]
        for guard in ordered:
            if batched and guard.tensor is not None:
                if guard is batched[0]:
                    body += self._tensor_batch(batched, reads)
                continue
            expr = reads.substitute(guard.expr)
            body += reads.take_new()
            body.append(f"if not ({expr}): return False")
        return body

    def _tensor_batch(self, guards: list[Guard], reads: _Reads) -> list[str]:
        """One C call for all tensors, then their `mark_dynamic` marks, read only once
        some tensor has been marked (`shapes.dynamic_marks_made`)."""
        checks = [self.namespace[guard.tensor] for guard in guards]  # type: ignore[index]
        self.namespace["___tensors"] = tensor_guards([(c.spec, c.example) for c in checks])
        self.namespace["___shapes"] = shapes
        values = [reads.substitute(guard.source.name) for guard in guards]  # type: ignore[union-attr]
        lines = reads.take_new()
        lines.append(f"if not ___tensors.check({', '.join(values)}): return False")
        lines.append("if ___shapes.dynamic_marks_made:")
        for guard, value in zip(guards, values, strict=True):
            lines.append(f"    if not {guard.tensor}.spec.marks_allowed({value}): return False")
        return lines


class _Reads:
    """The locals of a check function's body: which source each holds, and the
    statements that read the ones not yet read."""

    def __init__(
        self, sources: dict[str, Source], code: types.CodeType, namespace: dict[str, Any]
    ) -> None:
        self.sources = dict(sources)
        # Where an item's key is bound when its printed form does not read back.
        self.namespace = namespace
        self.params = code.co_varnames[: param_count(code)]
        self.freevars = code.co_freevars
        self.locals: dict[str, str] = {}
        self.pending: list[str] = []
        self._pattern: re.Pattern[str] | None = None

    def substitute(self, expr: str) -> str:
        """`expr` with every source name in it replaced by the local holding it."""
        for match in _ROOT.finditer(expr):
            name = match.group(0)
            if name not in self.sources:
                key = ast.literal_eval(match.group(2))
                root = LocalSource(key) if match.group(1) == "L" else GlobalSource(key)
                self.sources[name] = root
                self._pattern = None
        if not self.sources:  # an empty alternation would match everywhere
            return expr
        if self._pattern is None:
            names = sorted(self.sources, key=len, reverse=True)
            self._pattern = re.compile("(?:" + "|".join(map(re.escape, names)) + r")(?!\w)")
        return self._pattern.sub(lambda match: self.local(self.sources[match.group(0)]), expr)

    def local(self, source: Source) -> str:
        """The local holding `source`, reading it first (and its bases) if need be."""
        name = source.name
        if name not in self.locals:
            if isinstance(source, GetItemSource) and not _reads_back(source.index):
                # `(4, torch.float32)`, `device(type='cpu')`: the key object itself.
                key = f"___key{len(self.namespace)}"
                self.namespace[key] = source.index
                read = f"{self.local(source.base)}[{key}]"
            elif isinstance(source, ChainedSource):
                read = source._name_template.format(self.local(source.base))  # noqa: SLF001
            else:
                read = self._root(source)
            self.locals[name] = f"v{len(self.locals)}"
            self.pending.append(f"{self.locals[name]} = {read}")
        return self.locals[name]

    def _root(self, source: Source) -> str:
        if isinstance(source, LocalSource):
            if source.local_name in self.params:
                return f"args[{self.params.index(source.local_name)}]"
            if source.local_name in self.freevars:
                # An empty cell raises ValueError: the guard fails.
                return f"closure[{self.freevars.index(source.local_name)}].cell_contents"
            # Not a local at the frame's entry (a KeyError): a guard on it never holds.
            return f"{{}}[{source.local_name!r}]"
        if isinstance(source, GlobalSource):
            return f"G[{source.global_name!r}]"
        raise ValueError(f"a guard reads a source it cannot read: {source.name}")

    def take_new(self) -> list[str]:
        lines, self.pending = self.pending, []
        return lines


def _reads_back(value: object) -> bool:
    """`repr(value)` is a Python literal equal to `value`."""
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):
        return False


def _show_constant(value: object) -> str:
    """A guarded constant as guards print it: a set holding classes or functions (hashed
    by address) lists them sorted, by name, so the text is the same in every process."""
    if isinstance(value, (set, frozenset)) and any(
        isinstance(item, (type, types.FunctionType)) for item in value
    ):
        items = ", ".join(sorted(_show_key(item) for item in value))
        return f"{type(value).__name__}({{{items}}})"
    return repr(value)


def _show_key(key: object) -> str:
    """A dict key or set item in guard text: a function by its name, not its address."""
    return describe(key) if isinstance(key, types.FunctionType) else repr(key)
