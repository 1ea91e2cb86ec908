"""Tensors as Python objects: identity, attributes, hashing, and scalar constants.

A tensor is also a plain Python object: `x.add_(1)` returns `x` itself, tensors in sets
and `in` tests compare by identity, and numbers next to tensors may be numpy scalars.
"""

import numpy as np
import torch

from conformance.spec import Break, Call, Expect, T, case, one_graph


@case(tags=["tensor-objects", "fullgraph"], calls=[Call(T(3))], options={"fullgraph": True})
def inplace_method_returns_its_input(x):
    """`x.add_(1)` returns `x` itself (it was once a new object under compilation)."""
    y = x.add_(1)
    return x is y, y


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph(".clone", ".mul_", "add"))
def inplace_on_clone_returns_the_clone(x):
    z = x.clone()
    y = z.mul_(2)
    return y is z, y + 1


@case(
    tags=["tensor-objects", "graph-breaks"],
    calls=[Call(T(3))],
    expect=Expect(frames=1, graphs=1, breaks=[Break("GB0059", 'print("between")')]),
)
def inplace_identity_across_graph_break(x):
    z = x.clone()
    y = z.add_(1)
    print("between")
    return y is z, x is y


@case(tags=["tensor-objects"], calls=[Call(T(3))], expect=one_graph(".view", ".sub_"))
def view_is_not_its_base(x):
    """A view is a new tensor object; an in-place method on it returns the view."""
    v = x.view(3)
    w = v.sub_(1)
    return v is x, w is v


SCALE = np.float64(2.5)


@case(tags=["tensor-objects", "globals"], calls=[Call(T(3))], expect=one_graph("mul"))
def numpy_scalar_constant_in_expression(x):
    """A numpy scalar next to a tensor (it once left `np.float64(2.5)` in the graph's
    code: NameError in the user's call)."""
    return x * SCALE
