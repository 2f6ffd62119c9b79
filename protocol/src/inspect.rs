//! A human-oriented summary of a transcript, valid or not.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::reader::{resolve, Reader};
use crate::records::{Body, CheckKind, Leaf, ProgramBody, Rank, Sampling, Status, Verdict};
use crate::tolerance::{Tolerance, TolerancePolicy};
use crate::verify::{verify_path, CheckCounts};

/// One program record.
#[derive(Debug, Clone, Serialize)]
pub struct ProgramSummary {
    /// Sequence number.
    pub seq: u64,
    /// The record, with the production program of its later production
    /// record when it left it to one.
    #[serde(flatten)]
    pub program: ProgramBody,
    /// Sequence number of the production record that committed the
    /// production program after the program record, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub production_record: Option<u64>,
}

/// Summary of the leaves of one layout.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LayoutSummary {
    /// Number of leaves.
    pub leaves: u64,
    /// Number of elements over all leaves.
    pub elements: u64,
}

impl LayoutSummary {
    fn of(leaves: &[Leaf]) -> LayoutSummary {
        LayoutSummary {
            leaves: leaves.len() as u64,
            elements: leaves
                .iter()
                .map(|l| l.elements().unwrap_or(u64::MAX))
                .fold(0u64, u64::saturating_add),
        }
    }
}

/// The values one hyperparameter took over a transcript's steps
/// ([`crate::StepBody::hyperparameters`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HyperparameterRange {
    /// Steps that committed it.
    pub steps: u64,
    /// Its value at the first of them.
    pub first: f64,
    /// Its value at the last of them.
    pub last: f64,
    /// Its smallest value.
    pub min: f64,
    /// Its largest value.
    pub max: f64,
}

impl HyperparameterRange {
    fn add(range: Option<HyperparameterRange>, value: f64) -> HyperparameterRange {
        match range {
            None => HyperparameterRange {
                steps: 1,
                first: value,
                last: value,
                min: value,
                max: value,
            },
            Some(r) => HyperparameterRange {
                steps: r.steps + 1,
                last: value,
                min: r.min.min(value),
                max: r.max.max(value),
                ..r
            },
        }
    }
}

/// What `zkdv inspect` shows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Inspection {
    /// Prover name.
    pub prover: Option<String>,
    /// Configuration name.
    pub config_name: Option<String>,
    /// The rank of a data-parallel group the session was, if any.
    pub rank: Option<Rank>,
    /// Software versions.
    pub versions: BTreeMap<String, String>,
    /// Sampling policy.
    pub sampling: Option<Sampling>,
    /// Tolerance.
    pub tolerance: Option<Tolerance>,
    /// How programs derive their tolerance from it.
    pub tolerance_policy: Option<TolerancePolicy>,
    /// Rolling window, probe ratio, snapshot interval.
    pub rolling_window: Option<u64>,
    /// Probe ratio.
    pub probe_ratio: Option<f64>,
    /// Snapshot interval.
    pub snapshot_interval: Option<u64>,
    /// Parameter layout.
    pub params: LayoutSummary,
    /// Optimizer-state layout.
    pub opt_state: LayoutSummary,
    /// Whether records are signed.
    pub signed: bool,
    /// Records read.
    pub records: u64,
    /// Records by kind.
    pub kinds: BTreeMap<String, u64>,
    /// Bytes of the records file.
    pub bytes: u64,
    /// Bytes of the step records.
    pub step_bytes: u64,
    /// Step records.
    pub steps: u64,
    /// Checks by kind and verdict.
    pub checks: CheckCounts,
    /// Snapshots (step indices).
    pub snapshots: Vec<u64>,
    /// Steps whose batch and update sketches were retained for an audit.
    pub evidence_steps: u64,
    /// Snapshots whose tensors were retained.
    pub retained_snapshots: u64,
    /// Bytes of the retained evidence (step evidence and snapshots).
    pub evidence_bytes: u64,
    /// The hyperparameters the step records commit (a schedule's learning
    /// rate), by name, with the values they took.
    pub hyperparameters: BTreeMap<String, HyperparameterRange>,
    /// Programs.
    pub programs: Vec<ProgramSummary>,
    /// Bytes of the artifacts referenced.
    pub artifact_bytes: u64,
    /// Close status, when the session was closed.
    pub status: Option<Status>,
    /// The first problem reading the records, if any.
    pub read_error: Option<String>,
    /// The verification outcome: `None` when valid, else the error.
    pub verification_error: Option<String>,
    /// How many checks of each kind the sampling policy draws, on average,
    /// over the steps recorded: `steps * p` under a probability policy, the
    /// exact count under the debug policy (`None` without a root).
    pub expected_checks: Option<ExpectedChecks>,
    /// Steps whose record says their update was not finite (the run
    /// diverged).
    pub nonfinite_steps: u64,
    /// The first of them.
    pub first_nonfinite: Option<u64>,
}

