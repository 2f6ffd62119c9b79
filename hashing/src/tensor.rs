//! Canonical tensor commitments and element openings.

use rayon::prelude::*;

use crate::digest::{Digest, Domain};
use crate::dtype::DType;
use crate::error::HashError;
use crate::merkle::{self, MerkleProof};

/// Size of a Merkle leaf chunk of tensor bytes (16 KiB).
///
/// Every [`DType::size_bytes`] divides it, so no element straddles two
/// chunks. The last chunk of a tensor may be shorter.
pub const CHUNK_BYTES: usize = 16384;

/// Inputs of at least this many bytes have their leaves hashed in parallel
/// by [`commit_tensor`] (1 MiB).
pub const PARALLEL_THRESHOLD_BYTES: usize = 1 << 20;

/// How [`commit_tensor_with`] schedules leaf hashing. The commitment is the
/// same in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parallelism {
    /// Parallel from [`PARALLEL_THRESHOLD_BYTES`] on, sequential below.
    #[default]
    Auto,
    /// Everything on the calling thread.
    Sequential,
    /// Leaves (and large Merkle levels) on the rayon global pool.
    Parallel,
}

/// The result of [`commit_tensor`]: the tensor digest plus the metadata and
/// Merkle root it binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorCommitment {
    dtype: DType,
    shape: Vec<u64>,
    byte_len: u64,
    leaf_count: u64,
    root: Digest,
    digest: Digest,
}

impl TensorCommitment {
    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Shape, outermost dimension first.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Total byte length (`product(shape) * dtype.size_bytes()`).
    pub fn byte_len(&self) -> u64 {
        self.byte_len
    }

    /// Number of Merkle leaves (`max(1, ceil(byte_len / CHUNK_BYTES))`).
    pub fn leaf_count(&self) -> u64 {
        self.leaf_count
    }

    /// Merkle root over the chunk leaves.
    pub fn root(&self) -> Digest {
        self.root
    }

    /// The tensor commitment: keyed hash of the header and the root.
    pub fn digest(&self) -> Digest {
        self.digest
    }
}

/// Byte length implied by `dtype` and `shape`, with overflow checks.
pub(crate) fn expected_byte_len(dtype: DType, shape: &[u64]) -> Result<u64, HashError> {
    let overflow = || HashError::SizeOverflow {
        dtype,
        shape: shape.to_vec(),
    };
    let numel = shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(overflow)?;
    let len = numel
        .checked_mul(dtype.size_bytes() as u64)
        .ok_or_else(overflow)?;
    usize::try_from(len).map_err(|_| overflow())?;
    Ok(len)
}

fn check_bytes(dtype: DType, shape: &[u64], bytes: &[u8]) -> Result<u64, HashError> {
    let expected = expected_byte_len(dtype, shape)?;
    if bytes.len() as u64 != expected {
        return Err(HashError::ByteLengthMismatch {
            dtype,
            shape: shape.to_vec(),
            expected,
            actual: bytes.len() as u64,
        });
    }
    Ok(expected)
}

fn leaf_hash(chunk: &[u8]) -> Digest {
    Domain::TensorLeaf.hash(chunk)
}

fn leaf_count_for(byte_len: u64) -> u64 {
    byte_len.div_ceil(CHUNK_BYTES as u64).max(1)
}

fn leaf_hashes(bytes: &[u8], parallel: bool) -> Vec<Digest> {
    if bytes.is_empty() {
        vec![leaf_hash(&[])]
    } else if parallel {
        bytes.par_chunks(CHUNK_BYTES).map(leaf_hash).collect()
    } else {
        bytes.chunks(CHUNK_BYTES).map(leaf_hash).collect()
    }
}

