"""zkdv.hashing on numpy arrays."""

import numpy as np
import pytest

from zkdv import _native, hashing


def test_commitment_binds_dtype_shape_and_contents():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    c = hashing.commit_tensor(a)
    assert len(c.digest) == 32 and len(c.root) == 32
    assert c.byte_len == 48 and c.leaf_count == 1
    assert hashing.commit_tensor(a.copy()).digest == c.digest
    assert hashing.commit_tensor(a.reshape(4, 3)).digest != c.digest
    assert hashing.commit_tensor(a.astype(np.int32)).digest != c.digest
    b = a.copy()
    b[2, 3] = np.nextafter(b[2, 3], np.float32(100))
    assert hashing.commit_tensor(b).digest != c.digest


def test_layout_does_not_matter_only_logical_contents():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    fortran = np.asfortranarray(a)
    strided = np.arange(48, dtype=np.float64).reshape(4, 12)[:, ::2]
    big_endian = a.astype(">f8")
    digest = hashing.commit_tensor(a).digest
    assert hashing.commit_tensor(fortran).digest == digest
    assert hashing.commit_tensor(big_endian).digest == digest
    assert hashing.commit_tensor(strided).digest == hashing.commit_tensor(strided.copy()).digest


@pytest.mark.parametrize(
    "dtype",
    [
        np.float64,
        np.float32,
        np.float16,
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
    ],
)
def test_every_supported_dtype(dtype):
    a = np.ones((2, 3), dtype=dtype)
    assert len(hashing.commit_tensor(a).digest) == 32
    assert hashing.commit_tensor(np.zeros((0, 3), dtype=dtype)).byte_len == 0
    assert hashing.commit_tensor(np.array(1, dtype=dtype)).leaf_count == 1


def test_unsupported_dtype_is_a_clear_type_error():
    with pytest.raises(TypeError, match="cannot commit dtype complex64"):
        hashing.commit_tensor(np.zeros(3, dtype=np.complex64))


def test_large_tensor_spans_many_chunks():
    a = np.arange(1 << 20, dtype=np.float32)
    c = hashing.commit_tensor(a)
    assert c.leaf_count == (4 << 20) // 16384


def test_tree_commitment_is_ordered_and_rejects_duplicates():
    x, y = b"\x01" * 32, b"\x02" * 32
    assert hashing.commit_tree([("a", x), ("b", y)]) != hashing.commit_tree([("b", y), ("a", x)])
    with pytest.raises(ValueError, match="a"):
        hashing.commit_tree([("a", x), ("a", y)])
    with pytest.raises(ValueError, match="32 bytes"):
        hashing.commit_tree([("a", b"short")])


def test_rolling_hashes_and_batch_commitment():
    rows = np.arange(20, dtype=np.uint32).reshape(4, 5)
    h = hashing.window_hashes(rows[0], 2)
    assert h.dtype == np.uint64 and h.shape == (4,)
    # Equal windows hash equally wherever they sit.
    row = np.array([7, 8, 7, 8, 7], dtype=np.uint32)
    w = hashing.window_hashes(row, 2)
    assert w[0] == w[2] and w[1] == w[3] and w[0] != w[1]
    c = hashing.commit_batch(rows, 3)
    assert (c.rows, c.width, c.window) == (4, 5, 3)
    assert len(c.root) == 32 and c.digest != c.root
    changed = rows.copy()
    changed[3, 4] += 1
    assert hashing.commit_batch(changed, 3).root != c.root
    with pytest.raises(ValueError, match="exceeds the packed row width 5"):
        hashing.commit_batch(rows, 6)
    with pytest.raises(TypeError, match="uint32"):
        hashing.commit_batch(rows.astype(np.int64), 2)


