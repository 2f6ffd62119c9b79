"""``zkdv.torch.ZKDV``: the proof session of a PyTorch training loop.

Production runs eagerly, as the user wrote it, inside ``with proof.transaction(batch=...)``.
The session brackets each transaction:

- on entry, it copies the pre-state to the host and checks that it is, bit for bit, what the
  previous transaction left (state changed between steps is caught deterministically, not only
  by sampled checks), and packs
  the batch losslessly into the committed ``uint32`` batch (:mod:`zkdv._packing`);
- on the first entry, it lowers the ``@proof.attest`` step to StableHLO
  (:mod:`zkdv.torch._lower`), runs the Rust ``zkdv-attested-pipeline`` on it (and slices the
  replay variant), seals the exported step as an AOT Inductor package, and commits the
  attested program and the sealed package's exact bytes (the program record's ``attested``
  and ``production``);
- on exit, it computes the update (``post - pre``) and its probe sketches (probe maps from
  Rust), writes the step record exactly as the JAX frontend does (state commitments by
  linearity of the sketches, the batch commitment, the overlap policy), and runs the checks the
  step's challenge samples: an update check runs the attested program in the Rust runtime on the
  pre-state and the challenged indices; a state check replays the step with the replay variant
  in the Rust runtime and compares the update sketches.

The training thread computes the update and its sketches at the transaction's exit and queues
them; a committer thread writes the records and runs the sampled checks (a fence under
``UNCHECKED``, on a verifier thread under ``ALWAYS``), with ``max_in_flight`` bounding the
transactions not yet committed (:mod:`zkdv.session`, shared with JAX). Under DDP and FSDP the
reduced gradients the optimizer applies are committed with the batch (docs/torch.md).
"""

from __future__ import annotations

import contextlib
import os
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils import _pytree as pytree

from zkdv import passes, runtime
from zkdv._packing import BatchLayout
from zkdv.checks import ZKDVPoisonedError
from zkdv.config import Tolerance, ZKDVConfig
from zkdv.overlap import Overlap
from zkdv.session import CheckJob, Leaf, Replayed, Root, Session, StateReplay
from zkdv.session._checker import element
from zkdv.session._records import versions
from zkdv.torch import _lower, _optim, _randomness

__all__ = ["ZKDV"]


def _versions() -> dict[str, str]:
    return {**versions(("torch", "torch-mlir", "numpy")), "cpu": _cpu_isa()}


def _cpu_isa() -> str:
    """The machine and the vector extensions a sealed package may have been compiled for
    (``-march=native``): the host a replay of that exact file needs."""
    import platform

    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    wanted = ("avx2", "avx512f", "avx512bw", "avx512_bf16", "amx_tile", "fma", "sve", "asimd")
    return " ".join([platform.machine(), *sorted(f for f in wanted if f in flags)])


def _host(tensor: torch.Tensor) -> np.ndarray:
    """A host copy of ``tensor`` as numpy (bfloat16 through ml_dtypes' bit layout)."""
    t = tensor.detach().to("cpu", copy=True).contiguous()
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors hold the same bits (a NaN equals the same NaN; -0.0 is not 0.0)."""
    if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
        return False
    # Compared as integers of the element's width (a word at a time, not byte by byte).
    bits = _INT_OF_WIDTH.get(a.element_size(), torch.uint8)
    return torch.equal(a.contiguous().reshape(-1).view(bits), b.contiguous().reshape(-1).view(bits))


_INT_OF_WIDTH = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _training_flags(model: nn.Module) -> tuple[bool, ...]:
    return tuple(module.training for module in model.modules())


@dataclass(frozen=True)
class _Program:
    """The committed programs of the session's step for one batch layout, with what checks
    need to run them."""

    seq: int
    tolerance: Tolerance
    attested: runtime.Program
    replay: runtime.Program
    lowered: _lower.Lowered
    layout: BatchLayout
    hyperparameters: tuple[Any, ...]
    treespec: Any
    """The batch's pytree structure (the program reads its leaves in that order)."""
    training: tuple[bool, ...]
    """Each submodule's ``training`` flag when the step was lowered (part of the program)."""


