"""The state a torch session commits, as named leaves: the prepared model's parameters (under
FSDP, this rank's shards), the optimizer's state (``param/key``, in its functional
implementation's key order), the model's buffers (``buffers/<name>``) and a prepared
GradScaler's scale and growth tracker; and the bitwise continuity between transactions.

The continuity check reads the whole state twice (the live one and the copy the last
transaction left): at GPT-2 small's size with Adam, 3 GB a step, 0.6 s on one CPU thread, a
quarter of the step. Only ``optimizer.step()`` changes the parameters and the optimizer state
inside a transaction, so :class:`Continuity` compares those on a thread of its own while the
forward and backward passes run, and the session waits for its verdict before the optimizer
steps (the mutation barrier); the leaves the forward pass changes (module buffers) and the
scaler's are compared on entry, on the training thread."""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
import weakref
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from zkdv.checks import ZKDVPoisonedError
from zkdv.torch import _optim, _scaler, lowering
from zkdv.torch._averaged import Averaged
from zkdv.torch._host import all_same_bits, host, same_bits

__all__ = [
    "Continuity",
    "Copies",
    "discontinuity",
    "held",
    "initialize",
    "leaves",
    "live",
    "on_host",
    "trainable",
]

Named = list[tuple[str, torch.Tensor]]


def initialize(optimizer: torch.optim.Optimizer, functional: _optim.FunctionalOptimizer) -> None:
    """Give each parameter without optimizer state the state its first ``step()`` would."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            if not optimizer.state[p]:
                optimizer.state[p].update(functional.init(group, p))


def leaves(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    functional: _optim.FunctionalOptimizer,
    scaler: torch.amp.GradScaler | None,
    averaged: Averaged | None = None,
) -> tuple[Named, Named]:
    """The parameter leaves, and the optimizer-state, buffer, averaged-model and scaler leaves
    after them."""
    named = list(model.named_parameters())
    params: Named = [(n, lowering.local(p)) for n, p in named]
    states = [{k: lowering.local(v) for k, v in optimizer.state[p].items()} for _, p in named]
    opt = lowering.opt_leaves([n for n, _ in params], functional, states)
    opt += lowering.buffer_leaves(list(model.named_buffers()))
    if averaged is not None:
        opt += averaged.leaves()
    device = params[0][1].device if params else None
    return params, opt + _scaler.leaves(scaler, device)


def trainable(paths: list[str], model: nn.Module) -> list[str]:
    """The ``paths`` of the parameters that require gradients (under DDP, those whose own
    gradients a rank commits)."""
    return [n for n, p in zip(paths, model.parameters(), strict=True) if p.requires_grad]


def live(params: Named, opt: Named) -> list[torch.Tensor]:
    """The state's tensors, parameters first, detached."""
    return [t.detach() for _, t in params] + [t.detach() for _, t in opt]


class _Held:
    """The array interface of one buffer of a state copy, holding the copy: an array made from
    it keeps the copy's buffers from going back to :class:`Copies` while it lives."""

    def __init__(self, array: np.ndarray, copy: list[torch.Tensor]) -> None:
        self.__array_interface__ = array.__array_interface__
        self._keep = (array, copy)


def held(copy: list[torch.Tensor]) -> list[np.ndarray]:
    """Host arrays of the state copy ``copy`` (:meth:`Copies.copy`; nothing writes it): of
    each contiguous CPU buffer a read-only view that keeps the copy alive, of any other a host
    copy (:func:`~zkdv.torch._host.host`). A snapshot's commitment and a check's pre- and
    post-state read the copy where it is: copying it again took 1.5 GB and about half a second
    at GPT-2 small's size, on every snapshot and every check."""
    out = []
    for t in copy:
        if t.device.type != "cpu" or not t.is_contiguous():
            out.append(host(t))
            continue
        bf16 = t.dtype == torch.bfloat16
        raw = (t.view(torch.int16) if bf16 else t).detach().numpy()
        view = np.asarray(_Held(raw, copy))
        if bf16:
            import ml_dtypes

            view = view.view(ml_dtypes.bfloat16)
        view.flags.writeable = False
        out.append(view)
    return out


