//! Rolling window hashes over packed u32 batch rows and batch commitments.

use rayon::prelude::*;

use crate::digest::{Digest, Domain};
use crate::error::HashError;
use crate::merkle::{self, MerkleProof};

/// The Mersenne prime `p = 2^61 - 1` of the rolling polynomial hash.
pub const ROLLING_MODULUS: u64 = (1 << 61) - 1;

/// The base `B` of the rolling polynomial hash.
///
/// Derived as the first 8 bytes of `blake3::hash(b"zkdv rolling base v1")`
/// read as a little-endian u64, reduced mod [`ROLLING_MODULUS`]; it lies in
/// `[2, p - 2]`. Its value is `203003631669849105` (`0x02d136ba39cbac11`).
pub const ROLLING_BASE: u64 = 203_003_631_669_849_105;

/// Word batches of at least this many bytes have their rows hashed in
/// parallel.
const PARALLEL_BATCH_BYTES: usize = 1 << 20;

fn reduce(x: u128) -> u64 {
    // x = hi * 2^61 + lo and 2^61 = 1 (mod p); callers keep x < 2^122
    let folded = (x as u64 & ROLLING_MODULUS) + (x >> 61) as u64;
    let folded = (folded & ROLLING_MODULUS) + (folded >> 61);
    if folded >= ROLLING_MODULUS {
        folded - ROLLING_MODULUS
    } else {
        folded
    }
}

fn mul_mod(a: u64, b: u64) -> u64 {
    reduce(u128::from(a) * u128::from(b))
}

fn add_mod(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= ROLLING_MODULUS {
        s - ROLLING_MODULUS
    } else {
        s
    }
}

fn sub_mod(a: u64, b: u64) -> u64 {
    if a >= b {
        a - b
    } else {
        a + ROLLING_MODULUS - b
    }
}

fn check_window(width: usize, window: usize) -> Result<(), HashError> {
    if window == 0 {
        return Err(HashError::ZeroWindow {
            width: width as u64,
        });
    }
    if window > width {
        return Err(HashError::WindowTooLarge {
            window: window as u64,
            width: width as u64,
        });
    }
    Ok(())
}

/// Window hashes of a valid (`1 <= window <= row.len()`) row.
fn rolling(row: &[u32], window: usize) -> Vec<u64> {
    let sym = |x: u32| u64::from(x) + 1;
    let (head, tail) = row.split_at(window);
    let mut h = 0u64;
    let mut top = 1u64; // B^(window - 1)
    for (i, &x) in head.iter().enumerate() {
        h = add_mod(mul_mod(h, ROLLING_BASE), sym(x));
        if i > 0 {
            top = mul_mod(top, ROLLING_BASE);
        }
    }
    let mut out = Vec::with_capacity(tail.len() + 1);
    out.push(h);
    for (&leaving, &entering) in row.iter().zip(tail) {
        h = sub_mod(h, mul_mod(sym(leaving), top));
        h = add_mod(mul_mod(h, ROLLING_BASE), sym(entering));
        out.push(h);
    }
    out
}

/// The `row.len() - window + 1` rolling hashes of one row:
/// `h_j = sum_{i < window} (row[j + i] + 1) * B^(window - 1 - i) mod p`,
/// computed incrementally in `O(row.len())`.
///
/// ```
/// use zkdv_hashing::{window_hashes, ROLLING_BASE, ROLLING_MODULUS};
///
/// let h = window_hashes(&[5, 6, 7], 2)?;
/// assert_eq!(h.len(), 2);
/// let b = ROLLING_BASE as u128;
/// let p = ROLLING_MODULUS as u128;
/// assert_eq!(h[0] as u128, (6 * b + 7) % p);
/// assert_eq!(h[1] as u128, (7 * b + 8) % p);
///
/// let err = window_hashes(&[1, 2, 3], 5).unwrap_err();
/// assert_eq!(err.to_string(), "rolling window 5 exceeds the packed row width 3");
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
pub fn window_hashes(row: &[u32], window: usize) -> Result<Vec<u64>, HashError> {
    check_window(row.len(), window)?;
    Ok(rolling(row, window))
}

