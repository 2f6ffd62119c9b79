"""--zkdv-insert-commitments on the fixtures, executed by JAX.

Each fixture is instrumented with ratio 0.25 (so most leaves get k > 1 columns) and run with its
recorded inputs plus the probe weights of a session seed, laid out by the Rust probe map
(``ProbeMap.weights()``). The original results must equal the recorded outputs bitwise,
and each appended sketch must equal the Rust reference ``zkdv.hashing.sketch`` of the recorded
delta (accumulated in float64) within 1e-6 relative (absolute floor 1e-7). Uses the zkdv-opt that
cargo built (target/debug).
"""

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

from stablehlo import run_module, signature  # noqa: E402

from zkdv import hashing  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test-mlir" / "inputs"
ZKDV_OPT = ROOT / "target" / "debug" / "zkdv-opt"
NAMES = sorted(p.stem for p in INPUTS.glob("*.mlir"))
RATIO = 0.25
SEED = bytes(range(32))
REL, ABS_FLOOR = 1e-6, 1e-7

pytestmark = pytest.mark.skipif(not ZKDV_OPT.exists(), reason="zkdv-opt is not built")


def instrumented(name, join=False):
    options = f"ratio={RATIO} join" if join else f"ratio={RATIO}"
    result = subprocess.run(
        [
            ZKDV_OPT,
            "--zkdv-inline",
            "--zkdv-annotate-roles",
            f"--zkdv-insert-commitments={options}",
            INPUTS / f"{name}.mlir",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def main_attrs(text, side):
    """The (path, role) of each argument (``arg_attrs``) or result (``res_attrs``) of main."""
    header = next(line for line in text.splitlines() if 'sym_name = "main"' in line)
    attrs = re.search(side + r" = \[(.*?)\](?:, \w+ = |\}>)", header).group(1)
    return re.findall(r'zkdv\.path = "([^"]*)", zkdv\.role = "([^"]*)"', attrs)


def fixture(name):
    sidecar = json.loads((INPUTS / f"{name}.json").read_text())
    with np.load(INPUTS / f"{name}.npz", allow_pickle=False) as npz:
        arrays = dict(npz)
    inputs = [arrays[f"arg_{a['index']}"] for a in sidecar["arguments"]]
    outputs = [arrays[f"out_{r['index']}"] for r in sidecar["results"]]
    return inputs, outputs


@pytest.mark.parametrize("name", NAMES)
def test_sketches_match_the_rust_reference(name):
    text = instrumented(name)
    inputs, outputs = fixture(name)
    args, results = main_attrs(text, "arg_attrs"), main_attrs(text, "res_attrs")
    n_args, n_results = len(inputs), len(outputs)
    deltas = {path: outputs[i] for i, (path, role) in enumerate(results) if role == "delta"}
    probes = [path for path, role in args[n_args:] if role == "probe_weight"]
    sketches = [path for path, role in results[n_results:]]
    assert all(role == "sketch" for _, role in results[n_results:])
    assert probes == sketches == [p for p in deltas if np.shape(deltas[p])[-1:] != (0,)]
    assert [role for _, role in args[n_args:]] == ["probe_weight"] * len(probes)

    maps = {p: hashing.probe_map(SEED, p, np.shape(deltas[p]), RATIO) for p in probes}
    extra = [maps[p].weights() for p in probes]
    sig = signature(text)
    for array, (shape, dtype) in zip(extra, sig.arguments[n_args:], strict=True):
        assert (array.shape, array.dtype) == (shape, dtype)
    got = run_module(text, [*inputs, *extra])
    assert len(got) == n_results + len(probes)

    # The hooks leave production's results bitwise unchanged: compare with the uninstrumented
    # module compiled here (the recording may come from a host with another vector ISA).
    plain = run_module((INPUTS / f"{name}.mlir").read_text(), inputs)
    for i, (value, want) in enumerate(zip(got[:n_results], plain, strict=True)):
        assert value.dtype == want.dtype and value.shape == want.shape, (name, i)
        assert value.tobytes() == want.tobytes(), (name, i, "differs from the plain module")

    worst = 0.0
    for path, value in zip(probes, got[n_results:], strict=True):
        delta = deltas[path]
        reference = hashing.sketch(maps[path], delta).reshape(-1, maps[path].k)
        assert value.shape == reference.shape, (name, path)
        error = np.abs(value.astype(np.float64) - reference)
        bound = np.maximum(REL * np.abs(reference), ABS_FLOOR)
        assert (error <= bound).all(), (name, path, float((error / bound).max()))
        worst = max(worst, float((error / bound).max()))
    print(f"{name}: {len(probes)} sketches, worst error / tolerance {worst:.3g}")


@pytest.mark.parametrize("name", NAMES)
def test_joined_sketches_are_the_leaves_sketches_bit_for_bit(name):
    # With `join` (as the JAX frontend runs it) the one sketch result, executed by XLA, holds
    # exactly the per-leaf sketch results, each flattened, in delta order; the other results
    # are unchanged.
    inputs, outputs = fixture(name)
    per_leaf, joined = instrumented(name), instrumented(name, join=True)
    results = main_attrs(per_leaf, "res_attrs")
    probes = [path for path, role in main_attrs(per_leaf, "arg_attrs")[len(inputs) :]]
    shapes = {p: np.shape(outputs[i]) for i, (p, role) in enumerate(results) if role == "delta"}
    extra = [hashing.probe_map(SEED, p, shapes[p], RATIO).weights() for p in probes]
    separate = run_module(per_leaf, [*inputs, *extra])
    together = run_module(joined, [*inputs, *extra])
    n = len(outputs)
    assert len(together) == n + (1 if probes else 0)
    for a, b in zip(separate[:n], together[:n], strict=True):
        assert a.tobytes() == b.tobytes()
    if probes:
        want = np.concatenate([s.reshape(-1) for s in separate[n:]])
        assert together[n].dtype == want.dtype and together[n].tobytes() == want.tobytes()
        (path, role) = main_attrs(joined, "res_attrs")[n]
        assert role == "sketch" and path == ",".join(probes)
