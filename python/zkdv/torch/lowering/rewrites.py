"""In-place rewrites of a traced graph that keep its values and let torch-mlir lower it
faithfully: slice bounds clamped to their dimension, float equalities written as negated
inequalities."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["float_equalities", "normalise_slices", "shape_of"]


def normalise_slices(graph: torch.fx.Graph) -> None:
    """Clamp every slice's bounds to its dimension (in place).

    An open-ended slice (``x[..., d:]``, as Hugging Face's ``rotate_half`` writes it) traces
    with the end ``2**63 - 1``; the backward pass turns it into a ``slice_scatter`` with that
    end, which torch-mlir's StableHLO lowering tries to materialise (``std::bad_alloc``). The
    clamped bounds select the same elements."""
    aten = torch.ops.aten
    # target: (position of the dimension argument, the sliced tensor's shape)
    slicing: dict[Any, tuple[int, Callable[[torch.fx.Node], Any]]] = {
        aten.slice.Tensor: (1, lambda n: shape_of(n.args[0])),
        aten.slice_scatter.default: (2, lambda n: shape_of(n.args[0])),
        aten.slice_backward.default: (2, lambda n: n.args[1]),
    }
    for node in graph.nodes:
        found = slicing.get(node.target) if node.op == "call_function" else None
        if found is None:
            continue
        at, shape_in = found
        shape = shape_in(node)
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


def float_equalities(graph: torch.fx.Graph) -> None:
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


def shape_of(value: Any) -> tuple[int, ...] | None:
    meta = value.meta.get("val") if isinstance(value, torch.fx.Node) else None
    return tuple(meta.shape) if isinstance(meta, torch.Tensor) else None
