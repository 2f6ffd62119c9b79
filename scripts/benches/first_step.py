"""Time a session's first committed step, PyTorch against JAX, on the same GPT-style model.

The model (``--size small``, the default): a 3.4M-parameter decoder (token and position
embeddings, 4 pre-norm blocks of causal self-attention with 4 heads and a 4x MLP at width 256,
a final LayerNorm and an LM head over 512 tokens), trained with AdamW on 8 sequences of 64
tokens. ``--size 124m`` is GPT-2 small's shape: 12 blocks of 12 heads at width 768, a
50,257-token vocabulary, the LM head tied to the token embedding (124M parameters), on 2
sequences of 128 tokens. The same architecture is written once with ``torch.nn`` and once with
Flax linen.

Each frontend runs in fresh child processes (nothing compiled or imported by the other one),
first with an empty derivation cache (``cold``), then with the cache the first one filled
(``warm``, a second session of the same code; ``--cache`` picks one, or ``off``). Each
reports:

- the plain framework's first step (``jax.jit``'s compile, or torch's first eager step);
- the first step under ZKDV: when it returns to the training loop (what a user waits for
  before training goes on) and when its step record is committed;
- the next three steps, each against the plain loop's: the one-time work that goes on beside
  training (the lowering, the seal) may still hold them back;
- torch only: how long the AOT Inductor package takes to seal, which no longer blocks the
  training loop (it is sealed on a thread of its own while training goes on);
- the stages of the one-time work (``zkdv._progress``).

The ratios printed at the end are torch's over JAX's: for the first step's return to the
training loop (the goal is <= 2) and for its step record (which follows the seal).

Run: ``scripts/bench first-step [--frontend torch|jax|both] [--size small|124m]
[--cache cold|warm|both|off] [--no-seal]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STEPS = 4
"""Steps each child times: the first, and those after it, which a session's one-time work
beside training (the lowering, the seal) may still hold back."""

SIZES: dict[str, dict[str, Any]] = {
    "small": {
        "vocab": 512,
        "length": 64,
        "width": 256,
        "layers": 4,
        "heads": 4,
        "batch": 8,
        "tied": False,
    },
    "124m": {
        "vocab": 50257,
        "length": 128,
        "width": 768,
        "layers": 12,
        "heads": 12,
        "batch": 2,
        "tied": True,
    },
}


def _committed_at(proof: Any, start: float) -> concurrent.futures.Future[float]:
    """When (after ``start``) the first step record is committed (the committer's count of
    transitions), watched from a thread of its own so that the loop goes on meanwhile."""

    def watch() -> float:
        while proof._committer.transitions < 1 and proof._flow.error is None:
            time.sleep(0.005)
        return time.perf_counter() - start

    watcher = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        return watcher.submit(watch)
    finally:
        watcher.shutdown(wait=False)  # the thread ends with the watch


def _stages() -> Any:
    """``zkdv._progress``, or a stand-in that records nothing (a tree from before it existed,
    measured as the baseline)."""
    try:
        from zkdv import _progress
    except ImportError:

        class _None:
            @staticmethod
            def reset() -> None:
                pass

            @staticmethod
            def recorded() -> list[tuple[str, float]]:
                return []

        return _None
    return _progress


def torch_child(seal: bool, size: dict[str, Any]) -> dict[str, Any]:
    import torch
    from torch import nn

    import zkdv

    _progress = _stages()
    torch.set_num_threads(1)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "tests"))
    import torch_steps  # the torch twin of jax_steps.Gpt, also scripts/bench scale's

    torch_steps.GPT.update(size)
    Gpt, batch, loss_of = torch_steps.Gpt, torch_steps.batch, torch_steps.loss_of

    torch.manual_seed(0)
    model = Gpt()
    parameters = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    plain_steps = []
    for i in range(STEPS):
        start = time.perf_counter()
        loss_of(model, batch(i)).backward()
        optimizer.step()
        optimizer.zero_grad()
        plain_steps.append(time.perf_counter() - start)

    torch.manual_seed(0)
    model = Gpt()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    directory = tempfile.mkdtemp(prefix="zkdv-first-step-")
    config = zkdv.ZKDVConfig(
        sampling_policy=zkdv.SamplingPolicy(state_check_probability=0, update_check_probability=0)
    )
    proof = zkdv.torch.ZKDV(directory, config)
    proof._seal_package = seal
    proof.start(rolling_window=8, probe_ratio=0.01)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple) -> None:
        (ids,) = batch
        loss = loss_of(lambda x: proof.forward(model, x), ids)
        proof.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

    _progress.reset()
    start = time.perf_counter()
    steps, committed = [], _committed_at(proof, start)
    for i in range(STEPS):
        begun = time.perf_counter()
        ids = batch(i)
        with proof.transaction(batch=(ids,)):
            loss_of(model, ids).backward()
            optimizer.step()
            optimizer.zero_grad()
        steps.append(time.perf_counter() - begun)
    proof.close()
    closed = time.perf_counter() - start
    stages = _progress.recorded()
    sealing = sum(s for name, s in stages if name.startswith("sealing"))
    return {
        "parameters": parameters,
        "plain_steps": plain_steps,
        "steps": steps,
        "first_step_committed": committed.result(),
        "closed": closed,
        "sealing": sealing,
        "stages": stages,
    }


def jax_child(size: dict[str, Any]) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax

    import zkdv

    _progress = _stages()

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "tests"))
    import jax_steps  # the Flax twin of the torch model above, also scripts/bench jax's

    jax_steps.GPT.update(size)
    VOCAB, SEQ, BATCH = size["vocab"], size["length"], size["batch"]
    model = jax_steps.Gpt()

    def batch(seed: int) -> np.ndarray:
        return np.random.default_rng(seed).integers(0, VOCAB, (BATCH, SEQ + 1), dtype=np.int32)

    step_body = jax_steps.next_token_step

    from flax.training import train_state

    params = model.init(jax.random.key(0), jnp.zeros((1, SEQ), jnp.int32))["params"]
    parameters = sum(x.size for x in jax.tree.leaves(params))
    plain_state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=optax.adamw(1e-3)
    )
    plain_step, plain_steps = jax.jit(step_body), []
    for i in range(STEPS):
        start = time.perf_counter()
        plain_state = jax.block_until_ready(plain_step(plain_state, batch(i)))
        plain_steps.append(time.perf_counter() - start)

    directory = tempfile.mkdtemp(prefix="zkdv-first-step-")
    config = zkdv.ZKDVConfig(
        sampling_policy=zkdv.SamplingPolicy(state_check_probability=0, update_check_probability=0)
    )
    proof = zkdv.jax.ZKDV(directory, config)
    proof.start(rolling_window=8, probe_ratio=0.01)
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.adamw(1e-3)
    )
    train_step = proof.jit(step_body)
    _progress.reset()
    start = time.perf_counter()
    steps, committed = [], _committed_at(proof, start)
    for i in range(STEPS):
        begun = time.perf_counter()
        state = jax.block_until_ready(train_step(state, batch(i)))
        steps.append(time.perf_counter() - begun)
    proof.close()
    closed = time.perf_counter() - start
    return {
        "parameters": parameters,
        "plain_steps": plain_steps,
        "steps": steps,
        "first_step_committed": committed.result(),
        "closed": closed,
        "sealing": 0.0,
        "stages": _progress.recorded(),
    }


def run_child(frontend: str, seal: bool, size: str, cache: str | None) -> dict[str, Any]:
    """One child's result; ``cache`` is the derivation cache's directory (``None``: off)."""
    command = [sys.executable, "-W", "ignore", __file__, "--child", frontend, "--size", size]
    if not seal:
        command.append("--no-seal")
    environment = dict(os.environ)
    if cache is None:
        environment["ZKDV_CACHE"] = "0"
    else:
        environment.pop("ZKDV_CACHE", None)
        environment["ZKDV_CACHE_DIR"] = cache
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"the {frontend} child failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(frontend: str, result: dict[str, Any]) -> None:
    print(f"\n{frontend}: {result['parameters'] / 1e6:.2f}M parameters")
    plain, steps = result["plain_steps"], result["steps"]
    print(
        f"  ratios to the plain loop: first step returned {steps[0] / plain[0]:.2f}, "
        f"committed {result['first_step_committed'] / plain[0]:.2f}; "
        f"{len(steps)} steps returned {sum(steps) / sum(plain):.2f}"
    )
    print(f"  plain first step (no ZKDV)        {plain[0]:8.2f} s")
    print(f"  first step returned to the loop   {steps[0]:8.2f} s")
    print(f"  first step committed              {result['first_step_committed']:8.2f} s")
    later = ", ".join(f"{s:.2f}" for s in steps[1:])
    print(f"  steps 2-{len(steps)} returned after       {later} s")
    plain_later = ", ".join(f"{s:.2f}" for s in plain[1:])
    print(f"    (plain: {plain_later} s)")
    if result["sealing"]:
        print(f"  sealing (a thread of its own)     {result['sealing']:8.2f} s")
    print(f"  close() returned                  {result['closed']:8.2f} s")
    for name, seconds in result["stages"]:
        print(f"    {seconds:7.2f} s  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frontend", choices=["torch", "jax", "both"], default="both")
    parser.add_argument("--no-seal", action="store_true", help="torch: skip the AOTI seal")
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument(
        "--cache",
        choices=["cold", "warm", "both", "off"],
        default="both",
        help="the derivation cache: empty, filled by a first session, the two in turn, or off",
    )
    parser.add_argument("--child", choices=["torch", "jax"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    size = SIZES[args.size]
    if args.child:
        seal = not args.no_seal
        result = torch_child(seal, size) if args.child == "torch" else jax_child(size)
        print(json.dumps(result))
        return
    frontends = ["torch", "jax"] if args.frontend == "both" else [args.frontend]
    modes = ["cold", "warm"] if args.cache == "both" else [args.cache]
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for frontend in frontends:
        with tempfile.TemporaryDirectory(prefix="zkdv-first-step-cache-") as cache:
            if modes == ["warm"]:
                run_child(frontend, not args.no_seal, args.size, cache)  # fills it
            for mode in modes:
                where = None if mode == "off" else cache
                results[frontend, mode] = run_child(frontend, not args.no_seal, args.size, where)
    for (frontend, mode), result in results.items():
        report(f"{frontend} (cache {mode})", result)
    for mode in modes:
        if ("torch", mode) in results and ("jax", mode) in results:
            torch, jax = results["torch", mode], results["jax", mode]
            returned = torch["steps"][0] / jax["steps"][0]
            committed = torch["first_step_committed"] / jax["first_step_committed"]
            print(f"\ncache {mode}: first step returned to the loop, torch / jax: {returned:.2f}")
            print(f"cache {mode}: first step record committed, torch / jax:    {committed:.2f}")


if __name__ == "__main__":
    main()
