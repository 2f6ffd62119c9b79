"""Fault injection: every fault of the issue is detected, with DEBUGCheckEvery(1) and with
probabilistic sampling over enough steps; a killed process leaves a verifiable prefix.

(a) production differs from its ``proof.attest`` program at one step;
(b) parameters changed between steps, outside the step;
(c) a committed batch altered after it was committed;
(d) a transcript record edited after close;
(e) an execution fault: one coordinate of the applied update corrupted after the step ran.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flax")
optax = pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402
import jax_steps  # noqa: E402
import numpy as np  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

EVERY = zkdv.SamplingPolicy.DEBUGCheckEvery(1)
SAMPLED = zkdv.SamplingPolicy(state_check_probability=0.3, update_check_probability=0.3)
POLICIES = pytest.mark.parametrize("policy", [EVERY, SAMPLED], ids=["every", "p0.3"])


def session(tmp_path, policy, **kwargs):
    proof = zkdv.jax.ZKDV(tmp_path / "proof", zkdv.ZKDVConfig(sampling_policy=policy), **kwargs)
    proof.start(rolling_window=4, probe_ratio=0.1)
    return proof


def train(proof, steps, between=None, **kwargs):
    """Train the test MLP for ``steps`` steps; ``between(i, state)`` may change the state.

    Stops early when the session is poisoned (every later operation raises): returns the
    number of steps that ran.
    """
    state, batches = jax_steps.mlp(proof, **kwargs)
    step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
    for i, (x, y) in enumerate(batches(steps)):
        if between is not None:
            state = between(i, state)
        try:
            state, _ = step(state, x, y)
        except zkdv.ZKDVPoisonedError:
            return i
    return steps


# (a) -------------------------------------------------------------------------------------------

FEATURES = 4


def flagged_loss(params, batch):
    x = jax.lax.bitcast_convert_type(batch[:, :FEATURES], jnp.float32)
    return jnp.sum(jnp.tanh(x @ params["w"]) ** 2)


@POLICIES
def test_a_production_that_differs_from_attest_is_detected(tmp_path, policy):
    proof = session(tmp_path, policy)
    tx = optax.adam(0.05)

    @proof.jit(donate_argnums=(0,))
    def step(params, opt_state, batch):
        transaction = zkdv.jax.Transaction(batch=batch, params=params, opt_state=opt_state)
        grads = jax.grad(flagged_loss)(params, batch)
        # The miscompile: gradients doubled whenever the packed batch's flag word is set.
        flag = batch[0, FEATURES] != 0
        grads = jax.tree.map(lambda g: jnp.where(flag, 2 * g, g), grads)
        updates, new_opt_state = tx.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, updates)
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
        return new_params, new_opt_state

    @proof.attest
    def attested(params, opt_state, batch, parameter_index, optimizer_state_index):
        grads = jax.grad(flagged_loss)(params, batch)
        updates, new_opt_state = tx.update(grads, opt_state, params)
        return (
            zkdv.jax.index(updates, parameter_index),
            zkdv.jax.index(new_opt_state, optimizer_state_index),
        )

    params = {"w": jnp.full((FEATURES, 3), 0.3)}
    opt_state = tx.init(params)
    rng = np.random.default_rng(0)
    flagged = {5} if policy is EVERY else set(range(5, 40))
    for i in range(40):
        x = rng.normal(size=(6, FEATURES)).astype(np.float32).view(np.uint32)
        flag = np.full((6, 1), int(i in flagged), np.uint32)
        try:
            params, opt_state = step(params, opt_state, np.concatenate([x, flag], axis=1))
        except zkdv.ZKDVPoisonedError:
            break
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    assert error.value.step in flagged
    if policy is EVERY:
        assert error.value.kind == "update"


# (b) -------------------------------------------------------------------------------------------


@POLICIES
def test_b_parameters_changed_between_steps_are_detected(tmp_path, policy):
    proof = session(tmp_path, policy)

    def tamper(i, state):
        # One coordinate nudged. (A change that cancels within one probe column's support,
        # such as the same shift on every coordinate of a column when its signs balance, is
        # invisible to that column's sketch: docs/protocol.md section 8.)
        if i == 7:
            params = jax.tree.map(lambda p: p, state.params)
            params["Dense_0"]["kernel"] = params["Dense_0"]["kernel"].at[2, 1].add(0.01)
            return state.replace(params=params)
        return state

    train(proof, 30, tamper)
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    assert error.value.step >= 7
    if policy is EVERY:
        # Found at the next snapshot (step 12) at the latest, whatever the sampling.
        assert error.value.step <= 12


def test_b_optimizer_state_changed_between_steps_is_detected_by_checks(tmp_path):
    proof = session(tmp_path, EVERY)

    def tamper(i, state):
        if i == 4:
            return state.replace(opt_state=jax.tree.map(lambda s: s * 2, state.opt_state))
        return state

    train(proof, 8, tamper)
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    assert error.value.step >= 4


def test_b_an_optimizer_state_edited_just_before_a_snapshot_is_caught_at_once(tmp_path):
    # Step 4 is a snapshot step (interval 4): the snapshot would hold the edited state, and
    # every replay from it would agree with production.
    proof = session(tmp_path, EVERY, replay_snapshot_interval=4)

    def tamper(i, state):
        if i == 4:
            scaled = jax.tree.map(lambda s: (s * 1.001).astype(s.dtype), state.opt_state)
            return state.replace(opt_state=scaled)
        return state

    train(proof, 8, tamper)
    with pytest.raises(zkdv.ZKDVPoisonedError, match="optimizer state given to step 4") as error:
        proof.close()
    assert error.value.step == 4 and error.value.kind == "state"


def test_b_an_equal_copy_of_the_optimizer_state_is_not_a_change(tmp_path):
    proof = session(tmp_path, EVERY, replay_snapshot_interval=4)

    def copy(i, state):
        return state.replace(opt_state=jax.tree.map(jnp.copy, state.opt_state))

    assert train(proof, 6, copy) == 6
    proof.close()
    assert transcript.verify(tmp_path / "proof")["checks"]["update_failed"] == 0


# (c) -------------------------------------------------------------------------------------------


@POLICIES
def test_c_a_committed_batch_altered_after_commit_is_detected(tmp_path, policy):
    proof = session(tmp_path, policy, replay_snapshot_interval=40)

    def alter(i, state):
        if i == 3:
            proof.join()
            assert proof._segment is not None
            proof._segment.batches[1][0, 0] ^= 1  # the retained batch of step 1
        return state

    train(proof, 30, alter)
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    assert "altered" in str(error.value) or error.value.kind == "state"


# (d) -------------------------------------------------------------------------------------------


def test_d_a_record_edited_after_close_fails_verification(tmp_path):
    proof = session(tmp_path, EVERY)
    train(proof, 4)
    proof.close()
    records = tmp_path / "proof" / "records.cborl"
    transcript.verify(records.parent)
    data = bytearray(records.read_bytes())
    data[len(data) // 2] ^= 0x01
    records.write_bytes(bytes(data))
    with pytest.raises(transcript.TranscriptError):
        transcript.verify(records.parent)


# (e) -------------------------------------------------------------------------------------------


@POLICIES
def test_e_an_execution_fault_after_the_step_is_detected(tmp_path, policy):
    proof = session(tmp_path, policy, replay_snapshot_interval=4)

    def corrupt(index, parts):
        if index == 6:
            parts["post_params"][1] = parts["post_params"][1].at[0, 2].add(0.05)

    zkdv.testing.corrupt_production(proof, corrupt)
    train(proof, 20)
    with pytest.raises(zkdv.ZKDVPoisonedError) as error:
        proof.close()
    assert error.value.step >= 6
    assert transcript.inspect(tmp_path / "proof")["status"] == "poisoned"


def test_a_poisoned_session_raises_on_later_operations(tmp_path):
    proof = session(tmp_path, EVERY)
    state, batches = jax_steps.mlp(proof)
    step = proof.jit(jax_steps.train_step)

    def corrupt(index, parts):
        parts["post_params"] = [p + 1.0 for p in parts["post_params"]]  # all of them wrong

    zkdv.testing.corrupt_production(proof, corrupt)
    gen = batches(10)
    state, _ = step(state, *next(gen))
    state, _ = step(state, *next(gen))
    with pytest.raises(zkdv.ZKDVPoisonedError):
        proof.join()  # step 1's state check replays step 1 from the snapshot
    with pytest.raises(zkdv.ZKDVPoisonedError):
        step(state, *next(gen))
    with pytest.raises(zkdv.ZKDVPoisonedError):
        proof.close()


# A killed process -------------------------------------------------------------------------------


def test_a_killed_process_leaves_complete_records_that_verify_as_unclosed(tmp_path):
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import jax_steps, zkdv
        proof = zkdv.jax.ZKDV({str(tmp_path / "proof")!r},
            zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(2)))
        proof.start(rolling_window=4, probe_ratio=0.1)
        state, batches = jax_steps.mlp(proof)
        step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
        for i, (x, y) in enumerate(batches(12)):
            state, _ = step(state, x, y)
            if i == 8:
                proof.join()
                os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == -signal.SIGKILL, result.stderr
    records = transcript.read_records(tmp_path / "proof")
    kinds = [r["kind"] for r in records]
    assert kinds[0] == "root" and "close" not in kinds
    assert kinds.count("step") == 9
    with pytest.raises(transcript.TranscriptError, match="close"):
        transcript.verify(tmp_path / "proof")
    cli = ROOT / "target" / "debug" / "zkdv"
    if cli.exists():
        verify = subprocess.run([cli, "verify", tmp_path / "proof"], capture_output=True, text=True)
        # Not closed, and the prefix the killed run left is intact.
        assert verify.returncode == 3
        assert "close" in verify.stderr and "9 steps" in verify.stderr


# (e) at the scale of rounding ----------------------------------------------------------------


def _one_ulp(index_of_fault):
    """A fault moving one parameter element to its next float at step ``index_of_fault``."""

    def corrupt(index, parts):
        if index == index_of_fault:
            leaf = np.array(parts["post_params"][1])
            leaf.reshape(-1)[3] = np.nextafter(leaf.reshape(-1)[3], np.float32(np.inf))
            parts["post_params"][1] = jax.device_put(leaf, parts["post_params"][1].sharding)

    return corrupt


def test_e_a_one_ulp_fault_is_caught_where_the_segment_ends(tmp_path):
    # The sketch comparison must allow for rounding and cannot see one ulp; the segment's
    # closure replays production's own program from the snapshot and compares bits.
    proof = session(tmp_path, EVERY, replay_snapshot_interval=4)
    zkdv.testing.corrupt_production(proof, _one_ulp(5))
    assert train(proof, 12) < 12  # poisoned at the snapshot of step 8
    with pytest.raises(zkdv.ZKDVPoisonedError, match="not what the committed steps 4..7") as error:
        proof.close()
    assert error.value.step == 8
    assert "1 of" in str(error.value)
    assert transcript.inspect(tmp_path / "proof")["status"] == "poisoned"


def test_e_a_one_ulp_fault_of_the_last_step_is_caught_at_close_without_sampled_checks(
    tmp_path,
):
    never = zkdv.SamplingPolicy(state_check_probability=0.0, update_check_probability=0.0)
    proof = session(tmp_path, never, replay_snapshot_interval=4)
    zkdv.testing.corrupt_production(proof, _one_ulp(9))
    assert train(proof, 10) == 10
    with pytest.raises(zkdv.ZKDVPoisonedError, match="delivered at step 10") as error:
        proof.close()
    assert "steps 8..9" in str(error.value)
    assert transcript.inspect(tmp_path / "proof")["status"] == "poisoned"


def test_e_the_closure_holds_bit_for_bit_on_an_honest_run(tmp_path):
    # Every segment closes (every step is sampled), the last one at close.
    proof = session(tmp_path, EVERY, replay_snapshot_interval=3)
    assert train(proof, 10) == 10
    proof.close()
    assert transcript.inspect(tmp_path / "proof")["status"] == "ok"


class _Device:
    def __init__(self, platform):
        self.platform = platform


class _Leaf:
    def __init__(self, *platforms):
        self.sharding = type("S", (), {"device_set": {_Device(p) for p in platforms}})()


def test_the_closure_runs_only_where_xla_computes_the_same_bits_each_time(monkeypatch):
    from zkdv.jax._checks import deterministic

    monkeypatch.delenv("XLA_FLAGS", raising=False)
    assert deterministic(jnp.zeros(3))  # these tests run on CPU
    assert deterministic(_Leaf("cpu"))
    # zkdv compiles its GPU programs with XLA's deterministic ops, whatever XLA_FLAGS says.
    assert deterministic(_Leaf("gpu")) and deterministic(_Leaf("cuda"))
    assert not deterministic(_Leaf("tpu"))
    assert not deterministic(_Leaf("gpu", "tpu"))
    assert not deterministic(np.zeros(3))  # not placed by XLA


class _Capable:
    def __init__(self, platform, capability=None):
        self.platform = platform
        if capability is not None:
            self.compute_capability = capability


def test_gpu_programs_compile_deterministic_and_model_tensorfloat32_products():
    """On a GPU the programs compile with XLA's deterministic ops, and an update check's
    ensemble rounds the operands of f32 products as TensorFloat-32 where the GPU computes them
    so (measured on an H200: honest f32 Flax runs failed their update checks by a relative
    3e-4 to 1e-3 while the ensemble, modelling exact products, spread by 1e-6)."""
    from zkdv.jax._program import Placement, matmul_precision, on_gpu

    def leaf(*devices):
        return type("L", (), {"sharding": type("S", (), {"device_set": set(devices)})()})()

    cpu = leaf(_Capable("cpu"))
    assert not on_gpu([cpu]) and matmul_precision([cpu]) == "f32"
    hopper, volta, unknown = _Capable("gpu", "9.0"), _Capable("gpu", "7.0"), _Capable("rocm")
    assert on_gpu([cpu, leaf(hopper)]) and matmul_precision([cpu, leaf(hopper)]) == "tf32"
    assert on_gpu([leaf(volta)]) and matmul_precision([leaf(volta)]) == "f32"
    assert matmul_precision([leaf(unknown)]) == "tf32"
    assert Placement(gpu=True).compiler_options == {"xla_gpu_deterministic_ops": True}
    assert Placement().compiler_options is None
    placed = Placement.of([jnp.zeros(3)], params=[0], opt=[])
    assert (placed.gpu, placed.matmul) == (False, "f32")
