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
//! of [`CASCADE_BLOCK`] consecutive products each summed from `+0` one at a
//! time, `((0 + p0) + p1) + ...`, and the block sums combined as a binary
//! counter combines carries. (A sum folded in order errs by up to about `n`
//! units of roundoff for `n` products, which a sum that cancels turns into
//! a large relative error: a gradient through BatchNorm was 0.45% off in
//! f32 where XLA, which also sums in blocks, was within 1e-5;
//! `docs/runtime.md`.) The order of the contracting index `k`:
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

use std::borrow::Cow;

use melior::ir::OperationRef;
use rayon::prelude::*;

use super::reduction::{Cascade, CASCADE_BLOCK};
use super::{arity, transpose, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// Below this many multiply-adds an op runs on the calling thread.
const PARALLEL_WORK: usize = 1 << 15;
/// Output rows per work item.
const ROWS_PER_CHUNK: usize = 8;
/// Output columns per work item when a product has few rows.
const COLUMN_TILE: usize = 256;
/// Up to this many rows per matrix, work items split the columns.
const COLUMN_SPLIT_ROWS: usize = 256;

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "stablehlo.convolution",
    "stablehlo.dot",
    "stablehlo.dot_general",
];

/// The family entry point: `dot_general`, `dot` and `convolution`.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let result = match name {
        "stablehlo.dot_general" => {
            arity(operands, 2)?;
            let dims = DotDimensions::parse(&attrs::text(op, "dot_dimension_numbers")?)
                .map_err(ValueError::from)?;
            dot_general(operands[0], operands[1], &dims, &attrs::result_type(op, 0)?)
        }
        "stablehlo.dot" => {
            arity(operands, 2)?;
            dot(operands[0], operands[1], &attrs::result_type(op, 0)?)
        }
        "stablehlo.convolution" => {
            arity(operands, 2)?;
            let dims = ConvDimensions::parse(&attrs::text(op, "dimension_numbers")?)
                .map_err(ValueError::from)?;
            let window = ConvWindow::from_op(op, dims.input_spatial.len())?;
            convolution(
                operands[0],
                operands[1],
                &dims,
                &window,
                &attrs::result_type(op, 0)?,
            )
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![result?]))
}

fn mismatch(message: String) -> ValueError {
    ValueError::Mismatch(message)
}

// ---------------------------------------------------------------------------
// Arithmetic

/// The arithmetic of one accumulator type.
trait Ring: Copy + Send + Sync {
    const ZERO: Self;
    fn mul(self, other: Self) -> Self;
    fn add(self, other: Self) -> Self;
}

impl Ring for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        self * other
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl Ring for f64 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        self * other
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl Ring for i64 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        self.wrapping_mul(other)
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

impl Ring for u64 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        self.wrapping_mul(other)
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
}

/// `complex<f32>`: `(ac - bd) + i(ad + bc)` in `f32`, in that order.
impl Ring for [f32; 2] {
    const ZERO: Self = [0.0, 0.0];
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        let ([a, b], [c, d]) = (self, other);
        [a * c - b * d, a * d + b * c]
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        [self[0] + other[0], self[1] + other[1]]
    }
}

/// `complex<f64>`, as for `complex<f32>`.
impl Ring for [f64; 2] {
    const ZERO: Self = [0.0, 0.0];
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        let ([a, b], [c, d]) = (self, other);
        [a * c - b * d, a * d + b * c]
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        [self[0] + other[0], self[1] + other[1]]
    }
}

impl Ring for bool {
    const ZERO: Self = false;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        self & other
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self | other
    }
}

/// The sizes and row strides of one [`gemm`] call.
#[derive(Debug, Clone, Copy)]
struct Panel {
    /// Output rows.
    rows: usize,
    /// Products per output element.
    depth: usize,
    /// Output columns.
    cols: usize,
    /// Row stride of `b` (of `b` transposed, when `b_transposed`).
    ldb: usize,
    /// Whether `b` is stored transposed: `b[k][j]` at `j * ldb + k`.
    b_transposed: bool,
    /// Row stride of `out`.
    ldc: usize,
}

/// `out[r * ldc + j] = sum_k a[r * depth + k] * b[k * ldb + j]` for
/// `r < rows`, `j < cols`: each sum is the [`Cascade`] of its products in
/// increasing `k`, each block of [`CASCADE_BLOCK`] products summed from
/// `+0` one at a time.
///
/// The loops are blocked for speed only: a register tile of [`MR`] rows by
/// [`NR`] columns sums a block of products, then enters the tile's cascade,
/// so every output element still sees exactly its own cascade and the bits
/// do not depend on the tiling (the tests pin them).
///
/// On x86_64 machines with AVX2 the same code is compiled a second time with
/// AVX2 enabled (wider vectors, same operations; FMA stays off, as Rust
/// never contracts a multiply and an add) and chosen at run time.
fn gemm<T: Ring>(a: &[T], b: &[T], out: &mut [T], p: Panel) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above), the only
            // requirement of calling a function compiled with it enabled.
            unsafe { gemm_avx2(a, b, out, p) };
            return;
        }
    }
    gemm_portable(a, b, out, p);
}

/// [`gemm_portable`] compiled with AVX2 enabled.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gemm_avx2<T: Ring>(a: &[T], b: &[T], out: &mut [T], p: Panel) {
    gemm_portable(a, b, out, p);
}

