"""A session's slow one-time work reports itself on stderr, and the torch seal does not block
the training loop (issue 22: the first step must not feel broken)."""

from __future__ import annotations

import threading
import time

import pytest

from zkdv import _progress, transcript


def test_a_slow_stage_is_announced_with_its_duration(monkeypatch, capsys):
    monkeypatch.setenv("ZKDV_PROGRESS", "")
    monkeypatch.setattr(_progress, "ANNOUNCE_AFTER", 0.05)
    monkeypatch.setattr(_progress, "REPEAT_EVERY", 0.1)
    _progress.reset()
    with _progress.stage("doing something slow"):
        time.sleep(0.35)
    with _progress.stage("doing something quick"):
        pass
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "zkdv: doing something slow..."
    assert any(line.startswith("zkdv: still doing something slow (") for line in err)
    assert err[-1].startswith("zkdv: doing something slow: done in 0.")
    assert not any("quick" in line for line in err)  # a quick stage prints nothing
    assert [name for name, _ in _progress.recorded()] == [
        "doing something slow",
        "doing something quick",
    ]


def test_a_failed_stage_says_so_and_the_error_goes_on(monkeypatch, capsys):
    monkeypatch.setenv("ZKDV_PROGRESS", "all")
    with pytest.raises(RuntimeError, match="broken"), _progress.stage("breaking"):
        raise RuntimeError("broken")
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "zkdv: breaking..."
    assert err[-1].startswith("zkdv: breaking: failed after ")


def test_progress_can_be_silenced(monkeypatch, capsys):
    monkeypatch.setenv("ZKDV_PROGRESS", "0")
    monkeypatch.setattr(_progress, "ANNOUNCE_AFTER", 0.0)
    with _progress.stage("anything"):
        time.sleep(0.05)
    assert capsys.readouterr().err == ""


def _torch_run(tmp_path, monkeypatch, seal, steps):
    """A torch session over test_torch's MLP whose package is sealed by ``seal``; returns the
    session and a function that trains ``steps`` steps."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_mlir")
    from test_torch import EVERY_STEP, data, mlp
    from torch.nn import functional

    import zkdv
    from zkdv.torch.lowering import process

    monkeypatch.setattr(process, "seal", seal)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    proof = zkdv.torch.ZKDV(tmp_path / "proof", EVERY_STEP)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def step(model, optimizer, batch):
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()

    def train() -> None:
        for inputs, targets in data(steps):
            with proof.transaction(batch=(inputs, targets)):
                functional.cross_entropy(model(inputs), targets).backward()
                optimizer.step()
                optimizer.zero_grad()

    return proof, train


def test_steps_are_committed_while_the_torch_package_is_sealed(tmp_path, monkeypatch):
    """The production package is sealed on a thread of its own while training goes on, and
    the steps are committed meanwhile: the program record is written without the package,
    and a production record commits it before the close record."""
    release, started = threading.Event(), threading.Event()
    sealed_on: list[str] = []

    def slow_seal(lowered: object) -> bytes:
        sealed_on.append(threading.current_thread().name)
        started.set()
        assert release.wait(120), "the test never released the seal"
        return b"a sealed package"

    proof, train = _torch_run(tmp_path, monkeypatch, slow_seal, steps=4)
    train()
    # Every transaction returned, was committed and checked while the seal waits.
    proof.join()
    assert started.wait(60) and sealed_on[0] == "zkdv-torch-seal"
    assert {c.step for c in proof.checks} == {0, 1, 2, 3}
    assert all(c.verdict == "pass" for c in proof.checks)
    release.set()
    proof.close()
    records = transcript.read_records(tmp_path / "proof")
    kinds = [r["kind"] for r in records]
    assert kinds[:4] == ["root", "program", "snapshot", "step"], kinds
    # Before the close record, wherever the seal ended: the records' order, and so every
    # challenge, does not depend on how long it took.
    assert kinds.count("production") == 1 and kinds[-2:] == ["production", "close"], kinds
    program = records[1]["body"]
    assert "production" not in program and program["format"] == "aoti"
    production = records[kinds.index("production")]["body"]
    assert production["program"] == records[1]["seq"]
    stored = (tmp_path / "proof" / production["production"]["name"]).read_bytes()
    assert stored == b"a sealed package" and production["production"]["name"].endswith(".pt2")
    assert transcript.verify(tmp_path / "proof")["steps"] == 4


def test_eager_torch_goes_on_while_a_real_package_is_sealed(tmp_path, monkeypatch):
    """Inductor's compile resets torch's FX tracing metadata, a module global that eager calls
    edit (``Optimizer.zero_grad`` enters ``torch.fx.traceback.annotate``): with the compile on a
    thread of this process, one of the two failed now and then with a ``KeyError`` deep inside
    torch. The seal compiles in a process of its own."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_mlir")
    from test_torch import mlp
    from torch.fx import traceback as fx_traceback

    from zkdv.torch.lowering import process

    real_seal, done = process.seal, threading.Event()

    def seal(lowered: object) -> bytes:
        try:
            return real_seal(lowered)
        finally:
            done.set()

    proof, train = _torch_run(tmp_path, monkeypatch, seal, steps=1)
    train()
    other = torch.optim.SGD(mlp().parameters(), lr=0.1)
    calls = 0
    while not done.is_set():
        with fx_traceback.annotate({"zkdv": calls}):
            other.zero_grad()
            time.sleep(0.002)  # as a training step would, in eager torch's annotations
        calls += 1
    proof.close()
    assert calls > 0
    records = transcript.read_records(tmp_path / "proof")
    (production,) = [r["body"] for r in records if r["kind"] == "production"]
    package = (tmp_path / "proof" / production["production"]["name"]).read_bytes()
    assert package[:2] == b"PK", "an AOT Inductor package is a zip archive"


def test_lower_step_writes_the_program_and_its_sealed_package(tmp_path, monkeypatch):
    """``lower_step`` (a client deriving the programs it expects) waits for the seal: its
    transcript holds the program record and the production record, and no step."""
    proof, _ = _torch_run(tmp_path, monkeypatch, lambda lowered: b"a sealed package", steps=1)
    from test_torch import data

    proof.lower_step(data(1)[0])
    kinds = [r["kind"] for r in transcript.read_records(tmp_path / "proof")]
    assert kinds == ["root", "program", "production"], kinds
    proof.close()
    assert transcript.verify(tmp_path / "proof")["steps"] == 0


def test_a_seal_that_fails_fails_the_session_at_the_next_transaction(tmp_path, monkeypatch):
    """The seal runs beside training: once it failed, the committer's next commit stops the
    session, and the transaction after that raises (a loop that ended first gets the error
    from close())."""
    failed = threading.Event()

    def failing_seal(lowered: object) -> bytes:
        failed.set()
        raise ValueError("zkdv.torch: the attested step cannot be sealed: no compiler")

    proof, train = _torch_run(tmp_path, monkeypatch, failing_seal, steps=1)
    train()  # the first transaction registers the program: its seal begins
    assert failed.wait(120), "the seal never ran"
    with pytest.raises(RuntimeError, match="cannot be sealed: no compiler"):
        for _ in range(10):  # two in flight: each waits for the commit of the one before last
            train()
    with pytest.raises(RuntimeError, match="cannot be sealed"):
        proof.close()
    # The steps committed before the failure stay; no close record claims a package.
    kinds = [r["kind"] for r in transcript.read_records(tmp_path / "proof")]
    assert "step" in kinds and "production" not in kinds and kinds[-1] != "close", kinds
