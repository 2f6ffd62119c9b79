//! Data-movement ops: `slice`, `dynamic_slice`, `real_dynamic_slice`,
//! `dynamic_update_slice`, `concatenate`, `pad`, `dynamic_pad`, `reverse`,
//! `gather`, `dynamic_gather`, `scatter`, `sort`, `get_dimension_size`,
//! `dynamic_iota`, `dynamic_reshape`, `dynamic_broadcast_in_dim`, `clamp`
//! and `bitcast_convert`, following the StableHLO specification.
//!
//! Index-mapping ops compute, for every result index in row-major order, the
//! operand element it reads (the specification's formula) and gather those
//! elements; attributes and index operands are validated first, so an
//! out-of-range attribute is a [`ValueError`], never a panic.
//!
//! Order of evaluation (the project's reference order, fixed so that results
//! never depend on the machine or thread count):
//! - `scatter` applies its updates one element at a time in row-major order
//!   of the update index space; each update combines the current result
//!   value (first argument of `update_computation`) with the update value
//!   (second argument). Updates whose result index falls outside the result
//!   are skipped element by element, as the specification says.
//! - `sort` is a stable bottom-up merge sort for both values of `is_stable`
//!   (a stable order is a valid unstable one): an element of the right run
//!   moves ahead of one of the left run only when `comparator(right, left)`
//!   is true. It never panics on an inconsistent comparator.
//! - `bitcast_convert` reads elements as little-endian bit strings (`i1` as
//!   one bit), the first element holding the lowest bits.

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, ValueLike};
use zkdv_ir::op_name;

use super::scalar::{
    compare_elements, for_each_index, index_values, join, mismatch, promote, scalar_at,
    simple_compare, store, strides, try_for_each_index, Kernel,
};
use super::{arity, Body, CompareType, Direction, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "stablehlo.bitcast_convert",
    "stablehlo.clamp",
    "stablehlo.concatenate",
    "stablehlo.dynamic_broadcast_in_dim",
    "stablehlo.dynamic_gather",
    "stablehlo.dynamic_iota",
    "stablehlo.dynamic_pad",
    "stablehlo.dynamic_reshape",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.gather",
    "stablehlo.get_dimension_size",
    "stablehlo.pad",
    "stablehlo.real_dynamic_slice",
    "stablehlo.reverse",
    "stablehlo.scatter",
    "stablehlo.slice",
    "stablehlo.sort",
];

