"""Evidence without a full state every step: ``retain="checkpoints"`` and ``retain="steps"``.

Each step keeps its packed batch and update sketches; full states are kept every
``checkpoint_interval`` steps (``"checkpoints"``), or are the user's own checkpoints
(``"steps"``, saved with ``proof.save_state`` and given to ``zkdv audit --checkpoint``), bound
by the snapshot records' state commitments. An audited step replays its segment from the
checkpoint before it to the one after it, which it must reach.
"""

import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

from test_audit import audit, run  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

torch.set_num_threads(1)
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:torch"),
]


def bodies(directory: Path, kind: str) -> list[dict]:
    return [r["body"] for r in transcript.read_records(directory) if r["kind"] == kind]


def test_checkpoints_keep_every_steps_evidence_and_a_state_every_k_steps(tmp_path):
    run(tmp_path / "proof", 13, interval=2, retain="checkpoints", checkpoint_interval=6)
    steps = bodies(tmp_path / "proof", "step")
    assert all(s["evidence"] is not None for s in steps)
    snapshots = {
        s["step"]: s["artifact"] is not None for s in bodies(tmp_path / "proof", "snapshot")
    }
    # A record every snapshot interval; the state itself at 0, 6, 12 and after the last step.
    assert snapshots == {
        0: True,
        2: False,
        4: False,
        6: True,
        8: False,
        10: False,
        12: True,
        13: True,
    }
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "k")
    assert code == 0, out
    report = out["report"]
    # Every step once: each segment runs from its checkpoint to the next one.
    assert report["transitions"] == 13 and report["snapshots_compared"] == 3, report


def test_a_step_audited_alone_replays_its_segment_to_the_next_checkpoint(tmp_path):
    run(tmp_path / "proof", 12, interval=2, retain="checkpoints", checkpoint_interval=6)
    code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", "one")
    assert code == 0, out
    (audited,) = out["report"]["audited"]
    # From the checkpoint at or before it, to the step before the next retained state.
    assert out["report"]["transitions"] == 6 and out["report"]["snapshots_compared"] == 1, (
        audited,
        out["report"],
    )


def test_a_corrupted_step_between_checkpoints_is_caught_from_any_step_of_its_segment(tmp_path):
    # The prover nudges a parameter at step 4 and writes passing check records for it; the
    # audit draws step 1 only, and still replays the segment 0..5 through the corruption.
    corrupt = {4}
    run(
        tmp_path / "proof",
        12,
        interval=2,
        retain="checkpoints",
        checkpoint_interval=6,
        corrupt=corrupt,
        config=zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1)),
    )
    assert transcript.verify(tmp_path / "proof")["status"] == "ok"
    caught = 0
    for seed in range(12):
        code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", f"c{seed}")
        (audited,) = out["report"]["audited"]
        assert code == (1 if audited < 6 else 0), (audited, out["report"]["failure"])
        if code == 1:
            assert out["report"]["failure"]["step"] == 4, out["report"]["failure"]
            caught += 1
    assert caught, "no seed drew a step of the corrupted segment"


