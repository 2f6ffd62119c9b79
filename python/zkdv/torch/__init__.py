"""``zkdv.torch``: the PyTorch frontend (``pip install 'zkdv[torch]'``).

:class:`ZKDV` is the proof session: ``prepare`` the root model and optimizer, register the
attested step with ``@proof.attest``, and run each training step inside
``proof.transaction(batch=...)``. The attested step is lowered to StableHLO through torch-mlir
and replayed by the same Rust passes and runtime as JAX's (docs/torch.md).
"""

from zkdv.torch._optim import FunctionalOptimizer
from zkdv.torch._session import ZKDV

__all__ = ["FunctionalOptimizer", "ZKDV"]
