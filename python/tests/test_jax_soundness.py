"""Soundness at small sizes: honest mixed-precision runs raise no false alarm, faults are caught.

The same model families and faults as ``scripts/bench soundness`` (which reports the figures of
``docs/soundness.md`` at full size), run for a few steps with every step checked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "studies"))
import soundness  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402


@pytest.mark.parametrize(
    ("family", "dtype"),
    [
        ("decoder", "bf16"),  # clipping, AdamW, gradient accumulation in a fori_loop
        ("cnn-batchnorm", "bf16"),
        # f32: a conv bias before BatchNorm has a gradient that is zero in exact arithmetic
        # (pure rounding noise, which Adam normalizes); a fixed tolerance failed here.
        ("cnn-batchnorm", "f32"),
        ("top-k", "bf16"),
        ("rnn-scan", "f16"),
    ],
)
def test_honest_runs_raise_no_false_alarm(tmp_path, family, dtype):
    result = soundness.honest(family, dtype, 16, tmp_path)
    assert result.failed is None, result.failed
    assert result.checks == 32
    # The margin to a false alarm: at least 4x on these few steps (the benchmark measures more).
    assert max(result.margins.values()) < 0.25, result.margins
    report = transcript.verify(tmp_path / f"{family}-{dtype}")
    assert report["checks"]["update_failed"] == report["checks"]["state_failed"] == 0


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize(
    ("fault", "r"),
    [("update", 1.0), ("params", 1e-2), ("opt-state", 1e-2), ("batch", 0.0)],
)
def test_faults_are_caught_every_step_checked(tmp_path, dtype, fault, r):
    # The update fault is seen only when a check draws a coordinate of the faulty leaf where
    # the fault exceeds the bound (about 54% in bf16, docs/soundness.md): 15 faulty steps
    # miss it with probability below 1e-5. The other faults are caught deterministically.
    run = soundness.FaultRun(tmp_path, dtype, soundness.EVERY)
    assert run.run(20, fault, r), f"{fault} x{r} was not caught"


def test_an_optimizer_state_edit_just_before_a_snapshot_is_caught(tmp_path):
    # Before step 8, a snapshot step (interval 4): the snapshot would hold the edited state.
    run = soundness.FaultRun(tmp_path, "f32", soundness.EVERY)
    assert run.run(10, "opt-state", 1.0, at=7)
    failure = run.proof._flow.failure
    assert isinstance(failure, zkdv.ZKDVPoisonedError) and failure.step == 8
    assert "optimizer state given to step 8" in str(failure)


def test_the_honest_fault_model_is_not_flagged(tmp_path):
    run = soundness.FaultRun(tmp_path, "bf16", soundness.EVERY)
    assert not run.run(12, "none", 0.0)