def test_the_users_own_checkpoints_are_bound_by_the_snapshots_commitments(tmp_path):
    directory, states = tmp_path / "proof", tmp_path / "ckpt"
    states.mkdir()

    def save(proof, step):
        if step % 4 == 0:
            extension = "safetensors" if step % 8 == 0 else "ev.zst"
            proof.save_state(states / f"{step}.{extension}")

    run(directory, 10, interval=4, retain="steps", save_state=save)
    snapshots = bodies(directory, "snapshot")
    # No full state of the session's own but the delivered one, after the last step.
    assert [s["step"] for s in snapshots if s["artifact"] is not None] == [10]
    assert all(s["evidence"] is not None for s in bodies(directory, "step"))
    # Without the checkpoints there is nothing to start from: unusable, not a tamper verdict.
    code, out = audit(directory, "--fraction", "1", "--seed", "u")
    assert code == 2 and "--checkpoint" in out["error"], out
    files = sorted(states.iterdir())
    given = [a for f in files for a in ("--checkpoint", str(f))]
    delivered = snapshots[-1]["params"].hex()
    code, out = audit(directory, "--fraction", "1", "--seed", "u", "--final", delivered, *given)
    assert code == 0, out
    # Segments 0..3, 4..7 and 8..9, each meeting the next full state (the last, the session's).
    assert out["report"]["transitions"] == 10 and out["report"]["snapshots_compared"] == 3
    final = next(e for e in out["report"]["expectations"] if e["name"] == "final model")
    assert final["status"] == "matched", final
    # The report says what each segment started from: the user's files, not the session's.
    assert [g["from"] for g in out["report"]["segments"]] == ["checkpoint"] * 3
    # A checkpoint of the wrong state binds to no snapshot; one altered is refused.
    shutil.copy(files[0], tmp_path / "0.safetensors")
    with pytest.warns(UserWarning, match="no snapshot record"):
        run(
            tmp_path / "other",
            3,
            interval=4,
            retain="steps",
            save_state=lambda p, s: s == 1 and p.save_state(tmp_path / "x.safetensors"),
        )
    code, out = audit(directory, "--seed", "u", "--checkpoint", str(tmp_path / "x.safetensors"))
    assert code == 2 and "no snapshot record" in out["error"], out


def test_an_altered_checkpoint_is_refused(tmp_path):
    directory, states = tmp_path / "proof", tmp_path / "ckpt"
    states.mkdir()
    run(
        directory,
        6,
        interval=3,
        retain="steps",
        save_state=lambda p, s: s % 3 == 0 and p.save_state(states / f"{s}.safetensors"),
    )
    path = states / "0.safetensors"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # the last byte of the last tensor
    path.write_bytes(bytes(data))
    code, out = audit(directory, "--seed", "a", "--checkpoint", str(path))
    # It no longer re-hashes to any snapshot: refused before anything is replayed.
    assert code == 2 and "no snapshot record" in out["error"], out


