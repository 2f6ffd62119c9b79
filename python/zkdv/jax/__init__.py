"""``zkdv.jax``: attest the updates of a JAX training loop.

- :class:`ZKDV`: the proof session (``start``, ``jit``, ``attest``, ``join``, ``close``);
- :class:`Transaction`: the explicit marker of a step's attested transition;
- :func:`index`: select one coordinate of a pytree with a ``uint64`` index (for
  ``proof.attest`` functions);
- :mod:`zkdv.jax.contrib`: ``TrainState``, Flax's train state with the transition declared
  automatically;
- :func:`model_hash`: the model commitment of a parameter tree, for ``zkdv audit
  --initial/--final``;
- :func:`state_hash`: the commitment of a whole state (parameters and optimizer state), for
  ``zkdv audit --initial-state``.

Loaded lazily by ``zkdv.jax``; needs ``pip install 'zkdv[jax]'``.
"""

from __future__ import annotations

import os
from typing import Any

import jax
import numpy as np

from zkdv import hashing
from zkdv.jax import contrib
from zkdv.jax._build import _paths
from zkdv.jax._session import ZKDV
from zkdv.jax._transaction import Transaction, index

__all__ = ["ZKDV", "Transaction", "contrib", "index", "model_hash", "save_state", "state_hash"]


def _named(tree: Any) -> list[tuple[str, np.ndarray]]:
    """The leaves of ``tree`` as host arrays, named by their paths."""
    leaves = [np.asarray(x) for x in jax.tree.leaves(tree)]
    return list(zip(_paths(tree), leaves, strict=True))


def model_hash(params: Any) -> str:
    """The model commitment of the parameter tree ``params`` (hex): what a session's snapshots
    commit to for the parameters of its ``Transaction`` (or ``TrainState``), and what
    ``zkdv audit --initial HASH`` and ``--final HASH`` compare with the transcript's first
    and final snapshots. A client computes it from the model it gave and the model it was
    delivered.
    """
    return hashing.commit_model(_named(params)).hex()


def state_hash(params: Any, opt_state: Any) -> str:
    """The state commitment of the parameter tree ``params`` and the optimizer state
    ``opt_state`` (hex): what a session's first snapshot commits to when training starts from
    them (a ``Transaction``'s ``params`` and ``opt_state``; ``state.params`` and
    ``state.opt_state`` of a :class:`~zkdv.jax.contrib.TrainState`), and what ``zkdv audit
    --initial-state HASH`` compares with it. A client computes it from the state it handed
    out, so that the optimizer state a run starts from (Adam's moments) is the client's, not
    the prover's.

    Example::

        state = zkdv.jax.contrib.TrainState.create(proof=proof, apply_fn=f, params=p, tx=tx)
        initial = zkdv.jax.state_hash(state.params, state.opt_state)
    """
    return hashing.commit_state(_named(params), _named(opt_state)).hex()


def save_state(path: str | os.PathLike[str], params: Any, opt_state: Any) -> None:
    """Save the parameter tree ``params`` and the optimizer state ``opt_state`` (a
    ``Transaction``'s, or ``state.params`` and ``state.opt_state`` of a
    :class:`~zkdv.jax.contrib.TrainState`) as a checkpoint ``zkdv audit --checkpoint`` can
    start a segment from: safetensors when ``path`` ends in ``.safetensors``, an evidence
    bundle when it ends in ``.ev.zst``, written atomically.

    The audit binds the file to the snapshot record whose state commitment it re-hashes to
    (:func:`state_hash`): save the state before a step that is a multiple of the session's
    ``replay_snapshot_interval``. With ``retain="steps"`` these files are the run's only full
    states. A state restored from an Orbax checkpoint is saved the same way.

    Example::

        if step % 1200 == 0:
            zkdv.jax.save_state(f"ckpt/{step}.safetensors", state.params, state.opt_state)
        state, loss = train_step(state, batch)
    """
    hashing.save_state(path, _named(params), _named(opt_state))
