"""Under f16 autocast: where a PyTorch state check's bounds sit, and which test sees a tamper.

A small MLP (16-64-64-10, 5,898 parameters, f32 everywhere) trains with AdamW
(``lr=1e-3``) under ``torch.autocast("cpu", dtype=torch.float16)`` and a
``torch.amp.GradScaler``, as torch's AMP recipe writes it (scaled loss, ``unscale_``,
``clip_grad_norm_(1.0)``, ``scaler.step``, ``scaler.update``), in a ``zkdv.torch`` session with
every step checked (``SamplingPolicy.DEBUGCheckEvery(1)``).

Honest runs. Every state check's values are kept (``zkdv.session._checker.state_result`` is
wrapped, as ``zoo/footprint.py`` does): committed, recomputed and the ensemble's spread (a
narrow-float program's state check always measures it), per leaf. A torch state check compares
each parameter's update through its probe sketch (``probe_ratio=0.25``: each sketch value a
weighted sum of about four coordinates of the update) and the optimizer state value by value.
For the update sketches and the two AdamW moments, reported per kind of leaf:

- the honest ``|committed - recomputed|`` in ulps of f32 at the committed value (the state is
  f32), and how many values differ by exactly 0;
- the spread in f32 ulps and in f16 ulps of the value (the compute is f16);
- each value's whole bound ``abs + rel * |c| + spread_factor * spread`` (``abs`` scaled to the
  value's row, ``Tolerance.state_bounds``) relative to the value
  (for an update sketch: a share of the update) and as a multiple of the honest difference
  (where that is not 0);
- each pair's difference over its bound, and the bias test's largest statistic against its
  limit (``Tolerance.leaf_statistics``).

Tampers (one session each, at the last step, on the first weight matrix, as the zoo's
``update`` and ``gradient`` tampers do, ``zoo/harness.py``): ``update x(1+r)`` rewrites the
parameter after the step so that its update is ``1 + r`` times production's, ``gradient
x(1+r)`` scales its gradient on the backward pass. Each cell names the check's verdict and, for
a failure, whether a pair was out of its bound or a leaf failed the bias test (its kind, leaf,
statistic and limit).

Usage: ``python scripts/studies/autocast_bounds.py [--seeds N] [--steps N] [--only
honest|tampers]``. It prints Markdown tables. One core (``torch.set_num_threads(1)``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import table
from torch import nn

import zkdv
import zkdv.session._checker as checker

EVERY = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
FEATURES, HIDDEN, CLASSES, ROWS = 16, 64, 10, 32
KINDS = ("update sketch", "exp_avg", "exp_avg_sq")
TARGET = "0.weight"
"""The tampered parameter: the first weight matrix."""


@dataclass
class Leaf:
    """One float leaf of a state check (its last comparison at that step)."""

    step: int
    name: str
    committed: np.ndarray
    recomputed: np.ndarray
    spread: np.ndarray
    update: np.ndarray
    tolerance: zkdv.Tolerance
    statistics: list[tuple[str, float, float]]
    bound: np.ndarray
    """Each value's bound as the state check applies it (``Tolerance.state_bounds``: the
    absolute term scaled to its row, a narrow program's spread floored at its row's share)."""


def kind_of(name: str) -> str | None:
    """The kind of a state leaf by its name: a parameter's update sketch, an AdamW moment,
    else ``None`` (a step count, the scaler's state)."""
    if name.startswith("update of "):
        return "update sketch"
    for kind in ("exp_avg_sq", "exp_avg"):
        if name.endswith(kind):
            return kind
    return None


@contextlib.contextmanager
def recording(leaves: list[Leaf]) -> Iterator[None]:
    """Keep every measured state comparison's float leaves in ``leaves``."""
    original = checker.state_result

    def wrapped(step: int, state: Any, tolerance: Any, length: int, *rest: Any) -> Any:
        spread = rest[0] if rest else None
        if spread is not None and state.groups is not None:
            offsets = np.cumsum([0, *(g[0] for g in state.groups)])
            names = state.names or [str(i) for i in range(len(state.groups))]
            scales = rest[1] if len(rest) > 1 else None
            kept = [leaf for leaf in leaves if leaf.step != step]  # the latest comparison
            for i, group in enumerate(state.groups):
                if not group[1]:
                    continue
                part = slice(offsets[i], offsets[i + 1])
                c, r = state.committed[part], state.recomputed[part]
                s = np.asarray(spread)[part]
                stats = tolerance.leaf_statistics(
                    c, r, [group], s, state.flips, None if scales is None else [scales[i]]
                )
                kept.append(
                    Leaf(
                        step,
                        names[i],
                        np.asarray(c, np.float64),
                        np.asarray(r, np.float64),
                        np.asarray(s, np.float64),
                        np.asarray(state.update[part], np.float64),
                        tolerance,
                        [(k, v, lim) for _, k, v, lim in stats],
                        tolerance.state_bounds(c, r, [group], s, state.flips),
                    )
                )
            leaves[:] = kept
        return original(step, state, tolerance, length, *rest)

    checker.state_result = wrapped  # type: ignore[assignment]
    try:
        yield
    finally:
        checker.state_result = original  # type: ignore[assignment]


def batches(seed: int, steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``steps`` batches of ``ROWS`` rows: Gaussian features, labels of a random linear map."""
    g = torch.Generator().manual_seed(1000 + seed)
    w = torch.randn(FEATURES, CLASSES, generator=g)
    out = []
    for _ in range(steps):
        x = torch.randn(ROWS, FEATURES, generator=g)
        out.append((x, (x @ w).argmax(dim=1)))
    return out


def run(seed: int, steps: int, tamper: str | None, r: float, leaves: list[Leaf]) -> Any:
    """One session; returns ``(status, message, checks)``."""
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(FEATURES, HIDDEN),
        nn.Tanh(),
        nn.Linear(HIDDEN, HIDDEN),
        nn.Tanh(),
        nn.Linear(HIDDEN, CLASSES),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=1000)
    proof = zkdv.torch.ZKDV(Path(tempfile.mkdtemp()) / "proof", EVERY)
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer, scaler = proof.prepare(model, optimizer, scaler)
    target = model[0].weight

    def step(model: Any, optimizer: Any, batch: Any, forward: Any) -> None:
        x, y = batch
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(forward(x), y)
        proof.backward(scaler.scale(loss))
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()

    proof.attest(lambda m, o, b: step(m, o, b, lambda x: proof.forward(m, x)))
    status, message = "closed", ""
    with recording(leaves):
        try:
            data = batches(seed, steps)
            for index, batch in enumerate(data):
                last = index == len(data) - 1
                hook = None
                if last and tamper == "gradient":
                    hook = target.register_hook(lambda g: g * (1 + r))
                before = target.detach().clone()
                with proof.transaction(batch=batch):
                    step(model, optimizer, batch, model)
                    if last and tamper == "update":
                        with torch.no_grad():
                            target.copy_(before + (target.detach() - before) * (1 + r))
                if hook is not None:
                    hook.remove()
            proof.close()
        except zkdv.ZKDVPoisonedError as error:
            status, message = "poisoned", str(error).splitlines()[0]
            with contextlib.suppress(Exception):
                proof.close()
    checks = []
    with contextlib.suppress(Exception):
        checks = list(proof.checks)
    return status, message, checks


def ulp(values: np.ndarray, dtype: Any) -> np.ndarray:
    """The spacing of ``dtype`` at ``|values|``."""
    return np.spacing(np.abs(values).astype(dtype)).astype(np.float64)


def quantiles(values: np.ndarray) -> str:
    """Median / 90th percentile / largest."""
    if values.size == 0:
        return "-"
    q = np.quantile(values, [0.5, 0.9, 1.0])
    return " / ".join(f"{x:.3g}" for x in q)


def low(group: list[Leaf]) -> str:
    """The smallest ``bound / |value|`` of any value, and the median over the checks (a leaf
    at a step) of each one's smallest: how large a coherent relative change must be for one
    pair of the leaf to leave its bound."""
    smallest = []
    for leaf in group:
        c = leaf.committed
        nz = c != 0
        if nz.any():
            smallest.append(float(np.min(leaf.bound[nz] / np.abs(c[nz]))))
    if not smallest:
        return "-"
    return f"{min(smallest):.3g}, {float(np.median(smallest)):.3g}"


def honest(seeds: int, steps: int) -> None:
    """The honest runs' bounds, per kind of leaf."""
    per_kind: dict[str, list[Leaf]] = {k: [] for k in KINDS}
    statuses, bias = [], []
    tolerance = None
    for seed in range(seeds):
        leaves: list[Leaf] = []
        status, message, checks = run(seed, steps, None, 0.0, leaves)
        statuses.append(status if not message else f"{status}: {message}")
        for leaf in leaves:
            tolerance = leaf.tolerance
            kind = kind_of(leaf.name)
            if kind is not None:
                per_kind[kind].append(leaf)
            for k, v, lim in leaf.statistics:
                bias.append((abs(v) / lim if lim > 0 else 0.0, k, leaf.name, leaf.step, v, lim))
        del checks
    print(f"runs: {seeds} x {steps} steps; statuses: {sorted(set(statuses))}")
    print(f"state check tolerance: {tolerance}\n")
    assert tolerance is not None
    rows = [
        [
            "leaves",
            "values",
            "difference = 0",
            "|difference| (f32 ulps) median / p90 / max",
            "spread (f32 ulps)",
            "spread (f16 ulps)",
            "bound / |value|",
            "bound / |value|: min, smallest per check (median)",
            "bound / |difference| (where != 0)",
            "difference / bound, max",
        ]
    ]
    tampered = [f"update of {TARGET}", f"{TARGET}/exp_avg", f"{TARGET}/exp_avg_sq"]
    selections = [(kind, per_kind[kind]) for kind in KINDS]
    selections += [
        (f"{name} (tampered leaf)", [leaf for leaf in per_kind[kind] if leaf.name.endswith(name)])
        for kind, name in zip(KINDS, tampered, strict=True)
    ]
    for kind, group in selections:
        if not group:
            continue
        c = np.concatenate([leaf.committed for leaf in group])
        r = np.concatenate([leaf.recomputed for leaf in group])
        s = np.concatenate([leaf.spread for leaf in group])
        d = np.abs(c - r)
        bound = np.concatenate([leaf.bound for leaf in group])
        nz = c != 0
        rows.append(
            [
                kind,
                str(c.size),
                f"{np.mean(d == 0):.0%}",
                quantiles(d / ulp(c, np.float32)),
                quantiles(s / ulp(c, np.float32)),
                quantiles(s[nz] / ulp(c[nz], np.float16)),
                quantiles(bound[nz] / np.abs(c[nz])),
                low(group),
                quantiles(bound[d > 0] / d[d > 0]),
                f"{np.max(d / bound):.3g}",
            ]
        )
    print(table(rows))
    print("\n(median / 90th percentile / largest over every value of every checked step)\n")
    bias.sort(reverse=True)
    rows = [["bias test", "statistic / limit", "leaf", "step", "statistic", "limit"]]
    for kind in ("scale", "mean"):
        worst = [b for b in bias if b[1] == kind][:1]
        for ratio, k, name, step, v, lim in worst:
            rows.append([k, f"{ratio:.3g}", name, str(step), f"{v:.3g}", f"{lim:.3g}"])
    print(table(rows))


def verdict(status: str, message: str, checks: list[Any], last: int) -> str:
    """Which test refused the tampered step, or ``"passed"``."""
    for check in checks:
        if check.step == last and check.kind == "state" and check.verdict == "fail":
            if check.bias is not None:
                b = check.bias
                return f"bias ({b.kind}: {b.value:.3g} > {b.limit:.3g}, {b.name})"
            return f"pair ({check.committed[0]:.6g} vs {check.recomputed[0]:.6g})"
    for check in checks:
        if check.verdict == "fail":
            return f"{check.kind} check, step {check.step}"
    return status if not message else f"{status}: {message[:60]}"


def tampers(seed: int, steps: int, sizes: list[float]) -> None:
    """Each tamper at each size, one session each."""
    rows = [["tamper", *(f"r = {r:g}" for r in sizes)]]
    for mode in ("update", "gradient"):
        cells = []
        for r in sizes:
            status, message, checks = run(seed, steps, mode, r, [])
            cells.append(verdict(status, message, checks, steps - 1))
        rows.append([f"{mode} x(1+r)", *cells])
    print(table(rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--sizes", default="0.001,0.003,0.01,0.1")
    parser.add_argument("--tamper-seeds", type=int, default=1)
    parser.add_argument("--only", choices=("honest", "tampers"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.only != "tampers":
        honest(args.seeds, args.steps)
    if args.only != "honest":
        sizes = [float(x) for x in args.sizes.split(",")]
        for seed in range(args.tamper_seeds):
            print(f"\nTampers, seed {seed}, at step {args.steps - 1}:\n")
            tampers(seed, args.steps, sizes)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