fn row_leaf_unchecked(row: &[u32], window: usize) -> Digest {
    // The window hashes follow from the words, so the leaf commits to the
    // words alone; whoever needs the hashes recomputes them
    // ([`window_hashes`]) from the retained batch.
    let mut buf = Vec::with_capacity(16 + 4 * row.len());
    buf.extend_from_slice(&(row.len() as u64).to_le_bytes());
    buf.extend_from_slice(&(window as u64).to_le_bytes());
    for w in row {
        buf.extend_from_slice(&w.to_le_bytes());
    }
    Domain::BatchRow.hash(&buf)
}

/// The Merkle leaf of one batch row: keyed blake3 (`"zkdv batch row v2"`) of
/// the width and window (u64 LE) and the row words (u32 LE). The window
/// hashes ([`window_hashes`]) are not hashed in: they follow from the words.
pub fn row_leaf(row: &[u32], window: usize) -> Result<Digest, HashError> {
    check_window(row.len(), window)?;
    Ok(row_leaf_unchecked(row, window))
}

/// Commitment to a `rows x width` batch of u32 words; see [`commit_batch`].
///
/// A plain record: [`BatchCommitment::digest`] binds all other fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchCommitment {
    /// Number of rows.
    pub rows: u64,
    /// Words per row.
    pub width: u64,
    /// Rolling window in words.
    pub window: u64,
    /// Merkle root over the row leaves.
    pub root: Digest,
    /// Keyed blake3 (`"zkdv batch v1"`) of rows, width, window (u64 LE) and
    /// the root.
    pub digest: Digest,
}

fn batch_digest(rows: u64, width: u64, window: u64, root: &Digest) -> Digest {
    let mut h = Domain::Batch.hasher();
    h.update(&rows.to_le_bytes());
    h.update(&width.to_le_bytes());
    h.update(&window.to_le_bytes());
    h.update(root.as_bytes());
    h.finalize().into()
}

fn check_batch(words: &[u32], rows: usize, width: usize, window: usize) -> Result<(), HashError> {
    check_window(width, window)?;
    let expected = rows.checked_mul(width);
    if expected != Some(words.len()) {
        return Err(HashError::BatchSizeMismatch {
            rows: rows as u64,
            width: width as u64,
            expected: expected.map_or(u64::MAX, |e| e as u64),
            actual: words.len() as u64,
        });
    }
    Ok(())
}

/// Leaves of a checked batch (one empty-message leaf when there are no rows).
fn row_leaves(words: &[u32], width: usize, window: usize) -> Vec<Digest> {
    if words.is_empty() {
        return vec![Domain::BatchRow.hash(&[])];
    }
    let leaf = |row: &[u32]| row_leaf_unchecked(row, window);
    if words.len() * 4 >= PARALLEL_BATCH_BYTES {
        words.par_chunks_exact(width).map(leaf).collect()
    } else {
        words.chunks_exact(width).map(leaf).collect()
    }
}

/// Commits to a row-major batch of `rows x width` u32 words with rolling
/// window `window` (`1 <= window <= width`).
///
/// ```
/// use zkdv_hashing::{commit_batch, merkle_root, row_leaf};
///
/// let words = [1u32, 2, 3, 4, 5, 6, 7, 8];
/// let c = commit_batch(&words, 2, 4, 2)?;
/// let leaves = [row_leaf(&words[..4], 2)?, row_leaf(&words[4..], 2)?];
/// assert_eq!(c.root, merkle_root(&leaves)?);
/// assert!(commit_batch(&words, 2, 4, 5).is_err());
/// assert!(commit_batch(&words, 3, 4, 2).is_err());
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
pub fn commit_batch(
    words: &[u32],
    rows: usize,
    width: usize,
    window: usize,
) -> Result<BatchCommitment, HashError> {
    check_batch(words, rows, width, window)?;
    let parallel = words.len() * 4 >= PARALLEL_BATCH_BYTES;
    let root = merkle::root_of(row_leaves(words, width, window), parallel)?;
    let (rows, width, window) = (rows as u64, width as u64, window as u64);
    Ok(BatchCommitment {
        rows,
        width,
        window,
        root,
        digest: batch_digest(rows, width, window, &root),
    })
}

