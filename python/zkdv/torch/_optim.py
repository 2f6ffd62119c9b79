"""Functional optimizers: how a prepared optimizer's ``step()`` lowers inside ``@proof.attest``.

Every ``torch.optim`` optimizer class calls a functional implementation from its ``step()``
(``torch.optim.adam.adam``, ``torch.optim.sgd.sgd``, ...). Inside the attested step ZKDV calls
that same function on traced tensors, with ``differentiable=True`` and ``foreach=False`` (the
single-tensor path, whose math is tensor-only: no ``.item()`` that StableHLO cannot express),
instead of re-deriving the optimizer's math. SGD, Adam and AdamW are the exceptions: their
single-tensor steps are written out here op for op as eager runs them, because torch's own
cannot take a dynamic momentum (SGD) or computes ``0 / 0`` at a learning rate of 0 (the
differentiable Adam path); see :func:`_sgd` and :func:`_single_tensor_adam`. A
:class:`FunctionalOptimizer` says, for one
optimizer class, which per-parameter state tensors it keeps (in a fixed order: the flat
optimizer-state index of a check addresses them), how torch initializes them on the first
``step()``, and how to call the functional implementation.

ZKDV initializes missing state itself, exactly as the class's first ``step()`` would, before
the first transaction: the exported step then has a fixed signature from the first step on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "FunctionalOptimizer",
    "builtin",
    "committed_name",
    "display",
    "find",
    "has_option",
    "option",
    "set_option",
]

StateInit = Callable[[Mapping[str, Any], torch.Tensor], dict[str, torch.Tensor]]
"""``init(group, param)``: the state torch's first ``step()`` creates for ``param``."""

StepFn = Callable[
    [Mapping[str, Any], Sequence[torch.Tensor], Sequence[torch.Tensor], Sequence[dict[str, Any]]],
    None,
]
"""``step(group, params, grads, states)``: one functional step, in place on ``params`` and on
the tensors of ``states`` (one dict per parameter, keyed like the optimizer's state)."""


@dataclass(frozen=True)
class FunctionalOptimizer:
    """How one optimizer class steps functionally (see the module documentation).

    Attributes:
        state_keys: The per-parameter state tensors, in the order the optimizer-state leaves
            are committed (a key whose tensor is absent for a group's options is skipped).
        init: The state torch's first ``step()`` creates for one parameter.
        step: One functional step (in place on traced clones).
        hyperparameters: The group options the step reads (a key ``"name.i"`` names element
            ``i`` of a tuple option, as ``"betas.0"`` names ``group["betas"][0]``). Those not
            in ``dynamic`` are constants of the compiled program: a transaction refuses a
            change.
        dynamic: The group options that are inputs of the program instead: inside the
            attested step ``step`` receives each as a 0-d ``float64`` tensor (which requires
            gradients, so torch's functional implementations take their tensor path), and every
            transaction commits its value in the batch. A learning-rate schedule (and a
            momentum schedule, such as ``OneCycleLR``'s) then needs no new program. ``step``
            must accept a tensor for each.
        structure: Named constants derived from the group's options that decide the step's
            structure even where the options are dynamic (SGD's ``momentum != 0``: whether a
            momentum buffer exists). A transaction refuses a change.
        per_parameter: Whether ``step`` updates each parameter from that parameter, its
            gradient, its state and the group's options alone (every ``torch.optim``
            optimizer ZKDV knows does). Tracing then traces one parameter's step once for
            each layout of its tensors and repeats that graph for the parameters that share
            it (:mod:`zkdv.torch.lowering.stamping`), which is what makes the optimizer's
            part of a large model's trace cheap. Leave it ``False`` for a step that couples
            parameters (a global norm, a shared statistic): each parameter is then traced.
    """

    state_keys: tuple[str, ...]
    init: StateInit
    step: StepFn
    hyperparameters: tuple[str, ...]
    dynamic: tuple[str, ...] = ()
    structure: tuple[tuple[str, Callable[[Mapping[str, Any]], Any]], ...] = ()
    per_parameter: bool = False


