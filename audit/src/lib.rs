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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use zkdv_hashing::{commit_batch, DType, ProbeMap};
use zkdv_protocol::evidence::Bundle;
use zkdv_protocol::packing::BatchLayout;
use zkdv_protocol::{
    audit_key, derive_audit_challenge, read_verified, Artifact, AuditChallenge, Body, Hash32,
    Problem, ProgramBody, RootBody, SnapshotBody, StepBody, Tolerance,
};
use zkdv_runtime::{Program, Tensor};

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
}

/// Where a failed audit found a difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// The audited steps, in order.
    pub audited: Vec<u64>,
    /// Transitions replayed (a step replayed by two segments counts twice).
    pub transitions: u64,
    /// Snapshots whose full tensors were compared with a replayed state.
    pub snapshots_compared: u64,
    /// Wall-clock seconds of the replays.
    pub seconds: f64,
    /// The first difference, by step; `None` when the audit passed.
    pub failure: Option<Failure>,
}

impl Report {
    /// Whether every audited step reproduced.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
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
            AuditError::Invalid(e) => matches!(
                e.problem,
                Problem::Io { .. } | Problem::NoRecordsFile(_) | Problem::Empty | Problem::Usage(_)
            ),
            AuditError::Evidence { .. } => false,
        }
    }
}

/// The records an audit reads, by kind.
struct Transcript {
    dir: PathBuf,
    root: RootBody,
    programs: HashMap<u64, ProgramBody>,
    steps: Vec<(StepBody, Hash32)>,
    snapshots: BTreeMap<u64, SnapshotBody>,
    closed: bool,
}

impl Transcript {
    fn read(dir: &Path) -> Result<Transcript, AuditError> {
        if !dir.is_dir() {
            return Err(AuditError::Unusable(format!(
                "{}: not a transcript directory (an audit needs the retained artifacts)",
                dir.display()
            )));
        }
        let verified = read_verified(dir)?;
        let mut root = None;
        let mut programs = HashMap::new();
        let mut steps = Vec::new();
        let mut snapshots = BTreeMap::new();
        for record in &verified.records {
            match record.body() {
                Body::Root(body) => root = Some(body.clone()),
                Body::Program(body) => {
                    programs.insert(record.seq(), body.clone());
                }
                Body::Step(body) => steps.push((body.clone(), record.raw.hash())),
                Body::Snapshot(body) => {
                    snapshots.insert(body.step, body.clone());
                }
                Body::Check(_) | Body::Close(_) => {}
            }
        }
        let root = root.ok_or_else(|| AuditError::Unusable("the transcript has no root".into()))?;
        Ok(Transcript {
            dir: dir.to_owned(),
            root,
            programs,
            steps,
            snapshots,
            closed: verified.report.is_some(),
        })
    }

    fn bundle(&self, artifact: &Artifact) -> Result<Bundle, AuditError> {
        let evidence = |why: String| AuditError::Evidence {
            artifact: artifact.name.clone(),
            why,
        };
        let bytes = std::fs::read(self.dir.join(&artifact.name))
            .map_err(|e| evidence(format!("cannot be read: {e}")))?;
        if Hash32::of(&bytes) != artifact.blake3 {
            return Err(evidence("its bytes do not have the recorded blake3".into()));
        }
        Bundle::decode(&bytes).map_err(|e| evidence(e.to_string()))
    }

    fn text(&self, artifact: &Artifact) -> Result<String, AuditError> {
        let bytes =
            std::fs::read(self.dir.join(&artifact.name)).map_err(|e| AuditError::Evidence {
                artifact: artifact.name.clone(),
                why: format!("cannot be read: {e}"),
            })?;
        String::from_utf8(bytes).map_err(|_| AuditError::Evidence {
            artifact: artifact.name.clone(),
            why: "is not UTF-8 text".into(),
        })
    }
}

