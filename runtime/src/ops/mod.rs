//! The ops of the interpreter: each a pure function from input tensors (and
//! the op's attributes, already decoded) to an output tensor, following the
//! StableHLO specification's definition of the op.

pub mod bitwise;
pub mod elementwise;
pub mod shape;

pub use bitwise::{bitwise, not, BitwiseOp};
pub use elementwise::{
    binary, compare, convert, select, unary, BinaryOp, CompareType, Direction, UnaryOp,
};
pub use shape::{broadcast_in_dim, iota, reshape, transpose};

use crate::value::{Tensor, ValueError};

fn same_type(op: &str, a: &Tensor, b: &Tensor) -> Result<(), ValueError> {
    if a.element != b.element || a.shape != b.shape {
        return Err(ValueError::Mismatch(format!(
            "{op}: operands differ: {:?}{:?} vs {:?}{:?}",
            a.element, a.shape, b.element, b.shape
        )));
    }
    Ok(())
}
