"""``zkdv.jax.contrib.TrainState`` behaves like Flax's ``TrainState`` where users rely on it.

Flax's own recipes subclass ``TrainState`` with fields that have no default (``batch_stats``
for BatchNorm), ``replace`` it, serialize it with ``flax.serialization`` and checkpoint it
with orbax. Each test does the same with a Flax ``TrainState`` subclass beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import flax.linen as nn  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from flax import serialization  # noqa: E402
from flax.training import train_state  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "studies"))
import soundness  # noqa: E402

EVERY = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))


class BatchNormState(zkdv.jax.contrib.TrainState):
    """The BatchNorm recipe of Flax's documentation, on the contrib state."""

    batch_stats: Any


class FlaxBatchNormState(train_state.TrainState):
    batch_stats: Any


class Cnn(nn.Module):
    """A small CNN with BatchNorm (the Flax BatchNorm guide's shape of model)."""

    @nn.compact
    def __call__(self, x: jax.Array, train: bool) -> jax.Array:
        x = nn.Conv(8, (3, 3))(x)
        x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
        x = nn.relu(x)
        x = x.mean(axis=(1, 2))
        return nn.Dense(4)(x)


def init(model: Cnn) -> dict[str, Any]:
    return model.init(jax.random.key(0), jnp.zeros((1, 8, 8, 1)), train=False)


def batches(n: int):
    rng = np.random.default_rng(0)
    for _ in range(n):
        x = rng.normal(size=(8, 8, 8, 1)).astype(np.float32)
        yield x, (x.mean(axis=(1, 2, 3)) > 0).astype(np.int32)


# The step of Flax's BatchNorm guide (mutable ``batch_stats``, replaced after the update), as
# the soundness benchmark trains it.
train_step = soundness.batch_norm_step


def test_a_subclass_may_add_a_field_without_a_default(tmp_path):
    proof = zkdv.jax.ZKDV(tmp_path / "proof")
    model = Cnn()
    variables = init(model)
    state = BatchNormState.create(
        proof=proof,
        apply_fn=model.apply,
        params=variables["params"],
        tx=optax.adam(1e-3),
        batch_stats=variables["batch_stats"],
    )
    assert state.proof is proof and state.batch_stats is variables["batch_stats"]
    # Missing it is the same error as with Flax's own subclass.
    with pytest.raises(TypeError, match="batch_stats"):
        BatchNormState.create(
            proof=proof, apply_fn=model.apply, params=variables["params"], tx=optax.adam(1e-3)
        )
    with pytest.raises(TypeError, match="batch_stats"):
        FlaxBatchNormState.create(
            apply_fn=model.apply, params=variables["params"], tx=optax.adam(1e-3)
        )


def test_batch_norm_statistics_train_under_proof_jit_with_every_step_checked(tmp_path):
    proof = zkdv.jax.ZKDV(tmp_path / "proof", EVERY, replay_snapshot_interval=3)
    proof.start(rolling_window=2, probe_ratio=0.01)
    model = Cnn()
    variables = init(model)
    common = dict(apply_fn=model.apply, params=variables["params"], tx=optax.adam(1e-2))
    state = BatchNormState.create(proof=proof, batch_stats=variables["batch_stats"], **common)
    # Its own buffers: the proved step donates the parameters of the state it is given.
    flax_state = jax.tree.map(
        jnp.copy, FlaxBatchNormState.create(batch_stats=variables["batch_stats"], **common)
    )
    proved = proof.jit(train_step, donate_argnums=(0,))
    plain = jax.jit(train_step)
    for x, y in batches(8):
        state = proved(state, x, y)
        flax_state = plain(flax_state, x, y)
    proof.close()
    # The same training as Flax's state under jax.jit, statistics included.
    jax.tree.map(np.testing.assert_array_equal, state.params, flax_state.params)
    jax.tree.map(np.testing.assert_array_equal, state.batch_stats, flax_state.batch_stats)
    assert not np.allclose(state.batch_stats["BatchNorm_0"]["mean"], 0.0)
    assert int(state.step) == 8
    checks = transcript.verify(tmp_path / "proof")["checks"]
    assert checks["update_passed"] == checks["state_passed"] == 8
    assert checks["update_failed"] == checks["state_failed"] == 0


def test_tree_structure_replace_serialization_and_orbax_match_flax(tmp_path):
    ocp = pytest.importorskip("orbax.checkpoint")
    proof = zkdv.jax.ZKDV(tmp_path / "proof")
    model = Cnn()
    variables = init(model)
    common = dict(apply_fn=model.apply, params=variables["params"], tx=optax.adam(1e-3))
    state = BatchNormState.create(proof=proof, batch_stats=variables["batch_stats"], **common)
    flax_state = FlaxBatchNormState.create(batch_stats=variables["batch_stats"], **common)
    # The same leaves in the same order; the session is static, like apply_fn and tx.
    ours, theirs = jax.tree.leaves(state), jax.tree.leaves(flax_state)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)
    assert jax.tree.map(lambda x: x, state).proof is proof
    # replace keeps the class and the static fields.
    bumped = state.replace(step=state.step + 1)
    assert type(bumped) is BatchNormState and bumped.proof is proof and int(bumped.step) == 1
    # flax.serialization: the same state dict as Flax's, and a round trip into a template.
    assert (
        serialization.to_state_dict(state).keys() == serialization.to_state_dict(flax_state).keys()
    )
    restored = serialization.from_bytes(state, serialization.to_bytes(bumped))
    assert type(restored) is BatchNormState and int(restored.step) == 1
    assert restored.proof is proof
    # orbax: save the state, restore it into the abstract state.
    checkpointer = ocp.StandardCheckpointer()
    checkpointer.save(tmp_path / "ckpt", bumped)
    checkpointer.wait_until_finished()
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, state)
    back = checkpointer.restore(tmp_path / "ckpt", abstract)
    assert type(back) is BatchNormState and back.proof is proof and int(back.step) == 1
    jax.tree.map(np.testing.assert_array_equal, back.params, bumped.params)
