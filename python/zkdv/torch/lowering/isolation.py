"""Tracing the attested step on a thread of its own while production trains the same modules.

A trace reparametrizes the prepared root (and a prepared averaged model) with traced tensors
for the whole attested call (:func:`zkdv.torch.lowering.tracing.trace`). Run beside training,
that swap must not reach the training thread, which runs the same modules eagerly at the same
time. :class:`Views` gives each module's ``_parameters`` and ``_buffers`` a per-thread view: a
:class:`_View` is a ``dict`` whose own contents are what every thread reads (the training
thread, and C code that reads the dict directly), except the one thread that traces, which
reads and writes a copy of its own. ``nn.Module`` reaches its parameters and buffers through
these dicts' Python methods only (``__getattr__``, ``named_parameters``, ``__setattr__`` and
``_reparametrize_module``'s swap), so the trace sees its traced tensors and production its
real ones.

What else a trace sets is per thread already (the tracing context, autograd's grad mode, the
torch function and dispatch mode stacks, autocast), or set by :func:`ambient` on the tracing
thread as the training thread had it when the transaction began. :func:`concurrent_refusal`
names what keeps a step's trace on the training thread: state a trace must set for the whole
process (oneDNN off for recurrent layers, the attention backend inside
``nn.MultiheadAttention``), a compiled module (its guards read the swapped dicts), and modes or
transforms active around the transaction.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

__all__ = ["SWITCH_INTERVAL", "Ambient", "Views", "ambient", "concurrent_refusal", "yielding"]

_SLOTS = ("_parameters", "_buffers")


class _View(dict):
    """A module's ``_parameters`` or ``_buffers``: the dict's own contents for every thread but
    :attr:`owner`, which sees :attr:`mine` (a copy made when the view was installed)."""

    def __init__(self, base: dict[str, Any]) -> None:
        super().__init__(base)
        self.owner: int | None = None
        self.mine: dict[str, Any] = dict(base)

    def _view(self) -> dict[str, Any] | None:
        return self.mine if threading.get_ident() == self.owner else None

    def __getitem__(self, key: str) -> Any:
        view = self._view()
        return dict.__getitem__(self, key) if view is None else view[key]

    def __setitem__(self, key: str, value: Any) -> None:
        view = self._view()
        if view is None:
            dict.__setitem__(self, key, value)
        else:
            view[key] = value

    def __delitem__(self, key: str) -> None:
        view = self._view()
        if view is None:
            dict.__delitem__(self, key)
        else:
            del view[key]

    def __contains__(self, key: object) -> bool:
        view = self._view()
        return dict.__contains__(self, key) if view is None else key in view

    def __iter__(self) -> Iterator[str]:
        view = self._view()
        return dict.__iter__(self) if view is None else iter(view)

    def __len__(self) -> int:
        view = self._view()
        return dict.__len__(self) if view is None else len(view)

    def get(self, key: str, default: Any = None) -> Any:
        view = self._view()
        return dict.get(self, key, default) if view is None else view.get(key, default)

    def keys(self) -> Any:
        view = self._view()
        return dict.keys(self) if view is None else view.keys()

    def values(self) -> Any:
        view = self._view()
        return dict.values(self) if view is None else view.values()

    def items(self) -> Any:
        view = self._view()
        return dict.items(self) if view is None else view.items()

    def pop(self, key: str, *default: Any) -> Any:
        view = self._view()
        return dict.pop(self, key, *default) if view is None else view.pop(key, *default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        view = self._view()
        if view is None:
            return dict.setdefault(self, key, default)
        return view.setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        view = self._view()
        if view is None:
            dict.update(self, *args, **kwargs)
        else:
            view.update(*args, **kwargs)

    def copy(self) -> dict[str, Any]:
        view = self._view()
        return dict(dict.items(self)) if view is None else dict(view)

    def __repr__(self) -> str:
        view = self._view()
        return dict.__repr__(self) if view is None else repr(view)

    def __reduce__(self) -> tuple[Any, ...]:
        """A copy or a pickle of the module (``copy.deepcopy(model)``, ``torch.save``) while
        a trace runs holds a plain dict of the module's own contents."""
        return (dict, (dict(dict.items(self)),))


