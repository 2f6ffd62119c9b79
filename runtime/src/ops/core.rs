//! The core family: constants, elementwise arithmetic, bitwise ops,
//! compare, select, convert and the shape ops (broadcast, reshape,
//! transpose, iota), on the kernels of `elementwise.rs`, `bitwise.rs` and
//! `movement/shape.rs`. Each op's attributes are read by its decoded form
//! ([`Decoded`](decoded::Decoded), `decoded.rs`), which also holds the
//! `match` that calls the kernels. The interpreter runs the same decoded
//! form from its plan without coming here; this family runs the ops
//! otherwise (under a backend, or when an op's operands or attributes are
//! wrong, which it reports).

use melior::ir::OperationRef;

use super::decoded;
use super::{OpError, Regions};
use crate::value::Tensor;

/// The ops this family evaluates.
pub const OPS: &[&str] = &[
    "stablehlo.abs",
    "stablehlo.add",
    "stablehlo.and",
    "stablehlo.broadcast_in_dim",
    "stablehlo.compare",
    "stablehlo.constant",
    "stablehlo.convert",
    "stablehlo.divide",
    "stablehlo.iota",
    "stablehlo.maximum",
    "stablehlo.minimum",
    "stablehlo.multiply",
    "stablehlo.negate",
    "stablehlo.not",
    "stablehlo.or",
    "stablehlo.reshape",
    "stablehlo.select",
    "stablehlo.subtract",
    "stablehlo.transpose",
    "stablehlo.xor",
];

/// The family entry point (see [`crate::ops::Family`]): the operand count
/// checked, the attributes decoded ([`decoded::Decoded`]), the op run.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    if !OPS.contains(&name) {
        return Ok(None);
    }
    decoded::evaluate(op, name, operands)
}
