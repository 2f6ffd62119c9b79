//! Retained evidence: named tensors stored beside a transcript, so that an
//! auditor can re-execute steps after the fact.
//!
//! A session that retains evidence stores, as content-addressed artifacts,
//! each step's packed batch and update sketches and each snapshot's full
//! pre-state (docs/protocol.md, "Evidence"). Each artifact is an
//! [`Bundle`] of named tensors; the transcript binds it twice: the record
//! names the artifact's file hash, and the tensors re-hash to the commitment
//! the record already holds (the batch root, the update tree, the snapshot's
//! state tree). An artifact is refused unless both hold.
//!
//! Encoding (then zstd-compressed, extension `ev.zst`: at level 1 where that
//! pays, else in zstd's fast mode: see `level_for`), all integers little-endian:
//!
//! ```text
//! "ZKDVEV1\0"                       8 bytes
//! u32 leaves
//! per leaf: u32 path bytes, path (UTF-8)
//!           u8 dtype-tag bytes, tag (ASCII: "f32", "u32", ...)
//!           u32 rank, rank x u64 dimensions
//!           u64 data bytes, data (row-major, little-endian elements)
//! ```

use zkdv_hashing::{commit_tensor, commit_tree, DType, Digest};

use crate::error::Problem;

const MAGIC: &[u8; 8] = b"ZKDVEV1\0";
/// The zstd level evidence is written at when compressing pays (see
/// [`level_for`]).
const LEVEL: i32 = 1;
/// The level written at otherwise: zstd's fast mode, which stores blocks it
/// cannot shrink as they are. Measured on the 12.2 MiB state of
/// `scripts/bench audit`'s 1.07M-parameter Adam MLP (`zstd -b`): level 1
/// shrank it by 1.09x at 528 MB/s (decoding at 1.0 GB/s); level -1 by
/// 1.001x at 5.6 GB/s (decoding at 14 GB/s). The committer writes a full
/// state a step under `retain="all"`, so the level's speed is the step's.
const FAST_LEVEL: i32 = -1;
/// Bytes of a bundle [`level_for`] compresses to decide.
const PROBE: usize = 1 << 20;
/// The largest compressed/raw ratio of the probe at which level 1 is used.
const WORTH: f64 = 0.9;

/// The level to write `raw` at: [`LEVEL`] when its first [`PROBE`] bytes
/// shrink to at most [`WORTH`] of their size at that level (sparse or
/// low-entropy tensors: integer batches, zero-initialized moments), else
/// [`FAST_LEVEL`]. Either level gives a zstd frame that [`Bundle::decode`]
/// reads.
fn level_for(raw: &[u8]) -> i32 {
    let probe = &raw[..raw.len().min(PROBE)];
    match zstd::bulk::compress(probe, LEVEL) {
        Ok(compressed) if compressed.len() as f64 <= WORTH * probe.len() as f64 => LEVEL,
        _ => FAST_LEVEL,
    }
}
/// The extension of evidence artifacts.
pub const EVIDENCE_EXTENSION: &str = "ev.zst";

/// One named tensor of a [`Bundle`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceLeaf {
    /// The leaf's path (as in the commitment it re-hashes to).
    pub path: String,
    /// Element type.
    pub dtype: DType,
    /// Dimensions.
    pub shape: Vec<u64>,
    /// Row-major little-endian elements.
    pub data: Vec<u8>,
}

