"""``zkdv audit``: re-executing steps from retained evidence with the auditor's own challenges.

Transcripts come from ``zkdv.torch`` sessions with ``retain="all"``. The dishonest prover of
these tests knows which steps its own challenges check (it writes its own check records), so
``zkdv verify`` accepts its transcript; the audit's challenges come from a seed it never saw.
"""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

from _cli import require_cli  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402
from zkdv.checks import CheckResult  # noqa: E402

torch.set_num_threads(1)
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:torch"),
]

ZKDV_CLI = require_cli(module=True)


def mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))


def batches(steps: int, seed: int = 1) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(8, 10, generator=g), torch.randint(3, (8,), generator=g)) for _ in range(steps)
    ]


def run(
    directory: Path,
    steps: int = 8,
    *,
    model=None,
    optimizer=lambda p: torch.optim.AdamW(p, lr=1e-2),
    config: zkdv.ZKDVConfig | None = None,
    interval: int = 3,
    retain: str | None = "all",
    corrupt=(),
    data=None,
    nudge=None,
    before_step=None,
    checkpoint_interval=None,
    save_state=None,
):
    """Train under ZKDV; at the steps in ``corrupt`` a dishonest prover nudges a parameter
    after the optimizer step and writes passing check records for that step itself.
    ``before_step(optimizer, step)`` runs between ``backward()`` and ``optimizer.step()``;
    ``save_state(proof, step)`` before each transaction."""
    model = model or mlp()
    optimizer = optimizer(model.parameters())
    proof = zkdv.torch.ZKDV(
        directory,
        config,
        retain=retain,
        replay_snapshot_interval=interval,
        checkpoint_interval=checkpoint_interval,
    )
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def attested_step(model, optimizer, batch):
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()

    corrupt = set(corrupt)
    honest_checks = proof._checker.run

    def run_checks(job):
        if job.step not in corrupt:
            return honest_checks(job)
        # The dishonest prover's own check records: whatever it committed, "recomputed".
        tolerance = job.program.tolerance
        if job.state:
            proof._checker.record(
                CheckResult(job.step, "state", (), (0.0,), (0.0,), tolerance, "pass", 0)
            )
        if job.indices:
            values = tuple(job.committed)
            proof._checker.record(
                CheckResult(
                    job.step, "update", tuple(job.indices), values, values, tolerance, "pass", 0
                )
            )

    proof._checker.run = run_checks
    for step, (inputs, targets) in enumerate(data or batches(steps)):
        if save_state is not None:
            save_state(proof, step)
        with proof.transaction(batch=(inputs, targets)):
            proof.backward(functional.cross_entropy(model(inputs), targets))
            if before_step is not None:
                before_step(optimizer, step)
            optimizer.step()
            optimizer.zero_grad()
            if step in corrupt:
                with torch.no_grad():
                    if nudge is not None:
                        nudge(model)
                    else:
                        next(model.parameters()).view(-1)[step % 7] += 1e-3
    proof.close()
    return proof


def child_session(directory: Path) -> str:
    """The source of a process that sets up :func:`run`'s session (``model``, ``optimizer``,
    ``proof`` with the attested step registered) in ``directory``, to be followed by its own
    steps."""
    return f"""
import sys, torch
sys.path.insert(0, {str(Path(__file__).parent)!r})
from torch.nn import functional
import zkdv
from test_audit import batches, mlp
model = mlp()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
proof = zkdv.torch.ZKDV({str(directory)!r}, retain="all")
zkdv.testing.skip_seal(proof)
proof.start(rolling_window=8, probe_ratio=0.25)
model, optimizer = proof.prepare(model, optimizer)

@proof.attest
def attested_step(model, optimizer, batch):
    inputs, targets = batch
    proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
    optimizer.step()
    optimizer.zero_grad()
"""


def audit(directory: Path, *args: str) -> tuple[int, dict]:
    result = subprocess.run(
        [str(ZKDV_CLI), "audit", str(directory), "--json", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize("name", ["adamw-f32", "sgd-bf16", "cnn-batchnorm"])
def test_an_honest_run_passes_an_audit_of_every_step(tmp_path, name):
    # Replayed segments drift from eager production by rounding; the tolerance and the
    # ensemble's spread over the segment absorb it: no false alarm.
    if name == "sgd-bf16":
        kwargs = dict(
            model=mlp().to(torch.bfloat16),
            optimizer=lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
            data=[(x.to(torch.bfloat16), y) for x, y in batches(9)],
        )
    elif name == "cnn-batchnorm":
        torch.manual_seed(0)
        cnn = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(4 * 6 * 6, 3),
        )
        g = torch.Generator().manual_seed(2)
        kwargs = dict(
            model=cnn,
            optimizer=lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
            data=[
                (torch.randn(8, 1, 6, 6, generator=g), torch.randint(3, (8,), generator=g))
                for _ in range(7)
            ],
        )
    else:
        kwargs = {}
    proof = run(tmp_path / "proof", 9, **kwargs)
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "honest")
    assert code == 0, out
    report = out["report"]
    assert report["audited"] == list(range(proof.steps)) and report["failure"] is None
    assert report["transitions"] == proof.steps
    assert report["snapshots_compared"] >= 2 and report["closed"]
    # Outliers may be flips only where the replayed program itself computes in bf16.
    assert report["noise"]["narrow"] == (name == "sgd-bf16"), report["noise"]


def test_the_audit_reads_a_programs_precision_from_its_types_not_its_record(tmp_path, monkeypatch):
    # A prover that labels its f32 program "bf16" would buy each snapshot outlier its leaf's
    # largest spread (discrete flips exist only in narrow-float arithmetic). The audit derives
    # the precision from the program it runs; the label is the prover's word and buys nothing.
    def forged(text, source_name="<input>"):
        return {"narrowest": "bf16", "narrow_results": 7}

    monkeypatch.setattr("zkdv.passes.precision", forged)
    run(tmp_path / "proof", 4, interval=1)
    programs = [r for r in transcript.read_records(tmp_path / "proof") if r["kind"] == "program"]
    assert programs and all(p["body"]["precision"]["narrowest"] == "bf16" for p in programs)
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "label")
    noise = out["report"]["noise"]
    assert code == 0 and out["report"]["snapshots_compared"] == 4, out
    assert noise["narrow"] is False, noise


