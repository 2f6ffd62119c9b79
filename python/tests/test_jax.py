"""``zkdv.jax``: one test per observable statement of the README's JAX sections.

Quick start, Flax TrainState, the two compiled functions (``proof.jit``, ``proof.attest``,
``Transaction``, overlap policies, donation) and the lifecycle and configuration.
"""

from __future__ import annotations

import os
import warnings

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402
import jax_steps  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from flax.training import train_state  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402
from zkdv._packing import BatchLayout  # noqa: E402

EVERY = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))


def session(tmp_path, config=EVERY, **kwargs):
    proof = zkdv.jax.ZKDV(tmp_path / "proof", config, **kwargs)
    proof.start(rolling_window=2, probe_ratio=0.01)
    return proof


def quick_start_state(proof):
    def apply_fn(variables, batch):
        return variables["params"] * batch

    return zkdv.jax.contrib.TrainState.create(
        proof=proof,
        apply_fn=apply_fn,
        params=jnp.arange(8, dtype=jnp.float32),
        tx=optax.adam(1e-3),
    )


def quick_start_step(state, batch):
    def loss(params):
        return jnp.mean(state.apply_fn({"params": params}, batch))

    return state.apply_gradients(grads=jax.grad(loss)(state.params))


# -- Quick start ------------------------------------------------------------------------------


def test_quick_start_writes_a_valid_transcript_and_trains_like_jax_jit(tmp_path):
    proof = session(tmp_path)
    state = quick_start_state(proof)
    step = proof.jit(donate_argnums=(0,))(quick_start_step)
    reference = jax.jit(quick_start_step)
    plain = quick_start_state(proof)
    batch = jnp.ones((8,), dtype=jnp.float32)
    for _ in range(10):
        state = step(state, batch)
        plain = reference(plain, batch)
    proof.close()
    np.testing.assert_array_equal(np.asarray(state.params), np.asarray(plain.params))
    assert int(state.step) == 10
    report = transcript.verify(tmp_path / "proof")
    assert report["prover"] == "whitebox-jax"
    assert report["steps"] == 10
    assert report["status"] == "ok"
    assert report["checks"]["update_passed"] == 10
    assert report["checks"]["state_passed"] == 10
    assert (tmp_path / "proof" / "records.cborl").is_file()


def test_a_parameter_with_an_empty_last_dimension_trains_and_is_checked(tmp_path):
    # Such a leaf has no probe columns, so the program gives it no sketch; its committed sketch
    # is empty, and every other leaf's comes out of the programs' one joined sketch result.
    # (The committer used to fail here: one sketch fewer than parameter leaves.)
    proof = zkdv.jax.ZKDV(
        tmp_path / "proof",
        zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1)),
    )
    proof.start(rolling_window=2, probe_ratio=0.01)
    params = {"w": jnp.ones((3, 4)), "z": jnp.ones((2, 0)), "b": jnp.ones((4,))}
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=None, params=params, tx=optax.sgd(0.1)
    )

    @proof.jit
    def step(state, x):
        def loss(p):
            return jnp.sum(p["w"] * x + p["b"]) + jnp.sum(p["z"])

        return state.apply_gradients(grads=jax.grad(loss)(state.params))

    for i in range(3):
        state = step(state, jnp.full((3, 4), float(i)))
    proof.close()
    assert len(proof.checks) == 6 and all(c.passed for c in proof.checks)
    assert transcript.verify(tmp_path / "proof")["steps"] == 3


def test_close_raises_poisoned_error_when_a_check_failed(tmp_path):
    proof = session(tmp_path)
    state = quick_start_state(proof)
    step = proof.jit(quick_start_step)

    def corrupt(index, parts):
        # An execution fault after step 2 ran: one coordinate of the applied update is wrong.
        if index == 2:
            parts["post_params"][0] = parts["post_params"][0].at[3].add(1.0)

    zkdv.testing.corrupt_production(proof, corrupt)
    for _ in range(3):
        state = step(state, jnp.ones((8,), dtype=jnp.float32))
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    # Found when close() compares the final parameters with the committed updates.
    failure = error.value
    assert (failure.step, failure.kind) == (3, "state")
    assert "outside the attested step" in str(failure)
    records = transcript.inspect(tmp_path / "proof")
    assert records["status"] == "poisoned"


