"""Time an MLP training step with and without the commitment hooks (--zkdv-insert-commitments).

The design budgets the per-step device work of the commitments at 1% of a training step on CPU
at probe ratio 0.01. This script lowers a Flax MLP + optax.adam step of the fixtures' ABI (see
scripts/fixtures/export_fixtures.py) at a realistic size, runs ``zkdv-opt --zkdv-inline
--zkdv-annotate-roles`` (the baseline; it only adds attributes) and the same plus
``--zkdv-insert-commitments`` (instrumented), compiles both the same way
(python/tests/stablehlo.py) and times them interleaved in one process, reporting the median step
times and their ratio.

Measured on the 2-core dev machine (jax 0.12, XLA CPU, probe maps v2 applied as multiply, reshape
and block sums), ratio 0.01: about 1.09 at batch 128 (1.73 ms -> 1.90 ms) and 1.02 at batch 1024.
The earlier gather formulation measured 1.41 at batch 128. See docs/departures.md for why the
remaining cost is a floor of XLA's CPU fusion (any second reader of the update materializes it).

Usage: ``scripts/bench commitments [--ratio R] [--hidden H] [--batch B] [--reps N]``
(needs the jax extra and a built ``target/debug/zkdv-opt``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts" / "fixtures"), str(ROOT / "python" / "tests")]

import jax  # noqa: E402

jax.config.update("jax_platforms", "cpu")  # as the fixtures: CPU programs

import export_fixtures as fx  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
import stablehlo  # noqa: E402
from flax.training import train_state  # noqa: E402

from zkdv import hashing  # noqa: E402

ZKDV_OPT = ROOT / "target" / "debug" / "zkdv-opt"


def step_text(hidden: int, batch: int) -> tuple[str, list[np.ndarray]]:
    """Generic-form text of the MLP step and its flat inputs."""
    rng = np.random.default_rng(0)
    data = {
        "x": fx.normal(rng, (batch, 784)),
        "y": rng.integers(0, 10, (batch,)).astype(np.int32),
    }
    model = fx.Mlp(hidden=hidden, classes=10)
    params = model.init(jax.random.key(0), data["x"])["params"]
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
    fixture = fx.Fixture(
        "bench",
        "",
        fx.make_train_state_step(state, fx.cross_entropy),
        params,
        state.opt_state,
        data,
    )
    _, lowered = fx.lower(fixture)
    leaves = jax.tree.leaves((fixture.params, fixture.opt_state, fixture.batch))
    return fx.generic_text(lowered), [np.asarray(leaf) for leaf in leaves]


def zkdv_opt(text: str, *passes: str) -> str:
    result = subprocess.run(
        [ZKDV_OPT, *passes], input=text, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    return result.stdout


def ports(text: str, side: str) -> list[tuple[str, str]]:
    """(path, role) of each argument (``arg_attrs``) or result (``res_attrs``) of main."""
    header = next(line for line in text.splitlines() if 'sym_name = "main"' in line)
    attrs = re.search(side + r" = \[(.*?)\](?:, \w+ = |\}>)", header).group(1)
    return re.findall(r'zkdv\.path = "([^"]*)", zkdv\.role = "([^"]*)"', attrs)


def timed(call: object, inputs: list[jax.Array]) -> float:
    start = time.perf_counter()
    jax.block_until_ready(call(*inputs))  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratio", type=float, default=0.01)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()

    text, inputs = step_text(args.hidden, args.batch)
    base = zkdv_opt(text, "--zkdv-inline", "--zkdv-annotate-roles")
    inst = zkdv_opt(base, f"--zkdv-insert-commitments=ratio={args.ratio}")

    # probe arguments from the Rust maps, in the order the pass appended them
    base_sig = stablehlo.signature(base)
    delta_shapes = {
        path: shape
        for (path, role), (shape, _) in zip(ports(base, "res_attrs"), base_sig.results, strict=True)
        if role == "delta"
    }
    paths = [path for path, role in ports(inst, "arg_attrs") if role == "probe_weight"]
    extra = [
        hashing.probe_map(bytes(32), path, delta_shapes[path], args.ratio).weights()
        for path in paths
    ]

    cpu = jax.devices("cpu")[0]
    _, base_call = stablehlo._compiled(base)
    _, inst_call = stablehlo._compiled(inst)
    base_in = [jax.device_put(a, cpu) for a in inputs]
    inst_in = [*base_in, *(jax.device_put(a, cpu) for a in extra)]
    for _ in range(10):
        timed(base_call, base_in)
        timed(inst_call, inst_in)
    base_t, inst_t = [], []
    for _ in range(args.reps):
        base_t.append(timed(base_call, base_in))
        inst_t.append(timed(inst_call, inst_in))
    b, i = statistics.median(base_t), statistics.median(inst_t)
    n_params = sum(int(np.prod(s)) for s in delta_shapes.values())
    print(
        f"MLP 784-{args.hidden}-10, batch {args.batch}, {n_params} parameters, "
        f"{len(paths)} sketches, ratio {args.ratio}: baseline {b * 1e3:.3f} ms, "
        f"instrumented {i * 1e3:.3f} ms, ratio {i / b:.4f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
