//! `stablehlo.convolution`: its window attributes ([`ConvWindow`], read by
//! [`crate::ops::decoded`]), the op (shape inference in
//! [`super::shape::conv_geometry`], then the operands converted and brought
//! to canonical layouts) and the kernel: window patches gathered into rows
//! and multiplied by each group's kernel matrix with the tiled GEMM.
//!
//! Preconditions: none on the operands (the geometry is checked before any
//! element is read). Invariant: each output element is one cascade sum in
//! the order of [`super`]'s module docs; padding and dilation holes
//! contribute `0 * rhs` products like every other window position.

use super::gemm::{for_chunks, gemm, worth_parallel, Panel, ROWS_PER_CHUNK};
use super::ring::{on_ring, Ring, RingKernel};
use super::shape::{conv_geometry, ConvGeometry};
use super::{arrange, finish, mismatch};
use crate::ops::transpose;
use crate::value::{Tensor, TensorType, ValueError};

pub use zkdv_ir::attrs::ConvDimensions;

/// The window attributes of `convolution`, one entry per spatial dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvWindow {
    /// `window_strides` (default 1).
    pub strides: Vec<i64>,
    /// `padding` as (low, high) pairs, possibly negative (default 0).
    pub padding: Vec<(i64, i64)>,
    /// `lhs_dilation`, the base dilation (default 1).
    pub lhs_dilation: Vec<i64>,
    /// `rhs_dilation`, the window dilation (default 1).
    pub rhs_dilation: Vec<i64>,
    /// `window_reversal` (default false).
    pub reversal: Vec<bool>,
    /// `feature_group_count` (default 1).
    pub feature_group_count: i64,
    /// `batch_group_count` (default 1).
    pub batch_group_count: i64,
}

impl ConvWindow {
    /// The defaults for `spatial` spatial dimensions: stride and dilations
    /// 1, no padding, no reversal, one group.
    pub fn new(spatial: usize) -> Self {
        Self {
            strides: vec![1; spatial],
            padding: vec![(0, 0); spatial],
            lhs_dilation: vec![1; spatial],
            rhs_dilation: vec![1; spatial],
            reversal: vec![false; spatial],
            feature_group_count: 1,
            batch_group_count: 1,
        }
    }
}

/// `stablehlo.convolution`.
pub fn convolution(
    lhs: &Tensor,
    rhs: &Tensor,
    dims: &ConvDimensions,
    window: &ConvWindow,
    result: &TensorType,
) -> Result<Tensor, ValueError> {
    let geometry = conv_geometry(&lhs.shape, &rhs.shape, dims, window, &result.shape)?;
    let n = dims.input_spatial.len();
    let rank = n + 2;
    let lhs_perm: Vec<usize> = std::iter::once(dims.input_batch)
        .chain(dims.input_spatial.iter().copied())
        .chain(std::iter::once(dims.input_feature))
        .collect();
    let rhs_perm: Vec<usize> = dims
        .kernel_spatial
        .iter()
        .copied()
        .chain([dims.kernel_input_feature, dims.kernel_output_feature])
        .collect();
    let a = arrange(lhs, result.element, &lhs_perm)?;
    let b = arrange(rhs, result.element, &rhs_perm)?;
    let data = on_ring(&a.data, &b.data, &geometry).ok_or_else(|| {
        mismatch(format!(
            "convolution: operands {:?} and {:?} do not convert to {:?}",
            lhs.element, rhs.element, result.element
        ))
    })?;
    // Canonical [batch, spatial..., feature] to the result layout.
    let canonical_shape: Vec<usize> = std::iter::once(geometry.out_batch)
        .chain(geometry.output.iter().copied())
        .chain(std::iter::once(geometry.out_features))
        .collect();
    let canonical = Tensor::new(
        result.element,
        canonical_shape,
        finish(result.element, data),
    )?;
    let mut permutation = vec![0; rank];
    permutation[dims.output_batch] = 0;
    for (d, &at) in dims.output_spatial.iter().enumerate() {
        permutation[at] = d + 1;
    }
    permutation[dims.output_feature] = n + 1;
    if permutation.iter().enumerate().all(|(i, &p)| i == p) {
        Ok(canonical)
    } else {
        transpose(&canonical, &permutation)
    }
}

impl RingKernel for ConvGeometry {
    fn run<T: Ring>(&self, a: &[T], b: &[T]) -> Vec<T> {
        convolve(a, b, self)
    }
}

