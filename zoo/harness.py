"""What every zoo entry shares: the outcome of one run, and the two training loops.

An entry builds a *recipe* (the model, optimizer, schedule and data its community's loop
uses) and hands it to :func:`run_torch` or :func:`run_jax`, which train it under a ZKDV
session with every step checked, time each step and report a :class:`RunOutcome`. The run
is either ``honest`` or one of the entry's tampers (:data:`TAMPERS`): production does
something the attested step does not, so a sound session must end poisoned.
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import zkdv

Mode = Literal["honest", "update", "gradient", "state"]
"""How a run goes: ``honest``, or with one tamper at its last step.

- ``update``: production's update of one parameter is scaled by ``1 + r`` (:func:`update_size`):
  torch rewrites the parameter after ``optimizer.step()``, JAX changes the production
  program's output (an execution fault) before it is committed;
- ``gradient`` (torch): a hook scales one parameter's gradient by ``1 + r`` on production's
  backward pass;
- ``state`` (JAX): one parameter coordinate is increased by 0.01 between the last two steps,
  outside the attested step.
"""

TAMPERS: dict[str, tuple[Mode, ...]] = {"torch": ("update", "gradient"), "jax": ("update", "state")}
"""The tampered runs of each framework's entries."""

THRESHOLDS = {"f32": 1e-3, "f16": 1e-2, "bf16": 1e-1}
"""Per compute dtype, the smallest relative error of a miscompiled update that every session
of the protocol's fault table caught with every step checked (``docs/soundness.md``, "Faults
caught"): below it an update is within the dtype's honest noise. The update tamper has this
size, so the zoo tests that documented threshold on real models."""


def update_size(precision: str) -> float:
    """The update tamper's relative size ``r`` for an entry computing in ``precision``
    (``"f32"``, ``"bf16 autocast"``, ``"f16 dtype"``, ...)."""
    return THRESHOLDS[precision.split()[0]]


def describe(mode: Mode, size: float) -> str:
    """What a tampered run changes, as the table says it (``size``: :func:`update_size`)."""
    return {
        "honest": "",
        "update": f"update x{1 + size:g}",
        "gradient": f"gradient x{1 + size:g}",
        "state": "state +0.01",
    }[mode]


EVERY_STEP = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))


@dataclass
class RunOutcome:
    """What one run of one entry did.

    Attributes:
        status: ``"closed"`` (``close()`` returned), ``"poisoned"`` (a
            :class:`zkdv.ZKDVPoisonedError` was raised, during the steps or by ``close()``) or
            ``"error"`` (any other exception).
        message: The first line of the exception's message (empty when closed).
        step_seconds: Wall-clock seconds of each training step that ran, the first included.
        close_seconds: Seconds ``close()`` took (it drains the queued commitments and checks).
        checks: How many checks completed.
        worst_margin: The largest :meth:`zkdv.CheckResult.margin` over those checks (``None``
            without checks).
        tamper: What the tampered run changed (:func:`describe`; empty for an honest run).
        outliers: Values its state checks admitted as outliers
            (:attr:`zkdv.CheckResult.outliers`), over every check.
    """

    status: Literal["closed", "poisoned", "error"]
    message: str = ""
    step_seconds: list[float] = field(default_factory=list)
    close_seconds: float = 0.0
    checks: int = 0
    worst_margin: float | None = None
    tamper: str = ""
    outliers: int = 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dictionary (an infinite margin becomes the string ``"inf"``)."""
        data = asdict(self)
        if self.worst_margin is not None and not math.isfinite(self.worst_margin):
            data["worst_margin"] = "inf"
        return data

    @staticmethod
    def median_step(seconds: Sequence[float]) -> float | None:
        """The median of the steps after the first, ``None`` with fewer than two steps."""
        return statistics.median(seconds[1:]) if len(seconds) > 1 else None


def retained() -> str | None:
    """The evidence a run retains: the mode the runner's ``--audit MODE`` sets in
    ``ZKDV_ZOO_RETAIN`` (``"all"`` or ``"checkpoints"``) when it audits the run, else none."""
    return os.environ.get("ZKDV_ZOO_RETAIN") or None


def first_line(error: BaseException) -> str:
    """``Type: first line of the message``, as the table reports a failure. A first line that
    ends with a colon announces what follows, so the next non-empty line is added to it."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    text = lines[0] if lines else ""
    if text.endswith(":") and len(lines) > 1:
        text = f"{text} {lines[1]}"
    return f"{type(error).__name__}: {text}".strip()


