"""PyTorch entries: the libraries' own classes at tiny sizes, trained the way their users do.

Every builder takes the number of optimizer steps and returns a
:class:`zoo.harness.TorchRecipe` with synthetic data drawn in-process from a seeded
generator. No weights or data are downloaded.

Dropout: the entries keep their configurations' default dropout (BERT's and T5's 0.1,
torchvision's classifier dropout and stochastic depth; Llama's, Qwen2's and ViT's default
is 0); ``zkdv.torch`` records the masks production draws and commits them with the batch
(``docs/torch.md``, "Dropout and other random draws"). ``gpt2`` sets GPT-2's to 0 to
compare with ``gpt2-dropout``, which keeps it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.nn import functional

from zoo.harness import TorchRecipe

VOCAB = 128
SEQ = 16
BATCH = 4


SEED_VARIABLE = "ZOO_SEED"
"""The environment variable that offsets every torch entry's seeds (``zoo.worker --seed N``):
unset or 0, the entries draw the weights and data the zoo's table was measured on; another
value draws others, to run an entry's honest run again on new weights and data."""


def _seed() -> int:
    """The seed of the entries' initial weights (``torch.manual_seed``)."""
    return int(os.environ.get(SEED_VARIABLE, "0"))


def _generator(seed: int = 1) -> torch.Generator:
    """A generator of synthetic data; ``seed`` tells an entry's streams apart."""
    return torch.Generator().manual_seed(seed + 1000 * _seed())


def _tokens(
    steps: int, accumulation: int = 1, batch: int = BATCH, *, vocab: int = VOCAB, seq: int = SEQ
) -> list[tuple[Any, ...]]:
    """Causal-LM batches: ``{"input_ids", "labels"}`` with labels equal to the inputs (the
    model shifts them), ``accumulation`` micro-batches per step."""
    g = _generator()
    out = []
    for _ in range(steps):
        micro = []
        for _ in range(accumulation):
            ids = torch.randint(vocab, (batch, seq), generator=g)
            micro.append({"input_ids": ids, "labels": ids.clone()})
        out.append(tuple(micro))
    return out


def _hf_loss(forward: Callable[..., Any], batch: Any) -> Any:
    """A Hugging Face model computes its own loss from ``labels``."""
    return forward(**batch).loss


def _hf_adamw(model: nn.Module, steps: int, lr: float = 1e-3) -> tuple[Any, Any]:
    """The Trainer's optimizer and schedule: AdamW with weight decay off for biases and
    LayerNorm weights, and ``get_linear_schedule_with_warmup`` (from lr=0)."""
    from transformers import get_linear_schedule_with_warmup

    decay, no_decay = [], []
    for name, parameter in model.named_parameters():
        (no_decay if parameter.ndim < 2 or "norm" in name.lower() else decay).append(parameter)
    optimizer = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": 0.01},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=lr,
    )
    scheduler = get_linear_schedule_with_warmup(
        optimizer, num_warmup_steps=max(1, steps // 2), num_training_steps=steps * 4
    )
    return optimizer, scheduler


def _hf_recipe(
    model: nn.Module, batches: list[Any], steps: int, autocast: Any = None
) -> TorchRecipe:
    """A Hugging Face model trained as the Trainer does: :func:`_hf_adamw`, the model's own
    loss, ``clip_grad_norm_(1.0)``, the forward pass under ``torch.autocast(autocast)`` when
    given (the Trainer's ``bf16=True``); the tamper hooks its first weight matrix."""
    optimizer, scheduler = _hf_adamw(model, steps)
    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=scheduler,
        batches=batches,
        loss=_hf_loss,
        tamper_parameter=_first_weight(model),
        clip=1.0,
        autocast=autocast,
    )


def _first_weight(model: nn.Module) -> torch.Tensor:
    """The first matrix parameter, whose gradient the tampered run scales."""
    return next(p for p in model.parameters() if p.ndim >= 2)


def _causal_lm(
    model: nn.Module,
    steps: int,
    *,
    accumulation: int = 1,
    autocast: Any = None,
    batches: list[tuple[Any, ...]] | None = None,
) -> TorchRecipe:
    optimizer, scheduler = _hf_adamw(model, steps)
    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=scheduler,
        batches=_tokens(steps, accumulation) if batches is None else batches,
        loss=_hf_loss,
        tamper_parameter=_first_weight(model),
        clip=1.0,
        autocast=autocast,
        scaler=_scaler_for(autocast),
    )


