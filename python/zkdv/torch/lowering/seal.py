"""What the AOT Inductor seal compiles: the exported step with its views written as reshapes."""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["reshaping_views"]


def reshaping_views(exported: Any) -> Any:
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