def worst_margin(checks: Sequence[zkdv.CheckResult]) -> float | None:
    """The largest margin over ``checks``, ``None`` when there are none."""
    return max((c.margin() for c in checks), default=None)


def outcome_of(
    proof: Any, seconds: list[float], body: Callable[[], None], tamper: str
) -> RunOutcome:
    """Run ``body`` (the training loop, which appends to ``seconds``), then ``proof.close()``,
    and classify what happened."""
    status: Literal["closed", "poisoned", "error"] = "closed"
    message = ""
    close_seconds = 0.0
    try:
        body()
        start = time.perf_counter()
        proof.close()
        close_seconds = time.perf_counter() - start
    except zkdv.ZKDVPoisonedError as error:
        status, message = "poisoned", first_line(error)
    except Exception as error:  # reported in the table, whatever it is
        status, message = "error", first_line(error)
        # Leave no committer thread running; the session's own error is the one reported.
        with contextlib.suppress(Exception):
            proof.close()
    checks: list[zkdv.CheckResult] = []
    with contextlib.suppress(Exception):
        checks = list(proof.checks)
    return RunOutcome(
        status=status,
        message=message,
        step_seconds=seconds,
        close_seconds=close_seconds,
        checks=len(checks),
        worst_margin=worst_margin(checks),
        tamper=tamper,
        outliers=sum(c.outliers for c in checks),
    )


# --- PyTorch ----------------------------------------------------------------------------------


@dataclass
class TorchRecipe:
    """A PyTorch training program as its community writes it.

    Attributes:
        model: The root module (or its ``DistributedDataParallel`` wrapper).
        optimizer: The optimizer over the model's parameters.
        batches: The batches of each step: every batch is a tuple of ``accumulation``
            micro-batches (pytrees of tensors).
        loss: ``loss(forward, micro_batch) -> scalar``; ``forward`` calls the model.
        tamper_parameter: The parameter whose update or gradient the tampered runs scale.
        scheduler: A learning-rate scheduler stepped after every optimizer step, or ``None``.
        clip: The ``clip_grad_norm_`` bound, or ``None`` for no clipping.
        autocast: The ``torch.autocast`` dtype of the forward pass, or ``None``.
        scaler: A ``torch.amp.GradScaler`` (float16's loss scaling, prepared with the model
            and the optimizer), or ``None``.
        averaged: A ``torch.optim.swa_utils.AveragedModel`` of the model (an EMA of its
            weights, prepared with it), updated after every optimizer step, or ``None``.
    """

    model: Any
    optimizer: Any
    batches: list[tuple[Any, ...]]
    loss: Callable[[Callable[..., Any], Any], Any]
    tamper_parameter: Any
    scheduler: Any = None
    clip: float | None = None
    autocast: Any = None
    scaler: Any = None
    averaged: Any = None


def torch_step(
    recipe: TorchRecipe,
    model: Any,
    optimizer: Any,
    batch: tuple[Any, ...],
    forward: Callable[..., Any],
    backward: Callable[[Any], None],
) -> None:
    """One optimizer step of ``recipe`` as users write it: accumulate the gradients of the
    micro-batches of ``batch`` (each loss divided by their number), clip, step, zero the
    gradients. With a GradScaler, as torch's AMP recipe writes it: each loss scaled before its
    backward pass, the gradients unscaled before clipping, the step and the scale's update
    through the scaler. An averaged model is updated after the step."""
    import torch

    scaler = recipe.scaler
    for part in batch:
        context = (
            torch.autocast("cpu", dtype=recipe.autocast)
            if recipe.autocast is not None
            else contextlib.nullcontext()
        )
        with context:
            loss = recipe.loss(forward, part)
        backward(loss / len(batch) if scaler is None else scaler.scale(loss / len(batch)))
    if scaler is not None:
        scaler.unscale_(optimizer)
    if recipe.clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.clip)
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
    optimizer.zero_grad()
    if recipe.averaged is not None:
        recipe.averaged.update_parameters(model)


