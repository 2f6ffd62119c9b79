//! The ops of the interpreter: each a pure function from input tensors (and
//! the op's attributes, already decoded) to an output tensor, following the
//! StableHLO specification's definition of the op.

pub mod bitwise;
pub mod collective;
pub mod complex;
pub mod core;
pub mod decoded;
pub mod elementwise;
pub mod linalg;
pub mod linalg_solve;
pub mod math;
pub mod movement;
pub mod per_element;
pub mod reduction;
pub mod scalar;
pub mod selection;
pub mod table;

pub use bitwise::{bitwise, not, BitwiseOp};
pub use elementwise::{
    binary, binary_in_place, compare, convert, select, unary, BinaryOp, CompareType, Direction,
    UnaryOp,
};
pub use movement::{broadcast_in_dim, iota, reshape, transpose};

use melior::ir::OperationRef;

use crate::value::{Tensor, ValueError};
use crate::RuntimeError;

/// Why an op failed: a problem with its values or attributes, or an error
/// from running one of its regions (which already carries its location).
#[derive(Debug)]
pub enum OpError {
    /// Operands, attributes or types the op does not accept.
    Value(ValueError),
    /// An error raised while running a region of the op.
    Runtime(RuntimeError),
}

impl From<ValueError> for OpError {
    fn from(error: ValueError) -> Self {
        OpError::Value(error)
    }
}

impl From<RuntimeError> for OpError {
    fn from(error: RuntimeError) -> Self {
        OpError::Runtime(error)
    }
}

/// The binary op that makes up a whole body, when it is that simple: ops
/// may then combine elements directly, with the same IEEE result as running
/// the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combiner {
    /// `stablehlo.add`.
    Add,
    /// `stablehlo.multiply`.
    Multiply,
    /// `stablehlo.maximum`.
    Maximum,
    /// `stablehlo.minimum`.
    Minimum,
    /// `stablehlo.and`.
    And,
    /// `stablehlo.or`.
    Or,
    /// `stablehlo.xor`.
    Xor,
}

/// A region of an op applied to rank-0 tensors: the body of `reduce`,
/// `reduce_window`, `select_and_scatter`, `scatter` or `sort`.
pub trait Body {
    /// Runs the body on `args` and returns the operands of its return.
    fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError>;
    /// `Some(op)` when the body is `return op(arg0, arg1)` and nothing else.
    fn combiner(&self) -> Option<Combiner>;
}

/// Access to an op's regions while it is evaluated.
pub trait Regions {
    /// Region `index` of the op as a [`Body`].
    fn body(&self, index: usize) -> Result<Box<dyn Body + '_>, OpError>;
}

/// One family of ops: evaluates `op` (named `name`) on its operands, or
/// answers `Ok(None)` when `name` is not in the family.
pub type Family = fn(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError>;

/// Checks the operand count.
pub fn arity(operands: &[&Tensor], n: usize) -> Result<(), ValueError> {
    if operands.len() == n {
        Ok(())
    } else {
        Err(ValueError::Mismatch(format!(
            "expected {n} operands, found {}",
            operands.len()
        )))
    }
}

fn same_type(op: &str, a: &Tensor, b: &Tensor) -> Result<(), ValueError> {
    if a.element != b.element || a.shape != b.shape {
        return Err(ValueError::Mismatch(format!(
            "{op}: operands differ: {:?}{:?} vs {:?}{:?}",
            a.element, a.shape, b.element, b.shape
        )));
    }
    Ok(())
}
