"""Idioms of real models under compilation (issue 14), written as transformer code
writes them: attention masks (causal, padding, the additive "extended" mask),
multi-head reshapes, rotary embeddings, RMSNorm and gated MLPs, a KV cache, outputs
as dataclasses with optional fields and `return_dict`, forwards wrapped by decorators,
and the loss and decoding steps at the end of a model.
"""

import dataclasses
import functools
import math
import typing

import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from conformance.spec import Call, Expect, T, case

FULLGRAPH = {"fullgraph": True}
TAGS = ["model-idioms", "real-models", "fullgraph"]
ONE = Expect(frames=1, graphs=1)


# attention masks


@case(tags=TAGS, calls=[Call(T(2, 4, 4))], options=FULLGRAPH, expect=ONE)
def causal_mask_with_triu(scores):
    """A causal mask from `triu(ones, 1)` filled with -inf, then softmax."""
    n = scores.shape[-1]
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    return scores.masked_fill(mask, float("-inf")).softmax(-1)


@case(tags=TAGS, calls=[Call(T(2, 5, 3), torch.tensor([5, 2]))], options=FULLGRAPH, expect=ONE)
def padding_mask_from_lengths(x, lengths):
    """`arange(n)[None, :] < lengths[:, None]`: a padding mask; masked mean over time."""
    mask = torch.arange(x.shape[1])[None, :] < lengths[:, None]
    summed = (x * mask[..., None]).sum(1)
    return summed / mask.sum(1, keepdim=True), mask


@case(tags=TAGS, calls=[Call(T(2, 2, 3, 3), torch.tensor([[1, 1, 0], [1, 1, 1]]))],
      options=FULLGRAPH, expect=ONE)  # fmt: skip
def extended_additive_attention_mask(scores, attention_mask):
    """BERT's extended mask: `(1 - mask[:, None, None, :]) * finfo(dtype).min`, added."""
    extended = attention_mask[:, None, None, :].to(scores.dtype)
    extended = (1.0 - extended) * torch.finfo(scores.dtype).min
    return (scores + extended).softmax(-1)


@case(tags=TAGS, calls=[Call(T(2, 2, 4, 8), T(2, 2, 4, 8), T(2, 2, 4, 8))], options=FULLGRAPH,
      expect=ONE)  # fmt: skip
def sdpa_causal(q, k, v):
    """`F.scaled_dot_product_attention(..., is_causal=True)`."""
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


@case(tags=TAGS,
      calls=[Call(T(2, 2, 4, 8), T(2, 2, 4, 8), T(2, 2, 4, 8), T(2, 1, 4, 4, dtype=torch.bool))],
      options=FULLGRAPH, expect=ONE)  # fmt: skip
def sdpa_with_boolean_mask(q, k, v, mask):
    """`F.scaled_dot_product_attention` with a boolean mask broadcast over heads."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@case(tags=TAGS, calls=[Call(T(2, 4, 8), T(2, 4, 8), T(2, 4, 8))], options=FULLGRAPH, expect=ONE)
def attention_written_out(q, k, v):
    """Attention by hand: `q @ k.transpose(-2, -1) / sqrt(d)`, softmax, `@ v`."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    return torch.softmax(scores, dim=-1) @ v


# multi-head and position encodings


@case(tags=TAGS, calls=[Call(T(2, 5, 8))], options=FULLGRAPH, expect=ONE)
def split_and_merge_heads(x):
    """`view(b, n, h, d).transpose(1, 2)` into heads and back with `contiguous().view`."""
    b, n, _ = x.shape
    heads = x.view(b, n, 2, 4).transpose(1, 2)
    merged = heads.transpose(1, 2).contiguous().view(b, n, -1)
    return heads, merged


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


@case(tags=TAGS, calls=[Call(T(2, 4, 8))], options=FULLGRAPH, expect=ONE)
def rotary_embedding(x):
    """Rotary position embedding: inverse frequencies, cos/sin tables, `rotate_half`."""
    d = x.shape[-1]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
    t = torch.arange(x.shape[1]).float()
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