class Views:
    """Per-thread views of ``modules``' parameters and buffers (see the module documentation),
    installed on the training thread before the trace starts and removed there once it ended
    (:meth:`remove`); :meth:`own` makes the calling thread the one that sees its own copy."""

    def __init__(self, modules: Iterable[nn.Module]) -> None:
        self._installed: list[tuple[nn.Module, str, _View]] = []
        seen: set[int] = set()
        for module in modules:
            if id(module) in seen:
                continue
            seen.add(id(module))
            for slot in _SLOTS:
                base = module.__dict__.get(slot)
                if type(base) is dict:
                    view = _View(base)
                    module.__dict__[slot] = view
                    self._installed.append((module, slot, view))

    @contextlib.contextmanager
    def owned(self) -> Iterator[None]:
        """Make the calling thread the tracing one for the block (the trace's work, whichever
        thread runs it); after it, that thread sees the modules' own contents too (a thread
        that ended may lend its identifier to a new one)."""
        me = threading.get_ident()
        for _, _, view in self._installed:
            view.owner = me
        try:
            yield
        finally:
            for _, _, view in self._installed:
                view.owner = None

    def remove(self) -> None:
        """Give each module back a plain dict of its own contents (on the training thread,
        once the trace ended: nothing reads a view meanwhile but that thread)."""
        for module, slot, view in self._installed:
            view.owner = None
            if module.__dict__.get(slot) is view:
                module.__dict__[slot] = dict(dict.items(view))
        self._installed = []


@dataclass(frozen=True)
class Ambient:
    """The thread-local state a trace inherits from the training thread: grad mode and the
    autocast of each device type, as they were when the transaction began."""

    grad: bool
    autocast: tuple[tuple[str, torch.dtype], ...]
    """``(device type, dtype)`` of each device type whose autocast is enabled."""
    autocast_cache: bool

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        """Run the block with this state (on the tracing thread)."""
        with contextlib.ExitStack() as scope:
            scope.enter_context(torch.set_grad_enabled(self.grad))
            for device, dtype in self.autocast:
                scope.enter_context(
                    torch.autocast(device, dtype=dtype, cache_enabled=self.autocast_cache)
                )
            yield


SWITCH_INTERVAL = 1e-4
"""Seconds a thread holds the interpreter lock while another waits for it, while a trace runs
beside training (:func:`yielding`); Python's default is 5 ms."""


@contextlib.contextmanager
def yielding() -> Iterator[None]:
    """Run the block (a trace beside training) handing the interpreter lock back within
    :data:`SWITCH_INTERVAL` when the training thread asks for it: at the default 5 ms, each
    call of production's into Python (every op, under a dispatch mode) could wait that long
    for a trace that holds the lock, and a step of a few hundred such calls took seconds
    longer. The interval is the process's: restored at the end, unless changed meanwhile."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, SWITCH_INTERVAL))
    try:
        yield
    finally:
        if sys.getswitchinterval() == min(before, SWITCH_INTERVAL):
            sys.setswitchinterval(before)


_DEVICE_TYPES = ("cpu", "cuda", "xpu", "mps", "hpu")


def ambient() -> Ambient:
    """The training thread's :class:`Ambient` state now."""
    enabled = []
    for device in _DEVICE_TYPES:
        try:
            if torch.is_autocast_enabled(device):
                enabled.append((device, torch.get_autocast_dtype(device)))
        except RuntimeError:  # a device type this build of torch does not know
            continue
    return Ambient(torch.is_grad_enabled(), tuple(enabled), torch.is_autocast_cache_enabled())


def concurrent_refusal(modules: Iterable[nn.Module]) -> str | None:
    """Why the trace of a step over ``modules`` must run on the training thread (``None``: it
    may run beside training)."""
    if torch.is_inference_mode_enabled():
        return "inference mode is on"
    if torch._C._len_torch_function_stack() or torch._C._len_torch_dispatch_stack():
        return "a torch function or dispatch mode is active around the transaction"
    if torch._C._functorch.peek_interpreter_stack() is not None:
        return "a functorch transform is active around the transaction"
    for module in modules:
        if isinstance(module, nn.RNNBase):
            return "a recurrent layer is traced with oneDNN off, a setting of the whole process"
        if isinstance(module, nn.MultiheadAttention):
            # Its attention is called from inside a function torch dispatches to the tracing
            # thread's modes, with them off: only the process's backend flags reach it.
            return "nn.MultiheadAttention's attention is chosen by the process's backend flags"
        if isinstance(getattr(module, "_orig_mod", None), nn.Module):
            return "a compiled module's guards read the modules' parameters"
    return None
