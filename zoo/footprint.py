"""How large a torch entry's gradient tamper is against its honest noise: ``python -m
zoo.footprint NAME``.

A tamper that a state check does not catch is either below what its checks can see or a gap
in them. This tool tells the two apart for a torch entry's gradient tamper (one parameter's
gradient scaled by ``1 + r`` at the last step, :data:`zoo.harness.Mode`). It runs the entry
twice in subprocesses, honest and tampered, with every step's state check measuring its
perturbation ensemble, and keeps every state check's leaves: committed by production,
recomputed by the replay, each value's spread and the leaf's largest member scale. The two runs
are the same up to the tampered last step, and at that step the replay recomputes the same
values in both (same pre-state, same batch), so the tampered minus the honest *committed*
values is the tamper's own footprint. Of the optimizer-state leaves (the update sketches are
left out: their directions derive from the step's commitment, which the tamper changes):

- **footprint**: the mean ``|tampered - honest|`` over a leaf at the last step, in noise
  units ``d / max(ulp(x), spread)`` (``docs/protocol.md`` §8a);
- **noise**: the root mean square of the honest ``committed - recomputed`` over the leaf, in
  the same units;
- **along the step**: the tamper's footprint as a multiple of the leaf's replayed change over
  the step, ``k = sum d u / sum u^2`` with ``u`` the replayed value minus the previous step's
  committed one. A scaled gradient moves an optimizer state along its step's change, so this
  is the direction a test over the leaf would look in;
- **bias**: the honest per-leaf mean noise unit of ``committed - recomputed`` (signed), the
  largest over every step and every leaf of at least :data:`BIAS_VALUES` values (the mean of
  fewer is mostly their sampling noise), which the mean test (``LeafBias``, kind "mean") must
  leave to an honest run;
- **coherence**: the honest ``committed - recomputed`` as a multiple of the step's change, the
  largest ``|k|`` over every step after the first and every leaf of at least
  :data:`BIAS_VALUES` values: how far two correct implementations move a whole leaf along its
  step apart.

It also prints the state check's own bias test (``Tolerance.leaf_statistics``, the statistics
``docs/protocol.md`` §8a defines, over every leaf, update sketches included): per kind, the
largest ``|value| / limit`` of the honest run at any step and of the tampered run at its last
step. ``--tamper update`` measures the update tamper instead of the gradient one; ``--leaf NAME``
prints one leaf's figures at every step of both runs.

A footprint below the honest noise, and a multiple along the step below the honest coherence of
the same run, is one that no test of these values, per value or over a leaf, can tell from an
honest run.
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zoo.entries import BY_NAME

BIAS_VALUES = 1024
"""The smallest leaf whose mean difference counts as a bias."""


def _dump(name: str, mode: str, steps: int, out: Path) -> None:
    """Run ``name`` once in this process, writing every state check's leaves: committed,
    recomputed, the ensemble's spread and each leaf's largest member scale."""
    import zkdv.session._checker as checker
    from zoo import worker

    checks: dict[int, dict[str, Any]] = {}
    state_result = checker.state_result

    def measuring_state_result(
        step: int,
        state: Any,
        tolerance: Any,
        length: int,
        spread: Any = None,
        scales: Any = None,
    ) -> Any:
        measurable = state.members is not None and state.groups is not None and tolerance.replays
        if spread is None and measurable and not state.flips:
            # An f32 program measures its ensemble only after a failure: measure it here. A
            # narrow-float program's check measures it next (``Checker.state_check``).
            spread, scales = tolerance.measure_ensemble(
                state.recomputed, state.members, state.groups
            )
        if spread is not None and state.groups is not None:
            offsets = np.cumsum([0, *(g[0] for g in state.groups)])
            names = state.names or [str(i) for i in range(len(state.groups))]
            leaves = []
            for i, group in enumerate(state.groups):
                if not group[1]:
                    continue
                part = slice(offsets[i], offsets[i + 1])
                committed, recomputed = state.committed[part], state.recomputed[part]
                leaf_spread = np.asarray(spread)[part]
                scale = float(scales[i]) if scales is not None else 0.0
                statistics = tolerance.leaf_statistics(
                    committed, recomputed, [group], leaf_spread, state.flips, [scale]
                )
                leaves.append(
                    Record(
                        names[i],
                        committed,
                        recomputed,
                        leaf_spread,
                        scale,
                        [(kind, value, limit) for _, kind, value, limit in statistics],
                    )
                )
            # The latest comparison of a step: a check that fails re-measures and compares again.
            checks[step] = {"step": step, "flips": state.flips, "leaves": leaves}
        return state_result(step, state, tolerance, length, spread, scales)

    checker.state_result = measuring_state_result  # type: ignore[assignment]
    outcome = worker.run_single(BY_NAME[name], mode, steps, Path(tempfile.mkdtemp()), seal=False)  # type: ignore[arg-type]
    out.write_bytes(pickle.dumps({"status": outcome.status, "checks": list(checks.values())}))


@dataclass
class Record:
    """One leaf of a state check: its name, committed and recomputed values, each value's
    ensemble spread, the largest scale of a member against the recomputed values, and the
    bias test's statistics of the leaf (``Tolerance.leaf_statistics``: kind, value, limit)."""

    name: str
    committed: np.ndarray
    recomputed: np.ndarray
    spread: np.ndarray
    member_scale: float
    statistics: list[tuple[str, float, float]] = field(default_factory=list)


