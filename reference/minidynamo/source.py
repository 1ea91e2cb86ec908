"""Sources: how to reach a value again from the frame's locals and globals (seed "Source").

A `VariableTracker` built from a frame input carries its Source. `source.name` is the
text used in guards (`L['x']`, `G['w']`, `L['l'][0]`, `G['f'].__defaults__[0]`) and in
placeholder names; `reconstruct` emits the bytecode that loads the value again. They
subclass torch's `Source`, which is what `ShapeEnv` expects of a source.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch._guards import ChainedSource, GuardSource, Source

if TYPE_CHECKING:
    from minidynamo.codegen import PyCodegen


def _escape(text: str) -> str:
    """`text` made safe inside a str.format template."""
    return text.replace("{", "{{").replace("}", "}}")


@dataclasses.dataclass(frozen=True)
class LocalSource(Source):
    """A local of the frame: a parameter, or (``is_cell``) a closure variable."""

    local_name: str
    is_cell: bool = False

    @property
    def _name_template(self) -> str:
        return f"L[{self.local_name!r}]"

    @functools.cached_property
    def guard_source(self) -> GuardSource:
        return GuardSource.LOCAL

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.is_cell:
            codegen.load_deref(self.local_name)
        else:
            codegen.load_fast(self.local_name)


@dataclasses.dataclass(frozen=True)
class GlobalSource(Source):
    """A name in the frame's globals dict."""

    global_name: str

    @property
    def _name_template(self) -> str:
        return f"G[{self.global_name!r}]"

    @functools.cached_property
    def guard_source(self) -> GuardSource:
        return GuardSource.GLOBAL

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_global(self.global_name)


@dataclasses.dataclass(frozen=True)
class GetItemSource(ChainedSource):
    """``base[index]`` for a constant index: list and tuple items, dict values."""

    index: Any

    def __hash__(self) -> int:  # a slice is unhashable before Python 3.12
        index = self.index
        if isinstance(index, slice):
            index = (slice, index.start, index.stop, index.step)
        return hash((self.base, index))

    @property
    def _name_template(self) -> str:
        return "{0}[" + _escape(repr(self.index)) + "]"

    def reconstruct(self, codegen: PyCodegen) -> None:
        self.base.reconstruct(codegen)
        codegen.load_const(self.index)
        codegen.subscr()


@dataclasses.dataclass(frozen=True)
class DictValueSource(ChainedSource):
    """``list(base.values())[index]``: the value of a dict item whose key has no literal
    spelling (a class, a typing form), reached by its position (the keys are guarded)."""

    index: int

    @property
    def _name_template(self) -> str:
        return f"list({{0}}.values())[{self.index}]"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_builtin(list)
        self.base.reconstruct(codegen)
        codegen.call_method("values", [])
        codegen.call(1)
        codegen.load_const(self.index)
        codegen.subscr()


@dataclasses.dataclass(frozen=True)
class AttrSource(ChainedSource):
    """``base.member``: module attributes, object attributes, function defaults ..."""

    member: str

    @property
    def _name_template(self) -> str:
        return "{0}." + _escape(self.member)

    def reconstruct(self, codegen: PyCodegen) -> None:
        self.base.reconstruct(codegen)
        codegen.load_attr(self.member)


@dataclasses.dataclass(frozen=True)
class TypeSource(ChainedSource):
    """``type(base)``: the class of an object, where a plain class variable read through
    an instance (``obj.n`` found on the class) is reached, as Dynamo's type-dict source;
    automatic dynamic then keeps its memory apart from an instance attribute's."""

    @property
    def _name_template(self) -> str:
        return "type({0})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_builtin(type)
        self.base.reconstruct(codegen)
        codegen.call(1)


def from_numpy(value: Any) -> Any:
    """The tensor of an ndarray (sharing its memory) or of a NumPy scalar (0-dim); any
    other value as it is, for a guard to refuse (as Dynamo's ``___from_numpy``)."""
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    if isinstance(value, np.generic):
        return torch.as_tensor(value)
    return value


