//! Record types: the payload of every record and the body of each kind.
//!
//! A payload is a CBOR map `{"v", "kind", "seq", "prev", "body"}`; the body's
//! shape depends on `kind`. Bodies reject unknown fields, so a record written
//! by a newer protocol version is never half-understood. The root record's
//! fields are declared once, for the record ([`RootBody`]) and the writer's
//! input ([`RootInput`]) alike.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::hash::{Bytes, Hash32};
use crate::tolerance::{Tolerance, TolerancePolicy};

/// The protocol version this crate writes and reads.
pub const PROTOCOL_VERSION: u64 = 3;

/// The kind of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Session parameters; always the first record.
    Root,
    /// Hashes of the attested and production programs.
    Program,
    /// The production program of an earlier program record that left it
    /// out (compiled while training went on).
    Production,
    /// One transaction (training step).
    Step,
    /// A full host snapshot of a pre-state.
    Snapshot,
    /// The outcome of a sampled check.
    Check,
    /// End of the session; reveals the challenge key. Always the last record.
    Close,
}

impl Kind {
    /// The kind's name as it appears in the payload.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Root => "root",
            Kind::Program => "program",
            Kind::Production => "production",
            Kind::Step => "step",
            Kind::Snapshot => "snapshot",
            Kind::Check => "check",
            Kind::Close => "close",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The payload of a record, generic over its body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Payload<B> {
    /// Protocol version ([`PROTOCOL_VERSION`]).
    pub v: u64,
    /// Record kind; selects the body's shape.
    pub kind: Kind,
    /// Sequence number: 0 for the root, then consecutive.
    pub seq: u64,
    /// Plain blake3 of the previous record's exact bytes; zero for the root.
    pub prev: Hash32,
    /// Kind-specific body.
    pub body: B,
}

/// The body of a record, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// See [`RootBody`].
    Root(RootBody),
    /// See [`ProgramBody`].
    Program(ProgramBody),
    /// See [`ProductionBody`].
    Production(ProductionBody),
    /// See [`StepBody`].
    Step(StepBody),
    /// See [`SnapshotBody`].
    Snapshot(SnapshotBody),
    /// See [`CheckBody`].
    Check(CheckBody),
    /// See [`CloseBody`].
    Close(CloseBody),
}

impl Body {
    /// The kind this body belongs to.
    pub fn kind(&self) -> Kind {
        match self {
            Body::Root(_) => Kind::Root,
            Body::Program(_) => Kind::Program,
            Body::Production(_) => Kind::Production,
            Body::Step(_) => Kind::Step,
            Body::Snapshot(_) => Kind::Snapshot,
            Body::Check(_) => Kind::Check,
            Body::Close(_) => Kind::Close,
        }
    }
}

/// A body serializes as the map of its kind (the kind itself is the
/// payload's `kind` field).
impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Body::Root(b) => b.serialize(s),
            Body::Program(b) => b.serialize(s),
            Body::Production(b) => b.serialize(s),
            Body::Step(b) => b.serialize(s),
            Body::Snapshot(b) => b.serialize(s),
            Body::Check(b) => b.serialize(s),
            Body::Close(b) => b.serialize(s),
        }
    }
}

/// How steps are sampled for checks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Sampling {
    /// Independent state and update checks with these probabilities.
    Probability {
        /// Probability of a state check at each step, in `[0, 1]`.
        state_check_probability: f64,
        /// Probability of an update check at each step, in `[0, 1]`.
        update_check_probability: f64,
    },
    /// Debug policy: both checks at every step `t` with `(t + 1) % n == 0`.
    Every {
        /// The period, at least 1.
        n: u64,
    },
}

/// What `--zkdv-precision-report` found in an attested program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precision {
    /// The float element type with the fewest significand bits (`bf16`,
    /// `f16`, `f32`, `f64`, ...), `None` when the program has no float.
    pub narrowest: Option<String>,
    /// Op results of a float type narrower than `f32`.
    pub narrow_results: u64,
}

/// One leaf of a committed PyTree: its path, dtype tag and shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leaf {
    /// Tree path, for example `params/Dense_0/kernel`.
    pub path: String,
    /// Canonical dtype tag (`f32`, `bf16`, `u32`, ...).
    pub dtype: String,
    /// Dimensions, outermost first.
    pub shape: Vec<u64>,
}

impl Leaf {
    /// Number of elements, or `None` on overflow.
    pub fn elements(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }
}

