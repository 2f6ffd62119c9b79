"""The deterministic replay runtime: run a generic-form StableHLO program on numpy arrays.

:class:`Program` parses a module once (``zkdv._native.Program``) and runs one of its functions
in the Rust CPU reference interpreter, which gives the same bits on every machine and thread
count. Inputs are read in place (a C-contiguous native-endian array of float32, float64, int32,
int64, uint32, uint64 or bool is converted straight from its buffer; other arrays go through a
little-endian byte view), results come back as numpy arrays that own the interpreter's buffers
(no copy for float32, float64, int64, uint64 and bool), and the GIL is released while the
program runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np

from zkdv import _native
from zkdv.hashing import _native_array

__all__ = ["OpTime", "Program", "RuntimeError", "release_memory", "set_profiling", "take_profile"]

RuntimeError = _native.RuntimeError  # noqa: A001  (the binding's exception type)

_DTYPES: dict[str, str] = {
    "f64": "float64",
    "f32": "float32",
    "f16": "float16",
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
}


def _dtype(tag: str) -> np.dtype:
    if tag == "bf16":
        import ml_dtypes  # bfloat16 arrays need ml_dtypes (installed with jax)

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(_DTYPES[tag])


class Program:
    """A StableHLO module (generic op form) parsed once and run many times.

    Args:
        text: the module text, as ``zkdv-opt`` prints it.
        func: the function to run (default ``main``).
        source_name: the name diagnostics use for the text.
        matmul: the precision the production backend gives an ``f32`` product whose
            ``precision_config`` is not ``HIGHEST``: ``"f32"`` (exact, as on a CPU) or
            ``"tf32"`` (TensorFloat-32, as XLA on an NVIDIA GPU since Ampere). The members of
            the perturbation ensemble (``run(..., ensemble=m)``) round such a product's operands
            to it; the program as written is unaffected.

    Raises:
        zkdv.runtime.RuntimeError: the text does not parse or has no such function.
        ValueError: ``matmul`` is neither.
    """

    def __init__(
        self,
        text: str,
        func: str = "main",
        source_name: str = "<program>",
        matmul: Literal["f32", "tf32"] = "f32",
    ) -> None:
        if matmul not in ("f32", "tf32"):
            raise ValueError(f'matmul must be "f32" or "tf32", got {matmul!r}')
        self._native = _native.Program(text, func, source_name)
        self.matmul = matmul

    @property
    def arguments(self) -> list[tuple[np.dtype, tuple[int, ...]]]:
        """The ``(dtype, shape)`` of each argument."""
        return [(_dtype(tag), tuple(shape)) for tag, shape in self._native.arguments]

    def __call__(self, *inputs: np.ndarray | np.generic) -> list[np.ndarray]:
        """Run the function on ``inputs`` (one array per argument; numpy scalars are fine).

        Returns one array per result. Raises :class:`zkdv.runtime.RuntimeError` for an
        unsupported op, a malformed program, or inputs of the wrong count, dtype or shape.
        """
        return self.run(inputs)

    def run(
        self,
        inputs: Sequence[np.ndarray | np.generic],
        *,
        max_ops: int | None = None,
        max_elements: int | None = None,
        ensemble: int | None = None,
    ) -> list[np.ndarray]:
        """Like calling the program, with the inputs as one sequence.

        ``max_ops`` (ops evaluated, loop bodies counted every time) and ``max_elements``
        (elements of any one result) bound the run: a program from an untrusted transcript
        then cannot hang or exhaust the verifier. Going past one raises
        :class:`zkdv.runtime.RuntimeError`.

        ``ensemble=m`` runs member ``m`` of the perturbation ensemble of checks
        (``docs/protocol.md``, the tolerance policy): every float input moved by one ulp (up
        or down, by a hash of ``m`` and the position), and every ``f16``/``bf16`` op result
        rounded in the member's mode (``0``: kept in f32, ``1``: up, ``2``: down, ``m >= 3``:
        stochastically), and under ``matmul="tf32"`` the operands of every ``f32`` product that
        is not ``HIGHEST`` rounded to TensorFloat-32 in the same mode (``0``: to nearest).
        Deterministic on every machine. ``None`` (default) runs the program as written,
        rounding to nearest as StableHLO specifies.
        """
        if ensemble is not None and (
            isinstance(ensemble, bool) or not isinstance(ensemble, int) or ensemble < 0
        ):
            raise TypeError(f"ensemble must be None or a non-negative int, got {ensemble!r}")
        parts = [_native_array(x) for x in inputs]
        return [
            r
            if isinstance(r, np.ndarray)
            else np.frombuffer(r[2], dtype=_dtype(r[0])).reshape(r[1])
            for r in self._native.run(parts, max_ops, max_elements, ensemble, self.matmul)
        ]


def release_memory() -> None:
    """Give the memory the extension has freed back to the system now.

    The runtime's buffers come from mimalloc, which the extension sets to keep freed memory
    for a minute (``MIMALLOC_PURGE_DELAY``, in milliseconds, overrides it), so that the ops of
    a run reuse what earlier ops freed instead of taking fresh pages that the kernel must
    zero. Each run gives back what it freed when it ends; this gives back what was freed
    since (results Python dropped, a check's comparisons), and the session's checker calls
    it once no check is waiting.
    """
    _native.release_memory()


class OpTime(NamedTuple):
    """What one kind of op cost the runs that were profiled (:func:`take_profile`)."""

    op: str
    """The op's name (``stablehlo.dot_general``)."""
    evaluated: int
    """How many ops of this kind ran."""
    seconds: float
    """Their own time: without the ops that their regions ran."""
    elements: int
    """The elements of their results."""


def set_profiling(enabled: bool) -> None:
    """Time every op of the runs that start from now on (``False``: stop). The results are
    the same bits either way; a run pays about two clock reads an op."""
    _native.set_runtime_profiling(enabled)


def take_profile() -> list[OpTime]:
    """The op times of every profiled run that ended since the last call, in any thread,
    slowest kind first; the totals then start again."""
    return [OpTime(*entry) for entry in _native.take_runtime_profile()]
