"""``StepHost``: what a ``proof.jit`` step needs from the session that owns it.

:class:`zkdv.jax._jit.ProvedFunction` builds, commits and runs its step through this interface
only; :class:`zkdv.jax.ZKDV` implements it through a private adapter, so the members are not part of
its user-facing API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from zkdv.jax._attest import AttestedFunction
    from zkdv.jax._program import StepProgram

__all__ = ["StepHost"]


class StepHost(Protocol):
    """The session side of a ``proof.jit`` step."""

    @property
    def probe_ratio(self) -> float:
        """The fraction of each parameter leaf's last dimension its probe keeps."""
        ...

    @property
    def attested_function(self) -> AttestedFunction | None:
        """The ``proof.attest`` function registered, if any (it replaces the attested program
        derived from the step)."""
        ...

    def require_running(self, what: str) -> None:
        """Raise unless the session is started, not closed and not poisoned; ``what`` names
        the refused operation in the message."""
        ...

    def register_program(self, program: StepProgram) -> None:
        """Register a newly built program with the session (the first one opens the transcript
        and fixes its layout; the program's derivation and record follow beside training);
        raises when it cannot be registered, and the program is then not used."""
        ...

    def commit_program(self, program: StepProgram) -> None:
        """Write the registered ``program``'s record now (it is otherwise written before its
        first step's), waiting for its derivation."""
        ...

    def run_step(self, program: StepProgram, flat: list[Any]) -> Any:
        """Dispatch one transaction of a registered program on the call's flat dynamic inputs
        and return the function's own return value."""
        ...
