"""Views as indexing: permuted, sliced, expanded and reshaped values, strided inputs."""

from __future__ import annotations

import pytest
import torch

VIEWS = {
    "transpose": lambda x: x.transpose(0, 1) * 2,
    "slice_step": lambda x: x[:, 1::2] - 1,
    "slice_negative": lambda x: x[-2:, :-1].exp(),
    "select": lambda x: x[1][:4] + x[:, 0],
    "unsqueeze_expand": lambda x: x.unsqueeze(1).expand(-1, 3, -1) * 2,
    "flatten": lambda x: x.flatten() + 1,
    "reshape_split": lambda x: x.reshape(2, -1, 3).sin(),
    "reshape_of_transpose": lambda x: x.t().reshape(-1) * 2,
    "view_of_permute_contiguous": lambda x: x.permute(1, 0).contiguous().view(-1, 2),
    "flip": lambda x: x.flip(0, 1) + 0.5,
    "squeeze": lambda x: x.unsqueeze(0).unsqueeze(-1).squeeze() * 3,
    "narrow_then_transpose": lambda x: x.narrow(1, 1, 4).t().cos(),
    "broadcast_outer": lambda x: x[:, :1] * x[:1, :],
    "chain_of_views": lambda x: x.t()[1:].reshape(-1)[::3] + 1,
    "split": lambda x: x.split([1, 2, 3], dim=1)[2] * 2 + x.split(3, dim=1)[0],
    "chunk": lambda x: x.chunk(2)[1].sigmoid(),
    "unbind": lambda x: x.unbind(1)[2] - x.unbind(0)[3][:4],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_fuse_into_one_kernel(check, name):
    check(VIEWS[name], torch.randn(4, 6), kernels=1)


def test_permute_3d_input(check):
    check(lambda x: x.permute(2, 0, 1) + 1, torch.randn(2, 3, 4), kernels=1)


STRIDED_INPUTS = {
    "transposed": lambda: torch.randn(6, 5).t(),
    "sliced": lambda: torch.randn(7, 9)[1:6:2, 2:],
    "storage_offset": lambda: torch.randn(50)[7:37].view(5, 6),
    "expanded": lambda: torch.randn(5, 1).expand(5, 6),
    "channels_last": lambda: torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
}


@pytest.mark.parametrize("name", sorted(STRIDED_INPUTS))
def test_non_contiguous_inputs(check, name):
    x = STRIDED_INPUTS[name]()
    check(lambda t: (t * 2).relu() + t.sum(-1, keepdim=True), x)


def test_output_keeps_eager_strides(check):
    compiled = check(lambda x: (x + 1).t(), torch.randn(3, 5), kernels=1)
    assert "(5, 3), (1, 5)" in compiled.output_code.source  # eager's transposed layout


def test_view_outputs_alias_their_input():
    from minidynamo.backends.triton import triton_backend

    x = torch.randn(4, 6)
    compiled = triton_backend(torch.fx.symbolic_trace(lambda t: t.t()[1:]), [x])
    out = compiled(x)
    assert compiled.kernel_count == 0
    assert out.data_ptr() == x.t()[1:].data_ptr()
    assert torch.equal(out, x.t()[1:])


def test_clone_of_an_input_is_a_copy():
    from minidynamo.backends.triton import triton_backend

    x = torch.randn(3, 4)
    compiled = triton_backend(torch.fx.symbolic_trace(lambda t: t.clone()), [x])
    out = compiled(x)
    assert compiled.kernel_count == 1
    assert out.data_ptr() != x.data_ptr() and torch.equal(out, x)


CATS = {
    "dim0": lambda a, b: torch.cat([a, b * 2], 0),
    "dim1_three_parts": lambda a, b: torch.cat([a, b.t()[:3], a.exp()], 1),
    "with_empty_part": lambda a, b: torch.cat([a, a[:0], b], 0).relu(),
    "mixed_dtypes": lambda a, b: torch.cat([a.half(), b], 0),
}


@pytest.mark.parametrize("name", sorted(CATS))
def test_cat_reads_each_input_where_it_lies(check, name):
    check(CATS[name], torch.randn(3, 3), torch.randn(3, 3), kernels=1)


def test_constant_pad(check):
    pad = torch.nn.functional.pad
    check(lambda x: pad(x, (1, 2, 0, 3), value=-1.5) * 2, torch.randn(2, 4, 5), kernels=1)


def test_cat_of_a_normalized_value_reduces_whole_rows(check):
    """The reduction is first needed inside the cat's masked read: it still reads every row."""

    def fn(a):
        scaled = a / (a.abs().amax(0, keepdim=True) + 1)
        return torch.cat([scaled[1:], scaled[:1]]), scaled

    check(fn, torch.randn(3, 5), kernels=1)


def test_cat_then_reduce(check):
    check(lambda a, b: torch.cat([a, b], -1).softmax(-1), torch.randn(4, 5), torch.randn(4, 7),
          kernels=1)
