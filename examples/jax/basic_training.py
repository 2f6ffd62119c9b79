"""The explicit transaction API: a Flax MLP step with ``zkdv.jax.Transaction`` and ``proof.attest``.

Run: ``python examples/jax/basic_training.py [OUT_DIR] [--steps N] [--debug-every N]``, then
``zkdv verify OUT_DIR`` (default ``proof-basic``).

Lower-level integrations declare the step's transaction themselves and may supply the attested
program: a hermetic function with the fixed ABI ``(params, opt_state, batch, parameter_index,
optimizer_state_index) -> (delta, post_opt_state)`` that sampled checks run in ZKDV's Rust
runtime. The application packs its batch into the rectangular ``uint32`` array the protocol
commits (here: 16 float32 features and one int32 label per row, bitcast).
"""

from __future__ import annotations

import argparse

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

import zkdv

FEATURES, CLASSES, BATCH = 16, 4, 32


class Mlp(nn.Module):
    """A two-layer perceptron."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(32)(x))
        return nn.Dense(CLASSES)(x)


model = Mlp()
tx = optax.adam(1e-2)


def unpack(batch: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Features and labels from the packed uint32 batch (the inverse of ``pack``)."""
    x = jax.lax.bitcast_convert_type(batch[:, :FEATURES], jnp.float32)
    y = jax.lax.bitcast_convert_type(batch[:, FEATURES], jnp.int32)
    return x, y


def pack(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """One row per example: the features' bits, then the label's."""
    return np.concatenate([x.view(np.uint32), y.view(np.uint32)[:, None]], axis=1)


def loss_fn(params: dict, batch: jax.Array) -> jax.Array:
    x, y = unpack(batch)
    logits = model.apply({"params": params}, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="proof-basic", help="transcript directory")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--debug-every", type=int, default=0)
    args = parser.parse_args()

    policy = (
        zkdv.SamplingPolicy.DEBUGCheckEvery(args.debug_every)
        if args.debug_every
        else zkdv.SamplingPolicy(state_check_probability=0.1, update_check_probability=0.1)
    )
    proof = zkdv.jax.ZKDV(args.out, zkdv.ZKDVConfig(name="basic", sampling_policy=policy))
    proof.start(rolling_window=4, probe_ratio=0.01)

    # The production step. The Transaction marks the state before the update and, through
    # update(), the additive update and the state after it. Parameters may be donated; the
    # optimizer state before the update may not (a sampled check may still need it).
    @proof.jit(donate_argnums=(0,))
    def train_step(params: dict, opt_state: optax.OptState, batch: jax.Array) -> tuple:
        transaction = zkdv.jax.Transaction(
            batch=batch, params=params, opt_state=opt_state, overlap=zkdv.overlap.UNCHECKED
        )
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        updates, new_opt_state = tx.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, updates)
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
        return new_params, new_opt_state, loss

    # The attested program: recompute one update coordinate and one post-update optimizer
    # state coordinate. zkdv.jax.index selects by a uint64 index without concatenating leaves.
    @proof.attest
    def attested_step(
        params: dict,
        opt_state: optax.OptState,
        batch: jax.Array,
        parameter_index: jax.Array,
        optimizer_state_index: jax.Array,
    ) -> tuple[jax.Array, jax.Array]:
        grads = jax.grad(loss_fn)(params, batch)
        updates, new_opt_state = tx.update(grads, opt_state, params)
        return (
            zkdv.jax.index(updates, parameter_index),
            zkdv.jax.index(new_opt_state, optimizer_state_index),
        )

    rng = np.random.default_rng(0)
    true_w = rng.normal(size=(FEATURES, CLASSES)).astype(np.float32)
    params = model.init(jax.random.key(0), jnp.zeros((1, FEATURES)))["params"]
    # Place the state once: the first fed-back call then reuses the compiled step.
    params, opt_state = jax.device_put((params, tx.init(params)))
    for _ in range(args.steps):
        x = rng.normal(size=(BATCH, FEATURES)).astype(np.float32)
        y = np.argmax(x @ true_w, axis=1).astype(np.int32)
        params, opt_state, loss = train_step(params, opt_state, pack(x, y))

    proof.close()
    expected = zkdv.transcript.inspect(args.out)["expected_checks"]
    print(
        f"final loss {float(loss):.4f}; {sum(c.passed for c in proof.checks)} of "
        f"{len(proof.checks)} checks passed (the sampling policy draws "
        f"{expected['state'] + expected['update']:.1f} on average over these steps); "
        f"transcript: {args.out}/records.cborl"
    )


if __name__ == "__main__":
    main()
