//! Shape inference of `dot_general` and `convolution`, apart from their
//! kernels: from the operand shapes, the decoded attributes and the result
//! type, either the layout the kernels need or the [`ValueError`] that
//! names what does not fit.
//!
//! Preconditions: none; every attribute and shape is checked here, so the
//! kernels that take a [`DotLayout`] or [`ConvGeometry`] index in bounds.
//! Invariant: the checks run in a fixed order, so the same bad input always
//! gives the same error.

use super::convolution::ConvWindow;
use super::gemm::MatmulShape;
use super::mismatch;
use crate::value::ValueError;
use zkdv_ir::attrs::{ConvDimensions, DotDimensions};

// ---------------------------------------------------------------------------
// dot_general

/// The dimensions of `rank` in neither list, in order; an error when the
/// lists overlap, repeat or leave the rank.
fn free_dims(
    side: &str,
    rank: usize,
    batching: &[usize],
    contracting: &[usize],
) -> Result<Vec<usize>, ValueError> {
    let mut used = vec![false; rank];
    for &d in batching.iter().chain(contracting) {
        if d >= rank || std::mem::replace(&mut used[d], true) {
            return Err(mismatch(format!(
                "dot_general: {side} batching {batching:?} and contracting {contracting:?} \
                 dimensions are not distinct dimensions of rank {rank}"
            )));
        }
    }
    Ok((0..rank).filter(|&d| !used[d]).collect())
}

/// Where a `dot_general`'s operands go: the matrix sizes, and the
/// permutations that bring the lhs to `[batch, free, contracting]` and the
/// rhs to `[batch, contracting, free]` (or, transposed, to `[batch, free,
/// contracting]`).
#[derive(Debug, Clone)]
pub(super) struct DotLayout {
    /// The sizes of the batched matrix product.
    pub(super) shape: MatmulShape,
    /// The lhs permutation to `[batch, free, contracting]`.
    pub(super) lhs: Vec<usize>,
    /// The rhs permutation to `[batch, contracting, free]`.
    pub(super) rhs: Vec<usize>,
    /// The rhs permutation to `[batch, free, contracting]`.
    pub(super) rhs_transposed: Vec<usize>,
}

/// The [`DotLayout`] of `dot_general` on operands of shapes `lhs` and
/// `rhs` with dimension numbers `dims`, checked against the `result`
/// shape: batch dimensions, then lhs free, then rhs free dimensions.
pub(super) fn dot_layout(
    lhs: &[usize],
    rhs: &[usize],
    dims: &DotDimensions,
    result: &[usize],
) -> Result<DotLayout, ValueError> {
    if dims.lhs_batching.len() != dims.rhs_batching.len()
        || dims.lhs_contracting.len() != dims.rhs_contracting.len()
    {
        return Err(mismatch(format!(
            "dot_general: unpaired dimension numbers {dims:?}"
        )));
    }
    let lhs_free = free_dims("lhs", lhs.len(), &dims.lhs_batching, &dims.lhs_contracting)?;
    let rhs_free = free_dims("rhs", rhs.len(), &dims.rhs_batching, &dims.rhs_contracting)?;
    for (l, r) in dims
        .lhs_batching
        .iter()
        .zip(&dims.rhs_batching)
        .chain(dims.lhs_contracting.iter().zip(&dims.rhs_contracting))
    {
        if lhs[*l] != rhs[*r] {
            return Err(mismatch(format!(
                "dot_general: lhs dimension {l} (size {}) and rhs dimension {r} (size {}) differ",
                lhs[*l], rhs[*r]
            )));
        }
    }
    let size = |t: &[usize], ds: &[usize]| -> usize { ds.iter().map(|&d| t[d]).product() };
    let expected: Vec<usize> = dims
        .lhs_batching
        .iter()
        .chain(&lhs_free)
        .map(|&d| lhs[d])
        .chain(rhs_free.iter().map(|&d| rhs[d]))
        .collect();
    if expected != result {
        return Err(mismatch(format!(
            "dot_general: the result shape is {expected:?}, the result type says {:?}",
            result
        )));
    }
    let batch = size(lhs, &dims.lhs_batching);
    let rows = size(lhs, &lhs_free);
    let depth = size(lhs, &dims.lhs_contracting);
    let cols = size(rhs, &rhs_free);

    let lhs_perm: Vec<usize> = dims
        .lhs_batching
        .iter()
        .chain(&lhs_free)
        .chain(&dims.lhs_contracting)
        .copied()
        .collect();
    let rhs_perm: Vec<usize> = dims
        .rhs_batching
        .iter()
        .chain(&dims.rhs_contracting)
        .chain(&rhs_free)
        .copied()
        .collect();
    let transposed_perm: Vec<usize> = dims
        .rhs_batching
        .iter()
        .chain(&rhs_free)
        .chain(&dims.rhs_contracting)
        .copied()
        .collect();
    Ok(DotLayout {
        shape: MatmulShape {
            batch,
            rows,
            depth,
            cols,
        },
        lhs: lhs_perm,
        rhs: rhs_perm,
        rhs_transposed: transposed_perm,
    })
}

