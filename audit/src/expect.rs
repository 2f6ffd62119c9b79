//! The client's expectations: what an audit holds the transcript to beyond
//! its own records, and what the report says of each.
//!
//! A transcript is the prover's: every record in it, first and last state
//! included, is what the prover chose to commit. An audit binds a
//! transcript to something outside it only through what the client knows
//! by itself and gives the auditor. Today that is the model:
//!
//! - `--initial HASH`: the parameters the run had to start from. The first
//!   snapshot (of step 0) must commit to them ([`SnapshotBody::params`]),
//!   and step 0 is audited, so its replay starts from that snapshot's
//!   tensors, which must re-hash to it;
//! - `--final HASH`: the parameters the client was delivered. The final
//!   snapshot (the state after the last step) must commit to them, and the
//!   last step is audited, so the replayed state is compared with that
//!   snapshot's tensors.
//!
//! - `--final-averaged HASH`: the averaged model (an EMA or SWA of the
//!   weights, a PyTorch session's `prepare(..., averaged=)`) the client was
//!   delivered, often the model a run is trained for. Its parameters are
//!   state leaves (`opt_state/averaged/params/<path>`) of the final
//!   snapshot, whose tensors must re-hash to its state commitment; their
//!   model commitment (under the averaged model's own paths) must be the
//!   client's, and the last step is audited, as for `--final`.
//!
//! The hash is the model commitment `zkdv.torch.model_hash(model)` and
//! `zkdv.jax.model_hash(params)` compute (a tree commitment over
//! `params/<path>`).
//!
//! The tolerance is the auditor's, not the prover's: every program's
//! tolerance (the bound every comparison of the audit uses) must be within a
//! ceiling, `--max-tolerance` or by default [`DEFAULT_CEILING`], the
//! tolerance a session uses unless told otherwise. A prover that records a
//! lax tolerance (`abs 0.1, rel 1`) to let a changed update pass is refused.
//!
//! The programs are the client's when it gives their hashes (`--program`,
//! the blake3 of each program artifact its own code produces: run on the
//! client's machine with the versions the root records,
//! `zkdv.transcript.program_hashes` lists them): every program record's
//! attested program, the one checks and audits run at challenged
//! coordinates, and its replay program, the one an audit replays the
//! evidence with, must be among them. The production program is not
//! compared: a sealed AOT Inductor package differs on every compile.
//!
//! The data are the client's when it gives a manifest of its examples and
//! their order (`--data`, module `data`): every replayed step's batch must
//! hold the client's examples, in the order given.
//!
//! The products are the client's when it says how its devices multiply
//! `f32` (`--products exact|tf32`): a program record that says its
//! products were TensorFloat-32 (`matmul: "tf32"`, an NVIDIA GPU's since
//! Ampere) makes the audit's perturbation ensemble round product operands
//! to ten mantissa bits, which widens every spread that a product reaches.
//! Unchecked, that claim is the prover's word, and a prover that ran on a
//! CPU could make it to be allowed more. Given, every program record must
//! say what the client's devices do.
//!
//! What the two bind: the first and last states the transcript commits to
//! are the client's, and the first and last transitions reproduce from and
//! into them. The steps between are bound as the rest of the audit binds
//! them: each audited step replays from its snapshot to the next.
//!
//! The whole initial state is the client's when it gives its commitment
//! (`--initial-state HASH`: `commit_tree` over `params/<path>` and
//! `opt_state/<path>`, what `proof.state_hash()` computes in a session of
//! the client's own code before its first step): the first snapshot's
//! [`SnapshotBody::state`] must be it. `--initial` binds the parameters
//! only; without `--initial-state` the optimizer state and buffers the run
//! starts from are the prover's (Adam's moments preloaded toward a
//! direction of its choosing), and the report says so.
//!
//! The auditor bounds the outliers (`--max-outliers N`): the values an
//! audit admits outside their per-pair bound as discrete rounding flips
//! ([`zkdv_protocol::noise::outlier_allowance`]). Which values those are is
//! the prover's choice, so without a ceiling it may place the protocol's
//! allowance on the coordinates that serve it, every step.
//!
//! The hyperparameters are the client's when it gives the values of every
//! step (`--hyperparameters FILE`, module `hyper`): every step record's
//! committed hyperparameters must be those.