@dataclass
class _Open:
    """The transaction being run: its pre-state and committed batch."""

    step: int
    overlap: Overlap
    program: _Program
    """The program of the batch's layout, which the step is committed with and checked by."""
    pre: list[torch.Tensor]
    """The pre-state (parameters, then optimizer state and buffers), on its device: what the
    previous transaction left, kept as a copy."""
    leaves: list[np.ndarray]
    """Host copies of the batch's leaves, then of the dynamic optimizer options, taken on
    entry: what the committer packs into the committed batch."""
    reduced: list[torch.Tensor] | None = None
    """Under DDP, copies of the all-reduced gradients ``optimizer.step()`` applied (the rest of
    the committed batch)."""
    local: dict[int, torch.Tensor] = field(default_factory=dict)
    """Under DDP, copies of this rank's own gradients (by parameter id) as its communication
    hook handed them to the all-reduce."""
    drawn: list[torch.Tensor] = field(default_factory=list)
    """The step's random draws as production made them (the last leaves of the committed
    batch; :mod:`zkdv.torch._randomness`)."""


@dataclass(frozen=True)
class _Pending:
    """A dispatched transaction on its way to the committer: its pre-state copy, the update
    (on the state's device) and its sketches (host), and the post-state copy."""

    opened: _Open
    paths: list[str]
    deltas: list[torch.Tensor]
    updates: list[np.ndarray]
    post: list[torch.Tensor]
    local: list[np.ndarray]
    """Under DDP, the sketches of the rank's own gradients (committed with the update's)."""


@dataclass(frozen=True)
class _Payload:
    """What the checks of one step need besides the job's indices, on the host."""

    pre: list[np.ndarray]
    batch: list[np.ndarray]
    updates: list[np.ndarray]
    post_state: list[np.ndarray]
    local: list[np.ndarray]


