"""The training-program fixtures of test-mlir/inputs/ are consistent and run as recorded.

For each fixture the checked-in generic-form module, run through JAX on CPU on the inputs of its
.npz, reproduces the recorded outputs (bitwise on a host like the recording one, to rounding on
one whose vector ISA differs); its .json sidecar agrees with ``main``'s signature
and with the fixture ABI (see test-mlir/inputs/README.md). Regenerate with scripts/export-fixtures.
"""

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

from stablehlo import run_module, signature  # noqa: E402

INPUTS = Path(__file__).resolve().parents[2] / "test-mlir" / "inputs"
NAMES = sorted(p.stem for p in INPUTS.glob("*.mlir"))
ARG_ROLES = ("param", "opt_state", "batch")
RESULT_ROLES = ("post_param", "post_opt_state", "delta", "user")
RECORDED = json.loads((INPUTS / "VERSIONS.json").read_text())
# Another jax/jaxlib may compile the same module differently: then compare within a tolerance.
SAME_JAX = all(RECORDED.get(p) == version(p) for p in ("jax", "jaxlib"))


def load(name):
    text = (INPUTS / f"{name}.mlir").read_text()
    sidecar = json.loads((INPUTS / f"{name}.json").read_text())
    with np.load(INPUTS / f"{name}.npz", allow_pickle=False) as npz:
        arrays = dict(npz)
    return text, sidecar, arrays


def test_the_fixtures_are_there():
    assert set(NAMES) >= {"mlp_adam", "transformer_adamw", "cnn_sgd", "transaction_sgd"}
    for name in NAMES:
        for suffix in (".json", ".npz"):
            assert (INPUTS / f"{name}{suffix}").is_file()


def test_versions_are_recorded():
    assert {"jax", "jaxlib", "flax", "optax", "numpy"} <= set(RECORDED)
    if not SAME_JAX:
        pytest.skip(f"fixtures exported with jaxlib {RECORDED['jaxlib']}, {version('jaxlib')} here")


@pytest.mark.parametrize("name", NAMES)
def test_module_reproduces_recorded_outputs(name):
    text, sidecar, arrays = load(name)
    inputs = [arrays[f"arg_{i}"] for i in range(len(sidecar["arguments"]))]
    outputs = run_module(text, inputs)
    assert len(outputs) == len(sidecar["results"])
    for j, out in enumerate(outputs):
        want = arrays[f"out_{j}"]
        assert out.dtype == want.dtype and out.shape == want.shape, j
        if SAME_JAX and out.tobytes() == want.tobytes():
            continue  # bitwise: XLA compiled the module as it did where it was recorded
        # XLA's CPU backend generates code for the host's vector ISA (AVX2, AVX-512, ...), so
        # the same jaxlib on another machine may sum in another order: equal to rounding.
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6, err_msg=f"{name} {j}")


@pytest.mark.parametrize("name", NAMES)
def test_sidecar_matches_main_signature(name):
    text, sidecar, arrays = load(name)
    sig = signature(text)
    for entries, types, prefix in (
        (sidecar["arguments"], sig.arguments, "arg"),
        (sidecar["results"], sig.results, "out"),
    ):
        assert len(entries) == len(types)
        assert sorted(k for k in arrays if k.startswith(f"{prefix}_")) == sorted(
            f"{prefix}_{i}" for i in range(len(entries))
        )
        for i, (entry, (shape, dtype)) in enumerate(zip(entries, types, strict=True)):
            assert entry["index"] == i
            assert (tuple(entry["shape"]), np.dtype(entry["dtype"])) == (shape, dtype), entry
            array = arrays[f"{prefix}_{i}"]
            assert (array.shape, array.dtype) == (shape, dtype), entry


@pytest.mark.parametrize("name", NAMES)
def test_sidecar_follows_the_abi(name):
    _, sidecar, _ = load(name)
    args, results = sidecar["arguments"], sidecar["results"]
    # Roles come in ABI order, each path is unique and starts with its tree's name.
    arg_roles = [e["role"] for e in args]
    assert arg_roles == sorted(arg_roles, key=ARG_ROLES.index)
    result_roles = [e["role"] for e in results]
    assert result_roles == sorted(result_roles, key=RESULT_ROLES.index)
    tops = {"param": "params", "opt_state": "opt_state", "batch": "batch"}
    tops |= {"post_param": "new_params", "post_opt_state": "new_opt_state", "delta": "deltas"}
    tops |= {"user": "loss"}
    for entry in args + results:
        assert entry["path"] == "/".join(p for p in (tops[entry["role"]], entry["leaf"]) if p)
    assert len({e["path"] for e in args + results}) == len(args) + len(results)

    def leaves(entries, role):
        return [(e["leaf"], e["dtype"], e["shape"]) for e in entries if e["role"] == role]

    # Post-state mirrors pre-state; deltas mirror params; the loss is one scalar.
    assert leaves(args, "param") and leaves(args, "batch")
    assert leaves(results, "post_param") == leaves(args, "param")
    assert leaves(results, "delta") == leaves(args, "param")
    assert leaves(results, "post_opt_state") == leaves(args, "opt_state")
    assert [(e["path"], e["shape"]) for e in results if e["role"] == "user"] == [("loss", [])]


@pytest.mark.parametrize("name", NAMES)
def test_module_is_generic_form_and_hermetic(name):
    text, sidecar, _ = load(name)
    assert text.startswith('"builtin.module"()')
    assert "loc(" not in text
    for forbidden in ("rng", "custom_call", "infeed", "outfeed"):
        assert f'"stablehlo.{forbidden}' not in text
    assert text.count("jax.result_info") == len(sidecar["results"])


def test_edge_cases_are_covered():
    # transaction_sgd: plain sgd keeps no optimizer state, so main has no opt_state arguments.
    _, sidecar, _ = load("transaction_sgd")
    assert not [e for e in sidecar["arguments"] if e["role"] == "opt_state"]
    # Adam's step count is an int32 optimizer-state leaf.
    _, sidecar, _ = load("mlp_adam")
    assert ("0/count", "int32") in [(e["leaf"], e["dtype"]) for e in sidecar["arguments"]]
