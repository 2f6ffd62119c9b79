//! The decoded form of an op: its attributes read once, by one decoder,
//! for every path that runs it (the CPU families, the interpreter's plan,
//! the CUDA backend).
//!
//! * [`Decoded`]: the ops that run from their operands alone (the core and
//!   linear algebra families), each variant holding that op's attributes;
//!   [`Decoded::run`] is the `match` that calls the op's pure function.
//! * [`ReduceAttrs`]: the attributes of `stablehlo.reduce`.
//! * [`Comparison`]: a `compare`'s direction and type, also read from the
//!   comparator region of `sort` and `select_and_scatter` (`comparator`);
//!   `combiner` reads a reduction body that is a single binary op.
//!
//! # Error policy
//!
//! Decoding fails with the [`ValueError`] of the first attribute, in a
//! fixed order per op, that is missing or malformed; the error names the
//! attribute, and the interpreter adds the op's name and location. A path
//! that can run an op another way (the interpreter's plan, the CUDA
//! backend, the comparator fast path) takes a failed decoding as "not
//! decoded" and leaves the op to its CPU family, which checks the operand
//! count first (`evaluate`) and then reports that same error, so the same
//! bad input gives the same error on every path.
//!
//! Preconditions: none; decoding reads printed attributes and never panics.

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, OperationRef, RegionLike, ValueLike};
use zkdv_ir::op_name;

use super::linalg::{ConvDimensions, ConvWindow, DotDimensions};
use super::{arity, BinaryOp, BitwiseOp, Combiner, CompareType, Direction, OpError, UnaryOp};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// The direction and type of a `stablehlo.compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparison {
    /// `comparison_direction`.
    pub direction: Direction,
    /// `compare_type` (absent: `None`).
    pub compare_type: Option<CompareType>,
}

impl Comparison {
    /// Reads `comparison_direction` (required), then `compare_type`.
    pub fn decode(op: &OperationRef<'_, '_>) -> Result<Self, ValueError> {
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
        Ok(Self {
            direction,
            compare_type,
        })
    }
}

/// An op that runs from its operands alone, with its attributes decoded.
#[derive(Debug, Clone)]
pub enum Decoded {
    /// `stablehlo.constant`: its `value`.
    Constant(Tensor),
    /// An elementwise arithmetic op.
    Binary(BinaryOp),
    /// `negate` or `abs`.
    Unary(UnaryOp),
    /// `and`, `or` or `xor`.
    Bitwise(BitwiseOp),
    /// `stablehlo.not`.
    Not,
    /// `stablehlo.compare`.
    Compare(Comparison),
    /// `stablehlo.select`.
    Select,
    /// `stablehlo.convert` to the result's element type.
    Convert(ElementType),
    /// `stablehlo.broadcast_in_dim`.
    Broadcast {
        /// `broadcast_dimensions`.
        dimensions: Vec<usize>,
        /// The result shape.
        shape: Vec<usize>,
    },
    /// `stablehlo.reshape` to the result shape.
    Reshape(Vec<usize>),
    /// `stablehlo.transpose` by `permutation`.
    Transpose(Vec<usize>),
    /// `stablehlo.iota`.
    Iota {
        /// The result type.
        result: TensorType,
        /// `iota_dimension`.
        dimension: usize,
    },
    /// `stablehlo.dot_general`.
    DotGeneral {
        /// `dot_dimension_numbers`.
        dimensions: DotDimensions,
        /// The result type.
        result: TensorType,
        /// Whether a backend may compute it in reduced precision
        /// (its `precision_config` names no `HIGHEST`).
        reduced: bool,
    },
    /// `stablehlo.dot` into the result type; whether a backend may compute
    /// it in reduced precision.
    Dot(TensorType, bool),
    /// `stablehlo.convolution`.
    Convolution {
        /// `dimension_numbers`.
        dimensions: ConvDimensions,
        /// The window attributes.
        window: ConvWindow,
        /// The result type.
        result: TensorType,
        /// Whether a backend may compute it in reduced precision.
        reduced: bool,
    },
}

/// The elementwise arithmetic op named `name`, if it is one.
pub fn binary_op(name: &str) -> Option<BinaryOp> {
    Some(match name {
        "stablehlo.add" => BinaryOp::Add,
        "stablehlo.subtract" => BinaryOp::Subtract,
        "stablehlo.multiply" => BinaryOp::Multiply,
        "stablehlo.divide" => BinaryOp::Divide,
        "stablehlo.maximum" => BinaryOp::Maximum,
        "stablehlo.minimum" => BinaryOp::Minimum,
        _ => return None,
    })
}

