"""The committed programs of a torch session's step: one per batch layout.

A batch layout's first transaction reads what its program fixes (:class:`Terms`) and what the
trace needs of the live session, on the training thread; :func:`tracer`'s work traces the
``@proof.attest`` step (:mod:`zkdv.torch.lowering.tracing`) and lays out the committed batch,
beside training where it can (a :class:`Registration` holds the program meanwhile).
:meth:`Built.derive`, submitted to the session's derivation stage (:mod:`zkdv.session._derive`),
lowers the traced step to StableHLO in a process of its own and derives the attested and
replay programs from it while training goes on. The session then keeps the :class:`Program`,
whose record is written when its first step is committed.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch
from torch import nn
from torch.utils import _pytree as pytree

from zkdv import runtime
from zkdv._packing import BatchLayout
from zkdv.config import ZKDVConfig
from zkdv.session import Leaf, Root, _derive
from zkdv.session._derive import Deferred
from zkdv.session._records import Records
from zkdv.torch import _hooks, _optim, _scaler, lowering
from zkdv.torch._host import host_dtype, root_versions, training_flags
from zkdv.torch._prepared import Prepared
from zkdv.torch.lowering import Lowering, Traced, isolation

__all__ = [
    "Built",
    "Program",
    "Registration",
    "RootLeaves",
    "Sealing",
    "Terms",
    "commit_packages",
    "seal_failure",
    "tracer",
]


class Sealing:
    """The AOT Inductor package of a program, sealed on the session's sealing thread while
    training goes on (tens of seconds to minutes), and its production record: the program
    record is written without it, and the record that commits it comes before the close
    record (docs/protocol.md, "production"). Written there and not as soon as the package is
    sealed, so that where it falls among the records, and so the chain and every later
    challenge, does not depend on how long the seal took.

    Args:
        seal: The seal under way (its result: the package's bytes).
        program: The program's record, which the production record names and follows.
        records: The transcript.
    """

    def __init__(self, seal: _derive.Task[bytes], program: Deferred, records: Records) -> None:
        self._seal = seal
        self._program = program
        self._records = records
        self._seq: int | None = None
        self._lock = threading.Lock()

    def failure(self) -> BaseException | None:
        """The seal's error, once it failed (the session's, raised at its next call)."""
        return self._seal.error()

    def commit(self) -> None:
        """Write the production record (once), waiting for the seal, when the program record
        is written. A seal that failed raises its error."""
        with self._lock:
            if self._seq is not None or not self._program.written:
                return
            package = self._seal.result()
            self._seq = self._records.production(self._program(), (package, "pt2"))


@dataclass(frozen=True)
class Program(_derive.Registered):
    """The committed programs of the session's step for one batch layout, with what checks
    need to run them: the traced step, its committed batch's layout and, from the derivation
    stage, the derived programs (:attr:`derived`; reading them waits for it, and a failure
    there is raised here)."""

    traced: Traced
    layout: BatchLayout
    sealing: Sealing | None = None
    """The sealed package's production record, when production is sealed."""

    @property
    def replay(self) -> runtime.Program:
        replay = self.derived.result().replay
        assert replay is not None  # a torch step's replay variant is always parsed
        return replay

    @property
    def flips(self) -> bool:
        """Whether a state check may admit discrete flips (:attr:`Derived.flips
        <zkdv.session._derive.Derived.flips>`)."""
        return self.derived.result().flips


