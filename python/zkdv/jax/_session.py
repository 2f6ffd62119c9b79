"""``zkdv.jax.ZKDV``: the proof session, its public API and lifecycle, and the dispatch path.

The session is assembled from parts that each own their state:

- :class:`~zkdv._flow.Flow`: admission slots and the poison the threads share;
- :class:`~zkdv.jax._records.Records`: the transcript writer and the probe maps;
- :class:`~zkdv.jax._snapshots.Snapshots`: the snapshot copies, their pool and segments;
- :class:`~zkdv.jax._committer.Committer`: the committer thread (batch and sketch hashing, step
  and snapshot records, the snapshot state comparisons);
- :class:`~zkdv.jax._checks.Checker`: the sampled checks, inline or on the verifier thread.

:class:`ZKDV` itself validates the arguments, starts and closes the parts, and implements
:class:`~zkdv.jax._host.StepHost` for ``proof.jit``: it commits each compiled step program
(``_register_program``, keeping a :class:`~zkdv.jax._records.RegisteredProgram` per
program) and dispatches every step on the training thread (``_run_step``): it packs the
batch (on the device), launches the snapshot copy when one is due, runs the compiled production
step and queues a :class:`~zkdv.jax._committer.Pending` transaction for the committer.

Flow control (``max_in_flight`` and :mod:`zkdv.overlap`): a transaction holds an admission slot
from dispatch until it *retires*: its record is written and, under ``UNCHECKED`` and ``NEVER``,
its sampled checks are done (a sampled check is a fence). Under ``ALWAYS`` the slot is released
once the check has its inputs on the host and the check finishes on a separate verifier thread.
``NEVER`` admits a step only when nothing is in flight.

A failed check, or any error in the committer, poisons the session: every later operation
raises :class:`zkdv.ZKDVPoisonedError`, and ``close()`` records the failure and raises it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, overload

import numpy as np

import zkdv
from zkdv import hashing, passes, runtime
from zkdv._arguments import retention, session_config, start_arguments
from zkdv._flow import Flow, closed, finish_at_exit
from zkdv.checks import CheckResult
from zkdv.config import ZKDVConfig
from zkdv.jax._attest import AttestedFunction
from zkdv.jax._checks import Checker, opt_state_discontinuity
from zkdv.jax._committer import Committer, Pending
from zkdv.jax._jit import ProvedFunction
from zkdv.jax._program import StepOutputs, StepProgram
from zkdv.jax._records import Records, RegisteredProgram
from zkdv.jax._snapshots import Snapshots

__all__ = ["ZKDV"]


def _versions() -> dict[str, str]:
    out = {"zkdv": zkdv.__version__}
    for package in ("jax", "jaxlib", "flax", "optax", "numpy"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            pass
    return out


LeafLayout = tuple[tuple[str, tuple[tuple[int, ...], np.dtype]], ...]
"""``(path, (shape, dtype))`` per leaf."""


@dataclass(frozen=True)
class _Layout:
    """The parameter and optimizer-state layout a session commits (one per session; the
    batch layout may differ from program to program)."""

    params: LeafLayout
    opt_state: LeafLayout

    @classmethod
    def of(cls, program: StepProgram) -> _Layout:
        """The layout of ``program``."""
        return cls(
            tuple(
                (p, (a.shape, a.dtype))
                for p, a in zip(program.param_paths, program.param_avals, strict=True)
            ),
            tuple(
                (p, (a.shape, a.dtype))
                for p, a in zip(program.opt_paths, program.opt_avals, strict=True)
            ),
        )


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
        retain: What to store beside the transcript for an auditor (``zkdv audit``):
            ``"all"`` (each step's packed batch, update sketches and full pre-state, as a
            snapshot every step, and the replay program), ``"snapshots"`` (the snapshots and
            the replay program), or ``None`` (nothing; the default). The committer thread
            writes each artifact before the record that names it.

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
        retain: str | None = None,
    ) -> None:
        config = session_config(config, max_in_flight, replay_snapshot_interval)
        self.directory = Path(directory)
        self.config = config
        self._retain = retention(retain)
        # Retaining everything, every step's pre-state is a snapshot: an audit replays each
        # step from production's own state (docs/protocol.md section 8a).
        self.replay_snapshot_interval = 1 if retain == "all" else replay_snapshot_interval
        self._state = "created"
        self._rolling_window = 0
        self._probe_ratio = 0.01
        # Guards what the first compiled program fixes: the layout, the attested function and
        # the registered programs.
        self._lock = threading.Lock()
        self._layout: _Layout | None = None
        self._root_batch: tuple[int, int] | None = None
        """The first program's packed batch shape, the root's batch layout."""
        self._attest: AttestedFunction | None = None
        self._programs: dict[StepProgram, RegisteredProgram] = {}
        self._steps = 0
        self._last_post_params: list[Any] | None = None
        self._last_post_opt_state: list[Any] | None = None
        self._flow = Flow(max_in_flight)
        self._host = _Host(self)
        self._records = Records()
        self._snapshots = Snapshots()
        self._checker = Checker(self._records, self._flow, self._snapshots)
        self._committer = Committer(
            self._records,
            self._flow,
            self._snapshots,
            self._checker,
            config.base_tolerance,
            retain=self._retain,
        )
        # Test-only: called as hook(step, parts) on the production outputs of every step before
        # they are committed, to simulate execution faults (python/tests/test_jax_faults.py).
        self._fault_hook: Callable[[int, StepOutputs], None] | None = None

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
        probe_ratio = start_arguments(self.directory, rolling_window, probe_ratio)
        self._rolling_window = rolling_window
        self._probe_ratio = float(probe_ratio)
        self._snapshots.start()
        self._checker.start(rolling_window)
        self._committer.start(rolling_window)
        self._state = "running"
        finish_at_exit(self)

    @overload
    def jit(self, fun: Callable[..., Any], /, **options: Any) -> ProvedFunction: ...

    @overload
    def jit(
        self, fun: None = None, /, **options: Any
    ) -> Callable[[Callable[..., Any]], ProvedFunction]: ...

    def jit(
        self, fun: Callable[..., Any] | None = None, /, **options: Any
    ) -> ProvedFunction | Callable[[Callable[..., Any]], ProvedFunction]:
        """``jax.jit`` for a training step whose update the session attests.

        Use it as ``@proof.jit``, ``@proof.jit(donate_argnums=(0,))`` or
        ``proof.jit(step, **options)``; every ``jax.jit`` option is accepted. The step declares
        exactly one transaction (``zkdv.jax.Transaction`` or a contrib ``TrainState``'s
        ``apply_gradients``). Static arguments, tree structures, dtypes and the parameter and
        optimizer-state shapes are fixed by the first call; a later call that differs raises
        instead of retracing. A call whose batch leaves have new shapes (a partial last batch,
        another sequence length) retraces as ``jax.jit`` does: the session commits a program
        per batch layout, and checks each step with its own.
        """
        if fun is None:
            return lambda f: ProvedFunction(self._host, f, options)
        return ProvedFunction(self._host, fun, options)

    @overload
    def attest(self, fun: Callable[..., Any], /, **options: Any) -> AttestedFunction: ...

    @overload
    def attest(
        self, fun: None = None, /, **options: Any
    ) -> Callable[[Callable[..., Any]], AttestedFunction]: ...

    def attest(
        self, fun: Callable[..., Any] | None = None, /, **options: Any
    ) -> AttestedFunction | Callable[[Callable[..., Any]], AttestedFunction]:
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
        self._flow.raise_if_poisoned()

    def close(self) -> None:
        """Wait for all commitments and checks, write the close record and flush the transcript.

        Call once, after the training loop. Raises :class:`zkdv.ZKDVPoisonedError` when a
        check failed; the close record then says ``poisoned`` and names the failure.
        """
        if self._state == "closed":
            raise RuntimeError("ZKDV.close: the session is already closed")
        if self._state == "created":
            raise RuntimeError("ZKDV.close: the session was never started")
        self._stop_threads()
        if not self._records.opened or self._flow.error is not None:
            # No step ever ran (the layout is unknown, there is nothing to write), or the
            # committer failed (a full disk): the records written before the error stay as
            # they are, valid, and the error is raised as what it is. The parameters moved
            # past the last committed step then, so no final state check is run.
            self._flow.raise_if_poisoned()
            return
        if self._flow.failure is None:
            self._final_state_check()
        failure = self._flow.failure
        self._records.close(None if failure is None else failure.to_failure_record())
        self._flow.raise_if_poisoned()

    def _stop_threads(self) -> None:
        """Wait for the queued work, stop the committer and verifier threads, and mark the
        session closed."""
        try:
            self._drain()
        finally:
            self._committer.stop()
            self._checker.shutdown()
            self._state = "closed"
            closed(self)

    @property
    def checks(self) -> list[CheckResult]:
        """The checks run so far, in the order they finished."""
        return list(self._checker.results)

    @property
    def steps(self) -> int:
        """Transactions dispatched so far."""
        return self._steps

    @property
    def max_in_flight(self) -> int:
        """The most dispatched transactions not yet retired."""
        return self._flow.max_in_flight

    # -- what proof.jit calls, through _Host (zkdv.jax._host.StepHost) ------------------------

    def _require_running(self, what: str) -> None:
        """Raise unless the session is started, not closed and not poisoned."""
        self._flow.raise_if_poisoned()
        if self._state == "created":
            raise RuntimeError(f"cannot {what}: call proof.start(...) first")
        if self._state == "closed":
            raise RuntimeError(f"cannot {what}: the session is closed")

    def _register_program(self, program: StepProgram) -> None:
        """Commit a step program built by proof.jit: its artifacts and program record (the
        first one also opens the transcript with its layout)."""
        layout = _Layout.of(program)
        with self._lock:
            if self._layout is None:
                self._check_window(program)
                self._open_records(program)
                self._layout = layout
                self._root_batch = program.layout.shape
            elif layout != self._layout:
                raise ValueError(
                    f"proof.jit({program.name}): its parameter or optimizer-state layout "
                    "differs from the first compiled step's; a session commits one"
                )
            else:
                self._check_window(program)
            rows, width = program.layout.shape
            # A program for another batch layout (a partial last batch, another sequence
            # length) names its own; the root's is the first program's.
            own_batch = (
                {"batch": [{"path": "batch", "dtype": "u32", "shape": [rows, width]}]}
                if program.layout.shape != self._root_batch
                else {}
            )
            attested = self._records.artifact(program.attested_text.encode(), "mlir")
            production = self._records.artifact(program.production_text.encode(), "mlir")
            precision = passes.precision(program.attested_text, f"<{program.name}: attested>")
            tolerance = self.config.base_tolerance.for_program(
                self.config.tolerance_policy, precision
            )
            replay = {}
            if self._retain:
                # What an auditor replays the retained evidence with, in the Rust runtime.
                text, _ = passes.run_passes(
                    program.canonical_text, ["zkdv-replay-pipeline"], f"<{program.name}: replay>"
                )
                replay = {"replay": self._records.artifact(text.encode(), "mlir")}
            seq = self._records.program(
                {
                    "name": program.name,
                    "format": "stablehlo",
                    "attested": attested,
                    "production": production,
                    "precision": precision,
                    "tolerance": tolerance.to_record(),
                    **replay,
                    **own_batch,
                }
            )
        program_runtime = runtime.Program(program.attested_text, "main", f"<{program.name}>")
        weights = tuple(
            program.placement.put_small(self._records.probe(path, aval.shape).weights())
            for path, aval in zip(program.param_paths, program.param_avals, strict=True)
            if (aval.shape[-1] if aval.shape else 1) > 0
        )
        with self._lock:
            self._programs[program] = RegisteredProgram(
                program, seq, tolerance, program_runtime, weights
            )

    def _run_step(self, program: StepProgram, flat: list[Any]) -> Any:
        """Dispatch one transaction of a registered program (for proof.jit): pack the batch,
        launch the snapshot copy when one is due, run the production program and queue the
        transaction for the committer. Returns the function's own return value."""
        registered = self._programs[program]
        overlap = program.overlap_of()
        self._flow.admit(overlap)
        try:
            step = self._steps
            params = [flat[i] for i in program.param_positions]
            opt_state = [flat[i] for i in program.opt_positions]
            batch = program.pack([flat[i] for i in program.batch_positions])
            failure = opt_state_discontinuity(
                step, program.opt_paths, opt_state, self._last_post_opt_state
            )
            if failure is not None:
                self._flow.poison(failure)
            snapshot, pooled = None, False
            if step % self.replay_snapshot_interval == 0:
                snapshot, pooled = self._snapshots.launch(
                    params + opt_state, self._flow.raise_if_poisoned
                )
            outputs = program.production(*params, *opt_state, batch, *registered.weights)
            parts = program.split_outputs(outputs)
            if self._fault_hook is not None:
                self._fault_hook(step, parts)
            self._steps += 1
        except BaseException:
            self._flow.retire()
            raise
        self._last_post_params = parts["post_params"]
        self._last_post_opt_state = parts["post_opt_state"]
        self._committer.put(
            Pending(
                step=step,
                program=registered,
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

    # -- internals ----------------------------------------------------------------------------

    def _check_window(self, program: StepProgram) -> None:
        rows, width = program.layout.shape
        if self._rolling_window > width:
            raise ValueError(
                f"ZKDV.start: rolling_window={self._rolling_window} exceeds the packed batch "
                f"row width {width} of proof.jit({program.name}) (its batch packs to "
                f"{rows}x{width} uint32 words); choose rolling_window <= {width}"
            )

    def _open_records(self, program: StepProgram) -> None:
        rows, width = program.layout.shape

        def leaves(paths: tuple[str, ...], avals: tuple[Any, ...]) -> list[dict[str, Any]]:
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
        self._records.open(self.directory, root, self._probe_ratio)

    def _drain(self) -> None:
        self._flow.wait_idle()
        self._checker.wait()

    def _final_state_check(self) -> None:
        last = self._last_post_params
        if last is None or self._committer.segment is None or self._layout is None:
            return
        try:
            params = [np.asarray(x) for x in last]
        except RuntimeError:
            return  # donated to a later computation outside the session: nothing to compare
        paths = [p for p, _ in self._layout.params]
        self._committer.check_final_state(self._steps, paths, params)


class _Host:
    """The session as a :class:`~zkdv.jax._host.StepHost`: what ``proof.jit`` steps call,
    kept off :class:`ZKDV`'s public surface."""

    def __init__(self, session: ZKDV) -> None:
        self._session = session

    @property
    def probe_ratio(self) -> float:
        return self._session._probe_ratio

    @property
    def attested_function(self) -> AttestedFunction | None:
        return self._session._attest

    def require_running(self, what: str) -> None:
        self._session._require_running(what)

    def register_program(self, program: StepProgram) -> None:
        self._session._register_program(program)

    def run_step(self, program: StepProgram, flat: list[Any]) -> Any:
        return self._session._run_step(program, flat)
