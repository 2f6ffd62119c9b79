"""What the JAX session keeps per committed program (:class:`RegisteredProgram`).

The transcript writer and the probe maps are the frontends' shared :class:`zkdv._records.Records`
(opened when the first step program is registered: its root fixes the layout; then written by
the training thread, the committer and the verifier thread, one call at a time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zkdv import runtime
from zkdv._records import Records
from zkdv.config import Tolerance
from zkdv.jax._program import StepProgram

__all__ = ["Records", "RegisteredProgram"]  # Records: re-exported for the session modules


@dataclass(frozen=True, eq=False)
class RegisteredProgram:
    """A step program as the session committed it."""

    program: StepProgram
    seq: int
    """The sequence number of its program record."""
    tolerance: Tolerance
    """The tolerance of its checks (the session's, adjusted to its precision)."""
    attested: runtime.Program
    """The attested program, parsed for the Rust runtime."""
    weights: tuple[Any, ...]
    """The probe weights, placed as the production program's extra arguments."""
