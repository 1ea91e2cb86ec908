"""Autograd under compilation (issue 14): outputs that require grad (or not) after
`detach`, `no_grad`, `enable_grad`, `set_grad_enabled` and `requires_grad_` inside the
compiled code; custom `autograd.Function`s; gradients computed inside it (`backward`,
`torch.autograd.grad`), which Dynamo runs as a graph break; in-place updates of leaves.

The runner compares each result's values and its `requires_grad` with eager's; a case
that needs gradient values returns them (`x.grad`, the result of `autograd.grad`).
"""

import torch

from conformance.spec import Break, Call, Expect, Make, T, case, one_graph

FULLGRAPH = {"fullgraph": True}
TAGS = ["autograd", "fullgraph"]


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True), T(3))], options=FULLGRAPH,
      expect=one_graph("mul", "add"))  # fmt: skip
def output_requires_grad_from_one_input(x, y):
    """An output depending on a requires-grad input requires grad; one that does not, not."""
    return x * y, y + 1


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=one_graph(".detach", "mul", "mul"))  # fmt: skip
def detach_cuts_the_graph(x):
    """`detach()` gives a tensor that does not require grad; ops on it neither."""
    d = x.detach()
    return d * 2, x * 2, d.requires_grad


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def no_grad_block_inside(x):
    """Results computed under `no_grad` inside the function do not require grad."""
    with torch.no_grad():
        a = x * 2
    b = x * 3
    return a, b, a.requires_grad, b.requires_grad


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def enable_grad_inside_no_grad(x):
    """`enable_grad` nested in `no_grad` turns grad mode back on for its block."""
    with torch.no_grad():
        a = x + 1
        with torch.enable_grad():
            b = x + 2
    return a, b


@case(tags=TAGS,
      calls=[Call(T(3, requires_grad=True), False), Call(T(3, requires_grad=True), True)],
      options=FULLGRAPH, expect=Expect(frames=2, graphs=2))  # fmt: skip
def set_grad_enabled_by_argument(x, train):
    """`set_grad_enabled(flag)` with a bool argument: each value its own graph."""
    with torch.set_grad_enabled(train):
        y = x.sin()
    return y, torch.is_grad_enabled()


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3))])
def requires_grad_set_on_new_tensor(x):
    """`requires_grad_()` on a tensor made inside: results through it require grad (Dynamo
    cannot return such a tensor from a graph: it breaks)."""
    w = torch.ones(3).requires_grad_()
    return w * x, w.is_leaf


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def requires_grad_and_is_leaf_attributes(x):
    """`requires_grad`, `is_leaf` of an input and of a result, read as Python bools."""
    y = x * 2
    return y, x.requires_grad, x.is_leaf, y.requires_grad, y.is_leaf


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True)), Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def branch_on_requires_grad(x):
    """A branch on `x.requires_grad`: a guard on it, a graph per value."""
    if x.requires_grad:
        return x * 2
    return x + 2


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def data_attribute_does_not_require_grad(x):
    """`.data` shares values but not the autograd history."""
    return x.data * 2, (x.data + x).requires_grad


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3, requires_grad=True))])
def detach_then_requires_grad_is_new_leaf(x):
    """`x.detach().requires_grad_()` is a new leaf that requires grad."""
    leaf = x.detach().requires_grad_()
    return leaf * 3, leaf.is_leaf


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def clone_then_inplace_keeps_grad(x):
    """In-place ops on a clone of a requires-grad leaf are allowed and tracked."""
    y = x.clone()
    y.mul_(2).add_(1)
    return y, y.requires_grad


@case(tags=["autograd"], calls=[Call(T(3, requires_grad=True))], expect=Expect(outcome="raises"))
def inplace_on_leaf_requiring_grad_raises(x):
    """An in-place op on a leaf that requires grad raises RuntimeError, as in eager."""
    return x.add_(1)


