"""The model zoo's CI entries (``zoo/``, ``docs/zoo.md``): a torch and a Flax model trained
the way their users write the loop, each with every step checked, run through the zoo's own
runner (a subprocess per run).

The honest run must close without a false alarm, with every check inside its tolerance; each
tampered run must be poisoned: production's last update of one parameter scaled by the compute
dtype's documented threshold (both frontends), a gradient scaled by the same factor on
production's last backward pass (torch), a parameter edited between steps (JAX).
"""

import argparse
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
from zoo.harness import TAMPERS  # noqa: E402

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
    assert set(row.tampered) == set(TAMPERS[entry.framework])
    for mode, run in row.tampered.items():
        assert run.status == "poisoned", (mode, run.status, run.message)
    assert runner.green(row)
    assert runner.caught(row) == "; ".join(f"{run.tamper}: yes" for run in row.tampered.values())
    assert "update x1.001: yes" in runner.caught(row)
    assert name in runner.table([row])


def test_the_footprint_of_a_tamper_is_measured_in_noise_units():
    # Two optimizer-state leaves (and an update sketch, left out) over steps 0 to 2. At the last
    # step the tamper moved the first leaf by a tenth of its spread per value and left the
    # second alone. The honest run differs from its replay by a quarter of the spread, with a
    # signed mean of one eighth in the first leaf at step 0, and at step 1 by 2% of the first
    # leaf's change over the step.
    import numpy as np

    from zoo.footprint import Record, measure

    spread = np.full(1024, 1e-3)
    base = np.linspace(1.0, 2.0, 1024)
    change = 0.01 * np.array([1, -1] * 512)
    noise = 2.5e-4 * np.array([1, 1, -1, -1] * 256)  # orthogonal to the change

    def check(step, committed, recomputed):
        leaves = [
            Record("update of w", np.ones(4), np.ones(4) * 2, np.ones(4), 0.0),
            Record(
                "optimizer state w/exp_avg",
                committed,
                recomputed,
                spread,
                0.0,
                [("mean", -0.1 * step, 1.0)],
            ),
            Record("optimizer state b/exp_avg", base, base, spread, 0.0),
        ]
        return {"step": step, "leaves": leaves}

    c0 = base + noise + 1.25e-4
    r1 = c0 + change
    c1 = r1 + 0.02 * change
    r2 = c1 + change
    honest = {"checks": [check(0, c0, base), check(1, c1, r1), check(2, r2 + noise, r2)]}
    tampered = {"checks": [*honest["checks"][:2], check(2, r2 + noise + 0.01 * change, r2)]}
    leaves, room = measure(honest, tampered)
    assert [leaf.name for leaf in leaves] == ["optimizer state w/exp_avg"]
    assert abs(leaves[0].footprint - 0.1) < 1e-6 and abs(leaves[0].noise - 0.25) < 1e-6
    # The footprint is a hundredth of the step's change.
    assert abs(leaves[0].along - 1e-2) < 1e-9
    assert abs(room.bias - 0.125) < 1e-6 and room.bias_at == "step 0, optimizer state w/exp_avg"
    assert abs(room.coherence - 0.02) < 1e-9
    assert room.coherence_at == "step 1, optimizer state w/exp_avg"
    # The bias test's statistics as the check recorded them: the largest against its limit.
    (kind, largest), *_ = room.tests.items()
    assert kind == "mean" and largest.value == -0.2 and largest.ratio == 0.2
    assert largest.at == "step 2, optimizer state w/exp_avg"
    # One leaf's figures at every step, as --leaf prints them.
    from zoo.footprint import leaf_report

    lines = leaf_report(tampered, "optimizer state w/exp_avg")
    assert len(lines) == 3 and lines[2].startswith("  step 2: 1024 values")
    assert lines[2].endswith("member scale 0; mean -0.2 of 1")
    assert leaf_report(tampered, "nothing") == []


def test_the_torch_update_tamper_scales_the_update_and_refuses_to_change_nothing():
    import torch

    from zoo.harness import _scaled_update

    parameter = torch.nn.Parameter(torch.ones(3))
    with _scaled_update(parameter, 0.1), torch.no_grad():
        parameter.sub_(torch.tensor([1.0, 2.0, 0.0]))
    assert torch.allclose(parameter.detach(), torch.tensor([1 - 1.1, 1 - 2.2, 1.0]))
    with pytest.raises(RuntimeError, match="changed nothing"), _scaled_update(parameter, 0.1):
        pass


