"""JAX entries: models in the shape of Flax's examples, trained the way those examples do.

Every builder takes the session and the number of steps and returns a
:class:`zoo.harness.JaxRecipe` whose state is a ``zkdv.jax.contrib.TrainState`` (or the
recipe's subclass of it) and whose data are drawn in-process from a seeded generator.
"""

from __future__ import annotations

import functools
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct

import zkdv
from zoo.harness import JaxRecipe

TrainState = zkdv.jax.contrib.TrainState


def _warmup_cosine(base: float, warmup: int, total: int) -> optax.Schedule:
    """``create_learning_rate_fn`` of Flax's ImageNet example: linear warmup from 0, then
    cosine decay."""
    return optax.join_schedules(
        [
            optax.linear_schedule(0.0, base, max(1, warmup)),
            optax.cosine_decay_schedule(base, max(1, total - warmup)),
        ],
        boundaries=[max(1, warmup)],
    )


# --- MNIST (flax/examples/mnist) ----------------------------------------------------------------


class CNN(nn.Module):
    """The CNN of Flax's MNIST example."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.Conv(features=32, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(features=64, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(features=256)(x)
        x = nn.relu(x)
        return nn.Dense(features=10)(x)


def mnist_step(state: Any, images: jax.Array, labels: jax.Array) -> tuple[Any, jax.Array]:
    """``apply_model`` and ``update_model`` of the MNIST example in one step."""

    def loss_fn(params: Any) -> tuple[jax.Array, jax.Array]:
        logits = state.apply_fn({"params": params}, images)
        one_hot = jax.nn.one_hot(labels, 10)
        return jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot)), logits

    (loss, _), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    return state.apply_gradients(grads=grads), loss


def _mnist_batches(steps: int, batch: int = 4) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(0)
    return [
        (
            rng.normal(size=(batch, 28, 28, 1)).astype(np.float32),
            rng.integers(0, 10, size=(batch,)).astype(np.int32),
        )
        for _ in range(steps)
    ]


def mnist_cnn(proof: Any, steps: int) -> JaxRecipe:
    """The MNIST example: SGD with momentum 0.9."""
    model = CNN()
    params = model.init(jax.random.key(0), jnp.ones([1, 28, 28, 1]))["params"]
    state = TrainState.create(
        proof=proof, apply_fn=model.apply, params=params, tx=optax.sgd(0.1, 0.9)
    )
    return JaxRecipe(state=state, step=mnist_step, batches=_mnist_batches(steps))


# --- Data parallelism on 2 host devices -------------------------------------------------------


def mnist_named_sharding(proof: Any, steps: int) -> JaxRecipe:
    """The MNIST step on a 2-device mesh: state replicated, batch split over its rows
    (``NamedSharding``), the step under ``jit`` with XLA partitioning it."""
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    recipe = mnist_cnn(proof, steps)
    mesh = jax.make_mesh((2,), ("data",))
    recipe.state = jax.device_put(recipe.state, NamedSharding(mesh, P()))
    rows = NamedSharding(mesh, P("data"))
    recipe.place = lambda batch: tuple(jax.device_put(x, rows) for x in batch)
    return recipe


def mnist_shard_map(proof: Any, steps: int) -> JaxRecipe:
    """Data parallelism written by hand: per-device gradients in ``jax.shard_map``, averaged
    with ``lax.pmean``, then ``apply_gradients`` on the replicated state."""
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    recipe = mnist_cnn(proof, steps)
    mesh = jax.make_mesh((2,), ("data",))

    def step(state: Any, images: jax.Array, labels: jax.Array) -> tuple[Any, jax.Array]:
        def loss_fn(params: Any, x: jax.Array, y: jax.Array) -> jax.Array:
            logits = state.apply_fn({"params": params}, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        @functools.partial(
            jax.shard_map, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P()
        )
        def grads_and_loss(params: Any, x: jax.Array, y: jax.Array) -> Any:
            loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
            return jax.lax.pmean((loss, grads), "data")

        loss, grads = grads_and_loss(state.params, images, labels)
        return state.apply_gradients(grads=grads), loss

    recipe.step = step
    recipe.state = jax.device_put(recipe.state, NamedSharding(mesh, P()))
    rows = NamedSharding(mesh, P("data"))
    recipe.place = lambda batch: tuple(jax.device_put(x, rows) for x in batch)
    return recipe


# --- ImageNet (flax/examples/imagenet) --------------------------------------------------------


class ResNetBlock(nn.Module):
    """The ImageNet example's basic residual block."""

    filters: int
    conv: Any
    norm: Any
    strides: tuple[int, int] = (1, 1)

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        residual = x
        y = self.conv(self.filters, (3, 3), self.strides)(x)
        y = self.norm()(y)
        y = nn.relu(y)
        y = self.conv(self.filters, (3, 3))(y)
        y = self.norm(scale_init=nn.initializers.zeros_init())(y)
        if residual.shape != y.shape:
            residual = self.conv(self.filters, (1, 1), self.strides, name="conv_proj")(residual)
            residual = self.norm(name="norm_proj")(residual)
        return nn.relu(residual + y)


