//! `concatenate` and `pad` (and `dynamic_pad`, the same with operand
//! paddings): results assembled from whole inputs, with edge padding
//! (possibly negative) and interior padding.
//!
//! Preconditions: none; ranks, dimensions and paddings are checked first.

use super::{check_rank, no_operands};
use crate::ops::scalar::{for_each_index, join, mismatch, strides};
use crate::value::{Data, Tensor, ValueError};

/// The inputs joined along `dimension`.
pub fn concatenate(inputs: &[&Tensor], dimension: usize) -> Result<Tensor, ValueError> {
    let first = inputs.first().ok_or_else(no_operands)?;
    let rank = first.shape.len();
    if dimension >= rank {
        return Err(mismatch(format!(
            "concatenate: dimension {dimension} outside rank {rank}"
        )));
    }
    let mut shape = first.shape.clone();
    shape[dimension] = 0;
    for t in inputs {
        let same_rest = t.shape.len() == rank
            && (0..rank).all(|d| d == dimension || t.shape[d] == first.shape[d]);
        if t.element != first.element || !same_rest {
            return Err(mismatch(format!(
                "concatenate: {:?}{:?} does not match {:?}{:?}",
                t.element, t.shape, first.element, first.shape
            )));
        }
        shape[dimension] += t.shape[dimension];
    }
    let outer: usize = first.shape[..dimension].iter().product();
    let inner: usize = first.shape[dimension + 1..].iter().product();
    let mut bases = Vec::with_capacity(inputs.len());
    let mut base = 0;
    for t in inputs {
        bases.push(base);
        base += t.data.len();
    }
    let mut indices = Vec::with_capacity(base);
    for o in 0..outer {
        for (t, &b) in inputs.iter().zip(&bases) {
            let chunk = t.shape[dimension] * inner;
            indices.extend(b + o * chunk..b + (o + 1) * chunk);
        }
    }
    let parts: Vec<&Data> = inputs.iter().map(|t| &t.data).collect();
    Tensor::new(first.element, shape, join(&parts)?.gather(&indices))
}

/// Edge (possibly negative) and interior padding with `value`.
pub fn pad(
    operand: &Tensor,
    value: &Tensor,
    low: &[i64],
    high: &[i64],
    interior: &[i64],
) -> Result<Tensor, ValueError> {
    let rank = operand.shape.len();
    check_rank("pad edge_padding_low", low, rank)?;
    check_rank("pad edge_padding_high", high, rank)?;
    check_rank("pad interior_padding", interior, rank)?;
    if value.element != operand.element || value.data.len() != 1 || !value.shape.is_empty() {
        return Err(mismatch(
            "pad: the padding value is not a matching scalar".into(),
        ));
    }
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank {
        let dim = operand.shape[d] as i128;
        let (lo, hi, int) = (low[d] as i128, high[d] as i128, interior[d] as i128);
        let size = lo + hi + dim + (dim - 1).max(0) * int;
        let limit = i128::from(u32::MAX);
        if !(0..=limit).contains(&int)
            || lo.abs() > limit
            || hi.abs() > limit
            || !(0..=limit).contains(&size)
        {
            return Err(mismatch(format!(
                "pad: low {low:?}, high {high:?}, interior {interior:?} do not fit {:?}",
                operand.shape
            )));
        }
        shape.push(size as usize);
    }
    let count = shape
        .iter()
        .try_fold(1usize, |c, &d| c.checked_mul(d))
        .filter(|&c| c <= crate::value::MAX_ELEMENTS)
        .ok_or_else(|| mismatch(format!("pad: result {shape:?} is too large")))?;
    let st = strides(&operand.shape);
    let n = operand.data.len();
    let mut indices = Vec::with_capacity(count);
    for_each_index(&shape, |r| {
        let mut flat = 0;
        for d in 0..rank {
            let q = r[d] as i64 - low[d];
            let step = interior[d] + 1;
            if q < 0 || q % step != 0 || q / step >= operand.shape[d] as i64 {
                indices.push(n);
                return;
            }
            flat += (q / step) as usize * st[d];
        }
        indices.push(flat);
    });
    let both = join(&[&operand.data, &value.data])?;
    Tensor::new(operand.element, shape, both.gather(&indices))
}
