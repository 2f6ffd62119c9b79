"""Tracing the ``@proof.attest`` step of a prepared model and optimizer.

The attested function is written like an ordinary training step (``proof.forward``,
``proof.backward``, ``optimizer.step()``). :func:`trace` turns it into a pure function of
tensors::

    step(params..., opt_state..., batch_leaves..., [options..., reduced gradients...])
        -> (post_params..., post_opt_state..., deltas..., [local gradients...])

by running it under a :class:`Tracing` context in which the root is reparametrized with the
traced parameters and buffers (``model.parameters()`` yields them, ``proof.forward`` is the
module's own call on them), ``proof.backward`` is ``torch.autograd.grad`` with respect to them,
accumulated into their ``.grad`` as eager accumulation does, and the prepared optimizer's
``step()`` is its functional implementation (:mod:`zkdv.torch._optim`) on those ``.grad`` and
on traced clones of its state, traced with ``make_fx(tracing_mode="fake")`` into a
:class:`Traced` graph of ATen ops. That is all the training thread does:
:mod:`zkdv.torch.lowering.process` exports the graph and lowers it to StableHLO in a process
of its own, and the session's derivation stage (:mod:`zkdv.session._derive`) runs the Rust
passes on it (``zkdv-attested-pipeline`` with explicit role lists).

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
checked and challenged like the optimizer state (paths ``buffers/<name>``). A prepared averaged
model (an EMA of the weights, :mod:`zkdv.torch._averaged`) follows them the same way: its
module is reparametrized with traced clones of its parameters and buffers, which the step
updates in place. After ``optimizer.step()`` the root's parameters are the stepped ones, as
in production, so that an update of the averaged model reads what it would read there.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib.util
import pickle
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from zkdv import _progress
from zkdv.torch import _norms, _randomness, _scaler
from zkdv.torch._optim import FunctionalOptimizer, has_option, option, set_option
from zkdv.torch.lowering import transfer
from zkdv.torch.lowering.attention import kernels
from zkdv.torch.lowering.decompositions import default_decompositions
from zkdv.torch.lowering.export import MODULE_KEY
from zkdv.torch.lowering.rewrites import float_equalities, normalise_slices
from zkdv.torch.lowering.stamping import Stamper

if TYPE_CHECKING:
    from zkdv.torch._averaged import Averaged

__all__ = [
    "Input",
    "Traced",
    "Tracing",
    "active",
    "dynamic_options",
    "groups_of",
    "local",
    "trace",
    "tracer",
    "trainable_flags",
]

_ONE_TRACE = threading.Lock()
"""Held while a step is traced (:func:`_trace`): two traces at once, of two sessions in one
process, would share torch.fx's global state."""

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
    stamper: Stamper | None = None
    """Repeats one parameter's traced optimizer step for the parameters laid out alike
    (:mod:`zkdv.torch.lowering.stamping`)."""
    publishes: bool = False
    """Whether ``optimizer.step()`` makes the stepped parameters the root's (:meth:`publish`):
    when an averaged model is prepared (its update reads them), and the root is
    reparametrized with :attr:`params` (not under FSDP, whose step is the optimizer's
    alone)."""

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

    def step(self, *, deferred: bool = False) -> None:
        """The prepared optimizer's step, functionally, on the gradients in the traced
        parameters' ``.grad`` (under DDP and FSDP, on the all-reduced ones); ``deferred``:
        the caller publishes the stepped parameters (:meth:`publish`) itself."""
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
            if not used:
                continue
            params = [self.post_params[i] for i, _ in used]
            applied = [g for _, g in used]
            states = [self.states[i] for i, _ in used]
            stamper = self.stamper
            if stamper is None or not stamper.step(
                self.functional, index, group, params, applied, states
            ):
                self.functional.step(group, params, applied, states)
        if not deferred:
            self.publish()

    def publish(self) -> None:
        """Make :attr:`post_params` the root's parameters, as they are in production after
        ``optimizer.step()`` (an averaged model's update reads them), when :attr:`publishes`;
        each keeps its pre-step tensor's ``.grad``. Leaving the reparametrization restores the
        real ones. A GradScaler's step publishes once it has chosen between the stepped and
        the skipped parameters."""
        if not self.publishes:
            return
        from torch.nn.utils._named_member_accessor import NamedMemberAccessor
        from torch.nn.utils.stateless import _untie_named_tensors_map

        for pre, post in zip(self.params, self.post_params, strict=True):
            post.grad = pre.grad
        stepped = dict(zip(self.names, self.post_params, strict=True))
        NamedMemberAccessor(self.root).swap_tensors_dict(
            _untie_named_tensors_map(self.root, stepped), allow_missing=True
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
class Input:
    """An argument of the traced step: what the lowering process builds a stand-in of (only its
    layout matters to ``torch.export``)."""

    shape: tuple[int, ...]
    dtype: str
    """The ``torch`` dtype's name (``"float32"``)."""
    device: str
    requires_grad: bool

    @staticmethod
    def of(tensor: torch.Tensor) -> Input:
        return Input(
            tuple(tensor.shape),
            str(tensor.dtype).removeprefix("torch."),
            str(tensor.device),
            tensor.requires_grad,
        )

    def stand_in(self) -> torch.Tensor:
        """A tensor of this layout: under a ``FakeTensorMode``, a fake one (no memory, on
        any device), which is all ``torch.export`` and the seal read of it."""
        tensor = torch.empty(self.shape, dtype=getattr(torch, self.dtype), device=self.device)
        return tensor.requires_grad_(self.requires_grad)


@dataclass(frozen=True)
class Traced:
    """The attested step traced into a graph of ATen ops, with the order of its arguments and
    results. What the session needs of the step on the training thread; its StableHLO text is
    derived from :attr:`graph` in a process of its own (:mod:`zkdv.torch.lowering.process`)."""

    graph: torch.fx.GraphModule
    """The step, ``make_fx``-traced with its decompositions; each node annotated with the
    module it came from (``meta["custom"]``)."""
    inputs: tuple[Input, ...]
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
    draws: tuple[_randomness.Draw, ...] = ()
    """The random draws of the step, in order: inputs after the rest of the batch, which a
    transaction records in production and commits (:mod:`zkdv.torch._randomness`)."""
    large_norms: bool = False
    """The step takes the whole 2-norm of a ``float32`` CPU tensor large enough that torch's
    kernel errs: its transactions compute those norms in chunks (:mod:`zkdv.torch._norms`)."""
    scalars: tuple[str, ...] = ()
    """Where the step turns a tensor into a Python number (:func:`_scalars`): torch-mlir
    lowers some of those (an optimizer's step count), and others into ops outside StableHLO,
    which a failed derivation then names (:meth:`explain`)."""
    captured: tuple[tuple[str, torch.Tensor, int], ...] = ()
    """The tensors the step read from outside its arguments (a noise scheduler's
    ``alphas_cumprod``), constants of its programs: ``(graph attribute, the tensor itself,
    its version counter when traced)``."""

    def refuse_changed_captures(self, caller: str) -> None:
        """Raise if a captured tensor changed in place since the step was traced (its
        version counter moved): the committed programs compute with its old values.

        Raises:
            RuntimeError: naming the tensors and what to do.
        """
        changed = [
            f"a {tuple(t.shape)} {str(t.dtype).removeprefix('torch.')} tensor"
            for _, t, version in self.captured
            if t._version != version
        ]
        if changed:
            raise RuntimeError(
                f"{caller}: the attested step reads {', '.join(changed)} from outside its "
                "arguments (an object it closes over), a constant of its committed programs, "
                "and it has changed in place since the step was traced, so the programs no "
                "longer compute what this step would. Pass a tensor that changes in the batch"
            )

    def explain(self, error: ValueError) -> ValueError:
        """``error``, a derivation's, with what a PyTorch user can do about it when it is the
        passes refusing the scalar arithmetic torch-mlir emits for a tensor the step turned
        into a Python number (:attr:`scalars`)."""
        if not self.scalars or "`arith." not in str(error):
            return error
        where = ", ".join(dict.fromkeys(self.scalars))
        return ValueError(
            f"zkdv.torch: the attested step turns a tensor into a Python number (in {where}: "
            ".item(), float(tensor), or a tensor given where torch takes a number, such as "
            "torch._foreach_lerp_'s weight), whose arithmetic its program cannot compute; keep "
            f"it a tensor (tensor.lerp_(other, weight) takes a tensor weight). The passes said: "
            f"{error}"
        )

    def digest(self) -> str:
        """What the StableHLO lowering of :attr:`graph` depends on, hashed (the derivation
        cache's key, with the versions): what the lowering process receives of it (its
        nodes, the bytes of the tensors they read, its arguments' layouts). Not the graph's
        generated Python code: generating it is 0.4 s at GPT-2 small's size, holding the
        interpreter lock that the training thread needs beside it.

        Raises:
            ValueError: a node cannot be named for the lowering process.
        """
        try:
            nodes = transfer.nodes(self.graph)
        except Exception as error:
            raise ValueError(
                "zkdv.torch: the traced step cannot be handed to the lowering process: "
                f"{type(error).__name__}: {error}"
            ) from error
        h = hashlib.blake2b(digest_size=32)
        h.update(pickle.dumps((nodes, self.inputs)))
        for name, value in sorted(transfer.constants(self.graph).items()):
            flat = value.detach().cpu().contiguous().reshape(-1)
            h.update(repr((name, tuple(value.shape), str(value.dtype))).encode())
            h.update(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")
        return h.hexdigest()

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


def trace(*args: Any, **options: Any) -> Traced:
    """Trace the step now, on the calling thread (:func:`tracer`'s arguments)."""
    return tracer(*args, **options)(process_wide=True)


def tracer(
    fun: Callable[..., Any],
    root: nn.Module,
    optimizer: torch.optim.Optimizer,
    functional: FunctionalOptimizer,
    batch: Any,
    *,
    reduced: bool = False,
    sharded: bool = False,
    scaler: torch.amp.GradScaler | None = None,
    averaged: Averaged | None = None,
) -> Callable[..., Traced]:
    """The trace of ``fun(root, optimizer, batch)`` (see the module documentation), ready to
    run: what it reads of the live session (the state's leaves and layout, the optimizer's
    groups, a GradScaler's state, which this creates if it does not exist yet) is read now,
    on the training thread, and the returned work (``work(process_wide=...)``) only traces,
    on whichever thread runs it. With ``process_wide=False`` it sets nothing that another
    thread sees: the caller installs per-thread views of the modules
    (:class:`zkdv.torch.lowering.isolation.Views`), and production trains beside it.

    With ``reduced`` (DDP), the step takes one gradient per trainable parameter after the
    batch and the optimizer applies those: the rank's transition from the all-reduced
    gradient. With ``sharded`` (composable FSDP, parameters are ``DTensor`` shards) the step is
    the optimizer alone on this rank's local shards, from the reduce-scattered gradient
    shards: the forward and backward passes need every rank's shards, so ``fun`` is not
    traced. A prepared averaged model (``averaged``) adds its leaves after the buffers, and a
    prepared ``scaler`` (enabled) its state after those (:mod:`zkdv.torch._scaler`).

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
    members = [] if averaged is None else averaged.members()
    if members and sharded:
        raise ValueError(
            "zkdv.torch: an averaged model under FSDP cannot be attested yet: the step a rank "
            "attests there is its optimizer's alone"
        )
    averaged_names = tuple(name for _, name, _ in members)
    leaves = (
        opt_leaves(names, functional, states)
        + buffer_leaves(buffers)
        + [(path, t) for path, _, t in members]
        + scaled
    )
    constants = _scaler.constants(scaler)
    # The groups as they are now: a loop may change a group's options while the trace runs
    # beside it (a schedule's learning rate, an input of the step either way).
    param_groups = [dict(group) for group in optimizer.param_groups]
    keys_of = [[k for k in functional.state_keys if k in s] for s in states]
    batch_leaves, batch_spec = pytree.tree_flatten(batch)
    if not all(isinstance(x, torch.Tensor) for x in batch_leaves):
        raise ValueError("zkdv.torch: every leaf of the transaction's batch must be a tensor")
    n_p, n_s, n_b, n_c = len(named), len(leaves), len(buffers), len(scaled)
    n_a = len(members)
    n_user, n_dyn = len(batch_leaves), len(dynamic)
    # Under DDP and FSDP one all-reduced gradient per trainable parameter: a frozen one takes
    # no part in the reduction and has no gradient to apply.
    n_grad = sum(trainable) if reduced else 0
    # The step's random draws (found by a first trace) and the feeds of the traces.
    drawn: list[_randomness.Draw] = []
    feeds: list[_randomness.Feed] = []

    def step(*flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
        params = list(flat[:n_p])
        opt = list(flat[n_p : n_p + n_s - n_b - n_a - n_c])
        traced_buffers = [
            b.clone() for b in flat[n_p + n_s - n_b - n_a - n_c : n_p + n_s - n_a - n_c]
        ]
        traced_averaged = [a.clone() for a in flat[n_p + n_s - n_a - n_c : n_p + n_s - n_c]]
        scaler_state = list(flat[n_p + n_s - n_c : n_p + n_s])
        extra = list(flat[n_p + n_s + n_user :])
        feeds.append(_randomness.Feed(extra[n_dyn + n_grad :], drawn))
        traced_states: list[dict[str, Any]] = []
        at = 0
        for keys in keys_of:
            traced_states.append({k: opt[at + i].clone() for i, k in enumerate(keys)})
            at += len(keys)
        groups = [dict(group) for group in param_groups]
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
            stamper=Stamper(decompositions),
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
                tracing.publishes = averaged is not None
                with contextlib.ExitStack() as scope:
                    scope.enter_context(
                        _reparametrize_module(root, traced, tie_weights=True, strict=True)
                    )
                    if averaged is not None:
                        scope.enter_context(
                            _reparametrize_module(
                                averaged.module,
                                dict(zip(averaged_names, traced_averaged, strict=True)),
                                tie_weights=True,
                                strict=True,
                            )
                        )
                    scope.enter_context(_randomness.feeding(feeds[-1]))
                    fun(root, optimizer, pytree.tree_unflatten(user, batch_spec))
            finally:
                _ACTIVE.reset(token)
        if not tracing.stepped:
            raise ValueError(
                "zkdv.torch: the attested step never called optimizer.step() on the prepared "
                "optimizer"
            )
        post_opt = [s[k] for s, keys in zip(traced_states, keys_of, strict=True) for k in keys]
        post_opt += traced_buffers + traced_averaged
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
    if importlib.util.find_spec("torch_mlir") is None:
        raise ImportError(
            "zkdv.torch needs torch-mlir to lower the attested step to StableHLO; install the "
            "PyTorch frontend's dependencies with: pip install 'zkdv[torch]'",
            name="torch_mlir",
        )
    opt_paths = tuple(path for path, _ in leaves)
    decompositions: dict[Any, Callable[..., Any]] = {}

    def work(*, process_wide: bool) -> Traced:
        decompositions.update(default_decompositions())  # 0.14 s: torch hashes its table
        with _progress.stage("tracing the attested step"):
            graph = _trace(step, example, root, decompositions, process_wide)
        found = _randomness.found(graph)
        if found:
            # Traced again with each draw an input (zkdv.torch._randomness).
            drawn.extend(draw for _, draw in found)
            device = example[0].device if example else torch.device("cpu")
            example.extend(torch.zeros(d.shape, dtype=d.dtype, device=device) for d in drawn)
            decompositions.update(_randomness.replacements({op for op, _ in found}))
            with _progress.stage("tracing the attested step again with its random draws"):
                graph = _trace(step, example, root, decompositions, process_wide)
            if feeds[-1].taken != len(drawn):
                raise ValueError(
                    f"zkdv.torch: the attested step drew {feeds[-1].taken} random tensors "
                    f"when traced again, {len(drawn)} the first time; its draws must not "
                    "depend on anything but the batch's layout"
                )
        _refuse_random_ops(graph)
        return Traced(
            graph=graph,
            inputs=tuple(Input.of(x) for x in example),
            n_params=n_p,
            n_opt_state=n_s,
            n_batch=n_user + n_dyn + len(gradients) + len(drawn),
            opt_paths=opt_paths,
            local_gradients=n_grad if reduced and not sharded else 0,
            dynamic=dynamic,
            draws=tuple(drawn),
            large_norms=_large_norms(graph),
            scalars=_scalars(graph),
            captured=_captured(graph),
        )

    return work


def _captured(graph: torch.fx.GraphModule) -> tuple[tuple[str, torch.Tensor, int], ...]:
    """The real tensors ``graph`` reads as constants (``get_attr``): those the step captured
    from outside its arguments, the very objects, with their version counters now."""
    found = []
    for node in graph.graph.nodes:
        if node.op == "get_attr":
            value = getattr(graph, str(node.target), None)
            if isinstance(value, torch.Tensor):
                found.append((str(node.target), value, value._version))
    return tuple(found)


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


@contextlib.contextmanager
def _module_paths(root: nn.Module) -> Iterator[None]:
    """Record, in each traced node's ``meta["custom"]``, the path of the module under ``root``
    whose forward pass ran it (the innermost; for an error that names where an op came from).

    A module's forward hooks mark where the graph stood when the module was entered, and on
    its exit the nodes traced since then that no inner module claimed take its path. Nothing
    here is the process's but the hooks, which act on the tracing thread only: torch.fx's own
    node metadata (``torch.fx.traceback.preserve_node_meta``) is a module global that eager
    torch edits too (``Optimizer.zero_grad`` annotates it), so it stays off, and production
    beside the trace never sees it on."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode

    paths = {id(m): name or "<root>" for name, m in root.named_modules()}
    entered: list[tuple[torch.fx.Graph, torch.fx.Node | None] | None] = []
    tracing = threading.get_ident()

    def enter(module: nn.Module, args: Any) -> None:
        if threading.get_ident() != tracing:
            return
        mode = get_proxy_mode()
        if mode is None:
            entered.append(None)
            return
        graph = mode.tracer.graph
        entered.append((graph, next(iter(reversed(graph.nodes)), None)))

    def leave(module: nn.Module, args: Any, output: Any) -> None:
        if threading.get_ident() != tracing or not entered:
            return
        mark, path = entered.pop(), paths.get(id(module))
        if mark is None or path is None:
            return
        graph, last = mark
        for node in reversed(graph.nodes):
            if node is last:
                break
            custom = node.meta.get("custom") or {}
            if MODULE_KEY not in custom:
                node.meta["custom"] = {**custom, MODULE_KEY: path}

    from torch.nn.modules import module as module_hooks

    pre = module_hooks.register_module_forward_pre_hook(enter)
    post = module_hooks.register_module_forward_hook(leave, always_call=True)
    try:
        yield
    finally:
        pre.remove()
        post.remove()


def _trace(
    step: Callable[..., Any],
    example: Sequence[torch.Tensor],
    root: nn.Module,
    decompositions: dict[Any, Callable[..., Any]],
    process_wide: bool,
) -> torch.fx.GraphModule:
    """``make_fx(step, tracing_mode="fake")`` with ``decompositions``, each node annotated with
    the module it came from (``process_wide``: :func:`zkdv.torch.lowering.attention.kernels`'s)."""
    from torch.fx._lazy_graph_module import _use_lazy_graph_module
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        _scaler.refuse_unprepared()
        # One trace at a time in a process (torch.fx keeps a trace's patcher in a global). A
        # lazy graph module generates its Python code only if it is read (nothing in a
        # session reads it), not twice here: 0.7 s at GPT-2 small's size.
        with (
            _ONE_TRACE,
            compiled_run_eagerly(),
            kernels(process_wide=process_wide),
            _module_paths(root),
            _use_lazy_graph_module(True),
        ):
            graph = make_fx(step, decompositions, tracing_mode="fake", _allow_non_fake_inputs=True)(
                *example
            )
    except ValueError:
        raise
    except Exception as error:
        if _raised_in(error, "swa_utils.py", "update_parameters"):
            raise ValueError(
                "zkdv.torch: the attested step updates an AveragedModel that is not prepared; "
                "prepare it with the model: model, optimizer, ema = proof.prepare(model, "
                "optimizer, ema)"
            ) from error
        raise ValueError(
            f"zkdv.torch: the attested step cannot be traced: {type(error).__name__}: {error}"
        ) from error
    _refuse_changed_constants(graph)
    normalise_slices(graph.graph)
    float_equalities(graph.graph)
    graph.recompile()
    return graph


def compiled_run_eagerly() -> contextlib.AbstractContextManager[Any]:
    """A ``torch.compile``'d function, called while a step is traced, runs as the Python it
    wraps, where dynamo would raise ("using FX to symbolically trace a dynamo-optimized
    function"): torch.fx's tracing flag is the process's, so production's compiled code beside
    a trace sees it too. Dynamo's settings are per thread: entered on the tracing thread (by
    :func:`_trace`) and on the training thread while a trace runs beside it (by the session).
    Inside the attested step, such a function is then traced through."""
    import sys

    if "torch._dynamo" not in sys.modules:
        return contextlib.nullcontext()  # nothing is compiled in this process
    import torch._dynamo.config

    return torch._dynamo.config.patch(error_on_nested_fx_trace=False)


def _where(node: torch.fx.Node) -> str:
    """`` in module 'path'`` for a node that a module's forward pass ran, else nothing."""
    module = (node.meta.get("custom") or {}).get(MODULE_KEY)
    return f" in module {module!r}" if module else ""


def _raised_in(error: BaseException, file: str, function: str) -> bool:
    """Whether ``error`` went through ``function`` of a module whose file is ``file``."""
    frame = error.__traceback__
    while frame is not None:
        code = frame.tb_frame.f_code
        if code.co_name == function and code.co_filename.endswith(file):
            return True
        frame = frame.tb_next
    return False


def _refuse_changed_constants(graph: torch.fx.GraphModule) -> None:
    """Refuse a step that writes in place to a tensor it reads from outside its arguments (a
    constant of its programs, which no step could change): a copy of the model that the loop
    averages into by hand is the usual one, and is state to prepare. A write through a view
    (``e.view(-1).mul_(d)``) or an ``out=`` argument is a write to the viewed tensor."""
    for node in graph.graph.nodes:
        target = node.target
        if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
            continue
        given = {
            **dict(zip((a.name for a in target._schema.arguments), node.args, strict=False)),
            **node.kwargs,
        }
        written = [
            given.get(argument.name)
            for argument in target._schema.arguments
            if argument.alias_info is not None and argument.alias_info.is_write
        ]
        if any(_viewed(v).op == "get_attr" for v in written if isinstance(v, torch.fx.Node)):
            raise ValueError(
                f"zkdv.torch: the attested step changes in place ({target}{_where(node)}) a "
                "tensor it reads from outside its arguments, which its committed programs hold "
                "as a constant. If it is an averaged copy of the model (an EMA), prepare it as "
                "state: proof.prepare(model, optimizer, averaged=ema); otherwise pass the tensor "
                "in the batch"
            )


def _viewed(node: torch.fx.Node) -> torch.fx.Node:
    """The node whose tensor ``node``'s is a view of (through ``view``, ``reshape``,
    ``transpose``, ``select``, ``slice``, ...: ops whose result aliases their first argument
    without writing it), or ``node`` itself."""
    while node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
        returns = node.target._schema.returns
        alias = returns[0].alias_info if len(returns) == 1 else None
        first = node.args[0] if node.args else None
        if alias is None or alias.is_write or not isinstance(first, torch.fx.Node):
            return node
        node = first
    return node


def _scalars(graph: torch.fx.GraphModule) -> tuple[str, ...]:
    """Where the step turns a traced tensor into a Python number (``.item()``,
    ``float(tensor)``, a tensor given where torch takes a number): the module of each, or
    ``"the step itself"``."""
    scalar = (torch.ops.aten._local_scalar_dense.default, torch.ops.aten.item.default)
    return tuple(
        str((node.meta.get("custom") or {}).get(MODULE_KEY) or "the step itself")
        for node in graph.graph.nodes
        if node.op == "call_function" and node.target in scalar
    )


def _large_norms(graph: torch.fx.GraphModule) -> bool:
    """Whether the step takes a whole 2-norm that torch's CPU kernel computes inexactly, which
    production then computes in chunks (:mod:`zkdv.torch._norms`)."""
    return any(
        node.op == "call_function"
        and node.target is torch.ops.aten.linalg_vector_norm.default
        and bool(node.args)
        and _norms.large(node.args[0].meta.get("val"))
        for node in graph.graph.nodes
    )


def _refuse_random_ops(graph: torch.fx.GraphModule) -> None:
    for node in graph.graph.nodes:
        target = node.target
        tags = getattr(target, "tags", ())
        if (
            node.op == "call_function"
            and torch.Tag.nondeterministic_seeded in tags
            and _randomness.draws(target, node.args, node.kwargs)
        ):
            raise ValueError(
                f"zkdv.torch: the attested step draws random numbers with {target}"
                f"{_where(node)}, "
                "whose draw zkdv cannot commit (gradients flow through its result); generate "
                "that randomness outside the step and pass it in the transaction's batch"
            )
