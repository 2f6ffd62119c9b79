//! `sort`: a stable bottom-up merge sort for both values of `is_stable` (a
//! stable order is a valid unstable one).
//!
//! Invariant: an element of the right run moves ahead of one of the left
//! run only when `comparator(right, left)` is true; an inconsistent
//! comparator never causes a panic, only some permutation.

use super::no_operands;
use crate::ops::decoded::Comparison;
use crate::ops::scalar::{compare_elements, for_each_index, mismatch, scalar_at, strides};
use crate::ops::{Body, OpError};
use crate::value::{Data, Tensor};

/// Stable bottom-up merge sort of `items` by a fallible `less`.
pub(super) fn merge_sort<E>(
    items: &mut Vec<usize>,
    less: &mut dyn FnMut(usize, usize) -> Result<bool, E>,
) -> Result<(), E> {
    let n = items.len();
    let mut buffer = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if less(items[j], items[i])? {
                    buffer[k] = items[j];
                    j += 1;
                } else {
                    buffer[k] = items[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + (mid - i)].copy_from_slice(&items[i..mid]);
            k += mid - i;
            buffer[k..k + (end - j)].copy_from_slice(&items[j..end]);
            start = end;
        }
        std::mem::swap(items, &mut buffer);
        width *= 2;
    }
    Ok(())
}

/// `stablehlo.sort` of `inputs` along `dimension` (negative counts from
/// the end); `fast` is the comparator when it is a single `compare` of the
/// first input's two elements.
pub fn sort(
    inputs: &[&Tensor],
    dimension: i64,
    comparator: &dyn Body,
    fast: Option<Comparison>,
) -> Result<Vec<Tensor>, OpError> {
    let first = inputs.first().ok_or_else(no_operands)?;
    let rank = first.shape.len() as i64;
    let dim = if dimension < 0 {
        dimension + rank
    } else {
        dimension
    };
    if !(0..rank).contains(&dim) {
        return Err(mismatch(format!("sort: dimension {dimension} for rank {rank}")).into());
    }
    if inputs.iter().any(|t| t.shape != first.shape) {
        return Err(mismatch("sort: inputs differ in shape".into()).into());
    }
    let dim = dim as usize;
    let st = strides(&first.shape);
    let len = first.shape[dim];
    let mut outer = first.shape.clone();
    outer[dim] = 1;
    let mut source: Vec<usize> = (0..first.data.len()).collect();
    let mut order: Vec<usize> = Vec::with_capacity(len);
    let mut args = Vec::with_capacity(2 * inputs.len());
    let mut failure: Option<OpError> = None;
    for_each_index(&outer, |o| {
        if failure.is_some() {
            return;
        }
        let base: usize = o.iter().zip(&st).map(|(&i, &s)| i * s).sum();
        order.clear();
        order.extend((0..len).map(|k| base + k * st[dim]));
        let mut less = |a: usize, b: usize| -> Result<bool, OpError> {
            if let Some(Comparison {
                direction,
                compare_type,
            }) = fast
            {
                if let Some(v) = compare_elements(direction, compare_type, &first.data, a, b) {
                    return Ok(v);
                }
            }
            args.clear();
            for t in inputs {
                args.push(scalar_at(t, a)?);
                args.push(scalar_at(t, b)?);
            }
            let out = comparator.apply(&args)?;
            match out.as_slice() {
                [t] if t.shape.is_empty() => match &t.data {
                    Data::Bool(v) if v.len() == 1 => Ok(v[0]),
                    _ => Err(mismatch("sort: the comparator does not return i1".into()).into()),
                },
                _ => Err(mismatch("sort: the comparator does not return one i1".into()).into()),
            }
        };
        if let Err(e) = merge_sort(&mut order, &mut less) {
            failure = Some(e);
            return;
        }
        for (k, &from) in order.iter().enumerate() {
            source[base + k * st[dim]] = from;
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    inputs
        .iter()
        .map(|t| {
            Tensor::new(t.element, t.shape.clone(), t.data.gather(&source)).map_err(Into::into)
        })
        .collect()
}