impl Decoded {
    /// The operand count of op `name`, `None` when it has no decoded form.
    pub fn arity(name: &str) -> Option<usize> {
        if binary_op(name).is_some() {
            return Some(2);
        }
        Some(match name {
            "stablehlo.constant" | "stablehlo.iota" => 0,
            "stablehlo.negate"
            | "stablehlo.abs"
            | "stablehlo.not"
            | "stablehlo.convert"
            | "stablehlo.broadcast_in_dim"
            | "stablehlo.reshape"
            | "stablehlo.transpose" => 1,
            "stablehlo.and"
            | "stablehlo.or"
            | "stablehlo.xor"
            | "stablehlo.compare"
            | "stablehlo.dot_general"
            | "stablehlo.dot"
            | "stablehlo.convolution" => 2,
            "stablehlo.select" => 3,
            _ => return None,
        })
    }

    /// Decodes op `op` named `name`: `None` when it has no decoded form,
    /// else the decoded op or the error of its first bad attribute (read in
    /// the order written here).
    pub fn decode(op: &OperationRef<'_, '_>, name: &str) -> Option<Result<Self, ValueError>> {
        let result = || attrs::result_type(op, 0);
        let dimensions = |attribute: &str| attrs::dimensions(op, attribute);
        if let Some(kind) = binary_op(name) {
            return Some(Ok(Self::Binary(kind)));
        }
        Some(match name {
            "stablehlo.constant" => constant(op).map(Self::Constant),
            "stablehlo.negate" => Ok(Self::Unary(UnaryOp::Negate)),
            "stablehlo.abs" => Ok(Self::Unary(UnaryOp::Abs)),
            "stablehlo.and" => Ok(Self::Bitwise(BitwiseOp::And)),
            "stablehlo.or" => Ok(Self::Bitwise(BitwiseOp::Or)),
            "stablehlo.xor" => Ok(Self::Bitwise(BitwiseOp::Xor)),
            "stablehlo.not" => Ok(Self::Not),
            "stablehlo.compare" => Comparison::decode(op).map(Self::Compare),
            "stablehlo.select" => Ok(Self::Select),
            "stablehlo.convert" => result().map(|t| Self::Convert(t.element)),
            "stablehlo.broadcast_in_dim" => dimensions("broadcast_dimensions").and_then(|d| {
                Ok(Self::Broadcast {
                    dimensions: d,
                    shape: result()?.shape,
                })
            }),
            "stablehlo.reshape" => result().map(|t| Self::Reshape(t.shape)),
            "stablehlo.transpose" => dimensions("permutation").map(Self::Transpose),
            "stablehlo.iota" => result().and_then(|result| {
                Ok(Self::Iota {
                    result,
                    dimension: attrs::index(op, "iota_dimension")?,
                })
            }),
            "stablehlo.dot_general" => dot_dimensions(op).and_then(|dimensions| {
                Ok(Self::DotGeneral {
                    dimensions,
                    result: result()?,
                    reduced: reduced_precision(op),
                })
            }),
            "stablehlo.dot" => result().map(|t| Self::Dot(t, reduced_precision(op))),
            "stablehlo.convolution" => conv_attributes(op).and_then(|(dimensions, window)| {
                Ok(Self::Convolution {
                    dimensions,
                    window,
                    result: result()?,
                    reduced: reduced_precision(op),
                })
            }),
            _ => return None,
        })
    }

    /// Runs the op on `operands` (their count checked first).
    pub fn run(&self, operands: &[&Tensor]) -> Result<Tensor, ValueError> {
        use super::linalg::{convolution, dot, dot_general};
        use super::{
            binary, bitwise, broadcast_in_dim, compare, convert, iota, not, reshape, select,
            transpose, unary,
        };
        arity(operands, self.operand_count())?;
        match self {
            Self::Constant(value) => Ok(value.clone()),
            Self::Binary(kind) => binary(*kind, operands[0], operands[1]),
            Self::Unary(kind) => unary(*kind, operands[0]),
            Self::Bitwise(kind) => bitwise(*kind, operands[0], operands[1]),
            Self::Not => not(operands[0]),
            Self::Compare(c) => compare(c.direction, c.compare_type, operands[0], operands[1]),
            Self::Select => select(operands[0], operands[1], operands[2]),
            Self::Convert(element) => convert(operands[0], *element),
            Self::Broadcast { dimensions, shape } => {
                broadcast_in_dim(operands[0], dimensions, shape)
            }
            Self::Reshape(shape) => reshape(operands[0], shape),
            Self::Transpose(permutation) => transpose(operands[0], permutation),
            Self::Iota { result, dimension } => iota(result, *dimension),
            Self::DotGeneral {
                dimensions,
                result,
                reduced,
            } => {
                let (a, b) = product_operands(*reduced, operands);
                dot_general(&a, &b, dimensions, result)
            }
            Self::Dot(result, reduced) => {
                let (a, b) = product_operands(*reduced, operands);
                dot(&a, &b, result)
            }
            Self::Convolution {
                dimensions,
                window,
                result,
                reduced,
            } => {
                let (a, b) = product_operands(*reduced, operands);
                convolution(&a, &b, dimensions, window, result)
            }
        }
    }