/// The body of [`gemm`], inlined into each instruction-set variant.
///
/// Columns go in strips of [`NR`]: each strip of `b` is first copied into a
/// contiguous `depth x NR` buffer (one pass over `b` in all), so the tiles
/// of every row block stream it from cache instead of striding through `b`
/// a row (often a page) per product. Copying changes no value, and every
/// output element still accumulates its products in increasing `k`.
#[inline(always)]
fn gemm_portable<T: Ring>(a: &[T], b: &[T], out: &mut [T], p: Panel) {
    let mut strip: Vec<T> = Vec::with_capacity(p.depth * NR);
    let mut j0 = 0;
    while j0 + NR <= p.cols {
        strip.clear();
        if p.b_transposed {
            strip.resize(p.depth * NR, T::ZERO);
            for jj in 0..NR {
                let column = &b[(j0 + jj) * p.ldb..][..p.depth];
                for (k, &v) in column.iter().enumerate() {
                    strip[k * NR + jj] = v;
                }
            }
        } else {
            for k in 0..p.depth {
                strip.extend_from_slice(&b[k * p.ldb + j0..k * p.ldb + j0 + NR]);
            }
        }
        let mut r0 = 0;
        while r0 < p.rows {
            let mr = (p.rows - r0).min(MR);
            if mr == MR {
                tile::<T, MR>(a, &strip, out, p, r0, j0);
            } else {
                for r in r0..r0 + mr {
                    tile::<T, 1>(a, &strip, out, p, r, j0);
                }
            }
            r0 += mr;
        }
        j0 += NR;
    }
    // The last columns, fewer than a strip: one element at a time.
    let at = |k: usize, j: usize| {
        if p.b_transposed {
            b[j * p.ldb + k]
        } else {
            b[k * p.ldb + j]
        }
    };
    let add = |x: T, y: T| x.add(y);
    for r in 0..p.rows {
        for j in j0..p.cols {
            let mut sums = Cascade::new();
            for k0 in (0..p.depth).step_by(CASCADE_BLOCK) {
                let mut acc = T::ZERO;
                for k in k0..(k0 + CASCADE_BLOCK).min(p.depth) {
                    acc = acc.add(a[r * p.depth + k].mul(at(k, j)));
                }
                sums.push(acc, &add);
            }
            out[r * p.ldc + j] = sums.finish(&add).unwrap_or(T::ZERO);
        }
    }
}

/// Rows of a register tile in [`gemm`].
const MR: usize = 4;
/// Columns of a register tile in [`gemm`].
const NR: usize = 16;

/// One `ROWS x NR` tile of [`gemm`] at rows `r0..`, columns `j0..`, reading
/// `b`'s columns `j0..j0 + NR` from `strip` (`depth x NR`, row-major).
#[inline(always)]
fn tile<T: Ring, const ROWS: usize>(
    a: &[T],
    strip: &[T],
    out: &mut [T],
    p: Panel,
    r0: usize,
    j0: usize,
) {
    let rows: [&[T]; ROWS] = std::array::from_fn(|i| &a[(r0 + i) * p.depth..][..p.depth]);
    let merge = |mut x: [[T; NR]; ROWS], y: [[T; NR]; ROWS]| {
        for (x, y) in x.iter_mut().zip(&y) {
            for (o, &v) in x.iter_mut().zip(y) {
                *o = o.add(v);
            }
        }
        x
    };
    let mut sums = Cascade::new();
    for (b, block) in strip.chunks(NR * CASCADE_BLOCK).enumerate() {
        let mut acc = [[T::ZERO; NR]; ROWS];
        for (kk, row) in block.chunks_exact(NR).enumerate() {
            let k = b * CASCADE_BLOCK + kk;
            for (acc, lhs) in acc.iter_mut().zip(&rows) {
                let x = lhs[k];
                for (o, &y) in acc.iter_mut().zip(row) {
                    *o = o.add(x.mul(y));
                }
            }
        }
        sums.push(acc, &merge);
    }
    let acc = sums.finish(&merge).unwrap_or([[T::ZERO; NR]; ROWS]);
    for (i, acc) in acc.iter().enumerate() {
        let start = (r0 + i) * p.ldc + j0;
        out[start..start + NR].copy_from_slice(acc);
    }
}

/// Runs `f(chunk_index, chunk)` over `chunk_len`-element chunks of `out`,
/// on the rayon pool when `parallel`. Chunks are disjoint sets of output
/// elements, so the result does not depend on the schedule.
fn for_chunks<T: Send>(
    out: &mut [T],
    chunk_len: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [T]) + Send + Sync,
) {
    if out.is_empty() || chunk_len == 0 {
        return;
    }
    if parallel {
        out.par_chunks_mut(chunk_len)
            .enumerate()
            .for_each(|(i, chunk)| f(i, chunk));
    } else {
        out.chunks_mut(chunk_len)
            .enumerate()
            .for_each(|(i, chunk)| f(i, chunk));
    }
}