def test_a_run_on_tensorfloat32_products_says_so_and_its_audit_models_them(tmp_path, monkeypatch):
    # A session whose production multiplies f32 as TensorFloat-32 (CUDA here pretended: the
    # run is on a CPU) writes `matmul` in its program record, and the audit's ensemble models
    # such products too, which the report says, as the prover's word.
    monkeypatch.setattr("zkdv.torch._host.matmul_precision", lambda tensors: "tf32")
    run(tmp_path / "proof", 4, interval=1)
    programs = [r for r in transcript.read_records(tmp_path / "proof") if r["kind"] == "program"]
    assert programs and all(p["body"]["matmul"] == "tf32" for p in programs)
    assert transcript.verify(tmp_path / "proof")["steps"] == 4
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "tf32")
    assert code == 0 and out["report"]["matmul"] == "tf32", out
    # Exact products are the default and are not recorded.
    monkeypatch.undo()
    run(tmp_path / "exact", 2, interval=1)
    records = transcript.read_records(tmp_path / "exact")
    assert all("matmul" not in r["body"] for r in records if r["kind"] == "program")
    code, out = audit(tmp_path / "exact", "--fraction", "1", "--seed", "tf32")
    assert code == 0 and out["report"]["matmul"] is None, out
    # The client who knows its devices holds the claim to them: a CPU's exact products
    # refuse a transcript that claims tf32 (whose ensemble would allow a prover more), and the
    # other way round.
    for directory, devices, passes in [
        ("proof", "tf32", True),
        ("proof", "exact", False),
        ("exact", "exact", True),
        ("exact", "tf32", False),
    ]:
        code, out = audit(tmp_path / directory, "--steps", "1", "--products", devices)
        (products,) = [e for e in out["report"]["expectations"] if e["name"] == "products"]
        assert products["status"] == ("matched" if passes else "differs"), products
        assert products["expected"] == devices, products
        assert (code == 0) == passes, out


GPU_RUN = Path(__file__).parent / "data" / "h200-flax-nnx-mlp"
"""A real GPU run's evidence (``data/README.md``): flax-nnx-mlp on an H200, TF32 products."""


def test_the_evidence_of_a_real_gpu_run_audits_on_a_cpu_with_the_gpu_machines_figures():
    # An auditor on a CPU re-executes every step of a run made on an NVIDIA H200: it passes,
    # models the TF32 products the records claim, and measures the very noise the GPU
    # machine's own audit measured (the runtime computes the same bits on any host).
    assert transcript.verify(GPU_RUN)["steps"] == 4
    code, out = audit(GPU_RUN, "--fraction", "1", "--seed", "cpu-auditor", "--products", "tf32")
    assert code == 0, out
    report = out["report"]
    assert report["matmul"] == "tf32" and report["audited"] == [0, 1, 2, 3]
    noise = report["noise"]
    assert round(noise["worst_rms"], 3) == 0.439, noise
    assert round(noise["worst_leaf_rms"], 3) == 0.458, noise
    assert round(noise["drift"], 4) == 0.0437, noise
    # The client whose devices compute exact products refuses it.
    code, out = audit(GPU_RUN, "--steps", "1", "--seed", "x", "--products", "exact")
    assert code == 1 and not out["passed"], out


def test_a_dishonest_prover_passes_verify_and_the_audit_catches_it(tmp_path):
    corrupt = {2, 5}
    run(
        tmp_path / "proof",
        8,
        interval=1,
        corrupt=corrupt,
        config=zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1)),
    )
    # Every step's checks are recorded, and they "pass": verify cannot tell.
    report = transcript.verify(tmp_path / "proof")
    assert report["checks"]["state_failed"] == report["checks"]["update_failed"] == 0
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "a")
    assert code == 1
    failure = out["report"]["failure"]
    assert failure["step"] == 2 and "update sketch" in failure["what"]


def test_the_detection_rate_matches_the_sampling(tmp_path):
    # k of n steps are corrupted; an audit of q random steps catches the prover with
    # probability 1 - C(n - k, q) / C(n, q) (1 - (1 - f)^q when each step is corrupted
    # independently with probability f). Snapshots every step: a step is caught exactly
    # when it is audited.
    n, corrupt, q = 10, {1, 6}, 2
    run(tmp_path / "proof", n, interval=1, corrupt=corrupt)
    seeds = 80
    caught = 0
    for seed in range(seeds):
        code, out = audit(tmp_path / "proof", "--steps", str(q), "--seed", f"rate-{seed}")
        assert code in (0, 1), out
        audited = set(out["report"]["audited"])
        assert (code == 1) == bool(audited & corrupt)
        caught += code == 1
    p = 1 - math.comb(n - len(corrupt), q) / math.comb(n, q)
    sigma = math.sqrt(p * (1 - p) / seeds)
    assert abs(caught / seeds - p) < 4 * sigma, (caught, p)


def test_tampered_evidence_is_refused_naming_the_artifact(tmp_path):
    run(tmp_path / "proof", 4)
    run(tmp_path / "other", 4, data=batches(4, seed=7))
    records = transcript.read_records(tmp_path / "proof")
    step = [r["body"] for r in records if r["kind"] == "step"][1]
    name = step["evidence"]["batch"]["name"]
    cases = {
        "flipped": lambda p: p.write_bytes(bytes([p.read_bytes()[0] ^ 1]) + p.read_bytes()[1:]),
        "missing": lambda p: p.unlink(),
        # The same step's batch from another run, under this run's name.
        "another run": lambda p: shutil.copy(
            tmp_path
            / "other"
            / [
                r["body"]
                for r in transcript.read_records(tmp_path / "other")
                if r["kind"] == "step"
            ][1]["evidence"]["batch"]["name"],
            p,
        ),
    }
    for case, tamper in cases.items():
        copy = tmp_path / case
        shutil.copytree(tmp_path / "proof", copy)
        tamper(copy / name)
        code, out = audit(copy, "--fraction", "1", "--seed", "t")
        assert code == 1, (case, out)
        assert name in out["error"], (case, out)


