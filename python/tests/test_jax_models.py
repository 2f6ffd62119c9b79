"""Real training programs under ``proof.jit``, every step checked (issue 19).

Each test trains a model of a Flax recipe (typed PRNG keys in the state or as an input, NNX
dropout bridged into a ``TrainState``, ``DynamicScale`` half precision with skipped steps,
mnist's CNN, a ResNet block with BatchNorm, an lm1b-style decoder with dropout) under
``proof.jit`` with ``DEBUGCheckEvery(1)`` beside the same step under ``jax.jit``. The honest
run must close cleanly with every check passed and, where the step is deterministic, train
bitwise the same state as ``jax.jit``; some tests also inject a fault that must be caught.
The multi-device tests (shard_map and ``NamedSharding`` data parallelism on two host devices)
run in a subprocess, since the device count is fixed when JAX initializes its backend.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
optax = pytest.importorskip("optax")

import flax.linen as nn  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from flax import nnx  # noqa: E402
from flax.training import dynamic_scale as dynamic_scale_lib  # noqa: E402
from flax.training import train_state  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

EVERY = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))


def session(tmp_path: Path, window: int = 2, ratio: float = 0.1, **kwargs: Any) -> Any:
    """A started session that checks every step."""
    proof = zkdv.jax.ZKDV(tmp_path / "proof", EVERY, replay_snapshot_interval=3, **kwargs)
    proof.start(rolling_window=window, probe_ratio=ratio)
    return proof


def assert_every_step_passed(proof: Any, steps: int) -> None:
    """``proof`` (closed) checked every one of ``steps`` steps, and every check passed."""
    failed = [c for c in proof.checks if c.verdict != "pass"]
    assert not failed, failed
    checks = transcript.verify(proof.directory)["checks"]
    assert checks["update_passed"] == checks["state_passed"] == steps, checks
    assert checks["update_failed"] == checks["state_failed"] == 0, checks


def assert_same_tree(a: Any, b: Any) -> None:
    """Bitwise equal pytrees (typed keys compared by their key data)."""

    def data(x: Any) -> np.ndarray:
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x = jax.random.key_data(x)
        return np.asarray(x)

    assert jax.tree.structure(a) == jax.tree.structure(b)
    jax.tree.map(lambda x, y: np.testing.assert_array_equal(data(x), data(y)), a, b)


def classification_batches(
    n: int, batch: int, shape: tuple[int, ...], classes: int, seed: int = 0
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``n`` batches of float32 inputs of ``shape`` per example and int32 labels."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = rng.normal(size=(batch, *shape)).astype(np.float32)
        yield x, rng.integers(0, classes, batch).astype(np.int32)


def cross_entropy(logits: jax.Array, labels: jax.Array) -> jax.Array:
    return optax.softmax_cross_entropy_with_integer_labels(
        logits.astype(jnp.float32), labels
    ).mean()


# -- 1. typed PRNG keys -----------------------------------------------------------------------


class LstmClassifier(nn.Module):
    """Flax's sst2 example in small: embedding, LSTM over the sequence, dropout, dense."""

    vocab: int = 20
    hidden: int = 8

    @nn.compact
    def __call__(self, tokens: jax.Array, train: bool) -> jax.Array:
        x = nn.Embed(self.vocab, self.hidden)(tokens)
        x = nn.Dropout(0.3, deterministic=not train)(x)
        x = nn.RNN(nn.OptimizedLSTMCell(self.hidden))(x)
        x = nn.Dropout(0.3, deterministic=not train)(x[:, -1])
        return nn.Dense(2)(x)


class RngState(zkdv.jax.contrib.TrainState):
    """A state that carries its dropout key (a typed ``jax.random.key``)."""

    rng: Any


class FlaxRngState(train_state.TrainState):
    rng: Any


