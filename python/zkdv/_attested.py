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
from typing import Literal

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
                spread[k] = max(spread[k], abs(v - recomputed[k]))
    return recomputed, spread


def verdict(
    tolerance: Tolerance,
    committed: Sequence[float],
    recomputed: Sequence[float],
    spread: Sequence[float] | None = None,
) -> Literal["pass", "fail"]:
    """``"pass"`` when every recomputed value is within the tolerance of the committed one."""
    spreads = spread or [0.0] * len(committed)
    ok = all(
        tolerance.accepts(c, r, s) for c, r, s in zip(committed, recomputed, spreads, strict=True)
    )
    return "pass" if ok else "fail"


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
    allowed = tolerance.abs + tolerance.rel * np.abs(committed)
    if spread is not None:
        allowed = allowed + tolerance.spread * spread
    difference = np.abs(committed - recomputed)
    failing = np.flatnonzero(~(difference <= allowed))
    if failing.size:
        at = int(failing[0])
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(allowed > 0, difference / allowed, 0.0)
        at = int(np.argmax(ratio))
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