@case(tags=TAGS,
      calls=[Call(torch.tensor([[3, 1, 4]]), None),
             Call(torch.tensor([[3, 1, 4]]), torch.tensor([[5, 6, 7]]))],
      factory=True, expect=Expect(frames=2, graphs=2))  # fmt: skip
def position_ids_default_from_arange():
    """`position_ids=None` defaults to `arange(seq_len)`; token and position embeddings add."""

    class Embeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = nn.Embedding(10, 4)
            self.positions = nn.Embedding(8, 4)

        def forward(self, input_ids, position_ids=None):
            if position_ids is None:
                position_ids = torch.arange(input_ids.shape[1]).unsqueeze(0)
            return self.tokens(input_ids) + self.positions(position_ids)

    return Embeddings()


# blocks


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class PreNormBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = RMSNorm(4)
        self.mlp = SwiGLU(4, 8)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


@case(tags=TAGS, calls=[Call(T(2, 3, 4))], options=FULLGRAPH, factory=True, expect=ONE)
def pre_norm_residual_block():
    """A pre-norm residual block: RMSNorm, then a SwiGLU MLP, added to its input."""
    return PreNormBlock()


@case(tags=TAGS, calls=[Call(T(2, 4))], options=FULLGRAPH, expect=ONE)
def gelu_tanh_approximation(x):
    """GPT-2's GELU written out with tanh, beside `F.gelu(approximate="tanh")`."""
    manual = 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))
    return manual, F.gelu(x, approximate="tanh")


class CachedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(4, 12)

    def forward(self, x, past=None):
        q, k, v = self.qkv(x).split(4, dim=-1)
        if past is not None:
            k = torch.cat([past[0], k], dim=1)
            v = torch.cat([past[1], v], dim=1)
        out = F.scaled_dot_product_attention(q, k, v)
        return out, (k, v)


@case(tags=TAGS, calls=[Call(T(1, 2, 4)), Call(T(1, 1, 4), (T(1, 2, 4), T(1, 2, 4)))],
      factory=True, expect=Expect(frames=2, graphs=2))  # fmt: skip
def kv_cache_concatenated():
    """A key/value cache: None at the first step, a tuple of tensors concatenated after."""
    return CachedAttention()


class Checkpointed(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.gradient_checkpointing = False

    def forward(self, x):
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                raise RuntimeError("checkpointing is not used in this case")
            x = torch.relu(layer(x))
        return x


@case(tags=TAGS, calls=[Call(T(2, 4))], options=FULLGRAPH, factory=True, expect=ONE)
def gradient_checkpointing_flag_off():
    """The `if self.gradient_checkpointing and self.training` branch of HF models, off."""
    return Checkpointed()


# outputs


@dataclasses.dataclass
class CausalLMOutput:
    logits: torch.Tensor
    loss: typing.Optional[torch.Tensor] = None  # noqa: UP045
    hidden_states: typing.Optional[tuple] = None  # noqa: UP045

    def to_tuple(self):
        values = (getattr(self, f.name) for f in dataclasses.fields(self))
        return tuple(v for v in values if v is not None)


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10)

    def forward(self, input_ids, labels=None, output_hidden_states=False, return_dict=True):
        h = self.embed(input_ids)
        logits = self.head(h)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, 10), labels.view(-1), ignore_index=-100)
        hidden = (h,) if output_hidden_states else None
        if not return_dict:
            return tuple(v for v in (loss, logits, hidden) if v is not None)
        return CausalLMOutput(logits=logits, loss=loss, hidden_states=hidden)


@case(tags=TAGS, calls=[Call(torch.tensor([[1, 2, 3]]))], options=FULLGRAPH, factory=True,
      expect=ONE)  # fmt: skip
