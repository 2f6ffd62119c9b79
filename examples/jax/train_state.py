"""The quick start, runnable on CPU: a Flax TrainState trained under ZKDV.

Run: ``python examples/jax/train_state.py [OUT_DIR] [--steps N]``, then
``zkdv verify OUT_DIR`` (default ``proof``).

What happens:

1. ``zkdv.jax.ZKDV(directory, config)`` creates the session; ``start`` fixes the rolling hash
   window of the committed batch rows and the probe ratio of the update sketches.
2. ``zkdv.jax.contrib.TrainState.create`` is Flax's ``TrainState.create`` plus the owning
   session. Under ``proof.jit`` its ``apply_gradients`` declares the step's transaction.
3. ``@proof.jit`` replaces ``@jax.jit``. On the first call the step is lowered, rewritten by
   the Rust passes (commitment hooks in the production program; the attested program sliced
   out of it) and compiled; each call then commits its batch, update and state.
4. With probability 0.01 per step and kind (here: every step, ``--debug-every 1``), a step is
   checked: its pre-state is rebuilt from the newest snapshot and the attested program runs
   in the Rust runtime on the challenged coordinates.
5. ``close`` waits for everything, writes the close record and raises
   ``zkdv.ZKDVPoisonedError`` if a check failed.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import optax

import zkdv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="proof", help="transcript directory")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument(
        "--debug-every",
        type=int,
        default=0,
        help="check every N-th step (SamplingPolicy.DEBUGCheckEvery) instead of p = 0.01",
    )
    args = parser.parse_args()

    # Initialize ZKDV once, before compiling the training step.
    if args.debug_every:
        policy = zkdv.SamplingPolicy.DEBUGCheckEvery(args.debug_every)
    else:
        policy = zkdv.SamplingPolicy(state_check_probability=0.01, update_check_probability=0.01)
    config = zkdv.ZKDVConfig(sampling_policy=policy)
    proof = zkdv.jax.ZKDV(args.out, config)
    proof.start(rolling_window=2, probe_ratio=0.01)

    # The state is created as usual; ZKDV adds only the proof owner (and, optionally, an
    # exportable replacement for apply_fn, attest_apply_fn).
    def apply_fn(variables: dict, batch: jax.Array) -> jax.Array:
        return variables["params"] * batch

    state = zkdv.jax.contrib.TrainState.create(
        proof=proof,
        apply_fn=apply_fn,
        params=jnp.arange(8, dtype=jnp.float32),
        tx=optax.adam(1e-3),
    )

    # @proof.jit instead of @jax.jit; the body is ordinary Flax/JAX code. Donating the state
    # donates its parameter buffers only: a sampled check may still need the optimizer state.
    @proof.jit(donate_argnums=(0,))
    def train_step(
        state: zkdv.jax.contrib.TrainState, batch: jax.Array
    ) -> zkdv.jax.contrib.TrainState:
        def loss(params: jax.Array) -> jax.Array:
            predictions = state.apply_fn({"params": params}, batch)
            return jnp.mean(predictions)

        return state.apply_gradients(grads=jax.grad(loss)(state.params))

    for _ in range(args.steps):
        state = train_step(state, jnp.ones((8,), dtype=jnp.float32))

    # Close once, after the training loop: waits for queued commitments and checks.
    proof.close()
    checks = proof.checks
    # The sampling policy draws checks at random (p = 0.01 a step by default, so usually none
    # in 10 steps); `--debug-every 1` checks every step.
    expected = zkdv.transcript.inspect(args.out)["expected_checks"]
    print(
        f"trained {int(state.step)} steps; {sum(c.passed for c in checks)} of {len(checks)} "
        f"checks passed (the sampling policy draws {expected['state'] + expected['update']:.1f} "
        f"on average over these steps; --debug-every 1 checks every step); "
        f"transcript: {args.out}/records.cborl"
    )


if __name__ == "__main__":
    main()
