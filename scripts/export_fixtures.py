"""Export the training-program fixtures of test-mlir/inputs/ (run through scripts/export-fixtures).

Each fixture is one real training step, written with JAX/Flax/optax, lowered by ``jax.jit`` on CPU
and printed in MLIR's generic op form (DESIGN.md §3), with fixed PRNG seeds so that a rerun with
the versions of ``VERSIONS.json`` reproduces the same bytes. Every step has the ABI

    step(params, opt_state, batch) -> (new_params, new_opt_state, deltas, loss)

where ``deltas`` is the optax ``updates`` pytree (``new_params = optax.apply_updates(params,
deltas)``) and ``loss`` is a scalar. ``main`` takes and returns the leaves of these pytrees in
``jax.tree`` order; unused arguments are kept (``keep_unused=True``) and ``params`` and
``opt_state`` are donated, as a production loop would. For each fixture ``<name>`` this writes:

- ``<name>.mlir``: the lowered module, generic op form, without locations;
- ``<name>.json``: the role, tree path, dtype and shape of every flat argument and result;
- ``<name>.npz``: one step's inputs ``arg_<i>`` and the outputs ``out_<j>`` that ``jax.jit``
  computed from them on CPU.

Tree paths are '/'-joined: the name of the top-level tree (``params``, ``opt_state``, ``batch``
for arguments; ``new_params``, ``new_opt_state``, ``deltas``, ``loss`` for results) followed by
one component per pytree key: a dict key, a sequence index, or a named-tuple/dataclass field
name. ``leaf`` is the same path without the top-level name, so a parameter, its post-state and
its delta share it (``Dense_0/kernel``), as do an optimizer-state leaf and its post-state
(``0/mu/Dense_0/kernel``).

The inputs are not the freshly initialized state: a few warm-up steps run first, so optimizer
moments and step counts are not zero.

Usage: ``python scripts/export_fixtures.py [--out DIR] [--check] [NAME ...]``.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training import train_state

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "test-mlir" / "inputs"
WARMUP_STEPS = 2

ARG_TREES = (("params", "param"), ("opt_state", "opt_state"), ("batch", "batch"))
RESULT_TREES = (
    ("new_params", "post_param"),
    ("new_opt_state", "post_opt_state"),
    ("deltas", "delta"),
    ("loss", "user"),
)


@dataclass
class Fixture:
    """A training step and the state it starts from."""

    name: str
    description: str
    step: Callable[..., Any]
    params: Any
    opt_state: Any
    batch: Any


def make_step(loss_fn: Callable[[Any, Any], jax.Array], tx: optax.GradientTransformation) -> Any:
    """The step of the fixture ABI for a loss ``loss_fn(params, batch)`` and optimizer ``tx``."""

    def step(params: Any, opt_state: Any, batch: Any) -> tuple[Any, Any, Any, jax.Array]:
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        deltas, new_opt_state = tx.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, deltas)
        return new_params, new_opt_state, deltas, loss

    return step


def make_train_state_step(state: train_state.TrainState, loss: Callable[..., jax.Array]) -> Any:
    """The fixture step for a Flax ``TrainState``: ``state.tx`` updates, ``state.apply_fn`` runs.

    ``TrainState.apply_gradients`` does not return the updates, so the step spells out what it
    does: ``tx.update`` then ``optax.apply_updates``, and returns ``state.replace(...)``'s fields.
    """

    def step(params: Any, opt_state: Any, batch: Any) -> tuple[Any, Any, Any, jax.Array]:
        current = state.replace(params=params, opt_state=opt_state)

        def loss_fn(p: Any) -> jax.Array:
            return loss(current.apply_fn({"params": p}, batch["x"]), batch)

        value, grads = jax.value_and_grad(loss_fn)(current.params)
        deltas, new_opt_state = current.tx.update(grads, current.opt_state, current.params)
        new_state = current.replace(
            step=current.step + 1,
            params=optax.apply_updates(current.params, deltas),
            opt_state=new_opt_state,
        )
        return new_state.params, new_state.opt_state, deltas, value

    return step


def normal(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


# --- mlp_adam: Flax MLP, optax.adam, TrainState ------------------------------------------------


class Mlp(nn.Module):
    hidden: int = 8
    classes: int = 3

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(self.classes)(x)


def cross_entropy(logits: jax.Array, batch: dict[str, jax.Array]) -> jax.Array:
    return optax.softmax_cross_entropy_with_integer_labels(logits, batch["y"]).mean()


def mlp_adam() -> Fixture:
    rng = np.random.default_rng(1)
    batch = {"x": normal(rng, (4, 6)), "y": rng.integers(0, 3, (4,)).astype(np.int32)}
    model = Mlp()
    params = model.init(jax.random.key(1), batch["x"])["params"]
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-2))
    return Fixture(
        "mlp_adam",
        "Flax linen MLP (Dense 6->8, relu, Dense 8->3), softmax cross-entropy, optax.adam, "
        "flax.training.train_state.TrainState",
        make_train_state_step(state, cross_entropy),
        state.params,
        state.opt_state,
        batch,
    )


# --- transformer_adamw: one decoder block, clip_by_global_norm + adamw -------------------------


class DecoderBlock(nn.Module):
    vocab: int = 16
    width: int = 8
    heads: int = 2
    mlp: int = 16

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        embed = nn.Embed(self.vocab, self.width)
        x = embed(tokens)
        h = nn.LayerNorm()(x)
        mask = nn.make_causal_mask(tokens)
        attention = nn.MultiHeadDotProductAttention(
            num_heads=self.heads, use_bias=False, deterministic=True
        )
        h = attention(h, mask=mask)
        x = x + h
        h = nn.LayerNorm()(x)
        h = nn.Dense(self.mlp)(h)
        h = nn.gelu(h)
        h = nn.Dense(self.width)(h)
        x = x + h
        return embed.attend(x)


def transformer_adamw() -> Fixture:
    rng = np.random.default_rng(2)
    model = DecoderBlock()
    tokens = rng.integers(0, model.vocab, (2, 5)).astype(np.int32)
    # Next-token prediction: inputs are tokens[:, :-1], targets tokens[:, 1:].
    batch = {"x": tokens[:, :-1], "y": tokens[:, 1:]}
    params = model.init(jax.random.key(2), batch["x"])["params"]
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-2, weight_decay=0.1))
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)
    return Fixture(
        "transformer_adamw",
        "one decoder-only transformer block (token embedding, pre-LayerNorm causal 2-head "
        "self-attention without biases with softmax, pre-LayerNorm gelu MLP, tied output "
        "embedding), next-token "
        "cross-entropy, optax.chain(clip_by_global_norm(1.0), adamw(weight_decay=0.1)), "
        "TrainState",
        make_train_state_step(state, cross_entropy),
        state.params,
        state.opt_state,
        batch,
    )


# --- cnn_sgd: Conv + max pooling (reduce_window), optax.sgd with momentum ----------------------


class Cnn(nn.Module):
    classes: int = 3

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = nn.relu(nn.Conv(4, (3, 3))(x))
        x = nn.max_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Conv(4, (3, 3), padding="VALID")(x))
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        return nn.Dense(self.classes)(x)


def cnn_sgd() -> Fixture:
    rng = np.random.default_rng(3)
    batch = {"x": normal(rng, (2, 8, 8, 1)), "y": rng.integers(0, 3, (2,)).astype(np.int32)}
    model = Cnn()
    params = model.init(jax.random.key(3), batch["x"])["params"]
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=optax.sgd(0.05, momentum=0.9)
    )
    return Fixture(
        "cnn_sgd",
        "small CNN (Conv 3x3 SAME, relu, max_pool 2x2, Conv 3x3 VALID, relu, avg_pool 2x2, Dense), "
        "softmax cross-entropy, optax.sgd(momentum=0.9), TrainState",
        make_train_state_step(state, cross_entropy),
        state.params,
        state.opt_state,
        batch,
    )


# --- transaction_sgd: raw pytrees, logistic regression, optax.sgd without momentum -------------


def transaction_loss(params: dict[str, jax.Array], batch: tuple[jax.Array, jax.Array]) -> Any:
    features, labels = batch
    logits = features @ params["w"] + params["b"]
    return optax.sigmoid_binary_cross_entropy(logits, labels).mean()


def transaction_sgd() -> Fixture:
    rng = np.random.default_rng(4)
    batch = (normal(rng, (8, 5)), rng.integers(0, 2, (8,)).astype(np.float32))
    params = {"b": np.zeros((), np.float32), "w": 0.1 * normal(rng, (5,))}
    params = jax.tree.map(jnp.asarray, params)
    tx = optax.sgd(0.1)
    return Fixture(
        "transaction_sgd",
        "logistic regression on transaction features with raw params/opt_state pytrees (no "
        "TrainState), tuple batch (features, labels), optax.sgd without momentum: the optimizer "
        "state has no leaves",
        make_step(transaction_loss, tx),
        params,
        tx.init(params),
        batch,
    )


FIXTURES: dict[str, Callable[[], Fixture]] = {
    f.__name__: f for f in (mlp_adam, transformer_adamw, cnn_sgd, transaction_sgd)
}


# --- export --------------------------------------------------------------------------------------


def path_string(path: tuple[Any, ...]) -> str:
    """'/'-join a jax.tree_util key path: dict keys, sequence indices, attribute names."""
    parts = []
    for entry in path:
        if isinstance(entry, jax.tree_util.DictKey):
            parts.append(str(entry.key))
        elif isinstance(entry, jax.tree_util.SequenceKey):
            parts.append(str(entry.idx))
        elif isinstance(entry, jax.tree_util.GetAttrKey):
            parts.append(entry.name)
        elif isinstance(entry, jax.tree_util.FlattenedIndexKey):
            parts.append(str(entry.key))
        else:
            raise TypeError(f"unexpected pytree key {entry!r}")
    return "/".join(parts)


def describe(trees: tuple[Any, ...], names: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """The sidecar entries of the leaves of ``trees``, in the order of the flat signature."""
    entries = []
    for tree, (top, role) in zip(trees, names, strict=True):
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            leaf_path = path_string(path)
            entries.append(
                {
                    "index": len(entries),
                    "role": role,
                    "path": "/".join(p for p in (top, leaf_path) if p),
                    "leaf": leaf_path,
                    "dtype": str(np.dtype(leaf.dtype)),
                    "shape": list(leaf.shape),
                }
            )
    return entries


def lower(fixture: Fixture) -> tuple[Any, Any]:
    """The jitted step and its lowering at the fixture's state."""
    jitted = jax.jit(fixture.step, keep_unused=True, donate_argnums=(0, 1))
    return jitted, jitted.trace(fixture.params, fixture.opt_state, fixture.batch).lower()


