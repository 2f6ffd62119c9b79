"""``zkdv.torch``: the PyTorch frontend (``pip install 'zkdv[torch]'``).

:class:`ZKDV` is the proof session: ``prepare`` the root model and optimizer, register the
attested step with ``@proof.attest``, and run each training step inside
``proof.transaction(batch=...)``. The attested step is lowered to StableHLO through torch-mlir
and replayed by the same Rust passes and runtime as JAX's (docs/torch.md).
"""

import torch
from torch import nn

from zkdv import hashing
from zkdv.torch import _hooks, _optim, lowering
from zkdv.torch._host import host
from zkdv.torch._optim import FunctionalOptimizer
from zkdv.torch._session import ZKDV

__all__ = ["FunctionalOptimizer", "ZKDV", "hyperparameters", "model_hash"]


def model_hash(model: nn.Module) -> str:
    """The model commitment of ``model``'s parameters (hex): what a session's snapshots commit
    to for the prepared model (``named_parameters()``, in order; a DDP or ``torch.compile``
    wrapper is looked through), and what ``zkdv audit --initial HASH`` and ``--final HASH``
    compare with the transcript's first and final snapshots. A client computes it from the
    model it gave and the model it was delivered. Of an averaged model (an
    ``AveragedModel``, whose averaged module is looked through, or a hand-kept copy), it is
    what ``zkdv audit --final-averaged HASH`` compares with the averaged model in the final
    snapshot.
    """
    from torch.optim.swa_utils import AveragedModel

    if isinstance(model, AveragedModel):
        model = model.module
    if isinstance(model, nn.parallel.DistributedDataParallel):
        model = model.module
    model = lowering.unwrap(model)
    leaves = [(name, host(lowering.local(p))) for name, p in model.named_parameters()]
    return hashing.commit_model(leaves).hex()


def hyperparameters(
    optimizer: torch.optim.Optimizer, functional: FunctionalOptimizer | None = None
) -> dict[str, float]:
    """The optimizer's options that a session commits in each step record, as they are now:
    the ones its step takes as inputs (a scheduler's learning rate, Adam's ``betas[0]``), by
    committed name (``"0/lr"``: parameter group 0's ``lr``).

    A session reads them when ``optimizer.step()`` runs, and commits them in this order (the
    order its program takes them). A client that runs its own schedule without training
    (setting the rate, then stepping the scheduler) collects one dict per step and writes
    them with :func:`zkdv.data.write_hyperparameters` for ``zkdv audit --hyperparameters``.
    ``functional`` is the one registered for a custom optimizer class (the built-in ones are
    found by class).

    Example::

        schedule = []
        for step in range(steps):
            schedule.append(zkdv.torch.hyperparameters(optimizer))
            scheduler.step()
        zkdv.data.write_hyperparameters("hyper.json", schedule)
    """
    if functional is None:
        functional = _optim.find(optimizer, _optim.builtin())
    return dict(_hooks.dynamic_named(optimizer, lowering.dynamic_options(optimizer, functional)))