def on_host(
    paths: list[str], opt_paths: list[str], state: list[torch.Tensor]
) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]]:
    """Host arrays of the state copy ``state`` (parameters first; :func:`held`), named: the
    parameter leaves ``paths``, then the optimizer-state, buffer and scaler leaves
    ``opt_paths``."""
    copies = held(state)
    n = len(paths)
    return (
        list(zip(paths, copies[:n], strict=True)),
        list(zip(opt_paths, copies[n:], strict=True)),
    )


def discontinuity(
    now: list[torch.Tensor],
    last: list[torch.Tensor],
    names: Callable[[], list[str]],
    step: int,
    where: str,
) -> ZKDVPoisonedError | None:
    """The failure of a state ``now`` that is not, bit for bit, the ``last`` one the previous
    transaction left (``None`` when it is); ``names()`` names the leaves, only then."""
    if all_same_bits(now, last):
        return None
    changed = [n for n, a, b in zip(names(), now, last, strict=False) if not same_bits(a, b)]
    leaf = f" (first leaf: {changed[0]!r})" if changed and len(now) == len(last) else ""
    hint = (
        "; an averaged model (EMA) is updated inside the transaction and the attested step, "
        "every step"
        if changed and changed[0].startswith("averaged/")
        else ""
    )
    return ZKDVPoisonedError(
        step,
        kind="state",
        detail=(
            f"the parameters or optimizer state at {where} are not what step {step - 1} "
            f"produced{leaf}: they were changed outside the attested step{hint}"
        ),
    )


class Continuity:
    """The state the last transaction left (:attr:`last`, copies on its device) and the
    continuity check against it.

    :meth:`check` compares the state now with :attr:`last`; at a transaction's entry
    (``launch``) the leaves only the optimizer changes are compared on the worker thread and
    :meth:`barrier` returns their verdict. One check is in flight at a time: a transaction
    awaits its own before the next one can open. The first transaction has nothing to compare
    with: its entry copies the state, and those leaves are copied on the worker thread too
    (1.5 GB into fresh pages at GPT-2 small's size, 0.6 s that the first step no longer
    spends), read before :meth:`barrier` returns like the comparison."""

    def __init__(self) -> None:
        self.last: list[torch.Tensor] | None = None
        self.copies = Copies()
        """Where the copies of the state come from (:class:`Copies`)."""
        self._worker: concurrent.futures.ThreadPoolExecutor | None = None
        self._verdict: concurrent.futures.Future[ZKDVPoisonedError | None] | None = None
        self._filling = False

    def check(
        self,
        now: list[torch.Tensor],
        names: Callable[[], list[str]],
        stable: Callable[[], int],
        step: int,
        where: str,
        *,
        launch: bool,
    ) -> tuple[list[torch.Tensor], ZKDVPoisonedError | None]:
        """The state the last transaction left (a copy of ``now`` for the first one, which is
        the reference from then on), and the failure when ``now`` is not it bit for bit
        (``names()`` names the leaves, only then). With ``launch``, the first ``stable()``
        leaves are compared on the worker thread, for :meth:`barrier`."""
        if self._verdict is not None:
            raise AssertionError("a continuity check is already in flight")
        last = self.last
        if last is None:
            k = stable() if launch else 0
            first = self.copies.copy(now[k:], now)
            # The leaves only the optimizer changes are copied beside the step.
            self._launch(now[:k], lambda: _fill(first[:k], now[:k]), first=True)
            self.last = first
            return first, None
        k = stable() if launch and len(now) == len(last) else 0
        failure = discontinuity(now[k:], last[k:], lambda: names()[k:], step, where)
        if failure is None and k:
            self._launch(
                now[:k], lambda: discontinuity(now[:k], last[:k], lambda: names()[:k], step, where)
            )
        return last, failure

    def _launch(
        self,
        state: list[torch.Tensor],
        work: Callable[[], ZKDVPoisonedError | None],
        *,
        first: bool = False,
    ) -> None:
        """Run ``work`` on the worker thread, whose verdict :meth:`barrier` returns: on the
        streams the training thread queued ``state``'s last writes on (the copy at the previous
        exit), so that it reads what they wrote. ``first``: the work fills :attr:`last`, which
        is no reference if it fails."""
        self._filling = first
        if not state:
            return
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="zkdv-torch-continuity"
            )
        streams = _streams(state)

        def run() -> ZKDVPoisonedError | None:
            with contextlib.ExitStack() as using:
                for stream in streams:
                    using.enter_context(torch.cuda.stream(stream))
                return work()

        self._verdict = self._worker.submit(run)

    def barrier(self) -> ZKDVPoisonedError | None:
        """Wait for the launched work (none: ``None``) and return its failure. Interrupted
        (a ``KeyboardInterrupt``), the work stays awaited, so that a transaction that raises
        waits for it again before it restores the state from the copy; a first copy that
        failed leaves no reference (the next transaction copies the state again) and its
        error is raised."""
        verdict = self._verdict
        if verdict is None:
            return None
        try:
            failure = verdict.result()
        except BaseException:
            if verdict.done():
                self._verdict = None
                if self._filling:
                    self.last = None
            raise
        self._verdict = None
        return failure

    def shutdown(self) -> None:
        """Stop the worker thread (after the last barrier)."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None


def _streams(tensors: list[torch.Tensor]) -> list[torch.cuda.Stream]:
    """The calling thread's current stream on each CUDA device ``tensors`` live on."""
    devices = {t.device for t in tensors if t.device.type == "cuda"}
    return [torch.cuda.current_stream(d) for d in sorted(devices, key=str)]


