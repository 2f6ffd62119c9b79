"""``zkdv.jax.contrib.TrainState``: a Flax ``TrainState`` whose update a ``proof.jit`` step attests.

It is ``flax.training.train_state.TrainState`` with two static fields more, ``proof`` (the
owning :class:`zkdv.jax.ZKDV`) and ``attest_apply_fn`` (an exportable replacement of
``apply_fn`` used only by sampled replay). Subclass it to add fields, as with Flax's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import optax
from flax import struct
from flax.training import train_state

from zkdv.jax._transaction import Transaction, active

__all__ = ["TrainState"]


class TrainState(train_state.TrainState):
    """Flax's ``TrainState``, attested when its step is compiled by ``proof.jit``.

    Create it with :meth:`create` and use it exactly like Flax's. Under ``jax.jit`` (or
    eagerly) it is an ordinary ``TrainState``. Under ``proof.jit``, :meth:`apply_gradients`
    performs the same Optax transition and also declares it as the step's transaction:
    parameters and optimizer state are the state's, every other dynamic input of the step
    (the batch, ``step``, any extra dynamic field) is packed into the committed batch, and
    donating the state donates its parameter buffers only (the optimizer state before the
    update stays available to a sampled check).

    Attributes:
        proof: The :class:`zkdv.jax.ZKDV` session that owns the state (static).
        attest_apply_fn: When not ``None``, replaces ``apply_fn`` in the attested program
            that sampled checks replay (for an ``apply_fn`` that ``jax.export`` cannot
            export); static.
    """

    # Keyword-only, so that a subclass may add fields without defaults after them, as Flax's
    # own recipes do (``class TrainState(contrib.TrainState): batch_stats: Any``).
    proof: Any = struct.field(pytree_node=False, default=None, kw_only=True)
    attest_apply_fn: Callable[..., Any] | None = struct.field(
        pytree_node=False, default=None, kw_only=True
    )

    @classmethod
    def create(  # type: ignore[override]
        cls,
        *,
        proof: Any,
        apply_fn: Callable[..., Any],
        params: Any,
        tx: optax.GradientTransformation,
        attest_apply_fn: Callable[..., Any] | None = None,
        **kwargs: Any,
    ) -> TrainState:
        """Flax's ``TrainState.create``, plus the owning session and optional replay function.

        ``tx.init(params)`` creates the optimizer state; ``step`` starts at 0; ``kwargs`` fill
        the fields a subclass adds.
        """
        from zkdv.jax._session import ZKDV

        if not isinstance(proof, ZKDV):
            raise TypeError(f"TrainState.create: proof must be a zkdv.jax.ZKDV, got {proof!r}")
        return super().create(
            apply_fn=apply_fn,
            params=params,
            tx=tx,
            proof=proof,
            attest_apply_fn=attest_apply_fn,
            **kwargs,
        )

    def apply_gradients(self, *, grads: Any, **kwargs: Any) -> TrainState:
        """Apply ``grads`` with ``tx``; under ``proof.jit`` also declare the transaction.

        Returns the updated state (``step`` incremented, ``params`` and ``opt_state``
        updated, ``kwargs`` replaced), as Flax's does.
        """
        if isinstance(grads, dict) and train_state.OVERWRITE_WITH_GRADIENT in grads:
            raise NotImplementedError(
                "zkdv.jax.contrib.TrainState does not attest the OVERWRITE_WITH_GRADIENT "
                "parameter convention; use the explicit zkdv.jax.Transaction API"
            )
        updates, new_opt_state = self.tx.update(grads, self.opt_state, self.params)
        new_params = optax.apply_updates(self.params, updates)
        transaction = Transaction(
            batch=(), params=self.params, opt_state=self.opt_state, _origin="contrib"
        )
        transaction.update(deltas=updates, params=new_params, opt_state=new_opt_state)
        return self.replace(
            step=self.step + 1, params=new_params, opt_state=new_opt_state, **kwargs
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Flax's dataclass transform assigns its own ``replace`` to every subclass.
        super().__init_subclass__(**kwargs)
        cls.replace = _replace  # type: ignore[method-assign, assignment]

    def for_replay(self) -> TrainState:
        """This state with ``attest_apply_fn`` (when set) in place of ``apply_fn``."""
        if self.attest_apply_fn is None:
            return self
        return self.replace(apply_fn=self.attest_apply_fn)


def _replace(self: TrainState, **updates: Any) -> Any:
    """Flax's ``replace``. Under ``proof.jit``, replacing ``params`` or ``opt_state`` of the
    state that :meth:`TrainState.apply_gradients` returned replaces the transaction's state
    after the update too (:meth:`zkdv.jax.Transaction.amend`): Flax's ``DynamicScale`` recipe
    keeps the old state at a step whose gradients overflowed, and that step's update is zero.
    """
    if "params" in updates or "opt_state" in updates:
        trace = active()
        if trace is not None:
            for transaction in trace.transactions:
                if transaction.holds_post_params(self.params):
                    transaction.amend(
                        params=updates.get("params"), opt_state=updates.get("opt_state")
                    )
    return dataclasses.replace(self, **updates)


# Flax's dataclass transform gave this class its own ``replace``, after the class body ran.
TrainState.replace = _replace  # type: ignore[method-assign, assignment]