/// Whether `rows x cols` outputs of `depth` products each are worth
/// spreading over threads.
fn worth_parallel(rows: usize, cols: usize, depth: usize) -> bool {
    rows > ROWS_PER_CHUNK && rows.saturating_mul(cols).saturating_mul(depth.max(1)) >= PARALLEL_WORK
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

// ---------------------------------------------------------------------------
// dot_general and dot

pub use zkdv_ir::attrs::DotDimensions;

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
    if dims.lhs_batching.len() != dims.rhs_batching.len()
        || dims.lhs_contracting.len() != dims.rhs_contracting.len()
    {
        return Err(mismatch(format!(
            "dot_general: unpaired dimension numbers {dims:?}"
        )));
    }
    let lhs_free = free_dims(
        "lhs",
        lhs.shape.len(),
        &dims.lhs_batching,
        &dims.lhs_contracting,
    )?;
    let rhs_free = free_dims(
        "rhs",
        rhs.shape.len(),
        &dims.rhs_batching,
        &dims.rhs_contracting,
    )?;
    for (l, r) in dims
        .lhs_batching
        .iter()
        .zip(&dims.rhs_batching)
        .chain(dims.lhs_contracting.iter().zip(&dims.rhs_contracting))
    {
        if lhs.shape[*l] != rhs.shape[*r] {
            return Err(mismatch(format!(
                "dot_general: lhs dimension {l} (size {}) and rhs dimension {r} (size {}) differ",
                lhs.shape[*l], rhs.shape[*r]
            )));
        }
    }
    let size = |t: &Tensor, ds: &[usize]| -> usize { ds.iter().map(|&d| t.shape[d]).product() };
    let expected: Vec<usize> = dims
        .lhs_batching
        .iter()
        .chain(&lhs_free)
        .map(|&d| lhs.shape[d])
        .chain(rhs_free.iter().map(|&d| rhs.shape[d]))
        .collect();
    if expected != result.shape {
        return Err(mismatch(format!(
            "dot_general: the result shape is {expected:?}, the result type says {:?}",
            result.shape
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
    let identity = |perm: &[usize]| perm.iter().enumerate().all(|(i, &p)| i == p);
    let transposed = may_transpose && !identity(&rhs_perm) && identity(&transposed_perm);
    let a = arrange(lhs, result.element, &lhs_perm)?;
    let b = if transposed {
        arrange(rhs, result.element, &transposed_perm)?
    } else {
        arrange(rhs, result.element, &rhs_perm)?
    };
    let shape = MatmulShape {
        batch,
        rows,
        depth,
        cols,
    };
    Ok((a, b, shape, transposed))
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
    let (a, b, shape, t) = arranged_operands(lhs, rhs, dims, result, true)?;
    let data = match (&a.data, &b.data) {
        (Data::F32(a), Data::F32(b)) => Data::F32(batched_matmul(a, b, shape, t)),
        (Data::F64(a), Data::F64(b)) => Data::F64(batched_matmul(a, b, shape, t)),
        (Data::Signed(a), Data::Signed(b)) => Data::Signed(batched_matmul(a, b, shape, t)),
        (Data::Unsigned(a), Data::Unsigned(b)) => Data::Unsigned(batched_matmul(a, b, shape, t)),
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(batched_matmul(a, b, shape, t)),
        (Data::C64(a), Data::C64(b)) => Data::C64(batched_matmul(a, b, shape, t)),
        (Data::C128(a), Data::C128(b)) => Data::C128(batched_matmul(a, b, shape, t)),
        _ => {
            return Err(mismatch(format!(
                "dot_general: operands {:?} and {:?} do not convert to {:?}",
                lhs.element, rhs.element, result.element
            )))
        }
    };
    Tensor::new(
        result.element,
        result.shape.clone(),
        finish(result.element, data),
    )
}

/// The sizes of a batched matrix product.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MatmulShape {
    /// Batch size.
    pub(crate) batch: usize,
    /// Rows of each lhs matrix (and output).
    pub(crate) rows: usize,
    /// Products per output element.
    pub(crate) depth: usize,
    /// Columns of each rhs matrix (and output).
    pub(crate) cols: usize,
}

/// `out[b, m, n] = sum_k a[b, m, k] * b[b, k, n]`, all row-major; with
/// `b_transposed`, `b` is stored as `[batch, cols, depth]` instead.
fn batched_matmul<T: Ring>(a: &[T], b: &[T], s: MatmulShape, b_transposed: bool) -> Vec<T> {
    let total_rows = s.batch * s.rows;
    let mut out = vec![T::ZERO; total_rows * s.cols];
    if out.is_empty() {
        return out;
    }
    let work = total_rows
        .saturating_mul(s.cols)
        .saturating_mul(s.depth.max(1));
    if s.rows <= COLUMN_SPLIT_ROWS && s.cols > COLUMN_TILE && work >= PARALLEL_WORK {
        // Few rows per matrix (a batch of examples times a weight matrix):
        // split the columns instead, so each work item packs its part of
        // `b` once for all rows, each tile computed into its own buffer,
        // then copied in place.
        // About two items per thread and matrix, whole strips of the tile.
        let threads = rayon::current_num_threads().max(1);
        let width = s.cols.div_ceil(2 * threads).div_ceil(NR) * NR;
        let width = width.clamp(NR, COLUMN_TILE);
        let items: Vec<(usize, usize)> = (0..s.batch)
            .flat_map(|batch| (0..s.cols).step_by(width).map(move |j0| (batch, j0)))
            .collect();
        let tiles: Vec<(usize, usize, Vec<T>)> = items
            .into_par_iter()
            .map(|(batch, j0)| {
                let width = (s.cols - j0).min(width);
                let mut tile = vec![T::ZERO; s.rows * width];
                let (offset, ldb) = if b_transposed {
                    (j0 * s.depth, s.depth)
                } else {
                    (j0, s.cols)
                };
                gemm(
                    &a[batch * s.rows * s.depth..(batch + 1) * s.rows * s.depth],
                    &b[batch * s.depth * s.cols + offset..],
                    &mut tile,
                    Panel {
                        rows: s.rows,
                        depth: s.depth,
                        cols: width,
                        ldb,
                        ldc: width,
                        b_transposed,
                    },
                );
                (batch, j0, tile)
            })
            .collect();
        for (batch, j0, tile) in tiles {
            let width = tile.len() / s.rows;
            for (r, row) in tile.chunks_exact(width).enumerate() {
                let start = (batch * s.rows + r) * s.cols + j0;
                out[start..start + width].copy_from_slice(row);
            }
        }
        return out;
    }
    let parallel = worth_parallel(total_rows, s.cols, s.depth);
    let chunk_rows = ROWS_PER_CHUNK;
    for_chunks(&mut out, chunk_rows * s.cols, parallel, |index, chunk| {
        let first = index * chunk_rows;
        let end = first + chunk.len() / s.cols;
        let mut r = first;
        // Split the chunk where the batch index changes.
        while r < end {
            let batch = r / s.rows;
            let run_end = end.min((batch + 1) * s.rows);
            gemm(
                &a[r * s.depth..run_end * s.depth],
                &b[batch * s.depth * s.cols..(batch + 1) * s.depth * s.cols],
                &mut chunk[(r - first) * s.cols..],
                Panel {
                    rows: run_end - r,
                    depth: s.depth,
                    cols: s.cols,
                    ldb: if b_transposed { s.depth } else { s.cols },
                    ldc: s.cols,
                    b_transposed,
                },
            );
            r = run_end;
        }
    });
    out
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

// ---------------------------------------------------------------------------
// convolution

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

    /// Reads the attributes of a `stablehlo.convolution` op.
    fn from_op(op: &OperationRef<'_, '_>, spatial: usize) -> Result<Self, ValueError> {
        let padding = match attrs::dense(op, "padding")? {
            None => vec![(0, 0); spatial],
            Some(t) => match (&t.data, t.shape.as_slice()) {
                (Data::Signed(v), [n, 2]) if *n == spatial => {
                    v.chunks_exact(2).map(|p| (p[0], p[1])).collect()
                }
                _ => {
                    return Err(mismatch(format!(
                        "convolution: padding must be an integer tensor<{spatial}x2>, found \
                         {:?}{:?}",
                        t.element, t.shape
                    )))
                }
            },
        };
        Ok(Self {
            strides: attrs::i64_array_or(op, "window_strides", vec![1; spatial])?,
            padding,
            lhs_dilation: attrs::i64_array_or(op, "lhs_dilation", vec![1; spatial])?,
            rhs_dilation: attrs::i64_array_or(op, "rhs_dilation", vec![1; spatial])?,
            reversal: attrs::bool_array(op, "window_reversal")?
                .unwrap_or_else(|| vec![false; spatial]),
            feature_group_count: attrs::integer_or(op, "feature_group_count", 1)?,
            batch_group_count: attrs::integer_or(op, "batch_group_count", 1)?,
        })
    }
}

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
struct ConvGeometry {
    /// Input spatial sizes.
    input: Vec<usize>,
    /// Kernel spatial sizes.
    kernel: Vec<usize>,
    /// Output spatial sizes.
    output: Vec<usize>,
    strides: Vec<i128>,
    pad_low: Vec<i128>,
    lhs_dilation: Vec<i128>,
    rhs_dilation: Vec<i128>,
    reversal: Vec<bool>,
    /// Input features.
    in_features: usize,
    /// Kernel input features (per group).
    group_in: usize,
    /// Output features.
    out_features: usize,
    /// Output features per group.
    group_out: usize,
    /// Output batch size.
    out_batch: usize,
    feature_groups: usize,
    batch_groups: usize,
}

impl ConvGeometry {
    /// Kernel spatial positions times features per group: the length of
    /// every sum.
    fn depth(&self) -> usize {
        self.kernel.iter().product::<usize>() * self.group_in
    }

    /// Output positions (batch times spatial).
    fn positions(&self) -> usize {
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

/// `stablehlo.convolution`.
pub fn convolution(
    lhs: &Tensor,
    rhs: &Tensor,
    dims: &ConvDimensions,
    window: &ConvWindow,
    result: &TensorType,
) -> Result<Tensor, ValueError> {
    let n = dims.input_spatial.len();
    let rank = n + 2;
    let layouts_ok = lhs.shape.len() == rank
        && rhs.shape.len() == rank
        && result.shape.len() == rank
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
            lhs.shape, rhs.shape, result.shape
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
    let in_batch = lhs.shape[dims.input_batch];
    let in_features = lhs.shape[dims.input_feature];
    let group_in = rhs.shape[dims.kernel_input_feature];
    let out_features = rhs.shape[dims.kernel_output_feature];
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
    let input: Vec<usize> = dims.input_spatial.iter().map(|&d| lhs.shape[d]).collect();
    let kernel: Vec<usize> = dims.kernel_spatial.iter().map(|&d| rhs.shape[d]).collect();
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
    if expected
        .iter()
        .zip(&result.shape)
        .any(|(&e, &r)| e != r as i128)
    {
        return Err(mismatch(format!(
            "convolution: the result shape is {expected:?}, the result type says {:?}",
            result.shape
        )));
    }
    let geometry = ConvGeometry {
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
    };

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
    let data = match (&a.data, &b.data) {
        (Data::F32(a), Data::F32(b)) => Data::F32(convolve(a, b, &geometry)),
        (Data::F64(a), Data::F64(b)) => Data::F64(convolve(a, b, &geometry)),
        (Data::Signed(a), Data::Signed(b)) => Data::Signed(convolve(a, b, &geometry)),
        (Data::Unsigned(a), Data::Unsigned(b)) => Data::Unsigned(convolve(a, b, &geometry)),
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(convolve(a, b, &geometry)),
        (Data::C64(a), Data::C64(b)) => Data::C64(convolve(a, b, &geometry)),
        (Data::C128(a), Data::C128(b)) => Data::C128(convolve(a, b, &geometry)),
        _ => {
            return Err(mismatch(format!(
                "convolution: operands {:?} and {:?} do not convert to {:?}",
                lhs.element, rhs.element, result.element
            )))
        }
    };
    // Canonical [batch, spatial..., feature] to the result layout.
    let canonical_shape: Vec<usize> = std::iter::once(geometry.out_batch)
        .chain(geometry.output.iter().copied())
        .chain(std::iter::once(out_features))
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
    let input_strides = super::shape::strides(&g.input);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented sum of products in order: blocks of
    /// [`CASCADE_BLOCK`] summed from `+0`, the block sums cascaded.
    fn defined_sum(products: &[f32]) -> f32 {
        let add = |a: f32, b: f32| a + b;
        let mut sums = Cascade::new();
        for block in products.chunks(CASCADE_BLOCK) {
            sums.push(block.iter().fold(0.0f32, |a, &p| a + p), &add);
        }
        sums.finish(&add).unwrap_or(0.0)
    }

    fn f32s(shape: &[usize], v: Vec<f32>) -> Tensor {
        Tensor::new(ElementType::F32, shape.to_vec(), Data::F32(v)).unwrap()
    }

    fn ints(element: ElementType, shape: &[usize], v: Vec<i64>) -> Tensor {
        Tensor::new(element, shape.to_vec(), Data::Signed(v)).unwrap()
    }

    fn ty(element: ElementType, shape: &[usize]) -> TensorType {
        TensorType {
            element,
            shape: shape.to_vec(),
        }
    }

    /// Deterministic pseudo-random floats of mixed magnitudes, so that the
    /// summation order shows in the low bits.
    fn noise(len: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let mantissa = (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                let scale = [1.0, 1e-3, 1e3, 0.1][(state >> 20) as usize % 4];
                mantissa * scale
            })
            .collect()
    }

    fn bits(t: &Tensor) -> Vec<u32> {
        match &t.data {
            Data::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
            other => panic!("not f32: {other:?}"),
        }
    }

    fn dims(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> DotDimensions {
        DotDimensions {
            lhs_batching: lb.to_vec(),
            rhs_batching: rb.to_vec(),
            lhs_contracting: lc.to_vec(),
            rhs_contracting: rc.to_vec(),
        }
    }

    /// A weight stored transposed (`x @ W.T`: the rhs contracts its last
    /// dimension) is read in place; the bits equal the product with the
    /// weight transposed first, at shapes that take the column-split path
    /// (with remainder columns) and the row-chunk path, with a batch.
    #[test]
    fn transposed_rhs_products_are_bitwise_those_of_the_transposed_copy() {
        for (batch, rows, depth, cols) in [(1, 64, 70, 300), (2, 5, 33, 21), (1, 300, 17, 40)] {
            let x = f32s(&[batch, rows, depth], noise(batch * rows * depth, 3));
            let w = f32s(&[batch, cols, depth], noise(batch * cols * depth, 4));
            let result = ty(ElementType::F32, &[batch, rows, cols]);
            let read_in_place =
                dot_general(&x, &w, &dims(&[0], &[0], &[2], &[2]), &result).unwrap();
            let wt = transpose(&w, &[0, 2, 1]).unwrap();
            let copied = dot_general(&x, &wt, &dims(&[0], &[0], &[2], &[1]), &result).unwrap();
            assert_eq!(
                bits(&read_in_place),
                bits(&copied),
                "{batch}x{rows}x{depth}x{cols}"
            );
        }
    }

    #[test]
    fn matrix_products() {
        let a = ints(ElementType::Signed(64), &[2, 3], vec![1, 2, 3, 4, 5, 6]);
        let b = ints(ElementType::Signed(64), &[3, 2], vec![7, 8, 9, 10, 11, 12]);
        let r = dot(&a, &b, &ty(ElementType::Signed(64), &[2, 2])).unwrap();
        assert_eq!(r.data, Data::Signed(vec![58, 64, 139, 154]));
        // The same product written with the lhs transposed.
        let at = transpose(&a, &[1, 0]).unwrap();
        let r2 = dot_general(
            &at,
            &b,
            &dims(&[], &[], &[0], &[0]),
            &ty(ElementType::Signed(64), &[2, 2]),
        )
        .unwrap();
        assert_eq!(r2.data, r.data);
        let v = f32s(&[3], vec![1.0, 2.0, 3.0]);
        let r = dot(&v, &v, &ty(ElementType::F32, &[])).unwrap();
        assert_eq!(r.data, Data::F32(vec![14.0]));
        let m = f32s(&[2, 3], vec![1.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
        let r = dot(&m, &v, &ty(ElementType::F32, &[2])).unwrap();
        assert_eq!(r.data, Data::F32(vec![1.0, 5.0]));
        // Contracting an empty dimension gives zeros.
        let e = f32s(&[2, 0], vec![]);
        let f = f32s(&[0, 3], vec![]);
        let r = dot(&e, &f, &ty(ElementType::F32, &[2, 3])).unwrap();
        assert_eq!(r.data, Data::F32(vec![0.0; 6]));
    }

    #[test]
    fn batched_with_layouts_matches_the_definition() {
        // lhs [k1=3, b=2, m=4, k0=5], rhs [n=3, k0=5, b=2, k1=3]; contracting
        // (lhs 3 with rhs 1) then (lhs 0 with rhs 3).
        let lhs = f32s(&[3, 2, 4, 5], noise(120, 1));
        let rhs = f32s(&[3, 5, 2, 3], noise(90, 2));
        let d = dims(&[1], &[2], &[3, 0], &[1, 3]);
        let r = dot_general(&lhs, &rhs, &d, &ty(ElementType::F32, &[2, 4, 3])).unwrap();
        let (Data::F32(l), Data::F32(rv)) = (&lhs.data, &rhs.data) else {
            unreachable!()
        };
        let mut expected = Vec::new();
        for b in 0..2 {
            for m in 0..4 {
                for n in 0..3 {
                    let mut products = Vec::new();
                    for k0 in 0..5 {
                        for k1 in 0..3 {
                            let x = l[((k1 * 2 + b) * 4 + m) * 5 + k0];
                            let y = rv[((n * 5 + k0) * 2 + b) * 3 + k1];
                            products.push(x * y);
                        }
                    }
                    expected.push(defined_sum(&products).to_bits());
                }
            }
        }
        assert_eq!(bits(&r), expected);
    }

    #[test]
    fn integer_boolean_and_half_accumulation() {
        // i8 wraps: 100 * 2 = 200 = -56 (mod 256).
        let a = ints(ElementType::Signed(8), &[1], vec![100]);
        let b = ints(ElementType::Signed(8), &[1], vec![2]);
        let r = dot(&a, &b, &ty(ElementType::Signed(8), &[])).unwrap();
        assert_eq!(r.data, Data::Signed(vec![-56]));
        // Into i32 the operands are converted first: no wrap.
        let r = dot(&a, &b, &ty(ElementType::Signed(32), &[])).unwrap();
        assert_eq!(r.data, Data::Signed(vec![200]));
        let u = Tensor::new(
            ElementType::Unsigned(8),
            vec![2],
            Data::Unsigned(vec![16, 1]),
        )
        .unwrap();
        let r = dot(&u, &u, &ty(ElementType::Unsigned(8), &[])).unwrap();
        assert_eq!(r.data, Data::Unsigned(vec![1]));
        let p = Tensor::new(
            ElementType::I1,
            vec![2, 2],
            Data::Bool(vec![true, false, false, false]),
        )
        .unwrap();
        let q = Tensor::new(ElementType::I1, vec![2], Data::Bool(vec![false, true])).unwrap();
        let r = dot(&p, &q, &ty(ElementType::I1, &[2])).unwrap();
        assert_eq!(r.data, Data::Bool(vec![false, false]));
        let r = dot(&q, &p, &ty(ElementType::I1, &[2])).unwrap();
        assert_eq!(r.data, Data::Bool(vec![false, false]));
        let r = dot(&p, &p, &ty(ElementType::I1, &[2, 2])).unwrap();
        assert_eq!(r.data, Data::Bool(vec![true, false, false, false]));
        // bf16: 1 + 2^-8 + 2^-8 summed in f32 is 1 + 2^-7, rounded once;
        // rounding after each step would tie back to 1.0 twice.
        let tiny = 2f32.powi(-8);
        let x = Tensor::new(ElementType::BF16, vec![3], Data::F32(vec![1.0, tiny, tiny])).unwrap();
        let ones = Tensor::new(ElementType::BF16, vec![3], Data::F32(vec![1.0; 3])).unwrap();
        let r = dot(&x, &ones, &ty(ElementType::BF16, &[])).unwrap();
        assert_eq!(r.data, Data::F32(vec![1.0078125]));
        // f16 overflow rounds to infinity at the end.
        let big = Tensor::new(ElementType::F16, vec![2], Data::F32(vec![300.0, 300.0])).unwrap();
        let r = dot(&big, &big, &ty(ElementType::F16, &[])).unwrap();
        assert_eq!(r.data, Data::F32(vec![f32::INFINITY]));
    }

    #[test]
    fn dot_errors() {
        let a = f32s(&[2, 3], vec![0.0; 6]);
        let b = f32s(&[2, 3], vec![0.0; 6]);
        let f = ty(ElementType::F32, &[2, 2]);
        assert!(matches!(dot(&a, &b, &f), Err(ValueError::Mismatch(_))));
        let d = dims(&[], &[], &[1], &[1]);
        assert!(dot_general(&a, &b, &d, &f).is_ok());
        assert!(dot_general(&a, &b, &d, &ty(ElementType::F32, &[2, 3])).is_err());
        assert!(dot_general(&a, &b, &dims(&[], &[], &[5], &[1]), &f).is_err());
        assert!(dot_general(&a, &b, &dims(&[0], &[0], &[0], &[1]), &f).is_err());
        assert!(dot_general(&a, &b, &dims(&[0], &[], &[1], &[1]), &f).is_err());
        let s = f32s(&[], vec![1.0]);
        assert!(dot(&s, &a, &f).is_err());
    }

    fn nwc() -> ConvDimensions {
        ConvDimensions::parse("#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>").unwrap()
    }

    #[test]
    fn one_dimensional_convolutions() {
        let x = f32s(&[1, 4, 1], vec![1.0, 2.0, 3.0, 4.0]);
        let k = f32s(&[2, 1, 1], vec![10.0, 1.0]);
        let conv = |w: &ConvWindow, out: usize| {
            convolution(&x, &k, &nwc(), w, &ty(ElementType::F32, &[1, out, 1])).map(|t| t.data)
        };
        let mut w = ConvWindow::new(1);
        assert_eq!(conv(&w, 3).unwrap(), Data::F32(vec![12.0, 23.0, 34.0]));
        w.padding = vec![(1, 1)];
        assert_eq!(
            conv(&w, 5).unwrap(),
            Data::F32(vec![1.0, 12.0, 23.0, 34.0, 40.0])
        );
        w.strides = vec![2];
        assert_eq!(conv(&w, 3).unwrap(), Data::F32(vec![1.0, 23.0, 40.0]));
        // Negative padding crops.
        let mut w = ConvWindow::new(1);
        w.padding = vec![(-1, 0)];
        assert_eq!(conv(&w, 2).unwrap(), Data::F32(vec![23.0, 34.0]));
        // Base dilation: 1 0 2 0 3 0 4.
        let mut w = ConvWindow::new(1);
        w.lhs_dilation = vec![2];
        assert_eq!(
            conv(&w, 6).unwrap(),
            Data::F32(vec![10.0, 2.0, 20.0, 3.0, 30.0, 4.0])
        );
        // Window dilation: taps 0 and 2.
        let mut w = ConvWindow::new(1);
        w.rhs_dilation = vec![2];
        assert_eq!(conv(&w, 2).unwrap(), Data::F32(vec![13.0, 24.0]));
        // Reversal: the kernel is applied as [1, 10].
        let mut w = ConvWindow::new(1);
        w.reversal = vec![true];
        assert_eq!(conv(&w, 3).unwrap(), Data::F32(vec![21.0, 32.0, 43.0]));
        // Shapes that do not fit are errors.
        assert!(conv(&ConvWindow::new(1), 4).is_err());
        let mut w = ConvWindow::new(1);
        w.strides = vec![0];
        assert!(conv(&w, 3).is_err());
        let mut w = ConvWindow::new(1);
        w.padding = vec![];
        assert!(conv(&w, 3).is_err());
        let mut w = ConvWindow::new(1);
        w.feature_group_count = 2;
        assert!(conv(&w, 3).is_err());
        // A window wider than the padded input gives an empty result.
        let mut w = ConvWindow::new(1);
        w.padding = vec![(-3, 0)];
        assert_eq!(conv(&w, 0).unwrap(), Data::F32(vec![]));
    }

    #[test]
    fn grouped_convolutions() {
        // Feature groups: 2 input features, 2 groups, 4 outputs; output o
        // reads feature o / 2.
        let x = ints(ElementType::Signed(64), &[1, 2, 2], vec![1, 10, 2, 20]);
        let k = ints(ElementType::Signed(64), &[1, 1, 4], vec![1, 2, 3, 4]);
        let mut w = ConvWindow::new(1);
        w.feature_group_count = 2;
        let r = convolution(&x, &k, &nwc(), &w, &ty(ElementType::Signed(64), &[1, 2, 4])).unwrap();
        assert_eq!(r.data, Data::Signed(vec![1, 2, 30, 40, 2, 4, 60, 80]));
        // Batch groups: 2 batches, 2 groups, 2 outputs; output o reads batch o.
        let x = ints(ElementType::Signed(64), &[2, 2, 1], vec![1, 2, 3, 4]);
        let k = ints(ElementType::Signed(64), &[1, 1, 2], vec![10, 100]);
        let mut w = ConvWindow::new(1);
        w.batch_group_count = 2;
        let r = convolution(&x, &k, &nwc(), &w, &ty(ElementType::Signed(64), &[1, 2, 2])).unwrap();
        assert_eq!(r.data, Data::Signed(vec![10, 300, 20, 400]));
        w.feature_group_count = 2;
        assert!(convolution(&x, &k, &nwc(), &w, &ty(ElementType::Signed(64), &[1, 2, 2])).is_err());
    }

    /// A direct transcription of the specification for canonical 2-D
    /// layouts: pad and dilate the input explicitly, then slide the window.
    #[allow(clippy::too_many_arguments)]
    fn reference_conv2d(
        x: &[f32],
        [nb, h, wd, c]: [usize; 4],
        k: &[f32],
        [kh, kw, ci, co]: [usize; 4],
        w: &ConvWindow,
    ) -> (Vec<usize>, Vec<f32>) {
        let fg = w.feature_group_count as usize;
        let bg = w.batch_group_count as usize;
        let dil = |s: usize, d: i64| if s == 0 { 0 } else { (s - 1) * d as usize + 1 };
        let (ph, pw) = (
            dil(h, w.lhs_dilation[0]) as i64 + w.padding[0].0 + w.padding[0].1,
            dil(wd, w.lhs_dilation[1]) as i64 + w.padding[1].0 + w.padding[1].1,
        );
        // The padded, dilated input, built element by element.
        let padded = |b: usize, i: i64, j: i64, f: usize| -> f32 {
            let (ii, jj) = (i - w.padding[0].0, j - w.padding[1].0);
            if ii < 0 || jj < 0 || ii % w.lhs_dilation[0] != 0 || jj % w.lhs_dilation[1] != 0 {
                return 0.0;
            }
            let (ii, jj) = (
                (ii / w.lhs_dilation[0]) as usize,
                (jj / w.lhs_dilation[1]) as usize,
            );
            if ii >= h || jj >= wd {
                return 0.0;
            }
            x[((b * h + ii) * wd + jj) * c + f]
        };
        let span = |kk: usize, d: i64| dil(kk, d) as i64;
        let (oh, ow) = (
            ((ph - span(kh, w.rhs_dilation[0])) / w.strides[0] + 1) as usize,
            ((pw - span(kw, w.rhs_dilation[1])) / w.strides[1] + 1) as usize,
        );
        let ob = nb / bg;
        let og = co / (fg * bg);
        let mut out = Vec::new();
        for b in 0..ob {
            for i in 0..oh {
                for j in 0..ow {
                    for o in 0..co {
                        let q = o / og;
                        let (fq, bq) = if fg > 1 { (q, 0) } else { (0, q) };
                        let mut products = Vec::new();
                        for a in 0..kh {
                            for e in 0..kw {
                                let ra = if w.reversal[0] { kh - 1 - a } else { a };
                                let re = if w.reversal[1] { kw - 1 - e } else { e };
                                let pi = i as i64 * w.strides[0] + ra as i64 * w.rhs_dilation[0];
                                let pj = j as i64 * w.strides[1] + re as i64 * w.rhs_dilation[1];
                                for f in 0..ci {
                                    let v = padded(bq * ob + b, pi, pj, fq * ci + f);
                                    products.push(v * k[((a * kw + e) * ci + f) * co + o]);
                                }
                            }
                        }
                        out.push(defined_sum(&products));
                    }
                }
            }
        }
        (vec![ob, oh, ow, co], out)
    }

    fn nhwc() -> ConvDimensions {
        ConvDimensions::parse("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>").unwrap()
    }

    fn window_cases() -> Vec<(ConvWindow, [usize; 4], [usize; 4])> {
        let mut cases = Vec::new();
        let mut w = ConvWindow::new(2);
        w.strides = vec![2, 1];
        w.padding = vec![(1, 2), (-1, 1)];
        w.lhs_dilation = vec![1, 2];
        w.rhs_dilation = vec![2, 1];
        w.reversal = vec![true, false];
        cases.push((w, [2, 7, 6, 3], [3, 2, 3, 4]));
        let mut w = ConvWindow::new(2);
        w.feature_group_count = 3;
        w.padding = vec![(1, 1), (1, 1)];
        cases.push((w, [2, 5, 5, 6], [3, 3, 2, 9]));
        let mut w = ConvWindow::new(2);
        w.batch_group_count = 2;
        w.reversal = vec![false, true];
        w.strides = vec![1, 3];
        cases.push((w, [4, 6, 8, 2], [2, 3, 2, 6]));
        cases
    }

    #[test]
    fn convolution_matches_the_definition_in_any_layout() {
        for (seed, (w, xs, ks)) in window_cases().into_iter().enumerate() {
            let x = f32s(&xs, noise(xs.iter().product(), 10 + seed as u64));
            let k = f32s(&ks, noise(ks.iter().product(), 20 + seed as u64));
            let (Data::F32(xv), Data::F32(kv)) = (&x.data, &k.data) else {
                unreachable!()
            };
            let (shape, expected) = reference_conv2d(xv, xs, kv, ks, &w);
            let r = convolution(&x, &k, &nhwc(), &w, &ty(ElementType::F32, &shape)).unwrap();
            let expected_bits: Vec<u32> = expected.iter().map(|v| v.to_bits()).collect();
            assert_eq!(bits(&r), expected_bits, "case {seed}");
            // The same convolution in other layouts.
            let dims =
                ConvDimensions::parse("#stablehlo.conv<[f, 1, b, 0]x[o, 1, 0, i]->[1, f, 0, b]>")
                    .unwrap();
            let xt = transpose(&x, &[3, 2, 0, 1]).unwrap();
            let kt = transpose(&k, &[3, 1, 0, 2]).unwrap();
            let out_perm = [2, 3, 1, 0];
            let out_shape: Vec<usize> = out_perm.iter().map(|&p| shape[p]).collect();
            let rt = convolution(&xt, &kt, &dims, &w, &ty(ElementType::F32, &out_shape)).unwrap();
            assert_eq!(rt, transpose(&r, &out_perm).unwrap(), "case {seed}");
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() -> Result<(), Box<dyn std::error::Error>> {
        // Many rows (split by rows) and one row per batch (split by columns).
        let shapes = [(37, 300), (1, 700)];
        let operands: Vec<(Tensor, Tensor)> = shapes
            .iter()
            .enumerate()
            .map(|(i, &(m, n))| {
                (
                    f32s(&[3, m, 70], noise(3 * m * 70, 5 + i as u64)),
                    f32s(&[3, 70, n], noise(3 * 70 * n, 15 + i as u64)),
                )
            })
            .collect();
        let d = dims(&[0], &[0], &[2], &[1]);
        let x = f32s(&[2, 20, 20, 6], noise(2 * 20 * 20 * 6, 7));
        let k = f32s(&[3, 3, 2, 12], noise(3 * 3 * 2 * 12, 8));
        let mut w = ConvWindow::new(2);
        w.feature_group_count = 3;
        w.padding = vec![(1, 1), (2, 0)];
        let conv_out = ty(ElementType::F32, &[2, 20, 20, 12]);
        let run = || -> Result<Vec<Tensor>, ValueError> {
            let mut results = Vec::new();
            for ((lhs, rhs), &(m, n)) in operands.iter().zip(&shapes) {
                let out = ty(ElementType::F32, &[3, m, n]);
                results.push(dot_general(lhs, rhs, &d, &out)?);
            }
            results.push(convolution(&x, &k, &nhwc(), &w, &conv_out)?);
            Ok(results)
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()?
            .install(run)?;
        let many = rayon::ThreadPoolBuilder::new()
            .num_threads(5)
            .build()?
            .install(run)?;
        let default = run()?;
        for (a, b) in one.iter().zip(&many).chain(one.iter().zip(&default)) {
            assert_eq!(bits(a), bits(b));
        }
        // And the same bits as the documented definition.
        for (i, ((lhs, rhs), &(rows, cols))) in operands.iter().zip(&shapes).enumerate() {
            let (Data::F32(l), Data::F32(r)) = (&lhs.data, &rhs.data) else {
                unreachable!()
            };
            let mut expected = Vec::new();
            for b in 0..3 {
                for m in 0..rows {
                    for n in 0..cols {
                        let products: Vec<f32> = (0..70)
                            .map(|k| l[(b * rows + m) * 70 + k] * r[(b * 70 + k) * cols + n])
                            .collect();
                        expected.push(defined_sum(&products).to_bits());
                    }
                }
            }
            assert_eq!(bits(&one[i]), expected);
        }
        let (Data::F32(xv), Data::F32(kv)) = (&x.data, &k.data) else {
            unreachable!()
        };
        let (_, expected) = reference_conv2d(xv, [2, 20, 20, 6], kv, [3, 3, 2, 12], &w);
        let expected: Vec<u32> = expected.iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits(&one[2]), expected);
        Ok(())
    }
    #[test]
    fn ops_run_in_the_interpreter() {
        use crate::{HostTensor, Interpreter};
        use zkdv_ir::find_function;
        use zkdv_ir::IrContext;
        let source = r#""func.func"() <{function_type = (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<1x2x1xf32>), sym_name = "main"}> ({
  ^bb0(%m: tensor<2x3xf32>, %v: tensor<3xf32>):
    %0 = "stablehlo.dot"(%m, %v) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
    %1 = "stablehlo.reshape"(%v) : (tensor<3xf32>) -> tensor<1x3x1xf32>
    %2 = "stablehlo.reshape"(%0) : (tensor<2xf32>) -> tensor<2x1x1xf32>
    %3 = "stablehlo.convolution"(%1, %2) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>, feature_group_count = 1 : i64, padding = dense<[[1, 0]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>, window_strides = array<i64: 1>}> : (tensor<1x3x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1xf32>
    "func.return"(%0, %3) : (tensor<2xf32>, tensor<1x2x1xf32>) -> ()
  }) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(source, "linalg.mlir").unwrap();
        let main = find_function(&module, "main").unwrap();
        let m = HostTensor::from_f32(vec![2, 3], &[1.0, 0.0, 0.0, 0.0, 1.0, 1.0]).unwrap();
        let v = HostTensor::from_f32(vec![3], &[1.0, 2.0, 3.0]).unwrap();
        let out = Interpreter.run(main, &[m, v]).unwrap();
        assert_eq!(out[0], HostTensor::from_f32(vec![2], &[1.0, 5.0]).unwrap());
        // Padded input p = [0, 1, 2, 3]; the dilated window [p[i], p[i + 2]]
        // is reversed, then weighted by the kernel [1, 5].
        assert_eq!(
            out[1],
            HostTensor::from_f32(vec![1, 2, 1], &[2.0, 8.0]).unwrap()
        );
    }
}
