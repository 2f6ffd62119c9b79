"""Honest verdicts: a tamper verdict means tampering, never data, an I/O failure or an exit.

- Non-finite values in a batch are data: they are committed and checked like any other value
  (NaN agrees with NaN, an infinity with the same infinity, never with a finite value), so an
  honest run on them passes, in both frontends; a committed infinity no longer accepts any
  recomputed value.
- A session the script leaves unclosed stops its threads at exit (no abort); a poisoned one
  records its failure in its close record.
- A transcript that cannot be written (a full disk, here a file-size limit) raises an
  ``OSError`` at ``close()``; the records written before it stay readable and nothing claims
  tampering.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import zkdv
from zkdv import transcript

EVERY = zkdv.SamplingPolicy.DEBUGCheckEvery(1)


# -- the rule -------------------------------------------------------------------------------------


def test_non_finite_values_agree_only_with_themselves():
    t = zkdv.Tolerance(abs=1e-6, rel=1e-5)
    nan, inf = math.nan, math.inf
    assert t.accepts(nan, nan)
    assert t.accepts(inf, inf) and t.accepts(-inf, -inf)
    assert not t.accepts(inf, -inf)
    # A committed infinity allowed any recomputed value (|inf - x| <= inf) before the rule.
    assert not t.accepts(inf, 1.0) and not t.accepts(-inf, 0.0)
    assert not t.accepts(1.0, nan) and not t.accepts(nan, 1.0) and not t.accepts(1.0, inf)
    assert t.accepts(1.0, 1.0 + 1e-6) and not t.accepts(1.0, 1.1)
    assert t.first_outside(np.array([1.0, nan, inf]), np.array([1.0, nan, inf])) is None
    assert t.first_outside(np.array([1.0, nan, inf]), np.array([1.0, nan, 2.0])) == 2


def test_a_check_of_equal_non_finite_values_passes_with_margin_zero():
    t = zkdv.Tolerance(abs=1e-6, rel=1e-5)
    ok = zkdv.CheckResult(
        step=0,
        kind="update",
        indices=(3,),
        committed=(math.nan,),
        recomputed=(math.nan,),
        tolerance=t,
        verdict="pass",
    )
    assert ok.passed and ok.margin() == 0.0
    bad = zkdv.CheckResult(
        step=0,
        kind="update",
        indices=(3,),
        committed=(math.inf,),
        recomputed=(5.0,),
        tolerance=t,
        verdict="fail",
    )
    assert bad.margin() == math.inf
    with pytest.raises(ValueError, match="contradicts"):
        zkdv.CheckResult(
            step=0,
            kind="update",
            indices=(3,),
            committed=(math.inf,),
            recomputed=(5.0,),
            tolerance=t,
            verdict="pass",
        )


# -- non-finite batches ---------------------------------------------------------------------------

TORCH_RUN = """
import os, resource, signal, sys, torch, zkdv
from torch import nn
from torch.nn import functional as F
torch.set_num_threads(1)
torch.manual_seed(0)
directory, mode, close = sys.argv[1], sys.argv[2], sys.argv[3] == "close"
proof = zkdv.torch.ZKDV(directory, zkdv.ZKDVConfig(
    sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1)))
zkdv.testing.skip_seal(proof)
proof.start(rolling_window=4, probe_ratio=0.5)
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model, optimizer = proof.prepare(model, optimizer)

@proof.attest
def step(model, optimizer, batch):
    x, y = batch
    proof.backward(F.cross_entropy(proof.forward(model, x), y))
    optimizer.step()
    optimizer.zero_grad()

for i in range(12 if mode == "full-disk" else 3):
    if i == 2 and mode == "full-disk":
        # From the third step, the records file may grow by 4 KiB: a few more records fit,
        # then its writes fail (EFBIG) as on a full disk.
        proof.join()
        size = os.path.getsize(os.path.join(directory, "records.cborl")) + 4096
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    x, y = torch.randn(8, 4), torch.randint(2, (8,))
    if i == 1 and mode in ("nan", "inf"):
        x[0, 0] = float(mode)
    try:
        with proof.transaction(batch=(x, y)):
            proof.backward(F.cross_entropy(model(x), y))
            optimizer.step()
            optimizer.zero_grad()
    except OSError as error:
        print("OSError", error)
        break
    if i == 0 and mode == "tamper":
        with torch.no_grad():
            model.weight[0, 0] += 1.0
if close:
    try:
        proof.close()
    except OSError as error:
        print("OSError at close", error)
        sys.exit(3)
print("checks", len(proof.checks))
"""


def run_script(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_torch_a_non_finite_batch_is_data_not_tampering(tmp_path, value):
    pytest.importorskip("torch")
    out = run_script(tmp_path, TORCH_RUN, str(tmp_path / "proof"), value, "close")
    assert out.returncode == 0, out.stderr[-3000:]
    assert "checks 6" in out.stdout
    report = transcript.verify(tmp_path / "proof")
    assert report["status"] == "ok", report
    # Valid, and not silent: the session warned at the step where the run diverged, its
    # record says so, and verify and inspect report it.
    assert "the update of step 1 is not finite" in out.stderr, out.stderr[-3000:]
    assert report["first_nonfinite"] == 1 and report["nonfinite_steps"] >= 1, report
    inspection = transcript.inspect(tmp_path / "proof")
    assert inspection["first_nonfinite"] == 1, inspection
    steps = [r["body"] for r in transcript.read_records(tmp_path / "proof") if r["kind"] == "step"]
    assert "nonfinite" not in steps[0] and steps[1]["nonfinite"] >= 1


JAX_RUN = """
import os, resource, signal, sys
import jax
import numpy as np
sys.path.insert(0, sys.argv[4])
import jax_steps
import zkdv
directory, mode, close = sys.argv[1], sys.argv[2], sys.argv[3] == "close"
retain = "all" if mode == "full-disk" else None
proof = zkdv.jax.ZKDV(directory, zkdv.ZKDVConfig(
    sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1)), retain=retain)
