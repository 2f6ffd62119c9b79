"""The committer thread: every dispatched transaction, committed in order.

The training thread only dispatches and queues a :class:`Pending` transaction
(:meth:`Committer.put`). The :class:`Committer` takes them in order and does everything else:

- at each snapshot (every ``replay_snapshot_interval`` steps), commits the full host copy of the
  pre-state, and checks that the snapshot's exact parameter sketches match the accumulated ones
  (so state changed outside the step is caught at the next snapshot whatever the sampling); the
  snapshot starts a new :class:`~zkdv.jax._snapshots.Segment`;
- hashes the packed batch (rolling window hashes and a Merkle root over rows) and the update
  sketches the step computed on the device, advances the host's state sketches by linearity
  (``S(t+1) = S(t) + U(t)``, float64) and writes the step record;
- reads the step's challenge (derived in Rust from the record's hash) from the receipt and hands
  the sampled checks to the :class:`~zkdv.jax._checks.Checker`: run inline, a fence, under
  ``UNCHECKED`` and ``NEVER``; on the verifier thread under ``ALWAYS``, once the transaction is
  retired.

An error in the committer itself fails the session (:meth:`zkdv._flow.Flow.fail`); once the
session is poisoned, queued transactions are retired without being committed.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from zkdv import hashing
from zkdv._flow import Flow, commit_loop
from zkdv.config import Tolerance
from zkdv.jax._checks import Checker, CheckJob, compare_state, element
from zkdv.jax._records import Records, RegisteredProgram
from zkdv.jax._snapshots import Segment, Snapshots
from zkdv.overlap import Overlap

__all__ = ["Committer", "Pending"]


@dataclass(frozen=True)
class Pending:
    """One dispatched transaction on its way to the committer."""

    step: int
    program: RegisteredProgram
    overlap: Overlap
    batch: Any
    """The packed batch, on the device (the committer copies it to the host)."""
    sketches: list[Any]
    post_params: list[Any]
    post_opt_state: list[Any]
    snapshot: list[Any] | None
    """The pre-state's snapshot copy, when the step is a snapshot step."""
    pooled: bool = False
    """Whether the snapshot's arrays are a tree of the snapshot pool."""


def _state_commitment(paths: Sequence[str], sketches: Sequence[np.ndarray]) -> bytes:
    return hashing.commit_tensor_tree(zip(paths, sketches, strict=True))


