//! `slice` (and `real_dynamic_slice`, the same with operand bounds),
//! `dynamic_slice` and `dynamic_update_slice`: blocks read or written at
//! checked (static) or clamped (dynamic) start indices.
//!
//! Preconditions: none; starts, limits, strides and sizes are checked
//! against the operand's rank and shape before any element moves, so an
//! out-of-range attribute is a [`ValueError`], never a panic.

use super::{check_rank, to_usize};
use crate::ops::scalar::{for_each_index, index_values, join, mismatch, strides};
use crate::value::{Tensor, ValueError};

/// `result[i] = operand[start + i * strides]`.
pub fn slice(
    operand: &Tensor,
    start: &[i64],
    limit: &[i64],
    step: &[i64],
) -> Result<Tensor, ValueError> {
    let rank = operand.shape.len();
    check_rank("slice start_indices", start, rank)?;
    check_rank("slice limit_indices", limit, rank)?;
    check_rank("slice strides", step, rank)?;
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank {
        let dim = operand.shape[d] as i64;
        if !(0 <= start[d] && start[d] <= limit[d] && limit[d] <= dim && step[d] > 0) {
            return Err(mismatch(format!(
                "slice: start {start:?}, limit {limit:?}, strides {step:?} do not fit {:?}",
                operand.shape
            )));
        }
        shape.push(((limit[d] - start[d] + step[d] - 1) / step[d]) as usize);
    }
    let st = strides(&operand.shape);
    let mut indices = Vec::with_capacity(shape.iter().product());
    for_each_index(&shape, |i| {
        indices.push(
            (0..rank)
                .map(|d| (start[d] as usize + i[d] * step[d] as usize) * st[d])
                .sum(),
        );
    });
    Tensor::new(operand.element, shape, operand.data.gather(&indices))
}

/// Start indices clamped to `[0, dim - size]`.
fn clamped_starts(
    shape: &[usize],
    starts: &[&Tensor],
    sizes: &[usize],
) -> Result<Vec<usize>, ValueError> {
    if starts.len() != shape.len() || sizes.len() != shape.len() {
        return Err(mismatch(format!(
            "{} start indices and {} sizes for rank {}",
            starts.len(),
            sizes.len(),
            shape.len()
        )));
    }
    let mut out = Vec::with_capacity(shape.len());
    for d in 0..shape.len() {
        let values = index_values(starts[d])?;
        if !starts[d].shape.is_empty() || values.len() != 1 {
            return Err(mismatch("a start index is not a scalar".to_owned()));
        }
        if sizes[d] > shape[d] {
            return Err(mismatch(format!(
                "size {:?} exceeds shape {shape:?}",
                sizes
            )));
        }
        let high = (shape[d] - sizes[d]) as i64;
        out.push(values[0].clamp(0, high) as usize);
    }
    Ok(out)
}

/// `result[i] = operand[clamp(start) + i]`.
pub fn dynamic_slice(
    operand: &Tensor,
    starts: &[&Tensor],
    sizes: &[i64],
) -> Result<Tensor, ValueError> {
    let sizes = sizes
        .iter()
        .map(|&s| to_usize(s, "dynamic_slice slice_sizes"))
        .collect::<Result<Vec<_>, _>>()?;
    let starts = clamped_starts(&operand.shape, starts, &sizes)?;
    let st = strides(&operand.shape);
    let mut indices = Vec::with_capacity(sizes.iter().product());
    for_each_index(&sizes, |i| {
        indices.push(
            i.iter()
                .zip(&starts)
                .zip(&st)
                .map(|((&i, &s), &t)| (i + s) * t)
                .sum(),
        );
    });
    Tensor::new(operand.element, sizes, operand.data.gather(&indices))
}

/// `operand` with the block at `clamp(start)` replaced by `update`.
pub fn dynamic_update_slice(
    operand: &Tensor,
    update: &Tensor,
    starts: &[&Tensor],
) -> Result<Tensor, ValueError> {
    if update.element != operand.element || update.shape.len() != operand.shape.len() {
        return Err(mismatch(format!(
            "dynamic_update_slice: update {:?}{:?} vs operand {:?}{:?}",
            update.element, update.shape, operand.element, operand.shape
        )));
    }
    let starts = clamped_starts(&operand.shape, starts, &update.shape)?;
    let n = operand.data.len();
    let mut indices: Vec<usize> = (0..n).collect();
    let st = strides(&operand.shape);
    let mut k = 0;
    for_each_index(&update.shape, |i| {
        let flat: usize = i
            .iter()
            .zip(&starts)
            .zip(&st)
            .map(|((&i, &s), &t)| (i + s) * t)
            .sum();
        indices[flat] = n + k;
        k += 1;
    });
    let both = join(&[&operand.data, &update.data])?;
    Tensor::new(
        operand.element,
        operand.shape.clone(),
        both.gather(&indices),
    )
}