/// Select the steps to audit from the auditor's key.
fn select(
    t: &Transcript,
    key: &Hash32,
    selection: Selection,
) -> Result<BTreeMap<u64, AuditChallenge>, AuditError> {
    let n_params = t.root.parameter_count().unwrap_or(0);
    let n_state = t.root.optimizer_state_count().unwrap_or(0);
    let mut draws = Vec::with_capacity(t.steps.len());
    for (step, hash) in &t.steps {
        let challenge = derive_audit_challenge(key, hash, n_params, n_state)
            .map_err(|e| AuditError::Unusable(e.to_string()))?;
        draws.push((step.step, challenge));
    }
    let chosen: Vec<(u64, AuditChallenge)> = match selection {
        Selection::Fraction(f) => draws.into_iter().filter(|(_, c)| c.draw < f).collect(),
        Selection::Steps(n) => {
            draws.sort_by(|a, b| a.1.draw.total_cmp(&b.1.draw));
            draws.truncate(usize::try_from(n).unwrap_or(usize::MAX));
            draws
        }
    };
    Ok(chosen.into_iter().collect())
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
    let transcript = Transcript::read(dir)?;
    let key = audit_key(options.seed.as_bytes());
    let chosen = select(&transcript, &key, options.selection)?;
    // Segments: the audited steps that share their newest retained snapshot.
    let mut segments: BTreeMap<u64, BTreeMap<u64, AuditChallenge>> = BTreeMap::new();
    for (&step, &challenge) in &chosen {
        let start = transcript
            .snapshots
            .range(..=step)
            .rev()
            .find(|(_, s)| s.artifact.is_some())
            .map(|(&s, _)| s)
            .ok_or_else(|| {
                AuditError::Unusable(format!(
                    "step {step} has no retained snapshot at or before it: the session did not \
                     retain evidence (ZKDV(..., retain=\"all\"))"
                ))
            })?;
        segments.entry(start).or_default().insert(step, challenge);
    }
    let total: u64 = segments
        .iter()
        .map(|(s, audited)| audited.keys().max().map_or(0, |end| end - s + 1))
        .sum();
    let done = AtomicU64::new(0);
    let started = Instant::now();
    let queue = Mutex::new(segments.into_iter().collect::<Vec<_>>());
    let outcomes = Mutex::new(Vec::new());
    let jobs = options.jobs.max(1);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut programs = Programs::default();
                loop {
                    let next = queue.lock().map(|mut q| q.pop()).unwrap_or(None);
                    let Some((start, audited)) = next else { break };
                    let outcome =
                        replay_segment(&transcript, &mut programs, start, &audited, &|| {
                            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                            progress(d, total);
                        });
                    if let Ok(mut all) = outcomes.lock() {
                        all.push(outcome);
                    }
                }
            });
        }
    });
    let mut transitions = 0;
    let mut snapshots_compared = 0;
    let mut failure: Option<Failure> = None;
    let outcomes = outcomes
        .into_inner()
        .map_err(|_| AuditError::Unusable("an audit thread panicked".into()))?;
    let mut errors = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(segment) => {
                transitions += segment.transitions;
                snapshots_compared += segment.snapshots_compared;
                if let Some(f) = segment.failure {
                    if failure.as_ref().is_none_or(|g| f.step < g.step) {
                        failure = Some(f);
                    }
                }
            }
            Err((step, error)) => errors.push((step, error)),
        }
    }
    // The evidence problem of the earliest step, so that the message is the
    // same however the segments were scheduled.
    errors.sort_by_key(|(step, _)| *step);
    if let Some((_, error)) = errors.into_iter().next() {
        return Err(error);
    }
    Ok(Report {
        transcript: dir.to_owned(),
        seed: options.seed.clone(),
        key: key.to_string(),
        steps: transcript.steps.len() as u64,
        closed: transcript.closed,
        audited: chosen.keys().copied().collect(),
        transitions,
        snapshots_compared,
        seconds: started.elapsed().as_secs_f64(),
        failure,
    })
}

/// The replay and attested programs of each program record, parsed once per
/// thread (a parsed program owns its MLIR context).
#[derive(Default)]
struct Programs {
    parsed: HashMap<u64, (Program, Program)>,
}

