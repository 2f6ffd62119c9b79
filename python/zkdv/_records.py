"""The transcript writer of a session and the probe maps of its root, shared by the frontends.

:class:`Records` owns the :class:`zkdv.transcript.TranscriptWriter` and serializes every write
to it (a session writes from its training thread, its committer and its verifier thread). The
probe maps derive from the root's probe seed in Rust and are cached here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from zkdv import hashing, transcript

__all__ = ["Records"]


class Records:
    """The transcript writer (once opened) and the probe maps of its root."""

    def __init__(self) -> None:
        self._writer: transcript.TranscriptWriter | None = None
        self._lock = threading.Lock()
        self._probe_ratio = 0.0
        self._probes: dict[str, hashing.ProbeMap] = {}

    @property
    def opened(self) -> bool:
        """Whether the transcript was opened (a step program was registered)."""
        return self._writer is not None

    def open(
        self, directory: str | os.PathLike[str], root: dict[str, Any], probe_ratio: float
    ) -> None:
        """Create the transcript in ``directory`` with the root record ``root``."""
        self._probe_ratio = probe_ratio
        self._writer = transcript.TranscriptWriter(directory, root)

    def _open_writer(self) -> transcript.TranscriptWriter:
        assert self._writer is not None, "the transcript is not open"
        return self._writer

    def artifact(self, data: bytes, extension: str) -> dict[str, Any]:
        """Store a content-addressed artifact; returns its reference for a record."""
        with self._lock:
            return self._open_writer().put_artifact(data, extension)

    def evidence(self, leaves: Sequence[tuple[str, np.ndarray]]) -> dict[str, Any]:
        """Store named host arrays as one evidence artifact (compressed in Rust, written and
        synced before a record names it); returns its reference for a record."""
        arrays = [(p, hashing._native_array(x)) for p, x in leaves]
        with self._lock:
            return self._open_writer().put_evidence(arrays)

    def program(self, body: dict[str, Any]) -> int:
        """Append a program record; returns its sequence number."""
        with self._lock:
            return self._open_writer().append_program(body)

    def step(self, body: dict[str, Any]) -> transcript.StepReceipt:
        """Append a step record; the receipt holds the step's challenge."""
        with self._lock:
            return self._open_writer().append_step(body)

    def transition(
        self,
        *,
        step: int,
        program: int,
        batch: hashing.BatchCommitment,
        pre_state: bytes,
        update: bytes,
        post_state: bytes,
        overlap: str,
        evidence: dict[str, Any] | None = None,
    ) -> transcript.StepReceipt:
        """Append the step record of one committed transaction (docs/protocol.md): its
        program record, batch commitment, state commitments and overlap policy, and, when
        the session retains evidence, its batch and update artifacts."""
        extra = {} if evidence is None else {"evidence": evidence}
        return self.step(
            {
                **extra,
                "step": step,
                "program": program,
                "batch": {
                    "rows": batch.rows,
                    "width": batch.width,
                    "window": batch.window,
                    "root": batch.root,
                },
                "pre_state": pre_state,
                "update": update,
                "post_state": post_state,
                "overlap": overlap,
            }
        )

    def snapshot(self, body: dict[str, Any]) -> None:
        """Append a snapshot record."""
        with self._lock:
            self._open_writer().append_snapshot(body)

    def check(self, body: dict[str, Any]) -> None:
        """Append a check record."""
        with self._lock:
            self._open_writer().append_check(body)

    def close(self, failure: dict[str, Any] | None) -> None:
        """Write the close record (``failure`` when poisoned) and flush the transcript."""
        with self._lock:
            self._open_writer().close(failure)

    def probe(self, path: str, shape: tuple[int, ...]) -> hashing.ProbeMap:
        """The probe map of the parameter leaf ``path`` of ``shape``."""
        key = f"{path}{shape}"
        probe = self._probes.get(key)
        if probe is None:
            with self._lock:
                seed = self._open_writer().root["probe_seed"]
            probe = hashing.probe_map(seed, path, shape, self._probe_ratio)
            self._probes[key] = probe
        return probe

    def sketch_shape(self, path: str, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape of the sketch of a leaf of ``shape``: its last dimension probed."""
        k = self.probe(path, shape).k
        return (*shape[:-1], k) if shape else (k,)

    def exact_sketches(
        self, paths: Sequence[str], params: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        """The sketches of the parameter leaves ``params`` themselves."""
        return [
            hashing.sketch(self.probe(p, tuple(x.shape)), x)
            for p, x in zip(paths, params, strict=True)
        ]