def generic_text(lowered: Any) -> str:
    module = lowered.compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)


def export(fixture: Fixture) -> dict[str, bytes]:
    """The files of one fixture, by suffix."""
    jitted, _ = lower(fixture)
    params, opt_state = fixture.params, fixture.opt_state
    for _ in range(WARMUP_STEPS):
        params, opt_state, _, _ = jitted(params, opt_state, fixture.batch)
    inputs = (params, opt_state, fixture.batch)
    in_leaves = [np.asarray(leaf).copy() for leaf in jax.tree.leaves(inputs)]
    _, lowered = lower(Fixture(**{**fixture.__dict__, "params": params, "opt_state": opt_state}))
    text = generic_text(lowered)
    outputs = jitted(*inputs)  # donates params and opt_state: in_leaves are copies
    out_leaves = [np.asarray(leaf) for leaf in jax.tree.leaves(outputs)]

    signature = {
        "name": fixture.name,
        "description": fixture.description,
        "abi": "step(params, opt_state, batch) -> (new_params, new_opt_state, deltas, loss)",
        "arguments": describe(inputs, ARG_TREES),
        "results": describe(outputs, RESULT_TREES),
    }
    assert len(signature["arguments"]) == len(in_leaves)
    assert len(signature["results"]) == len(out_leaves)
    arrays = {f"arg_{i}": a for i, a in enumerate(in_leaves)}
    arrays.update({f"out_{j}": a for j, a in enumerate(out_leaves)})
    return {
        ".mlir": text.encode(),
        ".json": sidecar_json(signature).encode(),
        ".npz": npz_bytes(arrays),
    }