use serde::Serialize;
use zkdv_protocol::{Hash32, SnapshotBody, Tolerance, ENSEMBLE_REPLAYS, ENSEMBLE_SPREAD};

use crate::data::DataExpectation;
use crate::model::ModelExpectation;
use crate::transcript::Transcript;

/// The auditor's default tolerance ceiling: a session's default tolerance
/// (`abs 1e-6`, `rel 1e-5`) with the perturbation ensemble's factor on the
/// spread.
///
/// `replays` is a ceiling too: an ensemble of more members measures wider
/// spreads, which a prover would record to be allowed more.
pub const DEFAULT_CEILING: Tolerance = Tolerance {
    abs: 1e-6,
    rel: 1e-5,
    spread: ENSEMBLE_SPREAD,
    replays: ENSEMBLE_REPLAYS,
};

/// The client's and the auditor's expectations given to an audit.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    /// The model the run started from.
    pub initial: Option<ModelExpectation>,
    /// The model the client was delivered.
    pub final_model: Option<ModelExpectation>,
    /// The averaged model (an EMA of the weights) the client was delivered:
    /// its parameters in the state after the last step.
    pub final_averaged: Option<ModelExpectation>,
    /// The blake3 of every program artifact the client's code produces.
    pub programs: Vec<Hash32>,
    /// The client's examples and their order.
    pub data: Option<DataExpectation>,
    /// The most lenient tolerance the auditor accepts (its `abs`, `rel`,
    /// `spread` and `replays` are each a ceiling: more replays widen the
    /// spreads the ensemble measures, and slow the audit);
    /// [`DEFAULT_CEILING`] when `None`.
    pub max_tolerance: Option<Tolerance>,
    /// The largest root mean square of a snapshot comparison's noise units
    /// the auditor accepts ([`zkdv_protocol::noise`]);
    /// [`zkdv_protocol::noise::NOISE_RMS`] when `None`.
    pub max_noise: Option<f64>,
    /// The largest drift per snapshot, in noise units, the auditor accepts
    /// ([`zkdv_protocol::noise::Coherence::drift`]);
    /// [`zkdv_protocol::noise::DRIFT_LIMIT`] when `None`.
    pub max_drift: Option<f64>,
    /// How the client's devices multiply `f32`: every program record must
    /// say the same ([`Products`]).
    pub products: Option<Products>,
    /// The commitment of the whole state the run had to start from
    /// (parameters, optimizer state and buffers): the first snapshot's
    /// [`SnapshotBody::state`] must be it.
    pub initial_state: Option<Hash32>,
    /// The most outliers ([`zkdv_protocol::noise::outlier_allowance`]) the
    /// auditor admits over the whole audit.
    pub max_outliers: Option<u64>,
    /// The client's hyperparameters, step by step.
    pub hyperparameters: Option<crate::hyper::HyperExpectation>,
}

/// How a run's devices multiply `f32` operands in products (`dot_general`,
/// `convolution` below `HIGHEST` precision), as a client states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Products {
    /// IEEE `f32` products: a CPU (and a GPU before Ampere). The JAX
    /// frontend records a GPU since Ampere as `Tf32` whatever a program's
    /// precision config says (a `HIGHEST` product keeps exact operands in
    /// the ensemble either way).
    Exact,
    /// TensorFloat-32 operands (ten mantissa bits): an NVIDIA GPU since
    /// Ampere under XLA's or cuBLAS's defaults. A program record says it
    /// as `matmul: "tf32"` ([`zkdv_protocol::MATMUL_TF32`]).
    Tf32,
}

impl Products {
    /// The name the command line and the report use (`exact`, `tf32`).
    pub fn name(self) -> &'static str {
        match self {
            Products::Exact => "exact",
            Products::Tf32 => zkdv_protocol::MATMUL_TF32,
        }
    }

    /// What a program record's `matmul` field says (absent: exact).
    pub fn of_record(matmul: Option<&str>) -> Option<Products> {
        match matmul {
            None => Some(Products::Exact),
            Some(m) if m == zkdv_protocol::MATMUL_TF32 => Some(Products::Tf32),
            Some(_) => None,
        }
    }
}

impl std::str::FromStr for Products {
    type Err = String;

