"""What a prepared averaged model (an EMA of the weights) adds to a PyTorch step at p = 0.

A session compares the averaged model's leaves with the copy the last transaction left, on
the training thread (a loop may update them anywhere in the transaction), and copies them at
the transaction's exit into reused buffers. This times those two, on the GPT-style decoder of
``scripts/bench scale`` (``--size 124m``: GPT-2 small's 124M parameters, an
``AveragedModel`` with ``get_ema_multi_avg_fn``), against a plain eager AdamW step of the
model in the same process, and the EMA's own update (which the plain loop pays too). One
torch thread, as ``scripts/bench scale``.

Usage: ``scripts/bench averaged [--size small|124m] [--reps N]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python" / "tests")]

import first_step  # noqa: E402
import torch  # noqa: E402
import torch_steps  # noqa: E402
from timing import median_seconds  # noqa: E402
from torch.nn import functional  # noqa: E402
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn  # noqa: E402

from zkdv.torch import _state  # noqa: E402
from zkdv.torch._host import all_same_bits  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(first_step.SIZES), default="124m")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch_steps.GPT.update(first_step.SIZES[args.size])
    model = torch_steps.Gpt()
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999))
    leaves = [t.detach() for t in [*ema.module.parameters(), *ema.module.buffers()]]
    copies = _state.Copies()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    vocab, length = int(torch_steps.GPT["vocab"]), int(torch_steps.GPT["length"])
    tokens = torch.randint(vocab, (int(torch_steps.GPT["batch"]), length))

    def plain() -> None:
        logits = model(tokens)
        functional.cross_entropy(logits.reshape(-1, vocab), tokens.reshape(-1)).backward()
        optimizer.step()
        optimizer.zero_grad()

    def continuity() -> None:
        last = copies.copy(leaves)  # the exit copy, into reused buffers after the first
        if not all_same_bits(leaves, last):  # the next entry's comparison
            raise AssertionError("the copy differs")

    timed = {
        "plain step": plain,
        "EMA comparison and exit copy": continuity,
        "EMA update": lambda: ema.update_parameters(model),
    }
    for call in timed.values():
        call()
    seconds = {name: median_seconds(call, args.reps) for name, call in timed.items()}
    values = sum(t.numel() for t in leaves)
    step = seconds["plain step"]
    print(f"{values / 1e6:.1f}M averaged values; plain step {step:.3f} s")
    for name in ("EMA comparison and exit copy", "EMA update"):
        print(f"  {name}: {seconds[name]:.3f} s = {seconds[name] / step:.3f}x the plain step")


if __name__ == "__main__":
    main()
