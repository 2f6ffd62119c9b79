"""The client's data, as an audit checks it: a manifest of examples and their order.

A transcript commits to every batch a step trained on, but a batch is whatever the prover
packed. The client who commissioned the run knows its dataset and the order its examples were
to be seen in; a *manifest* states both so that ``zkdv audit --data MANIFEST`` can check every
replayed step's batch against them:

- an *example* is one row of each of the step's data leaves (``(inputs[i], targets[i])`` for a
  batch ``(inputs, targets)``), and its digest is :func:`zkdv.hashing.commit_tensor_tree` over
  ``("0", leaf_0[i]), ("1", leaf_1[i]), ...``;
- the *order* lists, per step, the indices of the examples in its batch rows;
- the *dataset root* is ``commit_tree`` over ``("<index>", digest)`` for every example, which
  the audit report names.

Batch leaves after the data (a schedule's learning rate, the random draws of dropout) are not
compared. A JAX transcript's batches are packed words; the manifest's ``layout`` (written when
every example has the same dtypes and shapes) reads the rows back from them. Each example's
arrays must have the dtypes the training loop commits (``int64`` labels for ``torch.randint``,
for example).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from zkdv import hashing

__all__ = ["example_digest", "manifest", "write_hyperparameters", "write_manifest"]


def _array(value: Any) -> np.ndarray:
    """A host array of ``value`` (a numpy array or scalar, or a CPU torch tensor)."""
    detach = getattr(value, "detach", None)
    if callable(detach):
        value = detach().cpu().numpy()
    # Not np.ascontiguousarray, which gives a 0-d array (a label) the shape (1,).
    return np.asarray(value)


def example_digest(example: Sequence[Any]) -> bytes:
    """The digest of one example: its arrays, one per data leaf, in the batch's leaf order."""
    return hashing.commit_tensor_tree((str(j), _array(x)) for j, x in enumerate(example))


def manifest(examples: Iterable[Sequence[Any]], order: Sequence[Sequence[int]]) -> dict[str, Any]:
    """The manifest of ``examples`` (each a sequence of arrays: ``dataset[i]`` of a torch
    ``Dataset`` of ``(input, target)`` pairs, or ``zip(inputs, targets)``) seen in ``order``
    (per step, the indices of its batch rows).

    Returns ``{"leaves", "examples", "order", "root"}`` (digests in hex), and ``"layout"`` (each
    data leaf's row dtype tag and shape) when every example has the same, as ``zkdv audit
    --data`` reads it from a JSON file (:func:`write_manifest`). The layout lets an audit read
    the rows back from a batch committed as packed words (the JAX frontend's).

    Raises:
        ValueError: for examples with different numbers of arrays, an empty dataset, or an
            index in ``order`` outside it.
    """
    digests: list[bytes] = []
    leaves: int | None = None
    # The rows' dtypes and shapes, while every example agrees on them: an audit of a transcript
    # whose batches are packed words (the JAX frontend's) reads the rows back with them.
    layout: list[dict[str, Any]] | None = None
    uniform = True
    for i, example in enumerate(examples):
        example = tuple(_array(x) for x in example)
        if leaves is not None and len(example) != leaves:
            raise ValueError(f"example {i} has {len(example)} arrays, the ones before {leaves}")
        leaves = len(example)
        rows = [{"dtype": hashing.dtype_tag(x.dtype), "shape": list(x.shape)} for x in example]
        if layout is None:
            layout = rows
        uniform = uniform and rows == layout
        digests.append(example_digest(example))
    if leaves is None:
        raise ValueError("manifest: no examples")
    steps = [[int(i) for i in step] for step in order]
    for t, step in enumerate(steps):
        outside = [i for i in step if not 0 <= i < len(digests)]
        if outside:
            raise ValueError(
                f"manifest: step {t} names example {outside[0]}, outside the {len(digests)} given"
            )
    root = hashing.commit_tree((str(i), d) for i, d in enumerate(digests))
    out: dict[str, Any] = {
        "leaves": leaves,
        "examples": [d.hex() for d in digests],
        "order": steps,
        "root": root.hex(),
    }
    if uniform:
        out["layout"] = layout
    return out


def write_manifest(
    path: str | os.PathLike[str],
    examples: Iterable[Sequence[Any]],
    order: Sequence[Sequence[int]],
) -> str:
    """Write :func:`manifest` of ``examples`` and ``order`` to ``path`` (JSON); returns the
    dataset root (hex)."""
    m = manifest(examples, order)
    with open(path, "w", encoding="utf-8") as out:
        json.dump(m, out)
    return str(m["root"])


def write_hyperparameters(
    path: str | os.PathLike[str], schedule: Sequence[Mapping[str, float]]
) -> None:
    """Write the client's hyperparameter schedule for ``zkdv audit --hyperparameters``.

    ``schedule`` holds one mapping per step, from each hyperparameter's committed name
    (``"0/lr"``) to its value, in the order the step's program takes them: what
    ``zkdv.torch.hyperparameters(optimizer)`` returns when the client runs its own schedule
    without training. Every step must name the same hyperparameters in the same order; the
    file holds the names once and a row of values per step.

    Raises:
        ValueError: for steps that name other hyperparameters or another order, or a value
            that is not a finite number.

    Example::

        schedule = []
        for step in range(steps):
            for group in optimizer.param_groups:
                group["lr"] = get_lr(step)
            schedule.append(zkdv.torch.hyperparameters(optimizer))
        zkdv.data.write_hyperparameters("hyper.json", schedule)
    """
    names = list(schedule[0]) if schedule else []
    rows = []
    for step, values in enumerate(schedule):
        if list(values) != names:
            raise ValueError(
                f"step {step} names the hyperparameters {list(values)}, step 0 {names}: every "
                "step names the same ones, in the same order"
            )
        row = [float(values[name]) for name in names]
        if not all(math.isfinite(x) for x in row):
            raise ValueError(f"step {step}'s hyperparameters are not all finite: {row}")
        rows.append(row)
    with open(path, "w", encoding="utf-8") as out:
        json.dump({"names": names, "steps": rows}, out)