def test_probe_map_is_orthonormal_deterministic_and_sketches_like_a_matmul():
    seed = bytes(range(32))
    p = hashing.probe_map(seed, "params/w", (6, 40), 0.1)
    assert (p.d, p.k) == (40, 4)
    dense = p.to_dense()
    np.testing.assert_allclose(dense.T @ dense, np.eye(4), atol=1e-12)
    again = hashing.probe_map(seed, "params/w", (6, 40), 0.1)
    np.testing.assert_array_equal(again.to_dense(), dense)
    other = hashing.probe_map(seed, "params/v", (6, 40), 0.1)
    assert not np.array_equal(other.to_dense(), dense)
    x = np.random.default_rng(1).normal(size=(6, 40))
    for dtype, rtol in [(np.float64, 1e-12), (np.float32, 1e-6), (np.float16, 1e-3)]:
        xd = x.astype(dtype)
        np.testing.assert_allclose(
            hashing.sketch(p, xd), xd.astype(np.float64) @ dense, rtol=rtol, atol=1e-12
        )
    with pytest.raises(ValueError):
        hashing.probe_map(seed, "w", (3,), 0.0)
    with pytest.raises(ValueError, match="32 bytes"):
        hashing.probe_map(b"short", "w", (3,), 0.5)


def test_weights_and_blocks_are_the_dense_map():
    p = hashing.probe_map(bytes(range(32)), "params/w", (6, 41), 0.1)  # d = 41, k = 5
    weight = p.weights()
    assert (weight.dtype, weight.shape) == (np.float32, (41,))
    long, q = p.blocks
    assert (long, q) == (1, 8)  # one column of 9 coordinates, four of 8
    columns = np.repeat(np.arange(p.k), [q + 1] * long + [q] * (p.k - long))
    np.testing.assert_array_equal(p.column, columns)
    dense = np.zeros((p.d, p.k))
    dense[np.arange(p.d), columns] = weight
    np.testing.assert_allclose(dense, p.to_dense(), rtol=1e-7)


def test_bfloat16_when_ml_dtypes_is_present():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.arange(8, dtype=np.float32).astype(ml_dtypes.bfloat16)
    assert hashing.dtype_tag(a.dtype) == "bf16"
    p = hashing.probe_map(b"\x00" * 32, "x", (8,), 0.5)
    np.testing.assert_allclose(hashing.sketch(p, a), a.astype(np.float64) @ p.to_dense())


def test_scalars_keep_rank_zero():
    # np.ascontiguousarray would turn a 0-d array into shape (1,): a scalar
    # leaf must commit as shape [] (the Rust side decides the digest).
    scalar = hashing.commit_tensor(np.float32(1.5))
    assert (
        scalar.digest
        == _native.commit_tensor("f32", [], np.array([1.5], np.float32).view(np.uint8)).digest
    )
    assert scalar.digest != hashing.commit_tensor(np.array([1.5], np.float32)).digest
    assert hashing.commit_tensor(np.array(1.5, np.float32)).digest == scalar.digest


def test_commit_tensor_tree_is_commit_tree_of_tensor_digests():
    import ml_dtypes

    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    leaves = [
        ("f64", base),
        ("f32", base.astype(np.float32)),
        ("f32 strided", base.astype(np.float32)[:, ::2]),
        ("f32 big-endian", base.astype(">f4")),
        ("i32", np.arange(5, dtype=np.int32)),
        ("u64 scalar", np.uint64(7)),
        ("bool", np.array([True, False, True])),
        ("bf16", base.astype(ml_dtypes.bfloat16)),
        ("u8", np.arange(3, dtype=np.uint8)),
    ]
    want = hashing.commit_tree((p, hashing.commit_tensor(a).digest) for p, a in leaves)
    assert hashing.commit_tensor_tree(leaves) == want
    with pytest.raises(ValueError):
        hashing.commit_tensor_tree([("a", base), ("a", base)])
    with pytest.raises(TypeError):
        hashing.commit_tensor_tree([("c", np.zeros(2, np.complex64))])