impl EvidenceLeaf {
    /// The leaf's data as `u32` words (for a packed batch).
    pub fn words(&self) -> Result<Vec<u32>, Problem> {
        if self.dtype != DType::U32 {
            return Err(Problem::Invalid(format!(
                "evidence leaf {:?} is {}, not u32",
                self.path,
                self.dtype.tag()
            )));
        }
        Ok(self
            .data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

/// An ordered list of named tensors: one evidence artifact's content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bundle {
    /// The tensors, in commitment order.
    pub leaves: Vec<EvidenceLeaf>,
}

impl Bundle {
    /// The bundle's compressed bytes (what the artifact file holds).
    pub fn encode(&self) -> Result<Vec<u8>, Problem> {
        let size = self
            .leaves
            .iter()
            .map(|leaf| leaf.data.len() + leaf.path.len() + 8 * leaf.shape.len() + 32)
            .sum::<usize>();
        let mut out = Vec::with_capacity(MAGIC.len() + 4 + size);
        out.extend_from_slice(MAGIC);
        push_u32(&mut out, self.leaves.len(), "leaf count")?;
        for leaf in &self.leaves {
            push_u32(&mut out, leaf.path.len(), "path length")?;
            out.extend_from_slice(leaf.path.as_bytes());
            let tag = leaf.dtype.tag();
            out.push(tag.len() as u8);
            out.extend_from_slice(tag.as_bytes());
            push_u32(&mut out, leaf.shape.len(), "rank")?;
            for d in &leaf.shape {
                out.extend_from_slice(&d.to_le_bytes());
            }
            out.extend_from_slice(&(leaf.data.len() as u64).to_le_bytes());
            out.extend_from_slice(&leaf.data);
        }
        zstd::bulk::compress(&out, level_for(&out))
            .map_err(|e| Problem::Invalid(format!("evidence cannot be compressed: {e}")))
    }

    /// Decode an artifact file's bytes; every length is checked against the
    /// element type and shape.
    pub fn decode(bytes: &[u8]) -> Result<Bundle, Problem> {
        let raw = zstd::stream::decode_all(bytes)
            .map_err(|e| Problem::Invalid(format!("evidence is not zstd data: {e}")))?;
        let mut r = Cursor { bytes: &raw, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(Problem::Invalid(
                "evidence does not start with ZKDVEV1".into(),
            ));
        }
        let count = r.u32()?;
        let mut leaves = Vec::new();
        for _ in 0..count {
            let n = r.u32()? as usize;
            let path = String::from_utf8(r.take(n)?.to_vec())
                .map_err(|_| Problem::Invalid("evidence leaf path is not UTF-8".into()))?;
            let n = r.take(1)?[0] as usize;
            let tag = std::str::from_utf8(r.take(n)?)
                .map_err(|_| Problem::Invalid("evidence dtype tag is not ASCII".into()))?;
            let dtype = DType::from_tag(tag)
                .map_err(|e| Problem::Invalid(format!("evidence leaf {path:?}: {e}")))?;
            let rank = r.u32()? as usize;
            let mut shape = Vec::with_capacity(rank.min(64));
            for _ in 0..rank {
                shape.push(r.u64()?);
            }
            let len = r.u64()?;
            let expected = shape
                .iter()
                .try_fold(dtype.size_bytes() as u64, |acc, &d| acc.checked_mul(d));
            if expected != Some(len) {
                return Err(Problem::Invalid(format!(
                    "evidence leaf {path:?}: {len} bytes for {} of shape {shape:?}",
                    dtype.tag()
                )));
            }
            let data = r
                .take(usize::try_from(len).map_err(|_| r.short())?)?
                .to_vec();
            leaves.push(EvidenceLeaf {
                path,
                dtype,
                shape,
                data,
            });
        }
        if r.at != raw.len() {
            return Err(Problem::Invalid("evidence has trailing bytes".into()));
        }
        Ok(Bundle { leaves })
    }

    /// `commit_tree` over `(path, commit_tensor(leaf).digest)`: the update
    /// and snapshot commitments of the records.
    pub fn tree_commitment(&self) -> Result<Digest, Problem> {
        self.commitment_of(|_| true)
    }

    /// The tree commitment of the leaves whose path `keep` accepts, in their
    /// order: with `|p| p.starts_with("params/")`, a snapshot's model alone
    /// (`SnapshotBody::params`).
    ///
    /// # Errors
    ///
    /// As [`Bundle::tree_commitment`].
    pub fn commitment_of(&self, keep: impl Fn(&str) -> bool) -> Result<Digest, Problem> {
        self.commitment_as(|path| keep(path).then(|| path.to_owned()))
    }

    /// The tree commitment of the leaves that `name` names (`None`: left
    /// out), each under the path `name` gives it: a part of the state
    /// committed as a tree of its own, such as an averaged model's
    /// parameters under the paths of the model it averages.
    ///
    /// # Errors
    ///
    /// As [`Bundle::tree_commitment`].
    pub fn commitment_as(&self, name: impl Fn(&str) -> Option<String>) -> Result<Digest, Problem> {
        let digests = self
            .leaves
            .iter()
            .filter_map(|l| name(&l.path).map(|path| (path, l)))
            .map(|(path, l)| {
                commit_tensor(l.dtype, &l.shape, &l.data)
                    .map(|c| (path, c.digest()))
                    .map_err(|e| Problem::Invalid(format!("evidence leaf {:?}: {e}", l.path)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        commit_tree(&digests).map_err(|e| Problem::Invalid(format!("evidence: {e}")))
    }
}

fn push_u32(out: &mut Vec<u8>, n: usize, what: &str) -> Result<(), Problem> {
    let n = u32::try_from(n)
        .map_err(|_| Problem::Usage(format!("evidence {what} {n} does not fit 32 bits")))?;
    out.extend_from_slice(&n.to_le_bytes());
    Ok(())
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn short(&self) -> Problem {
        Problem::Invalid(format!("evidence ends early (at byte {})", self.at))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Problem> {
        let end = self.at.checked_add(n).ok_or_else(|| self.short())?;
        let out = self.bytes.get(self.at..end).ok_or_else(|| self.short())?;
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, Problem> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, Problem> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle() -> Bundle {
        Bundle {
            leaves: vec![
                EvidenceLeaf {
                    path: "params/w".into(),
                    dtype: DType::F32,
                    shape: vec![2, 2],
                    data: [1.0f32, -2.0, 0.5, 3.0]
                        .iter()
                        .flat_map(|x| x.to_le_bytes())
                        .collect(),
                },
                EvidenceLeaf {
                    path: "batch".into(),
                    dtype: DType::U32,
                    shape: vec![1, 3],
                    data: [7u32, 8, 9].iter().flat_map(|x| x.to_le_bytes()).collect(),
                },
            ],
        }
    }

    #[test]
    fn a_part_committed_under_other_paths_is_that_tree_of_its_leaves() {
        let b = bundle();
        // `params/w` renamed `model/w`, `batch` left out: the tree of that one leaf.
        let renamed = b
            .commitment_as(|p| {
                p.strip_prefix("params/")
                    .map(|rest| format!("model/{rest}"))
            })
            .expect("commitment");
        let w = &b.leaves[0];
        let digest = commit_tensor(w.dtype, &w.shape, &w.data)
            .expect("tensor")
            .digest();
        assert_eq!(renamed, commit_tree(&[("model/w", digest)]).expect("tree"));
        // Kept under their own paths, it is commitment_of's.
        assert_eq!(
            b.commitment_as(|p| Some(p.to_owned())).expect("all"),
            b.commitment_of(|_| true).expect("all")
        );
        assert_ne!(
            renamed,
            b.commitment_of(|p| p.starts_with("params/")).expect("w")
        );
    }

    /// A bundle of one `f32` leaf of `n` values from `value(i)`.
    fn floats(n: usize, mut value: impl FnMut(usize) -> f32) -> Bundle {
        Bundle {
            leaves: vec![EvidenceLeaf {
                path: "params/w".into(),
                dtype: DType::F32,
                shape: vec![n as u64],
                data: (0..n).flat_map(|i| value(i).to_le_bytes()).collect(),
            }],
        }
    }

    #[test]
    fn compressible_evidence_is_compressed_and_the_rest_stored_fast() {
        let n = 1 << 19;
        // Zeros (a moment before the first step): level 1, far below their size.
        let zeros = floats(n, |_| 0.0);
        let encoded = zeros.encode().unwrap();
        assert!(encoded.len() < n / 100, "{}", encoded.len());
        assert_eq!(Bundle::decode(&encoded).unwrap(), zeros);
        // Noise-like floats (a trained state): the fast level, about their size.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noisy = floats(n, |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 * 1e-7 - 0.8
        });
        let raw = noisy.leaves[0].data.len();
        let encoded = noisy.encode().unwrap();
        assert!(encoded.len() > raw * 9 / 10 && encoded.len() < raw + 4096);
        assert_eq!(Bundle::decode(&encoded).unwrap(), noisy);
    }

    #[test]
    fn a_bundle_round_trips_and_commits_like_its_tensors() {
        let b = bundle();
        let decoded = Bundle::decode(&b.encode().unwrap()).unwrap();
        assert_eq!(decoded, b);
        assert_eq!(decoded.leaves[1].words().unwrap(), vec![7, 8, 9]);
        let expected = commit_tree(&[
            (
                "params/w",
                commit_tensor(DType::F32, &[2, 2], &b.leaves[0].data)
                    .unwrap()
                    .digest(),
            ),
            (
                "batch",
                commit_tensor(DType::U32, &[1, 3], &b.leaves[1].data)
                    .unwrap()
                    .digest(),
            ),
        ])
        .unwrap();
        assert_eq!(decoded.tree_commitment().unwrap(), expected);
    }

    #[test]
    fn damaged_evidence_is_refused() {
        let bytes = bundle().encode().unwrap();
        assert!(Bundle::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(Bundle::decode(b"not zstd").is_err());
        let raw = zstd::bulk::compress(b"ZKDVEV1\0\x01\x00\x00\x00\x01", 3).unwrap();
        let err = Bundle::decode(&raw).unwrap_err();
        assert!(err.to_string().contains("ends early"), "{err}");
        // A length that disagrees with the shape.
        let mut b = bundle();
        b.leaves[0].data.pop();
        let err = Bundle::decode(&b.encode().unwrap()).unwrap_err();
        assert!(err.to_string().contains("15 bytes for f32"), "{err}");
    }
}