/// Declares [`RootBody`], the root record's body, and [`RootInput`], the
/// part of it a session chooses, from one list of the chosen fields: each
/// is written once, with its documentation, and
/// [`RootInput::into_body`] moves every one of them. The two structs
/// differ only where they must: the writer draws the probe seed when an
/// input has none and adds the challenge-key commitment and the session
/// key; a field marked `#[input(default)]` may be left out of an input.
/// `rank` is the record's last field, after those the writer adds.
macro_rules! root_record {
    ($(
        $(#[doc = $doc:literal])*
        $(#[input($($input:tt)*)])?
        pub $name:ident: $ty:ty,
    )*) => {
        /// Body of the root record.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct RootBody {
            $($(#[doc = $doc])* pub $name: $ty,)*
            /// Seed of the session's probe maps.
            pub probe_seed: Hash32,
            /// `derive_key(KEY_COMMITMENT_CONTEXT, challenge_key)`.
            pub challenge_key_commitment: Hash32,
            /// Ed25519 public key that signs every record, if the session signs.
            pub session_key: Option<Bytes<32>>,
            /// The process's place in a data-parallel group, when the session is one
            /// rank of several (each rank writes its own transcript). Absent for a
            /// single process, and then not encoded at all.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub rank: Option<Rank>,
        }

        /// The caller's part of the root record ([`RootBody`]); the writer
        /// adds the challenge-key commitment, the session key and (unless
        /// given) a fresh probe seed.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct RootInput {
            $($(#[doc = $doc])* $(#[serde($($input)*)])? pub $name: $ty,)*
            /// Probe seed; drawn from the operating system when absent.
            #[serde(default)]
            pub probe_seed: Option<Hash32>,
            /// The rank of a data-parallel group this session is, if any.
            #[serde(default)]
            pub rank: Option<Rank>,
        }

        impl RootInput {
            /// The root record of this input, with `probe_seed` (this
            /// input's, or one the writer drew) and the fields the writer
            /// adds.
            pub(crate) fn into_body(
                self,
                probe_seed: Hash32,
                challenge_key_commitment: Hash32,
                session_key: Option<Bytes<32>>,
            ) -> RootBody {
                RootBody {
                    $($name: self.$name,)*
                    probe_seed,
                    challenge_key_commitment,
                    session_key,
                    rank: self.rank,
                }
            }
        }
    };
}

root_record! {
    /// Prover name, `whitebox-jax` or `whitebox-torch`.
    pub prover: String,
    /// The configuration's name.
    pub config_name: String,
    /// Versions of the software that produced the transcript.
    #[input(default)]
    pub versions: BTreeMap<String, String>,
    /// Sampling policy.
    pub sampling: Sampling,
    /// Float tolerance of checks: the base of every program's.
    pub tolerance: Tolerance,
    /// Whether programs use [`RootBody::tolerance`] as it is or derive
    /// theirs from their precision.
    pub tolerance_policy: TolerancePolicy,
    /// Rolling-hash window over committed batch rows, in words.
    pub rolling_window: u64,
    /// Fraction of each leaf's last dimension kept by its probe map.
    pub probe_ratio: f64,
    /// A full snapshot is taken every this many steps.
    pub snapshot_interval: u64,
    /// Parameter layout in tree order.
    pub params: Vec<Leaf>,
    /// Optimizer-state layout in tree order (may be empty).
    #[input(default)]
    pub opt_state: Vec<Leaf>,
    /// Layout of the packed batch.
    pub batch: Vec<Leaf>,
}

/// One rank of a data-parallel group (DDP): which one, of how many, and the
/// collective backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rank {
    /// This process's rank, in `[0, world_size)`.
    pub rank: u64,
    /// Number of ranks in the group.
    pub world_size: u64,
    /// The collective backend (`gloo`, `nccl`).
    pub backend: String,
}

impl RootBody {
    /// Total number of parameter elements: the update index space.
    pub fn parameter_count(&self) -> Option<u64> {
        count(&self.params)
    }

    /// Total number of optimizer-state elements: the state index space.
    pub fn optimizer_state_count(&self) -> Option<u64> {
        count(&self.opt_state)
    }
}

fn count(leaves: &[Leaf]) -> Option<u64> {
    leaves
        .iter()
        .try_fold(0u64, |acc, leaf| acc.checked_add(leaf.elements()?))
}

/// A content-addressed file stored beside the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Artifact {
    /// Path relative to the transcript directory (`artifacts/<hex>.<ext>`).
    pub name: String,
    /// Plain blake3 of the file's bytes.
    pub blake3: Hash32,
    /// Size in bytes.
    pub size: u64,
}

/// Body of a program record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramBody {
    /// Name of the compiled training function.
    pub name: String,
    /// Artifact format: `stablehlo` (JAX) or `aoti` (Torch).
    pub format: String,
    /// The hermetic attested program that checks run.
    pub attested: Artifact,
    /// The production program the steps ran. Absent (not encoded) when a
    /// later [`ProductionBody`] record commits it: a production program
    /// compiled while training goes on (PyTorch's sealed AOT Inductor
    /// package) does not hold back the records of the steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub production: Option<Artifact>,
    /// The attested program's precision.
    pub precision: Precision,
    /// The tolerance of this program's checks
    /// ([`Tolerance::for_program`] of the root's).
    pub tolerance: Tolerance,
    /// The replay program an auditor runs over retained evidence
    /// (generic-form StableHLO `main(params, opt_state, batch leaves) ->
    /// (post_params, post_opt_state, deltas[, local gradients])`), when the
    /// session retains evidence (absent, and not encoded, otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Artifact>,
    /// The packed batch layout of the steps that run this program, when it
    /// is not the root's [`RootBody::batch`]: a session whose batch changes
    /// shape (a partial last batch, another sequence length) commits one
    /// program per layout. Absent for the root's layout, and then not
    /// encoded at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<Vec<Leaf>>,
    /// How production multiplied `f32` operands where a product's
    /// `precision_config` is not `HIGHEST`, when not exactly: `"tf32"`
    /// (TensorFloat-32, an NVIDIA GPU's), which the checks' perturbation
    /// ensembles modelled and an auditor's models too. The prover's word;
    /// absent, and not encoded, for exact products.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matmul: Option<String>,
}

/// Body of a production record: the production program of an earlier
/// program record written without one ([`ProgramBody::production`]). Every
/// such program has exactly one, before an `ok` close record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProductionBody {
    /// Sequence number of the program record.
    pub program: u64,
    /// The production program's exact bytes.
    pub production: Artifact,
}

