//! The 32-byte digest type and the domain-separation keys.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use crate::error::HashError;

/// A 32-byte blake3 output: a commitment, Merkle node or leaf hash.
///
/// Displays (and parses) as 64 lowercase hexadecimal digits.
///
/// ```
/// use zkdv_hashing::Digest;
///
/// let d = Digest::from_bytes([0xab; 32]);
/// let hex = d.to_hex();
/// assert_eq!(hex.len(), 64);
/// assert!(hex.starts_with("abab"));
/// assert_eq!(Digest::from_hex(&hex)?, d);
/// assert_eq!(d.to_string(), hex);
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Digest([u8; 32]);

impl Digest {
    /// Wraps raw digest bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Digest(bytes)
    }

    /// The raw digest bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lowercase hexadecimal rendering (64 characters).
    pub fn to_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(64);
        for b in self.0 {
            s.push(char::from(HEX[usize::from(b >> 4)]));
            s.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
        s
    }

    /// Parses 64 hexadecimal digits (either case).
    pub fn from_hex(hex: &str) -> Result<Self, HashError> {
        let raw = hex.as_bytes();
        if raw.len() != 64 {
            return Err(HashError::InvalidHex {
                reason: "expected exactly 64 hex digits",
            });
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(raw.chunks_exact(2)) {
            *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
        }
        Ok(Digest(out))
    }
}

fn nibble(c: u8) -> Result<u8, HashError> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(HashError::InvalidHex {
            reason: "non-hexadecimal character",
        }),
    }
}

impl From<[u8; 32]> for Digest {
    fn from(bytes: [u8; 32]) -> Self {
        Digest(bytes)
    }
}

impl From<Digest> for [u8; 32] {
    fn from(d: Digest) -> Self {
        d.0
    }
}

impl From<blake3::Hash> for Digest {
    fn from(h: blake3::Hash) -> Self {
        Digest(*h.as_bytes())
    }
}

impl AsRef<[u8]> for Digest {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl FromStr for Digest {
    type Err = HashError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Digest::from_hex(s)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

/// The purposes that get their own blake3 key.
///
/// Each key is `blake3::derive_key(context, b"")` for the context string
/// returned by [`Domain::context`]; the crate documentation lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    TensorLeaf,
    MerkleNode,
    Tensor,
    Tree,
    BatchRow,
    Batch,
    Probe,
}

impl Domain {
    pub(crate) const ALL: [Domain; 7] = [
        Domain::TensorLeaf,
        Domain::MerkleNode,
        Domain::Tensor,
        Domain::Tree,
        Domain::BatchRow,
        Domain::Batch,
        Domain::Probe,
    ];

    pub(crate) const fn context(self) -> &'static str {
        match self {
            Domain::TensorLeaf => "zkdv tensor leaf v1",
            Domain::MerkleNode => "zkdv merkle node v1",
            Domain::Tensor => "zkdv tensor v1",
            Domain::Tree => "zkdv tree v1",
            Domain::BatchRow => "zkdv batch row v2",
            Domain::Batch => "zkdv batch v1",
            Domain::Probe => "zkdv probe map v2",
        }
    }

    /// The 32-byte key of this purpose (derived once, then cached).
    pub(crate) fn key(self) -> &'static [u8; 32] {
        static KEYS: LazyLock<[[u8; 32]; 7]> =
            LazyLock::new(|| Domain::ALL.map(|d| blake3::derive_key(d.context(), b"")));
        &KEYS[self as usize]
    }

    /// A keyed hasher for this purpose.
    pub(crate) fn hasher(self) -> blake3::Hasher {
        blake3::Hasher::new_keyed(self.key())
    }

    /// One-shot keyed hash of `data` for this purpose.
    pub(crate) fn hash(self, data: &[u8]) -> Digest {
        blake3::keyed_hash(self.key(), data).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_errors() {
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 37) as u8;
        }
        let d = Digest::from_bytes(bytes);
        assert_eq!(Digest::from_hex(&d.to_hex()), Ok(d));
        assert_eq!(Digest::from_hex(&d.to_hex().to_uppercase()), Ok(d));
        assert!(Digest::from_hex("").is_err());
        assert!(Digest::from_hex(&"0".repeat(63)).is_err());
        assert!(Digest::from_hex(&"g".repeat(64)).is_err());
        // multi-byte characters must not be split or accepted
        assert!(Digest::from_hex(&"é".repeat(32)).is_err());
    }

    #[test]
    fn domain_keys_are_distinct_and_match_contexts() {
        for (i, a) in Domain::ALL.iter().enumerate() {
            assert_eq!(Domain::ALL[*a as usize], *a);
            assert_eq!(*a.key(), blake3::derive_key(a.context(), b""));
            for b in &Domain::ALL[i + 1..] {
                assert_ne!(a.key(), b.key());
                assert_ne!(a.context(), b.context());
            }
        }
    }
}