def _scaler_for(autocast: Any) -> Any:
    """float16's loss scaling as the Hugging Face Trainer (``fp16=True``) and torchvision's
    reference (``--amp``) set it up: a ``GradScaler`` with torch's defaults; none otherwise."""
    return torch.amp.GradScaler("cpu") if autocast is torch.float16 else None


def gpt2(
    steps: int, *, dropout: float = 0.0, autocast: Any = None, accumulation: int = 2
) -> TorchRecipe:
    """``GPT2LMHeadModel``: AdamW, linear warmup schedule, clipping, gradient accumulation
    over ``accumulation`` micro-batches."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(_seed())
    config = GPT2Config(
        vocab_size=VOCAB,
        n_positions=SEQ,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
        resid_pdrop=dropout,
        embd_pdrop=dropout,
        attn_pdrop=dropout,
    )
    return _causal_lm(GPT2LMHeadModel(config), steps, accumulation=accumulation, autocast=autocast)


def gpt2_124m(steps: int, *, autocast: Any = None) -> TorchRecipe:
    """The scale tier: ``GPT2LMHeadModel`` at GPT-2 small's size (``GPT2Config()``'s defaults:
    124M parameters, the head tied to the 50,257-token embedding), dropout off, two sequences
    of 128 tokens per step; AdamW, warmup, clipping."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(_seed())
    config = GPT2Config(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model = GPT2LMHeadModel(config)
    batches = _tokens(steps, batch=2, vocab=config.vocab_size, seq=128)
    return _causal_lm(model, steps, batches=batches, autocast=autocast)


def gpt2_124m_bf16(steps: int) -> TorchRecipe:
    """The scale tier's GPT-2 small with the forward pass under ``torch.autocast(bfloat16)``."""
    return gpt2_124m(steps, autocast=torch.bfloat16)


def gpt2_bf16(steps: int) -> TorchRecipe:
    """GPT-2 with the forward pass under ``torch.autocast(bfloat16)``, one batch per step."""
    return gpt2(steps, autocast=torch.bfloat16, accumulation=1)


def gpt2_f16(steps: int) -> TorchRecipe:
    """GPT-2 as the Trainer's ``fp16=True`` trains it: the forward pass under
    ``torch.autocast(float16)`` and a ``GradScaler``, one batch per step."""
    return gpt2(steps, autocast=torch.float16, accumulation=1)


def gpt2_dropout(steps: int) -> TorchRecipe:
    """GPT-2 with its configuration's default dropout (0.1), one batch per step."""
    return gpt2(steps, dropout=0.1, accumulation=1)


def llama(steps: int, *, autocast: Any = None) -> TorchRecipe:
    """``LlamaForCausalLM`` with grouped-query attention: AdamW, warmup, clipping."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(_seed())
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=SEQ,
    )
    return _causal_lm(LlamaForCausalLM(config), steps, autocast=autocast)


def llama_bf16(steps: int) -> TorchRecipe:
    """Llama with the forward pass under ``torch.autocast(bfloat16)``."""
    return llama(steps, autocast=torch.bfloat16)


def qwen2(steps: int, autocast: Any = None) -> TorchRecipe:
    """``Qwen2ForCausalLM`` (biases on q, k, v; tied embeddings off): AdamW, warmup,
    clipping."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(_seed())
    config = Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=SEQ,
    )
    return _causal_lm(Qwen2ForCausalLM(config), steps, autocast=autocast)


def bert_mlm(steps: int, autocast: Any = None) -> TorchRecipe:
    """``BertForMaskedLM``: 15% of the tokens masked, labels -100 elsewhere (the data
    collator's convention); AdamW, warmup, clipping."""
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(_seed())
    config = BertConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=SEQ,
    )
    model = BertForMaskedLM(config)
    g = _generator()
    batches = []
    for _ in range(steps):
        ids = torch.randint(5, VOCAB, (BATCH, SEQ), generator=g)
        masked = torch.rand(BATCH, SEQ, generator=g) < 0.15
        masked[:, 0] = True  # at least one masked token per row
        labels = torch.where(masked, ids, torch.full_like(ids, -100))
        inputs = torch.where(masked, torch.full_like(ids, 4), ids)  # 4: the [MASK] id here
        batches.append(({"input_ids": inputs, "labels": labels},))
    return _hf_recipe(model, batches, steps, autocast)


