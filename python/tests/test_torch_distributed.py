"""``zkdv.torch`` under DistributedDataParallel and composable FSDP: two gloo ranks on this
machine (a file rendezvous), each writing its own transcript, with every step checked.

Each rank's transition is its optimizer applied to the all-reduced gradient, which the rank
commits with its batch; the replay in the Rust runtime recomputes that transition. The ranks
are spawned processes (``torch.multiprocessing.spawn``), so each test takes some seconds.
"""

import json
import subprocess
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from _cli import require_cli  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:torch"),
]

WORLD = 2
STEPS = 4


def _model(kind: str) -> nn.Module:
    torch.manual_seed(0)
    if kind == "cnn":
        return nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(4 * 6 * 6, 3),
        )
    return nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))


def _batches(kind: str, rank: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    # Every rank draws its own shard of the data.
    g = torch.Generator().manual_seed(100 + rank)
    shape = (8, 1, 6, 6) if kind == "cnn" else (8, 10)
    return [
        (torch.randn(*shape, generator=g), torch.randint(3, (8,), generator=g))
        for _ in range(STEPS)
    ]


def _rank(rank: int, out: str, kind: str, mode: str) -> None:
    """One rank: train ``STEPS`` steps under ZKDV and write what happened to ``out``."""
    torch.set_num_threads(1)
    # A file rendezvous: no port to race for with other processes on the machine.
    dist.init_process_group(
        "gloo", init_method=f"file://{out}/rendezvous", rank=rank, world_size=WORLD
    )
    result: dict = {}
    try:
        model = _model(kind)
        if mode == "frozen":
            # Fine-tuning with a frozen first layer; the optimizer holds every parameter.
            model[0].requires_grad_(False)
        if kind == "fsdp":
            from torch.distributed.device_mesh import init_device_mesh
            from torch.distributed.fsdp import fully_shard

            mesh = init_device_mesh("cpu", (WORLD,))
            for layer in model:
                if isinstance(layer, nn.Linear):
                    fully_shard(layer, mesh=mesh)
            ddp = fully_shard(model, mesh=mesh)
        else:
            ddp = DDP(model, forward_sync_buffers=mode == "broadcast")
        optimizer = torch.optim.AdamW(ddp.parameters(), lr=1e-2, weight_decay=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
        config = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
        proof = zkdv.torch.ZKDV(Path(out) / f"rank{rank}", config, retain="all")
        zkdv.testing.skip_seal(proof)
        proof.start(rolling_window=8, probe_ratio=0.25)
        ddp, optimizer = proof.prepare(ddp, optimizer)

        @proof.attest
        def attested_step(model, optimizer, batch):
            inputs, targets = batch
            loss = functional.cross_entropy(proof.forward(model, inputs), targets)
            proof.backward(loss)
            if mode == "clip":
                nn.utils.clip_grad_norm_(model.parameters(), 0.05)
            optimizer.step()
            optimizer.zero_grad()

        for step, (inputs, targets) in enumerate(_batches(kind, rank)):
            faulty = rank == 1 and step == STEPS - 1
            with proof.transaction(batch=(inputs, targets)):
                loss = functional.cross_entropy(ddp(inputs), targets)
                if mode == "gradient" and faulty:
                    # A faulty backward on this rank: its gradient enters the all-reduce wrong.
                    model[0].weight.register_hook(lambda g: g * 1.001)
                proof.backward(loss)
                if mode == "clip":
                    # Clipping the all-reduced gradient, as every LLM recipe does.
                    nn.utils.clip_grad_norm_(ddp.parameters(), 0.05)
                optimizer.step()
                optimizer.zero_grad()
                # A fault on the last step, so the poison is raised by close() (a poisoned rank
                # refuses its next transaction, which would stall the other rank's collectives).
                if mode == "fault" and faulty:
                    with torch.no_grad():
                        weight = model[0].weight
                        if kind == "fsdp":
                            weight = weight.to_local()  # this rank's shard
                        weight[0, 0] += 1e-3
            scheduler.step()
        try:
            proof.close()
            result["closed"] = True
        except zkdv.ZKDVPoisonedError as error:
            result["poisoned"] = {"step": error.step, "kind": error.kind}
        result["checks"] = [c.passed for c in proof.checks]
        result["params"] = [
            (p.full_tensor() if kind == "fsdp" else p).detach().reshape(-1).tolist()
            for p in model.parameters()
        ]
    except Exception as error:  # reported to the test, which asserts on it
        result["error"] = f"{type(error).__name__}: {error}"
    finally:
        dist.destroy_process_group()
    (Path(out) / f"rank{rank}.json").write_text(json.dumps(result))


def audited(directory: Path) -> list[int]:
    """The steps ``zkdv audit --fraction 1`` audited in ``directory`` (it must pass)."""
    result = subprocess.run(
        [
            str(require_cli()),
            "audit",
            str(directory),
            "--fraction",
            "1",
            "--seed",
            "ranks",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(result.stdout)
    assert result.returncode == 0, report
    return report["report"]["audited"]


def run_ranks(tmp_path: Path, kind: str = "mlp", mode: str = "honest") -> list[dict]:
    mp.spawn(_rank, args=(str(tmp_path), kind, mode), nprocs=WORLD, join=True)
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(WORLD)]


@pytest.mark.parametrize(
    ("kind", "mode"),
    [("mlp", "honest"), ("cnn", "honest"), ("mlp", "clip"), ("cnn", "frozen")],
)
def test_ddp_ranks_write_their_own_transcripts_and_pass_every_check(tmp_path, kind, mode):
    # The CNN's BatchNorm statistics are rank-local state (DDP with forward_sync_buffers=False).
    # With clipping, the rank's own gradient (recorded before the all-reduce) is unclipped
    # while the applied one is clipped; the replay must keep them apart. A frozen layer takes
    # no part in the all-reduce, and its rank commits no gradient of it.
    results = run_ranks(tmp_path, kind, mode)
    for rank, result in enumerate(results):
        assert "error" not in result, result.get("error")
        assert result["closed"] and len(result["checks"]) == 2 * STEPS and all(result["checks"])
        directory = tmp_path / f"rank{rank}"
        assert transcript.verify(directory)["steps"] == STEPS
        root = transcript.read_records(directory)[0]["body"]
        assert root["rank"] == {"rank": rank, "world_size": WORLD, "backend": "gloo"}
    # Both ranks applied the same all-reduced gradients: DDP keeps their parameters equal.
    assert results[0]["params"] == results[1]["params"]
    if mode == "frozen":
        initial = [p.detach().reshape(-1).tolist() for p in _model(kind)[0].parameters()]
        assert results[0]["params"][: len(initial)] == initial
    # Each rank's transcript is audited alone, its own gradients' sketches included.
    for rank in range(WORLD):
        assert audited(tmp_path / f"rank{rank}") == list(range(STEPS))


@pytest.mark.parametrize("kind", ["mlp", "fsdp"])
def test_a_fault_on_one_rank_poisons_that_rank_only(tmp_path, kind):
    results = run_ranks(tmp_path, kind, mode="fault")
    assert "error" not in results[0] and results[0]["closed"] and all(results[0]["checks"])
    assert results[1]["poisoned"] == {"step": STEPS - 1, "kind": "state"}
    assert transcript.read_records(tmp_path / "rank1")[-1]["body"]["status"] == "poisoned"


@pytest.mark.parametrize("mode", ["honest", "frozen"])
def test_fsdp_ranks_commit_their_shards_and_pass_every_check(tmp_path, mode):
    # Composable FSDP (fully_shard): each rank's transition is the optimizer on its own
    # parameter and state shards, from its reduce-scattered gradient shard (none for a frozen
    # layer's).
    results = run_ranks(tmp_path, "fsdp", mode)
    for rank, result in enumerate(results):
        assert "error" not in result, result.get("error")
        assert result["closed"] and len(result["checks"]) == 2 * STEPS and all(result["checks"])
        directory = tmp_path / f"rank{rank}"
        assert transcript.verify(directory)["steps"] == STEPS
        root = transcript.read_records(directory)[0]["body"]
        assert root["rank"]["world_size"] == WORLD
        # The committed layout is the rank's shard of each parameter.
        assert root["params"][0]["shape"] == [16 // WORLD, 10]
        assert audited(directory) == list(range(STEPS))
    assert results[0]["params"] == results[1]["params"]


def test_a_wrong_gradient_from_one_rank_is_caught_on_that_rank(tmp_path):
    # Rank 1's local gradient is checked against its replay; rank 0 applied the (wrong) mean
    # it received correctly, and its own gradient was right.
    results = run_ranks(tmp_path, mode="gradient")
    assert "error" not in results[0] and results[0]["closed"] and all(results[0]["checks"])
    assert results[1]["poisoned"] == {"step": STEPS - 1, "kind": "state"}


def test_broadcast_buffers_are_refused_with_the_fix(tmp_path):
    results = run_ranks(tmp_path, kind="cnn", mode="broadcast")
    for result in results:
        assert "forward_sync_buffers=False" in result["error"]
