"""The committed programs of a torch session's step: one per batch layout.

:func:`tracer` reads what the trace needs of the live session on the training thread, and its
work traces the ``@proof.attest`` step (:mod:`zkdv.torch.lowering.tracing`) and lays out the
committed batch, on whichever thread runs it (beside training where it can:
:mod:`zkdv.torch._registry`). :meth:`Built.derive`, submitted to the session's derivation stage
(:mod:`zkdv.session._derive`), lowers the traced step to StableHLO in a process of its own and
derives the attested and replay programs from it while training goes on. The session then
keeps the :class:`Program`, whose record is written when its first step is committed.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from zkdv import runtime
from zkdv._packing import BatchLayout
from zkdv.config import ZKDVConfig
from zkdv.session import _derive
from zkdv.session._derive import Deferred
from zkdv.session._records import Records
from zkdv.torch import lowering
from zkdv.torch._host import host_dtype, root_versions
from zkdv.torch._prepared import Prepared
from zkdv.torch.lowering import Lowering, Traced

__all__ = ["Built", "Program", "Sealing", "tracer"]


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


def tracer(
    attested: Callable[..., Any],
    prepared: Prepared,
    batch: Any,
    host_leaves: list[np.ndarray],
    dynamic: tuple[tuple[int, str], ...],
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
        dynamic: The optimizer options the step takes as inputs
            (:func:`zkdv.torch.lowering.dynamic_options`).
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
    slots += [((), np.dtype(np.float64)) for _ in dynamic]
    if ddp or sharded:
        # The all-reduced gradients of the trainable parameters (a frozen one has none).
        slots += [
            (tuple(p.shape), host_dtype(p.dtype))
            for (_, p), t in zip(params, lowering.trainable_flags(model), strict=True)
            if t
        ]

    def work(*, process_wide: bool) -> Built:
        traced = trace(process_wide=process_wide)
        drawn = [(d.shape, host_dtype(d.dtype)) for d in traced.draws]
        # Rows shorter than the rolling window are zero-padded to it (losslessly).
        layout = BatchLayout.of(slots + drawn, min_width=rolling_window)
        return Built(name, traced, layout, Lowering(traced, root_versions()), seal)

    return work