/// One row of a committed batch with its Merkle path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowOpening {
    /// The row's words.
    pub words: Vec<u32>,
    /// Path from the row leaf to the batch root (`leaf_index` is the row,
    /// `leaf_count` the number of rows).
    pub proof: MerkleProof,
}

impl RowOpening {
    /// Index of the opened row.
    pub fn row_index(&self) -> u64 {
        self.proof.leaf_index
    }

    /// Checks the opening against a batch digest
    /// ([`BatchCommitment::digest`]) of the given geometry and returns the
    /// row's words.
    ///
    /// ```
    /// use zkdv_hashing::{commit_batch, open_row};
    ///
    /// let words: Vec<u32> = (0..30).collect();
    /// let c = commit_batch(&words, 5, 6, 3)?;
    /// let o = open_row(&words, 5, 6, 3, 2)?;
    /// assert_eq!(o.verify(&c.digest, 5, 6, 3)?, &words[12..18]);
    /// assert!(o.verify(&c.digest, 5, 6, 2).is_err());
    /// # Ok::<(), zkdv_hashing::HashError>(())
    /// ```
    pub fn verify(
        &self,
        batch_digest_expected: &Digest,
        rows: usize,
        width: usize,
        window: usize,
    ) -> Result<&[u32], HashError> {
        check_window(width, window)?;
        let fail = |reason| Err(HashError::VerificationFailed { reason });
        if self.proof.leaf_count != rows as u64 {
            return fail("leaf count does not match the row count");
        }
        if self.words.len() != width {
            return fail("row length does not match the batch width");
        }
        let root = self
            .proof
            .compute_root(&row_leaf_unchecked(&self.words, window))?;
        if batch_digest(rows as u64, width as u64, window as u64, &root) != *batch_digest_expected {
            return fail("recomputed batch digest differs from the commitment");
        }
        Ok(&self.words)
    }
}

