"""Dishonest provers against an audit with the client's expectations: ``scripts/bench strategies``.

Each strategy is a prover that runs its own machine: it trains a small MLP (AdamW) under
``zkdv.torch`` with ``retain="all"``, never runs its in-process checks and writes passing check
records instead (so ``zkdv verify`` accepts every transcript), and cheats in one way. The
client knows its code (the programs of one step of it, ``zkdv.transcript.program_hashes``),
its initial model, its data and their order (``zkdv.data.write_manifest``), and the model it
was delivered; the auditor audits every step with all four (``--program``, ``--initial``,
``--final``, ``--data``) and the default tolerance ceiling and noise limit. The table gives
each strategy's ``zkdv verify`` and ``zkdv audit`` verdicts and what the audit named. Drift at
the largest accepted scale is ``scripts/drift.py``'s (JAX, several precisions and rates).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn import functional

import zkdv
from zkdv import transcript

warnings.filterwarnings("ignore")
torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parent.parent
ZKDV = ROOT / "target" / "release" / "zkdv"
STEPS = 6


def mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))


def dataset() -> tuple[torch.Tensor, torch.Tensor, list[list[int]]]:
    """The client's examples and, per step, the indices of its batch."""
    g = torch.Generator().manual_seed(3)
    inputs, targets = torch.randn(64, 10, generator=g), torch.randint(3, (64,), generator=g)
    order = [torch.randperm(64, generator=g)[:8].tolist() for _ in range(STEPS)]
    return inputs, targets, order


Batch = tuple[torch.Tensor, torch.Tensor]
Step = Callable[[Any, Any, Batch, int], None]


