"""The programs of a torch session, one per batch layout, as the training thread holds them.

A batch layout's first transaction registers its program (:meth:`Registry.register`): what the
program fixes of the session is read at once (:class:`Terms`, which every later transaction
is checked against), and the step is traced, laid out, lowered and committed beside training
where it can be (:mod:`zkdv.torch.lowering.isolation`), else on the training thread. A
:class:`Registration` holds the program meanwhile: the training thread never waits for it
(a step that runs before its program is traced takes the conservative path:
:meth:`zkdv.torch.ZKDV.transaction`), the committer and the checks do. A refusal found beside
training is the session's (:meth:`Registry.settle`): raised as it is by the next call, before
anything is committed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils import _pytree as pytree

from zkdv.config import ZKDVConfig
from zkdv.session import Leaf, Root, _derive
from zkdv.session._flow import Flow
from zkdv.session._records import Records
from zkdv.torch import _hooks, _host, _optim, _scaler, lowering
from zkdv.torch._host import host_dtype, root_versions, training_flags
from zkdv.torch._prepared import Prepared
from zkdv.torch._program import Built, Program, tracer
from zkdv.torch.lowering import isolation

__all__ = ["Registration", "Registry", "RootLeaves", "Terms"]


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

    def commit_package(self) -> None:
        """The program's record now, and its sealed package's production record after it,
        waiting for the seal (``lower_step``: there may be no first step)."""
        self.program().record()
        _commit_packages([self])

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


def _seal_failure(registrations: list[Registration]) -> BaseException | None:
    """The error of the first registered program whose seal failed (the session's, raised at
    its next transaction), checked by the committer after each step."""
    for registration in list(registrations):
        program = registration.ready()
        failure = None if program is None or program.sealing is None else program.sealing.failure()
        if failure is not None:
            return failure
    return None


def _commit_packages(registrations: list[Registration]) -> None:
    """The production record of each sealed program, waiting for its seal: before the close
    record (:class:`Sealing`)."""
    for registration in list(registrations):
        program = registration.program()
        if program.sealing is not None:
            program.sealing.commit()


@dataclass
class Registry:
    """A session's programs by batch layout, and what registering one needs of the session:
    its transcript, its stages and its settings.

    Args:
        directory, config: The session's.
        records: The transcript (the first program opens it).
        flow: The session's flow (a refusal found beside training stops it).
        derivation, sealing: The session's derivation and sealing stages.
        retain: Whether programs are recorded with their replay variant (for an auditor).
        snapshot_interval: The session's snapshot interval (in the root record).
    """

    directory: Path
    config: ZKDVConfig
    records: Records
    flow: Flow
    derivation: _derive.Stage
    sealing: _derive.Stage
    retain: bool
    snapshot_interval: int
    first: Registration | None = None
    """The first transaction's program (its batch layout is the root's)."""
    programs: dict[tuple[tuple[int, ...], ...], Registration] = field(default_factory=dict)
    """Every program registered, by the shapes of its batch's leaves."""
    lowerings: list[lowering.Lowering] = field(default_factory=list)
    """The working directories of the programs' lowerings (removed at close)."""
    tracing: _derive.Stage = field(default_factory=lambda: _derive.Stage("zkdv-torch-trace"))
    """Where a new layout's step is traced beside training."""

    def of(self, host_leaves: list[np.ndarray]) -> Registration | None:
        """The program of the batch layout of ``host_leaves``, if registered."""
        return self.programs.get(tuple(tuple(x.shape) for x in host_leaves))

    def register(
        self,
        attested: Callable[..., Any],
        prepared: Prepared,
        batch: Any,
        host_leaves: list[np.ndarray],
        *,
        beside: bool,
        seal: bool,
        rolling_window: int,
        probe_ratio: float,
    ) -> Registration:
        """Register the program of ``batch``'s layout: what it fixes now, and its step traced,
        lowered and committed, beside training where it can be (``beside``, and nothing that
        :func:`zkdv.torch.lowering.isolation.concurrent_refusal` names keeps the trace here).
        The first one opens the transcript (its layout is the root's), once its step is
        traced, so a step that cannot be traced leaves the directory usable for a retry.

        Traced here, a refusal is raised here. Traced beside training, it is the session's:
        raised by its next call (:meth:`settle`), and no step is committed."""
        first = self.first is None
        terms = Terms.of(batch, host_leaves, prepared)
        work = tracer(
            attested,
            prepared,
            batch,
            host_leaves,
            terms.dynamic,
            rolling_window=rolling_window,
            seal=seal,
        )
        params, _ = prepared.leaves()
        matmul = _host.matmul_precision([t for _, t in params])
        root = RootLeaves.of(prepared) if first else None
        modules = prepared.modules()
        views = (
            isolation.Views(modules)
            if beside and isolation.concurrent_refusal(modules) is None
            else None
        )
        ambient = isolation.ambient()

        def register() -> Program:
            # The lowering and derivation run on the derivation stage while training goes
            # on, and the program's record is written by the committer before the first step
            # that runs it; its package is sealed on the sealing stage (Sealing).
            if views is None:
                built = work(process_wide=True)
            else:
                with views.owned(), ambient.entered(), isolation.yielding():
                    built = work(process_wide=False)
            self.lowerings.append(built.lowering)
            derived = self.derivation.submit(lambda: built.derive(self.config, matmul))
            if root is not None:
                record = root.root(
                    built,
                    rolling_window=rolling_window,
                    probe_ratio=probe_ratio,
                    snapshot_interval=self.snapshot_interval,
                )
                self.records.open(self.directory, record, self.config)
            return built.program(
                derived, self.records, retain=self.retain, matmul=matmul, sealing=self.sealing
            )

        held = None
        if views is None:
            task = _derive.Task(register)
            task.result()  # here, on the training thread; a refusal is raised now
        else:
            task = self.tracing.submit(register)
            held = lowering.compiled_run_eagerly()
            held.__enter__()  # left once the trace ended (Registration.settle)
        registration = Registration(terms, task, views, held)
        self.programs[tuple(tuple(x.shape) for x in host_leaves)] = registration
        if first:
            self.first = registration
        return registration

    def settle(self, *, wait: bool = False) -> None:
        """On the training thread: hand the modules back from each trace that ended (``wait``:
        wait for those under way), and make a refusal one of them found the session's (raised
        by its next call)."""
        for registration in list(self.programs.values()):
            registration.settle(wait=wait)
            failure = registration.failure()
            if failure is not None:
                self.flow.refuse(failure)

    def seal_failure(self) -> BaseException | None:
        """The error of the first registered program whose seal failed (the session's, raised
        at its next transaction), checked by the committer after each step."""
        return _seal_failure(list(self.programs.values()))

    def commit_packages(self) -> None:
        """The production record of each sealed program, waiting for its seal: before the
        close record (:class:`zkdv.torch._program.Sealing`)."""
        _commit_packages(list(self.programs.values()))

    def close(self) -> None:
        """End the tracing stage and remove the lowerings' working directories."""
        self.tracing.close()
        for lowered in self.lowerings:
            lowered.close()
