//! The fast path: the most frequent core ops with their attributes decoded
//! once into a [`Decoded`], run without reading attributes or going
//! through the op table.

use super::*;

/// A frequent core op with its attributes decoded once, so that running it
/// neither reads attributes nor goes through the families (an op whose
/// attributes do not decode runs the ordinary way, which reports them).
pub(super) enum Decoded {
    Binary(ops::BinaryOp),
    Unary(ops::UnaryOp),
    Broadcast {
        dimensions: Vec<usize>,
        shape: Vec<usize>,
    },
    Reshape(Vec<usize>),
    Transpose(Vec<usize>),
    Convert(crate::ElementType),
    Compare(ops::Direction, Option<ops::CompareType>),
    Select,
    DotGeneral(ops::linalg::DotDimensions, TensorType),
}

impl Decoded {
    pub(super) fn of(op: &OperationRef<'_, '_>, name: &str) -> Option<Self> {
        use ops::{BinaryOp, CompareType, Direction, UnaryOp};
        let result = || attrs::result_type(op, 0).ok();
        Some(match name {
            "stablehlo.add" => Self::Binary(BinaryOp::Add),
            "stablehlo.subtract" => Self::Binary(BinaryOp::Subtract),
            "stablehlo.multiply" => Self::Binary(BinaryOp::Multiply),
            "stablehlo.divide" => Self::Binary(BinaryOp::Divide),
            "stablehlo.maximum" => Self::Binary(BinaryOp::Maximum),
            "stablehlo.minimum" => Self::Binary(BinaryOp::Minimum),
            "stablehlo.negate" => Self::Unary(UnaryOp::Negate),
            "stablehlo.abs" => Self::Unary(UnaryOp::Abs),
            "stablehlo.broadcast_in_dim" => Self::Broadcast {
                dimensions: attrs::dimensions(op, "broadcast_dimensions").ok()?,
                shape: result()?.shape,
            },
            "stablehlo.reshape" => Self::Reshape(result()?.shape),
            "stablehlo.transpose" => Self::Transpose(attrs::dimensions(op, "permutation").ok()?),
            "stablehlo.convert" => Self::Convert(result()?.element),
            "stablehlo.compare" => {
                let direction = attrs::enum_keyword(op, "comparison_direction").ok()??;
                let compare_type = match attrs::enum_keyword(op, "compare_type").ok()? {
                    None => None,
                    Some(text) => Some(CompareType::parse(&text)?),
                };
                Self::Compare(Direction::parse(&direction)?, compare_type)
            }
            "stablehlo.select" => Self::Select,
            "stablehlo.dot_general" => Self::DotGeneral(
                ops::linalg::DotDimensions::parse(&attrs::text(op, "dot_dimension_numbers").ok()?)
                    .ok()?,
                result()?,
            ),
            _ => return None,
        })
    }

    pub(super) fn run(&self, operands: &[&Tensor]) -> Result<Tensor, ValueError> {
        let arity = |n: usize| ops::arity(operands, n);
        match self {
            Self::Binary(kind) => {
                arity(2).and_then(|()| ops::binary(*kind, operands[0], operands[1]))
            }
            Self::Unary(kind) => arity(1).and_then(|()| ops::unary(*kind, operands[0])),
            Self::Broadcast { dimensions, shape } => {
                arity(1).and_then(|()| ops::broadcast_in_dim(operands[0], dimensions, shape))
            }
            Self::Reshape(shape) => arity(1).and_then(|()| ops::reshape(operands[0], shape)),
            Self::Transpose(permutation) => {
                arity(1).and_then(|()| ops::transpose(operands[0], permutation))
            }
            Self::Convert(element) => arity(1).and_then(|()| ops::convert(operands[0], *element)),
            Self::Compare(direction, compare_type) => arity(2)
                .and_then(|()| ops::compare(*direction, *compare_type, operands[0], operands[1])),
            Self::Select => {
                arity(3).and_then(|()| ops::select(operands[0], operands[1], operands[2]))
            }
            Self::DotGeneral(dimensions, result) => arity(2).and_then(|()| {
                ops::linalg::dot_general(operands[0], operands[1], dimensions, result)
            }),
        }
    }
}
