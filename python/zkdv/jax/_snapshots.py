"""The bounded pool of host-memory state trees that periodic snapshots are copied into.

A snapshot is one precompiled whole-tree device-to-host copy of the pre-state (parameters and
optimizer state), launched on the training thread before the due step and completed
asynchronously. Its destination comes from a pool of ``size`` host trees, each allocated by
the first snapshot that uses it (a copy into fresh host memory: at 124M parameters, priming
all three trees at the first snapshot took 15 s of the first step) and reused by the later
ones, each copy donating its destination tree, so no second device-state tree is ever kept.
A tree returns to the pool when nothing needs its snapshot any more: the segment it starts
was superseded and every check that replays from it is done. When every tree is in use the
training thread waits for one (flow control); the pool never grows.

Backends that cannot reuse a donated host buffer (XLA CPU, in a test on jax 0.12) copy into a
fresh buffer instead; the pool then still bounds the number of snapshot trees alive at once.

:class:`Snapshots` owns the pool and the host memory kind, launches the copies (falling back to
an unpooled host copy where the pool does not fit) and counts the users of each
:class:`Segment`: the newest snapshot with what was committed since, from which a check replays.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

__all__ = [
    "POOL_SIZE",
    "WAIT_LIMIT_S",
    "Segment",
    "SegmentView",
    "SnapshotPool",
    "Snapshots",
    "host_memory_kind",
]

WAIT_LIMIT_S = 600.0
"""How long a snapshot waits for a free tree before it reports the pool stuck."""

POOL_SIZE = 3
"""Snapshot trees alive at once: the current segment's, the next one in flight, and one held by
a check still replaying from an older segment (under ``zkdv.overlap.ALWAYS``)."""


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
        # None: a tree not allocated yet (the snapshot that takes it copies into fresh memory).
        self._free: list[list[jax.Array] | None] = [None] * size
        self._structs = [(x.shape, x.dtype, x.sharding) for x in leaves]
        self._copy_into: Any = None
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
            if destination is None:
                return list(jax.device_put(list(leaves), self._shardings))
            return list(self._copy()(destination, list(leaves)))
        except BaseException:
            with self._cond:
                self._free.append(destination)
                self.in_use -= 1
                self._cond.notify_all()
            raise

    def _copy(self) -> Any:
        """The compiled copy into a tree of the pool (donated), compiled on first reuse."""
        if self._copy_into is None:
            destination = [
                jax.ShapeDtypeStruct(shape, dtype, sharding=s)
                for (shape, dtype, _), s in zip(self._structs, self._shardings, strict=True)
            ]
            source = [
                jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)
                for shape, dtype, sharding in self._structs
            ]
            with warnings.catch_warnings():
                # Where the backend cannot reuse the donated host buffers, JAX says so once.
                warnings.simplefilter("ignore")
                self._copy_into = (
                    jax.jit(_identity, donate_argnums=(0,), out_shardings=self._shardings)
                    .trace(destination, source)
                    .lower()
                    .compile()
                )
        return self._copy_into

    def release(self, tree: list[jax.Array]) -> None:
        """Return a snapshot's tree to the pool."""
        with self._cond:
            self._free.append(tree)
            self.in_use -= 1
            self._cond.notify_all()


def host_memory_kind() -> str | None:
    """The host memory kind snapshots go to: pinned when the backend has it, or None."""
    device = jax.devices()[0]
    kinds = {m.kind for m in device.addressable_memories()}
    for kind in ("pinned_host", "unpinned_host"):
        if kind in kinds:
            return kind
    return None


@dataclass(eq=False)
class Segment:
    """The newest snapshot and what was committed since: enough to replay any step after it.

    The committer appends each committed step's batch, batch root and update sketches, and the
    program it ran (a segment may cross a change of batch layout, and every step replays with
    its own program).
    """

    step: int
    state: list[np.ndarray]
    programs: list[Any] = field(default_factory=list)
    """Per step, its :class:`~zkdv.jax._session.RegisteredProgram`."""
    batches: list[np.ndarray] = field(default_factory=list)
    batch_roots: list[bytes] = field(default_factory=list)
    updates: list[list[np.ndarray]] = field(default_factory=list)
    tree: list[Any] | None = None
    """The snapshot's host arrays when they came from the pool (returned when unused)."""
    users: int = 1
    """The committer while the segment is current, plus every check replaying from it."""
    last_sampled: bool = False
    """Whether the newest committed step's challenge sampled a state check (the segment's
    closure against the next snapshot is then due: :func:`zkdv.jax._checks.closure`)."""

    def view(self) -> SegmentView:
        """The segment as it is now, for a check that replays up to the newest step."""
        return SegmentView(
            self.step,
            tuple(self.state),
            tuple(self.programs),
            tuple(self.batches),
            tuple(self.batch_roots),
            tuple(self.updates),
            self,
        )


@dataclass(frozen=True)
class SegmentView:
    """A segment as one check replays it: the snapshot and the steps committed after it."""

    step: int
    state: tuple[np.ndarray, ...]
    programs: tuple[Any, ...]
    """Per step, the :class:`~zkdv.jax._session.RegisteredProgram` it ran."""
    batches: tuple[np.ndarray, ...]
    batch_roots: tuple[bytes, ...]
    updates: tuple[list[np.ndarray], ...]
    source: Segment
    """The segment viewed (held for the check, released when it is done)."""


class Snapshots:
    """Launches the snapshot copies and returns their trees to the pool when unused."""

    def __init__(self) -> None:
        self.pool: SnapshotPool | None = None
        """Created when the first snapshot is due (``None`` without a host memory kind)."""
        self._host: str | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Find the host memory kind of the backend (once, when the session starts)."""
        self._host = host_memory_kind()

    def launch(self, leaves: list[Any], abort: Callable[[], None]) -> tuple[list[Any], bool]:
        """Start the copy of the pre-state to host memory; it completes asynchronously.

        Returns the copy and whether it is a tree of the snapshot pool. ``abort`` is called
        while waiting for a free tree and may raise to give up (a poisoned session).

        JAX orders the copy's read of each buffer before a later donation of that buffer
        reuses it, so the step may donate its parameters right after this returns. The copy
        goes into a tree of the bounded snapshot pool when the leaves are placed as the pool
        was built for.
        """
        if self._host is not None and all(isinstance(x, jax.Array) for x in leaves):
            if self.pool is None:
                try:
                    self.pool = SnapshotPool(leaves, self._host, POOL_SIZE)
                except (ValueError, RuntimeError, TypeError):
                    self._host = None
                    return [np.array(leaf) for leaf in leaves], False
            if self.pool.matches(leaves):
                return self.pool.copy(leaves, abort), True
            try:
                shardings = [x.sharding.with_memory_kind(self._host) for x in leaves]
                return list(jax.device_put(leaves, shardings)), False
            except (ValueError, RuntimeError, TypeError):
                self._host = None
        return [np.array(leaf) for leaf in leaves], False

    def hold(self, segment: Segment) -> None:
        """One user more of ``segment`` (a check that replays from it)."""
        with self._lock:
            segment.users += 1

    def release(self, segment: Segment) -> None:
        """One user fewer; the last one returns the snapshot's tree to the pool."""
        with self._lock:
            segment.users -= 1
            done = segment.users == 0
        if done and segment.tree is not None and self.pool is not None:
            tree, segment.tree, segment.state = segment.tree, None, []
            self.pool.release(tree)
