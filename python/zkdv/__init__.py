"""ZKDV: verification transcripts for the updates of training loops.

The package root holds what every frontend shares and imports neither JAX nor PyTorch:

- the session configuration, :class:`ZKDVConfig`, with its :class:`SamplingPolicy`
  (or :meth:`SamplingPolicy.DEBUGCheckEvery`) and float :class:`Tolerance`;
- the per-transaction overlap policies, :mod:`zkdv.overlap`;
- the outcome of a sampled check, :class:`CheckResult`, and the error of a poisoned session,
  :class:`ZKDVPoisonedError`;
- the Rust core ``zkdv._native``: hashing wrapped for numpy arrays in :mod:`zkdv.hashing`,
  the transcript writer, challenge derivation and verifier in :mod:`zkdv.transcript`;
- hooks for testing ZKDV itself (a session that skips its seal, or that corrupts production's
  outputs as a faulty machine would), :mod:`zkdv.testing`: never for a training run.

The framework frontends are loaded on first access, ``zkdv.jax`` (``pip install
'zkdv[jax]'``) and ``zkdv.torch`` (``pip install 'zkdv[torch]'``), so importing the root
never imports a framework. Accessing one raises :class:`ImportError` with the install command
when its framework is missing, or when the frontend is not part of this build.
"""

from types import ModuleType

from zkdv import _frontends, data, hashing, overlap, testing, transcript
from zkdv._native import PROTOCOL_VERSION, TranscriptError
from zkdv._native import __version__ as _native_version
from zkdv.checks import CheckResult, LeafBias, ZKDVPoisonedError
from zkdv.config import SamplingPolicy, Tolerance, ZKDVConfig

__version__: str = _native_version

__all__ = [
    "PROTOCOL_VERSION",
    "CheckResult",
    "LeafBias",
    "SamplingPolicy",
    "Tolerance",
    "TranscriptError",
    "ZKDVConfig",
    "ZKDVPoisonedError",
    "__version__",
    "data",
    "hashing",
    "overlap",
    "testing",
    "transcript",
]


def __getattr__(name: str) -> ModuleType:
    """Import the frontends ``zkdv.jax`` and ``zkdv.torch`` on first access."""
    if name in _frontends.FRONTENDS:
        return _frontends.load(name)
    raise AttributeError(f"module 'zkdv' has no attribute {name!r}")
