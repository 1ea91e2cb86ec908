"""Programs on the object model (issues #4 and #6): mutations of nested containers,
the identity of objects the trace creates, user classes called in the frame, attribute
stores and deletions, and the builtins on user objects.

They register into tracer_programs.CASES (so the differential, cache and graph-parity
tests run them); the harness also compares which parts of the results and arguments
are one object.
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import torch
from tracer_programs import case, t


def x3() -> tuple:
    return (t(3),)


class Holder:
    """A user object holding containers."""

    def __init__(self) -> None:
        self.table = {"hist": []}
        self.value = None


class Point:
    def __init__(self, x, y=1.0):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y

    @property
    def total(self):
        return self.x + self.y

    @classmethod
    def kind(cls):
        return cls.__name__


class Empty:
    pass


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


@dataclasses.dataclass
class Pair:
    left: torch.Tensor
    scale: int = 2


class WithNew:
    def __new__(cls, value):
        obj = object.__new__(cls)
        obj.value = value
        return obj


class Meta(type):
    pass


class WithMeta(metaclass=Meta):
    def __init__(self, v):
        self.v = v


Span = collections.namedtuple("Span", ["left", "right"])

DYNAMO_CALLS_ANY_CLASS = (
    "Dynamo traces a custom __new__ and a metaclass's call too (one graph); we break at "
    "the call and let CPython construct the object"
)


# --- nested containers: a mutation reaches the inner object itself -------------------


@case(lambda: (t(3), [[]]))
def append_to_list_in_list(x, nested):
    nested[0].append(x + 1)
    return len(nested[0])


@case(lambda: (t(3), [{"a": 1}, {}]))
def setitem_on_dicts_in_list(x, items):
    items[1]["double"] = x * 2
    del items[0]["a"]
    return x


@case(lambda: (t(3), Holder()))
def append_to_list_in_dict_attribute(x, holder):
    holder.table["hist"].append(x.sum())
    return x + len(holder.table["hist"])


@case(lambda: (t(3), [[1], [2]]))
def outer_and_inner_list_mutated(x, nested):
    nested.insert(0, [])
    nested[1].append(3)  # the list that was nested[0]
    nested[0].append(x)
    return len(nested)


@case(lambda: (t(3), [[1]]))
def inner_list_kept_after_outer_clear(x, nested):
    inner = nested[0]
    nested.clear()
    inner.append(x * 2)
    return inner


@case(lambda: (t(3), ([], 1)))
def append_to_list_in_tuple(x, pair):
    pair[0].append(x - 1)
    return pair[1]


@case(lambda: (t(3), [[1, 2]]))
def inner_list_moved_and_shared(x, nested):
    inner = nested.pop()
    nested.append([inner, inner])
    inner.append(x)
    return nested


@case(lambda: (t(3), {"opts": {"lr": 1}, "n": 0}))
def nested_dict_updated(x, cfg):
    cfg["opts"]["seen"] = True
    cfg["n"] += 1
    return x * cfg["opts"]["lr"]


# --- objects created by the trace keep one identity --------------------------------


@case(x3)
def new_list_returned_twice(x):
    items = [x]
    return items, items


@case(lambda: (t(3), Holder()))
def new_list_returned_and_stored_in_attribute(x, holder):
    items = [x + 1]
    holder.value = items
    return items


@case(lambda: (t(3), []))
def new_dict_appended_to_argument_and_returned(x, out):
    d = {"v": x + 1}
    out.append(d)
    return d


@case(lambda: (t(3), []))
def new_tuple_stored_and_returned(x, out):
    pair = (x, x + 1)
    out.append(pair)
    return pair


@case(x3)
def new_list_inside_two_lists(x):
    inner = [x]
    return [inner, [inner]]


# --- calling user classes: a new object, its __init__ inlined ------------------------


@case(x3)
def construct_and_return_object(x):
    return Point(x, x + 1)


@case(x3)
def construct_and_call_method(x):
    return Point(x, 2.0).norm2()


@case(x3)
def construct_with_keyword_and_default(x):
    p = Point(y=x, x=3)
    q = Point(x)
    return p.total + q.total


@case(lambda: (t(3), []))
def object_appended_to_argument(x, out):
    out.append(Point(x * 2))
    return len(out)


@case(x3)
def object_attributes_changed_after_init(x):
    p = Point(x, 1)
    p.x = p.x * 2
    p.z = 3
    return p


@case(x3)
def object_property_and_classmethod(x):
    p = Point(x, x)
    return p.total, p.kind()


@case(x3)
def class_without_init(x):
    e = Empty()
    e.v = x + 1
    return e


@case(x3)
def class_with_slots(x):
    s = Slotted(x)
    s.b = 2
    return s.a * s.b


@case(x3)
def dataclass_instance(x):
    p = Pair(x)
    return p.left * p.scale


@case(lambda: (t(3), Holder()))
def object_stored_in_argument_attribute(x, holder):
    holder.value = Point(x)
    holder.value.y = 5
    return x


@case(
    x3,
    breaks="a class with its own __new__ is called in CPython",
    parity=DYNAMO_CALLS_ANY_CLASS,
)
def class_with_custom_new(x):
    w = WithNew(x)
    return w.value + 1


@case(x3)
def class_with_metaclass(x):
    """Type's ``__call__`` (Meta has none of its own) makes the object as for any class."""
    w = WithMeta(x)
    return w.v + 1


