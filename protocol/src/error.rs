//! Errors of reading, writing and verifying transcripts.

use std::fmt;
use std::path::PathBuf;

use crate::records::{CheckKind, Kind};

/// Where in a transcript a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Position of the record in the file, 0-based (the sequence number it
    /// should carry).
    pub index: u64,
    /// Byte offset of the record's first byte.
    pub offset: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record #{} at byte offset {}", self.index, self.offset)
    }
}

/// What is wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// The file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A directory holds no `records.cborl`.
    #[error("{0}: no records.cborl in this directory (is it a ZKDV transcript directory?)")]
    NoRecordsFile(PathBuf),
    /// The file holds no record at all.
    #[error("the transcript is empty: it holds no records")]
    Empty,
    /// The file ends inside a record.
    #[error("truncated record: the file ends {0} (an interrupted write?)")]
    Truncated(&'static str),
    /// The bytes are not a record envelope.
    #[error("not a ZKDV record: {0}")]
    Malformed(String),
    /// A length field is larger than the reader accepts.
    #[error("record payload of {len} bytes exceeds the {limit}-byte limit")]
    TooLarge {
        /// Declared length.
        len: u64,
        /// Limit.
        limit: u64,
    },
    /// The integrity digest does not match the payload.
    #[error("record digest does not match its payload: the record was altered or corrupted")]
    DigestMismatch,
    /// The payload does not decode.
    #[error("payload does not decode: {0}")]
    Payload(String),
    /// A version this implementation does not read.
    #[error("unsupported protocol version {found} (this reader supports version {supported})")]
    UnsupportedVersion {
        /// The version found.
        found: u64,
        /// The supported version.
        supported: u64,
    },
    /// A sequence number out of order.
    #[error("sequence number {found}, expected {expected} (a record was deleted, duplicated or reordered)")]
    Sequence {
        /// The expected number.
        expected: u64,
        /// The number found.
        found: u64,
    },
    /// `prev` does not chain to the previous record.
    #[error("prev does not match the hash of the previous record (records were reordered, edited or spliced from another transcript)")]
    PrevMismatch,
    /// A signature problem.
    #[error("signature: {0}")]
    Signature(String),
    /// A record of a kind that is not allowed here.
    #[error("unexpected {found} record: {why}")]
    UnexpectedKind {
        /// The kind found.
        found: Kind,
        /// Why it is not allowed.
        why: &'static str,
    },
    /// A field violates the protocol.
    #[error("{0}")]
    Invalid(String),
    /// A check record reports a failure.
    #[error("{kind} check of step {step} failed: {detail}")]
    CheckFailed {
        /// The step.
        step: u64,
        /// The check kind.
        kind: CheckKind,
        /// Which value, how far off.
        detail: String,
    },
    /// A sampled check has no record.
    #[error(
        "step {step} was sampled for a {kind} check but the transcript has no such check record"
    )]
    MissingCheck {
        /// The step.
        step: u64,
        /// The check kind.
        kind: CheckKind,
    },
    /// A check record for a step that was not sampled.
    #[error("{kind} check of step {step} was not sampled by the challenge derivation")]
    UnsampledCheck {
        /// The step.
        step: u64,
        /// The check kind.
        kind: CheckKind,
    },
    /// The transcript does not end with a close record.
    #[error("the transcript ends after {records} records without a close record (the session was not closed)")]
    MissingClose {
        /// Records read.
        records: u64,
    },
    /// The revealed key does not match the root's commitment.
    #[error("the revealed challenge key does not match the root record's commitment")]
    KeyMismatch,
    /// An artifact is missing or altered.
    #[error("artifact {name}: {why}")]
    Artifact {
        /// Its name.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// Misuse of the writer.
    #[error("{0}")]
    Usage(String),
}

/// A transcript error: a [`Problem`], and the record it concerns when there
/// is one.
#[derive(Debug)]
pub struct Error {
    /// The record concerned, if any.
    pub at: Option<Position>,
    /// What is wrong.
    pub problem: Problem,
}

impl Error {
    /// An error not tied to a record.
    pub fn new(problem: Problem) -> Error {
        Error { at: None, problem }
    }

    /// An error at a record.
    pub fn at(at: Position, problem: Problem) -> Error {
        Error {
            at: Some(at),
            problem,
        }
    }

    /// Whether the input is not a transcript at all (nothing to read, no
    /// records file, an empty one, a bad argument) rather than one that
    /// fails verification: exit code 2 of `zkdv verify`, `inspect` and
    /// `audit`, not 1.
    pub fn is_unusable(&self) -> bool {
        matches!(
            self.problem,
            Problem::Io { .. } | Problem::NoRecordsFile(_) | Problem::Empty | Problem::Usage(_)
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{at}: {}", self.problem),
            None => write!(f, "{}", self.problem),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.problem.source()
    }
}

impl From<Problem> for Error {
    fn from(problem: Problem) -> Self {
        Error::new(problem)
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
