"""The Torch quick start, runnable on CPU: a small classifier trained under ZKDV.

Run: ``python examples/torch/basic_training.py [OUT_DIR] [--steps N] [--debug-every N]``, then
``zkdv verify OUT_DIR`` (default ``proof``). The seed's quick start moves the model and data to
``cuda``; this version stays on the CPU (the frontend has not run on a GPU yet).

What happens:

1. ``zkdv.torch.ZKDV(directory, config)`` creates the session; ``start`` fixes the rolling hash
   window of the committed batch rows and the probe ratio of the update sketches.
2. ``proof.prepare(model, optimizer)`` hands back the same objects. The optimizer keeps its
   ordinary eager ``step()``; inside ``@proof.attest`` its step lowers through torch's own
   functional implementation (``torch.optim.adam.adam`` for AdamW).
3. ``@proof.attest`` registers the step that checks replay. It reads like the training step,
   with ``proof.forward`` and ``proof.backward`` marking the module call and the gradient
   boundary. At the first transaction it is lowered to StableHLO (make_fx, torch.export,
   torch-mlir) and cut down by the Rust passes to the attested program: the update and the
   optimizer state at two challenged coordinates.
4. Each training step runs eagerly, as written, inside ``proof.transaction(batch=...)``: the
   batch is committed on entry, the update (``post - pre``) and its sketches on exit, and the
   step record chains them to the previous one.
5. With probability 0.01 per step and kind (here: every step, ``--debug-every 1``), a step is
   checked: the attested program runs in the Rust runtime on the committed pre-state and
   batch at the challenged coordinates, and a state check replays the whole update.
6. ``close`` writes the close record and raises ``zkdv.ZKDVPoisonedError`` if a check failed.
7. With ``--retain all`` the session also keeps its evidence beside the transcript (each step's
   batch, update sketches and pre-state, and the replay program), so that anyone can later
   re-execute steps with challenges of their own: ``zkdv audit OUT_DIR --seed ANY_STRING``.
"""

from __future__ import annotations

import argparse

import torch
from torch import nn
from torch.nn import functional

import zkdv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="proof", help="transcript directory")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument(
        "--debug-every",
        type=int,
        default=0,
        help="check every N-th step (SamplingPolicy.DEBUGCheckEvery) instead of p = 0.01",
    )
    parser.add_argument(
        "--retain",
        choices=["all", "snapshots"],
        default=None,
        help="keep evidence for zkdv audit beside the transcript",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)

    # One session per training run, started before the first transaction.
    if args.debug_every:
        policy = zkdv.SamplingPolicy.DEBUGCheckEvery(args.debug_every)
    else:
        policy = zkdv.SamplingPolicy(state_check_probability=0.01, update_check_probability=0.01)
    proof = zkdv.torch.ZKDV(args.out, zkdv.ZKDVConfig(sampling_policy=policy), retain=args.retain)
    proof.start(rolling_window=32, probe_ratio=0.01)

    # The model and optimizer are built as usual, then prepared: the same objects come back.
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = proof.prepare(model, optimizer)

    # The attested transition: what a sampled check recomputes, written like the training step.
    @proof.attest
    def attested_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple) -> None:
        inputs, targets = batch
        loss = functional.cross_entropy(proof.forward(model, inputs), targets)
        proof.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

    # Any data: the batch is whatever tensors the step reads (inputs and targets here).
    generator = torch.Generator().manual_seed(1)
    for _ in range(args.steps):
        inputs = torch.randn(8, 10, generator=generator)
        targets = torch.randint(2, (8,), generator=generator)
        # Open the transaction before the forward pass; the step inside is ordinary PyTorch.
        with proof.transaction(batch=(inputs, targets)):
            loss = functional.cross_entropy(model(inputs), targets)
            proof.backward(loss)
            optimizer.step()
            optimizer.zero_grad()

    # Raises zkdv.ZKDVPoisonedError if any check failed.
    proof.close()
    checks = proof.checks
    # How many checks to expect: the sampling policy draws them at random (p = 0.01 a step
    # by default, so usually none in 20 steps); `--debug-every 1` checks every step.
    expected = zkdv.transcript.inspect(args.out)["expected_checks"]
    print(
        f"{proof.steps} steps committed to {args.out}; {len(checks)} checks, "
        f"{sum(c.passed for c in checks)} passed (the sampling policy draws "
        f"{expected['state'] + expected['update']:.1f} on average over these steps; "
        f"--debug-every 1 checks every step); last loss {loss.item():.4f}"
    )


if __name__ == "__main__":
    main()
