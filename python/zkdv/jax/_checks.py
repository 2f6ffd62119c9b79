"""The JAX session's replay of a step and its continuity checks.

:func:`replay` rebuilds a step for its sampled checks (:class:`zkdv.session.CheckJob`, whose
payload is the :class:`~zkdv.jax._snapshots.SegmentView` the step belongs to): the pre-state is
rebuilt by replaying the production program from the segment's snapshot over the retained
batches (each step with the program it ran), then the step itself is replayed; its update
sketches are what a state check compares, and its update coordinate what an update check reads.
The replay is production's own compiled program, so a state check allows no ensemble spread.

The continuity checks need no sampling: :func:`compare_state` compares a snapshot's exact
parameter sketches with the ones accumulated from the committed updates, and
:func:`opt_state_discontinuity` compares the optimizer state a step receives with what the
previous step produced. :func:`closure` is exact where the other two must allow for rounding:
it replays a whole segment and compares the state it ends in, value for value, with the state
production delivered there (at ``close()``, and at a snapshot whose segment's last step sampled
a state check), on a backend that computes the same bits each time (:func:`deterministic`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from zkdv import hashing
from zkdv.checks import ZKDVPoisonedError
from zkdv.config import Tolerance
from zkdv.jax._program import StepOutputs, StepProgram, sketched
from zkdv.jax._snapshots import SegmentView
from zkdv.session import CheckJob, Replayed, StateReplay
from zkdv.session._checker import element

__all__ = ["closure", "compare_state", "deterministic", "opt_state_discontinuity", "replay"]


def replay(job: CheckJob[SegmentView], rolling_window: int) -> Replayed:
    """Rebuild ``job``'s step from its segment and replay it (see the module's description).

    A retained batch that no longer matches its commitment is reported in
    :attr:`Replayed.altered` (the checks then fail after their records are written).
    """
    segment, t = job.payload, job.step
    replay_length = t - segment.step
    altered = [
        segment.step + j
        for j, (b, root) in enumerate(zip(segment.batches, segment.batch_roots, strict=True))
        if hashing.commit_batch(b, rolling_window).root != root
    ]
    # Rebuild the pre-state of t with the replay variant of the production program (the same
    # module, with the update kept as an output); then run step t itself, whose update sketches
    # a state check compares and whose update coordinate an update check reads. Each step
    # replays with the program it ran (its batch layout may differ from t's).
    programs = segment.programs
    state = programs[0].program.placement.put_state(segment.state)
    committed_sketches: list[np.ndarray] = []
    recomputed_sketches: list[np.ndarray] = []
    pre_state: list[np.ndarray] = [np.asarray(x) for x in segment.state]
    deltas: list[Any] = []
    for j in range(replay_length + 1):
        if j == replay_length:
            # Copies: the next call donates the parameter buffers.
            pre_state = [np.array(x) for x in state]
        parts = _replay_step(programs[j], state, segment.batches[j])
        deltas = parts["deltas"]
        # The replay's sketches come joined, of the sketched leaves only (as production's).
        avals = programs[j].program.param_avals
        committed_sketches += [
            s.reshape(-1)
            for s, aval in zip(segment.updates[j], avals, strict=True)
            if sketched(aval)
        ]
        recomputed_sketches += [np.asarray(s).reshape(-1) for s in parts["sketches"]]
        state = parts["post_params"] + parts["post_opt_state"]
    state_replay = None
    if job.state:
        state_replay = StateReplay(
            np.concatenate(committed_sketches).astype(np.float64),
            np.concatenate(recomputed_sketches).astype(np.float64),
        )
    return Replayed(
        pre_state=pre_state,
        batch=[segment.batches[replay_length]],
        replay_length=replay_length,
        state=state_replay,
        committed=(element(deltas, job.indices[0]),) if job.indices else (),
        altered=altered,
    )


def _replay_step(registered: Any, state: list[Any], batch: np.ndarray) -> StepOutputs:
    """One step of the replay variant of ``registered``'s program (a
    :class:`~zkdv.jax._session.RegisteredProgram`) from ``state`` (parameters, then optimizer
    state; the call donates the parameter buffers) over the packed ``batch``."""
    ran: StepProgram = registered.program
    outputs = ran.replay(
        *state[: ran.n_params],
        *state[ran.n_params :],
        ran.placement.put_small(batch),
        *registered.weights,
    )
    return ran.split_outputs(outputs, deltas=True)


def deterministic(leaf: Any) -> bool:
    """Whether XLA computes the same bits each time it runs one of zkdv's programs on
    ``leaf``'s devices.

    XLA on CPU does (same executable, same inputs, same bits; measured on every JAX zoo entry,
    the replay variant against production). On a GPU, zkdv compiles its programs with XLA's
    deterministic ops (:attr:`zkdv.jax._program.Placement.compiler_options`), without which
    scatters and some reductions add with atomics in an order that changes from run to run.
    Other backends are not assumed to.
    """
    try:
        platforms = {d.platform for d in leaf.sharding.device_set}
    except AttributeError:
        return False
    return bool(platforms) and platforms <= {"cpu", "gpu", "cuda", "rocm"}


def closure(
    view: SegmentView,
    step: int,
    paths: Sequence[str],
    delivered: Sequence[np.ndarray],
) -> ZKDVPoisonedError | None:
    """Replay every step of ``view``'s segment from its snapshot and compare the state it ends
    in with ``delivered``, the whole state (parameters, then optimizer state, named by
    ``paths``) that production delivered at ``step``, the end of the segment.

    The replay variant is production's own module and, on a deterministic backend
    (:func:`deterministic`), computes production's bits: any difference is a change that the
    committed steps do not explain, however small (a parameter moved by a few ulps, which the
    sketch comparison of :func:`compare_state` must allow for rounding). Values compare as
    numbers (``-0.0`` equals ``0.0``; a NaN equals a NaN).

    Returns the failure at the first differing element, or ``None``.
    """
    if not view.programs:
        return None
    state = view.programs[0].program.placement.put_state(view.state)
    for registered, batch in zip(view.programs, view.batches, strict=True):
        parts = _replay_step(registered, state, batch)
        state = parts["post_params"] + parts["post_opt_state"]
    for path, replayed, actual in zip(paths, state, delivered, strict=True):
        replayed = np.asarray(replayed)
        if replayed.shape != actual.shape:
            differs = np.ones(actual.shape, dtype=bool)
        else:
            differs = replayed != actual
            if np.issubdtype(actual.dtype, np.inexact) or actual.dtype.kind == "V":
                differs &= ~(np.isnan(replayed) & np.isnan(actual))
        if not np.any(differs):
            continue
        where = int(np.flatnonzero(differs.reshape(-1))[0])
        got = actual.reshape(-1)[where] if actual.size else None
        want = replayed.reshape(-1)[where] if replayed.size > where else None
        detail = (
            f"the state delivered at step {step} is not what the committed steps "
            f"{view.step}..{step - 1} compute from the snapshot at step {view.step}: leaf "
            f"{path!r}, element {where}: replayed {want!r}, delivered {got!r} "
            f"({int(np.count_nonzero(differs))} of {differs.size} elements differ); the "
            "state was changed outside the attested step, or production did not run its own "
            "program"
        )
        return ZKDVPoisonedError(step, kind="state", detail=detail)
    return None


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

    Every step rounds ``post = pre + delta`` and sums its sketch in float32. XLA fuses the
    addition with the update's last product, so ``|post - pre - delta|`` reaches
    ``(ulp(post) + ulp(delta)) / 2`` (measured on the zoo's JAX programs), at most
    ``2^-23 * max|p|`` per coordinate; the accumulated sketches then drift from the exact ones
    by about ``t * 2^-22 * sqrt(b) * max|p|`` after ``t`` steps (``b`` coordinates per probe
    column) when the roundings do not line up, and the allowed difference adds the session
    tolerance to that. It is a bound for rounding, not for a change of a few ulps:
    :func:`closure` is the exact comparison.

    Returns the failure of the first leaf out of bounds, or ``None``.
    """
    for path, x, s_exact, s_acc in zip(paths, params, exact, accumulated, strict=True):
        probe_map = probe(path, tuple(x.shape))
        if probe_map.k == 0:
            continue  # an empty last dimension: no sketch, nothing that could drift
        block = math.ceil(probe_map.d / probe_map.k)
        # Exact in any float dtype; over the finite coordinates (non-finite parameters, after a
        # NaN in a batch, have sketches that agree only with themselves, and no drift).
        finite = np.abs(x[np.isfinite(x)]) if x.size else x
        scale = float(np.max(finite)) if finite.size else 0.0
        drift = state_steps * 2.0**-22 * math.sqrt(block) * scale
        # The session's rule (non-finite values agree only with themselves), its absolute
        # term widened by the accumulation drift.
        widened = dataclasses.replace(tolerance, abs=tolerance.abs + drift)
        outcome = widened.compare(s_acc, s_exact)
        if outcome is not None and not outcome.passed:
            detail = (
                f"the parameter state at step {step} does not follow from the committed "
                f"updates: leaf {path!r}, sketch value #{outcome.index}: accumulated "
                f"{outcome.committed!r}, actual {outcome.recomputed!r} (allowed difference "
                f"{outcome.allowed!r}); the parameters were changed outside the attested step"
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