def lstm_step(state: Any, tokens: jax.Array, labels: jax.Array) -> tuple[Any, jax.Array]:
    """The sst2 step: the dropout key is split off the state's and the state keeps the rest."""
    rng, dropout = jax.random.split(state.rng)

    def loss(params: Any) -> jax.Array:
        logits = state.apply_fn({"params": params}, tokens, True, rngs={"dropout": dropout})
        return cross_entropy(logits, labels)

    value, grads = jax.value_and_grad(loss)(state.params)
    return state.apply_gradients(grads=grads).replace(rng=rng), value


def token_batches(n: int, batch: int = 4, length: int = 5) -> Iterator[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(7)
    for _ in range(n):
        tokens = rng.integers(0, 20, (batch, length)).astype(np.int32)
        yield tokens, (tokens.sum(axis=1) % 2).astype(np.int32)


def test_a_typed_key_in_the_train_state_sst2_lstm(tmp_path):
    proof = session(tmp_path)
    model = LstmClassifier()
    params = model.init(jax.random.key(0), jnp.zeros((1, 5), jnp.int32), False)["params"]
    common = dict(apply_fn=model.apply, params=params, tx=optax.adam(1e-2))
    state = RngState.create(proof=proof, rng=jax.random.key(1), **common)
    flax_state = jax.tree.map(jnp.copy, FlaxRngState.create(rng=jax.random.key(1), **common))
    proved, plain = proof.jit(lstm_step, donate_argnums=(0,)), jax.jit(lstm_step)
    for tokens, labels in token_batches(5):
        state, loss = proved(state, tokens, labels)
        flax_state, flax_loss = plain(flax_state, tokens, labels)
        # The rewritten program also returns the commitments, so XLA may fuse the loss's
        # reduction otherwise than jax.jit does: on an AVX2 CPU they differ by an ulp.
        np.testing.assert_allclose(loss, flax_loss, rtol=1e-6)
    proof.close()
    assert_every_step_passed(proof, 5)
    # The key comes back typed, with its implementation, and dropout drew the same masks.
    assert state.rng.dtype == flax_state.rng.dtype
    assert jax.random.key_impl(state.rng) == jax.random.key_impl(flax_state.rng)
    # Bitwise on the CPUs this was written on; on an AVX2 CPU, XLA compiles the LSTM of the
    # rewritten program to other roundings (ulps after five steps), so values are compared
    # within 1e-5 and the key, whose masks must be the same, bitwise.
    jax.tree.map(
        lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-7),
        state.params,
        flax_state.params,
    )
    assert_same_tree(state.rng, flax_state.rng)


def dropout_mlp_step(
    state: Any, x: jax.Array, y: jax.Array, key: jax.Array
) -> tuple[Any, jax.Array]:
    """A step that takes its dropout key as an input (typed, here of the rbg implementation)."""

    def loss(params: Any) -> jax.Array:
        logits = state.apply_fn({"params": params}, x, True, rngs={"dropout": key})
        return cross_entropy(logits, y)

    value, grads = jax.value_and_grad(loss)(state.params)
    return state.apply_gradients(grads=grads), value


class DropoutMlp(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array, train: bool) -> jax.Array:
        x = nn.relu(nn.Dense(16)(x))
        x = nn.Dropout(0.5, deterministic=not train)(x)
        return nn.Dense(4)(x)


def dropout_state(proof: Any) -> tuple[Any, Any]:
    """The dropout MLP's contrib state and a Flax state with its own buffers."""
    model = DropoutMlp()
    params = model.init(jax.random.key(0), jnp.zeros((1, 8)), False)["params"]
    common = dict(apply_fn=model.apply, params=params, tx=optax.sgd(0.1))
    state = zkdv.jax.contrib.TrainState.create(proof=proof, **common)
    return state, jax.tree.map(jnp.copy, train_state.TrainState.create(**common))