class ResNet(nn.Module):
    """The ImageNet example's ``ResNet``, with its ``dtype`` and BatchNorm settings."""

    stage_sizes: tuple[int, ...]
    num_classes: int
    num_filters: int = 8
    dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, x: jax.Array, train: bool = True) -> jax.Array:
        conv = functools.partial(nn.Conv, use_bias=False, dtype=self.dtype)
        norm = functools.partial(
            nn.BatchNorm,
            use_running_average=not train,
            momentum=0.9,
            epsilon=1e-5,
            dtype=self.dtype,
        )
        x = conv(self.num_filters, (7, 7), (2, 2), padding=[(3, 3), (3, 3)], name="conv_init")(x)
        x = norm(name="bn_init")(x)
        x = nn.relu(x)
        x = nn.max_pool(x, (3, 3), strides=(2, 2), padding="SAME")
        for i, block_size in enumerate(self.stage_sizes):
            for j in range(block_size):
                strides = (2, 2) if i > 0 and j == 0 else (1, 1)
                x = ResNetBlock(self.num_filters * 2**i, conv=conv, norm=norm, strides=strides)(x)
        x = jnp.mean(x, axis=(1, 2))
        x = nn.Dense(self.num_classes, dtype=self.dtype)(x)
        return jnp.asarray(x, self.dtype)


class ImageNetState(TrainState):
    """The ImageNet example's ``TrainState``: BatchNorm statistics and a dynamic loss scale."""

    batch_stats: Any
    dynamic_scale: Any


def imagenet_step(state: Any, images: jax.Array, labels: jax.Array) -> tuple[Any, jax.Array]:
    """The ImageNet example's ``train_step`` (weight decay in the loss, the dynamic scale's
    ``value_and_grad``, the update kept only where the gradients were finite); no ``pmap``,
    so no ``axis_name``."""

    def loss_fn(params: Any) -> tuple[jax.Array, Any]:
        logits, new_model_state = state.apply_fn(
            {"params": params, "batch_stats": state.batch_stats},
            images,
            mutable=["batch_stats"],
        )
        one_hot = jax.nn.one_hot(labels, 10)
        loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot))
        weight_penalty_params = jax.tree_util.tree_leaves(params)
        weight_l2 = sum(jnp.sum(x**2) for x in weight_penalty_params if x.ndim > 1)
        return loss + 1e-4 * 0.5 * weight_l2, (new_model_state, logits)

    dynamic_scale = state.dynamic_scale
    if dynamic_scale:
        grad_fn = dynamic_scale.value_and_grad(loss_fn, has_aux=True)
        dynamic_scale, is_fin, aux, grads = grad_fn(state.params)
    else:
        grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
        aux, grads = grad_fn(state.params)
    loss = aux[0]
    new_model_state = aux[1][0]
    new_state = state.apply_gradients(grads=grads, batch_stats=new_model_state["batch_stats"])
    if dynamic_scale:
        new_state = new_state.replace(
            opt_state=jax.tree_util.tree_map(
                functools.partial(jnp.where, is_fin), new_state.opt_state, state.opt_state
            ),
            params=jax.tree_util.tree_map(
                functools.partial(jnp.where, is_fin), new_state.params, state.params
            ),
            dynamic_scale=dynamic_scale,
        )
    return new_state, loss