def test_the_jax_update_fault_scales_the_first_leaf_at_its_step_only():
    import jax.numpy as jnp
    import numpy as np

    from zoo.harness import _scaled_update_fault

    fault = _scaled_update_fault({"a": jnp.ones(2), "b": jnp.zeros(1)}, 3, 0.1)
    parts = {"post_params": [jnp.array([2.0, 1.0]), jnp.ones(1)]}
    fault(2, parts)
    assert np.array_equal(parts["post_params"][0], [2.0, 1.0])
    fault(3, parts)
    np.testing.assert_allclose(parts["post_params"][0], [2.1, 1.0], rtol=1e-6)
    assert np.array_equal(parts["post_params"][1], [1.0])
    with pytest.raises(RuntimeError, match="changed nothing"):
        fault(3, {"post_params": [jnp.ones(2)]})


def test_an_entry_is_green_only_when_it_passes_honestly_and_every_tamper_is_caught():
    from zoo.harness import RunOutcome

    def row(name, honest, *tampers):
        runs = {mode: RunOutcome(status=s, tamper=mode) for mode, s in tampers}
        return runner.Row(BY_NAME[name], RunOutcome(status=honest), runs, STEPS)

    rows = [
        row("gpt2", "closed", ("update", "poisoned"), ("gradient", "poisoned")),
        row("llama", "closed", ("update", "poisoned"), ("gradient", "closed")),
        row("qwen2", "poisoned"),
        row("gpt2-bf16", "closed", ("update", "poisoned"), ("gradient", "poisoned")),
        row("llama-bf16", "error"),
    ]
    assert [runner.green(r) for r in rows] == [True, False, False, True, False]
    assert [runner.green(r, ("update",)) for r in rows] == [True, True, False, True, False]
    assert runner.caught(rows[1]) == "update: yes; gradient: no (closed cleanly; worst margin -)"
    assert runner.caught(rows[2]) == "n.a."
    assert runner.summary(rows) == (
        "Honest pass and the update tamper caught: 2 of 3 in f32, 1 of 2 in bf16/f16; "
        "and every tamper caught: 1 of 3 in f32, 1 of 2 in bf16/f16. "
        "False alarms: 1 of 5 honest runs."
    )


def test_a_missed_tamper_is_retried_larger_until_one_is_caught(monkeypatch, tmp_path):
    from zoo.harness import RunOutcome

    # A fake run: the tamper is caught from a relative size of 3 (x4) on.
    sizes = []

    def run_once(entry, mode, steps, work, timeout, seal, retain=False, size=None):
        sizes.append(size)
        return RunOutcome(status="poisoned" if size is not None and size >= 3 else "closed")

    monkeypatch.setattr(runner, "run_once", run_once)
    entry = BY_NAME["gpt2-bf16"]
    assert runner.resolution(entry, "gradient", STEPS, tmp_path, 1.0) == "caught from x4"
    assert sizes == [1.0, 3.0]
    sizes.clear()
    monkeypatch.setattr(runner, "RESOLVE_FACTORS", (2.0,))
    assert runner.resolution(entry, "gradient", STEPS, tmp_path, 1.0) == "not caught up to x2"
    row = runner.Row(
        entry,
        RunOutcome(status="closed"),
        {"gradient": RunOutcome(status="closed", tamper="gradient x1.1")},
        STEPS,
        resolved={"gradient": "caught from x4"},
    )
    assert runner.caught(row) == (
        "gradient x1.1: no (closed cleanly; worst margin -), caught from x4"
    )


def test_both_torch_tampers_take_the_size_of_the_entrys_compute_dtype():
    from zoo.harness import describe, update_size

    sizes = {p: update_size(p) for p in ("f32", "bf16 autocast", "f16 dtype")}
    assert sizes == {"f32": 1e-3, "bf16 autocast": 1e-1, "f16 dtype": 1e-2}
    assert describe("update", sizes["bf16 autocast"]) == "update x1.1"
    assert describe("gradient", sizes["bf16 autocast"]) == "gradient x1.1"
    assert describe("gradient", sizes["f32"]) == "gradient x1.001"