# -- Flax TrainState ----------------------------------------------------------------------------


def test_train_state_is_a_flax_train_state_and_plain_under_jax_jit(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    assert isinstance(state, train_state.TrainState)
    flax_state = train_state.TrainState.create(
        apply_fn=state.apply_fn, params=state.params, tx=state.tx
    )
    step = jax.jit(jax_steps.train_step)
    for x, y in batches(3):
        state, _ = step(state, x, y)
        flax_state, _ = step(flax_state, x, y)
    jax.tree.map(np.testing.assert_array_equal, state.params, flax_state.params)
    assert proof.steps == 0  # nothing was attested
    proof.close()


def test_train_state_subclass_with_extra_fields(tmp_path):
    class CountingState(zkdv.jax.contrib.TrainState):
        seen: jax.Array = 0

    proof = session(tmp_path)
    base, batches = jax_steps.mlp(proof)
    state = CountingState.create(
        proof=proof, apply_fn=base.apply_fn, params=base.params, tx=base.tx, seen=jnp.int32(0)
    )

    @proof.jit
    def step(state, x, y):
        new, loss = jax_steps.train_step(state, x, y)
        return new.replace(seen=new.seen + x.shape[0]), loss

    for x, y in batches(4):
        state, _ = step(state, x, y)
    proof.close()
    assert int(state.seen) == 64
    assert transcript.verify(tmp_path / "proof")["checks"]["update_passed"] == 4


def test_train_state_donation_lowers_to_parameter_only_donation(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    state = jax.device_put(state)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    (x, y), *_ = batches(2)
    old = state
    state, _ = step(state, x, y)
    assert all(leaf.is_deleted() for leaf in jax.tree.leaves(old.params))
    assert not any(leaf.is_deleted() for leaf in jax.tree.leaves(old.opt_state))
    proof.close()


def test_attest_apply_fn_replaces_apply_fn_only_in_replay(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    calls = {"production": 0, "replay": 0}
    model_apply = state.apply_fn

    def production_apply(variables, x):
        calls["production"] += 1
        return model_apply(variables, x)

    def replay_apply(variables, x):
        calls["replay"] += 1
        return model_apply(variables, x)

    state = zkdv.jax.contrib.TrainState.create(
        proof=proof,
        apply_fn=production_apply,
        params=state.params,
        tx=state.tx,
        attest_apply_fn=replay_apply,
    )
    step = proof.jit(jax_steps.train_step)
    for x, y in batches(3):
        state, _ = step(state, x, y)
    proof.close()
    assert calls["replay"] == 1  # traced once, for the attested program
    assert calls["production"] >= 1
    assert len(proof.checks) == 6


def test_production_apply_fn_that_jax_export_refuses_runs_with_attest_apply_fn(tmp_path):
    # A host callback (here a numpy activation through jax.pure_callback, and a debug print)
    # cannot pass jax.export; production runs it anyway, and the exportable attest_apply_fn
    # is what sampled checks replay.
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    model_apply = state.apply_fn
    host_calls = []

    def host_tanh(x):
        host_calls.append(x.shape)
        return np.tanh(x)

    def production_apply(variables, x):
        x = jax.pure_callback(host_tanh, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        jax.debug.callback(lambda s: host_calls.append("debug"), x.sum())
        return model_apply(variables, x)

    def replay_apply(variables, x):
        return model_apply(variables, jnp.tanh(x))

    (x0, _), *_ = batches(1)
    with pytest.raises(NotImplementedError, match="host_callbacks"):
        jax.export.export(jax.jit(production_apply))({"params": state.params}, x0)
    params, tx = state.params, state.tx
    plain = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=production_apply, params=jax.tree.map(jnp.copy, params), tx=tx
    )
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof,
        apply_fn=production_apply,
        params=params,
        tx=tx,
        attest_apply_fn=replay_apply,
    )
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    reference = jax.jit(jax_steps.train_step)
    for x, y in batches(4):
        plain, _ = reference(plain, x, y)
        state, _ = step(state, x, y)
    proof.close()
    jax.effects_barrier()
    assert "debug" in host_calls
    # Bitwise the same training as jax.jit, every check passed.
    for a, b in zip(jax.tree.leaves(state.params), jax.tree.leaves(plain.params), strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert len(proof.checks) == 8
    assert all(check.passed for check in proof.checks)
    assert transcript.inspect(tmp_path / "proof")["status"] == "ok"


def callback_state(proof, effect, replay=True):
    """The MLP state whose production ``apply_fn`` calls ``effect(x)`` (a host callback that
    ``jax.export`` refuses) and, with ``replay``, the plain model as ``attest_apply_fn``; and
    one batch."""
    state, batches = jax_steps.mlp(proof)
    model_apply = state.apply_fn

    def production_apply(variables, x):
        effect(x)
        return model_apply(variables, x)

    state = zkdv.jax.contrib.TrainState.create(
        proof=proof,
        apply_fn=production_apply,
        params=state.params,
        tx=state.tx,
        attest_apply_fn=model_apply if replay else None,
    )
    (x, y), *_ = batches(1)
    return state, x, y


def debug_callback(x):
    jax.debug.callback(lambda s: None, x.sum())


def test_a_step_jax_export_refuses_needs_an_exportable_attested_program(tmp_path):
    proof = session(tmp_path)
    state, x, y = callback_state(proof, debug_callback, replay=False)
    step = proof.jit(jax_steps.train_step)
    with pytest.raises(ValueError, match="cannot pass jax.export.*attest_apply_fn"):
        step(state, x, y)


def test_a_step_jax_export_refuses_keeps_the_jit_compile_options(tmp_path):
    proof = session(tmp_path)
    state, x, y = callback_state(proof, debug_callback)
    # The options reach XLA: an unknown one is XLA's error, a known one compiles and runs.
    bad = proof.jit(jax_steps.train_step, compiler_options={"zkdv_no_such_option": True})
    with pytest.raises(Exception, match="zkdv_no_such_option"):
        bad(state, x, y)
    good = proof.jit(
        jax_steps.train_step, inline=True, compiler_options={"xla_cpu_enable_fast_math": False}
    )
    good(state, x, y)
    proof.close()


def test_ordered_effects_in_the_step_are_a_clear_error(tmp_path):
    from jax.experimental import io_callback

    proof = session(tmp_path)
    state, x, y = callback_state(
        proof, lambda x: io_callback(lambda s: None, None, x.sum(), ordered=True)
    )
    step = proof.jit(jax_steps.train_step)
    with pytest.raises(ValueError, match="ordered effects"):
        step(state, x, y)


def test_every_dynamic_non_state_input_is_packed_into_the_batch(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof, features=8, batch=16)
    step = proof.jit(jax_steps.train_step)
    (x, y), *_ = batches(1)
    state, _ = step(state, x, y)
    proof.close()
    root = transcript.inspect(tmp_path / "proof")
    program = step.program
    # x (16x8 f32) and y (16 i32) are row leaves: 9 words per row; the step counter is a side
    # leaf in one extra row.
    assert program.layout.shape == (17, 9)
    assert root["status"] == "ok"


# -- ZKDV.jit -------------------------------------------------------------------------------------


def test_jit_as_decorator_and_as_call(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    decorated = proof.jit(donate_argnums=(0,))(jax_steps.train_step)
    called = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    assert decorated.__name__ == called.__name__ == "train_step"
    (x, y), *_ = batches(1)
    state, _ = decorated(state, x, y)
    state, _ = called(state, x, y)
    proof.close()
    assert transcript.verify(tmp_path / "proof")["programs"] == 2


def test_jit_rejects_unknown_options(tmp_path):
    proof = session(tmp_path)
    with pytest.raises(TypeError, match="unexpected options"):
        proof.jit(jax_steps.train_step, donate=True)
    proof.close()


def test_static_arguments_are_fixed_by_the_first_call(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)

    @proof.jit(static_argnums=(3,))
    def step(state, x, y, scale):
        return jax_steps.train_step(state, x * scale, y)

    (x, y), *_ = batches(1)
    state, _ = step(state, x, y, 2.0)
    state, _ = step(state, x, y, 2.0)
    with pytest.raises(ValueError, match="static arguments differ"):
        step(state, x, y, 3.0)
    # A batch of another shape is a new program (test_batch_layouts.py); another dtype is not.
    with pytest.raises(ValueError, match=r"input argument 1 \(leaf \d+\) is float16.*first call"):
        step(state, x.astype(np.float16), y, 2.0)
    # A parameter leaf is named by its path in the state.
    bad = state.replace(params=jax.tree.map(lambda p: p.astype(np.float16), state.params))
    with pytest.raises(ValueError, match=r"input argument 0 \.params\['"):
        step(bad, x, y, 2.0)
    proof.close()


def test_a_step_declares_exactly_one_transaction(tmp_path):
    proof = session(tmp_path)
    params = {"w": jnp.ones((4,))}
    tx = optax.sgd(0.1)
    opt_state = tx.init(params)

    @proof.jit
    def none(params, opt_state, batch):
        return params

    @proof.jit
    def two(params, opt_state, batch):
        for _ in range(2):
            t = zkdv.jax.Transaction(batch=batch, params=params, opt_state=opt_state)
            t.update(deltas=params, params=params, opt_state=opt_state)
        return params

    @proof.jit
    def unfinished(params, opt_state, batch):
        zkdv.jax.Transaction(batch=batch, params=params, opt_state=opt_state)
        return params

    batch = np.zeros((2, 4), np.uint32)
    with pytest.raises(ValueError, match="exactly one transaction, found none"):
        none(params, opt_state, batch)
    with pytest.raises(ValueError, match="exactly one transaction, found 2"):
        two(params, opt_state, batch)
    with pytest.raises(ValueError, match="update"):
        unfinished(params, opt_state, batch)
    proof.close()


def squared(x, w):
    return jnp.sum((x @ w) ** 2)


def explicit_step(tx, loss=squared, overlap=None, on_trace=None):
    """A step of the explicit API on ``params = {"w": ...}`` and a batch of float32 bits."""

    def step(params, opt_state, batch):
        if on_trace is not None:
            on_trace()
        transaction = zkdv.jax.Transaction(
            batch=batch, params=params, opt_state=opt_state, overlap=overlap
        )
        x = jax.lax.bitcast_convert_type(batch, jnp.float32)
        grads = jax.grad(lambda p: loss(x, p["w"]))(params)
        updates, new_opt_state = tx.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, updates)
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
        return new_params, new_opt_state

    return step


def test_donating_pre_update_optimizer_state_is_rejected(tmp_path):
    proof = session(tmp_path)
    tx = optax.adam(0.1)
    params = {"w": jnp.ones((4, 2))}
    step = proof.jit(explicit_step(tx), donate_argnums=(0, 1))
    batch = np.ones((3, 4), np.float32).view(np.uint32)
    with pytest.raises(ValueError, match="optimizer state cannot be donated"):
        step(params, tx.init(params), batch)
    proof.close()


def test_transaction_markers_are_inert_outside_proof_jit():
    tx = optax.sgd(0.1)
    params = {"w": jnp.ones((4, 2))}
    batch = np.ones((3, 4), np.float32).view(np.uint32)
    eager = explicit_step(tx)(params, tx.init(params), batch)
    jitted = jax.jit(explicit_step(tx))(params, tx.init(params), batch)
    np.testing.assert_array_equal(eager[0]["w"], jitted[0]["w"])


def test_transaction_update_checks_tree_structures():
    params = {"w": jnp.ones(2)}
    t = zkdv.jax.Transaction(batch=(), params=params, opt_state=())
    with pytest.raises(ValueError, match="deltas must have the structure"):
        t.update(deltas={"v": jnp.ones(2)}, params=params, opt_state=())
    with pytest.raises(TypeError, match="overlap"):
        zkdv.jax.Transaction(batch=(), params=params, opt_state=(), overlap="always")


@pytest.mark.parametrize("policy", list(zkdv.overlap.Overlap))
def test_overlap_policies_all_commit_and_check(tmp_path, policy):
    proof = session(tmp_path)
    tx = optax.adam(0.01)
    params = {"w": jnp.ones((4, 2))}

    step = proof.jit(explicit_step(tx, overlap=policy), donate_argnums=(0,))

    opt_state = tx.init(params)
    rng = np.random.default_rng(0)
    for _ in range(5):
        batch = rng.normal(size=(3, 4)).astype(np.float32).view(np.uint32)
        params, opt_state = step(params, opt_state, batch)
    proof.close()
    report = transcript.verify(tmp_path / "proof")
    assert report["checks"]["update_passed"] == 5
    assert proof._flow.in_flight == 0


def test_changing_the_overlap_policy_does_not_retrace(tmp_path):
    proof = session(tmp_path)
    tx = optax.sgd(0.1)
    params = {"w": jnp.ones((4, 2))}
    current = {"policy": zkdv.overlap.ALWAYS}
    traces = []

    step = proof.jit(
        explicit_step(
            tx,
            lambda x, w: jnp.sum(x @ w),
            overlap=lambda: current["policy"],
            on_trace=lambda: traces.append(1),
        )
    )

    opt_state = tx.init(params)
    batch = np.ones((3, 4), np.float32).view(np.uint32)
    params, opt_state = step(params, opt_state, batch)
    n = len(traces)
    for policy in (zkdv.overlap.NEVER, zkdv.overlap.UNCHECKED, zkdv.overlap.ALWAYS):
        current["policy"] = policy
        params, opt_state = step(params, opt_state, batch)
    assert len(traces) == n
    proof.close()
    steps = [r for r in _records(tmp_path / "proof") if r["kind"] == "step"]
    assert [s["body"]["overlap"] for s in steps] == ["always", "never", "unchecked", "always"]


def _records(path):
    return transcript.read_records(path)


def test_max_in_flight_bounds_unresolved_transactions(tmp_path):
    proof = session(tmp_path, max_in_flight=1)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step)
    seen = []
    original = proof._flow.admit

    def admit(policy):
        original(policy)
        seen.append(proof._flow.in_flight)

    proof._flow.admit = admit
    for x, y in batches(4):
        state, _ = step(state, x, y)
    proof.close()
    assert max(seen) == 1


# -- ZKDV.attest ----------------------------------------------------------------------------------


def test_attest_with_scalar_outputs_is_run_by_checks(tmp_path):
    proof = session(tmp_path)
    tx = optax.adam(0.05)

    def loss(p, batch):
        x = jax.lax.bitcast_convert_type(batch, jnp.float32)
        return jnp.sum(jnp.tanh(x @ p["w"]) ** 2)

    @proof.jit(donate_argnums=(0,))
    def step(params, opt_state, batch):
        transaction = zkdv.jax.Transaction(batch=batch, params=params, opt_state=opt_state)
        updates, new_opt_state = tx.update(jax.grad(loss)(params, batch), opt_state, params)
        new_params = optax.apply_updates(params, updates)
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
        return new_params, new_opt_state

    @proof.attest
    def attested(params, opt_state, batch, parameter_index, optimizer_state_index):
        updates, new_opt_state = tx.update(jax.grad(loss)(params, batch), opt_state, params)
        return (
            zkdv.jax.index(updates, parameter_index),
            zkdv.jax.index(new_opt_state, optimizer_state_index),
        )

    params = {"w": jnp.full((4, 3), 0.5)}
    opt_state = tx.init(params)
    rng = np.random.default_rng(0)
    for _ in range(6):
        params, opt_state = step(
            params, opt_state, rng.normal(size=(5, 4)).astype(np.float32).view(np.uint32)
        )
    proof.close()
    assert [c.kind for c in proof.checks].count("update") == 6
    assert step.program.attested_text != step.program.canonical_text
    assert "zkdv.role" not in step.program.attested_text  # the user's program, not the slice


def test_attest_outputs_must_be_floating_scalars(tmp_path):
    proof = session(tmp_path)
    tx = optax.sgd(0.1)

    @proof.attest
    def attested(params, opt_state, batch, parameter_index, optimizer_state_index):
        return params["w"], jnp.float32(0)

    step = proof.jit(explicit_step(tx))
    params = {"w": jnp.ones((4, 2))}
    with pytest.raises(ValueError, match="two scalar floating-point"):
        step(params, tx.init(params), np.ones((3, 4), np.float32).view(np.uint32))
    proof.close()


def test_attest_out_shardings_is_ignored_with_a_warning(tmp_path):
    proof = session(tmp_path)
    with pytest.warns(UserWarning, match="out_shardings is ignored"):
        proof.attest(lambda *a: (jnp.float32(0), jnp.float32(0)), out_shardings=None or object())
    proof.close()


def test_index_selects_across_leaves_without_x64():
    tree = {"a": jnp.arange(6.0).reshape(2, 3), "b": jnp.arange(10.0, 14.0)}
    for i, want in [(0, 0.0), (5, 5.0), (6, 10.0), (9, 13.0), (10, 0.0)]:
        assert float(zkdv.jax.index(tree, np.uint32(i))) == want
        assert float(jax.jit(zkdv.jax.index)(tree, np.uint32(i))) == want
    with jax.enable_x64(True):
        big = np.uint64(2**40)
        assert float(zkdv.jax.index(tree, big)) == 0.0
        assert float(zkdv.jax.index(tree, np.uint64(7))) == 11.0
    assert not jax.config.jax_enable_x64
    with pytest.raises(TypeError, match="scalar integer"):
        zkdv.jax.index(tree, jnp.float32(1))


# -- Lifecycle and configuration ------------------------------------------------------------------


def test_constructor_and_start_validation(tmp_path):
    with pytest.raises(ValueError, match="replay_snapshot_interval must be at least 1"):
        zkdv.jax.ZKDV(tmp_path / "a", replay_snapshot_interval=0)
    with pytest.raises(ValueError, match="max_in_flight must be at least 1"):
        zkdv.jax.ZKDV(tmp_path / "a", max_in_flight=0)
    with pytest.raises(TypeError, match="config"):
        zkdv.jax.ZKDV(tmp_path / "a", {"name": "x"})
    with pytest.raises(ValueError, match="probability"):
        zkdv.SamplingPolicy(state_check_probability=1.5, update_check_probability=0.1)
    proof = zkdv.jax.ZKDV(tmp_path / "a")
    with pytest.raises(ValueError, match="probe_ratio"):
        proof.start(rolling_window=2, probe_ratio=0.0)
    with pytest.raises(ValueError, match="rolling_window"):
        proof.start(rolling_window=0)
    proof.start(rolling_window=2)
    with pytest.raises(RuntimeError, match="already running"):
        proof.start(rolling_window=2)
    proof.close()
    with pytest.raises(RuntimeError, match="already closed"):
        proof.close()


def test_start_reports_a_directory_that_cannot_be_written(tmp_path):
    # The transcript is created at the first step; a bad directory is reported by start().
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(NotADirectoryError, match="cannot be created: .*file is not a directory"):
        zkdv.jax.ZKDV(tmp_path / "file" / "proof").start(rolling_window=2)
    with pytest.raises(NotADirectoryError, match="file is not a directory"):
        zkdv.jax.ZKDV(tmp_path / "file").start(rolling_window=2)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: nothing to refuse
            proof = zkdv.jax.ZKDV(locked / "proof")
            proof.start(rolling_window=2)
            proof.close()
        else:
            with pytest.raises(PermissionError, match="locked is not writable"):
                zkdv.jax.ZKDV(locked / "proof").start(rolling_window=2)
    finally:
        locked.chmod(0o700)


def test_use_before_start_and_after_close(tmp_path):
    proof = zkdv.jax.ZKDV(tmp_path / "p", EVERY)
    state = quick_start_state(proof)
    step = proof.jit(quick_start_step)
    with pytest.raises(RuntimeError, match="call proof.start"):
        step(state, jnp.ones(8))
    with pytest.raises(RuntimeError, match="start"):
        proof.close()
    proof.start(rolling_window=2)
    state = step(state, jnp.ones(8))
    proof.close()
    with pytest.raises(RuntimeError, match="closed"):
        step(state, jnp.ones(8))


def test_rolling_window_larger_than_the_packed_row_is_an_error(tmp_path):
    proof = zkdv.jax.ZKDV(tmp_path / "p", EVERY)
    proof.start(rolling_window=10)
    state = quick_start_state(proof)
    with pytest.raises(ValueError, match="rolling_window=10 exceeds the packed batch row width 9"):
        proof.jit(quick_start_step)(state, jnp.ones(8))
    proof.close()


def test_snapshots_every_interval_bound_replay(tmp_path):
    proof = session(tmp_path, replay_snapshot_interval=4)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    for x, y in batches(10):
        state, _ = step(state, x, y)
    proof.close()
    summary = transcript.inspect(tmp_path / "proof")
    assert summary["snapshots"] == [0, 4, 8, 10]  # and the final snapshot, after step 9
    assert max(c.replay_length for c in proof.checks) == 3
    assert sorted({c.replay_length for c in proof.checks}) == [0, 1, 2, 3]


def test_interval_one_checks_exactly_one_transition(tmp_path):
    proof = session(tmp_path, replay_snapshot_interval=1)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    for x, y in batches(3):
        state, _ = step(state, x, y)
    proof.close()
    assert {c.replay_length for c in proof.checks} == {0}


def test_join_waits_without_closing(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step)
    for x, y in batches(3):
        state, _ = step(state, x, y)
    proof.join()
    assert len(proof.checks) == 6
    state, _ = step(state, *next(batches(1)))
    proof.close()
    assert transcript.verify(tmp_path / "proof")["steps"] == 4


def test_probabilistic_sampling_records_exactly_the_sampled_checks(tmp_path):
    config = zkdv.ZKDVConfig(
        sampling_policy=zkdv.SamplingPolicy(
            state_check_probability=0.3, update_check_probability=0.3
        )
    )
    proof = session(tmp_path, config)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    for x, y in batches(20):
        state, _ = step(state, x, y)
    proof.close()
    report = transcript.verify(tmp_path / "proof")  # re-derives every decision
    checks = report["checks"]
    assert 0 < checks["state_passed"] + checks["update_passed"] < 40


def test_packing_round_trips_every_dtype():
    import ml_dtypes

    rng = np.random.default_rng(0)
    leaves = [
        rng.normal(size=(5, 3)).astype(np.float32),
        rng.integers(-9, 9, (5,)).astype(np.int32),
        rng.integers(0, 2, (5, 2)).astype(np.bool_),
        rng.integers(-100, 100, (5, 4)).astype(np.int8),
        rng.normal(size=(5,)).astype(ml_dtypes.bfloat16),
        rng.normal(size=(5, 1)).astype(np.float16),
        np.array(7, np.int32),
        rng.integers(0, 60000, (3,)).astype(np.uint16),
    ]
    layout = BatchLayout.of([(x.shape, x.dtype) for x in leaves])
    packed = layout.pack(leaves)
    assert packed.dtype == np.uint32 and packed.shape == layout.shape
    # Packing on the device gives the same words as packing on the host.
    np.testing.assert_array_equal(np.asarray(jax.jit(layout.pack_traced)(leaves)), packed)
    assert layout.rows == 5 and layout.width == 3 + 1 + 2 + 4 + 1 + 1
    unpacked = jax.jit(layout.unpack)(packed)
    for want, got in zip(leaves, unpacked, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)
    single = np.arange(12, dtype=np.uint32).reshape(3, 4)
    one = BatchLayout.of([(single.shape, single.dtype)])
    np.testing.assert_array_equal(one.pack([single]), single)
    np.testing.assert_array_equal(np.asarray(jax.jit(one.pack_traced)([single])), single)
    scalars = [np.array(3, np.int32), np.array(1.5, np.float32), np.array(True)]
    only_side = BatchLayout.of([(x.shape, x.dtype) for x in scalars])
    assert only_side.shape == (1, 3)
    np.testing.assert_array_equal(
        np.asarray(jax.jit(only_side.pack_traced)(scalars)), only_side.pack(scalars)
    )


def test_a_complex_batch_input_is_rejected():
    with pytest.raises(TypeError, match="cannot pack"):
        BatchLayout.of([((3,), np.complex64)])


def test_warning_free_honest_run(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x, y in batches(3):
            state, _ = step(state, x, y)
        proof.close()


def test_in_and_out_shardings_place_inputs_and_outputs(tmp_path):
    proof = session(tmp_path)
    state, batches = jax_steps.mlp(proof)
    device = jax.devices()[0]
    on_device = jax.sharding.SingleDeviceSharding(device)
    host_kinds = {m.kind for m in device.addressable_memories()}
    out_kind = "pinned_host" if "pinned_host" in host_kinds else "device"
    out_sharding = jax.sharding.SingleDeviceSharding(device, memory_kind=out_kind)
    step = proof.jit(
        jax_steps.train_step,
        in_shardings=(on_device, on_device, on_device),
        out_shardings=(on_device, out_sharding),
    )
    for x, y in batches(2):
        state, loss = step(state, x, y)
    assert loss.sharding.memory_kind == out_kind
    assert all(leaf.sharding == on_device for leaf in jax.tree.leaves(state.params))
    with pytest.raises(ValueError, match="in_shardings has 2 entries"):
        proof.jit(jax_steps.train_step, in_shardings=(on_device, on_device))(state, x, y)
    proof.close()


@pytest.mark.parametrize("policy", [zkdv.overlap.UNCHECKED, zkdv.overlap.ALWAYS])
def test_snapshots_use_a_bounded_pool_primed_before_training(tmp_path, policy):
    proof = session(tmp_path, replay_snapshot_interval=2)
    tx = optax.adam(0.01)

    loss = lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2)  # noqa: E731
    step = proof.jit(explicit_step(tx, loss, overlap=policy), donate_argnums=(0,))

    params = jax.device_put({"w": jnp.full((4, 3), 0.5)})
    opt_state = jax.device_put(tx.init(params))
    rng = np.random.default_rng(0)
    for _ in range(20):
        batch = rng.normal(size=(5, 4)).astype(np.float32).view(np.uint32)
        params, opt_state = step(params, opt_state, batch)
    proof.close()
    pool = proof._snapshots.pool
    assert pool is not None, "snapshots did not use the pool"
    # Ten snapshots went through a pool of three trees, never more than three at once.
    assert pool.most_in_use <= pool.size == 3
    assert pool.in_use == 1  # only the last segment's tree: every other one came back
    # Every other step's pre-state, and the final state (the final snapshot, off the pool).
    assert transcript.inspect(tmp_path / "proof")["snapshots"] == [*range(0, 20, 2), 20]
    assert len(proof.checks) == 40 and all(c.passed for c in proof.checks)


def gate_checks(proof):
    """Hold ``proof``'s checks until the returned event is set (each check waits for it)."""
    import threading

    gate = threading.Event()
    check = proof._checker.run

    def gated(job):
        gate.wait(120)
        check(job)

    proof._checker.run = gated
    return gate


@pytest.mark.parametrize(
    "policy, ahead",
    [(zkdv.overlap.ALWAYS, 6), (zkdv.overlap.UNCHECKED, 2), (zkdv.overlap.NEVER, 1)],
)
def test_a_sampled_check_fences_training_unless_always(tmp_path, policy, ahead):
    # Every step is checked, and checks are held at a gate: ALWAYS lets training run ahead of
    # them, UNCHECKED admits one successor of the checked step (max_in_flight=2), NEVER none.
    import threading
    import time

    proof = session(tmp_path)
    gate = gate_checks(proof)
    tx = optax.sgd(0.1)

    step = proof.jit(explicit_step(tx, lambda x, w: jnp.sum(x @ w), overlap=policy))

    params = {"w": jnp.ones((4, 2))}
    opt_state = tx.init(params)
    batch = np.ones((3, 4), np.float32).view(np.uint32)
    params, opt_state = step(params, opt_state, batch)  # compiled here, before the gate closes
    gate.set()
    proof.join()
    gate.clear()
    dispatched = []

    def train():
        p, o = params, opt_state
        for i in range(6):
            p, o = step(p, o, batch)
            dispatched.append(i)

    thread = threading.Thread(target=train, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while len(dispatched) < ahead and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # time to run further ahead than allowed, if the fence were broken
    assert len(dispatched) == ahead
    gate.set()
    thread.join(120)
    assert len(dispatched) == 6
    proof.close()
    assert len(proof.checks) == 14 and all(c.passed for c in proof.checks)


def test_the_runtime_memory_goes_back_once_no_check_waits(tmp_path, monkeypatch):
    # Checks queued behind a held one run as a burst that reuses the replay runtime's freed
    # memory; it is given back to the system once, after the last, not after every check.
    import time

    from zkdv import runtime

    releases = []
    monkeypatch.setattr(runtime, "release_memory", lambda: releases.append(len(proof.checks)))
    proof = session(tmp_path)
    gate = gate_checks(proof)
    tx = optax.sgd(0.1)
    step = proof.jit(explicit_step(tx, overlap=zkdv.overlap.ALWAYS))
    params = {"w": jnp.ones((4, 2))}
    opt_state = tx.init(params)
    batch = np.ones((3, 4), np.float32).view(np.uint32)
    for _ in range(3):
        params, opt_state = step(params, opt_state, batch)
    deadline = time.monotonic() + 60
    while proof._checker._waiting < 3 and time.monotonic() < deadline:
        time.sleep(0.01)  # every step's job queued behind the held one
    gate.set()
    proof.join()
    assert releases == [6]  # three steps, a state and an update check each, then one release
    proof.close()
    assert all(c.passed for c in proof.checks)
