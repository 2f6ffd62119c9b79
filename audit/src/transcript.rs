//! The transcript an audit reads: its verified records, by kind, the
//! artifacts they name, and the client's checkpoints bound to its snapshots.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use zkdv_hashing::DType;
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
    /// The checkpoint files given for snapshots the session did not retain
    /// (`--checkpoint`), by step: each re-hashed to the snapshot's state.
    pub(crate) checkpoints: BTreeMap<u64, PathBuf>,
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
            checkpoints: BTreeMap::new(),
        })
    }

    /// Whether the full state before `step` is at hand: its snapshot record
    /// names a retained artifact, or a checkpoint file was bound to it.
    pub(crate) fn retained(&self, step: u64) -> bool {
        self.snapshots
            .get(&step)
            .is_some_and(|s| s.artifact.is_some())
            || self.checkpoints.contains_key(&step)
    }

    /// The newest step `<= step` whose full state is at hand.
    pub(crate) fn segment_start(&self, step: u64) -> Option<u64> {
        self.snapshots
            .range(..=step)
            .rev()
            .map(|(&s, _)| s)
            .find(|&s| self.retained(s))
    }

    /// The last step a segment from `start` replays, given its last audited
    /// step `last`: the step before the next state at hand, so that the
    /// replayed state is compared with it in full, or `last` when no later
    /// state is at hand.
    pub(crate) fn segment_end(&self, start: u64, last: u64) -> u64 {
        let next = self
            .snapshots
            .range(start + 1..)
            .map(|(&s, _)| s)
            .find(|&s| self.retained(s) && s <= self.steps.len() as u64);
        next.map_or(last, |n| (n - 1).max(last))
    }

    /// The root's state layout, as a checkpoint names its tensors.
    pub(crate) fn state_layout(&self) -> Result<Vec<(String, DType, Vec<u64>)>, AuditError> {
        let root = &self.root;
        let named = |prefix: &str, leaves: &[zkdv_protocol::Leaf]| {
            leaves
                .iter()
                .map(|l| {
                    let dtype = DType::from_tag(&l.dtype)
                        .map_err(|e| AuditError::Unusable(format!("leaf {:?}: {e}", l.path)))?;
                    Ok((format!("{prefix}/{}", l.path), dtype, l.shape.clone()))
                })
                .collect::<Result<Vec<_>, AuditError>>()
        };
        Ok([
            named("params", &root.params)?,
            named("opt_state", &root.opt_state)?,
        ]
        .concat())
    }

    /// The state a checkpoint file holds, in the root's order: an evidence
    /// bundle (`ev.zst`, what `zkdv.torch`/`zkdv.jax` `save_state` write
    /// with that extension) or a safetensors file.
    pub(crate) fn read_checkpoint(&self, path: &Path) -> Result<Bundle, AuditError> {
        let unusable = |why: String| AuditError::Unusable(format!("{}: {why}", path.display()));
        let bytes = map_file(path).map_err(|e| unusable(format!("cannot be read: {e}")))?;
        let bytes: &[u8] = &bytes;
        let layout = self.state_layout()?;
        if bytes.starts_with(&ZSTD_MAGIC) {
            let bundle = Bundle::decode(bytes).map_err(|e| unusable(e.to_string()))?;
            let names: Vec<_> = bundle.leaves.iter().map(|l| l.path.as_str()).collect();
            let expected: Vec<_> = layout.iter().map(|(p, _, _)| p.as_str()).collect();
            if names != expected {
                return Err(unusable(
                    "its tensors are not the transcript's state leaves, in order".into(),
                ));
            }
            return Ok(bundle);
        }
        zkdv_protocol::safetensors::read(bytes, &layout).map_err(|e| unusable(e.to_string()))
    }

    /// Bind each checkpoint file to the snapshots whose state commitment its
    /// tensors re-hash to.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, or that matches no snapshot record.
    pub(crate) fn bind_checkpoints(&mut self, files: &[PathBuf]) -> Result<(), AuditError> {
        for file in files {
            let bundle = self.read_checkpoint(file)?;
            let digest = bundle
                .tree_commitment()
                .map_err(|e| AuditError::Unusable(format!("{}: {e}", file.display())))?;
            let steps: Vec<u64> = self
                .snapshots
                .values()
                .filter(|s| s.state.as_bytes() == digest.as_bytes())
                .map(|s| s.step)
                .collect();
            if steps.is_empty() {
                return Err(AuditError::Unusable(format!(
                    "{}: its state is the state of no snapshot record of the transcript (a \
                     checkpoint binds to the state before a step that is a multiple of the \
                     snapshot interval, {}, or after the last step)",
                    file.display(),
                    self.root.snapshot_interval
                )));
            }
            for step in steps {
                self.checkpoints.insert(step, file.clone());
            }
        }
        Ok(())
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

/// The file at `path`, mapped into memory (a checkpoint of a large model is
/// read where it lies, not copied first).
pub(crate) fn map_file(path: &Path) -> std::io::Result<memmap2::Mmap> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the map is only read, and only while this audit runs. A file
    // another process truncates meanwhile may fault (SIGBUS) and one it
    // rewrites may give other bytes, which then fail to re-hash to their
    // commitment: the auditor's own files, which it does not change while
    // it audits them.
    unsafe { memmap2::Mmap::map(&file) }
}

/// The first bytes of a zstd frame (an evidence bundle).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Evidence `artifact` refused for `why`.
pub(crate) fn evidence_error(artifact: &Artifact, why: String) -> AuditError {
    AuditError::Evidence {
        artifact: artifact.name.clone(),
        why,
    }
}
