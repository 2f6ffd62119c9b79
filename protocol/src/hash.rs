//! 32-byte digests and the protocol's domain-separated hash functions.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Context of the per-record integrity digest: `derive_key(RECORD_DIGEST_CONTEXT, payload)`.
pub const RECORD_DIGEST_CONTEXT: &str = "zkdv protocol v1 record digest";
/// Context of the challenge-key commitment stored in the root record.
pub const KEY_COMMITMENT_CONTEXT: &str = "zkdv protocol v1 challenge key commitment";
/// Domain string that prefixes the record hash in the challenge stream.
pub const CHALLENGE_DOMAIN: &[u8] = b"zkdv protocol v1 challenge";
/// Key-derivation context of an auditor's key from the auditor's seed.
pub const AUDIT_KEY_CONTEXT: &str = "zkdv protocol v1 audit key";
/// Domain prefix of an auditor's per-step challenge stream.
pub const AUDIT_DOMAIN: &[u8] = b"zkdv protocol v1 audit challenge";

/// A 32-byte value: a blake3 digest, a key or a seed.
///
/// It serializes as a CBOR byte string of exactly 32 bytes and displays as
/// lowercase hex.
///
/// ```
/// use zkdv_protocol::Hash32;
/// let h = Hash32::of(b"abc");
/// assert_eq!(h.to_string().len(), 64);
/// assert_eq!(h.to_string().parse::<Hash32>().unwrap(), h);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Hash32(pub [u8; 32]);

impl Hash32 {
    /// The all-zero value: the `prev` of the first record.
    pub const ZERO: Hash32 = Hash32([0; 32]);

    /// Plain (unkeyed) blake3 of `bytes`.
    pub fn of(bytes: &[u8]) -> Hash32 {
        Hash32(*blake3::hash(bytes).as_bytes())
    }

    /// blake3 in key-derivation mode: `derive_key(context, material)`, the
    /// protocol's domain-separated hash.
    pub fn derive(context: &str, material: &[u8]) -> Hash32 {
        Hash32(blake3::derive_key(context, material))
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lowercase hex, 64 characters.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl fmt::Display for Hash32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Hash32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash32({})", self.to_hex())
    }
}

/// Error parsing a [`Hash32`] from hex.
#[derive(Debug, thiserror::Error)]
#[error("expected 64 hex digits for a 32-byte value")]
pub struct ParseHashError;

impl FromStr for Hash32 {
    type Err = ParseHashError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).map_err(|_| ParseHashError)?;
        Ok(Hash32(out))
    }
}

impl From<[u8; 32]> for Hash32 {
    fn from(bytes: [u8; 32]) -> Self {
        Hash32(bytes)
    }
}

impl Serialize for Hash32 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Hash32 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(FixedBytes::<32>).map(Hash32)
    }
}

/// A byte string of exactly `N` bytes (serde helper).
pub(crate) struct FixedBytes<const N: usize>;

impl<'de, const N: usize> Visitor<'de> for FixedBytes<N> {
    type Value = [u8; N];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a byte string of {N} bytes")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        v.try_into().map_err(|_| E::invalid_length(v.len(), &self))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
        self.visit_bytes(&v)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // Some serde front ends (Python lists, JSON arrays) hand bytes over as
        // a sequence of integers; accept that too, still with an exact length.
        let mut out = [0u8; N];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<u8>()?.is_some() {
            return Err(de::Error::invalid_length(N + 1, &self));
        }
        Ok(out)
    }
}

/// A 32-byte Ed25519 public key or a 64-byte signature as a CBOR byte string.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Bytes<const N: usize>(pub [u8; N]);

impl<const N: usize> fmt::Debug for Bytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl<const N: usize> Serialize for Bytes<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Bytes<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(FixedBytes::<N>).map(Bytes)
    }
}
