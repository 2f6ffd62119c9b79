"""The model zoo's CI entries (``zoo/``, ``docs/zoo.md``): a torch and a Flax model trained
the way their users write the loop, each with every step checked, run through the zoo's own
runner (a subprocess per run).

The honest run must close without a false alarm, with every check inside its tolerance; the
tampered run (a gradient scaled by 1.001 on production's last backward pass, or a parameter
edited between steps) must be poisoned.
"""

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("torch_mlir")
pytest.importorskip("jax")
pytest.importorskip("flax")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from zoo import __main__ as runner  # noqa: E402
from zoo.entries import BY_NAME  # noqa: E402

STEPS = 3


@pytest.mark.parametrize("name", ["transformer-encoder", "flax-nnx-mlp"])
def test_a_zoo_entry_passes_honestly_and_catches_its_tamper(tmp_path, name):
    entry = BY_NAME[name]
    assert entry.ci, f"{name} is not in the --ci subset"
    row = runner.run_entry(entry, STEPS, tmp_path, timeout=300, seal=False)
    honest = row.honest
    assert runner.verdict(row) == "pass", honest.message
    # DEBUGCheckEvery(1): a state and an update check per step, every one inside its bound.
    assert len(honest.step_seconds) == STEPS
    assert honest.checks == 2 * STEPS
    assert honest.worst_margin is not None and honest.worst_margin < 1.0
    assert row.tampered is not None
    assert row.tampered.status == "poisoned", (row.tampered.status, row.tampered.message)
    assert runner.caught(row) == "yes"
    assert name in runner.table([row])


def test_the_footprint_of_a_tamper_is_measured_in_noise_units():
    # Two optimizer-state leaves at the last step: the tamper moved the first by a tenth of its
    # spread per value and left the second alone; the honest run differs from its replay by a
    # quarter of the spread, with a signed mean of one eighth in the first leaf at step 0.
    import numpy as np

    from zoo.footprint import measure

    spread = np.full(1024, 1e-3)
    base = np.linspace(1.0, 2.0, 1024)
    signs = np.array([1, -1] * 512)

    def check(step, first, second):
        return {"step": step, "leaves": [(first, base, spread), (second, base, spread)]}

    honest_first = base + 2.5e-4 * signs
    biased = base + 2.5e-4 * signs + 1.25e-4
    honest = {"checks": [check(0, biased, base), check(1, honest_first, base)]}
    tampered = {"checks": [check(0, biased, base), check(1, honest_first + 1e-4, base)]}
    leaves, bias = measure(honest, tampered)
    assert [leaf.index for leaf in leaves] == [0]
    assert abs(leaves[0].footprint - 0.1) < 1e-6 and abs(leaves[0].noise - 0.25) < 1e-6
    assert abs(bias - 0.125) < 1e-6