def _two_layer_recipe(autocast, momentum=0.9, clip=1.0):
    import torch
    from torch import nn

    from zoo.harness import TorchRecipe

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    generator = torch.Generator().manual_seed(1)
    batches = [
        ((torch.randn(8, 16, generator=generator), torch.randint(4, (8,), generator=generator)),)
        for _ in range(3)
    ]

    def loss(forward, batch):
        x, y = batch
        return nn.functional.cross_entropy(forward(x).float(), y)

    return TorchRecipe(
        model=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum),
        batches=batches,
        loss=loss,
        tamper_parameter=model[0].weight,
        clip=clip,
        autocast=autocast,
    )


def test_conditioning_measures_what_a_precision_does_to_the_tampered_parameter():
    import torch

    from zoo.conditioning import measure

    f32 = measure(_two_layer_recipe(None), 1e-3)
    bf16 = measure(_two_layer_recipe(torch.bfloat16), 0.1)
    assert (f32.parameter, f32.values) == ("0.weight", 512)
    # float32 is a few of its own ulps from the float64 reference (the update, recovered as
    # post - pre, also carries the rounding of post), and a relative nudge of 2^-20 to every
    # parameter moves this well-conditioned step by about as much.
    assert f32.gradient_error < 1e-6 and f32.update_error < 1e-5
    assert 1e-8 < f32.gradient_sensitivity < 1e-5
    # bf16 autocast rounds the forward pass to 2^-8: far from the reference, far below 10%.
    assert 1e-4 < bf16.gradient_error < 0.05 and 1e-4 < bf16.update_error < 0.05
    # Under momentum the last gradient is only part of the update, and clipping shares out
    # the norm the tamper adds: the gradient tamper moves the update by less than its size.
    assert 0 < f32.gradient_tamper_footprint < 1e-3
    assert 0 < bf16.gradient_tamper_footprint < 0.1


def test_without_momentum_or_clipping_the_gradient_tamper_moves_the_update_by_its_size():
    from zoo.conditioning import measure

    plain = measure(_two_layer_recipe(None, momentum=0.0, clip=None), 0.1)
    # SGD's update is -lr times the gradient: scaling the gradient by 1.1 scales the update.
    assert abs(plain.gradient_tamper_footprint - 0.1) < 1e-5


def test_a_torch_entrys_seed_draws_other_weights_and_data_and_zero_draws_the_tables(
    monkeypatch,
):
    import torch

    from zoo.torch_entries import SEED_VARIABLE, _generator, _seed

    monkeypatch.delenv(SEED_VARIABLE, raising=False)
    table = torch.randn(4, generator=_generator())
    assert _seed() == 0
    assert torch.equal(table, torch.randn(4, generator=torch.Generator().manual_seed(1)))
    monkeypatch.setenv(SEED_VARIABLE, "2")
    assert _seed() == 2
    assert not torch.equal(table, torch.randn(4, generator=_generator()))


def test_the_scale_tier_runs_only_when_asked_for():
    def names(**given: object) -> list[str]:
        args = argparse.Namespace(**{"only": None, "ci": False, "scale": False, **given})
        return [entry.name for entry in runner.select(args)]

    scale = ["gpt2-124m", "gpt2-124m-bf16", "flax-lm1b-124m", "flax-lm1b-124m-bf16"]
    assert not set(scale) & set(names()) and not set(scale) & set(names(ci=True))
    assert names(scale=True) == scale
    assert names(only=["gpt2-124m"]) == ["gpt2-124m"]
    assert BY_NAME["gpt2-124m"].scale and not BY_NAME["gpt2"].scale


def test_a_whole_zoo_run_keeps_the_pages_own_text():
    # docs/zoo.md is the one source of the page's text: a run rewrites only the results.
    text = (Path(__file__).resolve().parents[2] / "docs" / "zoo.md").read_text()
    page = runner.page([], 4, 60.0)
    head = text[: text.index("\n## Results\n") + 1]
    assert page.startswith(head + "## Results\n\n4 steps per run; 0 entries")


def test_a_checkout_without_the_page_writes_the_results_under_a_bare_title(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    page = runner.page([], 4, 60.0)
    assert page.startswith("# The model zoo\n\n## Results\n\n4 steps per run; 0 entries")
