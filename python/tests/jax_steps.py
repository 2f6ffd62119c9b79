"""Training steps for the ``zkdv.jax`` tests: small Flax models under ``proof.jit``.

Each builder returns a fresh contrib ``TrainState`` for a session and a ``batches(n)``
generator of the step's inputs, so a test trains the same model with and without ZKDV.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

import zkdv

# The models of the test-mlir fixtures (scripts/fixtures/export_fixtures.py), at other sizes.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "fixtures"))
from export_fixtures import DecoderBlock, Mlp  # noqa: E402


def cross_entropy(logits: jax.Array, labels: jax.Array) -> jax.Array:
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()


def train_step(state: Any, x: jax.Array, y: jax.Array) -> tuple[Any, jax.Array]:
    """The ordinary Flax step both ``jax.jit`` and ``proof.jit`` compile."""

    def loss(params: Any) -> jax.Array:
        return cross_entropy(state.apply_fn({"params": params}, x), y)

    value, grads = jax.value_and_grad(loss)(state.params)
    return state.apply_gradients(grads=grads), value


def mlp(
    proof: Any, features: int = 8, batch: int = 16, hidden: int = 16, lr: float = 1e-2
) -> tuple[Any, Callable[[int], Iterator[tuple[np.ndarray, np.ndarray]]]]:
    """An MLP with Adam, and a batch generator ``(x f32[batch, features], y i32[batch])``."""
    model = Mlp(hidden=hidden, classes=4)
    params = model.init(jax.random.key(0), jnp.zeros((1, features)))["params"]
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.adam(lr)
    )
    true_w = np.random.default_rng(1).normal(size=(features, 4)).astype(np.float32)

    def batches(n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        rng = np.random.default_rng(2)
        for _ in range(n):
            x = rng.normal(size=(batch, features)).astype(np.float32)
            yield x, np.argmax(x @ true_w, axis=1).astype(np.int32)

    return state, batches


def transformer(
    proof: Any, batch: int = 2, length: int = 6
) -> tuple[Any, Callable[[int], Iterator[tuple[np.ndarray, np.ndarray]]]]:
    """A decoder block with global-norm clipping and AdamW; next-token batches."""
    model = DecoderBlock()
    params = model.init(jax.random.key(3), jnp.zeros((1, length - 1), jnp.int32))["params"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-2, weight_decay=0.1))
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=tx
    )

    def batches(n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        rng = np.random.default_rng(4)
        for _ in range(n):
            tokens = rng.integers(0, model.vocab, (batch, length)).astype(np.int32)
            yield tokens[:, :-1], tokens[:, 1:]

    return state, batches


GPT: dict[str, int | bool] = {
    "vocab": 512,
    "length": 64,
    "width": 256,
    "layers": 4,
    "heads": 4,
    "batch": 8,
    "tied": False,
}
"""The GPT-style decoder of ``scripts/bench first-step`` (3.4M parameters; its ``--size 124m``
replaces these sizes) and of ``scripts/bench jax --model gpt``: the same as the torch twin's
there."""


class GptBlock(nn.Module):
    """A pre-norm block: causal self-attention, then a 4x GELU MLP."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        mask = nn.make_causal_mask(jnp.ones(x.shape[:2], dtype=jnp.int32))
        x = x + nn.SelfAttention(num_heads=GPT["heads"])(nn.LayerNorm()(x), mask=mask)
        y = nn.Dense(GPT["width"])(nn.gelu(nn.Dense(4 * GPT["width"])(nn.LayerNorm()(x))))
        return x + y


class Gpt(nn.Module):
    """Token and position embeddings, :class:`GptBlock` s, a final LayerNorm, an LM head."""

    @nn.compact
    def __call__(self, ids: jax.Array) -> jax.Array:
        positions = self.param("positions", nn.initializers.zeros, (GPT["length"], GPT["width"]))
        embed = nn.Embed(GPT["vocab"], GPT["width"])
        x = embed(ids) + positions
        for _ in range(GPT["layers"]):
            x = GptBlock()(x)
        x = nn.LayerNorm()(x)
        # GPT-2 ties the LM head to the token embedding.
        return embed.attend(x) if GPT.get("tied") else nn.Dense(GPT["vocab"])(x)


def next_token_step(state: Any, ids: jax.Array) -> Any:
    """One step of :class:`Gpt` on token sequences ``ids`` (inputs and next-token targets):
    the step ``scripts/bench first-step`` and ``scripts/bench scale`` compile."""

    def loss(params: Any) -> jax.Array:
        logits = state.apply_fn({"params": params}, ids[:, :-1])
        return cross_entropy(logits, ids[:, 1:])

    return state.apply_gradients(grads=jax.grad(loss)(state.params))


def gpt(proof: Any) -> tuple[Any, Callable[[int], Iterator[tuple[np.ndarray, np.ndarray]]]]:
    """:class:`Gpt` with AdamW; batches of ``GPT["batch"]`` next-token sequences."""
    model = Gpt()
    params = model.init(jax.random.key(0), jnp.zeros((1, GPT["length"]), jnp.int32))["params"]
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.adamw(1e-3)
    )

    def batches(n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        rng = np.random.default_rng(0)
        for _ in range(n):
            shape = (GPT["batch"], GPT["length"] + 1)
            ids = rng.integers(0, GPT["vocab"], shape, dtype=np.int32)
            yield ids[:, :-1], ids[:, 1:]

    return state, batches