    /// `exact` or `tf32`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "exact" => Ok(Products::Exact),
            t if t == zkdv_protocol::MATMUL_TF32 => Ok(Products::Tf32),
            _ => Err(format!(
                "{text:?} is not a kind of products: give exact (a CPU) or tf32 (an NVIDIA \
                 GPU since Ampere)"
            )),
        }
    }
}

/// How an expectation fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Given, and the transcript commits to the same value.
    Matched,
    /// Given, and the transcript commits to another value.
    Differs,
    /// Given, but the transcript commits to none (a session that did not
    /// record it, or a transcript without a close).
    NotRecorded,
    /// Not given: the audit did not check it.
    NotGiven,
}

impl Status {
    /// Whether the audit fails on it.
    pub fn fails(self) -> bool {
        matches!(self, Status::Differs | Status::NotRecorded)
    }
}

/// One expectation as the report states it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expectation {
    /// What is expected (`initial model`, `final model`, `programs`, ...).
    pub name: &'static str,
    /// How it fared.
    pub status: Status,
    /// The value given (hex), if any.
    pub expected: Option<String>,
    /// The value the transcript commits to (hex), if any.
    pub recorded: Option<String>,
    /// What it means, in a sentence.
    pub note: String,
}

/// The snapshot of the state after the last step, if the session wrote one.
pub(crate) fn final_snapshot(t: &Transcript) -> Option<&SnapshotBody> {
    let steps = t.steps.len() as u64;
    t.closed.then(|| t.snapshots.get(&steps)).flatten()
}

fn model(
    t: &Transcript,
    name: &'static str,
    given: Option<Hash32>,
    snapshot: Option<&SnapshotBody>,
    which: &str,
) -> Expectation {
    let recorded = snapshot.and_then(|s| s.params);
    // A commitment without its tensors binds nothing: no replay meets it, so
    // a prover could record the client's hash over another state. Its tensors
    // are a retained artifact or a checkpoint file bound to it.
    let retained = snapshot.is_some_and(|s| t.retained(s.step));
    let (status, note) = match (given, recorded) {
        (Some(_), Some(_)) if !retained => (
            Status::NotRecorded,
            format!(
                "the {which} snapshot's tensors were not retained and no checkpoint of it was \
                 given (--checkpoint), so no replay binds its model commitment"
            ),
        ),
        (None, _) => (
            Status::NotGiven,
            format!(
                "not checked: the transcript's {which} model is the prover's ({}); give the \
                 client's with --{}",
                if which == "initial" {
                    "a run may start from a model of its choosing"
                } else {
                    "the model delivered may be another than the one the run ended at"
                },
                flag(name)
            ),
        ),
        (Some(_), None) => (
            Status::NotRecorded,
            format!(
                "the transcript commits to no {which} model (no snapshot with a model commitment)"
            ),
        ),
        (Some(g), Some(r)) if g == r => (
            Status::Matched,
            format!("the transcript's {which} state is the client's model"),
        ),
        (Some(_), Some(_)) => (
            Status::Differs,
            format!("the transcript's {which} state is not the client's model"),
        ),
    };
    Expectation {
        name,
        status,
        expected: given.map(|h| h.to_string()),
        recorded: recorded.map(|h| h.to_string()),
        note,
    }
}