/// Keyed hash (`"zkdv tensor v1"`) of the header and the Merkle root.
fn tensor_digest(dtype: DType, shape: &[u64], byte_len: u64, root: &Digest) -> Digest {
    let tag = dtype.tag().as_bytes();
    let mut h = Domain::Tensor.hasher();
    // tags are at most 4 bytes long, so the length always fits one byte
    h.update(&[tag.len() as u8]);
    h.update(tag);
    h.update(&(shape.len() as u64).to_le_bytes());
    for d in shape {
        h.update(&d.to_le_bytes());
    }
    h.update(&byte_len.to_le_bytes());
    h.update(root.as_bytes());
    h.finalize().into()
}

/// Commits to a tensor given its dtype, shape and little-endian row-major
/// bytes; large inputs are hashed in parallel ([`Parallelism::Auto`]).
///
/// ```
/// use zkdv_hashing::{commit_tensor, DType};
///
/// let values = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
/// let c = commit_tensor(DType::F32, &[2, 3], &bytes)?;
/// assert_eq!(c.byte_len(), 24);
/// assert_eq!(c.leaf_count(), 1);
///
/// // dtype, shape and content are all bound
/// assert_ne!(commit_tensor(DType::I32, &[2, 3], &bytes)?.digest(), c.digest());
/// assert_ne!(commit_tensor(DType::F32, &[3, 2], &bytes)?.digest(), c.digest());
/// assert!(commit_tensor(DType::F32, &[2, 2], &bytes).is_err());
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
pub fn commit_tensor(
    dtype: DType,
    shape: &[u64],
    bytes: &[u8],
) -> Result<TensorCommitment, HashError> {
    commit_tensor_with(dtype, shape, bytes, Parallelism::Auto)
}

/// [`commit_tensor`] with an explicit scheduling mode; the result does not
/// depend on `mode`.
pub fn commit_tensor_with(
    dtype: DType,
    shape: &[u64],
    bytes: &[u8],
    mode: Parallelism,
) -> Result<TensorCommitment, HashError> {
    let byte_len = check_bytes(dtype, shape, bytes)?;
    let parallel = match mode {
        Parallelism::Auto => bytes.len() >= PARALLEL_THRESHOLD_BYTES,
        Parallelism::Sequential => false,
        Parallelism::Parallel => true,
    };
    let leaves = leaf_hashes(bytes, parallel);
    let leaf_count = leaves.len() as u64;
    let root = merkle::root_of(leaves, parallel)?;
    Ok(TensorCommitment {
        dtype,
        shape: shape.to_vec(),
        byte_len,
        leaf_count,
        root,
        digest: tensor_digest(dtype, shape, byte_len, &root),
    })
}

/// Proof that one element belongs to a committed tensor: the whole chunk
/// holding it plus the Merkle path of that chunk's leaf.
///
/// The chunk index is `proof.leaf_index` and the leaf count
/// `proof.leaf_count`. All fields are public so openings can be serialized;
/// [`ElementOpening::verify`] treats every one of them as untrusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementOpening {
    /// Row-major index of the opened element.
    pub element_index: u64,
    /// The bytes of the chunk holding the element.
    pub chunk: Vec<u8>,
    /// Merkle path from the chunk's leaf to the root.
    pub proof: MerkleProof,
}

impl ElementOpening {
    /// Index of the chunk (Merkle leaf) holding the element.
    pub fn chunk_index(&self) -> u64 {
        self.proof.leaf_index
    }

