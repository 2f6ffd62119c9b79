"""The replay runtime (``zkdv.runtime``) on the fixtures, against JAX/XLA.

For every fixture of ``test-mlir/inputs/``, the Rust interpreter runs

- the full exported step (``main``) on the recorded inputs: every result must equal the
  recording (made by ``jax.jit`` on CPU) within 1e-5 relative, absolute floor 1e-6; integer
  and boolean results exactly;
- the attested function (``--zkdv-attested-pipeline``, through ``zkdv.passes``) for 50 random
  index pairs: each selected coordinate must equal the recorded delta / post-optimizer-state
  coordinate within the same tolerance.

The worst relative differences are printed (``pytest -s``) for the closing notes. The absolute
floor matters for Adam-style updates: where a gradient coordinate is tiny, ``m / sqrt(v)`` is
ill-conditioned and two correct f32 evaluations that sum in different orders (XLA's blocked
matmuls, the runtime's sequential ones) differ by a few 1e-7 absolute. A third test shows that
such differences are not runtime inaccuracy: the same program promoted to f64 and run by the
runtime is the reference, and the runtime's f32 results (RMS over every f32 result) are within
2x of XLA's distance to it.

Also checked: repeated runs give the same bits, and bad inputs raise
``zkdv.runtime.RuntimeError``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from zkdv import passes, runtime

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test-mlir" / "inputs"
NAMES = sorted(p.stem for p in INPUTS.glob("*.mlir"))
REL, ABS_FLOOR = 1e-5, 1e-6
PAIRS = 50


def fixture(name):
    sidecar = json.loads((INPUTS / f"{name}.json").read_text())
    with np.load(INPUTS / f"{name}.npz", allow_pickle=False) as npz:
        arrays = dict(npz)
    inputs = [arrays[f"arg_{a['index']}"] for a in sidecar["arguments"]]
    outputs = [arrays[f"out_{r['index']}"] for r in sidecar["results"]]
    roles = [r["role"] for r in sidecar["results"]]
    return inputs, outputs, roles


def worst_relative(got: np.ndarray, want: np.ndarray) -> float:
    """Largest |got - want| / max(|want|, floor) after checking the tolerance."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if not np.issubdtype(want.dtype, np.floating):
        np.testing.assert_array_equal(got, want)
        return 0.0
    g, w = got.astype(np.float64), want.astype(np.float64)
    error = np.abs(g - w)
    assert (error <= np.maximum(REL * np.abs(w), ABS_FLOOR)).all(), float(error.max())
    return float((error / np.maximum(np.abs(w), ABS_FLOOR)).max(initial=0.0))


@pytest.mark.parametrize("name", NAMES)
def test_full_step_matches_xla(name):
    text = (INPUTS / f"{name}.mlir").read_text()
    program = runtime.Program(text, source_name=f"{name}.mlir")
    inputs, outputs, _ = fixture(name)
    got = program(*inputs)
    assert len(got) == len(outputs)
    worst = max(worst_relative(g, w) for g, w in zip(got, outputs, strict=True))
    largest = max(
        float(np.abs(g.astype(np.float64) - w).max(initial=0))
        for g, w in zip(got, outputs, strict=True)
        if np.issubdtype(w.dtype, np.floating)
    )
    print(
        f"{name}: full step, {len(outputs)} results, worst relative difference {worst:.3g}, "
        f"largest absolute difference {largest:.3g}"
    )
    again = program(*inputs)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(got, again, strict=True))


