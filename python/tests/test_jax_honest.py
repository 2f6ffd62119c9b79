"""Honest runs: 300 steps with every step checked (probability 1) raise no false alarm.

Prints (``pytest -s``) the largest observed ``|committed - recomputed| / allowed difference``
over all checks of each run (:meth:`zkdv.CheckResult.margin`): the margin to a false alarm
(1.0). ``python/tests/test_jax_soundness.py`` and ``scripts/bench soundness`` do the same for
mixed precision.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import jax_steps  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

STEPS = 300
ALWAYS_CHECKED = zkdv.SamplingPolicy(state_check_probability=1.0, update_check_probability=1.0)


def worst_ratio(checks: list[zkdv.CheckResult]) -> float:
    return max((check.margin() for check in checks), default=0.0)


@pytest.mark.parametrize("model", ["mlp", "transformer"])
def test_300_honest_steps_at_probability_one_raise_no_false_alarm(tmp_path, model):
    proof = zkdv.jax.ZKDV(
        tmp_path / "proof",
        zkdv.ZKDVConfig(sampling_policy=ALWAYS_CHECKED),
        replay_snapshot_interval=4,
    )
    proof.start(rolling_window=2, probe_ratio=0.01)
    state, batches = getattr(jax_steps, model)(proof)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    for x, y in batches(STEPS):
        state, _ = step(state, x, y)
    proof.close()
    report = transcript.verify(tmp_path / "proof")
    assert report["checks"] == {
        "state_passed": STEPS,
        "state_failed": 0,
        "update_passed": STEPS,
        "update_failed": 0,
    }
    ratio = worst_ratio(proof.checks)
    print(
        f"\n{model}: {STEPS} steps, {len(proof.checks)} checks, worst |diff|/tolerance {ratio:.3g}"
    )
    assert ratio <= 1.0
