"""--zkdv-push-select on the fixtures, executed by JAX.

After the selection is pushed down, the attested function (``output=attested`` makes it the
module's ``main``) must still return the recorded delta and post-optimizer-state coordinates
for random index pairs within the check tolerance (a pushed ``dot_general`` may sum in another
order), select 0.0 past the end, and cost fewer FLOPs than before. Uses the zkdv-opt that cargo
built (target/debug).
"""

import re
import subprocess

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from test_slice_update import (  # noqa: E402
    ABS_FLOOR,
    INPUTS,
    NAMES,
    PAIRS,
    REL,
    ZKDV_OPT,
    fixture,
    flat,
    run_attested,
)

pytestmark = pytest.mark.skipif(not ZKDV_OPT.exists(), reason="zkdv-opt is not built")


def zkdv_opt(*flags, name):
    result = subprocess.run(
        [ZKDV_OPT, "--zkdv-inline", "--zkdv-annotate-roles", *flags, INPUTS / f"{name}.mlir"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result


def pushed(name):
    # The attested pipeline's tail: the selection pushed, what it bypassed erased, leaves guarded.
    flags = ("--zkdv-push-select=func=main", "--zkdv-dce", "--zkdv-guard-leaves=func=main")
    return zkdv_opt("--zkdv-slice-update=output=attested", *flags, name=name).stdout


@pytest.mark.parametrize("name", NAMES)
def test_pushed_attested_function_selects_the_recorded_coordinates(name):
    text = pushed(name)
    inputs, by_role = fixture(name)
    deltas = flat(by_role["delta"])
    state = flat(by_role.get("post_opt_state", []))
    rng = np.random.default_rng(1)
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
def test_pushed_index_past_the_end_selects_zero(name):
    text = pushed(name)
    inputs, by_role = fixture(name)
    past = np.uint64(len(flat(by_role["delta"])))
    got_delta, got_state = run_attested(text, [*inputs, past, np.uint64(2**64 - 1)])
    assert got_delta == 0 and got_state == 0


def total_flops(report, function):
    table = report.split(f"zkdv-cost-report @{function}\n", 1)[1]
    return int(re.search(r"^\s+total\s+\d+\s+(\d+)$", table, re.MULTILINE).group(1))


def per_check_flops(report, function):
    table = report.split(f"zkdv-cost-report @{function}\n", 1)[1].split("zkdv-cost-report @")[0]
    return int(re.search(r"^\s+per check\s+(\d+)$", table, re.MULTILINE).group(1))


@pytest.mark.parametrize("name", NAMES)
def test_push_select_lowers_the_flops(name):
    flags = (
        "--zkdv-slice-update",
        "--zkdv-push-select",
        "--zkdv-dce",
        "--zkdv-guard-leaves",
        "--zkdv-cost-report",
    )
    report = zkdv_opt(*flags, "-o", "/dev/null", name=name).stderr
    full, attested = total_flops(report, "main"), total_flops(report, "zkdv_attested")
    check = per_check_flops(report, "zkdv_attested")
    print(
        f"{name}: main {full}, attested {attested} ({attested / full:.3f}), "
        f"per check averaged over leaves {check} ({check / full:.3f})"
    )
    assert check <= attested < full


CONV = """"builtin.module"() ({{
  "func.func"() <{{function_type = (tensor<{x}xf32>, tensor<{k}xf32>, tensor<ui64>, tensor<ui64>, \
tensor<ui64>, tensor<ui64>) -> tensor<1x1x1x1xf32>, sym_name = "main"}}> ({{
  ^bb0(%x: tensor<{x}xf32>, %k: tensor<{k}xf32>, %b: tensor<ui64>, %i: tensor<ui64>, \
%j: tensor<ui64>, %o: tensor<ui64>):
    %c = "stablehlo.convolution"(%x, %k) <{{batch_group_count = 1 : i64, \
dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, \
feature_group_count = 1 : i64, {attributes}}}> : (tensor<{x}xf32>, tensor<{k}xf32>) -> \
tensor<{out}xf32>
    %one = "stablehlo.dynamic_slice"(%c, %b, %i, %j, %o) \
<{{slice_sizes = array<i64: 1, 1, 1, 1>}}> : (tensor<{out}xf32>, tensor<ui64>, tensor<ui64>, \
tensor<ui64>, tensor<ui64>) -> tensor<1x1x1x1xf32>
    "func.return"(%one) : (tensor<1x1x1x1xf32>) -> ()
  }}) : () -> ()
}}) : () -> ()
"""

CONV_CASES = {
    "stride_and_padding": (
        (1, 4, 4, 2),
        (3, 3, 2, 3),
        (1, 2, 2, 3),
        "padding = dense<1> : tensor<2x2xi64>, window_strides = array<i64: 2, 2>",
    ),
    "dilations_reversal_uneven_padding": (
        (2, 5, 5, 2),
        (2, 2, 2, 3),
        (2, 10, 9, 3),
        "lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 2, 2>, "
        "padding = dense<[[2, 1], [0, 2]]> : tensor<2x2xi64>, "
        "window_reversal = array<i1: true, false>",
    ),
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_pushed_convolution_matches_the_full_one(case, tmp_path):
    x, k, out, attributes = CONV_CASES[case]
    dims = lambda shape: "x".join(map(str, shape))  # noqa: E731
    text = CONV.format(x=dims(x), k=dims(k), out=dims(out), attributes=attributes)
    source = tmp_path / f"{case}.mlir"
    source.write_text(text)
    result = subprocess.run(
        [ZKDV_OPT, "--zkdv-push-select=func=main", "--zkdv-dce", source],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "tensor<1x1x1x1xf32>" in result.stdout and f"-> tensor<{dims(out)}xf32>" not in (
        result.stdout
    )
    rng = np.random.default_rng(2)
    inputs = [rng.standard_normal(x).astype(np.float32), rng.standard_normal(k).astype(np.float32)]
    positions = [tuple(int(rng.integers(n)) for n in out) for _ in range(20)]
    positions += [tuple(n - 1 for n in out), (0, 0, 0, 0), (7, 99, 99, 99)]  # clamped like XLA
    for position in positions:
        index = [np.uint64(i) for i in position]
        (want,) = run_attested(text, [*inputs, *index])
        (got,) = run_attested(result.stdout, [*inputs, *index])
        np.testing.assert_allclose(got, want, rtol=REL, atol=1e-6, err_msg=str(position))
