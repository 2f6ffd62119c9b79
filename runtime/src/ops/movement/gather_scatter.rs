//! `gather`, `dynamic_gather` and `scatter`: their dimension numbers
//! ([`GatherDims`], [`ScatterDims`]), the index vectors read from the index
//! operand, and the specification's index maps.
//!
//! Preconditions: none; dimension numbers and slice sizes are checked
//! against the ranks first. Invariant: `scatter` applies its updates one
//! element at a time in row-major order of the update index space, each
//! combining the current result value (first argument of
//! `update_computation`) with the update value (second); updates that fall
//! outside the result are skipped element by element.

use super::check_rank;
use crate::attrs;
use crate::ops::scalar::{
    for_each_index, index_values, join, mismatch, promote, scalar_at, store, strides,
    try_for_each_index, Kernel,
};
use crate::ops::{Body, OpError};
use crate::value::{Tensor, TensorType, ValueError};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, ValueLike};
use zkdv_ir::op_name;

/// The dimension numbers of `gather`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatherDims {
    /// `offset_dims`.
    pub offset_dims: Vec<i64>,
    /// `collapsed_slice_dims`.
    pub collapsed_slice_dims: Vec<i64>,
    /// `operand_batching_dims`.
    pub operand_batching_dims: Vec<i64>,
    /// `start_indices_batching_dims`.
    pub start_indices_batching_dims: Vec<i64>,
    /// `start_index_map`.
    pub start_index_map: Vec<i64>,
    /// `index_vector_dim`.
    pub index_vector_dim: i64,
}

impl GatherDims {
    /// Reads `#stablehlo.gather<...>`.
    pub fn read(text: &str) -> Result<Self, ValueError> {
        Ok(Self {
            offset_dims: attrs::list_field(text, "offset_dims")?,
            collapsed_slice_dims: attrs::list_field(text, "collapsed_slice_dims")?,
            operand_batching_dims: attrs::list_field(text, "operand_batching_dims")?,
            start_indices_batching_dims: attrs::list_field(text, "start_indices_batching_dims")?,
            start_index_map: attrs::list_field(text, "start_index_map")?,
            index_vector_dim: attrs::int_field(text, "index_vector_dim")?.unwrap_or(0),
        })
    }
}

/// The dimension numbers of `scatter`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScatterDims {
    /// `update_window_dims`.
    pub update_window_dims: Vec<i64>,
    /// `inserted_window_dims`.
    pub inserted_window_dims: Vec<i64>,
    /// `input_batching_dims`.
    pub input_batching_dims: Vec<i64>,
    /// `scatter_indices_batching_dims`.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// `scatter_dims_to_operand_dims`.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// `index_vector_dim`.
    pub index_vector_dim: i64,
}

impl ScatterDims {
    /// Reads `#stablehlo.scatter<...>`.
    pub fn read(text: &str) -> Result<Self, ValueError> {
        Ok(Self {
            update_window_dims: attrs::list_field(text, "update_window_dims")?,
            inserted_window_dims: attrs::list_field(text, "inserted_window_dims")?,
            input_batching_dims: attrs::list_field(text, "input_batching_dims")?,
            scatter_indices_batching_dims: attrs::list_field(
                text,
                "scatter_indices_batching_dims",
            )?,
            scatter_dims_to_operand_dims: attrs::list_field(text, "scatter_dims_to_operand_dims")?,
            index_vector_dim: attrs::int_field(text, "index_vector_dim")?.unwrap_or(0),
        })
    }
}

/// Dimension numbers checked to lie in `[0, bound)`.
fn dims_below(what: &str, dims: &[i64], bound: usize) -> Result<Vec<usize>, ValueError> {
    dims.iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < bound)
                .ok_or_else(|| mismatch(format!("{what}: {dims:?} outside rank {bound}")))
        })
        .collect()
}

/// Reads start index vectors out of an index tensor: the vector for a batch
/// index (the index tensor's dimensions other than `index_vector_dim`).
struct IndexVectors {
    values: Vec<i64>,
    strides: Vec<usize>,
    /// Index-tensor dimension of each batch position.
    batch_to_dim: Vec<usize>,
    /// `Some((dim, len))` when the vector runs along `index_vector_dim`.
    vector: Option<(usize, usize)>,
}

