//! An audit split into parts, and the parts merged into one report.
//!
//! Segments are independent, so an audit of a long run can be spread over
//! machines by any scheduler: `zkdv audit DIR ... --part I/N --out FILE`
//! replays the segments whose index (in the order of their first step) is
//! `I` modulo `N`, and writes what it found to `FILE`; `zkdv audit DIR ...
//! --merge FILE...` reads the `N` parts and reports as one audit would.
//!
//! The merge does not take a part's word for what it was asked: it plans
//! the audit again from the same transcript and options, and a part is
//! accepted only if it was made from the same records (their blake3), the
//! same replay-affecting options (the auditor's key, the selection, the
//! checkpoints bound, the client's data and the noise limit: a
//! fingerprint), and replayed exactly the segments the plan gives its index.
//! Each part measures every compared snapshot's spread (the pass an audit
//! runs again when its drift exceeds the limit), so the drift across the
//! merged parts, summed coordinate by coordinate, is measured as one audit
//! measures it.
//!
//! A part file is CBOR: `{format, records, fingerprint, part: [I, N],
//! segments: [[start, end], ...], pass, seconds}`.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{AuditError, Pass};

/// The format tag of a part file.
const FORMAT: &str = "zkdv-audit-part-1";

/// Which part of an audit to run: `index` of `of` (`--part I/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// This part, from 0.
    pub index: u64,
    /// How many parts the audit is split into.
    pub of: u64,
}

impl FromStr for Part {
    type Err = String;

    fn from_str(text: &str) -> Result<Part, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("expected I/N (part I of N), got {text:?}"))?;
        let index: u64 = i
            .trim()
            .parse()
            .map_err(|_| format!("bad part index {i:?}"))?;
        let of: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("bad part count {n:?}"))?;
        if of == 0 || index >= of {
            return Err(format!("part {index} of {of}: need 0 <= I < N"));
        }
        Ok(Part { index, of })
    }
}

impl Part {
    /// Whether the segment at position `k` of the plan is this part's.
    pub(crate) fn owns(&self, k: usize) -> bool {
        k as u64 % self.of == self.index
    }
}

/// What one part found, and what it was asked.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PartState {
    format: String,
    records: String,
    fingerprint: String,
    part: Part,
    segments: Vec<(u64, u64)>,
    pass: Pass,
    seconds: f64,
}

impl PartState {
    pub(crate) fn new(
        records: String,
        fingerprint: String,
        part: Part,
        segments: Vec<(u64, u64)>,
        pass: Pass,
        seconds: f64,
    ) -> PartState {
        PartState {
            format: FORMAT.into(),
            records,
            fingerprint,
            part,
            segments,
            pass,
            seconds,
        }
    }

    /// Write the part to `path` (a temporary file beside it, then renamed).
    ///
    /// # Errors
    ///
    /// When the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), AuditError> {
        let failed = |e: String| AuditError::Unusable(format!("{}: {e}", path.display()));
        let mut bytes = Vec::new();
        ciborium::into_writer(self, &mut bytes).map_err(|e| failed(e.to_string()))?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".partial");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, &bytes).map_err(|e| failed(e.to_string()))?;
        std::fs::rename(&tmp, path).map_err(|e| failed(e.to_string()))
    }

    fn read(path: &Path) -> Result<PartState, AuditError> {
        let unusable = |e: String| AuditError::Unusable(format!("{}: {e}", path.display()));
        let bytes = std::fs::read(path).map_err(|e| unusable(e.to_string()))?;
        let state: PartState = ciborium::from_reader(bytes.as_slice())
            .map_err(|e| unusable(format!("not an audit part: {e}")))?;
        if state.format != FORMAT {
            return Err(unusable(format!(
                "an audit part of format {:?}, not {FORMAT:?}",
                state.format
            )));
        }
        Ok(state)
    }
}

/// The parts in `files`, checked against this audit's `records` digest,
/// `fingerprint` and `plan` (each segment's first and last step, in
/// order), as one pass, and the seconds they took together.
///
/// # Errors
///
/// A file that cannot be read, a part of another transcript or audit, a
/// part missing or given twice, or one whose segments are not its share of
/// the plan.
pub(crate) fn merge(
    files: &[PathBuf],
    records: &str,
    fingerprint: &str,
    plan: &[(u64, u64)],
    limit: f64,
) -> Result<(Pass, f64), AuditError> {
    let mut parts: Vec<PartState> = Vec::with_capacity(files.len());
    for file in files {
        let part = PartState::read(file)?;
        let refuse = |why: &str| {
            Err(AuditError::Unusable(format!(
                "{}: {why}; a merge takes the parts of one audit, with the same options",
                file.display()
            )))
        };
        if part.records != records {
            return refuse("a part of an audit of other records");
        }
        if part.fingerprint != fingerprint {
            return refuse(
                "a part of an audit with another seed, selection, checkpoints, data or noise limit",
            );
        }
        let expected: Vec<(u64, u64)> = plan
            .iter()
            .enumerate()
            .filter(|(k, _)| part.part.owns(*k))
            .map(|(_, s)| *s)
            .collect();
        if part.segments != expected {
            return refuse("its segments are not its share of this audit's");
        }
        parts.push(part);
    }
    let of = parts.first().map(|p| p.part.of).unwrap_or(0);
    let mut seen = vec![false; usize::try_from(of).unwrap_or(0)];
    for part in &parts {
        if part.part.of != of {
            return Err(AuditError::Unusable(format!(
                "the parts split the audit into {} and {} parts",
                of, part.part.of
            )));
        }
        let slot = &mut seen[part.part.index as usize];
        if *slot {
            return Err(AuditError::Unusable(format!(
                "part {}/{of} is given twice",
                part.part.index
            )));
        }
        *slot = true;
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(AuditError::Unusable(format!(
            "part {missing}/{of} is missing: a merge needs every part"
        )));
    }
    let seconds = parts.iter().map(|p| p.seconds).sum();
    let pass = Pass::merged(parts.into_iter().map(|p| p.pass), limit);
    Ok((pass, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_parsed_and_checked() {
        assert_eq!("1/3".parse(), Ok(Part { index: 1, of: 3 }));
        for bad in ["3/3", "0/0", "1", "a/2", "1/b"] {
            assert!(bad.parse::<Part>().is_err(), "{bad}");
        }
        let part = Part { index: 1, of: 3 };
        let owned: Vec<usize> = (0..7).filter(|&k| part.owns(k)).collect();
        assert_eq!(owned, [1, 4]);
    }
}
