//! Commitment to an ordered list of named leaves (e.g. a model's parameters).

use std::collections::HashSet;

use crate::digest::{Digest, Domain};
use crate::error::HashError;

/// Commits to named leaf digests in the order given (the tree's traversal
/// order): keyed blake3 (`"zkdv tree v1"`) of the leaf count, then for each
/// leaf its path length, path bytes and digest.
///
/// Paths may be any UTF-8 strings (including the empty one) but must be
/// pairwise distinct. Order matters: the same leaves listed in another order
/// give another commitment.
///
/// ```
/// use zkdv_hashing::{commit_tree, Digest};
///
/// let w = Digest::from_bytes([1; 32]);
/// let b = Digest::from_bytes([2; 32]);
/// let root = commit_tree(&[("layer0.weight", w), ("layer0.bias", b)])?;
/// assert_ne!(root, commit_tree(&[("layer0.bias", b), ("layer0.weight", w)])?);
/// assert!(commit_tree(&[("x", w), ("x", b)]).is_err());
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
pub fn commit_tree<S: AsRef<str>>(leaves: &[(S, Digest)]) -> Result<Digest, HashError> {
    let mut seen = HashSet::with_capacity(leaves.len());
    let mut h = Domain::Tree.hasher();
    h.update(&(leaves.len() as u64).to_le_bytes());
    for (path, digest) in leaves {
        let path = path.as_ref();
        if !seen.insert(path) {
            return Err(HashError::DuplicatePath {
                path: path.to_owned(),
            });
        }
        h.update(&(path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(digest.as_bytes());
    }
    Ok(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_written_definition() {
        let a = Digest::from_bytes([0xaa; 32]);
        let b = Digest::from_bytes([0xbb; 32]);
        let mut msg = 2u64.to_le_bytes().to_vec();
        for (p, d) in [("a", a), ("bc", b)] {
            msg.extend_from_slice(&(p.len() as u64).to_le_bytes());
            msg.extend_from_slice(p.as_bytes());
            msg.extend_from_slice(d.as_bytes());
        }
        let key = blake3::derive_key("zkdv tree v1", b"");
        let expected = Digest::from(blake3::keyed_hash(&key, &msg));
        assert_eq!(commit_tree(&[("a", a), ("bc", b)]).unwrap(), expected);
        let owned = vec![("a".to_string(), a), ("bc".to_string(), b)];
        assert_eq!(commit_tree(&owned).unwrap(), expected);
    }

    #[test]
    fn path_boundaries_are_unambiguous() {
        let d = Digest::from_bytes([3; 32]);
        let one = commit_tree(&[("ab", d), ("", d)]).unwrap();
        let two = commit_tree(&[("a", d), ("b", d)]).unwrap();
        assert_ne!(one, two);
        let empty: [(&str, Digest); 0] = [];
        assert_ne!(commit_tree(&empty).unwrap(), one);
    }

    #[test]
    fn duplicates_are_rejected() {
        let d = Digest::default();
        assert_eq!(
            commit_tree(&[("w", d), ("b", d), ("w", d)]),
            Err(HashError::DuplicatePath {
                path: "w".to_owned()
            })
        );
    }
}