/// Evaluates the data-movement ops; `Ok(None)` for any other name.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let one = |t: Result<Tensor, ValueError>| -> Result<Option<Vec<Tensor>>, OpError> {
        Ok(Some(vec![t?]))
    };
    match name {
        "stablehlo.slice" => {
            arity(operands, 1)?;
            let rank = operands[0].shape.len();
            let strides = attrs::i64_array_or(op, "strides", vec![1; rank])?;
            one(slice(
                operands[0],
                &attrs::i64_array(op, "start_indices")?,
                &attrs::i64_array(op, "limit_indices")?,
                &strides,
            ))
        }
        "stablehlo.real_dynamic_slice" => {
            arity(operands, 4)?;
            one(slice(
                operands[0],
                &index_values(operands[1])?,
                &index_values(operands[2])?,
                &index_values(operands[3])?,
            ))
        }
        "stablehlo.dynamic_slice" => {
            let (operand, starts) = operands.split_first().ok_or_else(no_operands)?;
            one(dynamic_slice(
                operand,
                starts,
                &attrs::i64_array(op, "slice_sizes")?,
            ))
        }
        "stablehlo.dynamic_update_slice" => {
            if operands.len() < 2 {
                return Err(no_operands().into());
            }
            one(dynamic_update_slice(
                operands[0],
                operands[1],
                &operands[2..],
            ))
        }
        "stablehlo.concatenate" => {
            let dimension = attrs::index(op, "dimension")?;
            one(concatenate(operands, dimension))
        }
        "stablehlo.pad" => {
            arity(operands, 2)?;
            one(pad(
                operands[0],
                operands[1],
                &attrs::i64_array(op, "edge_padding_low")?,
                &attrs::i64_array(op, "edge_padding_high")?,
                &attrs::i64_array(op, "interior_padding")?,
            ))
        }
        "stablehlo.dynamic_pad" => {
            arity(operands, 5)?;
            one(pad(
                operands[0],
                operands[1],
                &index_values(operands[2])?,
                &index_values(operands[3])?,
                &index_values(operands[4])?,
            ))
        }
        "stablehlo.reverse" => {
            arity(operands, 1)?;
            one(reverse(operands[0], &attrs::dimensions(op, "dimensions")?))
        }
        "stablehlo.gather" | "stablehlo.dynamic_gather" => {
            let sizes = if name == "stablehlo.gather" {
                arity(operands, 2)?;
                attrs::i64_array(op, "slice_sizes")?
            } else {
                arity(operands, 3)?;
                index_values(operands[2])?
            };
            let numbers = GatherDims::read(&attrs::text(op, "dimension_numbers")?)?;
            let result = attrs::result_type(op, 0)?;
            one(gather(
                operands[0],
                operands[1],
                &numbers,
                &sizes,
                &result.shape,
            ))
        }
        "stablehlo.scatter" => {
            let numbers = ScatterDims::read(&attrs::text(op, "scatter_dimension_numbers")?)?;
            let body = regions.body(0)?;
            let types = attrs::result_types(op)?;
            let replaces = returns_updates(op, 0, types.len());
            scatter(operands, &numbers, body.as_ref(), replaces, &types).map(Some)
        }
        "stablehlo.sort" => {
            let dimension = attrs::integer_or(op, "dimension", -1)?;
            // Every sort is stable here, so `is_stable` only needs to be valid.
            attrs::boolean_or(op, "is_stable", false)?;
            let body = regions.body(0)?;
            let fast = simple_compare(op, 0);
            sort(operands, dimension, body.as_ref(), fast).map(Some)
        }
        "stablehlo.get_dimension_size" => {
            arity(operands, 1)?;
            let dimension = attrs::index(op, "dimension")?;
            let size = *operands[0]
                .shape
                .get(dimension)
                .ok_or_else(|| mismatch(format!("get_dimension_size: no dimension {dimension}")))?;
            let value = Tensor::new(
                ElementType::Signed(64),
                Vec::new(),
                Data::Signed(vec![size as i64]),
            )?;
            one(super::convert(&value, attrs::result_type(op, 0)?.element))
        }
        "stablehlo.dynamic_iota" => {
            arity(operands, 1)?;
            let result = attrs::result_type(op, 0)?;
            check_shape_operand(operands[0], &result.shape)?;
            one(super::iota(&result, attrs::index(op, "iota_dimension")?))
        }
        "stablehlo.dynamic_reshape" => {
            arity(operands, 2)?;
            let result = attrs::result_type(op, 0)?;
            check_shape_operand(operands[1], &result.shape)?;
            one(super::reshape(operands[0], &result.shape))
        }
        "stablehlo.dynamic_broadcast_in_dim" => {
            arity(operands, 2)?;
            let result = attrs::result_type(op, 0)?;
            check_shape_operand(operands[1], &result.shape)?;
            let dims = attrs::dimensions(op, "broadcast_dimensions")?;
            one(super::broadcast_in_dim(operands[0], &dims, &result.shape))
        }
        "stablehlo.clamp" => {
            arity(operands, 3)?;
            one(clamp(operands[0], operands[1], operands[2]))
        }
        "stablehlo.bitcast_convert" => {
            arity(operands, 1)?;
            one(bitcast_convert(operands[0], &attrs::result_type(op, 0)?))
        }
        _ => Ok(None),
    }
}

fn no_operands() -> ValueError {
    mismatch("too few operands".to_owned())
}

fn to_usize(value: i64, what: &str) -> Result<usize, ValueError> {
    usize::try_from(value).map_err(|_| mismatch(format!("{what}: {value} is negative")))
}

fn check_rank(what: &str, values: &[i64], rank: usize) -> Result<(), ValueError> {
    if values.len() != rank {
        return Err(mismatch(format!(
            "{what}: {} values for rank {rank}",
            values.len()
        )));
    }
    Ok(())
}

fn check_shape_operand(shape: &Tensor, expected: &[usize]) -> Result<(), ValueError> {
    let values = index_values(shape)?;
    let same = values.len() == expected.len()
        && values
            .iter()
            .zip(expected)
            .all(|(&v, &e)| usize::try_from(v).ok() == Some(e));
    if !same {
        return Err(mismatch(format!(
            "the shape operand {values:?} differs from the result shape {expected:?}"
        )));
    }
    Ok(())
}

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