// ---------------------------------------------------------------------------
// convolution

/// Whether `dims` are `0..rank` in some order.
fn is_permutation(dims: &[usize], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    dims.len() == rank
        && dims
            .iter()
            .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true))
}

/// Everything the convolution loop needs, in the canonical layouts
/// input `[batch, spatial..., feature]`, kernel `[spatial..., in, out]`,
/// output `[batch, spatial..., feature]`.
#[derive(Debug, Clone)]
pub(super) struct ConvGeometry {
    /// Input spatial sizes.
    pub(super) input: Vec<usize>,
    /// Kernel spatial sizes.
    pub(super) kernel: Vec<usize>,
    /// Output spatial sizes.
    pub(super) output: Vec<usize>,
    pub(super) strides: Vec<i128>,
    pub(super) pad_low: Vec<i128>,
    pub(super) lhs_dilation: Vec<i128>,
    pub(super) rhs_dilation: Vec<i128>,
    pub(super) reversal: Vec<bool>,
    /// Input features.
    pub(super) in_features: usize,
    /// Kernel input features (per group).
    pub(super) group_in: usize,
    /// Output features.
    pub(super) out_features: usize,
    /// Output features per group.
    pub(super) group_out: usize,
    /// Output batch size.
    pub(super) out_batch: usize,
    pub(super) feature_groups: usize,
    pub(super) batch_groups: usize,
}

impl ConvGeometry {
    /// Kernel spatial positions times features per group: the length of
    /// every sum.
    pub(super) fn depth(&self) -> usize {
        self.kernel.iter().product::<usize>() * self.group_in
    }

    /// Output positions (batch times spatial).
    pub(super) fn positions(&self) -> usize {
        self.out_batch * self.output.iter().product::<usize>()
    }
}

fn positive(name: &str, values: &[i64], spatial: usize) -> Result<Vec<i128>, ValueError> {
    if values.len() != spatial || values.iter().any(|&v| v <= 0) {
        return Err(mismatch(format!(
            "convolution: {name} must be {spatial} positive values, found {values:?}"
        )));
    }
    Ok(values.iter().map(|&v| i128::from(v)).collect())
}