def _split(key: str) -> tuple[str, int | None]:
    name, dot, index = key.partition(".")
    return (name, int(index)) if dot else (name, None)


def has_option(group: Mapping[str, Any], key: str) -> bool:
    """Whether ``group`` has the option ``key`` (``"lr"``, or ``"betas.0"`` for an element)."""
    name, index = _split(key)
    if name not in group:
        return False
    return index is None or (isinstance(group[name], tuple | list) and index < len(group[name]))


def option(group: Mapping[str, Any], key: str) -> Any:
    """The option ``key`` of ``group`` (``"betas.0"`` is ``group["betas"][0]``); ``None`` where
    the group has none."""
    if not has_option(group, key):
        return None
    name, index = _split(key)
    return group[name] if index is None else group[name][index]


def display(key: str) -> str:
    """``key`` as Python writes it: ``"betas.0"`` is ``betas[0]``."""
    name, index = _split(key)
    return name if index is None else f"{name}[{index}]"


def committed_name(group: int, key: str) -> str:
    """The name a step record commits option ``key`` of parameter group ``group`` under:
    ``"0/lr"``, ``"0/betas[0]"``."""
    return f"{group}/{display(key)}"


def set_option(group: dict[str, Any], key: str, value: Any) -> None:
    """Set the option ``key`` of ``group`` (a tuple option gets a new tuple)."""
    name, index = _split(key)
    if index is None:
        group[name] = value
    else:
        items = list(group[name])
        items[index] = value
        group[name] = tuple(items)


def _scalar_step() -> torch.Tensor:
    # As torch's optimizers create it on CPU without capturable/fused: a float32 scalar.
    return torch.tensor(0.0, dtype=torch.float32)


def _check_group(name: str, group: Mapping[str, Any], refused: Mapping[str, Any]) -> None:
    for option, value in refused.items():
        got = group.get(option, value)
        # ``fused=False`` spells out the default (``None``: not fused on CPU tensors).
        if got != value and not (value is None and got is False):
            raise ValueError(
                f"zkdv.torch: {name} with {option}={group.get(option)!r} is not supported yet "
                f"(only {option}={value!r}); use the default or register your own functional "
                "step with proof.register_functional_optimizer(...)"
            )


