"""Soundness figures: false alarms and margins of honest runs, and which faults are caught.

Honest runs. Each model family trains under ``proof.jit`` with every step checked
(``SamplingPolicy.DEBUGCheckEvery(1)``), its layers computing in bf16, f16 or f32 (parameters
and optimizer state stay f32, as mixed-precision training keeps them). Reported per family and
compute dtype: whether any check failed (a false alarm) and the margin, the largest
``|committed - recomputed| / allowed difference`` over the run's checks, per check kind (the
state check's sketches, the update check's parameter-update and optimizer-state values). A
margin of 0.1 means the tolerance is ten times the largest honest difference.

Faults. A small MLP (bf16, f16 and f32 compute) has faults injected into production:

- ``update``: production scales one leaf's update by ``1 + r`` from step 5 on (a miscompile;
  the attested program, ``proof.attest``, computes the honest update);
- ``params``: one parameter leaf nudged by ``r`` times its RMS between steps 5 and 6;
- ``opt-state``: one optimizer-state leaf scaled by ``1 + r`` between steps 5 and 6;
- ``batch``: one bit of a committed batch flipped after it was committed (exact: any change);
- ``opt-state before a snapshot``: the optimizer-state leaf doubled just before a snapshot step.

For each ``r`` of a range, five sessions (each with its own challenge key) train 20 steps at
``DEBUGCheckEvery(1)``; the table gives the smallest ``r`` from which on every session was
poisoned.

Sampling. With ``state_check_probability = update_check_probability = p`` and one faulty
step (the ``update`` fault with ``r = 1`` at step 5 only), the fraction of seeds (sessions,
each with its own challenge key) whose run is poisoned, against the rate the protocol
predicts: ``p`` times the fraction of coordinates at which the fault exceeds the bound (measured
on the same model's honest checks).

Cost. One ensemble member's run of each fixture's attested program against a plain run.

Usage: ``scripts/bench soundness [--steps N] [--seeds S] [--quick]
[--only honest|faults|rates|cost] [--json FILE]``. ``--quick`` is the size
``python/tests/test_jax_soundness.py`` runs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from common import ROOT, table

import zkdv

DTYPES = {"bf16": jnp.bfloat16, "f16": jnp.float16, "f32": jnp.float32}
EVERY = zkdv.SamplingPolicy.DEBUGCheckEvery(1)


# -- model families: ordinary Flax code, layers in `dtype`, parameters in f32 ------------------


class Decoder(nn.Module):
    """A pre-LayerNorm decoder block with causal attention and a gelu MLP, tied embedding."""

    dtype: Any
    vocab: int = 64
    width: int = 32
    heads: int = 4
    hidden: int = 64

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        embed = nn.Embed(self.vocab, self.width)
        x = embed(tokens)
        h = nn.LayerNorm(dtype=self.dtype)(x)
        mask = nn.make_causal_mask(tokens)
        h = nn.MultiHeadDotProductAttention(
            num_heads=self.heads, dtype=self.dtype, deterministic=True
        )(h, mask=mask)
        x = x + h
        h = nn.LayerNorm(dtype=self.dtype)(x)
        h = nn.Dense(self.hidden, dtype=self.dtype)(h)
        h = nn.Dense(self.width, dtype=self.dtype)(nn.gelu(h))
        return embed.attend((x + h).astype(jnp.float32))


class Cnn(nn.Module):
    """Two convolutions with BatchNorm and relu, global average pooling, a dense head."""

    dtype: Any

    @nn.compact
    def __call__(self, x: jax.Array, train: bool) -> jax.Array:
        for features in (8, 16):
            x = nn.Conv(features, (3, 3), dtype=self.dtype)(x)
            x = nn.BatchNorm(use_running_average=not train, momentum=0.9, dtype=self.dtype)(x)
            x = nn.relu(x)
        return nn.Dense(10, dtype=self.dtype)(x.mean(axis=(1, 2))).astype(jnp.float32)


class Mlp(nn.Module):
    dtype: Any

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(64, dtype=self.dtype)(x))
        x = nn.relu(nn.Dense(64, dtype=self.dtype)(x))
        return nn.Dense(10, dtype=self.dtype)(x).astype(jnp.float32)


class Rnn(nn.Module):
    """An Elman RNN over the sequence (``nn.RNN``, a ``jax.lax.scan``), a dense head."""

    dtype: Any

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        carry = jnp.zeros((x.shape[0], 32), self.dtype)  # the carry in the compute dtype
        h = nn.RNN(nn.SimpleCell(32, dtype=self.dtype))(x.astype(self.dtype), initial_carry=carry)
        return nn.Dense(4, dtype=self.dtype)(h[:, -1]).astype(jnp.float32)


class TopK(nn.Module):
    """A mixture of four experts with top-2 routing (``jax.lax.top_k``)."""

    dtype: Any
    experts: int = 4
    hidden: int = 32

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        router = nn.Dense(self.experts, dtype=self.dtype)(x)
        weights, chosen = jax.lax.top_k(router, 2)
        gate = jax.nn.softmax(weights.astype(jnp.float32), axis=-1).astype(self.dtype)
        w_in = self.param("w_in", nn.initializers.lecun_normal(), (self.experts, 16, self.hidden))
        w_out = self.param("w_out", nn.initializers.lecun_normal(), (self.experts, self.hidden, 1))
        h = nn.gelu(jnp.einsum("bf,efh->beh", x.astype(self.dtype), w_in.astype(self.dtype)))
        y = jnp.einsum("beh,eho->beo", h, w_out.astype(self.dtype))[..., 0]  # [batch, experts]
        picked = jnp.take_along_axis(y, chosen, axis=-1)
        return (picked * gate).sum(-1).astype(jnp.float32)


class BatchNormState(zkdv.jax.contrib.TrainState):
    batch_stats: Any


@dataclass
class Family:
    """A model family: its state, its step (ordinary Flax code) and a batch generator."""

    name: str
    make: Callable[[Any, Any], tuple[Any, Callable[..., Any], Callable[[int], Iterator[Any]]]]


def decoder(proof: Any, dtype: Any) -> tuple[Any, Callable[..., Any], Callable[[int], Any]]:
    model, micro = Decoder(dtype), 2
    params = model.init(jax.random.key(0), jnp.zeros((1, 16), jnp.int32))["params"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(3e-4, weight_decay=0.1))
    state = zkdv.jax.contrib.TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=tx
    )

    def step(state: Any, tokens: jax.Array) -> Any:
        def loss(p: Any, t: jax.Array) -> jax.Array:
            logits = state.apply_fn({"params": p}, t[:, :-1])
            return optax.softmax_cross_entropy_with_integer_labels(logits, t[:, 1:]).mean()

        def accumulate(i: jax.Array, g: Any) -> Any:  # gradient accumulation over micro-batches
            gi = jax.grad(loss)(state.params, jax.lax.dynamic_index_in_dim(tokens, i, 0, False))
            return jax.tree.map(lambda a, b: a + b / micro, g, gi)

        zeros = jax.tree.map(jnp.zeros_like, state.params)
        return state.apply_gradients(grads=jax.lax.fori_loop(0, micro, accumulate, zeros))

    def batches(n: int) -> Iterator[Any]:
        rng = np.random.default_rng(1)
        for _ in range(n):
            yield (rng.integers(0, model.vocab, (micro, 4, 17)).astype(np.int32),)

    return state, step, batches


def batch_norm_step(state: Any, x: jax.Array, y: jax.Array) -> Any:
    """The step of Flax's BatchNorm guide: mutable ``batch_stats``, replaced after the update
    (``python/tests/test_jax_flax.py`` trains it too)."""

    def loss(p: Any) -> tuple[jax.Array, Any]:
        logits, updates = state.apply_fn(
            {"params": p, "batch_stats": state.batch_stats},
            x,
            train=True,
            mutable=["batch_stats"],
        )
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), updates

    (_, updates), grads = jax.value_and_grad(loss, has_aux=True)(state.params)
    return state.apply_gradients(grads=grads).replace(batch_stats=updates["batch_stats"])


def cnn(proof: Any, dtype: Any) -> tuple[Any, Callable[..., Any], Callable[[int], Any]]:
    model = Cnn(dtype)
    variables = model.init(jax.random.key(0), jnp.zeros((1, 8, 8, 1)), train=False)
    state = BatchNormState.create(
        proof=proof,
        apply_fn=model.apply,
        params=variables["params"],
        tx=optax.adam(1e-3),
        batch_stats=variables["batch_stats"],
    )

    def batches(n: int) -> Iterator[Any]:
        rng = np.random.default_rng(2)
        for _ in range(n):
            x = rng.normal(size=(16, 8, 8, 1)).astype(np.float32)
            yield x, (np.abs(x).mean(axis=(1, 2, 3)) * 10).astype(np.int32) % 10

    return state, batch_norm_step, batches


def supervised(
    model: nn.Module, tx: optax.GradientTransformation, shape: tuple[int, ...], classes: int
) -> Callable[[Any], tuple[Any, Callable[..., Any], Callable[[int], Any]]]:
    """A classifier (``classes > 1``) or regressor (``classes == 1``) on random inputs."""

    def make(proof: Any) -> tuple[Any, Callable[..., Any], Callable[[int], Any]]:
        params = model.init(jax.random.key(0), jnp.zeros((1, *shape[1:])))["params"]
        state = zkdv.jax.contrib.TrainState.create(
            proof=proof, apply_fn=model.apply, params=params, tx=tx
        )

        def step(state: Any, x: jax.Array, y: jax.Array) -> Any:
            def loss(p: Any) -> jax.Array:
                out = state.apply_fn({"params": p}, x)
                if classes == 1:
                    return jnp.mean((out - y) ** 2)
                return optax.softmax_cross_entropy_with_integer_labels(out, y).mean()

            return state.apply_gradients(grads=jax.grad(loss)(state.params))

        def batches(n: int) -> Iterator[Any]:
            rng = np.random.default_rng(3)
            w = rng.normal(size=(int(np.prod(shape[1:])), max(classes, 1)))
            for _ in range(n):
                x = rng.normal(size=shape).astype(np.float32)
                z = x.reshape(shape[0], -1) @ w
                y = z[:, 0].astype(np.float32) if classes == 1 else np.argmax(z, 1)
                yield x, y.astype(np.float32 if classes == 1 else np.int32)

        return state, step, batches

    return make


FAMILIES: dict[str, Callable[[Any, Any], Any]] = {
    "decoder": decoder,
    "cnn-batchnorm": cnn,
    "mlp": lambda proof, dt: supervised(Mlp(dt), optax.sgd(0.05, momentum=0.9), (32, 32), 10)(
        proof
    ),
    "rnn-scan": lambda proof, dt: supervised(Rnn(dt), optax.adam(1e-3), (16, 8, 8), 4)(proof),
    "top-k": lambda proof, dt: supervised(TopK(dt), optax.adamw(1e-3), (16, 16), 1)(proof),
}
"""Family name -> ``make(proof, dtype) -> (state, step, batches)``."""

HONEST = [(f, d) for f in FAMILIES for d in ("bf16", "f32")] + [
    ("decoder", "f16"),
    ("mlp", "f16"),
]
"""The honest runs: every family in bf16 with its f32 control, and two families in f16."""


# -- honest runs --------------------------------------------------------------------------------


@dataclass
class Honest:
    family: str
    dtype: str
    steps: int
    failed: str | None = None
    checks: int = 0
    margins: dict[str, float] = field(default_factory=dict)
    tolerance: str = ""
    seconds: float = 0.0
    detectable: list[float] = field(default_factory=list)
    """Per update check: the smallest ``r`` whose ``r * |delta|`` exceeds the allowed bound."""


def margins_of(checks: list[zkdv.CheckResult]) -> dict[str, float]:
    out = {"state": 0.0, "update Δ": 0.0, "update opt": 0.0}
    for check in checks:
        for position, (c, r) in enumerate(zip(check.committed, check.recomputed, strict=True)):
            allowed = check.tolerance.bound(c, check.spread_of(position))
            key = "state" if check.kind == "state" else ("update Δ", "update opt")[position]
            ratio = abs(c - r) / allowed if allowed > 0 else (math.inf if c != r else 0.0)
            out[key] = max(out[key], ratio)
    return out


def honest(family: str, dtype: str, steps: int, directory: Path) -> Honest:
    proof = zkdv.jax.ZKDV(
        directory / f"{family}-{dtype}",
        zkdv.ZKDVConfig(sampling_policy=EVERY),
        replay_snapshot_interval=4,
    )
    proof.start(rolling_window=1, probe_ratio=0.05)
    proof._checker.always_measure_spread = True  # margins against the whole bound
    state, step, batches = FAMILIES[family](proof, DTYPES[dtype])
    train = proof.jit(step, donate_argnums=(0,))
    result = Honest(family, dtype, steps)
    start = time.perf_counter()
    try:
        for batch in batches(steps):
            state = train(state, *batch)
        proof.close()
    except zkdv.ZKDVPoisonedError as error:
        result.failed = str(error)
    result.seconds = time.perf_counter() - start
    result.checks = len(proof.checks)
    result.margins = margins_of(proof.checks)
    if proof.checks:
        t = proof.checks[0].tolerance
        result.tolerance = f"{t.abs:g} + {t.rel:g}|c|" + (
            f" + {t.spread:g}·spread({t.replays})" if t.replays else ""
        )
    for check in proof.checks:
        if check.kind == "update" and check.committed[0] != 0.0:
            c = check.committed[0]
            result.detectable.append(check.tolerance.bound(c, check.spread_of(0)) / abs(c))
    return result


# -- faults -------------------------------------------------------------------------------------

FEATURES, CLASSES, ROWS = 16, 4, 16


class FaultMlp(nn.Module):
    dtype: Any

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(32, dtype=self.dtype)(x))
        return nn.Dense(CLASSES, dtype=self.dtype)(x).astype(jnp.float32)


def unpack(batch: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The packed batch: features (f32 bits), label, and the fault factor ``1 + r`` (f32 bits)."""
    x = jax.lax.bitcast_convert_type(batch[:, :FEATURES], jnp.float32)
    y = batch[:, FEATURES].astype(jnp.int32)
    factor = jax.lax.bitcast_convert_type(batch[0, FEATURES + 1], jnp.float32)
    return x, y, factor


