"""How a PyTorch step becomes its lowered step, one module per job.

- :mod:`~zkdv.torch.lowering.tracing`: the ``@proof.attest`` step traced into a graph of ATen
  ops over the prepared model's and optimizer's state (the only part that needs the live
  model), beside training where it can be (:mod:`~zkdv.torch.lowering.isolation`: per-thread
  views of the modules, and what keeps a trace on the training thread);
- :mod:`~zkdv.torch.lowering.decompositions`, :mod:`~zkdv.torch.lowering.attention` and
  :mod:`~zkdv.torch.lowering.rewrites`: what the trace is made of, so that torch-mlir lowers it
  faithfully;
- :mod:`~zkdv.torch.lowering.export` and :mod:`~zkdv.torch.lowering.seal`: ``torch.export``,
  torch-mlir's StableHLO import and the AOT Inductor package, run in the lowering process
  (:mod:`~zkdv.torch.lowering.child`, driven by :mod:`~zkdv.torch.lowering.process`).

The session's derivation stage (:mod:`zkdv.session._derive`) derives the committed programs
from the StableHLO step, as it does for a JAX step.
"""

from __future__ import annotations

from zkdv.torch.lowering.process import Lowering
from zkdv.torch.lowering.tracing import (
    Input,
    Traced,
    Tracing,
    active,
    buffer_leaves,
    compiled_run_eagerly,
    dynamic_options,
    groups_of,
    local,
    opt_leaves,
    trace,
    tracer,
    trainable_flags,
    unwrap,
)

__all__ = [
    "Input",
    "Lowering",
    "Traced",
    "Tracing",
    "active",
    "buffer_leaves",
    "compiled_run_eagerly",
    "dynamic_options",
    "groups_of",
    "local",
    "opt_leaves",
    "trace",
    "tracer",
    "trainable_flags",
    "unwrap",
]