proof.start(rolling_window=4, probe_ratio=0.1)
state, batches = jax_steps.mlp(proof)
step = proof.jit(jax_steps.train_step, donate_argnums=(0,))
try:
    for i, (x, y) in enumerate(batches(12)):
        if i == 2 and mode == "full-disk":
            # From the third step, the records file may grow by 4 KiB: a few more records
            # fit, then its writes fail (EFBIG) as on a full disk.
            proof.join()
            size = os.path.getsize(os.path.join(directory, "records.cborl")) + 4096
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        if i == 1 and mode in ("nan", "inf"):
            x[0, 0] = float(mode)
        state, _ = step(state, x, y)
        if i == 0 and mode == "tamper":
            state = state.replace(params=jax.tree.map(lambda p: p + 1.0, state.params))
    if close:
        proof.close()
except OSError as error:
    print("OSError", error)
    sys.exit(3)
print("checks", len(proof.checks))
"""

TESTS = str(Path(__file__).resolve().parent)


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_jax_a_non_finite_batch_is_data_not_tampering(tmp_path, value):
    pytest.importorskip("jax")
    out = run_script(tmp_path, JAX_RUN, str(tmp_path / "proof"), value, "close", TESTS)
    assert out.returncode == 0, out.stderr[-3000:]
    report = transcript.verify(tmp_path / "proof")
    assert report["status"] == "ok", report


@pytest.mark.parametrize("frontend", ["jax", "torch"])
def test_a_full_disk_is_an_io_error_not_a_verdict(tmp_path, frontend):
    pytest.importorskip(frontend)
    source, extra = (JAX_RUN, [TESTS]) if frontend == "jax" else (TORCH_RUN, [])
    out = run_script(tmp_path, source, str(tmp_path / "proof"), "full-disk", "close", *extra)
    assert out.returncode == 3, out.stdout[-2000:] + out.stderr[-3000:]
    assert "could not write the transcript" in out.stdout
    assert "poison" not in (out.stdout + out.stderr).lower()
    records = transcript.read_records(tmp_path / "proof")
    kinds = [r["kind"] for r in records]
    # Every record written before the failure is whole; no close record claims anything.
    assert kinds[0] == "root" and "step" in kinds and "close" not in kinds
    assert all(r["body"].get("verdict", "pass") == "pass" for r in records if r["kind"] == "check")
    assert not list((tmp_path / "proof" / "artifacts").glob(".tmp-*"))
    # The message counts the step records the transcript holds, as verify then finds them.
    held = re.search(r"failure \((\d+) step records?\)", out.stdout)
    assert held and int(held.group(1)) == kinds.count("step"), out.stdout[-2000:]


def test_jax_an_unclosed_poisoned_session_records_its_failure_at_exit(tmp_path):
    pytest.importorskip("jax")
    out = run_script(tmp_path, JAX_RUN, str(tmp_path / "proof"), "tamper", "open", TESTS)
    assert out.returncode == 1, out.stderr[-3000:]
    assert "was poisoned and not closed" in out.stderr
    close = transcript.read_records(tmp_path / "proof")[-1]
    assert close["kind"] == "close" and close["body"]["status"] == "poisoned", close
    assert close["body"]["failure"]["step"] == 1


# -- an unclosed session at exit --------------------------------------------------------------


def test_torch_an_unclosed_poisoned_session_records_its_failure_at_exit(tmp_path):
    pytest.importorskip("torch")
    out = run_script(tmp_path, TORCH_RUN, str(tmp_path / "proof"), "tamper", "open")
    # The script dies on the poisoned session's error, as an uncaught exception does: status 1,
    # not an abort (134) in a thread torn down at exit.
    assert out.returncode == 1, out.stderr[-3000:]
    assert "ZKDVPoisonedError" in out.stderr
    assert "was poisoned and not closed" in out.stderr
    close = transcript.read_records(tmp_path / "proof")[-1]
    assert close["kind"] == "close" and close["body"]["status"] == "poisoned", close
    assert close["body"]["failure"]["step"] == 1


def test_torch_an_unclosed_honest_session_is_reported_at_exit(tmp_path):
    pytest.importorskip("torch")
    out = run_script(tmp_path, TORCH_RUN, str(tmp_path / "proof"), "honest", "open")
    assert out.returncode == 0, out.stderr[-3000:]
    assert "was not closed: its transcript holds 3 step records" in out.stderr, out.stderr
    kinds = [r["kind"] for r in transcript.read_records(tmp_path / "proof")]
    assert kinds.count("step") == 3 and "close" not in kinds
