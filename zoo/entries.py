"""The zoo's entries: name, framework, precision, the builder, and whether CI runs it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One model of the zoo.

    Attributes:
        name: The entry's name (``--only NAME``).
        framework: ``"torch"`` or ``"jax"``.
        precision: What the recipe computes in (``f32``, ``bf16 autocast``, ...).
        builder: ``module:function`` of the recipe builder.
        notes: What the recipe does that the table should say.
        ci: Whether ``--ci`` (and the CI test) runs it.
        devices: Host devices the JAX entry needs (``XLA_FLAGS`` of its subprocess).
        ranks: Processes of a torch DDP entry (1: not distributed).
        seal: Whether the honest torch run seals the AOT Inductor package (``--ci`` never
            does).
        scale: An entry of the scale tier (GPT-2 small's size and up): run on demand only
            (``--only NAME`` or ``--scale``), never by a whole-zoo run or CI.
    """

    name: str
    framework: str
    precision: str
    builder: str
    notes: str
    ci: bool = False
    devices: int = 1
    ranks: int = 1
    seal: bool = True
    scale: bool = False


T = "zoo.torch_entries:"
J = "zoo.jax_entries:"
HF = "AdamW (2 groups), linear warmup from 0, clip 1.0"

ENTRIES: tuple[Entry, ...] = (
    Entry(
        "gpt2", "torch", "f32", T + "gpt2", f"GPT2LMHeadModel; {HF}; 2 accumulated micro-batches"
    ),
    Entry(
        "gpt2-bf16",
        "torch",
        "bf16 autocast",
        T + "gpt2_bf16",
        f"GPT2LMHeadModel; {HF}; no accumulation",
    ),
    Entry(
        "gpt2-f16",
        "torch",
        "f16 autocast",
        T + "gpt2_f16",
        f"GPT2LMHeadModel; {HF}; GradScaler (the Trainer's fp16=True); no accumulation",
    ),
    Entry(
        "gpt2-dropout",
        "torch",
        "f32",
        T + "gpt2_dropout",
        f"GPT2LMHeadModel, dropout 0.1; {HF}; no accumulation",
    ),
    Entry("llama", "torch", "f32", T + "llama", f"LlamaForCausalLM (GQA); {HF}"),
    Entry("llama-bf16", "torch", "bf16 autocast", T + "llama_bf16", f"LlamaForCausalLM; {HF}"),
    Entry("qwen2", "torch", "f32", T + "qwen2", f"Qwen2ForCausalLM; {HF}"),
    Entry("qwen2-bf16", "torch", "bf16 autocast", T + "qwen2_bf16", f"Qwen2ForCausalLM; {HF}"),
    Entry(
        "bert-mlm",
        "torch",
        "f32",
        T + "bert_mlm",
        f"BertForMaskedLM, 15% masked, dropout 0.1; {HF}",
    ),
    Entry(
        "bert-mlm-bf16",
        "torch",
        "bf16 autocast",
        T + "bert_mlm_bf16",
        f"BertForMaskedLM, 15% masked, dropout 0.1; {HF}",
    ),
    Entry("t5", "torch", "f32", T + "t5", f"T5ForConditionalGeneration, dropout 0.1; {HF}"),
    Entry(
        "t5-bf16",
        "torch",
        "bf16 autocast",
        T + "t5_bf16",
        f"T5ForConditionalGeneration, dropout 0.1; {HF}",
    ),
    Entry("vit", "torch", "f32", T + "vit", f"ViTForImageClassification 32x32; {HF}"),
    Entry(
        "ddpm-unet",
        "torch",
        "f32",
        T + "ddpm_unet",
        "diffusers UNet2DModel 8x8, DDPMScheduler.add_noise, AdamW, cosine warmup, clip 1.0",
    ),
    Entry(
        "ddpm-unet-ema",
        "torch",
        "f32",
        T + "ddpm_unet_ema",
        "as ddpm-unet, with an EMA of the weights (AveragedModel, decay 0.999) as state",
    ),
    Entry(
        "vit-bf16",
        "torch",
        "bf16 autocast",
        T + "vit_bf16",
        f"ViTForImageClassification 32x32; {HF}",
    ),
    Entry(
        "resnet18",
        "torch",
        "f32",
        T + "resnet18",
        "torchvision resnet18, 32x32; SGD momentum, LambdaLR warmup+cosine, label smoothing",
    ),
    Entry(
        "resnet18-bf16",
        "torch",
        "bf16 autocast",
        T + "resnet18_bf16",
        "torchvision resnet18, 32x32; as resnet18",
    ),
    Entry(
        "mobilenet-v3-small",
        "torch",
        "f32",
        T + "mobilenet_v3_small",
        "torchvision mobilenet_v3_small, 32x32 (dropout kept); as resnet18",
    ),
    Entry(
        "mobilenet-v3-small-bf16",
        "torch",
        "bf16 autocast",
        T + "mobilenet_v3_small_bf16",
        "torchvision mobilenet_v3_small, 32x32; as resnet18",
    ),
    Entry(
        "efficientnet-b0",
        "torch",
        "f32",
        T + "efficientnet_b0",
        "torchvision efficientnet_b0, 32x32 (dropout, stochastic depth kept); as resnet18",
    ),
    Entry(
        "efficientnet-b0-bf16",
        "torch",
        "bf16 autocast",
        T + "efficientnet_b0_bf16",
        "torchvision efficientnet_b0, 32x32; as resnet18",
    ),
    Entry(
        "lstm-lm",
        "torch",
        "f32",
        T + "lstm_lm",
        "word_language_model LSTM, tied weights; SGD lr 20, clip 0.25, StepLR",
        ci=True,
    ),
    Entry(
        "gru-lm",
        "torch",
        "f32",
        T + "gru_lm",
        "word_language_model GRU, tied weights; SGD lr 20, clip 0.25, StepLR",
    ),
    Entry(
        "transformer-encoder",
        "torch",
        "f32",
        T + "transformer_encoder",
        "nn.TransformerEncoder LM (tutorial), causal mask; SGD lr 5, clip 0.5, StepLR",
        ci=True,
    ),
    Entry(
        "ddp-transformer-encoder",
        "torch",
        "f32",
        T + "transformer_encoder",
        "transformer-encoder under DDP, gloo, 2 ranks (forward_sync_buffers=False); rank 1 tampers",
        ranks=2,
    ),
    Entry(
        "flax-mnist-cnn",
        "jax",
        "f32",
        J + "mnist_cnn",
        "flax mnist CNN; optax.sgd momentum",
        ci=True,
    ),
    Entry(
        "flax-resnet",
        "jax",
        "f32",
        J + "resnet_f32",
        "imagenet-style ResNet, batch_stats; sgd nesterov, warmup+cosine",
    ),
    Entry(
        "flax-resnet-bf16",
        "jax",
        "bf16 dtype",
        J + "resnet_bf16",
        "imagenet-style ResNet, batch_stats, dtype=bfloat16; sgd nesterov, warmup+cosine",
    ),
    Entry(
        "flax-resnet-f16-dynscale",
        "jax",
        "f16 dtype",
        J + "resnet_f16_dynamic_scale",
        "imagenet-style ResNet, batch_stats, dtype=float16, DynamicScale",
    ),
    Entry(
        "flax-lm1b",
        "jax",
        "f32",
        J + "lm1b_f32",
        "lm1b-style decoder, dropout 0.1 (PRNGKey in batch); adamw, rsqrt warmup",
        ci=True,
    ),
    Entry(
        "flax-lm1b-bf16",
        "jax",
        "bf16 dtype",
        J + "lm1b_bf16",
        "lm1b-style decoder, dtype=bfloat16; as flax-lm1b",
    ),
    Entry(
        "flax-sst2-lstm",
        "jax",
        "f32",
        J + "sst2_lstm",
        "sst2-style LSTM classifier, dropout with typed jax.random.key; clip+adamw, warmup",
        ci=True,
    ),
    Entry(
        "flax-nnx-mlp",
        "jax",
        "f32",
        J + "nnx_mlp",
        "nnx model split into a TrainState, merged in the step; adam, warmup",
        ci=True,
    ),
    Entry(
        "jax-named-sharding",
        "jax",
        "f32",
        J + "mnist_named_sharding",
        "mnist CNN, 2 CPU devices, NamedSharding data parallel",
        devices=2,
        ci=True,
    ),
    Entry(
        "jax-shard-map",
        "jax",
        "f32",
        J + "mnist_shard_map",
        "mnist CNN, 2 CPU devices, shard_map grads + pmean",
        devices=2,
    ),
)

