"""The package root: configuration, overlap policies, check results, poisoning, lazy frontends.

One test per observable statement. Protocol numbers (sampling decisions) come from the Rust
core; the tests feed the Python objects' records to it to show they convert exactly.
"""

import ast
import dataclasses
import math
import pickle
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

import zkdv
from zkdv import overlap, transcript
from zkdv.config import DebugCheckEvery

FRAMEWORKS = ("jax", "jaxlib", "torch", "flax", "optax")


def run_python(code, *, cwd=None):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd
    )


# ---------------------------------------------------------------- SamplingPolicy


def test_sampling_policy_keeps_probabilities_as_floats():
    p = zkdv.SamplingPolicy(state_check_probability=0.25, update_check_probability=1)
    assert (p.state_check_probability, p.update_check_probability) == (0.25, 1.0)
    assert type(p.update_check_probability) is float
    assert zkdv.SamplingPolicy(0, np.float32(0.5)).state_check_probability == 0.0


def test_sampling_policy_requires_both_probabilities():
    with pytest.raises(TypeError):
        zkdv.SamplingPolicy(state_check_probability=0.1)


@pytest.mark.parametrize("value", [-0.01, 1.5, math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("name", ["state_check_probability", "update_check_probability"])
def test_sampling_policy_rejects_probabilities_outside_0_1_and_nan(name, value):
    args = {"state_check_probability": 0.5, "update_check_probability": 0.5, name: value}
    with pytest.raises(ValueError, match=rf"{name} must be a probability in \[0, 1\]"):
        zkdv.SamplingPolicy(**args)


@pytest.mark.parametrize("value", [True, False, np.bool_(True), "0.5", None, 1j])
def test_sampling_policy_rejects_non_real_probabilities_and_bools(value):
    with pytest.raises(TypeError, match="state_check_probability must be a real number"):
        zkdv.SamplingPolicy(state_check_probability=value, update_check_probability=0.5)


def test_sampling_policy_is_immutable():
    p = zkdv.SamplingPolicy(0.1, 0.2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.state_check_probability = 0.5
    assert p == zkdv.SamplingPolicy(0.1, 0.2) and hash(p) == hash(zkdv.SamplingPolicy(0.1, 0.2))


def test_sampling_policy_record_is_the_protocol_representation():
    p = zkdv.SamplingPolicy(0.01, 0.5)
    assert p.to_record() == {
        "probability": {"state_check_probability": 0.01, "update_check_probability": 0.5}
    }
    assert zkdv.SamplingPolicy.from_record(p.to_record()) == p


@pytest.mark.parametrize("p, sampled", [(0.0, False), (1.0, True)])
def test_rust_core_accepts_the_probability_record(p, sampled):
    record = zkdv.SamplingPolicy(p, p).to_record()
    for t in range(8):
        c = transcript.derive_challenge(bytes(32), bytes([t]) * 32, t, record, 100, 10)
        assert (c.state, c.update) == (sampled, sampled)


# ---------------------------------------------------------------- DEBUGCheckEvery


def test_debug_check_every_returns_the_every_n_policy():
    p = zkdv.SamplingPolicy.DEBUGCheckEvery(3)
    assert isinstance(p, DebugCheckEvery) and p.n == 3
    assert p.to_record() == {"every": {"n": 3}}
    assert repr(p) == "SamplingPolicy.DEBUGCheckEvery(n=3)"
    assert zkdv.SamplingPolicy.from_record(p.to_record()) == p


def test_debug_check_every_n_checks_steps_n_minus_1_2n_minus_1_in_the_rust_core():
    record = zkdv.SamplingPolicy.DEBUGCheckEvery(3).to_record()
    sampled = [
        t
        for t in range(10)
        if transcript.derive_challenge(bytes(32), bytes([t]) * 32, t, record, 5, 0).update
    ]
    assert sampled == [2, 5, 8]


def test_debug_check_every_1_checks_every_step():
    record = zkdv.SamplingPolicy.DEBUGCheckEvery(1).to_record()
    for t in range(5):
        c = transcript.derive_challenge(bytes(32), bytes([t]) * 32, t, record, 5, 5)
        assert c.state and c.update


@pytest.mark.parametrize("n", [0, -1, 1 << 64])
def test_debug_check_every_rejects_n_below_1_or_beyond_u64(n):
    with pytest.raises(ValueError, match="n must be at least 1"):
        zkdv.SamplingPolicy.DEBUGCheckEvery(n)


@pytest.mark.parametrize("n", [1.0, 2.5, True, "3", None])
def test_debug_check_every_rejects_non_integers(n):
    with pytest.raises(TypeError, match="n must be an integer"):
        zkdv.SamplingPolicy.DEBUGCheckEvery(n)


def test_debug_check_every_accepts_numpy_integers():
    assert zkdv.SamplingPolicy.DEBUGCheckEvery(np.int64(4)).n == 4


@pytest.mark.parametrize(
    "record",
    [
        {},
        {"every": {"n": 1}, "probability": {}},
        {"sometimes": {"n": 1}},
        {"every": {"n": 1, "m": 2}},
        {"probability": {"state_check_probability": 0.5}},
    ],
)
def test_sampling_from_record_rejects_malformed_records(record):
    with pytest.raises(ValueError):
        zkdv.SamplingPolicy.from_record(record)


# ---------------------------------------------------------------- Tolerance


def test_tolerance_defaults_are_abs_1e6_rel_1e5():
    assert zkdv.Tolerance() == zkdv.Tolerance(abs=1e-6, rel=1e-5)
    assert zkdv.Tolerance().to_record() == {"abs": 1e-6, "rel": 1e-5, "spread": 0.0, "replays": 0}


def test_tolerance_adds_the_measured_spread_times_its_factor():
    t = zkdv.Tolerance(abs=0.0, rel=0.0, spread=4.0, replays=8)
    assert t.accepts(1.0, 1.5, spread=0.125) and not t.accepts(1.0, 1.5, spread=0.12)
    assert t.bound(1.0, 0.125) == 0.5
    with pytest.raises(ValueError, match="replays must be in"):
        zkdv.Tolerance(replays=-1)
    with pytest.raises(TypeError, match="replays must be an integer"):
        zkdv.Tolerance(replays=1.5)


def test_program_tolerance_adds_the_perturbation_ensemble_under_the_program_policy():
    bf16 = {"narrowest": "bf16", "narrow_results": 3}
    f32 = {"narrowest": "f32", "narrow_results": 0}
    base = zkdv.Tolerance()
    ensemble = base.for_program("program", bf16)
    assert (ensemble.abs, ensemble.rel) == (base.abs, base.rel)
    assert ensemble.spread > 0 and ensemble.replays > 0
    # f32 programs too: where a value is pure rounding noise, only the ensemble bounds it.
    assert base.for_program("program", f32) == ensemble
    # A tolerance the user fixed is every program's.
    assert base.for_program("fixed", bf16) == base
    with pytest.raises(ValueError, match="tolerance policy"):
        base.for_program("sometimes", bf16)


@pytest.mark.parametrize("value", [-1e-9, math.inf, math.nan])
def test_tolerance_terms_must_be_finite_and_non_negative(value):
    with pytest.raises(ValueError, match="rel must be finite and non-negative"):
        zkdv.Tolerance(rel=value)


@pytest.mark.parametrize("value", [True, "1e-6", None])
def test_tolerance_terms_must_be_real_numbers(value):
    with pytest.raises(TypeError, match="abs must be a real number"):
        zkdv.Tolerance(abs=value)


def test_tolerance_accepts_within_abs_plus_rel_times_committed():
    t = zkdv.Tolerance(abs=0.5, rel=0.25)
    assert t.accepts(2.0, 3.0)  # 1.0 <= 0.5 + 0.25 * 2
    assert not t.accepts(2.0, 3.0625)
    # Non-finite values agree only with themselves (docs/protocol.md, the check record).
    assert not t.accepts(1.0, math.nan) and t.accepts(math.nan, math.nan)
    assert t.accepts(math.inf, math.inf) and not t.accepts(math.inf, 3.0)


def test_tolerance_round_trips_through_its_record():
    t = zkdv.Tolerance(abs=0, rel=1e-3)
    assert zkdv.Tolerance.from_record(t.to_record()) == t
    with pytest.raises(ValueError, match="exactly the keys"):
        zkdv.Tolerance.from_record({"abs": 0.0})


# ---------------------------------------------------------------- ZKDVConfig


def test_config_defaults():
    c = zkdv.ZKDVConfig()
    assert c.name == "default"
    assert c.sampling_policy == zkdv.SamplingPolicy(0.01, 0.01)
    assert c.tolerance is None
    assert (c.tolerance_policy, c.base_tolerance) == ("program", zkdv.Tolerance())


def test_config_as_in_the_readme():
    c = zkdv.ZKDVConfig(
        name="pretraining",
        sampling_policy=zkdv.SamplingPolicy(
            state_check_probability=0.01,
            update_check_probability=0.01,
        ),
    )
    assert c.name == "pretraining" and c.sampling_policy.update_check_probability == 0.01


def test_config_accepts_the_debug_policy():
    c = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
    assert c.root_fields()["sampling"] == {"every": {"n": 1}}


def test_config_is_immutable():
    c = zkdv.ZKDVConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.name = "other"
    assert dataclasses.replace(c, name="other").name == "other"


@pytest.mark.parametrize("name, error", [("", ValueError), ("  ", ValueError), (3, TypeError)])
def test_config_name_must_be_a_non_empty_string(name, error):
    with pytest.raises(error, match="ZKDVConfig: name"):
        zkdv.ZKDVConfig(name=name)


@pytest.mark.parametrize("policy", [0.01, {"every": {"n": 1}}, None])
def test_config_rejects_a_sampling_policy_of_another_type(policy):
    with pytest.raises(TypeError, match=r"sampling_policy must be a zkdv.SamplingPolicy\(\.\.\.\)"):
        zkdv.ZKDVConfig(sampling_policy=policy)


def test_config_rejects_a_tolerance_of_another_type():
    with pytest.raises(TypeError, match="tolerance must be a zkdv.Tolerance"):
        zkdv.ZKDVConfig(tolerance={"abs": 0.0, "rel": 0.0})


def test_config_root_fields_are_the_protocol_fields():
    c = zkdv.ZKDVConfig(
        name="run", sampling_policy=zkdv.SamplingPolicy(0.5, 0.25), tolerance=zkdv.Tolerance(0, 1)
    )
    assert c.root_fields() == {
        "config_name": "run",
        "sampling": {
            "probability": {"state_check_probability": 0.5, "update_check_probability": 0.25}
        },
        "tolerance": {"abs": 0.0, "rel": 1.0, "spread": 0.0, "replays": 0},
        "tolerance_policy": "fixed",
    }
    assert zkdv.ZKDVConfig().root_fields()["tolerance_policy"] == "program"


def root_body(config):
    return {
        "prover": "whitebox-jax",
        "versions": {"zkdv": zkdv.__version__},
        "rolling_window": 2,
        "probe_ratio": 0.5,
        "snapshot_interval": 4,
        "params": [{"path": "w", "dtype": "f32", "shape": [3, 2]}],
        "opt_state": [{"path": "mu/w", "dtype": "f32", "shape": [3, 2]}],
        "batch": [{"path": "batch", "dtype": "u32", "shape": [2, 3]}],
        **config.root_fields(),
    }


@pytest.mark.parametrize(
    "policy", [zkdv.SamplingPolicy(0.125, 1.0), zkdv.SamplingPolicy.DEBUGCheckEvery(2)]
)
@pytest.mark.parametrize("tolerance", [zkdv.Tolerance(), None])
def test_rust_writer_takes_root_fields_unchanged_and_they_read_back(tmp_path, policy, tolerance):
    config = zkdv.ZKDVConfig(name="pytest", sampling_policy=policy, tolerance=tolerance)
    writer = transcript.TranscriptWriter(tmp_path / "t", root_body(config))
    assert zkdv.ZKDVConfig.from_root(writer.root) == config
    writer.close()
    assert zkdv.ZKDVConfig.from_root(transcript.inspect(tmp_path / "t")) == config


# ---------------------------------------------------------------- overlap


def test_overlap_has_always_unchecked_never_with_record_values():
    assert [m.name for m in overlap.Overlap] == ["ALWAYS", "UNCHECKED", "NEVER"]
    assert overlap.ALWAYS is overlap.Overlap.ALWAYS and overlap.ALWAYS.to_record() == "always"
    assert overlap.UNCHECKED.to_record() == "unchecked"
    assert overlap.NEVER.to_record() == "never"
    assert zkdv.overlap is overlap


def test_overlap_default_is_unchecked():
    assert overlap.DEFAULT is overlap.UNCHECKED
    assert overlap.resolve(None) is overlap.UNCHECKED
    assert overlap.resolve(overlap.NEVER) is overlap.NEVER


@pytest.mark.parametrize("value", ["always", 1, True])
def test_overlap_resolve_rejects_anything_but_a_member(value):
    with pytest.raises(TypeError, match="overlap must be zkdv.overlap.ALWAYS"):
        overlap.resolve(value)


def test_overlap_from_record():
    assert overlap.Overlap.from_record("never") is overlap.NEVER
    with pytest.raises(ValueError, match="unknown overlap policy 'sometimes'"):
        overlap.Overlap.from_record("sometimes")


def test_overlap_members_and_aliases_have_docstrings():
    # Attribute docstrings (the string after an assignment) are what the docs site renders.
    tree = ast.parse(Path(overlap.__file__).read_text())
    documented = set()
    for body in [tree.body] + [n.body for n in tree.body if isinstance(n, ast.ClassDef)]:
        for stmt, after in zip(body, body[1:], strict=False):
            target = getattr(stmt, "target", None) or (getattr(stmt, "targets", None) or [None])[0]
            is_doc = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            if isinstance(target, ast.Name) and is_doc and after.value.value.strip():
                documented.add(target.id)
    assert {"ALWAYS", "UNCHECKED", "NEVER", "DEFAULT"} <= documented


# ---------------------------------------------------------------- CheckResult


def update_check(**overrides):
    fields = {
        "step": 7,
        "kind": "update",
        "indices": (11, 3),
        "committed": (1.0, 2.0),
        "recomputed": (1.0, 2.0),
        "tolerance": zkdv.Tolerance(),
        "verdict": "pass",
        "replay_length": 2,
    }
    fields.update(overrides)
    return zkdv.CheckResult(**fields)


def test_check_result_fields_and_passed():
    c = update_check(indices=[11, 3], committed=np.array([1.0, 2.0], np.float32))
    assert c.step == 7 and c.kind == "update" and c.indices == (11, 3)
    assert c.committed == (1.0, 2.0) and c.recomputed == (1.0, 2.0)
    assert c.verdict == "pass" and c.passed and c.first_failure is None
    assert not update_check(recomputed=(1.0, 2.5), verdict="fail").passed


def test_check_result_is_immutable():
    c = update_check()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.verdict = "fail"
    assert isinstance(c.indices, tuple) and isinstance(c.committed, tuple)


def test_check_result_first_failure_is_the_first_value_out_of_tolerance():
    c = update_check(recomputed=(1.0, math.nan), verdict="fail")
    assert c.first_failure == 1


def test_check_result_verdict_must_match_values_and_tolerance():
    with pytest.raises(ValueError, match="contradicts"):
        update_check(recomputed=(1.0, 2.5))
    with pytest.raises(ValueError, match="contradicts"):
        update_check(verdict="fail")


@pytest.mark.parametrize(
    "overrides, match",
    [
        ({"kind": "gradient"}, "kind must be 'state' or 'update'"),
        ({"verdict": "ok"}, "verdict must be 'pass' or 'fail'"),
        ({"committed": (), "recomputed": ()}, "at least one value"),
        ({"recomputed": (1.0,)}, "2 committed values but 1 recomputed"),
        ({"indices": ()}, "one or two indices"),
        ({"indices": (1,)}, "one value per index"),
        ({"kind": "state"}, "a state check has no indices"),
        ({"indices": (-1, 0)}, r"in \[0, 2\*\*64\)"),
        ({"step": -1}, "step must be in"),
    ],
)
def test_check_result_rejects_inconsistent_fields(overrides, match):
    with pytest.raises(ValueError, match=match):
        update_check(**overrides)


@pytest.mark.parametrize(
    "overrides, match",
    [
        ({"tolerance": {"abs": 0, "rel": 0}}, "tolerance must be a zkdv.Tolerance"),
        ({"committed": (True, 1.0)}, "committed must hold real numbers"),
        ({"indices": (1.0, 2)}, "an index must be an integer"),
        ({"step": True}, "step must be an integer"),
    ],
)
def test_check_result_rejects_wrong_types(overrides, match):
    with pytest.raises(TypeError, match=match):
        update_check(**overrides)


def test_check_result_record_round_trip_and_rust_writer_accepts_it(tmp_path):
    config = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(1))
    writer = transcript.TranscriptWriter(tmp_path / "t", root_body(config))
    art = writer.put_artifact(b"program", "mlir")
    precision = {"narrowest": "f32", "narrow_results": 0}
    t = config.base_tolerance.for_program(config.tolerance_policy, precision)
    program = writer.append_program(
        {
            "name": "step",
            "format": "stablehlo",
            "attested": art,
            "production": art,
            "precision": precision,
            "tolerance": t.to_record(),
        }
    )
    receipt = writer.append_step(
        {
            "step": 0,
            "program": program,
            "batch": {"rows": 2, "width": 3, "window": 2, "root": bytes(32)},
            "pre_state": bytes(32),
            "update": bytes(32),
            "post_state": bytes(32),
            "overlap": overlap.DEFAULT.to_record(),
        }
    )
    indices = receipt.challenge.update_indices()
    # A value just inside and one just outside the tolerance: the Rust writer agrees with
    # Python's verdict on both (it rejects a check whose verdict contradicts its values).
    inside = 1.0 + t.abs + t.rel
    outside = np.nextafter(inside, 2.0)
    ok = update_check(
        step=0, indices=indices, recomputed=(inside, 2.0), replay_length=0, tolerance=t
    )
    bad = zkdv.CheckResult(
        step=0,
        kind="state",
        indices=(),
        committed=(1.0,),
        recomputed=(float(outside),),
        tolerance=t,
        verdict="fail",
    )
    assert zkdv.CheckResult.from_record(ok.to_record()) == ok
    writer.append_check(ok.to_record())
    writer.append_check(bad.to_record())
    error = zkdv.ZKDVPoisonedError.from_check(bad)
    close = writer.close(failure=error.to_failure_record())
    assert close["status"] == "poisoned"
    assert close["failure"] == error.to_failure_record()


# ---------------------------------------------------------------- ZKDVPoisonedError


def test_poisoned_error_carries_step_and_coordinate_and_names_them():
    e = zkdv.ZKDVPoisonedError(17, 1234)
    assert (e.step, e.coordinate, e.kind) == (17, 1234, "update")
    assert "step 17" in str(e) and "coordinate 1234" in str(e)
    assert str(e).startswith("ZKDV session poisoned")
    assert isinstance(e, RuntimeError)


def test_poisoned_error_without_a_coordinate_names_the_step():
    e = zkdv.ZKDVPoisonedError(4, kind="state", detail="sketches diverged")
    assert e.coordinate is None
    assert str(e) == "ZKDV session poisoned: the state check of step 4 failed: sketches diverged"


def test_poisoned_error_from_an_update_check_names_the_coordinate_and_values():
    check = update_check(recomputed=(1.5, 2.0), verdict="fail")
    e = zkdv.ZKDVPoisonedError.from_check(check)
    assert (e.step, e.coordinate, e.kind, e.check) == (7, 11, "update", check)
    message = str(e)
    assert "step 7 at coordinate 11" in message and "parameter update coordinate 11" in message
    assert "committed 1.0, recomputed 1.5" in message and "1e-06 + 1e-05 * |committed|" in message


def test_poisoned_error_from_the_optimizer_state_value_names_its_index():
    e = zkdv.ZKDVPoisonedError.from_check(update_check(recomputed=(1.0, 9.0), verdict="fail"))
    assert e.coordinate == 3 and "post-update optimizer state coordinate 3" in str(e)


def test_poisoned_error_from_a_state_check_has_no_coordinate():
    check = zkdv.CheckResult(
        step=5,
        kind="state",
        indices=(),
        committed=(1.0, 2.0),
        recomputed=(1.0, math.nan),
        tolerance=zkdv.Tolerance(),
        verdict="fail",
        replay_length=3,
    )
    e = zkdv.ZKDVPoisonedError.from_check(check)
    assert e.coordinate is None and e.kind == "state"
    assert "state check of step 5" in str(e) and "state sketch value #1" in str(e)
    assert "recomputed nan" in str(e) and "replaying 3 transitions" in str(e)


def test_a_state_check_names_the_sketch_value_that_failed():
    from zkdv.session._checker import StateReplay, state_result

    committed = np.array([1.0, 2.0, 3.0, 4.0])
    recomputed = np.array([1.0, 2.0, 3.5, 4.0])
    check = state_result(7, StateReplay(committed, recomputed), zkdv.Tolerance(), replay_length=1)
    assert check.verdict == "fail" and check.committed == (3.0,) and check.position == 2
    assert "state sketch value #2" in str(zkdv.ZKDVPoisonedError.from_check(check))
    # The position is the session's, not the record's.
    assert "position" not in check.to_record()


def test_a_state_check_admits_a_flip_as_large_as_its_leafs_spread_and_records_it():
    """A discrete flip (a ReLU's sign, a max-pool's argmax) that no ensemble member reproduces
    is admitted as an outlier, in a program that computes in bf16, when the leaf's members
    moved a value that much; the record names how many were admitted and its pair is the worst
    of the others."""
    from zkdv.session._checker import StateReplay, state_result

    tolerance = zkdv.Tolerance(abs=1e-6, rel=1e-5, spread=32.0, replays=8)
    n = 20_000
    committed = np.full(2 * n, 0.5)
    recomputed = committed.copy()
    recomputed[100] += 0.3  # the flip, in the first leaf
    recomputed[101] += 1e-6
    spread = np.zeros(2 * n)
    spread[7] = 0.01  # the members flipped another value of the first leaf by 0.01
    state = StateReplay(
        committed, recomputed, groups=[(n, True), (n, True)], update=np.zeros(2 * n), flips=True
    )
    check = state_result(3, state, tolerance, 0, spread)
    assert check.passed and check.outliers == 1 and check.position == 101
    record = check.to_record()
    assert record["outliers"] == 1
    assert zkdv.CheckResult.from_record(record) == check
    # The same flip where the leaf's members moved nothing fails.
    recomputed[100], recomputed[n + 100] = 0.5, 0.8
    check = state_result(3, state, tolerance, 0, spread)
    assert not check.passed and check.position == n + 100 and check.outliers == 0
    # Pair by pair (no groups), the flip fails too; so it does in an f32 program.
    check = state_result(3, StateReplay(committed, recomputed), tolerance, 0, spread)
    assert not check.passed
    recomputed[100], recomputed[n + 100] = 0.8, 0.5
    f32 = StateReplay(committed, recomputed, groups=state.groups, update=state.update)
    assert state_result(3, state, tolerance, 0, spread).passed
    assert not state_result(3, f32, tolerance, 0, spread).passed
    # Only a state check admits outliers.
    with pytest.raises(ValueError, match="admits no outliers"):
        zkdv.CheckResult(
            step=0,
            kind="update",
            indices=(1,),
            committed=(1.0,),
            recomputed=(1.0,),
            tolerance=tolerance,
            verdict="pass",
            outliers=1,
        )


def test_a_state_check_admits_no_more_than_a_few_flips_in_one_leaf():
    """A tampered update of one small leaf moves most of its values, each within its cap in a
    noisy bf16 leaf: the state's allowance (ten outliers in 100,000 values) must not admit them
    all, so a leaf holds at most max(2, ceil(1e-3 * its values)) outliers."""
    from zkdv.session._checker import StateReplay, state_result

    tolerance = zkdv.Tolerance(abs=1e-6, rel=1e-5, spread=32.0, replays=8)
    small, n = 64, 100_000
    committed = np.full(n, 0.5)
    recomputed = committed.copy()
    spread = np.zeros(n)
    spread[0] = 0.01  # a noisy leaf: the members moved one of its values by 0.01
    state = StateReplay(
        committed,
        recomputed,
        groups=[(small, True), (n - small, True)],
        update=np.zeros(n),
        flips=True,
    )
    recomputed[10:12] += 0.3  # two flips: admitted
    check = state_result(3, state, tolerance, 0, spread)
    assert check.passed and check.outliers == 2
    recomputed[12] += 0.3  # a third value of the leaf moved as far fails the check
    check = state_result(3, state, tolerance, 0, spread)
    assert not check.passed and check.position == 10 and check.outliers == 0


def test_a_state_check_fails_a_leaf_whose_differences_keep_one_direction(tmp_path):
    """A tampered update of one leaf can keep every value inside its bound (an update of
    5e-4 scaled by 1.001 moves it by 5e-7, within 32 spreads of 5e-8), but it moves the whole
    leaf in one direction, and rounding noise does not: the bias test fails the check, names
    the leaf, and the record carries it. Without those spreads the same values are refused
    pair by pair: the absolute term (1e-6, twice the move) is scaled to each row's values."""
    from zkdv.session._checker import StateReplay, state_result

    tolerance = zkdv.Tolerance(abs=1e-6, rel=1e-5, spread=32.0, replays=8)
    rng = np.random.default_rng(0)
    n = 4096
    recomputed = rng.normal(0.0, 2e-4, 2 * n)
    noise = rng.normal(0.0, 1e-10, 2 * n)  # a few ulps of rounding, either way
    committed = recomputed + noise
    groups = [(n, True), (n, True)]

    def state(values: np.ndarray, flips: bool = False) -> StateReplay:
        return StateReplay(
            values,
            recomputed,
            groups=groups,
            update=np.zeros(2 * n),
            names=["update of w", "update of b"],
            flips=flips,
        )

    assert state_result(3, state(committed), tolerance, 0).passed
    tampered = committed.copy()
    tampered[n:] = recomputed[n:] * 1.001 + noise[n:]
    check = state_result(3, state(tampered), tolerance, 0)
    assert not check.passed and check.first_failure == 0 and check.bias is None
    assert check.scale is not None and check.pair_tolerance.abs == 1e-5 * check.scale < 1e-8
    message = str(zkdv.ZKDVPoisonedError.from_check(check))
    assert f"the absolute term scaled to its row's largest value, {check.scale!r}" in message
    record = check.to_record()
    assert record["scale"] == check.scale
    assert zkdv.CheckResult.from_record(record) == check
    # Without its scale the record's pair would pass, contradicting its verdict.
    with pytest.raises(ValueError, match="contradicts"):
        zkdv.CheckResult.from_record({k: v for k, v in record.items() if k != "scale"})
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="scale must be finite"):
            zkdv.CheckResult.from_record({**record, "scale": bad})
    update = {**record, "kind": "update", "indices": [0], "verdict": "pass", "scale": 1.0}
    with pytest.raises(ValueError, match="only a state check records a row scale"):
        zkdv.CheckResult.from_record(update)
    room = np.full(2 * n, 5e-8)
    check = state_result(3, state(tampered), tolerance, 0, room)
    assert not check.passed and check.first_failure is None and check.margin() > 1
    assert check.bias is not None and check.bias.kind == "scale" and check.bias.leaf == 1
    assert abs(check.bias.value - 1e-3) < 1e-5 and check.bias.limit == 1e-4
    message = str(zkdv.ZKDVPoisonedError.from_check(check))
    assert "update of b: its differences follow the replayed values scaled by +1.000e-03" in (
        message
    )
    record = check.to_record()
    assert record["bias"] == {"leaf": 1, "kind": "scale", "value": check.bias.value, "limit": 1e-4}
    assert zkdv.CheckResult.from_record(record) == check
    # In a bf16 program the scale test needs the measured spread (its member scales come with
    # it) and refuses from 1e-3 on: a leaf scaled by 1.01, each value inside its bound.
    wide = np.full(2 * n, 5e-7)
    scaled = committed.copy()
    scaled[n:] = recomputed[n:] * 1.01 + noise[n:]
    check = state_result(3, state(scaled, flips=True), tolerance, 0, wide)
    assert not check.passed and check.first_failure is None
    assert check.bias is not None and check.bias.kind == "scale" and check.bias.limit == 1e-3
    # The mean test reads the measured spread: two spreads one way fail, the same
    # differences either way are noise.
    spread = np.full(2 * n, 1e-8)
    shifted = committed.copy()
    shifted[:n] = recomputed[:n] + 2e-8
    check = state_result(3, state(shifted, flips=True), tolerance, 0, spread)
    assert not check.passed and check.bias is not None and check.bias.kind == "mean"
    assert check.bias.leaf == 0 and abs(check.bias.value - 2.0) < 1e-6
    shifted[:n] = recomputed[:n] + 2e-8 * np.resize([1.0, -1.0], n)
    assert state_result(3, state(shifted, flips=True), tolerance, 0, spread).passed
    # Every statistic, refused or not, is there for a diagnostic: the honest leaves' scales
    # (f32) and the means (with a spread), each below its limit, and the tampered leaf's scale.
    honest = tolerance.leaf_statistics(committed, recomputed, groups, spread)
    assert [(leaf, kind) for leaf, kind, _, _ in honest] == [
        (0, "scale"),
        (0, "mean"),
        (1, "scale"),
        (1, "mean"),
    ]
    assert all(abs(value) <= limit for _, _, value, limit in honest)
    _, kind, value, limit = tolerance.leaf_statistics(tampered, recomputed, groups)[1]
    assert kind == "scale"
    assert abs(value - 1e-3) < 1e-5 and limit == 1e-4
    # A bias is a state check's, and only a refused one: a record is refused otherwise.
    with pytest.raises(ValueError, match="must exceed its limit"):
        zkdv.LeafBias(0, "scale", 1e-5, 1e-4)
    with pytest.raises(ValueError, match="only a state check records a leaf bias"):
        update_check(verdict="fail", bias=zkdv.LeafBias(0, "scale", 1e-3, 1e-4))


def test_poisoned_error_from_a_passing_check_is_refused():
    with pytest.raises(ValueError, match="passed"):
        zkdv.ZKDVPoisonedError.from_check(update_check())


def test_poisoned_error_failure_record_is_the_close_record_field():
    e = zkdv.ZKDVPoisonedError(2, 9, detail="x")
    assert e.to_failure_record() == {
        "step": 2,
        "kind": "update",
        "coordinate": 9,
        "message": "x",
    }
    # What the record's other fields say is not said again in its message (a reader prints
    # "update check of step 2 failed: x").
    assert "step" not in zkdv.ZKDVPoisonedError(2, 9).to_failure_record()["message"]


def test_poisoned_error_pickles():
    e = zkdv.ZKDVPoisonedError.from_check(update_check(recomputed=(1.5, 2.0), verdict="fail"))
    again = pickle.loads(pickle.dumps(e))
    assert str(again) == str(e) and (again.step, again.coordinate) == (7, 11)
    assert again.check == e.check


def test_poisoned_error_validates_its_fields():
    with pytest.raises(ValueError, match="kind must be 'state' or 'update'"):
        zkdv.ZKDVPoisonedError(1, kind="other")
    with pytest.raises(TypeError, match="step must be an integer"):
        zkdv.ZKDVPoisonedError("1")


# ---------------------------------------------------------------- lazy frontends


def test_root_exports():
    for name in [
        "ZKDVConfig",
        "SamplingPolicy",
        "Tolerance",
        "CheckResult",
        "ZKDVPoisonedError",
        "overlap",
        "transcript",
        "hashing",
    ]:
        assert name in zkdv.__all__ and hasattr(zkdv, name)
    assert "jax" not in zkdv.__all__ and "torch" not in zkdv.__all__


def test_public_names_have_docstrings():
    import zkdv.checks
    import zkdv.config

    for module in (zkdv, zkdv.config, zkdv.checks, overlap):
        assert module.__doc__
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type | types.FunctionType | types.ModuleType):
                assert value.__doc__, f"{module.__name__}.{name}"
    for method in ("to_record", "from_record", "DEBUGCheckEvery"):
        assert getattr(zkdv.SamplingPolicy, method).__doc__


