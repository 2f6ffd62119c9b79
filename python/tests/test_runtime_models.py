"""Common Flax/optax training steps, exported by JAX and replayed by the runtime.

The fixtures of ``test-mlir/inputs/`` cover an MLP, a transformer block, a CNN and a raw-pytree
step. Real training code exports more: recurrent scans (``while``), BatchNorm with mutable
statistics, top-k routing (``sort``), bf16 mixed precision, gradient-accumulation loops, and
the optimizers people use (SGD with momentum and Nesterov, Adam/AdamW, RMSProp, Lion,
Adafactor) with clipping. Each case here builds such a step, lowers it with ``jax.jit`` to
generic-form StableHLO, runs it in the runtime and in XLA on the same inputs, and compares every
result: exactly for integers, within 1e-5 relative (absolute floor 1e-6, as in
``test_runtime.py``) for floats, and within bf16 rounding for bf16 results.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
nn = pytest.importorskip("flax.linen")
optax = pytest.importorskip("optax")

from zkdv import runtime  # noqa: E402

REL, ABS_FLOOR = 1e-5, 1e-6


def generic(fn, *args) -> str:
    lowered = jax.jit(fn, keep_unused=True).trace(*args).lower()
    module = lowered.compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)


def compare(fn, *args):
    """Run ``fn`` in XLA and in the runtime on the same flat inputs; return the worst error."""
    text = generic(fn, *args)
    leaves = [np.asarray(x) for x in jax.tree.leaves(args)]
    want = [np.asarray(x) for x in jax.tree.leaves(jax.jit(fn)(*args))]
    got = runtime.Program(text)(*leaves)
    assert len(got) == len(want)
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, w.dtype, g.shape, w.shape)
        if not np.issubdtype(w.dtype, np.floating) and w.dtype.name != "bfloat16":
            np.testing.assert_array_equal(g, w)
            continue
        rel = REL if w.dtype in (np.float32, np.float64) else 2.0**-7
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        error = np.abs(g64 - w64)
        bound = np.maximum(rel * np.abs(w64), ABS_FLOOR)
        assert (error <= bound).all(), float((error / bound).max())
        worst = max(worst, float(error.max(initial=0.0)))
    return worst


def train_step(model, tx, loss_of, mutable=False):
    """A step ``(params, opt_state, extra, batch) -> (params, opt_state, extra, loss)``."""

    def step(params, opt_state, extra, batch):
        def loss_fn(p):
            if mutable:
                out, updates = model.apply(
                    {"params": p, **extra}, batch["x"], train=True, mutable=["batch_stats"]
                )
                return loss_of(out, batch), updates
            return loss_of(model.apply({"params": p}, batch["x"]), batch), extra

        (loss, new_extra), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, new_extra, loss

    return step


def xent(logits, batch):
    return optax.softmax_cross_entropy_with_integer_labels(logits, batch["y"]).mean()


class Mlp(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(nn.relu(nn.Dense(8)(x)))


def batch(rng, n=4, d=6, classes=3):
    return {
        "x": jnp.asarray(rng.normal(size=(n, d)).astype(np.float32)),
        "y": jnp.asarray(rng.integers(0, classes, n).astype(np.int32)),
    }


OPTIMIZERS = {
    "sgd_momentum": lambda: optax.sgd(0.1, momentum=0.9),
    "sgd_nesterov": lambda: optax.sgd(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: optax.adam(1e-2),
    "adamw_clip": lambda: optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-2)),
    "rmsprop": lambda: optax.rmsprop(1e-2),
    "lion": lambda: optax.lion(1e-3),
    "adafactor": lambda: optax.adafactor(1e-2),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizers(name):
    rng = np.random.default_rng(0)
    model, data = Mlp(), batch(rng)
    params = model.init(jax.random.key(0), data["x"])["params"]
    tx = OPTIMIZERS[name]()
    opt_state = tx.init(params)
    # two steps, so that moments are non-zero in the replayed one
    step = train_step(model, tx, xent)
    params, opt_state, _, _ = jax.jit(step)(params, opt_state, {}, data)
    print(f"{name}: worst abs error {compare(step, params, opt_state, {}, data):.3g}")


class BatchNormNet(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.Dense(8)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return nn.Dense(3)(nn.relu(x))


def test_batchnorm_with_mutable_statistics():
    rng = np.random.default_rng(1)
    model, data = BatchNormNet(), batch(rng, n=8)
    variables = model.init(jax.random.key(1), data["x"], train=False)
    params, extra = variables["params"], {"batch_stats": variables["batch_stats"]}
    tx = optax.sgd(0.1, momentum=0.9)
    step = train_step(model, tx, xent, mutable=True)
    print(f"batchnorm: worst abs error {compare(step, params, tx.init(params), extra, data):.3g}")


def test_recurrent_scan():
    rng = np.random.default_rng(2)
    params = {
        "wx": jnp.asarray(rng.normal(size=(3, 5)).astype(np.float32) * 0.5),
        "wh": jnp.asarray(rng.normal(size=(5, 5)).astype(np.float32) * 0.5),
        "b": jnp.zeros(5, jnp.float32),
        "out": jnp.asarray(rng.normal(size=(5, 3)).astype(np.float32) * 0.5),
    }
    data = {
        "x": jnp.asarray(rng.normal(size=(6, 4, 3)).astype(np.float32)),  # [time, batch, feat]
        "y": jnp.asarray(rng.integers(0, 3, 4).astype(np.int32)),
    }
    tx = optax.adam(1e-2)

    def loss(p, batch):
        def cell(h, x_t):
            h = jnp.tanh(x_t @ p["wx"] + h @ p["wh"] + p["b"])
            return h, h

        h, _ = jax.lax.scan(cell, jnp.zeros((4, 5), jnp.float32), batch["x"])
        return xent(h @ p["out"], batch)

    def step(p, opt_state, batch):
        value, grads = jax.value_and_grad(loss)(p, batch)
        updates, opt_state = tx.update(grads, opt_state, p)
        return optax.apply_updates(p, updates), opt_state, value

    opt_state = tx.init(params)
    assert "stablehlo.while" in generic(step, params, opt_state, data)
    print(f"scan: worst abs error {compare(step, params, opt_state, data):.3g}")


def test_top_k_routing():
    rng = np.random.default_rng(3)
    w = jnp.asarray(rng.normal(size=(6, 4)).astype(np.float32))
    experts = jnp.asarray(rng.normal(size=(4, 6, 3)).astype(np.float32))
    x = jnp.asarray(rng.normal(size=(5, 6)).astype(np.float32))

    def loss(params, x):
        gates = x @ params["w"]
        values, index = jax.lax.top_k(gates, 2)
        weights = jax.nn.softmax(values, axis=-1)
        chosen = params["experts"][index]  # [5, 2, 6, 3]
        out = jnp.einsum("bk,bkdh,bd->bh", weights, chosen, x)
        return (out**2).mean()

    def step(params, x):
        value, grads = jax.value_and_grad(loss)(params, x)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value

    print(f"top-k: worst abs error {compare(step, {'w': w, 'experts': experts}, x):.3g}")


def test_bf16_mixed_precision():
    rng = np.random.default_rng(4)
    model = nn.Dense(4, dtype=jnp.bfloat16, param_dtype=jnp.float32)
    x = jnp.asarray(rng.normal(size=(3, 5)).astype(np.float32))
    params = model.init(jax.random.key(4), x)["params"]

    def step(params, x):
        def loss(p):
            y = model.apply({"params": p}, x.astype(jnp.bfloat16))
            return (y.astype(jnp.float32) ** 2).mean()

        value, grads = jax.value_and_grad(loss)(params)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value

    text = generic(step, params, x)
    assert "bf16" in text
    print(f"bf16: worst abs error {compare(step, params, x):.3g}")


def test_gradient_accumulation_loop():
    rng = np.random.default_rng(5)
    model = Mlp()
    micro = {
        "x": jnp.asarray(rng.normal(size=(3, 4, 6)).astype(np.float32)),
        "y": jnp.asarray(rng.integers(0, 3, (3, 4)).astype(np.int32)),
    }
    params = model.init(jax.random.key(5), micro["x"][0])["params"]
    tx = optax.adam(1e-2)

    def step(params, opt_state, micro):
        def body(i, acc):
            b = jax.tree.map(lambda a: a[i], micro)
            grads = jax.grad(lambda p: xent(model.apply({"params": p}, b["x"]), b))(params)
            return jax.tree.map(jnp.add, acc, grads)

        zeros = jax.tree.map(jnp.zeros_like, params)
        grads = jax.lax.fori_loop(0, 3, body, zeros)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state

    opt_state = tx.init(params)
    assert "stablehlo.while" in generic(step, params, opt_state, micro)
    print(f"accumulation: worst abs error {compare(step, params, opt_state, micro):.3g}")