def _resnet(proof: Any, steps: int, dtype: Any, dynamic_scale: bool) -> JaxRecipe:
    from flax.training import dynamic_scale as dynamic_scale_lib

    model = ResNet(stage_sizes=(1, 1), num_classes=10, dtype=dtype)
    variables = model.init(jax.random.key(0), jnp.ones((1, 32, 32, 3), dtype), train=False)
    schedule = _warmup_cosine(0.1, max(1, steps // 2), 4 * steps)
    state = ImageNetState.create(
        proof=proof,
        apply_fn=model.apply,
        params=variables["params"],
        tx=optax.sgd(learning_rate=schedule, momentum=0.9, nesterov=True),
        batch_stats=variables["batch_stats"],
        dynamic_scale=dynamic_scale_lib.DynamicScale() if dynamic_scale else None,
    )
    rng = np.random.default_rng(0)
    batches = [
        (
            rng.normal(size=(2, 32, 32, 3)).astype(np.float32),
            rng.integers(0, 10, size=(2,)).astype(np.int32),
        )
        for _ in range(steps)
    ]
    return JaxRecipe(state=state, step=imagenet_step, batches=batches)


def resnet_f32(proof: Any, steps: int) -> JaxRecipe:
    """The ImageNet example in full precision (no dynamic scale)."""
    return _resnet(proof, steps, jnp.float32, dynamic_scale=False)


def resnet_bf16(proof: Any, steps: int) -> JaxRecipe:
    """The ImageNet example's half precision on TPU: ``dtype=bfloat16``, no dynamic scale."""
    return _resnet(proof, steps, jnp.bfloat16, dynamic_scale=False)


def resnet_f16_dynamic_scale(proof: Any, steps: int) -> JaxRecipe:
    """The ImageNet example's half precision on GPU: ``dtype=float16`` with ``DynamicScale``."""
    return _resnet(proof, steps, jnp.float16, dynamic_scale=True)


# --- LM1B (flax/examples/lm1b) ------------------------------------------------------------------


class DecoderBlock(nn.Module):
    """A pre-norm decoder block of the LM1B example's ``Transformer``."""

    heads: int
    mlp: int
    dropout: float
    dtype: Any

    @nn.compact
    def __call__(self, x: jax.Array, mask: jax.Array, deterministic: bool) -> jax.Array:
        y = nn.LayerNorm(dtype=self.dtype)(x)
        y = nn.MultiHeadDotProductAttention(
            num_heads=self.heads,
            dtype=self.dtype,
            dropout_rate=self.dropout,
            deterministic=deterministic,
        )(y, mask=mask)
        x = x + nn.Dropout(self.dropout)(y, deterministic=deterministic)
        y = nn.LayerNorm(dtype=self.dtype)(x)
        y = nn.Dense(self.mlp, dtype=self.dtype)(y)
        y = nn.relu(y)
        y = nn.Dense(x.shape[-1], dtype=self.dtype)(y)
        return x + nn.Dropout(self.dropout)(y, deterministic=deterministic)


class TransformerLM(nn.Module):
    """The LM1B example's decoder-only language model (shared embedding as the output
    projection, learned positions, causal and padding masks)."""

    vocab: int = 128
    width: int = 32
    heads: int = 2
    mlp: int = 64
    layers: int = 2
    dropout: float = 0.1
    dtype: Any = jnp.float32

    @nn.compact
    def __call__(self, inputs: jax.Array, train: bool) -> jax.Array:
        embed = nn.Embed(self.vocab, self.width, name="embed")
        positions = self.param(
            "pos_embedding", nn.initializers.normal(0.02), (1, inputs.shape[1], self.width)
        )
        # The example shifts the targets right to make the inputs.
        shifted = jnp.pad(inputs, ((0, 0), (1, 0)))[:, :-1]
        x = embed(shifted).astype(self.dtype) + positions
        x = nn.Dropout(self.dropout)(x, deterministic=not train)
        mask = nn.combine_masks(
            nn.make_attention_mask(shifted > 0, shifted > 0), nn.make_causal_mask(shifted)
        )
        for _ in range(self.layers):
            x = DecoderBlock(self.heads, self.mlp, self.dropout, self.dtype)(x, mask, not train)
        x = nn.LayerNorm(dtype=self.dtype)(x)
        return embed.attend(x.astype(jnp.float32))


def lm1b_step(state: Any, inputs: jax.Array, dropout_rng: jax.Array) -> tuple[Any, jax.Array]:
    """The LM1B example's ``train_step``: the dropout key folded with the step number,
    padding tokens weighted out of the loss."""
    dropout_rng = jax.random.fold_in(dropout_rng, state.step)

    def loss_fn(params: Any) -> jax.Array:
        logits = state.apply_fn(
            {"params": params}, inputs, train=True, rngs={"dropout": dropout_rng}
        )
        weights = jnp.where(inputs > 0, 1.0, 0.0)
        losses = optax.softmax_cross_entropy_with_integer_labels(logits, inputs) * weights
        return losses.sum() / weights.sum()

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


def _rsqrt_schedule(base: float, warmup: int) -> optax.Schedule:
    """The LM1B example's schedule: linear warmup from 0, then inverse square root decay."""

    def schedule(count: jax.Array) -> jax.Array:
        count = count.astype(jnp.float32)
        return base * jnp.minimum(count / warmup, jnp.sqrt(warmup / jnp.maximum(count, 1.0)))

    return schedule


def _lm1b(
    proof: Any,
    steps: int,
    dtype: Any,
    model: TransformerLM | None = None,
    shape: tuple[int, int] = (4, 16),
    clip: float | None = None,
) -> JaxRecipe:
    model = TransformerLM(dtype=dtype) if model is None else model
    rows, length = shape
    rng = np.random.default_rng(0)
    example = jnp.ones((1, length), jnp.int32)
    params = model.init(jax.random.PRNGKey(0), example, train=False)["params"]
    tx = optax.adamw(
        _rsqrt_schedule(1e-3, max(1, steps // 2)), b1=0.9, b2=0.98, eps=1e-9, weight_decay=0.1
    )
    if clip is not None:
        tx = optax.chain(optax.clip_by_global_norm(clip), tx)
    state = TrainState.create(proof=proof, apply_fn=model.apply, params=params, tx=tx)
    dropout_rng = jax.random.PRNGKey(1)
    batches = []
    for _ in range(steps):
        tokens = rng.integers(1, model.vocab, size=(rows, length)).astype(np.int32)
        tokens[:, length * 3 // 4 :] = 0  # padding at the end of each row
        batches.append((tokens, dropout_rng))
    return JaxRecipe(state=state, step=lm1b_step, batches=batches)


def lm1b_f32(proof: Any, steps: int) -> JaxRecipe:
    """The LM1B decoder in full precision, dropout 0.1 with the raw ``PRNGKey`` it passes."""
    return _lm1b(proof, steps, jnp.float32)


def lm1b_bf16(proof: Any, steps: int) -> JaxRecipe:
    """The LM1B decoder with ``dtype=bfloat16`` (the example's default on TPU)."""
    return _lm1b(proof, steps, jnp.bfloat16)


def _lm1b_124m(proof: Any, steps: int, dtype: Any) -> JaxRecipe:
    """The scale tier: the LM1B decoder at GPT-2 small's dimensions (a 50,257-token
    vocabulary, width 768, 12 blocks of 12 heads, MLP 3,072: 124M parameters, the embedding
    shared with the output projection), dropout off, two sequences of 128 tokens; the
    example's AdamW and schedule, with global-norm clipping at 1."""
    model = TransformerLM(
        vocab=50_257, width=768, heads=12, mlp=3072, layers=12, dropout=0.0, dtype=dtype
    )
    return _lm1b(proof, steps, dtype, model=model, shape=(2, 128), clip=1.0)


def lm1b_124m(proof: Any, steps: int) -> JaxRecipe:
    """The scale tier's LM1B decoder in full precision."""
    return _lm1b_124m(proof, steps, jnp.float32)


def lm1b_124m_bf16(proof: Any, steps: int) -> JaxRecipe:
    """The scale tier's LM1B decoder with ``dtype=bfloat16``."""
    return _lm1b_124m(proof, steps, jnp.bfloat16)


# --- SST-2 (flax/examples/sst2) -----------------------------------------------------------------


class TextClassifier(nn.Module):
    """The SST-2 example's classifier: embedding with word dropout, a unidirectional LSTM
    (``nn.RNN`` over ``nn.LSTMCell``) read at each sequence's length, an MLP head."""

    vocab: int = 128
    width: int = 32
    dropout: float = 0.3

    @nn.compact
    def __call__(self, tokens: jax.Array, lengths: jax.Array, train: bool) -> jax.Array:
        x = nn.Embed(self.vocab, self.width)(tokens)
        x = nn.Dropout(self.dropout, broadcast_dims=(2,))(x, deterministic=not train)
        carry, _ = nn.RNN(nn.LSTMCell(self.width), return_carry=True)(x, seq_lengths=lengths)
        hidden = carry[1]
        hidden = nn.Dropout(self.dropout)(hidden, deterministic=not train)
        hidden = nn.tanh(nn.Dense(32)(hidden))
        return nn.Dense(1)(hidden)[..., 0]


def sst2_step(
    state: Any, tokens: jax.Array, lengths: jax.Array, labels: jax.Array, rng: jax.Array
) -> tuple[Any, jax.Array]:
    """The SST-2 example's ``train_step``: a typed key split per step for dropout, sigmoid
    cross-entropy."""
    rng = jax.random.fold_in(rng, state.step)

    def loss_fn(params: Any) -> jax.Array:
        logits = state.apply_fn(
            {"params": params}, tokens, lengths, train=True, rngs={"dropout": rng}
        )
        return optax.sigmoid_binary_cross_entropy(logits, labels).mean()

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


def sst2_lstm(proof: Any, steps: int) -> JaxRecipe:
    """SST-2 with typed keys (``jax.random.key``): an optax chain of global-norm clipping
    and AdamW under a warmup-cosine schedule."""
    model = TextClassifier()
    key = jax.random.key(0)
    params = model.init(key, jnp.ones((1, 12), jnp.int32), jnp.array([12], jnp.int32), train=False)[
        "params"
    ]
    tx = optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-2, max(1, steps // 2), 4 * steps)),
    )
    state = TrainState.create(proof=proof, apply_fn=model.apply, params=params, tx=tx)
    rng = np.random.default_rng(0)
    dropout_key = jax.random.key(1)
    batches = []
    for _ in range(steps):
        lengths = rng.integers(4, 13, size=(4,)).astype(np.int32)
        tokens = rng.integers(1, 128, size=(4, 12)).astype(np.int32)
        tokens[np.arange(12)[None, :] >= lengths[:, None]] = 0
        labels = rng.integers(0, 2, size=(4,)).astype(np.float32)
        batches.append((tokens, lengths, labels, dropout_key))
    return JaxRecipe(state=state, step=sst2_step, batches=batches)


# --- NNX bridged into a TrainState --------------------------------------------------------------


class NnxState(TrainState):
    """The Flax guide's pattern: an NNX model split into a graph definition (static) and its
    parameters (the state's ``params``)."""

    graphdef: Any = struct.field(pytree_node=False, default=None)


def nnx_mlp(proof: Any, steps: int) -> JaxRecipe:
    """An ``nnx.Module`` MLP split with ``nnx.split`` and merged back inside the step; Adam
    with a linear warmup from 0."""
    from flax import nnx

    class Mlp(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.first = nnx.Linear(16, 32, rngs=rngs)
            self.second = nnx.Linear(32, 4, rngs=rngs)

        def __call__(self, x: jax.Array) -> jax.Array:
            return self.second(nnx.gelu(self.first(x)))

    graphdef, params = nnx.split(Mlp(nnx.Rngs(0)), nnx.Param)
    state = NnxState.create(
        proof=proof,
        apply_fn=None,
        params=params,
        tx=optax.adam(optax.linear_schedule(0.0, 1e-2, max(1, steps // 2))),
        graphdef=graphdef,
    )

    def step(state: Any, x: jax.Array, y: jax.Array) -> tuple[Any, jax.Array]:
        def loss_fn(params: Any) -> jax.Array:
            model = nnx.merge(state.graphdef, params)
            return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

        loss, grads = jax.value_and_grad(loss_fn)(state.params)
        return state.apply_gradients(grads=grads), loss

    rng = np.random.default_rng(0)
    batches = [
        (
            rng.normal(size=(8, 16)).astype(np.float32),
            rng.integers(0, 4, size=(8,)).astype(np.int32),
        )
        for _ in range(steps)
    ]
    return JaxRecipe(state=state, step=step, batches=batches)
