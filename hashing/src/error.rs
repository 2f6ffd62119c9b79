//! The error type shared by every operation of this crate.

use crate::dtype::DType;

/// Everything that can go wrong while committing, opening or verifying.
///
/// Every fallible function of the crate returns this type; none of them
/// panics on malformed input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HashError {
    /// A dtype tag that is not one of the canonical tags of [`DType`].
    #[error("unknown dtype tag {tag:?}")]
    UnknownDType {
        /// The tag that was given.
        tag: String,
    },

    /// The element count or byte length of a shape does not fit in 64 bits
    /// (or in this platform's address space).
    #[error("shape {shape:?} with dtype {dtype} overflows the addressable byte length")]
    SizeOverflow {
        /// Element type.
        dtype: DType,
        /// Offending shape.
        shape: Vec<u64>,
    },

    /// The element count of a probe leaf's shape does not fit in 64 bits
    /// (or in this platform's address space).
    #[error("shape {shape:?} has more elements than fit in memory")]
    ElementCountOverflow {
        /// Offending shape.
        shape: Vec<u64>,
    },

    /// The byte buffer does not hold exactly `product(shape) * size` bytes.
    #[error("tensor of dtype {dtype} and shape {shape:?} needs {expected} bytes, got {actual}")]
    ByteLengthMismatch {
        /// Element type.
        dtype: DType,
        /// Declared shape.
        shape: Vec<u64>,
        /// Byte length implied by dtype and shape.
        expected: u64,
        /// Byte length supplied.
        actual: u64,
    },

    /// An element, row or leaf index outside the committed object.
    #[error("index {index} is out of range for {len} {what}")]
    IndexOutOfRange {
        /// What was indexed ("elements", "rows", "leaves").
        what: &'static str,
        /// The requested index.
        index: u64,
        /// Number of items available.
        len: u64,
    },

    /// A Merkle tree needs at least one leaf.
    #[error("a Merkle tree needs at least one leaf")]
    EmptyMerkleTree,

    /// An opening or Merkle proof is malformed or does not match the
    /// commitment it is checked against.
    #[error("verification failed: {reason}")]
    VerificationFailed {
        /// Which check failed.
        reason: &'static str,
    },

    /// A string that is not 64 hexadecimal digits.
    #[error("invalid digest hex: {reason}")]
    InvalidHex {
        /// What is wrong with the string.
        reason: &'static str,
    },

    /// The same path appears twice in a tree commitment.
    #[error("duplicate tree path {path:?}")]
    DuplicatePath {
        /// The repeated path.
        path: String,
    },

    /// A rolling window of zero words.
    #[error("rolling window 0 must be at least 1 (packed row width {width})")]
    ZeroWindow {
        /// Row width in u32 words.
        width: u64,
    },

    /// A rolling window wider than the row.
    #[error("rolling window {window} exceeds the packed row width {width}")]
    WindowTooLarge {
        /// Requested window.
        window: u64,
        /// Row width in u32 words.
        width: u64,
    },

    /// The word buffer of a batch does not hold `rows * width` words.
    #[error("batch of {rows} rows x {width} words needs {expected} words, got {actual}")]
    BatchSizeMismatch {
        /// Declared row count.
        rows: u64,
        /// Declared row width.
        width: u64,
        /// Word count implied by rows and width (saturated at `u64::MAX`).
        expected: u64,
        /// Word count supplied.
        actual: u64,
    },

    /// A probe ratio that is NaN, not positive, or greater than one.
    #[error("probe ratio {ratio} is not in (0, 1]")]
    InvalidRatio {
        /// The ratio that was given.
        ratio: f64,
    },

    /// A probe leaf whose last dimension does not fit the map's u32 indices.
    #[error("probe leaf dimension {d} exceeds u32::MAX")]
    DimensionTooLarge {
        /// The last dimension of the leaf.
        d: u64,
    },

    /// Input handed to a probe sketch does not match the map's shape.
    #[error("sketch input has {actual} elements, the probe map's shape {shape:?} has {expected}")]
    SketchLengthMismatch {
        /// The shape the map was generated for.
        shape: Vec<u64>,
        /// Elements implied by that shape.
        expected: u64,
        /// Elements supplied.
        actual: u64,
    },
}
