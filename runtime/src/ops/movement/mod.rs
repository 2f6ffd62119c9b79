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
//!
//! # Files
//!
//! * `shape.rs`: reshape, transpose, reverse, broadcast_in_dim and iota,
//!   the home of each, with the shape checks of their dynamic forms;
//! * `slicing.rs`: slice, dynamic_slice and dynamic_update_slice;
//! * `concat_pad.rs`: concatenate and pad;
//! * `gather_scatter.rs`: gather and scatter with their dimension numbers;
//! * `sort.rs`: the merge sort;
//! * `bitcast_clamp.rs`: clamp and bitcast_convert.

mod bitcast_clamp;
mod concat_pad;
mod gather_scatter;
mod shape;
mod slicing;
mod sort;

pub use bitcast_clamp::{bitcast_convert, clamp};
pub use concat_pad::{concatenate, pad};
pub(crate) use gather_scatter::returns_updates;
pub use gather_scatter::{gather, scatter, GatherDims, ScatterDims};
pub use shape::{broadcast_in_dim, iota, reshape, reverse, transpose};
pub use slicing::{dynamic_slice, dynamic_update_slice, slice};
pub use sort::sort;

use melior::ir::OperationRef;

use super::decoded::comparator;
use super::scalar::{index_values, mismatch};
use super::{arity, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, ValueError};

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
            let fast = comparator(op, 0);
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
            one(crate::ops::convert(
                &value,
                attrs::result_type(op, 0)?.element,
            ))
        }
        "stablehlo.dynamic_iota" => {
            arity(operands, 1)?;
            let result = attrs::result_type(op, 0)?;
            shape::check_shape_operand(operands[0], &result.shape)?;
            one(iota(&result, attrs::index(op, "iota_dimension")?))
        }
        "stablehlo.dynamic_reshape" => {
            arity(operands, 2)?;
            let result = attrs::result_type(op, 0)?;
            shape::check_shape_operand(operands[1], &result.shape)?;
            one(reshape(operands[0], &result.shape))
        }
        "stablehlo.dynamic_broadcast_in_dim" => {
            arity(operands, 2)?;
            let result = attrs::result_type(op, 0)?;
            shape::check_shape_operand(operands[1], &result.shape)?;
            let dims = attrs::dimensions(op, "broadcast_dimensions")?;
            one(broadcast_in_dim(operands[0], &dims, &result.shape))
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

pub(super) fn no_operands() -> ValueError {
    mismatch("too few operands".to_owned())
}

pub(super) fn to_usize(value: i64, what: &str) -> Result<usize, ValueError> {
    usize::try_from(value).map_err(|_| mismatch(format!("{what}: {value} is negative")))
}

pub(super) fn check_rank(what: &str, values: &[i64], rank: usize) -> Result<(), ValueError> {
    if values.len() != rank {
        return Err(mismatch(format!(
            "{what}: {} values for rank {rank}",
            values.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
