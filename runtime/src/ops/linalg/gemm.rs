//! The matrix kernel under `dot_general` and `convolution`: a tiled,
//! cache-blocked GEMM ([`gemm`]) and its batched, threaded driver
//! ([`batched_matmul`]).
//!
//! Preconditions: operands are row-major slices already converted to the
//! accumulator type and arranged as the callers document (`[rows, depth]`
//! times `[depth, cols]`, or `[cols, depth]` when `b_transposed`); slice
//! lengths match the [`Panel`]/[`MatmulShape`] sizes.
//!
//! Invariant: every output element is the [`Cascade`] of its own products
//! in increasing `k` (blocks of [`CASCADE_BLOCK`] summed from `+0`), whatever
//! the tiling, the instruction set or the thread count: work is split only
//! by whole output elements, never inside a sum.

use rayon::prelude::*;

use super::ring::Ring;
use crate::ops::reduction::{Cascade, CASCADE_BLOCK};

/// Below this many multiply-adds an op runs on the calling thread.
const PARALLEL_WORK: usize = 1 << 15;
/// Output rows per work item.
pub(super) const ROWS_PER_CHUNK: usize = 8;
/// Output columns per work item when a product has few rows.
const COLUMN_TILE: usize = 256;
/// Up to this many rows per matrix, work items split the columns.
const COLUMN_SPLIT_ROWS: usize = 256;

/// The sizes and row strides of one [`gemm`] call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Panel {
    /// Output rows.
    pub(super) rows: usize,
    /// Products per output element.
    pub(super) depth: usize,
    /// Output columns.
    pub(super) cols: usize,
    /// Row stride of `b` (of `b` transposed, when `b_transposed`).
    pub(super) ldb: usize,
    /// Whether `b` is stored transposed: `b[k][j]` at `j * ldb + k`.
    pub(super) b_transposed: bool,
    /// Row stride of `out`.
    pub(super) ldc: usize,
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
pub(super) fn gemm<T: Ring>(a: &[T], b: &[T], out: &mut [T], p: Panel) {
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
pub(super) fn for_chunks<T: Send>(
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
pub(super) fn worth_parallel(rows: usize, cols: usize, depth: usize) -> bool {
    rows > ROWS_PER_CHUNK && rows.saturating_mul(cols).saturating_mul(depth.max(1)) >= PARALLEL_WORK
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
pub(super) fn batched_matmul<T: Ring>(
    a: &[T],
    b: &[T],
    s: MatmulShape,
    b_transposed: bool,
) -> Vec<T> {
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
