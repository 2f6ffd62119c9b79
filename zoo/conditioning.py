"""How well a torch entry's own precision determines what its tampers scale, in eager torch
alone: ``python -m zoo.conditioning NAME``.

:mod:`zoo.footprint` measures a missed tamper against the noise the state check measures. This
tool asks the question without ZKDV: could *any* check that recomputes the step tell a tamper of
relative size ``r`` (:func:`zoo.harness.update_size`) from an honest step? It trains the entry's
recipe eagerly, as its community writes it (:func:`zoo.harness.torch_step`), up to its last
step, then computes that step's gradient and update of the tampered parameter three times from
the same state, batch and random draws:

- **reference**: in float64, without autocast;
- **own**: in the entry's own precision (its autocast dtype, else float32): what production
  computes;
- **nudged**: the same, from parameters moved by a relative ``2**-20`` (a random sign per
  value): a second honest implementation, which rounds differently, is at least this far apart;
- **tampered**: the same as *own*, with the gradient tamper's hook (the parameter's gradient
  times ``1 + r``, as ``scripts/zoo`` tampers it): what a gradient-tampered production commits.

It prints, per quantity, ``|own - reference| / |reference|`` (the precision's error) and
``|own - nudged| / |reference|`` (its sensitivity). Where either is at least ``r``, a tamper
of ``r`` is within what the precision itself does to the quantity: an honest replay in another
implementation differs from production by as much, and no comparison of the two can certify the
step to ``r``.

A check never sees the gradient: it compares the update and the optimizer state that follow
from it. So the tool also prints the gradient tamper's *footprint*, ``|tampered - own| /
|reference|`` for the update: how far a gradient scaled by ``1 + r`` moves what is committed.
Under momentum or Adam's moments the last step's gradient is only part of its update, and the
footprint can be far smaller than ``r``. Where it is below the update's own error or
sensitivity, the gradient tamper changes the committed update by less than the precision
itself does.

``--images N`` and ``--pixels S`` replace an image-classification entry's batches by ``N``
images of ``S x S`` (the zoo's generator, ``zoo.torch_entries._images``), to measure how the
conditioning depends on the batch. ``--signal NOISE`` gives the images something to learn:
each is its label's fixed random template plus ``NOISE`` times Gaussian noise, where the zoo's
images are noise with random labels.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import sys
from dataclasses import dataclass
from typing import Any

from zoo.entries import BY_NAME
from zoo.harness import TorchRecipe, update_size
from zoo.worker import builder

STEPS = 4
"""Optimizer steps per run, as ``scripts/zoo``'s default: the tampers act at the last one."""

NUDGE = 2.0**-20
"""The relative change of every parameter value in the nudged run."""


@dataclass(frozen=True)
class Conditioning:
    """The tampered parameter's gradient and update at the last step, compared three ways."""

    parameter: str
    values: int
    gradient_error: float
    gradient_sensitivity: float
    update_error: float
    update_sensitivity: float
    gradient_tamper_footprint: float
    """How far the gradient tamper (the gradient times ``1 + r``) moves the update, relative to
    the reference update."""


def _relative(a: Any, b: Any, scale: Any) -> float:
    norm = float(scale.double().norm())
    return float((a.double() - b.double()).norm()) / norm if norm > 0 else float("inf")


def _last_step(
    recipe: TorchRecipe, variant: str, seed: int, r: float = 0.0
) -> tuple[Any, Any]:  # (gradient, update) of the tampered parameter
    """Run ``recipe``'s last step on a copy of its model and optimizer in ``variant``
    (``reference``, ``own``, ``nudged`` or ``tampered``, which is ``own`` with the gradient
    tamper of size ``r``); returns the tampered parameter's gradient (after accumulation and
    clipping, as the optimizer sees it) and update."""
    import torch

    from zoo.harness import _scaled_gradient

    model, optimizer = copy.deepcopy((recipe.model, recipe.optimizer))
    index = next(i for i, p in enumerate(recipe.model.parameters()) if p is recipe.tamper_parameter)
    parameter = list(model.parameters())[index]
    batch = recipe.batches[-1]
    autocast = recipe.autocast
    if variant == "reference":
        autocast = None
        model.double()
        for state in optimizer.state.values():
            for key, value in state.items():
                if torch.is_tensor(value) and value.is_floating_point() and value.ndim > 0:
                    state[key] = value.double()
        batch = torch.utils._pytree.tree_map(
            lambda x: x.double() if torch.is_tensor(x) and x.is_floating_point() else x, batch
        )
    elif variant == "nudged":
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for p in model.parameters():
                signs = torch.randint(0, 2, p.shape, generator=generator) * 2 - 1
                p.mul_(1 + NUDGE * signs.to(p.dtype))
    before = parameter.detach().clone()
    # A GradScaler's loss scaling, with its scale now as a constant: float16 gradients that
    # underflow unscaled do not in production.
    scale = recipe.scaler.get_scale() if recipe.scaler is not None else 1.0
    torch.manual_seed(seed)  # the same dropout draws in every variant
    tamper = (
        _scaled_gradient(parameter, 1 + r) if variant == "tampered" else contextlib.nullcontext()
    )
    with tamper:
        _backward(recipe, model, batch, autocast, scale)
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(scale)
    if recipe.clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.clip)
    assert parameter.grad is not None
    gradient = parameter.grad.detach().clone()
    optimizer.step()
    return gradient, parameter.detach() - before


