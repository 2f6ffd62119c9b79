"""ZKDV: verification transcripts for the updates of training loops.

The package root holds what every frontend shares and imports neither JAX
nor PyTorch. The Rust core is ``zkdv._native``; its hashing is wrapped for
numpy arrays in :mod:`zkdv.hashing` and its transcript writer, challenge
derivation and verifier are exposed in :mod:`zkdv.transcript`.
"""

from zkdv import hashing, transcript
from zkdv._native import PROTOCOL_VERSION, TranscriptError
from zkdv._native import __version__ as _native_version

__version__: str = _native_version

__all__ = ["PROTOCOL_VERSION", "TranscriptError", "__version__", "hashing", "transcript"]
