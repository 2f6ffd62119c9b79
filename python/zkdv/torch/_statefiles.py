"""The state's commitment and its files, on a PyTorch session (:class:`StateFiles`, a base
of :class:`zkdv.torch.ZKDV`): what a client binds an audit's first state to
(:meth:`StateFiles.state_hash`) and the checkpoints an audit may start a segment from
(:meth:`StateFiles.save_state`)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

from zkdv import hashing
from zkdv.torch import _state
from zkdv.torch._host import host

if TYPE_CHECKING:
    from zkdv.torch._inflight import Open
    from zkdv.torch._prepared import Prepared

__all__ = ["StateFiles"]


class StateFiles:
    """The whole state of a prepared session, hashed or written (a base of ``ZKDV``)."""

    # The session's, declared for the type checker (a ZKDV has them).
    _prepared: Prepared
    _open: Open | None
    _steps: int
    replay_snapshot_interval: int
    _require_running: Callable[[str], None]

    def _host_state(self) -> tuple[list, list]:
        """The prepared parameters and optimizer state (initialized as its first ``step()``
        would, when it has none yet), named host arrays."""
        _, optimizer, functional = self._prepared.parts()
        _state.initialize(optimizer, functional)
        params, opt = self._prepared.leaves()
        return [(n, host(t)) for n, t in params], [(n, host(t)) for n, t in opt]

    def state_hash(self) -> str:
        """The commitment of the whole state now (hex): the prepared model's parameters, the
        optimizer's state (initialized as its first ``step()`` would, when it has none yet) and
        the model's buffers, as a snapshot commits them.

        Called before the first step of a session of the client's own code (beside
        :meth:`lower_step`), it is what ``zkdv audit --initial-state HASH`` holds a run's first
        snapshot to: the optimizer state the run starts from (Adam's moments, its step count)
        is then the client's, not the prover's.

        Example::

            model, optimizer = proof.prepare(model, optimizer)
            initial = proof.state_hash()
        """
        self._require_running("hash the state")
        if self._open is not None:
            raise RuntimeError("ZKDV.state_hash: a transaction is open")
        return hashing.commit_state(*self._host_state()).hex()

    def save_state(self, path: str | os.PathLike[str]) -> None:
        """Save the whole state now (parameters, optimizer state, buffers: what
        :meth:`state_hash` commits) as a checkpoint ``zkdv audit --checkpoint`` can start a
        segment from: safetensors when ``path`` ends in ``.safetensors`` (it loads with
        ``safetensors.torch.load_file``), an evidence bundle when it ends in ``.ev.zst``.

        Call it between transactions, before a step that is a multiple of
        ``replay_snapshot_interval``: the audit binds the file to that step's snapshot record,
        whose state commitment it must re-hash to. With ``retain="steps"`` these files are the
        run's only full states, so keep them as you keep your own checkpoints.

        Example::

            for step, batch in enumerate(loader):
                if step % 1200 == 0:
                    proof.save_state(f"ckpt/{step}.safetensors")
                with proof.transaction(batch=batch):
                    ...

        Raises:
            RuntimeError: inside a transaction, or when the session is not running.
            ValueError: for a name without one of the two extensions.
        """
        self._require_running("save the state")
        if self._open is not None:
            raise RuntimeError("ZKDV.save_state: a transaction is open")
        if self._steps % self.replay_snapshot_interval:
            warnings.warn(
                f"ZKDV.save_state: the state before step {self._steps} has no snapshot record "
                f"(one every {self.replay_snapshot_interval} steps), so no audit can bind "
                f"{os.fspath(path)!r} to the transcript",
                stacklevel=2,
            )
        hashing.save_state(path, *self._host_state())
