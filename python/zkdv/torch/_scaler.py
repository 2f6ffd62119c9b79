"""``torch.amp.GradScaler`` inside the attested step: torch's float16 recipe, attested.

A prepared scaler's state, its scale (``float32``) and growth tracker (``int32``), is state of
the transition like the module buffers: committed after them (paths ``scaler/scale`` and
``scaler/growth_tracker``), checked bit for bit between transactions, and an input and a
result of the attested program. Production runs the scaler's own methods. Inside the attested
step its methods are traced as tensor arithmetic that computes what ATen's CPU kernels do
(:class:`TracedScaler`):

- ``scale(outputs)``: ``outputs * scale``, a 16-bit output multiplied in ``float32`` and
  rounded once, as the CPU kernel does;
- ``unscale_(optimizer)``: ``inv = float32(1 / float64(scale))``; ``found_inf`` is 1 where any
  gradient value is not finite (before unscaling), and every gradient becomes ``g * inv``
  (``_amp_foreach_non_finite_check_and_unscale_``; a ``bfloat16`` gradient multiplied in
  ``float32``);
- ``step(optimizer)``: the optimizer's functional step, then every parameter and optimizer-state
  value *selected*: the stepped one where ``found_inf`` is 0, the one before the step where it
  is 1. Production decides on the host (``found_inf.item()``) whether ``optimizer.step()`` runs
  at all; the selection gives the same values without a branch;
- ``update()``: ``_amp_update_scale_``: on an overflow the scale times ``backoff_factor`` and
  the tracker 0; otherwise the tracker plus 1, and at ``growth_interval`` the scale times
  ``growth_factor`` (kept only if finite) and the tracker 0. Products are rounded from
  ``float64`` to ``float32``, as the kernel's ``float * double`` is.

The factors and the interval are constants of the program; a transaction refuses a scaler
whose constants changed since the program was committed. Not supported: a scaler under DDP or
FSDP (the rank's optimizer applies all-reduced gradients, which production records after
unscaling), ``update(new_scale)`` (the new scale would be a constant of the program), and an
optimizer with its own scale handling (``_step_supports_amp_scaling``: the fused ones). A
scaler's methods trace only in the attested step of the session that prepared it; any other
enabled scaler's methods are refused while a step is traced (:func:`refuse_unprepared`).

Overflow is a decision here, not a rounding: the perturbation ensemble of a state check decides
it as round-to-nearest does in every member (``zkdv_runtime::rounding``), so a skipped step's
values keep the spread of their other perturbations.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["REFUSAL", "TracedScaler", "constants", "leaves", "refuse_unprepared", "wrap"]

SCALE, TRACKER = "scaler/scale", "scaler/growth_tracker"
"""The paths of the scaler's two state leaves."""

_METHODS = ("scale", "unscale_", "step", "update")


REFUSAL = (
    "zkdv.torch: the attested step uses a torch.amp.GradScaler that was not prepared in this "
    "session: its scale and growth tracker are state of the step; prepare it with the model "
    "and the optimizer: model, optimizer, scaler = proof.prepare(model, optimizer, scaler)"
)
"""Why the attested step refuses a GradScaler that its session did not prepare."""


def wrap(scaler: torch.amp.GradScaler, before_step: Callable[[], None]) -> None:
    """Make ``scaler``'s methods trace as :class:`TracedScaler` inside its session's attested
    step (and stay its own everywhere else; a disabled scaler's everywhere).

    Outside a trace, ``step()`` runs ``before_step()`` first (the session's mutation barrier,
    which ``optimizer.step()`` runs too): a scaler that skips an overflowing step never calls
    ``optimizer.step()``, and the state must not change under the session's reading of it
    whether the step is skipped or not."""
    native = {name: getattr(scaler, name) for name in _METHODS}

    def wrapped(name: str) -> Callable[..., Any]:
        def method(self: torch.amp.GradScaler, *args: Any, **kwargs: Any) -> Any:
            from zkdv.torch import lowering

            tracing = lowering.active()
            if tracing is None or not self.is_enabled():
                if name == "step" and tracing is None:
                    before_step()
                return native[name](*args, **kwargs)
            if tracing.scaler is None or tracing.scaler.owner is not self:
                raise ValueError(f"{REFUSAL} (called: GradScaler.{name})")
            return getattr(tracing.scaler, name)(*args, **kwargs)

        return method

    for name in _METHODS:
        setattr(scaler, name, types.MethodType(wrapped(name), scaler))


