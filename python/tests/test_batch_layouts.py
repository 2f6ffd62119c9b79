"""A batch whose shape changes mid-run: one committed program per batch layout.

The partial last batch of a ``DataLoader(drop_last=False)`` (fewer rows) and bucketed sequence
lengths (another sequence length) in both frontends: ``proof.jit`` retraces as ``jax.jit`` does
and a torch transaction lowers a program for the new layout; every step is checked with its own
program, the transcript verifies with one program record per layout, a tamper at a step of the
second layout is caught, and ``zkdv audit`` replays a retained run across both layouts.
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import zkdv
from zkdv import transcript

EVERY_STEP = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
"""Every step's state and update checks run."""

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:torch"),
]


def _verified(directory, steps: int, programs: int) -> dict:
    report = transcript.verify(directory)
    assert report["status"] == "ok"
    assert (report["steps"], report["programs"]) == (steps, programs)
    # Every step checked, each with its own program (a check of another layout's batch
    # could not have run, let alone passed).
    assert report["checks"]["state_passed"] == steps
    assert report["checks"]["update_passed"] == steps
    return report


# -- PyTorch ------------------------------------------------------------------------------------


def _torch():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_mlir")
    torch.set_num_threads(1)
    return torch


def _torch_session(directory, model, optimizer, retain=None):
    from torch.nn import functional

    proof = zkdv.torch.ZKDV(directory, EVERY_STEP, retain=retain)
    zkdv.testing.skip_seal(proof)  # AOT sealing takes tens of seconds per program
    proof.start(rolling_window=4, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)

    @proof.attest
    def attested_step(model, optimizer, batch):
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
        optimizer.step()
        optimizer.zero_grad()

    return proof


def _torch_train(proof, model, optimizer, batches, fault_at=None):
    import torch
    from torch.nn import functional

    for step, (inputs, targets) in enumerate(batches):
        with proof.transaction(batch=(inputs, targets)):
            proof.backward(functional.cross_entropy(model(inputs), targets))
            optimizer.step()
            optimizer.zero_grad()
            if step == fault_at:
                with torch.no_grad():
                    next(model.parameters()).view(-1)[3] += 1e-2


def _loader_batches(epochs: int = 2):
    """Two epochs of a DataLoader over 20 examples, batch_size 8, drop_last=False: rows 8, 8,
    4 per epoch."""
    torch = _torch()
    from torch.utils.data import DataLoader, TensorDataset

    g = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(20, 10, generator=g), torch.randint(3, (20,), generator=g))
    loader = DataLoader(data, batch_size=8, shuffle=False, drop_last=False)
    batches = [b for _ in range(epochs) for b in loader]
    assert [len(x) for x, _ in batches] == [8, 8, 4] * epochs
    return batches


def _mlp():
    torch = _torch()
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


def test_torch_partial_last_batch_commits_a_program_per_layout(tmp_path):
    torch = _torch()
    model = _mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    proof = _torch_session(tmp_path / "proof", model, optimizer)
    reference = _mlp()
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    batches = _loader_batches()
    _torch_train(proof, model, optimizer, batches)
    proof.close()
    _verified(tmp_path / "proof", steps=6, programs=2)
    assert all(check.passed for check in proof.checks) and len(proof.checks) == 12
    # Production ran eagerly, as without ZKDV.
    for inputs, targets in batches:
        loss = torch.nn.functional.cross_entropy(reference(inputs), targets)
        loss.backward()
        reference_optimizer.step()
        reference_optimizer.zero_grad()
    for ours, theirs in zip(model.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(ours, theirs, rtol=0, atol=0)


def test_torch_tamper_at_a_partial_batch_step_is_caught(tmp_path):
    torch = _torch()
    model = _mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    proof = _torch_session(tmp_path / "proof", model, optimizer)
    with pytest.raises(zkdv.ZKDVPoisonedError) as raised:
        try:
            # Step 2 is the first epoch's partial batch (4 rows), the second program's first.
            _torch_train(proof, model, optimizer, _loader_batches(), fault_at=2)
        finally:
            proof.close()  # records the failure in the close record
    assert raised.value.step == 2
    assert transcript.inspect(tmp_path / "proof")["status"] == "poisoned"


class _Bag:
    """An embedding and a mean over the sequence: any sequence length runs."""

    @staticmethod
    def torch_model():
        torch = _torch()
        torch.manual_seed(0)

        class Bag(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.embed = torch.nn.Embedding(11, 6)
                self.head = torch.nn.Linear(6, 3)

            def forward(self, tokens):
                return self.head(self.embed(tokens).mean(dim=1))

        return Bag()


def _buckets(lengths=(5, 7, 5, 7, 7, 5), rows: int = 4):
    rng = np.random.default_rng(3)
    return [
        (rng.integers(0, 11, (rows, n)).astype(np.int64), rng.integers(0, 3, rows).astype(np.int64))
        for n in lengths
    ]


def test_torch_bucketed_sequence_lengths(tmp_path):
    torch = _torch()
    model = _Bag.torch_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    proof = _torch_session(tmp_path / "proof", model, optimizer)
    batches = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in _buckets()]
    _torch_train(proof, model, optimizer, batches)
    proof.close()
    _verified(tmp_path / "proof", steps=6, programs=2)


def test_torch_only_the_batch_shapes_may_change(tmp_path):
    torch = _torch()
    model = _mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    proof = _torch_session(tmp_path / "proof", model, optimizer)
    x, y = torch.randn(8, 10), torch.randint(3, (8,))
    _torch_train(proof, model, optimizer, [(x, y)])
    with pytest.raises(ValueError, match="dtypes differ"), proof.transaction(batch=(x, y.int())):
        pass
    with pytest.raises(ValueError, match="structure differs"), proof.transaction(batch=[x]):
        pass
    model.eval()
    with pytest.raises(RuntimeError, match="train/eval mode changed"):
        with proof.transaction(batch=(x[:4], y[:4])):
            pass
    model.train()
    proof.close()
    _verified(tmp_path / "proof", steps=1, programs=1)


def test_zkdv_audit_replays_a_retained_run_across_layouts(tmp_path):
    from _cli import require_cli

    cli = require_cli()
    torch = _torch()
    model = _mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof = _torch_session(tmp_path / "proof", model, optimizer, retain="all")
    _torch_train(proof, model, optimizer, _loader_batches())
    proof.close()
    _verified(tmp_path / "proof", steps=6, programs=2)
    result = subprocess.run(
        [str(cli), "audit", str(tmp_path / "proof"), "--json", "--fraction", "1", "--seed", "s"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)["report"]
    assert report["audited"] == list(range(6)) and report["failure"] is None
    assert report["transitions"] == 6


# -- JAX ----------------------------------------------------------------------------------------


def _jax():
    jax = pytest.importorskip("jax")
    pytest.importorskip("flax")
    pytest.importorskip("optax")
    return jax


def _jax_session(directory):
    proof = zkdv.jax.ZKDV(directory, EVERY_STEP)
    proof.start(rolling_window=2, probe_ratio=0.01)
    return proof


def _jax_loader(epochs: int = 2):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20, 8)).astype(np.float32)
    y = rng.integers(0, 4, 20).astype(np.int32)
    return [(x[i : i + 8], y[i : i + 8]) for _ in range(epochs) for i in range(0, 20, 8)]


