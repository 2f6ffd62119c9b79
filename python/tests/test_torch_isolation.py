"""The attested step traced beside training (zkdv.torch.lowering.isolation): the first
transaction does not wait for its trace, production never sees the traced tensors, the
program is the one a trace on the training thread gives, and a refusal found there is the
session's."""

from __future__ import annotations

import contextlib
import copy
import threading

import pytest
import torch
from torch import nn
from torch.nn import functional

import zkdv
import zkdv.testing
import zkdv.torch
from zkdv import transcript
from zkdv.torch.lowering import isolation

EVERY_STEP = zkdv.ZKDVConfig(
    sampling_policy=zkdv.SamplingPolicy(state_check_probability=1, update_check_probability=1)
)


def mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))


def data(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(1)
    return [
        (torch.randn(8, 10, generator=g), torch.randint(3, (8,), generator=g)) for _ in range(steps)
    ]


def started(tmp_path, model, optimizer, attested, config=EVERY_STEP, name="proof"):
    proof = zkdv.torch.ZKDV(tmp_path / name, config)
    zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    model, optimizer = proof.prepare(model, optimizer)
    proof.attest(lambda m, o, b: attested(proof, m, o, b))
    return proof, model, optimizer


def plain_step(proof, model, optimizer, batch):
    inputs, targets = batch
    proof.backward(functional.cross_entropy(proof.forward(model, inputs), targets))
    optimizer.step()
    optimizer.zero_grad()


def eager(model, optimizer, batch):
    inputs, targets = batch
    functional.cross_entropy(model(inputs), targets).backward()
    optimizer.step()
    optimizer.zero_grad()


def test_a_view_shows_the_tracing_thread_its_own_tensors_and_every_other_thread_the_real_ones():
    model = mlp()
    real = model[0].weight
    views = isolation.Views(model.modules())
    seen: dict[str, object] = {}

    def trace() -> None:
        with views.owned():
            model[0]._parameters["weight"] = torch.zeros(16, 10)
            seen["traced"] = model[0].weight
            seen["named"] = dict(model.named_parameters())["0.weight"]
        seen["after"] = model[0].weight

    thread = threading.Thread(target=trace)
    thread.start()
    thread.join()
    assert model[0].weight is real  # this thread never saw the swap
    assert dict(model.named_parameters())["0.weight"] is real
    assert seen["traced"] is not real and seen["named"] is seen["traced"]
    assert seen["after"] is real  # the thread owns the view only while it traces
    copied = copy.deepcopy(model)  # a copy taken while the views are installed
    assert type(copied[0]._parameters) is dict
    assert torch.equal(copied[0].weight, real) and copied[0].weight is not real
    views.remove()
    assert type(model[0]._parameters) is dict and model[0].weight is real


def test_the_first_transaction_returns_while_its_step_is_traced_and_production_sees_its_own_model(
    tmp_path,
):
    # The trace waits inside the attested step (the root reparametrized with traced tensors)
    # until the loop has run its first step and looked at the model: traced on the training
    # thread, it would wait in vain.
    release, tracing = threading.Event(), threading.Event()
    waited: list[bool] = []

    def attested(proof, model, optimizer, batch):
        tracing.set()
        waited.append(release.wait(timeout=60))
        plain_step(proof, model, optimizer, batch)

    model = mlp()
    real = [p for p in model.parameters()]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    proof, model, optimizer = started(tmp_path, model, optimizer, attested)
    batches = data(4)
    with proof.transaction(batch=batches[0]):
        assert tracing.wait(timeout=60)
        assert [p for p in model.parameters()] == real  # the real parameters, not traced ones
        eager(model, optimizer, batches[0])
    release.set()
    for batch in batches[1:]:
        with proof.transaction(batch=batch):
            eager(model, optimizer, batch)
    proof.close()
    assert waited == [True]
    assert len(proof.checks) == 8 and all(c.passed for c in proof.checks)
    assert type(model[0]._parameters) is dict  # the views are gone
    assert transcript.verify(tmp_path / "proof")["steps"] == 4


def test_the_step_traced_beside_training_is_the_one_traced_on_the_training_thread(tmp_path):
    # lower_step traces on the calling thread; a transaction beside training. One program.
    hashes = []
    for name, lower in (("lowered", True), ("trained", False)):
        model = mlp()
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        proof, model, optimizer = started(tmp_path, model, optimizer, plain_step, name=name)
        batch = data(1)[0]
        if lower:
            proof.lower_step(batch)
        else:
            with proof.transaction(batch=batch):
                eager(model, optimizer, batch)
        proof.close()
        hashes.append(transcript.program_hashes(tmp_path / name)[0])
    assert hashes[0] == hashes[1]


def test_a_refusal_found_beside_training_is_raised_by_the_next_call_and_commits_nothing(tmp_path):
    other = nn.Linear(10, 3)

    def attested(proof, model, optimizer, batch):
        inputs, targets = batch
        proof.backward(functional.cross_entropy(proof.forward(other, inputs), targets))
        optimizer.step()

    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    proof, model, optimizer = started(tmp_path, model, optimizer, attested)
    batches = data(3)
    with proof.transaction(batch=batches[0]):
        eager(model, optimizer, batches[0])
    with pytest.raises(ValueError, match=r"proof\.prepare"):
        for batch in batches[1:]:
            proof.join()  # the trace ends here at the latest
            with proof.transaction(batch=batch):
                eager(model, optimizer, batch)
    with pytest.raises(ValueError, match=r"proof\.prepare"):
        proof.close()
    assert not (tmp_path / "proof" / "records.cborl").exists()


def test_autocast_around_the_transaction_is_traced_with_the_step(tmp_path):
    # The loop's autocast, entered around the transaction, is the training thread's; the
    # trace beside it runs under the same autocast.
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof, model, optimizer = started(tmp_path, model, optimizer, plain_step)
    for batch in data(4):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            with proof.transaction(batch=batch):
                eager(model, optimizer, batch)
    proof.close()
    assert len(proof.checks) == 8 and all(c.passed for c in proof.checks)


class _DropoutAttention(nn.Module):
    """Self-attention through ``scaled_dot_product_attention`` with attention dropout and no
    mask, as BERT's SDPA attention calls it in training."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.qkv = nn.Linear(8, 24)
        self.head = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).view(x.shape[0], 4, 2, 3, 4).permute(3, 0, 2, 1, 4)
        out = functional.scaled_dot_product_attention(q, k, v, dropout_p=0.1, scale=0.5)
        return self.head(out.transpose(1, 2).reshape(x.shape[0], 4, 8).mean(1))


def test_attention_dropout_under_autocast_inside_the_step_draws_as_production(tmp_path):
    # bf16 autocast entered inside the step, as the Trainer's does: the trace beside training
    # draws the attention dropout's mask in float32, as production does (the math backend
    # widens 16-bit inputs and computes inside autocast's call with autocast off).
    def step(proof, model, optimizer, batch):
        inputs, targets = batch
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = functional.cross_entropy(proof.forward(model, inputs), targets)
        proof.backward(loss)
        optimizer.step()
        optimizer.zero_grad()

    model = _DropoutAttention()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    proof, model, optimizer = started(tmp_path, model, optimizer, step)
    g = torch.Generator().manual_seed(2)
    batches = [(torch.randn(2, 4, 8, generator=g), torch.randint(3, (2,), generator=g))] * 3
    for batch in batches:
        with proof.transaction(batch=batch):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = functional.cross_entropy(model(batch[0]), batch[1])
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    proof.close()
    assert len(proof.checks) == 6 and all(c.passed for c in proof.checks)


@pytest.mark.parametrize(
    ("module", "why"),
    [
        (nn.LSTM(4, 4), "recurrent"),
        (nn.TransformerEncoderLayer(8, 2, 16), "MultiheadAttention"),
        (torch.compile(nn.Linear(4, 4)), "compiled"),
    ],
)
def test_what_a_trace_must_set_for_the_whole_process_keeps_it_on_the_training_thread(module, why):
    assert why in (isolation.concurrent_refusal(module.modules()) or "")
    assert isolation.concurrent_refusal(mlp().modules()) is None
    with torch.device("cpu"):  # a torch function mode around the transaction
        assert "mode" in (isolation.concurrent_refusal(mlp().modules()) or "")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_attention_chosen_per_thread_traces_as_the_process_wide_backend_flags_do(dtype):
    # On the training thread the math backend is also set for the whole process (for the
    # calls the mode does not see); beside training only the mode chooses. In 16 bits, both
    # trace the attention CPU flash attention computes as that kernel rounds.
    from torch.fx.experimental.proxy_tensor import make_fx

    from zkdv.torch.lowering.attention import kernels

    def attention(q, k, v, mask, keep):
        sdpa = functional.scaled_dot_product_attention
        out = sdpa(q, k, v, is_causal=True) + sdpa(q, k, v, attn_mask=mask)
        out = out + sdpa(q, k, v, attn_mask=keep, scale=0.3)
        out = out + sdpa(q, k[:, :2], v[:, :2], enable_gqa=True)
        return torch.autograd.grad(out.sum(), [q, k, v])

    g = torch.Generator().manual_seed(0)
    qkv = [torch.randn(2, 4, 8, 16, generator=g, dtype=dtype, requires_grad=True) for _ in "qkv"]
    masks = [torch.randn(8, 8, generator=g), torch.rand(8, 8, generator=g) > 0.3]
    with kernels(process_wide=True):
        flags = make_fx(attention, tracing_mode="fake")(*qkv, *masks)
    with kernels(process_wide=False):
        mode = make_fx(attention, tracing_mode="fake")(*qkv, *masks)
    assert mode.code == flags.code


@pytest.mark.parametrize("autocast", [None, torch.bfloat16, torch.float16])
def test_attention_the_mode_computes_in_math_form_traces_as_the_math_backend_does(autocast):
    # Where production runs the math backend (float32 attention, or any with dropout), the
    # mode's math form traces op for op what the backend flags alone trace, under autocast
    # too: autocast casts the inputs of scaled_dot_product_attention and runs its inside with
    # autocast off. Called directly, the math op's inner products were cast back to 16 bits,
    # and BERT's and T5's dropout masks were drawn in bfloat16 where production drew float32.
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from zkdv.torch.lowering.attention import kernels
    from zkdv.torch.lowering.decompositions import default_decompositions

    def attention(x, w, mask, keep):
        context = torch.autocast("cpu", dtype=autocast) if autocast else contextlib.nullcontext()
        with context:
            q, k, v = x @ w, x @ w.t(), x @ (w * 0.5)
            sdpa = functional.scaled_dot_product_attention
            dropout = 0.1 if autocast else 0.0
            out = sdpa(q, k, v, dropout_p=dropout, scale=0.25)
            out = out + sdpa(q, k, v, attn_mask=mask, dropout_p=dropout)
            out = out + sdpa(q, k, v, attn_mask=keep, dropout_p=dropout, is_causal=False)
            out = out + sdpa(q, k, v, is_causal=True, dropout_p=dropout)
        return torch.autograd.grad(out.float().sum(), [x, w])

    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 4, 8, 16, generator=g, requires_grad=True)
    w = torch.randn(16, 16, generator=g, requires_grad=True)
    masks = [torch.randn(8, 8, generator=g), torch.rand(8, 8, generator=g) > 0.3]
    table = default_decompositions()
    with sdpa_kernel(SDPBackend.MATH):
        flags = make_fx(attention, table, tracing_mode="fake")(x, w, *masks)
    with kernels(process_wide=False):
        mode = make_fx(attention, table, tracing_mode="fake")(x, w, *masks)
    assert mode.code == flags.code
    drawn = [n.meta["val"].dtype for n in mode.graph.nodes if "bernoulli" in str(n.target)]
    assert drawn == ([torch.float32] * 4 if autocast else [])


def test_a_compiled_function_in_the_loop_runs_beside_the_trace(tmp_path):
    # torch.fx's tracing flag is the process's: while the step is traced beside it, the
    # loop's compiled loss runs as the Python it wraps instead of raising (dynamo refuses to
    # run under an FX trace), and every check passes.
    release, tracing = threading.Event(), threading.Event()
    compiled = torch.compile(functional.cross_entropy, backend="eager")

    def attested(proof, model, optimizer, batch):
        tracing.set()
        release.wait(timeout=60)
        plain_step(proof, model, optimizer, batch)

    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    proof, model, optimizer = started(tmp_path, model, optimizer, attested)
    for index, (inputs, targets) in enumerate(data(3)):
        with proof.transaction(batch=(inputs, targets)):
            if index == 0:
                assert tracing.wait(timeout=60)
            compiled(model(inputs), targets).backward()
            optimizer.step()
            optimizer.zero_grad()
        release.set()
    proof.close()
    assert len(proof.checks) == 6 and all(c.passed for c in proof.checks)
