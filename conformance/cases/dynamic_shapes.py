"""Symbolic shapes (seed: "Symbolic shapes"): static by default, dynamic after a change.

The first call compiles static sizes; a call with another size recompiles once with the
changed dims symbolic (automatic dynamic), and that graph serves every later size,
except 0 and 1, which are always specialized.
"""

import torch

from conformance.spec import Call, Expect, T, case, check_tensor


def _calls(*sizes: int) -> list[Call]:
    return [Call(T(n)) for n in sizes]


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(4, 8, 16, 32),
    expect=Expect(frames=2, graphs=2),
)
def four_sizes_compile_twice(x):
    """4 is static; 8 turns the dim dynamic; 16 and 32 reuse the dynamic graph."""
    return x * 2


@case(
    tags=["dynamic-shapes", "recompiles", "guards"],
    calls=_calls(4, 8),
    expect=Expect(
        frames=2,
        guards=[[check_tensor("L['x']", [4])], [check_tensor("L['x']", [None], [1])]],
        recompiles=["tensor 'L['x']' size mismatch at index 0. expected 4, actual 8"],
    ),
)
def size_guard_becomes_symbolic(x):
    return x.sin()


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4, 3)), Call(T(4, 5)), Call(T(4, 7))],
    expect=Expect(frames=2, graphs=2),
)
def only_the_changed_dim_turns_dynamic(x):
    """Dim 0 stays 4 (static); dim 1 is symbolic from the second compile on."""
    return x.sum(1)


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4, 3)), Call(T(8, 3)), Call(T(8, 5))],
    expect=Expect(frames=3, graphs=3),
)
def second_dim_changes_later(x):
    """After dim 0 turned dynamic, a change of dim 1 recompiles once more."""
    return x.mean(0)


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=_calls(4, 8, 12),
    expect=Expect(frames=2, graphs=2),
)
def view_with_symbolic_size(x):
    return x.view(-1, 2).sum(1)


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=_calls(4, 8, 12),
    expect=Expect(frames=2, graphs=2),
)
def shape_arithmetic(x):
    n = x.shape[0]
    return x[: n // 2] * (n - 1)


@case(
    tags=["dynamic-shapes", "control-flow", "recompiles"],
    calls=_calls(4, 8, 12, 20),
    expect=Expect(frames=3, graphs=3),
)
def size_dependent_branch(x):
    """A branch on a symbolic size guards on the side taken: 20 takes the other side."""
    if x.shape[0] > 16:
        return x * 2
    return x + 2


@case(
    tags=["dynamic-shapes"],
    calls=_calls(6, 10, 14),
    options={"dynamic": True},
    expect=Expect(frames=1, graphs=1),
)
def dynamic_true_single_compile(x):
    return torch.cat([x, x]) * x.shape[0]


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4)), Call(T(8)), Call(T(0))],
    expect=Expect(frames=3, graphs=3),
)
def size_zero_specialized(x):
    """An empty tensor fails the `2 <= L['x'].size()[0]` guard of the dynamic graph."""
    return x + 1


@case(
    tags=["dynamic-shapes"],
    calls=[Call(T(5, mark_dynamic=(0,))), Call(T(7, mark_dynamic=(0,)))],
    expect=Expect(frames=1, graphs=1),
)
def mark_dynamic_then_other_size(x):
    return x.cumsum(0)


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4), 2), Call(T(4), 3), Call(T(4), 5)],
    expect=Expect(frames=2, graphs=2),
)
def int_argument_automatic_dynamic(x, n):
    """An int input that changes is traced as a SymInt from then on (seed: fn(x, n))."""
    return x * n


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4), 2), Call(T(4), 3), Call(T(4), 1)],
    expect=Expect(frames=2, graphs=2),
)
def int_argument_one_is_not_specialized(x, n):
    """0/1 specialization is for sizes: a plain int 1 reuses the symbolic graph."""
    return x * n


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4), T(4)), Call(T(8), T(8)), Call(T(12), T(12))],
    expect=Expect(frames=2, graphs=2),
)
def broadcast_dims_stay_equal(x, y):
    return x * y


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=[Call(T(4, 2)), Call(T(8, 2)), Call(T(16, 2))],
    expect=Expect(frames=2, graphs=2),
)
def reshape_with_size_product(x):
    return x.reshape(x.shape[0] * x.shape[1])


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=_calls(3, 5, 9),
    expect=Expect(frames=2, graphs=2),
)
def new_tensor_from_symbolic_size(x):
    return x + torch.arange(x.shape[0])


