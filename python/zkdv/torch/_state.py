"""The state a torch session commits, as named leaves: the prepared model's parameters (under
FSDP, this rank's shards), the optimizer's state (``param/key``, in its functional
implementation's key order), the model's buffers (``buffers/<name>``) and a prepared
GradScaler's scale and growth tracker; and the bitwise continuity between transactions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from zkdv.checks import ZKDVPoisonedError
from zkdv.torch import _optim, _scaler, lowering
from zkdv.torch._host import all_same_bits, host, same_bits

__all__ = ["discontinuity", "initialize", "leaves", "live", "on_host", "trainable"]

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
) -> tuple[Named, Named]:
    """The parameter leaves, and the optimizer-state, buffer and scaler leaves after them."""
    named = list(model.named_parameters())
    params: Named = [(n, lowering.local(p)) for n, p in named]
    states = [{k: lowering.local(v) for k, v in optimizer.state[p].items()} for _, p in named]
    opt = lowering.opt_leaves([n for n, _ in params], functional, states)
    opt += lowering.buffer_leaves(list(model.named_buffers()))
    device = params[0][1].device if params else None
    return params, opt + _scaler.leaves(scaler, device)


def trainable(paths: list[str], model: nn.Module) -> list[str]:
    """The ``paths`` of the parameters that require gradients (under DDP, those whose own
    gradients a rank commits)."""
    return [n for n, p in zip(paths, model.parameters(), strict=True) if p.requires_grad]


def live(params: Named, opt: Named) -> list[torch.Tensor]:
    """The state's tensors, parameters first, detached."""
    return [t.detach() for _, t in params] + [t.detach() for _, t in opt]


def on_host(
    paths: list[str], opt_paths: list[str], state: list[torch.Tensor]
) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]]:
    """Host copies of ``state`` (parameters first), named: the parameter leaves ``paths``,
    then the optimizer-state, buffer and scaler leaves ``opt_paths``."""
    copies = [host(t) for t in state]
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
    return ZKDVPoisonedError(
        step,
        kind="state",
        detail=(
            f"the parameters or optimizer state at {where} are not what step {step - 1} "
            f"produced{leaf}: they were changed outside the attested step"
        ),
    )
