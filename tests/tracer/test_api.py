"""The public API of issue #3: compile's forms and argument checks, reset, disable,
fullgraph, nn.Module instances, safe fallback on internal errors, log channels."""

from __future__ import annotations

import os
import subprocess
import sys

import minidynamo
import pytest
import torch
from minidynamo import convert_frame, logs
from minidynamo.exc import Unsupported
from tracer_harness import compile_count


@pytest.fixture(autouse=True)
def fresh_state():
    minidynamo.reset()
    yield
    minidynamo.reset()


def double(x):
    return x * 2


def test_compile_as_plain_decorator():
    @minidynamo.compile
    def fn(x):
        return x + 1

    x = torch.randn(3)
    assert torch.equal(fn(x), x + 1)
    assert fn.__name__ == "fn"
    assert compile_count() == 1


def test_compile_as_decorator_with_options():
    seen = []

    def backend(gm, example_inputs):
        seen.append(len(example_inputs))
        return gm.forward

    @minidynamo.compile(backend=backend, fullgraph=True)
    def fn(x, y):
        return x * y

    fn(torch.randn(3), torch.randn(3))
    assert seen == [2]


def test_compile_nn_module_instance():
    module = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    compiled = minidynamo.compile(module)
    x = torch.randn(2, 3)
    assert torch.allclose(compiled(x), module(x))
    assert isinstance(compiled, torch.nn.Module)
    assert compile_count() == 1


def test_compiled_module_behaves_as_the_module():
    """As torch.compile's OptimizedModule: attribute reads, writes, deletions, the
    training flag and dir() go to the wrapped module; its state_dict keys are prefixed."""
    module = torch.nn.Linear(3, 2)
    compiled = minidynamo.compile(module)
    assert compiled.weight is module.weight and compiled.in_features == 3
    compiled.scale = 5
    assert module.scale == 5 and "scale" in dir(compiled) and "weight" in dir(compiled)
    del compiled.scale
    assert not hasattr(module, "scale")
    compiled.eval()
    assert not module.training and not compiled.training
    compiled.train()
    assert module.training
    assert compiled._orig_mod is module
    assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert compiled(torch.ones(2, 3)).shape == (2, 2)


def test_compiled_torch_nn_modules_share_one_wrapper_frame():
    """As Dynamo's OptimizedModule (wrap_inline): torch.nn layers are compiled through
    one wrapper code object, whose cache tells the modules apart by their guards, so
    one Linear of another shape past the recompile limit is refused: under fullgraph,
    an error, as Dynamo's FailOnRecompileLimitHit."""
    limit = minidynamo.config.recompile_limit
    for width in range(1, limit + 1):
        compiled = minidynamo.compile(torch.nn.Linear(width, 2), fullgraph=True)
        assert compiled(torch.ones(1, width)).shape == (1, 2)
    assert compile_count() == limit
    past = minidynamo.compile(torch.nn.Linear(limit + 1, 2), fullgraph=True)
    with pytest.raises(minidynamo.exc.RecompileLimitExceeded):
        past(torch.ones(1, limit + 1))


def test_lazy_module_initialized_before_compiling():
    """A lazy module infers its parameters in CPython first (Dynamo's
    _call_lazy_check); the trace sees the initialized nn.Linear."""
    module = torch.nn.LazyLinear(4)
    compiled = minidynamo.compile(module, fullgraph=True)
    x = torch.randn(2, 3)
    assert torch.allclose(compiled(x), module(x))
    assert type(module) is torch.nn.Linear and module.weight.shape == (4, 3)
    assert compile_count() == 1