@case(tags=TAGS, calls=[Call(T(3, parameter=True), T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def sgd_update_under_no_grad(w, g):
    """The optimizer idiom: `w -= lr * g` in place on a parameter, under no_grad."""
    with torch.no_grad():
        w -= 0.1 * g
    return w * 1


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return 2 * t * grad


class ScaleBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, k):
        ctx.k = k
        return t * k

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k, None


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def custom_function_with_saved_tensors(x):
    """A custom `autograd.Function` saving a tensor for backward, applied in the graph."""
    return Square.apply(x) + 1


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def custom_function_with_python_argument(x):
    """A custom `autograd.Function` with a non-tensor argument stored on ctx."""
    return ScaleBy.apply(x, 3.0).sum()


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3, requires_grad=True))])
def backward_inside_returns_grad(x):
    """`loss.backward()` inside the function (a graph break in Dynamo); x.grad is returned."""
    loss = (x * x).sum()
    loss.backward()
    return x.grad * 1


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3, requires_grad=True))])
def autograd_grad_inside(x):
    """`torch.autograd.grad` inside the function; its result is returned."""
    y = (x.sin() * 2).sum()
    (g,) = torch.autograd.grad(y, x)
    return g + 0


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3, requires_grad=True))])
def backward_twice_accumulates(x):
    """Two backward calls accumulate into `.grad` (retain_graph on the first)."""
    loss = (x**2).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    return x.grad * 1


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3, requires_grad=True))])
def retain_grad_on_intermediate(x):
    """`retain_grad()` on a non-leaf keeps its gradient after backward."""
    y = x * 3
    y.retain_grad()
    y.sum().backward()
    return y.grad * 1, x.grad * 1


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True), T(3, dtype=torch.bool))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def where_mixes_grad_and_constant(x, mask):
    """`torch.where` of a requires-grad tensor and a constant requires grad."""
    return torch.where(mask, x, torch.zeros_like(x))


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def no_grad_copy_used_with_grad(x):
    """A copy made under `no_grad` used with grad on again: only x's path requires grad."""
    with torch.no_grad():
        frozen = x.clone()
    return frozen * x, frozen.requires_grad


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def requires_grad_false_on_detached_copy(x):
    """`requires_grad_(False)` on a detached copy; the input keeps its flag."""
    c = x.detach().clone().requires_grad_(False)
    return c + x, c.requires_grad, x.requires_grad


@case(tags=TAGS, calls=[Call(T(2, 3, requires_grad=True))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def views_of_requires_grad_input(x):
    """Views (`view`, `t`, `[0]`) of a requires-grad input require grad."""
    return x.view(6), x.t(), x[0], x.view(6).requires_grad


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2,
                    breaks=[Break("GB0125", "x.requires_grad_()")]))  # fmt: skip
def requires_grad_on_input_breaks(x):
    """`requires_grad_()` changing an input's flag breaks the graph (Dynamo does not trace
    that mutation); the input requires grad afterwards, as in eager."""
    y = x * 2
    x.requires_grad_()
    return y + x, x.requires_grad


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=2, graphs=2,
                    breaks=[Break("GB8985", "w.requires_grad_()")]))  # fmt: skip
def requires_grad_statement_on_new_tensor(x):
    """`w.requires_grad_()` as a statement on a tensor made inside, then returned through
    `w * x`: the graph breaks at the call, as when its result is used."""
    w = torch.ones(3)
    w.requires_grad_()
    return w * x


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(outcome="compile-error"))  # fmt: skip
def requires_grad_on_new_tensor_returned_fullgraph(x):
    """Under fullgraph a tensor made inside whose `requires_grad_()` reaches the outputs
    cannot be compiled (no break is allowed at the call): the frame is refused."""
    w = torch.zeros(3).requires_grad_(requires_grad=True)
    return w + x


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH,
      expect=Expect(frames=1, graphs=1))  # fmt: skip
def requires_grad_on_new_tensor_not_returned(x):
    """`requires_grad_()` on a tensor made inside whose results are detached before they
    are returned: no output requires grad, so the call stays in the one graph."""
    w = torch.ones(3).requires_grad_()
    return (w * x).detach() + 1


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3))],
      expect=Expect(frames=3, graphs=3))  # fmt: skip
def requires_grad_returned_before_another_break(x):
    """A later graph break (`print`) ends the first graph, whose outputs then hold the
    tensor made a leaf by `requires_grad_()`: the graph breaks at that call first, then
    at `print`."""
    w = torch.ones(3).requires_grad_()
    y = w * x
    print("between")
    return y + 1


class ScaleAndShift(torch.autograd.Function):
    """Two outputs, a ctx attribute and `mark_non_differentiable`."""

    @staticmethod
    def forward(ctx, t, k):
        ctx.k = k
        ctx.save_for_backward(t)
        shifted = t + k
        ctx.mark_non_differentiable(shifted)
        return t * k, shifted

    @staticmethod
    def backward(ctx, grad, _):
        return grad * ctx.k, None


class AddInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.mark_dirty(t)
        return t.add_(1)

    @staticmethod
    def backward(ctx, grad):
        return grad


