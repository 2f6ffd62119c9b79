"""The bounded pool of host-memory state trees that periodic snapshots are copied into.

A snapshot is one precompiled whole-tree device-to-host copy of the pre-state (parameters and
optimizer state), launched on the training thread before the due step and completed
asynchronously. Its destination comes from a pool of ``size`` host trees allocated when the
first snapshot is due, before training proper ("primed", so no copy pays for pinning fresh
memory), and each copy donates its destination tree, so no second device-state tree is ever
kept. A tree returns to the pool when nothing needs its snapshot any more: the segment it
starts was superseded and every check that replays from it is done. When every tree is in use
the training thread waits for one (flow control); the pool never grows.

Backends that cannot reuse a donated host buffer (XLA CPU, in a test on jax 0.12) copy into a
fresh buffer instead; the pool then still bounds the number of snapshot trees alive at once.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

__all__ = ["WAIT_LIMIT_S", "SnapshotPool"]

WAIT_LIMIT_S = 600.0
"""How long a snapshot waits for a free tree before it reports the pool stuck."""


def _identity(destination: list[Any], state: list[Any]) -> list[Any]:
    del destination  # donated: its buffers may hold the result
    return list(state)


class SnapshotPool:
    """``size`` host trees shaped and placed like ``leaves`` (in host memory ``kind``)."""

    def __init__(self, leaves: Sequence[jax.Array], kind: str, size: int) -> None:
        if size < 1:
            raise ValueError(f"SnapshotPool: size must be at least 1, got {size}")
        self.size = size
        self._shardings = [x.sharding.with_memory_kind(kind) for x in leaves]
        self._state_shardings = [x.sharding for x in leaves]
        self._free: list[list[jax.Array]] = [
            [
                jax.device_put(np.zeros(x.shape, x.dtype), s)
                for x, s in zip(leaves, self._shardings, strict=True)
            ]
            for _ in range(size)
        ]
        destination = [
            jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s)
            for x, s in zip(leaves, self._shardings, strict=True)
        ]
        source = [jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding) for x in leaves]
        with warnings.catch_warnings():
            # Where the backend cannot reuse the donated host buffers, JAX says so once here.
            warnings.simplefilter("ignore")
            self._copy = (
                jax.jit(_identity, donate_argnums=(0,), out_shardings=self._shardings)
                .trace(destination, source)
                .lower()
                .compile()
            )
        self._cond = threading.Condition()
        self.in_use = 0
        self.most_in_use = 0

    def matches(self, leaves: Sequence[Any]) -> bool:
        """Whether ``leaves`` are placed as the pool was built for."""
        return len(leaves) == len(self._state_shardings) and all(
            isinstance(x, jax.Array) and x.sharding == s
            for x, s in zip(leaves, self._state_shardings, strict=True)
        )

    def copy(self, leaves: Sequence[jax.Array], abort: Callable[[], None]) -> list[jax.Array]:
        """Launch the copy of ``leaves`` into a free tree, waiting for one if none is free.

        ``abort()`` is called while waiting and may raise to give up (a poisoned session).
        Returns the snapshot's host arrays; hand them to :meth:`release` when done.

        Raises:
            RuntimeError: when no tree came back within ``WAIT_LIMIT_S`` seconds (a snapshot
                was never released: a bug, reported instead of hanging the training loop).
        """
        deadline = time.monotonic() + WAIT_LIMIT_S
        with self._cond:
            while not self._free:
                abort()
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"zkdv: all {self.size} snapshot trees stayed in use for "
                        f"{WAIT_LIMIT_S} s; the snapshot pool is stuck"
                    )
                self._cond.wait(timeout=0.1)
            destination = self._free.pop()
            self.in_use += 1
            self.most_in_use = max(self.most_in_use, self.in_use)
        try:
            return list(self._copy(destination, list(leaves)))
        except BaseException:
            self.release(destination)
            raise

    def release(self, tree: list[jax.Array]) -> None:
        """Return a snapshot's tree to the pool."""
        with self._cond:
            self._free.append(tree)
            self.in_use -= 1
            self._cond.notify_all()