# --- attribute deletion and global deletion ---------------------------------------


@case(lambda: (t(3), Holder()))
def delete_attribute_of_argument(x, holder):
    del holder.value
    return x + 1


@case(x3)
def delete_attribute_of_new_object(x):
    p = Point(x)
    del p.y
    p.z = 1
    return p


TEMP = 1


@case(
    x3,
    parity="Dynamo 2.14 has no DELETE_GLOBAL handler (GB0082): it compiles the graph "
    "before `del` and runs the rest of the frame eagerly; we trace the deletion",
)
def delete_global(x):
    global TEMP
    TEMP = x + 1
    result = TEMP * 2
    del TEMP
    return result
# --- builtins on user objects ------------------------------------------------------


@case(lambda: (t(3), Point(2.0)))
def hasattr_on_argument(x, p):
    if hasattr(p, "z"):
        return x * p.z
    if hasattr(p, "x") and hasattr(p, "norm2"):
        return x + p.x
    return x


@case(lambda: (t(3), Point(2.0)))
def getattr_missing_with_default(x, p):
    return x * getattr(p, "z", 3) + getattr(p, "x", 0)


@case(x3)
def getattr_default_on_new_object(x):
    p = Point(x)
    return getattr(p, "x", None) + getattr(p, "missing", 1)


@case(lambda: (t(3), Holder()))
def setattr_on_argument(x, holder):
    setattr(holder, "value", x * 2)  # noqa: B010 (the builtin is what is traced)
    setattr(holder, "extra", 1)  # noqa: B010
    return holder.value + holder.extra


@case(lambda: (t(3), Span(t(3), t(3))))
def namedtuple_argument_fields(x, span):
    return x * span.left + span.right, span[0]


@case(x3)
def functools_partial_called(x):
    scale = functools.partial(torch.mul, other=2)
    return scale(x) + 1


def affine(v, scale=1.0, shift=0.0):
    return v * scale + shift


TABLE = {"affine": affine}


@case(x3)
def function_from_dict_with_keywords(x):
    return TABLE["affine"](x, shift=0.5)


@case(x3)
def partial_of_user_function(x):
    f = functools.partial(affine, scale=3.0)
    return f(x, shift=1.0)


@case(x3)
def namedtuple_constructed_and_returned(x):
    span = Span(x, right=x + 1)
    return span, span.right - span.left


@case(x3)
def partial_returned(x):
    return functools.partial(affine, scale=2.0), x + 1