def test_evidence_that_does_not_rehash_to_its_commitment_is_refused(tmp_path):
    # A prover that names step 0's batch as step 1's evidence: the file is intact (verify
    # accepts it), but it is not what step 1 committed.
    original = zkdv.session._records.Records.evidence
    batches_stored: list[dict] = []

    def evidence(self, leaves):
        reference = original(self, leaves)
        if leaves and leaves[0][0] == "batch":
            batches_stored.append(reference)
            if len(batches_stored) == 2:
                return batches_stored[0]
        return reference

    zkdv.session._records.Records.evidence = evidence
    try:
        run(tmp_path / "proof", 3)
    finally:
        zkdv.session._records.Records.evidence = original
    assert transcript.verify(tmp_path / "proof")["steps"] == 3
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "b")
    assert code == 1 and "does not re-hash to step 1's batch commitment" in out["error"], out


def test_a_killed_run_audits_its_prefix(tmp_path):
    run(tmp_path / "proof", 6)
    records_file = tmp_path / "proof" / "records.cborl"
    data = records_file.read_bytes()
    # The kill cut the file inside its last records.
    records_file.write_bytes(data[: len(data) * 3 // 4])
    with pytest.raises(transcript.TranscriptError):
        transcript.verify(tmp_path / "proof")
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "k")
    assert code == 0, out
    report = out["report"]
    assert not report["closed"] and 0 < report["steps"] < 6
    assert report["audited"] == list(range(report["steps"]))


def test_a_run_killed_with_sigkill_verifies_as_an_intact_prefix(tmp_path):
    # A training process killed mid-run leaves no close record; verify says the prefix is
    # intact (exit 3) and the audit replays it.
    script = (
        child_session(tmp_path / "proof")
        + """
for step, (inputs, targets) in enumerate(batches(1000)):
    with proof.transaction(batch=(inputs, targets)):
        proof.backward(functional.cross_entropy(model(inputs), targets))
        optimizer.step()
        optimizer.zero_grad()
    if step == 4:
        proof.join()  # what was committed so far is on disk
        print("ready", flush=True)
"""
    )
    child = subprocess.Popen(
        [sys.executable, "-W", "ignore", "-c", script], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
    finally:
        child.kill()
        child.wait()
    result = subprocess.run(
        [str(ZKDV_CLI), "verify", str(tmp_path / "proof"), "--json"],
        capture_output=True,
        text=True,
    )
    out = json.loads(result.stdout)
    assert result.returncode == 3 and not out["valid"], result
    assert out["prefix"]["steps"] >= 5 and out["error"]["kind"] in ("missing_close", "truncated")
    text = subprocess.run(
        [str(ZKDV_CLI), "verify", str(tmp_path / "proof")], capture_output=True, text=True
    )
    assert text.returncode == 3 and "its prefix is intact" in text.stderr, text.stderr
    code, audited = audit(tmp_path / "proof", "--steps", "3", "--seed", "kill")
    assert code == 0 and not audited["report"]["closed"], audited


def test_python_m_zkdv_is_the_same_command_as_the_cargo_binary(tmp_path):
    # The wheel's `zkdv` console script runs zkdv_tools::cli in the extension: the same code,
    # the same output and exit codes as target/debug/zkdv.
    run(tmp_path / "proof", 3)
    for args in (
        ["verify", str(tmp_path / "proof"), "--json"],
        ["inspect", str(tmp_path / "proof"), "--json"],
        ["audit", str(tmp_path / "proof"), "--fraction", "1", "--seed", "m", "--json"],
        ["verify", str(tmp_path / "missing")],
        ["audit", str(tmp_path / "proof"), "--jobs=0"],
    ):
        cargo = subprocess.run([str(ZKDV_CLI), *args], capture_output=True, text=True)
        module = subprocess.run(
            [sys.executable, "-m", "zkdv", *args], capture_output=True, text=True
        )
        assert module.returncode == cargo.returncode, (args, module.stderr)
        if args[-1] == "--json":
            mine, theirs = json.loads(module.stdout), json.loads(cargo.stdout)
            for out in (mine, theirs):
                out.get("report", {}).pop("seconds", None)  # wall-clock
            assert mine == theirs, args
        else:
            assert module.stderr == cargo.stderr, args
    # `import zkdv` does not import a framework, and neither does the command.
    probe = "import sys, zkdv.__main__; print('jax' in sys.modules, 'torch' in sys.modules)"
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert imported.stdout.split() == ["False", "False"], imported


def test_the_cli_refuses_what_is_not_a_transcript_or_an_option(tmp_path):
    # Random bytes are not a transcript: inspect says so, as unusable input (2), not a tamper.
    junk = tmp_path / "junk.cborl"
    junk.write_bytes(bytes(range(256)) * 3)
    result = subprocess.run([str(ZKDV_CLI), "inspect", str(junk)], capture_output=True, text=True)
    assert result.returncode == 2 and "not a ZKDV transcript" in result.stderr, result
    # Options out of range are usage errors, named.
    run(tmp_path / "proof", 2)
    for option, value in (("--jobs", "0"), ("--jobs", "1000"), ("--seed", "")):
        result = subprocess.run(
            [str(ZKDV_CLI), "audit", str(tmp_path / "proof"), f"{option}={value}"],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 2 and option in result.stderr, (option, value, result.stderr)
    help_text = subprocess.run([str(ZKDV_CLI), "--help"], capture_output=True, text=True).stdout
    assert "audit" in help_text.splitlines()[0]


def test_a_transcript_without_evidence_cannot_be_audited(tmp_path):
    run(tmp_path / "proof", 2, retain=None)
    code, out = audit(tmp_path / "proof", "--seed", "n")
    assert code == 2 and 'retain="checkpoints"' in out["error"], out
    run(tmp_path / "snapshots", 2, retain="snapshots")
    code, out = audit(tmp_path / "snapshots", "--seed", "n")
    assert code == 2 and "no retained batch" in out["error"], out
    code, out = audit(tmp_path / "nowhere", "--seed", "n")
    assert code == 2


def test_an_audit_is_reproducible_from_its_seed(tmp_path):
    run(tmp_path / "proof", 12)
    first = audit(tmp_path / "proof", "--steps", "3", "--seed", "beacon-1")[1]["report"]
    again = audit(tmp_path / "proof", "--steps", "3", "--seed", "beacon-1")[1]["report"]
    other = audit(tmp_path / "proof", "--steps", "3", "--seed", "beacon-2")[1]["report"]
    assert first["audited"] == again["audited"] and first["key"] == again["key"]
    assert len(first["audited"]) == 3 and first["key"] != other["key"]
    # Without a seed one is drawn, and the report says which.
    code, out = audit(tmp_path / "proof", "--steps", "1")
    assert code == 0 and len(out["report"]["seed"]) == 32


def test_a_jax_session_retains_evidence_an_audit_replays(tmp_path, monkeypatch):
    # The same evidence from the JAX frontend: its production is the instrumented step on
    # XLA, its replay program the canonical step's replay slice, run in the Rust runtime.
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    optax = pytest.importorskip("optax")
    np = pytest.importorskip("numpy")

    def apply_fn(variables, batch):
        return jnp.tanh(variables["params"] * batch)

    def session(directory, config=None):
        proof = zkdv.jax.ZKDV(directory, config, retain="all")
        proof.start(rolling_window=2, probe_ratio=0.5)
        state = zkdv.jax.contrib.TrainState.create(
            proof=proof, apply_fn=apply_fn, params=jnp.linspace(-1, 1, 8), tx=optax.adam(1e-2)
        )
        return proof, state

    def step(state, batch):
        def loss(params):
            return jnp.mean(state.apply_fn({"params": params}, batch) ** 2)

        return state.apply_gradients(grads=jax.grad(loss)(state.params))

    # The client's data: 12 examples (rows of 8), two per step in its order.
    examples = [np.full((8,), 0.5 + k, dtype=np.float32) for k in range(12)]
    order = [[2 * i, 2 * i + 1] for i in range(6)]
    zkdv.data.write_manifest(tmp_path / "data.json", [(e,) for e in examples], order)
    # The client's programs, derived without training.
    client, state = session(tmp_path / "client")
    client.jit(donate_argnums=(0,))(step).lower_step(state, jnp.stack(examples[:2]))
    client.close()
    programs = [a for h in transcript.program_hashes(tmp_path / "client") for a in ("--program", h)]
    assert len(programs) == 4 and transcript.verify(tmp_path / "client")["steps"] == 0

    proof, state = session(tmp_path / "proof")
    initial = zkdv.jax.model_hash(state.params)
    # The whole state the client hands out: its parameters and optax's state (moments, count).
    initial_state = zkdv.jax.state_hash(state.params, state.opt_state)
    train = proof.jit(donate_argnums=(0,))(step)
    for rows in order:
        state = train(state, jnp.stack([examples[k] for k in rows]))
    proof.close()
    delivered = zkdv.jax.model_hash(state.params)
    first = next(r for r in transcript.read_records(tmp_path / "proof") if r["kind"] == "snapshot")
    assert first["body"]["state"].hex() == initial_state
    expect = ("--initial", initial, "--final", delivered, *programs)
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "jax", *expect)
    assert code == 0, out
    assert out["report"]["audited"] == list(range(6))
    # Each step's replay meets the next step's snapshot, and the last one the final snapshot.
    assert out["report"]["snapshots_compared"] == 6
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert status == {
        "initial model": "matched",
        "initial state": "not_given",
        "final model": "matched",
        "programs": "matched",
        "tolerance": "matched",
        "products": "not_given",
        "hyperparameters": "not_given",
        "data": "not_given",
        "outliers": "not_given",
    }, status
    # Given, the whole initial state binds too; and outliers held to none.
    bound = ("--initial-state", initial_state, "--max-outliers", "0")
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "jax", *expect, *bound)
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert code == 0 and status["initial state"] == status["outliers"] == "matched", out

    # A prover that preloads Adam's first moment (same parameters, same programs) is named.
    cheat, state = session(tmp_path / "preloaded")
    mu = jax.tree.map(lambda m: m + 0.05, state.opt_state[0].mu)
    state = state.replace(opt_state=(state.opt_state[0]._replace(mu=mu), *state.opt_state[1:]))
    train = cheat.jit(donate_argnums=(0,))(step)
    for rows in order:
        state = train(state, jnp.stack([examples[k] for k in rows]))
    cheat.close()
    forged = ("--initial", initial, "--final", zkdv.jax.model_hash(state.params), *programs)
    code, out = audit(tmp_path / "preloaded", "--fraction", "1", "--seed", "jax", *forged, *bound)
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert code == 1 and status["initial state"] == "differs", out
    assert status["initial model"] == "matched" and out["report"]["failure"] is None

    # A prover that holds optax's step count in place between steps (a schedule computed from
    # it would stay at its first value) is caught at the next snapshot: an integer is exact.
    # (Its own session compares the optimizer state each step receives with what the last one
    # produced; a prover that runs its own machine skips that.)
    import zkdv.jax._session as jax_session

    monkeypatch.setattr(jax_session, "opt_state_discontinuity", lambda *a, **k: None)
    # Its session draws no check (at the default 1% a drawn state check caught it in process
    # now and then, poisoning the transcript, which an audit then refuses as invalid).
    never = zkdv.SamplingPolicy(state_check_probability=0.0, update_check_probability=0.0)
    cheat, state = session(tmp_path / "count", zkdv.ZKDVConfig(sampling_policy=never))
    train = cheat.jit(donate_argnums=(0,))(step)
    for rows in order:
        state = train(state, jnp.stack([examples[k] for k in rows]))
        held = state.opt_state[0]._replace(count=jnp.zeros_like(state.opt_state[0].count))
        state = state.replace(opt_state=(held, *state.opt_state[1:]))
    try:
        cheat.close()
    except zkdv.ZKDVPoisonedError:
        pass  # its own in-process checks may see it too; the audit must, whatever they wrote
    code, out = audit(tmp_path / "count", "--fraction", "1", "--seed", "jax", *programs)
    failure = out["report"]["failure"]
    assert code == 1 and failure is not None and "count" in failure["what"], out
    # A JAX replay program takes the packed batch words; the manifest's layout (each data
    # leaf's row dtype and shape) reads the client's rows back from them.
    manifest = ("--data", str(tmp_path / "data.json"))
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "jax", *expect, *manifest)
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert code == 0 and data["status"] == "matched", data
    # Another order (steps 0 and 1 swapped) is not the client's.
    swapped = [order[1], order[0], *order[2:]]
    zkdv.data.write_manifest(tmp_path / "other.json", [(e,) for e in examples], swapped)
    other = ("--data", str(tmp_path / "other.json"))
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "jax", *expect, *other)
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert code == 1 and data["status"] == "differs", data
    assert "step 0's batch row 0 is not the client's example 2" in data["note"], data
    # Without a layout (examples of differing shapes leave it out), the rows cannot be read
    # back, and the audit says so rather than pass.
    bare = json.loads((tmp_path / "data.json").read_text())
    del bare["layout"]
    (tmp_path / "bare.json").write_text(json.dumps(bare))
    bare_data = ("--data", str(tmp_path / "bare.json"))
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "jax", *expect, *bare_data)
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert code == 1 and data["status"] == "not_recorded" and "layout" in data["note"], data