def run_torch(
    make: Callable[[], TorchRecipe],
    mode: Mode,
    directory: Path,
    *,
    size: float = THRESHOLDS["f32"],
    seal: bool = True,
    tamper_rank: int | None = None,
) -> RunOutcome:
    """Train ``make()``'s recipe under a ``zkdv.torch`` session with every step checked.

    A tampered run changes production's last step on ``recipe.tamper_parameter`` (:data:`Mode`):
    the ``update`` tamper rewrites the parameter after the optimizer step so that its update
    is ``1 + size`` times what production computed, the ``gradient`` tamper registers a hook
    that scales its gradient on the backward pass. Either way production applies an update
    that the attested step does not compute. Under DDP only ``tamper_rank`` tampers.
    ``seal=False`` skips sealing the AOT Inductor package.
    """
    import torch

    torch.set_num_threads(1)
    recipe = make()
    proof = zkdv.torch.ZKDV(directory, EVERY_STEP, retain=retained())
    if not seal:
        zkdv.testing.skip_seal(proof)
    proof.start(rolling_window=8, probe_ratio=0.25)
    recipe.model, recipe.optimizer, recipe.scaler = proof.prepare(
        recipe.model, recipe.optimizer, recipe.scaler, averaged=recipe.averaged
    )

    @proof.attest
    def attested_step(model: Any, optimizer: Any, batch: Any) -> None:
        def forward(*args: Any, **kwargs: Any) -> Any:
            return proof.forward(model, *args, **kwargs)

        torch_step(recipe, model, optimizer, batch, forward, proof.backward)

    seconds: list[float] = []

    def loop() -> None:
        last = len(recipe.batches) - 1
        for step, batch in enumerate(recipe.batches):
            start = time.perf_counter()
            tampering = step == last and tamper_rank in (None, _rank())
            tamper: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
            if tampering and mode == "gradient":
                tamper = _scaled_gradient(recipe.tamper_parameter, 1 + size)
            elif tampering and mode == "update":
                tamper = _scaled_update(recipe.tamper_parameter, size)
            # The tamper's block closes first: the transaction commits what it left.
            with proof.transaction(batch=batch), tamper:
                torch_step(
                    recipe, recipe.model, recipe.optimizer, batch, recipe.model, proof.backward
                )
            if recipe.scheduler is not None:
                recipe.scheduler.step()
            seconds.append(time.perf_counter() - start)

    return outcome_of(proof, seconds, loop, describe(mode, size))


@contextlib.contextmanager
def _scaled_gradient(parameter: Any, factor: float) -> Iterator[None]:
    """Production's gradient of ``parameter`` times ``factor`` on the backward passes run
    inside the block."""
    hook = parameter.register_hook(lambda gradient: gradient * factor)
    try:
        yield
    finally:
        hook.remove()


@contextlib.contextmanager
def _scaled_update(parameter: Any, size: float) -> Iterator[None]:
    """Production's update of ``parameter`` over the block times ``1 + size``: the parameter
    is rewritten in place to ``before + (after - before) * (1 + size)``. A tamper that changes
    nothing (an update of exactly 0, as at a learning rate of 0) is an error, not a run
    whose tamper went uncaught."""
    import torch

    before = parameter.detach().clone()
    yield
    with torch.no_grad():
        honest = parameter.detach().clone()
        parameter.copy_(before + (honest - before) * (1 + size))
        if torch.equal(parameter, honest):
            raise RuntimeError("the update tamper changed nothing: the update is 0")