@case(tags=TAGS, calls=[Call(T(3, requires_grad=True))], options=FULLGRAPH, expect=one_graph(
      "torch._C._set_grad_enabled", "mul", "add", "torch._C._set_grad_enabled"))  # fmt: skip
def custom_function_under_no_grad(x):
    """Under `no_grad` a custom Function records nothing for backward: its forward is
    traced into the graph (ctx a plain object), as Dynamo does."""
    with torch.no_grad():
        return Square.apply(x) + 1


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("mul", ".sum"))
def custom_function_on_input_without_grad(x):
    """No input requires grad: the forward is traced, its ctx attribute stored and
    dropped."""
    return ScaleBy.apply(x, 3.0).sum()


@case(tags=TAGS, calls=[Call(T(3))], options=FULLGRAPH, expect=one_graph("add", "mul", "sub"))
def custom_function_two_outputs_and_ctx_methods(x):
    """save_for_backward, mark_non_differentiable and a tuple of outputs, no grad."""
    scaled, shifted = ScaleAndShift.apply(x, 2.0)
    return scaled - shifted


@case(tags=["autograd", "side-effects"], calls=[Call(T(3))])
def custom_function_marks_input_dirty(x):
    """An in-place forward with `mark_dirty`: the caller's tensor is updated, and the
    output is that tensor (Dynamo 2.14 breaks at `ctx.mark_dirty` outside its grad path)."""
    y = AddInPlace.apply(x)
    return y * 2, y is x


def _with_grad(*shape):
    """A leaf tensor whose `.grad` a backward() filled."""
    t = torch.randn(*shape, requires_grad=True)
    (t * t).sum().backward()
    return t


@case(
    tags=["autograd", "side-effects", "dynamo-divergence"],
    calls=[Call([Make(_with_grad, 3), Make(_with_grad, 2)])],
    expect=one_graph(
        "torch._C._set_grad_enabled", "mul", "isub", "mul", "isub", "torch._C._set_grad_enabled"
    ),
)
def sgd_step_sets_grad_to_none(params):
    """A hand-written SGD step: `p -= lr * p.grad` in place under `no_grad`, then
    `p.grad = None` (an in-place op's result is its input: the same tensor's `.grad`),
    replayed on the caller's tensors after the graph."""
    with torch.no_grad():
        for p in params:
            p -= 0.1 * p.grad
            p.grad = None
    return [p.grad is None for p in params]



class ClampGrad(torch.autograd.Function):
    """A straight-through clamp: the gradient passes where the input was in range."""

    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.clamp(-1, 1)

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return grad * (t.abs() <= 1).to(grad.dtype)


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(5, requires_grad=True))],
      expect=Expect(frames=2, graphs=2))  # fmt: skip
def custom_function_backward_is_the_traced_one(x):
    """The backward that runs is the Function's, traced into the op's second subgraph:
    `x.grad` is 2 where x was in [-0.5, 0.5], else 0 (autograd's own clamp gradient
    would differ at the bounds only)."""
    y = ClampGrad.apply(x * 2)
    y.sum().backward()
    return x.grad * 1


@case(tags=["autograd", "graph-breaks"], calls=[Call(T(3, requires_grad=True))])
def hook_on_intermediate_scales_grad(x):
    """``register_hook`` on a tensor the graph computes: the hook is traced into a
    subgraph that the graph registers itself (``torch.ops.higher_order.register_hook``),
    as Dynamo; the backward pass that follows sees it."""
    y = x * 2
    y.register_hook(lambda g: g * 3)
    (y * y).sum().backward()
    return x.grad * 1


@case(tags=["autograd", "graph-breaks", "side-effects"], calls=[Call(T(3, requires_grad=True))])
def hook_on_input_registered_after_graph(x):
    """``register_hook`` on the frame's input: registered after the graph ran (a side
    effect the generated code replays), as Dynamo; no break before it."""
    y = x.sin()
    x.register_hook(lambda g: g + 1)
    (y * x).sum().backward()
    return x.grad * 1


@case(tags=["autograd", "closures"], calls=[Call(T(3, requires_grad=True), T(3))])
def hook_reading_a_tensor_of_the_frame(x, scale):
    """A hook closing over a tensor of the frame (lifted into its subgraph as an input),
    on an intermediate; the returned tensor carries the hook."""
    y = x.cos()
    y.register_hook(lambda g: g * scale)
    out = y * 2
    out.sum().backward()
    return x.grad * 1
