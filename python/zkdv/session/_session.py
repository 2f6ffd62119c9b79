"""``Session``: the framework-neutral half of ``zkdv.jax.ZKDV`` and ``zkdv.torch.ZKDV``.

It checks the constructor's and ``start``'s arguments, owns the parts every session has (the
:class:`~zkdv.session._flow.Flow`, the :class:`~zkdv.session._records.Records`, the
:class:`~zkdv.session._committer.Committer` and the :class:`~zkdv.session._checker.Checker`),
and implements the lifecycle: ``start``, ``join``, ``close``, the threads' end, ``checks`` and
``steps``. A frontend subclasses it and implements the :class:`Frontend` hooks.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from zkdv.checks import CheckResult
from zkdv.config import ZKDVConfig
from zkdv.session._arguments import retention, session_config, start_arguments
from zkdv.session._checker import Checker, CheckJob, Replayed
from zkdv.session._committer import Committer
from zkdv.session._derive import Stage
from zkdv.session._flow import Flow, closed, finish_at_exit
from zkdv.session._records import Records

__all__ = ["Session"]


class Session(ABC):
    """A proof session writing its transcript to ``directory``; the frontends' base class.

    The constructor's arguments are those of :class:`zkdv.jax.ZKDV` and
    :class:`zkdv.torch.ZKDV`, which document them.
    """

    _framework: ClassVar[str]
    """The framework's name in thread names (``"jax"``, ``"torch"``)."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        config: ZKDVConfig | None = None,
        *,
        max_in_flight: int = 2,
        replay_snapshot_interval: int = 12,
        retain: str | None = None,
        checkpoint_interval: int | None = None,
    ) -> None:
        config = session_config(config, max_in_flight, replay_snapshot_interval)
        self.directory = Path(directory)
        self.config = config
        self._retain = retention(retain, replay_snapshot_interval, checkpoint_interval)
        self.replay_snapshot_interval = self._retain.snapshot_interval
        self._state = "created"
        self._rolling_window = 0
        self._probe_ratio = 0.01
        self._steps = 0
        self._flow = Flow(max_in_flight)
        self._records = Records()
        self._flow.written = lambda: self._records.steps_written
        self._checker = Checker(self._records, self._flow, self._replay, self._job_done)
        self._committer = Committer(self._records, self._flow, self._checker, self._retain)
        self._derivation = Stage()
        self._setup()

    # -- the frontend's part ------------------------------------------------------------------

    @abstractmethod
    def _setup(self) -> None:
        """Initialize the frontend's own state (the end of the constructor)."""

    @abstractmethod
    def _commit(self, pending: Any) -> None:
        """Commit one dispatched transaction, on the committer thread: its snapshot when one
        is due, its step record and its sampled checks (:class:`Committer`'s pieces)."""

    @abstractmethod
    def _replay(self, job: CheckJob[Any]) -> Replayed:
        """Rebuild the pre-state of ``job``'s step and replay it, for its checks."""

    @abstractmethod
    def _last_state_check(self) -> None:
        """Before the close record: check the state the last transaction left against what it
        committed (poisons the session when it differs)."""

    @abstractmethod
    def _final_state(
        self,
    ) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]] | None:
        """The state the last transaction left, as named host arrays (parameters, optimizer
        state), for the final snapshot; ``None`` when it is no longer readable."""

    def _before_close(self) -> None:  # noqa: B027  (optional hook)
        """Write what must precede an ``ok`` close record (a production program compiled
        beside training); an error here ends the session without a close record."""

    def _job_done(self, job: CheckJob[Any]) -> None:  # noqa: B027  (optional hook)
        """Release what ``job`` held (called once its checks finished, whatever the outcome)."""

    def _started(self) -> None:  # noqa: B027  (optional hook)
        """Start what the frontend runs beside the committer and the verifier."""

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, rolling_window: int, probe_ratio: float = 0.01) -> None:
        """Fix the session's batch hashing window and probe ratio; call once, before training.

        Args:
            rolling_window: Words per rolling hash within each packed batch row; at least 1
                and at most the packed row width (checked at the first step). Unrelated to
                the number of steps.
            probe_ratio: Fraction of each parameter leaf's last dimension kept by its probe
                projection, in ``(0, 1]`` (default 0.01); fixed for the run.

        Raises:
            RuntimeError: when already started or closed.
            ValueError, TypeError: for an invalid window or ratio.
            FileExistsError: when the directory already holds a transcript.
        """
        if self._state != "created":
            raise RuntimeError(f"ZKDV.start: the session is already {self._state}")
        probe_ratio = start_arguments(self.directory, rolling_window, probe_ratio)
        self._rolling_window = rolling_window
        self._probe_ratio = float(probe_ratio)
        self._started()
        self._checker.start(f"zkdv-{self._framework}-verifier")
        self._committer.start(rolling_window, self._commit, f"zkdv-{self._framework}-committer")
        self._state = "running"
        finish_at_exit(self)

    def join(self) -> None:
        """Wait until every dispatched transaction is committed and every sampled check done.

        Raises:
            ZKDVPoisonedError: when a check failed (the session is poisoned).
        """
        if self._state == "created":
            raise RuntimeError("ZKDV.join: call start() first")
        self._drain()
        self._flow.raise_if_poisoned()

    def close(self) -> None:
        """Wait for all commitments and checks, write the close record and flush the transcript.

        Call once, after the training loop. Raises :class:`zkdv.ZKDVPoisonedError` when a
        check failed; the close record then says ``poisoned`` and names the failure.
        """
        if self._state == "closed":
            raise RuntimeError("ZKDV.close: the session is already closed")
        if self._state == "created":
            raise RuntimeError("ZKDV.close: the session was never started")
        self._stop_threads()
        if self._records.opened and self._flow.error is None:
            # After an error of the committer (a full disk) the transcript keeps the records
            # written before it, valid, and no close record: the error is raised as what it
            # is. Without records no step ever ran and there is nothing to write.
            if self._flow.failure is None:
                self._last_state_check()
            if self._flow.failure is None and self._steps:
                # The final snapshot: the delivered state, which `zkdv audit --final` binds.
                final = self._final_state()
                if final is not None:
                    self._committer.snapshot(self._steps, *final, final=True)
            if self._flow.failure is None:
                try:
                    self._before_close()
                except Exception as error:  # noqa: BLE001  (raised below, as the session's)
                    self._flow.stop(error)
            failure = self._flow.failure
            if self._flow.error is None:
                self._records.close(None if failure is None else failure.to_failure_record())
        self._flow.raise_if_poisoned()

    @property
    def checks(self) -> list[CheckResult]:
        """The checks run so far, in the order they finished."""
        return list(self._checker.results)

    @property
    def steps(self) -> int:
        """Transactions dispatched so far."""
        return self._steps

    @property
    def max_in_flight(self) -> int:
        """The most dispatched transactions not yet retired."""
        return self._flow.max_in_flight

    # -- internals ----------------------------------------------------------------------------

    def _require_running(self, what: str) -> None:
        """Raise unless the session is started, not closed and not poisoned."""
        self._flow.raise_if_poisoned()
        if self._state == "created":
            raise RuntimeError(f"cannot {what}: call proof.start(...) first")
        if self._state == "closed":
            raise RuntimeError(f"cannot {what}: the session is closed")

    def _drain(self) -> None:
        self._flow.wait_idle()
        self._checker.wait()

    def _stop_threads(self) -> None:
        """Wait for the queued work, stop the committer and verifier threads, and mark the
        session closed."""
        try:
            self._drain()
        finally:
            self._committer.stop()
            self._checker.shutdown()
            self._derivation.close()
            self._state = "closed"
            closed(self)