def _rank() -> int | None:
    import torch.distributed as dist

    return dist.get_rank() if dist.is_available() and dist.is_initialized() else None


# --- JAX ----------------------------------------------------------------------------------------


@dataclass
class JaxRecipe:
    """A JAX/Flax training program as its community writes it.

    Attributes:
        state: The ``zkdv.jax.contrib.TrainState`` (or subclass) to train.
        step: The training step, ``step(state, *batch) -> state`` or ``(state, metrics)``.
        batches: The arguments after the state of each step.
        donate: Whether the step donates the state (``donate_argnums=(0,)``), as the recipe
            does.
        place: Called on each batch before the step (device placement), or ``None``.
    """

    state: Any
    step: Callable[..., Any]
    batches: list[tuple[Any, ...]]
    donate: bool = True
    place: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None


def tamper_params(params: Any) -> Any:
    """``params`` with the first coordinate of its first leaf increased by 0.01, edited on
    the host and put back with the leaf's own sharding (an eager ``.at[]`` on an array
    sharded over a mesh of explicit axes would need the mesh set)."""
    import jax
    import numpy as np

    leaves, tree = jax.tree.flatten(params)
    first = leaves[0]
    host = np.array(first)
    host.reshape(-1)[0] += host.dtype.type(0.01)
    leaves[0] = jax.device_put(host, first.sharding)
    return jax.tree.unflatten(tree, leaves)


def run_jax(
    make: Callable[[Any], JaxRecipe],
    mode: Mode,
    directory: Path,
    size: float = THRESHOLDS["f32"],
) -> RunOutcome:
    """Train ``make(proof)``'s recipe under ``proof.jit`` with every step checked.

    A tampered run changes the last step (:data:`Mode`): the ``state`` tamper edits one
    parameter coordinate before it, outside the attested step; the ``update`` tamper scales
    the production program's update of the first parameter leaf by ``1 + size`` before the
    session commits it.
    """
    import jax

    proof = zkdv.jax.ZKDV(directory, EVERY_STEP, retain=retained())
    proof.start(rolling_window=2, probe_ratio=0.25)
    seconds: list[float] = []

    def loop() -> None:
        recipe = make(proof)
        step = proof.jit(recipe.step, donate_argnums=(0,) if recipe.donate else ())
        state = recipe.state
        last = len(recipe.batches) - 1
        for i, batch in enumerate(recipe.batches):
            if i == last and mode == "state":
                state = state.replace(params=tamper_params(state.params))
            if i == last and mode == "update":
                zkdv.testing.corrupt_production(proof, _scaled_update_fault(state.params, i, size))
            if recipe.place is not None:
                batch = recipe.place(batch)
            start = time.perf_counter()
            result = step(state, *batch)
            state = result[0] if isinstance(result, tuple) else result
            jax.block_until_ready(state)
            seconds.append(time.perf_counter() - start)

    return outcome_of(proof, seconds, loop, describe(mode, size))


def _scaled_update_fault(params: Any, step: int, size: float) -> Callable[[int, Any], None]:
    """A fault of the production program at ``step``: the first leaf of ``params`` (the
    step's pre-state, copied to the host now, before the step donates it) comes out as
    ``before + (after - before) * (1 + size)``, put back with the output's own sharding. A
    fault that changes nothing (an update of exactly 0) is an error."""
    import jax
    import numpy as np

    before = np.array(jax.tree.leaves(params)[0])

    def fault(index: int, parts: Any) -> None:
        if index != step:
            return
        after = parts["post_params"][0]
        honest = np.array(after)
        if honest.shape != before.shape:
            raise RuntimeError("the update tamper's leaf is not the program's first parameter")
        wide = before.astype(np.float64)
        tampered = (wide + (honest.astype(np.float64) - wide) * (1 + size)).astype(honest.dtype)
        if np.array_equal(tampered, honest):
            raise RuntimeError("the update tamper changed nothing: the update is 0")
        parts["post_params"][0] = jax.device_put(tampered, after.sharding)

    return fault