    /// The number of operands the op takes.
    fn operand_count(&self) -> usize {
        match self {
            Self::Constant(_) | Self::Iota { .. } => 0,
            Self::Unary(_)
            | Self::Not
            | Self::Convert(_)
            | Self::Broadcast { .. }
            | Self::Reshape(_)
            | Self::Transpose(_) => 1,
            Self::Binary(_)
            | Self::Bitwise(_)
            | Self::Compare(_)
            | Self::DotGeneral { .. }
            | Self::Dot(..)
            | Self::Convolution { .. } => 2,
            Self::Select => 3,
        }
    }
}

/// A family's evaluation of a decoded op: `Ok(None)` when `name` has no
/// decoded form; else the operand count is checked, then the attributes
/// decoded, then the op run.
pub(crate) fn evaluate(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
) -> Result<Option<Vec<Tensor>>, OpError> {
    let Some(n) = Decoded::arity(name) else {
        return Ok(None);
    };
    arity(operands, n)?;
    let Some(decoded) = Decoded::decode(op, name) else {
        return Ok(None);
    };
    Ok(Some(vec![decoded?.run(operands)?]))
}

/// Whether a backend may compute the product `op` in reduced precision: its
/// `precision_config` (absent: `DEFAULT`) names no `HIGHEST`. On an NVIDIA
/// GPU XLA then multiplies `f32` operands as TensorFloat-32
/// ([`crate::rounding::Matmul`]).
fn reduced_precision(op: &OperationRef<'_, '_>) -> bool {
    attrs::text(op, "precision_config").map_or(true, |text| !text.contains("HIGHEST"))
}

/// The operands of a product, each rounded as this thread's ensemble member
/// rounds a reduced-precision product's operands
/// ([`crate::rounding::matmul_operand`]) when `reduced`, else as they are.
fn product_operands<'t>(
    reduced: bool,
    operands: &[&'t Tensor],
) -> (std::borrow::Cow<'t, Tensor>, std::borrow::Cow<'t, Tensor>) {
    use std::borrow::Cow;
    let take = |t: &'t Tensor| {
        reduced
            .then(|| crate::rounding::matmul_operand(t))
            .flatten()
            .map_or(Cow::Borrowed(t), Cow::Owned)
    };
    (take(operands[0]), take(operands[1]))
}

/// The `dot_dimension_numbers` of a `stablehlo.dot_general`.
fn dot_dimensions(op: &OperationRef<'_, '_>) -> Result<DotDimensions, ValueError> {
    Ok(DotDimensions::parse(&attrs::text(
        op,
        "dot_dimension_numbers",
    )?)?)
}

/// The `dimension_numbers`, then the window attributes, of a
/// `stablehlo.convolution`.
fn conv_attributes(op: &OperationRef<'_, '_>) -> Result<(ConvDimensions, ConvWindow), ValueError> {
    let dimensions = ConvDimensions::parse(&attrs::text(op, "dimension_numbers")?)?;
    let window = conv_window(op, dimensions.input_spatial.len())?;
    Ok((dimensions, window))
}

/// The `value` of a `stablehlo.constant`.
pub fn constant(op: &OperationRef<'_, '_>) -> Result<Tensor, ValueError> {
    Tensor::from_dense_text(&attrs::text(op, "value")?)
}

/// The window attributes of a `stablehlo.convolution` with `spatial`
/// spatial dimensions, absent ones at their defaults: `padding`, then
/// `window_strides`, `lhs_dilation`, `rhs_dilation`, `window_reversal`,
/// `feature_group_count`, `batch_group_count`.
fn conv_window(op: &OperationRef<'_, '_>, spatial: usize) -> Result<ConvWindow, ValueError> {
    let padding = match attrs::dense(op, "padding")? {
        None => vec![(0, 0); spatial],
        Some(t) => match (&t.data, t.shape.as_slice()) {
            (Data::Signed(v), [n, 2]) if *n == spatial => {
                v.chunks_exact(2).map(|p| (p[0], p[1])).collect()
            }
            _ => {
                return Err(ValueError::Mismatch(format!(
                    "convolution: padding must be an integer tensor<{spatial}x2>, found {:?}{:?}",
                    t.element, t.shape
                )))
            }
        },
    };
    Ok(ConvWindow {
        strides: attrs::i64_array_or(op, "window_strides", vec![1; spatial])?,
        padding,
        lhs_dilation: attrs::i64_array_or(op, "lhs_dilation", vec![1; spatial])?,
        rhs_dilation: attrs::i64_array_or(op, "rhs_dilation", vec![1; spatial])?,
        reversal: attrs::bool_array(op, "window_reversal")?.unwrap_or_else(|| vec![false; spatial]),
        feature_group_count: attrs::integer_or(op, "feature_group_count", 1)?,
        batch_group_count: attrs::integer_or(op, "batch_group_count", 1)?,
    })
}

