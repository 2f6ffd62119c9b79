"""An update check's comparison, shared by the frontends.

The attested program (the fixed ABI ``(params, opt_state, batch, parameter_index,
optimizer_state_index) -> (delta, post_opt_state)``) runs in the Rust runtime on the rebuilt
pre-state and the challenged indices (:func:`recompute`). When a recomputed value falls outside
the fixed bound ``abs + rel * |c|``, the program's perturbation ensemble measures its spread
(docs/protocol.md, the tolerance rule) and the verdict allows ``spread * s`` more
(:func:`verdict`). Nothing here knows a framework: the frontends hand in numpy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from zkdv import runtime
from zkdv.checks import CheckResult
from zkdv.config import Tolerance

__all__ = ["MAX_OPS", "recompute", "state_result", "verdict"]

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
    ``always_measure_spread``) and the tolerance asks for replays."""
    values = len(committed)

    def run(member: int | None = None) -> list[float]:
        result = attested.run(list(arguments), max_ops=MAX_OPS, ensemble=member)
        return [float(np.asarray(r).reshape(())) for r in result[:values]]

    recomputed = run()
    spread: list[float] = []
    if tolerance.replays and (
        always_measure_spread or verdict(tolerance, committed, recomputed) == "fail"
    ):
        spread = [0.0] * values
        for member in range(tolerance.replays):
            for k, v in enumerate(run(member)):
                spread[k] = max(spread[k], ensemble_difference(v, recomputed[k]))
    return recomputed, spread


def ensemble_difference(member: Any, nominal: Any) -> Any:
    """What an ensemble member adds to a value's spread (``Tolerance::ensemble_difference``,
    elementwise over arrays): ``|member - nominal|``, or 0 where that is not finite (a member
    that overflows measures no rounding; an infinite spread would accept anything)."""
    with np.errstate(invalid="ignore", over="ignore"):
        difference = np.abs(np.asarray(member, np.float64) - np.asarray(nominal, np.float64))
    out = np.where(np.isfinite(difference), difference, 0.0)
    return float(out) if out.ndim == 0 else out


def verdict(
    tolerance: Tolerance,
    committed: Sequence[float],
    recomputed: Sequence[float],
    spread: Sequence[float] | None = None,
) -> Literal["pass", "fail"]:
    """``"pass"`` when every recomputed value is within the tolerance of the committed one."""
    outside = tolerance.first_outside(
        np.asarray(committed, np.float64),
        np.asarray(recomputed, np.float64),
        np.asarray(spread, np.float64) if spread else None,
    )
    return "pass" if outside is None else "fail"


def state_result(
    step: int,
    committed: np.ndarray,
    recomputed: np.ndarray,
    tolerance: Tolerance,
    replay_length: int,
    spread: np.ndarray | None = None,
) -> CheckResult:
    """A state check's record: the first pair out of tolerance, else the worst pair.

    The comparison is the one ``Tolerance.accepts`` makes (``|c - r| <= abs + rel * |c| +
    spread * s``, a NaN never passes), vectorized over every sketch value of the replay;
    ``spread`` (one value per sketch value, from the replay program's perturbation ensemble)
    is given only when the replay is another program than production's.
    """
    if committed.size == 0:
        committed, recomputed = np.zeros(1), np.zeros(1)
    outside = tolerance.first_outside(committed, recomputed, spread)
    if outside is not None:
        at = outside
    else:
        # Every pair passed: report the one closest to its bound (non-finite pairs, equal by
        # the rule, have no distance to it).
        allowed = tolerance.abs + tolerance.rel * np.abs(committed)
        if spread is not None:
            allowed = allowed + tolerance.spread * spread
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.where(allowed > 0, np.abs(committed - recomputed) / allowed, 0.0)
        at = int(np.argmax(np.where(np.isfinite(ratio), ratio, 0.0)))
    c, r = float(committed[at]), float(recomputed[at])
    s = () if spread is None else (float(spread[at]),)
    return CheckResult(
        step=step,
        kind="state",
        indices=(),
        committed=(c,),
        recomputed=(r,),
        tolerance=tolerance,
        verdict=verdict(tolerance, [c], [r], list(s)),
        replay_length=replay_length,
        spread=s,
    )
