"""An averaged model (an EMA or SWA of the weights) as state of a PyTorch session: prepared,
committed, checked in process and bound by an audit (``--final-averaged``)."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

from _cli import require_cli  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional  # noqa: E402
from torch.optim.swa_utils import (  # noqa: E402
    AveragedModel,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
)

import zkdv  # noqa: E402
import zkdv.testing  # noqa: E402
from zkdv import transcript  # noqa: E402

torch.set_num_threads(1)
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:torch"),
]

EVERY_STEP = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
NEVER = zkdv.ZKDVConfig(
    sampling_policy=zkdv.SamplingPolicy(state_check_probability=0.0, update_check_probability=0.0)
)


def model_with_batchnorm() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))


def batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1)
    return [
        (torch.randn(16, 6, generator=g), torch.randint(3, (16,), generator=g))
        for _ in range(steps)
    ]


def started(directory: Path, config: zkdv.ZKDVConfig | None = None, **session) -> zkdv.torch.ZKDV:
    """A started session that does not seal (sealing is tested elsewhere)."""
    proof = zkdv.torch.ZKDV(directory, config, **session)
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    return proof


def run_steps(proof, model, optimizer, step, data: list) -> None:
    """Attest ``step(model, optimizer, batch, backward)`` and run it on each batch of
    ``data`` in a transaction, as production."""

    @proof.attest
    def attested(model, optimizer, batch):
        step(model, optimizer, batch, proof.backward)

    for batch in data:
        with proof.transaction(batch=batch):
            step(model, optimizer, batch, proof.backward)


def updating(update=None):
    """The loop's step (cross-entropy, the optimizer's step) ending with
    ``update(model, *rest)``, ``rest`` the batch's leaves after the inputs and targets."""

    def step(model, optimizer, batch, backward):
        inputs, targets, *rest = batch
        backward(functional.cross_entropy(model(inputs), targets))
        optimizer.step()
        optimizer.zero_grad()
        if update is not None:
            update(model, *rest)

    return step


def hand_kept(decay: float, foreach: bool = False):
    """A hand-written EMA of the parameters, the buffers copied (a loop's own); with
    ``foreach``, as timm's ``ModelEmaV3`` writes it (``_foreach_mul_``, ``_foreach_add_``)."""

    @torch.no_grad()
    def update(ema: nn.Module, model: nn.Module) -> None:
        if foreach:
            mine, theirs = list(ema.parameters()), list(model.parameters())
            torch._foreach_mul_(mine, decay)
            torch._foreach_add_(mine, theirs, alpha=1 - decay)
        else:
            for e, p in zip(ema.parameters(), model.parameters(), strict=True):
                e.mul_(decay).add_(p, alpha=1 - decay)
        for e, b in zip(ema.buffers(), model.buffers(), strict=True):
            e.copy_(b)

    return update


AVERAGED = {
    "ema-foreach": lambda m: AveragedModel(m, multi_avg_fn=get_ema_multi_avg_fn(0.9)),
    "ema-per-tensor": lambda m: AveragedModel(m, avg_fn=get_ema_avg_fn(0.9)),
    "swa": lambda m: AveragedModel(m),
    "ema-with-buffers": lambda m: AveragedModel(
        m, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True
    ),
    "hand-kept": lambda m: copy.deepcopy(m).requires_grad_(False),
    "hand-kept-foreach": lambda m: copy.deepcopy(m).requires_grad_(False),
}


def train(
    directory: Path,
    kind: str,
    steps: int = 5,
    *,
    config: zkdv.ZKDVConfig | None = EVERY_STEP,
    production_decay: float = 0.9,
    between=None,
    **session,
):
    """Train with an averaged model of ``kind`` updated in every transaction; production's
    hand-kept EMA uses ``production_decay`` (the attested step's is 0.9). Returns the session,
    the model and the averaged model."""
    model = model_with_batchnorm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    averaged = AVERAGED[kind](model)
    proof = started(directory, config, **session)
    if kind.startswith("hand-kept"):
        foreach = kind == "hand-kept-foreach"
        model, optimizer = proof.prepare(model, optimizer, averaged=averaged)
        attested_update = hand_kept(0.9, foreach)
        production_update = hand_kept(production_decay, foreach)
    else:
        model, optimizer, averaged = proof.prepare(model, optimizer, averaged)

        def attested_update(ema, model):
            ema.update_parameters(model)

        production_update = attested_update

    @proof.attest
    def step(model, optimizer, batch):
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()
        attested_update(averaged, model)

    for i, (inputs, targets) in enumerate(batches(steps)):
        with proof.transaction(batch=(inputs, targets)):
            proof.backward(functional.cross_entropy(model(inputs), targets))
            optimizer.step()
            optimizer.zero_grad()
            production_update(averaged, model)
        if between is not None:
            between(i, averaged)
    return proof, model, averaged