def _units(committed: np.ndarray, difference: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """``difference`` in noise units: over ``max(ulp(committed) in f32, spread)``."""
    magnitude = np.abs(committed.astype(np.float32))
    ulp = np.spacing(magnitude).astype(np.float64)
    return difference / np.maximum(ulp, spread)


def _along(difference: np.ndarray, change: np.ndarray) -> float:
    """``difference`` as a least-squares multiple of ``change`` (0 where nothing changed)."""
    norm = float(np.dot(change, change))
    return float(np.dot(difference, change)) / norm if norm > 0 else 0.0


@dataclass
class Leaf:
    """One optimizer-state leaf the tamper moved at the last step."""

    name: str
    values: int
    footprint: float
    noise: float
    along: float


@dataclass
class Honest:
    """What honest disagreement between production and the replay leaves to a test over a
    leaf: its largest mean noise unit and its largest multiple of the step's change, each
    with the step and leaf where it was found."""

    bias: float
    bias_at: str
    coherence: float
    coherence_at: str
    tests: dict[str, Statistic] = field(default_factory=dict)
    """The bias test's largest statistic per kind over the honest run, against its limit."""


@dataclass
class Statistic:
    """A bias-test statistic of one leaf at one step, and its limit."""

    value: float
    limit: float
    at: str

    @property
    def ratio(self) -> float:
        return abs(self.value) / self.limit if self.limit > 0 else float("inf")


def largest_statistics(checks: list[dict[str, Any]]) -> dict[str, Statistic]:
    """Per kind of the bias test, the statistic of ``checks`` largest against its limit."""
    largest: dict[str, Statistic] = {}
    for check in checks:
        for leaf in check["leaves"]:
            for kind, value, limit in leaf.statistics:
                candidate = Statistic(value, limit, f"step {check['step']}, {leaf.name}")
                if kind not in largest or candidate.ratio > largest[kind].ratio:
                    largest[kind] = candidate
    return largest


def _optimizer_state(check: dict[str, Any]) -> dict[str, Record]:
    return {leaf.name: leaf for leaf in check["leaves"] if not leaf.name.startswith("update of ")}


def measure(honest: dict[str, Any], tampered: dict[str, Any]) -> tuple[list[Leaf], Honest]:
    """The last step's optimizer-state leaves the tamper moved, and the honest run's room."""
    checks = {c["step"]: _optimizer_state(c) for c in honest["checks"]}
    room = Honest(0.0, "-", 0.0, "-", largest_statistics(honest["checks"]))
    for step, leaves in sorted(checks.items()):
        for leaf in leaves.values():
            if leaf.committed.size < BIAS_VALUES:
                continue
            difference = leaf.committed - leaf.recomputed
            z = abs(float(_units(leaf.committed, difference, leaf.spread).mean()))
            if z > room.bias:
                room.bias, room.bias_at = z, f"step {step}, {leaf.name}"
            previous = checks.get(step - 1, {}).get(leaf.name)
            if previous is not None:
                k = abs(_along(difference, leaf.recomputed - previous.committed))
                if k > room.coherence:
                    room.coherence, room.coherence_at = k, f"step {step}, {leaf.name}"
    last = max(checks)
    (moved,) = [c for c in tampered["checks"] if c["step"] == last]
    moved_leaves = _optimizer_state(moved)
    leaves = []
    for name, h in checks[last].items():
        t = moved_leaves[name]
        if not h.committed.size or np.array_equal(h.committed, t.committed):
            continue
        footprint = t.committed - h.committed
        previous = checks.get(last - 1, {}).get(name)
        change = h.recomputed - previous.committed if previous is not None else h.recomputed
        leaves.append(
            Leaf(
                name,
                int(h.committed.size),
                float(np.abs(_units(h.committed, footprint, h.spread)).mean()),
                float(
                    np.sqrt((_units(h.committed, h.committed - h.recomputed, h.spread) ** 2).mean())
                ),
                _along(footprint, change),
            )
        )
    return leaves, room


def leaf_report(run: dict[str, Any], name: str) -> list[str]:
    """One line per state check of ``run`` that holds the leaf ``name``: its step, its values,
    the median spread relative to the replayed values, the largest member scale and the bias
    test's statistics against their limits."""
    lines = []
    for check in run["checks"]:
        for leaf in check["leaves"]:
            if leaf.name != name:
                continue
            nonzero = leaf.recomputed != 0
            relative = (
                f"{float(np.median(leaf.spread[nonzero] / np.abs(leaf.recomputed[nonzero]))):.3g}"
                if nonzero.any()
                else "-"
            )
            tests = "; ".join(
                f"{kind} {value:+.3g} of {limit:.3g}" for kind, value, limit in leaf.statistics
            )
            lines.append(
                f"  step {check['step']}: {leaf.committed.size} values, spread/|value| median "
                f"{relative}, member scale {leaf.member_scale:.3g}; {tests or 'no test'}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a torch entry of the zoo")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument(
        "--tamper",
        choices=("gradient", "update"),
        default="gradient",
        help="the tamper to measure (default: gradient)",
    )
    parser.add_argument(
        "--leaf",
        metavar="NAME",
        help='also print this leaf of every state check, e.g. "update of conv1.weight"',
    )
    parser.add_argument("--dump", nargs=2, metavar=("MODE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    entry = BY_NAME.get(args.name)
    if entry is None or entry.framework != "torch" or entry.ranks > 1:
        parser.error(f"{args.name!r} is not a single-process torch entry of the zoo")
    if args.dump:
        _dump(args.name, args.dump[0], args.steps, Path(args.dump[1]))
        return
    runs = {}
    with tempfile.TemporaryDirectory() as directory:
        for mode in ("honest", args.tamper):
            out = Path(directory) / f"{mode}.pkl"
            command = [sys.executable, "-m", "zoo.footprint", args.name, "--steps"]
            command += [str(args.steps), "--dump", mode, str(out)]
            subprocess.run(command, check=True)
            runs[mode] = pickle.loads(out.read_bytes())
    leaves, room = measure(runs["honest"], runs[args.tamper])
    statuses = f"honest run {runs['honest']['status']}, tampered {runs[args.tamper]['status']}"
    print(f"{args.name}: {statuses}")
    print("optimizer-state leaves the tamper moved at the last step:")
    print("  values  footprint  honest noise  along the step  leaf")
    print("          (noise units, mean | rms)   (multiple)")
    for leaf in sorted(leaves, key=lambda x: -x.footprint)[:12]:
        print(
            f"  {leaf.values:6d}  {leaf.footprint:9.4f}  {leaf.noise:12.4f}  {leaf.along:+14.3e}"
            f"  {leaf.name}"
        )
    largest = max(leaves, key=lambda x: x.footprint, default=None)
    if largest is not None:
        print(
            f"largest footprint {largest.footprint:.4f} noise units, "
            f"{largest.along:+.3e} of its step's change ({largest.name})"
        )
    print(f"largest honest per-leaf bias {room.bias:.4f} noise units ({room.bias_at})")
    print(f"largest honest coherence {room.coherence:.3e} of a step's change ({room.coherence_at})")
    last = max(c["step"] for c in runs[args.tamper]["checks"])
    moved = largest_statistics([c for c in runs[args.tamper]["checks"] if c["step"] == last])
    print("the bias test (docs/protocol.md §8a), largest |value| / limit per kind:")
    for kind in sorted(set(room.tests) | set(moved)):
        for label, found in (("honest, any step", room.tests), ("tampered, last step", moved)):
            x = found.get(kind)
            if x is not None:
                print(
                    f"  {kind:5s} {label:19s} {x.ratio:8.3f}  ({x.value:+.3e} of {x.limit:.3e}; "
                    f"{x.at})"
                )
    if args.leaf:
        for mode in ("honest", args.tamper):
            print(f"{args.leaf}, {mode} run:")
            print("\n".join(leaf_report(runs[mode], args.leaf)) or "  not in any state check")


if __name__ == "__main__":
    main()