def _fill(buffers: list[torch.Tensor], tensors: list[torch.Tensor]) -> None:
    """Copy each of ``tensors`` into its buffer (no verdict: :meth:`Continuity._launch`)."""
    for buffer, tensor in zip(buffers, tensors, strict=True):
        buffer.copy_(tensor)


class _Copy(list[torch.Tensor]):
    """A copy of the state (a list, so that it can be weakly referenced: its buffers go back
    to their :class:`Copies` when the last reference to it goes)."""


class Copies:
    """Copies of the state whose buffers are reused.

    Each transaction copies the state it leaves (the next one's pre-state), 1.5 GB at GPT-2
    small's size with Adam. A fresh tensor's pages are faulted in and zeroed by the kernel on
    first touch: on one CPU thread ``clone()`` took 0.65 s where a copy into buffers used
    before took 0.26 s. A copy's buffers come back here when nothing refers to the copy any
    more (the transaction that started from it is committed, the one after it has left its
    own), and the next copy of the same layout reuses them. At most ``keep`` sets wait here;
    how many are in use at once is bounded by the session's transactions in flight."""

    def __init__(self, keep: int = 1) -> None:
        self._keep = keep
        self._free: list[list[torch.Tensor]] = []
        self._lock = threading.Lock()

    def copy(
        self, tensors: list[torch.Tensor], layout: list[torch.Tensor] | None = None
    ) -> list[torch.Tensor]:
        """A copy of ``tensors``, each with its own layout, into reused buffers where a set
        of this layout is free. With ``layout`` (whose last leaves are ``tensors``), buffers
        laid out like all of ``layout``, of which only the last ones are filled now: the
        caller fills the others (:func:`_fill`) before anything reads them."""
        every = tensors if layout is None else layout
        skip = len(every) - len(tensors)
        buffers = self._take(every)
        if buffers is None:
            copies = _Copy(
                [torch.empty_like(t) for t in every[:skip]] + [t.clone() for t in tensors]
            )
        else:
            _fill(buffers[skip:], tensors)
            copies = _Copy(buffers)
        weakref.finalize(copies, self._give, list(copies))
        return copies

    def _take(self, tensors: list[torch.Tensor]) -> list[torch.Tensor] | None:
        def fits(buffers: list[torch.Tensor]) -> bool:
            return len(buffers) == len(tensors) and all(
                b.shape == t.shape
                and b.dtype == t.dtype
                and b.device == t.device
                and b.stride() == t.stride()
                for b, t in zip(buffers, tensors, strict=True)
            )

        with self._lock:
            for i, buffers in enumerate(self._free):
                if fits(buffers):
                    return self._free.pop(i)
        return None

    def _give(self, buffers: list[torch.Tensor]) -> None:
        with self._lock:
            if len(self._free) < self._keep:
                self._free.append(buffers)
