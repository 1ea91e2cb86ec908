"""The backend as torch.compile sees it: registration, specialization, fallbacks, logs, cache."""

from __future__ import annotations

import logging

import pytest
import torch
from minidynamo.backends.triton import stats, triton_backend
from minidynamo.backends.triton.lowering import GraphLowering, to_aten_graph
from minidynamo.backends.triton.scheduler import schedule
from minidynamo.backends.triton.wrapper import generate
from torch.fx.experimental.proxy_tensor import make_fx


def test_backend_for_real_torch_compile():
    def fn(x, y):
        return torch.softmax(x * 2 + y, -1).sum(0)

    compiled = torch.compile(fn, backend=triton_backend, fullgraph=True)
    x, y = torch.randn(5, 7), torch.randn(7)
    torch.testing.assert_close(compiled(x, y), fn(x, y))


def test_torch_compile_dynamic_shapes_specialize_per_call():
    calls = []

    def backend(gm, example_inputs):
        calls.append(triton_backend(gm, example_inputs))
        return calls[-1]

    fn = torch.compile(lambda x: (x.relu() * x.shape[0]).mean(-1), backend=backend, dynamic=True)
    for n in (3, 4, 6):
        x = torch.randn(n, 5)
        torch.testing.assert_close(fn(x), (x.relu() * n).mean(-1))
    assert len(calls) == 1 and len(calls[0].specializations) == 3


def test_new_shapes_compile_new_specializations(check):
    compiled = check(lambda x: x.exp(), torch.randn(4))
    compiled(torch.randn(9))
    compiled(torch.randn(4))
    assert len(compiled.specializations) == 2


@pytest.fixture
def output_code_log(caplog):
    """Records of the output_code channel (minidynamo's loggers may not propagate to root)."""
    logger = logging.getLogger("minidynamo.output_code")
    logger.addHandler(caplog.handler)
    with caplog.at_level(logging.DEBUG, logger="minidynamo.output_code"):
        yield caplog
    logger.removeHandler(caplog.handler)


def test_ops_without_lowering_run_as_logged_extern_calls(check, output_code_log):
    compiled = check(lambda x: torch.cumsum(x * 2, 0).sin(), torch.randn(6, 3), kernels=2)
    assert "extern call: aten.cumsum.default: no lowering" in output_code_log.text
    assert compiled.output_code.extern_count == 1


def test_unsupported_dtypes_run_as_extern_calls(check):
    def fn(x):
        z = torch.complex(x, x * 2)
        return torch.view_as_real(z * z) + 1

    check(fn, torch.randn(4))


def test_output_code_is_logged(check, output_code_log):
    check(lambda x: x + 1, torch.randn(3))
    assert "@triton.jit" in output_code_log.text and "def call(arg0):" in output_code_log.text


def test_kernels_are_cached_by_source(check, tmp_path, monkeypatch):
    monkeypatch.setenv("MINIDYNAMO_TRITON_CACHE", str(tmp_path))
    check(lambda x: x * 3, torch.randn(5))
    check(lambda y: y * 3, torch.randn(5))
    check(lambda x: x * 4, torch.randn(5))
    assert len(list(tmp_path.glob("*.py"))) == 2


def test_input_mutation_is_replayed(check):
    def fn(x):
        y = x * 2
        x.add_(1)
        return y + x

    x = torch.randn(6)
    expected_x = x + 1
    check(fn, x)
    torch.testing.assert_close(x, expected_x)


def test_inputs_that_require_grad_run_eagerly():
    x = torch.randn(3, requires_grad=True)
    compiled = triton_backend(torch.fx.symbolic_trace(lambda t: (t * 2).sum()), [x])
    compiled(x).backward()
    assert "require grad" in compiled.fallback_reason
    torch.testing.assert_close(x.grad, torch.full((3,), 2.0))


def test_cpu_tensors_without_the_interpreter_run_eagerly(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    before = stats.eager_fallbacks
    compiled = triton_backend(torch.fx.symbolic_trace(lambda t: t + 1), [torch.ones(2)])
    torch.testing.assert_close(compiled(torch.ones(2)), torch.full((2,), 2.0))
    assert "TRITON_INTERPRET" in compiled.fallback_reason
    assert stats.eager_fallbacks == before + 1


def test_graphs_from_make_fx(check):
    check(lambda x, y: torch.where(x > y, x.exp(), y.log1p()), torch.randn(8),
          torch.rand(8), kernels=1, graph="make_fx")


def test_module_parameters_become_constants(check):
    layer = torch.nn.Linear(4, 3)
    with torch.no_grad():
        compiled = check(torch.nn.Sequential(layer, torch.nn.ReLU()), torch.randn(2, 4), kernels=1)
    assert "const0" in compiled.output_code.source


def test_reductions_over_an_outer_dim_fuse_with_their_consumers(check):
    compiled = check(lambda x: x / x.sum(0), torch.randn(4, 5), kernels=1)
    assert "5*rindex + xindex" in compiled.output_code.source  # a program per column


def test_big_tensors_index_with_int64():
    x = torch.empty(2**31 + 5, device="meta")
    graph = GraphLowering(to_aten_graph(make_fx(lambda t: t * 2)(x), [x])[0])
    graph.run([x])
    source = generate(graph, schedule(graph.nodes, graph.outputs)).source
    assert "tl.program_id(0).to(tl.int64)" in source


def test_small_tensors_index_with_int32(check):
    compiled = check(lambda t: t * 2, torch.randn(10))
    assert "tl.program_id(0) * XBLOCK" in compiled.output_code.source


def test_behind_minidynamo_compile():
    """Our frontend with our backend: the backend compiles lazily on the graph's first
    call, and the frames of that compile must not be converted again."""
    import minidynamo

    minidynamo.reset()
    fn = minidynamo.compile(lambda x, y: torch.softmax(x * 2 + y, -1), backend="triton")
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    torch.testing.assert_close(fn(x, y), torch.softmax(x * 2 + y, -1))
    torch.testing.assert_close(fn(y, x), torch.softmax(y * 2 + x, -1))
