//! The ZKDV transcript: record types, the `records.cborl` CBOR sequence, its
//! hash chain, challenge derivation and verification.
//!
//! A transcript directory holds `records.cborl`, an RFC 8742 CBOR sequence of
//! record envelopes, and `artifacts/`, content-addressed files the records
//! name (programs, snapshots). Every record carries a protocol version, its
//! kind, a sequence number and `prev`, the blake3 of the previous record's
//! exact bytes, so an edit, deletion, duplication, reordering or splice is
//! detected at the first record it affects. The normative specification is
//! `docs/protocol.md`; test vectors are in `protocol/tests/vectors/`.
//!
//! - [`Writer`] appends records, checking each one with the same state
//!   machine the auditor runs, and derives each step's [`Challenge`].
//! - [`Reader`] streams records and reports a truncated last record with its
//!   byte offset.
//! - [`verify_path`] checks a whole transcript: chain, sequence, well-formed
//!   records, signatures, the revealed challenge key, and every sampling
//!   decision re-derived against the check records.
//!
//! ```
//! use zkdv_protocol::*;
//!
//! let dir = tempfile::tempdir()?;
//! let leaf = |path: &str, dtype: &str, shape: Vec<u64>| Leaf {
//!     path: path.into(), dtype: dtype.into(), shape,
//! };
//! let root = RootInput {
//!     prover: "whitebox-jax".into(),
//!     config_name: "example".into(),
//!     versions: Default::default(),
//!     sampling: Sampling::Every { n: 2 },
//!     tolerance: Tolerance::fixed(1e-6, 1e-5),
//!     tolerance_policy: TolerancePolicy::Fixed,
//!     rolling_window: 2,
//!     probe_ratio: 0.5,
//!     snapshot_interval: 4,
//!     params: vec![leaf("w", "f32", vec![4])],
//!     opt_state: vec![],
//!     batch: vec![leaf("batch", "u32", vec![2, 3])],
//!     probe_seed: None,
//!     rank: None,
//! };
//! let mut writer = Writer::create(dir.path(), root, WriterOptions::default())?;
//! let program = writer.put_artifact(b"module {}", "mlir")?;
//! let program = writer.append_program(ProgramBody {
//!     name: "train_step".into(),
//!     format: "stablehlo".into(),
//!     attested: program.clone(),
//!     production: Some(program),
//!     precision: Precision { narrowest: Some("f32".into()), narrow_results: 0 },
//!     tolerance: writer.root().tolerance,
//!     replay: None,
//!     batch: None,
//!     matmul: None,
//! })?;
//! let mut state = Hash32::ZERO;
//! for step in 0..2 {
//!     let next = Hash32::of(&[step as u8]);
//!     let receipt = writer.append_step(StepBody {
//!         step,
//!         program,
//!         batch: BatchCommitment { rows: 2, width: 3, window: 2, root: Hash32::ZERO },
//!         pre_state: state,
//!         update: Hash32::ZERO,
//!         post_state: next,
//!         overlap: Overlap::Unchecked,
//!         evidence: None,
//!         hyperparameters: None,
//!         nonfinite: None,
//!     })?;
//!     state = next;
//!     if receipt.challenge.update {
//!         // A real session replays the step here; this one pretends.
//!         writer.append_check(CheckBody {
//!             step,
//!             kind: CheckKind::Update,
//!             indices: receipt.challenge.update_indices(),
//!             committed: vec![0.5],
//!             recomputed: vec![0.5],
//!             tolerance: writer.root().tolerance,
//!             spread: vec![],
//!             verdict: Verdict::Pass,
//!             replay_length: 0,
//!             outliers: 0,
//!             bias: None,
//!             scale: None,
//!         })?;
//!     }
//!     if receipt.challenge.state {
//!         writer.append_check(CheckBody {
//!             step,
//!             kind: CheckKind::State,
//!             indices: vec![],
//!             committed: vec![1.0],
//!             recomputed: vec![1.0],
//!             tolerance: writer.root().tolerance,
//!             spread: vec![],
//!             verdict: Verdict::Pass,
//!             replay_length: 1,
//!             outliers: 0,
//!             bias: None,
//!             scale: None,
//!         })?;
//!     }
//! }
//! writer.close(None)?;
//! let report = verify_path(dir.path())?;
//! assert_eq!((report.steps, report.checks.total()), (2, 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod challenge;
mod check;
mod envelope;
mod error;
mod hash;
mod inspect;
mod reader;
mod records;
mod tolerance;
mod verify;
mod writer;

pub mod evidence;
pub mod noise;
pub mod packing;
pub mod safetensors;
pub use challenge::{
    audit_key, derive_audit_challenge, derive_challenge, key_commitment, AuditChallenge, Challenge,
};
pub use check::InvalidCheck;
pub use envelope::{encode as encode_envelope, record_digest, RawRecord, MAX_PAYLOAD_BYTES};
pub use error::{Error, Position, Problem, Result};
pub use hash::{
    Bytes, Hash32, ParseHashError, CHALLENGE_DOMAIN, KEY_COMMITMENT_CONTEXT, RECORD_DIGEST_CONTEXT,
};
pub use inspect::{
    inspect_path, ExpectedChecks, HyperparameterRange, Inspection, LayoutSummary, ProgramSummary,
};
pub use reader::{resolve, Reader, Record, RECORDS_FILE};
pub use records::{
    Artifact, BatchCommitment, Body, CheckBody, CheckKind, CloseBody, Failure, Hyperparameter,
    Kind, Leaf, Overlap, Payload, Precision, ProductionBody, ProgramBody, Rank, RootBody,
    RootInput, Sampling, SnapshotBody, Status, StepBody, StepEvidence, Verdict, MATMUL_TF32,
    PROTOCOL_VERSION,
};
pub use tolerance::{
    Outcome, Tolerance, ToleranceError, TolerancePolicy, ENSEMBLE_REPLAYS, ENSEMBLE_SPREAD,
};
pub use verify::{
    read_verified, verify_path, verify_path_observed, verify_reader, CheckCounts, Report, Verified,
};
pub use writer::{StepReceipt, Writer, WriterOptions};
