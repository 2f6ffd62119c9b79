"""The one place where ``zkdv.jax`` relies on JAX internals: compiling rewritten modules.

``proof.jit`` compiles a StableHLO module that the Rust passes rewrote (the recipe below was
verified on jax 0.12): the step is exported with the public ``jax.export.export``, its
module text goes through the passes, and the rewritten text replaces
``Exported.mlir_module_serialized``. When the passes add arguments (probe weights) or results
(sketches), the fields that describe them change too, and some of those are private
(``_in_named_shardings``, ``_out_named_shardings``, ``_get_vjp``), and so is JAX's helper
that makes an MLIR context with its dialects registered.

A step that ``jax.export`` refuses (a host callback such as ``jax.debug.print`` or
``jax.pure_callback``, a custom call without compatibility guarantees) is lowered with
``jax.jit(...).trace(...).lower()`` instead, and :func:`compile_lowered` compiles the rewritten
text through a copy of that lowering: its compile arguments carry the host callbacks (each
callback op names its index in that list), effects and donation. That route reads and replaces
private fields of the lowering (``_lowering``, ``_hlo``, ``_executable``, ``compile_args``,
``_donated_invars``) and uses JAX's private ``ArgInfo``, ``AllArgsInfo`` and ``UNSPECIFIED``.

Nothing else in the frontend touches a private name; ``python/tests/test_jax_exported.py`` pins
this module's behaviour so a JAX upgrade that breaks it fails there first.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax
import ml_dtypes
import numpy as np
from jax import export as jax_export
from jax.extend import mlir as jax_mlir
from jax.extend.mlir import ir
from jax.extend.mlir.dialects import stablehlo

__all__ = [
    "Signature",
    "compile_lowered",
    "generic_text",
    "has_ordered_effects",
    "inline_manual_computation_calls",
    "lowered_text",
    "replace_module",
    "signature",
]

# MLIR element types of tensors, as numpy dtypes (bf16 through ml_dtypes, which jax installs).
_ELEMENT_TYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "ui64": np.uint64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "bf16": ml_dtypes.bfloat16,
}


@dataclass(frozen=True)
class Signature:
    """The ``(shape, dtype)`` of each argument and result of a module's ``main``."""

    arguments: tuple[tuple[tuple[int, ...], np.dtype], ...]
    results: tuple[tuple[tuple[int, ...], np.dtype], ...]


def _tensor(type_: ir.Type) -> tuple[tuple[int, ...], np.dtype]:
    tensor = ir.RankedTensorType(type_)
    element = str(tensor.element_type)
    if not tensor.has_static_shape or element not in _ELEMENT_TYPES:
        raise ValueError(f"main has an argument or result of unsupported type {type_}")
    return tuple(tensor.shape), np.dtype(_ELEMENT_TYPES[element])


def signature(text: str) -> Signature:
    """The argument and result types of the public ``main`` of a module (any op form)."""
    with _context():
        module = ir.Module.parse(text)
        for view in module.body.operations:
            op = view.operation
            if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
                function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                return Signature(
                    tuple(_tensor(t) for t in function_type.inputs),
                    tuple(_tensor(t) for t in function_type.results),
                )
    raise ValueError("the module has no func.func @main")


def _context() -> ir.Context:
    """An MLIR context with every dialect JAX emits registered (func, stablehlo, chlo, sdy).

    JAX's own helper is private; a bare ``ir.Context`` lacks ``func``.
    """
    from jax._src.interpreters import mlir as jax_internal_mlir

    context = jax_internal_mlir.make_ir_context()
    context.allow_unregistered_dialects = True
    return context


def _generic_asm(module: ir.Module) -> str:
    """``module`` printed in MLIR's generic op form without locations."""
    text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)
    assert isinstance(text, str)  # not binary
    return text


def _symbol(op: ir.Operation, name: str) -> str:
    return str(ir.StringAttr(op.attributes[name]).value)


def _calls_in_manual_computations(op: ir.Operation, inside: bool, out: list[ir.Operation]) -> None:
    for region in op.regions:
        for block in region.blocks:
            for view in block.operations:
                child = view.operation
                if inside and child.name == "func.call":
                    out.append(child)
                _calls_in_manual_computations(
                    child, inside or child.name == "sdy.manual_computation", out
                )


