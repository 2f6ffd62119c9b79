"""What the AOT Inductor seal compiles: the exported step with its views written as reshapes."""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["OPTIONS", "reshaping_views"]

OPTIONS: dict[str, object] = {"aot_inductor.compile_wrapper_opt_level": "O0"}
"""Inductor's options for the seal. The wrapper (the C++ that allocates the buffers and calls
the kernels in order) is compiled without optimization: at 124M parameters its ``-O1``
compile took 13.5 s of a 97 s compile (83.4 s with ``O0``, one run each on this 2-core
machine), and the time it spends per call is nothing beside the kernels'. The kernels are
compiled as Inductor compiles them. The package is committed whatever its bytes (they differ
on every compile), so the option changes nothing a check or an audit relies on."""


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