@pytest.mark.parametrize("kind", list(AVERAGED))
def test_an_averaged_model_is_committed_and_passes_every_check(tmp_path, kind):
    proof, model, averaged = train(tmp_path / "proof", kind)
    proof.close()
    assert len(proof.checks) == 10 and all(c.passed for c in proof.checks)
    root = transcript.read_records(tmp_path / "proof")[0]["body"]
    paths = [leaf["path"] for leaf in root["opt_state"] if leaf["path"].startswith("averaged/")]
    assert "averaged/params/0.weight" in paths and "averaged/buffers/1.running_mean" in paths
    assert ("averaged/n_averaged" in paths) == (not kind.startswith("hand-kept"))
    # Production is eager and unchanged: the same loop without a session averages the same.
    plain_model = model_with_batchnorm()
    plain_optimizer = torch.optim.AdamW(plain_model.parameters(), lr=1e-2)
    plain = AVERAGED[kind](plain_model)
    for inputs, targets in batches(5):
        functional.cross_entropy(plain_model(inputs), targets).backward()
        plain_optimizer.step()
        plain_optimizer.zero_grad()
        if kind.startswith("hand-kept"):
            hand_kept(0.9, kind == "hand-kept-foreach")(plain, plain_model)
        else:
            plain.update_parameters(plain_model)
    for a, b in zip(averaged.state_dict().values(), plain.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_an_averaged_model_that_production_updates_otherwise_fails_its_state_check(tmp_path):
    # Production's EMA decays at 0.5 where the committed step says 0.9: the delivered average
    # is not the one the run commits to, and the state check replays it.
    with pytest.raises(zkdv.ZKDVPoisonedError) as failed:
        proof, _, _ = train(tmp_path / "proof", "hand-kept", steps=3, production_decay=0.5)
        proof.close()
    assert failed.value.kind == "state"


def test_an_averaged_model_changed_between_steps_fails_the_continuity_check(tmp_path):
    def nudge(step, averaged):
        if step == 1:
            with torch.no_grad():
                next(averaged.parameters()).add_(1e-3)

    with pytest.raises(zkdv.ZKDVPoisonedError) as failed:
        proof, _, _ = train(tmp_path / "proof", "ema-foreach", steps=4, between=nudge)
        proof.close()
    assert "averaged/params/0.weight" in str(failed.value)
    assert "inside the transaction and the attested step" in str(failed.value)


def test_prepare_refuses_what_is_not_an_averaged_copy(tmp_path):
    proof = zkdv.torch.ZKDV(tmp_path / "proof")
    proof.start(rolling_window=8, probe_ratio=0.25)
    model = model_with_batchnorm()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError, match="prepare the model before its averaged copy"):
        proof.prepare(AveragedModel(model))
    proof.prepare(model, optimizer)
    with pytest.raises(ValueError, match="shares '0.weight' with the model"):
        proof.prepare(averaged=model)
    with pytest.raises(TypeError, match="an nn.Module"):
        proof.prepare(averaged=torch.zeros(3))
    proof.prepare(averaged=copy.deepcopy(model))
    with pytest.raises(RuntimeError, match="an averaged model is already prepared"):
        proof.prepare(AveragedModel(model))
    proof.close()


@pytest.mark.parametrize("kind", ["ema-foreach", "hand-kept"])
def test_an_unprepared_averaged_model_is_refused_with_its_fix(tmp_path, kind):
    model = model_with_batchnorm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    averaged = AVERAGED[kind](model)
    update = hand_kept(0.9) if kind == "hand-kept" else (lambda e, m: e.update_parameters(m))
    proof = started(tmp_path / "proof")
    model, optimizer = proof.prepare(model, optimizer)
    step = updating(lambda model: update(averaged, model))
    fix = "proof.prepare(model, optimizer, ema)" if kind != "hand-kept" else "averaged=ema"
    refused = fix.replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=refused):
        run_steps(proof, model, optimizer, step, batches(1))
        proof.join()  # traced beside training, the refusal is raised by the next call
    with pytest.raises(ValueError, match=refused):
        proof.close()  # and by close(): nothing was committed
    assert not (tmp_path / "proof" / "records.cborl").exists()


