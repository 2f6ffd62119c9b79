"""A torch transaction in flight, from the training thread to the committer: :class:`Open` while
the step runs (its pre-state, its batch, what it reads as it runs), :class:`Pending` once it
is dispatched (its update, sketches and post-state)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch
from torch import nn

from zkdv.overlap import Overlap
from zkdv.torch import _hooks, _randomness
from zkdv.torch._host import HostCopy, host
from zkdv.torch._norms import AccurateNorms
from zkdv.torch._prepared import Prepared
from zkdv.torch._program import Program
from zkdv.torch._registry import Registration

__all__ = ["Open", "Pending", "Update"]


@dataclass
class Open:
    """The transaction being run: its pre-state and committed batch."""

    step: int
    overlap: Overlap
    registration: Registration
    """The program of the batch's layout, which the step is committed with and checked by
    (traced beside training, it may not be ready while the step runs: :attr:`program`)."""
    pre: list[torch.Tensor]
    """The pre-state (parameters, then optimizer state and buffers), on its device: what the
    previous transaction left, kept as a copy."""
    leaves: list[np.ndarray]
    """Host copies of the batch's leaves, taken on entry: the start of what the committer
    packs into the committed batch."""
    dynamic: list[np.ndarray] | None = None
    """The dynamic optimizer options (a schedule's learning rate) as ``optimizer.step()`` read
    them (on exit, when the transaction did not step): committed after the batch's leaves and
    in the step record's hyperparameters."""
    reduced: list[torch.Tensor] | None = None
    """Under DDP, copies of the all-reduced gradients ``optimizer.step()`` applied (the rest of
    the committed batch)."""
    local: dict[int, torch.Tensor] = field(default_factory=dict)
    """Under DDP, copies of this rank's own gradients (by parameter id) as its communication
    hook handed them to the all-reduce."""
    drawn: list[torch.Tensor] = field(default_factory=list)
    """The step's random draws as production made them (the last leaves of the committed
    batch; :mod:`zkdv.torch._randomness`)."""
    recorded: list[tuple[str, torch.Tensor]] | None = None
    """The step's recorded draws when its program was not traced yet as it ran: matched
    against the program's by :meth:`resolve`."""

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """The step runs in the block: its whole 2-norms of large ``float32`` CPU tensors taken
        in chunks where its program takes one (:mod:`zkdv.torch._norms`), its draws recorded
        where its program draws. A step whose program is still being traced beside it does
        both whatever the program turns out to hold (which changes nothing of a step that
        takes no such norm and draws nothing), and :meth:`resolve` matches the draws."""
        program = self.registration.ready()
        traced = None if program is None else program.traced
        with contextlib.ExitStack() as modes:
            if traced is None or traced.large_norms:
                modes.enter_context(AccurateNorms())
            recorder = None
            if traced is None or traced.draws:
                recorder = modes.enter_context(_randomness.Recorder())
            yield
        if recorder is None:
            return
        if traced is None:
            self.recorded = recorder.drawn
        else:
            self.drawn = recorder.matched(traced.draws)

    @property
    def program(self) -> Program:
        """The program of the batch's layout (waits for its trace)."""
        return self.registration.program()

    def resolve(self) -> Program:
        """On the committer: the program, and the step's draws matched against its own (once
        the step ran before its program was traced). Raises the trace's refusal, or a draw
        that is not the program's."""
        program = self.registration.program()
        if self.recorded is not None:
            expected = program.traced.draws
            self.drawn = _randomness.matched(self.recorded, expected) if expected else []
            self.recorded = None
        return program

    def require_complete(self, prepared: Prepared) -> None:
        """Raise when a distributed transaction left out what its committed batch needs: the
        reduced gradients ``optimizer.step()`` applied, and under DDP the rank's own ones."""
        if not prepared.distributed:
            return
        if self.reduced is None:
            raise RuntimeError(
                "ZKDV.transaction: under DDP and FSDP the transaction must call "
                "optimizer.step() (its reduced gradients are part of the committed batch)"
            )
        if prepared.ddp is not None and len(self.local) != len(self.reduced):
            raise RuntimeError(
                "ZKDV.transaction: under DDP the transaction must run one backward pass "
                "through the DDP model (its gradients go through its all-reduce)"
            )

    def restore(self, live: list[torch.Tensor]) -> None:
        """Put the state ``live`` back to the pre-state (a transaction that raised commits
        nothing)."""
        with torch.no_grad():
            for tensor, kept in zip(live, self.pre, strict=True):
                tensor.copy_(kept)

    def committed_batch(self) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """The committed batch, packed: the batch's leaves, the dynamic options, under DDP the
        reduced gradients, the draws; and the hyperparameters the step record names (each
        dynamic option, its value and its leaf in the batch)."""
        dynamic = self.dynamic or []
        names = _hooks.dynamic_names(self.registration.terms.dynamic)
        hyperparameters = [
            {"name": name, "value": float(value), "leaf": len(self.leaves) + k}
            for k, (name, value) in enumerate(zip(names, dynamic, strict=True))
        ]
        leaves = self.leaves + dynamic
        if self.reduced is not None:
            leaves = leaves + [host(g) for g in self.reduced]
        leaves = leaves + [host(d) for d in self.drawn]
        return self.program.layout.pack(leaves), hyperparameters


@dataclass(frozen=True)
class Update:
    """A transaction's update (on the state's device), its sketches and, under DDP, the
    sketches of the rank's own gradients (committed with the update's), both on their way to
    the host."""

    deltas: list[torch.Tensor]
    sketches: HostCopy
    local: HostCopy


class Pending:
    """A dispatched transaction on its way to the committer: its pre-state copy, the copy of
    its post-state, and its :class:`Update`.

    On a device the update is dispatched with the transaction (queued on the device's stream,
    nothing waits for it); on the CPU it is computed by the committer thread from the two
    copies (which nothing changes), beside the next step: at GPT-2 small's size, 0.35 s a
    step that the training thread no longer spends. The values are the same either way."""

    def __init__(
        self,
        opened: Open,
        paths: list[str],
        post: list[torch.Tensor],
        sketches: Callable[[str, torch.Tensor], torch.Tensor],
        ddp: list[nn.Parameter] | None,
    ) -> None:
        self.opened = opened
        self.paths = paths
        self.post = post
        self._sketches = sketches
        self._ddp = ddp
        self._update: Update | None = None

    @staticmethod
    def of(
        opened: Open,
        paths: list[str],
        live: list[torch.Tensor],
        sketches: Callable[[str, torch.Tensor], torch.Tensor],
        ddp: list[nn.Parameter] | None,
        copy: Callable[[list[torch.Tensor]], list[torch.Tensor]],
    ) -> Pending:
        """The transaction ``opened`` once its step ran, on the training thread: the copy of
        the post-state ``live`` the next step starts from (``copy``:
        :meth:`zkdv.torch._state.Copies.copy`), and on a device the update (:meth:`update`;
        ``sketches`` computes a leaf's, ``ddp`` are the model's parameters under DDP)."""
        pending = Pending(opened, paths, copy(live), sketches, ddp)
        if any(t.device.type != "cpu" for t in pending.post):
            pending.update()
        return pending

    def committed(self) -> None:
        """Let go of the pre-state copy and the update once the transaction is committed (its
        sampled checks hold what they need): the committer thread keeps the last transaction
        until the next one arrives, and at GPT-2 small's size these are 2 GB."""
        self.opened = replace(self.opened, pre=[])
        self._update = None

    def update(self) -> Update:
        """The update (the post-state copy minus the pre-state copy, where the state lives),
        its sketches and a DDP rank's own gradients' sketches; computed once."""
        if self._update is None:
            n_params = len(self.paths)
            post, pre = self.post[:n_params], self.opened.pre[:n_params]
            deltas = [a - b for a, b in zip(post, pre, strict=True)]
            sketch = self._sketches
            updates = HostCopy([sketch(p, d) for p, d in zip(self.paths, deltas, strict=True)])
            ddp = self._ddp
            local = [
                sketch(path, self.opened.local[id(p)])
                for path, p in zip(self.paths, ddp or [], strict=ddp is not None)
                if p.requires_grad
            ]
            self._update = Update(deltas, updates, HostCopy(local))
        return self._update