class Committer:
    """The commit queue, its thread, and the host's view of the committed state.

    Args:
        records: The transcript.
        flow: The session's flow state (slots retired here, poison read and set).
        snapshots: Holds and releases the segments.
        checker: Runs the sampled checks.
        tolerance: The session's base tolerance (of the snapshot state comparisons).
        retain: What evidence the session retains (``"all"``, ``"snapshots"`` or ``None``).
    """

    def __init__(
        self,
        records: Records,
        flow: Flow,
        snapshots: Snapshots,
        checker: Checker,
        tolerance: Tolerance,
        retain: str | None = None,
    ) -> None:
        self._retain = retain
        self._records = records
        self._flow = flow
        self._snapshots = snapshots
        self._checker = checker
        self._tolerance = tolerance
        self._rolling_window = 0
        self._queue: queue.Queue[Pending | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._sketch_state: list[np.ndarray] | None = None
        """The accumulated parameter sketches, ``S(t)`` (float64)."""
        self._post_commitment: bytes | None = None
        self._state_steps = 0
        self.segment: Segment | None = None
        """The newest snapshot and the steps committed since."""

    def start(self, rolling_window: int) -> None:
        """Start the committer thread; ``rolling_window`` is the batch hashing window."""
        self._rolling_window = rolling_window
        self._thread = threading.Thread(target=self._loop, name="zkdv-committer", daemon=True)
        self._thread.start()

    def put(self, pending: Pending) -> None:
        """Queue a dispatched transaction (it holds an admission slot until it retires)."""
        self._queue.put(pending)

    def stop(self) -> None:
        """Let the thread finish the queue, and wait for it."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join()

    def check_final_state(self, step: int, paths: Sequence[str], params: list[np.ndarray]) -> None:
        """Compare the final parameters with the committed updates (after :meth:`stop`)."""
        exact = self._records.exact_sketches(paths, params)
        self._compare(step, paths, params, exact)

    def _loop(self) -> None:
        commit_loop(self._queue, self._flow, self._commit)

    def _compare(
        self,
        step: int,
        paths: Sequence[str],
        params: Sequence[np.ndarray],
        exact: Sequence[np.ndarray],
    ) -> None:
        assert self._sketch_state is not None
        failure = compare_state(
            step,
            paths,
            params,
            exact,
            self._sketch_state,
            self._state_steps,
            self._tolerance,
            self._records.probe,
        )
        if failure is not None:
            self._flow.poison(failure)

    def _commit(self, pending: Pending) -> None:
        registered = pending.program
        program = registered.program
        if pending.snapshot is not None:
            self._take_snapshot(pending)
        if self._flow.failure is not None:
            self._flow.retire()
            return
        segment = self.segment
        assert segment is not None and self._sketch_state is not None
        host_batch = np.array(pending.batch)  # a copy: the retained evidence
        updates = [
            np.asarray(s).reshape(self._records.sketch_shape(p, tuple(a.shape)))
            for s, p, a in zip(
                pending.sketches, program.param_paths, program.param_avals, strict=True
            )
        ]
        # pre_state(t) is post_state(t-1), already hashed (the sketches did not change since).
        pre = self._post_commitment or _state_commitment(program.param_paths, self._sketch_state)
        self._sketch_state = [
            s + u.astype(np.float64) for s, u in zip(self._sketch_state, updates, strict=True)
        ]
        self._state_steps += 1
        post = _state_commitment(program.param_paths, self._sketch_state)
        self._post_commitment = post
        update = _state_commitment(program.param_paths, updates)
        batch = hashing.commit_batch(host_batch, self._rolling_window)
        evidence = None
        if self._retain == "all":
            evidence = {
                "batch": self._records.evidence([("batch", host_batch)]),
                "update": self._records.evidence(
                    list(zip(program.param_paths, updates, strict=True))
                ),
            }
        receipt = self._records.transition(
            step=pending.step,
            program=registered.seq,
            batch=batch,
            pre_state=pre,
            update=update,
            post_state=post,
            overlap=pending.overlap.to_record(),
            evidence=evidence,
        )
        segment.programs.append(registered)
        segment.batches.append(host_batch)
        segment.batch_roots.append(batch.root)
        segment.updates.append(updates)
        challenge = receipt.challenge
        if not (challenge.state or challenge.update):
            self._flow.retire()
            return
        committed: list[float] = []
        indices: list[int] = []
        if challenge.update:
            indices = list(challenge.update_indices())
            if len(indices) > 1:
                # The post-update optimizer state is production's own output (never donated);
                # the update coordinate is read when the check replays step t (see checks_of).
                committed.append(element(pending.post_opt_state, indices[1]))
        self._snapshots.hold(segment)
        job = CheckJob(
            step=pending.step,
            owner=segment,
            program=registered,
            segment=segment.view(),
            state=challenge.state,
            update=challenge.update,
            indices=tuple(indices),
            committed=tuple(committed),
        )
        if pending.overlap is Overlap.ALWAYS:
            self._flow.retire()
            self._checker.submit(job)
        else:
            try:
                self._checker.run(job)
            finally:
                self._flow.retire()

    def _take_snapshot(self, pending: Pending) -> None:
        program = pending.program.program
        assert pending.snapshot is not None
        state = [np.asarray(x) for x in pending.snapshot]
        paths = [f"params/{p}" for p in program.param_paths] + [
            f"opt_state/{p}" for p in program.opt_paths
        ]
        digest = hashing.commit_tree(
            (p, hashing.commit_tensor(x).digest) for p, x in zip(paths, state, strict=True)
        )
        artifact = (
            self._records.evidence(list(zip(paths, state, strict=True))) if self._retain else None
        )
        self._records.snapshot({"step": pending.step, "state": digest, "artifact": artifact})
        params = state[: program.n_params]
        exact = self._records.exact_sketches(program.param_paths, params)
        if self._sketch_state is None:
            self._sketch_state = exact
        else:
            self._compare(pending.step, program.param_paths, params, exact)
        old = self.segment
        self.segment = Segment(
            pending.step, state, tree=list(pending.snapshot) if pending.pooled else None
        )
        if old is not None:
            self._snapshots.release(old)
