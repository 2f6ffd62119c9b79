//! Transcript verification: one state machine shared by the auditor
//! ([`verify_path`]) and the writer, which refuses to append a record the
//! auditor would reject.
//!
//! Per record, in order: envelope and digest (by the reader), version,
//! sequence number, `prev` chain, signature, then the kind's rules. At the
//! close record the revealed key is checked against the root's commitment and
//! every sampling decision is re-derived: each sampled check must be present
//! (with the challenged indices) and no unsampled check may be.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ed25519_dalek::{Signature, VerifyingKey};
use serde::Serialize;

use crate::challenge::{derive_challenge, key_commitment};
use crate::error::{Error, Position, Problem, Result};
use crate::hash::Hash32;
use crate::reader::{resolve, Reader, Record};
use crate::records::{
    Artifact, Body, CheckBody, CheckKind, CloseBody, Kind, Leaf, ProductionBody, ProgramBody,
    RootBody, Sampling, SnapshotBody, Status, StepBody, Verdict, MATMUL_TF32,
};

/// Counts of check records by kind and verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CheckCounts {
    /// State checks that passed.
    pub state_passed: u64,
    /// State checks that failed.
    pub state_failed: u64,
    /// Update checks that passed.
    pub update_passed: u64,
    /// Update checks that failed.
    pub update_failed: u64,
}

impl CheckCounts {
    /// All checks.
    pub fn total(&self) -> u64 {
        self.state_passed + self.state_failed + self.update_passed + self.update_failed
    }
}

/// Summary of a transcript that verified.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Prover named by the root.
    pub prover: String,
    /// Configuration name.
    pub config_name: String,
    /// Records read.
    pub records: u64,
    /// Bytes of `records.cborl`.
    pub bytes: u64,
    /// Step records.
    pub steps: u64,
    /// Program records.
    pub programs: u64,
    /// Snapshot records.
    pub snapshots: u64,
    /// Check records by kind and verdict.
    pub checks: CheckCounts,
    /// Whether every record carries a valid session signature.
    pub signed: bool,
    /// Status of the close record.
    pub status: Status,
    /// Artifacts whose bytes were checked, or `None` when only the records
    /// file was given.
    pub artifacts_checked: Option<u64>,
    /// Steps whose record says their update was not finite (NaN or
    /// infinite sketch values: the run diverged), and the first of them.
    pub nonfinite_steps: u64,
    /// The first step whose update was not finite.
    pub first_nonfinite: Option<u64>,
}

/// Verify a transcript directory (records and artifacts) or a records file
/// (records only).
pub fn verify_path(path: &Path) -> Result<Report> {
    verify_path_observed(path, &mut |_, _| {})
}

/// [`verify_path`], calling `progress(bytes_verified, total_bytes)` after
/// each record (a long transcript's progress bar).
pub fn verify_path_observed(path: &Path, progress: &mut dyn FnMut(u64, u64)) -> Result<Report> {
    let (file, is_dir) = resolve(path)?;
    let total = std::fs::metadata(&file).map_or(0, |m| m.len());
    let handle = File::open(&file).map_err(|source| Problem::Io {
        path: file.clone(),
        source,
    })?;
    let artifacts = if is_dir { Some(path) } else { None };
    let mut verifier = Verifier::new(Mode::Audit, artifacts.map(Path::to_owned));
    let mut reader = Reader::new(std::io::BufReader::new(handle));
    while let Some(record) = reader.next() {
        verifier.accept(&record?)?;
        progress(reader.bytes_read(), total);
    }
    verifier.finish()
}

/// A transcript verified as far as it goes: every record accepted by the
/// verifier (chain, order, signatures, artifacts), in order.
#[derive(Debug)]
pub struct Verified {
    /// The records.
    pub records: Vec<Record>,
    /// The verification report when the transcript was closed; `None` for
    /// the prefix a killed run left (no close record, or a last record cut
    /// short by the kill).
    pub report: Option<Report>,
}

