"""The GPT-style decoder of ``scripts/bench first-step`` and ``scripts/bench scale`` in
``torch.nn``: the twin of :class:`jax_steps.Gpt` (token and position embeddings, pre-norm blocks
of causal self-attention and a 4x GELU MLP, a final LayerNorm, an LM head tied to the token
embedding when ``tied``). :data:`GPT` holds its dimensions; ``GPT.update(jax_steps_size)``
before building sets another size (``124m`` is GPT-2 small's)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional

GPT: dict[str, int | bool] = {
    "vocab": 512,
    "length": 64,
    "width": 256,
    "layers": 4,
    "heads": 4,
    "batch": 8,
    "tied": False,
}


class Block(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.width, self.heads = width, heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(self.width, dim=-1)
        heads = [
            y.view(b, t, self.heads, self.width // self.heads).transpose(1, 2) for y in (q, k, v)
        ]
        y = functional.scaled_dot_product_attention(*heads, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, self.width))
        return x + self.down(functional.gelu(self.up(self.ln2(x))))


class Gpt(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        vocab, length, width = int(GPT["vocab"]), int(GPT["length"]), int(GPT["width"])
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Parameter(torch.zeros(length, width))
        self.blocks = nn.ModuleList(
            Block(width, int(GPT["heads"])) for _ in range(int(GPT["layers"]))
        )
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=not GPT["tied"])
        # GPT-2's initialization of the embedding (std 0.02): torch's default N(0, 1), tied to
        # the head, gives logits so large that the step's gradients turn subnormal within a
        # few steps, and each step then takes several times as long on a CPU.
        nn.init.normal_(self.tokens.weight, std=0.02)
        if GPT["tied"]:
            self.head.weight = self.tokens.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tokens(ids) + self.positions
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def batch(seed: int) -> torch.Tensor:
    """``GPT["batch"]`` token sequences of ``GPT["length"] + 1`` (inputs and next-token
    targets), reproducible from ``seed``."""
    shape = (int(GPT["batch"]), int(GPT["length"]) + 1)
    return torch.randint(int(GPT["vocab"]), shape, generator=torch.Generator().manual_seed(seed))


def loss_of(model: nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """The next-token cross-entropy of ``model`` (any callable on token ids) on ``ids``."""
    logits = model(ids[:, :-1])
    return functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
