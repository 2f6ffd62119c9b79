//! The transcript an audit reads: its verified records, by kind, and the
//! artifacts they name.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use zkdv_protocol::evidence::Bundle;
use zkdv_protocol::{
    read_verified, Artifact, Body, Hash32, ProgramBody, RootBody, SnapshotBody, StepBody,
};

use crate::AuditError;

/// The records an audit reads, by kind.
pub(crate) struct Transcript {
    /// The transcript directory.
    pub(crate) dir: PathBuf,
    /// The root record.
    pub(crate) root: RootBody,
    /// Program records by sequence number.
    pub(crate) programs: HashMap<u64, ProgramBody>,
    /// Step records in order, each with the hash of its record.
    pub(crate) steps: Vec<(StepBody, Hash32)>,
    /// Snapshot records by step.
    pub(crate) snapshots: BTreeMap<u64, SnapshotBody>,
    /// Whether the transcript was closed (else it is a killed run's prefix).
    pub(crate) closed: bool,
}

impl Transcript {
    /// Whether the replay programs take the packed batch words rather than
    /// typed batch leaves: the JAX frontend's (`whitebox-jax`) do.
    pub(crate) fn packed_batches(&self) -> bool {
        self.root.prover == "whitebox-jax"
    }

    /// Read and verify the transcript directory `dir`.
    pub(crate) fn read(dir: &Path) -> Result<Transcript, AuditError> {
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
                Body::Production(_) | Body::Check(_) | Body::Close(_) => {}
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

    /// The evidence bundle `artifact` names, whose bytes must have the
    /// recorded blake3.
    pub(crate) fn bundle(&self, artifact: &Artifact) -> Result<Bundle, AuditError> {
        let evidence = |why: String| evidence_error(artifact, why);
        let bytes = std::fs::read(self.dir.join(&artifact.name))
            .map_err(|e| evidence(format!("cannot be read: {e}")))?;
        if Hash32::of(&bytes) != artifact.blake3 {
            return Err(evidence("its bytes do not have the recorded blake3".into()));
        }
        Bundle::decode(&bytes).map_err(|e| evidence(e.to_string()))
    }

    /// The text of `artifact` (a program).
    pub(crate) fn text(&self, artifact: &Artifact) -> Result<String, AuditError> {
        let bytes = std::fs::read(self.dir.join(&artifact.name))
            .map_err(|e| evidence_error(artifact, format!("cannot be read: {e}")))?;
        String::from_utf8(bytes).map_err(|_| evidence_error(artifact, "is not UTF-8 text".into()))
    }

    /// The path of state leaf `index` (parameters, then optimizer state).
    pub(crate) fn state_path(&self, index: usize) -> String {
        let root = &self.root;
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
}

/// Evidence `artifact` refused for `why`.
pub(crate) fn evidence_error(artifact: &Artifact, why: String) -> AuditError {
    AuditError::Evidence {
        artifact: artifact.name.clone(),
        why,
    }
}
