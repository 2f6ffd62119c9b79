"""Time the replay runtime's matrix products against numpy's BLAS in the same process.

The three products of one dense layer in a training step (784 inputs, 1024 outputs, batch 64):
the forward ``x @ W``, the input gradient ``dy @ W.T`` (a right-hand side stored transposed)
and the weight gradient ``x.T @ dy``, each one ``stablehlo.dot_general`` run by
``zkdv.runtime.Program``. numpy's matmul (OpenBLAS: fused multiply-adds, blocked sums) is the
baseline; the runtime keeps one rounding per multiply and per add in a fixed order, so the
ratio shows what determinism costs here. All runtime timings come first, then numpy's: OpenBLAS
threads keep spinning for a while after a call and would slow the runtime's threads otherwise.

Usage: ``scripts/bench matmul [--reps N]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from timing import median_seconds

from zkdv import runtime

M, K, N = 64, 784, 1024


def _program(lhs: str, rhs: str, out: str, lhs_c: int, rhs_c: int) -> runtime.Program:
    dims = f"lhs_contracting_dimensions = [{lhs_c}], rhs_contracting_dimensions = [{rhs_c}]"
    text = f""""builtin.module"() ({{
  "func.func"() <{{function_type = (tensor<{lhs}xf32>, tensor<{rhs}xf32>) -> tensor<{out}xf32>, sym_name = "main"}}> ({{
  ^bb0(%a: tensor<{lhs}xf32>, %b: tensor<{rhs}xf32>):
    %0 = "stablehlo.dot_general"(%a, %b) <{{dot_dimension_numbers = #stablehlo.dot<{dims}>}}> : (tensor<{lhs}xf32>, tensor<{rhs}xf32>) -> tensor<{out}xf32>
    "func.return"(%0) : (tensor<{out}xf32>) -> ()
  }}) : () -> ()
}}) : () -> ()
"""  # noqa: E501
    return runtime.Program(text)


def _median(call: Callable[[], object], reps: int) -> float:
    call()  # warm-up
    return median_seconds(call, reps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((M, K), dtype=np.float32)
    w = rng.standard_normal((K, N), dtype=np.float32)
    dy = rng.standard_normal((M, N), dtype=np.float32)
    cases = [
        ("x @ W", _program(f"{M}x{K}", f"{K}x{N}", f"{M}x{N}", 1, 0), (x, w), lambda: x @ w),
        ("dy @ W.T", _program(f"{M}x{N}", f"{K}x{N}", f"{M}x{K}", 1, 1), (dy, w),
         lambda: dy @ w.T),
        ("x.T @ dy", _program(f"{M}x{K}", f"{M}x{N}", f"{K}x{N}", 0, 0), (x, dy),
         lambda: x.T @ dy),
    ]  # fmt: skip
    flops = 2 * M * K * N
    ours_all = [
        _median(lambda p=program, i=inputs: p(*i), args.reps) for _, program, inputs, _ in cases
    ]
    blas_all = [_median(baseline, args.reps) for *_, baseline in cases]
    for (name, *_), ours, blas in zip(cases, ours_all, blas_all, strict=True):
        print(
            f"{name:9} runtime {ours * 1e3:6.2f} ms ({flops / ours / 1e9:5.1f} GFLOP/s), "
            f"numpy {blas * 1e3:6.2f} ms: {ours / blas:.2f}x"
        )


if __name__ == "__main__":
    main()
