"""The argument checks of a proof session, shared by the frontends' ``ZKDV`` classes."""

from __future__ import annotations

import os
from pathlib import Path

from zkdv.config import ZKDVConfig

__all__ = ["RETAIN", "retention", "session_config", "start_arguments"]

RETAIN = ("all", "snapshots")
"""What a session may retain as evidence for an auditor (``retain=``; ``None`` retains none)."""


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


def retention(retain: str | None) -> str | None:
    """Check a session's ``retain`` argument.

    ``"snapshots"`` retains each snapshot's full pre-state and the replay program; ``"all"``
    also each step's packed batch and update sketches, which an audit replays
    (docs/protocol.md, "Evidence").

    Raises:
        ValueError: for anything else than ``"all"``, ``"snapshots"`` or ``None``.
    """
    if retain is not None and retain not in RETAIN:
        raise ValueError(f"ZKDV: retain must be 'all', 'snapshots' or None, got {retain!r}")
    return retain