@case(
    tags=["dynamic-shapes", "loops"],
    calls=[Call([T(3), T(3)]), Call([T(5), T(5)])],
    expect=Expect(frames=2, graphs=2),
)
def list_of_tensors_sizes_change(l):  # noqa: E741
    return l[0] + l[1]


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(2, 3)), Call(T(2, 3, 4))],
    expect=Expect(frames=2, graphs=2),
)
def rank_change_is_not_dynamic(x):
    """A new rank is not a new size: it recompiles, static again."""
    return x.sum()


@case(
    tags=["dynamic-shapes", "guards"],
    calls=[Call(T(8))],
    options={"dynamic": True},
    expect=Expect(frames=1, guards=[["2 <= L['x'].size()[0]"]]),
)
def dynamic_true_guards_size_at_least_two(x):
    return x * 3


# --- more symbolic shapes: when a size turns symbolic, and what stays specialized ---


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(4, 8, 16, 32),
    expect=Expect(frames=2, graphs=2, ops=[[".sum"], [".sum"]]),
)
def four_sizes_reduction_compiles_twice(x):
    return x.sum()


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4, 4)), Call(T(8, 8)), Call(T(16, 16)), Call(T(32, 32))],
    expect=Expect(frames=2, graphs=2),
)
def four_square_sizes_compile_twice(x):
    """Both dims change together; one recompile makes both symbolic."""
    return x @ x


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(4, 8, 1),
    expect=Expect(frames=3, graphs=3),
)
def size_one_specialized(x):
    """A size of 1 fails the `2 <= L['x'].size()[0]` guard: it gets a graph of its own."""
    return x * 2


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(4, 8, 0, 1),
    expect=Expect(frames=4, graphs=4),
)
def sizes_zero_and_one_own_graphs(x):
    return x - 1


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(4, 8, 0, 16, 0),
    expect=Expect(frames=3, graphs=3),
)
def size_zero_graph_is_reused(x):
    """The second empty tensor hits the cache entry the first one made."""
    return x.exp()


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(1, 4, 8),
    expect=Expect(frames=2, graphs=2),
)
def first_size_one_then_dynamic(x):
    """Starting from size 1 (static), 4 recompiles dynamic and 8 reuses it."""
    return x + 3


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=_calls(4, 4, 4),
    expect=Expect(frames=1, graphs=1),
)
def same_size_never_recompiles(x):
    return x.cos()


@case(
    tags=["dynamic-shapes"],
    calls=[Call(T(5), T(5)), Call(T(7), T(7))],
    options={"dynamic": True},
    expect=Expect(frames=1, graphs=1),
)
def dynamic_true_duck_shaped_equal_sizes(x, y):
    """Equal sizes share one symbol (duck shaping): equal sizes again fit the graph."""
    return x + y


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(5), T(5)), Call(T(5), T(7))],
    options={"dynamic": True},
    expect=Expect(frames=2, graphs=2),
)
def dynamic_true_duck_shaping_recompiles_on_unequal(x, y):
    """Duck shaping made one symbol of two equal sizes: unequal ones recompile."""
    return x.sum() + y.sum()


@case(
    tags=["dynamic-shapes"],
    calls=[Call(T(5), T(7)), Call(T(9), T(3))],
    options={"dynamic": True},
    expect=Expect(frames=1, graphs=1),
)
def dynamic_true_unequal_sizes_two_symbols(x, y):
    return x.sum() * y.sum()


@case(
    tags=["dynamic-shapes"],
    calls=[Call(T(4), 3), Call(T(4), 5), Call(T(4), 7)],
    options={"dynamic": True},
    expect=Expect(frames=1, graphs=1),
)
def dynamic_true_int_input_symbolic(x, n):
    """With dynamic=True an int input is a symbol from the first call."""
    return x * n