@dataclass(frozen=True)
class Terms:
    """What a program fixes of the session, read on the training thread when its batch
    layout's first transaction begins: every later transaction is checked against it at once
    (:meth:`check_compatible`), whether or not the program is traced yet."""

    treespec: Any
    """The batch's pytree structure (the program reads its leaves in that order)."""
    dtypes: tuple[np.dtype[Any], ...]
    """The dtypes of the batch's leaves."""
    training: tuple[bool, ...]
    """Each submodule's ``training`` flag (part of the program)."""
    trainable: tuple[bool, ...]
    """Each parameter's ``requires_grad`` (part of the program)."""
    hyperparameters: tuple[Any, ...]
    scaler: tuple[float, float, int] | None
    """The prepared GradScaler's constants (:func:`zkdv.torch._scaler.constants`), if any."""
    dynamic: tuple[tuple[int, str], ...]
    """The optimizer options the step takes as inputs (``(group, key)``), in argument order:
    what the trace makes them (:func:`zkdv.torch.lowering.dynamic_options`)."""

    @staticmethod
    def of(batch: Any, host_leaves: list[np.ndarray], prepared: Prepared) -> Terms:
        model, optimizer, functional = prepared.parts()
        return Terms(
            treespec=pytree.tree_structure(batch),
            dtypes=tuple(x.dtype for x in host_leaves),
            training=training_flags(model),
            trainable=lowering.trainable_flags(model),
            hyperparameters=_hooks.hyperparameters(optimizer, functional),
            scaler=_scaler.constants(prepared.scaler),
            dynamic=tuple(lowering.dynamic_options(optimizer, functional)),
        )

    def check_compatible(
        self,
        batch: Any,
        host_leaves: list[np.ndarray],
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        functional: _optim.FunctionalOptimizer,
        scaler: torch.amp.GradScaler | None,
        caller: str,
    ) -> None:
        """Refuse a transaction on ``batch`` that these terms, the session's first program's, do
        not cover: only the batch's shapes may differ from the first transaction's (each batch
        layout, a partial last batch or another sequence length, is a program of its own);
        the modules' modes, the frozen parameters, the optimizer's constant options and the
        GradScaler's constants are the program's."""

        # Only the batch's shapes may differ from the first transaction's: each batch
        # layout (a partial last batch, another sequence length) is a program of its own.
        if pytree.tree_structure(batch) != self.treespec:
            raise ValueError(
                f"{caller}: the batch's structure differs from the first "
                "transaction's; only the shapes of its tensors may change between "
                "transactions"
            )
        if training_flags(model) != self.training:
            raise RuntimeError(
                f"{caller}: a module's train/eval mode changed since the step was "
                "committed (the mode is part of the attested program); keep it fixed"
            )
        if lowering.trainable_flags(model) != self.trainable:
            raise RuntimeError(
                f"{caller}: a parameter's requires_grad changed since the step was "
                "committed (which parameters are frozen is part of the attested program); "
                "keep it fixed, or start a new session after unfreezing"
            )
        _hooks.check_hyperparameters(optimizer, functional, self.hyperparameters)
        if _scaler.constants(scaler) != self.scaler:
            raise RuntimeError(
                f"{caller}: the GradScaler's growth factor, backoff factor or growth "
                "interval changed since the step was committed (they are constants of "
                "the committed program); keep them fixed"
            )
        dtypes = list(self.dtypes)
        if [x.dtype for x in host_leaves] != dtypes:
            raise ValueError(
                f"{caller}: the batch's dtypes differ from the first transaction's "
                f"({[str(x.dtype) for x in host_leaves]} for {[str(d) for d in dtypes]}); "
                "only the shapes of its tensors may change between transactions"
            )


class Registration:
    """A batch layout's program as the training thread holds it: its :class:`Terms` at once,
    the :class:`Program` once its step is traced (beside training, where the trace can be:
    :mod:`zkdv.torch.lowering.isolation`).

    Args:
        terms: What the program fixes, read when the layout's first transaction began.
        task: The work that traces the step and registers its program.
        views: The modules' per-thread views the trace runs with (``None``: it ran on the
            training thread), removed by :meth:`settle` once it ended.
        beside: A setting of the training thread's for as long as the trace runs beside it
            (entered, left by :meth:`settle`).
    """

    def __init__(
        self,
        terms: Terms,
        task: _derive.Task[Program],
        views: isolation.Views | None,
        beside: contextlib.AbstractContextManager[Any] | None = None,
    ) -> None:
        self.terms = terms
        self._task = task
        self._views = views
        self._beside = beside
        """What the training thread holds while the trace runs beside it (entered already),
        left with the views."""

    def program(self) -> Program:
        """The program, waiting for its trace (whose error, a refusal of the step, is raised
        here)."""
        return self._task.result()

    def ready(self) -> Program | None:
        """The program if it is traced and registered already (never waits)."""
        return self._task.ready()

    def failure(self) -> BaseException | None:
        """The trace's error, once it failed."""
        return self._task.error()

    def settle(self, *, wait: bool = False) -> None:
        """On the training thread: give the modules back their own dicts once the trace ended
        (``wait``: wait for it first, as ``close()`` does)."""
        if self._views is None:
            return
        if wait:
            self._task.wait()
        if self._task.ready() is not None or self._task.error() is not None:
            self._views.remove()
            self._views = None
            if self._beside is not None:
                self._beside.__exit__(None, None, None)
                self._beside = None


