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
//! The hash is the model commitment `zkdv.torch.model_hash(model)` and
//! `zkdv.jax.model_hash(params)` compute (a tree commitment over
//! `params/<path>`). The other expectations an audit should hold a prover
//! to (the programs from the client's code, the data and their order, a
//! tolerance ceiling of the auditor's) are listed in every report as not
//! checked.
//!
//! What the two bind: the first and last states the transcript commits to
//! are the client's, and the first and last transitions reproduce from and
//! into them. The steps between are bound as the rest of the audit binds
//! them: each audited step replays from its snapshot to the next.

use serde::Serialize;
use zkdv_protocol::{Hash32, SnapshotBody};

use crate::transcript::Transcript;

/// The client's expectations given to an audit.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    /// The model commitment of the parameters the run started from.
    pub initial: Option<Hash32>,
    /// The model commitment of the parameters the client was delivered.
    pub final_model: Option<Hash32>,
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
    /// No way to give it yet: the audit cannot check it.
    NotSupported,
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
    name: &'static str,
    given: Option<Hash32>,
    snapshot: Option<&SnapshotBody>,
    which: &str,
) -> Expectation {
    let recorded = snapshot.and_then(|s| s.params);
    let (status, note) = match (given, recorded) {
        (None, _) => (
            Status::NotGiven,
            format!(
                "not checked: give the client's {which} model with --{}",
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

fn flag(name: &str) -> &'static str {
    if name.starts_with("initial") {
        "initial"
    } else {
        "final"
    }
}

fn unsupported(name: &'static str, note: &str) -> Expectation {
    Expectation {
        name,
        status: Status::NotSupported,
        expected: None,
        recorded: None,
        note: note.to_owned(),
    }
}

/// Every expectation the report states, checked against `t`.
pub(crate) fn check(t: &Transcript, given: &Expectations) -> Vec<Expectation> {
    vec![
        model(
            "initial model",
            given.initial,
            t.snapshots.get(&0),
            "initial",
        ),
        model("final model", given.final_model, final_snapshot(t), "final"),
        unsupported(
            "programs",
            "not checked: the attested and replay programs are the transcript's, not derived \
             from the client's code",
        ),
        unsupported(
            "data",
            "not checked: the committed batches are bound to the transcript, not to a dataset \
             commitment of the client's",
        ),
        unsupported(
            "tolerance",
            "not checked: the tolerance is the transcript's, under no ceiling of the auditor's",
        ),
    ]
}