def test_the_audit_binds_the_clients_first_and_last_model(tmp_path):
    # The client knows the model it gave and the model it was delivered; the transcript's first
    # and final snapshots commit to each (a model commitment beside the full state), and an
    # audit given them checks both and replays the first and the last step from and into them.
    initial = zkdv.torch.model_hash(mlp())
    model = mlp()
    proof = run(tmp_path / "proof", 5, model=model, interval=3)
    delivered = zkdv.torch.model_hash(model)
    assert delivered != initial
    records = transcript.read_records(tmp_path / "proof")
    snapshots = [r["body"] for r in records if r["kind"] == "snapshot"]
    # Retaining everything snapshots every step; the final snapshot (the state after step 4)
    # precedes the close.
    assert [s["step"] for s in snapshots] == list(range(6)) and records[-2]["kind"] == "snapshot"
    assert snapshots[0]["params"].hex() == initial and snapshots[-1]["params"].hex() == delivered
    # Without evidence the interval holds (3), and the final snapshot is off it: verify accepts.
    run(tmp_path / "plain", 5, model=mlp(), interval=3, retain=None)
    records = transcript.read_records(tmp_path / "plain")
    assert [r["body"]["step"] for r in records if r["kind"] == "snapshot"] == [0, 3, 5]
    assert transcript.verify(tmp_path / "plain")["snapshots"] == 3

    code, out = audit(
        tmp_path / "proof", "--steps", "1", "--seed", "m", "--initial", initial,
        "--final", delivered,
    )  # fmt: skip
    assert code == 0, out
    report = out["report"]
    assert {0, proof.steps - 1} <= set(report["audited"])
    status = {e["name"]: e["status"] for e in report["expectations"]}
    assert status["initial model"] == status["final model"] == "matched"
    # What the audit cannot bind yet is said, not implied.
    assert status["programs"] == status["data"] == "not_given"
    assert status["tolerance"] == "matched"  # the session's default, within the default ceiling

    # The client may give the models as it keeps them: safetensors files of their parameters.
    safetensors = pytest.importorskip("safetensors.torch")
    safetensors.save_file(mlp().state_dict(), str(tmp_path / "initial.safetensors"))
    safetensors.save_file(model.state_dict(), str(tmp_path / "delivered.safetensors"))
    code, out = audit(
        tmp_path / "proof", "--steps", "1", "--seed", "m",
        "--initial", str(tmp_path / "initial.safetensors"),
        "--final", str(tmp_path / "delivered.safetensors"),
    )  # fmt: skip
    assert code == 0, out
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert status["initial model"] == status["final model"] == "matched"
    partial = dict(model.state_dict())
    del partial["2.bias"]
    safetensors.save_file(partial, str(tmp_path / "partial.safetensors"))
    code, out = audit(
        tmp_path / "proof", "--seed", "m", "--final", str(tmp_path / "partial.safetensors")
    )
    assert code == 2 and 'holds no tensor "2.bias"' in out["error"], out

    # A model other than the one delivered (or another start) is refused by name.
    other = mlp()
    with torch.no_grad():
        next(other.parameters()).view(-1)[0] += 1e-3
    forged = zkdv.torch.model_hash(other)
    code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", "m", "--final", forged)
    assert code == 1
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert status["final model"] == "differs" and status["initial model"] == "not_given"
    assert out["report"]["failure"] is None  # every audited step reproduced
    code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", "m", "--initial", forged)
    assert code == 1
    assert {e["name"]: e["status"] for e in out["report"]["expectations"]}[
        "initial model"
    ] == "differs"
    # Text output names the expectation that failed.
    text = subprocess.run(
        [str(ZKDV_CLI), "audit", str(tmp_path / "proof"), "--seed", "m", "--final", forged],
        capture_output=True,
        text=True,
        check=False,
    )
    assert text.returncode == 1 and "final model: DIFFERS" in text.stdout, text.stdout