@dataclass(frozen=True)
class Built:
    """A traced step for one batch layout, on its way to being committed."""

    name: str
    traced: Traced
    layout: BatchLayout
    lowering: Lowering
    sealed: bool
    """Whether the production program is a sealed AOT Inductor package (else, in tests and
    for ``lower_step(seal=False)``, the StableHLO step)."""

    def derive(self, config: ZKDVConfig, matmul: Literal["f32", "tf32"]) -> _derive.Derived:
        """The derived programs (on the derivation thread): the step lowered to StableHLO
        (:class:`zkdv.torch.lowering.Lowering`), the attested and replay pipelines run on it."""
        _silence_torch_deprecation()
        text = self.lowering.text()
        roles = self.traced.role_options
        try:
            attested = _derive.pipeline(
                text, f"zkdv-attested-pipeline={roles}", f"<{self.name}: attested>"
            )
            # The replay variant is the step without its user results; a DDP rank's replay
            # keeps them: they are the rank's own gradients, which a state check compares too.
            replay_options = "whole" if self.traced.local_gradients else roles
            replay = _derive.pipeline(
                text, f"zkdv-replay-pipeline={replay_options}", f"<{self.name}: replay>"
            )
        except ValueError as error:
            raise self.traced.explain(error) from error
        return _derive.derive(self.name, attested, replay, config=config, matmul=matmul)

    def program(
        self,
        derived: _derive.Task[_derive.Derived],
        records: Records,
        *,
        retain: bool,
        matmul: Literal["f32", "tf32"],
        sealing: _derive.Stage,
    ) -> Program:
        """The session's :class:`Program` of this step, with ``derived`` its derivation (under
        way on the derivation stage), whose record ``records`` gets when it is first needed
        (``retain``: with the replay variant, for an auditor). A sealed production program is
        sealed on ``sealing``, beside training, and committed by a record of its own
        (:class:`Sealing`)."""
        seal = sealing.submit(self._seal) if self.sealed else None

        def write() -> int:
            ready = derived.result()
            if seal is None:
                # The StableHLO step is the production program (tests, lower_step(seal=False)).
                production: tuple[bytes, str] | None = (self.lowering.text().encode(), "mlir")
                self.lowering.close()
            else:
                production = None
            return records.program(
                name=self.name,
                attested=ready.attested_text,
                production=production,
                precision=ready.precision,
                tolerance=ready.tolerance,
                replay=ready.replay_text if retain else None,
                batch=self.layout.shape,
                matmul=matmul,
                format="stablehlo" if seal is None else "aoti",
            )

        record = Deferred(write)
        return Program(
            sealing=None if seal is None else Sealing(seal, record, records),
            record=record,
            derived=derived,
            traced=self.traced,
            layout=self.layout,
        )

    def _seal(self) -> bytes:
        """The sealed package's exact bytes (from the derivation cache, or sealed now: tens of
        seconds to minutes, on the session's sealing thread); the lowering's working directory
        is removed once it is sealed."""
        _silence_torch_deprecation()
        try:
            return self.lowering.package()
        finally:
            self.lowering.close()


_LEAFSPEC = r"`isinstance\(treespec, LeafSpec\)` is deprecated"
_FROM_TORCH = r"(torch(\.|$)|copyreg$)"


def _silence_torch_deprecation() -> None:
    """Filter the deprecation torch's own pytree code raises from inside torch while it
    exports, imports into torch-mlir and seals the step (``isinstance(treespec, LeafSpec)``):
    it is torch's to fix, a user can do nothing about it, and it printed on every session's
    first step. Only warnings raised from torch's own modules (and from ``copyreg``, through
    which torch copies a tree spec) are filtered: a user's code that makes the check still
    sees it. One process-wide filter, added where it is missing (a test runner restores the
    filters after each test), because the seal runs on a thread of its own and
    ``warnings.catch_warnings`` is not thread-safe."""
    for action, message, category, module, _ in warnings.filters:
        if (
            action == "ignore"
            and category is FutureWarning
            and getattr(message, "pattern", None) == _LEAFSPEC
            and getattr(module, "pattern", None) == _FROM_TORCH
        ):
            return
    warnings.filterwarnings("ignore", message=_LEAFSPEC, category=FutureWarning, module=_FROM_TORCH)


def seal_failure(registrations: Iterable[Registration]) -> BaseException | None:
    """The error of the first registered program whose seal failed (the session's, raised at
    its next transaction), checked by the committer after each step."""
    for registration in list(registrations):
        program = registration.ready()
        failure = None if program is None or program.sealing is None else program.sealing.failure()
        if failure is not None:
            return failure
    return None


