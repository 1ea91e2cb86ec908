"""Generated code, as text: the kernels and wrapper for representative graphs.

Reviewed like code (tinygrad's "process replay"): a change in codegen shows up here as a
diff. The expected texts are golden snapshots in golden/common/test_codegen/.
"""

from __future__ import annotations

import torch
from minidynamo.backends.triton import codegen
from syrupy.assertion import SnapshotAssertion


def _source(check, fn, *inputs):
    return check(fn, *inputs, kernels=1).output_code.source


def test_scale_bias_relu_output_code(check, golden_common: SnapshotAssertion):
    fn = lambda x, s, b: torch.relu(x * s + b)  # noqa: E731
    source = _source(check, fn, torch.randn(8, 16), torch.randn(16), torch.randn(16))
    assert source == golden_common


def test_softmax_output_code(check, golden_common: SnapshotAssertion):
    assert _source(check, lambda x: torch.softmax(x, -1), torch.randn(6, 10)) == golden_common


def test_looped_softmax_kernel(check, monkeypatch, golden_common: SnapshotAssertion):
    monkeypatch.setattr(codegen.config, "persistent_reduction_limit", 16)
    monkeypatch.setattr(codegen.config, "looped_rblock", 8)
    source = _source(check, lambda x: torch.softmax(x, -1), torch.randn(3, 20))
    kernel = source[source.index("@triton.jit") : source.index("def call")].rstrip() + "\n"
    assert kernel == golden_common