class Scaled(torch.nn.Module):
    """A module with a forward of its own (the compiled frame is that forward)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x) * 2


def test_compiled_module_runs_its_full_backward_hook():
    """A full backward hook of the compiled module changes its input's gradient as in
    eager: the module's own __call__ runs (Dynamo's OptimizedModule calls
    ``_orig_mod.__call__``); before, its forward alone ran and the hook never did."""
    grads = []
    for compiler in (lambda m: m, minidynamo.compile):
        torch.manual_seed(0)
        module = Scaled()
        module.register_full_backward_hook(lambda mod, grad_in, grad_out: (grad_in[0] * 3,))
        x = torch.ones(2, 3, requires_grad=True)
        compiler(module)(x).sum().backward()
        grads.append(x.grad)
    assert torch.equal(grads[0], grads[1])


def test_global_module_hooks_fire_for_the_compiled_module():
    """Global forward hooks (register_module_forward_hook) fire for the compiled module
    and, as in Dynamo, for its wrapper too: the compiled module is a module called
    through its __call__."""
    seen: list[str] = []
    module = Scaled()
    compiled = minidynamo.compile(module)
    pre = torch.nn.modules.module.register_module_forward_pre_hook(
        lambda mod, args: seen.append("pre " + type(mod).__name__)
    )
    post = torch.nn.modules.module.register_module_forward_hook(
        lambda mod, args, out: seen.append(type(mod).__name__)
    )
    try:
        compiled(torch.ones(2, 3))
    finally:
        pre.remove()
        post.remove()
    assert seen == [
        "pre OptimizedModule",
        "pre Scaled",
        "pre Linear",
        "Linear",
        "Scaled",
        "OptimizedModule",
    ]


def test_unknown_backend_name_is_a_value_error():
    with pytest.raises(ValueError, match="unknown backend 'nope'.*eager"):
        minidynamo.compile(double, backend="nope")


def test_non_callable_backend_is_a_type_error():
    with pytest.raises(TypeError, match="backend must be a backend name or a callable"):
        minidynamo.compile(double, backend=3)


def test_compiling_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="function or an nn.Module, not int"):
        minidynamo.compile(3)


def test_triton_backend_is_registered_by_name():
    from minidynamo.backends import list_backends

    assert "triton" in list_backends() and "eager" in list_backends()


def test_reset_forgets_compiled_code():
    compiled = minidynamo.compile(double)
    compiled(torch.randn(3))
    minidynamo.reset()
    compiled(torch.randn(3))
    assert compile_count() == 1
    assert sum(len(convert_frame.cache_entries(code)) for code in convert_frame.cached_codes()) == 1


def test_disable_runs_the_function_uncompiled():
    disabled = minidynamo.disable(double)

    @minidynamo.compile
    def fn(x):
        return disabled(x) + 1

    x = torch.randn(3)
    assert torch.equal(fn(x), x * 2 + 1)
    assert compile_count() == 0


def test_fullgraph_turns_unsupported_code_into_an_error():
    @minidynamo.compile(fullgraph=True)
    def fn(x):
        if x.sum() > 0:  # a branch on a tensor's value
            return x
        return -x

    with pytest.raises(Unsupported, match="data-dependent control flow"):
        fn(torch.randn(3))


def test_internal_errors_fall_back_to_eager(capsys):
    def broken_backend(gm, example_inputs):
        raise RuntimeError("backend exploded")

    fn = minidynamo.compile(double, backend=broken_backend)
    x = torch.randn(3)
    assert torch.equal(fn(x), x * 2)
    assert "internal error in backend while converting double" in capsys.readouterr().err


def test_graph_breaks_log_the_user_line():
    def fn(x):
        return x.tolist()

    with logs.capture("graph_breaks") as messages:
        assert minidynamo.compile(fn)(torch.ones(2)) == [1.0, 1.0]
    (message,) = messages
    assert message.startswith("Graph break in user code at test_api.py:")
    assert "Tensor.tolist() [GB0009: Tensor.tolist()]" in message
    assert "return x.tolist()" in message


def test_unsupported_frames_log_the_user_line():
    def fn(x):
        if x.dim() == 1:
            raise ValueError("one dimension")
        return x

    with logs.capture("graph_breaks") as messages, pytest.raises(ValueError, match="one dim"):
        minidynamo.compile(fn)(torch.ones(2))
    (message,) = messages
    assert message.startswith("Frame fn (test_api.py:")
    assert "[GB0012: observed exception]" in message
    assert 'raise ValueError("one dimension")' in message


def test_set_logs_rejects_unknown_channels():
    with pytest.raises(ValueError, match="unknown log channel 'graphs'"):
        minidynamo.set_logs("graphs")


def test_trace_channel_prints_instructions_and_stack():
    with logs.capture("trace") as messages:
        minidynamo.compile(lambda x: torch.sin(x))(torch.ones(2))
    assert any(m.startswith("TRACE LOAD_GLOBAL torch") for m in messages)
    # The NULL of the call protocol sits below the callable on 3.11/3.12, above on 3.13.
    assert any(
        "TorchInGraphFunctionVariable(torch.sin)" in m and "NullVariable" in m for m in messages
    )


def test_minidynamo_logs_environment_variable():
    program = "import torch, minidynamo\nminidynamo.compile(lambda x: x + 1)(torch.ones(2))\n"
    env = {**os.environ, "MINIDYNAMO_LOGS": "graph_code,guards"}
    result = subprocess.run(
        [sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True
    )
    assert "TRACED GRAPH" in result.stderr
    assert "add = l_x_ + 1" in result.stderr
    assert "GUARDS:" in result.stderr


def test_demo_command_runs():
    result = subprocess.run(
        [sys.executable, "-m", "minidynamo", "demo"], capture_output=True, text=True, check=True
    )
    assert "mul = 3 * y" in result.stdout
    assert "- L['b'] == 'Hello'" in result.stdout


def test_torch_backends_by_name() -> None:
    """torch.compile's own backends behind our frontend, by the names torch gives them."""
    from minidynamo.backends import list_backends, lookup_backend

    assert {"aot_eager", "inductor"} <= set(list_backends())
    assert callable(lookup_backend("inductor"))  # looked up, not run: a C++ build is slow

    def f(x, y):
        return (x.sin() + y).relu().sum(0)

    x, y = torch.randn(4, 3, requires_grad=True), torch.randn(4, 3)
    expected = f(x, y)
    out = minidynamo.compile(f, backend="aot_eager")(x, y)
    assert torch.equal(out, expected)
    out.sum().backward()
    x_grad = x.grad.clone()
    x.grad = None
    expected.sum().backward()
    assert torch.equal(x_grad, x.grad)


def cubed(x):
    return x * x * x


@torch.compiler.disable
def torch_disabled(x):
    return cubed(x) + 1


@torch._disable_dynamo
def torch_private_disabled(x):
    return cubed(x) + 1


@pytest.mark.parametrize("disabled", [torch_disabled, torch_private_disabled])
def test_torch_disable_is_not_traced_nor_its_callees_converted(disabled):
    """torch.compiler.disable and torch._disable_dynamo stop our conversion as Dynamo's:
    the call breaks the graph, and the frames it runs (`cubed`) compile nothing."""

    @minidynamo.compile
    def fn(x):
        return disabled(x + 1) * 2

    x = torch.randn(3)
    assert torch.allclose(fn(x), ((x + 1) ** 3 + 1) * 2)
    assert not convert_frame.cache_entries(cubed.__code__)
    assert compile_count() == 2  # before and after the call