@dataclasses.dataclass(frozen=True)
class NumpyTensorSource(ChainedSource):
    """``___from_numpy(base)``: the tensor view of an ndarray input, the graph input
    that stands for it (it shares the array's memory: writes reach the array); of a
    NumPy scalar input, its 0-dim tensor."""

    @property
    def _name_template(self) -> str:
        return "___from_numpy({0})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_installed("___from_numpy", from_numpy, push_null=True)
        self.base.reconstruct(codegen)
        codegen.call(1)


def dict_contents(obj: dict) -> dict:
    """The items of a dict subclass's object as a plain dict, in its order, read by the
    builtin base's C methods (what ``super().__getitem__`` reads), not the class's own."""
    base = collections.OrderedDict if isinstance(obj, collections.OrderedDict) else dict
    return dict(base.items(obj))


@dataclasses.dataclass(frozen=True)
class DictContentsSource(ChainedSource):
    """``___dict_contents(base)``: the items of an existing object of a dict subclass,
    which the class's overrides (``__getitem__`` ...) reach through ``super()``."""

    @property
    def _name_template(self) -> str:
        return "___dict_contents({0})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_installed("___dict_contents", dict_contents, push_null=True)
        self.base.reconstruct(codegen)
        codegen.call(1)


def tuple_iterator_items(it: Any) -> tuple:
    """The items a tuple iterator has left (read through its pickling state)."""
    _, (items, *_), *start = it.__reduce__()
    return items[start[0] if start else 0 :]


def tuple_iterator_len(it: Any) -> int:
    return len(tuple_iterator_items(it))


def tuple_iterator_getitem(it: Any, index: int) -> Any:
    return tuple_iterator_items(it)[index]


@dataclasses.dataclass(frozen=True)
class TupleIteratorGetItemSource(ChainedSource):
    """``___tuple_iterator_getitem(base, index)``: the item a tuple iterator gives
    `index` items from now, not taking it (as Dynamo's)."""

    index: int

    @property
    def _name_template(self) -> str:
        return f"___tuple_iterator_getitem({{0}}, {self.index})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_installed("___tuple_iterator_getitem", tuple_iterator_getitem, push_null=True)
        self.base.reconstruct(codegen)
        codegen.load_const(self.index)
        codegen.call(2)


def _as_float64_tensor(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64)


@dataclasses.dataclass(frozen=True)
class FloatTensorSource(ChainedSource):
    """``___as_tensor(base)``: a float input that changed between compiles, passed to the
    graph as a float64 0-dim tensor (Dynamo's "tensorified" float; the graph reads it
    back with ``.item()``). The float itself is still guarded at `base`."""

    @property
    def _name_template(self) -> str:
        return "___as_tensor({0})"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_installed("___as_tensor", _as_float64_tensor, push_null=True)
        self.base.reconstruct(codegen)
        codegen.call(1)


@dataclasses.dataclass(frozen=True)
class WeakRefCallSource(ChainedSource):
    """``base()``: the object a weak reference input refers to (None once it is gone)."""

    @property
    def _name_template(self) -> str:
        return "{0}()"

    def reconstruct(self, codegen: PyCodegen) -> None:
        from minidynamo.bytecode import add_push_null

        start = len(codegen.instructions)
        self.base.reconstruct(codegen)
        codegen.instructions[start:] = add_push_null(codegen.instructions[start:])
        codegen.call(0)


def placeholder_name(source: Source) -> str:
    """The FX placeholder name of a graph input: ``L['l'][0]`` -> ``l_l_0_``; an
    ndarray's tensor view, and a float's tensor, is named after the value (``l_a_``)."""
    if isinstance(source, (NumpyTensorSource, FloatTensorSource)):
        source = source.base
    return re.sub(r"[^a-zA-Z0-9]+", "_", source.name).lower()
