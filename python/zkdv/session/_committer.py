"""The committer: its thread, and the records every committed transaction writes.

The training thread dispatches a transaction and queues what the frontend needs to commit it
(:meth:`Committer.put`); the committer thread takes them in order and calls the frontend's
``commit`` on each (:func:`zkdv.session._flow.commit_loop`). A frontend's commit is made of the
three pieces here, which write the same records for JAX and torch:

- :meth:`Committer.snapshot`: the full commitment of a host copy of the pre-state (and, when the
  session retains evidence, the copy itself);
- :meth:`Committer.transition`: the step record. The host keeps the parameter sketches
  ``S(t)`` (float64) and advances them by linearity, ``S(t+1) = S(t) + U(t)``, so the pre- and
  post-state commitments cost nothing on the device; the packed batch is committed (rolling
  window hashes and a Merkle root over rows). Returns the step's challenge;
- :meth:`Committer.dispatch`: the sampled checks of the challenge as a
  :class:`~zkdv.session._checker.CheckJob`, run inline (a fence) under ``UNCHECKED`` and
  ``NEVER``, or handed to the verifier thread under ``ALWAYS`` once the transaction retires.
"""

from __future__ import annotations

import queue
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from zkdv import hashing, transcript
from zkdv.overlap import Overlap
from zkdv.session._arguments import Retention
from zkdv.session._checker import Checker, CheckJob
from zkdv.session._flow import Flow, commit_loop
from zkdv.session._records import Records

__all__ = ["Committer"]


def _tree(paths: Sequence[str], values: Sequence[np.ndarray]) -> bytes:
    return hashing.commit_tensor_tree(zip(paths, values, strict=True))


class Committer:
    """The commit queue and thread, and the host's view of the committed state.

    Args:
        records: The transcript.
        flow: The session's flow state (slots retired here).
        checker: Runs the sampled checks.
        retain: What evidence the session retains.
    """

    def __init__(self, records: Records, flow: Flow, checker: Checker, retain: Retention) -> None:
        self._records = records
        self._flow = flow
        self._checker = checker
        self._retain = retain
        self._rolling_window = 0
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.sketches: list[np.ndarray] | None = None
        """The accumulated parameter sketches ``S(t)`` (float64), once the first state's
        exact sketches are known (:meth:`begin`)."""
        self.transitions = 0
        """Transitions accumulated into :attr:`sketches`."""
        self._post: bytes | None = None
        self._diverged = False

    def start(self, rolling_window: int, commit: Callable[[Any], None], name: str) -> None:
        """Start the committer thread, which calls ``commit`` on each queued transaction;
        ``rolling_window`` is the batch hashing window."""
        self._rolling_window = rolling_window
        self._thread = threading.Thread(
            target=commit_loop, args=(self._queue, self._flow, commit), name=name, daemon=True
        )
        self._thread.start()

    def put(self, pending: Any) -> None:
        """Queue a dispatched transaction (it holds an admission slot until it retires)."""
        self._queue.put(pending)

    def stop(self) -> None:
        """Let the thread finish the queue, and wait for it."""
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join()

    def begin(self, sketches: list[np.ndarray]) -> None:
        """Start the accumulated sketches from the exact sketches of the first state."""
        self.sketches = sketches

    def exact_sketches(
        self, paths: Sequence[str], values: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """The exact (``float64``) probe sketches of the named host arrays ``values``."""
        return self._records.exact_sketches(list(paths), list(values))

    def snapshot(
        self,
        step: int,
        params: Sequence[tuple[str, np.ndarray]],
        opt_state: Sequence[tuple[str, np.ndarray]],
        final: bool = False,
    ) -> None:
        """Write the snapshot record of step ``step``'s pre-state (named host arrays): the
        commitment of the whole state and of the model alone (the parameters), with the state
        itself as evidence where the session retains it (``final``: the state after the last
        step)."""
        leaves = hashing.state_leaves(params, opt_state)
        digests = [(p, hashing.commit_tensor(x).digest) for p, x in leaves]
        state = hashing.commit_tree(digests)
        # The model alone, which a client can compute from the parameters it holds.
        model = hashing.commit_tree(digests[: len(params)])
        keep = self._retain.keeps_state(step, final)
        artifact = self._records.evidence(leaves) if keep else None
        self._records.snapshot(
            {"step": step, "state": state, "params": model, "artifact": artifact}
        )

    def transition(
        self,
        *,
        step: int,
        program: int,
        paths: Sequence[str],
        updates: Sequence[np.ndarray],
        batch: np.ndarray,
        overlap: Overlap,
        extra: Sequence[tuple[str, np.ndarray]] = (),
        hyperparameters: Sequence[dict[str, Any]] = (),
    ) -> tuple[transcript.Challenge, hashing.BatchCommitment]:
        """Write the step record of a transaction; returns its challenge and the batch's
        commitment.

        Args:
            step: The step index.
            program: The sequence number of the step's program record.
            paths: The parameter leaves' paths.
            updates: The update's sketches, one per parameter leaf.
            batch: The packed ``uint32`` batch, on the host.
            overlap: The transaction's overlap policy.
            extra: Further sketches committed with the update's (a DDP rank's own gradients).
            hyperparameters: The optimizer's options the step's program took as inputs, each
                ``{"name", "value", "leaf"}`` (``leaf``: its batch argument's index).
        """
        assert self.sketches is not None, "begin() was not called"
        # pre_state(t) is post_state(t-1), already hashed (the sketches did not change since).
        pre = self._post or _tree(paths, self.sketches)
        self.sketches = [
            s + u.astype(np.float64) for s, u in zip(self.sketches, updates, strict=True)
        ]
        self.transitions += 1
        nonfinite = sum(int(np.count_nonzero(~np.isfinite(u))) for u in updates)
        if nonfinite and not self._diverged:
            self._diverged = True
            warnings.warn(
                f"ZKDV: the update of step {step} is not finite ({nonfinite} of its sketch "
                "values are NaN or infinite): the loss or the parameters diverged. The "
                "transcript records it at this step and every later one like it (zkdv inspect, "
                "zkdv verify say so); a diverged run is data, not tampering",
                RuntimeWarning,
                stacklevel=2,
            )
        post = _tree(paths, self.sketches)
        self._post = post
        update_leaves = [*zip(paths, updates, strict=True), *extra]
        evidence = None
        if self._retain.steps:
            evidence = {
                "batch": self._records.evidence([("batch", batch)]),
                "update": self._records.evidence(update_leaves),
            }
        committed_batch = hashing.commit_batch(batch, self._rolling_window)
        receipt = self._records.transition(
            step=step,
            program=program,
            batch=committed_batch,
            pre_state=pre,
            update=hashing.commit_tensor_tree(update_leaves),
            post_state=post,
            overlap=overlap.to_record(),
            evidence=evidence,
            hyperparameters=list(hyperparameters) or None,
            nonfinite=nonfinite or None,
        )
        return receipt.challenge, committed_batch

    def dispatch(self, overlap: Overlap, job: CheckJob[Any] | None) -> None:
        """Run ``job`` (the step's sampled checks, ``None`` when none was sampled) and retire
        the transaction: inline, as a fence, unless ``overlap`` is ``ALWAYS``, which retires
        it at once and checks on the verifier thread."""
        if job is None:
            self._flow.retire()
        elif overlap is Overlap.ALWAYS:
            self._flow.retire()
            self._checker.submit(job)
        else:
            try:
                self._checker.run_now(job)
            finally:
                self._flow.retire()
