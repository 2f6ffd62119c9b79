"""What ``ZKDV.prepare`` registers: the root model (under DDP, the module it wraps), the
optimizer with its functional implementation, and a GradScaler; the hooks each needs
(:mod:`zkdv.torch._hooks`, :mod:`zkdv.torch._scaler`); and the state leaves they make up
(:mod:`zkdv.torch._state`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel

from zkdv.torch import _averaged, _hooks, _optim, _scaler, _state, lowering

__all__ = ["Prepared"]

Named = list[tuple[str, torch.Tensor]]


class Prepared:
    """The objects a torch session attests, as ``prepare()`` registered them."""

    def __init__(self) -> None:
        self.model: nn.Module | None = None
        self.wrapper: nn.Module | None = None
        """The module ``prepare()`` was given when it wraps the root (``torch.compile``'s)."""
        self.ddp: nn.parallel.DistributedDataParallel | None = None
        self.sharded = False
        """Whether the model's parameters are composable-FSDP ``DTensor`` shards."""
        self.optimizer: torch.optim.Optimizer | None = None
        self.scaler: torch.amp.GradScaler | None = None
        """The prepared ``torch.amp.GradScaler``, if any (:mod:`zkdv.torch._scaler`)."""
        self.averaged: _averaged.Averaged | None = None
        """The prepared averaged model (an EMA of the weights), if any
        (:mod:`zkdv.torch._averaged`)."""
        self.functional: _optim.FunctionalOptimizer | None = None
        self.functionals = _optim.builtin()
        """The functional implementation of each optimizer class the session knows."""

    @property
    def distributed(self) -> bool:
        """Whether the step's gradients are reduced across ranks (DDP or FSDP)."""
        return self.ddp is not None or self.sharded

    def add(
        self,
        value: Any,
        local: Callable[[], dict[int, torch.Tensor] | None],
        before_step: Callable[[], None],
    ) -> Any:
        """Register one of ``prepare()``'s arguments when it is a model, an optimizer or a
        GradScaler (see :meth:`zkdv.torch.ZKDV.prepare`); returns it as it is (a compiled
        module too: production keeps running it).

        ``local`` is where a DDP model's communication hook keeps the rank's own gradients
        (the open transaction's, ``None`` outside one); ``before_step`` runs before each
        ``optimizer.step()``."""
        if isinstance(value, AveragedModel):
            return self.add_averaged(value)
        if isinstance(value, nn.parallel.DistributedDataParallel):
            if self.model is not None and self.model is not value.module:
                raise RuntimeError("ZKDV.prepare: a root model is already prepared")
            _hooks.hook_ddp(value, local)
            self.model, self.ddp = value.module, value
            return value
        stateful = isinstance(value, nn.Module) and (
            any(True for _ in value.parameters()) or any(True for _ in value.buffers())
        )
        if stateful:
            # A torch.compile module: its original module is the root (the attested step is
            # lowered from it); production keeps running the compiled one.
            root = lowering.unwrap(value)
            if self.model is not None and self.model is not root:
                raise RuntimeError(
                    "ZKDV.prepare: a root model is already prepared; compose every module the "
                    "attested step uses under one root"
                )
            self.sharded = _hooks.check_sharded(root)
            self.model = root
            self.wrapper = value if value is not root else None
            return value
        if isinstance(value, torch.optim.Optimizer):
            if self.optimizer is not None and self.optimizer is not value:
                raise RuntimeError("ZKDV.prepare: an optimizer is already prepared")
            for group in value.param_groups:
                for name, hyper in group.items():
                    if isinstance(hyper, torch.Tensor):
                        raise ValueError(
                            f"ZKDV.prepare: the optimizer's {name} is a tensor; give it as a "
                            "number (its value is committed)"
                        )
            self.functional = _optim.find(value, self.functionals)
            self.optimizer = value
            _hooks.wrap_step(value, before_step)
        elif isinstance(value, torch.amp.GradScaler):
            if self.scaler is not None and self.scaler is not value:
                raise RuntimeError("ZKDV.prepare: a GradScaler is already prepared")
            if self.scaler is None:
                _scaler.wrap(value, before_step)
            self.scaler = value
        return value

    def add_averaged(self, value: nn.Module) -> nn.Module:
        """Register ``value`` as the averaged copy of the root model (see
        :meth:`zkdv.torch.ZKDV.prepare`); returns it as it is.

        Raises:
            RuntimeError: before the root model is prepared, or a second averaged model.
            ValueError: ``value`` is no copy of the model (see :func:`_averaged.of`).
        """
        if self.averaged is not None:
            if self.averaged.module is value:
                return value
            raise RuntimeError("ZKDV.prepare: an averaged model is already prepared")
        if self.model is None:
            raise RuntimeError(
                "ZKDV.prepare: prepare the model before its averaged copy: "
                "proof.prepare(model, optimizer, ema)"
            )
        if not isinstance(value, nn.Module):
            raise TypeError(
                f"ZKDV.prepare: averaged= takes the averaged copy of the model (an nn.Module), "
                f"not {type(value).__name__}"
            )
        self.averaged = _averaged.of(value, self.model)
        return value

    def register_functional(
        self, optimizer_class: type[torch.optim.Optimizer], functional: _optim.FunctionalOptimizer
    ) -> None:
        """See :meth:`zkdv.torch.ZKDV.register_functional_optimizer`."""
        if self.optimizer is not None:
            raise RuntimeError(
                "ZKDV.register_functional_optimizer: call it before prepare(optimizer)"
            )
        if not (
            isinstance(optimizer_class, type) and issubclass(optimizer_class, torch.optim.Optimizer)
        ):
            raise TypeError("register_functional_optimizer: give a torch.optim.Optimizer subclass")
        if not isinstance(functional, _optim.FunctionalOptimizer):
            raise TypeError("register_functional_optimizer: give a zkdv.torch.FunctionalOptimizer")
        self.functionals[optimizer_class] = functional

    def parts(self) -> tuple[nn.Module, torch.optim.Optimizer, _optim.FunctionalOptimizer]:
        """The model, the optimizer and its functional implementation.

        Raises:
            RuntimeError: when either is not prepared yet.
        """
        if self.model is None or self.optimizer is None:
            raise RuntimeError(
                "ZKDV.transaction: prepare the model and the optimizer first: "
                "model, optimizer = proof.prepare(model, optimizer)"
            )
        assert self.functional is not None
        return self.model, self.optimizer, self.functional

    def modules(self) -> list[nn.Module]:
        """Every module the attested step's trace reparametrizes: the model's (after the
        wrapper ``prepare()`` was given, if any), then an averaged model's."""
        model, _, _ = self.parts()
        found = list(model.modules())
        if self.wrapper is not None:
            found.insert(0, self.wrapper)
        if self.averaged is not None:
            found += list(self.averaged.module.modules())
        return found

    def leaves(self) -> tuple[Named, Named]:
        """The parameter leaves, and the optimizer-state, buffer and scaler leaves after them
        (:func:`zkdv.torch._state.leaves`)."""
        return _state.leaves(*self.parts(), self.scaler, self.averaged)

    def stable(self) -> int:
        """How many of the state's first leaves only ``optimizer.step()`` changes inside a
        transaction: the parameters and the optimizer state, not the module buffers (the
        forward pass updates running statistics), an averaged model's leaves (which a loop
        may update where it likes in the transaction) nor the scaler's state."""
        model, _, _ = self.parts()
        params, opt = self.leaves()
        device = params[0][1].device if params else None
        others = len(list(model.named_buffers())) + len(_scaler.leaves(self.scaler, device))
        others += 0 if self.averaged is None else len(self.averaged.leaves())
        return len(params) + len(opt) - others

    def live(self) -> list[torch.Tensor]:
        """The state's tensors now, parameters first, detached."""
        return _state.live(*self.leaves())

    def paths(self) -> list[str]:
        """The parameters' paths."""
        return [n for n, _ in self.leaves()[0]]

    def trainable(self, paths: list[str]) -> list[str]:
        """The ``paths`` of the parameters that require gradients."""
        return _state.trainable(paths, self.parts()[0])
