"""The session core both frontends share (docs/development.md has the picture).

A proof session is one framework-neutral core and a frontend:

- :class:`~zkdv.session._session.Session` (``_session.py``): arguments, lifecycle (``start``,
  ``join``, ``close``), the threads' end, ``checks`` and ``steps``;
- :class:`~zkdv.session._flow.Flow` (``_flow.py``): admission slots (``max_in_flight``,
  :mod:`zkdv.overlap`) and the poison every thread reads;
- :class:`~zkdv.session._records.Records` (``_records.py``): the transcript writer, the root and
  program records, the probe maps;
- :class:`~zkdv.session._committer.Committer` (``_committer.py``): the committer thread and
  the records of a transaction: snapshot, step record (state sketches by linearity), the
  challenge handed on as a check job;
- :class:`~zkdv.session._checker.Checker` (``_checker.py``): the state and update checks (with
  the perturbation ensemble), their records, the poison of a failure.

A frontend (``zkdv.jax``, ``zkdv.torch``) subclasses ``Session`` and implements its hooks: how a
transaction is committed from its framework's arrays (``_commit``, built from the committer's
pieces), how a step is rebuilt and replayed for its checks (``_replay``), and what the state
left by the last step is checked against before the close record (``_last_state_check``).
Every rule of the protocol itself (hashes, challenges, the tolerance) is computed in Rust.
"""

from zkdv.session._checker import CheckJob, Replayed, StateReplay
from zkdv.session._records import Leaf, Root
from zkdv.session._session import Session

__all__ = ["CheckJob", "Leaf", "Replayed", "Root", "Session", "StateReplay"]
