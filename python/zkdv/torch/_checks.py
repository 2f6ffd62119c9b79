"""How a torch session commits a transaction and checks it: :func:`commit` (on the committer
thread) writes a due snapshot and the step record and hands the sampled checks on, with what
they need on the host (:class:`Payload`); :func:`replay` runs a state check's step with the
replay variant in the Rust runtime, from the pre-state copy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from zkdv.config import Group, group_of
from zkdv.session import CheckJob, Replayed, StateReplay
from zkdv.session._checker import element
from zkdv.session._committer import Committer
from zkdv.session._records import Records
from zkdv.torch._host import host
from zkdv.torch._inflight import Pending
from zkdv.torch._program import Program
from zkdv.torch._state import held
from zkdv.transcript import Challenge

__all__ = ["Payload", "commit", "job", "replay"]


@dataclass(frozen=True)
class Payload:
    """What the checks of one step need besides the job's indices, on the host."""

    pre: list[np.ndarray]
    batch: list[np.ndarray]
    updates: list[np.ndarray]
    post_state: list[np.ndarray]
    local: list[np.ndarray]


def commit(
    pending: Pending,
    committer: Committer,
    snapshot_interval: int,
    trainable: Callable[[list[str]], list[str]],
) -> None:
    """Commit one transaction (its snapshot when one is due, its step record), then run or
    hand over the checks its challenge samples; retires the transaction's slot.
    ``trainable(paths)`` names the parameters whose own gradients a DDP rank commits."""
    opened = pending.opened
    program = opened.program
    # The program record precedes anything of its first step (written here once the program
    # is derived; its sealed package follows in a record of its own).
    seq = program.seq
    update = pending.update()  # on the CPU, computed here
    paths, updates, local = pending.paths, update.sketches.numpy(), update.local.numpy()
    n_params = len(paths)
    host_pre: list[np.ndarray] | None = None
    if opened.step % snapshot_interval == 0:
        host_pre = held(opened.pre)
    if committer.sketches is None:
        # The exact sketches of the state the session started from (the first transaction's
        # pre-state copy), here and not on the training thread.
        first = host_pre if host_pre is not None else held(opened.pre)
        committer.begin(committer.exact_sketches(paths, first[:n_params]))
    if host_pre is not None:
        committer.snapshot(
            opened.step,
            list(zip(paths, host_pre[:n_params], strict=True)),
            list(zip(program.traced.opt_paths, host_pre[n_params:], strict=True)),
        )
    packed, hyperparameters = opened.committed_batch()
    local_paths = [f"local_grad/{p}" for p in trainable(paths)] if local else []
    challenge, _ = committer.transition(
        step=opened.step,
        program=seq,
        paths=paths,
        updates=updates,
        batch=packed,
        overlap=opened.overlap,
        # Under DDP the rank's own gradient sketches are committed with the update's.
        extra=list(zip(local_paths, local, strict=True)),
        hyperparameters=hyperparameters,
    )
    committer.dispatch(opened.overlap, job(pending, challenge, host_pre, packed, updates, local))


def job(
    pending: Pending,
    challenge: Challenge,
    host_pre: list[np.ndarray] | None,
    packed: np.ndarray,
    updates: list[np.ndarray],
    local: list[np.ndarray],
) -> CheckJob[Payload] | None:
    """The checks ``challenge`` samples of a committed transaction (``None``: none), with what
    they need on the host: the pre-state (``host_pre`` when the snapshot copied it already),
    the committed batch, the update sketches, the post-state for a state check."""
    if not (challenge.state or challenge.update):
        return None
    opened = pending.opened
    n_params = len(pending.paths)
    indices = tuple(challenge.update_indices()) if challenge.update else ()
    committed = []
    if indices:
        committed.append(element(pending.update().deltas, indices[0], host))
        if len(indices) > 1:
            committed.append(element(pending.post[n_params:], indices[1], host))
    return CheckJob(
        step=opened.step,
        program=opened.program,
        state=challenge.state,
        indices=indices,
        committed=tuple(committed),
        payload=Payload(
            pre=host_pre if host_pre is not None else held(opened.pre),
            batch=opened.program.layout.unpack_host(packed),
            updates=updates,
            post_state=held(pending.post)[n_params:] if challenge.state else [],
            local=local,
        ),
    )