/// Reverses `operand` along `dimensions`.
pub fn reverse(operand: &Tensor, dimensions: &[usize]) -> Result<Tensor, ValueError> {
    let rank = operand.shape.len();
    let mut flip = vec![false; rank];
    for &d in dimensions {
        if d >= rank || std::mem::replace(&mut flip[d], true) {
            return Err(mismatch(format!(
                "reverse: dimensions {dimensions:?} for rank {rank}"
            )));
        }
    }
    let st = strides(&operand.shape);
    let mut indices = Vec::with_capacity(operand.data.len());
    for_each_index(&operand.shape, |i| {
        indices.push(
            (0..rank)
                .map(|d| {
                    let k = if flip[d] {
                        operand.shape[d] - 1 - i[d]
                    } else {
                        i[d]
                    };
                    k * st[d]
                })
                .sum(),
        );
    });
    Tensor::new(
        operand.element,
        operand.shape.clone(),
        operand.data.gather(&indices),
    )
}

/// `minimum(maximum(operand, min), max)` with scalar or full-shape bounds.
pub fn clamp(min: &Tensor, operand: &Tensor, max: &Tensor) -> Result<Tensor, ValueError> {
    let full = |t: &Tensor| -> Result<Tensor, ValueError> {
        if t.shape.is_empty() && !operand.shape.is_empty() {
            super::broadcast_in_dim(t, &[], &operand.shape)
        } else {
            Ok(t.clone())
        }
    };
    let lower = super::binary(super::BinaryOp::Maximum, operand, &full(min)?)?;
    super::binary(super::BinaryOp::Minimum, &lower, &full(max)?)
}

/// Bit width of an element type as `bitcast_convert` counts it.
fn bit_width(element: ElementType) -> usize {
    match element {
        ElementType::I1 => 1,
        other => other.size_bytes() * 8,
    }
}

/// Reinterprets the bits of `operand` as the result type.
pub fn bitcast_convert(operand: &Tensor, result: &TensorType) -> Result<Tensor, ValueError> {
    let (from, to) = (bit_width(operand.element), bit_width(result.element));
    let rank = operand.shape.len();
    let shape_ok = match from.cmp(&to) {
        std::cmp::Ordering::Equal => result.shape == operand.shape,
        std::cmp::Ordering::Greater => {
            result.shape.len() == rank + 1
                && result.shape[..rank] == operand.shape[..]
                && result.shape[rank] * to == from
        }
        std::cmp::Ordering::Less => {
            rank >= 1
                && result.shape[..] == operand.shape[..rank - 1]
                && operand.shape[rank - 1] * from == to
        }
    };
    if !shape_ok {
        return Err(mismatch(format!(
            "bitcast_convert: {:?}{:?} cannot become {:?}{:?}",
            operand.element, operand.shape, result.element, result.shape
        )));
    }
    // Complex on either side: whole bytes, read in the same row-major order.
    if operand.element.is_complex() || result.element.is_complex() {
        if operand.element == ElementType::I1 || result.element == ElementType::I1 {
            return Err(mismatch(
                "bitcast_convert between i1 and complex is not supported".to_owned(),
            ));
        }
        let bytes = operand.le_bytes();
        return if result.element.is_complex() {
            Tensor::from_complex_le_bytes(result.element, result.shape.clone(), &bytes)
        } else {
            let dtype = result.element.dtype()?;
            let host = crate::HostTensor::from_bytes(
                dtype,
                result.shape.iter().map(|&d| d as u64).collect(),
                bytes,
            )
            .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
            Tensor::from_host(&host)
        };
    }
    // Whole-byte types: the result is the operand's little-endian byte
    // stream read back in the result's type (what the bit loop below
    // computes, without visiting every bit).
    let whole_bytes = |e: ElementType, width: usize| e != ElementType::I1 && width % 8 == 0;
    if whole_bytes(operand.element, from) && whole_bytes(result.element, to) {
        let host = crate::HostTensor::from_bytes(
            result.element.dtype()?,
            result.shape.iter().map(|&d| d as u64).collect(),
            operand.le_bytes(),
        )
        .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
        return Tensor::from_host(&host);
    }
    // Each element as its little-endian bit pattern in a u64.
    let words: Vec<u64> = match &operand.data {
        Data::Bool(v) => v.iter().map(|&b| u64::from(b)).collect(),
        _ => {
            let host = operand
                .to_host()
                .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
            let size = operand.element.size_bytes();
            host.bytes()
                .chunks_exact(size)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..size].copy_from_slice(c);
                    u64::from_le_bytes(b)
                })
                .collect()
        }
    };
    let count = result.len();
    let mut out = vec![0u64; count];
    for (j, word) in out.iter_mut().enumerate() {
        for b in 0..to {
            let bit = j * to + b;
            if (words[bit / from] >> (bit % from)) & 1 == 1 {
                *word |= 1 << b;
            }
        }
    }
    if result.element == ElementType::I1 {
        return Tensor::new(
            ElementType::I1,
            result.shape.clone(),
            Data::Bool(out.iter().map(|&w| w != 0).collect()),
        );
    }
    let size = result.element.size_bytes();
    let bytes: Vec<u8> = out
        .iter()
        .flat_map(|w| w.to_le_bytes()[..size].to_vec())
        .collect();
    let host = crate::HostTensor::from_bytes(
        result.element.dtype()?,
        result.shape.iter().map(|&d| d as u64).collect(),
        bytes,
    )
    .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
    Tensor::from_host(&host)
}

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

