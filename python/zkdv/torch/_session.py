"""``zkdv.torch.ZKDV``: the proof session of a PyTorch training loop.

The framework-neutral core (:class:`zkdv.session.Session`: lifecycle, flow control, records,
committer, checker) does what every session does; this module adds what is torch's.
Production runs eagerly, as the user wrote it, inside ``with proof.transaction(batch=...)``,
and the session brackets each transaction:

- on entry, it checks that the state is, bit for bit, what the previous transaction left
  (state changed between steps is caught deterministically, not only by sampled checks; the
  parameters and optimizer state are compared beside the forward and backward passes and
  ``optimizer.step()`` waits for the verdict: :class:`zkdv.torch._state.Continuity`), and
  takes host copies of the batch; a batch layout seen for the first time registers its
  program, traced beside training where it can be (:mod:`zkdv.torch._registry`); the random
  draws the step makes are recorded as it runs (:mod:`zkdv.torch._randomness`);
- on exit, it copies the post-state (the next pre-state) into reused buffers and queues the
  transaction (:class:`zkdv.torch._inflight.Pending`); the update (``post - pre``) and its
  probe sketches are computed where the state lives, on a device with the transaction and
  on the CPU by the committer;
- on the committer thread, :func:`zkdv.torch._checks.commit` writes a due snapshot and the
  step record (the batch packed losslessly into ``uint32`` words, :mod:`zkdv._packing`) and
  hands the sampled checks on; ``_replay`` runs a state check's replay program in the Rust
  runtime from the pre-state copy, with its perturbation ensemble.

What ``prepare()`` installs on the model and the optimizer (DDP's communication hook, the
optimizer's step) is in :mod:`zkdv.torch._hooks`. Under DDP and FSDP the reduced gradients the
optimizer applies are committed with the batch (docs/torch.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils import _pytree as pytree

from zkdv.overlap import Overlap
from zkdv.session import CheckJob, Replayed, Session, _derive
from zkdv.torch import _checks, _hooks, _optim, _state, lowering
from zkdv.torch._checks import Payload
from zkdv.torch._host import DeviceSketches, host
from zkdv.torch._inflight import Open, Pending
from zkdv.torch._prepared import Prepared
from zkdv.torch._registry import Registration, Registry
from zkdv.torch._statefiles import StateFiles

__all__ = ["ZKDV"]


class ZKDV(StateFiles, Session):
    """A proof session for a PyTorch training loop, writing its transcript to ``directory``.

    Args:
        directory: Where the transcript goes (created if missing; an existing transcript
            there is an error).
        config: The session's :class:`zkdv.ZKDVConfig` (``ZKDVConfig()`` when omitted).
        max_in_flight: How many transactions may be dispatched and not yet committed (at
            least 1; default 2), as in the JAX session.
        retain: What to store beside the transcript for an auditor (``zkdv audit``), each
            artifact written by the committer thread before the record that names it:
            ``"checkpoints"`` (each step's packed batch and update sketches, and the full
            state every ``checkpoint_interval`` steps and after the last), ``"steps"``
            (each step's batch and sketches, and the state after the last step; the other
            full states are your own checkpoints, written with :meth:`save_state` at
            snapshot steps and given to ``zkdv audit --checkpoint``), ``"all"`` (each
            step's batch, sketches and full pre-state: a snapshot every step),
            ``"snapshots"`` (the full state at each snapshot, no step evidence), or
            ``None`` (nothing; the default). Every mode but ``None`` stores the replay
            program too.
        checkpoint_interval: Steps between the full states ``retain="checkpoints"`` stores: a
            multiple of ``replay_snapshot_interval`` (default 10 snapshot intervals).
        replay_snapshot_interval: A snapshot record (the full commitment of the pre-state) is
            written every ``N`` steps (at least 1; default 12).

    Call :meth:`start`, :meth:`prepare` the model and optimizer, register the attested step
    with :meth:`attest`, run each training step inside :meth:`transaction`, and :meth:`close`
    once after the loop.
    """

    _framework = "torch"

    def _setup(self) -> None:
        self._prepared = Prepared()
        self._attested: Callable[..., Any] | None = None
        self._open: Open | None = None
        self._continuous = _state.Continuity()
        """The state the last transaction left, and the open transaction's continuity check
        (awaited before its optimizer steps)."""
        self._sketches = DeviceSketches(self._records)
        # Test-only: False skips sealing the AOT Inductor package (tens of seconds per
        # session); the program record's production is then the exported StableHLO step.
        self._seal_package = True
        self._hashes_only = False
        self._sealing = _derive.Stage("zkdv-torch-seal")  # beside training and derivations
        self._registry = Registry(
            self.directory,
            self.config,
            self._records,
            self._flow,
            self._derivation,
            self._sealing,
            retain=self._retain.any,
            snapshot_interval=self.replay_snapshot_interval,
        )

    # -- set-up -------------------------------------------------------------------------------

    def prepare(self, *values: Any, averaged: nn.Module | None = None) -> Any:
        """Prepare the root model and the optimizer whose transition is attested.

        Recognized objects (an ``nn.Module`` with parameters or buffers, a
        ``torch.optim.Optimizer``, a ``torch.amp.GradScaler``, whose scale and growth tracker
        are then state of the step, and a ``torch.optim.swa_utils.AveragedModel`` of the
        model) are registered and returned as they are; anything else (stateless modules such
        as a loss, tensors, configuration) is returned unchanged. Returns the sole value for
        one argument and a tuple for several (or none).

        An averaged copy of the model (an EMA or SWA of its weights) is state of the step: an
        ``AveragedModel`` among ``values``, or a copy the loop updates by hand as
        ``averaged=``. Update it in the transaction and in the attested step, every step.

        Example::

            ema = torch.optim.swa_utils.AveragedModel(
                model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.999)
            )
            model, optimizer, ema = proof.prepare(model, optimizer, ema)

        Raises:
            TypeError: for an optimizer without a known functional implementation (``LBFGS``,
                unknown subclasses): register one with :meth:`register_functional_optimizer`.
            RuntimeError: a second model, optimizer or averaged model, an averaged model
                before the model, or preparing after the first transaction.
            ValueError: an averaged model that shares tensors with the model.
        """
        if self._registry.first is not None:
            raise RuntimeError("ZKDV.prepare: the first transaction already committed the step")

        def local() -> dict[int, torch.Tensor] | None:
            return None if self._open is None else self._open.local

        values = tuple(
            self._prepared.add(value, local, self._before_optimizer_step) for value in values
        )
        if averaged is not None:
            self._prepared.add_averaged(averaged)
        return values[0] if len(values) == 1 else values

    def register_functional_optimizer(
        self, optimizer_class: type[torch.optim.Optimizer], functional: _optim.FunctionalOptimizer
    ) -> None:
        """Teach the session how ``optimizer_class`` steps functionally (see
        :class:`zkdv.torch.FunctionalOptimizer`); call it before :meth:`prepare`."""
        self._prepared.register_functional(optimizer_class, functional)

    def attest(self, fun: Callable[..., Any]) -> Callable[..., Any]:
        """Register the attested step ``fun(model, optimizer, batch)`` (a decorator).

        It is lowered to StableHLO at the first transaction; sampled update checks replay it
        in the Rust runtime. Use :meth:`forward` and :meth:`backward` inside it. Returns
        ``fun`` unchanged.
        """
        if self._registry.first is not None:
            raise RuntimeError("ZKDV.attest: the first transaction already committed the step")
        if not callable(fun):
            raise TypeError(f"ZKDV.attest: expected a function, got {fun!r}")
        self._attested = fun
        return fun

    # -- inside steps -------------------------------------------------------------------------

    def forward(self, model: nn.Module, *args: Any, **kwargs: Any) -> Any:
        """``model(*args, **kwargs)``; inside the attested step, on its traced parameters."""
        tracing = lowering.active()
        if tracing is None:
            return model(*args, **kwargs)
        return tracing.forward(model, args, kwargs)

    def backward(self, loss: torch.Tensor) -> None:
        """``loss.backward()``; inside the attested step, the gradient boundary it lowers."""
        tracing = lowering.active()
        if tracing is None:
            loss.backward()
        else:
            tracing.backward(loss)

    @contextlib.contextmanager
    def transaction(self, batch: Any, overlap: Overlap = Overlap.UNCHECKED) -> Iterator[None]:
        """Run one training step as a committed transaction.

        Open it before the step's forward pass. ``batch`` is the step's data (any pytree of
        tensors: inputs, targets, randomness); it is committed on entry. The random draws the
        step makes itself (dropout, stochastic depth) are recorded as it runs and committed
        with the batch. On a clean exit the update is committed and the sampled checks run; an
        exception inside commits nothing.

        The first transaction of a batch layout has its ``@proof.attest`` step traced beside
        the step and the ones after it (on the training thread where the trace must set
        state of the whole process). A step the trace refuses is the session's failure,
        raised by the next transaction, :meth:`join` or :meth:`close`; nothing is committed.
        """
        self._require_running("open a transaction")
        if self._open is not None:
            raise RuntimeError("ZKDV.transaction: a transaction is already open (no nesting)")
        if not isinstance(overlap, Overlap):
            raise TypeError(f"ZKDV.transaction: overlap must be a zkdv.Overlap, got {overlap!r}")
        self._enter(batch, overlap)
        try:
            assert self._open is not None
            with self._open.running():
                yield
            if self._open is not None:
                self._open.require_complete(self._prepared)
        except BaseException:
            opened, self._open = self._open, None
            if opened is not None:
                try:  # restored once the continuity check (or first copy) has read it
                    failure = self._continuous.barrier()
                    if failure is not None:
                        self._flow.poison(failure)
                    opened.restore(self._prepared.live())
                finally:
                    self._flow.retire()
            raise
        self._exit()

    # -- the end ------------------------------------------------------------------------------

    def join(self) -> None:
        """Wait until every dispatched transaction is committed and every sampled check done
        (its program traced first, where that runs beside training).

        Raises:
            ZKDVPoisonedError: when a check failed (the session is poisoned).
            ValueError: when the attested step, traced beside training, cannot be lowered
                (the refusal names the cause and the fix); nothing was committed.
        """
        if self._state == "running":
            self._registry.settle(wait=True)
        super().join()

    def close(self) -> None:
        """Wait for all commitments and checks, write the close record and flush the transcript.

        Call once, after the training loop. Raises :class:`zkdv.ZKDVPoisonedError` when a
        check failed; the close record then says ``poisoned`` and names the failure.
        """
        if self._state == "running" and self._open is not None:
            raise RuntimeError("ZKDV.close: a transaction is still open")
        try:
            if self._state == "running":
                # A trace under way beside training ends first: it opens the transcript.
                self._registry.settle(wait=True)
            super().close()
        finally:
            self._continuous.shutdown()
            self._sealing.close()
            self._registry.close()

    # -- internals ----------------------------------------------------------------------------

    def _before_optimizer_step(self) -> None:
        """Read the dynamic options ``optimizer.step()`` is about to use (a loop may set the
        learning rate anywhere in the step before it), and under DDP and FSDP keep the reduced
        gradients it is about to apply (the rest of the committed batch). First, the mutation
        barrier: the open transaction's continuity check is done before the state changes."""
        if self._open is not None:
            self._barrier()
        optimizer = self._prepared.optimizer
        if self._open is not None and optimizer is not None:
            dynamic = self._open.registration.terms.dynamic
            self._open.dynamic = _hooks.dynamic_values(optimizer, dynamic)
        distributed = self._prepared.distributed
        if distributed and self._open is not None:
            assert self._prepared.model is not None
            self._open.reduced = _hooks.reduced_gradients(self._prepared.model)

    def _continuity(self, where: str, *, launch: bool = False) -> list[torch.Tensor]:
        """The copy of the state the last transaction left (its pre-state); poisons the session
        when the state now is not, bit for bit, that copy. With ``launch`` (a transaction's
        entry) the parameters and optimizer state are compared beside the step, and the
        verdict is :meth:`_barrier`'s (:class:`zkdv.torch._state.Continuity`)."""

        def names() -> list[str]:
            return [n for leaves in self._prepared.leaves() for n, _ in leaves]

        live, stable = self._prepared.live(), self._prepared.stable
        last, failure = self._continuous.check(
            live, names, stable, self._steps, where, launch=launch
        )
        if failure is not None:
            self._flow.poison(failure)
        return last

    def _barrier(self) -> None:
        """Wait for the open transaction's continuity check; raise its failure."""
        failure = self._continuous.barrier()
        if failure is not None:
            self._flow.poison(failure)
            raise failure

    def lower_step(self, batch: Any, *, seal: bool = True) -> None:
        """Build and commit the programs of a step on ``batch``'s layout without running it.

        The attested and replay programs are lowered from the ``@proof.attest`` step, the
        prepared model and optimizer, and ``batch`` (its structure, shapes and dtypes), exactly
        as the first transaction on such a batch would; no forward or backward pass runs and
        no parameter changes. A client derives the programs a session of its code commits
        this way, in a session of its own, and gives their hashes
        (:func:`zkdv.transcript.program_hashes`) to ``zkdv audit --program``. A later
        transaction on the same layout reuses them.

        The program hashes do not depend on the production package: ``seal=False`` skips
        sealing it (tens of seconds to minutes) and records the exported StableHLO step as the
        production program instead. Such a session only derives hashes: it refuses to train.
        """
        self._require_running("lower a step")
        if self._open is not None:
            raise RuntimeError("ZKDV.lower_step: a transaction is open")
        if not seal:
            self._seal_package = False
            self._hashes_only = True
        registration, _ = self._program_of(batch, "ZKDV.lower_step", beside=False)
        registration.commit_package()  # now: there may be no step

    def _program_of(
        self, batch: Any, caller: str, *, beside: bool
    ) -> tuple[Registration, list[np.ndarray]]:
        """The program of ``batch``'s layout (registered on its first use; ``beside``: its
        step traced beside training where it can be) and the batch's host leaves."""
        model, optimizer, functional = self._prepared.parts()
        if self._attested is None:
            raise RuntimeError(
                f"{caller}: register the attested step first (decorate it with @proof.attest)"
            )
        _state.initialize(optimizer, functional)
        leaves, _ = pytree.tree_flatten(batch)
        if not all(isinstance(x, torch.Tensor) for x in leaves):
            raise TypeError(f"{caller}: every leaf of batch must be a tensor")
        host_leaves = [host(x) for x in leaves]
        first = self._registry.first
        if first is not None:
            first.terms.check_compatible(
                batch, host_leaves, model, optimizer, functional, self._prepared.scaler, caller
            )
        registration = self._registry.of(host_leaves)
        if registration is None:
            registration = self._registry.register(
                self._attested,
                self._prepared,
                batch,
                host_leaves,
                beside=beside,
                seal=self._seal_package,
                rolling_window=self._rolling_window,
                probe_ratio=self._probe_ratio,
            )
        return registration, host_leaves

    def _enter(self, batch: Any, overlap: Overlap) -> None:
        if self._hashes_only:
            raise RuntimeError(
                "ZKDV.transaction: this session lowered its step with lower_step(seal=False), "
                "which records no sealed production program; it derives program hashes only. "
                "Train in a session of its own"
            )
        self._registry.settle()
        self._flow.raise_if_poisoned()
        registration, host_leaves = self._program_of(batch, "ZKDV.transaction", beside=True)
        program = registration.ready()
        if program is not None:
            program.traced.refuse_changed_captures("ZKDV.transaction")
        pre = self._continuity(f"step {self._steps}", launch=True)
        try:
            self._flow.raise_if_poisoned()
            self._flow.admit(overlap)
        except BaseException:
            self._continuous.barrier()
            raise
        self._open = Open(
            step=self._steps,
            overlap=overlap,
            registration=registration,
            pre=pre,
            leaves=host_leaves,
        )

    def _exit(self) -> None:
        """On the training thread: the copy of the post-state the next step starts from, and
        the transaction queued for the committer (:meth:`Pending.of`)."""
        opened, self._open = self._open, None
        assert opened is not None
        try:
            self._barrier()  # a transaction that did not step: its check is awaited here
            model, optimizer, _ = self._prepared.parts()
            if opened.dynamic is None:
                opened.dynamic = _hooks.dynamic_values(optimizer, opened.registration.terms.dynamic)
            params, opt = self._prepared.leaves()
            ddp = list(model.parameters()) if self._prepared.ddp is not None else None
            live, copy = _state.live(params, opt), self._continuous.copies.copy
            pending = Pending.of(opened, [n for n, _ in params], live, self._sketches, ddp, copy)
        except BaseException:
            self._flow.retire()
            raise
        self._continuous.last = pending.post
        self._steps += 1
        self._committer.put(pending)

    def _commit(self, pending: Pending) -> None:
        """Commit one transaction and hand on its checks (:func:`zkdv.torch._checks.commit`),
        once its program is traced: a refusal found there is the session's, and commits
        nothing."""
        try:
            pending.opened.resolve()
        except Exception as error:  # noqa: BLE001  (raised to the training thread as it is)
            self._flow.refuse(error)
            self._flow.retire()
            return
        interval = self.replay_snapshot_interval
        _checks.commit(pending, self._committer, interval, self._prepared.trainable)
        pending.committed()
        if (failure := self._registry.seal_failure()) is not None:
            self._flow.stop(failure)  # the session's (the transaction is retired)

    def _before_close(self) -> None:
        self._registry.commit_packages()

    def _replay(self, job: CheckJob[Payload]) -> Replayed:
        paths = self._prepared.paths()
        return _checks.replay(job, paths, self._prepared.trainable(paths), self._records)

    def _last_state_check(self) -> None:
        self._continuity("close")

    def _final_state(
        self,
    ) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]] | None:
        last = self._continuous.last
        first = self._registry.first
        if last is None or first is None:
            return None
        opt_paths = list(first.program().traced.opt_paths)
        return _state.on_host(self._prepared.paths(), opt_paths, last)