def inline_manual_computation_calls(module: ir.Module) -> None:
    """Inline every ``func.call`` inside an ``sdy.manual_computation`` (``jax.shard_map``).

    The Rust passes parse StableHLO and Shardy as unregistered ops, and MLIR
    takes an unregistered op with one region for a possible symbol table, so a ``func.call``
    inside the manual computation's body would name a symbol MLIR cannot find there and the
    module would fail verification. Here, where JAX's context knows the Shardy dialect, the
    callees' bodies replace those calls (callees calling others are inlined in turn); calls
    outside manual computations are left to ``--zkdv-inline``. The result computes the same.
    """
    functions = {
        _symbol(view.operation, "sym_name"): view.operation
        for view in module.body.operations
        if view.operation.name == "func.func"
    }
    for _ in range(1000):  # each round inlines one level of calls; recursion is refused
        calls: list[ir.Operation] = []
        _calls_in_manual_computations(module.operation, False, calls)
        if not calls:
            return
        for call in calls:
            name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
            copy = functions[name].clone(ip=ir.InsertionPoint(call))
            block = copy.regions[0].blocks[0]
            for argument, value in zip(block.arguments, call.operands, strict=True):
                argument.replace_all_uses_with(value)
            body = [view.operation for view in block.operations]
            for op in body[:-1]:
                op.move_before(call)
            for result, value in zip(call.results, body[-1].operands, strict=True):
                result.replace_all_uses_with(value)
            call.erase()
            copy.erase()
    raise ValueError("zkdv.jax: calls inside a shard_map body nest too deep (recursion?)")


def _module_for_passes(text: str) -> str:
    """``text`` (any op form) parsed, its manual computations' calls inlined, printed in
    generic form without locations."""
    with _context():
        module = ir.Module.parse(text)
        inline_manual_computation_calls(module)
        return _generic_asm(module)


def generic_text(exported: jax_export.Exported) -> str:
    """The module of ``exported`` printed in MLIR's generic op form without locations.

    That is the form the Rust passes and runtime read. Calls inside
    ``jax.shard_map`` bodies are inlined (:func:`inline_manual_computation_calls`).
    """
    return _module_for_passes(exported.mlir_module())


def replace_module(
    exported: jax_export.Exported,
    text: str,
    in_avals: Sequence[jax.core.ShapedArray],
    out_avals: Sequence[jax.core.ShapedArray],
    kept_results: Sequence[int] | None = None,
) -> jax_export.Exported:
    """``exported`` with its module replaced by ``text`` and flat argument and result lists.

    The new ``Exported`` takes ``len(in_avals)`` positional arrays and returns a tuple of
    ``len(out_avals)`` arrays. Every argument is kept (``module_kept_var_idx``), shardings are
    unspecified (single device), and the VJP is dropped (a rewritten step is never
    differentiated). ``text`` is serialized with JAX's own portable-artifact writer, which also
    legalizes CHLO ops as ``jax.export`` does.

    Raises:
    ``kept_results`` lists which of ``exported``'s results the text still returns, in order
    (default: all of them); the remaining results of ``text`` are the added ones.

    Raises:
        ValueError: when ``exported`` was exported for several platforms, or arguments were
            removed.
    """
    if len(exported.platforms) != 1:
        raise ValueError(
            "zkdv.jax compiles single-platform steps; this step was exported for platforms "
            f"{exported.platforms}"
        )
    n_in, n_out = len(in_avals), len(out_avals)
    old_in = len(exported.in_avals)
    kept = list(range(len(exported.out_avals))) if kept_results is None else list(kept_results)
    if n_in < old_in or n_out < len(kept):
        raise ValueError("replace_module: the text has fewer arguments or results than kept")
    mesh = next(
        (s.mesh for s in exported._in_named_shardings + exported._out_named_shardings if s),
        None,
    )
    added = None if mesh is None else jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    artifact = jax_mlir.serialize_portable_artifact(text, stablehlo.get_current_version())
    return dataclasses.replace(
        exported,
        mlir_module_serialized=artifact,
        in_avals=tuple(in_avals),
        out_avals=tuple(out_avals),
        in_tree=jax.tree.structure((tuple(range(n_in)), {})),
        out_tree=jax.tree.structure(tuple(range(n_out))),
        _in_named_shardings=tuple(exported._in_named_shardings) + (added,) * (n_in - old_in),
        _out_named_shardings=tuple(exported._out_named_shardings[i] for i in kept)
        + (added,) * (n_out - len(kept)),
        in_shardings_hlo=tuple(exported.in_shardings_hlo) + (None,) * (n_in - old_in),
        out_shardings_hlo=tuple(exported.out_shardings_hlo[i] for i in kept)
        + (None,) * (n_out - len(kept)),
        module_kept_var_idx=tuple(range(n_in)),
        _get_vjp=None,
    )