@case(
    tags=["dynamic-shapes"],
    calls=_calls(3, 6, 12),
    options={"dynamic": False},
    expect=Expect(frames=3, graphs=3),
)
def dynamic_false_recompiles_every_size(x):
    return x * 2


@case(
    tags=["dynamic-shapes", "guards"],
    calls=[Call(T(6, mark_dynamic=(0,)))],
    expect=Expect(frames=1, guards=[["2 <= L['x'].size()[0]"]]),
)
def mark_dynamic_symbolic_from_first_call(x):
    return x.sum(0)


@case(
    tags=["dynamic-shapes"],
    calls=[Call(T(3, 4, mark_dynamic=(1,))), Call(T(3, 9, mark_dynamic=(1,)))],
    expect=Expect(frames=1, graphs=1),
)
def mark_dynamic_second_dim(x):
    return x.mean(1)


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(3, 4, mark_dynamic=(1,))), Call(T(5, 4, mark_dynamic=(1,)))],
    expect=Expect(frames=2, graphs=2),
)
def mark_dynamic_other_dim_still_static(x):
    """Only the marked dim is symbolic: a change of dim 0 recompiles."""
    return x * 2


@case(
    tags=["dynamic-shapes"],
    calls=[
        Call(T(4, mark_dynamic=(0,)), T(4, mark_dynamic=(0,))),
        Call(T(6, mark_dynamic=(0,)), T(6, mark_dynamic=(0,))),
    ],
    expect=Expect(frames=1, graphs=1),
)
def mark_dynamic_two_inputs_broadcast(x, y):
    return x * y


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4), 2), Call(T(4), 3), Call(T(4), 4), Call(T(4), 9)],
    expect=Expect(frames=2, graphs=2),
)
def int_input_becomes_symbolic_and_stays(x, n):
    """After one change the int is a SymInt: later values reuse the second graph."""
    return x + n


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4), 3), Call(T(4), 5), Call(T(4), 7)],
    expect=Expect(frames=2, graphs=2),
)
def int_input_used_as_size(x, n):
    return x.sum() + torch.ones(n).sum()


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4), 2.0), Call(T(4), 3.0), Call(T(4), 4.0)],
    expect=Expect(
        frames=2, graphs=2, ops=[["mul"], [".item", "mul"]], recompiles=["L['f'] == 2.0"]
    ),
)
def float_input_becomes_dynamic(x, f):
    """A float input is a constant first; once it changes, Dynamo 2.14 passes it as a
    0-d tensor input read with `.item()`, so 4.0 reuses the second graph."""
    return x * f


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=_calls(4, 8, 16),
    expect=Expect(frames=2, graphs=2),
)
def size_returned_as_int(x):
    """A symbolic size returned as a Python int is the real size of each call."""
    return x.shape[0] * 2, x + 1


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=_calls(4, 8, 16),
    expect=Expect(frames=2, graphs=2),
)
def torch_ones_of_symbolic_size(x):
    return x + torch.ones(x.shape[0])


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=[Call(T(4, 1)), Call(T(8, 1)), Call(T(16, 1))],
    expect=Expect(frames=2, graphs=2),
)
def expand_to_symbolic_size(x):
    return x.expand(x.shape[0], 3)


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=_calls(4, 8, 16),
    expect=Expect(frames=2, graphs=2),
)
def slice_to_symbolic_half(x):
    return x[x.shape[0] // 2 :] + x[: x.shape[0] // 2]


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=[Call(T(4, 2)), Call(T(8, 2)), Call(T(16, 2))],
    expect=Expect(frames=2, graphs=2),
)
def numel_of_symbolic_tensor(x):
    return x.sum() / x.numel()


@case(
    tags=["dynamic-shapes", "containers"],
    calls=[Call([T(2), T(2)]), Call([T(2), T(2), T(2)])],
    expect=Expect(frames=2, graphs=2),
)
def list_length_change_recompiles(l):  # noqa: E741
    """A list's length is guarded, never symbolic."""
    return sum(l)


