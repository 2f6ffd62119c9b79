"""A bf16 momentum accumulator (``optax.sgd(momentum=0.9, accumulator_dtype=bfloat16)``):
the honest run passes every check, and a tampered momentum is caught.

The same model and tampers as ``scripts/studies/narrow_state.py`` (the figures of
``docs/soundness.md``, "Narrow optimizer state"), at one seed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")
pytest.importorskip("ml_dtypes")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "studies"))
import narrow_state  # noqa: E402


def test_an_honest_bf16_momentum_run_passes_every_check(tmp_path):
    result = narrow_state.honest("bf16", seeds=1, steps=8, directory=tmp_path)
    assert result.failed == []
    assert result.checks == 16
    # Against the whole bound (the spread always measured) the worst pair is far from 1.
    assert max(result.whole) < 0.25, result.whole
    # Every momentum value's bound is at least 32 bf16 ulps (its spread is at least one ulp).
    assert min(b for _, _, b, _ in result.momentum) >= 32 * 0.99


def test_a_momentum_scaled_by_ten_percent_after_the_last_step_is_caught(tmp_path):
    _, failure = narrow_state.train("bf16", 0, 8, tmp_path, tamper="momentum", r=0.1)
    assert failure is not None and failure.startswith("state/closure at step 8"), failure
