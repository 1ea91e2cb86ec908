"""Higher-order operators: `torch.cond` and `torch.utils.checkpoint.checkpoint`, whose
function arguments are traced into subgraphs called by one node of the frame's graph
(``torch.ops.higher_order.cond``, ``tag_activation_checkpoint``), as Dynamo records them.

A tensor of the frame that a branch or a checkpointed function uses (a closure's, a
module's parameter) is an extra operand of the node; a function that changes an object
from outside it is not traced (a graph break, as in Dynamo).
"""

import torch
import torch.utils.checkpoint

from conformance.spec import Break, Call, Expect, Make, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
COND = "torch.ops.higher_order.cond"
CHECKPOINT = "torch.ops.higher_order.tag_activation_checkpoint"
SIDE_EFFECT = "GB0067"  # Dynamo's id: a higher-order op's function changes an outer object


def _plus_one(t):
    return t + 1


def _minus_one(t):
    return t - 1


POSITIVE, NEGATIVE = Make(torch.arange, 1.0, 4.0), Make(torch.arange, -3.0, 0.0)


@case(tags=["torch-api", "fullgraph"], calls=[Call(POSITIVE), Call(NEGATIVE)], options=FULLGRAPH,
      expect=one_graph(".sum", "gt", COND, "getitem"))  # fmt: skip
def cond_on_tensor_predicate(x):
    """Both branches are traced: one graph serves either value of the predicate."""
    return torch.cond(x.sum() > 0, _plus_one, _minus_one, (x,))


@case(tags=["torch-api", "fullgraph"], calls=[Call(T(3), T(3))], options=FULLGRAPH,
      expect=one_graph(".sum", "gt", COND, "getitem"))  # fmt: skip
def cond_branches_read_a_closure_tensor(x, w):
    """`w` is read by the branches only: lifted, an operand of the cond node."""

    def scaled(a):
        return a * w

    def shifted(a):
        return a + w.sum()

    return torch.cond(x.sum() > 0, scaled, shifted, (x,))


@case(tags=["torch-api", "fullgraph"], calls=[Call(T(4))], options=FULLGRAPH,
      expect=one_graph(".mean", "gt", COND, "getitem", "getitem", "add"))  # fmt: skip
def cond_branches_return_tuples(x):
    def true_fn(a):
        return a + 1, a * 2

    def false_fn(a):
        return a - 1, a / 2

    first, second = torch.cond(x.mean() > 0, true_fn, false_fn, (x,))
    return first + second


@case(tags=["torch-api", "fullgraph"], calls=[Call(T(3), True), Call(T(3), False)],
      options=FULLGRAPH, expect=Expect(frames=2, graphs=2))  # fmt: skip
def cond_on_python_bool_inlines_a_branch(x, flag):
    """A predicate known while tracing picks its branch, traced inline (no cond node); the
    other value is another specialization."""
    return torch.cond(flag, _plus_one, _minus_one, [x])


@case(tags=["torch-api", "fullgraph"], calls=[Call(T(3), T(3))], options=FULLGRAPH,
      expect=one_graph(".sum", "gt", COND, "getitem"))  # fmt: skip
def nested_cond(x, w):
    """A cond inside a branch: its subgraph belongs to the branch's subgraph, and `w`
    is lifted through both."""

    def outer_true(a):
        return torch.cond(a.mean() > 0, lambda b: b * w, lambda b: b - w, (a,)) + 1

    return torch.cond(x.sum() > 0, outer_true, torch.cos, (x,))


_linear = torch.nn.Linear(3, 3)


@case(tags=["torch-api", "fullgraph", "autograd"], calls=[Call(T(2, 3, requires_grad=True))],
      options=FULLGRAPH, expect=one_graph(CHECKPOINT, "getitem", ".relu"))  # fmt: skip
def checkpoint_of_a_module(x):
    """The module's parameters are lifted into the checkpointed body."""
    return torch.utils.checkpoint.checkpoint(_linear, x, use_reentrant=False).relu()


@case(tags=["torch-api", "fullgraph", "autograd"],
      calls=[Call(T(3, requires_grad=True), T(3))], options=FULLGRAPH,
      expect=one_graph(CHECKPOINT, "getitem", "getitem", "add"))  # fmt: skip
def checkpoint_of_a_function_returning_a_tuple(x, y):
    def body(a, b):
        return (a * b).sin(), a.cos()

    u, v = torch.utils.checkpoint.checkpoint(body, x, y, use_reentrant=False)
    return u + v


@case(tags=["torch-api", "graph-breaks", "side-effects"], calls=[Call(T(3))],
      expect=Expect(frames=1, graphs=0, breaks=[Break(SIDE_EFFECT, "seen.append(a)")]))  # fmt: skip
def checkpoint_of_a_function_with_a_side_effect_breaks(x):
    """The body appends to a list from outside it: not traced (Dynamo: "Unsafe side
    effect"); the call runs in CPython, its body with it."""
    seen = []

    def body(a):
        seen.append(a)
        return a * 2

    return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False)
