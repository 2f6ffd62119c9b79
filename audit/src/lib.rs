//! `zkdv audit`: a third party re-executes sampled steps of a finished
//! transcript from the evidence its session retained, with challenges drawn
//! from the auditor's own randomness.
//!
//! The in-process checks of a session are drawn with the prover's challenge
//! key, so a dishonest prover knows which steps nobody will look at. An
//! audit draws its own: [`zkdv_protocol::derive_audit_challenge`] keyed by
//! the auditor's seed, after the transcript is final. For each audited step
//! `t` it
//!
//! 1. takes the newest retained snapshot `s <= t`, whose tensors must re-hash
//!    to the snapshot record's state commitment;
//! 2. replays `s..=t` in the Rust runtime with the program record's replay
//!    program, feeding each step the retained batch, which must re-hash to
//!    the step record's batch commitment (exactly);
//! 3. compares, at every replayed step, the update sketches of the replay
//!    with the retained ones, which must re-hash to the step record's update
//!    commitment, within the program's tolerance (and its perturbation
//!    ensemble's spread, measured when the fixed bound is exceeded);
//! 4. at `t`, runs the attested program on the rebuilt pre-state at the
//!    audit's own coordinates and compares them with the replay's;
//! 5. when the step after the segment has a retained snapshot, compares the
//!    replayed state with its tensors, element by element.
//!
//! Evidence that does not re-hash to its record's commitment, or that is
//! missing, makes the audit fail naming the artifact. A transcript whose
//! session was killed (no close record, or a last record cut short) is
//! audited as the prefix it is.
//!
//! The crate by concern: [`audit`] (here) selects the steps and schedules
//! the segments on a pool of `--jobs` threads; `transcript` reads the
//! verified records; `evidence` binds retained artifacts to the records
//! that commit to them; `replay` replays a segment; `compare` holds the
//! comparisons, each through [`zkdv_protocol::Tolerance::compare`]; and
//! `values` reads tensors as `f64`.

mod compare;
mod data;
mod evidence;
mod expect;
mod hyper;
mod model;
mod parts;
mod replay;
mod transcript;
mod values;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use zkdv_protocol::noise::{Coherence, Residuals, DRIFT_LIMIT, NOISE_RMS};
use zkdv_protocol::{audit_key, derive_audit_challenge, AuditChallenge, Hash32, MATMUL_TF32};

pub use crate::data::DataExpectation;
pub use crate::expect::{Expectation, Expectations, Products, Status, DEFAULT_CEILING};
pub use crate::hyper::HyperExpectation;
pub use crate::model::ModelExpectation;
pub use crate::parts::{Part, PartState};
use crate::replay::{replay_segment, Programs, SegmentOutcome};
use crate::transcript::Transcript;

/// Which steps an audit re-executes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Selection {
    /// The `n` steps of smallest draw (every step when there are fewer).
    Steps(u64),
    /// Every step whose draw is below the fraction, in `(0, 1]`.
    Fraction(f64),
}

/// What an audit is asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which steps.
    pub selection: Selection,
    /// The auditor's randomness (a secret, or a public beacon value published
    /// after the transcript was closed); recorded in the report.
    pub seed: String,
    /// Segments replayed in parallel (at least 1).
    pub jobs: usize,
    /// Replay only this part of the segments (`--part I/N`).
    pub part: Option<Part>,
    /// Replay nothing: merge these parts' files (`--merge`), made by audits
    /// of the same transcript with the same options.
    pub merge: Vec<PathBuf>,
    /// The client's checkpoint files (`--checkpoint`): full states, each
    /// bound to the snapshot records whose state commitment it re-hashes
    /// to, from which segments may start.
    pub checkpoints: Vec<PathBuf>,
    /// The client's expectations the transcript must meet.
    pub expect: Expectations,
}

/// Where a failed audit found a difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The step whose transition differs.
    pub step: u64,
    /// What was compared (`update sketch of w[3]`, `state params/w[17] at snapshot 24`, ...).
    pub what: String,
    /// What production committed (or the replay computed, for an attested
    /// coordinate).
    pub committed: f64,
    /// What the audit recomputed.
    pub recomputed: f64,
    /// The largest difference the tolerance allowed there.
    pub allowed: f64,
    /// Which test failed.
    pub kind: FailureKind,
    /// For a comparison that failed the noise test
    /// ([`zkdv_protocol::noise`]): its account, whose root mean square
    /// exceeded the limit (`committed` and `recomputed` are then those of
    /// its largest noise unit's pair), or the account of the leaf that
    /// failed the per-leaf test ([`zkdv_protocol::noise::leaf_residuals`];
    /// `allowed` then holds the leaf's limit, else 0). `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<Residuals>,
}

