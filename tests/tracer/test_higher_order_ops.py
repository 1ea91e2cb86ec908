"""Higher-order operators (variables/higher_order_ops.py): torch.cond's branches and a
checkpointed function are traced into subgraphs; what they compute, the gradients through
them, and the functions that may not be traced (side effects, input mutation)."""

from __future__ import annotations

import minidynamo
import pytest
import torch
import torch.utils.checkpoint


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


class Graphs:
    """A backend that keeps each GraphModule."""

    def __init__(self) -> None:
        self.modules: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> object:
        self.modules.append(gm)
        return gm.forward


def _targets(gm: torch.fx.GraphModule) -> list[object]:
    return [node.target for node in gm.graph.nodes if node.op == "call_function"]


def test_cond_graph_serves_both_branches():
    def fn(x, w):
        return torch.cond(x.sum() > 0, lambda a: a * w, lambda a: a - w, (x,))

    graphs = Graphs()
    compiled = minidynamo.compile(fn, backend=graphs, fullgraph=True)
    w = torch.randn(3)
    for x in (torch.ones(3), -torch.ones(3)):
        assert torch.equal(compiled(x, w), fn(x, w))
    assert len(graphs.modules) == 1
    gm = graphs.modules[0]
    assert torch.ops.higher_order.cond in _targets(gm)
    # The branch reads w from the frame: lifted, an input of both subgraphs.
    for name in ("cond_true_0", "cond_false_0"):
        placeholders = [n for n in getattr(gm, name).graph.nodes if n.op == "placeholder"]
        assert len(placeholders) == 2


def test_nested_cond_lifts_through_both_levels():
    def fn(x, w):
        def outer_true(a):
            return torch.cond(a.mean() > 0, lambda b: b * w, lambda b: b + w, (a,))

        return torch.cond(x.sum() > 0, outer_true, torch.cos, (x,))

    compiled = minidynamo.compile(fn, backend="eager", fullgraph=True)
    w = torch.randn(4)
    for x in (torch.ones(4), -torch.ones(4), torch.tensor([3.0, -1.0, -1.0, -0.5])):
        assert torch.allclose(compiled(x, w), fn(x, w))


def test_checkpoint_gradients_match_eager():
    linear = torch.nn.Linear(3, 3)

    def fn(x):
        return torch.utils.checkpoint.checkpoint(linear, x, use_reentrant=False).relu().sum()

    graphs = Graphs()
    x = torch.randn(4, 3, requires_grad=True)
    minidynamo.compile(fn, backend=graphs, fullgraph=True)(x).backward()
    compiled_grads = x.grad.clone(), linear.weight.grad.clone()
    x.grad, linear.weight.grad = None, None
    fn(x).backward()
    assert torch.allclose(compiled_grads[0], x.grad)
    assert torch.allclose(compiled_grads[1], linear.weight.grad)
    assert torch.ops.higher_order.tag_activation_checkpoint in _targets(graphs.modules[0])


def test_checkpointed_function_with_a_side_effect_runs_once_in_cpython():
    seen = []

    def body(a):
        seen.append(a)
        return a * 2

    def fn(x):
        return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False) + 1

    x = torch.randn(3)
    assert torch.equal(minidynamo.compile(fn, backend="eager")(x), x * 2 + 1)
    assert len(seen) == 1  # not once more for the speculative trace
    minidynamo.reset()
    with pytest.raises(minidynamo.exc.Unsupported, match="changes an object from outside"):
        minidynamo.compile(fn, backend="eager", fullgraph=True)(x)


def test_input_mutated_in_a_checkpointed_function_is_not_traced():
    def body(a):
        a[0:2] += 1
        return a * 2

    def fn(x):
        return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False)

    with pytest.raises(minidynamo.exc.Unsupported, match="changes an input tensor in place"):
        minidynamo.compile(fn, backend="eager", fullgraph=True)(torch.zeros(3))
    minidynamo.reset()
    compiled_input, eager_input = torch.zeros(3), torch.zeros(3)
    assert torch.equal(minidynamo.compile(fn, backend="eager")(compiled_input), fn(eager_input))
    assert torch.equal(compiled_input, eager_input)


def test_intermediate_mutated_in_a_checkpointed_function_is_traced():
    def body(a):
        y = a.clone()
        y[0] = 0
        y += 1
        return y

    def fn(x):
        return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False)

    x = torch.randn(3)
    assert torch.equal(minidynamo.compile(fn, backend="eager", fullgraph=True)(x), fn(x))


SEEN: list[torch.Tensor] = []


def _appends_to_a_global(a):
    SEEN.append(a)
    return a * 2


def test_global_first_read_inside_the_function_is_still_outside_it():
    """The global list is wrapped while the function is traced, but existed before."""

    def fn(x):
        return torch.utils.checkpoint.checkpoint(_appends_to_a_global, x, use_reentrant=False)

    SEEN.clear()
    with pytest.raises(minidynamo.exc.Unsupported, match="changes an object from outside"):
        minidynamo.compile(fn, backend="eager", fullgraph=True)(torch.zeros(3))
    assert SEEN == []
