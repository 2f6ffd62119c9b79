"""Train a small numpy model and keep a ZKDV transcript of it.

This example drives the transcript core directly through the Python binding,
the way a framework frontend does: every step commits to its packed batch and
to probe sketches of the pre-state, the update and the post-state; snapshots
of the full pre-state are taken every ``--snapshot-interval`` steps; each step
the verifier's challenge (derived in Rust from the step record) says whether
to replay it from the newest snapshot and compare:

* a *state* check rebuilds the pre-state by replaying the retained batches and
  compares its sketches with the committed ones;
* an *update* check recomputes the step and compares the challenged update
  coordinate and post-update optimizer-state coordinate.

``--corrupt-step N`` makes production apply a 1% wrong update at step N (the
kind of silent fault a miscompile causes); a check of step N, or a state check
of a later step before the next snapshot, catches it. The session is then
poisoned and the script exits 1.

Run: ``python examples/transcript_demo.py OUT_DIR``, then ``zkdv verify OUT_DIR``.
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import zkdv
from zkdv import hashing, transcript

LEARNING_RATE = np.float32(0.05)
MOMENTUM = np.float32(0.9)
TOLERANCE = {"abs": 1e-7, "rel": 1e-6, "spread": 0.0, "replays": 0}

State = dict[str, np.ndarray]  # "params/w", "params/b", "opt_state/mu/w", ...


def leaves(state: State, prefix: str) -> list[tuple[str, np.ndarray]]:
    """Leaves of one tree, in tree order."""
    return [(k, v) for k, v in state.items() if k.startswith(prefix)]


def train_step(state: State, batch: np.ndarray) -> tuple[State, State]:
    """One SGD-with-momentum step on mean squared error; returns (new state, deltas)."""
    floats = batch.view(np.float32)
    x, y = floats[:, :8], floats[:, 8:]
    w, b = state["params/w"], state["params/b"]
    err = x @ w + b - y
    grads = {
        "w": (x.T @ err) * np.float32(2.0 / err.size),
        "b": err.sum(axis=0) * np.float32(2.0 / err.size),
    }
    new, deltas = {}, {}
    for name, g in grads.items():
        mu = MOMENTUM * state[f"opt_state/mu/{name}"] + g
        deltas[f"params/{name}"] = -LEARNING_RATE * mu
        new[f"params/{name}"] = state[f"params/{name}"] + deltas[f"params/{name}"]
        new[f"opt_state/mu/{name}"] = mu
    return {k: new[k] for k in state}, deltas


@dataclass
class Session:
    """The prover side: production state plus what checks need to replay."""

    writer: transcript.TranscriptWriter
    seed: bytes
    ratio: float
    program: int
    snapshot: tuple[int, State] | None = None
    batches: list[np.ndarray] = field(default_factory=list)  # since the snapshot
    committed_sketches: dict[int, list[np.ndarray]] = field(default_factory=dict)
    failure: dict | None = None

    def sketches(self, tree: list[tuple[str, np.ndarray]]) -> list[np.ndarray]:
        return [
            hashing.sketch(hashing.probe_map(self.seed, path, leaf.shape, self.ratio), leaf)
            for path, leaf in tree
        ]

    def commit(self, tree: list[tuple[str, np.ndarray]]) -> tuple[bytes, list[np.ndarray]]:
        sketches = self.sketches(tree)
        digests = [hashing.commit_tensor(s).digest for s in sketches]
        return hashing.commit_tree(zip([p for p, _ in tree], digests, strict=True)), sketches

    def replay_to(self, step: int) -> State:
        """Rebuild the pre-state of ``step`` from the snapshot and retained batches."""
        assert self.snapshot is not None
        start, state = self.snapshot
        for batch in self.batches[: step - start]:
            state, _ = train_step(state, batch)
        return state


def run(out: Path, steps: int, interval: int, probability: float, corrupt: int | None) -> int:
    rng = np.random.default_rng(0)
    true_w = rng.normal(size=(8, 4)).astype(np.float32)
    state: State = {
        "params/w": np.zeros((8, 4), np.float32),
        "params/b": np.zeros(4, np.float32),
        "opt_state/mu/w": np.zeros((8, 4), np.float32),
        "opt_state/mu/b": np.zeros(4, np.float32),
    }
    layout = lambda prefix: [  # noqa: E731
        {"path": p, "dtype": hashing.dtype_tag(v.dtype), "shape": list(v.shape)}
        for p, v in leaves(state, prefix)
    ]
    writer = transcript.TranscriptWriter(
        out,
        {
            "prover": "whitebox-numpy-demo",
            "config_name": "transcript-demo",
            "versions": {"zkdv": zkdv.__version__, "numpy": np.__version__},
            "sampling": {
                "probability": {
                    "state_check_probability": probability,
                    "update_check_probability": probability,
                }
            },
            "tolerance": TOLERANCE,
            "tolerance_policy": "fixed",
            "rolling_window": 4,
            "probe_ratio": 0.5,
            "snapshot_interval": interval,
            "params": layout("params/"),
            "opt_state": layout("opt_state/"),
            "batch": [{"path": "batch", "dtype": "u32", "shape": [16, 12]}],
        },
    )
    program_bytes = Path(__file__).read_bytes()
    artifact = writer.put_artifact(program_bytes, "py")
    session = Session(
        writer=writer,
        seed=writer.root["probe_seed"],
        ratio=writer.root["probe_ratio"],
        program=writer.append_program(
            {
                "name": "train_step",
                "format": "numpy",
                "attested": artifact,
                "production": artifact,
                # float64 numpy: no narrow type, so the fixed tolerance applies as it is.
                "precision": {"narrowest": "f64", "narrow_results": 0},
                "tolerance": TOLERANCE,
            }
        ),
    )

    pre_commitment, pre_sketches = session.commit(list(state.items()))
    for step in range(steps):
        x = rng.normal(size=(16, 8)).astype(np.float32)
        y = x @ true_w + np.float32(0.01) * rng.normal(size=(16, 4)).astype(np.float32)
        batch = np.ascontiguousarray(np.concatenate([x, y], axis=1)).view(np.uint32)

        if step % interval == 0:  # full snapshot of the pre-state
            buffer = io.BytesIO()
            np.savez(buffer, **{k.replace("/", "."): v for k, v in state.items()})
            full = hashing.commit_tree(
                (k, hashing.commit_tensor(v).digest) for k, v in state.items()
            )
            writer.append_snapshot(
                {
                    "step": step,
                    "state": full,
                    "artifact": writer.put_artifact(buffer.getvalue(), "npz"),
                }
            )
            session.snapshot = (step, {k: v.copy() for k, v in state.items()})
            session.batches, session.committed_sketches = [], {}
        session.batches.append(batch)
        session.committed_sketches[step] = pre_sketches

        new_state, deltas = train_step(state, batch)
        if step == corrupt:  # a silent fault in production: a 1% wrong update
            for name in ("w", "b"):
                deltas[f"params/{name}"] *= np.float32(1.01)
                new_state[f"params/{name}"] = state[f"params/{name}"] + deltas[f"params/{name}"]
        update_commitment, _ = session.commit(list(deltas.items()))
        post_commitment, post_sketches = session.commit(list(new_state.items()))
        receipt = writer.append_step(
            {
                "step": step,
                "program": session.program,
                "batch": {
                    "rows": 16,
                    "width": 12,
                    "window": 4,
                    "root": hashing.commit_batch(batch, 4).root,
                },
                "pre_state": pre_commitment,
                "update": update_commitment,
                "post_state": post_commitment,
                "overlap": "unchecked",
            }
        )
        check(session, step, receipt.challenge, state, deltas, new_state)
        state, pre_commitment, pre_sketches = new_state, post_commitment, post_sketches

    close = writer.close(session.failure)
    print(f"wrote {steps} steps to {out} (status {close['status']})")
    if session.failure is not None:
        print(f"poisoned: {session.failure['message']}", file=sys.stderr)
        return 1
    report = transcript.verify(out)
    print(f"in-process verification: {report['checks']}")
    return 0


def check(
    session: Session,
    step: int,
    challenge: transcript.Challenge,
    pre: State,
    deltas: State,
    post: State,
) -> None:
    """Run the sampled checks of one step and record their outcome."""
    if session.failure is not None or not (challenge.state or challenge.update):
        return
    start = session.snapshot[0] if session.snapshot else 0
    rebuilt = session.replay_to(step)
    base = {
        "step": step,
        "tolerance": TOLERANCE,
        "replay_length": step - start,
    }
    results = []
    if challenge.state:
        committed = np.concatenate([s.ravel() for s in session.committed_sketches[step]])
        recomputed = np.concatenate([s.ravel() for s in session.sketches(list(rebuilt.items()))])
        results.append(("state", [], committed, recomputed))
    if challenge.update:
        replayed, replay_deltas = train_step(rebuilt, session.batches[step - start])
        p, o = challenge.parameter_index, challenge.optimizer_state_index
        flat = lambda s, prefix: np.concatenate([v.ravel() for _, v in leaves(s, prefix)])  # noqa: E731
        committed = np.array([flat(deltas, "params/")[p], flat(post, "opt_state/")[o]])
        recomputed = np.array([flat(replay_deltas, "params/")[p], flat(replayed, "opt_state/")[o]])
        results.append(("update", [p, o], committed, recomputed))
    for kind, indices, committed, recomputed in results:
        committed = committed.astype(np.float64)
        recomputed = recomputed.astype(np.float64)
        ok = np.abs(committed - recomputed) <= TOLERANCE["abs"] + TOLERANCE["rel"] * np.abs(
            committed
        )
        session.writer.append_check(
            {
                **base,
                "kind": kind,
                "indices": indices,
                "committed": committed.tolist(),
                "recomputed": recomputed.tolist(),
                "spread": [],
                "verdict": "pass" if ok.all() else "fail",
            }
        )
        if not ok.all() and session.failure is None:
            bad = int(np.argmin(ok))
            session.failure = {
                "step": step,
                "kind": kind,
                "coordinate": indices[bad] if indices else None,
                "message": f"{kind} check of step {step}: value {bad} committed "
                f"{committed[bad]!r}, replay gives {recomputed[bad]!r}",
            }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="new transcript directory")
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--snapshot-interval", type=int, default=4)
    parser.add_argument("--check-probability", type=float, default=0.25)
    parser.add_argument("--corrupt-step", type=int, default=None)
    args = parser.parse_args()
    try:
        return run(
            args.out, args.steps, args.snapshot_interval, args.check_probability, args.corrupt_step
        )
    except (zkdv.TranscriptError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