/// The only value of [`ProgramBody::matmul`].
pub const MATMUL_TF32: &str = "tf32";

impl ProgramBody {
    /// The packed batch layout of this program's steps: its own, else the
    /// root's.
    pub fn batch_layout<'a>(&'a self, root: &'a RootBody) -> &'a [Leaf] {
        self.batch.as_deref().unwrap_or(&root.batch)
    }
}

/// Commitment to one packed `uint32` batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchCommitment {
    /// Number of rows.
    pub rows: u64,
    /// Words per row.
    pub width: u64,
    /// Rolling-hash window (equals the root's `rolling_window`).
    pub window: u64,
    /// Merkle root over the row leaves.
    pub root: Hash32,
}

/// Overlap policy of one transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Overlap {
    /// Training and a sampled check may overlap.
    Always,
    /// Commitments pipeline; a sampled check is a fence (the default).
    Unchecked,
    /// Fully sequential.
    Never,
}

/// Body of a step record: one transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepBody {
    /// Step index, 0-based and consecutive.
    pub step: u64,
    /// Sequence number of the program record this step ran.
    pub program: u64,
    /// The committed batch.
    pub batch: BatchCommitment,
    /// Commitment to the pre-state sketches.
    pub pre_state: Hash32,
    /// Commitment to the update sketches.
    pub update: Hash32,
    /// Commitment to the post-state sketches.
    pub post_state: Hash32,
    /// Overlap policy of this transaction.
    pub overlap: Overlap,
    /// The retained evidence of this step, when the session retains it
    /// (absent, and not encoded, otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<StepEvidence>,
    /// The optimizer's hyperparameters this step ran with, where the
    /// program takes them as inputs (a schedule's learning rate), as the
    /// optimizer read them when it stepped: each is also one of the
    /// program's batch arguments, which an audit's replay binds to this
    /// value. Absent where every hyperparameter is a constant of the program
    /// (or comes from the committed state, as JAX's schedules do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hyperparameters: Option<Vec<Hyperparameter>>,
    /// How many of the step's update sketch values are NaN or infinite
    /// (the loss or the parameters diverged), at least 1; absent when
    /// every value is finite. The session's word, for people reading the
    /// transcript: a diverged run is data, not tampering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonfinite: Option<u64>,
}

/// One hyperparameter of a step ([`StepBody::hyperparameters`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hyperparameter {
    /// Its name: the optimizer's parameter group and option
    /// (`0/lr`, `0/betas[0]`).
    pub name: String,
    /// Its value, as the optimizer used it.
    pub value: f64,
    /// The index, among the step program's batch arguments, of the 0-d
    /// `f64` argument that carries it.
    pub leaf: u64,
}

/// A step's retained evidence ([`crate::evidence`]): artifacts an auditor
/// re-executes the step from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepEvidence {
    /// The packed batch (one `u32` leaf `batch`), which re-hashes to
    /// [`StepBody::batch`].
    pub batch: Artifact,
    /// The update sketches, which re-hash to [`StepBody::update`].
    pub update: Artifact,
}

