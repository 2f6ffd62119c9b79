//! Replaying a segment: the steps from a retained snapshot to the last
//! audited step that shares it, each re-executed by its program record's
//! replay program from the retained batch, and compared as it goes
//! ([`crate::compare`]) with the retained update sketches, the attested
//! program at an audited step, and the next retained snapshot.
//!
//! When a comparison exceeds its fixed bound under a tolerance with a
//! perturbation ensemble, the segment so far is replayed by each member of
//! the ensemble to measure the rounding spread of every compared value
//! ([`zkdv_protocol::Tolerance::measure_spread`]); the replay starts from a
//! snapshot, so a value's spread includes what rounding carried over from
//! the segment's earlier steps. Each member's state is kept where it was
//! last measured (within [`MEMBER_CACHE_BYTES`]), so a long segment between
//! checkpoints costs each member one replay of it, not one per measurement.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use zkdv_hashing::{DType, ProbeMap};
use zkdv_protocol::evidence::Bundle;
use zkdv_protocol::noise::{self, Coherence, Residuals};
use zkdv_protocol::{
    Artifact, AuditChallenge, Precision, StepBody, Tolerance, ToleranceError, ENSEMBLE_REPLAYS,
};
use zkdv_runtime::{Data, Program, Tensor};

use crate::compare;
use crate::data::{self, DataExpectation};
use crate::evidence::{load_state, prepare_step, StepInputs};
use crate::transcript::Transcript;
use crate::values::{dtype_of, LeafValues, Leaves, SpreadLeaf};
use crate::{AuditError, Failure, FailureKind, Noise, NoiseRule};

/// An error and the step it concerns (which orders errors the same way
/// however the segments were scheduled).
pub(crate) type Located = (u64, AuditError);

/// Why a step could not be replayed, before it is located at the step.
pub(crate) enum StepError {
    /// An error that names what it concerns (an artifact, a record).
    Audit(AuditError),
    /// What the step's records or evidence do not allow, reported as
    /// `step {j}: {why}`.
    Unusable(String),
}

impl StepError {
    /// The error, located at step `j`.
    pub(crate) fn at(self, j: u64) -> Located {
        match self {
            StepError::Audit(e) => (j, e),
            StepError::Unusable(why) => (j, AuditError::Unusable(format!("step {j}: {why}"))),
        }
    }
}

impl From<AuditError> for StepError {
    fn from(e: AuditError) -> Self {
        StepError::Audit(e)
    }
}

impl From<String> for StepError {
    fn from(why: String) -> Self {
        StepError::Unusable(why)
    }
}

impl From<ToleranceError> for StepError {
    fn from(e: ToleranceError) -> Self {
        StepError::Unusable(e.to_string())
    }
}

/// The replay and attested programs of each program record, parsed once per
/// worker (a parsed program owns its MLIR context).
#[derive(Default)]
pub(crate) struct Programs {
    parsed: HashMap<u64, (Program, Program)>,
    flips: HashMap<u64, bool>,
}

impl Programs {
    /// Whether program record `seq`'s replay program computes in a float
    /// narrower than `f32` ([`noise::flips_possible`]), where an outlier of
    /// a snapshot or update-sketch comparison may be a discrete flip.
    /// Derived from the program's own types ([`Program::precision`]), never
    /// from the record's `precision` field, which is the prover's word: a
    /// prover that labelled an `f32` program `bf16` would otherwise buy
    /// every outlier its leaf's largest spread. (A prover that writes its
    /// own program can still give it a narrow op; the report says
    /// `noise.narrow`, and `--program` binds the programs to the client's.)
    pub(crate) fn flips(&mut self, t: &Transcript, seq: u64) -> Result<bool, AuditError> {
        if let Some(&flips) = self.flips.get(&seq) {
            return Ok(flips);
        }
        let derived = self.get(t, seq)?.0.precision();
        let flips = noise::flips_possible(&Precision {
            narrowest: derived.narrowest,
            narrow_results: derived.narrow_results,
        });
        self.flips.insert(seq, flips);
        Ok(flips)
    }

