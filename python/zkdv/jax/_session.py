"""``zkdv.jax.ZKDV``: the proof session, its pipeline, snapshots and sampled checks.

The training thread only dispatches: it packs the batch (on the device), launches the snapshot
copy when one is due, runs the compiled production step and queues a :class:`_Pending`
transaction. One
committer thread takes transactions in order and does everything else:

- hashes the packed batch (rolling window hashes and a Merkle root over rows) and the update
  sketches the step computed on the device, advances the host's state sketches by linearity
  (``S(t+1) = S(t) + U(t)``, float64) and writes the step record;
- at each snapshot (every ``replay_snapshot_interval`` steps), commits the full host copy of the
  pre-state, and checks that the snapshot's exact parameter sketches match the accumulated ones
  (so state changed outside the step is caught at the next snapshot whatever the sampling);
- asks the transcript for the step's challenge (derived in Rust from the record's hash) and runs
  the sampled checks: the pre-state is rebuilt by replaying the production program from the
  newest snapshot over the retained batches (every replayed update sketch must reproduce the
  committed one), then the attested program runs in the Rust runtime on the challenged indices.

Flow control (``max_in_flight`` and :mod:`zkdv.overlap`): a transaction holds an admission slot
from dispatch until it *retires*: its record is written and, under ``UNCHECKED`` and ``NEVER``,
its sampled checks are done (a sampled check is a fence). Under ``ALWAYS`` the slot is released
once the check has its inputs on the host and the check finishes on a separate verifier thread.
``NEVER`` admits a step only when nothing is in flight.

A failed check, or any error in the committer, poisons the session: every later operation
raises :class:`zkdv.ZKDVPoisonedError`, and ``close()`` records the failure and raises it.
"""

from __future__ import annotations

import math
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import jax
import numpy as np

import zkdv
from zkdv import hashing, passes, runtime, transcript
from zkdv.checks import CheckResult, ZKDVPoisonedError
from zkdv.config import Tolerance, ZKDVConfig
from zkdv.jax._jit import ProvedFunction, StepProgram
from zkdv.jax._snapshots import SnapshotPool
from zkdv.overlap import Overlap

__all__ = ["ZKDV"]

# Snapshot trees alive at once: the current segment's, the next one in flight, and one held by
# a check still replaying from an older segment (under zkdv.overlap.ALWAYS).
_POOL_SIZE = 3

# Limits for the attested program in the Rust runtime (a check computes a few coordinates).
_MAX_OPS = 50_000_000


