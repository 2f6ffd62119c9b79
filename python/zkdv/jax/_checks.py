"""The session's checks: the sampled state and update checks, and the continuity checks.

:class:`Checker` runs the sampled checks of a step (a :class:`CheckJob`, made by the committer
once the step's challenge is known): the pre-state is rebuilt by replaying the production
program from the newest snapshot over the retained batches (every replayed update sketch must
reproduce the committed one), then the attested program runs in the Rust runtime on the
challenged indices. It runs a job inline (a fence) or on its verifier thread (under
``ALWAYS``), writes the check records, keeps the results, and poisons the session when a check
fails or cannot run.

The continuity checks need no sampling: :func:`compare_state` compares a snapshot's exact
parameter sketches with the ones accumulated from the committed updates, and
:func:`opt_state_discontinuity` compares the optimizer state a step receives with what the
previous step produced.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from zkdv import hashing
from zkdv._attested import recompute, state_result, verdict
from zkdv._flow import Flow
from zkdv.checks import CheckResult, ZKDVPoisonedError
from zkdv.config import Tolerance
from zkdv.jax._records import Records, RegisteredProgram
from zkdv.jax._snapshots import Segment, SegmentView, Snapshots

__all__ = [
    "CheckJob",
    "Checker",
    "compare_state",
    "element",
    "opt_state_discontinuity",
]


@dataclass(frozen=True)
class CheckJob:
    """What a sampled check needs, captured when the challenge is known."""

    step: int
    owner: Segment
    """The session's segment this job replays from (released when the job is done)."""
    program: RegisteredProgram
    segment: SegmentView
    state: bool
    update: bool
    indices: tuple[int, ...]
    committed: tuple[float, ...]
    """The committed values read when the step was committed (its post-update optimizer
    state coordinate); the update coordinate is read when the check replays the step."""


