"""Flow control and the failure state that the session's threads share.

:class:`Flow` owns the admission count of the pipeline (``max_in_flight`` and
:mod:`zkdv.overlap`): a transaction holds a slot from dispatch (:meth:`Flow.admit`, on the
training thread) until it *retires* (:meth:`Flow.retire`, on the committer or after its fencing
check). It also owns the session's poison: the first failed check (:meth:`Flow.poison`, from
any thread) and an error of the committer itself (:meth:`Flow.fail`); once either is set every
later operation raises (:meth:`Flow.raise_if_poisoned`). One condition variable guards all of
it, so a waiting dispatch wakes on a retirement and on a failure alike.
"""

from __future__ import annotations

import atexit
import queue
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from zkdv.checks import ZKDVPoisonedError
from zkdv.overlap import Overlap

__all__ = [
    "Flow",
    "closed",
    "commit_loop",
    "finish_at_exit",
    "finish_sessions",
    "finish_unclosed",
]

_SESSIONS: weakref.WeakSet[Any] = weakref.WeakSet()
"""Started sessions not yet closed (see :func:`finish_at_exit`)."""


class Flow:
    """Admission slots and the poison of one session.

    Args:
        max_in_flight: The most dispatched transactions not yet retired (``NEVER`` admits one
            only when nothing is in flight).
    """

    def __init__(self, max_in_flight: int) -> None:
        self.max_in_flight = max_in_flight
        self.in_flight = 0
        """Dispatched transactions not yet retired."""
        self.failure: ZKDVPoisonedError | None = None
        """The first failure found (a failed or broken check): the session is poisoned."""
        self.error: BaseException | None = None
        """An error of the committer thread itself."""
        self.refused = False
        """Whether :attr:`error` is a refusal of the session's step, found beside training
        (:meth:`refuse`): raised as it is."""
        self.written: Callable[[], int] | None = None
        """How many step records the transcript holds (set by the session), which an I/O
        failure's message states."""
        self._cond = threading.Condition()

    def raise_if_poisoned(self) -> None:
        """Raise the session's failure, or the committer's error: an ``OSError`` as an
        ``OSError`` (a full disk is an I/O failure, not a verdict), anything else as a
        ``RuntimeError``."""
        if self.failure is not None:
            raise self.failure
        error = self.error
        if error is not None and self.refused:
            raise error
        if isinstance(error, OSError):
            held = ""
            if self.written is not None:
                n = self.written()
                held = f" ({n} step record{'' if n == 1 else 's'})"
            raise type(error)(
                error.errno,
                f"ZKDV could not write the transcript ({error.strerror or error}); the records "
                f"written before the failure{held} are intact and verifiable, and nothing "
                "after it was committed",
                error.filename,
            ) from error
        if error is not None:
            raise RuntimeError(f"the ZKDV committer failed: {error}") from error

    def admit(self, overlap: Overlap) -> None:
        """Take a slot for a transaction of policy ``overlap``, waiting for one to retire.

        Raises:
            ZKDVPoisonedError, RuntimeError: when the session is (or becomes) poisoned.
        """
        limit = 1 if overlap is Overlap.NEVER else self.max_in_flight
        with self._cond:
            while self.in_flight >= limit and self.failure is None and self.error is None:
                self._cond.wait()
            self.raise_if_poisoned()
            self.in_flight += 1

    def retire(self) -> None:
        """Release a transaction's slot."""
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def poison(self, failure: ZKDVPoisonedError) -> None:
        """Record ``failure`` unless the session is already poisoned; wakes every waiter."""
        with self._cond:
            if self.failure is None:
                self.failure = failure
            self._cond.notify_all()

    def fail(self, error: BaseException) -> None:
        """Record an error of the committer and retire the transaction it was committing."""
        self.error = error
        self.retire()

    def fail_io(self, error: OSError) -> None:
        """Record that the transcript could not be written (from any thread); wakes every
        waiter. An I/O failure is not a verdict: it stops the session without poisoning it."""
        self.stop(error)

    def stop(self, error: BaseException) -> None:
        """Record an error that stops the session without a verdict (from any thread): an
        I/O failure, a production program that could not be compiled; wakes every waiter."""
        with self._cond:
            if self.error is None:
                self.error = error
            self._cond.notify_all()

    def refuse(self, error: BaseException) -> None:
        """Record that the session's step cannot be committed (from any thread: its trace,
        beside training, refused it); wakes every waiter. Not a verdict: every later call
        raises ``error`` itself, the refusal the user acts on."""
        with self._cond:
            if self.error is None:
                self.error = error
                self.refused = True
            self._cond.notify_all()

    def wait_idle(self) -> None:
        """Wait until every admitted transaction retired (or the committer failed)."""
        with self._cond:
            while self.in_flight > 0 and self.error is None:
                self._cond.wait()