/// The [`ConvGeometry`] of `convolution` on operands of shapes `lhs` and
/// `rhs` with dimension numbers `dims` and window `window`, checked against
/// the `result` shape.
pub(super) fn conv_geometry(
    lhs: &[usize],
    rhs: &[usize],
    dims: &ConvDimensions,
    window: &ConvWindow,
    result: &[usize],
) -> Result<ConvGeometry, ValueError> {
    let n = dims.input_spatial.len();
    let rank = n + 2;
    let layouts_ok = lhs.len() == rank
        && rhs.len() == rank
        && result.len() == rank
        && dims.kernel_spatial.len() == n
        && dims.output_spatial.len() == n
        && is_permutation(
            &[
                &[dims.input_batch, dims.input_feature][..],
                &dims.input_spatial,
            ]
            .concat(),
            rank,
        )
        && is_permutation(
            &[
                &[dims.kernel_input_feature, dims.kernel_output_feature][..],
                &dims.kernel_spatial,
            ]
            .concat(),
            rank,
        )
        && is_permutation(
            &[
                &[dims.output_batch, dims.output_feature][..],
                &dims.output_spatial,
            ]
            .concat(),
            rank,
        );
    if !layouts_ok {
        return Err(mismatch(format!(
            "convolution: dimension numbers {dims:?} do not fit operands {:?}, {:?} and result \
             {:?}",
            lhs, rhs, result
        )));
    }
    if window.padding.len() != n || window.reversal.len() != n {
        return Err(mismatch(format!(
            "convolution: padding and window_reversal need {n} entries: {window:?}"
        )));
    }
    let strides = positive("window_strides", &window.strides, n)?;
    let lhs_dilation = positive("lhs_dilation", &window.lhs_dilation, n)?;
    let rhs_dilation = positive("rhs_dilation", &window.rhs_dilation, n)?;
    let (fg, bg) = (window.feature_group_count, window.batch_group_count);
    if fg < 1 || bg < 1 || (fg > 1 && bg > 1) {
        return Err(mismatch(format!(
            "convolution: feature_group_count {fg} and batch_group_count {bg} must be positive, \
             and one of them 1"
        )));
    }
    let (feature_groups, batch_groups) = (
        usize::try_from(fg).map_err(|_| mismatch(format!("feature_group_count {fg}")))?,
        usize::try_from(bg).map_err(|_| mismatch(format!("batch_group_count {bg}")))?,
    );
    let in_batch = lhs[dims.input_batch];
    let in_features = lhs[dims.input_feature];
    let group_in = rhs[dims.kernel_input_feature];
    let out_features = rhs[dims.kernel_output_feature];
    let groups = feature_groups * batch_groups;
    if in_features % feature_groups != 0
        || in_features / feature_groups != group_in
        || out_features % groups != 0
        || in_batch % batch_groups != 0
    {
        return Err(mismatch(format!(
            "convolution: {in_batch} batches, {in_features} input features, kernel \
             {group_in}->{out_features} features do not split into {feature_groups} feature \
             and {batch_groups} batch groups"
        )));
    }
    let input: Vec<usize> = dims.input_spatial.iter().map(|&d| lhs[d]).collect();
    let kernel: Vec<usize> = dims.kernel_spatial.iter().map(|&d| rhs[d]).collect();
    let mut output = Vec::with_capacity(n);
    for (d, &input_size) in input.iter().enumerate() {
        let dilated = |size: usize, dilation: i128| -> i128 {
            if size == 0 {
                0
            } else {
                (size as i128 - 1) * dilation + 1
            }
        };
        let (low, high) = window.padding[d];
        let padded = dilated(input_size, lhs_dilation[d]) + i128::from(low) + i128::from(high);
        let span = dilated(kernel[d], rhs_dilation[d]);
        let size = if padded <= 0 || span > padded {
            0
        } else {
            (padded - span) / strides[d] + 1
        };
        output.push(size);
    }
    let out_batch = in_batch / batch_groups;
    let mut expected = vec![0i128; rank];
    expected[dims.output_batch] = out_batch as i128;
    expected[dims.output_feature] = out_features as i128;
    for (d, &size) in output.iter().enumerate() {
        expected[dims.output_spatial[d]] = size;
    }
    if expected.iter().zip(result).any(|(&e, &r)| e != r as i128) {
        return Err(mismatch(format!(
            "convolution: the result shape is {expected:?}, the result type says {:?}",
            result
        )));
    }
    Ok(ConvGeometry {
        output: output.iter().map(|&s| s as usize).collect(),
        input,
        kernel,
        strides,
        pad_low: window.padding.iter().map(|&(l, _)| i128::from(l)).collect(),
        lhs_dilation,
        rhs_dilation,
        reversal: window.reversal.clone(),
        in_features,
        group_in,
        out_features,
        group_out: out_features / groups,
        out_batch,
        feature_groups,
        batch_groups,
    })
}
