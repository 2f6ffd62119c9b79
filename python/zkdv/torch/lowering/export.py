"""Export a traced step (``torch.export``) and lower it to StableHLO with torch-mlir.

Run in the lowering process (:mod:`zkdv.torch.lowering.child`), not on a thread of the
training process: ``torch.export`` and torch-mlir's importer keep FX tracing metadata in
module globals (``torch.fx.traceback``) that eager calls on the training thread edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import torch

from zkdv.torch.lowering.decompositions import decompositions_of, default_decompositions
from zkdv.torch.lowering.rewrites import float_equalities, normalise_slices

__all__ = ["MODULE_KEY", "Unlowered", "origin", "refusal", "retrace", "to_stablehlo"]

MODULE_KEY = "zkdv_module"
"""Key, in a traced node's ``meta["custom"]``, of the path (in the prepared root) of the module
whose forward pass ran the node's op."""


def retrace(
    graph: torch.fx.GraphModule,
    example: Sequence[torch.Tensor],
    decompositions: dict[Any, Callable[..., Any]],
) -> torch.fx.GraphModule:
    """``graph`` traced again with more ``decompositions`` (its nodes' annotations kept)."""
    from torch.fx import traceback as fx_traceback
    from torch.fx.experimental.proxy_tensor import make_fx

    with fx_traceback.preserve_node_meta():
        graph = make_fx(graph, decompositions, tracing_mode="fake")(*(x.detach() for x in example))
    normalise_slices(graph.graph)
    float_equalities(graph.graph)
    graph.recompile()
    return graph


class Unlowered(Exception):
    """torch-mlir could not lower the exported step; ``ops`` are the ATen ops its diagnostics
    name (``aten.<name>``, without overload)."""

    def __init__(self, detail: str, ops: list[str]) -> None:
        super().__init__(detail)
        self.detail = detail
        self.ops = ops


class _Compiler:
    """torch-mlir's importer in one MLIR context whose diagnostics are collected (torch-mlir
    prints them to the process's stderr otherwise)."""

    def __init__(self) -> None:
        from torch_mlir import ir
        from torch_mlir.dialects import torch as torch_dialect

        self.context = ir.Context()
        torch_dialect.register_dialect(self.context)
        self.diagnostics: list[str] = []

        def collect(diagnostic: Any) -> bool:
            self.diagnostics.append(str(diagnostic))
            self.diagnostics.extend(str(note) for note in diagnostic.notes)
            return True

        self.context.attach_diagnostic_handler(collect)

    def lower(self, program: Any) -> Any:
        """``program`` (an exported program, decomposed as it should be) in StableHLO."""
        from torch_mlir import fx
        from torch_mlir.extras.fx_importer import FxImporter

        self.diagnostics.clear()
        return fx.export_and_import(
            program,
            output_type="stablehlo",
            fx_importer=FxImporter(context=self.context),
            decomposition_table={},
        )


