"""Random draws inside a PyTorch step (dropout, stochastic depth, noise) are recorded in
production, committed with the batch and fed to the attested program (``zkdv.torch``,
``zkdv/torch/_randomness.py``): honest runs pass every check, and a committed draw that is not
the one production used is caught."""

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

from torch import nn  # noqa: E402
from torch.nn import functional  # noqa: E402

import zkdv  # noqa: E402
from zkdv import transcript  # noqa: E402
from zkdv.torch import _randomness  # noqa: E402

torch.set_num_threads(1)
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

EVERY_STEP = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))


class Noisy(nn.Module):
    """Every kind of draw the frontend commits: ``nn.Dropout`` (an in-place ``bernoulli_`` on
    CPU), the fused ``native_dropout`` (CUDA's form), stochastic depth written as torchvision
    writes it, and out-of-place noise (``rand_like``)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(10, 16)
        self.dropout = nn.Dropout(0.3)
        self.second = nn.Linear(16, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.dropout(torch.tanh(self.first(x)))
        h, _ = torch.native_dropout(h, 0.25, True)
        keep = torch.empty(h.shape[0], 1, dtype=h.dtype).bernoulli_(0.8) / 0.8
        h = h + keep * torch.tanh(self.second(h))
        h = h + 0.01 * torch.rand_like(h)
        return self.head(h)


def batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1)
    return [
        (torch.randn(8, 10, generator=g), torch.randint(3, (8,), generator=g)) for _ in range(steps)
    ]


def train(
    tmp_path: Any,
    steps: int = 3,
    autocast: torch.dtype | None = None,
    production: Any = None,
) -> Any:
    torch.manual_seed(0)
    model = Noisy()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof = zkdv.torch.ZKDV(tmp_path / "proof", EVERY_STEP)
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Any) -> None:
        inputs, targets = batch
        with torch.autocast("cpu", dtype=autocast or torch.bfloat16, enabled=autocast is not None):
            loss = functional.cross_entropy(proof.forward(model, inputs), targets)
        proof.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

    for index, batch in enumerate(batches(steps)):
        with proof.transaction(batch=batch):
            if production is None:
                step(model, optimizer, batch)
            else:
                production(step, model, optimizer, batch, index)
    return proof


def test_dropout_stochastic_depth_and_noise_are_committed_and_pass_every_check(tmp_path):
    proof = train(tmp_path)
    proof.close()
    assert proof.checks and all(c.passed for c in proof.checks)
    assert {c.kind for c in proof.checks} == {"state", "update"}
    assert transcript.verify(tmp_path / "proof")["steps"] == 3
    draws = proof._registry.first.program().traced.draws
    assert [d.op for d in draws] == [
        "aten.bernoulli_.float",
        "aten.native_dropout.default",
        "aten.bernoulli_.float",
        "aten.rand_like.default",
    ]
    assert draws[1].shape == (8, 16) and draws[2].shape == (8, 1)


def test_dropout_under_bf16_autocast_passes_every_check(tmp_path):
    proof = train(tmp_path, autocast=torch.bfloat16)
    proof.close()
    assert proof.checks and all(c.passed for c in proof.checks)


def test_a_committed_draw_that_is_not_the_one_production_used_is_caught(tmp_path, monkeypatch):
    # A prover that commits another dropout mask than the one its step drew: the replay with
    # the committed mask is not the production update.
    matched = _randomness.matched

    def forged(recorded: Any, expected: Any) -> list[torch.Tensor]:
        drawn = matched(recorded, expected)
        drawn[0] = drawn[0].clone()
        drawn[0].view(-1)[:4] = 1.0 - drawn[0].view(-1)[:4]
        return drawn

    monkeypatch.setattr(_randomness, "matched", forged)
    # Step 0's check fails on the committer thread: the poison surfaces at the next
    # transaction or at close(), whichever comes after it (a loaded machine decides which).
    with pytest.raises(zkdv.ZKDVPoisonedError) as raised:
        train(tmp_path, steps=2).close()
    assert raised.value.step == 0


def test_a_step_that_draws_otherwise_than_its_program_is_refused(tmp_path):
    def production(step: Any, model: Any, optimizer: Any, batch: Any, index: int) -> None:
        step(model, optimizer, batch)
        if index == 1:
            torch.rand(3)  # a draw the committed program does not make

    # Raised at the transaction's end, or by the next call where the step ran while its
    # program was still being traced beside it.
    with pytest.raises(RuntimeError, match=r"drew 5 random tensors, where the committed"):
        train(tmp_path, steps=2, production=production).close()
