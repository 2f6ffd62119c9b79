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

use zkdv_hashing::{commit_tensor, commit_tree, DType, Digest};
use zkdv_protocol::packing::BatchLayout;
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
    /// Each data leaf's row element type and shape, when every example
    /// has the same: what reads the rows back from a batch committed as
    /// packed words (the JAX frontend's).
    pub layout: Option<Vec<(DType, Vec<u64>)>>,
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

/// The data leaves of a batch committed as packed words (`packed`, one
/// `u32 [rows, width]` leaf), read back from its first `rows` rows with the
/// manifest's `layout`: each data leaf's row words lie leaf after leaf at
/// the start of every row (`zkdv_protocol::packing`).
fn unpacked_rows(
    packed: &Tensor,
    layout: &[(DType, Vec<u64>)],
    rows: usize,
) -> Result<Vec<Tensor>, String> {
    let ty = packed.tensor_type();
    let (&[total, width], Ok(DType::U32)) = (ty.shape.as_slice(), ty.element.dtype()) else {
        return Err("the batch is not packed words (u32 [rows, width])".into());
    };
    if rows > total {
        return Err(format!(
            "the packed batch has {total} rows, the client's order {rows} examples"
        ));
    }
    let leaves: Vec<(Vec<u64>, DType)> = layout
        .iter()
        .map(|(dtype, shape)| ([&[rows as u64][..], shape].concat(), *dtype))
        .collect();
    let rows_layout = BatchLayout::of(&leaves, width as u64).map_err(|e| e.to_string())?;
    if rows_layout.side_rows != 0 || rows_layout.slots.iter().any(|s| !s.row_leaf) {
        return Err("the manifest's data leaves do not fill the packed batch's rows".into());
    }
    if rows_layout.width != width as u64 {
        return Err(format!(
            "an example takes {} words, the packed batch's rows {width}",
            rows_layout.width
        ));
    }
    let bytes = packed.le_bytes();
    let words: Vec<u32> = bytes[..rows * width * 4]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let unpacked = rows_layout.unpack(&words).map_err(|e| e.to_string())?;
    unpacked
        .iter()
        .zip(&leaves)
        .map(|(data, (shape, dtype))| {
            Tensor::from_le_bytes(*dtype, shape, data).map_err(|e| e.to_string())
        })
        .collect()
}

/// Whether step `j`'s `batch` (the replay program's batch arguments, or
/// with `packed` its packed words) holds the client's examples in the
/// client's order; `Err` says why not.
pub(crate) fn check(
    data: &DataExpectation,
    j: u64,
    batch: &[Tensor],
    packed: bool,
) -> Result<(), String> {
    let order = usize::try_from(j)
        .ok()
        .and_then(|j| data.order.get(j))
        .ok_or_else(|| format!("the client's order has no step {j}"))?;
    let read_back;
    let batch = if packed {
        let layout = data.layout.as_deref().ok_or(
            "the manifest has no layout (its examples differ in dtypes or shapes), which reads \
             rows back from a batch of packed words",
        )?;
        let words = batch.first().ok_or("the step has no batch")?;
        read_back = unpacked_rows(words, layout, order.len())?;
        &read_back[..]
    } else {
        batch
    };
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
