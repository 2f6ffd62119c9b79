//! Binary Merkle trees with odd-node carry, shared by tensors and batches.
//!
//! Given level `L` with `n >= 2` nodes, level `L+1` has `ceil(n/2)` nodes:
//! node `i` is `H_node(L[2i] || L[2i+1])` and, when `n` is odd, the last node
//! `L[n-1]` is carried up unchanged. `H_node` is blake3 keyed with the
//! `"zkdv merkle node v1"` key over the 64 bytes `left || right`. The root is
//! the single node of the last level; a one-leaf tree's root is the leaf.

use rayon::prelude::*;

use crate::digest::{Digest, Domain};
use crate::error::HashError;

/// Levels with at least this many nodes are reduced in parallel when the
/// caller asked for parallelism.
const PARALLEL_LEVEL_MIN: usize = 4096;

/// The internal-node hash: keyed blake3 (`"zkdv merkle node v1"`) of
/// `left || right`.
pub(crate) fn node(left: &Digest, right: &Digest) -> Digest {
    let mut buf = [0u8; 64];
    buf[..32].copy_from_slice(left.as_bytes());
    buf[32..].copy_from_slice(right.as_bytes());
    Domain::MerkleNode.hash(&buf)
}

fn next_level(level: &[Digest], parallel: bool) -> Vec<Digest> {
    let pair = |p: &[Digest]| node(&p[0], &p[1]);
    let mut next: Vec<Digest> = if parallel && level.len() >= PARALLEL_LEVEL_MIN {
        level.par_chunks_exact(2).map(pair).collect()
    } else {
        level.chunks_exact(2).map(pair).collect()
    };
    // odd count: the last node is carried up unchanged
    next.extend_from_slice(level.chunks_exact(2).remainder());
    next
}

/// Root of a non-empty list of leaves; `parallel` only changes the speed.
pub(crate) fn root_of(leaves: Vec<Digest>, parallel: bool) -> Result<Digest, HashError> {
    let mut level = leaves;
    while level.len() > 1 {
        level = next_level(&level, parallel);
    }
    level.first().copied().ok_or(HashError::EmptyMerkleTree)
}

/// The Merkle root of `leaves` (see the crate documentation for the node
/// function and the odd-node carry rule).
///
/// An empty slice is an error: every commitment of this crate defines its
/// own single leaf for empty input.
///
/// ```
/// use zkdv_hashing::{merkle_root, Digest};
///
/// let leaf = Digest::from_bytes([7; 32]);
/// assert_eq!(merkle_root(&[leaf])?, leaf);
/// assert!(merkle_root(&[]).is_err());
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
pub fn merkle_root(leaves: &[Digest]) -> Result<Digest, HashError> {
    root_of(leaves.to_vec(), false)
}

/// An inclusion proof for one leaf of a Merkle tree.
///
/// `siblings` lists, from the leaf level upwards, the sibling of the current
/// node on every level where it has one; levels where the current node is the
/// carried odd node contribute nothing. The number of siblings is therefore
/// determined by `leaf_index` and `leaf_count`.
///
/// ```
/// use zkdv_hashing::{merkle_root, Digest, MerkleProof};
///
/// let leaves: Vec<Digest> = (0u8..5).map(|i| Digest::from_bytes([i; 32])).collect();
/// let root = merkle_root(&leaves)?;
/// let proof = MerkleProof::generate(&leaves, 4)?;
/// assert_eq!(proof.compute_root(&leaves[4])?, root);
/// assert_ne!(proof.compute_root(&leaves[3])?, root);
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MerkleProof {
    /// Position of the proven leaf.
    pub leaf_index: u64,
    /// Number of leaves in the tree.
    pub leaf_count: u64,
    /// Sibling digests, leaf level first.
    pub siblings: Vec<Digest>,
}

impl MerkleProof {
    /// Builds the proof for `leaves[leaf_index]`.
    pub fn generate(leaves: &[Digest], leaf_index: usize) -> Result<Self, HashError> {
        if leaves.is_empty() {
            return Err(HashError::EmptyMerkleTree);
        }
        if leaf_index >= leaves.len() {
            return Err(HashError::IndexOutOfRange {
                what: "leaves",
                index: leaf_index as u64,
                len: leaves.len() as u64,
            });
        }
        Ok(Self::generate_owned(leaves.to_vec(), leaf_index))
    }

