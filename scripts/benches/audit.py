"""What evidence retention costs a PyTorch prover, and how fast ``zkdv audit`` replays it.

In one process: the plain eager loop, then ``zkdv.torch`` sessions without retention, with
``retain="steps"`` (each step's batch and update sketches: what ``"checkpoints"`` costs between
its checkpoints) and with ``retain="all"`` (a full state every step) (sampling p = 0, blocks
interleaved), on the 1.07M-parameter MLP of ``scripts/bench torch``. A checkpoint every ``K``
steps costs what a step of ``"all"`` costs beyond one of ``"steps"``, once per ``K`` steps: the
amortized figure is printed for ``K = 100``. Then the retained bytes per step (compressed, as
stored, and raw) and an audit of every step with the release ``zkdv`` binary (``--jobs 1`` and
``--jobs 2``): transitions replayed per second, against the production step time.

With ``--rates``: the dishonest prover of ``python/tests/test_audit.py`` (it corrupts chosen
steps and writes passing check records for them, so ``zkdv verify`` accepts its transcript)
on a small MLP, audited under many seeds: the detection rate of ``--steps q`` against
``1 - C(n - k, q) / C(n, q)`` (and ``1 - (1 - f)^q``, ``f = k / n``).

With ``--intervals``: honest runs of the small models of ``python/tests/test_audit.py`` (a tanh
MLP with AdamW in f32, the same with SGD momentum in bf16, a CNN with BatchNorm and ReLU, a
two-ReLU MLP with Adam), 24 steps each, kept with ``retain="all"`` (K = 1) and with
``retain="checkpoints"`` every K = 4, 12 and 24 steps, each audited at every step: the exit
code, the worst snapshot's noise, the drift and the outliers admitted, by K.

Run: ``scripts/bench audit [--steps N] [--blocks N] [--rates [--seeds S]] [--intervals]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import torch

import zkdv
from zkdv import transcript

warnings.filterwarnings("ignore", category=FutureWarning)
torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
ZKDV = ROOT / "target" / "release" / "zkdv"
sys.path.insert(0, str(ROOT / "scripts" / "benches"))
import torch_frontend  # noqa: E402  (the model, data and timed loops of scripts/bench torch)

MAKE, SHAPE, CLASSES = torch_frontend.MODELS["mlp"]


def fresh() -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    model = MAKE()
    return model, torch.optim.Adam(model.parameters(), lr=1e-3)


def plain(data: list) -> float:
    model, optimizer = fresh()
    torch_frontend.plain(model, optimizer, data[:2])
    return torch_frontend.plain(model, optimizer, data)


def session(data: list, directory: Path, retain: str | None) -> float:
    model, optimizer = fresh()
    # Sealing is skipped there: a one-time cost of tens of seconds, not per step.
    return torch_frontend.attested(model, optimizer, data, 0.0, directory, retain)[0]


def sizes(directory: Path) -> tuple[float, float, float, float]:
    """(stored, raw) bytes per step of step evidence, and per snapshot."""
    records = transcript.read_records(directory)
    steps = [r["body"] for r in records if r["kind"] == "step"]
    snapshots = [r["body"] for r in records if r["kind"] == "snapshot"]

    def measure(artifacts: list[dict]) -> tuple[int, int]:
        stored = sum(a["size"] for a in artifacts)
        raw = sum(
            x.nbytes for a in artifacts for _, x in transcript.read_evidence(directory / a["name"])
        )
        return stored, raw

    s_stored, s_raw = measure(
        [e for b in steps for e in (b["evidence"]["batch"], b["evidence"]["update"])]
    )
    p_stored, p_raw = measure([b["artifact"] for b in snapshots if b["artifact"]])
    kept = max(1, sum(b["artifact"] is not None for b in snapshots))
    return (
        s_stored / len(steps),
        s_raw / len(steps),
        p_stored / kept,
        p_raw / kept,
    )


def rates(seeds: int) -> None:
    """The dishonest-prover table (see the module documentation)."""
    import math

    sys.path.insert(0, str(ROOT / "python" / "tests"))
    import test_audit

    n = 20
    config = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
    print(f"dishonest prover, {n} steps, every check forged where it cheats; {seeds} seeds each")
    print("corrupted k   f      q   verify   caught    predicted  1-(1-f)^q")
    with tempfile.TemporaryDirectory(prefix="zkdv-bench-rates-") as tmp:
        for k in (2, 5):
            directory = Path(tmp) / f"k{k}"
            corrupt = set(range(1, n, n // k))
            test_audit.run(directory, n, interval=1, corrupt=corrupt, config=config)
            verified = transcript.verify(directory)
            failed = verified["checks"]["state_failed"] + verified["checks"]["update_failed"]
            accepted = "valid" if failed == 0 else "invalid"
            for q in (1, 2, 4, 8):
                caught = 0
                for seed in range(seeds):
                    code, out = test_audit.audit(directory, "--steps", str(q), "--seed", f"{seed}")
                    assert code in (0, 1), out
                    caught += code == 1
                f = len(corrupt) / n
                predicted = 1 - math.comb(n - len(corrupt), q) / math.comb(n, q)
                print(
                    f"{len(corrupt):>11} {f:5.2f} {q:>4}   {accepted:<7} {caught / seeds:7.3f}"
                    f"    {predicted:7.3f}    {1 - (1 - f) ** q:7.3f}"
                )


def intervals(steps: int = 24) -> None:
    """Honest audits by checkpoint interval (see the module documentation)."""
    sys.path.insert(0, str(ROOT / "python" / "tests"))
    import test_audit
    from torch import nn

    def cases() -> list[tuple[str, dict]]:
        torch.manual_seed(0)
        cnn = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(4 * 6 * 6, 3),
        )
        g = torch.Generator().manual_seed(2)
        images = [
            (torch.randn(8, 1, 6, 6, generator=g), torch.randint(3, (8,), generator=g))
            for _ in range(steps)
        ]
        torch.manual_seed(0)
        relu = nn.Sequential(
            nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3)
        )
        bf16 = [(x.to(torch.bfloat16), y) for x, y in test_audit.batches(steps)]
        return [
            ("tanh MLP, AdamW, f32", {}),
            (
                "tanh MLP, SGD momentum, bf16",
                {
                    "model": test_audit.mlp().to(torch.bfloat16),
                    "optimizer": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                    "data": bf16,
                },
            ),
            (
                "CNN, BatchNorm, ReLU, SGD",
                {
                    "model": cnn,
                    "optimizer": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
                    "data": images,
                },
            ),
            (
                "two-ReLU MLP, Adam",
                {"model": relu, "optimizer": lambda p: torch.optim.Adam(p, lr=1e-3)},
            ),
        ]

    print(f"honest audits of every step, {steps} steps, by checkpoint interval K")
    print("model                          K   exit  noise  drift  outliers")
    with tempfile.TemporaryDirectory(prefix="zkdv-bench-intervals-") as tmp:
        for name, kwargs in cases():
            for k in (1, 4, 12, 24):
                directory = Path(tmp) / f"{len(name)}-{k}"
                if k == 1:
                    kept = {"retain": "all", "interval": 1}
                else:
                    kept = {"retain": "checkpoints", "interval": 4, "checkpoint_interval": k}
                test_audit.run(directory, steps, **kwargs, **kept)
                code, out = test_audit.audit(
                    directory, "--fraction", "1", "--seed", "k", "--jobs", "2"
                )
                noise = out["report"]["noise"]
                print(
                    f"{name:<30} {k:>2}   {code:>4}  {noise['worst_rms']:5.3f}  "
                    f"{noise['drift']:5.3f}  {noise['outliers']:>8}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--rates", action="store_true")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--intervals", action="store_true")
    args = parser.parse_args()
    if args.rates:
        rates(args.seeds)
        return
    if args.intervals:
        intervals()
        return
    data = torch_frontend.batches(SHAPE, CLASSES, args.steps)
    times: dict[str, list[float]] = {
        "eager": [],
        "retain=None": [],
        "retain='steps'": [],
        "retain='all'": [],
    }
    with tempfile.TemporaryDirectory(prefix="zkdv-bench-audit-") as tmp:
        kept, steps_only = Path(tmp) / "kept", Path(tmp) / "steps"
        for block in range(args.blocks):
            times["eager"].append(plain(data))
            times["retain=None"].append(session(data, Path(tmp) / f"none{block}", None))
            directory = steps_only if block == 0 else Path(tmp) / f"steps{block}"
            times["retain='steps'"].append(session(data, directory, "steps"))
            directory = kept if block == 0 else Path(tmp) / f"all{block}"
            times["retain='all'"].append(session(data, directory, "all"))
        base = statistics.median(times["eager"])
        print(f"MLP 1,068,810 parameters, Adam, p=0, {args.blocks} blocks of {args.steps} steps")
        print("variant         ms/step   ratio to eager")
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{name:<15} {median * 1e3:8.3f}   {median / base:5.2f}")
        none, steps, retained = (
            statistics.median(times[k]) for k in ("retain=None", "retain='steps'", "retain='all'")
        )
        print(f"retain='all' costs {retained / none:.2f}x the session without retention")
        print(f"retain='steps' costs {steps / none:.2f}x the session without retention")
        k = 100
        amortized = steps + max(0.0, retained - steps) / k
        print(
            f"retain='checkpoints' with a checkpoint every {k} steps: {amortized / none:.2f}x "
            f"(a checkpoint costs {(retained - steps) * 1e3:.1f} ms, once per {k} steps)"
        )
        stored, raw, _, _ = sizes(steps_only)
        print(
            f"retain='steps' keeps per step: {stored / 1024:.1f} KiB stored, "
            f"{raw / 1024:.1f} KiB raw (the batch, {data[0][0].nbytes / 1024:.1f} KiB of inputs, "
            "and the update sketches)"
        )
        stored, raw, snap_stored, snap_raw = sizes(kept)
        print(
            f"retained per step: {stored / 1024:.1f} KiB stored, {raw / 1024:.1f} KiB raw "
            f"({raw / stored:.2f}x compression); per snapshot: "
            f"{snap_stored / 2**20:.2f} MiB stored, {snap_raw / 2**20:.2f} MiB raw "
            f"({snap_raw / snap_stored:.2f}x)"
        )

        def audit(*options: str) -> dict:
            command = [str(ZKDV), "audit", str(kept), "--fraction", "1", "--seed", "bench"]
            out = subprocess.run(
                [*command, "--json", *options], capture_output=True, text=True, check=False
            )
            report = json.loads(out.stdout)["report"]
            assert report["failure"] is None, report
            return report

        for jobs in (1, 2):
            report = audit("--jobs", str(jobs))
            rate = report["transitions"] / report["seconds"]
            print(
                f"audit --jobs {jobs}: {report['transitions']} transitions in "
                f"{report['seconds']:.2f} s = {rate:.1f}/s; one transition = "
                f"{1 / rate / base:.1f} eager steps ({report['snapshots_compared']} snapshots "
                "compared in full)"
            )
        # The noise test's cost: the same audit with its limit out of reach (then the ensemble
        # runs only where a pair exceeds its fixed bound, as before the test), interleaved.
        seconds: dict[str, list[float]] = {"without the noise test": [], "with it": []}
        for _ in range(args.blocks):
            seconds["without the noise test"].append(audit("--max-noise=1e300")["seconds"])
            seconds["with it"].append(audit()["seconds"])
        before, after = (statistics.median(v) for v in seconds.values())
        noise = audit()["noise"]
        print(
            f"audit --jobs 1 without the noise test {before:.2f} s, with it {after:.2f} s "
            f"({after / before:.2f}x); noise {noise['worst_rms']:.3f} in the worst snapshot, "
            f"drift {noise['drift']:.3f} per snapshot, "
            f"{noise['outliers']} outliers"
        )


if __name__ == "__main__":
    main()