/// Which test an audit's [`Failure`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// One pair out of the tolerance.
    Pair,
    /// One snapshot comparison's differences, together, more than
    /// rounding noise.
    Noise,
    /// The differences of the snapshots compared keep one direction
    /// ([`zkdv_protocol::noise::Coherence`]): `committed` holds the drift
    /// per snapshot, `allowed` the limit.
    Drift,
    /// One leaf's differences keep one direction
    /// ([`zkdv_protocol::noise::leaf_bias`]): `committed` holds the
    /// statistic, `allowed` its limit.
    Bias,
    /// A step record commits what its replayed evidence does not (a
    /// hyperparameter other than the one the replay ran with): `what` says
    /// it, the numbers are 0.
    Record,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, &self.noise) {
            (FailureKind::Record, _) => write!(f, "{}", self.what),
            (FailureKind::Drift, _) => write!(
                f,
                "{}: {:.3} noise units per snapshot (at most {})",
                self.what, self.committed, self.allowed
            ),
            (FailureKind::Bias, _) => write!(
                f,
                "{} {:e} (at most {:e} admitted); each value is within its bound, but rounding \
                 noise keeps no direction",
                self.what, self.committed, self.allowed
            ),
            (FailureKind::Noise, Some(noise)) => write!(
                f,
                "{}: the differences are {:.3} noise units root-mean-square over {} values{}, \
                 more than rounding noise (the largest is {:.3}, committed {:e}, recomputed {:e})",
                self.what,
                noise.rms(),
                noise.values,
                if self.allowed > 0.0 {
                    format!(" (at most {} in one leaf)", self.allowed)
                } else {
                    String::new()
                },
                noise.largest,
                self.committed,
                self.recomputed
            ),
            _ => write!(
                f,
                "{}: committed {:e}, recomputed {:e} (allowed difference {:e})",
                self.what, self.committed, self.recomputed, self.allowed
            ),
        }
    }
}

/// The outcome of an audit that could run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The transcript audited.
    pub transcript: PathBuf,
    /// The auditor's seed, as given.
    pub seed: String,
    /// The auditor's key derived from it (hex).
    pub key: String,
    /// Steps in the transcript.
    pub steps: u64,
    /// Whether the transcript was closed (else its prefix was audited).
    pub closed: bool,
    /// The audited steps, in order (this part's, for a part).
    pub audited: Vec<u64>,
    /// What was replayed: each segment, from a full state to the step
    /// before the next (this part's, for a part).
    pub segments: Vec<SegmentReport>,
    /// The part of the audit this report is (`--part I/N`), if one.
    pub part: Option<Part>,
    /// How many parts this report merged (`--merge`), 0 for an audit that
    /// replayed its segments itself.
    pub merged: u64,
    /// Transitions replayed (a step replayed by two segments counts twice).
    pub transitions: u64,
    /// Snapshots whose full tensors were compared with a replayed state.
    pub snapshots_compared: u64,
    /// The noise test over those comparisons ([`zkdv_protocol::noise`]).
    pub noise: Noise,
    /// Wall-clock seconds of the replays.
    pub seconds: f64,
    /// The first difference, by step; `None` when every audited step
    /// reproduced.
    pub failure: Option<Failure>,
    /// Every expectation of the client's, checked or not.
    pub expectations: Vec<Expectation>,
    /// `"tf32"` when a program record says production multiplied `f32`
    /// as TensorFloat-32 (an NVIDIA GPU's products), which the audit's
    /// perturbation ensemble then modelled (`docs/protocol.md`, section
    /// 5a): the prover's word, which widens the spreads of such products;
    /// `None` for exact products.
    pub matmul: Option<String>,
    /// A part's findings, for `--merge` ([`PartState::write`]).
    #[serde(skip)]
    pub part_state: Option<PartState>,
}