class FaultRun:
    """An explicit-``Transaction`` MLP session whose production can scale one leaf's update."""

    LEAF = ("Dense_0", "kernel")  # 16x32 = 512 of the 676 parameters

    def __init__(self, directory: Path, dtype: str, policy: Any, seed_tag: str = "") -> None:
        self.model = FaultMlp(DTYPES[dtype])
        self.tx = optax.adam(1e-2)
        self.proof = zkdv.jax.ZKDV(
            directory / f"fault-{dtype}{seed_tag}-{time.perf_counter_ns()}",
            zkdv.ZKDVConfig(sampling_policy=policy),
            replay_snapshot_interval=4,
        )
        self.proof.start(rolling_window=1, probe_ratio=0.1)
        model, tx = self.model, self.tx

        def loss(params: Any, batch: jax.Array) -> jax.Array:
            x, y, _ = unpack(batch)
            logits = model.apply({"params": params}, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        @self.proof.jit(donate_argnums=(0,))
        def step(params: Any, opt_state: Any, batch: jax.Array) -> Any:
            transaction = zkdv.jax.Transaction(batch=batch, params=params, opt_state=opt_state)
            updates, new_opt_state = tx.update(jax.grad(loss)(params, batch), opt_state, params)
            _, _, factor = unpack(batch)
            a, b = self.LEAF
            updates = {**updates, a: {**updates[a], b: updates[a][b] * factor}}  # the fault
            new_params = optax.apply_updates(params, updates)
            transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
            return new_params, new_opt_state

        @self.proof.attest
        def attested(params: Any, opt_state: Any, batch: jax.Array, pi: Any, oi: Any) -> Any:
            updates, new_opt_state = tx.update(jax.grad(loss)(params, batch), opt_state, params)
            return zkdv.jax.index(updates, pi), zkdv.jax.index(new_opt_state, oi)

        self.step = step
        self.params = model.init(jax.random.key(0), jnp.zeros((1, FEATURES)))["params"]
        # The faulty leaf's coordinates in the flat parameter index (tree order).
        start = 0
        for path, leaf in jax.tree_util.tree_flatten_with_path(self.params)[0]:
            if tuple(k.key for k in path) == self.LEAF:
                self.leaf_range = range(start, start + leaf.size)
            start += leaf.size
        self.opt_state = tx.init(self.params)
        self.rng = np.random.default_rng(5)
        self.w = self.rng.normal(size=(FEATURES, CLASSES))

    def batch(self, factor: float) -> np.ndarray:
        x = self.rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
        y = np.argmax(x @ self.w, axis=1).astype(np.uint32)[:, None]
        f = np.full((ROWS, 1), np.float32(factor)).view(np.uint32)
        return np.concatenate([x.view(np.uint32), y, f], axis=1)

    def run(self, steps: int, fault: str, r: float, at: int = 5, once: bool = False) -> bool:
        """Train ``steps`` steps with ``fault`` of size ``r``; whether the run was poisoned.

        ``update`` scales the update from step ``at`` on (only at ``at`` when ``once``); the
        other faults happen between steps ``at`` and ``at + 1``: ``params``, ``opt-state``, and
        ``batch`` (the retained batch of step ``at``, which later checks of the same snapshot
        segment replay, flipped in one bit). With the snapshot interval of 4, ``at + 1`` should
        not be a multiple of 4: see ``docs/soundness.md`` for an edit just before a snapshot.
        """
        a, b = self.LEAF
        try:
            for i in range(steps):
                factor = 1.0
                if fault == "update" and (i == at if once else i >= at):
                    factor = 1.0 + r
                if i == at + 1 and fault == "params":
                    p = self.params[a][b]
                    nudge = r * float(jnp.sqrt(jnp.mean(p**2)))
                    self.params = {**self.params, a: {**self.params[a], b: p.at[0, 0].add(nudge)}}
                if i == at + 1 and fault == "opt-state":
                    mu = self.opt_state[0].mu
                    mu = {**mu, a: {**mu[a], b: mu[a][b] * (1 + r)}}
                    self.opt_state = (self.opt_state[0]._replace(mu=mu), *self.opt_state[1:])
                if i == at + 1 and fault == "batch":
                    self.proof.join()
                    segment = self.proof._segment  # the retained batches of this segment
                    assert segment is not None and segment.step <= at
                    segment.batches[at - segment.step][0, 0] ^= 1
                batch = self.batch(factor)
                self.params, self.opt_state = self.step(self.params, self.opt_state, batch)
        except zkdv.ZKDVPoisonedError:
            poisoned = True
        else:
            poisoned = False
        try:
            self.proof.close()
        except zkdv.ZKDVPoisonedError:
            poisoned = True
        return poisoned


R_VALUES = [1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0]


def thresholds(
    dtypes: list[str], directory: Path, steps: int, repeats: int
) -> dict[str, dict[str, Any]]:
    """Per dtype and fault: the smallest r of R_VALUES caught in each of ``repeats`` sessions
    (each with its own challenge key, so other coordinates), and how many caught each r."""
    out: dict[str, dict[str, Any]] = {}
    for dtype in dtypes:
        out[dtype] = {}
        for fault in ("update", "params", "opt-state"):
            caught = {
                r: sum(
                    FaultRun(directory, dtype, EVERY, f"-{k}").run(steps, fault, r)
                    for k in range(repeats)
                )
                for r in R_VALUES
            }
            always = [r for r in R_VALUES if all(caught[q] == repeats for q in R_VALUES if q >= r)]
            out[dtype][fault] = {"smallest": always[0] if always else None, "caught": caught}
        out[dtype]["batch"] = {"caught": FaultRun(directory, dtype, EVERY).run(steps, "batch", 0)}
        # The optimizer state edited just before a snapshot step (8): the snapshot holds the
        # edited state, so replays from it agree with production.
        out[dtype]["opt-state at a snapshot"] = {
            "caught": FaultRun(directory, dtype, EVERY).run(steps, "opt-state", 1.0, at=7)
        }
    return out


def rates(dtype: str, p: float, seeds: int, directory: Path) -> dict[str, float]:
    """One faulty step (update x2) under sampling probability p, over ``seeds`` sessions."""
    policy = zkdv.SamplingPolicy(state_check_probability=p, update_check_probability=p)
    caught = sum(
        FaultRun(directory, dtype, policy, f"-{s}").run(7, "update", 1.0, at=5, once=True)
        for s in range(seeds)
    )
    # The prediction: p times the share of coordinates at which doubling the update exceeds the
    # bound, measured on honest update checks of the same model at DEBUGCheckEvery(1).
    honest_run = FaultRun(directory, dtype, EVERY, "-honest")
    honest_run.proof._checker.always_measure_spread = True  # the bound as a check would use it
    honest_run.run(100, "none", 0.0)
    share = np.mean(
        [
            abs(c.committed[0]) > c.tolerance.bound(c.committed[0], c.spread_of(0))
            and c.indices[0] in honest_run.leaf_range
            for c in honest_run.proof.checks
            if c.kind == "update"
        ]
    )
    n = seeds
    rate = caught / n
    return {
        "p": p,
        "seeds": n,
        "measured": rate,
        "stderr": math.sqrt(max(rate * (1 - rate), 1e-12) / n),
        "share": float(share),
        "predicted": p * float(share),
    }


def ensemble_cost(reps: int = 30) -> list[list[str]]:
    """One ensemble member's run of each fixture's attested program against a plain run,
    interleaved in this process (median of ``reps``)."""
    from zkdv import passes, runtime

    inputs_dir = ROOT / "test-mlir" / "inputs"
    rows = [["attested program", "plain run", "member run", "ratio"]]
    for name in ("mlp_adam", "transformer_adamw", "cnn_sgd", "transaction_sgd"):
        text = (inputs_dir / f"{name}.mlir").read_text()
        attested, _ = passes.run_passes(
            text,
            ["zkdv-attested-pipeline"],
        )
        sidecar = json.loads((inputs_dir / f"{name}.json").read_text())
        with np.load(inputs_dir / f"{name}.npz") as npz:
            arguments = [npz[f"arg_{a['index']}"] for a in sidecar["arguments"]]
        program = runtime.Program(attested)
        arguments += [np.uint64(3), np.uint64(5)]
        plain, member = [], []
        for r in range(reps):
            start = time.perf_counter()
            program.run(arguments)
            plain.append(time.perf_counter() - start)
            start = time.perf_counter()
            program.run(arguments, ensemble=r % 8)
            member.append(time.perf_counter() - start)
        p, m = float(np.median(plain)), float(np.median(member))
        rows.append([name, f"{p * 1e3:.2f} ms", f"{m * 1e3:.2f} ms", f"{m / p:.2f}"])
    return rows


# -- report -------------------------------------------------------------------------------------


def honest_table(results: list[Honest]) -> str:
    rows = [
        ["family", "compute", "steps", "checks", "false alarm", "tolerance", "margin state",
         "margin update Δ", "margin update opt", "seconds"]
    ]  # fmt: skip
    for h in results:
        m = h.margins
        alarm = "no" if h.failed is None else f"YES: {h.failed[:80]}"
        rows.append(
            [h.family, h.dtype, str(h.steps), str(h.checks), alarm, h.tolerance,
             f"{m['state']:.2g}", f"{m['update Δ']:.2g}", f"{m['update opt']:.2g}",
             f"{h.seconds:.0f}"]
        )  # fmt: skip
    return table(rows)


def fault_table(result: dict[str, dict[str, Any]]) -> str:
    rows = [
        ["compute", "update x(1+r)", "params + r·rms", "opt-state x(1+r)", "batch bit",
         "opt-state x2 before a snapshot"]
    ]  # fmt: skip
    for dtype, faults in result.items():
        smallest = [str(faults[f]["smallest"]) for f in ("update", "params", "opt-state")]
        caught = [
            "caught" if faults[f]["caught"] else "missed"
            for f in ("batch", "opt-state at a snapshot")
        ]
        rows.append([dtype, *smallest, *caught])
    return table(rows)


def rate_table(results: list[dict[str, Any]]) -> str:
    rows = [["compute", "p", "seeds", "measured", "predicted", "share detectable"]]
    for r in results:
        rows.append(
            [r["dtype"], str(r["p"]), str(r["seeds"]), f"{r['measured']:.2f} ± {r['stderr']:.2f}",
             f"{r['predicted']:.2f}", f"{r['share']:.2f}"]
        )  # fmt: skip
    return table(rows)


def main(argv: list[str] | None = None) -> int:
    # XLA on the host, as everywhere in these figures (importing this module, as the tests
    # do, leaves the platform alone).
    jax.config.update("jax_platforms", "cpu")
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="small sizes (the pytest's)")
    parser.add_argument("--only", choices=["honest", "faults", "rates", "cost"])
    parser.add_argument("--families", nargs="*", default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    steps, seeds, repeats = (24, 20, 2) if args.quick else (args.steps, args.seeds, 5)
    report: dict[str, Any] = {"steps": steps, "seeds": seeds, "repeats": repeats}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        if args.only in (None, "honest"):
            results = []
            for family, dtype in HONEST:
                if args.families and family not in args.families:
                    continue
                results.append(honest(family, dtype, steps, directory))
                alarm = results[-1].failed or "no false alarm"
                print(f"  {family} {dtype}: {alarm}", file=sys.stderr, flush=True)
            report["honest"] = [h.__dict__ for h in results]
            print("\nHonest runs, every step checked\n\n" + honest_table(results), flush=True)
        if args.only in (None, "faults"):
            faults = thresholds(["bf16", "f16", "f32"], directory, 20, repeats)
            report["faults"] = faults
            print("\nSmallest r caught at DEBUGCheckEvery(1)\n\n" + fault_table(faults), flush=True)
        if args.only in (None, "rates"):
            report["rates"] = [
                {"dtype": dtype, **rates(dtype, 0.2, seeds, directory)} for dtype in ("bf16", "f32")
            ]
            print("\nOne faulty step (update x2), sampling\n\n" + rate_table(report["rates"]))
        if args.only in (None, "cost"):
            rows = ensemble_cost()
            report["cost"] = rows
            print("\nOne perturbed replay against a plain run\n\n" + table(rows))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
