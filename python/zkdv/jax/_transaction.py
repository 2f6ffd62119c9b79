"""Transaction markers and the trace context ``proof.jit`` installs while JAX traces a step.

A :class:`Transaction` is a *symbolic* marker: while ``proof.jit`` traces the step it tells the
frontend which traced values are the parameters, optimizer state and batch before the update,
and (through :meth:`Transaction.update`) which are the additive update and the state after it.
It opens no transcript transaction: the wrapper opens one per actual invocation. Outside a
``proof.jit`` trace (eagerly, or under a plain ``jax.jit``) a marker does nothing, so the same
step runs unchanged without ZKDV.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.tree_util import PyTreeDef

from zkdv.overlap import Overlap

__all__ = ["Transaction", "index"]

OverlapSpec = Overlap | Callable[[], Overlap] | None


@dataclass
class _Trace:
    """What one ``proof.jit`` trace collects; installed per thread by :func:`tracing`."""

    inputs: tuple[Any, ...]
    transactions: list[Transaction] = field(default_factory=list)


_active = threading.local()


@contextmanager
def tracing(inputs: tuple[Any, ...]) -> Iterator[_Trace]:
    """Collect the transaction markers of a trace whose flat dynamic inputs are ``inputs``."""
    previous = getattr(_active, "trace", None)
    trace = _Trace(inputs=tuple(inputs))
    _active.trace = trace
    try:
        yield trace
    finally:
        _active.trace = previous


def active() -> _Trace | None:
    """The trace ``proof.jit`` is running on this thread, if any."""
    return getattr(_active, "trace", None)


class Transaction:
    """Declares the one attested transition of a step traced by ``proof.jit``.

    Create it with the values *before* the update, compute the update as usual, then call
    :meth:`update` with the values after it::

        transaction = zkdv.jax.Transaction(
            batch=batch, params=params, opt_state=opt_state, overlap=zkdv.overlap.UNCHECKED
        )
        updates, new_opt_state = tx.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, updates)
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)

    Args:
        batch: The step's packed batch: any arrays that are inputs of the step (a rank-2
            ``uint32`` array is committed as is; other inputs are packed losslessly).
        params: The parameter pytree before the update; its leaves must be inputs of the
            step (they may be donated).
        opt_state: The optimizer-state pytree before the update; its leaves must be inputs of
            the step and must not be donated (a sampled check may still need them).
        overlap: The invocation's pipeline policy (:mod:`zkdv.overlap`): a policy, or a
            callable returning one, read on the host at every invocation (so changing it
            neither retraces the step nor adds device work). ``None`` means
            ``zkdv.overlap.UNCHECKED``.

    Every function compiled by ``proof.jit`` declares exactly one transaction, explicitly or
    through ``zkdv.jax.contrib.TrainState.apply_gradients``; none or two is an error at trace
    time. Outside ``proof.jit`` the marker is inert.
    """

    def __init__(
        self,
        *,
        batch: Any,
        params: Any,
        opt_state: Any,
        overlap: OverlapSpec = None,
        _origin: str = "explicit",
    ) -> None:
        if overlap is not None and not isinstance(overlap, Overlap) and not callable(overlap):
            raise TypeError(
                "Transaction: overlap must be zkdv.overlap.ALWAYS, UNCHECKED or NEVER (or a "
                f"callable returning one), got {overlap!r}"
            )
        self.batch = batch
        self.params = params
        self.opt_state = opt_state
        self.overlap = overlap
        self.origin = _origin
        self.deltas: Any = None
        self.post_params: Any = None
        self.post_opt_state: Any = None
        self.updated = False
        trace = active()
        if trace is not None:
            trace.transactions.append(self)

    def update(self, *, deltas: Any, params: Any, opt_state: Any) -> None:
        """Declare the additive update and the state after it.

        Args:
            deltas: The additive parameter update (``params = params_before + deltas``), with
                the parameters' tree structure.
            params: The parameters after the update.
            opt_state: The optimizer state after the update, with the structure of the
                optimizer state before it.

        Raises:
            ValueError: when called twice, or when a tree's structure does not match the
                transaction's.
        """
        if self.updated:
            raise ValueError("Transaction.update() was already called for this transaction")
        for name, before, after in (
            ("deltas", self.params, deltas),
            ("params", self.params, params),
            ("opt_state", self.opt_state, opt_state),
        ):
            want: PyTreeDef = jax.tree.structure(before)
            got: PyTreeDef = jax.tree.structure(after)
            if want != got:
                tree = "params" if name != "opt_state" else "opt_state"
                raise ValueError(
                    f"Transaction.update: {name} must have the structure of the transaction's "
                    f"{tree}; expected {want}, got {got}"
                )
        self.deltas = deltas
        self.post_params = params
        self.post_opt_state = opt_state
        self.updated = True

    def holds_post_params(self, params: Any) -> bool:
        """Whether ``params`` are (leaf for leaf, the same objects) the declared post-update
        parameters."""
        if not self.updated:
            return False
        mine = jax.tree.leaves(self.post_params)
        theirs = jax.tree.leaves(params)
        return len(mine) == len(theirs) and all(a is b for a, b in zip(mine, theirs, strict=True))

    def amend(self, *, params: Any = None, opt_state: Any = None) -> None:
        """Replace the declared state after the update (``None``: keep it).

        For a step that edits its state after the update, as Flax's ``DynamicScale`` recipe
        does (``jnp.where(is_finite, new, old)`` over parameters and optimizer state, which
        keeps the old state at a step whose gradients overflowed). The update becomes the
        change the step actually makes to each coordinate: 0 where the new parameter equals
        the one before (a skipped step's update is exactly zero), the declared update where
        it equals the declared post-update parameter, and ``new - before`` elsewhere. It is
        computed in the program, so production, replays and the attested program agree.
        """
        if not self.updated:
            raise ValueError("Transaction.amend: update() was not called yet")
        if opt_state is not None:
            want: PyTreeDef = jax.tree.structure(self.opt_state)
            if jax.tree.structure(opt_state) != want:
                raise ValueError(
                    "Transaction.amend: opt_state must have the structure of the transaction's "
                    "opt_state"
                )
            self.post_opt_state = opt_state
        if params is not None:
            expected: PyTreeDef = jax.tree.structure(self.params)
            if jax.tree.structure(params) != expected:
                raise ValueError(
                    "Transaction.amend: params must have the structure of the transaction's params"
                )

            def actual(before: Any, delta: Any, declared: Any, new: Any) -> Any:
                if new is declared:
                    return delta
                change = jnp.where(new == declared, delta, (new - before).astype(delta.dtype))
                return jnp.where(new == before, jnp.zeros_like(delta), change)

            self.deltas = jax.tree.map(actual, self.params, self.deltas, self.post_params, params)
            self.post_params = params

    def resolve_overlap(self) -> Overlap:
        """The policy for one invocation (calls a callable policy)."""
        policy = self.overlap() if callable(self.overlap) else self.overlap
        if policy is None:
            return Overlap.UNCHECKED
        if not isinstance(policy, Overlap):
            raise TypeError(
                f"Transaction: the overlap callable returned {policy!r}, not a zkdv.overlap policy"
            )
        return policy


def index(tree: Any, idx: Any) -> jax.Array:
    """The element at flat position ``idx`` of the concatenation of ``tree``'s leaves.

    Leaves are taken in ``jax.tree`` order, each flattened row-major, as the protocol numbers
    parameter and optimizer-state coordinates; the concatenation is never built: each leaf
    contributes a one-element dynamic slice selected by its index range. ``idx`` is a scalar
    unsigned integer (``uint64`` inside ``proof.attest``, which traces with 64-bit types; any
    integer type works). The result has the leaves' common dtype; an index past the end, or an
    empty tree, gives 0.
    """
    leaves = [jnp.asarray(leaf) for leaf in jax.tree.leaves(tree)]
    idx = jnp.asarray(idx)
    if idx.ndim != 0 or not jnp.issubdtype(idx.dtype, jnp.integer):
        raise TypeError(f"zkdv.jax.index: idx must be a scalar integer, got {idx.dtype}{idx.shape}")
    dtype = jnp.result_type(*leaves) if leaves else jnp.float32
    result = jnp.zeros((), dtype)
    offset = 0
    for leaf in leaves:
        size = leaf.size
        if size == 0:
            continue
        start = jnp.asarray(offset, idx.dtype)
        end = jnp.asarray(offset + size, idx.dtype) if offset + size <= _max(idx.dtype) else None
        inside = idx >= start
        if end is not None:
            inside = inside & (idx < end)
        local = jnp.where(inside, idx - start, jnp.zeros((), idx.dtype))
        value = lax.dynamic_index_in_dim(leaf.reshape(-1), local, keepdims=False)
        result = jnp.where(inside, value.astype(dtype), result)
        offset += size
    return result


def _max(dtype: Any) -> int:
    return int(jnp.iinfo(dtype).max)