def honest_step(proof: Any, forward: Callable[..., Any], backward: Callable[..., Any]) -> Step:
    def step(model: Any, optimizer: Any, batch: Batch, index: int) -> None:
        inputs, targets = batch
        backward(functional.cross_entropy(forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()

    return step


def prove(
    directory: Path,
    batches: list[Batch],
    *,
    model: nn.Module | None = None,
    production: Callable[[Any], Step] | None = None,
    attested: Callable[[Any], Step] | None = None,
    config: zkdv.ZKDVConfig | None = None,
    after_step: Callable[[nn.Module, int], None] | None = None,
) -> nn.Module:
    """Train under a session whose checks the prover forges; returns the trained model."""
    model = model or mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof = zkdv.torch.ZKDV(directory, config, retain="all")
    proof._seal_package = False
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    def forged(job: Any) -> None:  # passing records for checks never run
        tolerance = job.program.tolerance
        if job.state:
            record = zkdv.CheckResult(job.step, "state", (), (0.0,), (0.0,), tolerance, "pass", 0)
            proof._checker.record(record)
        if job.indices:
            values = (0.0,) * len(job.indices)
            indices = tuple(job.indices)
            proof._checker.record(
                zkdv.CheckResult(job.step, "update", indices, values, values, tolerance, "pass", 0)
            )

    proof._checker.run = forged
    attested_step = (attested or (lambda p: honest_step(p, p.forward, p.backward)))(proof)

    @proof.attest
    def attested_fn(model: Any, optimizer: Any, batch: Batch) -> None:
        attested_step(model, optimizer, batch, -1)

    step = (production or (lambda p: honest_step(p, lambda m, x: m(x), p.backward)))(proof)
    for index, batch in enumerate(batches):
        with proof.transaction(batch=batch):
            step(model, optimizer, batch, index)
            if after_step is not None:
                with torch.no_grad():
                    after_step(model, index)
    proof.close()
    return model


def cli(*args: str) -> tuple[int, dict[str, Any]]:
    result = subprocess.run(
        [str(ZKDV), *args, "--json"], capture_output=True, text=True, check=False
    )
    return result.returncode, json.loads(result.stdout)


def main() -> None:
    if not ZKDV.exists():
        raise SystemExit(f"{ZKDV} is not built: cargo build --release -p zkdv-tools --bin zkdv")
    inputs, targets, order = dataset()
    batches = [(inputs[i], targets[i]) for i in order]
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="zkdv-strategies-") as tmp:
        work = Path(tmp)
        manifest = work / "data.json"
        zkdv.data.write_manifest(manifest, zip(inputs, targets, strict=True), order)
        initial = zkdv.torch.model_hash(mlp())
        prove(work / "client", batches[:1], model=mlp())  # the client's own programs
        programs = [a for h in transcript.program_hashes(work / "client") for a in ("--program", h)]

        def judge(name: str, directory: Path, delivered: nn.Module) -> None:
            code, verified = cli("verify", str(directory))
            expect = ["--initial", initial, "--final", zkdv.torch.model_hash(delivered)]
            expect += ["--data", str(manifest), *programs]
            code, out = cli("audit", str(directory), "--fraction", "1", "--seed", "s", *expect)
            report = out.get("report")
            if report is None:
                named = f"unusable: {out.get('error')}"
            elif report["failure"] is not None:
                f = report["failure"]
                named = f"step {f['step']}: {f['kind']}: {f['what']}"
            else:
                unmet = [e["name"] for e in report["expectations"] if e["status"] != "matched"]
                named = f"expectations not met: {', '.join(unmet)}" if unmet else ""
            verdict = "passed" if code == 0 else "FAILED"
            rows.append(
                (
                    name,
                    "accepted" if verified.get("valid", code == 0) else "refused",
                    verdict,
                    named,
                )
            )
            print(rows[-1], file=sys.stderr, flush=True)

        # The honest prover.
        model = prove(work / "honest", batches)
        judge("honest run", work / "honest", model)

        # The cheat written into the attested step too: learn from half of each batch.
        def half(p: Any) -> Step:
            def step(model: Any, optimizer: Any, batch: Batch, index: int) -> None:
                x, y = batch
                forward = p.forward if index < 0 else (lambda m, v: m(v))
                p.backward(functional.cross_entropy(forward(model, x[:4]), y[:4]))
                optimizer.step()
                optimizer.zero_grad()

            return step

        model = prove(work / "half", batches, production=half, attested=half)
        judge("cheat written into the attested step (half of each batch)", work / "half", model)

        # Skip the backward pass of every other step (production only).
        def skip(p: Any) -> Step:
            def step(model: Any, optimizer: Any, batch: Batch, index: int) -> None:
                x, y = batch
                loss = functional.cross_entropy(model(x), y)
                if index % 2 == 0:
                    p.backward(loss)
                else:
                    for q in model.parameters():
                        q.grad = torch.zeros_like(q)
                optimizer.step()
                optimizer.zero_grad()

            return step

        model = prove(work / "skip", batches, production=skip)
        judge("skipped backward pass at every other step", work / "skip", model)

        # Duplicated rows: the first half of each batch twice.
        doubled = [(torch.cat([x[:4], x[:4]]), torch.cat([y[:4], y[:4]])) for x, y in batches]
        model = prove(work / "dup", doubled)
        judge("duplicated rows (half of each batch, twice)", work / "dup", model)

        # A substituted row: one example of each batch replaced by another of the dataset.
        swapped = [(x.clone(), y.clone()) for x, y in batches]
        for x, y in swapped:
            x[0], y[0] = inputs[63], targets[63]
        model = prove(work / "swap", swapped)
        judge("substituted row (one per batch)", work / "swap", model)

        # A forged first model: training starts from another initialization.
        torch.manual_seed(1)
        other = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))
        model = prove(work / "first", batches, model=other)
        judge("forged first model (another initialization)", work / "first", model)

        # A forged last model: the model delivered is moved after the last step.
        def move_last(model: nn.Module, index: int) -> None:
            if index == STEPS - 1:
                next(model.parameters()).add_(1e-3)

        model = prove(work / "last", batches, after_step=move_last)
        judge("forged last model (moved after the last step)", work / "last", model)

        # A lax tolerance recorded in the root, and a changed update within it.
        lax = zkdv.ZKDVConfig(tolerance=zkdv.Tolerance(abs=0.1, rel=1.0))

        def nudge(model: nn.Module, index: int) -> None:
            if index == 2:
                next(model.parameters()).view(-1)[3] += 1e-2

        model = prove(work / "lax", batches, config=lax, after_step=nudge)
        judge("lax tolerance (abs 0.1, rel 1) and a changed update", work / "lax", model)

        # Infinite values: a parameter set to +inf after a step.
        def infinite(model: nn.Module, index: int) -> None:
            if index == 2:
                next(model.parameters()).view(-1)[5] = float("inf")

        model = prove(work / "inf", batches, after_step=infinite)
        judge("a parameter set to +inf after a step", work / "inf", model)

    print("| strategy | zkdv verify | zkdv audit | what the audit names |")
    print("| --- | --- | --- | --- |")
    for name, verified, verdict, named in rows:
        print(f"| {name} | {verified} | {verdict} | {named} |")


if __name__ == "__main__":
    main()
