"""The transcript of a session: its writer, the root and program records, the probe maps.

:class:`Records` owns the :class:`zkdv.transcript.TranscriptWriter` and serializes every write
to it (a session writes from its training thread, its committer and its verifier thread). The
root record (:meth:`Records.open`) and the program record (:meth:`Records.program`) are written
here and only here, for both frontends; the probe maps derive from the root's probe seed in Rust
and are cached here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

import zkdv
from zkdv import hashing, transcript
from zkdv.config import Tolerance, ZKDVConfig

__all__ = ["Leaf", "Records", "Root", "versions"]


def versions(packages: Iterable[str]) -> dict[str, str]:
    """The root's ``versions``: zkdv's and those of ``packages`` that are installed."""
    out = {"zkdv": zkdv.__version__}
    for package in packages:
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            pass
    return out


@dataclass(frozen=True)
class Leaf:
    """One leaf of a committed layout: its path, shape and numpy dtype."""

    path: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def to_record(self) -> dict[str, Any]:
        """The layout entry ``{"path", "dtype", "shape"}`` of a root or program record."""
        dtype = hashing.dtype_tag(self.dtype)
        return {"path": self.path, "dtype": dtype, "shape": list(self.shape)}


def _batch(shape: tuple[int, int]) -> list[dict[str, Any]]:
    """The batch layout of a record: one packed ``u32`` leaf of ``rows x width`` words."""
    rows, width = shape
    return [{"path": "batch", "dtype": "u32", "shape": [rows, width]}]


@dataclass(frozen=True)
class Root:
    """What a session's root record holds besides its configuration (docs/protocol.md)."""

    prover: str
    """``"whitebox-jax"`` or ``"whitebox-torch"``."""
    versions: dict[str, str]
    rolling_window: int
    probe_ratio: float
    snapshot_interval: int
    params: Sequence[Leaf]
    opt_state: Sequence[Leaf]
    batch: tuple[int, int]
    """The packed batch's ``(rows, width)`` of the first program."""
    rank: dict[str, Any] | None = None
    """Under data parallelism, the rank's ``{"rank", "world_size", "backend"}``."""

    def to_record(self, config: ZKDVConfig) -> dict[str, Any]:
        """The root record's body."""
        body: dict[str, Any] = {
            "prover": self.prover,
            "versions": self.versions,
            **config.root_fields(),
            "rolling_window": self.rolling_window,
            "probe_ratio": self.probe_ratio,
            "snapshot_interval": self.snapshot_interval,
            "params": [leaf.to_record() for leaf in self.params],
            "opt_state": [leaf.to_record() for leaf in self.opt_state],
            "batch": _batch(self.batch),
        }
        if self.rank is not None:
            body["rank"] = self.rank
        return body


class Records:
    """The transcript writer (once opened) and the probe maps of its root."""

    def __init__(self) -> None:
        self._writer: transcript.TranscriptWriter | None = None
        self._lock = threading.Lock()
        self._probe_ratio = 0.0
        self._probes: dict[str, hashing.ProbeMap] = {}
        self._batch: tuple[int, int] = (0, 0)
        self.steps_written = 0
        """Step records appended to the transcript (what ``zkdv verify`` then counts; fewer
        than the transactions dispatched after a failure to write)."""

    @property
    def opened(self) -> bool:
        """Whether the transcript was opened (a step program was registered)."""
        return self._writer is not None

    def open(self, directory: str | os.PathLike[str], root: Root, config: ZKDVConfig) -> None:
        """Create ``directory`` if needed and the transcript in it, with the root record of
        ``root`` and ``config``."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        self._probe_ratio = root.probe_ratio
        self._batch = root.batch
        self._writer = transcript.TranscriptWriter(directory, root.to_record(config))

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

    def program(
        self,
        *,
        name: str,
        attested: str,
        production: tuple[bytes, str] | None,
        precision: dict[str, Any],
        tolerance: Tolerance,
        replay: str | None,
        batch: tuple[int, int],
        matmul: str = "f32",
        format: str = "stablehlo",
    ) -> int:
        """Store a program's artifacts and append its program record; returns the record's
        sequence number.

        Args:
            name: The step's name.
            attested: The attested program's StableHLO text.
            production: The production program's exact bytes and artifact extension; ``None``
                when it is still being compiled: a later :meth:`production` record commits
                it (before an ``ok`` close).
            precision: The attested program's precision (:func:`zkdv.passes.precision`).
            tolerance: The tolerance of its checks.
            replay: The replay program's text, stored when the session retains evidence.
            batch: The program's packed batch ``(rows, width)``; a program whose batch layout
                is not the root's names its own.
            matmul: How production multiplies ``f32`` operands of products that are not
                ``HIGHEST`` (:class:`zkdv.runtime.Program`'s ``matmul``); the record names
                ``"tf32"``, so that an auditor's ensemble models it too.
            format: What the production program is: ``"stablehlo"``, or ``"aoti"`` (a sealed
                AOT Inductor package).
        """
        body = {
            "name": name,
            "format": format,
            "attested": self.artifact(attested.encode(), "mlir"),
            **({} if production is None else {"production": self.artifact(*production)}),
            "precision": precision,
            "tolerance": tolerance.to_record(),
            # What an auditor replays the retained evidence with.
            **({} if replay is None else {"replay": self.artifact(replay.encode(), "mlir")}),
            **({} if batch == self._batch else {"batch": _batch(batch)}),
            **({} if matmul == "f32" else {"matmul": matmul}),
        }
        with self._lock:
            return self._open_writer().append_program(body)

    def production(self, program: int, production: tuple[bytes, str]) -> int:
        """Store the production program of program record ``program``, written without it,
        and append its production record; returns the record's sequence number."""
        body = {"program": program, "production": self.artifact(*production)}
        with self._lock:
            return self._open_writer().append_production(body)

    def step(self, body: dict[str, Any]) -> transcript.StepReceipt:
        """Append a step record; the receipt holds the step's challenge."""
        with self._lock:
            receipt = self._open_writer().append_step(body)
            self.steps_written += 1
            return receipt

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
        hyperparameters: list[dict[str, Any]] | None = None,
        nonfinite: int | None = None,
    ) -> transcript.StepReceipt:
        """Append the step record of one committed transaction (docs/protocol.md): its
        program record, batch commitment, state commitments and overlap policy, the
        hyperparameters its program took as inputs, and, when the session retains evidence,
        its batch and update artifacts."""
        extra: dict[str, Any] = {} if evidence is None else {"evidence": evidence}
        if hyperparameters:
            extra["hyperparameters"] = hyperparameters
        if nonfinite:
            extra["nonfinite"] = nonfinite
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