def t5(steps: int, autocast: Any = None) -> TorchRecipe:
    """``T5ForConditionalGeneration``: encoder inputs, decoder labels (the model shifts
    them right); AdamW, warmup, clipping."""
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(_seed())
    config = T5Config(
        vocab_size=VOCAB,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
        pad_token_id=0,
    )
    model = T5ForConditionalGeneration(config)
    g = _generator()
    batches = []
    for _ in range(steps):
        source = torch.randint(1, VOCAB, (BATCH, SEQ), generator=g)
        target = torch.randint(1, VOCAB, (BATCH, SEQ // 2), generator=g)
        batches.append(({"input_ids": source, "labels": target},))
    return _hf_recipe(model, batches, steps, autocast)


def vit(steps: int, autocast: Any = None) -> TorchRecipe:
    """``ViTForImageClassification`` on 32x32 images: AdamW, warmup, clipping."""
    from transformers import ViTConfig, ViTForImageClassification

    torch.manual_seed(_seed())
    config = ViTConfig(
        image_size=32,
        patch_size=8,
        num_channels=3,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=10,
    )
    model = ViTForImageClassification(config)
    g = _generator()
    batches = [
        (
            {
                "pixel_values": torch.randn(BATCH, 3, 32, 32, generator=g),
                "labels": torch.randint(10, (BATCH,), generator=g),
            },
        )
        for _ in range(steps)
    ]
    return _hf_recipe(model, batches, steps, autocast)


def ddpm_unet(steps: int) -> TorchRecipe:
    """diffusers' DDPM training example at a tiny size: ``UNet2DModel`` (GroupNorm, SiLU,
    strided convolutions, nearest upsampling) predicting the noise ``DDPMScheduler.add_noise``
    mixed in (its ``alphas_cumprod``, captured from the scheduler), MSE, AdamW with the
    example's cosine warmup (``get_cosine_schedule_with_warmup``), clipping at 1."""
    from diffusers import DDPMScheduler, UNet2DModel
    from diffusers.optimization import get_cosine_schedule_with_warmup

    torch.manual_seed(_seed())
    model = UNet2DModel(
        sample_size=8,
        in_channels=3,
        out_channels=3,
        layers_per_block=1,
        block_out_channels=(8, 16),
        norm_num_groups=4,
        down_block_types=("DownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "UpBlock2D"),
    )
    noise_scheduler = DDPMScheduler(num_train_timesteps=100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    g = _generator()
    batches = []
    for _ in range(steps):
        clean = torch.randn(2, 3, 8, 8, generator=g)
        noise = torch.randn(2, 3, 8, 8, generator=g)
        timesteps = torch.randint(0, 100, (2,), generator=g)
        batches.append(((clean, noise, timesteps),))

    def loss(forward: Callable[..., Any], batch: Any) -> Any:
        clean, noise, timesteps = batch
        noisy = noise_scheduler.add_noise(clean, noise, timesteps)
        return functional.mse_loss(forward(noisy, timesteps).sample, noise)

    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=get_cosine_schedule_with_warmup(optimizer, max(1, steps // 2), 10 * steps),
        batches=batches,
        loss=loss,
        tamper_parameter=_first_weight(model),
        clip=1.0,
    )


def ddpm_unet_ema(steps: int) -> TorchRecipe:
    """``ddpm_unet`` with an EMA of the weights, the model a diffusion run delivers: an
    ``AveragedModel`` with ``get_ema_multi_avg_fn`` (decay 0.999), updated after every step
    and committed as state."""
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    recipe = ddpm_unet(steps)
    recipe.averaged = AveragedModel(recipe.model, multi_avg_fn=get_ema_multi_avg_fn(0.999))
    return recipe


def _images(steps: int, size: int, batch: int = BATCH) -> list[tuple[Any, ...]]:
    g = _generator()
    return [
        (
            (
                torch.randn(batch, 3, size, size, generator=g),
                torch.randint(10, (batch,), generator=g),
            ),
        )
        for _ in range(steps)
    ]


def _classification_loss(forward: Callable[..., Any], batch: Any) -> Any:
    images, labels = batch
    return functional.cross_entropy(forward(images), labels, label_smoothing=0.1)


def _vision(model: nn.Module, steps: int, size: int, autocast: Any = None) -> TorchRecipe:
    """torchvision's classification reference: SGD with momentum and weight decay, label
    smoothing, a linear warmup from lr=0 (``LambdaLR``) into cosine decay.

    Four images per step, the fewest at which these networks are well conditioned here: with
    two, the last stage at 32x32 (a 1x1 map) normalizes two values per BatchNorm channel, a
    regime no recipe trains in. In float64 eager torch, at ResNet-18's third step a relative
    change of 1e-12 in the images changed its gradients by 2.8e-10 with two images, by 8e-14
    with four. A replay checked within a tolerance cannot certify a step that amplifies
    rounding that much (docs/torch.md)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    warmup = max(1, steps // 2)

    def factor(step: int) -> float:
        if step < warmup:
            return step / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, 4 * steps)))

    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, factor),
        batches=_images(steps, size, batch=4),
        loss=_classification_loss,
        tamper_parameter=_first_weight(model),
        autocast=autocast,
        scaler=_scaler_for(autocast),
    )


def resnet18(steps: int) -> TorchRecipe:
    """torchvision ``resnet18(num_classes=10)`` on 32x32 images (BatchNorm buffers)."""
    from torchvision.models import resnet18 as build

    torch.manual_seed(_seed())
    return _vision(build(num_classes=10), steps, 32)


def resnet18_bf16(steps: int) -> TorchRecipe:
    """``resnet18`` with the forward pass under ``torch.autocast(bfloat16)``."""
    from torchvision.models import resnet18 as build

    torch.manual_seed(_seed())
    return _vision(build(num_classes=10), steps, 32, autocast=torch.bfloat16)


def mobilenet_v3_small(steps: int, autocast: Any = None) -> TorchRecipe:
    """torchvision ``mobilenet_v3_small(num_classes=10)`` on 32x32 images (its classifier
    keeps its dropout)."""
    from torchvision.models import mobilenet_v3_small as build

    torch.manual_seed(_seed())
    return _vision(build(num_classes=10), steps, 32, autocast=autocast)


def efficientnet_b0(steps: int, autocast: Any = None) -> TorchRecipe:
    """torchvision ``efficientnet_b0(num_classes=10)`` on 32x32 images (dropout and
    stochastic depth as constructed)."""
    from torchvision.models import efficientnet_b0 as build

    torch.manual_seed(_seed())
    return _vision(build(num_classes=10), steps, 32, autocast=autocast)


def qwen2_bf16(steps: int) -> TorchRecipe:
    """``qwen2`` with the forward pass under ``torch.autocast(bfloat16)``."""
    return qwen2(steps, autocast=torch.bfloat16)


def bert_mlm_bf16(steps: int) -> TorchRecipe:
    """``bert_mlm`` with the forward pass under ``torch.autocast(bfloat16)``."""
    return bert_mlm(steps, autocast=torch.bfloat16)


def t5_bf16(steps: int) -> TorchRecipe:
    """``t5`` with the forward pass under ``torch.autocast(bfloat16)``."""
    return t5(steps, autocast=torch.bfloat16)


def vit_bf16(steps: int) -> TorchRecipe:
    """``vit`` with the forward pass under ``torch.autocast(bfloat16)``."""
    return vit(steps, autocast=torch.bfloat16)


def mobilenet_v3_small_bf16(steps: int) -> TorchRecipe:
    """``mobilenet_v3_small`` with the forward pass under ``torch.autocast(bfloat16)``
    (torchvision's reference script's ``--amp``)."""
    return mobilenet_v3_small(steps, autocast=torch.bfloat16)


def efficientnet_b0_bf16(steps: int) -> TorchRecipe:
    """``efficientnet_b0`` with the forward pass under ``torch.autocast(bfloat16)``."""
    return efficientnet_b0(steps, autocast=torch.bfloat16)


class RNNModel(nn.Module):
    """PyTorch's word-language-model example: embedding, a recurrent network, a decoder
    tied to the embedding (``--tied``)."""

    def __init__(self, kind: str, tokens: int, size: int, layers: int) -> None:
        super().__init__()
        self.encoder = nn.Embedding(tokens, size)
        self.rnn = getattr(nn, kind)(size, size, layers, batch_first=False)
        self.decoder = nn.Linear(size, tokens)
        self.decoder.weight = self.encoder.weight

    def forward(self, source: torch.Tensor) -> torch.Tensor:
        output, _ = self.rnn(self.encoder(source))
        return self.decoder(output)


def _sequence_batches(steps: int, seed: int = 1) -> list[tuple[Any, ...]]:
    """Sequence-first token batches, targets shifted by one (``get_batch`` of the example)."""
    g = _generator(seed)
    out = []
    for _ in range(steps):
        chunk = torch.randint(VOCAB, (SEQ + 1, BATCH), generator=g)
        out.append(((chunk[:-1], chunk[1:]),))
    return out


def _lm_loss(forward: Callable[..., Any], batch: Any) -> Any:
    source, target = batch
    return functional.cross_entropy(forward(source).reshape(-1, VOCAB), target.reshape(-1))


def lstm_lm(steps: int) -> TorchRecipe:
    """The word-language-model example with an LSTM: SGD, ``clip_grad_norm_(0.25)``, the
    learning rate divided by 4 on a plateau (here: a ``StepLR``)."""
    torch.manual_seed(_seed())
    model = RNNModel("LSTM", VOCAB, 32, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)
    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.25),
        batches=_sequence_batches(steps),
        loss=_lm_loss,
        tamper_parameter=model.rnn.weight_hh_l0,
        clip=0.25,
    )


def gru_lm(steps: int) -> TorchRecipe:
    """The word-language-model example with a GRU."""
    torch.manual_seed(_seed())
    model = RNNModel("GRU", VOCAB, 32, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)
    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.25),
        batches=_sequence_batches(steps),
        loss=_lm_loss,
        tamper_parameter=model.rnn.weight_hh_l0,
        clip=0.25,
    )


class TransformerModel(nn.Module):
    """The ``nn.TransformerEncoder`` language model of PyTorch's tutorial: embedding scaled
    by sqrt(d), sinusoidal positions, a causal mask, a linear decoder."""

    def __init__(self, tokens: int, size: int, heads: int, hidden: int, layers: int) -> None:
        super().__init__()
        self.size = size
        position = torch.arange(SEQ).unsqueeze(1)
        div = torch.exp(torch.arange(0, size, 2) * (-math.log(10000.0) / size))
        table = torch.zeros(SEQ, 1, size)
        table[:, 0, 0::2] = torch.sin(position * div)
        table[:, 0, 1::2] = torch.cos(position * div)
        self.register_buffer("positions", table, persistent=False)
        self.embedding = nn.Embedding(tokens, size)
        layer = nn.TransformerEncoderLayer(size, heads, hidden, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.decoder = nn.Linear(size, tokens)

    def forward(self, source: torch.Tensor) -> torch.Tensor:
        mask = nn.Transformer.generate_square_subsequent_mask(source.shape[0])
        x = self.embedding(source) * math.sqrt(self.size) + self.positions[: source.shape[0]]
        return self.decoder(self.encoder(x, mask=mask, is_causal=True))


def transformer_encoder(steps: int, seed: int = 1) -> TorchRecipe:
    """The tutorial's loop: SGD lr=5, ``clip_grad_norm_(0.5)``, ``StepLR(gamma=0.95)``; the
    data drawn with ``seed`` (a DDP rank draws its own)."""
    torch.manual_seed(_seed())
    model = TransformerModel(VOCAB, 32, 2, 64, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
    return TorchRecipe(
        model=model,
        optimizer=optimizer,
        scheduler=torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.95),
        batches=_sequence_batches(steps, seed),
        loss=_lm_loss,
        tamper_parameter=model.embedding.weight,
        clip=0.5,
    )