/// Opens row `row` of a batch; check it with [`RowOpening::verify`].
pub fn open_row(
    words: &[u32],
    rows: usize,
    width: usize,
    window: usize,
    row: usize,
) -> Result<RowOpening, HashError> {
    check_batch(words, rows, width, window)?;
    if row >= rows {
        return Err(HashError::IndexOutOfRange {
            what: "rows",
            index: row as u64,
            len: rows as u64,
        });
    }
    let row_words = words
        .chunks_exact(width)
        .nth(row)
        .ok_or(HashError::IndexOutOfRange {
            what: "rows",
            index: row as u64,
            len: rows as u64,
        })?
        .to_vec();
    Ok(RowOpening {
        words: row_words,
        proof: MerkleProof::generate_owned(row_leaves(words, width, window), row),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(row: &[u32], window: usize) -> Vec<u64> {
        let p = u128::from(ROLLING_MODULUS);
        let b = u128::from(ROLLING_BASE);
        (0..=row.len() - window)
            .map(|j| {
                let mut sum = 0u128;
                for i in 0..window {
                    let mut pow = 1u128;
                    for _ in 0..(window - 1 - i) {
                        pow = pow * b % p;
                    }
                    sum = (sum + (u128::from(row[j + i]) + 1) * pow) % p;
                }
                sum as u64
            })
            .collect()
    }

    #[test]
    fn base_matches_its_derivation() {
        let h = blake3::hash(b"zkdv rolling base v1");
        let mut first = [0u8; 8];
        first.copy_from_slice(&h.as_bytes()[..8]);
        let derived = u64::from_le_bytes(first) % ROLLING_MODULUS;
        assert_eq!(ROLLING_BASE, derived);
        assert!((2..=ROLLING_MODULUS - 2).contains(&ROLLING_BASE));
    }

    #[test]
    fn modular_helpers() {
        let p = ROLLING_MODULUS;
        assert_eq!(mul_mod(p - 1, p - 1), 1);
        assert_eq!(reduce(u128::from(p)), 0);
        assert_eq!(reduce(u128::from(p) * u128::from(p) - 1), p - 1);
        assert_eq!(sub_mod(0, 1), p - 1);
        assert_eq!(add_mod(p - 1, 1), 0);
    }

    #[test]
    fn window_errors() {
        assert_eq!(
            window_hashes(&[1, 2, 3], 0),
            Err(HashError::ZeroWindow { width: 3 })
        );
        assert_eq!(
            window_hashes(&[], 1),
            Err(HashError::WindowTooLarge {
                window: 1,
                width: 0
            })
        );
        assert!(row_leaf(&[1, 2], 3).is_err());
        assert!(commit_batch(&[], 0, 0, 1).is_err());
        assert!(matches!(
            commit_batch(&[1, 2, 3], usize::MAX, 2, 1),
            Err(HashError::BatchSizeMismatch {
                expected: u64::MAX,
                ..
            })
        ));
    }

    #[test]
    fn extreme_words() {
        let row = [u32::MAX; 40];
        for w in [1, 2, 7, 40] {
            assert_eq!(window_hashes(&row, w).unwrap(), naive(&row, w));
        }
    }

    #[test]
    fn empty_batch_and_row_leaf_definition() {
        let c = commit_batch(&[], 0, 4, 2).unwrap();
        let row_key = blake3::derive_key("zkdv batch row v2", b"");
        assert_eq!(c.root, Digest::from(blake3::keyed_hash(&row_key, b"")));
        let mut msg = Vec::new();
        for v in [0u64, 4, 2] {
            msg.extend_from_slice(&v.to_le_bytes());
        }
        msg.extend_from_slice(c.root.as_bytes());
        let batch_key = blake3::derive_key("zkdv batch v1", b"");
        assert_eq!(c.digest, Digest::from(blake3::keyed_hash(&batch_key, &msg)));
        assert!(open_row(&[], 0, 4, 2, 0).is_err());

        let row = [9u32, 8, 7];
        let mut msg = Vec::new();
        msg.extend_from_slice(&3u64.to_le_bytes());
        msg.extend_from_slice(&2u64.to_le_bytes());
        for w in row {
            msg.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(
            row_leaf(&row, 2).unwrap(),
            Digest::from(blake3::keyed_hash(&row_key, &msg))
        );
    }

    #[test]
    fn large_batch_parallel_matches_sequential() {
        let width = 1000;
        let rows = 300;
        let words: Vec<u32> = (0..rows * width)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761))
            .collect();
        assert!(words.len() * 4 >= PARALLEL_BATCH_BYTES);
        let c = commit_batch(&words, rows, width, 17).unwrap();
        let leaves: Vec<Digest> = words
            .chunks(width)
            .map(|r| row_leaf(r, 17).unwrap())
            .collect();
        assert_eq!(c.root, merkle::root_of(leaves, false).unwrap());
        let o = open_row(&words, rows, width, 17, 299).unwrap();
        assert_eq!(
            o.verify(&c.digest, rows, width, 17).unwrap(),
            &words[299_000..]
        );
    }

    #[test]
    fn row_openings_verify_and_tampering_fails() {
        let (rows, width, window) = (7, 5, 3);
        let words: Vec<u32> = (0..35).map(|i| i * 1000 + 1).collect();
        let c = commit_batch(&words, rows, width, window).unwrap();
        for r in 0..rows {
            let o = open_row(&words, rows, width, window, r).unwrap();
            assert_eq!(o.row_index(), r as u64);
            assert!(o.verify(&c.digest, rows, width, window).is_ok());
            let mut bad = o.clone();
            bad.words[1] ^= 1;
            assert!(bad.verify(&c.digest, rows, width, window).is_err());
            let mut bad = o.clone();
            bad.proof.leaf_index = (bad.proof.leaf_index + 1) % rows as u64;
            assert!(bad.verify(&c.digest, rows, width, window).is_err());
            assert!(o.verify(&c.digest, rows + 1, width, window).is_err());
            assert!(o.verify(&c.root, rows, width, window).is_err());
        }
        assert!(open_row(&words, rows, width, window, rows).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn rolling_matches_naive(
            row in proptest::collection::vec(any::<u32>(), 1..48),
            w_seed in any::<usize>(),
        ) {
            let window = 1 + w_seed % row.len();
            prop_assert_eq!(window_hashes(&row, window).unwrap(), naive(&row, window));
        }
    }
}
