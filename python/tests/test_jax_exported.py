"""The private-API module ``zkdv.jax._exported``: a JAX upgrade that breaks it fails here."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from zkdv import passes  # noqa: E402
from zkdv.jax import _exported  # noqa: E402


def step(p, o, b):
    new = tuple(x - 0.1 * jnp.tanh(x) * jnp.sum(b.astype(jnp.float32)) for x in p)
    return new, tuple(v + 1 for v in o), tuple(n - x for n, x in zip(new, p, strict=True)), ()


ARGS = (
    (np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), np.ones(4, np.float32)),
    (np.zeros(3, np.float32),),
    np.arange(4, dtype=np.uint32).reshape(2, 2),
)


def avals_of(text):
    """The signature of ``text``'s ``main`` and its argument and result avals."""
    sig = _exported.signature(text)
    in_avals = [jax.core.ShapedArray(s, d) for s, d in sig.arguments]
    out_avals = [jax.core.ShapedArray(s, d) for s, d in sig.results]
    return sig, in_avals, out_avals


def exported():
    return jax.export.export(jax.jit(step, keep_unused=True))(*ARGS)


def test_generic_text_is_generic_form_without_locations():
    text = _exported.generic_text(exported())
    assert '"func.func"' in text and '"stablehlo.' in text
    assert "loc(" not in text


def test_signature_reads_main():
    sig = _exported.signature(_exported.generic_text(exported()))
    assert sig.arguments == (
        ((2, 3), np.dtype(np.float32)),
        ((4,), np.dtype(np.float32)),
        ((3,), np.dtype(np.float32)),
        ((2, 2), np.dtype(np.uint32)),
    )
    assert len(sig.results) == 5


