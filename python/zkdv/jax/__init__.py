"""``zkdv.jax``: attest the updates of a JAX training loop.

- :class:`ZKDV`: the proof session (``start``, ``jit``, ``attest``, ``join``, ``close``);
- :class:`Transaction`: the explicit marker of a step's attested transition;
- :func:`index`: select one coordinate of a pytree with a ``uint64`` index (for
  ``proof.attest`` functions);
- :mod:`zkdv.jax.contrib`: ``TrainState``, Flax's train state with the transition declared
  automatically.

Loaded lazily by ``zkdv.jax``; needs ``pip install 'zkdv[jax]'``.
"""

from __future__ import annotations

from zkdv.jax import contrib
from zkdv.jax._session import ZKDV
from zkdv.jax._transaction import Transaction, index

__all__ = ["ZKDV", "Transaction", "contrib", "index"]
