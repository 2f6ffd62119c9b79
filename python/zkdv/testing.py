"""Hooks for testing ZKDV itself and for studying what it catches: never for a training run.

A test suite, a benchmark or a soundness study sometimes needs a session that behaves as a
dishonest or faulty machine would, or one that skips work no test of its own needs. These
hooks are the supported way to ask for that; each names what it changes, and what a
transcript it produced is worth.

>>> import zkdv.testing
>>> sorted(name for name in zkdv.testing.__all__)
['corrupt_production', 'skip_seal']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["corrupt_production", "skip_seal"]

ProductionHook = Callable[[int, dict[str, list[Any]]], None]
"""``hook(step, outputs)``: ``outputs`` maps each role (``post_params``, ``post_opt_state``,
``user``, ``sketches``) to the production program's arrays of that role at ``step``."""


def skip_seal(proof: Any) -> None:
    """Have a PyTorch session skip sealing its AOT Inductor package.

    Sealing compiles production's step with AOT Inductor (tens of seconds, minutes at GPT-2
    small's size) so that the transcript holds the exact bytes that trained. Without it, the
    program record names the exported StableHLO step as production. Checks and audits replay
    the same programs either way, so a test of anything else can skip it; a run whose
    transcript a third party will audit should not.

    Call it after constructing the session and before its first transaction.

    Raises:
        TypeError: ``proof`` is not a ``zkdv.torch.ZKDV`` session.
        RuntimeError: the session's first transaction already ran.
    """
    if not hasattr(proof, "_seal_package"):
        raise TypeError(f"skip_seal: {type(proof).__name__} is not a zkdv.torch.ZKDV session")
    if getattr(proof, "_program", None) is not None:
        raise RuntimeError("skip_seal: the first transaction already sealed (or skipped) it")
    proof._seal_package = False


def corrupt_production(proof: Any, hook: ProductionHook | None) -> None:
    """Have a JAX session pass each step's production outputs to ``hook`` before committing.

    ``hook(step, outputs)`` may replace arrays in ``outputs`` (:data:`ProductionHook`): the
    session then commits and carries on from what the hook left, as a machine that computed
    them would. This is how a test simulates an execution fault or a prover that edits its
    update; the checks are meant to catch it. ``None`` removes the hook.

    Raises:
        TypeError: ``proof`` is not a ``zkdv.jax.ZKDV`` session.
    """
    if not hasattr(proof, "_fault_hook"):
        raise TypeError(
            f"corrupt_production: {type(proof).__name__} is not a zkdv.jax.ZKDV session"
        )
    proof._fault_hook = hook
