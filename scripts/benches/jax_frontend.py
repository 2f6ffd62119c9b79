"""``proof.jit`` against plain ``jax.jit``: step time, transcript bytes, close latency, check cost.

For each model (a Flax MLP 784-1024-256-10 of about 1.07M parameters with Adam at batch 64, and
the transformer block of the fixtures with global-norm clipping and AdamW), this script trains
the same ``TrainState`` step under ``jax.jit`` (the baseline) and under ``proof.jit`` at check
probabilities 0, 0.01, 0.1 and 1, in one process. Variants run in interleaved blocks of steps;
a block's time includes waiting for its last step's outputs and (for ZKDV) ``proof.join()``, so
commitments and sampled checks are counted. Reported: the median block time per step of each
variant and its ratio to the baseline's median; transcript bytes per step record; ``close()``
latency; and the mean time of one sampled check (state and update, as one job) relative to one
baseline step.

``--breakdown`` times the parts of a ZKDV step alone instead, against the same plain step: the
production program (commitment hooks, no update output), its replay variant, the host work of
one commitment (packing, batch hashing, sketch commitments) and one run of the attested program
in the Rust runtime; and, to tell the production program's costs apart, the plain step over
flat (parameters, optimizer state) with both or only the parameters donated, through
``jax.export``, and returning its update as well.

On a GPU (``JAX_PLATFORMS=cuda``; the CPU otherwise) one more variant, ``det. ops``, is plain
``jax.jit`` compiled with XLA's deterministic ops, as zkdv compiles GPU programs: its ratio is
what determinism alone costs. ``--model gpt`` is a 3.4M-parameter GPT-style decoder (the model
of ``scripts/bench first-step``) for such a machine; ``--size 124m`` gives it GPT-2 small's
shape (the first-step bench's ``124m``), where ``--breakdown`` leaves out the attested program
(a run of it in the runtime takes tens of seconds at that size: ``scripts/bench scale``
measures checks there).

Usage: ``scripts/bench jax [--model mlp|transformer|gpt|all] [--size small|124m] [--blocks N]
[--steps S] [--probabilities P...] [--breakdown]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tests"))

import jax  # noqa: E402

# The CPU unless JAX_PLATFORMS names another (scripts/device-check runs this on a GPU).
jax.config.update("jax_platforms", os.environ.get("JAX_PLATFORMS") or "cpu")

import flax.linen as nn  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax_steps  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

PROBABILITIES = (0.0, 0.01, 0.1, 1.0)


class BigMlp(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(1024)(x))
        x = nn.relu(nn.Dense(256)(x))
        return nn.Dense(10)(x)


def mlp(proof: zkdv.jax.ZKDV) -> tuple[object, object]:
    model = BigMlp()
    params = model.init(jax.random.key(0), jnp.zeros((1, 784)))["params"]
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.adam(1e-3)
    )

    def batches(n: int):  # noqa: ANN202
        rng = np.random.default_rng(0)
        for _ in range(n):
            yield (
                rng.normal(size=(64, 784)).astype(np.float32),
                rng.integers(0, 10, (64,)).astype(np.int32),
            )

    return state, batches


MODELS = {"mlp": mlp, "transformer": jax_steps.transformer, "gpt": jax_steps.gpt}
DEFAULT_MODELS = ("mlp", "transformer")
"""What ``--model all`` runs; ``gpt`` (3.4M parameters, 512 tokens a step) is for a GPU."""

DETERMINISTIC = {"xla_gpu_deterministic_ops": True}
"""The option zkdv compiles GPU programs with (``zkdv.jax._program.Placement``)."""


def run(model: str, blocks: int, steps: int, probabilities: tuple[float, ...]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        variants: dict[str, dict] = {}
        baseline_proof = zkdv.jax.ZKDV(Path(tmp) / "unused")
        state, batches = MODELS[model](baseline_proof)
        n_params = sum(x.size for x in jax.tree.leaves(state.params))
        data = list(batches(steps))
        plain = jax.jit(jax_steps.train_step, donate_argnums=(0,))
        variants["jax.jit"] = {"state": jax.device_put(state), "step": plain, "proof": None}
        if jax.default_backend() == "gpu":
            # What a GPU program costs with XLA's deterministic kernels, without zkdv.
            deterministic = jax.jit(
                jax_steps.train_step, donate_argnums=(0,), compiler_options=DETERMINISTIC
            )
            variants["det. ops"] = {
                # A copy: on a GPU device_put of arrays already there returns them, and the
                # two variants' donations would delete each other's state.
                "state": jax.tree.map(jnp.array, state),
                "step": deterministic,
                "proof": None,
            }
        check_times: dict[str, list[float]] = {}
        for p in probabilities:
            name = f"p={p:g}"
            policy = zkdv.SamplingPolicy(state_check_probability=p, update_check_probability=p)
            proof = zkdv.jax.ZKDV(Path(tmp) / name, zkdv.ZKDVConfig(sampling_policy=policy))
            proof.start(rolling_window=2, probe_ratio=0.01)
            times = check_times.setdefault(name, [])
            original = proof._checker.run

            def timed(job, original=original, times=times):  # noqa: ANN001, ANN202
                start = time.perf_counter()
                original(job)
                times.append(time.perf_counter() - start)

            proof._checker.run = timed
            pstate, _ = MODELS[model](proof)
            variants[name] = {
                "state": jax.device_put(pstate),
                "step": proof.jit(jax_steps.train_step, donate_argnums=(0,)),
                "proof": proof,
            }
        # Warm up: compile everything, fill the pipelines.
        for v in variants.values():
            for x, y in data[:3]:
                v["state"], loss = v["step"](v["state"], x, y)
            jax.block_until_ready(loss)
            if v["proof"] is not None:
                v["proof"].join()
        per_step: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(blocks):
            for name, v in variants.items():
                start = time.perf_counter()
                for x, y in data:
                    v["state"], loss = v["step"](v["state"], x, y)
                jax.block_until_ready((v["state"], loss))
                if v["proof"] is not None:
                    v["proof"].join()
                per_step[name].append((time.perf_counter() - start) / len(data))
        base = statistics.median(per_step["jax.jit"])
        device = jax.devices()[0].device_kind
        print(f"\n{model}: {n_params:,} parameters, {blocks} blocks of {steps} steps, {device}")
        print(f"{'variant':10} {'ms/step':>9} {'ratio':>7} {'checks':>7}")
        for name, times in per_step.items():
            m = statistics.median(times)
            n = len(check_times.get(name, []))
            print(f"{name:10} {m * 1e3:9.3f} {m / base:7.3f} {n:7d}")
        for name, v in variants.items():
            proof = v["proof"]
            if proof is None:
                continue
            start = time.perf_counter()
            proof.close()
            close = time.perf_counter() - start
            summary = transcript.inspect(proof.directory)
            times = check_times[name]
            per_record = summary["step_bytes"] / max(summary["steps"], 1)
            one_check = "no checks"
            if times:
                mean_check = statistics.mean(times)
                one_check = (
                    f"one check {mean_check * 1e3:.2f} ms = {mean_check / base:.1f} baseline steps"
                )
            print(
                f"{name:10} step record {per_record:.0f} B, close {close * 1e3:.1f} ms, {one_check}"
            )


def _median_ms(f, reps: int = 30) -> float:  # noqa: ANN001
    f()  # warm up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _plain_variants(state, x, y):  # noqa: ANN001, ANN202
    """The plain step over (parameters, optimizer state) in the variations that tell the
    production program's costs apart: its donation, the ``jax.export`` call path, and an
    update that is also returned (materialized), as the sketch hooks need it."""
    host = jax.tree.map(np.array, (state.params, state.opt_state))

    def flat(params, opt, x, y):  # noqa: ANN001, ANN202
        new, loss = jax_steps.train_step(state.replace(params=params, opt_state=opt), x, y)
        return new.params, new.opt_state, loss

    def with_update(params, opt, x, y):  # noqa: ANN001, ANN202
        new_params, new_opt, loss = flat(params, opt, x, y)
        return new_params, new_opt, loss, jax.tree.map(jnp.subtract, new_params, params)

    def structs(tree):  # noqa: ANN001, ANN202
        return jax.tree.map(lambda a: jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype), tree)

    def looped(f, donate, exported=False):  # noqa: ANN001, ANN202
        if exported:
            f = jax.export.export(jax.jit(f))(*structs((*host, x, y))).call
        step = jax.jit(f, donate_argnums=donate)
        current = list(jax.device_put(host))

        def run() -> None:
            out = step(*current, x, y)
            current[:] = out[:2]
            jax.block_until_ready(out)

        return run

    return [
        ("(params, opt_state), both donated", looped(flat, (0, 1))),
        ("donating the parameters only", looped(flat, (0,))),
        ("through jax.export, params donated", looped(flat, (0,), exported=True)),
        ("also returning its update", looped(with_update, (0,))),
    ]


def breakdown(model: str, attested_too: bool = True, reps: int = 20, rounds: int = 5) -> None:
    """The parts of a ZKDV step, each timed alone (the median of ``reps`` runs, in each of
    ``rounds`` rounds), against the plain step; the attested program's run in the Rust
    runtime too, with ``attested_too``."""
    from zkdv import hashing, runtime

    with tempfile.TemporaryDirectory() as tmp:
        policy = zkdv.SamplingPolicy(state_check_probability=0.0, update_check_probability=0.0)
        proof = zkdv.jax.ZKDV(Path(tmp) / "p", zkdv.ZKDVConfig(sampling_policy=policy))
        proof.start(rolling_window=2, probe_ratio=0.01)
        state, batches = MODELS[model](proof)
        (x, y), *_ = batches(1)
        step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
        program = step.lower_step(state, x, y)
        weights = proof._programs[program].weights  # the probe weights the session registered
        flat = jax.tree.leaves((state, x, y))
        host = [np.asarray(flat[i]) for i in program.param_positions + program.opt_positions]
        batch_leaves = [np.asarray(flat[i]) for i in program.batch_positions]
        packed = program.layout.pack(batch_leaves)
        plain = jax.jit(jax_steps.train_step, donate_argnums=(0,))
        current = {"state": jax.device_put(state)}

        def run_plain() -> None:
            current["state"], loss = plain(current["state"], x, y)
            jax.block_until_ready(loss)

        def looped(call, with_deltas: bool):  # noqa: ANN001, ANN202
            leaves = {"state": [jax.device_put(a) for a in host]}
            device_batch = jax.device_put(packed)

            def run() -> None:
                out = call(*leaves["state"], device_batch, *weights)
                parts = program.split_outputs(out, deltas=with_deltas)
                leaves["state"] = parts["post_params"] + parts["post_opt_state"]
                jax.block_until_ready(out)

            return run

        sketches = [np.zeros(s, np.float32) for s in program.sketch_shapes]

        def host_work() -> None:
            words = program.layout.pack(batch_leaves)
            hashing.commit_batch(words, 2)
            for s in sketches:
                hashing.commit_tensor(s)

        parts = [
            ("plain jax.jit step", run_plain, reps),
            *[(f"plain step {what}", f, reps) for what, f in _plain_variants(state, x, y)],
            ("production program alone", looped(program.production, False), reps),
            ("replay variant alone", looped(program.replay, True), reps),
            ("host work of one commitment", host_work, reps),
        ]
        if attested_too:
            attested = runtime.Program(program.attested_text)
            inputs = [*host, packed, np.uint64(0), np.uint64(0)]
            parts.append(("attested program (Rust runtime)", lambda: attested.run(inputs), 3))
        # Rounds over all parts, so a slow spell of the machine hits every part alike; the
        # figure of a part is the median of its rounds' medians.
        times: dict[str, list[float]] = {name: [] for name, _, _ in parts}
        for _ in range(rounds):
            for name, f, reps in parts:
                times[name].append(_median_ms(f, reps))
        proof.close()
        base = statistics.median(times["plain jax.jit step"])
        print(f"\n{model}: the parts of a step, each alone (median of {rounds} rounds)")
        for name, values in times.items():
            ms = statistics.median(values)
            print(f"{name:48} {ms:9.3f} ms {ms / base:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="all", choices=["all", *MODELS])
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument(
        "--probabilities",
        type=float,
        nargs="+",
        default=PROBABILITIES,
        help=f"check probabilities of the proof.jit variants (default {PROBABILITIES})",
    )
    parser.add_argument("--breakdown", action="store_true", help="time the parts alone")
    parser.add_argument(
        "--size",
        choices=["small", "124m"],
        default="small",
        help="the gpt model's size (124m: GPT-2 small's shape)",
    )
    args = parser.parse_args()
    if args.size != "small":
        import first_step

        jax_steps.GPT.update(first_step.SIZES[args.size])
    for model in DEFAULT_MODELS if args.model == "all" else [args.model]:
        if args.breakdown:
            if args.size == "small":
                breakdown(model)
            else:
                breakdown(model, attested_too=False, reps=3, rounds=3)
        else:
            run(model, args.blocks, args.steps, tuple(args.probabilities))


if __name__ == "__main__":
    main()