def commit_packages(registrations: Iterable[Registration]) -> None:
    """The production record of each sealed program, waiting for its seal: before the close
    record (:class:`Sealing`)."""
    for registration in list(registrations):
        program = registration.program()
        if program.sealing is not None:
            program.sealing.commit()


@dataclass(frozen=True)
class RootLeaves:
    """What the root record says of the session's state and rank, read on the training thread
    when the first transaction begins (the root record itself waits for the traced step's
    batch layout)."""

    params: list[Leaf]
    opt_state: list[Leaf]
    rank: dict[str, Any] | None

    @staticmethod
    def of(prepared: Prepared) -> RootLeaves:
        params, opt = prepared.leaves()

        def leaves(items: list[tuple[str, torch.Tensor]]) -> list[Leaf]:
            return [Leaf(n, tuple(t.shape), host_dtype(t.dtype)) for n, t in items]

        rank = None
        if prepared.distributed:
            import torch.distributed as dist

            rank = {
                "rank": dist.get_rank(),
                "world_size": dist.get_world_size(),
                "backend": str(dist.get_backend()),
            }
        return RootLeaves(leaves(params), leaves(opt), rank)

    def root(
        self, built: Built, *, rolling_window: int, probe_ratio: float, snapshot_interval: int
    ) -> Root:
        """The root record of a session whose first program is ``built``."""
        return Root(
            prover="whitebox-torch",
            versions=root_versions(),
            rolling_window=rolling_window,
            probe_ratio=probe_ratio,
            snapshot_interval=snapshot_interval,
            params=self.params,
            opt_state=self.opt_state,
            batch=built.layout.shape,
            rank=self.rank,
        )


def tracer(
    attested: Callable[..., Any],
    prepared: Prepared,
    batch: Any,
    host_leaves: list[np.ndarray],
    terms: Terms,
    *,
    rolling_window: int,
    seal: bool,
) -> Callable[..., Built]:
    """The trace of ``attested`` for ``batch``'s layout, ready to run, and the layout of what
    its steps commit: what it reads of the live session is read now, on the training thread
    (:func:`zkdv.torch.lowering.tracer`), and the returned work (``work(process_wide=...)``)
    traces and lays out the committed batch, on whichever thread runs it.

    Args:
        attested: The ``@proof.attest`` step.
        prepared: The prepared model, optimizer and GradScaler (its state is the step's too);
            under DDP or FSDP, a rank's.
        batch: The transaction's batch; ``host_leaves`` its leaves' host copies.
        terms: What the program fixes (:meth:`Terms.of`), read with this.
        rolling_window: The session's window: shorter packed rows are zero-padded to it.
        seal: Seal the AOT Inductor package as the production program (``False``: the
            StableHLO step).
    """
    model, optimizer, functional = prepared.parts()
    params, _ = prepared.leaves()
    ddp, sharded, scaler = prepared.ddp is not None, prepared.sharded, prepared.scaler
    _silence_torch_deprecation()
    if sharded and isinstance(optimizer, torch.optim.Muon):
        raise ValueError(
            "ZKDV.transaction: Muon orthogonalizes whole matrices, which a rank's FSDP "
            "shard is not; its step cannot be a rank's transition on its shards"
        )
    trace = lowering.tracer(
        attested,
        model,
        optimizer,
        functional,
        batch,
        reduced=ddp,
        sharded=sharded,
        scaler=scaler,
        averaged=prepared.averaged,
    )
    name = getattr(attested, "__name__", "step")
    slots = [(x.shape, x.dtype) for x in host_leaves]
    # The dynamic options, each a float64 scalar input after the batch's leaves.
    slots += [((), np.dtype(np.float64)) for _ in terms.dynamic]
    if ddp or sharded:
        # The all-reduced gradients of the trainable parameters (a frozen one has none).
        slots += [
            (tuple(p.shape), host_dtype(p.dtype))
            for (_, p), t in zip(params, terms.trainable, strict=True)
            if t
        ]

    def work(*, process_wide: bool) -> Built:
        traced = trace(process_wide=process_wide)
        drawn = [(d.shape, host_dtype(d.dtype)) for d in traced.draws]
        # Rows shorter than the rolling window are zero-padded to it (losslessly).
        layout = BatchLayout.of(slots + drawn, min_width=rolling_window)
        return Built(name, traced, layout, Lowering(traced, root_versions()), seal)

    return work