/// One segment of an audit: replayed from the full state before `start`
/// through step `end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentReport {
    /// Its first step (whose pre-state is a retained snapshot or a bound
    /// checkpoint).
    pub start: u64,
    /// Its last step replayed.
    pub end: u64,
    /// The drawn steps in it, where the attested program ran.
    pub audited: Vec<u64>,
    /// Where its first state came from: `"snapshot"` (an artifact the
    /// session retained) or `"checkpoint"` (a file given with
    /// `--checkpoint`, bound by the snapshot's state commitment): what the
    /// audit took the segment's start from.
    pub from: &'static str,
}

/// The blake3 of the transcript's records file (hex): what a part of an
/// audit was made from.
fn records_digest(dir: &Path) -> Result<String, AuditError> {
    let (path, _) = zkdv_protocol::resolve(dir).map_err(AuditError::Invalid)?;
    let bytes = std::fs::read(&path)
        .map_err(|e| AuditError::Unusable(format!("{}: {e}", path.display())))?;
    Ok(Hash32::of(&bytes).to_hex())
}

/// What makes two audits of one transcript replay the same: the auditor's
/// key, the selection, the checkpoints bound and to which steps, the
/// client's data and the noise limit (hex blake3).
fn fingerprint(t: &Transcript, key: &Hash32, options: &Options, noise_limit: f64) -> String {
    let data = options.expect.data.as_ref().map(|d| {
        let examples: Vec<String> = d.examples.iter().map(|e| e.to_hex()).collect();
        format!("{} {:?} {:?} {:?}", d.leaves, examples, d.order, d.layout)
    });
    let text = format!(
        "{} {:?} {:?} {:?} {}",
        key.to_hex(),
        options.selection,
        t.checkpoints.keys().collect::<Vec<_>>(),
        data,
        noise_limit
    );
    Hash32::of(text.as_bytes()).to_hex()
}

impl Report {
    /// Whether every audited step reproduced and every expectation given
    /// was met.
    pub fn passed(&self) -> bool {
        self.failure.is_none() && !self.expectations.iter().any(|e| e.status.fails())
    }
}

/// The noise test's account over an audit's snapshot comparisons.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// Every compared float value, all comparisons together.
    pub total: Residuals,
    /// The largest root mean square of one comparison (each must stay at
    /// most `limit`).
    pub worst_rms: f64,
    /// The largest root mean square of one leaf of a snapshot comparison,
    /// its outliers set aside ([`zkdv_protocol::noise::leaf_residuals`];
    /// each must stay at most
    /// [`zkdv_protocol::noise::LEAF_NOISE_FACTOR`] times `limit`).
    pub worst_leaf_rms: f64,
    /// The drift per snapshot across the snapshots compared, in noise
    /// units ([`zkdv_protocol::noise::Coherence::drift`]; 0 with fewer than
    /// two).
    pub drift: f64,
    /// The limit the drift was held to: the auditor's
    /// [`Expectations::max_drift`], by default
    /// [`zkdv_protocol::noise::DRIFT_LIMIT`].
    pub drift_limit: f64,
    /// Pairs outside the per-pair tolerance accepted as outliers
    /// ([`zkdv_protocol::noise::outlier_allowance`]), over every comparison
    /// of a snapshot or of a step's update sketches.
    pub outliers: u64,
    /// The limit each comparison was held to: the auditor's
    /// [`Expectations::max_noise`], by default
    /// [`zkdv_protocol::noise::NOISE_RMS`].
    pub limit: f64,
    /// Whether a replayed step's program computes in a float narrower than
    /// `f32`, as the audit found from the program's own types (not the
    /// record's `precision`): the outliers of its update sketches and of
    /// the snapshot after it were then allowed their leaf's flip term
    /// ([`zkdv_protocol::noise::outlier_cap`]).
    pub narrow: bool,
}

impl Noise {
    /// Account for one comparison, which accepted `outliers`.
    pub(crate) fn add(&mut self, comparison: Residuals, outliers: u64, worst_leaf_rms: f64) {
        self.outliers += outliers;
        self.total = self.total.merged(comparison);
        self.worst_rms = self.worst_rms.max(comparison.rms());
        self.worst_leaf_rms = self.worst_leaf_rms.max(worst_leaf_rms);
    }

    /// Two audits' accounts as one.
    pub(crate) fn merged(mut self, other: Noise) -> Noise {
        self.total = self.total.merged(other.total);
        self.worst_rms = self.worst_rms.max(other.worst_rms);
        self.worst_leaf_rms = self.worst_leaf_rms.max(other.worst_leaf_rms);
        self.outliers += other.outliers;
        self.narrow |= other.narrow;
        self
    }
}