impl Programs {
    fn get(&mut self, t: &Transcript, seq: u64) -> Result<&(Program, Program), AuditError> {
        use std::collections::hash_map::Entry;
        match self.parsed.entry(seq) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => {
                let body = t.programs.get(&seq).ok_or_else(|| {
                    AuditError::Unusable(format!("no program record {seq} in the transcript"))
                })?;
                let replay = body.replay.as_ref().ok_or_else(|| {
                    AuditError::Unusable(format!(
                        "program record {seq} names no replay program: the session did not \
                         retain evidence (ZKDV(..., retain=\"all\"))"
                    ))
                })?;
                let parse = |artifact: &Artifact, what: &str| -> Result<Program, AuditError> {
                    Program::parse(&t.text(artifact)?, &artifact.name, "main").map_err(|e| {
                        AuditError::Unusable(format!("the {what} program cannot be run: {e}"))
                    })
                };
                Ok(entry.insert((parse(replay, "replay")?, parse(&body.attested, "attested")?)))
            }
        }
    }
}

struct Segment {
    transitions: u64,
    snapshots_compared: u64,
    failure: Option<Failure>,
}

/// A tensor from an evidence leaf.
fn tensor(leaf: &zkdv_protocol::evidence::EvidenceLeaf) -> Result<Tensor, String> {
    Tensor::from_le_bytes(leaf.dtype, &leaf.shape, &leaf.data).map_err(|e| e.to_string())
}

fn dtype_of(tensor: &Tensor) -> Result<DType, String> {
    tensor.element.dtype().map_err(|e| e.to_string())
}

/// Every element of `tensor` as `f64`.
fn values(tensor: &Tensor) -> Result<Vec<f64>, String> {
    let bytes = tensor.le_bytes();
    let dtype = dtype_of(tensor)?;
    let size = dtype.size_bytes();
    Ok(bytes
        .chunks_exact(size)
        .map(|c| element(dtype, c))
        .collect())
}

fn element(dtype: DType, c: &[u8]) -> f64 {
    let mut b = [0u8; 8];
    b[..c.len()].copy_from_slice(c);
    match dtype {
        DType::F64 => f64::from_le_bytes(b),
        DType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::I1 | DType::U8 | DType::U16 | DType::U32 | DType::U64 => {
            u64::from_le_bytes(b) as f64
        }
        DType::I8 => f64::from(c[0] as i8),
        DType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        DType::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::I64 => i64::from_le_bytes(b) as f64,
    }
}

/// Element `index` of the row-major concatenation of `tensors`.
fn flat_element(tensors: &[Tensor], mut index: u64) -> Result<f64, String> {
    for t in tensors {
        let n = t.data.len() as u64;
        if index < n {
            let dtype = dtype_of(t)?;
            let size = dtype.size_bytes();
            let at = index as usize * size;
            return Ok(element(dtype, &t.le_bytes()[at..at + size]));
        }
        index -= n;
    }
    Ok(0.0)
}

/// The first pair out of tolerance, as `(index, committed, recomputed,
/// allowed)`.
fn first_outside(
    tolerance: &Tolerance,
    committed: &[f64],
    recomputed: &[f64],
    spread: Option<&[f64]>,
) -> Option<(usize, f64, f64, f64)> {
    let i = tolerance.first_outside(committed, recomputed, spread)?;
    let (c, r) = (committed[i], recomputed[i]);
    let s = spread.map_or(0.0, |s| s[i]);
    let allowed = if c.is_finite() {
        tolerance.bound(c, s)
    } else {
        0.0
    };
    Some((i, c, r, allowed))
}

/// Run `program` as written, or as member `m` of the perturbation ensemble
/// (inputs moved by an ulp, results rounded in the member's mode).
fn run_as(
    program: &Program,
    mut inputs: Vec<Tensor>,
    member: Option<u64>,
) -> Result<Vec<Tensor>, zkdv_runtime::RuntimeError> {
    match member {
        Some(m) => {
            zkdv_runtime::rounding::perturb_inputs(m, &mut inputs);
            zkdv_runtime::rounding::with_member(m, || program.run(inputs))
        }
        None => program.run(inputs),
    }
}

