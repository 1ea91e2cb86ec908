"""Small model blocks: externs (matmul) between fused kernels; kernel counts; no temporaries."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, width: int = 16, hidden: int = 32) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.gelu(self.up(self.norm(x))))


def test_mlp_block(check):
    torch.manual_seed(0)
    model = MLP().eval()
    with torch.no_grad():
        compiled = check(model, torch.randn(2, 5, 16), kernels=3)
    source = compiled.output_code.source
    assert source.count("torch.ops.aten.addmm.default") == 2
    # layernorm, the GELU after the first matmul, the residual add after the second
    assert source.count("@triton.jit") == 3


def test_scale_bias_activation_is_one_kernel(check):
    """The seed's example: scale, bias and activation fuse; no intermediate tensor."""
    compiled = check(lambda x, s, b: torch.relu(x * s + b), torch.randn(8, 16),
                     torch.randn(16), torch.randn(16), kernels=1)
    assert compiled.output_code.source.count("torch.empty_strided") == 1


def test_attention_scores(check):
    def attention(q, k, v):
        scores = q @ k.transpose(-1, -2) / 4.0
        return torch.softmax(scores, dim=-1) @ v

    q, k, v = (torch.randn(2, 6, 16) for _ in range(3))
    check(attention, q, k, v, kernels=1)


def test_residual_layer_norm_outputs_both(check):
    def block(x, y, w, b):
        h = x + y
        return h, F.layer_norm(h, (12,), w, b)

    check(block, torch.randn(3, 12), torch.randn(3, 12), torch.randn(12), torch.randn(12),
          kernels=1)


def test_conv_runs_as_extern_with_fused_epilogue(check):
    weight, bias = torch.randn(4, 3, 3, 3), torch.randn(4)
    compiled = check(lambda x, w, b: torch.sigmoid(F.conv2d(x, w, b)) * 2,
                     torch.randn(1, 3, 6, 6), weight, bias, kernels=1)
    assert "torch.ops.aten.convolution.default" in compiled.output_code.source


def test_dead_values_cost_nothing(check):
    def fn(x):
        unused = x.exp().sum()  # noqa: F841
        return x * 2

    check(fn, torch.randn(10), kernels=1)


def test_buffers_are_freed_after_their_last_use(check):
    def fn(x, w):
        h = torch.relu(x @ w)
        return h @ w.t()

    compiled = check(fn, torch.randn(4, 8), torch.randn(8, 8), kernels=1)
    assert "del buf" in compiled.output_code.source


class TransformerBlock(nn.Module):
    """A GPT-style block: causal self-attention and an MLP, each behind a LayerNorm."""

    def __init__(self, width: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(self.norm1(x)).split(width, dim=2))
        scores = q @ k.transpose(-2, -1) / (width // self.heads) ** 0.5
        causal = torch.tril(torch.ones(length, length, dtype=torch.bool))
        attention = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        x = x + self.proj((attention @ v).transpose(1, 2).reshape(batch, length, width))
        return x + self.mlp(self.norm2(x))


def test_transformer_block_under_torch_compile():
    from minidynamo.backends.triton import triton_backend

    graphs = []

    def backend(gm, example_inputs):
        graphs.append(triton_backend(gm, example_inputs))
        return graphs[-1]

    model, x = TransformerBlock().eval(), torch.randn(2, 8, 32)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(model, backend=backend)(x), model(x))
    # norm1, q/k/v copies for the matmuls, masked softmax, the attention output copy,
    # residual + norm2, bias + GELU, the last residual
    assert [g.kernel_count for g in graphs] == [7]


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.norm = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.norm(self.conv(x))), 2)
        return F.log_softmax(self.fc(x.mean((2, 3))), -1)


def test_conv_batchnorm_pool_classifier(check):
    with torch.no_grad():
        # batch norm + ReLU after the conv; the spatial mean; log_softmax after the linear
        check(Classifier().eval(), torch.randn(2, 3, 8, 8), kernels=3)
