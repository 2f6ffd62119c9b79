"""Narrow optimizer state: what a check certifies for a bf16 or f16 momentum accumulator.

A Flax MLP (32-64-64-10, f32 everywhere) trains with ``optax.sgd(0.05, momentum=0.9,
accumulator_dtype=...)`` under ``proof.jit`` with every step checked
(``SamplingPolicy.DEBUGCheckEvery(1)``), its momentum kept in ``bf16``, ``f16`` or ``f32``.

Honest runs. For each seed (the model's initialization and data; each session also draws its
own challenge key), every update check's two pairs (the sampled parameter's update and the
sampled momentum value) are recorded with their spread, measured always. Reported per
accumulator dtype:

- the worst margin as a session records it (:meth:`zkdv.CheckResult.margin`, the zoo's "worst
  honest margin"): against ``abs + rel * |c|`` when every pair of the check is within it (the
  spread is then not measured), else against the whole bound ``abs + rel * |c| + 32 * s``;
- the worst margin against the whole bound (the spread always measured);
- for the momentum pairs, in units of the accumulator's ulp at the committed value: the
  largest difference, how many differ by exactly 0 and by 1 ulp, the smallest spread and the
  smallest whole bound (what a tamper of one value must exceed).

Tampers (one session each, at the last step of ``--steps``):

- ``update x(1+r)``: production's update of the first parameter leaf scaled by ``1 + r``
  after the step (``zkdv.testing.corrupt_production``, as the zoo's update tamper);
- ``momentum x(1+r)``: the first momentum leaf scaled by ``1 + r`` after the step, the same way;
- ``momentum edit x(1+r)``: that leaf scaled between the last two steps (outside any step);
- ``miscompile x(1+r)``: the production program itself computes the largest momentum leaf
  ``(1 + r)`` times too large from step 1 on, and the attested program the honest one (the
  explicit ``Transaction`` API and ``proof.attest``): only the update check compares the two.

Usage: ``python scripts/studies/narrow_state.py [--seeds N] [--steps N] [--dtypes bf16,f16,f32]
[--only honest|tampers]``. It prints Markdown tables.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import optax
from common import table

import zkdv

ACCUMULATORS = {"bf16": jnp.bfloat16, "f16": jnp.float16, "f32": jnp.float32}
HOST = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}
EVERY = zkdv.SamplingPolicy.DEBUGCheckEvery(1)
FEATURES, CLASSES, ROWS = 32, 10, 32
SCALES = [1e-4, 1e-3, 1e-2, 1e-1, 3e-1, 1.0]


class Mlp(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(64)(x))
        x = nn.relu(nn.Dense(64)(x))
        return nn.Dense(CLASSES)(x)


def session(directory: Path) -> Any:
    proof = zkdv.jax.ZKDV(
        directory / f"run-{time.perf_counter_ns()}",
        zkdv.ZKDVConfig(sampling_policy=EVERY),
        replay_snapshot_interval=4,
    )
    proof.start(rolling_window=1, probe_ratio=0.05)
    return proof


def batches(seed: int, steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(FEATURES, CLASSES))
    out = []
    for _ in range(steps):
        x = rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
        out.append((x, np.argmax(x @ w, axis=1).astype(np.int32)))
    return out


def loss(apply: Any, params: Any, x: jax.Array, y: jax.Array) -> jax.Array:
    logits = apply({"params": params}, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def scaled(tree: Any, factor: float) -> Any:
    """``tree`` with its first leaf scaled by ``factor`` on the host (in f64, then rounded to
    the leaf's dtype), put back with the leaf's own sharding."""
    leaves, structure = jax.tree.flatten(tree)
    host = np.array(leaves[0])
    leaves[0] = jax.device_put(
        (host.astype(np.float64) * factor).astype(host.dtype), leaves[0].sharding
    )
    return jax.tree.unflatten(structure, leaves)


def train(
    accumulator: str, seed: int, steps: int, directory: Path, tamper: str = "", r: float = 0.0
) -> tuple[Any, str | None]:
    """One ``contrib.TrainState`` session; the session and its failure (``None``: it passed)."""
    proof = session(directory)
    proof._checker.always_measure_spread = True  # margins against the whole bound too
    model = Mlp()
    params = model.init(jax.random.key(seed), jnp.zeros((1, FEATURES)))["params"]
    tx = optax.sgd(0.05, momentum=0.9, accumulator_dtype=ACCUMULATORS[accumulator])
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=tx
    )

    def step(state: Any, x: jax.Array, y: jax.Array) -> Any:
        grads = jax.grad(lambda p: loss(state.apply_fn, p, x, y))(state.params)
        return state.apply_gradients(grads=grads)

    run = proof.jit(step, donate_argnums=(0,))
    last = steps - 1
    try:
        for i, (x, y) in enumerate(batches(seed, steps)):
            if i == last and tamper == "momentum edit":
                state = state.replace(opt_state=scaled(state.opt_state, 1 + r))
            if i == last and tamper in ("update", "momentum"):
                before = np.array(jax.tree.leaves(state.params)[0], np.float64)

                def fault(index: int, parts: Any, before: np.ndarray = before) -> None:
                    if index != last:
                        return
                    if tamper == "update":
                        after = parts["post_params"][0]
                        honest = np.array(after)
                        wide = before + (honest.astype(np.float64) - before) * (1 + r)
                        parts["post_params"][0] = jax.device_put(
                            wide.astype(honest.dtype), after.sharding
                        )
                    else:
                        parts["post_opt_state"] = jax.tree.leaves(
                            scaled(list(parts["post_opt_state"]), 1 + r)
                        )

                zkdv.testing.corrupt_production(proof, fault)
            state = run(state, x, y)
        proof.close()
    except zkdv.ZKDVPoisonedError as error:
        return proof, describe(error)
    return proof, None


def miscompiled(accumulator: str, seed: int, steps: int, directory: Path, r: float) -> str | None:
    """Production computes the largest momentum leaf (``Dense_1/kernel``, 4,096 of the 7,050
    values) ``(1 + r)`` times too large from step 1 on; the attested program is honest. The
    failure, or ``None``."""
    proof = session(directory)
    model = Mlp()
    tx = optax.sgd(0.05, momentum=0.9, accumulator_dtype=ACCUMULATORS[accumulator])

    def unpack(batch: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        x = jax.lax.bitcast_convert_type(batch[:, :FEATURES], jnp.float32)
        factor = jax.lax.bitcast_convert_type(batch[0, FEATURES + 1], jnp.float32)
        return x, batch[:, FEATURES].astype(jnp.int32), factor

    def gradient(params: Any, batch: jax.Array) -> Any:
        x, y, _ = unpack(batch)
        return jax.grad(lambda p: loss(model.apply, p, x, y))(params)

    @proof.jit(donate_argnums=(0,))
    def step(params: Any, opt_state: Any, batch: jax.Array) -> Any:
        transaction = zkdv.jax.Transaction(batch=batch, params=params, opt_state=opt_state)
        updates, new_opt_state = tx.update(gradient(params, batch), opt_state, params)
        leaves, structure = jax.tree.flatten(new_opt_state)
        factor = unpack(batch)[2]
        i = max(range(len(leaves)), key=lambda k: leaves[k].size)  # Dense_1/kernel, 58%
        leaves[i] = (leaves[i].astype(jnp.float32) * factor).astype(leaves[i].dtype)  # the fault
        new_opt_state = jax.tree.unflatten(structure, leaves)
        new_params = optax.apply_updates(params, updates)
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
        return new_params, new_opt_state

    @proof.attest
    def attested(params: Any, opt_state: Any, batch: jax.Array, pi: Any, oi: Any) -> Any:
        updates, new_opt_state = tx.update(gradient(params, batch), opt_state, params)
        # The momentum's coordinate in its own type (bf16 or f16).
        return zkdv.jax.index(updates, pi), zkdv.jax.index(new_opt_state, oi)

    params = model.init(jax.random.key(seed), jnp.zeros((1, FEATURES)))["params"]
    opt_state = tx.init(params)
    try:
        for i, (x, y) in enumerate(batches(seed, steps)):
            factor = np.full((ROWS, 1), np.float32(1 + r if i >= 1 else 1.0)).view(np.uint32)
            packed = np.concatenate([x.view(np.uint32), y.astype(np.uint32)[:, None], factor], 1)
            params, opt_state = step(params, opt_state, packed)
        proof.close()
    except zkdv.ZKDVPoisonedError as error:
        return describe(error)
    return None


TESTS = {
    "does not follow from the committed updates": "state sketches",
    "is not what the committed steps": "closure",
    "is not what step": "continuity",
    "bias test": "bias",
}


def describe(error: zkdv.ZKDVPoisonedError) -> str:
    """``KIND/TEST at step N``: the check kind and which of its tests refused the run."""
    text = str(error)
    test = next((name for phrase, name in TESTS.items() if phrase in text), "pair")
    if error.check is not None and error.check.bias is not None:
        test = f"bias ({error.check.bias.kind})"
    return f"{error.kind}/{test} at step {error.step}: {text}"


# -- honest runs --------------------------------------------------------------------------------


@dataclass
class Pairs:
    """The update checks' pairs of one accumulator dtype, over every seed."""

    recorded: list[float] = field(default_factory=list)  # CheckResult.margin(), as recorded
    recorded_at: list[str] = field(default_factory=list)  # which pair set it
    whole: list[float] = field(default_factory=list)  # against the whole bound
    momentum: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Per momentum pair: ``(|c - r|, spread, whole bound, fixed bound)``, in ulps of ``c``."""
    params: list[float] = field(default_factory=list)  # |c - r| / whole bound, the updates
    params_relative: list[float] = field(default_factory=list)  # whole bound / |c|, updates
    failed: list[str] = field(default_factory=list)
    checks: int = 0


def ulp(value: float, accumulator: str) -> float:
    """The spacing of the accumulator's format at ``|value|`` (its smallest subnormal at 0)."""
    return float(np.spacing(HOST[accumulator](abs(value))))


def honest(accumulator: str, seeds: int, steps: int, directory: Path) -> Pairs:
    out = Pairs()
    for seed in range(seeds):
        proof, failure = train(accumulator, seed, steps, directory)
        if failure is not None:
            out.failed.append(f"seed {seed}: {failure}")
        for check in proof.checks:
            out.checks += 1
            if check.kind != "update":
                continue
            t = check.tolerance
            pairs = list(zip(check.committed, check.recomputed, check.spread, strict=True))
            fixed = [t.abs + t.rel * abs(c) for c, _, _ in pairs]
            within = all(abs(c - r) <= f for (c, r, _), f in zip(pairs, fixed, strict=True))
            ratios = []
            for position, ((c, r, s), f) in enumerate(zip(pairs, fixed, strict=True)):
                bound = t.bound(c, s)
                whole = abs(c - r) / bound
                ratios.append((abs(c - r) / f if within else whole, position))
                out.whole.append(whole)
                if position == 1:
                    u = ulp(c, accumulator)
                    out.momentum.append((abs(c - r) / u, s / u, bound / u, f / u))
                else:
                    out.params.append(whole)
                    if c != 0.0:
                        out.params_relative.append(bound / abs(c))
            worst, position = max(ratios)
            out.recorded.append(worst)
            out.recorded_at.append(("update Δ", "momentum")[position] + f" (step {check.step})")
    return out


def honest_table(results: dict[str, Pairs], seeds: int, steps: int) -> str:
    rows = [
        [
            "momentum",
            "runs",
            "checks",
            "false alarms",
            "worst margin (recorded)",
            "set by",
            "worst margin (whole bound)",
            "momentum: largest difference (ulps)",
            "momentum at 0 / 1 ulp",
            "momentum: min spread (ulps)",
            "momentum: min / median bound (ulps)",
            "update Δ: median bound / value",
        ]
    ]
    for name, p in results.items():
        worst = max(range(len(p.recorded)), key=p.recorded.__getitem__)
        m = np.array(p.momentum)
        zero = int(np.sum(m[:, 0] == 0))
        one = int(np.sum(np.isclose(m[:, 0], 1.0)))
        rows.append(
            [
                name,
                f"{seeds} x {steps} steps",
                str(p.checks),
                str(len(p.failed)),
                f"{p.recorded[worst]:.3g}",
                p.recorded_at[worst],
                f"{max(p.whole):.3g}",
                f"{m[:, 0].max():.3g}",
                f"{zero} / {one} of {len(m)}",
                f"{m[:, 1].min():.3g}",
                f"{m[:, 2].min():.3g} / {np.median(m[:, 2]):.3g}",
                f"{np.median(p.params_relative):.2g}",
            ]
        )
    return table(rows)


def histogram(results: dict[str, Pairs]) -> str:
    edges = [0.0, 1e-3, 0.01, 0.03, 0.1, 0.3, 1.0, math.inf]
    labels = [
        "0",
        "(0, 1e-3]",
        "(1e-3, 0.01]",
        "(0.01, 0.03]",
        "(0.03, 0.1]",
        "(0.1, 0.3]",
        "(0.3, 1]",
    ]
    rows = [["pairs", *labels]]
    for name, p in results.items():
        for what, values in (
            ("momentum", [d / b for d, _, b, _ in p.momentum]),
            ("update Δ", p.params),
        ):
            v = np.array(values)
            counts = [int(np.sum(v == 0))] + [
                int(np.sum((v > lo) & (v <= hi))) for lo, hi in itertools.pairwise(edges)
            ][:-1]
            rows.append([f"{name} {what}", *map(str, counts)])
    return "Each pair's difference over its whole bound:\n\n" + table(rows)


# -- tampers ------------------------------------------------------------------------------------


TAMPERS = ("update", "momentum", "momentum edit", "miscompile")


def tampers(accumulators: list[str], steps: int, directory: Path, kinds: Sequence[str]) -> str:
    rows = [["momentum", "tamper", *[f"r = {r:g}" for r in SCALES]]]
    for accumulator in accumulators:
        for tamper in kinds:
            cells = []
            for r in SCALES:
                caught = []
                for seed in range(5 if tamper == "miscompile" else 1):
                    if tamper == "miscompile":
                        failure = miscompiled(accumulator, seed, steps, directory, r)
                    else:
                        _, failure = train(accumulator, seed, steps, directory, tamper, r)
                    caught.append(failure)
                hits = [f for f in caught if f is not None]
                cell = f"{len(hits)}/{len(caught)}"
                if hits:
                    cell += " " + hits[0].split(":")[0]
                cells.append(cell)
                print(f"{accumulator} {tamper} {r:g}: {caught}", file=sys.stderr)
            rows.append([accumulator, f"{tamper} x(1+r)", *cells])
    return table(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--dtypes", default="bf16,f16,f32")
    parser.add_argument("--only", choices=["honest", "tampers"])
    parser.add_argument("--tampers", default=",".join(TAMPERS))
    args = parser.parse_args()
    accumulators = args.dtypes.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        if args.only in (None, "honest"):
            results = {a: honest(a, args.seeds, args.steps, directory) for a in accumulators}
            print(honest_table(results, args.seeds, args.steps))
            print()
            print(histogram(results))
            for a, p in results.items():
                for failure in p.failed:
                    print(f"{a}: {failure}")
            print()
        if args.only in (None, "tampers"):
            print(tampers(accumulators, args.steps, directory, args.tampers.split(",")))


if __name__ == "__main__":
    main()
