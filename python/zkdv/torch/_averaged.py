"""Averaged copies of the model (an EMA or SWA of its weights) as state of the attested step.

The model a run delivers is often not the trained one but an average of it: a
``torch.optim.swa_utils.AveragedModel`` updated after each ``optimizer.step()``, or a copy of
the model that the loop moves toward it by hand (``ema.lerp_(p, 1 - decay)``). Such a copy is
state like the optimizer's: ``prepare()`` takes it (an ``AveragedModel`` is recognized; any
other module is given as ``averaged=``), its parameters and buffers become state leaves after
the model's buffers, and the attested step updates them, so they are committed, checked and
challenged like the rest of the state, and an edit of them outside the step fails the
continuity check.

Leaf paths name the averaged model's own parameters, so that its commitment is the one
``zkdv.torch.model_hash`` computes of it (``zkdv audit --final-averaged``):
``averaged/params/<name>`` for each parameter and ``averaged/buffers/<name>`` for each buffer of
the averaged module (an ``AveragedModel``'s ``.module``), then ``averaged/n_averaged`` (an
``AveragedModel``'s count of the models it averaged).

Inside the attested step the averaged module is reparametrized with traced clones of those
leaves, as the root is with its parameters. A loop's own update of it (in-place ops on its
parameters) is then traced as written. ``AveragedModel.update_parameters`` branches in Python
on its count (a first call copies the model): :func:`traced_update` is the same update with
that branch a ``where`` on the traced count, so one program is every step's."""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel, get_swa_avg_fn

from zkdv.torch import lowering

__all__ = ["Averaged", "of"]

Named = list[tuple[str, torch.Tensor]]

PREFIX = "averaged/"
"""The first part of every averaged leaf's path."""


@dataclass(frozen=True)
class Averaged:
    """A prepared averaged model."""

    module: nn.Module
    """What the attested step reparametrizes: the ``AveragedModel`` itself, or the module
    given as ``averaged=``."""

    @property
    def inner(self) -> nn.Module:
        """The averaged module (an ``AveragedModel``'s ``.module``): its parameters are the
        averaged model's."""
        return self.module.module if isinstance(self.module, AveragedModel) else self.module

    def members(self) -> list[tuple[str, str, torch.Tensor]]:
        """``(leaf path, name in`` :attr:`module` ``, tensor)`` of each leaf, in order. Paths
        name the averaged module as ``zkdv.torch.model_hash`` does, through a
        ``torch.compile`` wrapper (whose parameters are its ``_orig_mod``'s)."""
        base = lowering.unwrap(self.inner)
        inner = "module." if isinstance(self.module, AveragedModel) else ""
        inner += next(f"{n}." if n else "" for n, m in self.inner.named_modules() if m is base)
        found = [
            (f"{PREFIX}params/{n}", inner + n, lowering.local(t))
            for n, t in base.named_parameters()
        ]
        found += [(f"{PREFIX}buffers/{n}", inner + n, t) for n, t in base.named_buffers()]
        if isinstance(self.module, AveragedModel):
            found.append((f"{PREFIX}n_averaged", "n_averaged", self.module.n_averaged))
        return found

    def leaves(self) -> Named:
        """The state leaves ``(path, tensor)``."""
        return [(path, t) for path, _, t in self.members()]


def of(value: nn.Module, root: nn.Module) -> Averaged:
    """``value`` prepared as the averaged copy of ``root``.

    Raises:
        ValueError: ``value`` shares a tensor with ``root`` (it is no copy), or holds no
            parameter.
    """
    averaged = Averaged(value)
    members = averaged.members()
    if not any(path.startswith(f"{PREFIX}params/") for path, _, _ in members):
        raise ValueError("ZKDV.prepare: the averaged model holds no parameter")
    own = {id(t) for t in root.parameters()} | {id(t) for t in root.buffers()}
    shared = [name for _, name, t in members if id(t) in own]
    if shared:
        raise ValueError(
            f"ZKDV.prepare: the averaged model shares {shared[0]!r} with the model; give a copy "
            "of it (copy.deepcopy(model), or torch.optim.swa_utils.AveragedModel(model))"
        )
    if isinstance(value, AveragedModel):
        _wrap_update(value)
    return averaged


