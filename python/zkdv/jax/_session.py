"""``zkdv.jax.ZKDV``: the proof session of a JAX training loop.

The framework-neutral core (:class:`zkdv.session.Session`: lifecycle, flow control, records,
committer, checker) does what every session does; this module adds what is JAX's:

- :class:`ZKDV` implements :class:`~zkdv.jax._step_host.StepHost` for ``proof.jit``: it commits each
  compiled step program (``_register_program``, keeping a :class:`RegisteredProgram` per
  program) and dispatches every step on the training thread (``_run_step``): it packs the batch
  (on the device), launches the snapshot copy when one is due
  (:class:`~zkdv.jax._snapshots.Snapshots`), runs the compiled production step, whose extra
  outputs are the update's sketches, and queues a :class:`_Pending` transaction;
- on the committer thread, ``_commit`` writes a due snapshot (its exact parameter sketches
  must match the accumulated ones: :func:`~zkdv.jax._checks.compare_state`), starts a new
  :class:`~zkdv.jax._snapshots.Segment` there, writes the step record and hands the sampled
  checks on with the segment they replay from (:func:`zkdv.jax._checks.replay`).

Flow control (``max_in_flight`` and :mod:`zkdv.overlap`): a transaction holds an admission slot
from dispatch until it *retires*: its record is written and, under ``UNCHECKED`` and ``NEVER``,
its sampled checks are done (a sampled check is a fence). Under ``ALWAYS`` the slot is released
once the check has its inputs on the host and the check finishes on a separate verifier thread.
``NEVER`` admits a step only when nothing is in flight.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, overload

import jax
import numpy as np

from zkdv.jax._attest import AttestedFunction
from zkdv.jax._checks import (
    closure,
    compare_state,
    deterministic,
    opt_state_discontinuity,
    replay,
)
from zkdv.jax._jit import ProvedFunction
from zkdv.jax._program import PackedBatch, StepOutputs, StepProgram, leaf_sketches, sketched
from zkdv.jax._snapshots import Segment, SegmentView, Snapshots
from zkdv.overlap import Overlap
from zkdv.session import CheckJob, Leaf, Replayed, Root, Session, _derive
from zkdv.session._checker import element
from zkdv.session._records import versions

__all__ = ["ZKDV"]


@dataclass(frozen=True, eq=False)
class RegisteredProgram(_derive.Registered):
    """A step program as the session committed it. What the training thread needs is here
    when it is registered; the derived programs come from the derivation stage, and the
    program record is written by the committer before the first step record that names it
    (:class:`~zkdv.session._derive.Registered`)."""

    program: StepProgram
    weights: tuple[Any, ...]
    """The probe weights, placed as the production program's extra arguments."""


@dataclass(frozen=True)
class _Pending:
    """One dispatched transaction on its way to the committer."""

    step: int
    program: RegisteredProgram
    overlap: Overlap
    batch: Any
    """The packed batch, on the device (the committer copies it to the host)."""
    sketches: list[Any]
    post_params: list[Any]
    post_opt_state: list[Any]
    snapshot: list[Any] | None
    """The pre-state's snapshot copy, when the step is a snapshot step."""
    pooled: bool = False
    """Whether the snapshot's arrays are a tree of the snapshot pool."""


def _to_host(batch: Any, sketches: list[Any]) -> tuple[np.ndarray, list[np.ndarray]]:
    """One step's packed batch (a copy: the retained evidence) and update sketches on the
    host, all buffers in one ``jax.device_get``, which starts every copy before it waits for
    any. Copied one by one, each array waits for its own round trip to the device: on a GPU
    that is paid once per parameter leaf, every step, on the committer thread, which then
    holds back the training loop (``docs/jax.md``, "On a GPU")."""
    parts = list(batch.parts) if isinstance(batch, PackedBatch) else [batch]
    host = jax.device_get([*parts, *sketches])
    whole = np.concatenate(host[: len(parts)], axis=0) if len(parts) > 1 else np.array(host[0])
    return whole, [np.asarray(s) for s in host[len(parts) :]]


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


