"""The small models of issue 11, built from configs with random weights (nothing is
downloaded): torchvision's resnet18, a tiny vit_b_16, efficientnet_b0 and convnext_tiny,
and tiny Hugging Face GPT-2, BERT, Llama and T5 encoders. Shared by tests/models and
benchmarks/models_bench.py; `outputs` flattens any model output to its tensors.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from typing import Any

import torch


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """How to build one model and its inputs for a batch size."""

    build: Callable[[], torch.nn.Module]
    inputs: Callable[[int], tuple]


def _image(batch: int) -> tuple:
    return (torch.randn(batch, 3, 32, 32),)


def _tokens(batch: int) -> tuple:
    return (torch.randint(0, 100, (batch, 8)),)


def _vit() -> torch.nn.Module:
    from torchvision.models import VisionTransformer

    return VisionTransformer(
        image_size=32, patch_size=16, num_layers=2, num_heads=2, hidden_dim=32,
        mlp_dim=64, num_classes=10,
    )  # fmt: skip


def _torchvision(name: str) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision.models

        return getattr(torchvision.models, name)(num_classes=10)

    return build


def _transformers(model: str, config: str, **sizes: int) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import transformers

        transformers.logging.set_verbosity_error()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(transformers, model)(getattr(transformers, config)(**sizes))

    return build


MODELS: dict[str, ModelSpec] = {
    "resnet18": ModelSpec(_torchvision("resnet18"), _image),
    "vit_b_16": ModelSpec(_vit, _image),
    "efficientnet_b0": ModelSpec(_torchvision("efficientnet_b0"), _image),
    "convnext_tiny": ModelSpec(_torchvision("convnext_tiny"), _image),
    "gpt2": ModelSpec(
        _transformers("GPT2LMHeadModel", "GPT2Config", vocab_size=100, n_positions=32,
                      n_embd=32, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0),
        _tokens,
    ),
    "bert": ModelSpec(
        _transformers("BertModel", "BertConfig", vocab_size=100, hidden_size=32,
                      num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                      max_position_embeddings=32),
        _tokens,
    ),
    "llama": ModelSpec(
        _transformers("LlamaForCausalLM", "LlamaConfig", vocab_size=100, hidden_size=32,
                      intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                      num_key_value_heads=2, max_position_embeddings=32),
        _tokens,
    ),
    "t5": ModelSpec(
        _transformers("T5EncoderModel", "T5Config", vocab_size=100, d_model=32, d_kv=16,
                      d_ff=64, num_layers=2, num_heads=2),
        _tokens,
    ),
}  # fmt: skip


def build(name: str, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return MODELS[name].build()


def outputs(value: Any) -> list[torch.Tensor]:
    """The tensors of a model's output, in order: a tensor, a tuple or list, or a
    dict-like output (Hugging Face's ModelOutput)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in outputs(item)]
    return []


class CountingBackend:
    """A backend that runs each graph as it is and counts its operations."""

    def __init__(self) -> None:
        self.ops: list[int] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        calls = ("call_function", "call_method", "call_module")
        self.ops.append(sum(node.op in calls for node in gm.graph.nodes))
        return gm.forward
