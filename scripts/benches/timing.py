"""Timing shared by the runtime's benchmarks (``runtime``, ``matmul``, ``math``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(call: Callable[[], object], reps: int) -> float:
    """The median wall time of ``reps`` calls of ``call``."""
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(calls: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """The median time of each of ``calls``, after one warm-up call each, timed in ``reps``
    rounds that call each once in turn (so that a slow spell of a shared machine falls on
    every one of them)."""
    for call in calls.values():
        call()
    samples: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(reps):
        for key, call in calls.items():
            samples[key].append(median_seconds(call, 1))
    return {k: statistics.median(v) for k, v in samples.items()}