class ZKDV(Session):
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
        retain: What to store beside the transcript for an auditor (``zkdv audit``), each
            artifact written by the committer thread before the record that names it:
            ``"checkpoints"`` (each step's packed batch and update sketches, and the full
            state every ``checkpoint_interval`` steps and after the last),
            ``"steps"`` (each step's batch and sketches, and the state after the last
            step; the other full states are your own checkpoints, written with
            :func:`zkdv.jax.save_state` at snapshot steps and given to ``zkdv audit
            --checkpoint``), ``"all"`` (each step's batch, sketches and full
            pre-state: a snapshot every step), ``"snapshots"`` (the full state at each
            snapshot, no step evidence), or ``None`` (nothing; the default). Every mode but
            ``None`` stores the replay program too.
        checkpoint_interval: Steps between the full states ``retain="checkpoints"`` stores: a
            multiple of ``replay_snapshot_interval`` (default 10 snapshot intervals).

    Call :meth:`start` before compiling a step, decorate the step with :meth:`jit`, and call
    :meth:`close` once after the loop.
    """

    _framework = "jax"

    def _setup(self) -> None:
        # Guards what the first compiled program fixes: the layout, the attested function and
        # the registered programs.
        self._lock = threading.Lock()
        self._layout: _Layout | None = None
        self._attest: AttestedFunction | None = None
        self._programs: dict[StepProgram, RegisteredProgram] = {}
        self._last_post_params: list[Any] | None = None
        self._last_post_opt_state: list[Any] | None = None
        self._bitwise: bool | None = None
        """Whether the backend replays production's bits (:func:`deterministic`), decided by
        the first step's outputs: the segment closures run only then."""
        self._host = _Host(self)
        self._snapshots = Snapshots()
        self._segment: Segment | None = None
        """The newest snapshot and the steps committed since (the committer's)."""
        # Test-only: called as hook(step, parts) on the production outputs of every step before
        # they are committed, to simulate execution faults (python/tests/test_jax_faults.py).
        self._fault_hook: Callable[[int, StepOutputs], None] | None = None

    def _started(self) -> None:
        self._snapshots.start()

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

    # -- what proof.jit calls, through _Host (zkdv.jax._step_host.StepHost) ------------------------

    def _register_program(self, program: StepProgram) -> None:
        """Register a step program built by proof.jit (the first one also opens the transcript
        with its layout): its derivation goes to the derivation stage, and its program record
        is written by the committer before the record of the program's first step
        (:meth:`lower_step` writes it at once)."""
        layout = _Layout.of(program)
        with self._lock:
            if self._layout is None:
                self._check_window(program)
                self._open_records(program)
                self._layout = layout
            elif layout != self._layout:
                raise ValueError(
                    f"proof.jit({program.name}): its parameter or optimizer-state layout "
                    "differs from the first compiled step's; a session commits one"
                )
            else:
                self._check_window(program)
        retain, config = self._retain.any, self.config

        def derive() -> _derive.Derived:
            replay_text = None
            if retain:
                # What an auditor replays the retained evidence with, in the Rust runtime.
                replay_text = _derive.pipeline(
                    program.canonical_text, "zkdv-replay-pipeline", f"<{program.name}: replay>"
                )
            # The update check's ensemble rounds products as the production devices may.
            return _derive.derive(
                program.name,
                program.attested_text,
                replay_text,
                config=config,
                matmul=program.placement.matmul,
                parse_replay=False,
            )

        derived = self._derivation.submit(derive)

        def write() -> int:
            # A program for another batch layout (a partial last batch, another sequence
            # length) names its own; the root's is the first program's.
            ready = derived.result()
            return self._records.program(
                name=program.name,
                attested=ready.attested_text,
                production=(program.production_text.encode(), "mlir"),
                precision=ready.precision,
                tolerance=ready.tolerance,
                replay=ready.replay_text,
                batch=program.layout.shape,
                matmul=program.placement.matmul,
            )

        weights = tuple(
            program.placement.put_small(self._records.probe(path, aval.shape).weights())
            for path, aval in zip(program.param_paths, program.param_avals, strict=True)
            if sketched(aval)
        )
        with self._lock:
            self._programs[program] = RegisteredProgram(
                record=_derive.Deferred(write), derived=derived, program=program, weights=weights
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
            if self._retain.snapshot_due(step):
                snapshot, pooled = self._snapshots.launch(
                    params + opt_state, self._flow.raise_if_poisoned
                )
            outputs = program.production(*params, *opt_state, batch, *registered.weights)
            parts = program.split_outputs(outputs)
            if self._bitwise is None and parts["post_params"]:
                self._bitwise = deterministic(parts["post_params"][0])
            if self._fault_hook is not None:
                self._fault_hook(step, parts)
            self._steps += 1
        except BaseException:
            self._flow.retire()
            raise
        self._last_post_params = parts["post_params"]
        self._last_post_opt_state = parts["post_opt_state"]
        self._committer.put(
            _Pending(
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
        def leaves(paths: tuple[str, ...], avals: tuple[Any, ...]) -> list[Leaf]:
            return [Leaf(p, tuple(a.shape), a.dtype) for p, a in zip(paths, avals, strict=True)]

        root = Root(
            prover="whitebox-jax",
            versions=versions(("jax", "jaxlib", "flax", "optax", "numpy")),
            rolling_window=self._rolling_window,
            probe_ratio=self._probe_ratio,
            snapshot_interval=self.replay_snapshot_interval,
            params=leaves(program.param_paths, program.param_avals),
            opt_state=leaves(program.opt_paths, program.opt_avals),
            batch=program.layout.shape,
        )
        self._records.open(self.directory, root, self.config)

    # -- on the committer thread ----------------------------------------------------------------

    def _commit(self, pending: _Pending) -> None:
        """Commit one transaction (its snapshot when one is due, its step record), then run or
        hand over the checks its challenge samples; retires the transaction's slot."""
        registered = pending.program
        program = registered.program
        try:
            registered.record()  # the program's record precedes its first step's snapshot
        except OSError:
            raise  # an I/O failure, as the flow reports it
        except Exception as error:
            raise ValueError(
                f"proof.jit({program.name}): its program cannot be committed: "
                f"{type(error).__name__}: {error}"
            ) from error
        if pending.snapshot is not None:
            self._take_snapshot(pending)
        if self._flow.failure is not None:
            self._flow.retire()
            return
        segment = self._segment
        assert segment is not None
        host_batch, sketches = _to_host(pending.batch, pending.sketches)
        updates = leaf_sketches(program, sketches, self._records.sketch_shape)
        challenge, batch = self._committer.transition(
            step=pending.step,
            program=registered.seq,
            paths=program.param_paths,
            updates=updates,
            batch=host_batch,
            overlap=pending.overlap,
        )
        segment.programs.append(registered)
        segment.batches.append(host_batch)
        segment.batch_roots.append(batch.root)
        segment.updates.append(updates)
        segment.last_sampled = challenge.state
        job: CheckJob[SegmentView] | None = None
        if challenge.state or challenge.update:
            indices = tuple(challenge.update_indices()) if challenge.update else ()
            # The post-update optimizer state is production's own output (never donated); the
            # update coordinate is read when the check replays step t (zkdv.jax._checks.replay).
            committed = (element(pending.post_opt_state, indices[1]),) if len(indices) > 1 else ()
            self._snapshots.hold(segment)
            job = CheckJob(
                step=pending.step,
                program=registered,
                state=challenge.state,
                indices=indices,
                committed=committed,
                payload=segment.view(),
            )
        self._committer.dispatch(pending.overlap, job)

    def _take_snapshot(self, pending: _Pending) -> None:
        program = pending.program.program
        assert pending.snapshot is not None
        state = [np.asarray(x) for x in jax.device_get(list(pending.snapshot))]
        params = state[: program.n_params]
        self._committer.snapshot(
            pending.step,
            list(zip(program.param_paths, params, strict=True)),
            list(zip(program.opt_paths, state[program.n_params :], strict=True)),
        )
        exact = self._records.exact_sketches(program.param_paths, params)
        if self._committer.sketches is None:
            self._committer.begin(exact)
        else:
            self._compare_state(pending.step, program.param_paths, params, exact)
        old = self._segment
        if old is not None and old.last_sampled and self._flow.failure is None:
            # The segment ends here, and its last step's challenge sampled a state check: the
            # snapshot must be what the segment's committed steps compute, bit for bit.
            self._close_segment(old, pending.step, state)
        self._segment = Segment(
            pending.step, state, tree=list(pending.snapshot) if pending.pooled else None
        )
        if old is not None:
            self._snapshots.release(old)

    def _compare_state(
        self,
        step: int,
        paths: tuple[str, ...] | list[str],
        params: list[np.ndarray],
        exact: list[np.ndarray],
    ) -> None:
        assert self._committer.sketches is not None
        failure = compare_state(
            step,
            paths,
            params,
            exact,
            self._committer.sketches,
            self._committer.transitions,
            self.config.base_tolerance,
            self._records.probe,
        )
        if failure is not None:
            self._flow.poison(failure)

    def _close_segment(self, segment: Segment, step: int, state: list[np.ndarray]) -> None:
        """Poison the session unless ``state``, delivered at ``step``, is what ``segment``'s
        committed steps compute from its snapshot (on a deterministic backend; else the
        sketch comparison alone holds)."""
        if not self._bitwise or self._layout is None:
            return
        paths = [f"params/{p}" for p, _ in self._layout.params] + [
            f"opt_state/{p}" for p, _ in self._layout.opt_state
        ]
        failure = closure(segment.view(), step, paths, state)
        if failure is not None:
            self._flow.poison(failure)

    # -- on the verifier ------------------------------------------------------------------------

    def _replay(self, job: CheckJob[SegmentView]) -> Replayed:
        return replay(job, self._rolling_window)

    def _job_done(self, job: CheckJob[SegmentView]) -> None:
        self._snapshots.release(job.payload.source)

    def _final_state(
        self,
    ) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]] | None:
        if self._last_post_params is None or self._last_post_opt_state is None:
            return None
        assert self._layout is not None
        try:
            params = [np.asarray(x) for x in self._last_post_params]
            opt_state = [np.asarray(x) for x in self._last_post_opt_state]
        except RuntimeError:
            return None  # donated to a later computation outside the session
        return (
            list(zip([p for p, _ in self._layout.params], params, strict=True)),
            list(zip([p for p, _ in self._layout.opt_state], opt_state, strict=True)),
        )

    def _last_state_check(self) -> None:
        """The final parameters against the committed updates, then the final state against
        the replay of the last segment (always: it is the state the session delivers)."""
        last, last_opt = self._last_post_params, self._last_post_opt_state
        if last is None or last_opt is None or self._segment is None or self._layout is None:
            return
        try:
            params = [np.asarray(x) for x in last]
            opt_state = [np.asarray(x) for x in last_opt]
        except RuntimeError:
            return  # donated to a later computation outside the session: nothing to compare
        paths = [p for p, _ in self._layout.params]
        self._compare_state(self._steps, paths, params, self._records.exact_sketches(paths, params))
        if self._flow.failure is None:
            self._close_segment(self._segment, self._steps, params + opt_state)


class _Host:
    """The session as a :class:`~zkdv.jax._step_host.StepHost`: what ``proof.jit`` steps call,
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

    def commit_program(self, program: StepProgram) -> None:
        self._session._programs[program].record()

    def run_step(self, program: StepProgram, flat: list[Any]) -> Any:
        return self._session._run_step(program, flat)
