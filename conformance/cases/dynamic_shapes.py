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
