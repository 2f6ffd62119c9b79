//! The core family: constants, elementwise arithmetic, bitwise ops,
//! compare, select, convert and the shape ops (broadcast, reshape,
//! transpose, iota), on the kernels of `elementwise.rs`, `bitwise.rs` and
//! `movement/shape.rs`. The interpreter also runs the most frequent of
//! these through decoded plans without coming here; this family is their
//! reference path.

use melior::ir::OperationRef;

use super::{
    arity, binary, bitwise, broadcast_in_dim, compare, convert, iota, not, reshape, select,
    transpose, unary, BinaryOp, BitwiseOp, CompareType, Direction, OpError, Regions, UnaryOp,
};
use crate::attrs;
use crate::value::{Tensor, ValueError};

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

/// The family entry point (see [`crate::ops::Family`]).
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let arity = |n: usize| arity(operands, n);
    let binary = |kind: BinaryOp| arity(2).and_then(|()| binary(kind, operands[0], operands[1]));
    let bitwise = |kind: BitwiseOp| arity(2).and_then(|()| bitwise(kind, operands[0], operands[1]));
    let unary = |kind: UnaryOp| arity(1).and_then(|()| unary(kind, operands[0]));
    let result_type = || attrs::result_type(op, 0);
    let result = match name {
        "stablehlo.constant" => {
            arity(0)?;
            Tensor::from_dense_text(&attrs::text(op, "value")?)
        }
        "stablehlo.add" => binary(BinaryOp::Add),
        "stablehlo.subtract" => binary(BinaryOp::Subtract),
        "stablehlo.multiply" => binary(BinaryOp::Multiply),
        "stablehlo.divide" => binary(BinaryOp::Divide),
        "stablehlo.maximum" => binary(BinaryOp::Maximum),
        "stablehlo.minimum" => binary(BinaryOp::Minimum),
        "stablehlo.negate" => unary(UnaryOp::Negate),
        "stablehlo.abs" => unary(UnaryOp::Abs),
        "stablehlo.and" => bitwise(BitwiseOp::And),
        "stablehlo.or" => bitwise(BitwiseOp::Or),
        "stablehlo.xor" => bitwise(BitwiseOp::Xor),
        "stablehlo.not" => arity(1).and_then(|()| not(operands[0])),
        "stablehlo.compare" => {
            arity(2)?;
            let bad = |text: String| ValueError::Malformed {
                what: "compare attribute",
                text,
            };
            let direction = attrs::enum_keyword(op, "comparison_direction")?
                .ok_or_else(|| bad("comparison_direction missing".to_owned()))?;
            let direction = Direction::parse(&direction).ok_or_else(|| bad(direction))?;
            let compare_type = match attrs::enum_keyword(op, "compare_type")? {
                None => None,
                Some(text) => Some(CompareType::parse(&text).ok_or_else(|| bad(text))?),
            };
            compare(direction, compare_type, operands[0], operands[1])
        }
        "stablehlo.select" => {
            arity(3)?;
            select(operands[0], operands[1], operands[2])
        }
        "stablehlo.convert" => {
            arity(1)?;
            convert(operands[0], result_type()?.element)
        }
        "stablehlo.broadcast_in_dim" => {
            arity(1)?;
            let dims = attrs::dimensions(op, "broadcast_dimensions")?;
            broadcast_in_dim(operands[0], &dims, &result_type()?.shape)
        }
        "stablehlo.reshape" => {
            arity(1)?;
            reshape(operands[0], &result_type()?.shape)
        }
        "stablehlo.transpose" => {
            arity(1)?;
            transpose(operands[0], &attrs::dimensions(op, "permutation")?)
        }
        "stablehlo.iota" => {
            arity(0)?;
            iota(&result_type()?, attrs::index(op, "iota_dimension")?)
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![result?]))
}
