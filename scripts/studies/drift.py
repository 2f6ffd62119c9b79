"""The largest drift an audit accepts: ``python scripts/studies/drift.py [--quick]``.

A dishonest prover that knows the auditor's rule adds, at every step, a small change in a
fixed direction of its choosing to the parameters production hands on (the attack that broke
Proof-of-Learning: each step within tolerance, the sum a planted direction). This script plays
that prover on a Flax MLP trained with Adam, retaining all evidence and recording no
in-process check (the prover's own checks are whatever it writes), and finds by bisection the
largest drift scale for which ``zkdv audit --fraction 1`` still passes:

- before: the per-pair tolerance alone (``--max-noise`` and ``--max-drift`` out of reach),
  with the drift shaped as that rule allows: ``s * (abs + rel * |x|)`` per coordinate;
- after: the default audit, with the noise and drift tests (``zkdv_protocol::noise``), the
  drift shaped as they allow: ``s * ulp(x)`` per coordinate.

For each setting (f32 at lr 1e-3 and 1e-4, bf16 computation at lr 1e-3) it prints the largest
accepted drift as a fraction of the honest run's total parameter movement,
``|x_T(drift) - x_T(honest)| / |x_T(honest) - x_0|``. Figures: ``docs/soundness.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from common import require_zkdv, table, zkdv_json


def train(
    directory: Path, steps: int, lr: float, dtype: str, drift: Any | None, interval: int
) -> list[np.ndarray]:
    """Train the MLP for ``steps`` steps under ``zkdv.jax``; ``drift(x) -> change`` is added to
    every parameter leaf production hands on. Returns the first and last parameters (flat)."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax

    import zkdv
    from zkdv.checks import CheckResult

    class Mlp(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            kind = jnp.bfloat16 if dtype == "bf16" else jnp.float32
            x = nn.gelu(nn.Dense(64, dtype=kind)(x))
            x = nn.gelu(nn.Dense(64, dtype=kind)(x))
            return nn.Dense(4, dtype=kind)(x).astype(jnp.float32)

    proof = zkdv.jax.ZKDV(directory, replay_snapshot_interval=interval, retain="all")
    proof.start(rolling_window=2, probe_ratio=0.1)
    model = Mlp()
    params = model.init(jax.random.key(0), jnp.zeros((1, 16)))["params"]
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.adam(lr)
    )
    first = np.concatenate([np.ravel(x) for x in jax.tree.leaves(state.params)])

    def step(state: Any, x: jax.Array, y: jax.Array) -> Any:
        def loss(p: Any) -> jax.Array:
            logits = state.apply_fn({"params": p}, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        return state.apply_gradients(grads=jax.grad(loss)(state.params))

    if drift is not None:

        def inject(index: int, parts: Any) -> None:
            leaves = parts["post_params"]
            for i, leaf in enumerate(leaves):
                host = np.asarray(leaf)
                leaves[i] = jnp.asarray(host + drift(i, host).astype(host.dtype))

        # The prover controls its own machine: it changes what production hands on, and writes
        # passing records for the in-process checks instead of running them.
        proof._fault_hook = inject

        def forged(job: Any) -> None:
            tolerance = job.program.tolerance
            if job.state:
                passed = CheckResult(job.step, "state", (), (0.0,), (0.0,), tolerance, "pass", 0)
                proof._checker.record(passed)
            if job.indices:
                values = (0.0,) * len(job.indices)
                indices = tuple(job.indices)
                proof._checker.record(
                    CheckResult(job.step, "update", indices, values, values, tolerance, "pass", 0)
                )
            proof._job_done(job)  # hands the job's snapshot back, as a check run does

        proof._checker.run = forged
        proof._compare_state = lambda *args: None  # and skips the continuity check
        proof._close_segment = lambda *args: None  # and the closure of each segment
        proof._last_state_check = lambda: None  # and the replay of its last segment at close()
    proved = proof.jit(step)
    rng = np.random.default_rng(2)
    true_w = np.random.default_rng(1).normal(size=(16, 4)).astype(np.float32)
    for _ in range(steps):
        x = rng.normal(size=(32, 16)).astype(np.float32)
        state = proved(state, x, np.argmax(x @ true_w, axis=1).astype(np.int32))
    proof.close()
    last = np.concatenate([np.ravel(x) for x in jax.tree.leaves(state.params)])
    return [first, last]


def audit(directory: Path, before: bool) -> bool:
    limits = ["--max-noise=1e300", "--max-drift=1e300"] if before else []
    _, data = zkdv_json("audit", str(directory), "--fraction", "1", "--seed", "drift", *limits)
    if "report" not in data:
        raise SystemExit(f"the audit could not run: {data}")
    return bool(data["passed"])


def largest(
    work: Path,
    setting: dict[str, Any],
    before: bool,
    honest_last: np.ndarray,
    movement: float,
    iterations: int,
) -> tuple[float, float]:
    """Bisect (in log scale) the largest drift scale the audit accepts; returns it and the
    fraction of the honest movement it moves the final model by."""
    signs: dict[int, np.ndarray] = {}

    def shape(scale: float) -> Any:
        def drift(i: int, x: np.ndarray) -> np.ndarray:
            if i not in signs:
                signs[i] = np.where(np.random.default_rng(10 + i).random(x.shape) < 0.5, -1, 1)
            unit = 1e-6 + 1e-5 * np.abs(x) if before else np.spacing(np.abs(x).astype(x.dtype))
            return scale * signs[i] * unit

        return drift

    low, high = (1e-3, 2.0) if before else (1e-2, 1e4)
    best = (0.0, 0.0)
    for n in range(iterations):
        scale = float(np.sqrt(low * high))
        directory = work / f"{setting['name']}-{'before' if before else 'after'}-{n}"
        _, last = train(directory, drift=shape(scale), **setting["train"])
        if audit(directory, before):
            best = (scale, float(np.linalg.norm(last - honest_last) / movement))
            low = scale
        else:
            high = scale
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and bisections")
    args = parser.parse_args()
    require_zkdv()
    steps, iterations = (6, 6) if args.quick else (12, 10)
    settings = [
        {"name": "f32-lr1e-3", "train": {"lr": 1e-3, "dtype": "f32"}},
        {"name": "f32-lr1e-4", "train": {"lr": 1e-4, "dtype": "f32"}},
        {"name": "bf16-lr1e-3", "train": {"lr": 1e-3, "dtype": "bf16"}},
    ]
    results = []
    with tempfile.TemporaryDirectory(prefix="zkdv-drift-") as work:
        for setting in settings:
            setting["train"].update(steps=steps, interval=1)
            first, last = train(
                Path(work) / f"{setting['name']}-honest", drift=None, **setting["train"]
            )
            if not audit(Path(work) / f"{setting['name']}-honest", before=False):
                raise SystemExit(f"{setting['name']}: the honest run fails its audit")
            movement = float(np.linalg.norm(last - first))
            row = {"setting": setting["name"], "steps": steps}
            for before in (True, False):
                scale, fraction = largest(Path(work), setting, before, last, movement, iterations)
                key = "before" if before else "after"
                row[f"{key}_scale"], row[f"{key}_fraction"] = scale, fraction
            results.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    rows = [["setting", "before: largest accepted drift", "after", "before/after"]]
    for r in results:
        ratio = r["before_fraction"] / r["after_fraction"] if r["after_fraction"] else float("inf")
        rows.append(
            [
                r["setting"],
                f"{r['before_fraction']:.3%} (s={r['before_scale']:.3g})",
                f"{r['after_fraction']:.4%} (s={r['after_scale']:.3g} ulp)",
                f"{ratio:.0f}x",
            ]
        )
    print(table(rows))


if __name__ == "__main__":
    main()