def drift(ulps: int):
    """A nudge that moves every parameter by ``ulps`` of its own ulps, each coordinate in a
    direction fixed for the whole run: a drift that each pair's tolerance (1e-6 + 1e-5 |x|,
    about 80 ulps) lets through."""

    def nudge(model: nn.Module) -> None:
        for i, p in enumerate(model.parameters()):
            g = torch.Generator().manual_seed(i)
            up = torch.rand(p.shape, generator=g) < 0.5
            target = torch.where(up, torch.full_like(p, math.inf), torch.full_like(p, -math.inf))
            for _ in range(ulps):
                p.copy_(torch.nextafter(p, target))

    return nudge


def test_a_drift_within_every_pairs_tolerance_is_more_than_rounding_noise(tmp_path):
    # 20 ulps on every coordinate at every step: within each pair's tolerance, but one
    # snapshot's differences together are far more than rounding noise.
    steps = 4
    run(tmp_path / "proof", steps, interval=1, corrupt=range(steps), nudge=drift(20))
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "d")
    failure = out["report"]["failure"]
    # Each value is far more than rounding noise from the replay (an f32 program): counted as
    # outliers, far more than a comparison admits, before the noise test weighs them.
    assert code == 1 and failure["kind"] == "pair", out
    assert (
        "more than rounding noise" in failure["what"] and "allowed as outliers" in failure["what"]
    )
    assert abs(failure["committed"] - failure["recomputed"]) < failure["allowed"]
    # Weighed as noise alone (the rule of a narrow-float program, where a flip moves a value
    # by many units honestly), the snapshot's differences together are more than rounding.
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "d", "--max-noise", "0.5")
    assert code == 1 and out["report"]["failure"]["kind"] in ("pair", "noise"), out


