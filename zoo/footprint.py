"""How large a torch entry's gradient tamper is against its honest noise: ``python -m
zoo.footprint NAME``.

A tamper that a state check does not catch is either below what its checks can see or a gap
in them. This tool tells the two apart for a torch entry's gradient tamper (one parameter's
gradient scaled by ``1 + r`` at the last step, :data:`zoo.harness.Mode`). It runs the entry
twice in subprocesses, honest and tampered, with every step's state check measuring its perturbation
ensemble's spread, and keeps every state check's optimizer-state values: committed by
production, recomputed by the replay, and the spread. The two runs are the same up to the
tampered last step, and at that step the replay recomputes the same values in both (same
pre-state, same batch), so the tampered minus the honest *committed* values is the tamper's
own footprint. Everything is measured in noise units, ``d / max(ulp(x), spread)``, the unit
of ``docs/protocol.md`` §8a:

- **footprint**: the mean ``|tampered - honest|`` over a leaf at the last step;
- **noise**: the root mean square of the honest ``committed - recomputed`` over the leaf;
- **bias**: the honest per-leaf mean of ``committed - recomputed`` (signed), the largest over
  every step and every leaf of at least :data:`BIAS_VALUES` values (the mean of fewer is
  mostly their sampling noise). Honest replays keep a small sign of their own in some
  leaves (an Adam second moment squares its gradient's rounding noise, which only adds), so
  a statistic that looks for a coherent shift must leave this much room to an honest run.

A footprint below the honest noise and below the honest bias of the same run is one that no
test of these values, per value or over a leaf, can tell from an honest run. The update
sketches are left out: their directions derive from the step's commitment, which the tamper
changes.
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zoo.entries import BY_NAME

BIAS_VALUES = 1024
"""The smallest leaf whose mean difference counts as a bias."""


def _dump(name: str, mode: str, steps: int, out: Path) -> None:
    """Run ``name`` once in this process, writing every state check's optimizer-state values."""
    import zkdv.session._checker as checker
    import zkdv.torch._session as torch_session
    from zoo import worker

    layouts: dict[int, tuple[int, int]] = {}
    checks: list[dict[str, Any]] = []
    replay = torch_session.ZKDV._replay

    def recording_replay(self: Any, job: Any) -> Any:
        # Which of the state check's leaves are the optimizer state: after one update sketch
        # per parameter come the post-optimizer state's leaves.
        payload = job.payload
        layouts[job.step] = (len(payload.updates), len(payload.post_state))
        return replay(self, job)

    state_result = checker.state_result

    def measuring_state_result(
        step: int, state: Any, tolerance: Any, length: int, spread: Any = None
    ) -> Any:
        if spread is None and state.members is not None and tolerance.replays:
            spread = tolerance.measure_spread(state.recomputed, state.members)
            sketches, n_state = layouts[step]
            offsets = np.cumsum([0, *(n for n, _ in state.groups)])
            leaves = range(sketches, sketches + n_state)
            checks.append(
                {
                    "step": step,
                    "leaves": [
                        (
                            state.committed[offsets[i] : offsets[i + 1]],
                            state.recomputed[offsets[i] : offsets[i + 1]],
                            np.asarray(spread)[offsets[i] : offsets[i + 1]],
                        )
                        for i in leaves
                        if state.groups[i][1]
                    ],
                }
            )
        return state_result(step, state, tolerance, length, spread)

    torch_session.ZKDV._replay = recording_replay  # type: ignore[method-assign]
    checker.state_result = measuring_state_result  # type: ignore[assignment]
    outcome = worker.run_single(BY_NAME[name], mode, steps, Path(tempfile.mkdtemp()), seal=False)  # type: ignore[arg-type]
    out.write_bytes(pickle.dumps({"status": outcome.status, "checks": checks}))


def _units(committed: np.ndarray, difference: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """``difference`` in noise units: over ``max(ulp(committed) in f32, spread)``."""
    magnitude = np.abs(committed.astype(np.float32))
    ulp = np.spacing(magnitude).astype(np.float64)
    return difference / np.maximum(ulp, spread)


@dataclass
class Leaf:
    """One optimizer-state leaf at the tampered step."""

    index: int
    values: int
    footprint: float
    noise: float


def measure(honest: dict[str, Any], tampered: dict[str, Any]) -> tuple[list[Leaf], float]:
    """The last step's leaves the tamper moved, and the largest honest per-leaf bias."""
    bias = 0.0
    for check in honest["checks"]:
        for committed, recomputed, spread in check["leaves"]:
            if committed.size >= BIAS_VALUES:
                z = _units(committed, committed - recomputed, spread)
                bias = max(bias, abs(float(z.mean())))
    last = max(c["step"] for c in honest["checks"])
    (h,) = [c for c in honest["checks"] if c["step"] == last]
    (t,) = [c for c in tampered["checks"] if c["step"] == last]
    leaves = []
    for i, ((hc, hr, hs), (tc, _, _)) in enumerate(zip(h["leaves"], t["leaves"], strict=True)):
        if not hc.size or np.array_equal(hc, tc):
            continue
        footprint = float(np.abs(_units(hc, tc - hc, hs)).mean())
        noise = float(np.sqrt((_units(hc, hc - hr, hs) ** 2).mean()))
        leaves.append(Leaf(i, int(hc.size), footprint, noise))
    return leaves, bias


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a torch entry of the zoo")
    parser.add_argument("--steps", type=int, default=4)
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
        for mode in ("honest", "gradient"):
            out = Path(directory) / f"{mode}.pkl"
            command = [sys.executable, "-m", "zoo.footprint", args.name, "--steps"]
            command += [str(args.steps), "--dump", mode, str(out)]
            subprocess.run(command, check=True)
            runs[mode] = pickle.loads(out.read_bytes())
    leaves, bias = measure(runs["honest"], runs["gradient"])
    statuses = f"honest run {runs['honest']['status']}, tampered {runs['gradient']['status']}"
    print(f"{args.name}: {statuses}")
    print("optimizer-state leaves the tamper moved at the last step (noise units):")
    print("  leaf  values  footprint  honest noise (rms)  footprint / noise")
    for leaf in sorted(leaves, key=lambda x: -x.footprint)[:12]:
        ratio = leaf.footprint / leaf.noise if leaf.noise else float("inf")
        print(
            f"  {leaf.index:4d} {leaf.values:7d}  {leaf.footprint:9.4f}  {leaf.noise:18.4f}"
            f"  {ratio:17.3f}"
        )
    largest = max((x.footprint for x in leaves), default=0.0)
    print(f"largest footprint {largest:.4f}; largest honest per-leaf bias {bias:.4f}")


if __name__ == "__main__":
    main()
