"""What ``prepare()`` installs on the user's objects, and the optimizer's books.

- :func:`hook_ddp`: a ``DistributedDataParallel`` model's communication hook, which records
  the rank's own gradients before the all-reduce (they are committed with the update);
- :func:`check_sharded`: whether a model is one rank's composable-FSDP shards;
- :func:`wrap_step`: ``optimizer.step()`` and ``zero_grad()`` lowered functionally inside the
  attested step, and the class's own everywhere else;
- :func:`hyperparameters`, :func:`check_hyperparameters`, :func:`dynamic_values`: the
  optimizer's options as the committed program fixes them (constants) or reads them (the
  dynamic options a schedule changes, committed with the batch).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from zkdv.torch import _optim, lowering

__all__ = [
    "check_hyperparameters",
    "check_sharded",
    "dynamic_named",
    "dynamic_names",
    "dynamic_values",
    "hook_ddp",
    "hyperparameters",
    "reduced_gradients",
    "wrap_step",
]


def hook_ddp(
    ddp: nn.parallel.DistributedDataParallel,
    local: Callable[[], dict[int, torch.Tensor] | None],
) -> None:
    """Check that ``ddp`` can be one rank's session and register the communication hook that
    records the rank's own gradients into ``local()`` (the open transaction's, by parameter
    id; nothing outside a transaction)."""
    import torch.distributed as dist

    if not dist.is_initialized():
        raise RuntimeError("ZKDV.prepare: a DDP model needs an initialized process group")
    module = ddp.module
    syncs = getattr(ddp, "forward_sync_buffers", None)
    if syncs is None:  # before torch 2.13's rename
        syncs = ddp.broadcast_buffers
    if syncs and any(True for _ in module.buffers()):
        raise ValueError(
            "ZKDV.prepare: this DDP model overwrites every rank's module buffers with rank "
            "0's at each forward pass, outside the attested step; wrap the model with "
            "DDP(model, forward_sync_buffers=False) (broadcast_buffers=False before torch "
            "2.13) so each rank's buffers follow from its own transitions"
        )
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    def record_local_gradients(
        group: Any, bucket: dist.GradBucket
    ) -> torch.futures.Future[torch.Tensor]:
        # The rank's own gradients, before the all-reduce averages them in place.
        gradients = local()
        if gradients is not None:
            for p, g in zip(bucket.parameters(), bucket.gradients(), strict=True):
                gradients[id(p)] = g.detach().clone()
        return default_hooks.allreduce_hook(group, bucket)

    # DDP compares the hook's annotations with the types themselves; this module's are
    # strings (postponed evaluation).
    record_local_gradients.__annotations__.update(
        {"bucket": dist.GradBucket, "return": torch.futures.Future[torch.Tensor]}
    )
    try:
        ddp.register_comm_hook(ddp.process_group, record_local_gradients)
    except RuntimeError as error:
        raise ValueError(
            "ZKDV.prepare: the DDP model already has a communication hook; ZKDV registers "
            "its own (it records the rank's gradient before the all-reduce), so prepare "
            f"a model without one ({error})"
        ) from error


def check_sharded(model: nn.Module) -> bool:
    """Whether ``model`` is sharded by composable FSDP (``fully_shard``), which a session
    supports as one rank's: the optimizer on the rank's shards."""
    params = list(model.parameters())
    sharded = [p for p in params if lowering.local(p) is not p]
    if not sharded:
        return False
    import torch.distributed as dist

    if len(sharded) != len(params):
        raise ValueError(
            "ZKDV.prepare: some of the model's parameters are FSDP shards and some are not; "
            "apply fully_shard to the root as well"
        )
    if not dist.is_initialized():
        raise RuntimeError("ZKDV.prepare: an FSDP model needs an initialized process group")
    if any(True for _ in model.buffers()):
        raise ValueError(
            "ZKDV.prepare: under FSDP a rank's step is its optimizer on its shards, and "
            "module buffers (BatchNorm statistics) change in the forward pass outside it; "
            "models with buffers are supported under DDP, not FSDP"
        )
    return True


def wrap_step(optimizer: torch.optim.Optimizer, before_step: Callable[[], None]) -> None:
    """Make ``optimizer.step()`` lower functionally inside the attested step (and stay the
    class's own step everywhere else, after ``before_step()``)."""
    native = optimizer.step

    def step(self: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
        tracing = lowering.active()
        if tracing is None or tracing.optimizer is not self:
            before_step()
            return native(*args, **kwargs)
        if args or kwargs:
            raise ValueError(
                "zkdv.torch: optimizer.step(closure) cannot be attested: the closure runs the "
                "forward and backward passes again inside the optimizer. Compute the loss in "
                "the attested step, call proof.backward(loss), then optimizer.step() without "
                "arguments"
            )
        tracing.step()
        return None

    # A bound method, as torch's learning-rate schedulers expect of optimizer.step.
    bound = types.MethodType(step, optimizer)
    if hasattr(native, "_wrapped_by_lr_sched"):
        bound.__dict__["_wrapped_by_lr_sched"] = True
    optimizer.step = bound  # type: ignore[method-assign]
    native_zero_grad = optimizer.zero_grad

    def zero_grad(self: torch.optim.Optimizer, set_to_none: bool = True) -> None:
        # Inside the attested step the gradients are the traced parameters' .grad.
        tracing = lowering.active()
        if tracing is None or tracing.optimizer is not self:
            native_zero_grad(set_to_none)
        else:
            tracing.zero_grad(set_to_none)

    optimizer.zero_grad = types.MethodType(zero_grad, optimizer)  # type: ignore[method-assign]


def reduced_gradients(model: nn.Module) -> list[torch.Tensor]:
    """Copies of the gradients DDP all-reduced, as ``optimizer.step()`` is about to apply
    them (on the training thread, before the step), of the trainable parameters: a frozen one
    takes no part in the reduction."""
    out = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.grad is None:
            raise RuntimeError(
                f"zkdv.torch: under DDP every parameter must have a gradient when the "
                f"optimizer steps; {name} has none (it is unused by the loss)"
            )
        out.append(lowering.local(p.grad).detach().clone())
    return out


def dynamic_named(
    optimizer: torch.optim.Optimizer, dynamic: tuple[tuple[int, str], ...]
) -> list[tuple[str, float]]:
    """The dynamic options ``(group index, option)`` now, by committed name
    (:func:`zkdv.torch._optim.committed_name`), in argument order."""
    out = []
    for index, key in dynamic:
        value = _optim.option(optimizer.param_groups[index], key)
        if isinstance(value, torch.Tensor):
            raise ValueError(
                f"ZKDV.transaction: the optimizer's {key} became a tensor; set it as a number"
            )
        out.append((_optim.committed_name(index, key), float(value)))
    return out


def dynamic_values(
    optimizer: torch.optim.Optimizer, dynamic: tuple[tuple[int, str], ...]
) -> list[Any]:
    """The dynamic optimizer options ``dynamic`` (``(group index, option)``) now, as the
    step's ``float64`` scalar inputs (read when ``optimizer.step()`` runs: a loop may set them
    at any point of the step before it)."""
    return [np.asarray(value, dtype=np.float64) for _, value in dynamic_named(optimizer, dynamic)]


def dynamic_names(dynamic: tuple[tuple[int, str], ...]) -> list[str]:
    """The committed name of each dynamic option (``"0/lr"``, ``"0/betas[0]"``: the parameter
    group's index and the option as Python writes it), in argument order."""
    return [_optim.committed_name(index, key) for index, key in dynamic]


def hyperparameters(
    optimizer: torch.optim.Optimizer, functional: _optim.FunctionalOptimizer
) -> tuple[tuple[Any, ...], ...]:
    """Each group's constant options (the program's), by value, then its structure constants
    (:attr:`FunctionalOptimizer.structure`): a tensor updated in place (a scheduler's
    ``fill_``) must not compare equal."""
    keys = [k for k in functional.hyperparameters if k not in functional.dynamic]
    return tuple(
        tuple(
            v.tolist() if isinstance(v, torch.Tensor) else v
            for v in (_optim.option(group, k) for k in keys)
        )
        + tuple(derive(group) for _, derive in functional.structure)
        for group in optimizer.param_groups
    )


def check_hyperparameters(
    optimizer: torch.optim.Optimizer,
    functional: _optim.FunctionalOptimizer,
    committed: tuple[tuple[Any, ...], ...],
) -> None:
    now = hyperparameters(optimizer, functional)
    if now == committed:
        return
    if len(now) != len(committed):
        raise RuntimeError(
            "ZKDV.transaction: the optimizer's parameter groups changed since the step was "
            "committed; keep them fixed"
        )
    keys = [k for k in functional.hyperparameters if k not in functional.dynamic]
    for a, b in zip(now, committed, strict=True):
        for (name, _), x, y in zip(
            functional.structure, a[len(keys) :], b[len(keys) :], strict=True
        ):
            if x != y:
                raise RuntimeError(
                    f"ZKDV.transaction: the optimizer's {name} was {y} when the step was "
                    f"committed and is {x} now: it decides the structure of the committed "
                    "program; keep it as it was"
                )
    changed = sorted(
        {
            _optim.display(k)
            for a, b in zip(now, committed, strict=True)
            for k, x, y in zip(keys, a[: len(keys)], b[: len(keys)], strict=True)
            if x != y
        }
    )
    dynamic = (
        f"only its {' and '.join(_optim.display(k) for k in functional.dynamic)} may change "
        "between steps (a schedule)"
        if functional.dynamic
        else "none of its options may change between steps (for SGD, Adam and AdamW a "
        "learning-rate schedule may change lr)"
    )
    raise RuntimeError(
        f"ZKDV.transaction: the optimizer's {', '.join(changed)} changed since the step was "
        f"committed: they are constants of the committed program, and {dynamic}"
    )