/// How a replay pass applies the noise test.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoiseRule {
    /// The limit of one snapshot's root mean square.
    pub(crate) limit: f64,
    /// Measure every snapshot's spread, not only where the test needs it.
    pub(crate) always_spread: bool,
}

/// What a replay of every segment found, the segments together.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Pass {
    transitions: u64,
    snapshots_compared: u64,
    noise: Noise,
    coherence: Coherence,
    data_checked: u64,
    data_differs: Option<(u64, String)>,
    unnamed_scalars: u64,
    failure: Option<Failure>,
}

impl Pass {
    fn empty(limit: f64) -> Pass {
        Pass {
            transitions: 0,
            snapshots_compared: 0,
            noise: Noise {
                limit,
                ..Noise::default()
            },
            coherence: Coherence::default(),
            data_checked: 0,
            data_differs: None,
            unnamed_scalars: 0,
            failure: None,
        }
    }

    /// Add what another set of segments found: the earliest failure and the
    /// earliest data difference by step win.
    fn absorb(&mut self, other: Pass) {
        self.transitions += other.transitions;
        self.snapshots_compared += other.snapshots_compared;
        self.noise = self.noise.merged(other.noise);
        self.coherence = std::mem::take(&mut self.coherence).merged(other.coherence);
        self.data_checked += other.data_checked;
        self.unnamed_scalars = self.unnamed_scalars.max(other.unnamed_scalars);
        if let Some(d) = other.data_differs {
            if self.data_differs.as_ref().is_none_or(|e| d.0 < e.0) {
                self.data_differs = Some(d);
            }
        }
        if let Some(f) = other.failure {
            if self.failure.as_ref().is_none_or(|g| f.step < g.step) {
                self.failure = Some(f);
            }
        }
    }

    /// The passes of an audit's parts as one.
    fn merged(parts: impl IntoIterator<Item = Pass>, limit: f64) -> Pass {
        let mut pass = Pass::empty(limit);
        for part in parts {
            pass.absorb(part);
        }
        pass
    }

    /// Add one segment's outcome, or its error to `errors`.
    fn absorb_segment(
        &mut self,
        outcome: Result<SegmentOutcome, (u64, AuditError)>,
        errors: &mut Vec<(u64, AuditError)>,
    ) {
        match outcome {
            Ok(segment) => self.absorb(Pass {
                transitions: segment.transitions,
                snapshots_compared: segment.snapshots_compared,
                noise: segment.noise,
                coherence: segment.coherence,
                data_checked: segment.data_checked,
                data_differs: segment.data_differs,
                unnamed_scalars: segment.unnamed_scalars,
                failure: segment.failure,
            }),
            Err(error) => errors.push(error),
        }
    }

    /// The segments' outcomes together: the earliest failure and the
    /// earliest data difference by step, or the evidence problem of the
    /// earliest step (so that the result is the same however the segments
    /// were scheduled).
    fn finished(self, mut errors: Vec<(u64, AuditError)>) -> Result<Pass, AuditError> {
        errors.sort_by_key(|(step, _)| *step);
        match errors.into_iter().next() {
            Some((_, error)) => Err(error),
            None => Ok(self),
        }
    }
}

/// Why an audit could not run, or its evidence was refused.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The transcript itself is invalid (`zkdv verify` would say why).
    #[error("{0}")]
    Invalid(#[from] zkdv_protocol::Error),
    /// Retained evidence is missing, damaged, or does not re-hash to the
    /// commitment its record holds.
    #[error("{artifact}: {why}")]
    Evidence {
        /// The artifact's name (`artifacts/<hex>.ev.zst`).
        artifact: String,
        /// What is wrong with it.
        why: String,
    },
    /// Nothing can be audited: bad options, no retained evidence, a program
    /// the runtime cannot run.
    #[error("{0}")]
    Unusable(String),
}

impl AuditError {
    /// Whether the input is unusable (exit code 2) rather than invalid (1).
    pub fn is_unusable(&self) -> bool {
        match self {
            AuditError::Unusable(_) => true,
            AuditError::Invalid(e) => e.is_unusable(),
            AuditError::Evidence { .. } => false,
        }
    }
}

