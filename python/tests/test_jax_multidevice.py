"""Multi-device steps: 4 host devices, data-parallel and tensor-parallel ``NamedSharding``.

Each case runs in a subprocess, because ``--xla_force_host_platform_device_count`` must be set
before JAX initializes its backend. A run must keep every parameter's and optimizer leaf's
layout, commit one logical update per step and pass every check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import jax, numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P
    import zkdv, jax_steps

    mode, out = sys.argv[1], sys.argv[2]
    assert len(jax.devices()) == 4
    # Auto axes: on a mesh of explicit axes (make_mesh's default) jax.jit itself refuses this
    # step with a row-sharded batch (its cross-entropy's scatter has an ambiguous sharding).
    mesh = jax.make_mesh((4,), ("d",), axis_types=(jax.sharding.AxisType.Auto,))
    policy = zkdv.SamplingPolicy.DEBUGCheckEvery(1)
    proof = zkdv.jax.ZKDV(out, zkdv.ZKDVConfig(sampling_policy=policy), replay_snapshot_interval=3)
    proof.start(rolling_window=2, probe_ratio=0.1)
    state, batches = jax_steps.mlp(proof, features=8, batch=16, hidden=16)
    if mode == "data":
        # Replicated state, batch sharded over its rows.
        state = jax.device_put(state, NamedSharding(mesh, P()))
        batch_sharding = NamedSharding(mesh, P("d"))
    else:
        # Every leaf whose last dimension divides by 4 is split over it (tensor parallel).
        def spec(x):
            if np.ndim(x) and np.shape(x)[-1] % 4 == 0:
                return NamedSharding(mesh, P(*([None] * (np.ndim(x) - 1)), "d"))
            return NamedSharding(mesh, P())
        state = jax.device_put(state, jax.tree.map(spec, state))
        batch_sharding = NamedSharding(mesh, P())
    def normal(spec):  # P(None,) and P() are the same layout
        spec = list(spec)
        while spec and spec[-1] is None:
            spec.pop()
        return str(spec)
    specs = lambda tree: [normal(x.sharding.spec) for x in jax.tree.leaves(tree)]
    before = (specs(state.params), specs(state.opt_state))
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    for x, y in batches(7):
        x, y = jax.device_put(x, batch_sharding), jax.device_put(y, batch_sharding)
        state, loss = step(state, x, y)
    after = (specs(state.params), specs(state.opt_state))
    proof.close()
    report = zkdv.transcript.verify(out)
    print(json.dumps({"before": before, "after": after, "report": report}))
    """
)


@pytest.mark.parametrize("mode", ["data", "tensor"])
def test_sharded_steps_keep_layouts_and_pass_checks(tmp_path, mode):
    env = dict(os.environ)
    env["XLA_FLAGS"] = (
        env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
    ).strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, str(tmp_path / "proof")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["before"] == data["after"]
    if mode == "tensor":
        assert any("'d'" in spec for spec in data["before"][0] + data["before"][1])
    report = data["report"]
    assert report["steps"] == 7
    # One logical update per step: one step record each, all checks pass.
    assert report["checks"] == {
        "state_passed": 7,
        "state_failed": 0,
        "update_passed": 7,
        "update_failed": 0,
    }
