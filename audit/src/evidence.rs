//! Retained evidence, bound to the records that commit to it: a snapshot's
//! tensors re-hash to the snapshot record's state commitment, a step's
//! batch to its batch commitment, its update sketches to its update
//! commitment. Nothing is replayed from evidence that does not.

use zkdv_hashing::{commit_batch, DType, ProbeMap};
use zkdv_protocol::evidence::Bundle;
use zkdv_protocol::packing::BatchLayout;
use zkdv_protocol::{Hash32, Leaf, RootBody, SnapshotBody, StepBody, StepEvidence};
use zkdv_runtime::{Program, Tensor};

use crate::replay::StepError;
use crate::transcript::{evidence_error, Transcript};
use crate::values::{tensor, values};
use crate::AuditError;

/// How evidence that does not hold is refused: the error naming it.
type Refusal<'a> = Box<dyn Fn(String) -> AuditError + 'a>;

/// The snapshot's retained artifact, or the checkpoint file bound to it,
/// checked against the snapshot record's commitments; and how to refuse it.
fn verified_bundle<'a>(
    t: &'a Transcript,
    snapshot: &'a SnapshotBody,
) -> Result<(Bundle, Refusal<'a>), AuditError> {
    let (bundle, refused): (Bundle, Refusal<'a>) =
        match (&snapshot.artifact, t.checkpoints.get(&snapshot.step)) {
            (Some(artifact), _) => (
                t.bundle(artifact)?,
                Box::new(move |why| evidence_error(artifact, why)),
            ),
            (None, Some(file)) => (
                t.read_checkpoint(file)?,
                Box::new(move |why| AuditError::Evidence {
                    artifact: file.display().to_string(),
                    why,
                }),
            ),
            (None, None) => {
                return Err(AuditError::Unusable(format!(
                    "snapshot {} was not retained, and no checkpoint of it was given",
                    snapshot.step
                )))
            }
        };
    // Tensors are named as the root lays the state out, in its order: a
    // commitment read from part of the state by name (the model's, an
    // averaged model's) is then of the leaves the root says it is.
    let layout = t.state_layout()?;
    let misnamed = bundle
        .leaves
        .iter()
        .map(|l| l.path.as_str())
        .ne(layout.iter().map(|(p, _, _)| p.as_str()));
    if misnamed {
        return Err(refused(
            "its tensors are not named as the root's state leaves, in order".into(),
        ));
    }
    let digest = bundle
        .tree_commitment()
        .map_err(|e| refused(e.to_string()))?;
    if digest.as_bytes() != snapshot.state.as_bytes() {
        return Err(refused(format!(
            "does not re-hash to snapshot {}'s state commitment",
            snapshot.step
        )));
    }
    if let Some(params) = &snapshot.params {
        let model = bundle
            .commitment_of(|p| p.starts_with("params/"))
            .map_err(|e| refused(e.to_string()))?;
        if model.as_bytes() != params.as_bytes() {
            return Err(refused(format!(
                "its parameters do not re-hash to snapshot {}'s model commitment",
                snapshot.step
            )));
        }
    }
    Ok((bundle, refused))
}

/// The snapshot's tensors in root order (parameters, then optimizer state),
/// from its retained artifact or the checkpoint file bound to it, checked
/// against the snapshot record's commitment and the root's layout.
pub(crate) fn load_state(
    t: &Transcript,
    snapshot: &SnapshotBody,
) -> Result<Vec<Tensor>, AuditError> {
    let (bundle, refused) = verified_bundle(t, snapshot)?;
    let layout: Vec<_> = t.root.params.iter().chain(&t.root.opt_state).collect();
    if layout.len() != bundle.leaves.len() {
        return Err(refused(format!(
            "holds {} tensors, the root's layout {}",
            bundle.leaves.len(),
            layout.len()
        )));
    }
    bundle
        .leaves
        .iter()
        .zip(layout)
        .map(|(leaf, expected)| {
            if leaf.shape != expected.shape || leaf.dtype.tag() != expected.dtype {
                return Err(refused(format!(
                    "tensor {:?} is {} {:?}, the root's {} is {} {:?}",
                    leaf.path,
                    leaf.dtype.tag(),
                    leaf.shape,
                    expected.path,
                    expected.dtype,
                    expected.shape
                )));
            }
            tensor(leaf).map_err(&refused)
        })
        .collect()
}

/// Where a session's averaged model (an EMA of the weights, the PyTorch
/// frontend's `prepare(..., averaged=)`) keeps its parameters among the
/// optimizer-state leaves: `averaged/params/<path>`, `<path>` the averaged
/// model's own.
pub(crate) const AVERAGED_PARAMS: &str = "averaged/params/";

/// The averaged model's parameters in the root's layout, under the
/// averaged model's own paths (what its model commitment is over); empty
/// when the session prepared none.
pub(crate) fn averaged_layout(t: &Transcript) -> Vec<Leaf> {
    t.root
        .opt_state
        .iter()
        .filter_map(|l| {
            l.path.strip_prefix(AVERAGED_PARAMS).map(|path| Leaf {
                path: path.to_owned(),
                dtype: l.dtype.clone(),
                shape: l.shape.clone(),
            })
        })
        .collect()
}

/// The model commitment of the averaged model in `snapshot`'s tensors:
/// `commit_tree` over `params/<path>`, as of a model whose parameters are
/// the averaged ones (`zkdv.torch.model_hash(ema)`), from the snapshot's
/// retained tensors, which must re-hash to its state commitment.
pub(crate) fn averaged_commitment(
    t: &Transcript,
    snapshot: &SnapshotBody,
) -> Result<Hash32, AuditError> {
    let (bundle, refused) = verified_bundle(t, snapshot)?;
    let prefix = format!("opt_state/{AVERAGED_PARAMS}");
    let digest = bundle
        .commitment_as(|p| p.strip_prefix(&prefix).map(|rest| format!("params/{rest}")))
        .map_err(|e| refused(e.to_string()))?;
    Ok(Hash32::from(*digest.as_bytes()))
}

/// What replaying one step needs, checked against its records once.
pub(crate) struct StepInputs {
    /// The replay program's batch arguments.
    pub(crate) batch: Vec<Tensor>,
    /// The retained update sketches.
    pub(crate) update: Bundle,
    /// Their values, concatenated.
    pub(crate) committed: Vec<f64>,
    /// The probe map of each update sketch.
    pub(crate) probes: Vec<ProbeMap>,
}

/// The evidence of step `j`, bound to its record, ready for `replay` (the
/// replay program of the step's own program record).
pub(crate) fn prepare_step(
    t: &Transcript,
    replay: &Program,
    j: u64,
    step: &StepBody,
) -> Result<StepInputs, StepError> {
    let evidence = step.evidence.as_ref().ok_or_else(|| {
        AuditError::Unusable(format!(
            "step {j} has no retained batch: the session retained snapshots only \
             (ZKDV(..., retain=\"checkpoints\") retains what an audit replays)"
        ))
    })?;
    let words = batch_words(t, j, step, evidence)?;
    let update = update_sketches(t, j, step, evidence)?;
    let n_state = t.root.params.len() + t.root.opt_state.len();
    let batch = unpack_batch(replay, n_state, step, &words)?;
    let probes = probe_maps(&t.root, &update)?;
    let committed = update
        .leaves
        .iter()
        .map(|l| tensor(l).and_then(|x| values(&x).map(|v| v.into_owned())))
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    Ok(StepInputs {
        batch,
        update,
        committed,
        probes,
    })
}

/// The packed batch of step `j`, which must re-hash to its record's batch
/// commitment.
fn batch_words(
    t: &Transcript,
    j: u64,
    step: &StepBody,
    evidence: &StepEvidence,
) -> Result<Vec<u32>, AuditError> {
    let batch = t.bundle(&evidence.batch)?;
    let words = match batch.leaves.as_slice() {
        [leaf] => leaf
            .words()
            .map_err(|e| evidence_error(&evidence.batch, e.to_string()))?,
        _ => {
            return Err(evidence_error(
                &evidence.batch,
                "holds more than the packed batch".into(),
            ))
        }
    };
    let b = &step.batch;
    let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let commitment = commit_batch(&words, size(b.rows), size(b.width), size(b.window))
        .map_err(|e| evidence_error(&evidence.batch, e.to_string()))?;
    if commitment.root.as_bytes() != b.root.as_bytes() {
        return Err(evidence_error(
            &evidence.batch,
            format!("does not re-hash to step {j}'s batch commitment"),
        ));
    }
    Ok(words)
}

/// The update sketches of step `j`, which must re-hash to its record's
/// update commitment.
fn update_sketches(
    t: &Transcript,
    j: u64,
    step: &StepBody,
    evidence: &StepEvidence,
) -> Result<Bundle, AuditError> {
    let update = t.bundle(&evidence.update)?;
    let digest = update
        .tree_commitment()
        .map_err(|e| evidence_error(&evidence.update, e.to_string()))?;
    if digest.as_bytes() != step.update.as_bytes() {
        return Err(evidence_error(
            &evidence.update,
            format!("does not re-hash to step {j}'s update commitment"),
        ));
    }
    Ok(update)
}

/// The replay's typed batch arguments, unpacked from the packed `words`
/// with the layout of the step's own program (its replay program's batch
/// arguments, those after the `n_state` state arguments; the verifier has
/// checked the step's packed shape against that program record's batch
/// layout).
fn unpack_batch(
    replay: &Program,
    n_state: usize,
    step: &StepBody,
    words: &[u32],
) -> Result<Vec<Tensor>, String> {
    let b = &step.batch;
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
        .collect::<Result<_, String>>()?;
    let layout = BatchLayout::of(&leaves, b.window).map_err(|e| e.to_string())?;
    if layout.shape() != (b.rows, b.width) {
        return Err(format!(
            "the replay program's batch arguments pack to {:?}, the step committed {} x {}",
            layout.shape(),
            b.rows,
            b.width
        ));
    }
    let unpacked = layout.unpack(words).map_err(|e| e.to_string())?;
    leaves
        .iter()
        .zip(&unpacked)
        .map(|((shape, dtype), bytes)| {
            Tensor::from_le_bytes(*dtype, shape, bytes).map_err(|e| e.to_string())
        })
        .collect()
}

/// The probe map of each update sketch: a local gradient is sketched with
/// its parameter's map.
fn probe_maps(root: &RootBody, update: &Bundle) -> Result<Vec<ProbeMap>, String> {
    update
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
        .collect()
}
