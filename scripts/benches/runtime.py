"""Time the replay runtime against XLA, and the attested function against the full step.

For each fixture named on the command line (default: mlp_adam and transformer_adamw), in one
process and interleaved:

- ``xla``: the exported step compiled by XLA on CPU (``python/tests/stablehlo.py``, the same
  compilation the tests use), called on the recorded inputs;
- ``runtime``: the same module run by the Rust interpreter (``zkdv.runtime.Program``);
- ``attested``: the attested function (``--zkdv-attested-pipeline``) run by
  the interpreter for a fixed index pair;
- ``member``: the module run as member 0 of the perturbation ensemble (every float result
  moved by an ulp), what a check that measures its spread pays per member.

Prints median times, the two ratios the runtime issue sets goals for, runtime / xla
(goal <= 3) and attested / runtime (goal <= 0.5), member / runtime, and how many ops one run
of each executes (the smallest ``max_ops`` it runs under).

Usage: ``scripts/bench runtime [--reps N] [fixture ...]``, where a fixture is a name from
``test-mlir/inputs/`` or ``mlp:H:B`` for a larger Flax MLP step (784-H-10, Adam, batch B).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python" / "tests")]

import jax  # noqa: E402
import numpy as np  # noqa: E402
import stablehlo  # noqa: E402
from timing import interleaved  # noqa: E402

from zkdv import passes, runtime  # noqa: E402

INPUTS = ROOT / "test-mlir" / "inputs"


def inputs_of(name: str) -> list[np.ndarray]:
    sidecar = json.loads((INPUTS / f"{name}.json").read_text())
    with np.load(INPUTS / f"{name}.npz", allow_pickle=False) as npz:
        return [np.asarray(npz[f"arg_{a['index']}"]) for a in sidecar["arguments"]]


# What proof.jit runs to make a check's attested program (passes/src/pipelines.rs).
ATTESTED_PASSES = ["zkdv-attested-pipeline"]


def program_of(name: str) -> tuple[str, list[np.ndarray]]:
    """A fixture's text and inputs, or for ``mlp:H:B`` a Flax MLP step (784-H-10, Adam,
    batch B) exported like the fixtures (the step of ``scripts/bench commitments``)."""
    if name.startswith("mlp:"):
        sys.path.insert(0, str(ROOT / "scripts" / "benches"))
        import commitments  # noqa: PLC0415  (needs flax and optax)

        hidden, batch = (int(v) for v in name.split(":")[1:])
        text, inputs = commitments.step_text(hidden, batch)
        return text, inputs
    return (INPUTS / f"{name}.mlir").read_text(), inputs_of(name)


def ops(program: runtime.Program, arguments: list) -> int:
    """How many ops one run of ``program`` executes: the smallest ``max_ops`` it runs under
    (a run past the limit raises, naming it)."""
    low, high = 1, 1 << 24
    while low < high:
        middle = (low + high) // 2
        try:
            program.run(list(arguments), max_ops=middle)
            high = middle
        except Exception as error:  # noqa: BLE001  (only the op limit is expected)
            if "limit" not in str(error):
                raise
            low = middle + 1
    return low


def bench_one(name: str, reps: int) -> None:
    text, inputs = program_of(name)
    attested_text, _ = passes.run_passes(text, ATTESTED_PASSES)
    full = runtime.Program(text)
    attested = runtime.Program(attested_text)
    _, xla_call = stablehlo._compiled(text)
    cpu = jax.devices("cpu")[0]
    device_inputs = [jax.device_put(x, cpu) for x in inputs]
    pair = [np.uint64(0), np.uint64(0)]
    calls = {
        "xla": lambda: jax.block_until_ready(xla_call(*device_inputs)),
        "runtime": lambda: full(*inputs),
        "attested": lambda: attested(*inputs, *pair),
        "member": lambda: full.run(list(inputs), ensemble=0),
    }
    med = interleaved(calls, reps)
    print(
        f"{name}: xla {med['xla'] * 1e3:.3f} ms, runtime {med['runtime'] * 1e3:.3f} ms, "
        f"attested {med['attested'] * 1e3:.3f} ms; runtime/xla "
        f"{med['runtime'] / med['xla']:.2f} (goal <= 3), attested/runtime "
        f"{med['attested'] / med['runtime']:.2f} (goal <= 0.5), ensemble member "
        f"{med['member'] * 1e3:.3f} ms, member/runtime {med['member'] / med['runtime']:.2f}; "
        "ops run: runtime "
        f"{ops(full, inputs)}, attested {ops(attested, [*inputs, *pair])}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("fixtures", nargs="*", default=["mlp_adam", "transformer_adamw"])
    args = parser.parse_args()
    for name in args.fixtures:
        bench_one(name, args.reps)


if __name__ == "__main__":
    main()