def test_replacing_the_module_with_itself_is_bitwise_equal_to_jax_jit():
    e = exported()
    text = _exported.generic_text(e)
    rewritten = _exported.replace_module(e, text, e.in_avals, e.out_avals)
    flat = jax.tree.leaves(ARGS)
    got = jax.jit(rewritten.call)(*flat)
    want = jax.tree.leaves(jax.jit(step)(*ARGS))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_added_arguments_and_results_with_donation():
    e = exported()
    text, _ = passes.run_passes(
        _exported.generic_text(e), ["zkdv-annotate-roles", "zkdv-insert-commitments=ratio=0.5"]
    )
    sig, in_avals, out_avals = avals_of(text)
    assert len(in_avals) == len(e.in_avals) + 2  # one probe weight per parameter leaf
    assert len(out_avals) == len(e.out_avals) + 2  # one sketch per delta leaf
    rewritten = _exported.replace_module(e, text, in_avals, out_avals)
    call = jax.jit(rewritten.call, donate_argnums=(0, 1))
    params = [jax.device_put(x) for x in ARGS[0]]
    weights = [np.ones(s, np.float32) for s, _ in sig.arguments[4:]]
    out = call(*params, ARGS[1][0], ARGS[2], *weights)
    assert all(p.is_deleted() for p in params)
    want = jax.tree.leaves(jax.jit(step)(*ARGS))
    for g, w in zip(out[: len(want)], want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    # With all-ones weights, the sketch of the first delta sums its rows in blocks.
    assert out[-2].shape == (2, 2)


def test_multi_platform_exports_are_refused():
    e = exported()
    import dataclasses

    two = dataclasses.replace(e, platforms=("cpu", "cuda"))
    with pytest.raises(ValueError, match="single-platform"):
        _exported.replace_module(two, _exported.generic_text(e), e.in_avals, e.out_avals)


def test_dropped_results_are_described_by_kept_results():
    e = exported()
    text, _ = passes.run_passes(
        _exported.generic_text(e),
        ["zkdv-annotate-roles", "zkdv-insert-commitments=ratio=0.5 drop-deltas"],
    )
    sig, in_avals, out_avals = avals_of(text)
    kept = [0, 1, 2]  # post params (2) and post optimizer state (1); the 2 deltas are dropped
    rewritten = _exported.replace_module(e, text, in_avals, out_avals, kept)
    assert len(rewritten.out_avals) == 3 + 2  # kept results, then one sketch per delta
    weights = [np.ones(s, np.float32) for s, _ in sig.arguments[4:]]
    out = jax.jit(rewritten.call)(*jax.tree.leaves(ARGS), *weights)
    want = jax.tree.leaves(jax.jit(step)(*ARGS))[:3]
    for g, w in zip(out[:3], want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def callback_step(p0, p1, o, b):
    """``step`` with a host callback in it, which ``jax.export`` refuses."""
    scale = jax.pure_callback(
        lambda s: np.float32(s) * np.float32(0.5), jax.ShapeDtypeStruct((), jnp.float32), b.sum()
    )
    new, post_o, deltas, _ = step((p0, p1), (o,), b.astype(jnp.float32) * scale)
    return new, post_o, deltas, ()


def test_a_lowering_with_host_callbacks_compiles_rewritten_with_donation():
    flat = jax.tree.leaves(ARGS)
    with pytest.raises(NotImplementedError, match="host_callbacks"):
        jax.export.export(jax.jit(callback_step))(*flat)
    lowered = jax.jit(callback_step, keep_unused=True, donate_argnums=(0, 1)).trace(*flat).lower()
    text, _ = passes.run_passes(
        _exported.lowered_text(lowered),
        ["zkdv-annotate-roles", "zkdv-insert-commitments=ratio=0.5 drop-deltas"],
    )
    sig, in_avals, out_avals = avals_of(text)
    compiled = _exported.compile_lowered(lowered, text, in_avals, out_avals, [0, 1, 2])
    params = [jax.device_put(x) for x in flat[:2]]
    weights = [np.ones(s, np.float32) for s, _ in sig.arguments[4:]]
    out = compiled(*params, *flat[2:], *weights)
    assert all(p.is_deleted() for p in params)  # the donation survived the rewrite
    want = jax.tree.leaves(jax.jit(callback_step)(*flat))[:3]
    assert len(out) == 3 + 2  # post params, post optimizer state, then two sketches
    for g, w in zip(out[:3], want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    with pytest.raises(ValueError, match="keep_unused"):
        dropped = jax.jit(lambda x, y: x).trace(*flat[:2]).lower()
        _exported.compile_lowered(dropped, _exported.lowered_text(dropped), [], [], [0])


def test_ordered_effects_are_seen_on_a_lowering():
    from jax.experimental import io_callback

    def ordered(x):
        io_callback(lambda s: None, None, x.sum(), ordered=True)
        return x + 1

    x = np.ones(3, np.float32)
    assert _exported.has_ordered_effects(jax.jit(ordered).trace(x).lower())
    assert not _exported.has_ordered_effects(jax.jit(lambda x: x + 1).trace(x).lower())


MANUAL = """
"builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<1xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}]>]>}> ({
    ^bb0(%y: tensor<1xf32>):
      %1 = "func.call"(%y) <{callee = @square}> : (tensor<1xf32>) -> tensor<1xf32>
      %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "d">]>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %3 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%3) : (tensor<f32>) -> ()
      }) : (tensor<1xf32>) -> tensor<1xf32>
      "sdy.return"(%2) : (tensor<1xf32>) -> ()
    }) : (tensor<2xf32>) -> tensor<1xf32>
    "func.return"(%0) : (tensor<1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<1xf32>) -> tensor<1xf32>, sym_name = "square", sym_visibility = "private"}> ({
  ^bb0(%z: tensor<1xf32>):
    %4 = "func.call"(%z) <{callee = @times}> : (tensor<1xf32>) -> tensor<1xf32>
    "func.return"(%4) : (tensor<1xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<1xf32>) -> tensor<1xf32>, sym_name = "times", sym_visibility = "private"}> ({
  ^bb0(%w: tensor<1xf32>):
    %5 = "stablehlo.multiply"(%w, %w) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
    "func.return"(%5) : (tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"""  # noqa: E501


def test_calls_inside_a_manual_computation_are_inlined_for_the_rust_passes():
    """``jax.shard_map`` puts its body in ``sdy.manual_computation``; helpers JAX outlines as
    private functions (``relu``) are called from inside it, which the Rust parser cannot
    resolve. The frontend inlines them (callees of callees too) in JAX's context, after
    which the Rust passes parse the module and the runtime runs the body once per device."""
    from zkdv.runtime import Program

    with pytest.raises(ValueError, match="inline the calls inside the body first"):
        passes.run_passes(MANUAL, ["zkdv-dce"])
    text = _exported._module_for_passes(MANUAL)
    manual = text[text.index('"sdy.manual_computation"') : text.index('"sdy.return"')]
    assert "func.call" not in manual and '"stablehlo.multiply"' in manual
    text, _ = passes.run_passes(text, ["zkdv-inline"])
    (total,) = Program(text)(np.array([3.0, 4.0], np.float32))
    assert total.tolist() == [25.0]  # 3 * 3 on device 0 plus 4 * 4 on device 1