def test_jax_partial_last_batch_retraces_and_commits_a_program_per_layout(tmp_path):
    jax = _jax()
    import jax_steps

    proof = _jax_session(tmp_path / "proof")
    state, _ = jax_steps.mlp(proof, features=8)
    plain, _ = jax_steps.mlp(proof, features=8)
    step = proof.jit(jax_steps.train_step)
    reference = jax.jit(jax_steps.train_step)
    batches = _jax_loader()
    assert [len(x) for x, _ in batches] == [8, 8, 4] * 2
    for x, y in batches:
        state, _ = step(state, x, y)
        plain, _ = reference(plain, x, y)
    proof.close()
    _verified(tmp_path / "proof", steps=6, programs=2)
    leaves = zip(jax.tree.leaves(state.params), jax.tree.leaves(plain.params), strict=True)
    for ours, theirs in leaves:
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def test_jax_tamper_at_a_partial_batch_step_is_caught(tmp_path):
    _jax()
    import jax_steps

    proof = _jax_session(tmp_path / "proof")
    state, _ = jax_steps.mlp(proof, features=8)
    step = proof.jit(jax_steps.train_step)

    def corrupt(index, parts):
        # An execution fault at step 2, the first partial batch: one parameter moves off.
        if index == 2:
            parts["post_params"][0] = parts["post_params"][0].at[0].add(1.0)

    zkdv.testing.corrupt_production(proof, corrupt)
    with pytest.raises(zkdv.ZKDVPoisonedError) as raised:
        try:
            for x, y in _jax_loader():
                state, _ = step(state, x, y)
        finally:
            proof.close()  # records the failure in the close record
    # Caught by the state check of the next step, whose replay from the snapshot of step 0
    # runs steps 0 and 1 with the full batch's program and step 2 with the partial one's.
    assert (raised.value.step, raised.value.kind) == (3, "state")
    assert transcript.inspect(tmp_path / "proof")["status"] == "poisoned"


def test_jax_bucketed_sequence_lengths(tmp_path):
    jax = _jax()
    import flax.linen as nn
    import jax.numpy as jnp
    import optax

    class Bag(nn.Module):
        @nn.compact
        def __call__(self, tokens):
            return nn.Dense(3)(nn.Embed(11, 6)(tokens).mean(axis=1))

    proof = _jax_session(tmp_path / "proof")
    model = Bag()
    params = model.init(jax.random.key(0), jnp.zeros((1, 5), jnp.int32))["params"]
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.sgd(0.1, momentum=0.9)
    )

    def train_step(state, tokens, labels):
        def loss(params):
            logits = state.apply_fn({"params": params}, tokens)
            return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

        value, grads = jax.value_and_grad(loss)(state.params)
        return state.apply_gradients(grads=grads), value

    step = proof.jit(train_step)
    for tokens, labels in _buckets():
        state, _ = step(state, tokens.astype(np.int32), labels.astype(np.int32))
    with pytest.raises(ValueError, match="only a batch leaf's shape may change"):
        step(state, tokens.astype(np.float32), labels.astype(np.int32))
    proof.close()
    _verified(tmp_path / "proof", steps=6, programs=2)
