"""Dishonest provers against an audit with the client's expectations: ``scripts/bench strategies``.

Each strategy is a prover that runs its own machine: it trains a small MLP (AdamW) under
``zkdv.torch`` with ``retain="all"``, never runs its in-process checks and writes passing check
records instead (so ``zkdv verify`` accepts every transcript), and cheats in one way. The
client knows its code (the programs of one step of it, ``zkdv.transcript.program_hashes``),
its initial model, its data and their order (``zkdv.data.write_manifest``), and the model it
was delivered; the auditor audits every step with all four (``--program``, ``--initial``,
``--final``, ``--data``) and the default tolerance ceiling and noise limit. The table gives
each strategy's ``zkdv verify`` and ``zkdv audit`` verdicts and what the audit named. Drift at
the largest accepted scale is ``scripts/bench drift``'s (JAX, several precisions and rates).

Beyond the four, the client knows the whole state it handed out (``proof.state_hash()`` of its
own session before a step: ``--initial-state``) and its learning-rate schedule
(``zkdv.torch.hyperparameters``: ``--hyperparameters``), and the auditor admits as many
outliers as an honest run of the same code does (``--max-outliers``; none in ``f32``).
``--bf16`` runs the MLP's forward pass under ``bf16`` autocast. ``--checkpoints K`` runs every
prover with ``retain="checkpoints"`` (a full state every ``K`` steps, and each step's batch and
update sketches) over ``3 K`` steps, in place of ``retain="all"``. Each row says which rule caught
it, and how far the delivered model is from the honest one, as a fraction of the honest run's
whole movement ``||theta_H - theta_0||``. A second table audits the new classes without the
options that bind them, to show what each one closes.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from common import require_zkdv, table, zkdv_json
from torch import nn
from torch.nn import functional

import zkdv
from zkdv import transcript
from zkdv.torch import _state

warnings.filterwarnings("ignore")
torch.set_num_threads(1)
LR = 1e-2


def _checkpoints() -> int | None:
    argv = sys.argv[1:]
    if "--checkpoints" not in argv:
        return None
    return int(argv[argv.index("--checkpoints") + 1])


CHECKPOINTS = _checkpoints()
"""``--checkpoints K``: a full state every ``K`` steps (``retain="checkpoints"``)."""
STEPS = 6 if CHECKPOINTS is None else 3 * CHECKPOINTS
RETAIN: dict[str, Any] = (
    {"retain": "all"}
    if CHECKPOINTS is None
    else {
        "retain": "checkpoints",
        "replay_snapshot_interval": CHECKPOINTS,
        "checkpoint_interval": CHECKPOINTS,
    }
)


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


BF16 = "--bf16" in sys.argv[1:]
"""``--bf16``: the MLP's forward pass under ``bf16`` autocast, in production and attested alike."""


def honest_step(proof: Any, forward: Callable[..., Any], backward: Callable[..., Any]) -> Step:
    def step(model: Any, optimizer: Any, batch: Batch, index: int) -> None:
        inputs, targets = batch
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=BF16):
            loss = functional.cross_entropy(forward(model, inputs), targets)
        backward(loss)
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
    after_step: Callable[[nn.Module, Any, int], None] | None = None,
    before: Callable[[nn.Module, Any], None] | None = None,
    lr: Callable[[int], float] | None = None,
    between: Callable[[Any, nn.Module, Any, int], None] | None = None,
) -> nn.Module:
    """Train under a session whose checks the prover forges; returns the trained model.

    ``after_step(model, optimizer, index)`` edits the state inside the transaction, after the
    optimizer stepped (the edit is committed as the step's own); ``before(model, optimizer)``
    edits the prepared state before the first step; ``lr(index)`` is the learning rate the
    prover sets before each step's ``optimizer.step()``; ``between(proof, model, optimizer, index)``
    edits the state before step ``index``'s transaction, outside any (the session's own
    continuity check, which would see it, is skipped: the prover runs its own machine)."""
    model = model or mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    proof = zkdv.torch.ZKDV(directory, config, **RETAIN)
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
    if before is not None:
        _state.initialize(optimizer, proof._prepared.parts()[2])
        with torch.no_grad():
            before(model, optimizer)
    if between is not None:
        _state.discontinuity = lambda *args, **kwargs: None  # type: ignore[assignment]
    for index, batch in enumerate(batches):
        if between is not None:
            with torch.no_grad():
                between(proof, model, optimizer, index)
        with proof.transaction(batch=batch):
            if lr is not None:
                for group in optimizer.param_groups:
                    group["lr"] = lr(index)
            step(model, optimizer, batch, index)
            if after_step is not None:
                with torch.no_grad():
                    after_step(model, optimizer, index)
    proof.close()
    return model


