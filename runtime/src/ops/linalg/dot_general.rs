//! `stablehlo.dot_general` and `stablehlo.dot`: the operands checked
//! ([`super::shape::dot_layout`]), converted to the result's element type,
//! arranged as batched row-major matrices and multiplied by the tiled
//! kernel ([`super::gemm`]), each output element summing its products in
//! the order of the module docs of [`super`].
//!
//! Preconditions: none on the operands (every shape and dimension number is
//! checked first). Invariant: the bits of the result depend only on the
//! operands, never on the thread count or instruction set.

use std::borrow::Cow;

use super::gemm::{batched_matmul, MatmulShape};
use super::ring::{on_ring, Ring, RingKernel};
use super::shape::dot_layout;
use super::{arrange, finish, mismatch};
use crate::value::{Tensor, TensorType, ValueError};

pub use zkdv_ir::attrs::DotDimensions;

/// The operands of `dot_general` checked, converted to the result's element
/// type and arranged as row-major `[batch, rows, depth]` (lhs) and
/// `[batch, depth, cols]` (rhs) matrices, the contracting index in the
/// order of the module docs: every backend multiplies these.
#[cfg(feature = "cuda")]
pub(crate) fn dot_operands<'t>(
    lhs: &'t Tensor,
    rhs: &'t Tensor,
    dims: &DotDimensions,
    result: &TensorType,
) -> Result<(Cow<'t, Tensor>, Cow<'t, Tensor>, MatmulShape), ValueError> {
    let (a, b, shape, _) = arranged_operands(lhs, rhs, dims, result, false)?;
    Ok((a, b, shape))
}

/// [`dot_operands`]; with `may_transpose`, the rhs comes as `[batch, cols,
/// depth]` when that is its layout already (the flag says so), which saves
/// copying a transposed weight matrix (`x @ W.T`, and most gradients).
fn arranged_operands<'t>(
    lhs: &'t Tensor,
    rhs: &'t Tensor,
    dims: &DotDimensions,
    result: &TensorType,
    may_transpose: bool,
) -> Result<(Cow<'t, Tensor>, Cow<'t, Tensor>, MatmulShape, bool), ValueError> {
    let layout = dot_layout(&lhs.shape, &rhs.shape, dims, &result.shape)?;
    let identity = |perm: &[usize]| perm.iter().enumerate().all(|(i, &p)| i == p);
    let transposed = may_transpose && !identity(&layout.rhs) && identity(&layout.rhs_transposed);
    let a = arrange(lhs, result.element, &layout.lhs)?;
    let b = if transposed {
        arrange(rhs, result.element, &layout.rhs_transposed)?
    } else {
        arrange(rhs, result.element, &layout.rhs)?
    };
    Ok((a, b, layout.shape, transposed))
}

/// The batched product of arranged operands, as a [`RingKernel`].
struct Matmul {
    shape: MatmulShape,
    b_transposed: bool,
}

impl RingKernel for Matmul {
    fn run<T: Ring>(&self, a: &[T], b: &[T]) -> Vec<T> {
        batched_matmul(a, b, self.shape, self.b_transposed)
    }
}

/// `stablehlo.dot_general`: the result is indexed by the batch dimensions,
/// then the lhs free dimensions, then the rhs free dimensions; each element
/// sums over the contracting dimensions (order: see the module docs).
pub fn dot_general(
    lhs: &Tensor,
    rhs: &Tensor,
    dims: &DotDimensions,
    result: &TensorType,
) -> Result<Tensor, ValueError> {
    let (a, b, shape, b_transposed) = arranged_operands(lhs, rhs, dims, result, true)?;
    let data = on_ring(
        &a.data,
        &b.data,
        &Matmul {
            shape,
            b_transposed,
        },
    )
    .ok_or_else(|| {
        mismatch(format!(
            "dot_general: operands {:?} and {:?} do not convert to {:?}",
            lhs.element, rhs.element, result.element
        ))
    })?;
    Tensor::new(
        result.element,
        result.shape.clone(),
        finish(result.element, data),
    )
}

/// `stablehlo.dot`: vector·vector, matrix·vector, vector·matrix or
/// matrix·matrix, contracting the last lhs and the first rhs dimension.
pub fn dot(lhs: &Tensor, rhs: &Tensor, result: &TensorType) -> Result<Tensor, ValueError> {
    let (l, r) = (lhs.shape.len(), rhs.shape.len());
    if !(1..=2).contains(&l) || !(1..=2).contains(&r) {
        return Err(mismatch(format!(
            "dot: operands must have rank 1 or 2, found {:?} and {:?}",
            lhs.shape, rhs.shape
        )));
    }
    let dims = DotDimensions {
        lhs_contracting: vec![l - 1],
        rhs_contracting: vec![0],
        ..DotDimensions::default()
    };
    dot_general(lhs, rhs, &dims, result)
}