def sidecar_json(signature: dict[str, Any]) -> str:
    """JSON with one line per argument or result entry (readable diffs, compact files)."""
    lines = []
    for key, value in signature.items():
        if isinstance(value, list):
            entries = ",\n".join(f"  {json.dumps(entry)}" for entry in value)
            lines.append(f" {json.dumps(key)}: [\n{entries}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An ``np.load``-able archive like ``np.savez``'s, with fixed timestamps (reproducible)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for key, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
            archive.writestr(
                zipfile.ZipInfo(f"{key}.npy", (1980, 1, 1, 0, 0, 0)), member.getvalue()
            )
    return buffer.getvalue()


def versions() -> dict[str, str]:
    packages = ("jax", "jaxlib", "flax", "optax", "numpy", "ml_dtypes")
    return {p: version(p) for p in packages} | {"python": sys.version.split()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"one of {', '.join(FIXTURES)}")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; fail if a .mlir or .json file differs from the checked-in one",
    )
    args = parser.parse_args()
    names = args.names or list(FIXTURES)
    for name in names:
        if name not in FIXTURES:
            parser.error(f"unknown fixture {name!r}: choose from {', '.join(FIXTURES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    stale = []
    for name in names:
        files = export(FIXTURES[name]())
        for suffix, data in files.items():
            target = args.out / f"{name}{suffix}"
            if args.check:
                if not target.exists() or target.read_bytes() != data:
                    stale.append(target)
            else:
                target.write_bytes(data)
        print(f"{name}: {len(files['.mlir'])} bytes of MLIR", file=sys.stderr)
    versions_file = args.out / "VERSIONS.json"
    text = json.dumps(versions(), indent=1) + "\n"
    if args.check:
        if not versions_file.exists() or versions_file.read_text() != text:
            stale.append(versions_file)
    else:
        versions_file.write_text(text)
    for target in stale:
        print(f"stale: {target}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    # Before any computation: the fixtures are CPU programs, and must be the same on any host.
    # Only when run: importing the models (python/tests/jax_steps.py) leaves the platform be.
    jax.config.update("jax_platforms", "cpu")
    sys.exit(main())