    /// The replay and attested programs of program record `seq`.
    pub(crate) fn get(
        &mut self,
        t: &Transcript,
        seq: u64,
    ) -> Result<&(Program, Program), AuditError> {
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

/// What replaying a segment found.
pub(crate) struct SegmentOutcome {
    /// Transitions replayed.
    pub(crate) transitions: u64,
    /// Retained snapshots compared with the replayed state.
    pub(crate) snapshots_compared: u64,
    /// The first difference, if any (the replay stops there).
    pub(crate) failure: Option<Failure>,
    /// The most 0-d `f64` batch arguments of a replayed step that its
    /// record does not name as hyperparameters.
    pub(crate) unnamed_scalars: u64,
    /// Replayed steps whose batch was compared with the client's data.
    pub(crate) data_checked: u64,
    /// The first step whose batch is not the client's data, and why.
    pub(crate) data_differs: Option<(u64, String)>,
    /// The noise test of the snapshots compared.
    pub(crate) noise: Noise,
    /// The noise test across them.
    pub(crate) coherence: Coherence,
}

/// Run `program` as written, or as member `m` of the perturbation ensemble
/// (inputs moved by an ulp, results rounded in the member's mode).
pub(crate) fn run_as(
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
pub(crate) struct Replayed {
    /// The replay program's results: the post-state (`n_state` leaves),
    /// then the deltas and (DDP) the local gradients.
    pub(crate) outputs: Vec<Tensor>,
    /// The sketch of each update leaf.
    pub(crate) sketches: Vec<Vec<f64>>,
    /// Leaves of the state.
    n_state: usize,
}

impl Replayed {
    /// The post-state.
    pub(crate) fn state(&self) -> &[Tensor] {
        &self.outputs[..self.n_state]
    }

    /// The post-state, the rest of the results dropped.
    fn into_state(mut self) -> Vec<Tensor> {
        self.outputs.truncate(self.n_state);
        self.outputs
    }
}

/// Replay one step from `inputs` (the pre-state, then the batch), as
/// written or as ensemble member `member`, and sketch its update with the
/// update's probe maps.
fn run_replay(
    replay: &Program,
    inputs: Vec<Tensor>,
    member: Option<u64>,
    n_state: usize,
    update: &Bundle,
    probes: &[ProbeMap],
) -> Result<Replayed, String> {
    let outputs =
        run_as(replay, inputs, member).map_err(|e| format!("the replay program failed: {e}"))?;
    if outputs.len() < n_state {
        return Err(format!(
            "the replay program returns {} results, the state has {n_state} leaves",
            outputs.len()
        ));
    }
    // The update tree's leaves are the deltas, then (DDP) the local gradients,
    // which follow the deltas among the results.
    let sketched = &outputs[n_state..];
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
    Ok(Replayed {
        outputs,
        sketches,
        n_state,
    })
}

/// The measured rounding spread of the values a segment's last step
/// compares.
pub(crate) struct Spread {
    /// Of each update sketch value of the step (concatenated).
    pub(crate) sketches: Vec<f64>,
    /// Each update leaf's largest member scale of its sketches
    /// ([`noise::member_scales`]).
    pub(crate) sketch_scales: Vec<f64>,
    /// Of each state value after the step, leaf by leaf, in each leaf's
    /// own precision.
    pub(crate) state: Vec<SpreadLeaf>,
}

/// What a snapshot comparison found besides its failure.
pub(crate) struct Compared {
    /// The noise test's account.
    pub(crate) residuals: Residuals,
    /// Pairs outside the tolerance accepted as outliers.
    pub(crate) outliers: u64,
    /// The largest root mean square of one leaf, its outliers set aside.
    pub(crate) worst_leaf_rms: f64,
}

/// An ensemble member's replay so far: the steps replayed, the state after
/// them and the last one's update sketches.
type Member = (usize, Vec<Tensor>, Vec<f64>);

/// The most bytes of ensemble members' states the segments replayed at once
/// keep, together, between two measurements of their spread; beyond it, a
/// member replays its segment from the start each time (the same values,
/// computed again).
pub(crate) const MEMBER_CACHE_BYTES: usize = 4 << 30;

/// A segment being replayed: its snapshot's state and the steps replayed so
/// far, each with the program record it ran (a segment may cross a program
/// change, another batch layout, and every step replays with its own
/// program).
struct Segment<'a> {
    t: &'a Transcript,
    initial: Vec<Tensor>,
    steps: Vec<(u64, StepInputs)>,
    n_state: usize,
    /// How the noise test applies.
    rule: NoiseRule,
    /// The noise test across the snapshots compared.
    coherence: Coherence,
    /// Each ensemble member's state after the first `n` steps, as its last
    /// replay left it, with the sketches of step `n`: `member -> (n, state,
    /// sketches)`.
    members: RefCell<HashMap<u64, Member>>,
    /// How many members' states fit [`MEMBER_CACHE_BYTES`].
    member_slots: usize,
    /// The steps the segment replays: a member's state after the last of
    /// them is not kept (no measurement follows it).
    length: usize,
}

impl Segment<'_> {
    /// Replay step `j` (record `step`) from `state`; its inputs join the
    /// segment. The step's arguments (the pre-state, then the batch) are
    /// returned when `keep` asks for them (the attested program runs on
    /// them); otherwise the pre-state is moved into the replay, not copied.
    fn replay_step(
        &mut self,
        programs: &mut Programs,
        (j, step): (u64, &StepBody),
        state: Vec<Tensor>,
        keep: bool,
    ) -> Result<(Option<Vec<Tensor>>, Replayed), StepError> {
        let (replay, _) = programs.get(self.t, step.program)?;
        let inputs = prepare_step(self.t, replay, j, step)?;
        let mut arguments = state;
        arguments.extend(inputs.batch.iter().cloned());
        let kept = keep.then(|| arguments.clone());
        let replayed = run_replay(
            replay,
            arguments,
            None,
            self.n_state,
            &inputs.update,
            &inputs.probes,
        )?;
        self.steps.push((step.program, inputs));
        Ok((kept, replayed))
    }

    /// Drop the last step's retained sketch values (`f64`, about
    /// `8 * probe_ratio` bytes per parameter), once compared.
    fn forget_committed(&mut self) {
        if let Some((_, inputs)) = self.steps.last_mut() {
            inputs.committed = Vec::new();
        }
    }

    /// The inputs of the last step replayed.
    fn last(&self) -> &StepInputs {
        let (_, inputs) = self
            .steps
            .last()
            .expect("a segment compares only after replaying a step");
        inputs
    }

    /// The rounding spread of what the last step compares, over the
    /// ensemble of `tolerance`, around the `nominal` replay of that step
    /// ([`Tolerance::widen_spread`] for each member). The state's spread is
    /// measured leaf by leaf, one member at a time.
    fn measure(
        &self,
        programs: &mut Programs,
        tolerance: &Tolerance,
        nominal: &Replayed,
    ) -> Result<Spread, StepError> {
        let nominal_sketches = nominal.sketches.concat();
        let nominal_state = Leaves::new(nominal.state())?;
        let groups = compare::sketch_groups(&self.last().update, &self.t.root.params);
        let mut scales = vec![0.0f64; groups.len()];
        let mut sketches = vec![0.0f64; nominal_sketches.len()];
        let mut state = nominal
            .state()
            .iter()
            .map(|t| Ok(SpreadLeaf::zeros(dtype_of(t)?, t.data.len())))
            .collect::<Result<Vec<_>, String>>()?;
        for m in 0..tolerance.replays {
            self.member(programs, m, |member_sketches, member_state| {
                let values = |leaves: &[Tensor]| leaves.iter().map(|t| t.data.len()).sum::<usize>();
                let (found, expected) = (
                    member_sketches.len() + values(member_state),
                    nominal_sketches.len() + values(nominal.state()),
                );
                let shaped = member_state.len() == state.len()
                    && member_state
                        .iter()
                        .zip(nominal.state())
                        .all(|(a, b)| a.data.len() == b.data.len());
                if found != expected || !shaped {
                    return Err(StepError::from(ToleranceError::Member {
                        member: m,
                        found,
                        expected,
                    }));
                }
                let member =
                    noise::member_scales(tolerance, &groups, &nominal_sketches, member_sketches);
                for (s, k) in scales.iter_mut().zip(member) {
                    *s = s.max(k);
                }
                Tolerance::widen_spread(&mut sketches, member_sketches, &nominal_sketches);
                let member_state = Leaves::new(member_state)?;
                for (leaf, spread) in state.iter_mut().enumerate() {
                    let (a, b) = (member_state.leaf(leaf), nominal_state.leaf(leaf));
                    for (i, (&x, &y)) in a.iter().zip(b.iter()).enumerate() {
                        spread.widen(i, Tolerance::ensemble_difference(x, y));
                    }
                }
                Ok(())
            })?;
        }
        Ok(Spread {
            sketches,
            sketch_scales: scales,
            state,
        })
    }

    /// The segment replayed by ensemble member `m`, handed to `look` as
    /// the last step's sketch values and the state after it; the member's
    /// state is then kept for its next measurement when there is room.
    fn member<R>(
        &self,
        programs: &mut Programs,
        m: u64,
        look: impl FnOnce(&[f64], &[Tensor]) -> Result<R, StepError>,
    ) -> Result<R, StepError> {
        let cached = self.members.borrow_mut().remove(&m);
        let (done, mut state, mut sketches) =
            cached.unwrap_or_else(|| (0, self.initial.clone(), Vec::new()));
        for (program, inputs) in &self.steps[done..] {
            let (replay, _) = programs.get(self.t, *program)?;
            let mut arguments = state;
            arguments.extend(inputs.batch.iter().cloned());
            let out = run_replay(
                replay,
                arguments,
                Some(m),
                self.n_state,
                &inputs.update,
                &inputs.probes,
            )?;
            sketches = out.sketches.concat();
            state = out.into_state();
        }
        let seen = look(&sketches, &state)?;
        let mut members = self.members.borrow_mut();
        if self.steps.len() < self.length && members.len() < self.member_slots {
            members.insert(m, (self.steps.len(), state, sketches));
        }
        Ok(seen)
    }

    /// Step `j`'s update sketches against the retained ones, measuring the
    /// spread (into `spread`) when the fixed bound is exceeded or, in a
    /// narrow-float program, whenever they differ; in a program
    /// that computes in a narrow float (`flips`) a few may be discrete
    /// flips ([`compare::update_sketches`]). Returns the failure, if any,
    /// and the outliers admitted.
    fn check_update(
        &self,
        programs: &mut Programs,
        j: u64,
        (tolerance, flips): (&Tolerance, bool),
        nominal: &Replayed,
        spread: &mut Option<Spread>,
    ) -> Result<(Option<Failure>, u64), StepError> {
        let inputs = self.last();
        let recomputed = nominal.sketches.concat();
        // In a narrow-float program the bias test's mean needs the spread
        // too, as the session's state check measures it; a replay equal to
        // production bit for bit has no bias to measure.
        let biased = flips && tolerance.replays > 0 && inputs.committed != recomputed;
        if biased || tolerance.needs_spread(&inputs.committed, &recomputed) {
            *spread = Some(self.measure(programs, tolerance, nominal)?);
        }
        Ok(compare::update_sketches(
            tolerance,
            j,
            &inputs.update,
            &self.t.root.params,
            &inputs.committed,
            &recomputed,
            spread.as_ref().map(|s| compare::Ensemble {
                spread: &s.sketches,
                scales: &s.sketch_scales,
            }),
            flips,
        )?)
    }

    /// The state after step `j` against the `production` tensors of the
    /// next retained snapshot: each pair within the tolerance, and the
    /// differences together rounding noise ([`zkdv_protocol::noise`]). The
    /// spread is measured (unless `spread` holds it already) when the fixed
    /// bound is exceeded or the differences are more than noise in units of
    /// ulps alone, so that an honest replay whose rounding the ensemble
    /// sees is measured in its spread. Returns what was compared with the
    /// failure, if any.
    ///
    /// Every pass over the state reads one leaf at a time as `f64`
    /// ([`LeafValues`]): the comparison holds no copy of the state beyond
    /// the tensors themselves and the spread.
    fn check_snapshot(
        &mut self,
        programs: &mut Programs,
        j: u64,
        (tolerance, flips): (&Tolerance, bool),
        nominal: &Replayed,
        production: &[Tensor],
        spread: &mut Option<Spread>,
    ) -> Result<(Option<Failure>, Compared), StepError> {
        let noise_limit = self.rule.limit;
        let theirs = Leaves::new(production)?;
        let mine = Leaves::new(nominal.state())?;
        let initial = Leaves::new(&self.initial)?;
        // Pair by pair: a replayed leaf of another size than the snapshot's
        // is refused, not compared over its common prefix.
        if production.len() != nominal.state().len() {
            return Err(StepError::Unusable(format!(
                "the replayed state has {} leaves, the snapshot {}",
                nominal.state().len(),
                production.len()
            )));
        }
        for (leaf, (a, b)) in production.iter().zip(nominal.state()).enumerate() {
            if a.data.len() != b.data.len() {
                return Err(StepError::Unusable(format!(
                    "the replayed state {} has {} values, the snapshot's {}",
                    self.t.state_path(leaf),
                    b.data.len(),
                    a.data.len()
                )));
            }
        }
        let dtypes = production
            .iter()
            .map(dtype_of)
            .collect::<Result<Vec<_>, _>>()?;
        // Each row's pairs with the absolute term of its own scale, as compared.
        let rows: Vec<usize> = production
            .iter()
            .map(|t| noise::Group::of_shape(&t.shape, true).row)
            .collect();
        // Each leaf on its own too: the comparison's account dilutes a change
        // concentrated in a leaf small against the state.
        let leaf_limit = noise_limit * noise::LEAF_NOISE_FACTOR;
        // The noise test is the auditor's: it measures the spread with the
        // ensemble even where the program's tolerance has none (whose
        // per-pair bound then gives the spread no weight).
        let ensemble = Tolerance {
            replays: tolerance.replays.max(ENSEMBLE_REPLAYS),
            ..*tolerance
        };
        if spread.is_none()
            && (self.rule.always_spread
                || self.needs_spread(tolerance, flips, &dtypes, &rows, (&theirs, &mine)))
        {
            *spread = Some(self.measure(programs, &ensemble, nominal)?);
        }
        let leaves = spread.as_ref().map(|s| &s.state);
        // One pass: the account, the worst leaf, the noise across snapshots
        // and the pairs, leaf by leaf.
        let mut residuals = Residuals::default();
        let mut worst: Option<(usize, Residuals)> = None;
        let mut check =
            compare::SnapshotCheck::new(|leaf| self.t.state_path(leaf), tolerance, j, flips);
        for (leaf, &dtype) in dtypes.iter().enumerate() {
            let (a, b) = (theirs.leaf(leaf), mine.leaf(leaf));
            let s = leaves.map(|s| s.leaf(leaf));
            residuals.add_leaf(dtype, &a, &b, s.as_deref());
            if let Some(r) = noise::leaf_residuals(dtype, &a, &b, s.as_deref()) {
                if worst
                    .as_ref()
                    .is_none_or(|(_, w)| r.rms().total_cmp(&w.rms()).is_ge())
                {
                    worst = Some((leaf, r));
                }
            }
            self.coherence.add_leaf(leaf, dtype, &a, &b, s.as_deref());
            // No retained snapshot lies inside a segment (it starts at the newest
            // one), so its first state is the pre-state of the replayed updates.
            let x0 = (leaf < initial.count()).then(|| initial.leaf(leaf));
            check.leaf(
                leaf,
                &compare::LeafPair {
                    theirs: &a,
                    mine: &b,
                    initial: x0.as_deref(),
                    dtype: Some(dtype),
                    spread: s.as_deref(),
                    row: rows[leaf],
                },
            );
        }
        self.coherence.end_snapshot();
        let (failure, outliers) = check.finish();
        let compared = Compared {
            residuals,
            outliers,
            worst_leaf_rms: worst.as_ref().map_or(0.0, |(_, r)| r.rms()),
        };
        if failure.is_some() {
            return Ok((failure, compared));
        }
        let values = compare::StateValues {
            theirs: &theirs,
            mine: &mine,
            dtypes: &dtypes,
            spread: leaves.map(|s| s as &dyn LeafValues),
        };
        if !residuals.is_noise_under(noise_limit) {
            let failure = compare::noise(self.t, j, &values, residuals);
            return Ok((Some(failure), compared));
        }
        match worst {
            Some((leaf, account)) if !account.is_noise_under(leaf_limit) => {
                let failure = compare::leaf_noise(self.t, j, (leaf, account, leaf_limit), &values);
                Ok((Some(failure), compared))
            }
            _ => Ok((None, compared)),
        }
    }

    /// Whether a snapshot comparison needs the ensemble's spread before
    /// it can judge (one pass, leaf by leaf): a pair outside its fixed
    /// bound, in an `f32` program a value far from the replay in ulps (an
    /// outlier unless its spread says otherwise), or differences more than
    /// noise in units of ulps alone, over the state or in one leaf.
    fn needs_spread(
        &self,
        tolerance: &Tolerance,
        flips: bool,
        dtypes: &[DType],
        rows: &[usize],
        (theirs, mine): (&Leaves<'_>, &Leaves<'_>),
    ) -> bool {
        let noise_limit = self.rule.limit;
        let leaf_limit = noise_limit * noise::LEAF_NOISE_FACTOR;
        let mut account = Residuals::default();
        let mut worst: Option<Residuals> = None;
        for (leaf, &dtype) in dtypes.iter().enumerate() {
            let (a, b) = (theirs.leaf(leaf), mine.leaf(leaf));
            if compare::needs_spread(tolerance, &a, &b, rows[leaf]) {
                return true;
            }
            let far = !flips
                && a.iter().zip(b.iter()).any(|(&c, &r)| {
                    noise::noise_unit(dtype, c, r, 0.0).is_some_and(|z| z.abs() > noise::FAR_UNITS)
                });
            if far {
                return true;
            }
            account.add_leaf(dtype, &a, &b, None);
            if let Some(r) = noise::leaf_residuals(dtype, &a, &b, None) {
                if worst
                    .as_ref()
                    .is_none_or(|w| r.rms().total_cmp(&w.rms()).is_ge())
                {
                    worst = Some(r);
                }
            }
        }
        !account.is_noise_under(noise_limit) || worst.is_some_and(|r| !r.is_noise_under(leaf_limit))
    }
}

/// The bytes `state`'s elements take in the runtime.
fn state_bytes(state: &[Tensor]) -> usize {
    state
        .iter()
        .map(|t| {
            let element = match &t.data {
                Data::F32(_) => 4,
                Data::C128(_) => 16,
                _ => 8,
            };
            t.data.len().saturating_mul(element)
        })
        .sum()
}

/// Replay the segment from the retained snapshot of step `start` to the
/// last of the `audited` steps; `tick` is called after each transition.
pub(crate) fn replay_segment(
    t: &Transcript,
    programs: &mut Programs,
    start: u64,
    audited: &BTreeMap<u64, AuditChallenge>,
    data: Option<&DataExpectation>,
    rule: NoiseRule,
    tick: &dyn Fn(),
) -> Result<SegmentOutcome, Located> {
    let last = audited.keys().max().copied().unwrap_or(start);
    let end = t.segment_end(start, last);
    let n_params = t.root.params.len();
    let n_state = n_params + t.root.opt_state.len();
    let snapshot = t.snapshots.get(&start).ok_or_else(|| {
        (
            start,
            AuditError::Unusable(format!("no snapshot record of step {start}")),
        )
    })?;
    let initial = load_state(t, snapshot).map_err(|e| (start, e))?;
    let mut state = initial.clone();
    // The budget is shared by the segments replayed at once (one per thread
    // of the audit's pool).
    let budget = MEMBER_CACHE_BYTES / rayon::current_num_threads().max(1);
    let member_slots = budget / state_bytes(&initial).max(1);
    let mut segment = Segment {
        t,
        initial,
        steps: Vec::new(),
        n_state,
        rule,
        coherence: Coherence::default(),
        members: RefCell::new(HashMap::new()),
        member_slots,
        length: usize::try_from(end.saturating_sub(start) + 1).unwrap_or(usize::MAX),
    };
    let mut outcome = SegmentOutcome {
        transitions: 0,
        snapshots_compared: 0,
        failure: None,
        data_checked: 0,
        unnamed_scalars: 0,
        data_differs: None,
        noise: Noise::default(),
        coherence: Coherence::default(),
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
                StepError::Unusable(format!("unknown program {}", step.program)).at(j)
            })?;
        let flips = programs.flips(t, step.program).map_err(|e| (j, e))?;
        let challenge = audited.get(&j);
        let (arguments, nominal) = segment
            .replay_step(programs, (j, step), state, challenge.is_some())
            .map_err(|e| e.at(j))?;
        outcome.transitions += 1;
        tick();
        // The hyperparameters the record commits are the ones the replay ran with.
        let unnamed = crate::hyper::unnamed_scalars(step, &segment.last().batch);
        outcome.unnamed_scalars = outcome.unnamed_scalars.max(unnamed);
        if let Err(why) = crate::hyper::bind(step, &segment.last().batch) {
            outcome.failure = Some(Failure {
                step: j,
                what: format!("hyperparameters: {why}"),
                committed: 0.0,
                recomputed: 0.0,
                allowed: 0.0,
                kind: FailureKind::Record,
                noise: None,
            });
            return Ok(outcome);
        }
        // The client's examples, in the client's order.
        if let Some(data) = data {
            match data::check(data, j, &segment.last().batch, t.packed_batches()) {
                Ok(()) => outcome.data_checked += 1,
                Err(why) => {
                    if outcome.data_differs.is_none() {
                        outcome.data_differs = Some((j, why));
                    }
                }
            }
        }
        // The spread is measured at most once per step, by the first
        // comparison that needs it.
        let mut spread = None;
        let (failure, outliers) = segment
            .check_update(programs, j, (&tolerance, flips), &nominal, &mut spread)
            .map_err(|e| e.at(j))?;
        outcome.noise.outliers += outliers;
        outcome.noise.narrow |= flips;
        if let Some(failure) = failure {
            outcome.failure = Some(failure);
            return Ok(outcome);
        }
        // The step's retained sketch values are compared: the rest of the
        // segment needs its batch and probe maps only.
        segment.forget_committed();
        // At an audited step, the attested program at the audit's coordinates.
        if let (Some(challenge), Some(arguments)) = (challenge, arguments) {
            let (_, attested) = programs.get(t, step.program).map_err(|e| (j, e))?;
            let failure = compare::attested(
                attested,
                arguments,
                &nominal.outputs,
                challenge,
                n_params,
                n_state,
                &tolerance,
            )
            .map_err(|e| e.at(j))?;
            if let Some(failure) = failure {
                outcome.failure = Some(Failure { step: j, ..failure });
                return Ok(outcome);
            }
        }
        // The next snapshot, when retained: the replayed state must be its
        // tensors, within the tolerance and the ensemble's spread.
        if let Some(next) = t.snapshots.get(&(j + 1)).filter(|s| t.retained(s.step)) {
            let production = load_state(t, next).map_err(|e| (j + 1, e))?;
            let (failure, compared) = segment
                .check_snapshot(
                    programs,
                    j,
                    (&tolerance, flips),
                    &nominal,
                    &production,
                    &mut spread,
                )
                .map_err(|e| e.at(j))?;
            outcome.noise.add(
                compared.residuals,
                compared.outliers,
                compared.worst_leaf_rms,
            );
            if let Some(failure) = failure {
                outcome.failure = Some(failure);
                return Ok(outcome);
            }
            outcome.snapshots_compared += 1;
            state = production;
        } else {
            state = nominal.into_state();
        }
    }
    outcome.coherence = segment.coherence;
    Ok(outcome)
}