def commit_loop[T](items: queue.Queue[T | None], flow: Flow, commit: Callable[[T], None]) -> None:
    """A committer thread's body: ``commit`` each queued transaction in order until ``None``.

    Once the session is poisoned or the committer failed, queued transactions are retired
    without being committed; an error of ``commit`` itself fails the flow (the training thread
    raises it at its next transaction).
    """
    while True:
        item = items.get()
        if item is None:
            return
        try:
            if flow.failure is not None or flow.error is not None:
                flow.retire()
                continue
            commit(item)
        except BaseException as error:  # noqa: BLE001  (reported to the training thread)
            flow.fail(error)


def finish_at_exit(session: Any) -> None:
    """Have the session finished (:func:`finish_sessions`) when the interpreter exits, unless
    it was closed (it then leaves :data:`_SESSIONS` by itself, or when it is collected).

    A session's committer and verifier threads run native code (the Rust runtime, torch,
    XLA). Left running while the interpreter finalizes, such a thread is torn down inside
    that code and the process aborts (``terminate called without an active exception``,
    status 134), as it did when a script ended on an unclosed poisoned session. So at exit
    each open session stops its threads first (and records a failure it found).
    """
    if not _SESSIONS and not getattr(finish_at_exit, "installed", False):
        atexit.register(finish_sessions)
        finish_at_exit.installed = True  # type: ignore[attr-defined]
    _SESSIONS.add(session)


def closed(session: Any) -> None:
    """Forget ``session``: it was closed, nothing is left to finish at exit."""
    _SESSIONS.discard(session)


def finish_sessions() -> None:
    """Finish every started session not yet closed (see :func:`finish_at_exit`): stop its
    threads (each frontend's session's ``_stop_threads``), then :func:`finish_unclosed`. Run at
    interpreter exit, and by the tests after each test."""
    for session in list(_SESSIONS):
        try:
            if session._state == "running":
                session._stop_threads()
                finish_unclosed(session.directory, session._flow, session._records)
        except BaseException as error:  # noqa: BLE001  (at exit: report, never raise)
            print(f"zkdv: finishing an unclosed session at exit failed: {error}", file=sys.stderr)
    _SESSIONS.clear()


def finish_unclosed(directory: object, flow: Flow, records: Any) -> None:
    """The end of a session the script did not close, once its threads stopped: a poisoned
    session's close record records its failure (so the transcript says why it ended); an
    honest one is left without a close record, as the script left it. Either is reported on
    standard error."""
    failure = flow.failure
    if failure is not None and records.opened and flow.error is None:
        records.close(failure.to_failure_record())
        print(
            f"zkdv: session {directory} was poisoned and not closed; its close record records "
            f"the failure: {failure}",
            file=sys.stderr,
        )
    elif records.opened:
        steps = records.steps_written
        print(
            f"zkdv: session {directory} was not closed: its transcript holds "
            f"{steps} step record{'' if steps == 1 else 's'} and no close record (call "
            "proof.close() after the training loop)",
            file=sys.stderr,
        )