    /// Checks the opening against a tensor digest
    /// ([`TensorCommitment::digest`]) for the given dtype and shape, and
    /// returns the little-endian bytes of the element.
    ///
    /// ```
    /// use zkdv_hashing::{commit_tensor, open_element, DType};
    ///
    /// let bytes: Vec<u8> = (0u16..10_000).flat_map(|v| v.to_le_bytes()).collect();
    /// let c = commit_tensor(DType::U16, &[100, 100], &bytes)?;
    /// let opening = open_element(DType::U16, &[100, 100], &bytes, 9_321)?;
    /// let value = opening.verify(&c.digest(), DType::U16, &[100, 100])?;
    /// assert_eq!(value, 9_321u16.to_le_bytes());
    /// assert!(opening.verify(&c.digest(), DType::I16, &[100, 100]).is_err());
    /// # Ok::<(), zkdv_hashing::HashError>(())
    /// ```
    pub fn verify(
        &self,
        commitment: &Digest,
        dtype: DType,
        shape: &[u64],
    ) -> Result<&[u8], HashError> {
        let fail = |reason| Err(HashError::VerificationFailed { reason });
        let byte_len = expected_byte_len(dtype, shape)?;
        let size = dtype.size_bytes() as u64;
        let numel = byte_len / size;
        if self.element_index >= numel {
            return Err(HashError::IndexOutOfRange {
                what: "elements",
                index: self.element_index,
                len: numel,
            });
        }
        let offset = self.element_index * size;
        let chunk_index = offset / CHUNK_BYTES as u64;
        if self.proof.leaf_index != chunk_index {
            return fail("chunk index does not hold the element");
        }
        if self.proof.leaf_count != leaf_count_for(byte_len) {
            return fail("leaf count does not match the shape");
        }
        let chunk_start = chunk_index * CHUNK_BYTES as u64;
        let chunk_len = (byte_len - chunk_start).min(CHUNK_BYTES as u64);
        if self.chunk.len() as u64 != chunk_len {
            return fail("chunk length does not match the shape");
        }
        let root = self.proof.compute_root(&leaf_hash(&self.chunk))?;
        if tensor_digest(dtype, shape, byte_len, &root) != *commitment {
            return fail("recomputed tensor digest differs from the commitment");
        }
        // offset - chunk_start < CHUNK_BYTES, so both casts are lossless
        let start = (offset - chunk_start) as usize;
        self.chunk
            .get(start..start + size as usize)
            .ok_or(HashError::VerificationFailed {
                reason: "element lies outside the chunk",
            })
    }
}