/// The attributes of a `stablehlo.reduce`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReduceAttrs {
    /// The result types (one per input).
    pub results: Vec<TensorType>,
    /// `dimensions`, the reduced dimensions.
    pub dimensions: Vec<usize>,
}

impl ReduceAttrs {
    /// Reads the result types, then `dimensions`.
    pub fn decode(op: &OperationRef<'_, '_>) -> Result<Self, ValueError> {
        Ok(Self {
            results: attrs::result_types(op)?,
            dimensions: attrs::dimensions(op, "dimensions")?,
        })
    }
}

/// The op of a block `^bb0(%a, %b, ...): %r = op(%a, %b); return %r`: at
/// least two arguments (exactly two when `exact`), the op applied to the
/// first two, its result returned, nothing else.
fn single_op_body<'c, 'a>(block: BlockRef<'c, 'a>, exact: bool) -> Option<OperationRef<'c, 'a>> {
    let count = block.argument_count();
    if count < 2 || (exact && count != 2) {
        return None;
    }
    let first = block.first_operation()?;
    let ret = first.next_in_block()?;
    if ret.next_in_block().is_some() || op_name(&ret) != "stablehlo.return" {
        return None;
    }
    let a = block.argument(0).ok()?.to_raw().ptr;
    let b = block.argument(1).ok()?.to_raw().ptr;
    let operands: Vec<_> = first.operands().map(|v| v.to_raw().ptr).collect();
    let result = first.result(0).ok()?.to_raw().ptr;
    let returned: Vec<_> = ret.operands().map(|v| v.to_raw().ptr).collect();
    (operands == [a, b] && returned == [result]).then_some(first)
}

/// `Some(op)` when `block` is `^bb0(%a, %b): %r = op(%a, %b); return %r`
/// for a binary op a reduction can combine directly.
pub(crate) fn combiner(block: BlockRef<'_, '_>) -> Option<Combiner> {
    let first = single_op_body(block, true)?;
    Some(match op_name(&first).as_str() {
        "stablehlo.add" => Combiner::Add,
        "stablehlo.multiply" => Combiner::Multiply,
        "stablehlo.maximum" => Combiner::Maximum,
        "stablehlo.minimum" => Combiner::Minimum,
        "stablehlo.and" => Combiner::And,
        "stablehlo.or" => Combiner::Or,
        "stablehlo.xor" => Combiner::Xor,
        _ => return None,
    })
}

/// The comparison of region `index` of `op` when that region is exactly
/// `compare(arg0, arg1)` (the comparator of `sort` or the select of
/// `select_and_scatter`); `None` otherwise, or when its attributes do not
/// decode (the region then runs as it is, which reports them).
pub(crate) fn comparator(op: &OperationRef<'_, '_>, index: usize) -> Option<Comparison> {
    let block = op.region(index).ok()?.first_block()?;
    let first = single_op_body(block, false)?;
    if op_name(&first) != "stablehlo.compare" {
        return None;
    }
    Comparison::decode(&first).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{core, linalg, table};
    use zkdv_ir::IrContext;

    /// The decoded ops are exactly those of the core and linear algebra
    /// families; `arity` and `decode` agree on them, and with the operand
    /// count of what decodes (here, the ops without attributes).
    #[test]
    fn decoded_ops_are_the_core_and_linalg_families() {
        let context = IrContext::new();
        let module = context
            .parse(
                r#""func.func"() <{function_type = () -> (), sym_name = "main"}> ({
  "test.op"() : () -> ()
  "func.return"() : () -> ()
}) : () -> ()"#,
                "t.mlir",
            )
            .expect("parses");
        let func = zkdv_ir::find_function(&module, "main").expect("main");
        let op = zkdv_ir::collect_nested_ops(func)
            .into_iter()
            .next()
            .expect("an op");
        for (name, _) in table::supported() {
            let listed = core::OPS.contains(&name) || linalg::OPS.contains(&name);
            assert_eq!(Decoded::arity(name).is_some(), listed, "{name}");
            let decoded = Decoded::decode(&op, name);
            assert_eq!(decoded.is_some(), listed, "{name}");
            if let Some(Ok(decoded)) = decoded {
                assert_eq!(
                    Some(decoded.operand_count()),
                    Decoded::arity(name),
                    "{name}"
                );
            }
        }
    }
}