/// What one replay of a step gives: the post-state, the deltas' and local
/// gradients' sketches, and the outputs themselves.
struct Replayed {
    outputs: Vec<Tensor>,
    sketches: Vec<Vec<f64>>,
}

fn run_replay(
    replay: &Program,
    inputs: &[Tensor],
    member: Option<u64>,
    n_state: usize,
    update: &Bundle,
    probes: &[ProbeMap],
) -> Result<Replayed, String> {
    let outputs = run_as(replay, inputs.to_vec(), member)
        .map_err(|e| format!("the replay program failed: {e}"))?;
    // The update tree's leaves are the deltas, then (DDP) the local gradients,
    // which follow the deltas among the results.
    let sketched = outputs.get(n_state..).unwrap_or(&[]);
    if sketched.len() < update.leaves.len() {
        return Err(format!(
            "the replay program returns {} results after the state, the update has {} sketches",
            sketched.len(),
            update.leaves.len()
        ));
    }
    let mut sketches = Vec::with_capacity(update.leaves.len());
    for (probe, out) in probes.iter().zip(sketched) {
        let dtype = dtype_of(out)?;
        sketches.push(
            probe
                .sketch_bytes(dtype, &out.le_bytes())
                .map_err(|e| format!("sketch: {e}"))?,
        );
    }
    Ok(Replayed { outputs, sketches })
}

/// What replaying one step needs, checked against its records once.
struct StepInputs {
    batch: Vec<Tensor>,
    update: Bundle,
    committed: Vec<f64>,
    probes: Vec<ProbeMap>,
}

type Located = (u64, AuditError);