/// Select the steps to audit from the auditor's key, and `forced` ones.
fn select(
    t: &Transcript,
    key: &Hash32,
    selection: Selection,
    forced: &[u64],
) -> Result<BTreeMap<u64, AuditChallenge>, AuditError> {
    let n_params = t.root.parameter_count().unwrap_or(0);
    let n_state = t.root.optimizer_state_count().unwrap_or(0);
    let mut draws = Vec::with_capacity(t.steps.len());
    for (step, hash) in &t.steps {
        let challenge = derive_audit_challenge(key, hash, n_params, n_state)
            .map_err(|e| AuditError::Unusable(e.to_string()))?;
        draws.push((step.step, challenge));
    }
    let mut chosen: BTreeMap<u64, AuditChallenge> = forced
        .iter()
        .filter_map(|&f| draws.iter().find(|(step, _)| *step == f).copied())
        .collect();
    match selection {
        Selection::Fraction(f) => chosen.extend(draws.into_iter().filter(|(_, c)| c.draw < f)),
        Selection::Steps(n) => {
            draws.sort_by(|a, b| a.1.draw.total_cmp(&b.1.draw));
            draws.truncate(usize::try_from(n).unwrap_or(usize::MAX));
            chosen.extend(draws);
        }
    }
    Ok(chosen)
}