def _adam_init(group: Mapping[str, Any], param: torch.Tensor) -> dict[str, torch.Tensor]:
    state = {
        "step": _scalar_step(),
        "exp_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
        "exp_avg_sq": torch.zeros_like(param, memory_format=torch.preserve_format),
    }
    if group["amsgrad"]:
        state["max_exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
    return state


def _adam(decoupled: bool) -> StepFn:
    name = "AdamW" if decoupled else "Adam"

    def step(
        group: Mapping[str, Any],
        params: Sequence[torch.Tensor],
        grads: Sequence[torch.Tensor],
        states: Sequence[dict[str, Any]],
    ) -> None:
        _check_group(name, group, {"fused": None, "capturable": False})
        if any(torch.is_complex(p) for p in params):
            raise ValueError(f"zkdv.torch: {name} on complex parameters is not supported yet")
        beta1, beta2 = group["betas"]
        _single_tensor_adam(
            params,
            grads,
            states,
            lr=group["lr"],
            beta1=beta1,
            beta2=beta2,
            eps=group["eps"],
            weight_decay=group["weight_decay"],
            amsgrad=group["amsgrad"],
            maximize=group["maximize"],
            decoupled=decoupled or bool(group.get("decoupled_weight_decay", False)),
        )

    return step


def _single_tensor_adam(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    states: Sequence[dict[str, Any]],
    *,
    lr: float | torch.Tensor,
    beta1: float | torch.Tensor,
    beta2: float,
    eps: float,
    weight_decay: float,
    amsgrad: bool,
    maximize: bool,
    decoupled: bool,
) -> None:
    """The step eager ``Adam``/``AdamW`` take on CPU (``torch.optim.adam._single_tensor_adam``
    without ``capturable`` or ``differentiable``), written with tensor-only math: the step
    count and the learning rate are tensors (the eager path reads the count on the host).

    Not torch's ``differentiable=True`` path: that one folds the step size into the
    denominator (``denom = sqrt(v) / (c2 * -step_size) + eps / -step_size``), which is
    ``0 / 0 = NaN`` wherever a gradient and its second moment are exactly 0 when the learning
    rate is 0 (a warmup's first step), where eager leaves the parameter as it is. Here each
    operation is eager's, in eager's order: bias corrections and the step size in float64
    (eager computes them as Python floats), ``param + (-step_size * exp_avg) / denom`` as its
    ``addcdiv_`` does."""
    for param, grad, state in zip(params, grads, states, strict=True):
        if maximize:
            grad = -grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        if weight_decay != 0:
            if decoupled:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        # A dynamic beta1 is a float64 tensor; lerp_'s weight is the moment's type, as eager
        # rounds its Python float weight.
        weight = (1 - beta1).to(exp_avg.dtype) if isinstance(beta1, torch.Tensor) else 1 - beta1
        exp_avg.lerp_(grad, weight)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.to(torch.float64)
        bias_correction1 = 1 - torch.pow(beta1, step)
        bias_correction2_sqrt = (1 - torch.pow(beta2, step)).sqrt()
        step_size = lr / bias_correction1
        if amsgrad:
            maximum = state["max_exp_avg_sq"]
            maximum.copy_(torch.maximum(maximum, exp_avg_sq))
            denom = (maximum.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        # addcdiv_(exp_avg, denom, value=-step_size): the scale in the parameter's type.
        param.add_((-step_size).to(param.dtype) * exp_avg / denom)


def _sgd_init(group: Mapping[str, Any], param: torch.Tensor) -> dict[str, torch.Tensor]:
    if group["momentum"] == 0:
        return {}
    # torch's first step stores buf = grad (then buf = momentum * buf + (1 - dampening) * grad
    # from the second on); a zero buffer gives the same first step exactly when dampening is 0.
    return {"momentum_buffer": torch.zeros_like(param, memory_format=torch.preserve_format)}


def _sgd(
    group: Mapping[str, Any],
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    states: Sequence[dict[str, Any]],
) -> None:
    """The step eager ``SGD`` takes on CPU (``torch.optim.sgd._single_tensor_sgd``), op for op,
    with ``lr`` and ``momentum`` tensors. Not torch's own function: it branches on
    ``momentum != 0`` and passes ``momentum`` as an ``alpha=``, which must be a number, so a
    dynamic momentum (a ``OneCycleLR`` or ``CyclicLR`` schedule) cannot enter it. Whether a
    momentum buffer exists is decided when the step is lowered (the ``momentum != 0``
    structure constant)."""
    _check_group("SGD", group, {"fused": None, "dampening": 0})
    momentum, lr = group["momentum"], group["lr"]
    weight_decay, nesterov = group["weight_decay"], group["nesterov"]
    for param, grad, state in zip(params, grads, states, strict=True):
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        buffer = state.get("momentum_buffer")
        if buffer is not None:
            # buf.mul_(momentum).add_(grad, alpha=1 - dampening), dampening being 0; the zero
            # buffer of the first step gives torch's buf = grad exactly.
            buffer.mul_(momentum).add_(grad)
            grad = grad.add(buffer * momentum) if nesterov else buffer
        # The differentiable path's update (a tensor lr): param.addcmul_(grad, lr, value=-1).
        if isinstance(lr, torch.Tensor):
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=-lr)


def _zeros(param: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(param, memory_format=torch.preserve_format)


def _adagrad_init(group: Mapping[str, Any], param: torch.Tensor) -> dict[str, torch.Tensor]:
    value = group["initial_accumulator_value"]
    return {
        "step": _scalar_step(),
        "sum": torch.full_like(param, value, memory_format=torch.preserve_format),
    }


def _adagrad(
    group: Mapping[str, Any],
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    states: Sequence[dict[str, Any]],
) -> None:
    from torch.optim.adagrad import adagrad

    _check_group("Adagrad", group, {"fused": None})
    adagrad(
        list(params),
        list(grads),
        [s["sum"] for s in states],
        [s["step"] for s in states],
        foreach=False,
        differentiable=True,
        lr=group["lr"],
        weight_decay=group["weight_decay"],
        lr_decay=group["lr_decay"],
        eps=group["eps"],
        maximize=group["maximize"],
    )


def _rmsprop_init(group: Mapping[str, Any], param: torch.Tensor) -> dict[str, torch.Tensor]:
    state = {"step": _scalar_step(), "square_avg": _zeros(param)}
    if group["momentum"] > 0:
        state["momentum_buffer"] = _zeros(param)
    if group["centered"]:
        state["grad_avg"] = _zeros(param)
    return state


def _rmsprop(
    group: Mapping[str, Any],
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    states: Sequence[dict[str, Any]],
) -> None:
    from torch.optim.rmsprop import rmsprop

    _check_group("RMSprop", group, {"capturable": False})
    rmsprop(
        list(params),
        list(grads),
        [s["square_avg"] for s in states],
        [s["grad_avg"] for s in states] if group["centered"] else [],
        [s["momentum_buffer"] for s in states] if group["momentum"] > 0 else [],
        [s["step"] for s in states],
        foreach=False,
        maximize=group["maximize"],
        differentiable=True,
        lr=group["lr"],
        alpha=group["alpha"],
        eps=group["eps"],
        weight_decay=group["weight_decay"],
        momentum=group["momentum"],
        centered=group["centered"],
    )


def _adadelta_init(group: Mapping[str, Any], param: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"step": _scalar_step(), "square_avg": _zeros(param), "acc_delta": _zeros(param)}


def _adadelta(
    group: Mapping[str, Any],
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    states: Sequence[dict[str, Any]],
) -> None:
    from torch.optim.adadelta import adadelta

    _check_group("Adadelta", group, {"capturable": False})
    adadelta(
        list(params),
        list(grads),
        [s["square_avg"] for s in states],
        [s["acc_delta"] for s in states],
        [s["step"] for s in states],
        foreach=False,
        differentiable=True,
        lr=group["lr"],
        rho=group["rho"],
        eps=group["eps"],
        weight_decay=group["weight_decay"],
        maximize=group["maximize"],
    )


def _muon_init(group: Mapping[str, Any], param: torch.Tensor) -> dict[str, torch.Tensor]:
    return {"momentum_buffer": _zeros(param)}


def _muon(
    group: Mapping[str, Any],
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    states: Sequence[dict[str, Any]],
) -> None:
    from torch.optim._muon import muon

    muon(
        list(params),
        list(grads),
        [s["momentum_buffer"] for s in states],
        foreach=False,
        lr=group["lr"],
        weight_decay=group["weight_decay"],
        momentum=group["momentum"],
        nesterov=group["nesterov"],
        ns_coefficients=group["ns_coefficients"],
        ns_steps=group["ns_steps"],
        eps=group["eps"],
        adjust_lr_fn=group["adjust_lr_fn"],
        has_complex=False,
    )


_ADAM_HYPER = (
    "lr",
    "betas.0",
    "betas.1",
    "eps",
    "weight_decay",
    "amsgrad",
    "maximize",
    "decoupled_weight_decay",
)


def builtin() -> dict[type[torch.optim.Optimizer], FunctionalOptimizer]:
    """The functional optimizers ZKDV knows, by optimizer class.

    The learning rate is dynamic (a schedule may change it) for SGD, Adam and AdamW, and so
    are SGD's momentum and Adam's and AdamW's ``betas[0]``, which ``OneCycleLR`` and
    ``CyclicLR`` cycle by default: their steps take tensors for them. Adagrad, RMSprop,
    Adadelta and Muon pass the learning rate to ``Tensor.add_(alpha=...)``-style arguments
    that must be numbers, so theirs is a constant of the program."""
    return {
        torch.optim.SGD: FunctionalOptimizer(
            ("momentum_buffer",),
            _sgd_init,
            _sgd,
            ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"),
            dynamic=("lr", "momentum"),
            structure=(("momentum != 0", lambda group: group["momentum"] != 0),),
            per_parameter=True,
        ),
        torch.optim.Adam: FunctionalOptimizer(
            ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"),
            _adam_init,
            _adam(decoupled=False),
            _ADAM_HYPER,
            dynamic=("lr", "betas.0"),
            per_parameter=True,
        ),
        torch.optim.AdamW: FunctionalOptimizer(
            ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"),
            _adam_init,
            _adam(decoupled=True),
            _ADAM_HYPER,
            dynamic=("lr", "betas.0"),
            per_parameter=True,
        ),
        torch.optim.Adagrad: FunctionalOptimizer(
            ("step", "sum"),
            _adagrad_init,
            _adagrad,
            ("lr", "lr_decay", "weight_decay", "eps", "maximize"),
            per_parameter=True,
        ),
        torch.optim.RMSprop: FunctionalOptimizer(
            ("step", "square_avg", "momentum_buffer", "grad_avg"),
            _rmsprop_init,
            _rmsprop,
            ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize"),
            per_parameter=True,
        ),
        torch.optim.Muon: FunctionalOptimizer(
            ("momentum_buffer",),
            _muon_init,
            _muon,
            (
                "lr",
                "weight_decay",
                "momentum",
                "nesterov",
                "ns_coefficients",
                "ns_steps",
                "eps",
                "adjust_lr_fn",
            ),
            per_parameter=True,
        ),
        torch.optim.Adadelta: FunctionalOptimizer(
            ("step", "square_avg", "acc_delta"),
            _adadelta_init,
            _adadelta,
            ("lr", "rho", "eps", "weight_decay", "maximize"),
            per_parameter=True,
        ),
    }


def not_lowerable() -> dict[type[torch.optim.Optimizer], str]:
    """Standard optimizers whose functional implementation cannot be lowered, with why: even
    with ``differentiable=True`` their single-tensor step reads a scalar on the host
    (``.item()``) or branches on one, which neither ``torch.export`` nor a StableHLO lowering
    accepts (they are tensor-only only with ``capturable=True``, which needs an accelerator)."""
    host_scalar = "its functional step reads the step count on the host (.item())"
    return {
        torch.optim.Adamax: host_scalar,
        torch.optim.NAdam: host_scalar,
        torch.optim.RAdam: host_scalar + " and branches on it",
        torch.optim.ASGD: "its functional step branches on a state value on the host",
        torch.optim.Rprop: "its functional step does not lower to StableHLO (torch-mlir)",
        torch.optim.Adafactor: "its functional step reads the step count and norms on the host",
    }


def find(
    optimizer: torch.optim.Optimizer,
    registered: Mapping[type[torch.optim.Optimizer], FunctionalOptimizer],
) -> FunctionalOptimizer:
    """The functional optimizer of ``optimizer``'s exact class.

    Raises:
        TypeError: for ``LBFGS`` (its step re-evaluates a closure) and for classes ZKDV does
            not know, with the instruction to register one.
    """
    cls = type(optimizer)
    found = registered.get(cls)
    if found is not None:
        return found
    blocked = not_lowerable().get(cls)
    if isinstance(optimizer, torch.optim.LBFGS):
        reason = "LBFGS re-evaluates the loss in its step, which no single functional step can"
    elif blocked is not None:
        reason = blocked
    else:
        reason = f"{cls.__module__}.{cls.__qualname__} has no functional implementation known"
    raise TypeError(
        f"zkdv.torch: cannot attest {cls.__qualname__}: {reason}. Supported: "
        f"{', '.join(sorted(c.__name__ for c in registered))}. Register one with "
        "proof.register_functional_optimizer(optimizer_class, zkdv.torch.FunctionalOptimizer("
        "state_keys=..., init=..., step=..., hyperparameters=...))"
    )