@case(
    tags=["dynamic-shapes", "recompiles"],
    calls=[Call(T(4, 3)), Call(T(8, 6)), Call(T(16, 12))],
    expect=Expect(frames=2, graphs=2),
)
def both_dims_turn_dynamic_at_once(x):
    return x.t() * 2


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=[Call(T(4, 6)), Call(T(8, 6)), Call(T(16, 6))],
    expect=Expect(frames=2, graphs=2),
)
def size_plus_tuple_is_a_size(x):
    # Attention heads split as Hugging Face models write it: x.size()[:-1] + (heads, -1).
    shape = x.size()[:-1] + (2, -1)
    return x.view(shape), isinstance(shape, torch.Size), (1,) + x.shape


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=[Call(T(8, 1, 4), T(8, 4, 3), T(8, 3, 4)), Call(T(12, 1, 4), T(12, 4, 3), T(12, 3, 4))],
    expect=Expect(frames=2, graphs=2, ops=[[".baddbmm"], [".baddbmm"]]),
)
def baddbmm_broadcast_after_dims_turn_dynamic(bias, q, k):
    """Bloom's attention scores: `bias.baddbmm(q, k)` with a bias broadcast over the query
    length, recompiled with a dynamic batch (its meta kernel expands with symbolic sizes)."""
    return bias.baddbmm(batch1=q, batch2=k, beta=1.0, alpha=0.5)


@case(
    tags=["dynamic-shapes", "tensor-methods"],
    calls=[Call(T(n, 4, 5), T(n, 4, 5)) for n in (2, 3, 4)],
    expect=Expect(frames=2, graphs=2),
)
def symbolic_size_equals_tuple(q, k):
    """XGLM's attention check `if attn.size() != (bsz * heads, tgt, src)`: a torch.Size
    equals a tuple with the same items (a Size is a tuple), symbolic items too, and never
    a list. Once the batch is dynamic the check must still pass (it once took the branch)."""
    bsz = q.size(0)
    attn = torch.bmm(q, k.transpose(1, 2))
    if attn.size() != (bsz * 1, 4, 4):
        return attn
    return attn + 1, attn.shape == (bsz, 4, 4), list(attn.size()) == (bsz, 4, 4)


# Data-dependent output sizes (Dynamo's capture_dynamic_output_shape_ops, on under
# fullgraph=True): the size is an unbacked symbol u0 the graph computes.


@case(
    tags=["dynamic-shapes", "fullgraph"],
    calls=[Call(T(8)), Call(T(8))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def fullgraph_captures_boolean_mask(x):
    """`x[x > 0]` has as many items as the data says: under fullgraph=True it stays in the
    graph, its length an unbacked symbol; new data with the same shape reuses the graph."""
    kept = x[x > 0]
    return kept * 2, kept.mean(), len(kept) * x


@case(
    tags=["dynamic-shapes", "fullgraph"],
    calls=[Call(T(8))],
    options={"fullgraph": True},
    expect=Expect(frames=1, graphs=1),
)
def fullgraph_captures_nonzero_and_unique(x):
    idx = torch.nonzero(x > 0, as_tuple=True)[0]
    return idx + 1, torch.unique(torch.tensor([1, 2, 2, 3]), return_counts=True)


@case(
    tags=["dynamic-shapes", "graph-breaks"],
    calls=[Call(T(8))],
    expect=Expect(frames=2, graphs=2),
)
def boolean_mask_breaks_without_fullgraph(x):
    """Without fullgraph=True the same `x[x > 0]` breaks the graph (the op runs in
    CPython), as Dynamo's default capture_dynamic_output_shape_ops=False."""
    kept = x[x > 0]
    return kept * 2


@case(
    tags=["dynamic-shapes", "fullgraph"],
    calls=[Call(T(8))],
    options={"fullgraph": True},
    expect=Expect(outcome="compile-error"),
)
def fullgraph_branch_on_captured_size_raises(x):
    """A branch on an unbacked size cannot be traced: fullgraph=True raises."""
    kept = x[x > 0]
    if kept.shape[0] > 2:
        return kept * 2
    return kept