/// The checks a sampling policy draws over a number of steps.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExpectedChecks {
    /// State checks (a mean under a probability policy).
    pub state: f64,
    /// Update checks.
    pub update: f64,
}

impl ExpectedChecks {
    /// The checks `sampling` draws over `steps` steps.
    pub fn of(sampling: &Sampling, steps: u64) -> ExpectedChecks {
        match *sampling {
            Sampling::Probability {
                state_check_probability,
                update_check_probability,
            } => ExpectedChecks {
                state: steps as f64 * state_check_probability,
                update: steps as f64 * update_check_probability,
            },
            Sampling::Every { n } => {
                let k = steps.checked_div(n).unwrap_or(0) as f64;
                ExpectedChecks {
                    state: k,
                    update: k,
                }
            }
        }
    }
}

/// Summarize a transcript directory or records file. Reading stops at the
/// first unreadable record, which is reported, not raised.
pub fn inspect_path(path: &Path) -> Result<Inspection> {
    let (file, _) = resolve(path)?;
    let mut out = Inspection::default();
    let mut reader = Reader::open(&file)?;
    for record in &mut reader {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                out.read_error = Some(e.to_string());
                break;
            }
        };
        out.records += 1;
        *out.kinds.entry(record.kind().name().into()).or_default() += 1;
        match record.body() {
            Body::Root(root) => {
                out.prover = Some(root.prover.clone());
                out.config_name = Some(root.config_name.clone());
                out.rank = root.rank.clone();
                out.versions = root.versions.clone();
                out.sampling = Some(root.sampling);
                out.tolerance = Some(root.tolerance);
                out.tolerance_policy = Some(root.tolerance_policy);
                out.rolling_window = Some(root.rolling_window);
                out.probe_ratio = Some(root.probe_ratio);
                out.snapshot_interval = Some(root.snapshot_interval);
                out.params = LayoutSummary::of(&root.params);
                out.opt_state = LayoutSummary::of(&root.opt_state);
                out.signed = root.session_key.is_some();
            }
            Body::Program(program) => {
                let production = program.production.as_ref().map_or(0, |a| a.size);
                out.artifact_bytes += program.attested.size + production;
                out.programs.push(ProgramSummary {
                    seq: record.seq(),
                    program: program.clone(),
                    production_record: None,
                });
            }
            Body::Production(production) => {
                out.artifact_bytes += production.production.size;
                let named = out
                    .programs
                    .iter_mut()
                    .find(|p| p.seq == production.program && p.program.production.is_none());
                if let Some(summary) = named {
                    summary.program.production = Some(production.production.clone());
                    summary.production_record = Some(record.seq());
                }
            }
            Body::Step(step) => {
                if step.nonfinite.is_some() {
                    out.nonfinite_steps += 1;
                    out.first_nonfinite.get_or_insert(step.step);
                }
                out.steps += 1;
                out.step_bytes += record.raw.bytes.len() as u64;
                for h in step.hyperparameters.iter().flatten() {
                    let range = out.hyperparameters.get(&h.name).copied();
                    let range = HyperparameterRange::add(range, h.value);
                    out.hyperparameters.insert(h.name.clone(), range);
                }
                if let Some(evidence) = &step.evidence {
                    let size = evidence.batch.size + evidence.update.size;
                    out.evidence_steps += 1;
                    out.evidence_bytes += size;
                    out.artifact_bytes += size;
                }
            }
            Body::Snapshot(snapshot) => {
                out.snapshots.push(snapshot.step);
                if let Some(artifact) = &snapshot.artifact {
                    out.retained_snapshots += 1;
                    out.evidence_bytes += artifact.size;
                    out.artifact_bytes += artifact.size;
                }
            }
            Body::Check(check) => match (check.kind, check.verdict) {
                (CheckKind::State, Verdict::Pass) => out.checks.state_passed += 1,
                (CheckKind::State, Verdict::Fail) => out.checks.state_failed += 1,
                (CheckKind::Update, Verdict::Pass) => out.checks.update_passed += 1,
                (CheckKind::Update, Verdict::Fail) => out.checks.update_failed += 1,
            },
            Body::Close(close) => out.status = Some(close.status),
        }
    }
    out.bytes = reader.bytes_read();
    out.verification_error = verify_path(path).err().map(|e| e.to_string());
    out.expected_checks = out
        .sampling
        .as_ref()
        .map(|s| ExpectedChecks::of(s, out.steps));
    Ok(out)
}
