"""Run one entry once, in this process:
``python -m zoo.worker NAME MODE STEPS DIR OUT [--seal] [--size R] [--seed N]``.

Writes the :class:`zoo.harness.RunOutcome` as JSON to ``OUT``. The runner starts one worker
per entry and mode, so a crash or a hang costs that row only. A DDP entry spawns its ranks
from here; the outcome combines theirs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
from pathlib import Path
from typing import Any, get_args

from zoo.entries import BY_NAME, Entry
from zoo.harness import Mode, RunOutcome, first_line


def builder(entry: Entry) -> Any:
    """The entry's recipe builder."""
    module, function = entry.builder.split(":")
    return getattr(importlib.import_module(module), function)


def run_single(
    entry: Entry, mode: Mode, steps: int, directory: Path, seal: bool, size: float | None = None
) -> RunOutcome:
    """One process, one session. ``size`` is the tamper's relative size ``r``; by default the
    entry's precision's (:func:`zoo.harness.update_size`)."""
    from zoo import harness

    make = builder(entry)
    if size is None:
        size = harness.update_size(entry.precision)
    if entry.framework == "torch":
        return harness.run_torch(lambda: make(steps), mode, directory, size=size, seal=seal)
    return harness.run_jax(lambda proof: make(proof, steps), mode, directory, size)


def _rank(rank: int, entry_name: str, mode: Mode, steps: int, directory: str) -> None:
    """One DDP rank: the entry's recipe with its model wrapped in ``DistributedDataParallel``
    and every rank on its own data; rank 1 tampers in a tampered run."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    from zoo import harness

    entry = BY_NAME[entry_name]
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=f"file://{directory}/rendezvous",
        rank=rank,
        world_size=entry.ranks,
    )
    make = builder(entry)

    def ddp_recipe() -> harness.TorchRecipe:
        # The same initial model on every rank, each rank its own shard of the data. The
        # wrapper's parameters are the module's, so the recipe's optimizer and scheduler stay.
        recipe = make(steps, seed=100 + rank)
        recipe.model = DistributedDataParallel(recipe.model, forward_sync_buffers=False)
        return recipe

    try:
        outcome = harness.run_torch(
            ddp_recipe,
            mode,
            Path(directory) / f"rank{rank}",
            size=harness.update_size(entry.precision),
            seal=False,
            tamper_rank=1,
        )
    except Exception as error:  # reported like any other run's error
        outcome = RunOutcome(status="error", message=first_line(error))
    finally:
        dist.destroy_process_group()
    (Path(directory) / f"rank{rank}.json").write_text(json.dumps(outcome.to_json()))


def run_ddp(entry: Entry, mode: Mode, steps: int, directory: Path) -> RunOutcome:
    """Spawn the ranks and combine their outcomes: an error on any rank is the run's error;
    otherwise a poisoned rank makes the run poisoned. Times and margins are rank 0's and the
    worst over the ranks."""
    import torch.multiprocessing as mp

    directory.mkdir(parents=True, exist_ok=True)
    mp.spawn(_rank, args=(entry.name, mode, steps, str(directory)), nprocs=entry.ranks, join=True)
    ranks = [json.loads((directory / f"rank{r}.json").read_text()) for r in range(entry.ranks)]
    errors = [f"rank {r}: {o['message']}" for r, o in enumerate(ranks) if o["status"] == "error"]
    poisoned = [
        f"rank {r}: {o['message']}" for r, o in enumerate(ranks) if o["status"] == "poisoned"
    ]
    margins = [o["worst_margin"] for o in ranks if o["worst_margin"] is not None]
    status = "error" if errors else "poisoned" if poisoned else "closed"
    return RunOutcome(
        status=status,
        message="; ".join(errors or poisoned),
        step_seconds=ranks[0]["step_seconds"],
        close_seconds=ranks[0]["close_seconds"],
        checks=sum(o["checks"] for o in ranks),
        worst_margin=max((float(m) for m in margins), default=None),
        tamper=ranks[0]["tamper"],
        outliers=sum(o.get("outliers", 0) for o in ranks),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=sorted(BY_NAME))
    parser.add_argument("mode", choices=get_args(Mode))
    parser.add_argument("steps", type=int)
    parser.add_argument("directory", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seal", action="store_true", help="seal the AOT Inductor package")
    parser.add_argument(
        "--size", type=float, help="the tamper's relative size r (default: the precision's)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="a torch entry's weights and data drawn from seed N (default 0: the table's)",
    )
    args = parser.parse_args()
    entry = BY_NAME[args.name]
    if args.seed is not None:
        if entry.framework != "torch":
            parser.error("--seed applies to torch entries")
        from zoo.torch_entries import SEED_VARIABLE

        os.environ[SEED_VARIABLE] = str(args.seed)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        if entry.ranks > 1:
            if args.size is not None:
                parser.error("--size applies to single-process entries")
            outcome = run_ddp(entry, args.mode, args.steps, args.directory)
        else:
            outcome = run_single(entry, args.mode, args.steps, args.directory, args.seal, args.size)
    except Exception as error:  # building the recipe failed: the row says why
        outcome = RunOutcome(status="error", message=first_line(error))
    args.out.write_text(json.dumps(outcome.to_json()))


if __name__ == "__main__":
    main()