/// The delivered averaged model against the client's: `given` its
/// commitment, `recorded` the one of the final snapshot's retained tensors
/// (`None` when the snapshot is absent or not retained); absent from the
/// report when neither the client gives one nor the session prepared one.
fn averaged(
    t: &Transcript,
    given: Option<Hash32>,
    recorded: Option<Hash32>,
    initial_state: Option<Hash32>,
) -> Option<Expectation> {
    let prepared = !crate::evidence::averaged_layout(t).is_empty();
    let snapshot = final_snapshot(t);
    let retained = snapshot.is_some_and(|s| t.retained(s.step));
    let (status, note) = match (given, recorded) {
        (None, _) if !prepared => return None,
        (None, _) => (
            Status::NotGiven,
            "not checked: the session kept an averaged model (an EMA of the weights), and the \
             one delivered may be another than the one the run ended at; give the client's \
             with --final-averaged"
                .to_owned(),
        ),
        (Some(_), _) if !prepared => (
            Status::NotRecorded,
            "the transcript commits to no averaged model: the session prepared none".to_owned(),
        ),
        (Some(_), None) if snapshot.is_none() => (
            Status::NotRecorded,
            "the transcript has no final snapshot, so it commits to no averaged model".to_owned(),
        ),
        (Some(_), None) if !retained => (
            Status::NotRecorded,
            "the final snapshot's tensors were not retained and no checkpoint of it was given \
             (--checkpoint), so nothing binds the averaged model the run ended at"
                .to_owned(),
        ),
        (Some(_), None) => (
            Status::NotRecorded,
            "the final snapshot holds no averaged model".to_owned(),
        ),
        (Some(g), Some(r)) if g == r => (
            Status::Matched,
            if initial_state.is_some() {
                "the averaged model in the transcript's final state is the client's".to_owned()
            } else {
                "the averaged model in the transcript's final state is the client's; where it \
                 started (the first average, an AveragedModel's count) is bound only by \
                 --initial-state, without which a run may start it from a model of its choosing"
                    .to_owned()
            },
        ),
        (Some(_), Some(_)) => (
            Status::Differs,
            "the averaged model in the transcript's final state is not the client's".to_owned(),
        ),
    };
    Some(Expectation {
        name: "final averaged model",
        status,
        expected: given.map(|h| h.to_string()),
        recorded: recorded.map(|h| h.to_string()),
        note,
    })
}

/// The whole initial state (parameters, optimizer state, buffers) against
/// the client's commitment: the first snapshot's `state`, bound only when
/// its tensors were retained (step 0 is then replayed from them, and they
/// re-hash to it).
fn initial_state(t: &Transcript, given: Option<Hash32>, model: Option<Hash32>) -> Expectation {
    let snapshot = t.snapshots.get(&0);
    let recorded = snapshot.map(|s| s.state);
    let retained = snapshot.is_some_and(|s| t.retained(s.step));
    let (status, note) = match (given, recorded) {
        (None, _) => (
            Status::NotGiven,
            if model.is_some() {
                "not checked: --initial binds the parameters only, so the optimizer state and \
                 buffers the run started from (Adam's moments, a step counter, BatchNorm's \
                 statistics) were the prover's to choose; give the whole state's commitment \
                 with --initial-state (proof.state_hash() before the client's first step)"
                    .to_owned()
            } else {
                "not checked: the state the run started from is the prover's; give its \
                 commitment with --initial-state (proof.state_hash() before the client's first \
                 step)"
                    .to_owned()
            },
        ),
        (Some(_), None) => (
            Status::NotRecorded,
            "the transcript has no snapshot of step 0, so it commits to no initial state".into(),
        ),
        (Some(_), Some(_)) if !retained => (
            Status::NotRecorded,
            "the initial snapshot's tensors were not retained, so no replay binds its state \
             commitment"
                .into(),
        ),
        (Some(g), Some(r)) if g == r => (
            Status::Matched,
            "the transcript's initial state (parameters, optimizer state, buffers) is the \
             client's"
                .into(),
        ),
        (Some(_), Some(_)) => (
            Status::Differs,
            "the transcript's initial state is not the client's: the parameters, the optimizer \
             state or the buffers the run started from differ"
                .into(),
        ),
    };
    Expectation {
        name: "initial state",
        status,
        expected: given.map(|h| h.to_string()),
        recorded: recorded.map(|h| h.to_string()),
        note,
    }
}

/// The outliers the audit admitted against the auditor's ceiling.
pub(crate) fn outliers(admitted: u64, ceiling: Option<u64>) -> Expectation {
    let (status, note) = match ceiling {
        None => (
            Status::NotGiven,
            format!(
                "not checked: {admitted} values were admitted outside their per-pair bound as \
                 rounding flips, within the protocol's allowance; which values those are is the \
                 prover's choice, so give a ceiling with --max-outliers (from an honest run of the same \
                 code and checkpoint interval: 0 in the f32 audits measured with a full state every \
                 step, more with longer segments)"
            ),
        ),
        Some(c) if admitted <= c => (
            Status::Matched,
            format!("{admitted} values admitted as outliers, within the auditor's {c}"),
        ),
        Some(c) => (
            Status::Differs,
            format!(
                "{admitted} values were admitted outside their per-pair bound as outliers, more \
                 than the auditor's {c}: a prover places outliers where they serve it"
            ),
        ),
    };
    Expectation {
        name: "outliers",
        status,
        expected: ceiling.map(|c| c.to_string()),
        recorded: Some(admitted.to_string()),
        note,
    }
}

