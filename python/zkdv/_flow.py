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

import queue
import threading
from collections.abc import Callable

from zkdv.checks import ZKDVPoisonedError
from zkdv.overlap import Overlap

__all__ = ["Flow", "commit_loop"]


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
        self._cond = threading.Condition()

    def raise_if_poisoned(self) -> None:
        """Raise the session's failure, or a ``RuntimeError`` for a committer error."""
        if self.failure is not None:
            raise self.failure
        if self.error is not None:
            raise RuntimeError(f"the ZKDV committer failed: {self.error}") from self.error

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
