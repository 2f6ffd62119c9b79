//! The record envelope: the exact bytes of one record in `records.cborl`.
//!
//! ```text
//! envelope  = [ payload: bstr, digest: bstr .size 32, signature: bstr .size 64 / null ]
//! digest    = derive_key("zkdv protocol v1 record digest", payload)
//! signature = Ed25519(session key, digest)
//! ```
//!
//! Heads are in CBOR's shortest form; the reader rejects any other encoding,
//! so every record has exactly one byte representation.

use std::io::{self, Read};

use crate::error::Problem;
use crate::hash::{Hash32, RECORD_DIGEST_CONTEXT};

/// Largest payload the reader accepts (16 MiB). Honest payloads are a few
/// hundred bytes to a few kilobytes.
pub const MAX_PAYLOAD_BYTES: u64 = 16 << 20;

const ARRAY3: u8 = 0x83;
const NULL: u8 = 0xf6;
const BSTR_MAJOR: u8 = 2;

/// One record as it is stored: exact bytes plus the parsed envelope fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    /// Byte offset of the record in its file.
    pub offset: u64,
    /// The envelope's exact bytes.
    pub bytes: Vec<u8>,
    /// Range of the payload within `bytes`.
    pub payload: std::ops::Range<usize>,
    /// The stored digest.
    pub digest: Hash32,
    /// The stored signature, if any.
    pub signature: Option<[u8; 64]>,
}

impl RawRecord {
    /// The payload bytes (CBOR map).
    pub fn payload(&self) -> &[u8] {
        &self.bytes[self.payload.clone()]
    }

    /// Plain blake3 of the exact bytes: what the next record's `prev` and the
    /// challenge derivation use.
    pub fn hash(&self) -> Hash32 {
        Hash32::of(&self.bytes)
    }

    /// Whether the stored digest matches the payload.
    pub fn digest_matches(&self) -> bool {
        record_digest(self.payload()) == self.digest
    }
}

/// The integrity digest of a payload.
pub fn record_digest(payload: &[u8]) -> Hash32 {
    Hash32::derive(RECORD_DIGEST_CONTEXT, payload)
}

