//! Element types and their canonical tags.

use std::fmt;
use std::str::FromStr;

use crate::error::HashError;

/// Element type of a committed tensor.
///
/// Every element is stored little-endian in exactly [`DType::size_bytes`]
/// bytes. [`DType::I1`] is a boolean stored as one byte (`0` or `1`; the
/// commitment hashes whatever byte is present and does not normalise it).
///
/// ```
/// use zkdv_hashing::DType;
///
/// let dt: DType = "bf16".parse()?;
/// assert_eq!(dt, DType::BF16);
/// assert_eq!(dt.size_bytes(), 2);
/// assert_eq!(dt.to_string(), "bf16");
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// IEEE 754 binary64.
    F64,
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary16.
    F16,
    /// bfloat16 (the upper half of a binary32).
    BF16,
    /// Boolean stored as one byte.
    I1,
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 13] = [
        DType::F64,
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::I1,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
    ];

    /// The canonical lowercase tag hashed into commitments
    /// (`"f64"`, `"f32"`, `"f16"`, `"bf16"`, `"i1"`, `"i8"`, `"i16"`,
    /// `"i32"`, `"i64"`, `"u8"`, `"u16"`, `"u32"`, `"u64"`).
    pub const fn tag(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
        }
    }

    /// Bytes per element (1, 2, 4 or 8).
    pub const fn size_bytes(self) -> usize {
        match self {
            DType::I1 | DType::I8 | DType::U8 => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// Parses a canonical tag; exact, case-sensitive match.
    pub fn from_tag(tag: &str) -> Result<DType, HashError> {
        DType::ALL
            .into_iter()
            .find(|dt| dt.tag() == tag)
            .ok_or_else(|| HashError::UnknownDType {
                tag: tag.to_owned(),
            })
    }
}

impl FromStr for DType {
    type Err = HashError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::from_tag(s)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for dt in DType::ALL {
            assert_eq!(DType::from_tag(dt.tag()), Ok(dt));
            assert_eq!(dt.to_string().parse::<DType>(), Ok(dt));
            assert!(dt.tag().len() <= u8::MAX as usize);
        }
    }

    #[test]
    fn unknown_tags_are_rejected() {
        for bad in ["", "F32", "float32", "i1 ", "b16", "u128"] {
            assert_eq!(
                bad.parse::<DType>(),
                Err(HashError::UnknownDType {
                    tag: bad.to_owned()
                })
            );
        }
    }

    #[test]
    fn sizes_divide_chunk() {
        for dt in DType::ALL {
            assert_eq!(crate::CHUNK_BYTES % dt.size_bytes(), 0);
        }
        assert_eq!(DType::I1.size_bytes(), 1);
        assert_eq!(DType::BF16.size_bytes(), 2);
        assert_eq!(DType::U64.size_bytes(), 8);
    }
}
