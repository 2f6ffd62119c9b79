"""Lowering the ``@proof.attest`` step of a prepared model and optimizer to StableHLO.

The attested function is written like an ordinary training step (``proof.forward``,
``proof.backward``, ``optimizer.step()``). :func:`lower` turns it into a pure function of
tensors::

    step(params..., opt_state..., batch_leaves..., [options..., reduced gradients...])
        -> (post_params..., post_opt_state..., deltas..., [local gradients...])

by running it under a :class:`Tracing` context in which the root is reparametrized with the
traced parameters and buffers (``model.parameters()`` yields them, ``proof.forward`` is the
module's own call on them), ``proof.backward`` is ``torch.autograd.grad`` with respect to them,
accumulated into their ``.grad`` as eager accumulation does, and the prepared optimizer's
``step()`` is its functional implementation (:mod:`zkdv.torch._optim`) on those ``.grad`` and
on traced clones of its state. Then, as
verified on these machines (DESIGN.md §7): ``make_fx(tracing_mode="fake")``, ``torch.export``,
and torch-mlir's ``export_and_import(output_type="stablehlo")``, printed in generic form. The
Rust passes do the rest (``zkdv-attested-pipeline`` with explicit role lists).

Ops torch-mlir cannot lower are decomposed while tracing (torch's own decompositions, and
ZKDV's of ``avg_pool2d_backward`` and of grouped or dilated ``convolution_backward``), slice
bounds are clamped to their dimension, and recurrent layers are traced without oneDNN
(docs/torch.md, "What the lowering does for real models").

Random draws inside the step (dropout, stochastic depth) become inputs of the step after the
rest of the batch, which production records and commits (:mod:`zkdv.torch._randomness`).

Refused, each with its fix: a module that is not under the prepared root, a random op whose
draw is not one tensor, an op that neither lowers nor decomposes (naming it and its module),
and a step that cannot be exported.

The optimizer's parameter groups step their own parameters with their own options. Options
a :class:`~zkdv.torch.FunctionalOptimizer` declares ``dynamic`` (the learning rate of SGD, Adam
and AdamW) are inputs of the step, after the batch's leaves: the transaction commits their
values with the batch, so a schedule changes them without a new program. Under DDP the step
also takes the all-reduced gradient of every trainable parameter, after those, which the
optimizer applies, and returns the rank's own gradients of them after the deltas (a frozen
parameter has none, in the all-reduce or in the step).

Module buffers (BatchNorm's running statistics, its batch counter) are state that the step
updates: they are traced as inputs after the optimizer state, updated in place on traced
clones by the forward pass, and returned after the post-optimizer state, so they are committed,
checked and challenged like the optimizer state (paths ``buffers/<name>``).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from zkdv import _progress
from zkdv.torch import _randomness, _scaler
from zkdv.torch._optim import FunctionalOptimizer, has_option, option, set_option

__all__ = [
    "Lowered",
    "Tracing",
    "active",
    "dynamic_options",
    "groups_of",
    "local",
    "lower",
    "trainable_flags",
]

_ACTIVE: contextvars.ContextVar[Tracing | None] = contextvars.ContextVar(
    "zkdv_torch_tracing", default=None
)


def active() -> Tracing | None:
    """The tracing context of the attested step being lowered, if any."""
    return _ACTIVE.get()


@dataclass
class Tracing:
    """The traced state of one lowering (see the module documentation)."""

    root: nn.Module
    names: tuple[str, ...]
    params: list[torch.Tensor]
    buffer_names: tuple[str, ...]
    buffers: list[torch.Tensor]
    """Traced clones of the module buffers, updated in place by the forward pass."""
    optimizer: torch.optim.Optimizer
    functional: FunctionalOptimizer
    states: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    """The optimizer's parameter groups, with the dynamic options as traced inputs."""
    group_of: list[int | None]
    """The group of each parameter (``None``: frozen and not in the optimizer)."""
    reduced: list[torch.Tensor | None] | None = None
    """Under DDP, the all-reduced gradients (inputs of the step) the optimizer applies, per
    parameter (``None`` for a frozen one)."""
    backwards: int = 0
    """How many times ``proof.backward`` ran in the step (each accumulates into ``.grad``)."""
    local: list[torch.Tensor] = field(default_factory=list)
    """Under DDP, this rank's own gradients of the trainable parameters (the step returns them
    after the deltas)."""
    stepped: bool = False
    post_params: list[torch.Tensor] = field(default_factory=list)
    scaler: _scaler.TracedScaler | None = None
    """The prepared GradScaler's methods on its traced state, if one is prepared."""

    def forward(self, model: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``model(*args, **kwargs)`` on the traced parameters and buffers: the root is
        reparametrized over the whole attested call, so this is the module's own call."""
        model = unwrap(model)
        _prefix_of(self.root, model)
        return model(*args, **kwargs)

    def backward(self, loss: torch.Tensor) -> None:
        """``loss.backward()`` on the traced parameters: each gradient is accumulated into the
        ``.grad`` of the traced parameter (what ``model.parameters()`` yields inside the
        step), exactly as eager ``.grad`` accumulation does; an unused parameter's ``.grad``
        stays as it was."""
        # A frozen parameter (requires_grad=False) gets no gradient, as in production.
        wrt = [p for p in self.params if p.requires_grad]
        found = iter(torch.autograd.grad(loss, wrt, allow_unused=True))
        grads = [next(found) if p.requires_grad else None for p in self.params]
        self.backwards += 1
        for p, g in zip(self.params, grads, strict=True):
            if g is not None:
                p.grad = g if p.grad is None else p.grad + g
        if self.reduced is not None:
            # Under DDP the optimizer applies the all-reduced gradient, a committed input of
            # this rank's transition; this rank's own gradient (what it contributed to the
            # reduction, accumulated over its backward passes) is a result, checked against
            # the one production computed. A copy: the step may change ``.grad`` in place
            # afterwards (``clip_grad_norm_``), which production does after its communication
            # hook recorded the rank's gradient.
            own = [
                torch.zeros_like(p) if g is None else g.clone()
                for p, g in zip(self.params, grads, strict=True)
                if p.requires_grad
            ]
            self.local = (
                [a + b for a, b in zip(self.local, own, strict=True)] if self.local else own
            )

    def zero_grad(self, set_to_none: bool = True) -> None:
        """``optimizer.zero_grad()`` on the traced parameters' ``.grad``."""
        for p in self.params:
            if p.grad is not None:
                p.grad = None if set_to_none else torch.zeros_like(p.grad)

    def step(self) -> None:
        """The prepared optimizer's step, functionally, on the gradients in the traced
        parameters' ``.grad`` (under DDP and FSDP, on the all-reduced ones)."""
        if self.backwards == 0 and self.reduced is None:
            raise RuntimeError(
                "zkdv.torch: optimizer.step() ran before proof.backward(loss) in the attested "
                "step; compute the gradients with proof.backward first (loss.backward() and "
                "scaler.scale(loss).backward() do not reach the traced parameters: write "
                "proof.backward(loss) or proof.backward(scaler.scale(loss)))"
            )
        if self.stepped:
            raise RuntimeError("zkdv.torch: optimizer.step() ran twice in the attested step")
        self.stepped = True
        self.post_params = [p.detach().clone() for p in self.params]
        grads: list[torch.Tensor | None] = (
            list(self.reduced) if self.reduced is not None else [p.grad for p in self.params]
        )
        for index, group in enumerate(self.groups):
            # As torch's own step: a parameter without a gradient (unused by the loss) is
            # skipped, its value and state unchanged.
            used = [
                (i, g) for i, g in enumerate(grads) if g is not None and self.group_of[i] == index
            ]
            if used:
                self.functional.step(
                    group,
                    [self.post_params[i] for i, _ in used],
                    [g for _, g in used],
                    [self.states[i] for i, _ in used],
                )


def unwrap(model: nn.Module) -> nn.Module:
    """The module a wrapper runs: a ``DistributedDataParallel``'s ``module`` (its forward only
    adds the reducer's hooks) and a ``torch.compile`` module's ``_orig_mod`` (FX cannot trace a
    dynamo-optimized module; production keeps running the compiled one)."""
    while True:
        if isinstance(model, nn.parallel.DistributedDataParallel):
            model = model.module
        elif isinstance(original := getattr(model, "_orig_mod", None), nn.Module):
            model = original
        else:
            return model


def _prefix_of(root: nn.Module, model: nn.Module) -> str:
    for name, module in root.named_modules():
        if module is model:
            return f"{name}." if name else ""
    raise ValueError(
        f"zkdv.torch: proof.forward got a {type(model).__name__} that is not the prepared root "
        "module nor one of its submodules; compose it under the model you passed to "
        "proof.prepare(...), or prepare that model instead"
    )


@dataclass(frozen=True)
class Lowered:
    """The attested step as StableHLO text, and the order of its arguments and results."""

    text: str
    """The exported step in MLIR generic form (torch-mlir's output)."""
    n_params: int
    n_opt_state: int
    n_batch: int
    """Batch leaves of the step: the transaction's own, then ``dynamic``'s, then under DDP one
    all-reduced gradient per trainable parameter, then one per random draw (``draws``)."""
    opt_paths: tuple[str, ...]
    """``param_name/state_key`` per optimizer-state leaf, in argument order."""
    local_gradients: int = 0
    """A DDP rank's step also returns the rank's own gradient of each trainable parameter,
    after the deltas (role ``user``: the attested and replay functions drop them): how many."""
    dynamic: tuple[tuple[int, str], ...] = ()
    """``(group index, option)`` of each dynamic optimizer option, in argument order."""
    exported: Any = None
    """The ``torch.export`` program of the step (what :func:`seal` compiles)."""
    draws: tuple[_randomness.Draw, ...] = ()
    """The random draws of the step, in order: inputs after the rest of the batch, which a
    transaction records in production and commits (:mod:`zkdv.torch._randomness`)."""

    @property
    def role_options(self) -> str:
        """``args=... results=...`` for ``zkdv-attested-pipeline``."""
        p, s, b = self.n_params, self.n_opt_state, self.n_batch

        def span(role: str, first: int, count: int) -> list[str]:
            return [f"{role}:{first}-{first + count - 1}"] if count else []

        args = span("param", 0, p) + span("opt_state", p, s) + span("batch", p + s, b)
        results = span("post_param", 0, p) + span("post_opt_state", p, s) + span("delta", p + s, p)
        if self.local_gradients:
            results += span("user", p + s + p, self.local_gradients)
        return f"args={','.join(args)} results={','.join(results)}"


def opt_leaves(
    names: Sequence[str], functional: FunctionalOptimizer, states: Sequence[dict[str, Any]]
) -> list[tuple[str, torch.Tensor]]:
    """The optimizer-state leaves ``(path, tensor)``, parameter by parameter, in
    ``functional.state_keys`` order (keys a parameter does not have are skipped)."""
    return [
        (f"{name}/{key}", state[key])
        for name, state in zip(names, states, strict=True)
        for key in functional.state_keys
        if key in state
    ]


def buffer_leaves(buffers: Sequence[tuple[str, torch.Tensor]]) -> list[tuple[str, torch.Tensor]]:
    """The module buffers as state leaves ``(path, tensor)``, after the optimizer's."""
    return [(f"buffers/{name}", tensor) for name, tensor in buffers]


def local(tensor: Any) -> Any:
    """This rank's shard of a ``DTensor`` (composable FSDP), any other value as it is."""
    to_local = getattr(tensor, "to_local", None)
    return to_local() if callable(to_local) else tensor


def dynamic_options(
    optimizer: torch.optim.Optimizer, functional: FunctionalOptimizer
) -> tuple[tuple[int, str], ...]:
    """``(group index, option)`` of each dynamic option the step takes as an input."""
    return tuple(
        (index, key)
        for index, group in enumerate(optimizer.param_groups)
        for key in functional.dynamic
        if has_option(group, key)
    )


def groups_of(root: nn.Module, optimizer: torch.optim.Optimizer) -> list[int | None]:
    """The parameter group of each of ``root``'s parameters (``named_parameters`` order);
    ``None`` for a frozen parameter (``requires_grad=False``) the optimizer does not hold.

    Raises:
        ValueError: unless the groups hold each of the root's trainable parameters exactly
            once, and nothing else.
    """
    index_of: dict[int, int] = {}
    for index, group in enumerate(optimizer.param_groups):
        for p in group["params"]:
            if id(p) in index_of:
                raise ValueError("zkdv.torch: a parameter is in two of the optimizer's groups")
            index_of[id(p)] = index
    named = list(root.named_parameters())
    # A trainable parameter the optimizer does not step would accumulate a gradient across
    # steps (no zero_grad reaches it) that clip_grad_norm_ over model.parameters() reads: state
    # outside the committed transition. A frozen one has no gradient and stays as it is.
    missing = [n for n, p in named if id(p) not in index_of and p.requires_grad]
    held = sum(1 for _, p in named if id(p) in index_of)
    if missing or held != len(index_of):
        raise ValueError(
            "zkdv.torch: the optimizer must step exactly the prepared model's trainable "
            "parameters (construct it from model.parameters() or groups of them, and freeze "
            f"the others with requires_grad_(False); not stepped: {missing[:3]})"
            if missing
            else "zkdv.torch: the optimizer steps tensors that are not the prepared model's "
            "parameters"
        )
    return [index_of.get(id(p)) for _, p in named]


def trainable_flags(root: nn.Module) -> tuple[bool, ...]:
    """Each parameter's ``requires_grad`` (``named_parameters`` order): which ones the attested
    step differentiates, part of its program."""
    return tuple(p.requires_grad for _, p in root.named_parameters())


def lower(
    fun: Callable[..., Any],
    root: nn.Module,
    optimizer: torch.optim.Optimizer,
    functional: FunctionalOptimizer,
    batch: Any,
    *,
    reduced: bool = False,
    sharded: bool = False,
    scaler: torch.amp.GradScaler | None = None,
) -> Lowered:
    """Lower ``fun(root, optimizer, batch)`` (see the module documentation).

    With ``reduced`` (DDP), the step takes one gradient per trainable parameter after the
    batch and the optimizer applies those: the rank's transition from the all-reduced
    gradient. With ``sharded`` (composable FSDP, parameters are ``DTensor`` shards) the step is
    the optimizer alone on this rank's local shards, from the reduce-scattered gradient
    shards: the forward and backward passes need every rank's shards, so ``fun`` is not
    traced. A prepared
    ``scaler`` (enabled) adds its state after the buffers (:mod:`zkdv.torch._scaler`).

    Raises:
        ValueError: the step cannot be lowered (the message names the cause and the fix).
    """
    from torch.nn.utils.stateless import _reparametrize_module
    from torch.utils import _pytree as pytree

    reduced = reduced or sharded
    group_of = groups_of(root, optimizer)
    named = [(n, local(p)) for n, p in root.named_parameters()]
    names = tuple(n for n, _ in named)
    trainable = trainable_flags(root)
    dynamic = dynamic_options(optimizer, functional)
    buffers = list(root.named_buffers())
    buffer_names = tuple(n for n, _ in buffers)
    states = [
        {k: local(v) for k, v in optimizer.state[p].items()} for _, p in root.named_parameters()
    ]
    scaled = _scaler.leaves(scaler, next((local(p).device for p in root.parameters()), None))
    if scaled and reduced:
        raise ValueError(
            "zkdv.torch: a GradScaler under DDP or FSDP cannot be attested yet: the rank's "
            "optimizer applies the all-reduced gradients, which production records unscaled"
        )
    leaves = opt_leaves(names, functional, states) + buffer_leaves(buffers) + scaled
    constants = _scaler.constants(scaler)
    keys_of = [[k for k in functional.state_keys if k in s] for s in states]
    batch_leaves, batch_spec = pytree.tree_flatten(batch)
    if not all(isinstance(x, torch.Tensor) for x in batch_leaves):
        raise ValueError("zkdv.torch: every leaf of the transaction's batch must be a tensor")
    n_p, n_s, n_b, n_c = len(named), len(leaves), len(buffers), len(scaled)
    n_user, n_dyn = len(batch_leaves), len(dynamic)
    # Under DDP and FSDP one all-reduced gradient per trainable parameter: a frozen one takes
    # no part in the reduction and has no gradient to apply.
    n_grad = sum(trainable) if reduced else 0
    # The step's random draws (found by a first trace) and the feeds of the traces.
    drawn: list[_randomness.Draw] = []
    feeds: list[_randomness.Feed] = []

    def step(*flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
        params = list(flat[:n_p])
        opt = list(flat[n_p : n_p + n_s - n_b - n_c])
        traced_buffers = [b.clone() for b in flat[n_p + n_s - n_b - n_c : n_p + n_s - n_c]]
        scaler_state = list(flat[n_p + n_s - n_c : n_p + n_s])
        extra = list(flat[n_p + n_s + n_user :])
        feeds.append(_randomness.Feed(extra[n_dyn + n_grad :], drawn))
        traced_states: list[dict[str, Any]] = []
        at = 0
        for keys in keys_of:
            traced_states.append({k: opt[at + i].clone() for i, k in enumerate(keys)})
            at += len(keys)
        groups = [dict(group) for group in optimizer.param_groups]
        for (index, key), value in zip(dynamic, extra[:n_dyn], strict=True):
            set_option(groups[index], key, value)
        tracing = Tracing(
            root,
            names,
            params,
            buffer_names,
            traced_buffers,
            optimizer,
            functional,
            traced_states,
            groups,
            group_of,
            reduced=_per_parameter(extra[n_dyn : n_dyn + n_grad], trainable) if reduced else None,
        )
        if constants is not None:
            growth, backoff, interval = constants
            assert scaler is not None
            tracing.scaler = _scaler.TracedScaler(
                tracing, scaler, scaler_state[0], scaler_state[1], growth, backoff, interval
            )
        if sharded:
            tracing.step()
        else:
            token = _ACTIVE.set(tracing)
            try:
                user = list(flat[n_p + n_s : n_p + n_s + n_user])
                # The root is reparametrized over the whole call: model.parameters() yields
                # the traced parameters, whose .grad proof.backward accumulates into, so
                # clip_grad_norm_, gradient scaling and zero_grad mean what they do in
                # production.
                traced = dict(zip(names, params, strict=True))
                traced.update(zip(buffer_names, traced_buffers, strict=True))
                with (
                    _reparametrize_module(root, traced, tie_weights=True, strict=True),
                    _randomness.feeding(feeds[-1]),
                ):
                    fun(root, optimizer, pytree.tree_unflatten(user, batch_spec))
            finally:
                _ACTIVE.reset(token)
        if not tracing.stepped:
            raise ValueError(
                "zkdv.torch: the attested step never called optimizer.step() on the prepared "
                "optimizer"
            )
        post_opt = [s[k] for s, keys in zip(traced_states, keys_of, strict=True) for k in keys]
        post_opt += traced_buffers
        if tracing.scaler is not None:
            post_opt += [tracing.scaler.scale_value, tracing.scaler.tracker]
        deltas = [n - p for n, p in zip(tracing.post_params, params, strict=True)]
        return (*tracing.post_params, *post_opt, *deltas, *tracing.local)

    # Dynamic options require gradients (as the parameters do) so that torch's functional
    # steps take their tensor path (``addcmul_(grad, lr)``, not ``add_(alpha=lr)``).
    hyper = [
        torch.tensor(float(option(optimizer.param_groups[i], k)), dtype=torch.float64)
        for i, k in dynamic
    ]
    gradients = (
        [torch.zeros_like(p.detach()) for (_, p), t in zip(named, trainable, strict=True) if t]
        if reduced
        else []
    )
    # Traced in the default (contiguous) layout: a memory format is not part of the values
    # (channels_last, as vision recipes set it, traced into strided ops torch-mlir cannot
    # lower or into constants).
    example = [
        x.contiguous()
        for x in [p.detach() for _, p in named] + [t.detach() for _, t in leaves] + batch_leaves
    ]
    # A frozen parameter enters as a constant of the step: no gradient, as in production.
    example = [x.requires_grad_(trainable[i]) if i < n_p else x for i, x in enumerate(example)]
    example += [h.requires_grad_(True) for h in hyper] + gradients
    try:
        import torch_mlir  # noqa: F401
    except ModuleNotFoundError as error:
        raise ImportError(
            "zkdv.torch needs torch-mlir to lower the attested step to StableHLO; install the "
            "PyTorch frontend's dependencies with: pip install 'zkdv[torch]'",
            name="torch_mlir",
        ) from error
    decompositions = _default_decompositions()
    with _progress.stage("tracing the attested step"):
        graph = _trace(step, example, root, decompositions)
    found = _randomness.found(graph)
    if found:
        # Traced again with each draw an input (zkdv.torch._randomness).
        drawn.extend(draw for _, draw in found)
        device = example[0].device if example else torch.device("cpu")
        example += [torch.zeros(d.shape, dtype=d.dtype, device=device) for d in drawn]
        decompositions.update(_randomness.replacements({op for op, _ in found}))
        with _progress.stage("tracing the attested step again with its random draws as inputs"):
            graph = _trace(step, example, root, decompositions)
        if feeds[-1].taken != len(drawn):
            raise ValueError(
                f"zkdv.torch: the attested step drew {feeds[-1].taken} random tensors when "
                f"traced again, {len(drawn)} the first time; its draws must not depend on "
                "anything but the batch's layout"
            )
    _refuse_random_ops(graph)
    with _progress.stage("exporting the attested step and lowering it to StableHLO (torch-mlir)"):
        exported, module = _export(graph, example)
        text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)
    return Lowered(
        text=text,
        n_params=n_p,
        n_opt_state=n_s,
        n_batch=n_user + n_dyn + len(gradients) + len(drawn),
        opt_paths=tuple(path for path, _ in leaves),
        local_gradients=n_grad if reduced and not sharded else 0,
        dynamic=dynamic,
        exported=exported,
        draws=tuple(drawn),
    )


def _per_parameter(
    gradients: Sequence[torch.Tensor], trainable: Sequence[bool]
) -> list[torch.Tensor | None]:
    """The all-reduced ``gradients`` of the trainable parameters spread over every parameter
    (``None`` for a frozen one)."""
    found = iter(gradients)
    spread = [next(found) if t else None for t in trainable]
    if next(found, None) is not None:
        raise AssertionError("more reduced gradients than trainable parameters")
    return spread


# -- tracing and export -----------------------------------------------------------------------

_MODULE_KEY = "zkdv_module"
"""Key, in a traced node's ``meta["custom"]``, of the path (in the prepared root) of the module
whose forward pass ran the node's op."""


def _default_decompositions() -> dict[Any, Callable[..., Any]]:
    """torch's own decompositions, applied while tracing, of the ops torch-mlir cannot lower
    to StableHLO (each found on a real model): the backward kernels of ``SiLU`` (Llama's
    MLP), ``Mish``, ``Hardswish`` and the pooling layers (ResNet, MobileNet), and ZKDV's own
    of ``AvgPool2d``'s (torch has none) and of the backward of grouped or dilated
    convolutions (MobileNet, EfficientNet; other convolutions keep their kernel)."""
    from torch._decomp import get_decompositions

    aten = torch.ops.aten
    table = get_decompositions(
        [
            aten.silu_backward,
            aten.mish_backward,
            aten.hardswish_backward,
            aten.hardsigmoid_backward,
            aten.max_pool2d_with_indices_backward,
        ]
    )
    table[aten.avg_pool2d_backward.default] = _avg_pool2d_backward
    table[aten.convolution_backward.default] = _convolution_backward
    table[aten.native_batch_norm.default] = _native_batch_norm
    table[aten.native_batch_norm_backward.default] = _native_batch_norm_backward
    table[aten.native_layer_norm.default] = _native_layer_norm
    table[aten.native_group_norm.default] = _native_group_norm
    return table


# -- mixed-precision normalization ---------------------------------------------------------------
#
# Under autocast a normalization layer gets a bfloat16 or float16 input and keeps its float32
# parameters and running statistics. ATen's kernels then compute in float32 and return the
# batch statistics they save for the backward pass (mean and inverse standard deviation) in
# float32, but the operators' meta functions, which tracing uses, type those statistics like
# the input: the traced program rounded them to bfloat16 between the forward and the backward
# pass. BatchNorm's input gradient is a difference of nearly equal terms where a channel has
# few values (ResNet-18's last stage at 32x32: two per channel), so that rounding, amplified,
# was the gradient (issue 19). Traced here on the float32 input instead: the same statistics
# in float32, the output rounded to the input's type as the kernel rounds it.

_LOW_PRECISION = (torch.bfloat16, torch.float16)


def _mixed(input: torch.Tensor, *params: torch.Tensor | None) -> bool:
    """Whether ATen normalizes ``input`` in mixed precision: a 16-bit float input with
    float32 parameters (every one given)."""
    given = [p for p in params if p is not None]
    return (
        input.dtype in _LOW_PRECISION
        and bool(given)
        and all(p.dtype == torch.float32 for p in given)
    )


def _native_batch_norm(
    input: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """``aten.native_batch_norm``: in training mode on the CPU, as ATen's CPU kernel computes
    it (:func:`_cpu_batch_norm_training`), on a float32 input or in mixed precision; in mixed
    precision otherwise on the float32 input (the running statistics updated in place as the
    kernel updates them), statistics kept in float32."""
    mixed = _mixed(input, weight, bias, running_mean, running_var)
    if training and input.device.type == "cpu" and input.dim() >= 2:
        given = [t for t in (weight, bias, running_mean, running_var) if t is not None]
        if mixed or (input.dtype == torch.float32 and all(t.dtype == input.dtype for t in given)):
            out, mean, invstd = _cpu_batch_norm_training(
                input.float(), weight, bias, running_mean, running_var, momentum, eps, mixed
            )
            return out.to(input.dtype), mean, invstd
    if not mixed:
        return NotImplemented
    out, mean, invstd = torch.ops.aten.native_batch_norm.default(
        input.float(), weight, bias, running_mean, running_var, training, momentum, eps
    )
    return out.to(input.dtype), mean, invstd


def _cpu_batch_norm_training(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    momentum: float,
    eps: float,
    mixed: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Training-mode BatchNorm of the float32 ``x`` as ATen's CPU kernels compute it
    (``aten/src/ATen/native/Normalization.cpp`` and ``cpu/batch_norm_kernel.cpp``), with
    ``mixed`` for a 16-bit input upcast to ``x`` (its statistics are summed in float32, a
    float32 input's in float64). Updates the running statistics in place; returns the float32
    output, the batch mean and the inverse standard deviation.

    - ``mean = sum(x) / n``; ``var_sum = sum((x - mean)**2)``, each square in float32;
      ``invstd = 1 / sqrt(var_sum / n + eps)``, the quotient in float32 and the root in
      float64; the running statistics in float32 with the unbiased variance ``var_sum / (n-1)``
      (its product with the momentum in float64 for a float32 input);
    - per channel ``alpha = invstd * weight`` and ``beta = bias - mean * alpha``, then
      ``x * alpha + beta``, the last two fused multiply-adds, here in float64, where the
      product of two float32 values is exact.

    The textbook form ``(x - mean) * invstd * weight + bias``, which torch-mlir lowers, gives
    exactly 0 where a channel's values are equal (a BatchNorm over two values per channel
    whose bfloat16 inputs tie: ResNet-18's last stage at 32x32); the kernel gives the rounding
    error of ``mean * alpha``, and the ReLU after it passed a gradient through one and not the
    other, a false alarm no perturbation of the replay reproduces (issue 19). Sums keep the
    replay's order (the perturbation ensemble covers theirs); the rest matches the kernel bit
    for bit (``python/tests/test_torch_models.py``)."""
    f64 = torch.float64
    dims = [0, *range(2, x.dim())]
    per_channel = [1, -1] + [1] * (x.dim() - 2)
    n = x.numel() // x.shape[1]
    if mixed:
        mean = x.sum(dims) / n
        centered = x - mean.reshape(per_channel)
        var_sum = (centered * centered).sum(dims)
    else:
        mean = (x.to(f64).sum(dims) / n).float()
        centered = x - mean.reshape(per_channel)
        var_sum = (centered * centered).to(f64).sum(dims).float()
    invstd = (1.0 / torch.sqrt((var_sum / n).to(f64) + eps)).float()
    rate = float(np.float32(momentum))
    keep = float(np.float32(1.0) - np.float32(momentum))
    if running_mean is not None:
        running_mean.copy_(rate * mean + keep * running_mean)
    if running_var is not None:
        unbiased = var_sum / (n - 1)
        if mixed:
            running_var.copy_(rate * unbiased + keep * running_var)
        else:
            running_var.copy_((rate * unbiased.to(f64) + (keep * running_var).to(f64)).float())
    alpha = invstd if weight is None else invstd * weight
    beta = -(mean.to(f64) * alpha.to(f64))
    if bias is not None:
        beta = bias.to(f64) + beta
    beta = beta.float()
    out = x.to(f64) * alpha.to(f64).reshape(per_channel) + beta.to(f64).reshape(per_channel)
    return out.float(), mean, invstd


def _native_batch_norm_backward(
    grad_out: torch.Tensor,
    input: torch.Tensor,
    weight: torch.Tensor | None,
    running_mean: torch.Tensor | None,
    running_var: torch.Tensor | None,
    save_mean: torch.Tensor | None,
    save_invstd: torch.Tensor | None,
    train: bool,
    eps: float,
    output_mask: Sequence[bool],
) -> Any:
    """``aten.native_batch_norm_backward`` in mixed precision on the CPU in training mode, as
    the kernel computes it (``batch_norm_cpu_backward_contiguous_internal``), in float32 from
    the 16-bit input and output gradient, rounded once: with ``k = dotp * invstd**2 / n`` and
    ``dotp = sum((x - mean) * dy)``, ``dx = (dy - sum(dy) / n - (x - mean) * k) * invstd * w``;
    ``dweight = dotp * invstd``, ``dbias = sum(dy)``. The input gradient is then the kernel's
    bit for bit where its sums are (single-pixel channels); ``NotImplemented`` (torch-mlir's
    lowering) otherwise."""
    mixed = _mixed(input, weight, running_mean, running_var, save_mean, save_invstd)
    cpu = input.device.type == "cpu" and grad_out.dtype == input.dtype
    if not (mixed and train and cpu) or save_mean is None or save_invstd is None:
        return NotImplemented
    dims = [0, *range(2, input.dim())]
    per_channel = [1, -1] + [1] * (input.dim() - 2)
    n = input.numel() // input.shape[1]
    x, dy = input.float(), grad_out.float()
    centered = x - save_mean.reshape(per_channel)
    total = dy.sum(dims)
    dotp = (centered * dy).sum(dims)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        k = dotp * save_invstd * save_invstd / n
        inner = dy - (total / n).reshape(per_channel) - centered * k.reshape(per_channel)
        grad_input = inner * save_invstd.reshape(per_channel)
        if weight is not None:
            grad_input = grad_input * weight.reshape(per_channel)
        grad_input = grad_input.to(input.dtype)
    if output_mask[1]:
        grad_weight = dotp * save_invstd
    if output_mask[2]:
        grad_bias = total
    return grad_input, grad_weight, grad_bias


def _native_layer_norm(
    input: torch.Tensor,
    normalized_shape: Sequence[int],
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    eps: float,
) -> Any:
    """``aten.native_layer_norm`` in mixed precision, statistics kept in float32."""
    if not _mixed(input, weight, bias):
        return NotImplemented
    out, mean, rstd = torch.ops.aten.native_layer_norm.default(
        input.float(), normalized_shape, weight, bias, eps
    )
    return out.to(input.dtype), mean, rstd


def _native_group_norm(
    input: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    n: int,
    c: int,
    hxw: int,
    group: int,
    eps: float,
) -> Any:
    """``aten.native_group_norm`` in mixed precision, statistics kept in float32."""
    if not _mixed(input, weight, bias):
        return NotImplemented
    out, mean, rstd = torch.ops.aten.native_group_norm.default(
        input.float(), weight, bias, n, c, hxw, group, eps
    )
    return out.to(input.dtype), mean, rstd


def _convolution_backward(
    grad_output: torch.Tensor,
    input: torch.Tensor,
    weight: torch.Tensor,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> Any:
    """``aten.convolution_backward`` of a grouped or dilated convolution in ops torch-mlir
    lowers; ``NotImplemented`` (the op kept, as before) for any other convolution, and for a
    transposed one.

    torch-mlir's StableHLO lowering of the weight gradient of a grouped convolution (depthwise
    in MobileNet and EfficientNet) fails ("unresolved target materialization from
    tensor<16x16x3x3xf32> to tensor<16x1x3x3xf32>"), and that of a dilated one too. Here:

    - the input gradient is the transposed convolution of ``grad_output`` by ``weight``, with
      the same groups, the output padding making up the rows the forward stride skipped;
    - the weight gradient is one grouped convolution of the input, batch and channels
      swapped so that each group's batch is its channels, by ``grad_output`` likewise: the
      forward's stride is its dilation, the forward's dilation its stride, and the positions
      past the kernel (left by the stride's remainder) are cropped;
    - the bias gradient is ``grad_output`` summed over all but its channels."""
    if transposed or (groups == 1 and all(d == 1 for d in dilation)):
        return NotImplemented
    aten = torch.ops.aten
    spatial = input.dim() - 2

    def per_dim(values: Sequence[int]) -> list[int]:
        return list(values) * spatial if len(values) == 1 else list(values)

    stride, padding, dilation = per_dim(stride), per_dim(padding), per_dim(dilation)
    batch, in_sizes, out_sizes = input.shape[0], input.shape[2:], grad_output.shape[2:]
    c_out, per_in, kernel = weight.shape[0], weight.shape[1], weight.shape[2:]
    per_out = c_out // groups
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        skipped = [
            in_sizes[i]
            - ((out_sizes[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + 1)
            for i in range(spatial)
        ]
        grad_input = aten.convolution.default(
            grad_output, weight, None, stride, padding, dilation, True, skipped, groups
        )
    if output_mask[1]:
        dims = range(3, 3 + spatial)
        # images[i, (g, n)] = input[n, g * per_in + i]; filters[(g, o), n] = grad_output[n, (g, o)]
        images = input.reshape(batch, groups, per_in, *in_sizes).permute(2, 1, 0, *dims)
        images = images.reshape(per_in, groups * batch, *in_sizes)
        filters = grad_output.reshape(batch, groups, per_out, *out_sizes).permute(1, 2, 0, *dims)
        filters = filters.reshape(c_out, batch, *out_sizes)
        full = aten.convolution.default(
            images, filters, None, dilation, padding, stride, False, [0] * spatial, groups
        )
        for i in range(spatial):
            full = full.narrow(2 + i, 0, kernel[i])
        grad_weight = full.transpose(0, 1)
    if output_mask[2]:
        grad_bias = grad_output.sum([0, *range(2, 2 + spatial)])
    return grad_input, grad_weight, grad_bias


def _avg_pool2d_backward(
    grad_output: torch.Tensor,
    self: torch.Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> torch.Tensor:
    """``aten.avg_pool2d_backward`` in ops torch-mlir lowers (torch has no decomposition of
    it): each output gradient divided by its window's divisor, spread over the window by a
    transposed convolution with a kernel of ones, and the padding cropped.

    The divisor is counted as ATen's CPU kernel counts it: the window's positions inside the
    padded input (``count_include_pad``) or inside the input, found by summing a mask of ones
    over each window (computed by ops, not a constant tensor, which the runtime would not
    read)."""
    from torch.nn import functional

    kh, kw = (kernel_size[0], kernel_size[-1]) if kernel_size else (1, 1)
    sh, sw = (stride[0], stride[-1]) if stride else (kh, kw)
    ph, pw = (padding[0], padding[-1]) if padding else (0, 0)
    height, width = self.shape[-2], self.shape[-1]
    out_h, out_w = grad_output.shape[-2], grad_output.shape[-1]
    # Windows may reach past the padded input (ceil_mode): zeros there.
    beyond_h = max(0, (out_h - 1) * sh + kh - (height + 2 * ph))
    beyond_w = max(0, (out_w - 1) * sw + kw - (width + 2 * pw))
    dtype, device = grad_output.dtype, self.device
    ones = torch.ones(1, 1, kh, kw, dtype=dtype, device=device)
    if divisor_override:
        scaled = grad_output / divisor_override
    else:
        mask = torch.ones(1, 1, height, width, dtype=dtype, device=device)
        mask = functional.pad(mask, (pw, pw, ph, ph), value=1.0 if count_include_pad else 0.0)
        mask = functional.pad(mask, (0, beyond_w, 0, beyond_h))
        counts = functional.conv2d(mask, ones, stride=(sh, sw))[0, 0, :out_h, :out_w]
        scaled = grad_output / counts
    lead = grad_output.shape[:-2]
    spread = functional.conv_transpose2d(scaled.reshape(-1, 1, out_h, out_w), ones, stride=(sh, sw))
    full_h, full_w = spread.shape[-2], spread.shape[-1]
    spread = functional.pad(
        spread, (0, max(0, width + 2 * pw - full_w), 0, max(0, height + 2 * ph - full_h))
    )
    return spread[..., ph : ph + height, pw : pw + width].reshape(*lead, height, width)


def _decompositions_of(name: str) -> dict[Any, Callable[..., Any]]:
    """torch's own decompositions of every overload of ``aten.<name>`` (none if it has none)."""
    from torch._decomp import decomposition_table

    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return {}
    overloads = [getattr(packet, o) for o in packet.overloads()]
    return {o: decomposition_table[o] for o in overloads if o in decomposition_table}


@contextlib.contextmanager
def _module_paths(root: nn.Module) -> Iterator[None]:
    """Record, in each traced node's ``meta["custom"]``, the path of the module under ``root``
    whose forward pass ran it (for an error that names where an op came from)."""
    from torch.fx import traceback as fx_traceback

    paths = {id(m): name or "<root>" for name, m in root.named_modules()}
    saved: list[Any] = []

    def enter(module: nn.Module, args: Any) -> None:
        meta = fx_traceback.current_meta
        saved.append(meta.get("custom"))
        path = paths.get(id(module))
        if path is not None:
            meta["custom"] = {**(meta.get("custom") or {}), _MODULE_KEY: path}

    def leave(module: nn.Module, args: Any, output: Any) -> None:
        meta = fx_traceback.current_meta
        previous = saved.pop() if saved else None
        if previous is None:
            meta.pop("custom", None)
        else:
            meta["custom"] = previous

    from torch.nn.modules import module as module_hooks

    with fx_traceback.preserve_node_meta():
        pre = module_hooks.register_module_forward_pre_hook(enter)
        post = module_hooks.register_module_forward_hook(leave, always_call=True)
        try:
            yield
        finally:
            pre.remove()
            post.remove()


@contextlib.contextmanager
def _tracing_kernels() -> Iterator[None]:
    """The kernels the attested step is traced through: attention in its math form (the fused
    CPU kernels, flash attention and its backward, have no StableHLO lowering) and recurrent
    layers without oneDNN (``aten.mkldnn_rnn_layer`` has none either; production keeps its
    kernels, and the tolerance covers the rounding between the two). In 16-bit floats the
    math form computes in float32 where CPU flash attention rounds to 16 bits, so attention
    that production runs in flash attention is traced as that kernel computes it
    (:class:`_ReducedFlashAttention`)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    # torch.backends.mkldnn.flags(enabled=False), without its side effect on TF32 settings.
    enabled = torch._C._get_mkldnn_enabled()
    flash = _ReducedFlashAttention(torch.backends.cuda.flash_sdp_enabled())
    torch._C._set_mkldnn_enabled(False)
    try:
        with sdpa_kernel(SDPBackend.MATH), flash:
            yield
    finally:
        torch._C._set_mkldnn_enabled(enabled)


# -- attention in 16-bit floats ------------------------------------------------------------------
#
# On CPU, scaled_dot_product_attention in bfloat16 or float16 (under autocast, which casts its
# inputs to 16 bits) runs flash attention (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp).
# It computes in float32 but rounds to 16 bits in the middle: the unnormalized probabilities
# before they multiply V, and in the backward pass the recomputed probabilities before they
# multiply the output gradient and the score gradient before it multiplies K and Q. The math
# form, which tracing used, upcasts the inputs to float32 and rounds only its results: a
# quarter to half of the elements of the output and of the gradients of Q, K and V differed,
# and where a weight's gradient is nearly zero (Llama's attention projections at
# initialization) Adam turned the difference into an update of the other sign, which the
# ensemble, perturbing the program's own roundings, could not see (issue 19: a false alarm at
# step 0 of bf16 autocast + AdamW on Llama). Traced here as the kernel computes one block of
# keys (up to 512; longer sequences it splits, rescaling in float32): bit-identical to it on
# the models measured.


def _additive_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """The attention mask as the float32 term the kernel adds to the scaled scores."""
    if mask is None:
        return None
    if mask.dtype == torch.bool:
        return torch.where(mask, 0.0, float("-inf"))
    return mask.float()


def _scores(
    q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None, scale: float
) -> torch.Tensor:
    """``scale * q @ k.T + mask`` in float32 (16-bit products are exact in float32)."""
    scores = torch.matmul(q.float(), k.float().transpose(-2, -1)) * scale
    return scores if mask is None else scores + mask


def _causal(scores: torch.Tensor, fill: float) -> torch.Tensor:
    """``scores`` with the keys after each query (top-left aligned) set to ``fill``."""
    rows, columns = scores.shape[-2], scores.shape[-1]
    keep = torch.ones(rows, columns, dtype=torch.bool, device=scores.device).tril()
    return scores.masked_fill(~keep, fill)


def _runs_cpu_flash(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None,
    dropout_p: float,
) -> bool:
    """Whether torch runs ``scaled_dot_product_attention`` of these 16-bit inputs on CPU in
    flash attention (``use_flash_attention_cpp`` in ATen's ``sdp_utils_cpp.cpp``, flash
    attention being enabled: its conditions restated, as the backend choice cannot be asked
    of the fake tensors tracing uses)."""
    if q.dtype not in (torch.bfloat16, torch.float16) or not q.dtype == k.dtype == v.dtype:
        return False
    if q.is_nested or dropout_p > 0.0 or not q.dim() == k.dim() == v.dim() == 4:
        return False
    if not q.size(0) == k.size(0) == v.size(0) or not q.size(1) == k.size(1) == v.size(1):
        return False
    if not q.size(3) == k.size(3) == v.size(3) or 0 in (q.size(2), k.size(2), q.size(3)):
        return False
    if not q.stride(-1) == k.stride(-1) == v.stride(-1) == 1:
        return False
    if mask is None:
        return True
    if mask.requires_grad or mask.size(-2) not in (q.size(2), 1):
        return False
    if mask.size(-1) not in (k.size(2), 1):
        return False
    return mask.dim() == 2 or (
        mask.dim() == 4 and mask.size(0) in (1, q.size(0)) and mask.size(1) in (1, q.size(1))
    )


class _FlashAttention(torch.autograd.Function):
    """CPU flash attention's forward and backward in 16-bit floats, as the kernel rounds."""

    @staticmethod
    def forward(
        ctx: Any,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None,
        is_causal: bool,
        scale: float,
    ) -> torch.Tensor:
        with torch.autocast("cpu", enabled=False):
            low = q.dtype
            scores = _scores(q, k, mask, scale)
            if is_causal:
                scores = _causal(scores, float("-inf"))
            top = scores.amax(-1, keepdim=True)
            top = torch.where(top == float("-inf"), 0.0, top)
            weights = torch.exp(scores - top)
            total = weights.sum(-1, keepdim=True)
            total = torch.where(total == 0, 1.0, total)
            unscaled = torch.matmul(weights.to(low).float(), v.float())
            out = (unscaled * (1 / total)).to(low)
            lse = top + torch.log(total)
        ctx.save_for_backward(q, k, v, out, lse, mask)
        ctx.is_causal, ctx.scale = is_causal, scale
        return out

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[Any, ...]:
        q, k, v, out, lse, mask = ctx.saved_tensors
        scale = ctx.scale
        with torch.autocast("cpu", enabled=False):
            low = q.dtype
            grad_out = grad_out.to(low).float()
            rowsum = (grad_out * out.float()).sum(-1, keepdim=True)
            weights = torch.exp(_scores(q, k, mask, scale) - lse)
            if ctx.is_causal:
                weights = _causal(weights, 0.0)
            grad_v = torch.matmul(weights.to(low).float().transpose(-2, -1), grad_out)
            grad_scores = weights * (torch.matmul(grad_out, v.float().transpose(-2, -1)) - rowsum)
            grad_scores = grad_scores.to(low).float()
            grad_q = torch.matmul(grad_scores, k.float()) * scale
            grad_k = torch.matmul(grad_scores.transpose(-2, -1), q.float()) * scale
        return grad_q.to(low), grad_k.to(low), grad_v.to(low), None, None, None


class _ReducedFlashAttention(torch.overrides.TorchFunctionMode):
    """While tracing, ``scaled_dot_product_attention`` in 16-bit floats on CPU that production
    would run in flash attention (the backend torch chooses with production's settings) is
    :class:`_FlashAttention`; anything else keeps its usual path (the math form)."""

    def __init__(self, flash_enabled: bool) -> None:
        super().__init__()
        self.flash_enabled = flash_enabled

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.nn.functional.scaled_dot_product_attention and self.flash_enabled:
            call = self._flash(*args, **kwargs)
            if call is not None:
                return _FlashAttention.apply(*call)
        return func(*args, **kwargs)

    @staticmethod
    def _flash(
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attn_mask: torch.Tensor | None = None,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: float | None = None,
        enable_gqa: bool = False,
    ) -> tuple[Any, ...] | None:
        """The arguments of :class:`_FlashAttention` (inputs cast as autocast casts them),
        or None where production would not run CPU flash attention in 16 bits."""
        tensors = [query, key, value] + ([attn_mask] if attn_mask is not None else [])
        if not all(isinstance(t, torch.Tensor) and t.device.type == "cpu" for t in tensors):
            return None
        if torch.is_autocast_enabled("cpu"):
            low = torch.get_autocast_dtype("cpu")
            query, key, value = (t.to(low) if t.is_floating_point() else t for t in tensors[:3])
            if attn_mask is not None and attn_mask.is_floating_point():
                attn_mask = attn_mask.to(low)
        if not _runs_cpu_flash(query, key, value, attn_mask, dropout_p):
            return None
        if scale is None:
            scale = 1.0 / math.sqrt(query.size(-1))  # the kernel's, in double
        return query, key, value, _additive_mask(attn_mask), is_causal, float(scale)


def _trace(
    step: Callable[..., Any],
    example: Sequence[torch.Tensor],
    root: nn.Module,
    decompositions: dict[Any, Callable[..., Any]],
) -> torch.fx.GraphModule:
    """``make_fx(step, tracing_mode="fake")`` with ``decompositions``, each node annotated with
    the module it came from."""
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        _scaler.refuse_unprepared()
        with _tracing_kernels(), _module_paths(root):
            graph = make_fx(step, decompositions, tracing_mode="fake")(*example)
    except ValueError:
        raise
    except Exception as error:
        raise ValueError(
            f"zkdv.torch: the attested step cannot be traced: {type(error).__name__}: {error}"
        ) from error
    _normalise_slices(graph.graph)
    _float_equalities(graph.graph)
    graph.recompile()
    return graph


def _normalise_slices(graph: torch.fx.Graph) -> None:
    """Clamp every slice's bounds to its dimension (in place).

    An open-ended slice (``x[..., d:]``, as Hugging Face's ``rotate_half`` writes it) traces
    with the end ``2**63 - 1``; the backward pass turns it into a ``slice_scatter`` with that
    end, which torch-mlir's StableHLO lowering tries to materialise (``std::bad_alloc``). The
    clamped bounds select the same elements."""
    aten = torch.ops.aten
    # target: (position of the dimension argument, the sliced tensor's shape)
    slicing: dict[Any, tuple[int, Callable[[torch.fx.Node], Any]]] = {
        aten.slice.Tensor: (1, lambda n: _shape_of(n.args[0])),
        aten.slice_scatter.default: (2, lambda n: _shape_of(n.args[0])),
        aten.slice_backward.default: (2, lambda n: n.args[1]),
    }
    for node in graph.nodes:
        found = slicing.get(node.target) if node.op == "call_function" else None
        if found is None:
            continue
        at, shape_of = found
        shape = shape_of(node)
        args = list(node.args)
        if not isinstance(shape, list | tuple) or len(args) <= at:
            continue
        dim = args[at] if isinstance(args[at], int) else 0
        size = shape[dim]
        if not isinstance(size, int):
            continue
        for position in (at + 1, at + 2):  # start, end
            bound = args[position] if position < len(args) else None
            if isinstance(bound, int) and not 0 <= bound <= size:
                args[position] = max(0, min(size, bound + size if bound < 0 else bound))
        node.args = tuple(args)


def _float_equalities(graph: torch.fx.Graph) -> None:
    """Write every float ``a == b`` as ``not (a != b)`` (in place): the same values, NaN
    included.

    torch decomposes ``isfinite(x)`` into ``(x == x) & (|x| != inf)``, and torch-mlir folds an
    equality of a value with itself into ``true`` (also through a ``clone``, a ``detach`` or a
    reshape of it), which is wrong where ``x`` is NaN: the lowered step called every NaN finite
    (a GradScaler's overflow check missed the NaN gradients production found). torch-mlir does
    not fold ``!=``."""
    aten = torch.ops.aten
    for node in list(graph.nodes):
        if node.target is not aten.eq.Tensor or len(node.args) != 2:
            continue
        values = [a.meta.get("val") if isinstance(a, torch.fx.Node) else a for a in node.args]
        if not any(isinstance(v, torch.Tensor) and v.is_floating_point() for v in values):
            continue
        with graph.inserting_before(node):
            differs = graph.call_function(aten.ne.Tensor, tuple(node.args))
            equal = graph.call_function(aten.logical_not.default, (differs,))
        differs.meta = dict(node.meta)
        equal.meta = dict(node.meta)
        node.replace_all_uses_with(equal)
        graph.erase_node(node)


def _shape_of(value: Any) -> tuple[int, ...] | None:
    meta = value.meta.get("val") if isinstance(value, torch.fx.Node) else None
    return tuple(meta.shape) if isinstance(meta, torch.Tensor) else None


def _retrace(
    graph: torch.fx.GraphModule,
    example: Sequence[torch.Tensor],
    decompositions: dict[Any, Callable[..., Any]],
) -> torch.fx.GraphModule:
    """``graph`` traced again with more ``decompositions`` (its nodes' annotations kept)."""
    from torch.fx import traceback as fx_traceback
    from torch.fx.experimental.proxy_tensor import make_fx

    with fx_traceback.preserve_node_meta():
        graph = make_fx(graph, decompositions, tracing_mode="fake")(*(x.detach() for x in example))
    _normalise_slices(graph.graph)
    _float_equalities(graph.graph)
    graph.recompile()
    return graph


class _Unlowered(Exception):
    """torch-mlir could not lower the exported step; ``ops`` are the ATen ops its diagnostics
    name (``aten.<name>``, without overload)."""

    def __init__(self, detail: str, ops: list[str]) -> None:
        super().__init__(detail)
        self.detail = detail
        self.ops = ops


def _import(exported: Any) -> Any:
    """``torch_mlir.fx.export_and_import(exported, output_type="stablehlo")``, with the
    compiler's diagnostics collected (torch-mlir prints them to the process's stderr
    otherwise) and raised as :class:`_Unlowered`."""
    import re

    from torch_mlir import fx, ir
    from torch_mlir.dialects import torch as torch_dialect
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    from torch_mlir.extras.fx_importer import FxImporter

    context = ir.Context()
    torch_dialect.register_dialect(context)
    diagnostics: list[str] = []

    def collect(diagnostic: Any) -> bool:
        diagnostics.append(str(diagnostic))
        diagnostics.extend(str(note) for note in diagnostic.notes)
        return True

    context.attach_diagnostic_handler(collect)
    try:
        # torch-mlir's own decompositions, run here so that the slices they create are
        # normalised too (with an empty table export_and_import runs none of its own).
        program = exported.run_decompositions(get_decomposition_table())
        _normalise_slices(program.graph_module.graph)
        program.graph_module.recompile()
        return fx.export_and_import(
            program,
            output_type="stablehlo",
            fx_importer=FxImporter(context=context),
            decomposition_table={},
        )
    except Exception as error:
        detail = "; ".join(diagnostics) or f"{type(error).__name__}: {error}"
        ops = re.findall(r"torch\.aten\.([A-Za-z0-9_]+)", detail)
        raise _Unlowered(detail, list(dict.fromkeys(ops))) from error


def _origin(graph: torch.fx.GraphModule, name: str) -> str:
    """Where the ATen op ``name`` came from in the traced step: the module paths of the nodes
    that run it, or, for a backward kernel (``<op>_backward``), of the forward op's nodes."""

    def modules(op: str) -> list[str]:
        found = []
        for node in graph.graph.nodes:
            target = getattr(node.target, "_schema", None)
            if node.op != "call_function" or target is None:
                continue
            if target.name.split("::")[-1] == op:
                path = (node.meta.get("custom") or {}).get(_MODULE_KEY)
                if path is not None:
                    found.append(path)
        return list(dict.fromkeys(found))

    found = modules(name)
    if not found and name.endswith("_backward"):
        forward = name.removesuffix("_backward")
        found = modules(forward) or modules(forward.removesuffix("_with_indices"))
        if found:
            return f"the backward pass of {', '.join(found[:4])}"
    return ", ".join(found[:4]) if found else "the step itself (outside any module)"


def _export(graph: torch.fx.GraphModule, example: Sequence[torch.Tensor]) -> tuple[Any, Any]:
    """``torch.export`` the traced step and lower it with torch-mlir.

    An op torch-mlir cannot lower that torch can decompose is decomposed (torch's own
    decomposition, the graph traced again) and the export retried; returns the exported
    program that lowered and the StableHLO module.

    Raises:
        ValueError: an op that neither lowers nor decomposes, naming it and its module.
    """
    decompositions = _default_decompositions()
    tried: set[str] = set()
    while True:
        try:
            exported = torch.export.export(graph, tuple(x.detach() for x in example))
        except Exception as error:
            raise ValueError(
                f"zkdv.torch: the attested step cannot be exported: {type(error).__name__}: {error}"
            ) from error
        try:
            return exported, _import(exported)
        except _Unlowered as failure:
            more = {}
            for name in failure.ops:
                if name not in tried:
                    tried.add(name)
                    more.update(_decompositions_of(name))
            if not more:
                where = (
                    "; ".join(f"aten.{op} (from {_origin(graph, op)})" for op in failure.ops[:3])
                    if failure.ops
                    else "one it does not name (its message follows)"
                )
                raise ValueError(
                    f"zkdv.torch: the attested step uses an operator torch-mlir cannot lower "
                    f"to StableHLO and torch cannot decompose: {where}. Replace that layer or "
                    f"operation in the model (or compute it outside the attested step and "
                    f"pass the result in the batch). torch-mlir said: {failure.detail[:800]}"
                ) from None
            decompositions.update(more)
            graph = _retrace(graph, example, decompositions)


def seal(lowered: Lowered) -> bytes:
    """Compile the exported step into an AOT Inductor package and return its exact bytes.

    The bytes differ on every compile (serialization ids, temporary paths, kernel names) and
    are specific to the host (``-march=native``), so the one sealed file is committed and is
    what replays it (``torch._inductor.aoti_load_package``) must load. Takes tens of seconds.

    The compile runs in a process of its own (:mod:`zkdv.torch._seal`): the seal runs on the
    session's committer thread while training goes on, and Inductor's compile and eager torch
    on the training thread share torch's FX tracing metadata, a module global.

    Raises:
        ValueError: the step cannot be compiled.
    """
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    def refused(why: str) -> ValueError:
        return ValueError(
            f"zkdv.torch: the attested step cannot be sealed as an AOT Inductor package: {why}"
        )

    with tempfile.TemporaryDirectory(prefix="zkdv-seal-") as directory:
        exported = Path(directory) / "attested_step.exported.pt2"
        path = Path(directory) / "attested_step.pt2"
        try:
            torch.export.save(_reshaping_views(lowered.exported), str(exported))
        except Exception as error:
            raise refused(f"{type(error).__name__}: {error}") from error
        # Run by its path, with this process's module path: the child needs torch as this
        # process found it, not zkdv on its path.
        child = Path(__file__).with_name("_seal.py")
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        compiled = subprocess.run(
            [sys.executable, str(child), str(exported), str(path)],
            capture_output=True,
            text=True,
            check=False,
            env=environment,
        )
        if compiled.returncode != 0 or not path.is_file():
            lines = [line for line in compiled.stderr.splitlines() if line.strip()]
            last = lines[-1] if lines else f"the compiler exited with {compiled.returncode}"
            raise refused(last)
        return path.read_bytes()


def _reshaping_views(exported: Any) -> Any:
    """``exported`` with each ``aten.view`` a ``aten.reshape`` (in place; returned).

    The exported step is functional, so the two compute the same values; but a ``view``
    recorded by the trace is only valid for the strides its input had there, and Inductor
    lays some tensors out otherwise (GPT-2's key/value cache, concatenated and expanded for
    the attention matmul, fails with "Cannot view a tensor with shape ... and strides ...").
    ``reshape`` views where the layout allows it and copies where it does not."""
    aten = torch.ops.aten
    graph = exported.graph_module.graph
    views = (aten.view.default, aten._unsafe_view.default)
    for node in graph.nodes:
        if node.op == "call_function" and node.target in views:
            node.target = aten.reshape.default
    exported.graph_module.recompile()
    return exported


def _refuse_random_ops(graph: torch.fx.GraphModule) -> None:
    for node in graph.graph.nodes:
        target = node.target
        tags = getattr(target, "tags", ())
        if (
            node.op == "call_function"
            and torch.Tag.nondeterministic_seeded in tags
            and _randomness.draws(target, node.args, node.kwargs)
        ):
            module = (node.meta.get("custom") or {}).get(_MODULE_KEY)
            where = f" in module {module!r}" if module else ""
            raise ValueError(
                f"zkdv.torch: the attested step draws random numbers with {target}{where}, "
                "whose draw zkdv cannot commit (gradients flow through its result); generate "
                "that randomness outside the step and pass it in the transaction's batch"
            )