def test_a_saved_state_reads_back_with_safetensors(tmp_path):
    safetensors = pytest.importorskip("safetensors.torch")
    directory = tmp_path / "proof"
    saved = {}

    def save(proof, step):
        if step == 0:
            proof.save_state(tmp_path / "s.safetensors")
            saved["hash"] = proof.state_hash()

    run(directory, 2, interval=1, retain="steps", save_state=save)
    tensors = safetensors.load_file(tmp_path / "s.safetensors")
    assert tensors and all(k.startswith(("params/", "opt_state/")) for k in tensors)
    snapshot = bodies(directory, "snapshot")[0]
    assert snapshot["state"].hex() == saved["hash"]
    leaves = [(k, t.numpy()) for k, t in tensors.items()]
    assert all(isinstance(a, np.ndarray) for _, a in leaves)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(retain="all", checkpoint_interval=12), "retain='checkpoints'"),
        (dict(retain="checkpoints", checkpoint_interval=10), "multiple of"),
        (dict(retain="checkpoints", checkpoint_interval=0), "multiple of"),
        (dict(retain="everything"), "retain must be one of"),
    ],
)
def test_bad_retention_arguments_are_named(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        zkdv.torch.ZKDV(tmp_path / "p", **kwargs)
    with pytest.raises(TypeError, match="checkpoint_interval must be an integer"):
        zkdv.torch.ZKDV(tmp_path / "p", retain="checkpoints", checkpoint_interval=12.0)


def test_a_jax_session_keeps_checkpoints_and_saves_the_users_states(tmp_path):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    optax = pytest.importorskip("optax")

    def apply_fn(variables, batch):
        return jnp.tanh(variables["params"] * batch)

    def step(state, batch):
        def loss(params):
            return jnp.mean(state.apply_fn({"params": params}, batch) ** 2)

        return state.apply_gradients(grads=jax.grad(loss)(state.params))

    def train(directory, steps, save=None, **kwargs):
        proof = zkdv.jax.ZKDV(directory, replay_snapshot_interval=2, **kwargs)
        proof.start(rolling_window=2, probe_ratio=0.5)
        state = zkdv.jax.contrib.TrainState.create(
            proof=proof, apply_fn=apply_fn, params=jnp.linspace(-1, 1, 8), tx=optax.adam(1e-2)
        )
        jitted = proof.jit(step)
        for k in range(steps):
            if save is not None and k % 4 == 0:
                zkdv.jax.save_state(save / f"{k}.safetensors", state.params, state.opt_state)
            state = jitted(state, jnp.full((2, 8), 0.5 + k, dtype=jnp.float32))
        proof.close()

    train(tmp_path / "k", 9, retain="checkpoints", checkpoint_interval=4)
    kept = {s["step"]: s["artifact"] is not None for s in bodies(tmp_path / "k", "snapshot")}
    assert kept == {0: True, 2: False, 4: True, 6: False, 8: True, 9: True}
    code, out = audit(tmp_path / "k", "--fraction", "1", "--seed", "j")
    assert code == 0 and out["report"]["transitions"] == 9, out

    (tmp_path / "ckpt").mkdir()
    train(tmp_path / "s", 9, save=tmp_path / "ckpt", retain="steps")
    given = [a for f in sorted((tmp_path / "ckpt").iterdir()) for a in ("--checkpoint", str(f))]
    code, out = audit(tmp_path / "s", "--fraction", "1", "--seed", "j", *given)
    # From the checkpoints at 0, 4 and 8: each segment reaches the next full state, the last
    # one the session's own (the state it delivered).
    assert code == 0 and out["report"]["transitions"] == 9, out
    assert out["report"]["snapshots_compared"] == 3, out


def test_an_audit_split_into_parts_merges_into_the_same_report(tmp_path):
    run(tmp_path / "proof", 12, interval=2, retain="checkpoints", checkpoint_interval=4)
    options = ("--fraction", "1", "--seed", "parts")
    code, whole = audit(tmp_path / "proof", *options)
    assert code == 0, whole
    parts = [tmp_path / f"part{i}.cbor" for i in range(2)]
    for i, part in enumerate(parts):
        code, out = audit(tmp_path / "proof", *options, "--part", f"{i}/2", "--out", str(part))
        assert code == 0 and out["report"]["part"] == {"index": i, "of": 2}, out
        # Segments 0..=3 and 8..=11 are part 0's, 4..=7 part 1's.
        starts = [g["start"] for g in out["report"]["segments"]]
        assert starts == ([0, 8] if i == 0 else [4]), out["report"]["segments"]
        # A part reports the steps it audited, not the whole audit's.
        own = [t for g in out["report"]["segments"] for t in g["audited"]]
        assert out["report"]["audited"] == own, out["report"]
    code, merged = audit(tmp_path / "proof", *options, "--merge", *map(str, parts))
    assert code == 0 and merged["report"]["merged"] == 2, merged
    for key in ("audited", "segments", "transitions", "snapshots_compared", "failure"):
        assert merged["report"][key] == whole["report"][key], key
    assert merged["report"]["noise"]["outliers"] == whole["report"]["noise"]["outliers"]
    # A part missing, given twice, or made with another seed is refused as unusable.
    code, out = audit(tmp_path / "proof", *options, "--merge", str(parts[0]))
    assert code == 2 and "part 1/2 is missing" in out["error"], out
    code, out = audit(tmp_path / "proof", *options, "--merge", str(parts[0]), str(parts[0]))
    assert code == 2 and "given twice" in out["error"], out
    code, out = audit(
        tmp_path / "proof", "--fraction", "1", "--seed", "other", "--merge", *map(str, parts)
    )
    assert code == 2 and "another seed" in out["error"], out
