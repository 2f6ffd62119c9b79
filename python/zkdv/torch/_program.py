"""The committed programs of a torch session's step: one per batch layout.

:func:`build` lowers the ``@proof.attest`` step for one batch layout (:mod:`zkdv.torch._lower`),
runs the Rust pipelines on it (the attested program and the replay variant, declared in
``passes/src/pipelines.rs``), lays out the committed batch and seals the production package;
the session then writes its program record and keeps the :class:`Program`.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from zkdv import _cache, _progress, passes, runtime
from zkdv._packing import BatchLayout
from zkdv.config import Tolerance
from zkdv.torch import _hooks, _lower, _optim
from zkdv.torch._host import host, root_versions

__all__ = ["Built", "Deferred", "Program", "build"]


class Deferred:
    """A program record written once, when it is first needed: by the committer thread, before
    the record of the first step that runs the program. Writing it may seal the AOT Inductor
    package, tens of seconds during which training goes on (the admission slots bound how far
    it runs ahead)."""

    def __init__(self, write: Callable[[], int]) -> None:
        self._write: Callable[[], int] | None = write
        self._seq: int | None = None
        self._lock = threading.Lock()

    def __call__(self) -> int:
        """The record's sequence number, writing the record first if it is not yet written."""
        with self._lock:
            if self._seq is None:
                assert self._write is not None
                self._seq = self._write()
                self._write = None  # releases what the record was built from
            return self._seq


@dataclass(frozen=True)
class Program:
    """The committed programs of the session's step for one batch layout, with what checks
    need to run them."""

    record: Deferred
    tolerance: Tolerance
    attested: runtime.Program
    replay: runtime.Program
    lowered: _lower.Lowered
    layout: BatchLayout
    hyperparameters: tuple[Any, ...]
    treespec: Any
    """The batch's pytree structure (the program reads its leaves in that order)."""
    training: tuple[bool, ...]
    """Each submodule's ``training`` flag when the step was lowered (part of the program)."""
    trainable: tuple[bool, ...] = ()
    """Each parameter's ``requires_grad`` when the step was lowered (part of the program)."""
    scaler: tuple[float, float, int] | None = None
    """The prepared GradScaler's constants (:func:`zkdv.torch._scaler.constants`), if any."""
    flips: bool = False
    """Whether the attested program computes in a float narrower than ``f32`` (its precision
    has narrow results): a state check may then admit discrete flips as outliers."""

    @property
    def seq(self) -> int:
        """The sequence number of its program record (written on first use; see
        :class:`Deferred`)."""
        return self.record()


@dataclass(frozen=True)
class Built:
    """A lowered step for one batch layout, ready to be committed."""

    name: str
    lowered: _lower.Lowered
    attested_text: str
    replay_text: str
    precision: dict[str, Any]
    layout: BatchLayout
    sealed: bool
    """Whether the production program is a sealed AOT Inductor package (else, in tests, the
    exported StableHLO step)."""

    def production(self) -> tuple[bytes, str]:
        """The production program's exact bytes and artifact extension. Sealing the AOT
        Inductor package takes tens of seconds: the session calls this on its committer
        thread."""
        if not self.sealed:
            return self.lowered.text.encode(), "mlir"
        # Cached by what the package compiles (the attested step, as StableHLO), the versions
        # that compile it and the host it is compiled for (zkdv._cache): a later session of
        # the same code commits the same package without sealing it again.
        versions = sorted(root_versions().items())
        name = _cache.key("seal", self.lowered.text, repr(versions))

        def seal() -> bytes:
            _silence_torch_deprecation()
            with _progress.stage("sealing the AOT Inductor package (training goes on meanwhile)"):
                return _lower.seal(self.lowered)

        return _cache.cached(name, seal), "pt2"


_LEAFSPEC = r"`isinstance\(treespec, LeafSpec\)` is deprecated"
_FROM_TORCH = r"(torch(\.|$)|copyreg$)"


def _silence_torch_deprecation() -> None:
    """Filter the deprecation torch's own pytree code raises from inside torch while it
    exports, imports into torch-mlir and seals the step (``isinstance(treespec, LeafSpec)``):
    it is torch's to fix, a user can do nothing about it, and it printed on every session's
    first step. Only warnings raised from torch's own modules (and from ``copyreg``, through
    which torch copies a tree spec) are filtered: a user's code that makes the check still
    sees it. One process-wide filter, added where it is missing (a test runner restores the
    filters after each test), because the seal runs on the committer thread and
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


def build(
    attested: Callable[..., Any],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    functional: _optim.FunctionalOptimizer,
    batch: Any,
    host_leaves: list[np.ndarray],
    *,
    params: list[tuple[str, torch.Tensor]],
    rolling_window: int,
    ddp: bool,
    sharded: bool,
    seal: bool,
    scaler: torch.amp.GradScaler | None = None,
) -> Built:
    """Lower ``attested`` for ``batch``'s layout and build what its program record commits.

    Args:
        attested: The ``@proof.attest`` step.
        model, optimizer, functional: The prepared model and optimizer, and the optimizer's
            functional implementation.
        batch: The transaction's batch; ``host_leaves`` its leaves' host copies.
        params: The parameter leaves (under FSDP, the rank's shards).
        rolling_window: The session's window: shorter packed rows are zero-padded to it.
        ddp, sharded: Whether the session is a DDP or an FSDP rank's.
        seal: Seal the AOT Inductor package as the production program (``False``, in tests:
            the exported StableHLO step).
        scaler: The prepared ``torch.amp.GradScaler``, if any (its state is the step's too).
    """
    _silence_torch_deprecation()
    if sharded and isinstance(optimizer, torch.optim.Muon):
        raise ValueError(
            "ZKDV.transaction: Muon orthogonalizes whole matrices, which a rank's FSDP "
            "shard is not; its step cannot be a rank's transition on its shards"
        )
    lowered = _lower.lower(
        attested, model, optimizer, functional, batch, reduced=ddp, sharded=sharded, scaler=scaler
    )
    name = getattr(attested, "__name__", "step")
    roles = lowered.role_options
    with _progress.stage("deriving the attested and replay programs (zkdv passes)"):
        attested_text, _ = passes.run_passes(
            lowered.text, [f"zkdv-attested-pipeline={roles}"], f"<{name}: attested>"
        )
        # The replay variant is the step without its user results; a DDP rank's replay keeps
        # them: they are the rank's own gradients, which a state check compares too.
        replay_options = "whole" if lowered.local_gradients else roles
        replay_text, _ = passes.run_passes(
            lowered.text, [f"zkdv-replay-pipeline={replay_options}"], f"<{name}: replay>"
        )
    slots = [(x.shape, x.dtype) for x in host_leaves]
    slots += [(x.shape, x.dtype) for x in _hooks.dynamic_values(optimizer, lowered)]
    if ddp or sharded:
        # The all-reduced gradients of the trainable parameters (a frozen one has none).
        trainable = _lower.trainable_flags(model)
        slots += [
            (tuple(p.shape), host(p).dtype)
            for (_, p), t in zip(params, trainable, strict=True)
            if t
        ]
    slots += [(d.shape, host(torch.empty(0, dtype=d.dtype)).dtype) for d in lowered.draws]
    # Rows shorter than the rolling window are zero-padded to it (losslessly).
    layout = BatchLayout.of(slots, min_width=rolling_window)
    precision = passes.precision(attested_text, f"<{name}: attested>")
    return Built(name, lowered, attested_text, replay_text, precision, layout, seal)