/// Verify a transcript directory like [`verify_path`], except that a
/// transcript without its close record, or whose last record was cut short
/// (a killed run), is accepted as the prefix it is: an auditor audits that
/// prefix. Any other problem is an error, as for [`verify_path`].
pub fn read_verified(dir: &Path) -> Result<Verified> {
    let (file, _) = resolve(dir)?;
    let handle = File::open(&file).map_err(|source| Problem::Io {
        path: file.clone(),
        source,
    })?;
    let mut verifier = Verifier::new(Mode::Audit, Some(dir.to_owned()));
    let mut reader = Reader::new(std::io::BufReader::new(handle));
    let mut records = Vec::new();
    let mut cut = false;
    for record in &mut reader {
        match record {
            Ok(record) => {
                verifier.accept(&record)?;
                records.push(record);
            }
            Err(e) if matches!(e.problem, Problem::Truncated(_)) && !records.is_empty() => {
                cut = true;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    let report = match verifier.finish() {
        Ok(report) if !cut => Some(report),
        Ok(_) => None,
        Err(e) if matches!(e.problem, Problem::MissingClose { .. }) => None,
        Err(e) => return Err(e),
    };
    Ok(Verified { records, report })
}

/// Verify records from a byte stream; artifacts are checked against
/// `artifacts_dir` when it is given.
pub fn verify_reader<R: Read>(input: R, artifacts_dir: Option<&Path>) -> Result<Report> {
    let mut verifier = Verifier::new(Mode::Audit, artifacts_dir.map(Path::to_owned));
    let mut reader = Reader::new(input);
    for record in &mut reader {
        verifier.accept(&record?)?;
    }
    verifier.finish()
}

/// Who runs the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// An auditor: a failed check or a poisoned session is an error.
    Audit,
    /// The writer: failed checks and a poisoned close are legitimate records.
    Write,
}

struct Session {
    body: RootBody,
    key: Option<VerifyingKey>,
    parameters: u64,
    optimizer_state: u64,
}

struct StepSeen {
    at: Position,
    hash: Hash32,
    /// `seq` of the step's program record.
    program: u64,
}

struct CheckSeen {
    at: Position,
    indices: Vec<u64>,
}

/// Incremental transcript verifier.
pub(crate) struct Verifier {
    mode: Mode,
    artifacts_dir: Option<PathBuf>,
    artifacts_checked: HashSet<Hash32>,
    index: u64,
    bytes: u64,
    prev: Hash32,
    session: Option<Session>,
    programs: BTreeMap<u64, ProgramBody>,
    /// Program records written without their production program, whose
    /// production record has not come yet.
    unsealed: BTreeSet<u64>,
    steps: Vec<StepSeen>,
    last_post_state: Hash32,
    snapshots: BTreeSet<u64>,
    /// The step of a final snapshot off the snapshot interval, after which
    /// no step record may come.
    final_snapshot: Option<u64>,
    checks: BTreeMap<(u64, CheckKind), CheckSeen>,
    counts: CheckCounts,
    failed: bool,
    close: Option<CloseBody>,
    /// Steps recorded as not finite, and the first.
    nonfinite: (u64, Option<u64>),
}

impl Verifier {
    pub(crate) fn new(mode: Mode, artifacts_dir: Option<PathBuf>) -> Verifier {
        Verifier {
            mode,
            artifacts_dir,
            artifacts_checked: HashSet::new(),
            index: 0,
            bytes: 0,
            prev: Hash32::ZERO,
            session: None,
            programs: BTreeMap::new(),
            unsealed: BTreeSet::new(),
            steps: Vec::new(),
            last_post_state: Hash32::ZERO,
            snapshots: BTreeSet::new(),
            final_snapshot: None,
            checks: BTreeMap::new(),
            counts: CheckCounts::default(),
            failed: false,
            close: None,
            nonfinite: (0, None),
        }
    }

    /// The hash of the last accepted record.
    pub(crate) fn last_hash(&self) -> Hash32 {
        self.prev
    }

    /// Step records accepted so far.
    pub(crate) fn steps(&self) -> u64 {
        self.steps.len() as u64
    }

    /// The hash of step `step`'s record.
    pub(crate) fn step_hash(&self, step: u64) -> Option<Hash32> {
        self.steps.get(usize::try_from(step).ok()?).map(|s| s.hash)
    }

    /// `post_state` of the last step, zero before the first.
    pub(crate) fn last_post_state(&self) -> Hash32 {
        self.last_post_state
    }

    /// Check one record and, if it is valid, take it into the state.
    pub(crate) fn accept(&mut self, record: &Record) -> Result<()> {
        let at = Position {
            index: self.index,
            offset: record.raw.offset,
        };
        self.check(record).map_err(|e| match e {
            Located::Here(problem) => Error::at(at, problem),
            Located::At(elsewhere, problem) => Error::at(elsewhere, problem),
        })?;
        self.index += 1;
        self.bytes = record.raw.offset + record.raw.bytes.len() as u64;
        self.prev = record.raw.hash();
        Ok(())
    }

    fn check(&mut self, record: &Record) -> Result<(), Located> {
        let at = Position {
            index: self.index,
            offset: record.raw.offset,
        };
        self.envelope_rules(record)?;
        match record.body() {
            Body::Root(_) => Ok(()),
            Body::Program(program) => Ok(self.program(record.seq(), program)?),
            Body::Production(production) => Ok(self.production(production)?),
            Body::Step(step) => Ok(self.step(at, record.raw.hash(), step)?),
            Body::Snapshot(snapshot) => Ok(self.snapshot(snapshot)?),
            Body::Check(check) => Ok(self.check_record(at, check)?),
            Body::Close(close) => {
                self.close_fields(close)?;
                self.all_sealed(close.status)?;
                self.check_decisions(&close.challenge_key, close.status)?;
                self.close = Some(close.clone());
                Ok(())
            }
        }
    }

    /// Sequence, chain, record order and signature.
    fn envelope_rules(&mut self, record: &Record) -> Result<(), Problem> {
        if record.seq() != self.index {
            return Err(Problem::Sequence {
                expected: self.index,
                found: record.seq(),
            });
        }
        if record.payload.prev != self.prev {
            return Err(Problem::PrevMismatch);
        }
        if self.close.is_some() {
            return Err(Problem::UnexpectedKind {
                found: record.kind(),
                why: "records follow the close record",
            });
        }
        if let Body::Root(root) = record.body() {
            if self.session.is_some() {
                return Err(Problem::UnexpectedKind {
                    found: Kind::Root,
                    why: "a transcript has exactly one root record",
                });
            }
            self.session = Some(check_root(root)?);
        }
        let Some(session) = &self.session else {
            return Err(Problem::UnexpectedKind {
                found: record.kind(),
                why: "the first record must be the root record",
            });
        };
        check_signature(session, record)
    }

    fn session(&self) -> &Session {
        self.session
            .as_ref()
            .expect("kind rules run only after the root record was accepted")
    }

    fn program(&mut self, seq: u64, program: &ProgramBody) -> Result<(), Problem> {
        if program.name.is_empty() || program.format.is_empty() {
            return Err(Problem::Invalid(
                "program record needs a name and a format".into(),
            ));
        }
        self.artifact(&program.attested)?;
        match &program.production {
            Some(production) => self.artifact(production)?,
            None => {
                self.unsealed.insert(seq);
            }
        }
        if let Some(replay) = &program.replay {
            self.artifact(replay)?;
        }
        if let Some(matmul) = program.matmul.as_deref().filter(|m| *m != MATMUL_TF32) {
            return Err(Problem::Invalid(format!(
                "program record: matmul {matmul:?} is not \"{MATMUL_TF32}\""
            )));
        }
        let root = &self.session().body;
        if let Some(batch) = &program.batch {
            check_batch_layout(batch, root.rolling_window)
                .map_err(|msg| Problem::Invalid(format!("program record: {msg}")))?;
        }
        let expected = root
            .tolerance
            .for_program(root.tolerance_policy, &program.precision);
        if program.tolerance != expected {
            return Err(Problem::Invalid(format!(
                "program tolerance {:?} is not the one the root's {:?} tolerance policy gives \
                 a program of precision {:?}: {expected:?}",
                program.tolerance, root.tolerance_policy, program.precision
            )));
        }
        self.programs.insert(seq, program.clone());
        Ok(())
    }

    fn production(&mut self, production: &ProductionBody) -> Result<(), Problem> {
        if !self.unsealed.remove(&production.program) {
            let why = if self.programs.contains_key(&production.program) {
                "whose production program is already committed"
            } else {
                "which is not an earlier program record"
            };
            return Err(Problem::Invalid(format!(
                "production record names program record {}, {why}",
                production.program
            )));
        }
        self.artifact(&production.production)
    }

    /// At an `ok` close, every program's production program is committed. A
    /// poisoned session may end before a production program was compiled:
    /// its transcript is invalid anyway.
    fn all_sealed(&self, status: Status) -> Result<(), Problem> {
        match self.unsealed.first() {
            Some(program) if status == Status::Ok => Err(Problem::Invalid(format!(
                "program record {program} left its production program to a later production \
                 record, and none came before the close record"
            ))),
            _ => Ok(()),
        }
    }

    fn step(&mut self, at: Position, hash: Hash32, step: &StepBody) -> Result<(), Problem> {
        if let Some(evidence) = &step.evidence {
            self.artifact(&evidence.batch)?;
            self.artifact(&evidence.update)?;
        }
        let expected = self.steps.len() as u64;
        if step.step != expected {
            return Err(Problem::Invalid(format!(
                "step record numbers step {}, expected step {expected}",
                step.step
            )));
        }
        if let Some(last) = self.final_snapshot {
            return Err(Problem::Invalid(format!(
                "step {} follows the final snapshot of step {last} (a snapshot off the \
                 snapshot interval is the state after the last step)",
                step.step
            )));
        }
        if !self.programs.contains_key(&step.program) {
            return Err(Problem::Invalid(format!(
                "step {} names program record {}, which is not an earlier program record",
                step.step, step.program
            )));
        }
        let root = &self.session().body;
        if step.batch.window != root.rolling_window {
            return Err(Problem::Invalid(format!(
                "batch rolling window {} differs from the root's rolling_window {}",
                step.batch.window, root.rolling_window
            )));
        }
        if step.batch.window > step.batch.width {
            return Err(Problem::Invalid(format!(
                "rolling window {} exceeds the packed row width {}",
                step.batch.window, step.batch.width
            )));
        }
        let program = &self.programs[&step.program];
        if let [leaf] = program.batch_layout(root) {
            if leaf.shape != [step.batch.rows, step.batch.width] {
                return Err(Problem::Invalid(format!(
                    "batch of {}x{} words does not match the batch layout {:?} of its program \
                     (record {}{})",
                    step.batch.rows,
                    step.batch.width,
                    leaf.shape,
                    step.program,
                    if program.batch.is_some() {
                        ""
                    } else {
                        ", the root's layout"
                    }
                )));
            }
        }
        if expected > 0 && step.pre_state != self.last_post_state {
            return Err(Problem::Invalid(format!(
                "pre-state commitment of step {expected} differs from the post-state commitment \
                 of step {}: the state changed outside the attested transition",
                expected - 1
            )));
        }
        if step.nonfinite == Some(0) {
            return Err(Problem::Invalid(
                "nonfinite must be at least 1 (absent when every update value is finite)".into(),
            ));
        }
        if step.nonfinite.is_some() {
            self.nonfinite.0 += 1;
            self.nonfinite.1.get_or_insert(expected);
        }
        self.last_post_state = step.post_state;
        self.steps.push(StepSeen {
            at,
            hash,
            program: step.program,
        });
        Ok(())
    }

    fn snapshot(&mut self, snapshot: &SnapshotBody) -> Result<(), Problem> {
        let interval = self.session().body.snapshot_interval;
        let steps = self.steps.len() as u64;
        if snapshot.step > steps {
            return Err(Problem::Invalid(format!(
                "snapshot of step {} precedes the commitment of step {}",
                snapshot.step,
                steps.saturating_sub(1)
            )));
        }
        if snapshot.step % interval != 0 {
            // Only the final snapshot (the state after the last step) may be
            // off the interval; no step record may follow it.
            if snapshot.step != steps {
                return Err(Problem::Invalid(format!(
                    "snapshot of step {} is off the snapshot interval {interval}",
                    snapshot.step
                )));
            }
            self.final_snapshot = Some(snapshot.step);
        }
        if !self.snapshots.insert(snapshot.step) {
            return Err(Problem::Invalid(format!(
                "second snapshot of step {}",
                snapshot.step
            )));
        }
        if let Some(artifact) = &snapshot.artifact {
            self.artifact(artifact)?;
        }
        Ok(())
    }

    fn check_record(&mut self, at: Position, check: &CheckBody) -> Result<(), Problem> {
        let root = &self.session().body;
        if check.step >= self.steps.len() as u64 {
            return Err(Problem::Invalid(format!(
                "check of step {} precedes that step's record",
                check.step
            )));
        }
        if self.checks.contains_key(&(check.step, check.kind)) {
            return Err(Problem::Invalid(format!(
                "second {} check of step {}",
                check.kind, check.step
            )));
        }
        let program = self.steps[check.step as usize].program;
        let tolerance = self.programs[&program].tolerance;
        if check.tolerance != tolerance {
            return Err(Problem::Invalid(format!(
                "check tolerance {:?} differs from that of step {}'s program {:?}",
                check.tolerance, check.step, tolerance
            )));
        }
        check
            .validate(root)
            .map_err(|e| Problem::Invalid(e.to_string()))?;
        // The body is valid, so its values compare, and a refused pair means
        // a failed check.
        if let Some(o) = check.outcome().ok().flatten().filter(|o| !o.passed) {
            if self.mode == Mode::Audit {
                return Err(Problem::CheckFailed {
                    step: check.step,
                    kind: check.kind,
                    detail: format!(
                        "value {}{} committed {} but replay gives {}",
                        o.index,
                        check
                            .indices
                            .get(o.index)
                            .map(|c| format!(" (coordinate {c})"))
                            .unwrap_or_default(),
                        o.committed,
                        o.recomputed
                    ),
                });
            }
            self.failed = true;
        }
        match (check.kind, check.verdict) {
            (CheckKind::State, Verdict::Pass) => self.counts.state_passed += 1,
            (CheckKind::State, Verdict::Fail) => self.counts.state_failed += 1,
            (CheckKind::Update, Verdict::Pass) => self.counts.update_passed += 1,
            (CheckKind::Update, Verdict::Fail) => self.counts.update_failed += 1,
        }
        self.checks.insert(
            (check.step, check.kind),
            CheckSeen {
                at,
                indices: check.indices.clone(),
            },
        );
        Ok(())
    }

    fn close_fields(&self, close: &CloseBody) -> Result<(), Problem> {
        let session = self.session();
        if close.steps != self.steps.len() as u64 {
            return Err(Problem::Invalid(format!(
                "close record counts {} steps, the transcript has {}",
                close.steps,
                self.steps.len()
            )));
        }
        if close.final_state != self.last_post_state {
            return Err(Problem::Invalid(
                "close record's final state differs from the last step's post-state".into(),
            ));
        }
        if key_commitment(&close.challenge_key) != session.body.challenge_key_commitment {
            return Err(Problem::KeyMismatch);
        }
        match (close.status, &close.failure) {
            (Status::Ok, None) if self.failed => {
                return Err(Problem::Invalid(
                    "session closed as ok although a check failed".into(),
                ))
            }
            (Status::Ok, None) => {}
            (Status::Poisoned, Some(failure)) => {
                if self.mode == Mode::Audit {
                    return Err(Problem::Invalid(format!(
                        "the session was poisoned: {} check of step {} failed: {}",
                        failure.kind, failure.step, failure.message
                    )));
                }
            }
            (Status::Ok, Some(_)) => {
                return Err(Problem::Invalid(
                    "close status ok must not carry a failure".into(),
                ))
            }
            (Status::Poisoned, None) => {
                return Err(Problem::Invalid(
                    "close status poisoned needs a failure description".into(),
                ))
            }
        }
        Ok(())
    }

    /// Re-derive every step's challenge and match it with the check records.
    fn check_decisions(&self, key: &Hash32, status: Status) -> Result<(), Located> {
        let session = self.session();
        let sampling = &session.body.sampling;
        for (t, step) in self.steps.iter().enumerate() {
            let t = t as u64;
            let challenge = derive_challenge(
                key,
                &step.hash,
                t,
                sampling,
                session.parameters,
                session.optimizer_state,
            )?;
            for (kind, sampled) in [
                (CheckKind::State, challenge.state),
                (CheckKind::Update, challenge.update),
            ] {
                match (sampled, self.checks.get(&(t, kind))) {
                    (true, None) if status == Status::Ok || self.mode == Mode::Audit => {
                        return Err(Located::At(
                            step.at,
                            Problem::MissingCheck { step: t, kind },
                        ))
                    }
                    (true, None) => {}
                    (false, Some(seen)) => {
                        return Err(Located::At(
                            seen.at,
                            Problem::UnsampledCheck { step: t, kind },
                        ))
                    }
                    (true, Some(seen)) => {
                        if kind == CheckKind::Update && seen.indices != challenge.update_indices() {
                            return Err(Located::At(
                                seen.at,
                                Problem::Invalid(format!(
                                    "update check of step {t} records indices {:?}, the challenge \
                                     derivation gives {:?}",
                                    seen.indices,
                                    challenge.update_indices()
                                )),
                            ));
                        }
                    }
                    (false, None) => {}
                }
            }
        }
        Ok(())
    }

    fn artifact(&mut self, artifact: &Artifact) -> Result<(), Problem> {
        let fail = |why: String| Problem::Artifact {
            name: artifact.name.clone(),
            why,
        };
        let stem = artifact
            .name
            .strip_prefix("artifacts/")
            .map(|rest| rest.split_once('.').map_or(rest, |(stem, _)| stem));
        let named = stem.and_then(|s| Hash32::from_str(s).ok());
        let ext_ok = artifact.name.split_once('.').is_none_or(|(_, ext)| {
            !ext.is_empty() && ext.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
        });
        if named != Some(artifact.blake3) || !ext_ok {
            return Err(fail(format!(
                "name must be artifacts/<blake3 hex>[.<ext>] with the recorded hash {}",
                artifact.blake3
            )));
        }
        let Some(dir) = &self.artifacts_dir else {
            return Ok(());
        };
        if !self.artifacts_checked.insert(artifact.blake3) {
            return Ok(());
        }
        let path = dir.join(&artifact.name);
        let file =
            File::open(&path).map_err(|e| fail(format!("cannot open {}: {e}", path.display())))?;
        let mut hasher = blake3::Hasher::new();
        let size = hasher
            .update_reader(file)
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?
            .count();
        if size != artifact.size {
            return Err(fail(format!(
                "file has {size} bytes, the record says {}",
                artifact.size
            )));
        }
        if Hash32(*hasher.finalize().as_bytes()) != artifact.blake3 {
            return Err(fail(
                "file contents do not match the recorded blake3".into(),
            ));
        }
        Ok(())
    }

    /// End of input: the transcript must have been closed.
    pub(crate) fn finish(self) -> Result<Report> {
        let Some(session) = self.session else {
            return Err(Problem::Empty.into());
        };
        let Some(close) = self.close else {
            return Err(Problem::MissingClose {
                records: self.index,
            }
            .into());
        };
        Ok(Report {
            prover: session.body.prover,
            config_name: session.body.config_name,
            records: self.index,
            bytes: self.bytes,
            steps: self.steps.len() as u64,
            programs: self.programs.len() as u64,
            snapshots: self.snapshots.len() as u64,
            checks: self.counts,
            signed: session.key.is_some(),
            status: close.status,
            artifacts_checked: self
                .artifacts_dir
                .map(|_| self.artifacts_checked.len() as u64),
            nonfinite_steps: self.nonfinite.0,
            first_nonfinite: self.nonfinite.1,
        })
    }
}

/// A problem with the record being checked, or with an earlier one (decision
/// errors found at the close record concern the step or check record).
enum Located {
    Here(Problem),
    At(Position, Problem),
}

impl From<Problem> for Located {
    fn from(problem: Problem) -> Self {
        Located::Here(problem)
    }
}

fn check_signature(session: &Session, record: &Record) -> Result<(), Problem> {
    match (&session.key, &record.raw.signature) {
        (None, None) => Ok(()),
        (None, Some(_)) => Err(Problem::Signature(
            "record is signed but the root record names no session key".into(),
        )),
        (Some(_), None) => Err(Problem::Signature(
            "record is unsigned but the root record names a session key".into(),
        )),
        (Some(key), Some(sig)) => key
            .verify_strict(record.raw.digest.as_bytes(), &Signature::from_bytes(sig))
            .map_err(|_| {
                Problem::Signature("signature does not verify under the session key".into())
            }),
    }
}

fn check_root(root: &RootBody) -> Result<Session, Problem> {
    let invalid = |msg: String| Err(Problem::Invalid(format!("root record: {msg}")));
    if root.prover.is_empty() {
        return invalid("prover name is empty".into());
    }
    if let Some(rank) = &root.rank {
        if rank.rank >= rank.world_size {
            return invalid(format!(
                "rank {} is not in a group of {} ranks",
                rank.rank, rank.world_size
            ));
        }
    }
    match root.sampling {
        Sampling::Probability {
            state_check_probability: s,
            update_check_probability: u,
        } => {
            for (name, p) in [("state", s), ("update", u)] {
                if !(0.0..=1.0).contains(&p) {
                    return invalid(format!("{name} check probability {p} is not in [0, 1]"));
                }
            }
        }
        Sampling::Every { n: 0 } => return invalid("sampling period must be at least 1".into()),
        Sampling::Every { .. } => {}
    }
    let tol = root.tolerance;
    if !tol.is_valid() {
        return invalid(format!("tolerance {tol:?} must be finite and non-negative"));
    }
    if root.rolling_window == 0 {
        return invalid("rolling_window must be at least 1".into());
    }
    if !(root.probe_ratio > 0.0 && root.probe_ratio <= 1.0) {
        return invalid(format!("probe_ratio {} is not in (0, 1]", root.probe_ratio));
    }
    if root.snapshot_interval == 0 {
        return invalid("snapshot_interval must be at least 1".into());
    }
    for (tree, leaves) in [("params", &root.params), ("opt_state", &root.opt_state)] {
        check_layout(tree, leaves)
            .map_err(|msg| Problem::Invalid(format!("root record: {msg}")))?;
    }
    check_batch_layout(&root.batch, root.rolling_window)
        .map_err(|msg| Problem::Invalid(format!("root record: {msg}")))?;
    let parameters = match root.parameter_count() {
        Some(0) | None => {
            return invalid("the parameter layout must have between 1 and 2^64-1 elements".into())
        }
        Some(n) => n,
    };
    let Some(optimizer_state) = root.optimizer_state_count() else {
        return invalid("the optimizer-state layout has more than 2^64-1 elements".into());
    };
    let key = match &root.session_key {
        None => None,
        Some(bytes) => Some(VerifyingKey::from_bytes(&bytes.0).map_err(|_| {
            Problem::Signature("root record's session key is not a valid Ed25519 key".into())
        })?),
    };
    Ok(Session {
        body: root.clone(),
        key,
        parameters,
        optimizer_state,
    })
}

/// A packed batch layout (the root's, or a program's own): a valid layout
/// whose every leaf is a rank-2 `u32` array at least `rolling_window` wide.
fn check_batch_layout(leaves: &[Leaf], rolling_window: u64) -> std::result::Result<(), String> {
    check_layout("batch", leaves)?;
    for leaf in leaves {
        if leaf.dtype != "u32" || leaf.shape.len() != 2 {
            return Err(format!(
                "batch leaf {} must be a packed rank-2 u32 array, found {} {:?}",
                leaf.path, leaf.dtype, leaf.shape
            ));
        }
        if leaf.shape[1] < rolling_window {
            return Err(format!(
                "rolling window {} exceeds the packed row width {} of batch leaf {}",
                rolling_window, leaf.shape[1], leaf.path
            ));
        }
    }
    Ok(())
}

fn check_layout(tree: &str, leaves: &[Leaf]) -> std::result::Result<(), String> {
    let mut paths = HashSet::new();
    for leaf in leaves {
        if !paths.insert(leaf.path.as_str()) {
            return Err(format!("{tree} layout repeats leaf path {:?}", leaf.path));
        }
        if zkdv_hashing::DType::from_str(&leaf.dtype).is_err() {
            return Err(format!(
                "{tree} leaf {} has unknown dtype {:?}",
                leaf.path, leaf.dtype
            ));
        }
        if leaf.elements().is_none() {
            return Err(format!("{tree} leaf {} has too many elements", leaf.path));
        }
    }
    Ok(())
}
