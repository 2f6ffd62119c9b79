"""Time PyTorch training steps under ``zkdv.torch`` against the same eager loop without it.

For each model, blocks of steps alternate between the plain eager loop and ZKDV sessions at
sampling probability p (state and update checks each), in one process, and the median
per-step time of each variant is reported with its ratio to the plain loop. Also printed:
the bytes per step record and the time of one check.

Run: ``scripts/bench torch [--blocks N] [--steps N] [--model mlp|small]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional

import zkdv

warnings.filterwarnings("ignore", category=FutureWarning)
torch.set_num_threads(1)

MODELS = {
    "mlp": (
        lambda: nn.Sequential(
            nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 256), nn.ReLU(), nn.Linear(256, 10)
        ),
        (64, 784),
        10,
    ),
    "small": (lambda: nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2)), (8, 10), 2),
}


def batches(shape: tuple[int, int], classes: int, n: int) -> list[tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(0)
    return [
        (torch.randn(*shape, generator=g), torch.randint(classes, (shape[0],), generator=g))
        for _ in range(n)
    ]


def plain(model: nn.Module, optimizer: torch.optim.Optimizer, data: list) -> float:
    start = time.perf_counter()
    for inputs, targets in data:
        loss = functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return (time.perf_counter() - start) / len(data)


def attested(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    data: list,
    p: float,
    directory: Path,
    retain: str | None = None,
) -> tuple[float, zkdv.torch.ZKDV]:
    """Seconds per step of a session at sampling probability ``p`` (the committer's queue
    drained inside the timed span), and the closed session."""
    policy = zkdv.SamplingPolicy(state_check_probability=p, update_check_probability=p)
    proof = zkdv.torch.ZKDV(directory, zkdv.ZKDVConfig(sampling_policy=policy), retain=retain)
    # Sealing the AOT Inductor package is a one-time cost of tens of seconds at the first
    # transaction, outside the timed steps; skipped here so a run takes a minute, not ten.
    proof._seal_package = False
    proof.start(rolling_window=32, probe_ratio=0.01)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple) -> None:
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()

    with proof.transaction(batch=data[0]):  # lowering and the first commit, not timed
        proof.backward(functional.cross_entropy(model(data[0][0]), data[0][1]))
        optimizer.step()
        optimizer.zero_grad()
    start = time.perf_counter()
    for inputs, targets in data:
        with proof.transaction(batch=(inputs, targets)):
            loss = functional.cross_entropy(model(inputs), targets)
            proof.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
    proof.join()
    elapsed = (time.perf_counter() - start) / len(data)
    proof.close()
    return elapsed, proof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="mlp")
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    make, shape, classes = MODELS[args.model]
    data = batches(shape, classes, args.steps)
    variants = {"eager": None, "p=0": 0.0, "p=0.01": 0.01, "p=1": 1.0}
    times: dict[str, list[float]] = {name: [] for name in variants}
    extra: dict[str, str] = {}
    n_params = sum(p.numel() for p in make().parameters())
    with tempfile.TemporaryDirectory() as tmp:
        for block in range(args.blocks):
            for name, p in variants.items():
                torch.manual_seed(0)
                model = make()
                optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
                if p is None:
                    plain(model, optimizer, data[:2])
                    times[name].append(plain(model, optimizer, data))
                    continue
                directory = Path(tmp) / f"{name}-{block}"
                elapsed, proof = attested(model, optimizer, data, p, directory)
                times[name].append(elapsed)
                summary = zkdv.transcript.inspect(directory)
                per_record = summary["step_bytes"] // summary["steps"]
                extra[name] = f"{len(proof.checks)} checks, step record {per_record} B"
    base = statistics.median(times["eager"])
    per_check = (statistics.median(times["p=1"]) - statistics.median(times["p=0"])) / 2
    print(
        f"{args.model}: {n_params:,} parameters, Adam, {args.blocks} blocks of {args.steps} steps"
    )
    print(f"{'variant':<10} {'ms/step':>8} {'ratio':>7}")
    for name in variants:
        median = statistics.median(times[name])
        print(f"{name:<10} {median * 1e3:8.3f} {median / base:7.2f}  {extra.get(name, '')}")
    print(
        f"one check (p=1 minus p=0, two checks a step): {per_check * 1e3:.2f} ms = "
        f"{per_check / base:.1f} eager steps"
    )


if __name__ == "__main__":
    main()