def output_dataclass_with_none_fields():
    """A ModelOutput-like dataclass returned with its optional fields left None."""
    return TinyLM()


@case(tags=TAGS, calls=[Call(torch.tensor([[1, 2, 3]]), torch.tensor([[2, -100, 4]]))],
      options=FULLGRAPH, factory=True, expect=ONE)  # fmt: skip
def loss_with_ignore_index_in_output():
    """Labels given: cross entropy with `ignore_index=-100` fills the output's loss."""
    return TinyLM()


@case(tags=TAGS,
      calls=[Call(torch.tensor([[1, 2, 3]]),
                  kwargs={"return_dict": False, "output_hidden_states": True})],
      options=FULLGRAPH, factory=True, expect=ONE)  # fmt: skip
def return_dict_false_gives_tuple():
    """`return_dict=False`: a tuple of the values that are not None."""
    return TinyLM()


@case(tags=TAGS, calls=[Call(T(2, 3))], options=FULLGRAPH, expect=ONE)
def output_to_tuple_skips_none(x):
    """`to_tuple()` of an output drops the None fields (`dataclasses.fields` inside)."""
    out = CausalLMOutput(logits=x * 2, hidden_states=(x,))
    return out.to_tuple()


# decorated forwards


def deprecate_kwarg(old, new):
    """A decorator as transformers' `deprecate_kwarg`: renames a keyword argument."""

    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return inner

    return wrap


class Renamed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    @deprecate_kwarg("scale", "multiplier")
    def forward(self, x, multiplier=1.0):
        return self.fc(x) * multiplier


@case(tags=TAGS, calls=[Call(T(2, 3), kwargs={"scale": 2.0})], options=FULLGRAPH, factory=True,
      expect=ONE)  # fmt: skip
def decorator_renames_keyword_argument():
    """A forward behind a kwarg-renaming decorator, called with the old name."""
    return Renamed()


def can_return_tuple(fn):
    """A decorator as transformers' `can_return_tuple`: converts the output on request."""

    @functools.wraps(fn)
    def wrapper(self, *args, return_tuple=False, **kwargs):
        out = fn(self, *args, **kwargs)
        return out.to_tuple() if return_tuple else out

    return wrapper


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    @can_return_tuple
    def forward(self, x):
        return CausalLMOutput(logits=self.fc(x))


@case(tags=TAGS, calls=[Call(T(2, 3), kwargs={"return_tuple": True})], options=FULLGRAPH,
      factory=True, expect=ONE)  # fmt: skip
def decorator_converts_output_to_tuple():
    """A forward whose decorator turns the output dataclass into a tuple."""
    return Head()


# decoding


@case(tags=TAGS, calls=[Call(T(2, 5, 10))], options=FULLGRAPH, expect=ONE)
def greedy_next_token(logits):
    """The last position's logits, `argmax` for the next token, appended ids."""
    next_logits = logits[:, -1, :]
    next_token = next_logits.argmax(dim=-1, keepdim=True)
    return next_token, torch.cat([next_token, next_token], dim=-1)


@case(tags=TAGS, calls=[Call(T(2, 10))], options=FULLGRAPH, expect=ONE)
def top_k_filtering(logits):
    """Top-k filtering: everything below the k-th largest logit set to -inf."""
    kth = torch.topk(logits, 3).values[..., -1, None]
    filtered = logits.masked_fill(logits < kth, float("-inf"))
    return F.softmax(filtered, dim=-1)


@case(tags=TAGS, calls=[Call(T(2, 4, 10), torch.tensor([[1, 2, 3, 4], [5, 6, 7, -100]]))],
      options=FULLGRAPH, expect=ONE)  # fmt: skip
def shifted_language_model_loss(logits, labels):
    """Causal LM loss: logits `[..., :-1, :]` against labels `[..., 1:]`, flattened."""
    shift_logits = logits[..., :-1, :].contiguous()
    shift_labels = labels[..., 1:].contiguous()
    return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