fn flag(name: &str) -> &'static str {
    if name.starts_with("initial") {
        "initial"
    } else {
        "final"
    }
}

/// The commitments an audit compares the client's models with.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Models {
    /// The initial model given (`--initial`), as a commitment.
    pub(crate) initial: Option<Hash32>,
    /// The final model given (`--final`).
    pub(crate) final_model: Option<Hash32>,
    /// The final averaged model given (`--final-averaged`).
    pub(crate) final_averaged: Option<Hash32>,
    /// The averaged model the final snapshot's retained tensors hold.
    pub(crate) recorded_averaged: Option<Hash32>,
}

/// Every expectation the report states, checked against `t`; `models` are
/// the commitments of the models given, and of the averaged model recorded.
pub(crate) fn check(t: &Transcript, given: &Expectations, models: Models) -> Vec<Expectation> {
    let Models {
        initial,
        final_model,
        final_averaged,
        recorded_averaged,
    } = models;
    vec![
        model(t, "initial model", initial, t.snapshots.get(&0), "initial"),
        initial_state(t, given.initial_state, initial),
        model(t, "final model", final_model, final_snapshot(t), "final"),
        programs(t, &given.programs),
        tolerance(t, given.max_tolerance),
        products(t, given.products),
        crate::hyper::check(t, given.hyperparameters.as_ref()),
    ]
    .into_iter()
    .chain(averaged(
        t,
        final_averaged,
        recorded_averaged,
        given.initial_state,
    ))
    .chain(given.data.is_none().then(|| {
        Expectation {
            name: "data",
            status: Status::NotGiven,
            expected: None,
            recorded: None,
            note: "not checked: the committed batches are bound to the transcript, not to the \
               client's data; give a manifest of its examples and order with --data"
                .into(),
        }
    }))
    .collect()
}

/// The client's data, once the segments were replayed: `checked` steps'
/// batches compared, the first that differs (and why) if any.
pub(crate) fn data(
    data: &DataExpectation,
    steps: u64,
    checked: u64,
    differs: Option<(u64, String)>,
) -> Expectation {
    let root = data
        .root()
        .map_or_else(|e| format!("(no root: {e})"), |r| r.to_hex());
    let ordered = data.order.len() as u64;
    let (status, note) = match differs {
        // The run's length is the client's too: a run that trains fewer steps (or epochs)
        // than its order names saves the prover their compute; one that trains more, steps
        // the client did not order.
        None if steps != ordered => (
            Status::Differs,
            format!(
                "the transcript has {steps} steps, the client's order {ordered}: the run {} \
                 the steps the client ordered",
                if steps < ordered {
                    "stopped before"
                } else {
                    "trained past"
                }
            ),
        ),
        None => (
            Status::Matched,
            format!(
                "the batches of the {checked} replayed steps are the client's examples, in its \
                 order, and the run has the {steps} steps of that order"
            ),
        ),
        Some((_, why)) => (Status::Differs, why),
    };
    Expectation {
        name: "data",
        status,
        expected: Some(root),
        recorded: None,
        note,
    }
}

/// The client's data, given without a layout for a transcript whose replay
/// programs take the packed batch words (the JAX frontend's): not compared,
/// which fails.
pub(crate) fn data_not_comparable(data: &DataExpectation) -> Expectation {
    Expectation {
        name: "data",
        status: Status::NotRecorded,
        expected: data.root().ok().map(|r| r.to_hex()),
        recorded: None,
        note: "not compared: this transcript's replay programs take the packed batch words \
               (the JAX frontend's), and the manifest has no layout to read its rows back \
               with (its examples differ in dtypes or shapes)"
            .into(),
    }
}

