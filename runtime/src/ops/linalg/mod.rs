//! Linear algebra ops: `stablehlo.dot_general`, `stablehlo.dot` and
//! `stablehlo.convolution`, with the StableHLO specification's semantics
//! (batching and contracting dimensions; convolution padding, negative
//! padding, base and window dilation, strides, window reversal, feature and
//! batch groups, arbitrary dimension layouts).
//!
//! # Determinism
//!
//! Both operands are first converted to the result's element type (so an
//! `i8` convolution into `i32` multiplies in `i32`, as the specification's
//! interpreter does). Every output element is then the sum of its products
//! `p_k = lhs_k * rhs_k`, with plain IEEE `*` and `+` (Rust never contracts
//! them into an FMA), as a cascade ([`super::reduction::Cascade`]): blocks
//! of [`CASCADE_BLOCK`](super::reduction::CASCADE_BLOCK) consecutive
//! products each summed from `+0` one at a time, `((0 + p0) + p1) + ...`,
//! and the block sums combined as a binary counter combines carries. (A
//! sum folded in order errs by up to about `n` units of roundoff for `n`
//! products, which a sum that cancels turns into a large relative error: a
//! gradient through BatchNorm was 0.45% off in f32 where XLA, which also
//! sums in blocks, was within 1e-5; `docs/runtime.md`.) The order of the contracting index `k`:
//!
//! * `dot_general`: the contracting dimensions in the order they are listed
//!   in `lhs_contracting_dimensions`, row-major (the last listed varies
//!   fastest); `dot` contracts the last lhs and first rhs dimension.
//! * `convolution`: the kernel spatial dimensions row-major (spatial
//!   dimension 0 outermost), then the kernel input feature innermost. Window
//!   positions that fall on padding or on base-dilation holes contribute the
//!   product `0 * rhs` like every other position, as in the specification
//!   (so an infinite or NaN kernel weight there yields NaN).
//!
//! `f32` accumulates in `f32` and `f64` in `f64`. `f16` and `bf16` elements
//! (held widened in `f32`) accumulate in `f32` and are rounded to their type
//! once, at the end of each sum (not after every step). Integers wrap at
//! their width (two's complement; computed in 64 bits, which wraps
//! identically, then truncated). `i1` is the or of ands.
//!
//! Precision hints (`precision_config`) and `algorithm` do not change this
//! definition: the result is the same on every machine whatever they say.
//!
//! Work is split across rayon threads only by whole output elements (chunks
//! of output rows, or tiles of output columns when a product has few rows,
//! above a size threshold); no element's sum is ever split, so results are
//! bit-identical for any thread count. Within a chunk the loops are tiled
//! over output columns so that one kernel row is reused from cache by
//! several output rows, each output element keeping its own accumulator.
//!
//! # Files
//!
//! * `dot_general.rs`: `dot_general` and `dot`;
//! * `convolution.rs`: `convolution`, its window attributes and its kernel;
//! * `shape.rs`: the shape inference of both, apart from the kernels;
//! * `gemm.rs`: the tiled matrix kernel and its threaded, batched driver;
//! * `ring.rs`: the arithmetic of each accumulator type, and the one
//!   dispatch from element data to a kernel.

mod convolution;
mod dot_general;
mod gemm;
mod ring;
mod shape;

use std::borrow::Cow;

use melior::ir::OperationRef;

use super::{transpose, OpError, Regions};
use crate::value::{Data, ElementType, Tensor, ValueError};

pub use convolution::{convolution, ConvDimensions, ConvWindow};
#[cfg(feature = "cuda")]
pub(crate) use dot_general::dot_operands;
pub use dot_general::{dot, dot_general, DotDimensions};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "stablehlo.convolution",
    "stablehlo.dot",
    "stablehlo.dot_general",
];

/// The family entry point: `dot_general`, `dot` and `convolution`, the
/// operand count checked, the attributes decoded
/// ([`super::decoded::Decoded`]), the op run.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    if !OPS.contains(&name) {
        return Ok(None);
    }
    super::decoded::evaluate(op, name, operands)
}

fn mismatch(message: String) -> ValueError {
    ValueError::Mismatch(message)
}

/// Rounds and wraps accumulated values to `element`'s width.
fn finish(element: ElementType, data: Data) -> Data {
    match data {
        Data::F32(v) if matches!(element, ElementType::F16 | ElementType::BF16) => {
            Data::F32(v.into_iter().map(|x| element.round_f32(x)).collect())
        }
        Data::Signed(v) => Data::Signed(v.into_iter().map(|x| element.wrap_signed(x)).collect()),
        Data::Unsigned(v) => {
            Data::Unsigned(v.into_iter().map(|x| element.wrap_unsigned(x)).collect())
        }
        other => other,
    }
}

/// `operand` converted to `element` and transposed by `permutation` (each
/// step skipped when it is the identity).
fn arrange<'t>(
    operand: &'t Tensor,
    element: ElementType,
    permutation: &[usize],
) -> Result<Cow<'t, Tensor>, ValueError> {
    let converted = if operand.element == element {
        Cow::Borrowed(operand)
    } else {
        Cow::Owned(super::convert(operand, element)?)
    };
    if permutation.iter().enumerate().all(|(i, &p)| i == p) {
        Ok(converted)
    } else {
        Ok(Cow::Owned(transpose(&converted, permutation)?))
    }
}

#[cfg(test)]
mod tests;