def _import(exported: Any) -> Any:
    """``torch_mlir.fx.export_and_import(exported, output_type="stablehlo")``, with the
    compiler's diagnostics raised as :class:`Unlowered`. Where they name no ATen op (torch-mlir
    may name only a constant an op left behind: "failed to legalize operation
    'torch.constant.int'"), each kind of op of the step is lowered on its own to find the
    ones that fail (:func:`_unlowerable`)."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    compiler = _Compiler()
    program = None
    try:
        # torch-mlir's own decompositions, run here so that the slices they create are
        # normalised too (with an empty table export_and_import runs none of its own).
        table = get_decomposition_table()
        # torch's decompositions of some ops (lerp, index_fill) restride their result with
        # prims.copy_strided where an input is not contiguous (a gradient of a UNet's
        # convolution); StableHLO has values, not strides, and torch-mlir lowers no such prim.
        table[torch.ops.prims.copy_strided.default] = _copy_strided
        program = exported.run_decompositions(table)
        normalise_slices(program.graph_module.graph)
        program.graph_module.recompile()
        return compiler.lower(program)
    except Exception as error:
        detail = "; ".join(compiler.diagnostics) or f"{type(error).__name__}: {error}"
        ops = re.findall(r"torch\.aten\.([A-Za-z0-9_]+)", detail)
        if not ops and compiler.diagnostics and program is not None:
            ops = _unlowerable(program.graph_module, compiler)
        raise Unlowered(detail, list(dict.fromkeys(ops))) from error


def _unlowerable(graph: torch.fx.GraphModule, compiler: _Compiler) -> list[str]:
    """The ATen ops (names without overload) of ``graph`` that torch-mlir fails to lower on
    their own: each kind of op, at its first node, in a program of that one op over zero
    tensors of its inputs' shapes and dtypes. An op whose inputs have symbolic shapes, or that
    does not export alone, is left out (not named rather than named wrongly)."""
    failing = []
    seen: set[Any] = set()
    for node in graph.graph.nodes:
        target = node.target
        if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
            continue
        if target in seen:
            continue
        seen.add(target)
        alone = _alone(node)
        if alone is None:
            continue
        try:
            compiler.lower(alone)
        except Exception:  # noqa: BLE001  (any failure to lower the op alone names it)
            if compiler.diagnostics:
                failing.append(target._schema.name.split("::")[-1])
    return failing


def _alone(node: torch.fx.Node) -> Any:
    """An exported program of ``node``'s op alone, over zero tensors like its tensor inputs;
    ``None`` where an input is not a tensor of static shape or the program does not export."""
    target = node.target
    if not callable(target):
        return None
    graph = torch.fx.Graph()
    inputs: list[torch.Tensor] = []

    def place(arg: torch.fx.Node) -> torch.fx.Node:
        value = arg.meta.get("val")
        if not isinstance(value, torch.Tensor) or not all(isinstance(d, int) for d in value.shape):
            raise LookupError(arg.name)
        inputs.append(torch.zeros(tuple(value.shape), dtype=value.dtype))
        return graph.placeholder(f"input_{len(inputs)}")

    try:
        args = torch.fx.node.map_arg(node.args, place)
        kwargs = torch.fx.node.map_arg(node.kwargs, place)
        graph.output(graph.call_function(target, args, kwargs))
        module = torch.fx.GraphModule(torch.nn.Module(), graph)
        return torch.export.export(module, tuple(inputs))
    except Exception:  # noqa: BLE001  (an op that cannot stand alone is not probed)
        return None


def _copy_strided(x: torch.Tensor, stride: Any) -> torch.Tensor:
    """``prims.copy_strided``: a copy of ``x``, whose values are all a lowering keeps."""
    del stride
    return torch.ops.aten.clone.default(x)


def origin(graph: torch.fx.GraphModule, name: str) -> str:
    """Where the ATen op ``name`` came from in the traced step: the module paths of the nodes
    that run it, or, for a backward kernel (``<op>_backward``), of the forward op's nodes."""

    def modules(op: str) -> list[str]:
        found = []
        for node in graph.graph.nodes:
            target = getattr(node.target, "_schema", None)
            if node.op != "call_function" or target is None:
                continue
            if target.name.split("::")[-1] == op:
                path = (node.meta.get("custom") or {}).get(MODULE_KEY)
                if path is not None:
                    found.append(path)
        return list(dict.fromkeys(found))

    found = modules(name)
    if not found and name.endswith("_backward"):
        forward = name.removesuffix("_backward")
        found = modules(forward) or modules(forward.removesuffix("_with_indices"))
        if found:
            return f"the backward pass of {', '.join(found[:4])}"
    return ", ".join(found[:4]) if found else "the step itself (outside any module)"


def to_stablehlo(graph: torch.fx.GraphModule, example: Sequence[torch.Tensor]) -> tuple[Any, str]:
    """``torch.export`` the traced step and lower it with torch-mlir.

    An op torch-mlir cannot lower that torch can decompose is decomposed (torch's own
    decomposition, the graph traced again) and the export retried; returns the exported
    program that lowered and the StableHLO step in MLIR generic form.

    Raises:
        Unlowered: an op that neither lowers nor decomposes (:func:`refusal` names it and the
            module it came from).
        ValueError: the step cannot be exported.
    """
    decompositions = default_decompositions()
    tried: set[str] = set()
    while True:
        try:
            exported = torch.export.export(graph, tuple(x.detach() for x in example))
        except Exception as error:
            raise ValueError(
                f"zkdv.torch: the attested step cannot be exported: {type(error).__name__}: {error}"
            ) from error
        try:
            module = _import(exported)
        except Unlowered as failure:
            more = {}
            for name in failure.ops:
                if name not in tried:
                    tried.add(name)
                    more.update(decompositions_of(name))
            if not more:
                raise
            decompositions.update(more)
            graph = retrace(graph, example, decompositions)
            continue
        text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)
        return exported, text


def refusal(graph: torch.fx.GraphModule, ops: Sequence[str], detail: str) -> ValueError:
    """The error of a step with ``ops`` torch-mlir could not lower (``detail``, its
    diagnostics), naming where in ``graph`` (the traced step, its nodes annotated with their
    modules) each came from."""
    # An operator torch-mlir imported but has no conversion for, left as torch.operator
    # (a primitive a decomposition emitted), is named by its operator name.
    others = list(dict.fromkeys(re.findall(r'name = "torch\.(\w+\.\w+)"', detail)))
    if ops:
        where = "; ".join(f"aten.{op} (from {origin(graph, op)})" for op in ops[:3])
    elif others:
        where = ", ".join(others[:3]) + " (emitted by torch's decompositions of the step's ops)"
    else:
        where = "one it does not name (its message follows)"
    return ValueError(
        f"zkdv.torch: the attested step uses an operator torch-mlir cannot lower "
        f"to StableHLO and torch cannot decompose: {where}. Replace that layer or "
        f"operation in the model (or compute it outside the attested step and "
        f"pass the result in the batch). torch-mlir said: {detail[:800]}"
    )