/// Run an audit of the transcript directory `dir`; `progress(done, total)`
/// is called after each replayed transition.
pub fn audit(
    dir: &Path,
    options: &Options,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Report, AuditError> {
    match options.selection {
        Selection::Fraction(f) if !(f > 0.0 && f <= 1.0) => {
            return Err(AuditError::Unusable(format!(
                "--fraction must be in (0, 1], got {f}"
            )))
        }
        Selection::Steps(0) => {
            return Err(AuditError::Unusable("--steps must be at least 1".into()))
        }
        _ => {}
    }
    let mut transcript = Transcript::read(dir)?;
    transcript.bind_checkpoints(&options.checkpoints)?;
    let transcript = transcript;
    let key = audit_key(options.seed.as_bytes());
    // An expected first or last model binds the first or last transition:
    // those steps are audited whatever the draw (module `expect`).
    let last = (transcript.steps.len() as u64).checked_sub(1);
    let forced: Vec<u64> = [
        (options.expect.initial.is_some() || options.expect.initial_state.is_some()).then_some(0),
        (options.expect.final_model.is_some() || options.expect.final_averaged.is_some())
            .then_some(last)
            .flatten(),
    ]
    .into_iter()
    .flatten()
    .filter(|_| last.is_some())
    .collect();
    let commitment = |m: &Option<ModelExpectation>| {
        m.as_ref()
            .map(|m| m.commitment(&transcript.root.params))
            .transpose()
            .map_err(AuditError::Unusable)
    };
    let averaged_layout = evidence::averaged_layout(&transcript);
    let final_averaged = options
        .expect
        .final_averaged
        .as_ref()
        .map(|m| m.commitment(&averaged_layout))
        .transpose()
        .map_err(AuditError::Unusable)?;
    // The averaged model the run delivered, from the final snapshot's tensors
    // (read only when the client gives one to compare).
    let recorded_averaged = match expect::final_snapshot(&transcript) {
        Some(s) if final_averaged.is_some() && !averaged_layout.is_empty() => transcript
            .retained(s.step)
            .then(|| evidence::averaged_commitment(&transcript, s))
            .transpose()?,
        _ => None,
    };
    let models = expect::Models {
        initial: commitment(&options.expect.initial)?,
        final_model: commitment(&options.expect.final_model)?,
        final_averaged,
        recorded_averaged,
    };
    let expectations = expect::check(&transcript, &options.expect, models);
    let chosen = select(&transcript, &key, options.selection, &forced)?;
    let noise_limit = options.expect.max_noise.unwrap_or(NOISE_RMS);
    // A replay program that takes the packed batch words (the JAX frontend's) is compared
    // with the client's rows through the manifest's layout, which a manifest of examples of
    // differing shapes lacks.
    let packed = transcript.packed_batches();
    let comparable = |d: &DataExpectation| !packed || d.layout.is_some();
    let data = options.expect.data.clone().filter(comparable);
    // Segments: the audited steps that share their newest retained snapshot.
    let mut segments: BTreeMap<u64, BTreeMap<u64, AuditChallenge>> = BTreeMap::new();
    for (&step, &challenge) in &chosen {
        let start = transcript.segment_start(step).ok_or_else(|| {
            AuditError::Unusable(format!(
                "step {step} has no retained state at or before it: the session retained no \
                 full state there (ZKDV(..., retain=\"checkpoints\")), and no checkpoint of \
                 it was given (--checkpoint FILE)"
            ))
        })?;
        segments.entry(start).or_default().insert(step, challenge);
    }
    // The plan: each segment's first and last step, in order. A part
    // replays its share of it; a merge takes the parts' passes instead.
    let plan: Vec<(u64, u64)> = segments
        .iter()
        .map(|(&s, audited)| {
            let last = audited.keys().max().copied().unwrap_or(s);
            (s, transcript.segment_end(s, last))
        })
        .collect();
    let segments: BTreeMap<u64, BTreeMap<u64, AuditChallenge>> = match options.part {
        Some(part) => segments
            .into_iter()
            .enumerate()
            .filter(|(k, _)| part.owns(*k))
            .map(|(_, s)| s)
            .collect(),
        None => segments,
    };
    let records = records_digest(dir)?;
    let fingerprint = fingerprint(&transcript, &key, options, noise_limit);
    let total: u64 = segments
        .iter()
        .map(|(&s, audited)| {
            audited
                .keys()
                .max()
                .map_or(0, |&last| transcript.segment_end(s, last) - s + 1)
        })
        .sum();
    let done = AtomicU64::new(0);
    let started = Instant::now();
    // A session runs on one kind of device: when a program record says its
    // products were TensorFloat-32, the ensemble models them so throughout.
    let tf32 = transcript
        .programs
        .values()
        .any(|p| p.matmul.as_deref() == Some(MATMUL_TF32));
    let matmul = if tf32 {
        zkdv_runtime::rounding::Matmul::Tf32
    } else {
        zkdv_runtime::rounding::Matmul::F32
    };
    let jobs = options.jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| AuditError::Unusable(format!("cannot start {jobs} audit threads: {e}")))?;
    let tick = || {
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress(d, total);
    };
    let replay_all = |rule: NoiseRule| -> Result<Pass, AuditError> {
        // The segments run `jobs` at a time, and each one's outcome joins the
        // pass in the plan's order, so that the sums are the same however
        // they were scheduled; an outcome's account of the noise across
        // snapshots is as large as the state, and is not kept once added.
        // Programs are parsed once per rayon job (a parsed program owns its
        // MLIR context, which stays on its thread).
        let mut pass = Pass::empty(rule.limit);
        let mut errors = Vec::new();
        let planned: Vec<_> = segments.iter().collect();
        for chunk in planned.chunks(jobs) {
            let outcomes: Vec<_> = pool.install(|| {
                chunk
                    .par_iter()
                    .map_init(Programs::default, |programs, &(&start, audited)| {
                        zkdv_runtime::rounding::with_matmul(matmul, || {
                            replay_segment(
                                &transcript,
                                programs,
                                start,
                                audited,
                                data.as_ref(),
                                rule,
                                &tick,
                            )
                        })
                    })
                    .collect()
            });
            for outcome in outcomes {
                pass.absorb_segment(outcome, &mut errors);
            }
        }
        pass.finished(errors)
    };
    // A part measures every snapshot's spread: the merged drift is then
    // what the second pass below would measure.
    let rule = NoiseRule {
        limit: noise_limit,
        always_spread: options.part.is_some(),
    };
    let drift_limit = options.expect.max_drift.unwrap_or(DRIFT_LIMIT);
    let (mut pass, merged_seconds) = if options.merge.is_empty() {
        (replay_all(rule)?, None)
    } else {
        let (pass, seconds) =
            parts::merge(&options.merge, &records, &fingerprint, &plan, noise_limit)?;
        (pass, Some(seconds))
    };
    if options.merge.is_empty()
        && options.part.is_none()
        && pass.failure.is_none()
        && pass.coherence.drift() > drift_limit
    {
        // Measured in ulps where no spread was needed, an honest replay's
        // rounding may look like drift; the ensemble measures every
        // snapshot's spread before a drift is reported.
        done.store(0, Ordering::Relaxed);
        // The first pass's account (as large as the state) is dropped first.
        let before = std::mem::replace(&mut pass, Pass::empty(rule.limit)).transitions;
        let again = replay_all(NoiseRule {
            always_spread: true,
            ..rule
        })?;
        pass = Pass {
            transitions: before + again.transitions,
            ..again
        };
    }
    // The account across snapshots leaves the pass: a part keeps it for the
    // merge (moved, not copied), the report only its drift.
    let coherence = std::mem::take(&mut pass.coherence);
    let (drift, compared) = (coherence.drift(), coherence.snapshots);
    let part_state = options.part.map(|part| {
        let mine = plan
            .iter()
            .enumerate()
            .filter(|(k, _)| part.owns(*k))
            .map(|(_, s)| *s)
            .collect();
        let seconds = started.elapsed().as_secs_f64();
        PartState::new(
            records.clone(),
            fingerprint.clone(),
            part,
            mine,
            Pass {
                coherence,
                ..pass.clone()
            },
            seconds,
        )
    });
    let Pass {
        transitions,
        snapshots_compared,
        mut noise,
        coherence: _,
        data_checked,
        data_differs,
        unnamed_scalars,
        mut failure,
    } = pass;
    // Across the snapshots compared: what keeps its direction is a drift.
    noise.drift = drift;
    noise.drift_limit = drift_limit;
    if failure.is_none() && noise.drift > noise.drift_limit {
        let last = transcript
            .snapshots
            .keys()
            .copied()
            .filter(|&s| s > 0 && s <= transcript.steps.len() as u64)
            .max()
            .unwrap_or(1);
        failure = Some(Failure {
            step: last - 1,
            what: format!(
                "the states at the {} snapshots compared, together: their differences keep \
                 one direction from snapshot to snapshot (a drift)",
                compared
            ),
            committed: noise.drift,
            recomputed: 0.0,
            allowed: noise.drift_limit,
            kind: FailureKind::Drift,
            noise: None,
        });
    }
    let mut expectations = expectations;
    if let Some(e) = expectations
        .iter_mut()
        .find(|e| e.name == "hyperparameters")
    {
        hyper::unnamed(e, unnamed_scalars);
    }
    if let Some(data) = &options.expect.data {
        if !comparable(data) {
            expectations.push(expect::data_not_comparable(data));
        } else {
            expectations.push(expect::data(
                data,
                transcript.steps.len() as u64,
                data_checked,
                data_differs,
            ));
        }
    }
    expectations.push(expect::outliers(
        noise.outliers,
        options.expect.max_outliers,
    ));
    Ok(Report {
        transcript: dir.to_owned(),
        seed: options.seed.clone(),
        key: key.to_string(),
        steps: transcript.steps.len() as u64,
        closed: transcript.closed,
        // A part's own steps: those of the segments it replayed.
        audited: chosen
            .keys()
            .copied()
            .filter(|&t| {
                options.part.is_none() || segments.values().any(|audited| audited.contains_key(&t))
            })
            .collect(),
        segments: plan
            .iter()
            .enumerate()
            .filter(|(k, _)| options.part.is_none_or(|p| p.owns(*k)))
            .map(|(_, &(start, end))| SegmentReport {
                start,
                end,
                audited: chosen.range(start..=end).map(|(&t, _)| t).collect(),
                from: match transcript.snapshots.get(&start) {
                    Some(s) if s.artifact.is_some() => "snapshot",
                    _ => "checkpoint",
                },
            })
            .collect(),
        part: options.part,
        merged: options.merge.len() as u64,
        transitions,
        snapshots_compared,
        noise,
        seconds: merged_seconds.unwrap_or_else(|| started.elapsed().as_secs_f64()),
        part_state,
        failure,
        expectations,
        matmul: tf32.then(|| MATMUL_TF32.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_before_the_transcript_is_read() {
        let options = |selection| Options {
            selection,
            seed: "s".into(),
            jobs: 1,
            part: None,
            merge: Vec::new(),
            checkpoints: Vec::new(),
            expect: Expectations::default(),
        };
        let none = |_: u64, _: u64| {};
        let dir = Path::new("/nonexistent");
        for bad in [
            Selection::Fraction(0.0),
            Selection::Fraction(1.5),
            Selection::Steps(0),
        ] {
            let err = audit(dir, &options(bad), &none).unwrap_err();
            assert!(err.is_unusable(), "{err}");
        }
        let err = audit(dir, &options(Selection::Steps(3)), &none).unwrap_err();
        assert!(err.is_unusable() && err.to_string().contains("not a transcript directory"));
    }
}