/// The convolution in canonical layouts (see [`ConvGeometry`]): for each
/// block of output positions and each group, the window patches are
/// gathered into rows (zeros on padding and holes) and multiplied by the
/// group's kernel matrix with [`gemm`].
fn convolve<T: Ring>(lhs: &[T], rhs: &[T], g: &ConvGeometry) -> Vec<T> {
    let positions = g.positions();
    let depth = g.depth();
    let groups = g.feature_groups * g.batch_groups;
    let mut out = vec![T::ZERO; positions * g.out_features];
    if out.is_empty() {
        return out;
    }
    // Kernel matrices, one per group: [depth, group_out], row-major.
    let mut kernels = Vec::with_capacity(depth * g.out_features);
    for q in 0..groups {
        for k in 0..depth {
            let row = &rhs[k * g.out_features..(k + 1) * g.out_features];
            kernels.extend_from_slice(&row[q * g.group_out..(q + 1) * g.group_out]);
        }
    }
    let input_spatial: usize = g.input.iter().product();
    let input_strides = crate::ops::scalar::strides(&g.input);
    let output_spatial: usize = g.output.iter().product();
    let kernel_positions: usize = g.kernel.iter().product();
    let n = g.input.len();
    let parallel = worth_parallel(positions, g.out_features, depth);
    for_chunks(
        &mut out,
        ROWS_PER_CHUNK * g.out_features,
        parallel,
        |index, chunk| {
            let first = index * ROWS_PER_CHUNK;
            let rows = chunk.len() / g.out_features;
            let mut patches = vec![T::ZERO; rows * depth];
            let mut out_index = vec![0usize; n];
            let mut kernel_index = vec![0usize; n];
            for q in 0..groups {
                let (feature_group, batch_group) =
                    if g.feature_groups > 1 { (q, 0) } else { (0, q) };
                for r in 0..rows {
                    let p = first + r;
                    let batch = batch_group * g.out_batch + p / output_spatial.max(1);
                    let mut rest = p % output_spatial.max(1);
                    for d in (0..n).rev() {
                        out_index[d] = rest % g.output[d];
                        rest /= g.output[d];
                    }
                    let patch = &mut patches[r * depth..(r + 1) * depth];
                    kernel_index.fill(0);
                    for kp in 0..kernel_positions {
                        if kp > 0 {
                            // Next kernel position, row-major.
                            for d in (0..n).rev() {
                                kernel_index[d] += 1;
                                if kernel_index[d] < g.kernel[d] {
                                    break;
                                }
                                kernel_index[d] = 0;
                            }
                        }
                        let target = &mut patch[kp * g.group_in..(kp + 1) * g.group_in];
                        match input_offset(g, &out_index, &kernel_index, &input_strides) {
                            Some(offset) => {
                                let start = ((batch * input_spatial + offset) * g.in_features)
                                    + feature_group * g.group_in;
                                target.copy_from_slice(&lhs[start..start + g.group_in]);
                            }
                            None => target.fill(T::ZERO),
                        }
                    }
                }
                gemm(
                    &patches,
                    &kernels[q * depth * g.group_out..(q + 1) * depth * g.group_out],
                    &mut chunk[q * g.group_out..],
                    Panel {
                        rows,
                        depth,
                        cols: g.group_out,
                        ldb: g.group_out,
                        ldc: g.out_features,
                        b_transposed: false,
                    },
                );
            }
        },
    );
    out
}

/// The flat spatial offset in the input read by kernel position
/// `kernel_index` of the window at output position `out_index`, or `None`
/// where the window lies on padding or on a base-dilation hole.
fn input_offset(
    g: &ConvGeometry,
    out_index: &[usize],
    kernel_index: &[usize],
    input_strides: &[usize],
) -> Option<usize> {
    let mut offset = 0;
    for (d, &out) in out_index.iter().enumerate() {
        let k = if g.reversal[d] {
            g.kernel[d] - 1 - kernel_index[d]
        } else {
            kernel_index[d]
        };
        let position = out as i128 * g.strides[d] + k as i128 * g.rhs_dilation[d] - g.pad_low[d];
        if position < 0 || position % g.lhs_dilation[d] != 0 {
            return None;
        }
        let i = usize::try_from(position / g.lhs_dilation[d]).ok()?;
        if i >= g.input[d] {
            return None;
        }
        offset += i * input_strides[d];
    }
    Some(offset)
}