@pytest.mark.parametrize("name", NAMES)
def test_runtime_is_as_close_to_an_f64_reference_as_xla(name):
    text = (INPUTS / f"{name}.mlir").read_text()
    inputs, outputs, _ = fixture(name)
    got = runtime.Program(text)(*inputs)
    promoted = [x.astype(np.float64) if x.dtype == np.float32 else x for x in inputs]
    reference = runtime.Program(text.replace("f32", "f64"))(*promoted)
    floats = [
        (g, w, r) for g, w, r in zip(got, outputs, reference, strict=True) if w.dtype == np.float32
    ]
    ours = np.concatenate([(g - r).ravel() for g, _, r in floats])
    xla = np.concatenate([(w - r).ravel() for _, w, r in floats])
    ours_rms, xla_rms = float(np.sqrt(np.mean(ours**2))), float(np.sqrt(np.mean(xla**2)))
    print(
        f"{name}: RMS error against the f64 reference: runtime {ours_rms:.3g}, "
        f"XLA {xla_rms:.3g} (ratio {ours_rms / max(xla_rms, 1e-30):.2f})"
    )
    assert ours_rms <= 2 * xla_rms + 1e-12


def flat(leaves):
    if not leaves:
        return np.zeros(0, np.float64)
    return np.concatenate([np.asarray(x, np.float64).ravel() for x in leaves])


@pytest.mark.parametrize("name", NAMES)
def test_attested_function_matches_the_recorded_step(name):
    text = (INPUTS / f"{name}.mlir").read_text()
    attested, _ = passes.run_passes(
        text,
        ["zkdv-attested-pipeline"],
        f"{name}.mlir",
    )
    program = runtime.Program(attested)
    inputs, outputs, roles = fixture(name)
    deltas = flat([o for o, r in zip(outputs, roles, strict=True) if r == "delta"])
    state = flat([o for o, r in zip(outputs, roles, strict=True) if r == "post_opt_state"])
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(PAIRS):
        p = int(rng.integers(len(deltas)))
        o = int(rng.integers(max(len(state), 1)))
        got_delta, got_state = program(*inputs, np.uint64(p), np.uint64(o))
        want_state = state[o] if len(state) else 0.0
        for got, want in ((got_delta, deltas[p]), (got_state, want_state)):
            worst = max(worst, worst_relative(got, np.float32(want).reshape(())))
    print(f"{name}: attested function, {PAIRS} pairs, worst relative difference {worst:.3g}")


def test_bad_inputs_are_clear_errors():
    text = (INPUTS / "transaction_sgd.mlir").read_text()
    program = runtime.Program(text)
    inputs, _, _ = fixture("transaction_sgd")
    with pytest.raises(runtime.RuntimeError, match="inputs"):
        program(*inputs[:-1])
    with pytest.raises(runtime.RuntimeError, match="input 0"):
        program(np.zeros((3, 3), np.float32), *inputs[1:])
    with pytest.raises(runtime.RuntimeError):
        runtime.Program("not mlir")
    with pytest.raises(runtime.RuntimeError, match="no function @nope"):
        runtime.Program(text, func="nope")
    with pytest.raises(ValueError, match="unknown pass"):
        passes.run_passes(text, ["zkdv-nope"])
    with pytest.raises(runtime.RuntimeError, match="limit of 10 ops"):
        program.run(inputs, max_ops=10)
    with pytest.raises(runtime.RuntimeError, match="exceeds the limit of 4"):
        program.run(inputs, max_elements=4)


def test_one_program_runs_from_several_threads_without_deadlock():
    # A run holds the program's lock without the GIL; a second thread that took the lock while
    # holding the GIL would wait forever for the first, which needs the GIL back to return. A
    # deadlock holds the GIL, so the threads run in a subprocess that the test can time out.
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        f"""
        import threading
        import numpy as np
        from zkdv import runtime

        data = np.load({str(INPUTS / "mlp_adam.npz")!r})
        program = runtime.Program(open({str(INPUTS / "mlp_adam.mlir")!r}).read())
        inputs = [data[f"arg_{{i}}"] for i in range(len(program.arguments))]
        want = [np.asarray(x).copy() for x in program(*inputs)]
        failures = []

        def work():
            try:
                for _ in range(30):
                    got = program(*inputs)
                    assert len(program.arguments) == len(inputs)
                    for g, w in zip(got, want, strict=True):
                        np.testing.assert_array_equal(g, w)
            except BaseException as error:
                failures.append(error)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failures, failures
        print("ok")
        """
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: three threads running one Program did not finish in 120 s")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


