"""The argument checks of a proof session, shared by the frontends' ``ZKDV`` classes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from zkdv.config import ZKDVConfig

__all__ = ["RETAIN", "Retention", "retention", "session_config", "start_arguments"]

RETAIN = ("all", "checkpoints", "steps", "snapshots")
"""What a session may retain as evidence for an auditor (``retain=``; ``None`` retains none)."""

CHECKPOINTS_PER_INTERVAL = 10
"""The default checkpoint interval, in snapshot intervals (``retain="checkpoints"``)."""


def session_config(
    config: ZKDVConfig | None, max_in_flight: int, replay_snapshot_interval: int
) -> ZKDVConfig:
    """The session's configuration (``ZKDVConfig()`` when ``None``), after checking the
    constructor's arguments.

    Raises:
        TypeError, ValueError: naming the argument that is wrong.
    """
    if config is None:
        config = ZKDVConfig()
    if not isinstance(config, ZKDVConfig):
        raise TypeError(f"ZKDV: config must be a zkdv.ZKDVConfig, got {config!r}")
    for name, value in (
        ("max_in_flight", max_in_flight),
        ("replay_snapshot_interval", replay_snapshot_interval),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"ZKDV: {name} must be an integer, got {value!r}")
        if value < 1:
            raise ValueError(f"ZKDV: {name} must be at least 1, got {value}")
    return config


def start_arguments(directory: Path, rolling_window: int, probe_ratio: float) -> float:
    """Check ``ZKDV.start``'s arguments and that ``directory`` holds no transcript yet;
    returns the probe ratio as a float.

    Raises:
        TypeError, ValueError: for an invalid window or ratio.
        FileExistsError: when ``directory`` already holds a transcript.
        NotADirectoryError, PermissionError: when ``directory`` cannot be created or written.
    """
    if isinstance(rolling_window, bool) or not isinstance(rolling_window, int):
        raise TypeError(f"ZKDV.start: rolling_window must be an integer, got {rolling_window!r}")
    if rolling_window < 1:
        raise ValueError(f"ZKDV.start: rolling_window must be at least 1, got {rolling_window}")
    if isinstance(probe_ratio, bool) or not isinstance(probe_ratio, int | float):
        raise TypeError(f"ZKDV.start: probe_ratio must be a number, got {probe_ratio!r}")
    if not (0.0 < float(probe_ratio) <= 1.0):
        raise ValueError(f"ZKDV.start: probe_ratio must be in (0, 1], got {probe_ratio}")
    if (directory / "records.cborl").exists():
        raise FileExistsError(
            f"ZKDV.start: {directory} already holds a transcript; choose a new directory"
        )
    # The transcript is created at the first step, after its program is built (a minute on a
    # large PyTorch model): a directory that cannot be written is reported now, not then.
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        what = "is" if existing == directory else f"cannot be created: {existing} is"
        raise NotADirectoryError(f"ZKDV.start: {directory} {what} not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(
            f"ZKDV.start: {directory} cannot be written: {existing} is not writable"
        )
    return float(probe_ratio)


@dataclass(frozen=True)
class Retention:
    """What a session stores beside its records for an auditor (docs/protocol.md, section 8a).

    ``mode`` is the session's ``retain`` argument:

    - ``None``: nothing;
    - ``"all"``: each step's packed batch and update sketches, and the full state before every
      step (a snapshot every step);
    - ``"checkpoints"``: each step's batch and sketches, and the full state every
      ``checkpoint_interval`` steps (a multiple of the snapshot interval) and after the last;
    - ``"steps"``: each step's batch and sketches, and the state after the last step (what
      ``zkdv audit --final`` binds the delivered model to); the other full states are the
      user's own checkpoints, bound by the snapshot records' commitments (``zkdv audit
      --checkpoint``);
    - ``"snapshots"``: the full state at every snapshot, and no step evidence.

    Every mode but ``None`` also stores the replay program.
    """

    mode: str | None
    snapshot_interval: int
    """The session's snapshot interval (1 under ``"all"``)."""
    checkpoint_interval: int
    """Steps between retained full states under ``"checkpoints"`` (else the snapshot
    interval)."""

    @property
    def any(self) -> bool:
        """Whether the session retains anything (and so its replay program)."""
        return self.mode is not None

    @property
    def steps(self) -> bool:
        """Whether each step's packed batch and update sketches are retained."""
        return self.mode in ("all", "checkpoints", "steps")

    def snapshot_due(self, step: int) -> bool:
        """Whether the pre-state of ``step`` gets a snapshot record."""
        return step % self.snapshot_interval == 0

    def keeps_state(self, step: int, final: bool = False) -> bool:
        """Whether the snapshot of ``step`` stores the state itself (``final``: the snapshot
        of the state the session delivered, after its last step)."""
        if self.mode in ("all", "snapshots"):
            return True
        if self.mode == "checkpoints":
            return final or step % self.checkpoint_interval == 0
        # The delivered state is kept under "steps" too: without it no replay meets the
        # model a client was delivered.
        return final and self.mode == "steps"


def retention(
    retain: str | None, replay_snapshot_interval: int, checkpoint_interval: int | None
) -> Retention:
    """Check a session's ``retain`` and ``checkpoint_interval`` arguments (see
    :class:`Retention`); ``replay_snapshot_interval`` is already checked.

    Raises:
        TypeError, ValueError: for another ``retain`` than those of :data:`RETAIN` or
            ``None``, or a ``checkpoint_interval`` that is not a positive multiple of the
            snapshot interval, or that is given without ``retain="checkpoints"``.
    """
    if retain is not None and retain not in RETAIN:
        known = ", ".join(repr(r) for r in RETAIN)
        raise ValueError(f"ZKDV: retain must be one of {known} or None, got {retain!r}")
    if checkpoint_interval is not None:
        if retain != "checkpoints":
            raise ValueError(
                "ZKDV: checkpoint_interval is the interval of retain='checkpoints', "
                f"got retain={retain!r}"
            )
        if isinstance(checkpoint_interval, bool) or not isinstance(checkpoint_interval, int):
            raise TypeError(
                f"ZKDV: checkpoint_interval must be an integer, got {checkpoint_interval!r}"
            )
        if checkpoint_interval < 1 or checkpoint_interval % replay_snapshot_interval:
            raise ValueError(
                "ZKDV: checkpoint_interval must be a positive multiple of "
                f"replay_snapshot_interval ({replay_snapshot_interval}): a full state is "
                f"retained at a snapshot, got {checkpoint_interval}"
            )
    # Retaining everything, every step's pre-state is a snapshot: an audit replays each step
    # from production's own state.
    interval = 1 if retain == "all" else replay_snapshot_interval
    if retain == "checkpoints":
        every = checkpoint_interval or CHECKPOINTS_PER_INTERVAL * interval
    else:
        every = interval
    return Retention(retain, interval, every)