def refuse_unprepared() -> None:
    """Make the methods of every GradScaler that no session prepared (whose methods are the
    class's) raise :data:`REFUSAL` as a ``ValueError`` while an attested step is traced,
    instead of failing deep inside torch (``No inf checks were recorded for this optimizer``).
    Installed once, on the class, the first time a step is lowered; outside a lowering, and
    for a disabled scaler, each method is the class's own."""
    from torch.amp import GradScaler

    if getattr(GradScaler, "_zkdv_refuses_unprepared", False):
        return

    def refusing(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def method(self: torch.amp.GradScaler, *args: Any, **kwargs: Any) -> Any:
            from zkdv.torch import lowering

            if lowering.active() is not None and self.is_enabled():
                raise ValueError(f"{REFUSAL} (called: GradScaler.{name})")
            return original(self, *args, **kwargs)

        return method

    for name in _METHODS:
        setattr(GradScaler, name, refusing(name, GradScaler.__dict__[name]))
    GradScaler._zkdv_refuses_unprepared = True  # type: ignore[attr-defined]


def leaves(
    scaler: torch.amp.GradScaler | None, device: torch.device | None = None
) -> list[tuple[str, torch.Tensor]]:
    """The scaler's state leaves ``(path, tensor)`` (none for no scaler or a disabled one).
    GradScaler creates its state at the first ``scale()``; with ``device`` (the model's), it is
    created there now if it does not exist yet.

    Raises:
        ValueError: the scaler's state is on another device than ``device``.
    """
    if scaler is None or not scaler.is_enabled():
        return []
    if scaler._scale is None:
        if device is None:
            return []
        scaler._lazy_init_scale_growth_tracker(device)
    assert scaler._scale is not None and scaler._growth_tracker is not None
    if device is not None and scaler._scale.device != device:
        raise ValueError(
            f"zkdv.torch: the GradScaler's scale is on {scaler._scale.device}, the "
            f"model on {device}; create it for the model's device "
            f"(torch.amp.GradScaler({device.type!r}))"
        )
    return [(SCALE, scaler._scale), (TRACKER, scaler._growth_tracker)]


def constants(scaler: torch.amp.GradScaler | None) -> tuple[float, float, int] | None:
    """``(growth_factor, backoff_factor, growth_interval)``: constants of the program."""
    if scaler is None or not scaler.is_enabled():
        return None
    return (
        float(scaler.get_growth_factor()),
        float(scaler.get_backoff_factor()),
        int(scaler.get_growth_interval()),
    )


@dataclass
class TracedScaler:
    """A prepared GradScaler's methods inside the attested step, on its traced state (see the
    module's description). ``tracing`` is the :class:`zkdv.torch.lowering.Tracing` of the step:
    its parameters' ``.grad``, its optimizer step and the traced optimizer states."""

    tracing: Any
    owner: torch.amp.GradScaler
    """The prepared scaler whose methods these are."""
    scale_value: torch.Tensor
    tracker: torch.Tensor
    growth_factor: float
    backoff_factor: float
    growth_interval: int
    found_inf: torch.Tensor | None = None
    stage: str = "ready"

    def _check(self, optimizer: Any) -> None:
        if optimizer is not self.tracing.optimizer:
            raise ValueError(
                "zkdv.torch: inside the attested step the GradScaler must step the prepared "
                "optimizer"
            )

    def scale(self, outputs: Any) -> Any:
        if isinstance(outputs, torch.Tensor):
            return _times(outputs, self.scale_value)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(x) for x in outputs)
        raise ValueError(
            "zkdv.torch: inside the attested step GradScaler.scale takes a tensor, or a list or "
            "tuple of tensors"
        )

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        self._check(optimizer)
        if self.stage == "unscaled":
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if self.stage == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inv = self.scale_value.double().reciprocal().float()
        found = torch.zeros((), dtype=torch.float32, device=self.scale_value.device)
        for p in self.tracing.params:
            g = p.grad
            if g is None:
                continue
            if g.dtype == torch.float16:
                raise ValueError("Attempting to unscale FP16 gradients.")
            found = torch.maximum(found, torch.logical_not(torch.isfinite(g)).any().float())
            p.grad = _times(g, inv)
        self.found_inf = found
        self.stage = "unscaled"

    def step(self, optimizer: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> None:
        self._check(optimizer)
        if "closure" in kwargs or args:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self.stage == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            raise ValueError(
                "zkdv.torch: an optimizer with its own GradScaler handling (a fused one) "
                "cannot be attested; construct it without fused=True"
            )
        if self.stage == "ready":
            self.unscale_(optimizer)
        assert self.found_inf is not None
        skipped = self.found_inf > 0
        tracing = self.tracing
        # The functional step updates the states in place: keep what they were.
        before = [
            {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in state.items()}
            for state in tracing.states
        ]
        tracing.step(deferred=True)
        for state, old in zip(tracing.states, before, strict=True):
            for key, value in state.items():
                if isinstance(value, torch.Tensor):
                    state[key] = torch.where(skipped, old[key], value)
        tracing.post_params = [
            torch.where(skipped, pre.detach(), post)
            for pre, post in zip(tracing.params, tracing.post_params, strict=True)
        ]
        tracing.publish()
        self.stage = "stepped"

    def update(self, new_scale: float | torch.Tensor | None = None) -> None:
        if new_scale is not None:
            raise ValueError(
                "zkdv.torch: GradScaler.update(new_scale) cannot be attested: the new scale "
                "would be a constant of the committed program; call update() without it"
            )
        if self.found_inf is None:
            raise AssertionError("No inf checks were recorded prior to update.")
        found = self.found_inf > 0
        scale = self.scale_value
        backed = (scale.double() * self.backoff_factor).float()
        grown = (scale.double() * self.growth_factor).float()
        successful = self.tracker + 1
        grow = successful == self.growth_interval
        kept = torch.where(grow & torch.isfinite(grown), grown, scale)
        self.scale_value = torch.where(found, backed, kept)
        self.tracker = torch.where(found | grow, torch.zeros_like(self.tracker), successful)
        self.found_inf = None
        self.stage = "ready"


def _times(x: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """``x * factor`` (a ``float32`` scalar) as ATen's CPU kernel computes it: a 16-bit ``x`` is
    multiplied in ``float32`` and the product rounded once to the result's type. The lowered
    ``x * factor`` would first round the factor to 16 bits (65536, the default scale, is
    infinite in float16)."""
    if x.dtype in (torch.float16, torch.bfloat16):
        return (x.float() * factor).to(torch.result_type(x, factor))
    return x * factor
