"""The checker: the sampled checks of a step, their records, and the poison of a failure.

A :class:`CheckJob` is what the committer knows of a step once its challenge is drawn: which
checks were sampled, the challenged indices, the values production committed, and the
frontend's own payload. :meth:`Checker.run` has the frontend rebuild the step's pre-state and
replay it (the ``replay`` callable it was built with, returning :class:`Replayed`), then runs

- the *state check*: the replay's sketches (and whatever else the frontend compares) against
  the committed ones, within the program's tolerance; where the replay is another program than
  production's (torch's eager step), a value outside the fixed bound is given the spread of
  the replay program's perturbation ensemble (docs/protocol.md, the tolerance rule);
- the *update check*: the attested program (the fixed ABI ``(params, opt_state, batch,
  parameter_index, optimizer_state_index) -> (delta, post_opt_state)``) in the Rust runtime on
  the rebuilt pre-state and the challenged indices (:func:`recompute`);

writes each check record, keeps the results, and poisons the session when a check fails or
cannot run. Nothing here knows a framework: the frontends hand in numpy arrays.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from zkdv import runtime
from zkdv.checks import CheckKind, CheckResult, ZKDVPoisonedError
from zkdv.config import Group, Tolerance
from zkdv.session._flow import Flow
from zkdv.session._records import Records

__all__ = [
    "MAX_OPS",
    "CheckJob",
    "Checker",
    "CommittedProgram",
    "Replayed",
    "StateReplay",
    "element",
    "recompute",
    "state_result",
    "verdict",
]

MAX_OPS = 50_000_000
"""The op limit of one attested run (a check computes a few coordinates)."""


def recompute(
    attested: runtime.Program,
    arguments: Sequence[np.ndarray | np.generic],
    committed: Sequence[float],
    tolerance: Tolerance,
    *,
    always_measure_spread: bool = False,
) -> tuple[list[float], list[float]]:
    """Run ``attested`` on ``arguments``; returns ``(recomputed, spread)``, one value per
    committed value. ``spread`` is empty unless the fixed bound is exceeded (or
    ``always_measure_spread``) and the tolerance asks for replays; it is measured over the
    members up to the first at which the values pass (:meth:`zkdv.Tolerance.measure_spread_for`;
    over all of them with ``always_measure_spread``, which diagnostics set to see the whole
    bound)."""
    values = len(committed)

    def run(member: int | None = None) -> np.ndarray:
        result = attested.run(list(arguments), max_ops=MAX_OPS, ensemble=member)
        return np.array([float(np.asarray(r).reshape(())) for r in result[:values]])

    recomputed = run()
    spread: list[float] = []
    if tolerance.replays and always_measure_spread:
        spread = tolerance.measure_spread(recomputed, run).tolist()
    elif tolerance.replays and tolerance.needs_spread(committed, recomputed):
        # Members in order until the values pass: the whole ensemble's verdict.
        spread = tolerance.measure_spread_for(committed, recomputed, run).spread.tolist()
    return recomputed.tolist(), spread


def verdict(
    tolerance: Tolerance,
    committed: Sequence[float],
    recomputed: Sequence[float],
    spread: Sequence[float] | None = None,
) -> Literal["pass", "fail"]:
    """``"pass"`` when every recomputed value is within the tolerance of the committed one."""
    outside = tolerance.first_outside(committed, recomputed, spread if spread else None)
    return "pass" if outside is None else "fail"


def state_result(
    step: int,
    state: StateReplay,
    tolerance: Tolerance,
    replay_length: int,
    spread: np.ndarray | None = None,
    scales: Sequence[float] | None = None,
) -> CheckResult:
    """A state check's record: the first pair out of tolerance, else the worst pair
    (:meth:`zkdv.Tolerance.compare`, over every sketch value of the replay). ``spread`` (one
    value per sketch value, from the replay program's perturbation ensemble) is given only when
    the replay is another program than production's. A replay that names its leaves
    (:attr:`StateReplay.groups`) is compared as a state, admitting a few outliers
    (:meth:`zkdv.Tolerance.compare_state`, the rule ``zkdv audit`` applies to snapshots).
    """
    committed, recomputed = state.committed, state.recomputed
    outliers = 0
    bias = None
    scale = None
    if committed.size == 0:
        outcome = tolerance.compare(np.zeros(1), np.zeros(1))
    elif state.groups is not None:
        assert state.update is not None
        compared = tolerance.compare_state(
            committed,
            recomputed,
            state.update,
            state.groups,
            spread,
            flips=state.flips,
            scales=scales,
        )
        assert compared is not None
        outcome, outliers, bias, scale = compared
        if bias is not None and state.names is not None:
            bias = dataclasses.replace(bias, name=state.names[bias.leaf])
    else:
        outcome = tolerance.compare(committed, recomputed, spread)
    assert outcome is not None
    s = () if spread is None else (outcome.spread,)
    return CheckResult(
        step=step,
        kind="state",
        indices=(),
        committed=(outcome.committed,),
        recomputed=(outcome.recomputed,),
        tolerance=tolerance,
        verdict="pass" if outcome.passed and bias is None else "fail",
        replay_length=replay_length,
        spread=s,
        outliers=outliers,
        bias=bias,
        scale=scale,
        position=outcome.index,
    )


def element(
    leaves: Sequence[Any], index: int, host: Callable[[Any], np.ndarray] = np.asarray
) -> float:
    """Element ``index`` of the concatenation of ``leaves`` (row-major), as a float; the leaf
    that holds it is read through ``host`` (the frontend's host copy)."""
    for leaf in leaves:
        size = math.prod(np.shape(leaf))
        if index < size:
            return float(host(leaf).reshape(-1)[index])
        index -= size
    return 0.0


class CommittedProgram(Protocol):
    """What the checker reads of a committed step program."""

    @property
    def seq(self) -> int:
        """The sequence number of its program record."""
        ...

    @property
    def tolerance(self) -> Tolerance:
        """The tolerance of its checks (the session's, adjusted to its precision)."""
        ...

    @property
    def attested(self) -> runtime.Program:
        """The attested program, parsed for the Rust runtime."""
        ...


@dataclass(frozen=True)
class CheckJob[P]:
    """The sampled checks of one step, as the committer hands them to the checker."""

    step: int
    program: CommittedProgram
    state: bool
    """Whether a state check was sampled."""
    indices: tuple[int, ...]
    """The challenged ``(parameter_index, optimizer_state_index)`` of an update check; empty
    when none was sampled."""
    committed: tuple[float, ...]
    """The update check's committed values known when the step was committed; the replay may
    read the first ones (:attr:`Replayed.committed`)."""
    payload: P
    """What the frontend's replay needs."""


@dataclass(frozen=True)
class StateReplay:
    """What a state check compares: sketch values (and more) committed and replayed."""

    committed: np.ndarray
    recomputed: np.ndarray
    members: Callable[[int], np.ndarray] | None = None
    """Member ``m`` of the replay's perturbation ensemble, when the replay is another program
    than production's; ``None`` when it is production's own."""
    groups: list[Group] | None = None
    """Each leaf's run of values (:data:`zkdv.config.Group`: its length, whether it holds
    floats, and its row) in order, when the values are compared
    as a state that admits outliers (a replay that is another program than production's);
    ``None`` to compare them pair by pair."""
    update: np.ndarray | None = None
    """With :attr:`groups`: each value's replayed update ``|recomputed - start|`` (0 for a
    sketch value)."""
    names: list[str] | None = None
    """With :attr:`groups`: each leaf's name, which a failure of the bias test gives."""
    flips: bool = False
    """With :attr:`groups`: the program computes in a float narrower than ``f32``, where an
    outlier may be a flip as large as its leaf's largest spread."""


@dataclass(frozen=True)
class Replayed:
    """A step rebuilt by the frontend: its pre-state, its batch as the attested program takes
    it, and what its state check compares."""

    pre_state: list[np.ndarray]
    batch: list[np.ndarray]
    replay_length: int
    """Transitions replayed from the snapshot to rebuild the pre-state."""
    state: StateReplay | None
    committed: tuple[float, ...] = ()
    """Committed update values read while replaying (they precede the job's own)."""
    altered: list[int] = field(default_factory=list)
    """Steps whose retained batch no longer matches its commitment."""


class Checker:
    """Runs sampled checks and keeps their results.

    Args:
        records: The transcript the check records go to.
        flow: The session's flow state, poisoned by a failed check.
        replay: The frontend's replay of a job's step.
        done: Called when a job is finished, whatever its outcome (releases what it held).
    """

    def __init__(
        self,
        records: Records,
        flow: Flow,
        replay: Callable[[CheckJob[Any]], Replayed],
        done: Callable[[CheckJob[Any]], None] | None = None,
    ) -> None:
        self._records = records
        self._flow = flow
        self._replay = replay
        self._done = done
        self._verifier: ThreadPoolExecutor | None = None
        self._futures: list[Future[None]] = []
        self._waiting = 0
        self._waiting_lock = threading.Lock()
        self.results: list[CheckResult] = []
        """The checks run so far, in the order they finished."""
        self.always_measure_spread = False
        """Measure every update check's spread, not only where the fixed bound is exceeded,
        and every spread over the whole ensemble, not only up to the first member at which the
        values pass (the soundness studies' margins need the whole bound; verdicts are the
        same but for the state check's mean test, docs/protocol.md section 8a)."""

    def start(self, name: str) -> None:
        """Start the verifier thread."""
        self._verifier = ThreadPoolExecutor(1, thread_name_prefix=name)

    def submit(self, job: CheckJob[Any]) -> None:
        """Run ``job`` on the verifier thread."""
        assert self._verifier is not None
        self._enter()
        self._futures.append(self._verifier.submit(self._run_and_leave, job))

    def run_now(self, job: CheckJob[Any]) -> None:
        """Run ``job`` on the calling thread (a check that fences its step)."""
        self._enter()
        self._run_and_leave(job)

    def _enter(self) -> None:
        with self._waiting_lock:
            self._waiting += 1

    def _run_and_leave(self, job: CheckJob[Any]) -> None:
        """:meth:`run`, then, once no other job waits, the runtime's freed memory given back:
        the replays of a burst of checks reuse it, and the training loop gets it back after."""
        try:
            self.run(job)
        finally:
            with self._waiting_lock:
                self._waiting -= 1
                last = self._waiting == 0
            if last:
                runtime.release_memory()

    def wait(self) -> None:
        """Wait for every job submitted to the verifier thread."""
        for future in list(self._futures):
            future.result()

    def shutdown(self) -> None:
        """Stop the verifier thread once its jobs are done."""
        if self._verifier is not None:
            self._verifier.shutdown(wait=True)

    def run(self, job: CheckJob[Any]) -> None:
        """Run ``job``'s checks and poison the session on a failure (a check that cannot run
        fails too; a check record that cannot be written is an I/O failure, no verdict)."""
        kind: CheckKind = "state" if job.state else "update"
        try:
            try:
                replayed = self._replay(job)
                if job.state:
                    assert replayed.state is not None
                    self.state_check(job, replayed)
                    # What the state check compared (the state's values twice, in float64)
                    # is freed before the update check runs the whole step again.
                    replayed = dataclasses.replace(replayed, state=None)
                kind = "update"
                if job.indices:
                    self.update_check(job, replayed)
            finally:
                if self._done is not None:
                    self._done(job)
        except ZKDVPoisonedError as failure:
            self._flow.poison(failure)
        except OSError as error:
            self._flow.fail_io(error)
        except BaseException as error:  # noqa: BLE001  (a check that cannot run poisons too)
            # Named after the check that could not run, not the last one sampled.
            self._flow.poison(
                ZKDVPoisonedError(
                    job.step,
                    kind=kind,
                    detail=f"the check could not run: {type(error).__name__}: {error}",
                )
            )

    def state_check(self, job: CheckJob[Any], replayed: Replayed) -> None:
        """The state check of ``job``'s step (see the module's description)."""
        state = replayed.state
        assert state is not None
        tolerance = job.program.tolerance
        length = replayed.replay_length
        result = state_result(job.step, state, tolerance, length)
        # In a narrow-float program the spread is always measured: the bias test's mean
        # (``LeafBias``, kind "mean") needs it, and honest bf16 pairs mostly need it anyway.
        measure = not result.passed or state.flips
        if measure and tolerance.replays and state.members is not None:
            spread, scales = self._ensemble(tolerance, state)
            result = state_result(job.step, state, tolerance, length, spread, scales)
        self.record(result, replayed.altered)

    def _ensemble(
        self, tolerance: Tolerance, state: StateReplay
    ) -> tuple[np.ndarray, list[float] | None]:
        """The spread of ``state``'s replay over its perturbation ensemble, and each leaf's
        member scale when it is compared leaf by leaf. Members are measured in order until the
        values pass, a state admitting no outlier there (docs/protocol.md, 5a and 8a): each
        replays the whole step, and the zoo's honest checks mostly passed after two to four of
        the eight (a state that needs an outlier takes all eight). With
        ``always_measure_spread``, every member."""
        members = state.members
        assert members is not None
        if state.groups is None:
            if self.always_measure_spread:
                return tolerance.measure_spread(state.recomputed, members), None
            spread = tolerance.measure_spread_for(state.committed, state.recomputed, members)
            return spread.spread, None
        if self.always_measure_spread:
            return tolerance.measure_ensemble(state.recomputed, members, state.groups)
        assert state.update is not None
        ensemble = tolerance.measure_ensemble_for(
            state.committed,
            state.recomputed,
            members,
            state.update,
            state.groups,
            flips=state.flips,
        )
        return ensemble.spread, ensemble.scales

    def update_check(self, job: CheckJob[Any], replayed: Replayed) -> None:
        """The update check of ``job``'s step (see the module's description)."""
        indices = job.indices
        arguments: list[np.ndarray | np.generic] = [
            *replayed.pre_state,
            *replayed.batch,
            np.uint64(indices[0]),
            np.uint64(indices[1] if len(indices) > 1 else 0),
        ]
        committed = [*replayed.committed, *job.committed]
        tolerance = job.program.tolerance
        recomputed, spread = recompute(
            job.program.attested,
            arguments,
            committed,
            tolerance,
            always_measure_spread=self.always_measure_spread,
        )
        check = CheckResult(
            step=job.step,
            kind="update",
            indices=tuple(indices),
            committed=tuple(committed),
            recomputed=tuple(recomputed),
            tolerance=tolerance,
            verdict=verdict(tolerance, committed, recomputed, spread),
            replay_length=replayed.replay_length,
            spread=tuple(spread),
        )
        self.record(check, replayed.altered)

    def record(self, check: CheckResult, altered: Sequence[int] = ()) -> None:
        """Write ``check``'s record and keep it; raise its failure, or the failure of a
        retained batch altered after it was committed."""
        self._records.check(check.to_record())
        self.results.append(check)
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
