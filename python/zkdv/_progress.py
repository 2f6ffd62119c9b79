"""What a session's slow one-time work is doing, on stderr, while it does it.

A session's first step (and the first step of each new batch layout) traces, exports and lowers
the step, runs the Rust passes, parses the programs for the runtime and, under PyTorch, seals an
AOT Inductor package: seconds to minutes in which the training loop prints nothing. Each such
piece of work runs inside :func:`stage`. A stage that is still running after
:data:`ANNOUNCE_AFTER` seconds is announced on stderr (``zkdv: sealing the AOT Inductor
package...``), repeated with the time so far every :data:`REPEAT_EVERY` seconds, and its end is
printed with its duration; a quick stage prints nothing. ``ZKDV_PROGRESS=0`` in the environment
silences it; ``ZKDV_PROGRESS=all`` prints every stage, however quick.

Every stage's duration is kept (:func:`recorded`), which is how ``scripts/bench first-step``
reports where a first step's time goes.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ANNOUNCE_AFTER", "REPEAT_EVERY", "recorded", "reset", "stage"]

ANNOUNCE_AFTER = 2.0
"""Seconds a stage runs before it is announced."""

REPEAT_EVERY = 15.0
"""Seconds between two reports of a stage still running."""

_lock = threading.Lock()
_recorded: list[tuple[str, float]] = []


def recorded() -> list[tuple[str, float]]:
    """``(stage, seconds)`` of every stage finished in this process so far, in order."""
    with _lock:
        return list(_recorded)


def reset() -> None:
    """Forget the recorded stages."""
    with _lock:
        _recorded.clear()


def _mode() -> str:
    value = os.environ.get("ZKDV_PROGRESS", "").strip().lower()
    if value in ("0", "off", "false", "no"):
        return "off"
    return "all" if value == "all" else "slow"


def _say(line: str) -> None:
    try:
        print(f"zkdv: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # a closed or broken stderr must not fail the step
        pass


@contextmanager
def stage(what: str) -> Iterator[None]:
    """Run the body as the stage ``what`` (a phrase: ``"sealing the AOT Inductor package"``),
    reporting it on stderr when it is slow (see the module's description)."""
    mode = _mode()
    start = time.perf_counter()
    announced = threading.Event()
    finished = threading.Event()

    def report() -> None:
        wait = 0.0 if mode == "all" else ANNOUNCE_AFTER
        if finished.wait(wait):
            return
        announced.set()
        _say(f"{what}...")
        while not finished.wait(REPEAT_EVERY):
            _say(f"still {what} ({time.perf_counter() - start:.0f} s so far)")

    reporter = None
    if mode != "off":
        reporter = threading.Thread(target=report, name="zkdv-progress", daemon=True)
        try:
            reporter.start()
        except RuntimeError:  # at the interpreter's exit no thread starts: the stage is silent
            reporter = None
    failed = True
    try:
        yield
        failed = False
    finally:
        seconds = time.perf_counter() - start
        finished.set()
        if reporter is not None:
            reporter.join()
        with _lock:
            _recorded.append((what, seconds))
        if announced.is_set():
            _say(f"{what}: {'failed after' if failed else 'done in'} {seconds:.1f} s")
