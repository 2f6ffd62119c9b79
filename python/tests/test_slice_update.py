"""--zkdv-slice-update on the fixtures, executed by JAX.

The attested function (``output=attested`` makes it the module's ``main``) must return, for
random (parameter_index, optimizer_state_index) pairs, the corresponding elements of the
fixture's recorded deltas and post-update optimizer state; the replay function must return the
recorded state and deltas. Uses the zkdv-opt that cargo built (target/debug).
"""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from stablehlo import run_module, signature  # noqa: E402


def run_attested(text, inputs):
    """The uint64 index arguments need 64-bit types, scoped to these calls (training keeps
    x64 off: the ABI is what lets it)."""
    with jax.enable_x64(True):
        return run_module(text, inputs)


ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test-mlir" / "inputs"
ZKDV_OPT = ROOT / "target" / "debug" / "zkdv-opt"
NAMES = sorted(p.stem for p in INPUTS.glob("*.mlir"))
PAIRS = 50
REL, ABS_FLOOR = 1e-5, 1e-8

pytestmark = pytest.mark.skipif(not ZKDV_OPT.exists(), reason="zkdv-opt is not built")


def sliced(name, output):
    result = subprocess.run(
        [
            ZKDV_OPT,
            "--zkdv-inline",
            "--zkdv-annotate-roles",
            f"--zkdv-slice-update=output={output}",
            INPUTS / f"{name}.mlir",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def fixture(name):
    sidecar = json.loads((INPUTS / f"{name}.json").read_text())
    with np.load(INPUTS / f"{name}.npz", allow_pickle=False) as npz:
        arrays = dict(npz)
    inputs = [arrays[f"arg_{a['index']}"] for a in sidecar["arguments"]]
    outputs = {r["index"]: arrays[f"out_{r['index']}"] for r in sidecar["results"]}
    by_role = {}
    for r in sidecar["results"]:
        by_role.setdefault(r["role"], []).append(outputs[r["index"]])
    return inputs, by_role


def flat(leaves):
    if not leaves:
        return np.zeros(0, np.float64)
    return np.concatenate([np.asarray(x, np.float64).ravel() for x in leaves])


@pytest.mark.parametrize("name", NAMES)
def test_attested_function_selects_the_recorded_coordinates(name):
    text = sliced(name, "attested")
    sig = signature(text)
    assert sig.results == (((), np.dtype(np.float32)), ((), np.dtype(np.float32)))
    assert sig.arguments[-2:] == (((), np.dtype(np.uint64)),) * 2
    inputs, by_role = fixture(name)
    deltas = flat(by_role["delta"])
    state = flat(by_role.get("post_opt_state", []))
    rng = np.random.default_rng(0)
    pairs = [(0, 0), (len(deltas) - 1, max(len(state) - 1, 0))]
    pairs += [
        (int(rng.integers(len(deltas))), int(rng.integers(max(len(state), 1))))
        for _ in range(PAIRS)
    ]
    worst = 0.0
    for p, o in pairs:
        got_delta, got_state = run_attested(text, [*inputs, np.uint64(p), np.uint64(o)])
        want_delta = np.float32(deltas[p])
        want_state = np.float32(state[o]) if len(state) else np.float32(0.0)
        for got, want in ((got_delta, want_delta), (got_state, want_state)):
            error = abs(float(got) - float(want))
            assert error <= max(REL * abs(float(want)), ABS_FLOOR), (name, p, o, got, want)
            if want != 0:
                worst = max(worst, error / abs(float(want)))
    print(f"{name}: {len(pairs)} pairs, worst relative error {worst:.3g}")


@pytest.mark.parametrize("name", NAMES)
def test_an_index_past_the_end_selects_zero(name):
    text = sliced(name, "attested")
    inputs, by_role = fixture(name)
    past = np.uint64(len(flat(by_role["delta"])))
    got_delta, got_state = run_attested(text, [*inputs, past, np.uint64(2**64 - 1)])
    assert got_delta == 0 and got_state == 0


@pytest.mark.parametrize("name", NAMES)
def test_replay_function_returns_state_and_deltas(name):
    text = sliced(name, "replay")
    inputs, by_role = fixture(name)
    outputs = run_module(text, inputs)
    # Against the full step compiled here (the recording may come from a host with another
    # vector ISA, where XLA sums in another order).
    here = run_module((INPUTS / f"{name}.mlir").read_text(), inputs)
    sidecar = json.loads((INPUTS / f"{name}.json").read_text())
    by_role = {}
    for r, value in zip(sidecar["results"], here, strict=True):
        by_role.setdefault(r["role"], []).append(value)
    want = [*by_role["post_param"], *by_role.get("post_opt_state", []), *by_role["delta"]]
    assert len(outputs) == len(want)
    for got, expected in zip(outputs, want, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