class Checker:
    """Runs sampled checks and keeps their results.

    Args:
        records: The transcript the check records go to.
        flow: The session's flow state, poisoned by a failed check.
        snapshots: Releases a job's segment when the job is done.
    """

    def __init__(self, records: Records, flow: Flow, snapshots: Snapshots) -> None:
        self._records = records
        self._flow = flow
        self._snapshots = snapshots
        self._rolling_window = 0
        self._verifier: ThreadPoolExecutor | None = None
        self._futures: list[Future[None]] = []
        self.results: list[CheckResult] = []
        """The checks run so far, in the order they finished."""
        self.always_measure_spread = False
        """Measure every update check's spread, not only where the fixed bound is exceeded
        (the soundness benchmark's margins need the whole bound; verdicts are the same)."""

    def start(self, rolling_window: int) -> None:
        """Start the verifier thread; ``rolling_window`` is the session's batch hashing window."""
        self._rolling_window = rolling_window
        self._verifier = ThreadPoolExecutor(1, thread_name_prefix="zkdv-verifier")

    def submit(self, job: CheckJob) -> None:
        """Run ``job`` on the verifier thread."""
        assert self._verifier is not None
        self._futures.append(self._verifier.submit(self.run, job))

    def wait(self) -> None:
        """Wait for every job submitted to the verifier thread."""
        for future in list(self._futures):
            future.result()

    def shutdown(self) -> None:
        """Stop the verifier thread once its jobs are done."""
        if self._verifier is not None:
            self._verifier.shutdown(wait=True)

    def run(self, job: CheckJob) -> None:
        """Run ``job``'s checks, release its segment, and poison the session on a failure."""
        try:
            try:
                self.checks_of(job)
            finally:
                self._snapshots.release(job.owner)
        except ZKDVPoisonedError as failure:
            self._flow.poison(failure)
        except OSError as error:
            # The check record could not be written (a full disk): an I/O failure, no verdict.
            self._flow.fail_io(error)
        except BaseException as error:  # noqa: BLE001
            self._flow.poison(
                ZKDVPoisonedError(
                    job.step,
                    kind="update" if job.update else "state",
                    detail=f"the check could not run: {type(error).__name__}: {error}",
                )
            )

    def checks_of(self, job: CheckJob) -> None:
        """Replay ``job``'s step from its segment and run its sampled checks.

        Raises:
            ZKDVPoisonedError: when a check failed or a retained batch was altered.
        """
        registered, segment, t = job.program, job.segment, job.step
        program, tolerance = registered.program, registered.tolerance
        replay_length = t - segment.step
        altered = [
            segment.step + j
            for j, (b, root) in enumerate(zip(segment.batches, segment.batch_roots, strict=True))
            if hashing.commit_batch(b, self._rolling_window).root != root
        ]
        # Rebuild the pre-state of t with the replay variant of the production program (the
        # same module, with the update kept as an output); then run step t itself, whose update
        # sketches a state check compares and whose update coordinate an update check reads.
        # Each step replays with the program it ran (its batch layout may differ from t's).
        steps = replay_length + 1
        state = segment.programs[0].program.placement.put_state(segment.state)
        committed_sketches: list[np.ndarray] = []
        recomputed_sketches: list[np.ndarray] = []
        pre_state: list[np.ndarray] = [np.asarray(x) for x in segment.state]
        deltas: list[Any] = []
        for j in range(steps):
            if j == replay_length:
                # Copies: the next call donates the parameter buffers.
                pre_state = [np.array(x) for x in state]
            ran: RegisteredProgram = segment.programs[j]
            n_p = ran.program.n_params
            outputs = ran.program.replay(
                *state[:n_p],
                *state[n_p:],
                ran.program.placement.put_small(segment.batches[j]),
                *ran.weights,
            )
            parts = ran.program.split_outputs(outputs, deltas=True)
            deltas = parts["deltas"]
            for committed_sketch, recomputed_sketch in zip(
                segment.updates[j], parts["sketches"], strict=True
            ):
                committed_sketches.append(committed_sketch.reshape(-1))
                recomputed_sketches.append(np.asarray(recomputed_sketch).reshape(-1))
            state = parts["post_params"] + parts["post_opt_state"]
        if job.state:
            self._record(
                state_result(
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
            arguments: list[np.ndarray | np.generic] = [*inputs, parameter_index, state_index]
            committed = [element(deltas, indices[0]), *job.committed]
            recomputed, spread = recompute(
                registered.attested,
                arguments,
                committed,
                tolerance,
                always_measure_spread=self.always_measure_spread,
            )
            check = CheckResult(
                step=t,
                kind="update",
                indices=tuple(indices),
                committed=tuple(committed),
                recomputed=tuple(recomputed),
                tolerance=tolerance,
                verdict=verdict(tolerance, committed, recomputed, spread),
                replay_length=replay_length,
                spread=tuple(spread),
            )
            self._record(check, altered)

    def _record(self, check: CheckResult, altered: list[int]) -> None:
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


def compare_state(
    step: int,
    paths: Sequence[str],
    params: Sequence[np.ndarray],
    exact: Sequence[np.ndarray],
    accumulated: Sequence[np.ndarray],
    state_steps: int,
    tolerance: Tolerance,
    probe: Callable[[str, tuple[int, ...]], hashing.ProbeMap],
) -> ZKDVPoisonedError | None:
    """The state's exact parameter sketches against the ones accumulated from updates.

    Every step rounds ``post = fl(pre + delta)`` (at most 2^-24 relative per coordinate)
    and sums its sketch in float32, so the accumulated sketches drift from the exact ones
    by at most about ``t * 2^-22 * sqrt(b) * max|p|`` after ``t`` steps (``b`` coordinates
    per probe column); the allowed difference adds the session tolerance to that bound.

    Returns the failure of the first leaf out of bounds, or ``None``.
    """
    for path, x, s_exact, s_acc in zip(paths, params, exact, accumulated, strict=True):
        probe_map = probe(path, tuple(x.shape))
        block = math.ceil(probe_map.d / probe_map.k)
        # Exact in any float dtype; over the finite coordinates (non-finite parameters, after a
        # NaN in a batch, have sketches that agree only with themselves, and no drift).
        finite = np.abs(x[np.isfinite(x)]) if x.size else x
        scale = float(np.max(finite)) if finite.size else 0.0
        drift = state_steps * 2.0**-22 * math.sqrt(block) * scale
        allowed = tolerance.abs + tolerance.rel * np.abs(s_acc) + drift
        # The session's rule (non-finite values agree only with themselves), its absolute
        # term widened by the accumulation drift.
        widened = dataclasses.replace(tolerance, abs=tolerance.abs + drift)
        where = widened.first_outside(s_acc, s_exact)
        if where is not None:
            detail = (
                f"the parameter state at step {step} does not follow from the committed "
                f"updates: leaf {path!r}, sketch value #{where}: accumulated "
                f"{float(s_acc.reshape(-1)[where])!r}, actual "
                f"{float(s_exact.reshape(-1)[where])!r} (allowed difference "
                f"{float(np.broadcast_to(allowed, s_acc.shape).reshape(-1)[where])!r}); the "
                "parameters were changed outside the attested step"
            )
            return ZKDVPoisonedError(step, kind="state", detail=detail)
    return None


def opt_state_discontinuity(
    step: int, paths: Sequence[str], given: Sequence[Any], produced: Sequence[Any] | None
) -> ZKDVPoisonedError | None:
    """The failure when the optimizer state a step receives is not what the previous step
    produced, else ``None``.

    Parameters changed between steps are caught by their sketches at the next snapshot;
    the optimizer state has no sketch, and an edit just before a snapshot step would go
    into the snapshot and agree with every later replay. So every step compares its
    optimizer-state leaves with the previous step's production outputs: the same arrays
    in an ordinary loop (free), otherwise compared by value on their device.
    """
    if produced is None or len(produced) != len(given):
        return None
    for path, leaf, previous in zip(paths, given, produced, strict=True):
        if leaf is previous:
            continue
        try:
            same = np.shape(leaf) == np.shape(previous) and bool(
                jax.numpy.array_equal(leaf, previous, equal_nan=True)
            )
        except RuntimeError:
            continue  # the produced array was donated elsewhere: nothing to compare
        if not same:
            return ZKDVPoisonedError(
                step,
                kind="state",
                detail=(
                    f"the optimizer state given to step {step} is not what step "
                    f"{step - 1} produced (leaf {path!r}): it was changed outside "
                    "the attested step"
                ),
            )
    return None


def element(leaves: Sequence[Any], index: int) -> float:
    """Element ``index`` of the concatenation of ``leaves`` (row-major), as a float."""
    for leaf in leaves:
        size = int(np.prod(np.shape(leaf)))
        if index < size:
            return float(np.asarray(leaf).reshape(-1)[index])
        index -= size
    return 0.0