fn push_head(out: &mut Vec<u8>, major: u8, value: u64) {
    let m = major << 5;
    match value {
        0..=23 => out.push(m | value as u8),
        24..=0xff => out.extend_from_slice(&[m | 24, value as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend_from_slice(&(value as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend_from_slice(&(value as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend_from_slice(&value.to_be_bytes());
        }
    }
}

fn push_bstr(out: &mut Vec<u8>, bytes: &[u8]) {
    push_head(out, BSTR_MAJOR, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Encode an envelope around `payload`.
pub fn encode(payload: &[u8], signature: Option<&[u8; 64]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 112);
    out.push(ARRAY3);
    push_bstr(&mut out, payload);
    push_bstr(&mut out, record_digest(payload).as_bytes());
    match signature {
        Some(sig) => push_bstr(&mut out, sig),
        None => out.push(NULL),
    }
    out
}

/// Reads envelopes one at a time from a byte stream, tracking offsets.
pub(crate) struct EnvelopeReader<R> {
    inner: R,
    offset: u64,
}

impl<R: Read> EnvelopeReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        EnvelopeReader { inner, offset: 0 }
    }

    /// The offset of the next record.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// The next envelope; `Ok(None)` at a clean end of file. On error the
    /// returned problem concerns the record starting at [`Self::offset`].
    pub(crate) fn next(&mut self) -> Result<Option<RawRecord>, Problem> {
        let start = self.offset;
        let mut bytes = Vec::new();
        let mut first = [0u8; 1];
        loop {
            match self.inner.read(&mut first) {
                Ok(0) => return Ok(None),
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_problem(e)),
            }
        }
        bytes.push(first[0]);
        if first[0] != ARRAY3 {
            return Err(Problem::Malformed(format!(
                "expected a 3-element CBOR array (byte 0x83), found byte {:#04x}",
                first[0]
            )));
        }
        let len = self.bstr_head(&mut bytes, "in the payload length")?;
        if len > MAX_PAYLOAD_BYTES {
            return Err(Problem::TooLarge {
                len,
                limit: MAX_PAYLOAD_BYTES,
            });
        }
        let payload_start = bytes.len();
        self.take(&mut bytes, len as usize, "inside the payload")?;
        let payload = payload_start..bytes.len();

        let digest_len = self.bstr_head(&mut bytes, "in the digest")?;
        if digest_len != 32 {
            return Err(Problem::Malformed(format!(
                "digest must be 32 bytes, found {digest_len}"
            )));
        }
        let at = bytes.len();
        self.take(&mut bytes, 32, "inside the digest")?;
        let mut digest = [0u8; 32];
        digest.copy_from_slice(&bytes[at..]);

        let signature = match self.peek_byte(&mut bytes, "before the signature field")? {
            NULL => None,
            head => {
                bytes.pop();
                let sig_len = self.bstr_head_from(&mut bytes, head, "in the signature")?;
                if sig_len != 64 {
                    return Err(Problem::Malformed(format!(
                        "signature must be 64 bytes or null, found {sig_len} bytes"
                    )));
                }
                let at = bytes.len();
                self.take(&mut bytes, 64, "inside the signature")?;
                let mut sig = [0u8; 64];
                sig.copy_from_slice(&bytes[at..]);
                Some(sig)
            }
        };
        self.offset = start + bytes.len() as u64;
        Ok(Some(RawRecord {
            offset: start,
            bytes,
            payload,
            digest: Hash32(digest),
            signature,
        }))
    }

    fn take(&mut self, bytes: &mut Vec<u8>, n: usize, what: &'static str) -> Result<(), Problem> {
        let at = bytes.len();
        bytes.resize(at + n, 0);
        self.inner.read_exact(&mut bytes[at..]).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                Problem::Truncated(what)
            } else {
                io_problem(e)
            }
        })
    }

    fn peek_byte(&mut self, bytes: &mut Vec<u8>, what: &'static str) -> Result<u8, Problem> {
        self.take(bytes, 1, what)?;
        Ok(bytes[bytes.len() - 1])
    }

    fn bstr_head(&mut self, bytes: &mut Vec<u8>, what: &'static str) -> Result<u64, Problem> {
        let head = self.peek_byte(bytes, what)?;
        bytes.pop();
        self.bstr_head_from(bytes, head, what)
    }

    /// Parse a byte-string head whose first byte is `head`, in shortest form.
    fn bstr_head_from(
        &mut self,
        bytes: &mut Vec<u8>,
        head: u8,
        what: &'static str,
    ) -> Result<u64, Problem> {
        bytes.push(head);
        if head >> 5 != BSTR_MAJOR {
            return Err(Problem::Malformed(format!(
                "expected a CBOR byte string, found initial byte {head:#04x}"
            )));
        }
        let info = head & 0x1f;
        let width = match info {
            0..=23 => return Ok(u64::from(info)),
            24 => 1,
            25 => 2,
            26 => 4,
            27 => 8,
            _ => {
                return Err(Problem::Malformed(format!(
                    "unsupported byte-string length encoding {head:#04x} (indefinite or reserved)"
                )))
            }
        };
        let at = bytes.len();
        self.take(bytes, width, what)?;
        let value = bytes[at..]
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let shortest = match width {
            1 => value >= 24,
            2 => value > 0xff,
            4 => value > 0xffff,
            _ => value > 0xffff_ffff,
        };
        if !shortest {
            return Err(Problem::Malformed(
                "byte-string length not in shortest form".into(),
            ));
        }
        Ok(value)
    }
}

fn io_problem(source: io::Error) -> Problem {
    Problem::Io {
        path: "records.cborl".into(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> Vec<Result<Option<RawRecord>, String>> {
        let mut reader = EnvelopeReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match reader.next() {
                Ok(None) => break,
                Ok(Some(r)) => out.push(Ok(Some(r))),
                Err(e) => {
                    out.push(Err(e.to_string()));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn roundtrip_with_and_without_signature() {
        for payload_len in [0usize, 1, 23, 24, 255, 256, 70_000] {
            let payload = vec![7u8; payload_len];
            let sig = [9u8; 64];
            let mut file = encode(&payload, None);
            file.extend(encode(&payload, Some(&sig)));
            let records = read_all(&file);
            assert_eq!(records.len(), 2);
            let a = records[0].clone().unwrap().unwrap();
            let b = records[1].clone().unwrap().unwrap();
            assert_eq!(a.payload(), &payload[..]);
            assert!(a.digest_matches());
            assert_eq!(a.signature, None);
            assert_eq!(b.signature, Some(sig));
            assert_eq!(b.offset, a.bytes.len() as u64);
        }
    }

    #[test]
    fn every_truncation_is_reported() {
        let file = encode(b"hello", Some(&[1u8; 64]));
        for cut in 1..file.len() {
            let records = read_all(&file[..cut]);
            assert_eq!(records.len(), 1, "cut at {cut}");
            let err = records[0].clone().unwrap_err();
            assert!(err.contains("truncated"), "cut at {cut}: {err}");
        }
    }

    #[test]
    fn non_shortest_length_is_rejected() {
        let mut bytes = vec![ARRAY3, 0x58, 3, b'a', b'b', b'c'];
        bytes.extend(&encode(b"abc", None)[5..]);
        let records = read_all(&bytes);
        assert!(records[0].clone().unwrap_err().contains("shortest"));
    }
}
