"""Run StableHLO module text (MLIR generic or pretty form) on CPU through JAX, for tests.

``run_module(text, inputs)`` compiles the module's public ``main`` with XLA on the CPU and calls
it on numpy arrays, returning numpy arrays. ``signature(text)`` (from ``zkdv.jax._exported``)
reads ``main``'s argument and result types. The recipe (DESIGN.md §7), all public API:

1. ``jax.extend.mlir.serialize_portable_artifact(text, version)`` turns the text into a
   StableHLO portable artifact (what ``jax.export`` stores). It legalizes CHLO ops first;
   ``jaxlib.mlir.dialects.stablehlo.serialize_portable_artifact_str`` does not, and fails on
   modules with ``chlo.square`` (transformer_adamw has some);
2. ``jax.export.export`` of a placeholder function with ``main``'s signature gives an
   ``Exported`` with the right avals, trees and single-device CPU shardings;
3. ``dataclasses.replace(exported, mlir_module_serialized=artifact)`` swaps in the module, and
   ``jax.jit(exported.call)`` compiles and runs it.

On the fixtures of test-mlir/inputs/ this reproduces ``jax.jit`` of the original step bitwise.
Donation attributes (``tf.aliasing_output``) in the text are accepted and have no effect: the
module is called from a wrapper that does not donate.

This module needs jax; test modules that use it call ``pytest.importorskip("jax")`` first.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend import mlir as jax_mlir
from jax.extend.mlir.dialects import stablehlo

from zkdv.jax._exported import Signature, signature


@functools.cache
def _compiled(text: str) -> tuple[Signature, jax.stages.Wrapped]:
    sig = signature(text)
    structs = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in sig.arguments]

    def placeholder(*args: jax.Array) -> tuple[jax.Array, ...]:
        return tuple(jnp.zeros(shape, dtype) for shape, dtype in sig.results)

    # keep_unused: the placeholder reads no argument, the real module may read all of them.
    exported = jax.export.export(jax.jit(placeholder, keep_unused=True), platforms=["cpu"])(
        *structs
    )
    # jax.extend.mlir's serializer, unlike stablehlo.serialize_portable_artifact_str, legalizes
    # CHLO ops (JAX emits chlo.square, for example) to StableHLO first, as jax.export does.
    artifact = jax_mlir.serialize_portable_artifact(text, stablehlo.get_current_version())
    exported = dataclasses.replace(exported, mlir_module_serialized=artifact)
    return sig, jax.jit(exported.call)


def run_module(text: str, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run ``main`` of the StableHLO module ``text`` on CPU with ``inputs``; numpy results.

    The inputs must match ``main``'s argument types exactly (shapes and dtypes are checked).
    Compilations are cached by text.
    """
    sig, call = _compiled(text)
    if len(inputs) != len(sig.arguments):
        raise ValueError(f"main takes {len(sig.arguments)} arguments, got {len(inputs)}")
    for i, (array, (shape, dtype)) in enumerate(zip(inputs, sig.arguments, strict=True)):
        array = np.asarray(array)
        if array.shape != shape or array.dtype != dtype:
            want, got = f"{dtype}{list(shape)}", f"{array.dtype}{list(array.shape)}"
            raise ValueError(f"argument {i}: main wants {want}, got {got}")
    cpu = jax.devices("cpu")[0]
    outputs = call(*(jax.device_put(np.asarray(a), cpu) for a in inputs))
    return [np.asarray(out) for out in outputs]