/// Stable bottom-up merge sort of `items` by a fallible `less`.
fn merge_sort<E>(
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
    fast: Option<(Direction, Option<CompareType>)>,
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
            if let Some((direction, compare_type)) = fast {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(shape: &[usize], v: &[i64]) -> Tensor {
        Tensor::new(
            ElementType::Signed(64),
            shape.to_vec(),
            Data::Signed(v.to_vec()),
        )
        .unwrap()
    }

    fn scalar(v: i64) -> Tensor {
        ints(&[], &[v])
    }

    #[test]
    fn slices() {
        let t = ints(&[3, 4], &(0..12).collect::<Vec<_>>());
        let s = slice(&t, &[0, 1], &[3, 4], &[2, 2]).unwrap();
        assert_eq!(
            (s.shape.clone(), s.data),
            (vec![2, 2], Data::Signed(vec![1, 3, 9, 11]))
        );
        assert!(slice(&t, &[0, 1], &[4, 4], &[1, 1]).is_err());
        assert!(slice(&t, &[0, 1], &[3, 4], &[1, 0]).is_err());
        let d = dynamic_slice(&t, &[&scalar(5), &scalar(-2)], &[2, 2]).unwrap();
        assert_eq!(d.data, Data::Signed(vec![4, 5, 8, 9]));
        assert!(dynamic_slice(&t, &[&scalar(0)], &[2, 2]).is_err());
        let u =
            dynamic_update_slice(&t, &ints(&[1, 2], &[-1, -2]), &[&scalar(9), &scalar(9)]).unwrap();
        assert_eq!(
            u.data,
            Data::Signed(vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2])
        );
    }

    #[test]
    fn concatenates_pads_and_reverses() {
        let a = ints(&[2, 1], &[1, 2]);
        let b = ints(&[2, 2], &[3, 4, 5, 6]);
        let c = concatenate(&[&a, &b], 1).unwrap();
        assert_eq!(c.data, Data::Signed(vec![1, 3, 4, 2, 5, 6]));
        assert!(concatenate(&[&a, &b], 0).is_err());
        let p = pad(&ints(&[3], &[1, 2, 3]), &scalar(0), &[-1], &[1], &[1]).unwrap();
        assert_eq!(p.data, Data::Signed(vec![0, 2, 0, 3, 0]));
        assert!(pad(&a, &scalar(0), &[0, 0], &[0, 0], &[-1, 0]).is_err());
        assert!(pad(&a, &scalar(0), &[-5, 0], &[0, 0], &[0, 0]).is_err());
        let r = reverse(&b, &[0, 1]).unwrap();
        assert_eq!(r.data, Data::Signed(vec![6, 5, 4, 3]));
        assert!(reverse(&b, &[1, 1]).is_err());
    }

    #[test]
    fn clamps_and_bitcasts() {
        let c = clamp(&scalar(0), &ints(&[3], &[-1, 1, 3]), &scalar(2)).unwrap();
        assert_eq!(c.data, Data::Signed(vec![0, 1, 2]));
        let f = Tensor::new(ElementType::F32, vec![1], Data::F32(vec![1.0])).unwrap();
        let ty = TensorType {
            element: ElementType::Unsigned(16),
            shape: vec![1, 2],
        };
        let b = bitcast_convert(&f, &ty).unwrap();
        assert_eq!(b.data, Data::Unsigned(vec![0, 0x3f80]));
        let back = bitcast_convert(
            &b,
            &TensorType {
                element: ElementType::F32,
                shape: vec![1],
            },
        )
        .unwrap();
        assert_eq!(back, f);
        assert!(bitcast_convert(
            &f,
            &TensorType {
                element: ElementType::F64,
                shape: vec![]
            }
        )
        .is_err());
    }

    #[test]
    fn gathers_and_checks_attributes() {
        let operand = ints(&[3, 2], &[1, 2, 3, 4, 5, 6]);
        let indices = ints(&[2, 1], &[2, 0]);
        let dims = GatherDims::read(
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], \
             start_index_map = [0], index_vector_dim = 1>",
        )
        .unwrap();
        let g = gather(&operand, &indices, &dims, &[1, 2], &[2, 2]).unwrap();
        assert_eq!(g.data, Data::Signed(vec![5, 6, 1, 2]));
        let mut bad = dims.clone();
        bad.start_index_map = vec![7];
        assert!(gather(&operand, &indices, &bad, &[1, 2], &[2, 2]).is_err());
        assert!(gather(&operand, &indices, &dims, &[1, 3], &[2, 2]).is_err());
    }

    /// A body computing `f(arg0, arg1)` on i64 scalars.
    struct Mock(fn(i64, i64) -> i64, Option<crate::ops::Combiner>);

    impl Body for Mock {
        fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
            let v = |t: &Tensor| match &t.data {
                Data::Signed(v) => v[0],
                _ => unreachable!(),
            };
            Ok(vec![scalar((self.0)(v(&args[0]), v(&args[1])))])
        }
        fn combiner(&self) -> Option<crate::ops::Combiner> {
            self.1
        }
    }

    /// A comparator body `arg0 < arg1` on the first input.
    struct Less;

    impl Body for Less {
        fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
            let less = super::super::compare(Direction::Lt, None, &args[0], &args[1])?;
            Ok(vec![less])
        }
        fn combiner(&self) -> Option<crate::ops::Combiner> {
            None
        }
    }

    #[test]
    fn scatters_in_update_order() {
        let input = ints(&[4], &[10, 20, 30, 40]);
        let indices = ints(&[3, 1], &[1, 7, 1]);
        let updates = ints(&[3], &[1, 2, 3]);
        let dims = ScatterDims::read(
            "#stablehlo.scatter<inserted_window_dims = [0], \
             scatter_dims_to_operand_dims = [0], index_vector_dim = 1>",
        )
        .unwrap();
        let types = [input.tensor_type()];
        let operands = [&input, &indices, &updates];
        let add = |c| Mock(|a, b| a.wrapping_add(b), c);
        let fast = scatter(
            &operands,
            &dims,
            &add(Some(crate::ops::Combiner::Add)),
            false,
            &types,
        );
        let slow = scatter(&operands, &dims, &add(None), false, &types).unwrap();
        assert_eq!(fast.unwrap(), slow);
        assert_eq!(slow[0].data, Data::Signed(vec![10, 24, 30, 40]));
        let set = scatter(&operands, &dims, &Mock(|_, b| b, None), true, &types).unwrap();
        assert_eq!(set[0].data, Data::Signed(vec![10, 3, 30, 40]));
        let slow_set = scatter(&operands, &dims, &Mock(|_, b| b, None), false, &types).unwrap();
        assert_eq!(set, slow_set);
        let mut bad = dims.clone();
        bad.index_vector_dim = 5;
        assert!(scatter(&operands, &dims, &add(None), false, &types[..0]).is_err());
        assert!(scatter(&operands, &bad, &add(None), false, &types).is_err());
    }

    #[test]
    fn sorts_stably_with_and_without_fast_path() {
        let keys = ints(&[2, 3], &[3, 1, 3, 2, 2, 1]);
        let payload = ints(&[2, 3], &[0, 1, 2, 3, 4, 5]);
        let fast = Some((Direction::Lt, None));
        for f in [None, fast] {
            let out = sort(&[&keys, &payload], -1, &Less, f).unwrap();
            assert_eq!(out[0].data, Data::Signed(vec![1, 3, 3, 1, 2, 2]));
            assert_eq!(out[1].data, Data::Signed(vec![1, 0, 2, 5, 3, 4]));
            let by_column = sort(&[&keys, &payload], 0, &Less, f).unwrap();
            assert_eq!(by_column[1].data, Data::Signed(vec![3, 1, 5, 0, 4, 2]));
        }
        assert!(sort(&[&keys], 2, &Less, None).is_err());
    }

    #[test]
    fn merge_sort_is_stable_and_total() {
        let keys = [3, 1, 2, 1, 3, 0];
        let mut items: Vec<usize> = (0..keys.len()).collect();
        merge_sort::<()>(&mut items, &mut |a, b| Ok(keys[a] < keys[b])).unwrap();
        assert_eq!(items, vec![5, 1, 3, 2, 0, 4]);
        // An inconsistent comparator must not panic.
        let mut items: Vec<usize> = (0..17).collect();
        merge_sort::<()>(&mut items, &mut |a, b| Ok((a * 7 + b) % 3 == 0)).unwrap();
        items.sort_unstable();
        assert_eq!(items, (0..17).collect::<Vec<_>>());
    }
}