SCALE: tuple[Entry, ...] = (
    Entry(
        "gpt2-124m",
        "torch",
        "f32",
        T + "gpt2_124m",
        f"GPT2LMHeadModel, GPT2Config() (124M), 2 x 128 tokens; {HF}",
        scale=True,
    ),
    Entry(
        "gpt2-124m-bf16",
        "torch",
        "bf16 autocast",
        T + "gpt2_124m_bf16",
        f"as gpt2-124m, the forward pass under torch.autocast(bfloat16); {HF}",
        scale=True,
    ),
    Entry(
        "flax-lm1b-124m",
        "jax",
        "f32",
        J + "lm1b_124m",
        "lm1b-style decoder at GPT-2 small's size (124M), 2 x 128 tokens, dropout off; "
        "adamw, rsqrt warmup, global-norm clipping",
        scale=True,
    ),
    Entry(
        "flax-lm1b-124m-bf16",
        "jax",
        "bf16 dtype",
        J + "lm1b_124m_bf16",
        "as flax-lm1b-124m, dtype=bfloat16",
        scale=True,
    ),
)
"""The scale tier, run on demand (``--scale`` or ``--only``): each run takes minutes and, with
every step checked, about 20 GB of memory on the CPU."""

BY_NAME: dict[str, Entry] = {entry.name: entry for entry in ENTRIES + SCALE}
