"""``zkdv.torch``: the PyTorch frontend (``pip install 'zkdv[torch]'``).

:class:`ZKDV` is the proof session: ``prepare`` the root model and optimizer, register the
attested step with ``@proof.attest``, and run each training step inside
``proof.transaction(batch=...)``. The attested step is lowered to StableHLO through torch-mlir
and replayed by the same Rust passes and runtime as JAX's (docs/torch.md).
"""

from torch import nn

from zkdv import hashing
from zkdv.torch import _lower
from zkdv.torch._host import host
from zkdv.torch._optim import FunctionalOptimizer
from zkdv.torch._session import ZKDV

__all__ = ["FunctionalOptimizer", "ZKDV", "model_hash"]


def model_hash(model: nn.Module) -> str:
    """The model commitment of ``model``'s parameters (hex): what a session's snapshots commit
    to for the prepared model (``named_parameters()``, in order; a DDP or ``torch.compile``
    wrapper is looked through), and what ``zkdv audit --initial HASH`` and ``--final HASH``
    compare with the transcript's first and final snapshots. A client computes it from the
    model it gave and the model it was delivered.
    """
    if isinstance(model, nn.parallel.DistributedDataParallel):
        model = model.module
    model = _lower.unwrap(model)
    leaves = [(name, host(_lower.local(p))) for name, p in model.named_parameters()]
    return hashing.commit_model(leaves).hex()