RELEASE_SCRIPT = '''
import numpy as np
from zkdv import _native, runtime

def rss():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS"))

text = """
"func.func"() <{function_type = (tensor<f32>) -> tensor<67108864xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.broadcast_in_dim"(%x) <{broadcast_dimensions = array<i64>}>
      : (tensor<f32>) -> tensor<67108864xf32>
  %1 = "stablehlo.add"(%0, %0) : (tensor<67108864xf32>, tensor<67108864xf32>)
      -> tensor<67108864xf32>
  "func.return"(%1) : (tensor<67108864xf32>) -> ()
}) : () -> ()
"""
program = runtime.Program(text)
before = rss()
(result,) = program(np.asarray(1.5, np.float32))
assert result[12345] == 3.0
held = rss() - before
del result
runtime.release_memory()
released = rss() - before
lines = _native.allocator_options().splitlines()
options = [line.strip() for line in lines if "purge_delay" in line or "allow_thp" in line]
print(held >> 20, released >> 20, options)
'''


def test_a_run_gives_back_what_it_freed_and_release_memory_the_rest():
    # The runtime's allocator keeps freed memory for the ops of a run to reuse (instead of
    # pages the kernel must zero), then a run gives back what it freed when it ends, and
    # runtime.release_memory() what its results held once they are gone. Run alone, with
    # mimalloc's options left to the extension (python/src/allocator.rs), so that no other
    # allocation of the test process moves the figures.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("MIMALLOC_")}
    result = subprocess.run(
        [sys.executable, "-c", RELEASE_SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    held, released, options = result.stdout.split(" ", 2)
    # Two 256 MiB values were computed: the broadcast, freed by the add, is given back when the
    # run ends; the result is held until it is gone.
    assert 256 <= int(held) < 400, result.stdout
    assert int(released) < 64, result.stdout
    assert "'purge_delay': 60000" in options and "'allow_thp': 0" in options, options


SUM_AND_PRODUCT = """
"func.func"() <{function_type = (tensor<64xf32>, tensor<4xbf16>, tensor<3xi32>)
    -> (tensor<f32>, tensor<4xbf16>, tensor<3xi32>), sym_name = "main"}> ({
^bb0(%x: tensor<64xf32>, %h: tensor<4xbf16>, %i: tensor<3xi32>):
  %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %s = "stablehlo.reduce"(%x, %zero) <{dimensions = array<i64: 0>}> ({
  ^bb1(%a: tensor<f32>, %b: tensor<f32>):
    %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%t) : (tensor<f32>) -> ()
  }) : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
  %p = "stablehlo.multiply"(%h, %h) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %j = "stablehlo.add"(%i, %i) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  "func.return"(%s, %p, %j) : (tensor<f32>, tensor<4xbf16>, tensor<3xi32>) -> ()
}) : () -> ()
"""


def test_ensemble_members_perturb_floats_within_rounding_and_deterministically():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    program = runtime.Program(SUM_AND_PRODUCT)
    rng = np.random.default_rng(0)
    x = rng.normal(size=64).astype(np.float32)
    h = np.array([1.1, -2.3, 0.7, 3.3], dtype=ml_dtypes.bfloat16)
    i = np.array([1, 2, 3], np.int32)
    nearest = program.run([x, h, i])
    assert program.run([x, h, i], ensemble=None)[0] == nearest[0]
    members = [program.run([x, h, i], ensemble=m) for m in range(8)]
    # Deterministic, integers untouched, floats moved by about an ulp of their terms.
    assert all(
        np.array_equal(a, b)
        for a, b in zip(members[3], program.run([x, h, i], ensemble=3), strict=True)
    )
    assert all(np.array_equal(m[2], nearest[2]) for m in members)
    sums = np.array([float(m[0]) for m in members])
    assert len(set(sums.tolist())) > 1
    bound = 64 * np.finfo(np.float32).eps * float(np.abs(x).sum())
    assert np.all(np.abs(sums - float(nearest[0])) <= bound)
    products = np.array([m[1].astype(np.float32) for m in members])
    assert np.all(np.abs(products - nearest[1].astype(np.float32)) <= 0.05 * np.abs(products))
    with pytest.raises(TypeError, match="ensemble"):
        program.run([x, h, i], ensemble=-1)


MATRIX_PRODUCT = """
"func.func"() <{function_type = (tensor<8x64xf32>, tensor<64x8xf32>) -> tensor<8x8xf32>,
    sym_name = "main"}> ({
^bb0(%a: tensor<8x64xf32>, %b: tensor<64x8xf32>):
  %p = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<
      lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>,
      precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}>
      : (tensor<8x64xf32>, tensor<64x8xf32>) -> tensor<8x8xf32>
  "func.return"(%p) : (tensor<8x8xf32>) -> ()
}) : () -> ()
"""


def test_a_tf32_ensemble_spreads_f32_products_as_a_gpu_rounds_them():
    """``matmul="tf32"``: the members round a DEFAULT-precision product's f32 operands to
    TensorFloat-32, so their spread covers what an NVIDIA GPU's products differ by from exact
    ones (about 2^-11 of each operand); with exact products they spread by an ulp or two."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(8, 64)).astype(np.float32)
    b = rng.normal(size=(64, 8)).astype(np.float32)

    def spread(matmul: str) -> float:
        program = runtime.Program(MATRIX_PRODUCT, matmul=matmul)  # type: ignore[arg-type]
        nominal = program.run([a, b])[0]
        return max(
            float(np.abs(program.run([a, b], ensemble=m)[0] - nominal).max()) for m in range(8)
        )

    exact = a.astype(np.float64) @ b.astype(np.float64)

    # What a GPU computes: operands rounded to TensorFloat-32 (ten mantissa bits).
    def tf32(x: np.ndarray) -> np.ndarray:
        bits = x.view(np.uint32)
        return ((bits + 0x0FFF + ((bits >> 13) & 1)) & ~np.uint32(0x1FFF)).view(np.float32)

    gpu = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
    gpu_difference = float(np.abs(gpu - exact).max())
    assert spread("f32") < gpu_difference / 100
    assert gpu_difference < 32 * spread("tf32")
    assert runtime.Program(MATRIX_PRODUCT).run([a, b])[0].tolist() == (
        runtime.Program(MATRIX_PRODUCT, matmul="tf32").run([a, b])[0].tolist()
    )
    with pytest.raises(ValueError, match="matmul"):
        runtime.Program(MATRIX_PRODUCT, matmul="bf16")  # type: ignore[arg-type]


def test_the_op_profile_counts_every_op_and_changes_no_bit():
    text = (INPUTS / "mlp_adam.mlir").read_text()
    program = runtime.Program(text)
    inputs, _, _ = fixture("mlp_adam")
    plain = program(*inputs)
    runtime.take_profile()  # whatever another test left
    runtime.set_profiling(True)
    try:
        profiled = program(*inputs)
        ops = runtime.take_profile()
    finally:
        runtime.set_profiling(False)
    for a, b in zip(plain, profiled, strict=True):
        assert a.tobytes() == b.tobytes()
    # Every op the run evaluated is counted once (the op limit counts the same ops).
    count = sum(op.evaluated for op in ops)
    program.run(inputs, max_ops=count)
    with pytest.raises(runtime.RuntimeError, match="limit"):
        program.run(inputs, max_ops=count - 1)
    by_name = {op.op: op for op in ops}
    assert by_name["stablehlo.dot_general"].elements > 0
    assert [op.seconds for op in ops] == sorted((op.seconds for op in ops), reverse=True)
    program(*inputs)
    assert runtime.take_profile() == [], "off again, and taken once"