def replay(
    job: CheckJob[Payload], paths: list[str], trainable: list[str], records: Records
) -> Replayed:
    """The step of ``job`` (``paths``: the parameters'; ``trainable``: those a DDP rank
    commits its own gradients of) from its pre-state copy; for a state check, replayed in
    the Rust runtime with the replay variant: its update sketches must reproduce the
    committed ones, and its post-optimizer state and buffers the ones production left (which
    the next step starts from: an edit inside the transaction would otherwise become the
    next step's accepted pre-state). Under DDP the replayed local gradients' sketches must
    reproduce the rank's committed ones too. The replay is another program than the eager
    production step, so the comparison allows its perturbation ensemble's spread
    (docs/protocol.md)."""
    payload = job.payload
    state = None
    if job.state:
        program = job.program
        assert isinstance(program, Program)
        arguments = [*payload.pre, *payload.batch]
        n_state, n_params = len(payload.pre), len(paths)

        def sketches(member: int | None = None) -> np.ndarray:
            outputs = [np.asarray(x) for x in program.replay.run(arguments, ensemble=member)]
            del outputs[:n_params]  # the replayed parameters: their updates are compared
            deltas = outputs[n_state - n_params : n_state]
            values = records.exact_sketches(paths, deltas)
            local = outputs[n_state:]
            local_values = records.exact_sketches(trainable, local) if local else []
            del outputs[n_state - n_params :], deltas, local
            return _joined(values, outputs, local_values)

        committed = _joined(list(payload.updates), list(payload.post_state), list(payload.local))
        recomputed = sketches()
        # Compared as a state, one run of values per leaf: in a narrow-float program a few
        # discrete flips are admitted as outliers, each within its leaf's largest spread.
        # No value is given the change of sign of its update (``update`` 0): over one step
        # an optimizer moment's update is the size of its gradient, so that allowance would
        # admit a tampered gradient's few values outside their bound as flips (T5's
        # embedding, scaled by 1.001).
        # The update sketches keep the tolerance's absolute term (a sketch value's rounding is
        # that of its terms); the optimizer state's values are bounded in their rows' range.
        groups: list[Group] = [group_of(u, True, sketch=True) for u in payload.updates]
        groups += [
            group_of(x, x.dtype.kind == "f" or x.dtype.name == "bfloat16")
            for x in payload.post_state
        ]
        groups += [group_of(u, True, sketch=True) for u in payload.local]
        opt_paths = program.traced.opt_paths
        names = [f"update of {p}" for p in paths]
        names += [f"optimizer state {p}" for p in opt_paths][: len(payload.post_state)]
        names += [f"local gradient of {p}" for p in trainable][: len(payload.local)]
        state = StateReplay(
            committed,
            recomputed,
            members=sketches,
            groups=groups,
            update=np.zeros(committed.size),
            names=names if len(names) == len(groups) else None,
            flips=program.flips,
        )
    return Replayed(pre_state=payload.pre, batch=payload.batch, replay_length=0, state=state)


def _joined(*parts: list[np.ndarray]) -> np.ndarray:
    """The values of every array of ``parts`` in order, flat, as ``float64``, in one allocation;
    each list is emptied as it is copied, so an array nothing else holds is freed as soon as
    it is copied (at 124M parameters the optimizer state alone is 2 GB in ``float64``, and a
    list of converted arrays and their concatenation held it twice)."""
    out = np.empty(sum(int(np.size(x)) for part in parts for x in part), dtype=np.float64)
    at = 0
    for part in parts:
        while part:
            value = np.asarray(part[0])
            out[at : at + value.size] = value.reshape(-1)
            at += value.size
            del part[0], value
    return out