def _versions() -> dict[str, str]:
    out = {"zkdv": zkdv.__version__}
    for package in ("jax", "jaxlib", "flax", "optax", "numpy"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            pass
    return out


def _host_memory_kind() -> str | None:
    """The host memory kind snapshots go to: pinned when the backend has it, or None."""
    device = jax.devices()[0]
    kinds = {m.kind for m in device.addressable_memories()}
    for kind in ("pinned_host", "unpinned_host"):
        if kind in kinds:
            return kind
    return None


@dataclass
class _Pending:
    """One dispatched transaction on its way to the committer."""

    step: int
    program: StepProgram
    overlap: Overlap
    batch: Any
    """The packed batch, on the device (the committer copies it to the host)."""
    sketches: list[Any]
    post_params: list[Any]
    post_opt_state: list[Any]
    snapshot: list[Any] | None
    pooled: bool = False
    """Whether the snapshot's arrays are a tree of the snapshot pool."""


@dataclass
class _Segment:
    """The newest snapshot and what was committed since: enough to replay any step after it."""

    step: int
    state: list[np.ndarray]
    batches: list[np.ndarray] = field(default_factory=list)
    batch_roots: list[bytes] = field(default_factory=list)
    updates: list[list[np.ndarray]] = field(default_factory=list)
    tree: list[Any] | None = None
    """The snapshot's host arrays when they came from the pool (returned when unused)."""
    users: int = 1
    """The committer while the segment is current, plus every check replaying from it."""


class ZKDV:
    """A proof session for a JAX training loop, writing its transcript to ``directory``.

    Args:
        directory: Where the transcript goes: ``records.cborl`` and the content-addressed
            artifacts (created if missing; an existing transcript there is an error).
        config: The session's :class:`zkdv.ZKDVConfig` (``ZKDVConfig()`` when omitted).
        max_in_flight: The most dispatched transactions not yet retired (at least 1; default
            2). Per-transaction overlap policies may tighten it.
        replay_snapshot_interval: ``N``: a full host copy of the pre-state is taken every
            ``N`` steps, so a check replays at most ``N - 1`` transitions (at least 1;
            default 12).

    Call :meth:`start` before compiling a step, decorate the step with :meth:`jit`, and call
    :meth:`close` once after the loop.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        config: ZKDVConfig | None = None,
        *,
        max_in_flight: int = 2,
        replay_snapshot_interval: int = 12,
    ) -> None:
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
        self.directory = Path(directory)
        self.config = config
        self.max_in_flight = max_in_flight
        self.replay_snapshot_interval = replay_snapshot_interval
        self._state = "created"
        self._rolling_window = 0
        self._probe_ratio = 0.01
        self._lock = threading.RLock()
        self._writer: transcript.TranscriptWriter | None = None
        self._layout: tuple[Any, ...] | None = None
        self._attest: Any = None
        self._failure: ZKDVPoisonedError | None = None
        self._error: BaseException | None = None
        self._steps = 0
        self._in_flight = 0
        self._flow = threading.Condition()
        self._queue: queue.Queue[_Pending | None] = queue.Queue()
        self._committer: threading.Thread | None = None
        self._verifier: ThreadPoolExecutor | None = None
        self._checks: list[Future[None]] = []
        self._results: list[CheckResult] = []
        self._weights: dict[str, Any] = {}
        self._sketch_state: list[np.ndarray] | None = None
        self._post_commitment: bytes | None = None
        self._state_steps = 0
        self._segment: _Segment | None = None
        self._last_post_params: list[Any] | None = None
        self._last_post_opt_state: list[Any] | None = None
        self._host = None
        self._pool: SnapshotPool | None = None
        # Test-only: called as hook(step, parts) on the production outputs of every step before
        # they are committed, to simulate execution faults (python/tests/test_jax_faults.py).
        self._fault_hook: Callable[[int, dict[str, list[Any]]], None] | None = None
        # Measure every update check's spread, not only where the fixed bound is exceeded
        # (the soundness benchmark's margins need the whole bound; verdicts are the same).
        self._always_measure_spread = False

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, rolling_window: int, probe_ratio: float = 0.01) -> None:
        """Fix the session's batch hashing window and probe ratio; call once, before training.

        Args:
            rolling_window: Words per rolling hash within each packed batch row; at least 1
                and at most the packed row width (checked when the first step is compiled).
                Unrelated to the number of steps.
            probe_ratio: Fraction of each parameter leaf's last dimension kept by its probe
                projection, in ``(0, 1]`` (default 0.01); fixed for the run.

        Raises:
            RuntimeError: when already started or closed.
            ValueError, TypeError: for an invalid window or ratio.
        """
        if self._state != "created":
            raise RuntimeError(f"ZKDV.start: the session is already {self._state}")
        if isinstance(rolling_window, bool) or not isinstance(rolling_window, int):
            raise TypeError(
                f"ZKDV.start: rolling_window must be an integer, got {rolling_window!r}"
            )
        if rolling_window < 1:
            raise ValueError(f"ZKDV.start: rolling_window must be at least 1, got {rolling_window}")
        if isinstance(probe_ratio, bool) or not isinstance(probe_ratio, int | float):
            raise TypeError(f"ZKDV.start: probe_ratio must be a number, got {probe_ratio!r}")
        if not (0.0 < float(probe_ratio) <= 1.0):
            raise ValueError(f"ZKDV.start: probe_ratio must be in (0, 1], got {probe_ratio}")
        if (self.directory / "records.cborl").exists():
            raise FileExistsError(
                f"ZKDV.start: {self.directory} already holds a transcript; choose a new directory"
            )
        self._rolling_window = rolling_window
        self._probe_ratio = float(probe_ratio)
        self._host = _host_memory_kind()
        self._committer = threading.Thread(
            target=self._commit_loop, name="zkdv-committer", daemon=True
        )
        self._verifier = ThreadPoolExecutor(1, thread_name_prefix="zkdv-verifier")
        self._committer.start()
        self._state = "running"

    def jit(self, fun: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """``jax.jit`` for a training step whose update the session attests.

        Use it as ``@proof.jit``, ``@proof.jit(donate_argnums=(0,))`` or
        ``proof.jit(step, **options)``; every ``jax.jit`` option is accepted. The step declares
        exactly one transaction (``zkdv.jax.Transaction`` or a contrib ``TrainState``'s
        ``apply_gradients``). Static arguments, tree structures, shapes and dtypes are fixed by
        the first call; a later call that differs raises instead of retracing.
        """
        if fun is None:
            return lambda f: ProvedFunction(self, f, options)
        return ProvedFunction(self, fun, options)

    def attest(self, fun: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Register the hermetic program that checks replay, with the fixed ABI
        ``(params_before, opt_state_before, batch, parameter_index, optimizer_state_index)
        -> (selected_delta, selected_post_optimizer_state)``.

        Both indices are scalar ``uint64`` values and both outputs must be scalar floating-point
        values. The function is exported with ``jax.export`` (64-bit types enabled while it is
        traced, ordinary training is unaffected) when the first ``proof.jit`` step is compiled,
        and the Rust runtime runs it for every sampled update check. Accepts ``jax.jit``'s
        options; ``out_shardings`` is ignored with a warning (the output layout is fixed).
        Returns a callable that runs the function with JAX.
        """
        from zkdv.jax._attest import AttestedFunction

        def register(f: Callable[..., Any]) -> AttestedFunction:
            if self._state == "closed":
                raise RuntimeError("ZKDV.attest: the session is closed")
            attested = AttestedFunction(f, options)
            with self._lock:
                if self._layout is not None:
                    raise RuntimeError(
                        "ZKDV.attest: register the attested function before the first proof.jit "
                        "step is compiled; the program commitment is already written"
                    )
                self._attest = attested
            return attested

        return register if fun is None else register(fun)

    def join(self) -> None:
        """Wait until every dispatched transaction is committed and every sampled check done.

        Raises:
            ZKDVPoisonedError: when a check failed (the session is poisoned).
        """
        if self._state == "created":
            raise RuntimeError("ZKDV.join: call start() first")
        self._drain()
        self._raise_if_poisoned()

    def close(self) -> None:
        """Wait for all commitments and checks, write the close record and flush the transcript.

        Call once, after the training loop. Raises :class:`zkdv.ZKDVPoisonedError` when a
        check failed; the close record then says ``poisoned`` and names the failure.
        """
        if self._state == "closed":
            raise RuntimeError("ZKDV.close: the session is already closed")
        if self._state == "created":
            raise RuntimeError("ZKDV.close: the session was never started")
        self._drain()
        self._queue.put(None)
        if self._committer is not None:
            self._committer.join()
        if self._verifier is not None:
            self._verifier.shutdown(wait=True)
        self._state = "closed"
        if self._failure is None and self._writer is not None:
            self._final_state_check()
        if self._writer is None:
            # No step ever ran: the layout is unknown, so there is nothing to write.
            self._raise_if_poisoned()
            return
        failure = None if self._failure is None else self._failure.to_failure_record()
        with self._lock:
            self._writer.close(failure)
        self._raise_if_poisoned()

    @property
    def checks(self) -> list[CheckResult]:
        """The checks run so far, in the order they finished."""
        return list(self._results)

    @property
    def steps(self) -> int:
        """Transactions dispatched so far."""
        return self._steps

    # -- used by proof.jit --------------------------------------------------------------------

    def _require_running(self, what: str) -> None:
        self._raise_if_poisoned()
        if self._state == "created":
            raise RuntimeError(f"cannot {what}: call proof.start(...) first")
        if self._state == "closed":
            raise RuntimeError(f"cannot {what}: the session is closed")

    def _raise_if_poisoned(self) -> None:
        if self._failure is not None:
            raise self._failure
        if self._error is not None:
            raise RuntimeError(f"the ZKDV committer failed: {self._error}") from self._error

    def _attested_text(
        self,
        canonical_text: str,
        name: str,
        params: Any,
        opt_state: Any,
        packed: Any,
    ) -> str:
        if self._attest is not None:
            return self._attest.export_text(params, opt_state, packed)
        text, _ = passes.run_passes(
            canonical_text,
            [
                "zkdv-inline",
                "zkdv-check-hermetic",
                "zkdv-annotate-roles",
                "zkdv-slice-update=output=attested",
                "zkdv-push-select=func=main",
            ],
            f"<{name}: attested>",
        )
        return text

    def _register_program(self, program: StepProgram) -> None:
        layout = (
            tuple(
                zip(
                    program.param_paths,
                    [(a.shape, a.dtype) for a in program.param_avals],
                    strict=True,
                )
            ),
            tuple(
                zip(
                    program.opt_paths,
                    [(a.shape, a.dtype) for a in program.opt_avals],
                    strict=True,
                )
            ),
            program.layout.shape,
        )
        with self._lock:
            if self._layout is None:
                self._open_writer(program)
                self._layout = layout
            elif layout != self._layout:
                raise ValueError(
                    f"proof.jit({program.name}): its parameter, optimizer-state or batch layout "
                    "differs from the first compiled step's; a session commits one layout"
                )
            assert self._writer is not None
            attested = self._writer.put_artifact(program.attested_text.encode(), "mlir")
            production = self._writer.put_artifact(program.production_text.encode(), "mlir")
            precision = passes.precision(program.attested_text, f"<{program.name}: attested>")
            program.tolerance = self.config.base_tolerance.for_program(
                self.config.tolerance_policy, precision
            )
            program.program_seq = self._writer.append_program(
                {
                    "name": program.name,
                    "format": "stablehlo",
                    "attested": attested,
                    "production": production,
                    "precision": precision,
                    "tolerance": program.tolerance.to_record(),
                }
            )
        program_runtime = runtime.Program(program.attested_text, "main", f"<{program.name}>")
        program.attested = program_runtime  # type: ignore[attr-defined]
        program.weights = [  # type: ignore[attr-defined]
            program.placement.put_small(self._probe(path, aval.shape).weights())
            for path, aval in zip(program.param_paths, program.param_avals, strict=True)
            if (aval.shape[-1] if aval.shape else 1) > 0
        ]

    def _probe(self, path: str, shape: tuple[int, ...]) -> hashing.ProbeMap:
        key = f"{path}{shape}"
        probe = self._weights.get(key)
        if probe is None:
            assert self._writer is not None
            probe = hashing.probe_map(
                self._writer.root["probe_seed"], path, shape, self._probe_ratio
            )
            self._weights[key] = probe
        return probe

    def _open_writer(self, program: StepProgram) -> None:
        rows, width = program.layout.shape
        if self._rolling_window > width:
            raise ValueError(
                f"ZKDV.start: rolling_window={self._rolling_window} exceeds the packed batch "
                f"row width {width} of proof.jit({program.name}) (its batch packs to "
                f"{rows}x{width} uint32 words); choose rolling_window <= {width}"
            )

        def leaves(paths: list[str], avals: list[Any]) -> list[dict[str, Any]]:
            return [
                {"path": p, "dtype": hashing.dtype_tag(a.dtype), "shape": list(a.shape)}
                for p, a in zip(paths, avals, strict=True)
            ]

        root = {
            "prover": "whitebox-jax",
            "versions": _versions(),
            **self.config.root_fields(),
            "rolling_window": self._rolling_window,
            "probe_ratio": self._probe_ratio,
            "snapshot_interval": self.replay_snapshot_interval,
            "params": leaves(program.param_paths, program.param_avals),
            "opt_state": leaves(program.opt_paths, program.opt_avals),
            "batch": [{"path": "batch", "dtype": "u32", "shape": [rows, width]}],
        }
        self.directory.mkdir(parents=True, exist_ok=True)
        self._writer = transcript.TranscriptWriter(self.directory, root)

    def _admit(self, overlap: Overlap) -> None:
        limit = 1 if overlap is Overlap.NEVER else self.max_in_flight
        with self._flow:
            while self._in_flight >= limit and self._failure is None and self._error is None:
                self._flow.wait()
            self._raise_if_poisoned()
            self._in_flight += 1

    def _retire(self) -> None:
        with self._flow:
            self._in_flight -= 1
            self._flow.notify_all()

    def _run_step(self, program: StepProgram, flat: list[Any]) -> Any:
        overlap = program.overlap_of()
        self._admit(overlap)
        try:
            step = self._steps
            params = [flat[i] for i in program.param_positions]
            opt_state = [flat[i] for i in program.opt_positions]
            batch = program.pack([flat[i] for i in program.batch_positions])
            self._check_opt_state_continuity(step, program, opt_state)
            snapshot, pooled = None, False
            if step % self.replay_snapshot_interval == 0:
                snapshot, pooled = self._launch_snapshot(params + opt_state)
            outputs = program.production(
                *params,
                *opt_state,
                batch,
                *program.weights,  # type: ignore[attr-defined]
            )
            parts = program.split_outputs(outputs)
            if self._fault_hook is not None:
                self._fault_hook(step, parts)
            self._steps += 1
        except BaseException:
            self._retire()
            raise
        self._last_post_params = parts["post_params"]
        self._last_post_opt_state = parts["post_opt_state"]
        self._queue.put(
            _Pending(
                step=step,
                program=program,
                overlap=overlap,
                batch=batch,
                sketches=parts["sketches"],
                post_params=parts["post_params"],
                post_opt_state=parts["post_opt_state"],
                snapshot=snapshot,
                pooled=pooled,
            )
        )
        return program.user_output(parts)

    def _check_opt_state_continuity(
        self, step: int, program: StepProgram, opt_state: list[Any]
    ) -> None:
        """Poison the session when the optimizer state a step receives is not what the
        previous step produced.

        Parameters changed between steps are caught by their sketches at the next snapshot;
        the optimizer state has no sketch, and an edit just before a snapshot step would go
        into the snapshot and agree with every later replay. So every step compares its
        optimizer-state leaves with the previous step's production outputs: the same arrays
        in an ordinary loop (free), otherwise compared by value on their device.
        """
        last = self._last_post_opt_state
        if last is None or len(last) != len(opt_state):
            return
        for path, given, produced in zip(program.opt_paths, opt_state, last, strict=True):
            if given is produced:
                continue
            try:
                same = np.shape(given) == np.shape(produced) and bool(
                    jax.numpy.array_equal(given, produced, equal_nan=True)
                )
            except RuntimeError:
                continue  # the produced array was donated elsewhere: nothing to compare
            if not same:
                self._poison(
                    ZKDVPoisonedError(
                        step,
                        kind="state",
                        detail=(
                            f"the optimizer state given to step {step} is not what step "
                            f"{step - 1} produced (leaf {path!r}): it was changed outside "
                            "the attested step"
                        ),
                    )
                )
                return

    def _launch_snapshot(self, leaves: list[Any]) -> tuple[list[Any], bool]:
        """Start the copy of the pre-state to host memory; it completes asynchronously.

        Returns the copy and whether it is a tree of the snapshot pool.

        JAX orders the copy's read of each buffer before a later donation of that buffer
        reuses it, so the step may donate its parameters right after this returns. The copy
        goes into a tree of the bounded snapshot pool (:mod:`zkdv.jax._snapshots`) when the
        leaves are placed as the pool was built for.
        """
        if self._host is not None and all(isinstance(x, jax.Array) for x in leaves):
            if self._pool is None:
                try:
                    self._pool = SnapshotPool(leaves, self._host, _POOL_SIZE)
                except (ValueError, RuntimeError, TypeError):
                    self._host = None
                    return [np.array(leaf) for leaf in leaves], False
            if self._pool.matches(leaves):
                return self._pool.copy(leaves, self._raise_if_poisoned), True
            try:
                shardings = [x.sharding.with_memory_kind(self._host) for x in leaves]
                return list(jax.device_put(leaves, shardings)), False
            except (ValueError, RuntimeError, TypeError):
                self._host = None
        return [np.array(leaf) for leaf in leaves], False

    def _drain(self) -> None:
        with self._flow:
            while self._in_flight > 0 and self._error is None:
                self._flow.wait()
        for future in list(self._checks):
            future.result()

    # -- committer ----------------------------------------------------------------------------

    def _commit_loop(self) -> None:
        while True:
            pending = self._queue.get()
            if pending is None:
                return
            try:
                if self._failure is not None or self._error is not None:
                    self._retire()
                    continue
                self._commit(pending)
            except BaseException as error:  # noqa: BLE001  (reported to the training thread)
                self._error = error
                self._retire()

    def _commit(self, pending: _Pending) -> None:
        program = pending.program
        assert self._writer is not None
        if pending.snapshot is not None:
            self._take_snapshot(pending)
        if self._failure is not None:
            self._retire()
            return
        segment = self._segment
        assert segment is not None and self._sketch_state is not None
        host_batch = np.array(pending.batch)  # a copy: the retained evidence
        updates = [
            np.asarray(s).reshape(self._sketch_shape(p, a))
            for s, p, a in zip(
                pending.sketches, program.param_paths, program.param_avals, strict=True
            )
        ]
        # pre_state(t) is post_state(t-1), already hashed (the sketches did not change since).
        pre = self._post_commitment or self._state_commitment(
            program.param_paths, self._sketch_state
        )
        self._sketch_state = [
            s + u.astype(np.float64) for s, u in zip(self._sketch_state, updates, strict=True)
        ]
        self._state_steps += 1
        post = self._state_commitment(program.param_paths, self._sketch_state)
        self._post_commitment = post
        update = self._state_commitment(program.param_paths, updates)
        batch = hashing.commit_batch(host_batch, self._rolling_window)
        with self._lock:
            receipt = self._writer.append_step(
                {
                    "step": pending.step,
                    "program": program.program_seq,
                    "batch": {
                        "rows": batch.rows,
                        "width": batch.width,
                        "window": batch.window,
                        "root": batch.root,
                    },
                    "pre_state": pre,
                    "update": update,
                    "post_state": post,
                    "overlap": pending.overlap.to_record(),
                }
            )
        segment.batches.append(host_batch)
        segment.batch_roots.append(batch.root)
        segment.updates.append(updates)
        challenge = receipt.challenge
        if not (challenge.state or challenge.update):
            self._retire()
            return
        committed: list[float] = []
        indices: list[int] = []
        if challenge.update:
            indices = list(challenge.update_indices())
            if len(indices) > 1:
                # The post-update optimizer state is production's own output (never donated);
                # the update coordinate is read when the check replays step t (see _checks_of).
                committed.append(_element(pending.post_opt_state, indices[1]))
        self._hold_segment(segment)
        job = _CheckJob(
            step=pending.step,
            owner=segment,
            program=program,
            segment=_Segment(
                segment.step,
                segment.state,
                list(segment.batches),
                list(segment.batch_roots),
                list(segment.updates),
            ),
            state=challenge.state,
            update=challenge.update,
            indices=indices,
            committed=committed,
        )
        if pending.overlap is Overlap.ALWAYS:
            assert self._verifier is not None
            self._retire()
            self._checks.append(self._verifier.submit(self._run_checks, job))
        else:
            try:
                self._run_checks(job)
            finally:
                self._retire()

    def _sketch_shape(self, path: str, aval: Any) -> tuple[int, ...]:
        shape = tuple(aval.shape)
        k = self._probe(path, shape).k
        return (*shape[:-1], k) if shape else (k,)

    def _state_commitment(self, paths: list[str], sketches: list[np.ndarray]) -> bytes:
        return hashing.commit_tensor_tree(zip(paths, sketches, strict=True))

    def _exact_sketches(self, paths: list[str], params: list[np.ndarray]) -> list[np.ndarray]:
        return [
            hashing.sketch(self._probe(p, tuple(x.shape)), x)
            for p, x in zip(paths, params, strict=True)
        ]

    def _take_snapshot(self, pending: _Pending) -> None:
        program = pending.program
        assert self._writer is not None and pending.snapshot is not None
        state = [np.asarray(x) for x in pending.snapshot]
        paths = [f"params/{p}" for p in program.param_paths] + [
            f"opt_state/{p}" for p in program.opt_paths
        ]
        digest = hashing.commit_tree(
            (p, hashing.commit_tensor(x).digest) for p, x in zip(paths, state, strict=True)
        )
        with self._lock:
            self._writer.append_snapshot({"step": pending.step, "state": digest, "artifact": None})
        params = state[: program.n_params]
        exact = self._exact_sketches(program.param_paths, params)
        if self._sketch_state is None:
            self._sketch_state = exact
        else:
            self._compare_state(pending.step, program.param_paths, params, exact)
        old = self._segment
        self._segment = _Segment(
            pending.step, state, tree=list(pending.snapshot) if pending.pooled else None
        )
        if old is not None:
            self._release_segment(old)

    def _hold_segment(self, segment: _Segment) -> None:
        with self._flow:
            segment.users += 1

    def _release_segment(self, segment: _Segment) -> None:
        """One user fewer; the last one returns the snapshot's tree to the pool."""
        with self._flow:
            segment.users -= 1
            done = segment.users == 0
        if done and segment.tree is not None and self._pool is not None:
            tree, segment.tree, segment.state = segment.tree, None, []
            self._pool.release(tree)

    def _compare_state(
        self, step: int, paths: list[str], params: list[np.ndarray], exact: list[np.ndarray]
    ) -> None:
        """The state's exact parameter sketches against the ones accumulated from updates.

        Every step rounds ``post = fl(pre + delta)`` (at most 2^-24 relative per coordinate)
        and sums its sketch in float32, so the accumulated sketches drift from the exact ones
        by at most about ``t * 2^-22 * sqrt(b) * max|p|`` after ``t`` steps (``b`` coordinates
        per probe column); the allowed difference adds the session tolerance to that bound.
        """
        assert self._sketch_state is not None
        tolerance = self.config.base_tolerance
        for path, x, s_exact, s_acc in zip(paths, params, exact, self._sketch_state, strict=True):
            probe = self._probe(path, tuple(x.shape))
            block = math.ceil(probe.d / probe.k)
            scale = float(np.max(np.abs(x))) if x.size else 0.0  # exact in any float dtype
            drift = self._state_steps * 2.0**-22 * math.sqrt(block) * scale
            allowed = tolerance.abs + tolerance.rel * np.abs(s_acc) + drift
            difference = np.abs(s_exact - s_acc)
            bad = ~(difference <= allowed)
            if np.any(bad):
                where = int(np.argmax(np.where(bad, difference - allowed, -np.inf)))
                detail = (
                    f"the parameter state at step {step} does not follow from the committed "
                    f"updates: leaf {path!r}, sketch value #{where}: accumulated "
                    f"{float(s_acc.reshape(-1)[where])!r}, actual "
                    f"{float(s_exact.reshape(-1)[where])!r} (allowed difference "
                    f"{float(np.broadcast_to(allowed, s_acc.shape).reshape(-1)[where])!r}); the "
                    "parameters were changed outside the attested step"
                )
                self._poison(ZKDVPoisonedError(step, kind="state", detail=detail))
                return

    def _final_state_check(self) -> None:
        last = self._last_post_params
        if last is None or self._segment is None or self._layout is None:
            return
        try:
            params = [np.asarray(x) for x in last]
        except RuntimeError:
            return  # donated to a later computation outside the session: nothing to compare
        program_paths = [p for p, _ in self._layout[0]]
        exact = self._exact_sketches(program_paths, params)
        self._compare_state(self._steps, program_paths, params, exact)

    def _poison(self, failure: ZKDVPoisonedError) -> None:
        with self._flow:
            if self._failure is None:
                self._failure = failure
            self._flow.notify_all()

    # -- checks -------------------------------------------------------------------------------

    def _run_checks(self, job: _CheckJob) -> None:
        try:
            try:
                self._checks_of(job)
            finally:
                self._release_segment(job.owner)
        except ZKDVPoisonedError as failure:
            self._poison(failure)
        except BaseException as error:  # noqa: BLE001
            self._poison(
                ZKDVPoisonedError(
                    job.step,
                    kind="update" if job.update else "state",
                    detail=f"the check could not run: {type(error).__name__}: {error}",
                )
            )

    def _checks_of(self, job: _CheckJob) -> None:
        program, segment, t = job.program, job.segment, job.step
        tolerance = program.tolerance
        assert tolerance is not None
        replay_length = t - segment.step
        altered = [
            segment.step + j
            for j, (b, root) in enumerate(zip(segment.batches, segment.batch_roots, strict=True))
            if hashing.commit_batch(b, self._rolling_window).root != root
        ]
        # Rebuild the pre-state of t with the replay variant of the production program (the
        # same module, with the update kept as an output); then run step t itself, whose update
        # sketches a state check compares and whose update coordinate an update check reads.
        steps = replay_length + 1
        state = program.placement.put_state(segment.state)
        committed_sketches: list[np.ndarray] = []
        recomputed_sketches: list[np.ndarray] = []
        pre_state: list[np.ndarray] = [np.asarray(x) for x in segment.state]
        for j in range(steps):
            if j == replay_length:
                # Copies: the next call donates the parameter buffers.
                pre_state = [np.array(x) for x in state]
            n_p = program.n_params
            outputs = program.replay(
                *state[:n_p],
                *state[n_p:],
                program.placement.put_small(segment.batches[j]),
                *program.weights,  # type: ignore[attr-defined]
            )
            parts = program.split_outputs(outputs, deltas=True)
            deltas = parts["deltas"]
            for committed, recomputed in zip(segment.updates[j], parts["sketches"], strict=True):
                committed_sketches.append(committed.reshape(-1))
                recomputed_sketches.append(np.asarray(recomputed).reshape(-1))
            state = parts["post_params"] + parts["post_opt_state"]
        if job.state:
            self._record(
                _state_result(
                    t,
                    np.concatenate(committed_sketches).astype(np.float64),
                    np.concatenate(recomputed_sketches).astype(np.float64),
                    tolerance,
                    replay_length,
                ),
                altered,
            )
        if job.update:
            n_p = program.n_params
            inputs = [*pre_state[:n_p], *pre_state[n_p:], segment.batches[replay_length]]
            indices = job.indices
            parameter_index = np.uint64(indices[0])
            state_index = np.uint64(indices[1] if len(indices) > 1 else 0)
            arguments = [*inputs, parameter_index, state_index]
            values = len(indices)

            def attested(member: int | None = None) -> list[float]:
                result = program.attested.run(  # type: ignore[attr-defined]
                    arguments, max_ops=_MAX_OPS, ensemble=member
                )
                return [float(np.asarray(r).reshape(())) for r in result[:values]]

            recomputed = attested()
            committed = [_element(deltas, indices[0]), *job.committed]
            spread: list[float] = []
            if tolerance.replays and (
                self._always_measure_spread or _verdict(tolerance, committed, recomputed) == "fail"
            ):
                # Outside the fixed bound: measure how far replays perturbed within rounding
                # land from the recomputed values (the perturbation ensemble).
                spread = [0.0] * values
                for member in range(tolerance.replays):
                    for k, v in enumerate(attested(member)):
                        spread[k] = max(spread[k], abs(v - recomputed[k]))
            check = CheckResult(
                step=t,
                kind="update",
                indices=tuple(indices),
                committed=tuple(committed),
                recomputed=tuple(recomputed),
                tolerance=tolerance,
                verdict=_verdict(tolerance, committed, recomputed, spread),
                replay_length=replay_length,
                spread=tuple(spread),
            )
            self._record(check, altered)

    def _record(self, check: CheckResult, altered: list[int]) -> None:
        assert self._writer is not None
        with self._lock:
            self._writer.append_check(check.to_record())
        self._results.append(check)
        if not check.passed:
            raise ZKDVPoisonedError.from_check(check)
        if altered:
            raise ZKDVPoisonedError(
                check.step,
                kind=check.kind,
                detail=(
                    f"the retained batch of step {altered[0]} no longer matches its commitment "
                    "(it was altered after it was committed)"
                ),
            )


@dataclass
class _CheckJob:
    """What a sampled check needs, captured when the challenge is known."""

    step: int
    owner: _Segment
    """The session's segment this job replays from (released when the job is done)."""
    program: StepProgram
    segment: _Segment
    state: bool
    update: bool
    indices: list[int]
    committed: list[float]


def _element(leaves: list[Any], index: int) -> float:
    """Element ``index`` of the concatenation of ``leaves`` (row-major), as a float."""
    for leaf in leaves:
        size = int(np.prod(np.shape(leaf)))
        if index < size:
            return float(np.asarray(leaf).reshape(-1)[index])
        index -= size
    return 0.0


def _verdict(
    tolerance: Tolerance,
    committed: list[float],
    recomputed: list[float],
    spread: list[float] | None = None,
) -> str:
    spreads = spread or [0.0] * len(committed)
    ok = all(
        tolerance.accepts(c, r, s) for c, r, s in zip(committed, recomputed, spreads, strict=True)
    )
    return "pass" if ok else "fail"


def _state_result(
    step: int,
    committed: np.ndarray,
    recomputed: np.ndarray,
    tolerance: Tolerance,
    replay_length: int,
) -> CheckResult:
    """A state check's record: the first pair out of tolerance, else the worst pair.

    The comparison is the one ``Tolerance.accepts`` makes (``|c - r| <= abs + rel * |c|``, a
    NaN never passes), vectorized over every sketch value of the replay.
    """
    if committed.size == 0:
        committed, recomputed = np.zeros(1), np.zeros(1)
    allowed = tolerance.abs + tolerance.rel * np.abs(committed)
    difference = np.abs(committed - recomputed)
    failing = np.flatnonzero(~(difference <= allowed))
    if failing.size:
        at = int(failing[0])
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(allowed > 0, difference / allowed, 0.0)
        at = int(np.argmax(ratio))
    c, r = float(committed[at]), float(recomputed[at])
    return CheckResult(
        step=step,
        kind="state",
        indices=(),
        committed=(c,),
        recomputed=(r,),
        tolerance=tolerance,
        verdict=_verdict(tolerance, [c], [r]),
        replay_length=replay_length,
    )
