"""Lowering the ``@proof.attest`` step of a prepared model and optimizer to StableHLO.

The attested function is written like an ordinary training step (``proof.forward``,
``proof.backward``, ``optimizer.step()``). :func:`lower` turns it into a pure function of
tensors::

    step(params..., opt_state..., batch_leaves..., [options..., reduced gradients...])
        -> (post_params..., post_opt_state..., deltas..., [local gradients...])

by running it under a :class:`Tracing` context in which ``proof.forward`` is a
``torch.func.functional_call`` on the traced parameters, ``proof.backward`` is
``torch.autograd.grad`` with respect to them, and the prepared optimizer's ``step()`` is its
functional implementation (:mod:`zkdv.torch._optim`) on traced clones of its state. Then, as
verified on these machines (DESIGN.md §7): ``make_fx(tracing_mode="fake")``, ``torch.export``,
and torch-mlir's ``export_and_import(output_type="stablehlo")``, printed in generic form. The
Rust passes do the rest (``zkdv-attested-pipeline`` with explicit role lists).

Refused, each with its fix: a module that is not under the prepared root, implicit random
operators (``torch.Tag.nondeterministic_seeded``), and a step that cannot be exported.

The optimizer's parameter groups step their own parameters with their own options. Options
a :class:`~zkdv.torch.FunctionalOptimizer` declares ``dynamic`` (the learning rate of SGD, Adam
and AdamW) are inputs of the step, after the batch's leaves: the transaction commits their
values with the batch, so a schedule changes them without a new program. Under DDP the step
also takes the all-reduced gradient of every parameter, after those, which the optimizer
applies, and returns the rank's own gradients after the deltas.

Module buffers (BatchNorm's running statistics, its batch counter) are state that the step
updates: they are traced as inputs after the optimizer state, updated in place on traced
clones by the forward pass, and returned after the post-optimizer state, so they are committed,
checked and challenged like the optimizer state (paths ``buffers/<name>``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from zkdv.torch._optim import FunctionalOptimizer

__all__ = ["Lowered", "Tracing", "active", "dynamic_options", "groups_of", "local", "lower"]

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
    group_of: list[int]
    """The group of each parameter."""
    reduced: list[torch.Tensor] | None = None
    """Under DDP, the all-reduced gradients (inputs of the step) the optimizer applies."""
    grads: list[torch.Tensor | None] | None = None
    """The gradients the optimizer applies; ``None`` where a parameter is unused."""
    local: list[torch.Tensor] = field(default_factory=list)
    """Under DDP, this rank's own gradients (the step returns them after the deltas)."""
    stepped: bool = False
    post_params: list[torch.Tensor] = field(default_factory=list)

    def forward(self, model: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if isinstance(model, nn.parallel.DistributedDataParallel):
            # The wrapper's forward only adds the reducer's hooks: trace the module it wraps.
            model = model.module
        prefix = _prefix_of(self.root, model)
        named = [
            *zip(self.names, self.params, strict=True),
            *zip(self.buffer_names, self.buffers, strict=True),
        ]
        tensors = {name[len(prefix) :]: tensor for name, tensor in named if name.startswith(prefix)}
        return torch.func.functional_call(model, tensors, args, kwargs, strict=True)

    def backward(self, loss: torch.Tensor) -> None:
        if self.grads is not None:
            raise RuntimeError(
                "zkdv.torch: proof.backward was called twice in the attested step; call it "
                "once, on the loss the optimizer steps on"
            )
        grads: list[torch.Tensor | None] = list(
            torch.autograd.grad(loss, self.params, allow_unused=True)
        )
        if self.reduced is None:
            self.grads = grads
            return
        # Under DDP the optimizer applies the all-reduced gradient, a committed input of this
        # rank's transition; this rank's own gradient (what it contributed to the reduction)
        # is a result, checked against the one production computed.
        self.grads = list(self.reduced)
        self.local = [
            torch.zeros_like(p) if g is None else g for p, g in zip(self.params, grads, strict=True)
        ]

    def step(self) -> None:
        if self.grads is None:
            raise RuntimeError(
                "zkdv.torch: optimizer.step() ran before proof.backward(loss) in the attested "
                "step; compute the gradients with proof.backward first"
            )
        if self.stepped:
            raise RuntimeError("zkdv.torch: optimizer.step() ran twice in the attested step")
        self.stepped = True
        self.post_params = [p.detach().clone() for p in self.params]
        grads = self.grads
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
    all-reduced gradient per parameter."""
    opt_paths: tuple[str, ...]
    """``param_name/state_key`` per optimizer-state leaf, in argument order."""
    local_gradients: bool = False
    """A DDP rank's step: it also returns the rank's own gradient of every parameter, after
    the deltas (role ``user``: the attested and replay functions drop them)."""
    dynamic: tuple[tuple[int, str], ...] = ()
    """``(group index, option)`` of each dynamic optimizer option, in argument order."""
    exported: Any = None
    """The ``torch.export`` program of the step (what :func:`seal` compiles)."""

    @property
    def role_options(self) -> str:
        """``args=... results=...`` for ``zkdv-attested-pipeline``."""
        p, s, b = self.n_params, self.n_opt_state, self.n_batch

        def span(role: str, first: int, count: int) -> list[str]:
            return [f"{role}:{first}-{first + count - 1}"] if count else []

        args = span("param", 0, p) + span("opt_state", p, s) + span("batch", p + s, b)
        results = span("post_param", 0, p) + span("post_opt_state", p, s) + span("delta", p + s, p)
        if self.local_gradients:
            results += span("user", p + s + p, p)
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
        if key in group
    )


def groups_of(root: nn.Module, optimizer: torch.optim.Optimizer) -> list[int]:
    """The parameter group of each of ``root``'s parameters (``named_parameters`` order).

    Raises:
        ValueError: unless the groups hold exactly the root's parameters, each once.
    """
    index_of: dict[int, int] = {}
    for index, group in enumerate(optimizer.param_groups):
        for p in group["params"]:
            if id(p) in index_of:
                raise ValueError("zkdv.torch: a parameter is in two of the optimizer's groups")
            index_of[id(p)] = index
    named = list(root.named_parameters())
    missing = [n for n, p in named if id(p) not in index_of]
    if missing or len(index_of) != len(named):
        raise ValueError(
            "zkdv.torch: the optimizer must step exactly the prepared model's parameters "
            f"(construct it from model.parameters() or groups of them; not stepped: "
            f"{missing[:3]})"
            if missing
            else "zkdv.torch: the optimizer steps tensors that are not the prepared model's "
            "parameters"
        )
    return [index_of[id(p)] for _, p in named]


def lower(
    fun: Callable[..., Any],
    root: nn.Module,
    optimizer: torch.optim.Optimizer,
    functional: FunctionalOptimizer,
    batch: Any,
    *,
    reduced: bool = False,
    sharded: bool = False,
) -> Lowered:
    """Lower ``fun(root, optimizer, batch)`` (see the module documentation).

    With ``reduced`` (DDP), the step takes one gradient per parameter after the batch and the
    optimizer applies those: the rank's transition from the all-reduced gradient. With
    ``sharded`` (composable FSDP, parameters are ``DTensor`` shards) the step is the optimizer
    alone on this rank's local shards, from the reduce-scattered gradient shards: the forward
    and backward passes need every rank's shards, so ``fun`` is not traced.

    Raises:
        ValueError: the step cannot be lowered (the message names the cause and the fix).
    """
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.utils import _pytree as pytree

    reduced = reduced or sharded
    group_of = groups_of(root, optimizer)
    named = [(n, local(p)) for n, p in root.named_parameters()]
    names = tuple(n for n, _ in named)
    frozen = [n for n, p in root.named_parameters() if not p.requires_grad]
    if frozen:
        raise ValueError(
            f"zkdv.torch: the parameters {frozen[:3]} do not require gradients; frozen "
            "parameters are not supported yet (keep them out of the prepared root, for example "
            "as a buffer or a separate module whose output enters the batch)"
        )
    dynamic = dynamic_options(optimizer, functional)
    buffers = list(root.named_buffers())
    buffer_names = tuple(n for n, _ in buffers)
    states = [
        {k: local(v) for k, v in optimizer.state[p].items()} for _, p in root.named_parameters()
    ]
    leaves = opt_leaves(names, functional, states) + buffer_leaves(buffers)
    keys_of = [[k for k in functional.state_keys if k in s] for s in states]
    batch_leaves, batch_spec = pytree.tree_flatten(batch)
    if not all(isinstance(x, torch.Tensor) for x in batch_leaves):
        raise ValueError("zkdv.torch: every leaf of the transaction's batch must be a tensor")
    n_p, n_s, n_b = len(named), len(leaves), len(buffers)
    n_user, n_dyn = len(batch_leaves), len(dynamic)

    def step(*flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
        params = list(flat[:n_p])
        opt = list(flat[n_p : n_p + n_s - n_b])
        traced_buffers = [b.clone() for b in flat[n_p + n_s - n_b : n_p + n_s]]
        extra = list(flat[n_p + n_s + n_user :])
        traced_states: list[dict[str, Any]] = []
        at = 0
        for keys in keys_of:
            traced_states.append({k: opt[at + i].clone() for i, k in enumerate(keys)})
            at += len(keys)
        groups = [dict(group) for group in optimizer.param_groups]
        for (index, key), value in zip(dynamic, extra[:n_dyn], strict=True):
            groups[index][key] = value
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
            reduced=extra[n_dyn:] if reduced else None,
        )
        if sharded:
            tracing.grads = list(tracing.reduced or [])
            tracing.step()
        else:
            token = _ACTIVE.set(tracing)
            try:
                user = list(flat[n_p + n_s : n_p + n_s + n_user])
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
        deltas = [n - p for n, p in zip(tracing.post_params, params, strict=True)]
        return (*tracing.post_params, *post_opt, *deltas, *tracing.local)

    # Dynamic options require gradients (as the parameters do) so that torch's functional
    # steps take their tensor path (``addcmul_(grad, lr)``, not ``add_(alpha=lr)``).
    hyper = [
        torch.tensor(float(optimizer.param_groups[i][k]), dtype=torch.float64) for i, k in dynamic
    ]
    gradients = [torch.zeros_like(p.detach()) for _, p in named] if reduced else []
    example = [p.detach() for _, p in named] + [t.detach() for _, t in leaves] + batch_leaves
    example = [x.requires_grad_(True) if i < n_p else x for i, x in enumerate(example)]
    example += [h.requires_grad_(True) for h in hyper] + gradients
    # Attention traced through its math form (matmuls and a softmax): the fused CPU kernels
    # (flash attention and its backward) have no StableHLO lowering.
    from torch.nn.attention import SDPBackend, sdpa_kernel

    try:
        with sdpa_kernel(SDPBackend.MATH):
            graph = make_fx(step, tracing_mode="fake")(*example)
    except ValueError:
        raise
    except Exception as error:
        raise ValueError(
            f"zkdv.torch: the attested step cannot be traced: {type(error).__name__}: {error}"
        ) from error
    _refuse_random_ops(graph)
    try:
        from torch_mlir import fx
    except ModuleNotFoundError as error:
        raise ImportError(
            "zkdv.torch needs torch-mlir to lower the attested step to StableHLO; install the "
            "PyTorch frontend's dependencies with: pip install 'zkdv[torch]'",
            name="torch_mlir",
        ) from error
    try:
        exported = torch.export.export(graph, tuple(x.detach() for x in example))
        module = fx.export_and_import(exported, output_type="stablehlo")
    except Exception as error:
        raise ValueError(
            f"zkdv.torch: the attested step cannot be exported to StableHLO: "
            f"{type(error).__name__}: {error}"
        ) from error
    text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)
    return Lowered(
        text=text,
        n_params=n_p,
        n_opt_state=n_s,
        n_batch=n_user + n_dyn + len(gradients),
        opt_paths=tuple(path for path, _ in leaves),
        local_gradients=reduced and not sharded,
        dynamic=dynamic,
        exported=exported,
    )


def seal(lowered: Lowered) -> bytes:
    """Compile the exported step into an AOT Inductor package and return its exact bytes.

    The bytes differ on every compile (serialization ids, temporary paths, kernel names) and
    are specific to the host (``-march=native``), so the one sealed file is committed and is
    what replays it (``torch._inductor.aoti_load_package``) must load. Takes tens of seconds.

    Raises:
        ValueError: the step cannot be compiled.
    """
    import tempfile
    from pathlib import Path

    try:
        with tempfile.TemporaryDirectory(prefix="zkdv-seal-") as directory:
            path = Path(directory) / "attested_step.pt2"
            torch._inductor.aoti_compile_and_package(lowered.exported, package_path=str(path))
            return path.read_bytes()
    except Exception as error:
        raise ValueError(
            f"zkdv.torch: the attested step cannot be sealed as an AOT Inductor package: "
            f"{type(error).__name__}: {error}"
        ) from error


def _draws_randomness(node: torch.fx.Node) -> bool:
    """Whether a ``nondeterministic_seeded`` op actually draws: one whose dropout probability
    argument (``dropout_p``, ``p``) is a constant 0 (attention without dropout) does not."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return True
    for position, argument in enumerate(schema.arguments):
        if argument.name in ("dropout_p", "p"):
            if position < len(node.args):
                value = node.args[position]
            else:
                value = node.kwargs.get(argument.name, argument.default_value)
            return not (isinstance(value, int | float) and value == 0)
    return True


def _refuse_random_ops(graph: torch.fx.GraphModule) -> None:
    for node in graph.graph.nodes:
        target = node.target
        tags = getattr(target, "tags", ())
        if (
            node.op == "call_function"
            and torch.Tag.nondeterministic_seeded in tags
            and _draws_randomness(node)
        ):
            raise ValueError(
                f"zkdv.torch: the attested step draws random numbers ({target}); replay must "
                "recompute the same transition, so generate the randomness outside the step "
                "(for example a dropout mask) and pass it in the transaction's batch"
            )