impl IndexVectors {
    fn new(indices: &Tensor, index_vector_dim: i64) -> Result<Self, ValueError> {
        let rank = indices.shape.len();
        let ivd = usize::try_from(index_vector_dim)
            .ok()
            .filter(|&d| d <= rank)
            .ok_or_else(|| {
                mismatch(format!(
                    "index_vector_dim {index_vector_dim} outside rank {rank}"
                ))
            })?;
        Ok(Self {
            values: index_values(indices)?,
            strides: strides(&indices.shape),
            batch_to_dim: (0..rank).filter(|&d| d != ivd).collect(),
            vector: (ivd < rank).then(|| (ivd, indices.shape[ivd])),
        })
    }

    fn len(&self) -> usize {
        self.vector.map_or(1, |(_, n)| n)
    }

    /// Batch shape expected of the index tensor.
    fn batch_shape(&self, indices: &Tensor) -> Vec<usize> {
        self.batch_to_dim
            .iter()
            .map(|&d| indices.shape[d])
            .collect()
    }

    /// The start vector at `batch` (already checked against the shape).
    fn vector_at(&self, batch: &[usize], out: &mut Vec<i64>) {
        let base: usize = batch
            .iter()
            .zip(&self.batch_to_dim)
            .map(|(&b, &d)| b * self.strides[d])
            .sum();
        out.clear();
        match self.vector {
            Some((dim, n)) => out.extend((0..n).map(|k| self.values[base + k * self.strides[dim]])),
            None => out.push(self.values[base]),
        }
    }
}

