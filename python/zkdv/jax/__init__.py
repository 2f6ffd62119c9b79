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

from typing import Any

import jax
import numpy as np

from zkdv import hashing
from zkdv.jax import contrib
from zkdv.jax._build import _paths
from zkdv.jax._session import ZKDV
from zkdv.jax._transaction import Transaction, index

__all__ = ["ZKDV", "Transaction", "contrib", "index", "model_hash", "state_hash"]


def model_hash(params: Any) -> str:
    """The model commitment of the parameter tree ``params`` (hex): what a session's snapshots
    commit to for the parameters of its ``Transaction`` (or ``TrainState``), and what
    ``zkdv audit --initial HASH`` and ``--final HASH`` compare with the transcript's first
    and final snapshots. A client computes it from the model it gave and the model it was
    delivered.
    """
    leaves = [np.asarray(x) for x in jax.tree.leaves(params)]
    return hashing.commit_model(zip(_paths(params), leaves, strict=True)).hex()


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

    def named(tree: Any) -> list[tuple[str, np.ndarray]]:
        leaves = [np.asarray(x) for x in jax.tree.leaves(tree)]
        return list(zip(_paths(tree), leaves, strict=True))

    return hashing.commit_state(named(params), named(opt_state)).hex()