def test_a_typed_key_as_a_step_input(tmp_path):
    proof = session(tmp_path)
    state, flax_state = dropout_state(proof)
    proved, plain = proof.jit(dropout_mlp_step), jax.jit(dropout_mlp_step)
    keys = jax.random.split(jax.random.key(5), 4)
    for key, (x, y) in zip(keys, classification_batches(4, 8, (8,), 4), strict=True):
        state, _ = proved(state, x, y, key)
        flax_state, _ = plain(flax_state, x, y, key)
    # A key of another implementation than the first call's is refused, not retraced.
    with pytest.raises(ValueError, match="typed PRNG keys"):
        proved(state, x, y, jax.random.key(0, impl="rbg"))
    proof.close()
    assert_every_step_passed(proof, 4)
    assert_same_tree(state.params, flax_state.params)


def test_an_rbg_key_is_refused_with_the_fix(tmp_path):
    # rbg draws its bits with rng_bit_generator, which a verifier cannot re-execute.
    proof = session(tmp_path)
    state, _ = dropout_state(proof)
    x, y = next(classification_batches(1, 8, (8,), 4))
    with pytest.raises(ValueError, match="threefry"):
        proof.jit(dropout_mlp_step)(state, x, y, jax.random.key(5, impl="rbg"))


class NnxDropoutNet(nnx.Module):
    """An NNX module whose Dropout keeps its own ``nnx.Rngs`` (a typed key and a counter)."""

    def __init__(self, rngs: nnx.Rngs) -> None:
        self.hidden = nnx.Linear(8, 16, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)
        self.out = nnx.Linear(16, 4, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(self.dropout(nnx.relu(self.hidden(x))))


class NnxState(zkdv.jax.contrib.TrainState):
    """An NNX model bridged into a TrainState: ``params`` are the ``nnx.Param`` state, ``rest``
    the rest of the graph state (the Dropout's RNG key and count)."""

    rest: Any


class FlaxNnxState(train_state.TrainState):
    rest: Any


def nnx_step(state: Any, x: jax.Array, y: jax.Array) -> tuple[Any, jax.Array]:
    def loss(params: Any) -> tuple[jax.Array, Any]:
        logits, rest = state.apply_fn(params, state.rest, x)
        return cross_entropy(logits, y), rest

    (value, rest), grads = jax.value_and_grad(loss, has_aux=True)(state.params)
    return state.apply_gradients(grads=grads).replace(rest=rest), value


def test_an_nnx_dropout_rng_bridged_into_a_train_state(tmp_path):
    graphdef, params, rest = nnx.split(NnxDropoutNet(nnx.Rngs(0)), nnx.Param, ...)

    def apply_fn(params: Any, rest: Any, x: jax.Array) -> tuple[jax.Array, Any]:
        model = nnx.merge(graphdef, params, rest, copy=True)
        logits = model(x)
        return logits, nnx.split(model, nnx.Param, ...)[2]

    proof = session(tmp_path)
    common = dict(apply_fn=apply_fn, params=params, tx=optax.adam(1e-2))
    state = NnxState.create(proof=proof, rest=rest, **common)
    flax_state = jax.tree.map(jnp.copy, FlaxNnxState.create(rest=rest, **common))
    proved, plain = proof.jit(nnx_step), jax.jit(nnx_step)
    for x, y in classification_batches(4, 8, (8,), 4):
        state, _ = proved(state, x, y)
        flax_state, _ = plain(flax_state, x, y)
    proof.close()
    assert_every_step_passed(proof, 4)
    assert_same_tree(state.params, flax_state.params)
    assert_same_tree(state.rest, flax_state.rest)
    assert int(state.rest["dropout"]["rngs"]["count"][...]) == 4


# -- 2, 3. two host devices: NamedSharding and shard_map data parallelism --------------------

MULTI_DEVICE = textwrap.dedent(
    r"""
    import json, re, sys
    from functools import partial
    import flax.linen as nn, jax, jax.numpy as jnp, numpy as np, optax
    from jax.sharding import NamedSharding, AxisType, PartitionSpec as P
    from flax.training import train_state
    import zkdv, jax_steps

    mode, out = sys.argv[1], sys.argv[2]
    model = sys.argv[3] if len(sys.argv) > 3 else "mlp"
    assert len(jax.devices()) == 2
    explicit = mode.endswith("explicit")
    axis_type = AxisType.Explicit if explicit else AxisType.Auto
    mesh = jax.make_mesh((2,), ("d",), axis_types=(axis_type,))

    def loss_of(apply_fn, params, x, y):
        logits = apply_fn({"params": params}, x)
        return optax.softmax_cross_entropy(logits, jax.nn.one_hot(y, 4)).mean()

    def named_step(state, x, y):
        value, grads = jax.value_and_grad(partial(loss_of, state.apply_fn))(state.params, x, y)
        return state.apply_gradients(grads=grads), value

    def shard_map_step(state, x, y):
        @partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("d"), P("d")), out_specs=(P(), P()))
        def grads(params, x, y):
            value, g = jax.value_and_grad(partial(loss_of, state.apply_fn))(params, x, y)
            return jax.lax.pmean(g, "d"), jax.lax.pmean(value, "d")
        g, value = grads(state.params, x, y)
        return state.apply_gradients(grads=g), value

    step = shard_map_step if mode.startswith("shard_map") else named_step
    policy = zkdv.SamplingPolicy.DEBUGCheckEvery(1)
    retain = "all" if mode.endswith("audit") else None
    proof = zkdv.jax.ZKDV(
        out, zkdv.ZKDVConfig(sampling_policy=policy), replay_snapshot_interval=3, retain=retain
    )
    proof.start(rolling_window=2, probe_ratio=0.1)

    class Cnn(nn.Module):  # mnist's CNN, smaller
        @nn.compact
        def __call__(self, x):
            x = nn.avg_pool(nn.relu(nn.Conv(4, (3, 3))(x)), (2, 2), strides=(2, 2))
            x = nn.avg_pool(nn.relu(nn.Conv(8, (3, 3))(x)), (2, 2), strides=(2, 2))
            x = nn.relu(nn.Dense(16)(x.reshape((x.shape[0], -1))))
            return nn.Dense(4)(x)

    def cnn_batches(n):
        rng = np.random.default_rng(2)
        for _ in range(n):
            x = rng.normal(size=(8, 8, 8, 1)).astype(np.float32)
            yield x, rng.integers(0, 4, size=(8,)).astype(np.int32)

    if model == "cnn":
        params = Cnn().init(jax.random.key(0), jnp.zeros((1, 8, 8, 1)))["params"]
        state = zkdv.jax.contrib.TrainState.create(
            proof=proof, apply_fn=Cnn().apply, params=params, tx=optax.sgd(0.1, 0.9)
        )
        batches = cnn_batches
    else:
        state, batches = jax_steps.mlp(proof, features=8, batch=16, hidden=16)
    flax_state = train_state.TrainState.create(
        apply_fn=state.apply_fn, params=state.params, tx=state.tx
    )
    replicated, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("d"))
    state = jax.device_put(state, replicated)
    flax_state = jax.device_put(jax.tree.map(jnp.copy, flax_state), replicated)
    proved, plain = proof.jit(step), jax.jit(step)
    if mode.endswith("tamper"):
        def corrupt(index, parts):
            if index == 1:  # production's update of one weight, off by 0.01
                leaf = parts["post_params"][1]  # one element: see the DynamicScale test
                parts["post_params"][1] = leaf.at[(0,) * leaf.ndim].add(0.01)

        zkdv.testing.corrupt_production(proof, corrupt)
        try:
            for x, y in batches(5):
                x, y = jax.device_put(x, rows), jax.device_put(y, rows)
                state, loss = proved(state, x, y)
            proof.close()
            print(json.dumps({"caught_at": None}))
        except zkdv.ZKDVPoisonedError as error:
            failed = [str(c) for c in proof.checks if c.verdict != "pass"]
            print(json.dumps({"caught_at": error.step, "failed": failed}))
        sys.exit(0)
    for x, y in batches(5):
        x, y = jax.device_put(x, rows), jax.device_put(y, rows)
        state, loss = proved(state, x, y)
        flax_state, flax_loss = plain(flax_state, x, y)
    proof.close()
    failed = [str(c) for c in proof.checks if c.verdict != "pass"]
    report = {"checks": len(proof.checks), "failed": failed}
    report["max_param_difference"] = max(
        float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
        for a, b in zip(jax.tree.leaves(state.params), jax.tree.leaves(flax_state.params))
    )
    production = proved.program.production
    production = getattr(production, "compiled", production)
    reference = plain.lower(flax_state, x, y).compile()

    def per_device(compiled):
        avals = jax.tree.leaves(compiled.in_avals)
        shardings = jax.tree.leaves(compiled.input_shardings)
        return [[list(a.shape), list(s.shard_shape(a.shape))] for a, s in zip(avals, shardings)]

    def dots(compiled):
        return sorted(re.findall(r"= (\w+\[[\d,]*\])\S* dot\(", compiled.as_text()))

    def convolutions(compiled):
        return sorted(re.findall(r"= (\w+\[[\d,]*\])\S* convolution\(", compiled.as_text()))

    report["n_state"] = proved.program.n_params + len(proved.program.opt_positions)
    report["production_inputs"] = per_device(production)
    report["jit_inputs"] = per_device(reference)
    report["production_dots"], report["jit_dots"] = dots(production), dots(reference)
    report["production_convolutions"] = convolutions(production)
    report["jit_convolutions"] = convolutions(reference)
    print(json.dumps(report))
    """
)


def run_on_two_devices(tmp_path: Path, mode: str, model: str = "mlp") -> dict[str, Any]:
    """Run :data:`MULTI_DEVICE` in ``mode`` with ``model`` (``mlp`` or ``cnn``) on two host
    devices; its JSON report."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (
        env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
    ).strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", MULTI_DEVICE, mode, str(tmp_path / "proof"), model],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_named_sharding_data_parallel_keeps_the_batch_sharded(tmp_path):
    """Production computes each device's half of the batch, as jax.jit does."""
    report = run_on_two_devices(tmp_path, "named_auto")
    assert report["checks"] == 10 and not report["failed"], report["failed"]
    assert report["max_param_difference"] == 0.0
    n = report["n_state"]
    production, plain = report["production_inputs"], report["jit_inputs"]
    # Parameters and optimizer state: the same per-device shapes (jax.jit's first input is
    # the TrainState's step counter, which proof.jit packs into the batch).
    assert production[:n] == plain[1 : n + 1]
    # The batch: x f32[16, 8] and y i32[16] sharded by rows under jax.jit; the packed data
    # rows u32[16, 9] the same way under proof.jit, and the side row (the step) replicated.
    assert plain[n + 1 :] == [[[16, 8], [8, 8]], [[16], [8]]]
    assert production[n : n + 2] == [[[16, 9], [8, 9]], [[1, 9], [1, 9]]]
    # Every matrix product has jax.jit's per-device shape (not the whole batch's).
    assert report["production_dots"] == report["jit_dots"]
    assert "f32[8,16]" in report["jit_dots"]


def test_named_sharding_on_explicit_axes_a_cnn_keeps_the_batch_sharded(tmp_path):
    """mnist's CNN on ``make_mesh``'s default explicit axes, state replicated and the batch
    sharded by rows, runs under ``jax.jit`` and under ``proof.jit`` (issue 19: the canonical
    step was traced with parameters typed without the mesh, so the weight gradients'
    contractions over the sharded rows were ambiguous), and production computes each
    device's half of the batch as ``jax.jit`` does."""
    report = run_on_two_devices(tmp_path, "named_explicit", "cnn")
    assert report["checks"] == 10 and not report["failed"], report["failed"]
    assert report["max_param_difference"] == 0.0
    n = report["n_state"]
    production, plain = report["production_inputs"], report["jit_inputs"]
    assert production[:n] == plain[1 : n + 1]
    # images f32[8, 8, 8, 1] and labels i32[8] at 4 rows per device under jax.jit; the packed
    # data rows (64 image words and a label) the same, the side row (the step) replicated.
    assert plain[n + 1 :] == [[[8, 8, 8, 1], [4, 8, 8, 1]], [[8], [4]]]
    assert production[n : n + 2] == [[[8, 65], [4, 65]], [[1, 65], [1, 65]]]
    assert report["production_dots"] == report["jit_dots"]
    assert report["production_convolutions"] == report["jit_convolutions"]


def test_shard_map_data_parallel_passes_every_check_and_keeps_the_batch_sharded(tmp_path):
    """Data parallelism written with ``jax.shard_map`` (per-device gradients averaged by
    ``lax.pmean``): every check passes with the attested program replaying the manual
    computation once per device, training is bitwise ``jax.jit``'s, and production keeps
    ``jax.jit``'s per-device shapes (issue 19)."""
    report = run_on_two_devices(tmp_path, "shard_map")
    assert report["checks"] == 10 and not report["failed"], report["failed"]
    assert report["max_param_difference"] == 0.0
    n = report["n_state"]
    production, plain = report["production_inputs"], report["jit_inputs"]
    assert production[:n] == plain[1 : n + 1]
    assert plain[n + 1 :] == [[[16, 8], [8, 8]], [[16], [8]]]
    assert production[n : n + 2] == [[[16, 9], [8, 9]], [[1, 9], [1, 9]]]
    # Inside the manual computation each device multiplies its own 8 rows.
    assert report["production_dots"] == report["jit_dots"]
    assert "f32[8,16]" in report["jit_dots"]


def test_shard_map_cnn_passes_every_check(tmp_path):
    """mnist's CNN with ``shard_map`` gradients (the zoo's ``jax-shard-map``): the module
    outlines helpers (``relu``, ``take_along_axis``) called from inside the manual
    computation, which are inlined before the Rust passes parse it."""
    report = run_on_two_devices(tmp_path, "shard_map", "cnn")
    assert report["checks"] == 10 and not report["failed"], report["failed"]
    assert report["max_param_difference"] == 0.0
    assert report["production_convolutions"] == report["jit_convolutions"]


def test_shard_map_session_passes_an_audit_of_every_step(tmp_path):
    """``zkdv audit`` replays the retained replay program, manual computation included, in
    the Rust runtime from the committed snapshots and batches: every step passes."""
    from _cli import require_cli

    cli = require_cli()
    report = run_on_two_devices(tmp_path, "shard_map_audit")
    assert report["checks"] == 10 and not report["failed"], report["failed"]
    result = subprocess.run(
        [str(cli), "audit", str(tmp_path / "proof"), "--json", "--fraction", "1", "--seed", "s"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    audit = json.loads(result.stdout)
    assert audit["report"]["audited"] == list(range(5)), audit
    assert audit["report"]["failure"] is None, audit


def test_shard_map_a_tampered_update_is_caught(tmp_path):
    """A production update that differs from the attested one at step 1 poisons the session by
    the next snapshot's state check at the latest."""
    report = run_on_two_devices(tmp_path, "shard_map_tamper")
    assert report["caught_at"] is not None and 1 <= report["caught_at"] <= 3, report
    assert report["failed"], report


# -- 4. DynamicScale: half precision with skipped steps ---------------------------------------


class HalfMlp(nn.Module):
    """f16 computation with f32 parameters, as Flax's half-precision recipe trains."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(16, dtype=jnp.float16)(x))
        return nn.Dense(4, dtype=jnp.float16)(x)


class ScaledState(zkdv.jax.contrib.TrainState):
    dynamic_scale: Any


class FlaxScaledState(train_state.TrainState):
    dynamic_scale: Any


def dynamic_scale_step(state: Any, x: jax.Array, y: jax.Array) -> tuple[Any, jax.Array]:
    """The ImageNet example's step with ``DynamicScale``: at a step whose scaled gradients
    are not finite, parameters and optimizer state stay as they were."""

    def loss(params: Any) -> jax.Array:
        return cross_entropy(state.apply_fn({"params": params}, x), y)

    dynamic_scale, is_finite, _, grads = state.dynamic_scale.value_and_grad(loss)(state.params)
    new_state = state.apply_gradients(grads=grads)
    keep = functools.partial(jnp.where, is_finite)
    new_state = new_state.replace(
        opt_state=jax.tree.map(keep, new_state.opt_state, state.opt_state),
        params=jax.tree.map(keep, new_state.params, state.params),
        dynamic_scale=dynamic_scale,
    )
    return new_state, is_finite


def scaled_states(proof: Any) -> tuple[Any, Any]:
    model = HalfMlp()
    params = model.init(jax.random.key(0), jnp.zeros((1, 8)))["params"]
    # A loss scale far above f16's range: the first steps overflow and halve it.
    scale = dynamic_scale_lib.DynamicScale(growth_interval=3, scale=2.0**20)
    common = dict(apply_fn=model.apply, params=params, tx=optax.adam(1e-2), dynamic_scale=scale)
    return ScaledState.create(proof=proof, **common), jax.tree.map(
        jnp.copy, FlaxScaledState.create(**common)
    )


def test_dynamic_scale_skipped_steps_pass_every_check(tmp_path):
    proof = session(tmp_path)
    state, flax_state = scaled_states(proof)
    proved, plain = proof.jit(dynamic_scale_step), jax.jit(dynamic_scale_step)
    finite = []
    for x, y in classification_batches(8, 8, (8,), 4):
        state, ok = proved(state, x, y)
        flax_state, flax_ok = plain(flax_state, x, y)
        assert bool(ok) == bool(flax_ok)
        finite.append(bool(ok))
    proof.close()
    assert not all(finite) and any(finite), finite  # skipped and applied steps
    assert_every_step_passed(proof, 8)
    # The same training as jax.jit's within float32 rounding: XLA fuses the production step
    # (which also computes the update it commits) differently, one ulp here and there.
    close = functools.partial(np.testing.assert_allclose, rtol=1e-6, atol=1e-7)
    jax.tree.map(close, (state.params, state.opt_state), (flax_state.params, flax_state.opt_state))
    assert_same_tree(state.dynamic_scale, flax_state.dynamic_scale)
    # A skipped step's committed update is exactly zero.
    for check in proof.checks:
        if check.kind == "update" and not finite[check.step]:
            assert check.committed[0] == 0.0 and check.recomputed[0] == 0.0, check


def test_dynamic_scale_an_update_applied_at_a_skipped_step_is_caught(tmp_path):
    proof = session(tmp_path)
    state, _ = scaled_states(proof)

    def corrupt(step: int, parts: Any) -> None:
        if step == 0:  # overflows: production must keep the parameters
            # One element, not the whole leaf: a shift of every element by the same amount lies
            # in a random probe's null space when its signs cancel (for this 16-element bias, 2
            # probes of 8 signs each: 7.5% of probe seeds), and then only the audit sees it.
            parts["post_params"][0] = parts["post_params"][0].at[3].add(0.01)

    zkdv.testing.corrupt_production(proof, corrupt)
    proved = proof.jit(dynamic_scale_step)
    try:
        for x, y in classification_batches(8, 8, (8,), 4):
            state, ok = proved(state, x, y)
    except zkdv.ZKDVPoisonedError:
        pass  # every operation after a failed check raises
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    # Caught by step 0's own check, or by the next snapshot's state comparison at the latest.
    assert error.value.step <= 3
