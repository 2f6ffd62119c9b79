"""Overlap policies: how far training may run ahead of one transaction's sampled check.

The policy is chosen separately for every transaction (``zkdv.jax.Transaction(...,
overlap=...)``). It is host-side metadata: changing it neither retraces nor recompiles the
training function and adds no work on the device. Each step record stores the policy its
transaction ran under (``"always"``, ``"unchecked"`` or ``"never"``).

The policies bound how many generations of live buffers exist at once, not exact allocator
bytes; the compiler's temporaries and the attested program decide the remaining workspace.
A frontend's ``max_in_flight`` stays the hard ceiling on unresolved transactions; a policy
may only tighten it.

Use the members through this module: ``zkdv.overlap.ALWAYS``, ``zkdv.overlap.UNCHECKED``
(the default) and ``zkdv.overlap.NEVER``.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = ["ALWAYS", "DEFAULT", "NEVER", "UNCHECKED", "Overlap", "resolve"]


class Overlap(enum.Enum):
    """An overlap policy; its value is the text stored in the step record."""

    ALWAYS = "always"
    """Training and verification may overlap.

    As soon as a sampled check has acquired its device inputs, the transaction releases its
    training admission slot, so training continues while the check runs; this costs two
    training generations of buffers plus the verification workspace. The trusted core queues
    the eventual :class:`zkdv.CheckResult`; a failed result poisons every later operation and
    is always reported by ``close()``.
    """

    UNCHECKED = "unchecked"
    """The default: commitments pipeline, a sampled check is a fence.

    Steps that are not sampled overlap their commitments with training as usual. When a step
    is sampled, at most one already-admitted successor is kept while the check completes, and
    nothing further is admitted until it does.
    """

    NEVER = "never"
    """Fully sequential, lowest residency.

    No successor is admitted until the current transaction's commitment and any sampled check
    have retired.
    """

    def to_record(self) -> str:
        """The step record's ``overlap`` field (``"always"``, ``"unchecked"`` or ``"never"``)."""
        return self.value

    @classmethod
    def from_record(cls, text: str) -> Overlap:
        """The policy named by a step record's ``overlap`` field."""
        try:
            return cls(text)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in cls)
            message = f"unknown overlap policy {text!r}; expected one of {allowed}"
            raise ValueError(message) from None


ALWAYS: Final = Overlap.ALWAYS
"""Training and verification may overlap (see :attr:`Overlap.ALWAYS`)."""

UNCHECKED: Final = Overlap.UNCHECKED
"""Pipelined commitments, sampled checks fence (the default; see :attr:`Overlap.UNCHECKED`)."""

NEVER: Final = Overlap.NEVER
"""Fully sequential (see :attr:`Overlap.NEVER`)."""

DEFAULT: Final = UNCHECKED
"""The policy of a transaction that names none: :data:`UNCHECKED`."""


def resolve(policy: Overlap | None) -> Overlap:
    """Validate a transaction's ``overlap=`` argument; ``None`` selects :data:`DEFAULT`.

    Raises:
        TypeError: unless ``policy`` is ``None`` or a member of :class:`Overlap` (strings are
            not accepted, so a misspelling cannot pass silently).
    """
    if policy is None:
        return DEFAULT
    if not isinstance(policy, Overlap):
        raise TypeError(
            "overlap must be zkdv.overlap.ALWAYS, zkdv.overlap.UNCHECKED or zkdv.overlap.NEVER, "
            f"got {policy!r}"
        )
    return policy
