"""A wider probe of issue 11: ~80 more architectures of Hugging Face transformers and
torchvision than tests/models' eight, each built from a small config with random weights
(nothing is downloaded), compiled by minidynamo and by torch.compile in the same run (eval
mode, no_grad, the same three calls). Per model it prints whether minidynamo gives eager's
results (first call, repeated call, new batch size), the op counts of each graph of both,
and the graph breaks and eager frames of each. Run from the repository root:

    PYTHONPATH=reference:. python benchmarks/models_probe.py [--zoo] [names ...]

`--zoo` adds tests/models' eight models to the probe's.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import traceback
from collections.abc import Callable

import minidynamo
import torch
import torch._dynamo
import torch._dynamo.utils
from minidynamo import events

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "models"))
from model_zoo import (  # noqa: E402
    MODELS,
    CountingBackend,
    ModelSpec,
    _torchvision,
    _transformers,
    outputs,
)


def _tokens(batch: int) -> tuple:
    return (torch.randint(0, 100, (batch, 8)),)


def _seq2seq(batch: int) -> tuple:
    """input_ids, attention_mask, decoder_input_ids: the order of every HF seq2seq model."""
    return (torch.randint(0, 100, (batch, 8)), None, torch.randint(0, 100, (batch, 5)))


def _image(size: int) -> Callable[[int], tuple]:
    return lambda batch: (torch.randn(batch, 3, size, size),)


def _audio(batch: int) -> tuple:
    return (torch.randn(batch, 16, 32),)  # (batch, num_mel_bins, 2 * max_source_positions)


def _tv(name: str, **kwargs: object) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision.models

        return getattr(torchvision.models, name)(num_classes=10, **kwargs)

    return build


TEXT = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=32)  # fmt: skip
DECODER = dict(TEXT, num_key_value_heads=2, pad_token_id=0, bos_token_id=0, eos_token_id=0)
SEQ2SEQ = dict(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
               encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
               decoder_ffn_dim=64, max_position_embeddings=32, pad_token_id=0,
               bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)  # fmt: skip
VISION = dict(image_size=32, patch_size=8, num_channels=3, hidden_size=32,
              num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)  # fmt: skip

PROBE: dict[str, ModelSpec] = {
    # Hugging Face encoders
    "distilbert": ModelSpec(_transformers("DistilBertForSequenceClassification",
        "DistilBertConfig", vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
        max_position_embeddings=32), _tokens),
    "roberta": ModelSpec(_transformers("RobertaForMaskedLM", "RobertaConfig", **TEXT,
                                       pad_token_id=1), _tokens),
    "albert": ModelSpec(_transformers("AlbertModel", "AlbertConfig", **TEXT,
                                      embedding_size=16), _tokens),
    "electra": ModelSpec(_transformers("ElectraForPreTraining", "ElectraConfig", **TEXT,
                                       embedding_size=16), _tokens),
    "mobilebert": ModelSpec(_transformers("MobileBertModel", "MobileBertConfig", **TEXT,
        embedding_size=16, intra_bottleneck_size=16, true_hidden_size=16,
        num_feedforward_networks=1), _tokens),
    # Hugging Face decoders
    "gpt_neo": ModelSpec(_transformers("GPTNeoForCausalLM", "GPTNeoConfig", vocab_size=100,
        hidden_size=32, num_layers=2, num_heads=2, attention_types=[[["global", "local"], 1]],
        max_position_embeddings=32, window_size=4), _tokens),
    "gptj": ModelSpec(_transformers("GPTJForCausalLM", "GPTJConfig", vocab_size=100,
        n_positions=32, n_embd=32, n_layer=2, n_head=2, rotary_dim=8), _tokens),
    "gpt_neox": ModelSpec(_transformers("GPTNeoXForCausalLM", "GPTNeoXConfig", **TEXT),
                          _tokens),
    "opt": ModelSpec(_transformers("OPTForCausalLM", "OPTConfig", vocab_size=100,
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, ffn_dim=64,
        max_position_embeddings=32, word_embed_proj_dim=32, pad_token_id=0), _tokens),
    "bloom": ModelSpec(_transformers("BloomForCausalLM", "BloomConfig", vocab_size=100,
        hidden_size=32, n_layer=2, n_head=2), _tokens),
    "falcon": ModelSpec(_transformers("FalconForCausalLM", "FalconConfig", vocab_size=100,
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2), _tokens),
    "mistral": ModelSpec(_transformers("MistralForCausalLM", "MistralConfig", **DECODER),
                         _tokens),
    "qwen2": ModelSpec(_transformers("Qwen2ForCausalLM", "Qwen2Config", **DECODER), _tokens),
    "qwen3": ModelSpec(_transformers("Qwen3ForCausalLM", "Qwen3Config", **DECODER,
                                     head_dim=16), _tokens),
    "gemma": ModelSpec(_transformers("GemmaForCausalLM", "GemmaConfig", **DECODER,
                                     head_dim=16), _tokens),
    "phi": ModelSpec(_transformers("PhiForCausalLM", "PhiConfig", **DECODER), _tokens),
    "phi3": ModelSpec(_transformers("Phi3ForCausalLM", "Phi3Config", **DECODER), _tokens),
    "stablelm": ModelSpec(_transformers("StableLmForCausalLM", "StableLmConfig", **DECODER),
                          _tokens),
    # Hugging Face encoder-decoders
    "bart": ModelSpec(_transformers("BartForConditionalGeneration", "BartConfig", **SEQ2SEQ),
                      _seq2seq),
    "t5_seq2seq": ModelSpec(_transformers("T5ForConditionalGeneration", "T5Config",
        vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=1, num_heads=2,
        decoder_start_token_id=0), _seq2seq),
    "whisper_encoder": ModelSpec(_transformers("WhisperForAudioClassification",
        "WhisperConfig", vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
        decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=16,
        max_target_positions=16, num_labels=3), _audio),
    # Hugging Face vision
    "hf_vit": ModelSpec(_transformers("ViTForImageClassification", "ViTConfig", **VISION),
                        _image(32)),
    "deit": ModelSpec(_transformers("DeiTForImageClassification", "DeiTConfig", **VISION),
                      _image(32)),
    "swin": ModelSpec(_transformers("SwinForImageClassification", "SwinConfig",
        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 2],
        window_size=4), _image(32)),
    "hf_convnext": ModelSpec(_transformers("ConvNextForImageClassification",
        "ConvNextConfig", num_stages=2, hidden_sizes=[8, 16], depths=[1, 1]), _image(32)),
    "hf_resnet": ModelSpec(_transformers("ResNetForImageClassification", "ResNetConfig",
        embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1]), _image(32)),
    "clip_text": ModelSpec(_transformers("CLIPTextModel", "CLIPTextConfig", **TEXT),
                           _tokens),
    "clip_vision": ModelSpec(_transformers("CLIPVisionModel", "CLIPVisionConfig", **VISION),
                             _image(32)),
    # torchvision
    "mobilenet_v2": ModelSpec(_torchvision("mobilenet_v2"), _image(32)),
    "mobilenet_v3_small": ModelSpec(_torchvision("mobilenet_v3_small"), _image(32)),
    "densenet121": ModelSpec(_torchvision("densenet121"), _image(32)),
    "regnet_y_400mf": ModelSpec(_torchvision("regnet_y_400mf"), _image(32)),
    "shufflenet_v2_x0_5": ModelSpec(_torchvision("shufflenet_v2_x0_5"), _image(32)),
    "squeezenet1_0": ModelSpec(_torchvision("squeezenet1_0"), _image(64)),
    "googlenet": ModelSpec(_tv("googlenet", aux_logits=False, init_weights=False),
                           _image(32)),
    "swin_t": ModelSpec(_torchvision("swin_t"), _image(32)),
    "resnext50_32x4d": ModelSpec(_torchvision("resnext50_32x4d"), _image(32)),
    "wide_resnet50_2": ModelSpec(_torchvision("wide_resnet50_2"), _image(32)),
    "mnasnet0_5": ModelSpec(_torchvision("mnasnet0_5"), _image(32)),
    # A second round (2026-12-06): more encoders, decoders, seq2seq, vision, torchvision
    "deberta": ModelSpec(_transformers("DebertaModel", "DebertaConfig", **TEXT), _tokens),
    "deberta_v2": ModelSpec(_transformers("DebertaV2Model", "DebertaV2Config", **TEXT), _tokens),
    "xlnet": ModelSpec(_transformers("XLNetModel", "XLNetConfig", vocab_size=100, d_model=32,
        n_layer=2, n_head=2, d_inner=64), _tokens),
    "funnel": ModelSpec(_transformers("FunnelModel", "FunnelConfig", vocab_size=100,
        block_sizes=[1, 1], d_model=32, n_head=2, d_head=16, d_inner=64), _tokens),
    "mpnet": ModelSpec(_transformers("MPNetModel", "MPNetConfig", **TEXT), _tokens),
    "squeezebert": ModelSpec(_transformers("SqueezeBertModel", "SqueezeBertConfig", **TEXT,
        embedding_size=32), _tokens),
    "convbert": ModelSpec(_transformers("ConvBertModel", "ConvBertConfig", **TEXT,
        embedding_size=32), _tokens),
    "camembert": ModelSpec(_transformers("CamembertModel", "CamembertConfig", **TEXT), _tokens),
    "xlm_roberta": ModelSpec(_transformers("XLMRobertaModel", "XLMRobertaConfig", **TEXT), _tokens),
    "ernie": ModelSpec(_transformers("ErnieModel", "ErnieConfig", **TEXT), _tokens),
    "megatron_bert": ModelSpec(_transformers("MegatronBertModel", "MegatronBertConfig", **TEXT),
        _tokens),
    "biogpt": ModelSpec(_transformers("BioGptForCausalLM", "BioGptConfig", **TEXT), _tokens),
    "xglm": ModelSpec(_transformers("XGLMForCausalLM", "XGLMConfig", vocab_size=100, d_model=32,
        num_layers=2, attention_heads=2, ffn_dim=64, max_position_embeddings=32), _tokens),
    "mpt": ModelSpec(_transformers("MptForCausalLM", "MptConfig", vocab_size=100, d_model=32,
        n_heads=2, n_layers=2), _tokens),
    "gemma2": ModelSpec(_transformers("Gemma2ForCausalLM", "Gemma2Config", **DECODER,
        head_dim=16), _tokens),
    "olmo": ModelSpec(_transformers("OlmoForCausalLM", "OlmoConfig", **DECODER), _tokens),
    "starcoder2": ModelSpec(_transformers("Starcoder2ForCausalLM", "Starcoder2Config", **DECODER),
        _tokens),
    "mixtral": ModelSpec(_transformers("MixtralForCausalLM", "MixtralConfig", **DECODER,
        num_local_experts=2), _tokens),
    "gpt_bigcode": ModelSpec(_transformers("GPTBigCodeForCausalLM", "GPTBigCodeConfig",
        vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2), _tokens),
    "mbart": ModelSpec(_transformers("MBartForConditionalGeneration", "MBartConfig", **SEQ2SEQ),
        _seq2seq),
    "pegasus": ModelSpec(_transformers("PegasusForConditionalGeneration", "PegasusConfig",
        **SEQ2SEQ), _seq2seq),
    "marian": ModelSpec(_transformers("MarianMTModel", "MarianConfig", **SEQ2SEQ), _seq2seq),
    "m2m100": ModelSpec(_transformers("M2M100ForConditionalGeneration", "M2M100Config",
        **SEQ2SEQ), _seq2seq),
    "blenderbot_small": ModelSpec(_transformers("BlenderbotSmallForConditionalGeneration",
        "BlenderbotSmallConfig", **SEQ2SEQ), _seq2seq),
    "mt5": ModelSpec(_transformers("MT5ForConditionalGeneration", "MT5Config", vocab_size=100,
        d_model=32, d_kv=16, d_ff=64, num_layers=1, num_heads=2, decoder_start_token_id=0),
        _seq2seq),
    "beit": ModelSpec(_transformers("BeitForImageClassification", "BeitConfig", **VISION),
        _image(32)),
    "dinov2": ModelSpec(_transformers("Dinov2Model", "Dinov2Config", **VISION), _image(32)),
    "levit": ModelSpec(_transformers("LevitForImageClassification", "LevitConfig", image_size=32,
        hidden_sizes=[32, 48, 64], num_attention_heads=[1, 2, 2], depths=[1, 1, 1], key_dim=[8, 8,
        8]), _image(32)),
    "mobilevit": ModelSpec(_transformers("MobileViTForImageClassification", "MobileViTConfig",
        image_size=32, patch_size=2, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16,
        24, 24, 48]), _image(32)),
    "poolformer": ModelSpec(_transformers("PoolFormerForImageClassification", "PoolFormerConfig",
        hidden_sizes=[8, 16, 24, 32], depths=[1, 1, 1, 1]), _image(32)),
    "segformer": ModelSpec(_transformers("SegformerForImageClassification", "SegformerConfig",
        hidden_sizes=[8, 16, 24, 32], depths=[1, 1, 1, 1], num_attention_heads=[1, 1, 1, 1],
        decoder_hidden_size=32), _image(32)),
    "convnextv2": ModelSpec(_transformers("ConvNextV2ForImageClassification", "ConvNextV2Config",
        num_stages=2, hidden_sizes=[8, 16], depths=[1, 1]), _image(32)),
    "vgg11": ModelSpec(_torchvision("vgg11"), _image(32)),
    "alexnet": ModelSpec(_torchvision("alexnet"), _image(64)),
    "mobilenet_v3_large": ModelSpec(_torchvision("mobilenet_v3_large"), _image(32)),
    "efficientnet_v2_s": ModelSpec(_torchvision("efficientnet_v2_s"), _image(32)),
    "maxvit_t": ModelSpec(_tv("maxvit_t"), _image(224)),
    "regnet_x_400mf": ModelSpec(_torchvision("regnet_x_400mf"), _image(32)),
    "inception_v3": ModelSpec(_tv("inception_v3", aux_logits=False, init_weights=False),
        _image(96)),
    "swin_v2_t": ModelSpec(_torchvision("swin_v2_t"), _image(32)),
    "convnext_small": ModelSpec(_torchvision("convnext_small"), _image(32)),
}  # fmt: skip


class Breaks(events.Listener):
    """The graph breaks and eager frames of a run, as one-line reasons."""

    def __init__(self) -> None:
        self.reasons: collections.Counter[str] = collections.Counter()

    def graph_break(self, error: Exception) -> None:
        self.reasons[f"break: {_first_line(error)}"] += 1

    def frame_failed(self, code: object, error: Exception) -> None:
        self.reasons[f"eager frame: {_first_line(error)}"] += 1


def _first_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:160]


def same(actual: object, expected: object) -> bool:
    got, want = outputs(actual), outputs(expected)
    if len(got) != len(want) or not want:
        return False
    return all(
        g.shape == w.shape and torch.allclose(g, w, rtol=1e-4, atol=1e-5)
        for g, w in zip(got, want, strict=True)
    )


def probe(name: str, spec: ModelSpec) -> dict:
    torch.manual_seed(0)
    model = spec.build().eval()
    row: dict = {"name": name}
    minidynamo.reset()
    ours = CountingBackend()
    compiled = minidynamo.compile(model, backend=ours)
    with torch.no_grad(), events.listening(Breaks()) as breaks:
        results = []
        for batch in (2, 2, 3):  # first call, cache hit, new batch size
            torch.manual_seed(batch)
            x = spec.inputs(batch)
            try:
                results.append(same(compiled(*x), model(*x)))
            except Exception as error:  # a probe reports, it does not stop
                results.append(False)
                breaks.reasons[f"raised: {type(error).__name__}: {_first_line(error)}"] += 1
    row["eager"] = "".join("=" if ok else "X" for ok in results)
    row["ours"] = ours.ops
    row["breaks"] = breaks.reasons
    minidynamo.reset()
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    # A model of its own, as built: a cache the first run filled (LeViT's per-device
    # attention biases) would spare torch.compile the graph that fills it.
    torch.manual_seed(0)
    model = spec.build().eval()
    theirs = CountingBackend()
    compiled = torch.compile(model, backend=theirs)
    with torch.no_grad():
        for batch in (2, 2, 3):
            torch.manual_seed(batch)
            compiled(*spec.inputs(batch))
    row["theirs"] = theirs.ops
    row["their_breaks"] = collections.Counter(
        {str(k)[:160]: v for k, v in torch._dynamo.utils.counters["graph_break"].items()}
    )
    torch._dynamo.reset()
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--zoo", action="store_true", help="add tests/models' eight")
    parser.add_argument("--reasons", action="store_true", help="print break reasons")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    specs = dict(MODELS) if args.zoo else {}
    specs.update(PROBE)
    names = args.models or list(specs)
    equal = 0
    print(f"{'model':20} {'eager':5} {'same':4} {'minidynamo ops':28} {'torch.compile ops':28}")
    for name in names:
        try:
            row = probe(name, specs[name])
        except Exception:
            print(f"{name:20} probe failed:\n{traceback.format_exc(limit=3)}")
            continue
        ok = row["ours"] == row["theirs"] and row["eager"] == "==="
        equal += ok
        print(f"{name:20} {row['eager']:5} {'yes' if ok else 'NO':4} {str(row['ours']):28} "
              f"{str(row['theirs']):28}", flush=True)  # fmt: skip
        if args.reasons or not ok:
            for reason, n in row["breaks"].items():
                print(f"    minidynamo {n}x {reason}")
            for reason, n in row["their_breaks"].items():
                print(f"    torch      {n}x {reason}")
    print(f"equal to torch.compile (graphs, ops) with eager's results: {equal}/{len(names)}")


if __name__ == "__main__":
    main()
