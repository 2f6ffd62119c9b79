"""zkdv.transcript: writing, challenges and verification through the binding."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zkdv import transcript

ROOT = Path(__file__).resolve().parents[2]


def root(**overrides):
    body = {
        "prover": "whitebox-jax",
        "config_name": "pytest",
        "sampling": {"every": {"n": 2}},
        "tolerance": {"abs": 1e-6, "rel": 1e-5, "spread": 0.0, "replays": 0},
        "tolerance_policy": "fixed",
        "rolling_window": 2,
        "probe_ratio": 0.5,
        "snapshot_interval": 4,
        "params": [{"path": "w", "dtype": "f32", "shape": [3, 2]}],
        "opt_state": [{"path": "mu/w", "dtype": "f32", "shape": [3, 2]}],
        "batch": [{"path": "batch", "dtype": "u32", "shape": [2, 3]}],
    }
    body.update(overrides)
    return body


def step_body(step, program, pre, post):
    return {
        "step": step,
        "program": program,
        "batch": {"rows": 2, "width": 3, "window": 2, "root": bytes(32)},
        "pre_state": pre,
        "update": bytes(32),
        "post_state": post,
        "overlap": "unchecked",
    }


def write(directory, steps=4, sign=False):
    w = transcript.TranscriptWriter(directory, root(), sign=sign)
    art = w.put_artifact(b"program text", "mlir")
    program = w.append_program(
        {
            "name": "train_step",
            "format": "stablehlo",
            "attested": art,
            "production": art,
            "precision": {"narrowest": "f32", "narrow_results": 0},
            "tolerance": root()["tolerance"],
        }
    )
    receipts = []
    state = bytes(32)
    for t in range(steps):
        post = bytes([t + 1]) * 32
        r = w.append_step(step_body(t, program, state, post))
        state = post
        receipts.append(r)
        c = r.challenge
        assert c.state == c.update == (t % 2 == 1)
        if c.update:
            w.append_check(
                {
                    "step": t,
                    "kind": "update",
                    "indices": c.update_indices(),
                    "committed": [0.5, 1.0],
                    "recomputed": [0.5, 1.0],
                    "tolerance": root()["tolerance"],
                    "spread": [],
                    "verdict": "pass",
                    "replay_length": t % 4,
                }
            )
            w.append_check(
                {
                    "step": t,
                    "kind": "state",
                    "indices": [],
                    "committed": [2.0],
                    "recomputed": [2.0],
                    "tolerance": root()["tolerance"],
                    "spread": [],
                    "verdict": "pass",
                    "replay_length": t % 4,
                }
            )
    close = w.close()
    return w, receipts, close


def test_write_verify_and_inspect(tmp_path):
    w, receipts, close = write(tmp_path / "t", sign=True)
    assert w.closed and close["status"] == "ok" and close["steps"] == 4
    report = transcript.verify(tmp_path / "t")
    assert report["steps"] == 4 and report["signed"]
    assert report["checks"]["update_passed"] == 2
    assert report["artifacts_checked"] == 1
    summary = transcript.inspect(tmp_path / "t")
    assert summary["prover"] == "whitebox-jax" and summary["verification_error"] is None


def test_challenges_rederive_from_the_revealed_key(tmp_path):
    w, receipts, close = write(tmp_path / "t")
    root_record = transcript.inspect(tmp_path / "t")
    assert root_record["steps"] == 4
    key = close["challenge_key"]
    assert len(key) == 32
    for t, r in enumerate(receipts):
        again = transcript.derive_challenge(key, r.hash, t, {"every": {"n": 2}}, 6, 6)
        assert again.update_indices() == r.challenge.update_indices()
        assert (again.state, again.update) == (r.challenge.state, r.challenge.update)


def test_tampering_raises_naming_the_record(tmp_path):
    write(tmp_path / "t")
    records = tmp_path / "t" / "records.cborl"
    data = bytearray(records.read_bytes())
    data[len(data) // 2] ^= 0x04
    records.write_bytes(bytes(data))
    with pytest.raises(transcript.TranscriptError) as err:
        transcript.verify(tmp_path / "t")
    assert err.value.record is not None and err.value.offset is not None
    assert f"record #{err.value.record}" in str(err.value)


def test_bad_bodies_are_value_errors_and_closed_writers_refuse(tmp_path):
    w = transcript.TranscriptWriter(tmp_path / "t", root())
    with pytest.raises(ValueError, match="invalid step record"):
        w.append_step({"step": 0})
    with pytest.raises(transcript.TranscriptError, match="not an earlier program record"):
        w.append_step(step_body(0, 7, bytes(32), bytes(32)))
    w.close()
    with pytest.raises(transcript.TranscriptError, match="already closed"):
        w.close()
    with pytest.raises(transcript.TranscriptError, match="already holds a transcript"):
        transcript.TranscriptWriter(tmp_path / "t", root())
    with pytest.raises(transcript.TranscriptError, match="exceeds the packed row width"):
        transcript.TranscriptWriter(tmp_path / "u", root(rolling_window=9))


def test_key_commitment_matches_the_root(tmp_path):
    key = bytes(range(32))
    w = transcript.TranscriptWriter(tmp_path / "t", root(), challenge_key=key)
    assert w.root["challenge_key_commitment"] == transcript.key_commitment(key)
    assert w.close()["challenge_key"] == key


@pytest.mark.skipif(
    not os.access(ROOT / "target" / "debug" / "zkdv", os.X_OK),
    reason="the zkdv CLI is not built (cargo build -p zkdv-tools)",
)
def test_demo_transcript_verifies_with_the_cli_and_a_corruption_is_caught(tmp_path):
    demo = ROOT / "examples" / "transcript_demo.py"
    cli = ROOT / "target" / "debug" / "zkdv"
    ok = subprocess.run(
        [sys.executable, demo, tmp_path / "ok", "--steps", "12"], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    verified = subprocess.run([cli, "verify", tmp_path / "ok"], capture_output=True, text=True)
    assert verified.returncode == 0 and "valid: 12 steps" in verified.stdout
    # Every step checked, a bit flipped at step 3: the session is poisoned.
    bad = subprocess.run(
        [
            sys.executable,
            demo,
            tmp_path / "bad",
            "--steps",
            "8",
            "--check-probability",
            "1",
            "--corrupt-step",
            "3",
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "update check of step 3" in bad.stderr
    rejected = subprocess.run([cli, "verify", tmp_path / "bad"], capture_output=True, text=True)
    assert rejected.returncode == 1 and "check of step 3 failed" in rejected.stderr