def test_a_drift_of_a_few_ulps_per_step_in_one_direction_keeps_its_sign(tmp_path):
    # Four ulps per step: each snapshot alone looks like rounding (here the ensemble's spread
    # of a state value is about three ulps), but the differences keep their sign from one
    # snapshot to the next, which rounding noise does not.
    steps = 12
    run(tmp_path / "proof", steps, interval=1, corrupt=range(steps), nudge=drift(4))
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "d")
    noise = out["report"]["noise"]
    assert noise["worst_rms"] <= noise["limit"], noise
    failure = out["report"]["failure"]
    assert code == 1 and failure["kind"] == "drift", out
    assert failure["committed"] == noise["drift"] > noise["drift_limit"]
    # An auditor may accept more drift, and says so.
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "d", "--max-drift", "5")
    assert code == 0 and out["report"]["noise"]["drift_limit"] == 5, out
    # The same run, honest: both tests pass, the drift well inside its limit. The noise in
    # ulps alone depends on the kernels eager torch picks on the CPU (below 1 ulp root mean
    # square where this test was written, 1.57 on an AVX-512 machine); past the limit the
    # auditor would measure the spreads.
    run(tmp_path / "honest", steps, interval=1)
    code, out = audit(tmp_path / "honest", "--fraction", "1", "--seed", "d")
    noise = out["report"]["noise"]
    assert code == 0 and out["report"]["snapshots_compared"] == steps, out
    assert noise["worst_rms"] <= noise["limit"] and noise["drift"] < 0.1, noise


def test_a_small_leaf_moved_within_its_bound_at_one_step_fails_its_own_noise_test(tmp_path):
    # The sixteen values of one bias, among about 22,000 state values, moved by 5e-7 each
    # after one step (inside each pair's absolute term, 1e-6): the snapshot's noise, averaged
    # over every value, stays under its limit; the leaf's own does not.
    def model() -> nn.Module:
        torch.manual_seed(0)
        return nn.Sequential(
            nn.Linear(10, 256), nn.Tanh(), nn.Linear(256, 16), nn.Tanh(), nn.Linear(16, 3)
        )

    def nudge(m: nn.Module) -> None:
        m[2].bias.add_(5e-7)

    steps = 4
    run(tmp_path / "proof", steps, model=model(), interval=1, corrupt=[2], nudge=nudge)
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "l")
    failure = out["report"]["failure"]
    # In an f32 program each moved value is far more than rounding noise from the replay: the
    # leaf holds more of those than its outlier allowance (2). (In a narrow-float program,
    # where flips move values honestly, the leaf's own noise test catches it:
    # zkdv_protocol::noise::leaf_residuals.)
    assert code == 1 and failure["kind"] == "pair", out
    assert failure["step"] == 2 and "params/2.bias" in failure["what"], failure
    assert "of this leaf's 16 values outside the tolerance, at most 2" in failure["what"]
    # The same run, honest: every leaf well inside its limit.
    run(tmp_path / "honest", steps, model=model(), interval=1)
    code, out = audit(tmp_path / "honest", "--fraction", "1", "--seed", "l")
    noise = out["report"]["noise"]
    assert code == 0 and noise["worst_leaf_rms"] < 2, out


