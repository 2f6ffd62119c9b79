"""Time the replay runtime's transcendental ops against XLA's on the same values.

Each op (GELU's ``erf``, ``tanh``, ``exponential``, ``log``, ``power``) is one StableHLO
program over ``--size`` ``f32`` values drawn uniformly from ``[0.1, 3)`` (where GELU's ``erf``
is evaluated for most activations), run by the Rust interpreter (``zkdv.runtime.Program``)
and, as the baseline in the same process, by ``jax.jit`` on the CPU; interleaved, ``--reps``
medians each. The runtime computes each value in ``f64`` with its math library
(``runtime/src/libm.rs``) and rounds once to ``f32``; XLA uses its own ``f32`` approximations,
so the ratio says what the runtime's exactness costs.

Usage: ``scripts/bench math [--reps N] [--size N]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from timing import interleaved

from zkdv import runtime

OPS = {
    "erf": ('"chlo.erf"(%x) : (T) -> T', jax.scipy.special.erf),
    "tanh": ('"stablehlo.tanh"(%x) : (T) -> T', jnp.tanh),
    "exp": ('"stablehlo.exponential"(%x) : (T) -> T', jnp.exp),
    "log": ('"stablehlo.log"(%x) : (T) -> T', jnp.log),
    "pow": ('"stablehlo.power"(%x, %x) : (T, T) -> T', lambda x: jnp.power(x, x)),
}


def program(op: str, n: int) -> str:
    """One op over a ``tensor<n x f32>`` argument, in MLIR's generic form."""
    t = f"tensor<{n}xf32>"
    return (
        f'"builtin.module"() ({{ "func.func"() <{{function_type = ({t}) -> {t}, '
        f'sym_name = "main"}}> ({{\n^bb0(%x: {t}):\n %0 = {op.replace("T", t)}\n'
        f' "func.return"(%0) : ({t}) -> ()\n }}) : () -> () }}) : () -> ()'
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--size", type=int, default=1 << 20)
    args = parser.parse_args()
    x = np.random.default_rng(0).uniform(0.1, 3.0, args.size).astype(np.float32)
    device_x = jax.device_put(x, jax.devices("cpu")[0])
    for name, (op, reference) in OPS.items():
        replay = runtime.Program(program(op, args.size))
        xla = jax.jit(reference)
        calls: dict[str, Callable[[], Any]] = {
            "runtime": lambda replay=replay: replay(x),
            "xla": lambda xla=xla: jax.block_until_ready(xla(device_x)),
        }
        med = interleaved(calls, args.reps)
        print(
            f"{name}: runtime {med['runtime'] * 1e3:.1f} ms, xla {med['xla'] * 1e3:.1f} ms "
            f"({args.size} values); runtime/xla {med['runtime'] / med['xla']:.2f}"
        )


if __name__ == "__main__":
    main()