def lowered_text(lowered: jax.stages.Lowered) -> str:
    """The StableHLO module of ``lowered`` in generic op form without locations."""
    return _module_for_passes(str(lowered.compiler_ir("stablehlo")))


def has_ordered_effects(lowered: jax.stages.Lowered) -> bool:
    """Whether ``lowered`` threads ordered effects (``io_callback(..., ordered=True)``) through
    token arguments and results of ``main``, which the passes' step ABI has no place for."""
    return bool(lowered._lowering.compile_args["ordered_effects"])


def compile_lowered(
    lowered: jax.stages.Lowered,
    text: str,
    in_avals: Sequence[jax.core.ShapedArray],
    out_avals: Sequence[jax.core.ShapedArray],
    kept_results: Sequence[int],
    compiler_options: dict[str, Any] | None = None,
) -> jax.stages.Compiled:
    """Compile ``text``, a rewrite of ``lowered``'s module, keeping its callbacks and donation
    (with XLA's ``compiler_options``, when given).

    ``lowered`` must have been lowered from a function of flat positional arrays with every
    argument kept (``keep_unused=True``). ``text`` may append arguments (never donated) and
    results, and drop results: ``kept_results`` lists which of ``lowered``'s results it still
    returns, in order; the rest of its results are new. The compiled function takes
    ``len(in_avals)`` positional arrays and returns a tuple of ``len(out_avals)`` arrays.

    Raises:
        ValueError: when ``lowered`` dropped arguments or ``text`` removed some.
    """
    from jax._src.interpreters.pxla import AllArgsInfo
    from jax._src.sharding_impls import UNSPECIFIED
    from jax._src.stages import ArgInfo

    old: Any = lowered._lowering  # JAX's private lowering: its private fields are copied
    args = old.compile_args
    n_old = len(args["global_in_avals"])
    if sorted(args["kept_var_idx"]) != list(range(n_old)) or len(in_avals) < n_old:
        raise ValueError("compile_lowered: arguments were dropped (lower with keep_unused=True)")
    n_new = len(in_avals) - n_old
    kept = list(kept_results)
    n_added = len(out_avals) - len(kept)
    with _context():
        module = ir.Module.parse(text)
    new = copy.copy(old)
    new._hlo = module
    new._executable = None
    new._donated_invars = tuple(old._donated_invars) + (False,) * n_new
    compile_args = dict(args)
    compile_args.update(
        global_in_avals=list(in_avals),
        in_shardings=tuple(args["in_shardings"]) + (UNSPECIFIED,) * n_new,
        in_layouts=tuple(args["in_layouts"]) + (None,) * n_new,
        kept_var_idx=set(range(len(in_avals))),
        all_args_info=AllArgsInfo(
            list(in_avals),
            args["all_args_info"].debug_info._replace(arg_names=None, result_paths=None),
        ),
        global_out_avals=list(out_avals),
        out_shardings=tuple(args["out_shardings"][i] for i in kept) + (UNSPECIFIED,) * n_added,
        out_layouts=tuple(args["out_layouts"][i] for i in kept) + (None,) * n_added,
    )
    new.compile_args = compile_args
    donated = [info.donated for info in jax.tree.leaves(lowered.args_info)]
    args_info: tuple[tuple[ArgInfo, ...], dict[str, Any]] = (
        tuple(ArgInfo(aval, i < n_old and donated[i]) for i, aval in enumerate(in_avals)),
        {},
    )
    out_tree = jax.tree.structure(tuple(range(len(out_avals))))
    return jax.stages.Lowered(new, args_info, out_tree).compile(compiler_options)
