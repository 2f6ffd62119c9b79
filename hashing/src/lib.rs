//! Public hashing foundation of ZKDV: canonical tensor commitments with
//! element openings, ordered tree commitments, rolling window hashes over
//! packed batch rows, and deterministic orthonormal probe maps.
//!
//! This documentation is normative: the constructions below are specified
//! exactly, byte for byte, so that an independent implementation can
//! reproduce every digest. The test vectors in `tests/vectors/vectors.txt` check such
//! an implementation.
//!
//! # Conventions
//!
//! * All integers are encoded little-endian; `u64(x)` is the 8-byte
//!   little-endian encoding of `x`, `u32(x)` the 4-byte one and `u8(x)` the
//!   single byte `x`.
//! * `||` is concatenation.
//! * `K(purpose)` is the 32-byte key `blake3::derive_key(context, b"")` for the
//!   purpose's context string, and `H(purpose, m)` is blake3 in keyed mode
//!   with key `K(purpose)` over message `m`, with the default 32-byte output.
//!
//! | purpose       | context string           |
//! |---------------|--------------------------|
//! | tensor leaf   | `"zkdv tensor leaf v1"`  |
//! | Merkle node   | `"zkdv merkle node v1"`  |
//! | tensor        | `"zkdv tensor v1"`       |
//! | tree          | `"zkdv tree v1"`         |
//! | batch row     | `"zkdv batch row v2"`    |
//! | batch         | `"zkdv batch v1"`        |
//! | probe map     | `"zkdv probe map v2"`    |
//!
//! # Merkle trees
//!
//! A Merkle tree is built over a non-empty list of 32-byte leaves. While a
//! level has `n >= 2` nodes, the next level has `ceil(n / 2)` nodes: node `i`
//! is `H(Merkle node, L[2i] || L[2i+1])`, and when `n` is odd the last node
//! `L[n-1]` is carried up unchanged (it is not hashed). The root is the only
//! node of the final level; the root of a one-leaf tree is that leaf.
//! [`MerkleProof`] lists the siblings met on the way up, skipping levels where
//! the node is carried.
//!
//! # Tensor commitments
//!
//! A tensor is a [`DType`], a shape `[d_0, ..., d_{r-1}]` (`r = 0` is a
//! scalar) and its elements in row-major order, each little-endian in
//! `dtype.size_bytes()` bytes (`i1` is one byte per boolean). The byte length
//! must be exactly `N = d_0 * ... * d_{r-1} * size_bytes`, computed without
//! overflow.
//!
//! 1. The bytes are split into consecutive chunks of [`CHUNK_BYTES`] = 16384
//!    bytes; the last chunk may be shorter. An empty tensor (`N = 0`) has a
//!    single empty chunk.
//! 2. Leaf `j` is `H(tensor leaf, chunk_j)`.
//! 3. `root` is the Merkle root of the leaves.
//! 4. The tensor digest is `H(tensor, header || root)` where
//!    `header = u8(len(tag)) || tag || u64(r) || u64(d_0) || ... || u64(d_{r-1}) || u64(N)`
//!    and `tag` is the ASCII of [`DType::tag`] (`"f64"`, `"f32"`, `"f16"`,
//!    `"bf16"`, `"i1"`, `"i8"`, `"i16"`, `"i32"`, `"i64"`, `"u8"`, `"u16"`,
//!    `"u32"`, `"u64"`).
//!
//! [`commit_tensor`] hashes leaves in parallel from
//! [`PARALLEL_THRESHOLD_BYTES`] on; [`commit_tensor_with`] chooses the mode
//! explicitly. The digest never depends on the mode.
//!
//! [`open_element`] proves element `e` (row-major) by revealing chunk
//! `j = floor(e * size_bytes / CHUNK_BYTES)` and that leaf's [`MerkleProof`].
//! [`ElementOpening::verify`] requires `e < numel`, `j` as above, the leaf
//! count `max(1, ceil(N / CHUNK_BYTES))`, the chunk length
//! `min(CHUNK_BYTES, N - j * CHUNK_BYTES)`, and that the root recomputed from
//! `H(tensor leaf, chunk)` and the path yields the expected tensor digest.
//!
//! # Tree commitments
//!
//! [`commit_tree`] commits to named leaf digests `(path_i, digest_i)`,
//! `i < n`, in the given order (paths pairwise distinct):
//! `H(tree, u64(n) || for each i: u64(len(path_i)) || path_i || digest_i)`
//! where `path_i` is UTF-8 and `len` counts bytes.
//!
//! # Rolling window hashes and batch commitments
//!
//! A batch is `rows x width` u32 words in row-major order, with a window
//! `1 <= w <= width`. For a row `x_0 .. x_{width-1}` the window hashes are,
//! for `j = 0 ..= width - w`,
//! `h_j = sum_{i < w} (x_{j+i} + 1) * B^(w-1-i) mod p` with
//! `p` = [`ROLLING_MODULUS`] `= 2^61 - 1` and `B` = [`ROLLING_BASE`]
//! (the first 8 bytes of `blake3::hash(b"zkdv rolling base v1")` as a
//! little-endian u64, reduced mod `p`). They are computed by rolling in
//! `O(width)`; see [`window_hashes`].
//!
//! * Row leaf ([`row_leaf`]):
//!   `H(batch row, u64(width) || u64(w) || u32(x_0) || ... || u32(x_{width-1}))`.
//!   The window hashes are a function of the words, so the leaf binds them
//!   without containing them; they are recomputed from a retained batch
//!   when someone asks, and never on the training path.
//! * `root` is the Merkle root of the row leaves in row order; a batch with
//!   zero rows has the single leaf `H(batch row, "")` (the empty message).
//! * Batch digest ([`commit_batch`]):
//!   `H(batch, u64(rows) || u64(width) || u64(w) || root)`.
//!
//! # Probe maps
//!
//! A probe map is a `d x k` matrix `P` with orthonormal columns, generated
//! for one leaf from a 32-byte `seed`, the leaf's `path` and its `shape`, and
//! a ratio in `(0, 1]` ([`ProbeMap::generate`]).
//!
//! * `d` is the last dimension of `shape` (1 for a rank-0 leaf); `d` must be
//!   at most `u32::MAX`.
//! * `k`: with `t = ratio * d` in IEEE f64 and `n = round(t)` (halves away
//!   from zero), `k = n` if `|t - n| <= 4 * f64::EPSILON * t` (so that
//!   `0.07 * 100 = 7.000000000000001` gives 7), otherwise `k = ceil(t)`; then
//!   `k` is clamped to `[1, d]` ([`ProbeMap::columns_for`]). A leaf with
//!   `d = 0` has `k = 0`: the map and every sketch are empty.
//! * Word stream: the blake3 XOF output of the keyed hasher with key
//!   `K(probe map)` over
//!   `seed || u64(len(path)) || path || u64(rank) || u64(dim_0) || ...`,
//!   read as consecutive 8-byte little-endian u64 words.
//! * Signs: take `ceil(d / 64)` words; row `i` uses bit `i mod 64` (least
//!   significant first) of word `floor(i / 64)`: bit 0 gives
//!   `sign[i] = +1`, bit 1 gives `sign[i] = -1`.
//! * Columns: contiguous balanced blocks ([`Blocks`]). With `q = floor(d/k)`
//!   and `long = d mod k`, column `c < long` holds rows
//!   `[c (q+1), (c+1)(q+1))` and column `c >= long` holds the `q` rows that
//!   follow column `c - 1`; so the supports `S_c` are disjoint, cover
//!   `0..d` in order, and have sizes `q + 1` or `q`.
//!   `scale[c] = 1.0 / sqrt(|S_c|)` in f64, and
//!   `P[i][column[i]] = sign[i] * scale[column[i]]` (zero elsewhere).
//!
//! Contiguous supports make the map cheap inside a compiled step: multiply
//! the leaf by one weight vector, reshape, and sum each block
//! ([`ProbeMap::weights`], `--zkdv-insert-commitments`), with no gather and
//! no matmul. The signs are what makes the sketch a random projection; the
//! map is public once the seed is (the root record carries it), so a random
//! permutation of the supports would add no protection.
//!
//! The sketch of a leaf of shape `[..., d]` with `rows = numel / d` is the
//! row-major `rows x k` matrix `Y = X P`, computed as: for each row `r` and
//! column `c`, start from `acc = 0.0` (f64), for `i` in `S_c` in increasing
//! order add `sign[i] * x[r][i]` (the element converted to f64), then
//! `y[r][c] = acc * scale[c]`.
//!
//! # Example
//!
//! ```
//! use zkdv_hashing::{commit_tensor, commit_tree, DType};
//!
//! let w: Vec<u8> = [0.5f32, -1.0, 2.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let b: Vec<u8> = [0.25f32, 0.75].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let cw = commit_tensor(DType::F32, &[2, 2], &w)?;
//! let cb = commit_tensor(DType::F32, &[2], &b)?;
//! let model = commit_tree(&[("fc.weight", cw.digest()), ("fc.bias", cb.digest())])?;
//! println!("model commitment {model}");
//! # Ok::<(), zkdv_hashing::HashError>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod digest;
mod dtype;
mod error;
mod merkle;
mod probe;
mod rolling;
mod tensor;
mod tree;

pub use digest::Digest;
pub use dtype::DType;
pub use error::HashError;
pub use merkle::{merkle_root, MerkleProof};
pub use probe::{Blocks, ProbeMap};
pub use rolling::{
    commit_batch, open_row, row_leaf, window_hashes, BatchCommitment, RowOpening, ROLLING_BASE,
    ROLLING_MODULUS,
};
pub use tensor::{
    commit_tensor, commit_tensor_with, open_element, ElementOpening, Parallelism, TensorCommitment,
    CHUNK_BYTES, PARALLEL_THRESHOLD_BYTES,
};
pub use tree::commit_tree;