/// Every program record's attested and replay programs against the client's.
fn programs(t: &Transcript, given: &[Hash32]) -> Expectation {
    if given.is_empty() {
        return Expectation {
            name: "programs",
            status: Status::NotGiven,
            expected: None,
            recorded: None,
            note: "not checked: the attested and replay programs are the transcript's, so a \
                   cheat written into them as into production (learning from half of each batch) \
                   reproduces; give the client's with --program"
                .into(),
        };
    }
    let mut records: Vec<_> = t.programs.iter().collect();
    records.sort_by_key(|(seq, _)| **seq);
    let foreign = records.into_iter().find_map(|(seq, p)| {
        [
            ("attested", Some(&p.attested)),
            ("replay", p.replay.as_ref()),
        ]
        .into_iter()
        .filter_map(|(role, a)| a.map(|a| (role, a)))
        .find(|(_, a)| !given.contains(&a.blake3))
        .map(|(role, a)| (*seq, p.name.clone(), role, a.blake3))
    });
    let (status, note, recorded) = match foreign {
        None => (
            Status::Matched,
            "every program record's attested and replay programs are the client's".to_owned(),
            None,
        ),
        Some((seq, name, role, hash)) => (
            Status::Differs,
            format!(
                "program record {seq} ({name}): its {role} program is not one the client's code \
                 produces"
            ),
            Some(hash.to_string()),
        ),
    };
    Expectation {
        name: "programs",
        status,
        expected: Some(
            given
                .iter()
                .map(Hash32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ),
        recorded,
        note,
    }
}

/// Every program record's products against the client's devices'.
fn products(t: &Transcript, given: Option<Products>) -> Expectation {
    let mut records: Vec<_> = t.programs.iter().collect();
    records.sort_by_key(|(seq, _)| **seq);
    let tf32 = records
        .iter()
        .any(|(_, p)| Products::of_record(p.matmul.as_deref()) == Some(Products::Tf32));
    let recorded = if tf32 {
        Products::Tf32
    } else {
        Products::Exact
    };
    let Some(expected) = given else {
        let note = if tf32 {
            "not checked: the program records say production's f32 products were TensorFloat-32, \
             which widens the ensemble's spreads (the prover's word); give the client's devices' \
             with --products"
        } else {
            "not checked: the program records say production's f32 products were exact; give the \
             client's devices' with --products"
        };
        return Expectation {
            name: "products",
            status: Status::NotGiven,
            expected: None,
            recorded: Some(recorded.name().to_owned()),
            note: note.into(),
        };
    };
    let other = records
        .into_iter()
        .find(|(_, p)| Products::of_record(p.matmul.as_deref()) != Some(expected));
    let (status, note) = match other {
        None => (
            Status::Matched,
            format!(
                "every program record's f32 products are {}, as the client's devices compute them",
                expected.name()
            ),
        ),
        Some((seq, p)) => (
            Status::Differs,
            format!(
                "program record {seq} ({}) says its f32 products were {}, which the client's \
                 devices do not compute",
                p.name,
                p.matmul.as_deref().unwrap_or("exact")
            ),
        ),
    };
    Expectation {
        name: "products",
        status,
        expected: Some(expected.name().to_owned()),
        recorded: Some(recorded.name().to_owned()),
        note,
    }
}

/// Every program's tolerance against the auditor's ceiling.
fn tolerance(t: &Transcript, ceiling: Option<Tolerance>) -> Expectation {
    let (max, whose) = match ceiling {
        Some(c) => (c, "the auditor's"),
        None => (DEFAULT_CEILING, "the default"),
    };
    let render = |x: &Tolerance| {
        format!(
            "abs {}, rel {}, spread {}, replays {}",
            x.abs, x.rel, x.spread, x.replays
        )
    };
    let mut programs: Vec<_> = t.programs.iter().collect();
    programs.sort_by_key(|(seq, _)| **seq);
    let lax = programs.into_iter().find(|(_, p)| {
        let x = &p.tolerance;
        !(x.abs <= max.abs
            && x.rel <= max.rel
            && x.spread <= max.spread
            && x.replays <= max.replays)
    });
    let (status, note, recorded) = match lax {
        None => (
            Status::Matched,
            format!("every program's tolerance is within {whose} ceiling"),
            None,
        ),
        Some((seq, p)) => (
            Status::Differs,
            format!(
                "program record {seq} ({}) records a tolerance above {whose} ceiling: a laxer \
                 bound lets a changed update pass (give --max-tolerance to accept it)",
                p.name
            ),
            Some(render(&p.tolerance)),
        ),
    };
    Expectation {
        name: "tolerance",
        status,
        expected: Some(render(&max)),
        recorded,
        note,
    }
}
