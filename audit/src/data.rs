//! The client's data and their order: each replayed step's committed batch
//! must hold the client's examples, in the order the client gave.
//!
//! A client describes its data by a *manifest*: the digest of every example
//! and, per step, the indices of the examples the step trains on (an
//! explicit order; `zkdv.data.manifest` writes it). An example is one row of
//! the first `leaves` batch leaves (the step's own data, in the batch's leaf
//! order: inputs, then targets, ...), and its digest is
//! `commit_tree([("0", commit_tensor(leaf_0[i])), ("1", commit_tensor(leaf_1[i])), ...])`,
//! each row a tensor of its leaf's shape without the leading dimension. The
//! dataset root, which the report names, is `commit_tree` over
//! `("<index>", digest)` for every example.
//!
//! The batch leaves after the first `leaves` (a schedule's learning rate, a
//! DDP rank's reduced gradients, the random draws of dropout) are not data
//! and are not compared.

use zkdv_hashing::{commit_tensor, commit_tree, Digest};
use zkdv_runtime::Tensor;

/// The client's data: what an audit compares each replayed batch with.
#[derive(Debug, Clone)]
pub struct DataExpectation {
    /// How many leading batch leaves are the examples' data.
    pub leaves: usize,
    /// The digest of every example, by index.
    pub examples: Vec<Digest>,
    /// Per step, the indices of its examples, one per batch row.
    pub order: Vec<Vec<u64>>,
}

impl DataExpectation {
    /// The dataset root: `commit_tree` over `("<index>", digest)`.
    ///
    /// # Errors
    ///
    /// None in practice (the names are distinct); a hashing error is
    /// returned as text.
    pub fn root(&self) -> Result<Digest, String> {
        let named: Vec<(String, Digest)> = self
            .examples
            .iter()
            .enumerate()
            .map(|(i, d)| (i.to_string(), *d))
            .collect();
        commit_tree(&named).map_err(|e| e.to_string())
    }
}

/// The digest of every example (batch row) of `batch`'s first `leaves`
/// leaves.
fn examples(batch: &[Tensor], leaves: usize) -> Result<Vec<Digest>, String> {
    let data = batch.get(..leaves).ok_or_else(|| {
        format!(
            "the manifest names {leaves} data leaves, the batch has {}",
            batch.len()
        )
    })?;
    let mut rows: Option<usize> = None;
    let mut per_leaf = Vec::with_capacity(data.len());
    for (j, leaf) in data.iter().enumerate() {
        let ty = leaf.tensor_type();
        let Some((&lead, rest)) = ty.shape.split_first() else {
            return Err(format!("data leaf {j} is a scalar: it has no rows"));
        };
        if rows.is_some_and(|r| r != lead) {
            return Err(format!(
                "data leaf {j} has {lead} rows, the leaves before it {}",
                rows.unwrap_or(0)
            ));
        }
        rows = Some(lead);
        let dtype = ty.element.dtype().map_err(|e| e.to_string())?;
        let bytes = leaf.le_bytes();
        let row = bytes.len().checked_div(lead).unwrap_or(0);
        let shape: Vec<u64> = rest.iter().map(|&d| d as u64).collect();
        per_leaf.push((dtype, shape, bytes, row));
    }
    (0..rows.unwrap_or(0))
        .map(|i| {
            let named = per_leaf
                .iter()
                .enumerate()
                .map(|(j, (dtype, shape, bytes, row))| {
                    let c = commit_tensor(*dtype, shape, &bytes[i * row..(i + 1) * row])
                        .map_err(|e| e.to_string())?;
                    Ok((j.to_string(), c.digest()))
                })
                .collect::<Result<Vec<_>, String>>()?;
            commit_tree(&named).map_err(|e| e.to_string())
        })
        .collect()
}

/// Whether step `j`'s `batch` holds the client's examples in order; `Err`
/// says where it does not.
pub(crate) fn check(data: &DataExpectation, j: u64, batch: &[Tensor]) -> Result<(), String> {
    let order = usize::try_from(j)
        .ok()
        .and_then(|j| data.order.get(j))
        .ok_or_else(|| format!("the client's order has no step {j}"))?;
    let rows = examples(batch, data.leaves)?;
    if rows.len() != order.len() {
        return Err(format!(
            "step {j}'s batch has {} rows, the client's order {} examples",
            rows.len(),
            order.len()
        ));
    }
    for (row, (got, &index)) in rows.iter().zip(order).enumerate() {
        let expected = usize::try_from(index)
            .ok()
            .and_then(|i| data.examples.get(i))
            .ok_or_else(|| format!("the client's order names example {index}, which it lacks"))?;
        if got != expected {
            return Err(format!(
                "step {j}'s batch row {row} is not the client's example {index}"
            ));
        }
    }
    Ok(())
}