/// Opens element `element_index` (row-major) of a tensor; the result checks
/// against [`commit_tensor`]'s digest with [`ElementOpening::verify`].
///
/// This rehashes the whole tensor (in parallel from
/// [`PARALLEL_THRESHOLD_BYTES`] on), so its cost is that of a commitment.
pub fn open_element(
    dtype: DType,
    shape: &[u64],
    bytes: &[u8],
    element_index: u64,
) -> Result<ElementOpening, HashError> {
    let byte_len = check_bytes(dtype, shape, bytes)?;
    let size = dtype.size_bytes() as u64;
    let numel = byte_len / size;
    if element_index >= numel {
        return Err(HashError::IndexOutOfRange {
            what: "elements",
            index: element_index,
            len: numel,
        });
    }
    // element_index * size < byte_len <= usize::MAX (checked above)
    let chunk_index = (element_index * size) as usize / CHUNK_BYTES;
    let parallel = bytes.len() >= PARALLEL_THRESHOLD_BYTES;
    let leaves = leaf_hashes(bytes, parallel);
    let chunk = bytes
        .chunks(CHUNK_BYTES)
        .nth(chunk_index)
        .ok_or(HashError::IndexOutOfRange {
            what: "leaves",
            index: chunk_index as u64,
            len: leaves.len() as u64,
        })?
        .to_vec();
    Ok(ElementOpening {
        element_index,
        chunk,
        proof: MerkleProof::generate_owned(leaves, chunk_index),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8)
            .collect()
    }

    #[test]
    fn byte_length_is_validated() {
        let err = commit_tensor(DType::F32, &[2, 3], &[0; 23]).unwrap_err();
        assert_eq!(
            err,
            HashError::ByteLengthMismatch {
                dtype: DType::F32,
                shape: vec![2, 3],
                expected: 24,
                actual: 23
            }
        );
        assert!(matches!(
            commit_tensor(DType::F64, &[u64::MAX, 2], &[]),
            Err(HashError::SizeOverflow { .. })
        ));
        assert!(matches!(
            commit_tensor(DType::F64, &[1 << 61], &[]),
            Err(HashError::SizeOverflow { .. })
        ));
        // a zero dimension makes the product zero even next to a huge one
        assert!(commit_tensor(DType::F64, &[u64::MAX, 0], &[]).is_ok());
    }

    #[test]
    fn matches_the_written_definition() {
        let bytes = pattern(3 * CHUNK_BYTES + 100);
        let shape = [bytes.len() as u64 / 4];
        let c = commit_tensor(DType::U32, &shape, &bytes).unwrap();
        let l: Vec<Digest> = bytes.chunks(CHUNK_BYTES).map(leaf_hash).collect();
        let root = merkle::node(&merkle::node(&l[0], &l[1]), &merkle::node(&l[2], &l[3]));
        assert_eq!(c.root(), root);
        assert_eq!(c.leaf_count(), 4);
        let mut header = vec![3u8];
        header.extend_from_slice(b"u32");
        header.extend_from_slice(&1u64.to_le_bytes());
        header.extend_from_slice(&shape[0].to_le_bytes());
        header.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        header.extend_from_slice(root.as_bytes());
        let key = blake3::derive_key("zkdv tensor v1", b"");
        assert_eq!(c.digest(), Digest::from(blake3::keyed_hash(&key, &header)));
    }

    #[test]
    fn empty_tensor_has_one_empty_leaf() {
        for shape in [&[0u64][..], &[3, 0, 2][..]] {
            let c = commit_tensor(DType::BF16, shape, &[]).unwrap();
            assert_eq!(c.leaf_count(), 1);
            let key = blake3::derive_key("zkdv tensor leaf v1", b"");
            assert_eq!(c.root(), Digest::from(blake3::keyed_hash(&key, b"")));
            assert!(open_element(DType::BF16, shape, &[], 0).is_err());
        }
        assert_ne!(
            commit_tensor(DType::BF16, &[0], &[]).unwrap().digest(),
            commit_tensor(DType::BF16, &[3, 0, 2], &[])
                .unwrap()
                .digest()
        );
    }

    #[test]
    fn modes_agree() {
        for len in [
            0,
            1,
            CHUNK_BYTES - 1,
            CHUNK_BYTES,
            CHUNK_BYTES + 1,
            PARALLEL_THRESHOLD_BYTES - 8,
            PARALLEL_THRESHOLD_BYTES,
            PARALLEL_THRESHOLD_BYTES + 3 * CHUNK_BYTES + 8,
        ] {
            let bytes = pattern(len);
            let shape = [len as u64 / 8];
            let bytes = &bytes[..len / 8 * 8];
            let auto = commit_tensor(DType::F64, &shape, bytes).unwrap();
            for mode in [Parallelism::Sequential, Parallelism::Parallel] {
                assert_eq!(
                    commit_tensor_with(DType::F64, &shape, bytes, mode).unwrap(),
                    auto
                );
            }
        }
    }

    #[test]
    fn large_tensor_openings_across_chunks() {
        let bytes = pattern(PARALLEL_THRESHOLD_BYTES + 5 * CHUNK_BYTES + 12);
        let shape = [bytes.len() as u64 / 4];
        let c = commit_tensor(DType::F32, &shape, &bytes).unwrap();
        let last = shape[0] - 1;
        for idx in [0, 4095, 4096, 4097, 200_000, last] {
            let o = open_element(DType::F32, &shape, &bytes, idx).unwrap();
            let got = o.verify(&c.digest(), DType::F32, &shape).unwrap();
            let at = idx as usize * 4;
            assert_eq!(got, &bytes[at..at + 4]);
        }
        assert!(matches!(
            open_element(DType::F32, &shape, &bytes, last + 1),
            Err(HashError::IndexOutOfRange { .. })
        ));
    }
}