    /// Same as [`MerkleProof::generate`] for a non-empty vector and an
    /// in-range index (checked by the caller).
    pub(crate) fn generate_owned(leaves: Vec<Digest>, leaf_index: usize) -> Self {
        let leaf_count = leaves.len() as u64;
        let mut siblings = Vec::new();
        let mut level = leaves;
        let mut idx = leaf_index;
        while level.len() > 1 {
            if let Some(sib) = level.get(idx ^ 1) {
                siblings.push(*sib);
            }
            level = next_level(&level, true);
            idx /= 2;
        }
        MerkleProof {
            leaf_index: leaf_index as u64,
            leaf_count,
            siblings,
        }
    }

    /// Recomputes the root from `leaf`, rejecting structurally invalid proofs
    /// (index out of range, too few or too many siblings).
    pub fn compute_root(&self, leaf: &Digest) -> Result<Digest, HashError> {
        if self.leaf_count == 0 {
            return Err(HashError::VerificationFailed {
                reason: "Merkle proof for an empty tree",
            });
        }
        if self.leaf_index >= self.leaf_count {
            return Err(HashError::VerificationFailed {
                reason: "Merkle leaf index out of range",
            });
        }
        let mut siblings = self.siblings.iter();
        let missing = || HashError::VerificationFailed {
            reason: "Merkle proof has too few siblings",
        };
        let mut acc = *leaf;
        let mut idx = self.leaf_index;
        let mut n = self.leaf_count;
        while n > 1 {
            if idx % 2 == 1 {
                let sib = siblings.next().ok_or_else(missing)?;
                acc = node(sib, &acc);
            } else if idx + 1 < n {
                let sib = siblings.next().ok_or_else(missing)?;
                acc = node(&acc, sib);
            }
            idx /= 2;
            n = n / 2 + n % 2;
        }
        if siblings.next().is_some() {
            return Err(HashError::VerificationFailed {
                reason: "Merkle proof has too many siblings",
            });
        }
        Ok(acc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: usize) -> Vec<Digest> {
        (0..n)
            .map(|i| Domain::TensorLeaf.hash(&(i as u64).to_le_bytes()))
            .collect()
    }

    /// Straightforward recursive definition used as a reference.
    fn reference_root(level: &[Digest]) -> Digest {
        if level.len() == 1 {
            return level[0];
        }
        let next: Vec<Digest> = level
            .chunks(2)
            .map(|p| {
                if p.len() == 2 {
                    node(&p[0], &p[1])
                } else {
                    p[0]
                }
            })
            .collect();
        reference_root(&next)
    }

    #[test]
    fn small_shapes() {
        let l = leaves(3);
        assert_eq!(merkle_root(&l[..1]).unwrap(), l[0]);
        assert_eq!(merkle_root(&l[..2]).unwrap(), node(&l[0], &l[1]));
        assert_eq!(merkle_root(&l).unwrap(), node(&node(&l[0], &l[1]), &l[2]));
        assert_eq!(merkle_root(&[]), Err(HashError::EmptyMerkleTree));
    }

    #[test]
    fn parallel_matches_sequential_and_reference() {
        for n in [1, 2, 5, 4095, 4096, 4097, 9001] {
            let l = leaves(n);
            let seq = root_of(l.clone(), false).unwrap();
            assert_eq!(root_of(l.clone(), true).unwrap(), seq);
            assert_eq!(reference_root(&l), seq);
        }
    }

    #[test]
    fn every_proof_verifies_and_tampering_fails() {
        for n in 1..=17 {
            let l = leaves(n);
            let root = merkle_root(&l).unwrap();
            for i in 0..n {
                let p = MerkleProof::generate(&l, i).unwrap();
                assert_eq!(p.compute_root(&l[i]).unwrap(), root, "n={n} i={i}");
                assert_ne!(
                    p.compute_root(&l[(i + 1) % n]).ok(),
                    (n > 1).then_some(root)
                );
                for s in 0..p.siblings.len() {
                    let mut bad = p.clone();
                    bad.siblings[s] = Digest::from_bytes([0xee; 32]);
                    assert_ne!(bad.compute_root(&l[i]).unwrap(), root);
                }
                let mut short = p.clone();
                if short.siblings.pop().is_some() {
                    assert!(short.compute_root(&l[i]).is_err());
                }
                let mut long = p.clone();
                long.siblings.push(root);
                assert!(long.compute_root(&l[i]).is_err());
                let mut oob = p.clone();
                oob.leaf_index = n as u64;
                assert!(oob.compute_root(&l[i]).is_err());
            }
            assert!(MerkleProof::generate(&l, n).is_err());
        }
        assert_eq!(
            MerkleProof::generate(&[], 0),
            Err(HashError::EmptyMerkleTree)
        );
    }
}