def _backward(recipe: TorchRecipe, model: Any, batch: Any, autocast: Any, scale: float) -> None:
    """The last step's forward and backward passes over its micro-batches, as production runs
    them (the loss divided by their number and multiplied by the loss scale)."""
    import torch

    for part in batch:
        context = (
            torch.autocast("cpu", dtype=autocast)
            if autocast is not None
            else contextlib.nullcontext()
        )
        with context:
            loss = recipe.loss(model, part)
        (loss / len(batch) * scale).backward()


def measure(recipe: TorchRecipe, r: float, seed: int = 0) -> Conditioning:
    """Train ``recipe`` eagerly up to its last step and compare that step's gradient and update
    of the tampered parameter (see the module's description); ``r`` is the tampers' size."""
    import torch

    from zoo.harness import torch_step

    for batch in recipe.batches[:-1]:
        torch.manual_seed(seed + 1)
        torch_step(
            recipe,
            recipe.model,
            recipe.optimizer,
            batch,
            recipe.model,
            lambda loss: loss.backward(),
        )
        if recipe.scheduler is not None:
            recipe.scheduler.step()
    name = next(n for n, p in recipe.model.named_parameters() if p is recipe.tamper_parameter)
    g_ref, u_ref = _last_step(recipe, "reference", seed)
    g_own, u_own = _last_step(recipe, "own", seed)
    g_nud, u_nud = _last_step(recipe, "nudged", seed)
    _, u_tampered = _last_step(recipe, "tampered", seed, r)
    return Conditioning(
        parameter=name,
        values=recipe.tamper_parameter.numel(),
        gradient_error=_relative(g_own, g_ref, g_ref),
        gradient_sensitivity=_relative(g_own, g_nud, g_ref),
        update_error=_relative(u_own, u_ref, u_ref),
        update_sensitivity=_relative(u_own, u_nud, u_ref),
        gradient_tamper_footprint=_relative(u_tampered, u_own, u_ref),
    )


def _with_images(
    recipe: TorchRecipe, images: int | None, pixels: int | None, signal: float | None = None
) -> TorchRecipe:
    """``recipe`` with its image batches replaced (``--images``, ``--pixels``, ``--signal``)."""
    if images is None and pixels is None and signal is None:
        return recipe
    import torch

    from zoo.torch_entries import _images

    first = recipe.batches[0][0]
    if not (isinstance(first, tuple) and len(first) == 2 and first[0].ndim == 4):
        raise SystemExit("--images, --pixels and --signal apply to image entries only")
    batch, channels, size, _ = first[0].shape
    replaced = _images(len(recipe.batches), pixels or size, batch=images or batch)
    if signal is not None:
        g = torch.Generator().manual_seed(1)
        side = pixels or size
        templates = torch.randn(10, channels, side, side, generator=g)
        replaced = [
            ((templates[labels] + signal * noise, labels),) for ((noise, labels),) in replaced
        ]
    return TorchRecipe(**{**recipe.__dict__, "batches": replaced})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m zoo.conditioning", description=__doc__)
    parser.add_argument("name", help="a torch entry of the zoo")
    parser.add_argument("--images", type=int, help="images per batch (image entries)")
    parser.add_argument("--pixels", type=int, help="image side (image entries)")
    parser.add_argument(
        "--signal", type=float, metavar="NOISE", help="class templates plus NOISE x noise"
    )
    parser.add_argument("--steps", type=int, default=STEPS, help="optimizer steps")
    args = parser.parse_args(argv)
    entry = BY_NAME.get(args.name)
    if entry is None or entry.framework != "torch" or entry.ranks != 1:
        print(f"{args.name!r} is not a single-process torch entry of the zoo", file=sys.stderr)
        return 2
    import torch

    torch.set_num_threads(1)
    recipe = _with_images(builder(entry)(args.steps), args.images, args.pixels, args.signal)
    r = update_size(entry.precision)
    result = measure(recipe, r)
    print(f"{entry.name} ({entry.precision}), step {args.steps - 1}, {result.parameter}")
    print(f"({result.values} values); the tampers scale by 1 + {r:g}")
    print("              error      sensitivity   (relative to the float64 reference)")
    for what, error, sensitivity in (
        ("gradient", result.gradient_error, result.gradient_sensitivity),
        ("update", result.update_error, result.update_sensitivity),
    ):
        verdict = "within the precision's own noise" if max(error, sensitivity) >= r else ""
        print(f"  {what:9s} {error:10.3g}  {sensitivity:12.3g}   {verdict}")
    footprint = result.gradient_tamper_footprint
    noise = max(result.update_error, result.update_sensitivity)
    below = "below" if footprint < noise else "above"
    print(
        f"the gradient tamper moves the update by {footprint:.3g}, {below} the precision's own"
        f" {noise:.3g}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