def audit(directory: Path, *args: str) -> tuple[int, dict]:
    result = subprocess.run(
        [str(require_cli()), "audit", str(directory), "--json", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, json.loads(result.stdout)


def test_the_audit_binds_the_delivered_averaged_model(tmp_path):
    require_cli()
    proof, _, averaged = train(
        tmp_path / "proof", "ema-foreach", steps=4, config=NEVER, retain="all"
    )
    proof.close()
    delivered = zkdv.torch.model_hash(averaged)
    assert delivered == zkdv.torch.model_hash(averaged.module)
    code, out = audit(
        tmp_path / "proof", "--steps", "1", "--seed", "a", "--final-averaged", delivered
    )
    assert code == 0, out
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert status["final averaged model"]["status"] == "matched"
    assert 3 in out["report"]["audited"]  # the last step, replayed into the final state
    # A safetensors file of the averaged module's parameters is the same model.
    import safetensors.torch

    safetensors.torch.save_file(averaged.module.state_dict(), str(tmp_path / "ema.safetensors"))
    code, out = audit(
        tmp_path / "proof", "--steps", "1", "--seed", "a",
        "--final-averaged", str(tmp_path / "ema.safetensors"),
    )  # fmt: skip
    assert code == 0, out
    # Another model (the trained one, not its average) is not the delivered average.
    code, out = audit(
        tmp_path / "proof", "--steps", "1", "--seed", "a",
        "--final-averaged", zkdv.torch.model_hash(model_with_batchnorm()),
    )  # fmt: skip
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 1 and status["final averaged model"]["status"] == "differs", out
    # Not given, the report says the delivered average was not checked.
    code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", "a")
    status = {e["name"]: e for e in out["report"]["expectations"]}
    assert code == 0 and status["final averaged model"]["status"] == "not_given", out


def test_the_audit_catches_an_averaged_model_production_updated_otherwise(tmp_path):
    # No in-process check ran (p = 0): the audit's replay reaches the final state, whose
    # averaged leaves are not what the committed step computes.
    proof, _, averaged = train(
        tmp_path / "proof", "hand-kept", steps=3, config=NEVER, retain="all", production_decay=0.5
    )
    proof.close()
    code, out = audit(tmp_path / "proof", "--fraction", "1", "--seed", "a")
    failure = out["report"]["failure"]
    assert code == 1 and failure is not None, out
    assert "averaged/" in json.dumps(failure), failure


def test_a_decay_that_warms_up_reaches_the_step_in_the_batch(tmp_path):
    # diffusers' EMAModel and timm's ModelEmaV3 warm the decay up with the step. A Python
    # number in the attested step is a constant of its program, so the loop passes the
    # step's decay as a tensor of the batch, which is committed with it.
    model = model_with_batchnorm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    ema = copy.deepcopy(model).requires_grad_(False)
    proof = started(tmp_path / "proof", EVERY_STEP)
    model, optimizer = proof.prepare(model, optimizer, averaged=ema)

    @torch.no_grad()
    def update(ema, model, decay):
        for e, p in zip(ema.parameters(), model.parameters(), strict=True):
            e.lerp_(p, 1 - decay)

    @proof.attest
    def step(model, optimizer, batch):
        inputs, targets, decay = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()
        update(ema, model, decay)

    for i, (inputs, targets) in enumerate(batches(4)):
        decay = torch.tensor(min(0.999, (1 + i) / (10 + i)))
        with proof.transaction(batch=(inputs, targets, decay)):
            proof.backward(functional.cross_entropy(model(inputs), targets))
            optimizer.step()
            optimizer.zero_grad()
            update(ema, model, decay)
    proof.close()
    assert len(proof.checks) == 8 and all(c.passed for c in proof.checks)


def test_a_tensor_made_a_number_is_refused_with_what_to_do(tmp_path):
    # torch._foreach_lerp_ takes its weight as a number: a tensor weight is turned into one
    # (.item()), whose arithmetic torch-mlir emits outside StableHLO. The refusal says so in
    # a PyTorch user's words, not only the passes'.
    model = model_with_batchnorm()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ema = copy.deepcopy(model).requires_grad_(False)
    proof = started(tmp_path / "proof")
    model, optimizer = proof.prepare(model, optimizer, averaged=ema)

    @torch.no_grad()
    def update(model, decay):
        torch._foreach_lerp_(list(ema.parameters()), list(model.parameters()), 1 - decay)

    data = [(inputs, targets, torch.tensor(0.9)) for inputs, targets in batches(1)]
    with pytest.raises(RuntimeError, match="turns a tensor into a Python number") as failed:
        run_steps(proof, model, optimizer, updating(update), data)
        proof.close()
    assert "tensor.lerp_(other, weight)" in str(failed.value)


def test_an_ema_after_a_grad_scaler_step_reads_the_weights_the_scaler_kept(tmp_path):
    # float16's loss scaling skips a step whose gradients overflow: the EMA then averages
    # the weights the scaler kept, not the ones an overflowing step would have made.
    model = model_with_batchnorm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**40)
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    proof = started(tmp_path / "proof", EVERY_STEP)
    model, optimizer, scaler, ema = proof.prepare(model, optimizer, scaler, ema)

    def step(model, optimizer, batch, backward):
        inputs, targets = batch
        with torch.autocast("cpu", dtype=torch.float16):
            loss = functional.cross_entropy(model(inputs), targets)
        backward(scaler.scale(loss))
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        ema.update_parameters(model)

    run_steps(proof, model, optimizer, step, batches(3))
    proof.close()
    assert scaler.get_scale() < 2.0**40  # some step overflowed and was skipped
    assert all(torch.isfinite(p).all() for p in ema.parameters())
    assert len(proof.checks) == 6 and all(c.passed for c in proof.checks)


def test_an_average_of_a_compiled_model_is_named_as_the_model(tmp_path):
    # AveragedModel(torch.compile(model)) copies the compiled wrapper, whose parameters are
    # its _orig_mod's: the leaves take the model's own names, which model_hash uses too.
    model = model_with_batchnorm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    ema = AveragedModel(torch.compile(model), multi_avg_fn=get_ema_multi_avg_fn(0.9))
    proof = started(tmp_path / "proof", EVERY_STEP, retain="all")
    model, optimizer, ema = proof.prepare(model, optimizer, ema)
    run_steps(proof, model, optimizer, updating(ema.update_parameters), batches(2))
    proof.close()
    assert len(proof.checks) == 4 and all(c.passed for c in proof.checks)
    root = transcript.read_records(tmp_path / "proof")[0]["body"]
    paths = [leaf["path"] for leaf in root["opt_state"] if leaf["path"].startswith("averaged/")]
    assert "averaged/params/0.weight" in paths, paths
    code, out = audit(
        tmp_path / "proof", "--steps", "1", "--seed", "a",
        "--final-averaged", zkdv.torch.model_hash(ema),
    )  # fmt: skip
    status = {e["name"]: e["status"] for e in out["report"]["expectations"]}
    assert code == 0 and status["final averaged model"] == "matched", out


def test_an_averaged_model_given_for_a_run_that_kept_none_is_not_recorded(tmp_path):
    # The client expects an averaged model the session never committed: the audit fails on
    # it (exit 1) rather than match the trained model in its place.
    model = model_with_batchnorm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof = started(tmp_path / "proof", NEVER, retain="all")
    model, optimizer = proof.prepare(model, optimizer)
    run_steps(proof, model, optimizer, updating(), batches(2))
    proof.close()
    given = ("--final-averaged", zkdv.torch.model_hash(model))
    code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", "a", *given)
    status = {e["name"]: e for e in out["report"]["expectations"]}
    averaged = status["final averaged model"]
    assert code == 1 and averaged["status"] == "not_recorded", out
    assert "prepared none" in averaged["note"]
    # Not given, a run without one says nothing of it.
    code, out = audit(tmp_path / "proof", "--steps", "1", "--seed", "a")
    assert code == 0 and "final averaged model" not in {
        e["name"] for e in out["report"]["expectations"]
    }, out


def test_an_unprepared_copy_written_through_a_view_is_refused(tmp_path):
    # A write through a view of a captured tensor is a write to it: refused at tracing, as a
    # write to the tensor itself is.
    model = model_with_batchnorm()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ema = copy.deepcopy(model).requires_grad_(False)
    proof = started(tmp_path / "proof")
    model, optimizer = proof.prepare(model, optimizer)

    @torch.no_grad()
    def update(model):
        for e, p in zip(ema.parameters(), model.parameters(), strict=True):
            e.view(-1).mul_(0.9).add_(p.view(-1), alpha=0.1)

    with pytest.raises(ValueError, match="averaged=ema"):
        run_steps(proof, model, optimizer, updating(update), batches(1))
        proof.join()
    with pytest.raises(ValueError, match="averaged=ema"):
        proof.close()


@pytest.mark.parametrize("kind", ["ema-foreach", "swa", "hand-kept"])
def test_an_averaged_bf16_model_passes_every_check(tmp_path, kind):
    # A model trained in bfloat16 averages in bfloat16: the average's rounding is the
    # program's, and the checks' tolerance covers it as any other bf16 state's.
    model = model_with_batchnorm().to(torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    averaged = AVERAGED[kind](model)
    proof = started(tmp_path / "proof", EVERY_STEP)
    if kind == "hand-kept":
        model, optimizer = proof.prepare(model, optimizer, averaged=averaged)
        update = hand_kept(0.9)
    else:
        model, optimizer, averaged = proof.prepare(model, optimizer, averaged)

        def update(ema, model):
            ema.update_parameters(model)

    data = [(inputs.to(torch.bfloat16), targets) for inputs, targets in batches(4)]
    run_steps(proof, model, optimizer, updating(lambda m: update(averaged, m)), data)
    proof.close()
    assert len(proof.checks) == 8 and all(c.passed for c in proof.checks)
    assert next(averaged.parameters()).dtype == torch.bfloat16