def _wrap_update(model: AveragedModel) -> None:
    """Make ``model.update_parameters`` the traced update inside the attested step (and the
    class's own everywhere else)."""
    native: Callable[[nn.Module], None] = model.update_parameters

    def update_parameters(self: AveragedModel, source: nn.Module) -> None:
        if lowering.active() is None:
            native(source)
        else:
            traced_update(self, source)

    model.update_parameters = types.MethodType(update_parameters, model)  # type: ignore[method-assign]


@torch.no_grad()
def traced_update(averaged: AveragedModel, source: nn.Module) -> None:
    """``averaged.update_parameters(source)`` on traced tensors: the class's update, with its
    first call's copy chosen by a ``where`` on the traced count rather than in Python.

    As the class does: with ``use_buffers`` the buffers are averaged too, otherwise copied; a
    ``multi_avg_fn`` (or none, SWA's on a device with foreach kernels) updates each group of a
    device and dtype at once, an ``avg_fn`` (or none, SWA's elsewhere) each tensor."""
    from torch.utils._foreach_utils import (
        _get_foreach_kernels_supported_devices,
        _group_tensors_by_device_and_dtype,
    )

    source = lowering.unwrap(source)
    if averaged.use_buffers:
        mine = [*averaged.module.parameters(), *averaged.module.buffers()]
        theirs = [*source.parameters(), *source.buffers()]
    else:
        mine, theirs = list(averaged.parameters()), list(source.parameters())
    pairs = [(a, m.detach().to(a.device)) for a, m in zip(mine, theirs, strict=False)]
    count = averaged.n_averaged
    new: list[torch.Tensor] = [a.detach().clone() for a, _ in pairs]
    currents = [m for _, m in pairs]
    if averaged.multi_avg_fn is not None or averaged.avg_fn is None:
        index = {id(t): i for i, t in enumerate(new)}
        grouped = _group_tensors_by_device_and_dtype([new, currents])  # type: ignore[list-item]
        for (device, _), ([in_group, of_group], _) in grouped.items():
            n = count.to(device)
            group = [t for t in in_group if t is not None]
            group_currents = [t for t in of_group if t is not None]
            if averaged.multi_avg_fn is not None:
                averaged.multi_avg_fn(group, group_currents, n)
            elif device is not None and device.type in _get_foreach_kernels_supported_devices():
                _swa_multi(group, group_currents, n)
            else:
                swa = get_swa_avg_fn()
                for a, m in zip(group, group_currents, strict=True):
                    new[index[id(a)]] = swa(a, m, n)
    else:
        new = [
            averaged.avg_fn(a, m, count.to(a.device)) for a, m in zip(new, currents, strict=True)
        ]
    first = count == 0
    for (a, m), value in zip(pairs, new, strict=True):
        a.copy_(torch.where(first.to(a.device), m, value))
    if not averaged.use_buffers:
        for b_averaged, b_source in zip(averaged.module.buffers(), source.buffers(), strict=True):
            b_averaged.copy_(b_source.detach().to(b_averaged.device))
    averaged.n_averaged.add_(1)


def _swa_multi(averaged: list[torch.Tensor], current: list[torch.Tensor], n: torch.Tensor) -> Any:
    """SWA's update of a group on a device with foreach kernels (``get_swa_multi_avg_fn``),
    with its weight ``1 / (n + 1)`` a traced tensor: the class passes it as a number, which a
    traced count cannot be turned into."""
    if torch.is_floating_point(averaged[0]) or torch.is_complex(averaged[0]):
        # The class's weight is a float32 number, which the kernel uses in float32 (its
        # opmath) for a bf16 or f16 tensor too: the same here, rounded once to the tensor's.
        weight = (1 / (n + 1)).float()
        for a, m in zip(averaged, current, strict=True):
            wide = a.float() if a.dtype in (torch.bfloat16, torch.float16) else a
            a.copy_(torch.lerp(wide, m.to(wide.dtype), weight.to(wide.dtype)))
    else:
        for a, m in zip(averaged, current, strict=True):
            a.add_((m - a) / (n + 1))