def test_the_tolerance_is_the_auditors(tmp_path):
    # A prover that records a lax tolerance lets a changed update pass every comparison; the
    # audit holds every program's tolerance to the auditor's ceiling (by default a session's
    # own default tolerance), whatever the transcript says.
    lax = zkdv.ZKDVConfig(tolerance=zkdv.Tolerance(abs=0.1, rel=1.0))
    run(tmp_path / "proof", 3, config=lax, corrupt={1})
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "t")
    assert code == 1
    (tolerance,) = [e for e in out["report"]["expectations"] if e["name"] == "tolerance"]
    assert tolerance["status"] == "differs" and "abs 0.1, rel 1" in tolerance["recorded"]
    # The corrupted step reproduced within the lax bound (one coordinate: too few to fail the
    # noise test, which clips each pair's share): only the ceiling caught it.
    assert out["report"]["failure"] is None
    # An auditor that accepts the lax tolerance says so, and the audit then passes.
    code, out = audit(
        tmp_path / "proof", "--fraction", "1", "--seed", "t", "--max-tolerance", "0.1,1,32"
    )
    assert code == 0, out
    # More ensemble replays than the ceiling's measure wider spreads (and slow the audit).
    wide = zkdv.ZKDVConfig(tolerance=zkdv.Tolerance(spread=32.0, replays=64))
    run(tmp_path / "wide", 2, config=wide)
    code, out = audit(tmp_path / "wide", "--steps", "1", "--seed", "t")
    (tolerance,) = [e for e in out["report"]["expectations"] if e["name"] == "tolerance"]
    assert code == 1 and tolerance["status"] == "differs" and "replays 64" in tolerance["recorded"]
    code, out = audit(
        tmp_path / "wide", "--steps", "1", "--seed", "t", "--max-tolerance", "1e-6,1e-5,32,64"
    )
    assert code == 0, out
    bad = subprocess.run(
        [str(ZKDV_CLI), "audit", str(tmp_path / "proof"), "--max-tolerance", "0.1,x,32"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "--max-tolerance" in bad.stderr, bad.stderr
    for option in ("--max-noise", "--max-drift"):
        for value in ("0", "-1", "nan", "x"):
            bad = subprocess.run(
                [str(ZKDV_CLI), "audit", str(tmp_path / "proof"), f"{option}={value}"],
                capture_output=True,
                text=True,
                check=False,
            )
            assert bad.returncode == 2 and option in bad.stderr, (option, value, bad.stderr)


def test_the_programs_are_the_clients(tmp_path):
    # A prover that writes its cheat into the attested step too (here: learn from half of each
    # batch) produces a transcript whose checks all pass; the programs it commits are not the
    # ones the client's own code produces, which the client derives without training
    # (proof.lower_step), here in a process of its own.
    derive = (
        child_session(tmp_path / "client")
        + """
before = [p.clone() for p in model.parameters()]
proof._seal_package = True  # as a user's session: seal=False alone skips the seal
proof.lower_step(batches(1)[0], seal=False)
try:
    with proof.transaction(batch=batches(1)[0]):
        pass
except RuntimeError as e:
    assert "derives program hashes only" in str(e), e
else:
    raise AssertionError("a session that did not seal trained")
proof.close()
assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
"""
    )
    subprocess.run([sys.executable, "-W", "ignore", "-c", derive], check=True)
    client = transcript.program_hashes(tmp_path / "client")
    assert len(client) == 2  # the attested and the replay program
    (record,) = [r for r in transcript.read_records(tmp_path / "client") if r["kind"] == "program"]
    assert record["body"]["production"]["name"].endswith(".mlir")  # nothing was sealed
    assert transcript.verify(tmp_path / "client")["steps"] == 0  # nothing trained
    run(tmp_path / "proof", 4)
    flags = [a for h in client for a in ("--program", h)]
    code, out = audit(tmp_path / "proof", "--steps", "2", "--seed", "p", *flags)
    assert code == 0, out
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert status["programs"] == "matched"

    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof = zkdv.torch.ZKDV(tmp_path / "cheat", retain="all")
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def attested_step(model, optimizer, batch):
        inputs, targets = batch
        half = inputs.shape[0] // 2
        loss = functional.cross_entropy(proof.forward(model, inputs[:half]), targets[:half])
        proof.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

    for inputs, targets in batches(4):
        with proof.transaction(batch=(inputs, targets)):
            half = inputs.shape[0] // 2
            loss = functional.cross_entropy(model(inputs[:half]), targets[:half])
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    proof.close()
    code, out = audit(tmp_path / "cheat", "--steps", "2", "--seed", "p")
    assert code == 0, out  # without the client's programs, the cheat reproduces
    code, out = audit(tmp_path / "cheat", "--steps", "2", "--seed", "p", *flags)
    assert code == 1
    (programs,) = [e for e in out["report"]["expectations"] if e["name"] == "programs"]
    assert programs["status"] == "differs" and "attested program" in programs["note"]


def test_the_data_are_the_clients(tmp_path):
    # The client knows its dataset and the order its examples were to be seen in; a manifest
    # states both, and an audit checks every replayed step's batch against it. A prover that
    # swaps one row for another example (or duplicates rows) is caught by name.
    g = torch.Generator().manual_seed(3)
    inputs, targets = torch.randn(32, 10, generator=g), torch.randint(3, (32,), generator=g)
    order = [torch.randperm(32, generator=g)[:8].tolist() for _ in range(4)]
    examples = zip(inputs, targets, strict=True)
    root = zkdv.data.write_manifest(tmp_path / "data.json", examples, order)
    honest = [(inputs[idx], targets[idx]) for idx in order]
    run(tmp_path / "proof", 4, data=honest)
    manifest = str(tmp_path / "data.json")
    code, out = audit(tmp_path / "proof", "--steps", "2", "--seed", "d", "--data", manifest)
    assert code == 0, out
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert data["status"] == "matched" and data["expected"] == root

    swapped = [list(idx) for idx in order]
    swapped[2][5] = swapped[2][0]  # step 2 trains on example order[2][0] twice
    dishonest = [(inputs[idx], targets[idx]) for idx in swapped]
    run(tmp_path / "cheat", 4, data=dishonest)
    code, out = audit(tmp_path / "cheat", "--fraction", "1", "--seed", "d", "--data", manifest)
    assert code == 1
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert data["status"] == "differs" and "step 2's batch row 5" in data["note"], data
    assert out["report"]["failure"] is None  # the cheat itself reproduces
    # A manifest that does not match its own root is refused before anything runs.
    bad = tmp_path / "bad.json"
    bad.write_text((tmp_path / "data.json").read_text().replace(root, "0" * 64))
    result = subprocess.run(
        [str(ZKDV_CLI), "audit", str(tmp_path / "proof"), "--data", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and "root" in result.stderr


def test_a_run_shorter_than_the_clients_order_is_named(tmp_path):
    # The run's length is the client's: a prover that trains 3 of the 4 steps ordered (and
    # delivers that model) saves a step's compute; "data: matched" must not say otherwise.
    g = torch.Generator().manual_seed(3)
    inputs, targets = torch.randn(32, 10, generator=g), torch.randint(3, (32,), generator=g)
    order = [torch.randperm(32, generator=g)[:8].tolist() for _ in range(4)]
    zkdv.data.write_manifest(tmp_path / "data.json", zip(inputs, targets, strict=True), order)
    honest = [(inputs[idx], targets[idx]) for idx in order]
    manifest = str(tmp_path / "data.json")
    run(tmp_path / "short", 3, data=honest[:3])
    code, out = audit(tmp_path / "short", "--fraction", "1", "--seed", "d", "--data", manifest)
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert code == 1 and data["status"] == "differs", out
    assert "3 steps, the client's order 4" in data["note"] and "stopped before" in data["note"]
    run(tmp_path / "full", 4, data=honest)
    code, out = audit(tmp_path / "full", "--fraction", "1", "--seed", "d", "--data", manifest)
    (data,) = [e for e in out["report"]["expectations"] if e["name"] == "data"]
    assert code == 0 and data["status"] == "matched" and "the 4 steps" in data["note"], out


def test_the_initial_state_is_the_clients_optimizer_state_included(tmp_path):
    # --initial binds the parameters only: Adam's moments at step 0 were the prover's. The
    # client's own session hashes the whole state before its first step (proof.state_hash()),
    # and the audit holds the first snapshot to it.
    model, optimizer = mlp(), None
    proof = zkdv.torch.ZKDV(tmp_path / "client", retain="all")
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, torch.optim.AdamW(model.parameters(), lr=1e-2))
    expected = proof.state_hash()
    assert expected == proof.state_hash()  # hashing initializes nothing twice
    proof.close()

    run(tmp_path / "honest", 3)
    records = transcript.read_records(tmp_path / "honest")
    first = next(r["body"] for r in records if r["kind"] == "snapshot")
    assert first["state"].hex() == expected
    code, out = audit(
        tmp_path / "honest", "--steps", "1", "--seed", "s", "--initial-state", expected
    )
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 0 and status["initial state"]["status"] == "matched", out
    assert 0 in out["report"]["audited"]

    def preload(params):
        optimizer = torch.optim.AdamW(params, lr=1e-2)
        for p in optimizer.param_groups[0]["params"]:
            optimizer.state[p]["step"] = torch.tensor(0.0)
            optimizer.state[p]["exp_avg"] = torch.full_like(p, 0.05)
            optimizer.state[p]["exp_avg_sq"] = torch.zeros_like(p)
        return optimizer

    run(tmp_path / "preloaded", 3, optimizer=preload)
    code, out = audit(
        tmp_path / "preloaded", "--steps", "1", "--seed", "s",
        "--initial", zkdv.torch.model_hash(mlp()), "--initial-state", expected,
    )  # fmt: skip
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 1 and status["initial state"]["status"] == "differs", out
    assert status["initial model"]["status"] == "matched"  # the parameters alone do not say it
    assert out["report"]["failure"] is None
    # Without it, the report says whose the optimizer state was.
    code, out = audit(
        tmp_path / "preloaded", "--steps", "1", "--seed", "s",
        "--initial", zkdv.torch.model_hash(mlp()),
    )  # fmt: skip
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 0 and status["initial state"]["status"] == "not_given"
    assert "prover's to choose" in status["initial state"]["note"]


def test_the_learning_rate_is_read_when_the_optimizer_steps_and_bound_to_the_clients(
    tmp_path, monkeypatch
):
    # A widely copied GPT-2 loop sets each group's lr after backward(), inside the step, and
    # spells out AdamW's defaults (fused=False). The rate committed is the one the step used:
    # the checks pass, and the step record says it.
    def schedule(step: int) -> float:
        return 1e-2 * (step + 1) / 4

    def loop(directory: Path, rate) -> list[dict[str, float]]:
        used = []

        def set_rate(optimizer, step: int) -> None:
            for group in optimizer.param_groups:
                group["lr"] = rate(step)
            used.append(zkdv.torch.hyperparameters(optimizer))

        run(
            directory,
            4,
            optimizer=lambda p: torch.optim.AdamW(p, lr=1e-2, fused=False, foreach=False),
            config=zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1)),
            before_step=set_rate,
        )
        return used

    used = loop(tmp_path / "honest", schedule)
    assert [u["0/lr"] for u in used] == [schedule(s) for s in range(4)]
    assert transcript.verify(tmp_path / "honest")["status"] == "ok"
    steps = [r["body"] for r in transcript.read_records(tmp_path / "honest") if r["kind"] == "step"]
    committed = [{h["name"]: h["value"] for h in s["hyperparameters"]} for s in steps]
    assert committed == used and set(used[0]) == {"0/lr", "0/betas[0]"}
    shown = subprocess.run(
        [str(ZKDV_CLI), "inspect", str(tmp_path / "honest")], capture_output=True, text=True
    ).stdout
    assert "0/lr: 2.5e-3 at the first step, 1e-2 at the last, from 2.5e-3 to 1e-2 over 4" in shown
    clients = tmp_path / "hyper.json"
    zkdv.data.write_hyperparameters(
        clients, [{"0/lr": schedule(s), "0/betas[0]": 0.9} for s in range(4)]
    )
    args = ("--fraction", "1", "--seed", "h", "--hyperparameters", str(clients))
    code, out = audit(tmp_path / "honest", *args)
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 0 and status["hyperparameters"]["status"] == "matched", out

    # A prover's own rate at one step, honestly committed, is not the client's.
    loop(tmp_path / "steered", lambda s: schedule(s) * (3.0 if s == 2 else 1.0))
    code, out = audit(tmp_path / "steered", *args)
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 1 and status["hyperparameters"]["status"] == "differs", out
    note = status["hyperparameters"]["note"]
    assert "step 2 ran with 0/lr = 2.25e-2, the client's schedule says 7.5e-3" in note
    assert out["report"]["failure"] is None  # the steered run itself reproduces
    # The order ties each name to its argument: another order is not the client's.
    swapped = tmp_path / "swapped.json"
    zkdv.data.write_hyperparameters(
        swapped, [{"0/betas[0]": 0.9, "0/lr": schedule(s)} for s in range(4)]
    )
    args = ("--fraction", "1", "--seed", "h", "--hyperparameters", str(swapped))
    code, out = audit(tmp_path / "honest", *args)
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 1 and "names and order" in status["hyperparameters"]["note"], out
    # A prover whose records leave the rates out: the report says the program takes inputs no
    # record names, and the client's schedule fails.
    from zkdv.session import _records

    transition = _records.Records.transition

    def silent(self, **kwargs):
        kwargs.pop("hyperparameters", None)
        return transition(self, **kwargs)

    monkeypatch.setattr(_records.Records, "transition", silent)
    loop(tmp_path / "silent", schedule)
    monkeypatch.undo()
    code, out = audit(tmp_path / "silent", "--fraction", "1", "--seed", "h")
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert (
        code == 0
        and "2 scalar f64 inputs that no step record names" in status["hyperparameters"]["note"]
    )
    code, out = audit(tmp_path / "silent", *args)
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 1 and status["hyperparameters"]["status"] == "differs", out
    with pytest.raises(ValueError, match="same order"):
        zkdv.data.write_hyperparameters(swapped, [{"0/lr": 1.0, "b": 2.0}, {"b": 2.0, "0/lr": 1.0}])