def test_unknown_attributes_raise_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'tensorflow'"):
        zkdv.tensorflow  # noqa: B018


def test_import_zkdv_loads_no_frontend_module():
    result = run_python(
        """
        import sys, zkdv
        cfg = zkdv.ZKDVConfig(sampling_policy=zkdv.SamplingPolicy.DEBUGCheckEvery(2))
        zkdv.overlap.resolve(None)
        assert "jax" not in vars(zkdv) and "torch" not in vars(zkdv)
        assert not [m for m in ("zkdv.jax", "zkdv.torch") if m in sys.modules]
        bad = [m for m in FRAMEWORKS if m in sys.modules]
        assert not bad, bad
        """.replace("FRAMEWORKS", repr(FRAMEWORKS))
    )
    assert result.returncode == 0, result.stderr


def frontend_exists(name):
    import importlib.util

    return importlib.util.find_spec(f"zkdv.{name}") is not None


def test_missing_frontend_module_raises_import_error_saying_so():
    # Both frontends are in this build; a build without one (hidden here) says so.
    assert frontend_exists("jax") and frontend_exists("torch")
    result = run_python(
        """
        import sys
        sys.modules["zkdv.torch"] = None
        import zkdv
        try:
            zkdv.torch
        except ImportError as error:
            print(error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "the PyTorch frontend is not available in this build" in result.stdout


@pytest.mark.parametrize("name", ["jax", "torch"])
def test_missing_framework_raises_import_error_with_the_pip_extra(name):
    # The framework is hidden (None in sys.modules): whether or not the frontend module exists,
    # the error gives the install command, and neither frontend nor framework gets imported.
    result = run_python(
        f"""
        import sys
        sys.modules[{name!r}] = None
        import zkdv
        try:
            zkdv.{name}
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("no ImportError")
        assert "zkdv.{name}" not in sys.modules
        """
    )
    assert result.returncode == 0, result.stderr
    assert f"pip install 'zkdv[{name}]'" in result.stdout


def fake_frontend_code(tmp_path, name, frontend_body, hide=None):
    """Code that runs against a fake framework ``name`` and a fake frontend ``zkdv.<name>``.

    Both live in tmp_path (sys.path and an extra entry of ``zkdv.__path__``), not in the package.
    """
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / f"{name}.py").write_text("FAKE = 'framework'\n")
    (tmp_path / "frontends").mkdir()
    (tmp_path / "frontends" / f"{name}.py").write_text(frontend_body)
    return f"""
        import sys
        sys.path.insert(0, {str(tmp_path / "site")!r})
        {f"sys.modules[{hide!r}] = None" if hide else ""}
        import zkdv
        zkdv.__path__.insert(0, {str(tmp_path / "frontends")!r})
        assert {name!r} not in sys.modules
    """


def test_existing_frontend_is_imported_on_first_access_and_then_bound(tmp_path):
    code = fake_frontend_code(tmp_path, "torch", "import torch\nVALUE = torch.FAKE\n")
    code += """
        first = zkdv.torch
        assert first.VALUE == "framework" and sys.modules["zkdv.torch"] is first
        assert vars(zkdv)["torch"] is first and zkdv.torch is first
        from zkdv import torch as again
        assert again is first
        print("ok")
    """
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_frontend_missing_a_package_of_its_extra_gives_the_install_hint():
    # zkdv[jax] also installs flax and optax: the real zkdv.jax failing to import flax says so.
    pytest.importorskip("jax")
    code = """
        import sys
        sys.modules["flax"] = None  # as if flax were not installed
        import zkdv
        try:
            zkdv.jax
        except ImportError as error:
            print(error)
    """
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert "zkdv.jax needs 'flax'" in result.stdout
    assert "pip install 'zkdv[jax]'" in result.stdout


def test_frontend_failing_on_an_unrelated_module_propagates_that_error(tmp_path):
    code = fake_frontend_code(tmp_path, "torch", "import zkdv_no_such_dependency\n")
    code += """
        try:
            zkdv.torch
        except ModuleNotFoundError as error:
            assert error.name == "zkdv_no_such_dependency", error
            print("propagated")
    """
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "propagated"


def test_a_check_measures_the_ensemble_until_its_values_pass():
    tolerance = zkdv.Tolerance(abs=1e-6, rel=1e-5, spread=32.0, replays=8)
    calls: list[int] = []

    def member(m: int) -> np.ndarray:
        calls.append(m)
        return np.array([1.0 + 1e-6 * (m + 1), 2.0])

    # Off by 1e-4: within 1e-6 + 1e-5 + 32 spreads once a member moved it by 3e-6.
    measured = tolerance.measure_spread_for([1.0 + 1e-4, 2.0], [1.0, 2.0], member)
    assert measured.members == 3 and calls == [0, 1, 2] and measured.scales == []
    assert measured.spread[0] == pytest.approx(3e-6) and measured.spread[1] == 0.0
    # Far off: every member, and the whole ensemble's spread.
    calls.clear()
    far = tolerance.measure_spread_for([1.1, 2.0], [1.0, 2.0], member)
    assert far.members == 8 and calls == list(range(8))
    assert np.array_equal(far.spread, tolerance.measure_spread([1.0, 2.0], member))
    # As a state: the scales come with the spread, and the same stop.
    groups = [(2, True)]
    state = tolerance.measure_ensemble_for(
        [1.0 + 1e-4, 2.0], [1.0, 2.0], member, [0.0, 0.0], groups
    )
    assert state.members == 3 and len(state.scales) == 1
    with pytest.raises(ValueError):
        tolerance.measure_spread_for([1.0], [1.0, 2.0], member)