class ZKDV(Session):
    """A proof session for a PyTorch training loop, writing its transcript to ``directory``.

    Args:
        directory: Where the transcript goes (created if missing; an existing transcript
            there is an error).
        config: The session's :class:`zkdv.ZKDVConfig` (``ZKDVConfig()`` when omitted).
        max_in_flight: How many transactions may be dispatched and not yet committed (at
            least 1; default 2), as in the JAX session.
        retain: What to store beside the transcript for an auditor (``zkdv audit``):
            ``"all"`` (each step's packed batch, update sketches and full pre-state, as a
            snapshot every step, and the replay program), ``"snapshots"`` (the pre-state every
            ``replay_snapshot_interval`` steps and the replay program), or ``None`` (nothing;
            the default). Evidence is written by the committer thread, each artifact before the
            record that names it.
        replay_snapshot_interval: A snapshot record (the full commitment of the pre-state) is
            written every ``N`` steps (at least 1; default 12).

    Call :meth:`start`, :meth:`prepare` the model and optimizer, register the attested step
    with :meth:`attest`, run each training step inside :meth:`transaction`, and :meth:`close`
    once after the loop.
    """

    _framework = "torch"

    def __init__(
        self,
        directory: str | os.PathLike[str],
        config: ZKDVConfig | None = None,
        *,
        max_in_flight: int = 2,
        replay_snapshot_interval: int = 12,
        retain: str | None = None,
    ) -> None:
        super().__init__(
            directory,
            config,
            max_in_flight=max_in_flight,
            replay_snapshot_interval=replay_snapshot_interval,
            retain=retain,
        )
        self._model: nn.Module | None = None
        self._ddp: nn.parallel.DistributedDataParallel | None = None
        self._sharded = False
        """Whether the model's parameters are composable-FSDP ``DTensor`` shards."""
        self._optimizer: torch.optim.Optimizer | None = None
        self._functional_optimizers = _optim.builtin()
        self._functional: _optim.FunctionalOptimizer | None = None
        self._attested: Callable[..., Any] | None = None
        self._program: _Program | None = None
        """The first transaction's program (its batch layout is the root's)."""
        self._programs: dict[tuple[tuple[int, ...], ...], _Program] = {}
        """Every program committed, by the shapes of its batch's leaves."""
        self._open: _Open | None = None
        self._last_state: list[torch.Tensor] | None = None
        """Copies, on their device, of the state the last transaction left."""
        self._probes: dict[str, tuple[torch.Tensor, int, int]] = {}
        # Test-only: False skips sealing the AOT Inductor package (tens of seconds per
        # session); the program record's production is then the exported StableHLO step.
        self._seal_package = True

    # -- set-up -------------------------------------------------------------------------------

    def prepare(self, *values: Any) -> Any:
        """Prepare the root model and the optimizer whose transition is attested.

        Recognized objects (an ``nn.Module`` with parameters or buffers, a
        ``torch.optim.Optimizer``) are registered and returned as they are; anything else
        (stateless modules such as a loss, tensors, configuration) is returned unchanged.
        Returns the sole value for one argument and a tuple for several (or none).

        Raises:
            TypeError: for an optimizer without a known functional implementation (``LBFGS``,
                unknown subclasses): register one with :meth:`register_functional_optimizer`.
            RuntimeError: a second model or optimizer, or preparing after the first transaction.
        """
        if self._program is not None:
            raise RuntimeError("ZKDV.prepare: the first transaction already committed the step")
        for value in values:
            if isinstance(value, nn.parallel.DistributedDataParallel):
                self._prepare_ddp(value)
                continue
            stateful = isinstance(value, nn.Module) and (
                any(True for _ in value.parameters()) or any(True for _ in value.buffers())
            )
            if stateful:
                # A torch.compile module: its original module is the root (the attested step
                # is lowered from it); production keeps running the compiled one.
                value = _lower.unwrap(value)
                if self._model is not None and self._model is not value:
                    raise RuntimeError(
                        "ZKDV.prepare: a root model is already prepared; compose every module "
                        "the attested step uses under one root"
                    )
                self._sharded = self._check_sharded(value)
                self._model = value
            elif isinstance(value, torch.optim.Optimizer):
                if self._optimizer is not None and self._optimizer is not value:
                    raise RuntimeError("ZKDV.prepare: an optimizer is already prepared")
                for group in value.param_groups:
                    for name, hyper in group.items():
                        if isinstance(hyper, torch.Tensor):
                            raise ValueError(
                                f"ZKDV.prepare: the optimizer's {name} is a tensor; give it as "
                                "a number (its value is committed)"
                            )
                self._functional = _optim.find(value, self._functional_optimizers)
                self._optimizer = value
                self._wrap_step(value)
        return values[0] if len(values) == 1 else values

    def _prepare_ddp(self, ddp: nn.parallel.DistributedDataParallel) -> None:
        """A ``DistributedDataParallel`` model: its module is the root, and this session is
        one rank's (see :meth:`prepare`)."""
        import torch.distributed as dist

        if not dist.is_initialized():
            raise RuntimeError("ZKDV.prepare: a DDP model needs an initialized process group")
        module = ddp.module
        if self._model is not None and self._model is not module:
            raise RuntimeError("ZKDV.prepare: a root model is already prepared")
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
            opened = self._open
            if opened is not None:
                for p, g in zip(bucket.parameters(), bucket.gradients(), strict=True):
                    opened.local[id(p)] = g.detach().clone()
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
        self._model = module
        self._ddp = ddp

    @staticmethod
    def _check_sharded(model: nn.Module) -> bool:
        """Whether ``model`` is sharded by composable FSDP (``fully_shard``), which a session
        supports as one rank's: the optimizer on the rank's shards."""
        params = list(model.parameters())
        sharded = [p for p in params if _lower.local(p) is not p]
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

    def register_functional_optimizer(
        self, optimizer_class: type[torch.optim.Optimizer], functional: _optim.FunctionalOptimizer
    ) -> None:
        """Teach the session how ``optimizer_class`` steps functionally (see
        :class:`zkdv.torch.FunctionalOptimizer`); call it before :meth:`prepare`."""
        if self._optimizer is not None:
            raise RuntimeError(
                "ZKDV.register_functional_optimizer: call it before prepare(optimizer)"
            )
        if not (
            isinstance(optimizer_class, type) and issubclass(optimizer_class, torch.optim.Optimizer)
        ):
            raise TypeError("register_functional_optimizer: give a torch.optim.Optimizer subclass")
        if not isinstance(functional, _optim.FunctionalOptimizer):
            raise TypeError("register_functional_optimizer: give a zkdv.torch.FunctionalOptimizer")
        self._functional_optimizers[optimizer_class] = functional

    def attest(self, fun: Callable[..., Any]) -> Callable[..., Any]:
        """Register the attested step ``fun(model, optimizer, batch)`` (a decorator).

        It is lowered to StableHLO at the first transaction; sampled update checks replay it
        in the Rust runtime. Use :meth:`forward` and :meth:`backward` inside it. Returns
        ``fun`` unchanged.
        """
        if self._program is not None:
            raise RuntimeError("ZKDV.attest: the first transaction already committed the step")
        if not callable(fun):
            raise TypeError(f"ZKDV.attest: expected a function, got {fun!r}")
        self._attested = fun
        return fun

    # -- inside steps -------------------------------------------------------------------------

    def forward(self, model: nn.Module, *args: Any, **kwargs: Any) -> Any:
        """``model(*args, **kwargs)``; inside the attested step, on its traced parameters."""
        tracing = _lower.active()
        if tracing is None:
            return model(*args, **kwargs)
        return tracing.forward(model, args, kwargs)

    def backward(self, loss: torch.Tensor) -> None:
        """``loss.backward()``; inside the attested step, the gradient boundary it lowers."""
        tracing = _lower.active()
        if tracing is None:
            loss.backward()
        else:
            tracing.backward(loss)

    @contextlib.contextmanager
    def transaction(self, batch: Any, overlap: Overlap = Overlap.UNCHECKED) -> Iterator[None]:
        """Run one training step as a committed transaction.

        Open it before the step's forward pass. ``batch`` is the step's data (any pytree of
        tensors: inputs, targets, randomness); it is committed on entry. The random draws the
        step makes itself (dropout, stochastic depth) are recorded as it runs and committed
        with the batch. On a clean exit the update is committed and the sampled checks run; an
        exception inside commits nothing.
        """
        self._require_running("open a transaction")
        if self._open is not None:
            raise RuntimeError("ZKDV.transaction: a transaction is already open (no nesting)")
        if not isinstance(overlap, Overlap):
            raise TypeError(f"ZKDV.transaction: overlap must be a zkdv.Overlap, got {overlap!r}")
        self._enter(batch, overlap)
        try:
            assert self._open is not None
            expected = self._open.program.lowered.draws
            if expected:
                with _randomness.Recorder() as recorder:
                    yield
                if self._open is not None:
                    self._open.drawn = recorder.matched(expected)
            else:
                yield
            distributed = self._ddp is not None or self._sharded
            if distributed and self._open is not None:
                if self._open.reduced is None:
                    raise RuntimeError(
                        "ZKDV.transaction: under DDP and FSDP the transaction must call "
                        "optimizer.step() (its reduced gradients are part of the committed batch)"
                    )
                if self._ddp is not None and len(self._open.local) != len(self._open.reduced):
                    raise RuntimeError(
                        "ZKDV.transaction: under DDP the transaction must run one backward "
                        "pass through the DDP model (its gradients go through its all-reduce)"
                    )
        except BaseException:
            opened, self._open = self._open, None
            if opened is not None:
                # Nothing is committed: the state goes back to what the transaction began with.
                with torch.no_grad():
                    for live, kept in zip(self._live_state(), opened.pre, strict=True):
                        live.copy_(kept)
                self._flow.retire()
            raise
        self._exit()

    # -- the end ------------------------------------------------------------------------------

    def close(self) -> None:
        """Wait for all commitments and checks, write the close record and flush the transcript.

        Call once, after the training loop. Raises :class:`zkdv.ZKDVPoisonedError` when a
        check failed; the close record then says ``poisoned`` and names the failure.
        """
        if self._state == "running" and self._open is not None:
            raise RuntimeError("ZKDV.close: a transaction is still open")
        super().close()

    # -- internals ----------------------------------------------------------------------------

    def _wrap_step(self, optimizer: torch.optim.Optimizer) -> None:
        """Make ``optimizer.step()`` lower functionally inside the attested step (and stay the
        class's own step everywhere else)."""
        native = optimizer.step
        session = self

        def step(self: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
            tracing = _lower.active()
            if tracing is None or tracing.optimizer is not self:
                distributed = session._ddp is not None or session._sharded
                if distributed and session._open is not None:
                    session._open.reduced = session._reduced_gradients()
                return native(*args, **kwargs)
            if args or kwargs:
                raise ValueError("zkdv.torch: optimizer.step(closure) cannot be attested")
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
            tracing = _lower.active()
            if tracing is None or tracing.optimizer is not self:
                native_zero_grad(set_to_none)
            else:
                tracing.zero_grad(set_to_none)

        optimizer.zero_grad = types.MethodType(zero_grad, optimizer)  # type: ignore[method-assign]

    def _reduced_gradients(self) -> list[torch.Tensor]:
        """Copies of the gradients DDP all-reduced, as ``optimizer.step()`` is about to apply
        them (on the training thread, before the step)."""
        assert self._model is not None
        out = []
        for name, p in self._model.named_parameters():
            if p.grad is None:
                raise RuntimeError(
                    f"zkdv.torch: under DDP every parameter must have a gradient when the "
                    f"optimizer steps; {name} has none (it is unused by the loss)"
                )
            out.append(_lower.local(p.grad).detach().clone())
        return out

    def _parts(self) -> tuple[nn.Module, torch.optim.Optimizer, _optim.FunctionalOptimizer]:
        if self._model is None or self._optimizer is None:
            raise RuntimeError(
                "ZKDV.transaction: prepare the model and the optimizer first: "
                "model, optimizer = proof.prepare(model, optimizer)"
            )
        assert self._functional is not None
        return self._model, self._optimizer, self._functional

    def _init_state(
        self, optimizer: torch.optim.Optimizer, functional: _optim.FunctionalOptimizer
    ) -> None:
        for group in optimizer.param_groups:
            for p in group["params"]:
                if not optimizer.state[p]:
                    optimizer.state[p].update(functional.init(group, p))

    def _state_leaves(
        self,
    ) -> tuple[list[tuple[str, torch.Tensor]], list[tuple[str, torch.Tensor]]]:
        model, optimizer, functional = self._parts()
        named = list(model.named_parameters())
        # Under FSDP, this rank's shards.
        params: list[tuple[str, torch.Tensor]] = [(n, _lower.local(p)) for n, p in named]
        states = [{k: _lower.local(v) for k, v in optimizer.state[p].items()} for _, p in named]
        opt = _lower.opt_leaves([n for n, _ in params], functional, states)
        return params, opt + _lower.buffer_leaves(list(model.named_buffers()))

    def _live_state(self) -> list[torch.Tensor]:
        params, opt = self._state_leaves()
        return [t.detach() for _, t in params] + [t.detach() for _, t in opt]

    def _continuity(self, where: str) -> list[torch.Tensor]:
        """The state now, copied; poisons the session when it is not, bit for bit, what the
        last transaction left (then that copy is returned as it is)."""
        live = self._live_state()
        last = self._last_state
        if last is None:
            # The first transaction: its state is the reference from now on (also when it
            # raises, so a retried first step is compared with it).
            self._last_state = [t.clone() for t in live]
            return self._last_state
        if not (len(live) == len(last) and all(map(_same_bits, live, last))):
            self._flow.poison(
                ZKDVPoisonedError(
                    self._steps,
                    kind="state",
                    detail=(
                        f"the parameters or optimizer state at {where} are not what step "
                        f"{self._steps - 1} produced: they were changed outside the attested step"
                    ),
                )
            )
        return last

    def _sketch(self, path: str, delta: torch.Tensor) -> np.ndarray:
        """The probe sketch of one update leaf, computed on its device in float64.

        The Rust probe map's columns are contiguous, balanced blocks of the last dimension
        (``long`` blocks of ``q + 1`` coordinates, then blocks of ``q``), so the sketch is the
        weighted leaf summed over two reshapes, one pass and no scatter. The products are
        rounded to the leaf's type and summed in float64 (as the JAX frontend's device sketch
        is; a state check compares the replay's sketches with these within tolerance)."""
        cached = self._probes.get(path)
        if cached is None:
            probe = self._records.probe(path, tuple(delta.shape))
            long, q = probe.blocks
            weight = torch.from_numpy(probe.weights()).to(delta.device, delta.dtype)
            cached = (weight, long, q)
            self._probes[path] = cached
        weight, long, q = cached
        x = (delta.reshape(1) if delta.dim() == 0 else delta) * weight
        lead = x.shape[:-1]
        split = long * (q + 1)
        f64 = torch.float64
        parts = [x[..., :split].reshape(*lead, long, q + 1).sum(-1, dtype=f64)]
        if x.shape[-1] > split:
            parts.append(x[..., split:].reshape(*lead, -1, q).sum(-1, dtype=f64))
        return torch.cat(parts, dim=-1).cpu().numpy()

    def _enter(self, batch: Any, overlap: Overlap) -> None:
        model, optimizer, functional = self._parts()
        if self._attested is None:
            raise RuntimeError(
                "ZKDV.transaction: register the attested step first (decorate it with "
                "@proof.attest)"
            )
        self._init_state(optimizer, functional)
        leaves, _ = pytree.tree_flatten(batch)
        if not all(isinstance(x, torch.Tensor) for x in leaves):
            raise TypeError("ZKDV.transaction: every leaf of batch must be a tensor")
        host_leaves = [_host(x) for x in leaves]
        first = self._program
        if first is not None:
            # Only the batch's shapes may differ from the first transaction's: each batch
            # layout (a partial last batch, another sequence length) is a program of its own.
            if pytree.tree_structure(batch) != first.treespec:
                raise ValueError(
                    "ZKDV.transaction: the batch's structure differs from the first "
                    "transaction's; only the shapes of its tensors may change between "
                    "transactions"
                )
            if _training_flags(model) != first.training:
                raise RuntimeError(
                    "ZKDV.transaction: a module's train/eval mode changed since the step was "
                    "committed (the mode is part of the attested program); keep it fixed"
                )
            self._check_hyperparameters(optimizer, functional, first.hyperparameters)
            dtypes = [s.dtype for s in first.layout.slots[: len(host_leaves)]]
            if [x.dtype for x in host_leaves] != dtypes:
                raise ValueError(
                    "ZKDV.transaction: the batch's dtypes differ from the first transaction's "
                    f"({[str(x.dtype) for x in host_leaves]} for {[str(d) for d in dtypes]}); "
                    "only the shapes of its tensors may change between transactions"
                )
        program = self._programs.get(tuple(tuple(x.shape) for x in host_leaves))
        if program is None:
            program = self._register(model, optimizer, functional, batch, host_leaves)
        pre = self._continuity(f"step {self._steps}")
        self._flow.raise_if_poisoned()
        self._flow.admit(overlap)
        self._open = _Open(
            step=self._steps,
            overlap=overlap,
            program=program,
            pre=pre,
            leaves=host_leaves + self._dynamic_values(optimizer, program.lowered),
        )

    @staticmethod
    def _dynamic_values(optimizer: torch.optim.Optimizer, lowered: _lower.Lowered) -> list[Any]:
        """The dynamic optimizer options now, as the step's ``float64`` scalar inputs."""
        out = []
        for index, key in lowered.dynamic:
            value = optimizer.param_groups[index][key]
            if isinstance(value, torch.Tensor):
                raise ValueError(
                    f"ZKDV.transaction: the optimizer's {key} became a tensor; set it as a number"
                )
            out.append(np.asarray(float(value), dtype=np.float64))
        return out

    @staticmethod
    def _hyperparameters(
        optimizer: torch.optim.Optimizer, functional: _optim.FunctionalOptimizer
    ) -> tuple[tuple[Any, ...], ...]:
        """Each group's constant options (the program's), by value: a tensor updated in place
        (a scheduler's ``fill_``) must not compare equal."""
        keys = [k for k in functional.hyperparameters if k not in functional.dynamic]
        return tuple(
            tuple(
                v.tolist() if isinstance(v, torch.Tensor) else v
                for v in (group.get(k) for k in keys)
            )
            for group in optimizer.param_groups
        )

    def _check_hyperparameters(
        self,
        optimizer: torch.optim.Optimizer,
        functional: _optim.FunctionalOptimizer,
        committed: tuple[tuple[Any, ...], ...],
    ) -> None:
        now = self._hyperparameters(optimizer, functional)
        if now == committed:
            return
        if len(now) != len(committed):
            raise RuntimeError(
                "ZKDV.transaction: the optimizer's parameter groups changed since the step was "
                "committed; keep them fixed"
            )
        keys = [k for k in functional.hyperparameters if k not in functional.dynamic]
        changed = sorted(
            {
                k
                for a, b in zip(now, committed, strict=True)
                for k, x, y in zip(keys, a, b, strict=True)
                if x != y
            }
        )
        dynamic = (
            f"only its {', '.join(functional.dynamic)} may change between steps (a schedule)"
            if functional.dynamic
            else "none of its options may change between steps (for SGD, Adam and AdamW a "
            "learning-rate schedule may change lr)"
        )
        raise RuntimeError(
            f"ZKDV.transaction: the optimizer's {', '.join(changed)} changed since the step was "
            f"committed: they are constants of the committed program, and {dynamic}"
        )

    def _register(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        functional: _optim.FunctionalOptimizer,
        batch: Any,
        host_leaves: list[np.ndarray],
    ) -> _Program:
        """Lower, commit and cache the program of ``batch``'s layout; the first one opens the
        transcript (its layout is the root's), a later one names its own layout."""
        assert self._attested is not None
        first = self._program
        treespec = pytree.tree_structure(batch)
        if self._sharded and isinstance(optimizer, torch.optim.Muon):
            raise ValueError(
                "ZKDV.transaction: Muon orthogonalizes whole matrices, which a rank's FSDP "
                "shard is not; its step cannot be a rank's transition on its shards"
            )
        lowered = _lower.lower(
            self._attested,
            model,
            optimizer,
            functional,
            batch,
            reduced=self._ddp is not None,
            sharded=self._sharded,
        )
        name = getattr(self._attested, "__name__", "step")
        roles = lowered.role_options
        attested_text, _ = passes.run_passes(
            lowered.text, [f"zkdv-attested-pipeline={roles}"], f"<{name}: attested>"
        )
        # The replay variant is the step without its user results; a DDP rank's replay keeps
        # them: they are the rank's own gradients, which a state check compares too.
        replay_options = "whole" if lowered.local_gradients else roles
        replay_text, _ = passes.run_passes(
            lowered.text, [f"zkdv-replay-pipeline={replay_options}"], f"<{name}: replay>"
        )
        # Rows shorter than the rolling window are zero-padded to it (losslessly).
        params, opt = self._state_leaves()
        slots = [(x.shape, x.dtype) for x in host_leaves]
        slots += [(x.shape, x.dtype) for x in self._dynamic_values(optimizer, lowered)]
        if self._ddp is not None or self._sharded:
            slots += [(tuple(p.shape), _host(p).dtype) for _, p in params]
        slots += [(d.shape, _host(torch.empty(0, dtype=d.dtype)).dtype) for d in lowered.draws]
        layout = BatchLayout.of(slots, min_width=self._rolling_window)

        def leaves(items: list[tuple[str, torch.Tensor]]) -> list[Leaf]:
            return [Leaf(n, tuple(t.shape), _host(t).dtype) for n, t in items]

        rank = None
        if self._ddp is not None or self._sharded:
            import torch.distributed as dist

            rank = {
                "rank": dist.get_rank(),
                "world_size": dist.get_world_size(),
                "backend": str(dist.get_backend()),
            }
        root = Root(
            prover="whitebox-torch",
            versions=_versions(),
            rolling_window=self._rolling_window,
            probe_ratio=self._probe_ratio,
            snapshot_interval=self.replay_snapshot_interval,
            params=leaves(params),
            opt_state=leaves(opt),
            batch=layout.shape,
            rank=rank,
        )
        # Everything that can fail comes before the transcript is created, so a failed first
        # transaction leaves the directory usable for a retry.
        precision = passes.precision(attested_text, f"<{name}: attested>")
        tolerance = self.config.base_tolerance.for_program(self.config.tolerance_policy, precision)
        attested = runtime.Program(attested_text, "main", f"<{name}: attested>")
        replay = runtime.Program(replay_text, "main", f"<{name}: replay>")
        production = (
            (_lower.seal(lowered), "pt2")
            if self._seal_package
            else (
                lowered.text.encode(),
                "mlir",
            )
        )
        if first is None:
            self._records.open(self.directory, root, self.config)
        seq = self._records.program(
            name=name,
            attested=attested_text,
            production=production,
            precision=precision,
            tolerance=tolerance,
            replay=replay_text if self._retain else None,
            batch=layout.shape,
        )
        program = _Program(
            seq=seq,
            tolerance=tolerance,
            attested=attested,
            replay=replay,
            lowered=lowered,
            layout=layout,
            hyperparameters=self._hyperparameters(optimizer, functional),
            treespec=treespec,
            training=_training_flags(model),
        )
        self._programs[tuple(tuple(x.shape) for x in host_leaves)] = program
        if first is None:
            self._program = program
            self._committer.begin(
                self._records.exact_sketches([n for n, _ in params], [_host(t) for _, t in params])
            )
        return program

    def _exit(self) -> None:
        """On the training thread: the update and its sketches, where the state lives, and the
        copy of the post-state the next step starts from; the rest is the committer's."""
        opened = self._open
        assert opened is not None
        self._open = None
        try:
            paths = [n for n, _ in self._state_leaves()[0]]
            n_params = len(paths)
            live = self._live_state()
            deltas = [
                post - pre for post, pre in zip(live[:n_params], opened.pre[:n_params], strict=True)
            ]
            updates = [self._sketch(p, d) for p, d in zip(paths, deltas, strict=True)]
            local = []
            if self._ddp is not None:
                assert self._model is not None
                params = list(self._model.parameters())
                local = [
                    self._sketch(path, opened.local[id(p)])
                    for path, p in zip(paths, params, strict=True)
                ]
            post = [t.clone() for t in live]
        except BaseException:
            self._flow.retire()
            raise
        self._last_state = post
        self._steps += 1
        self._committer.put(_Pending(opened, paths, deltas, updates, post, local))

    def _commit(self, pending: _Pending) -> None:
        """Commit one transaction (its snapshot when one is due, its step record), then run or
        hand over the checks its challenge samples; retires the transaction's slot."""
        opened = pending.opened
        program = opened.program
        paths, updates = pending.paths, pending.updates
        n_params = len(paths)
        host_pre: list[np.ndarray] | None = None
        if opened.step % self.replay_snapshot_interval == 0:
            host_pre = [_host(t) for t in opened.pre]
            self._committer.snapshot(
                opened.step,
                list(zip(paths, host_pre[:n_params], strict=True)),
                list(zip(program.lowered.opt_paths, host_pre[n_params:], strict=True)),
            )
        leaves = opened.leaves
        if opened.reduced is not None:
            leaves = leaves + [_host(g) for g in opened.reduced]
        leaves = leaves + [_host(d) for d in opened.drawn]
        packed = program.layout.pack(leaves)
        local_paths = [f"local_grad/{p}" for p in paths] if pending.local else []
        challenge, _ = self._committer.transition(
            step=opened.step,
            program=program.seq,
            paths=paths,
            updates=updates,
            batch=packed,
            overlap=opened.overlap,
            # Under DDP the rank's own gradient sketches are committed with the update's.
            extra=list(zip(local_paths, pending.local, strict=True)),
        )
        job: CheckJob[_Payload] | None = None
        if challenge.state or challenge.update:
            indices = tuple(challenge.update_indices()) if challenge.update else ()
            committed = []
            if indices:
                committed.append(element(pending.deltas, indices[0], _host))
                if len(indices) > 1:
                    committed.append(element(pending.post[n_params:], indices[1], _host))
            job = CheckJob(
                step=opened.step,
                program=program,
                state=challenge.state,
                indices=indices,
                committed=tuple(committed),
                payload=_Payload(
                    pre=host_pre if host_pre is not None else [_host(t) for t in opened.pre],
                    batch=program.layout.unpack_host(packed),
                    updates=updates,
                    post_state=(
                        [_host(t) for t in pending.post[n_params:]] if challenge.state else []
                    ),
                    local=pending.local,
                ),
            )
        self._committer.dispatch(opened.overlap, job)

    def _replay(self, job: CheckJob[_Payload]) -> Replayed:
        """The step from its pre-state copy; for a state check, replayed in the Rust runtime
        with the replay variant: its update sketches must reproduce the committed ones, and its
        post-optimizer state and buffers the ones production left (which the next step starts
        from: an edit inside the transaction would otherwise become the next step's accepted
        pre-state). Under DDP the replayed local gradients' sketches must reproduce the rank's
        committed ones too. The replay is another program than the eager production step, so
        the comparison allows its perturbation ensemble's spread (docs/protocol.md)."""
        payload = job.payload
        state = None
        if job.state:
            program = job.program
            assert isinstance(program, _Program)
            arguments = [*payload.pre, *payload.batch]
            paths = [n for n, _ in self._state_leaves()[0]]
            n_state, n_params = len(payload.pre), len(paths)

            def flat(values: list[np.ndarray]) -> list[np.ndarray]:
                return [np.asarray(v, dtype=np.float64).reshape(-1) for v in values]

            def sketches(member: int | None = None) -> np.ndarray:
                outputs = [np.asarray(x) for x in program.replay.run(arguments, ensemble=member)]
                deltas = outputs[n_state : n_state + n_params]
                values = self._records.exact_sketches(paths, deltas)
                replayed_state = outputs[n_params:n_state]
                local = outputs[n_state + n_params :]
                local_values = self._records.exact_sketches(paths, local) if local else []
                return np.concatenate([*flat(values), *flat(replayed_state), *flat(local_values)])

            committed = np.concatenate(
                [*flat(payload.updates), *flat(payload.post_state), *flat(payload.local)]
            )
            state = StateReplay(committed, sketches(), members=sketches)
        return Replayed(pre_state=payload.pre, batch=payload.batch, replay_length=0, state=state)

    def _last_state_check(self) -> None:
        self._continuity("close")
