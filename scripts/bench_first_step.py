"""Time a session's first committed step, PyTorch against JAX, on the same GPT-style model.

The model: a 3.4M-parameter decoder (token and position embeddings, 4 pre-norm blocks of
causal self-attention with 4 heads and a 4x MLP at width 256, a final LayerNorm and an LM
head over 512 tokens), trained with AdamW on 8 sequences of 64 tokens. The same architecture
is written once with ``torch.nn`` and once with Flax linen.

Each frontend runs in a fresh child process (nothing compiled or imported by the other one),
which reports:

- the plain framework's first step (``jax.jit``'s compile, or torch's first eager step);
- the first step under ZKDV: when it returns to the training loop (what a user waits for
  before training goes on) and when its step record is committed;
- torch only: how long the AOT Inductor package takes to seal, which no longer blocks the
  training loop (the committer thread seals while training goes on);
- the stages of the one-time work (``zkdv._progress``).

The ratios printed at the end are torch's over JAX's: for the first step's return to the
training loop (the goal is <= 2) and for its step record (which follows the seal).

Run: ``scripts/bench first-step [--frontend torch|jax|both] [--no-seal]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

VOCAB, SEQ, WIDTH, LAYERS, HEADS, BATCH = 512, 64, 256, 4, 4, 8


def _wait_committed(proof: Any, steps: int) -> None:
    """Until ``steps`` step records are committed (the committer's count of transitions)."""
    while proof._committer.transitions < steps and proof._flow.error is None:
        time.sleep(0.005)


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


def torch_child(seal: bool) -> dict[str, Any]:
    import torch
    from torch import nn
    from torch.nn import functional

    import zkdv

    _progress = _stages()
    torch.set_num_threads(1)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
            self.qkv, self.proj = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
            self.up, self.down = nn.Linear(WIDTH, 4 * WIDTH), nn.Linear(4 * WIDTH, WIDTH)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(WIDTH, dim=-1)
            heads = [y.view(b, t, HEADS, WIDTH // HEADS).transpose(1, 2) for y in (q, k, v)]
            y = functional.scaled_dot_product_attention(*heads, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, WIDTH))
            return x + self.down(functional.gelu(self.up(self.ln2(x))))

    class Gpt(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(VOCAB, WIDTH)
            self.positions = nn.Parameter(torch.zeros(SEQ, WIDTH))
            self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
            self.ln = nn.LayerNorm(WIDTH)
            self.head = nn.Linear(WIDTH, VOCAB)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            x = self.tokens(ids) + self.positions
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln(x))

    def batch(seed: int) -> torch.Tensor:
        return torch.randint(VOCAB, (BATCH, SEQ + 1), generator=torch.Generator().manual_seed(seed))

    def loss_of(model: nn.Module, ids: torch.Tensor) -> torch.Tensor:
        logits = model(ids[:, :-1])
        return functional.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))

    torch.manual_seed(0)
    model = Gpt()
    parameters = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    start = time.perf_counter()
    loss_of(model, batch(0)).backward()
    optimizer.step()
    optimizer.zero_grad()
    plain = time.perf_counter() - start

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
    ids = batch(0)
    with proof.transaction(batch=(ids,)):
        loss_of(model, ids).backward()
        optimizer.step()
        optimizer.zero_grad()
    returned = time.perf_counter() - start
    _wait_committed(proof, 1)
    committed = time.perf_counter() - start
    proof.close()
    closed = time.perf_counter() - start
    stages = _progress.recorded()
    sealing = sum(s for name, s in stages if name.startswith("sealing"))
    return {
        "parameters": parameters,
        "plain_first_step": plain,
        "first_step_returned": returned,
        "first_step_committed": committed,
        "closed": closed,
        "sealing": sealing,
        "stages": stages,
    }


def jax_child() -> dict[str, Any]:
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax

    import zkdv

    _progress = _stages()

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "tests"))
    import jax_steps  # the Flax twin of the torch model above, also scripts/bench jax's

    model = jax_steps.Gpt()

    def batch(seed: int) -> np.ndarray:
        return np.random.default_rng(seed).integers(0, VOCAB, (BATCH, SEQ + 1), dtype=np.int32)

    def step_body(state: Any, ids: jax.Array) -> Any:
        def loss(params: Any) -> jax.Array:
            logits = state.apply_fn({"params": params}, ids[:, :-1])
            return optax.softmax_cross_entropy_with_integer_labels(logits, ids[:, 1:]).mean()

        return state.apply_gradients(grads=jax.grad(loss)(state.params))

    from flax.training import train_state

    params = model.init(jax.random.key(0), jnp.zeros((1, SEQ), jnp.int32))["params"]
    parameters = sum(x.size for x in jax.tree.leaves(params))
    plain_state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=optax.adamw(1e-3)
    )
    start = time.perf_counter()
    jax.block_until_ready(jax.jit(step_body)(plain_state, batch(0)))
    plain = time.perf_counter() - start

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
    state = jax.block_until_ready(train_step(state, batch(0)))
    returned = time.perf_counter() - start
    _wait_committed(proof, 1)
    committed = time.perf_counter() - start
    proof.close()
    closed = time.perf_counter() - start
    return {
        "parameters": parameters,
        "plain_first_step": plain,
        "first_step_returned": returned,
        "first_step_committed": committed,
        "closed": closed,
        "sealing": 0.0,
        "stages": _progress.recorded(),
    }


def run_child(frontend: str, seal: bool) -> dict[str, Any]:
    command = [sys.executable, "-W", "ignore", __file__, "--child", frontend]
    if not seal:
        command.append("--no-seal")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"the {frontend} child failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(frontend: str, result: dict[str, Any]) -> None:
    print(f"\n{frontend}: {result['parameters'] / 1e6:.2f}M parameters")
    print(f"  plain first step (no ZKDV)        {result['plain_first_step']:8.2f} s")
    print(f"  first step returned to the loop   {result['first_step_returned']:8.2f} s")
    print(f"  first step committed              {result['first_step_committed']:8.2f} s")
    if result["sealing"]:
        print(f"  sealing (committer thread)        {result['sealing']:8.2f} s")
    print(f"  close() returned                  {result['closed']:8.2f} s")
    for name, seconds in result["stages"]:
        print(f"    {seconds:7.2f} s  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frontend", choices=["torch", "jax", "both"], default="both")
    parser.add_argument("--no-seal", action="store_true", help="torch: skip the AOTI seal")
    parser.add_argument("--child", choices=["torch", "jax"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = torch_child(not args.no_seal) if args.child == "torch" else jax_child()
        print(json.dumps(result))
        return
    frontends = ["torch", "jax"] if args.frontend == "both" else [args.frontend]
    results = {f: run_child(f, not args.no_seal) for f in frontends}
    for frontend, result in results.items():
        report(frontend, result)
    if len(results) == 2:
        torch, jax = results["torch"], results["jax"]
        returned = torch["first_step_returned"] / jax["first_step_returned"]
        committed = torch["first_step_committed"] / jax["first_step_committed"]
        print(f"\nfirst step returned to the loop, torch / jax: {returned:.2f} (goal <= 2)")
        print(f"first step record committed, torch / jax:    {committed:.2f} (includes the seal)")


if __name__ == "__main__":
    main()