fn prepare_step(
    t: &Transcript,
    replay: &Program,
    j: u64,
    step: &StepBody,
) -> Result<StepInputs, Located> {
    let root = &t.root;
    let n_state = root.params.len() + root.opt_state.len();
    let unusable = |e: String| (j, AuditError::Unusable(format!("step {j}: {e}")));
    let evidence = step.evidence.as_ref().ok_or_else(|| {
        (
            j,
            AuditError::Unusable(format!(
                "step {j} has no retained batch: the session retained snapshots only \
                 (ZKDV(..., retain=\"all\") retains what an audit replays)"
            )),
        )
    })?;
    // The batch, bound by the step record's batch commitment.
    let batch = t.bundle(&evidence.batch).map_err(|e| (j, e))?;
    let words = match batch.leaves.as_slice() {
        [leaf] => leaf
            .words()
            .map_err(|e| (j, evidence_error(&evidence.batch, e.to_string())))?,
        _ => {
            return Err((
                j,
                evidence_error(&evidence.batch, "holds more than the packed batch".into()),
            ))
        }
    };
    let b = &step.batch;
    let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let commitment = commit_batch(&words, size(b.rows), size(b.width), size(b.window))
        .map_err(|e| (j, evidence_error(&evidence.batch, e.to_string())))?;
    if commitment.root.as_bytes() != b.root.as_bytes() {
        return Err((
            j,
            evidence_error(
                &evidence.batch,
                format!("does not re-hash to step {j}'s batch commitment"),
            ),
        ));
    }
    // The update sketches, bound by the step record's update commitment.
    let update = t.bundle(&evidence.update).map_err(|e| (j, e))?;
    let digest = update
        .tree_commitment()
        .map_err(|e| (j, evidence_error(&evidence.update, e.to_string())))?;
    if digest.as_bytes() != step.update.as_bytes() {
        return Err((
            j,
            evidence_error(
                &evidence.update,
                format!("does not re-hash to step {j}'s update commitment"),
            ),
        ));
    }
    // The replay's typed batch arguments, unpacked with the layout of the
    // step's own program (its replay program's batch arguments; the verifier
    // has checked the step's packed shape against that program record's
    // batch layout).
    let leaves: Vec<(Vec<u64>, DType)> = replay
        .arguments()
        .get(n_state..)
        .unwrap_or(&[])
        .iter()
        .map(|a| {
            Ok((
                a.shape.iter().map(|&d| d as u64).collect(),
                a.element.dtype().map_err(|e| e.to_string())?,
            ))
        })
        .collect::<Result<_, String>>()
        .map_err(unusable)?;
    let layout = BatchLayout::of(&leaves, b.window).map_err(|e| unusable(e.to_string()))?;
    if layout.shape() != (b.rows, b.width) {
        return Err(unusable(format!(
            "the replay program's batch arguments pack to {:?}, the step committed {} x {}",
            layout.shape(),
            b.rows,
            b.width
        )));
    }
    let unpacked = layout.unpack(&words).map_err(|e| unusable(e.to_string()))?;
    let batch = leaves
        .iter()
        .zip(&unpacked)
        .map(|((shape, dtype), bytes)| {
            Tensor::from_le_bytes(*dtype, shape, bytes).map_err(|e| unusable(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Probe maps: a local gradient is sketched with its parameter's map.
    let probes = update
        .leaves
        .iter()
        .map(|leaf| {
            let path = leaf.path.strip_prefix("local_grad/").unwrap_or(&leaf.path);
            let shape = root
                .params
                .iter()
                .find(|p| p.path == path)
                .map(|p| p.shape.clone())
                .ok_or_else(|| format!("update sketch {path:?} names no parameter"))?;
            ProbeMap::generate(root.probe_seed.as_bytes(), path, &shape, root.probe_ratio)
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(unusable)?;
    let committed = update
        .leaves
        .iter()
        .map(|l| tensor(l).and_then(|x| values(&x)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(unusable)?
        .concat();
    Ok(StepInputs {
        batch,
        update,
        committed,
        probes,
    })
}

/// The state's values, leaf by leaf, as `f64`.
fn state_values(state: &[Tensor]) -> Result<Vec<Vec<f64>>, String> {
    state.iter().map(values).collect()
}

fn replay_segment(
    t: &Transcript,
    programs: &mut Programs,
    start: u64,
    audited: &BTreeMap<u64, AuditChallenge>,
    tick: &dyn Fn(),
) -> Result<Segment, Located> {
    let end = audited.keys().max().copied().unwrap_or(start);
    let root = &t.root;
    let n_params = root.params.len();
    let n_state = n_params + root.opt_state.len();
    let unusable =
        |step: u64| move |e: String| (step, AuditError::Unusable(format!("step {step}: {e}")));
    // The snapshot's tensors, bound by its record.
    let initial = load_state(t, &t.snapshots[&start]).map_err(|e| (start, e))?;
    let mut state = initial.clone();
    // Each step of the segment with the program record it ran: a segment
    // may cross a program change (another batch layout), and every step
    // replays with its own program.
    let mut inputs_of: Vec<(u64, StepInputs)> = Vec::new();
    let mut segment = Segment {
        transitions: 0,
        snapshots_compared: 0,
        failure: None,
    };
    for j in start..=end {
        let Some((step, _)) = t.steps.get(j as usize) else {
            break;
        };
        let tolerance = t
            .programs
            .get(&step.program)
            .map(|p| p.tolerance)
            .ok_or_else(|| {
                (
                    j,
                    AuditError::Unusable(format!("step {j}: unknown program {}", step.program)),
                )
            })?;
        let (replay, _) = programs.get(t, step.program).map_err(|e| (j, e))?;
        let inputs = prepare_step(t, replay, j, step)?;
        let mut arguments = state.clone();
        arguments.extend(inputs.batch.iter().cloned());
        let replayed = run_replay(
            replay,
            &arguments,
            None,
            n_state,
            &inputs.update,
            &inputs.probes,
        )
        .map_err(unusable(j))?;
        segment.transitions += 1;
        tick();
        inputs_of.push((step.program, inputs));
        let inputs = &inputs_of[inputs_of.len() - 1].1;
        // The perturbation ensemble over the segment so far, when a fixed
        // bound is exceeded: the rounding spread of each sketch value at j
        // and of each state value after j. The replay starts from a snapshot,
        // so a value's spread includes what rounding carried over from the
        // segment's earlier steps.
        let ensemble = |programs: &mut Programs| -> Result<(Vec<f64>, Vec<Vec<f64>>), Located> {
            let nominal_sketches = replayed.sketches.concat();
            let nominal_state = state_values(&replayed.outputs[..n_state]).map_err(unusable(j))?;
            let mut sketch_spread = vec![0.0f64; nominal_sketches.len()];
            let mut state_spread: Vec<Vec<f64>> =
                nominal_state.iter().map(|v| vec![0.0; v.len()]).collect();
            for m in 0..tolerance.replays {
                let mut member_state = initial.clone();
                let mut last = None;
                for (program, step_inputs) in &inputs_of {
                    let (replay, _) = programs.get(t, *program).map_err(|e| (j, e))?;
                    let mut arguments = member_state;
                    arguments.extend(step_inputs.batch.iter().cloned());
                    let out = run_replay(
                        replay,
                        &arguments,
                        Some(m),
                        n_state,
                        &step_inputs.update,
                        &step_inputs.probes,
                    )
                    .map_err(unusable(j))?;
                    member_state = out.outputs[..n_state].to_vec();
                    last = Some(out);
                }
                let Some(last) = last else { break };
                for (s, (a, b)) in sketch_spread
                    .iter_mut()
                    .zip(last.sketches.concat().iter().zip(&nominal_sketches))
                {
                    *s = s.max(Tolerance::ensemble_difference(*a, *b));
                }
                let member = state_values(&member_state).map_err(unusable(j))?;
                for (spread, (a, b)) in state_spread
                    .iter_mut()
                    .zip(member.iter().zip(&nominal_state))
                {
                    for (s, (x, y)) in spread.iter_mut().zip(a.iter().zip(b)) {
                        *s = s.max(Tolerance::ensemble_difference(*x, *y));
                    }
                }
            }
            Ok((sketch_spread, state_spread))
        };
        // Update sketches against production's, within tolerance (and the
        // ensemble's spread when the fixed bound is exceeded).
        let recomputed = replayed.sketches.concat();
        let mut outside = first_outside(&tolerance, &inputs.committed, &recomputed, None);
        let mut spreads = None;
        if outside.is_some() && tolerance.replays > 0 {
            let (sketch_spread, state_spread) = ensemble(programs)?;
            outside = first_outside(
                &tolerance,
                &inputs.committed,
                &recomputed,
                Some(&sketch_spread),
            );
            spreads = Some(state_spread);
        }
        if let Some((i, c, r, allowed)) = outside {
            let what = locate(&inputs.update, i).map_or_else(
                || format!("update sketch value {i}"),
                |(path, k)| format!("update sketch of {path}[{k}]"),
            );
            segment.failure = Some(Failure {
                step: j,
                what,
                committed: c,
                recomputed: r,
                allowed,
            });
            return Ok(segment);
        }
        // At an audited step, the attested program at the audit's coordinates.
        if let Some(challenge) = audited.get(&j) {
            let (_, attested) = programs.get(t, step.program).map_err(|e| (j, e))?;
            if let Some(f) = attested_check(
                attested,
                &arguments,
                &replayed.outputs,
                challenge,
                n_params,
                n_state,
                &tolerance,
            )
            .map_err(unusable(j))?
            {
                segment.failure = Some(Failure { step: j, ..f });
                return Ok(segment);
            }
        }
        state = replayed.outputs[..n_state].to_vec();
        // The next snapshot, when retained: the replayed state must be its
        // tensors, within the tolerance and the ensemble's spread.
        if let Some(next) = t.snapshots.get(&(j + 1)).filter(|s| s.artifact.is_some()) {
            let production = load_state(t, next).map_err(|e| (j + 1, e))?;
            let theirs = state_values(&production).map_err(unusable(j))?;
            let mine = state_values(&state).map_err(unusable(j))?;
            let compare = |spread: Option<&Vec<Vec<f64>>>| {
                theirs
                    .iter()
                    .zip(&mine)
                    .enumerate()
                    .find_map(|(index, (a, b))| {
                        first_outside(&tolerance, a, b, spread.map(|s| s[index].as_slice()))
                            .map(|found| (index, found))
                    })
            };
            let mut outside = compare(None);
            if outside.is_some() && tolerance.replays > 0 {
                if spreads.is_none() {
                    spreads = Some(ensemble(programs)?.1);
                }
                outside = compare(spreads.as_ref());
            }
            if let Some((index, (k, c, r, allowed))) = outside {
                segment.failure = Some(Failure {
                    step: j,
                    what: format!(
                        "state {}[{k}] at snapshot {}",
                        state_path(root, index),
                        j + 1
                    ),
                    committed: c,
                    recomputed: r,
                    allowed,
                });
                return Ok(segment);
            }
            segment.snapshots_compared += 1;
            state = production;
        }
    }
    Ok(segment)
}

fn evidence_error(artifact: &Artifact, why: String) -> AuditError {
    AuditError::Evidence {
        artifact: artifact.name.clone(),
        why,
    }
}

fn state_path(root: &RootBody, index: usize) -> String {
    root.params
        .iter()
        .map(|l| format!("params/{}", l.path))
        .chain(
            root.opt_state
                .iter()
                .map(|l| format!("opt_state/{}", l.path)),
        )
        .nth(index)
        .unwrap_or_else(|| format!("state leaf {index}"))
}

/// The leaf and position of flat sketch value `i`.
fn locate(update: &Bundle, mut i: usize) -> Option<(String, usize)> {
    for leaf in &update.leaves {
        let n = leaf.data.len() / leaf.dtype.size_bytes().max(1);
        if i < n {
            return Some((leaf.path.clone(), i));
        }
        i -= n;
    }
    None
}

/// The snapshot's tensors in root order (parameters, then optimizer state),
/// checked against the snapshot record's commitment and the root's layout.
fn load_state(t: &Transcript, snapshot: &SnapshotBody) -> Result<Vec<Tensor>, AuditError> {
    let artifact = snapshot.artifact.as_ref().ok_or_else(|| {
        AuditError::Unusable(format!("snapshot {} was not retained", snapshot.step))
    })?;
    let bundle = t.bundle(artifact)?;
    let digest = bundle
        .tree_commitment()
        .map_err(|e| evidence_error(artifact, e.to_string()))?;
    if digest.as_bytes() != snapshot.state.as_bytes() {
        return Err(evidence_error(
            artifact,
            format!(
                "does not re-hash to snapshot {}'s state commitment",
                snapshot.step
            ),
        ));
    }
    let layout: Vec<_> = t.root.params.iter().chain(&t.root.opt_state).collect();
    if layout.len() != bundle.leaves.len() {
        return Err(evidence_error(
            artifact,
            format!(
                "holds {} tensors, the root's layout {}",
                bundle.leaves.len(),
                layout.len()
            ),
        ));
    }
    bundle
        .leaves
        .iter()
        .zip(layout)
        .map(|(leaf, expected)| {
            if leaf.shape != expected.shape || leaf.dtype.tag() != expected.dtype {
                return Err(evidence_error(
                    artifact,
                    format!(
                        "tensor {:?} is {} {:?}, the root's {} is {} {:?}",
                        leaf.path,
                        leaf.dtype.tag(),
                        leaf.shape,
                        expected.path,
                        expected.dtype,
                        expected.shape
                    ),
                ));
            }
            tensor(leaf).map_err(|e| evidence_error(artifact, e))
        })
        .collect()
}

/// The attested program at the audit's coordinates against the replay's
/// values there; `Some` names the first difference.
fn attested_check(
    attested: &Program,
    inputs: &[Tensor],
    outputs: &[Tensor],
    challenge: &AuditChallenge,
    n_params: usize,
    n_state: usize,
    tolerance: &Tolerance,
) -> Result<Option<Failure>, String> {
    let index = |i: u64| {
        Tensor::from_le_bytes(DType::U64, &[], &i.to_le_bytes()).map_err(|e| e.to_string())
    };
    let mut arguments = inputs.to_vec();
    arguments.push(index(challenge.parameter_index)?);
    arguments.push(index(challenge.optimizer_state_index.unwrap_or(0))?);
    let run = |member: Option<u64>| -> Result<Vec<f64>, String> {
        let results = run_as(attested, arguments.clone(), member)
            .map_err(|e| format!("the attested program failed: {e}"))?;
        results
            .iter()
            .take(2)
            .map(|r| flat_element(std::slice::from_ref(r), 0))
            .collect()
    };
    let recomputed = run(None)?;
    // What the replay computed there: the delta, then the post-optimizer state.
    let deltas = &outputs[n_state..n_state + n_params];
    let post_state = &outputs[n_params..n_state];
    let mut reference = vec![f64::from(
        flat_element(deltas, challenge.parameter_index)? as f32
    )];
    if let Some(s) = challenge.optimizer_state_index {
        reference.push(f64::from(flat_element(post_state, s)? as f32));
    }
    let recomputed = &recomputed[..reference.len().min(recomputed.len())];
    let mut outside = first_outside(tolerance, &reference, recomputed, None);
    if outside.is_some() && tolerance.replays > 0 {
        let mut spread = vec![0.0f64; recomputed.len()];
        for m in 0..tolerance.replays {
            for (s, (a, b)) in spread.iter_mut().zip(run(Some(m))?.iter().zip(recomputed)) {
                *s = s.max(Tolerance::ensemble_difference(*a, *b));
            }
        }
        outside = first_outside(tolerance, &reference, recomputed, Some(&spread));
    }
    Ok(outside.map(|(i, c, r, allowed)| Failure {
        step: 0,
        what: if i == 0 {
            format!(
                "attested delta at parameter index {}",
                challenge.parameter_index
            )
        } else {
            format!(
                "attested optimizer state at index {}",
                challenge.optimizer_state_index.unwrap_or(0)
            )
        },
        committed: c,
        recomputed: r,
        allowed,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_value_outside_the_tolerance_is_named_with_its_bound() {
        let tolerance = Tolerance {
            abs: 1e-6,
            rel: 1e-3,
            spread: 2.0,
            replays: 8,
        };
        let committed = [1.0, 2.0, 3.0];
        assert_eq!(
            first_outside(&tolerance, &committed, &[1.0, 2.0, 3.0], None),
            None
        );
        let (i, c, r, allowed) =
            first_outside(&tolerance, &committed, &[1.0, 2.01, 3.5], None).unwrap();
        assert_eq!((i, c, r), (1, 2.0, 2.01));
        assert!((allowed - (1e-6 + 2e-3)).abs() < 1e-12);
        // The spread widens the bound: 0.01 is inside 2e-3 + 2 * 0.005.
        let spread = [0.0, 0.005, 0.3];
        assert_eq!(
            first_outside(&tolerance, &committed, &[1.0, 2.01, 3.5], Some(&spread)),
            None
        );
        // A NaN never passes.
        assert!(first_outside(&tolerance, &[1.0], &[f64::NAN], None).is_some());
    }

    #[test]
    fn flat_elements_address_the_concatenation_of_leaves() {
        let a = Tensor::from_le_bytes(
            DType::F32,
            &[2],
            &[1.5f32, -2.0].map(f32::to_le_bytes).concat(),
        )
        .unwrap();
        let b = Tensor::from_le_bytes(DType::BF16, &[1], &half::bf16::from_f32(0.25).to_le_bytes())
            .unwrap();
        let leaves = [a, b];
        assert_eq!(flat_element(&leaves, 1).unwrap(), -2.0);
        assert_eq!(flat_element(&leaves, 2).unwrap(), 0.25);
        // Past the end selects 0, as the attested program does.
        assert_eq!(flat_element(&leaves, 3).unwrap(), 0.0);
        assert_eq!(values(&leaves[0]).unwrap(), vec![1.5, -2.0]);
    }

    #[test]
    fn options_are_checked_before_the_transcript_is_read() {
        let options = |selection| Options {
            selection,
            seed: "s".into(),
            jobs: 1,
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