/// `stablehlo.gather`; `result_shape` is the declared result shape.
pub fn gather(
    operand: &Tensor,
    start_indices: &Tensor,
    dims: &GatherDims,
    slice_sizes: &[i64],
    result_shape: &[usize],
) -> Result<Tensor, ValueError> {
    let rank = operand.shape.len();
    let result_rank = result_shape.len();
    check_rank("gather slice_sizes", slice_sizes, rank)?;
    let sizes = slice_sizes
        .iter()
        .zip(&operand.shape)
        .map(|(&s, &d)| {
            usize::try_from(s)
                .ok()
                .filter(|&s| s <= d)
                .ok_or_else(|| mismatch(format!("gather: slice_sizes {slice_sizes:?}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let offset_dims = dims_below("gather offset_dims", &dims.offset_dims, result_rank)?;
    let collapsed = dims_below(
        "gather collapsed_slice_dims",
        &dims.collapsed_slice_dims,
        rank,
    )?;
    let operand_batching = dims_below(
        "gather operand_batching_dims",
        &dims.operand_batching_dims,
        rank,
    )?;
    let start_map = dims_below("gather start_index_map", &dims.start_index_map, rank)?;
    let vectors = IndexVectors::new(start_indices, dims.index_vector_dim)?;
    let indices_batching = dims_below(
        "gather start_indices_batching_dims",
        &dims.start_indices_batching_dims,
        start_indices.shape.len(),
    )?;
    if vectors.len() != start_map.len() || operand_batching.len() != indices_batching.len() {
        return Err(mismatch(
            "gather: start_index_map or batching dims do not match the indices".into(),
        ));
    }
    // Operand axes that take offsets, in order.
    let offset_axes: Vec<usize> = (0..rank)
        .filter(|d| !collapsed.contains(d) && !operand_batching.contains(d))
        .collect();
    let batch_dims: Vec<usize> = (0..result_rank)
        .filter(|d| !offset_dims.contains(d))
        .collect();
    let offsets_ok = offset_axes.len() == offset_dims.len()
        && offset_dims
            .iter()
            .zip(&offset_axes)
            .all(|(&r, &a)| result_shape[r] <= sizes[a]);
    let batch_shape: Vec<usize> = batch_dims.iter().map(|&d| result_shape[d]).collect();
    if !offsets_ok || batch_shape != vectors.batch_shape(start_indices) {
        return Err(mismatch(format!(
            "gather: result shape {result_shape:?} does not match the operands"
        )));
    }
    // Batch position (in batch_index) of each operand batching dimension.
    let ivd = dims.index_vector_dim as usize;
    let batching: Vec<(usize, usize)> = operand_batching
        .iter()
        .zip(&indices_batching)
        .map(|(&o, &s)| {
            if s == ivd {
                Err(mismatch(
                    "gather: a batching dim is index_vector_dim".into(),
                ))
            } else {
                Ok((o, if s < ivd { s } else { s - 1 }))
            }
        })
        .collect::<Result<_, _>>()?;
    let st = strides(&operand.shape);
    let mut out = Vec::with_capacity(result_shape.iter().product());
    let mut batch = vec![0; batch_dims.len()];
    let mut start = Vec::new();
    let mut full = vec![0i64; rank];
    try_for_each_index(result_shape, |r| {
        for (b, &d) in batch.iter_mut().zip(&batch_dims) {
            *b = r[d];
        }
        vectors.vector_at(&batch, &mut start);
        full.iter_mut().for_each(|x| *x = 0);
        for (&s, &d) in start.iter().zip(&start_map) {
            full[d] = s.clamp(0, (operand.shape[d] - sizes[d]) as i64);
        }
        for &(o, b) in &batching {
            full[o] += batch[b] as i64;
        }
        for (&rd, &a) in offset_dims.iter().zip(&offset_axes) {
            full[a] += r[rd] as i64;
        }
        let mut flat = 0;
        for d in 0..rank {
            if full[d] < 0 || full[d] >= operand.shape[d] as i64 {
                return Err(mismatch(format!(
                    "gather: operand index {full:?} out of range"
                )));
            }
            flat += full[d] as usize * st[d];
        }
        out.push(flat);
        Ok(())
    })?;
    Tensor::new(
        operand.element,
        result_shape.to_vec(),
        operand.data.gather(&out),
    )
}

/// For every update index (row-major), the flat result index it updates, or
/// `None` when out of bounds.
fn scatter_targets(
    input_shape: &[usize],
    indices: &Tensor,
    update_shape: &[usize],
    dims: &ScatterDims,
) -> Result<Vec<Option<usize>>, ValueError> {
    let rank = input_shape.len();
    let update_rank = update_shape.len();
    let window_dims = dims_below(
        "scatter update_window_dims",
        &dims.update_window_dims,
        update_rank,
    )?;
    let inserted = dims_below(
        "scatter inserted_window_dims",
        &dims.inserted_window_dims,
        rank,
    )?;
    let input_batching = dims_below(
        "scatter input_batching_dims",
        &dims.input_batching_dims,
        rank,
    )?;
    let to_operand = dims_below(
        "scatter scatter_dims_to_operand_dims",
        &dims.scatter_dims_to_operand_dims,
        rank,
    )?;
    let vectors = IndexVectors::new(indices, dims.index_vector_dim)?;
    let indices_batching = dims_below(
        "scatter scatter_indices_batching_dims",
        &dims.scatter_indices_batching_dims,
        indices.shape.len(),
    )?;
    if vectors.len() != to_operand.len() || input_batching.len() != indices_batching.len() {
        return Err(mismatch(
            "scatter: scatter_dims_to_operand_dims or batching dims do not match the indices"
                .into(),
        ));
    }
    let window_axes: Vec<usize> = (0..rank)
        .filter(|d| !inserted.contains(d) && !input_batching.contains(d))
        .collect();
    let scatter_dims: Vec<usize> = (0..update_rank)
        .filter(|d| !window_dims.contains(d))
        .collect();
    let scatter_shape: Vec<usize> = scatter_dims.iter().map(|&d| update_shape[d]).collect();
    if window_axes.len() != window_dims.len() || scatter_shape != vectors.batch_shape(indices) {
        return Err(mismatch(format!(
            "scatter: updates {update_shape:?} do not match the inputs and indices"
        )));
    }
    let ivd = dims.index_vector_dim as usize;
    let batching: Vec<(usize, usize)> = input_batching
        .iter()
        .zip(&indices_batching)
        .map(|(&o, &s)| {
            if s == ivd {
                Err(mismatch(
                    "scatter: a batching dim is index_vector_dim".into(),
                ))
            } else {
                Ok((o, if s < ivd { s } else { s - 1 }))
            }
        })
        .collect::<Result<_, _>>()?;
    let st = strides(input_shape);
    let mut targets = Vec::with_capacity(update_shape.iter().product());
    let mut scatter_index = vec![0; scatter_dims.len()];
    let mut start = Vec::new();
    let mut full = vec![0i64; rank];
    for_each_index(update_shape, |u| {
        for (s, &d) in scatter_index.iter_mut().zip(&scatter_dims) {
            *s = u[d];
        }
        vectors.vector_at(&scatter_index, &mut start);
        full.iter_mut().for_each(|x| *x = 0);
        for (&s, &d) in start.iter().zip(&to_operand) {
            full[d] = s;
        }
        for &(o, b) in &batching {
            full[o] = full[o].saturating_add(scatter_index[b] as i64);
        }
        for (&ud, &a) in window_dims.iter().zip(&window_axes) {
            full[a] = full[a].saturating_add(u[ud] as i64);
        }
        let mut flat = Some(0);
        for d in 0..rank {
            if full[d] < 0 || full[d] >= input_shape[d] as i64 {
                flat = None;
                break;
            }
            flat = flat.map(|f| f + full[d] as usize * st[d]);
        }
        targets.push(flat);
    });
    Ok(targets)
}

/// `stablehlo.scatter` on `inputs..., scatter_indices, updates...`.
pub fn scatter(
    operands: &[&Tensor],
    dims: &ScatterDims,
    body: &dyn Body,
    replaces: bool,
    result_types: &[TensorType],
) -> Result<Vec<Tensor>, OpError> {
    if operands.len() < 3 || operands.len() % 2 == 0 {
        return Err(mismatch(format!("scatter: {} operands", operands.len())).into());
    }
    let n = (operands.len() - 1) / 2;
    if result_types.len() != n {
        return Err(mismatch(format!(
            "scatter: {} results for {n} inputs",
            result_types.len()
        ))
        .into());
    }
    let indices = operands[n];
    let mut results = Vec::with_capacity(n);
    let mut updates = Vec::with_capacity(n);
    for k in 0..n {
        let (input, update) = (operands[k], operands[n + 1 + k]);
        if input.shape != operands[0].shape || update.shape != operands[n + 1].shape {
            return Err(mismatch("scatter: inputs or updates differ in shape".into()).into());
        }
        results.push(promote(input, result_types[k].element)?);
        updates.push(promote(update, result_types[k].element)?);
    }
    let targets = scatter_targets(&operands[0].shape, indices, &updates[0].shape, dims)?;
    if replaces {
        // The body returns its update arguments: each update overwrites.
        let mut sources: Vec<usize> = (0..results[0].data.len()).collect();
        let base = sources.len();
        for (u, target) in targets.iter().enumerate() {
            if let Some(t) = *target {
                sources[t] = base + u;
            }
        }
        return results
            .iter()
            .zip(&updates)
            .map(|(r, up)| {
                let both = join(&[&r.data, &up.data])?;
                Tensor::new(r.element, r.shape.clone(), both.gather(&sources)).map_err(Into::into)
            })
            .collect();
    }
    if n == 1 {
        if let Some(kernel) = body
            .combiner()
            .and_then(|c| Kernel::new(c, results[0].element))
        {
            let pairs: Vec<(usize, usize)> = targets
                .iter()
                .enumerate()
                .filter_map(|(u, t)| t.map(|t| (t, u)))
                .collect();
            if kernel.scatter(&mut results[0].data, &updates[0].data, &pairs) {
                return Ok(results);
            }
        }
    }
    let mut args = Vec::with_capacity(2 * n);
    for (u, target) in targets.iter().enumerate() {
        let Some(t) = *target else { continue };
        args.clear();
        for r in &results {
            args.push(scalar_at(r, t)?);
        }
        for up in &updates {
            args.push(scalar_at(up, u)?);
        }
        let values = body.apply(&args)?;
        if values.len() != n {
            return Err(mismatch(format!(
                "scatter: the update computation returned {} values for {n}",
                values.len()
            ))
            .into());
        }
        for (r, v) in results.iter_mut().zip(&values) {
            store(&mut r.data, r.element, t, v)?;
        }
    }
    Ok(results)
}

/// Whether region `index` of `op` is `^bb0(%r..., %u...): return %u...`
/// with `n` of each (an update computation that replaces).
pub(crate) fn returns_updates(op: &OperationRef<'_, '_>, index: usize, n: usize) -> bool {
    let Some(block) = op.region(index).ok().and_then(|r| r.first_block()) else {
        return false;
    };
    if n == 0 || block.argument_count() != 2 * n {
        return false;
    }
    let Some(ret) = block.first_operation() else {
        return false;
    };
    if ret.next_in_block().is_some() || op_name(&ret) != "stablehlo.return" {
        return false;
    }
    let returned: Vec<_> = ret.operands().map(|v| v.to_raw().ptr).collect();
    let updates: Vec<_> = (n..2 * n)
        .filter_map(|i| block.argument(i).ok().map(|a| a.to_raw().ptr))
        .collect();
    updates.len() == n && returned == updates
}