/// Body of a snapshot record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotBody {
    /// The step whose pre-state was copied. A snapshot of step `n` written
    /// after the last step `n - 1` is the *final* snapshot: the state the
    /// session delivered (it may be off the snapshot interval, and no step
    /// record may follow it).
    pub step: u64,
    /// Full tree commitment of the host pre-state: `commit_tree` over
    /// `params/<path>` and `opt_state/<path>`, each a tensor commitment.
    pub state: Hash32,
    /// The model alone: `commit_tree` over the `params/<path>` entries of
    /// [`SnapshotBody::state`], which a client computes from the parameters
    /// it holds (`zkdv audit --initial/--final`). Absent in transcripts
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Hash32>,
    /// The stored snapshot, when it was retained.
    pub artifact: Option<Artifact>,
}

/// The kind of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// Replay from a snapshot; compare state sketches.
    State,
    /// Run the attested program; compare challenged coordinates.
    Update,
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CheckKind::State => "state",
            CheckKind::Update => "update",
        })
    }
}

/// Verdict of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every compared value was within tolerance.
    Pass,
    /// At least one value was not.
    Fail,
}

/// Body of a check record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckBody {
    /// The checked step.
    pub step: u64,
    /// State or update check.
    pub kind: CheckKind,
    /// Challenged indices: `[parameter_index]` or `[parameter_index,
    /// optimizer_state_index]` for an update check, empty for a state check.
    pub indices: Vec<u64>,
    /// Values production committed.
    pub committed: Vec<f64>,
    /// Values the replay recomputed.
    pub recomputed: Vec<f64>,
    /// Tolerance used (equals the step's program's).
    pub tolerance: Tolerance,
    /// The measured spread of each compared value: empty when none was
    /// measured (no ensemble, a state check, or a check that passed
    /// without it), else one per value.
    pub spread: Vec<f64>,
    /// Outcome.
    pub verdict: Verdict,
    /// Number of transitions replayed from the snapshot.
    pub replay_length: u64,
    /// A state check's outliers: compared values outside their bound that
    /// the comparison admitted ([`crate::noise::compare_state`]); the
    /// recorded pair is then the worst of the others. Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub outliers: u64,
    /// A state check refused by the bias test
    /// ([`crate::noise::leaf_bias`]): the leaf whose differences keep one
    /// direction. The recorded pair is then the worst of the leaf-by-leaf
    /// comparison, within its bound. Absent when the test refused no leaf.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bias: Option<crate::noise::LeafBias>,
    /// A state check's row scale ([`crate::noise::row_scales`]) when it
    /// lowered the recorded pair's absolute term
    /// ([`crate::noise::compare_state`]): the pair's bound is that of
    /// `tolerance.scaled_to(scale)` ([`Tolerance::scaled_to`]). Absent when
    /// the pair was compared under `tolerance` as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Final status of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every check passed.
    Ok,
    /// A check failed; see [`CloseBody::failure`].
    Poisoned,
}

/// What poisoned a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// The step whose check failed.
    pub step: u64,
    /// The failed check's kind.
    pub kind: CheckKind,
    /// The first coordinate out of tolerance, when known.
    pub coordinate: Option<u64>,
    /// Human-readable description.
    pub message: String,
}

/// Body of the close record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseBody {
    /// Number of step records.
    pub steps: u64,
    /// `post_state` of the last step (zero when there were no steps).
    pub final_state: Hash32,
    /// The revealed challenge key.
    pub challenge_key: Hash32,
    /// Session status.
    pub status: Status,
    /// The failure that poisoned the session, if any.
    pub failure: Option<Failure>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input as the Python session gives it: only the required fields.
    fn input() -> serde_json::Value {
        serde_json::json!({
            "prover": "whitebox-jax",
            "config_name": "c",
            "sampling": {"every": {"n": 1}},
            "tolerance": {"abs": 0.0, "rel": 0.0, "spread": 0.0, "replays": 0},
            "tolerance_policy": "fixed",
            "rolling_window": 1,
            "probe_ratio": 1.0,
            "snapshot_interval": 1,
            "params": [],
            "batch": [],
        })
    }

    #[test]
    fn an_input_may_leave_out_what_the_record_must_hold() {
        let root: RootInput = serde_json::from_value(input()).unwrap();
        assert!(root.versions.is_empty() && root.opt_state.is_empty());
        assert!(root.probe_seed.is_none() && root.rank.is_none());
        let body = root.into_body(Hash32([1; 32]), Hash32([2; 32]), None);
        assert_eq!(body.probe_seed, Hash32([1; 32]));
        // The record itself holds every field but `rank`.
        let mut record = serde_json::to_value(&body).unwrap();
        assert!(record.get("rank").is_none());
        serde_json::from_value::<RootBody>(record.clone()).unwrap();
        record.as_object_mut().unwrap().remove("versions");
        assert!(serde_json::from_value::<RootBody>(record).is_err());
        // Neither takes a field it does not declare.
        let mut unknown = input();
        unknown["challenge_key_commitment"] = serde_json::json!(vec![0u8; 32]);
        assert!(serde_json::from_value::<RootInput>(unknown).is_err());
    }
}