def client(directory: Path, batch: Batch) -> tuple[list[str], str, list[dict[str, float]]]:
    """What the client derives from its own code, without training: the program hashes, the
    commitment of the whole state it hands out, and its schedule (a constant rate)."""
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    proof = zkdv.torch.ZKDV(directory, retain="all")
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def attested_fn(model: Any, optimizer: Any, batch: Batch) -> None:
        honest_step(proof, proof.forward, proof.backward)(model, optimizer, batch, -1)

    initial_state = proof.state_hash()
    proof.lower_step(batch, seal=False)
    schedule = [zkdv.torch.hyperparameters(optimizer) for _ in range(STEPS)]
    proof.close()
    return transcript.program_hashes(directory), initial_state, schedule


def flat(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def main() -> None:
    require_zkdv()
    inputs, targets, order = dataset()
    batches = [(inputs[i], targets[i]) for i in order]
    rows: list[tuple[str, str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="zkdv-strategies-") as tmp:
        work = Path(tmp)
        manifest = work / "data.json"
        zkdv.data.write_manifest(manifest, zip(inputs, targets, strict=True), order)
        initial = zkdv.torch.model_hash(mlp())
        hashes, initial_state, schedule = client(work / "client", batches[0])
        programs = [a for h in hashes for a in ("--program", h)]
        hyper = work / "hyper.json"
        zkdv.data.write_hyperparameters(hyper, schedule)
        binding = ["--initial-state", initial_state, "--hyperparameters", str(hyper)]
        start = flat(mlp())
        honest: list[torch.Tensor] = []

        def judge(
            name: str, directory: Path, delivered: nn.Module, new: bool = True, into: Any = None
        ) -> None:
            code, verified = zkdv_json("verify", str(directory))
            expect = ["--initial", initial, "--final", zkdv.torch.model_hash(delivered)]
            expect += ["--data", str(manifest), "--products", "exact", *programs]
            if new:
                expect += binding
            code, out = zkdv_json(
                "audit", str(directory), "--fraction", "1", "--seed", "s", *expect
            )
            report = out.get("report")
            if report is None:
                named = f"unusable: {out.get('error')}"
            elif report["failure"] is not None:
                f = report["failure"]
                named = f"step {f['step']}: {f['kind']}: {f['what']}"
            else:
                failing = ("differs", "not_recorded")
                unmet = [e["name"] for e in report["expectations"] if e["status"] in failing]
                named = f"expectations not met: {', '.join(unmet)}" if unmet else ""
            verdict = "passed" if code == 0 else "FAILED"
            theta = flat(delivered)
            if not honest:
                honest.append(theta)
            moved = float((theta - honest[0]).norm() / (honest[0] - start).norm())
            (rows if into is None else into).append(
                (
                    name,
                    "accepted" if verified.get("valid", code == 0) else "refused",
                    verdict,
                    named,
                    f"{100 * moved:.3g}%",
                )
            )
            print((rows if into is None else into)[-1], file=sys.stderr, flush=True)

        # The honest prover. The auditor's outlier ceiling is what an honest run of the same
        # code admits (0 in f32; bf16 flips some values honestly).
        model = prove(work / "honest", batches)
        _, out = zkdv_json("audit", str(work / "honest"), "--fraction", "1", "--seed", "s")
        honest_outliers = out["report"]["noise"]["outliers"]
        print(f"honest run: {honest_outliers} outliers admitted", file=sys.stderr)
        binding += ["--max-outliers", str(honest_outliers)]
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
        def move_last(model: nn.Module, optimizer: Any, index: int) -> None:
            if index == STEPS - 1:
                next(model.parameters()).add_(1e-3)

        model = prove(work / "last", batches, after_step=move_last)
        judge("forged last model (moved after the last step)", work / "last", model)

        # A lax tolerance recorded in the root, and a changed update within it.
        lax = zkdv.ZKDVConfig(tolerance=zkdv.Tolerance(abs=0.1, rel=1.0))

        def nudge(model: nn.Module, optimizer: Any, index: int) -> None:
            if index == 2:
                next(model.parameters()).view(-1)[3] += 1e-2

        model = prove(work / "lax", batches, config=lax, after_step=nudge)
        judge("lax tolerance (abs 0.1, rel 1) and a changed update", work / "lax", model)

        # Infinite values: a parameter set to +inf after a step.
        def infinite(model: nn.Module, optimizer: Any, index: int) -> None:
            if index == 2:
                next(model.parameters()).view(-1)[5] = float("inf")

        model = prove(work / "inf", batches, after_step=infinite)
        judge("a parameter set to +inf after a step", work / "inf", model)

        # The classes a binding audit left open before --initial-state, --hyperparameters,
        # --max-outliers, the run's length and exact counters. The backdoor direction: the
        # sign of a fixed random vector over the parameters.
        g = torch.Generator().manual_seed(11)
        direction = [torch.randn(p.shape, generator=g).sign() for p in mlp().parameters()]
        without: list[tuple[str, str, str, str, str]] = []

        def preload(model: nn.Module, optimizer: Any) -> None:
            # Adam's first moment preloaded along the backdoor: the first steps follow it.
            for p, d in zip(model.parameters(), direction, strict=True):
                optimizer.state[p]["exp_avg"].copy_(-0.05 * d)
                optimizer.state[p]["exp_avg_sq"].fill_(0.05**2)

        model = prove(work / "preload", batches, before=preload)
        judge("optimizer state preloaded at step 0 (Adam's moments)", work / "preload", model)
        judge("(the same, without --initial-state)", work / "preload", model, False, without)

        model = prove(work / "rate", batches, lr=lambda i: LR * (3.0 if i % 2 else 1.0))
        judge("learning rate chosen per step (3x at odd steps)", work / "rate", model)
        judge("(the same, without --hyperparameters)", work / "rate", model, False, without)

        model = prove(work / "short", batches[: STEPS - 2])
        judge(f"run stopped early ({STEPS - 2} of {STEPS} steps)", work / "short", model)

        def hold(model: nn.Module, optimizer: Any, index: int) -> None:
            # Adam's step held at 1: its bias correction stays at its first step's.
            for p in model.parameters():
                optimizer.state[p]["step"].fill_(1.0)

        model = prove(work / "counter", batches, after_step=hold)
        judge("Adam's step counter held in place", work / "counter", model)

        last: dict[int, torch.Tensor] = {}

        def outlier(model: nn.Module, optimizer: Any, index: int) -> None:
            # One value of Adam's first moment per step (the protocol's allowance here), the one
            # the step moved most, moved by 1.9 times that along the backdoor: within its
            # outlier cap (a change of sign of its update). No update sketch sees a moment.
            w = next(model.parameters())
            m = optimizer.state[w]["exp_avg"]
            before = last.get(index - 1, torch.zeros_like(m))
            delta = (m - before).reshape(-1)
            i = int(torch.argmax(delta.abs()))
            m.view(-1)[i] -= 1.9 * delta[i].abs() * direction[0].reshape(-1)[i]
            last[index] = m.detach().clone()

        model = prove(work / "outliers", batches, after_step=outlier)
        judge("outliers placed by the prover (one a step)", work / "outliers", model)
        judge("(the same, without --max-outliers)", work / "outliers", model, False, without)

        def slack(model: nn.Module, optimizer: Any, index: int) -> None:
            # Adam's smallest second moments (below the session's abs term of 1e-6) cut to a
            # ten-thousandth, inside the fixed bound: those coordinates step lr * m / sqrt(v).
            for p in list(model.parameters())[:1]:
                v = optimizer.state[p]["exp_avg_sq"].view(-1)
                small = [i for i in torch.argsort(v).tolist() if 0 < v[i] < 1e-6]
                for i in small[:2]:
                    v[i] *= 1e-4

        model = prove(work / "slack", batches, after_step=slack)
        judge("second moments cut inside the absolute term", work / "slack", model)

        def concentrate(model: nn.Module, optimizer: Any, index: int) -> None:
            # Two parameters a step moved by 0.9 of their whole bound (abs + rel * |x|) along
            # the backdoor: the noise budget spent on a few coordinates.
            w = next(model.parameters())
            flat_w, d = w.view(-1), direction[0].reshape(-1)
            for i in ((2 * index) % w.numel(), (2 * index + 1) % w.numel()):
                flat_w[i] += 0.9 * (1e-6 + 1e-5 * flat_w[i].abs()) * d[i]

        model = prove(work / "concentrate", batches, after_step=concentrate)
        judge("noise budget concentrated on two parameters a step", work / "concentrate", model)

        # Between checkpoints: the state edited outside any transaction before step 1 and the
        # edit undone before step 3 (before the first full state after it when K >= 4). The
        # session measures step 1's update from its own copy of the state step 0 left, so the
        # edit is part of step 1's committed update sketches.
        for size in (1e-2, 1e-4):

            def edit(
                proof: Any, model: nn.Module, optimizer: Any, index: int, size: float = size
            ) -> None:
                if index in (1, 3):
                    next(model.parameters()).add_((size if index == 1 else -size) * direction[0])

            model = prove(work / f"between{size}", batches, between=edit)
            judge(
                f"state moved by {size:g} along the backdoor before step 1, undone before step 3",
                work / f"between{size}",
                model,
            )

    header = ("strategy", "zkdv verify", "zkdv audit", "what the audit names", "moved")
    for found in (rows, without):
        print(table([header, *found]))
        print()


if __name__ == "__main__":
    main()
