"""The committed programs of a torch session's step: one per batch layout.

:func:`build` lowers the ``@proof.attest`` step for one batch layout (:mod:`zkdv.torch._lower`),
runs the Rust pipelines on it (the attested program and the replay variant, declared in
``passes/src/pipelines.rs``), lays out the committed batch and seals the production package;
the session then writes its program record and keeps the :class:`Program`.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from zkdv import passes, runtime
from zkdv._packing import BatchLayout
from zkdv.config import Tolerance
from zkdv.torch import _hooks, _lower, _optim
from zkdv.torch._host import host

__all__ = ["Built", "Program", "build"]


@dataclass(frozen=True)
class Program:
    """The committed programs of the session's step for one batch layout, with what checks
    need to run them."""

    seq: int
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


@dataclass(frozen=True)
class Built:
    """A lowered step for one batch layout, ready to be committed."""

    name: str
    lowered: _lower.Lowered
    attested_text: str
    replay_text: str
    precision: dict[str, Any]
    layout: BatchLayout
    production: tuple[bytes, str]
    """The production program's exact bytes and artifact extension."""


def _library_deprecations_silenced[**P](build: Callable[P, Built]) -> Callable[P, Built]:
    """``build`` with the deprecation torch's own pytree code raises while it exports, imports
    into torch-mlir and seals the step (``isinstance(treespec, LeafSpec)``) silenced: it is
    torch's to fix, a user can do nothing about it, and it printed twice on every session's
    first step."""

    @functools.wraps(build)
    def silenced(*args: P.args, **kwargs: P.kwargs) -> Built:
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore",
                message=r"`isinstance\(treespec, LeafSpec\)` is deprecated",
                category=FutureWarning,
            )
            return build(*args, **kwargs)

    return silenced


@_library_deprecations_silenced
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
    """
    if sharded and isinstance(optimizer, torch.optim.Muon):
        raise ValueError(
            "ZKDV.transaction: Muon orthogonalizes whole matrices, which a rank's FSDP "
            "shard is not; its step cannot be a rank's transition on its shards"
        )
    lowered = _lower.lower(
        attested, model, optimizer, functional, batch, reduced=ddp, sharded=sharded
    )
    name = getattr(attested, "__name__", "step")
    roles = lowered.role_options
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
        slots += [(tuple(p.shape), host(p).dtype) for _, p in params]
    slots += [(d.shape, host(torch.empty(0, dtype=d.dtype)).dtype) for d in lowered.draws]
    # Rows shorter than the rolling window are zero-padded to it (losslessly).
    layout = BatchLayout.of(slots, min_width=rolling_window)
    precision = passes.precision(attested_text, f"<{name}: attested>")
    production = (_lower.seal(lowered), "pt2") if seal else (lowered.text.encode(), "mlir")
    return Built(name, lowered, attested_text, replay_text, precision, layout, production)
