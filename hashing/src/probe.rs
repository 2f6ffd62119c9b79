//! Structured orthonormal probe maps and leaf sketches.

use rayon::prelude::*;

use crate::digest::Domain;
use crate::dtype::DType;
use crate::error::HashError;
use crate::tensor::expected_byte_len;

/// Leaves with at least this many elements are sketched in parallel (by rows).
const PARALLEL_SKETCH_ELEMENTS: u64 = 1 << 20;

/// Bytes pulled from the blake3 output stream at a time (any multiple of 8
/// gives the same words).
const STREAM_BUFFER: usize = 512;

/// The counter-based word stream: consecutive 8-byte little-endian words of
/// the blake3 XOF output.
struct WordStream {
    reader: blake3::OutputReader,
    buf: [u8; STREAM_BUFFER],
    pos: usize,
}

impl WordStream {
    fn new(seed: &[u8; 32], path: &str, shape: &[u64]) -> Self {
        let mut h = Domain::Probe.hasher();
        h.update(seed);
        h.update(&(path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(&(shape.len() as u64).to_le_bytes());
        for d in shape {
            h.update(&d.to_le_bytes());
        }
        WordStream {
            reader: h.finalize_xof(),
            buf: [0; STREAM_BUFFER],
            pos: STREAM_BUFFER,
        }
    }

    fn next_u64(&mut self) -> u64 {
        if self.pos == STREAM_BUFFER {
            self.reader.fill(&mut self.buf);
            self.pos = 0;
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.buf[self.pos..self.pos + 8]);
        self.pos += 8;
        u64::from_le_bytes(word)
    }
}

/// The column supports of a probe map: `k` contiguous, balanced blocks of
/// the `d` input rows, in order.
///
/// With `q = floor(d / k)` and `long = d mod k`, columns `0..long` hold
/// `q + 1` rows each and columns `long..k` hold `q` rows each; column `c`
/// starts where column `c - 1` ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocks {
    /// Input dimension `d`.
    pub d: u64,
    /// Number of columns `k` (0 only when `d = 0`).
    pub k: u64,
    /// Number of long columns (`d mod k`), each of `q + 1` rows.
    pub long: u64,
    /// Rows of a short column: `floor(d / k)` (0 when `k = 0`).
    pub q: u64,
}

impl Blocks {
    /// The blocks of `d` rows over `k <= d` columns (`k = 0` iff `d = 0`).
    pub fn new(d: u64, k: u64) -> Blocks {
        if k == 0 {
            return Blocks {
                d,
                k,
                long: 0,
                q: 0,
            };
        }
        Blocks {
            d,
            k,
            long: d % k,
            q: d / k,
        }
    }

    /// `(start, len)` of column `c < k`.
    pub fn block(&self, c: u64) -> (u64, u64) {
        if c < self.long {
            (c * (self.q + 1), self.q + 1)
        } else {
            (self.long * (self.q + 1) + (c - self.long) * self.q, self.q)
        }
    }

    /// Number of short columns (`k - long`).
    pub fn short_len(&self) -> u64 {
        self.k - self.long
    }
}

/// A structured orthonormal `d x k` projection for one leaf: every row `i`
/// has a single non-zero entry `sign[i] * scale[column[i]]`.
///
/// See the crate documentation for the exact generation procedure.
///
/// ```
/// use zkdv_hashing::ProbeMap;
///
/// let map = ProbeMap::generate(&[0; 32], "layer0.weight", &[3, 10], 0.3)?;
/// assert_eq!((map.d(), map.k(), map.rows()), (10, 3, 3));
///
/// let x: Vec<f32> = (0..30).map(|v| v as f32).collect();
/// let y = map.sketch_f32(&x)?;
/// assert_eq!(y.len(), 3 * 3);
///
/// // the dense matrix has orthonormal columns
/// let p = map.to_dense();
/// for a in 0..3 {
///     for b in 0..3 {
///         let dot: f64 = (0..10).map(|i| p[i * 3 + a] * p[i * 3 + b]).sum();
///         assert!((dot - if a == b { 1.0 } else { 0.0 }).abs() < 1e-12);
///     }
/// }
/// # Ok::<(), zkdv_hashing::HashError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeMap {
    shape: Vec<u64>,
    rows: u64,
    numel: u64,
    column: Vec<u32>,
    sign: Vec<i8>,
    scale: Vec<f64>,
    /// `sign` as f64 (`+1.0` / `-1.0`) for the branch-free sketch loop.
    sign_f64: Vec<f64>,
    /// The column blocks, and where each starts.
    blocks: Blocks,
    starts: Vec<usize>,
}

impl ProbeMap {
    /// The column count `k` for a leaf of last dimension `d` and a ratio in
    /// `(0, 1]`: `ceil(ratio * d)` clamped to `[1, d]`, with products within
    /// `4 * f64::EPSILON` (relative) of an integer snapped to it; `d = 0`
    /// gives `0`.
    ///
    /// ```
    /// use zkdv_hashing::ProbeMap;
    ///
    /// assert_eq!(ProbeMap::columns_for(10, 0.3)?, 3);
    /// assert_eq!(ProbeMap::columns_for(100, 0.07)?, 7); // 0.07 * 100 = 7.000000000000001
    /// assert_eq!(ProbeMap::columns_for(10, 0.31)?, 4);
    /// assert_eq!(ProbeMap::columns_for(1000, 1e-9)?, 1);
    /// assert!(ProbeMap::columns_for(10, 0.0).is_err());
    /// assert!(ProbeMap::columns_for(10, f64::NAN).is_err());
    /// # Ok::<(), zkdv_hashing::HashError>(())
    /// ```
    pub fn columns_for(d: u64, ratio: f64) -> Result<u64, HashError> {
        // written so that NaN fails the test
        if !(ratio > 0.0 && ratio <= 1.0) {
            return Err(HashError::InvalidRatio { ratio });
        }
        if d == 0 {
            return Ok(0);
        }
        let t = ratio * d as f64;
        let nearest = t.round();
        let k = if (t - nearest).abs() <= 4.0 * f64::EPSILON * t {
            nearest
        } else {
            t.ceil()
        };
        // the float-to-int cast saturates; the clamp keeps k in [1, d]
        Ok((k as u64).clamp(1, d))
    }

    /// Generates the map of leaf `path` with the given `shape` from `seed`.
    ///
    /// `d` is the last dimension (1 for a rank-0 leaf). A leaf whose last
    /// dimension is 0 gets the empty map (`k = 0`), whose sketches are empty.
    pub fn generate(
        seed: &[u8; 32],
        path: &str,
        shape: &[u64],
        ratio: f64,
    ) -> Result<ProbeMap, HashError> {
        let (lead, d) = match shape.split_last() {
            None => (&[][..], 1),
            Some((&d, lead)) => (lead, d),
        };
        let k = ProbeMap::columns_for(d, ratio)?;
        let d32 = u32::try_from(d).map_err(|_| HashError::DimensionTooLarge { d })?;
        let overflow = || HashError::ElementCountOverflow {
            shape: shape.to_vec(),
        };
        let rows = lead
            .iter()
            .try_fold(1u64, |acc, &x| acc.checked_mul(x))
            .ok_or_else(overflow)?;
        let numel = rows.checked_mul(d).ok_or_else(overflow)?;
        usize::try_from(numel).map_err(|_| overflow())?;

        let mut stream = WordStream::new(seed, path, shape);
        let mut sign = vec![1i8; d32 as usize];
        for block in sign.chunks_mut(64) {
            let bits = stream.next_u64();
            for (b, s) in block.iter_mut().enumerate() {
                if (bits >> b) & 1 == 1 {
                    *s = -1;
                }
            }
        }
        let blocks = Blocks::new(d, k);
        let mut column = vec![0u32; sign.len()];
        let mut sizes = vec![0u64; k as usize];
        let mut starts = vec![0usize; k as usize];
        for (c, size) in sizes.iter_mut().enumerate() {
            let (start, len) = blocks.block(c as u64);
            *size = len;
            starts[c] = start as usize; // start < d <= u32::MAX
            for slot in &mut column[start as usize..(start + len) as usize] {
                *slot = c as u32; // c < k <= d <= u32::MAX
            }
        }
        let scale = sizes.iter().map(|&n| 1.0 / (n as f64).sqrt()).collect();
        let sign_f64 = sign.iter().map(|&s| f64::from(s)).collect();
        Ok(ProbeMap {
            shape: shape.to_vec(),
            rows,
            numel,
            column,
            sign,
            scale,
            sign_f64,
            blocks,
            starts,
        })
    }

    /// The leaf shape the map was generated for.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Input dimension `d` (the leaf's last dimension; 1 for rank 0).
    pub fn d(&self) -> usize {
        self.column.len()
    }

    /// Output dimension `k` (number of columns).
    pub fn k(&self) -> usize {
        self.scale.len()
    }

    /// Rows of a sketch: the product of all but the last dimension.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Column of each input row `i < d`.
    pub fn column(&self) -> &[u32] {
        &self.column
    }

    /// Sign (`+1` or `-1`) of each input row `i < d`.
    pub fn sign(&self) -> &[i8] {
        &self.sign
    }

    /// Scale `1 / sqrt(|S_c|)` of each column `c < k`.
    pub fn scale(&self) -> &[f64] {
        &self.scale
    }

    /// The contiguous column blocks of the map (see [`Blocks`]).
    pub fn blocks(&self) -> Blocks {
        Blocks::new(self.d() as u64, self.k() as u64)
    }

    /// The map as one f32 weight per input row, for applying it inside a
    /// compiled program in one pass over the leaf (no gather, no matmul):
    /// `weight[i] = sign[i] * scale[column[i]]` rounded to f32.
    ///
    /// A program multiplies each leaf row `x[r]` by `weight` elementwise,
    /// reshapes the products into the column blocks of [`ProbeMap::blocks`]
    /// and sums each block, which is the sketch of [`ProbeMap::sketch_f32`]
    /// up to f32 rounding (each weight carries at most half an f32 ulp of
    /// relative error).
    ///
    /// ```
    /// use zkdv_hashing::ProbeMap;
    ///
    /// let map = ProbeMap::generate(&[1; 32], "w", &[2, 5], 0.4)?; // d = 5, k = 2
    /// let weight = map.weights();
    /// let blocks = map.blocks();
    /// assert_eq!((blocks.long, blocks.short_len(), blocks.q), (1, 1, 2)); // sizes 3 and 2
    /// let x: Vec<f32> = (0..10).map(|v| v as f32 - 4.0).collect();
    /// let y = map.sketch_f32(&x)?;
    /// for r in 0..2 {
    ///     for c in 0..2 {
    ///         let (start, len) = blocks.block(c as u64);
    ///         let acc: f64 = (start..start + len)
    ///             .map(|i| f64::from(weight[i as usize]) * f64::from(x[r * 5 + i as usize]))
    ///             .sum();
    ///         assert!((acc - y[r * 2 + c]).abs() <= 1e-6 * y[r * 2 + c].abs().max(1.0));
    ///     }
    /// }
    /// # Ok::<(), zkdv_hashing::HashError>(())
    /// ```
    pub fn weights(&self) -> Vec<f32> {
        self.column
            .iter()
            .zip(&self.sign_f64)
            .map(|(&c, &s)| (s * self.scale[c as usize]) as f32)
            .collect()
    }

    /// The dense row-major `d x k` matrix `P`.
    pub fn to_dense(&self) -> Vec<f64> {
        let k = self.k();
        let mut dense = vec![0.0; self.d() * k];
        for (i, (&c, &s)) in self.column.iter().zip(&self.sign).enumerate() {
            let c = c as usize;
            dense[i * k + c] = f64::from(s) * self.scale[c];
        }
        dense
    }

    fn check_len(&self, len: usize) -> Result<(), HashError> {
        if len as u64 != self.numel {
            return Err(HashError::SketchLengthMismatch {
                shape: self.shape.clone(),
                expected: self.numel,
                actual: len as u64,
            });
        }
        Ok(())
    }

    /// Adds one leaf row into `out` (length `k`) and applies the scales;
    /// `block(start, len)` yields the row's coordinates `start..start + len`
    /// as f64.
    ///
    /// Every column adds its block's coordinates one at a time in increasing
    /// order, so the bits are those of `accumulate_in_order` (tested). The
    /// blocks are contiguous, so four neighbouring columns are summed side by
    /// side: four independent chains of additions, each reading its own
    /// sequential stream of the row, with no scratch buffer and no bounds
    /// check per coordinate.
    fn accumulate<I, B>(&self, block: B, out: &mut [f64])
    where
        I: Iterator<Item = f64>,
        B: Fn(usize, usize) -> I,
    {
        let q = self.blocks.q as usize;
        let long = self.blocks.long as usize;
        let len = |c: usize| q + usize::from(c < long);
        let sign = &self.sign_f64;
        // sum += sign[i] * x[i] over `n` coordinates from `start`, in order.
        let run = |sum: &mut f64, start: usize, n: usize| {
            for (v, s) in block(start, n).zip(&sign[start..start + n]) {
                *sum += s * v;
            }
        };
        let mut c = 0;
        while c + 4 <= out.len() {
            let st = [0, 1, 2, 3].map(|j| self.starts[c + j]);
            // Lengths never grow with the column: the fourth block is the
            // shortest, and the others have at most one coordinate more.
            let m = len(c + 3);
            let lane = |j: usize| block(st[j], m).zip(&sign[st[j]..st[j] + m]);
            let [mut a0, mut a1, mut a2, mut a3] = [0, 1, 2, 3].map(|j| out[c + j]);
            for (((x0, x1), x2), x3) in lane(0).zip(lane(1)).zip(lane(2)).zip(lane(3)) {
                a0 += x0.1 * x0.0;
                a1 += x1.1 * x1.0;
                a2 += x2.1 * x2.0;
                a3 += x3.1 * x3.0;
            }
            for (j, a) in [&mut a0, &mut a1, &mut a2].into_iter().enumerate() {
                run(a, st[j] + m, len(c + j) - m);
            }
            out[c..c + 4].copy_from_slice(&[a0, a1, a2, a3]);
            c += 4;
        }
        for (j, o) in out.iter_mut().enumerate().skip(c) {
            run(o, self.starts[j], len(j));
        }
        for (o, s) in out.iter_mut().zip(&self.scale) {
            *o *= s;
        }
    }

    /// The defining loop of [`ProbeMap::accumulate`] (without the scales):
    /// coordinate by coordinate, each into its column.
    #[cfg(test)]
    fn accumulate_in_order(&self, values: impl Iterator<Item = f64>, out: &mut [f64]) {
        // s * v is exact (s = +-1), so this is the sum of sign[i] * x[i]
        for ((v, &c), &s) in values.zip(&self.column).zip(&self.sign_f64) {
            out[c as usize] += s * v;
        }
    }

    /// Runs `row_fn` over the `row_len`-sized rows of `data`, one output row
    /// of `k` values each; `data` is already length-checked.
    fn run<T, F>(&self, data: &[T], row_len: usize, row_fn: F) -> Vec<f64>
    where
        T: Sync,
        F: Fn(&[T], &mut [f64]) + Sync,
    {
        let k = self.k();
        if k == 0 || row_len == 0 {
            return Vec::new();
        }
        let mut out = vec![0.0; data.len() / row_len * k];
        if self.numel >= PARALLEL_SKETCH_ELEMENTS {
            out.par_chunks_mut(k)
                .zip(data.par_chunks(row_len))
                .for_each(|(o, row)| row_fn(row, o));
        } else {
            for (o, row) in out.chunks_mut(k).zip(data.chunks(row_len)) {
                row_fn(row, o);
            }
        }
        out
    }

    // `f` is generic rather than a `fn` pointer so that it inlines into the
    // loop: an indirect call per coordinate costs more than the sum itself.
    fn sketch_typed<T: Copy + Sync>(
        &self,
        x: &[T],
        f: impl Fn(T) -> f64 + Sync,
    ) -> Result<Vec<f64>, HashError> {
        self.check_len(x.len())?;
        Ok(self.run(x, self.d(), |row, out| {
            self.accumulate(|start, n| row[start..start + n].iter().map(|&v| f(v)), out)
        }))
    }

    fn sketch_le<const N: usize>(
        &self,
        bytes: &[u8],
        f: impl Fn([u8; N]) -> f64 + Sync,
    ) -> Vec<f64> {
        self.run(bytes, self.d() * N, |row, out| {
            let block = |start: usize, n: usize| {
                row[start * N..(start + n) * N].chunks_exact(N).map(|c| {
                    let mut a = [0u8; N];
                    a.copy_from_slice(c);
                    f(a)
                })
            };
            self.accumulate(block, out)
        })
    }

    /// Sketch of an f32 leaf: row-major `[rows, k]` with
    /// `y[r, c] = scale[c] * sum_{i in S_c, increasing} sign[i] * x[r, i]`,
    /// accumulated in f64.
    pub fn sketch_f32(&self, x: &[f32]) -> Result<Vec<f64>, HashError> {
        self.sketch_typed(x, f64::from)
    }

    /// Sketch of an f64 leaf (see [`ProbeMap::sketch_f32`]).
    pub fn sketch_f64(&self, x: &[f64]) -> Result<Vec<f64>, HashError> {
        self.sketch_typed(x, |v| v)
    }

    /// Sketch of an f16 leaf (see [`ProbeMap::sketch_f32`]).
    pub fn sketch_f16(&self, x: &[half::f16]) -> Result<Vec<f64>, HashError> {
        self.sketch_typed(x, half::f16::to_f64)
    }

    /// Sketch of a bf16 leaf (see [`ProbeMap::sketch_f32`]).
    pub fn sketch_bf16(&self, x: &[half::bf16]) -> Result<Vec<f64>, HashError> {
        self.sketch_typed(x, half::bf16::to_f64)
    }

    /// Sketch of a leaf given as little-endian bytes of any dtype.
    ///
    /// Values convert to f64 exactly, except i64/u64 beyond 2^53 (rounded to
    /// nearest); an `i1` byte counts as 1.0 when non-zero.
    ///
    /// ```
    /// use zkdv_hashing::{DType, ProbeMap};
    ///
    /// let map = ProbeMap::generate(&[7; 32], "embed", &[4, 8], 0.5)?;
    /// let x: Vec<f32> = (0..32).map(|v| v as f32 * 0.25).collect();
    /// let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    /// assert_eq!(map.sketch_bytes(DType::F32, &bytes)?, map.sketch_f32(&x)?);
    /// assert!(map.sketch_bytes(DType::F64, &bytes).is_err());
    /// # Ok::<(), zkdv_hashing::HashError>(())
    /// ```
    pub fn sketch_bytes(&self, dtype: DType, bytes: &[u8]) -> Result<Vec<f64>, HashError> {
        let expected = expected_byte_len(dtype, &self.shape)?;
        if bytes.len() as u64 != expected {
            return Err(HashError::ByteLengthMismatch {
                dtype,
                shape: self.shape.clone(),
                expected,
                actual: bytes.len() as u64,
            });
        }
        Ok(match dtype {
            DType::F64 => self.sketch_le(bytes, f64::from_le_bytes),
            DType::F32 => self.sketch_le(bytes, |b| f64::from(f32::from_le_bytes(b))),
            DType::F16 => self.sketch_le(bytes, |b| half::f16::from_le_bytes(b).to_f64()),
            DType::BF16 => self.sketch_le(bytes, |b| half::bf16::from_le_bytes(b).to_f64()),
            DType::I1 => self.sketch_le(bytes, |b: [u8; 1]| f64::from(u8::from(b[0] != 0))),
            DType::I8 => self.sketch_le(bytes, |b| f64::from(i8::from_le_bytes(b))),
            DType::I16 => self.sketch_le(bytes, |b| f64::from(i16::from_le_bytes(b))),
            DType::I32 => self.sketch_le(bytes, |b| f64::from(i32::from_le_bytes(b))),
            DType::I64 => self.sketch_le(bytes, |b| i64::from_le_bytes(b) as f64),
            DType::U8 => self.sketch_le(bytes, |b| f64::from(u8::from_le_bytes(b))),
            DType::U16 => self.sketch_le(bytes, |b| f64::from(u16::from_le_bytes(b))),
            DType::U32 => self.sketch_le(bytes, |b| f64::from(u32::from_le_bytes(b))),
            DType::U64 => self.sketch_le(bytes, |b| u64::from_le_bytes(b) as f64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Side-by-side block sums give the bits of the defining loop, for maps
    /// with one block, long and short blocks, and values of mixed
    /// magnitudes (where a different order would show).
    #[test]
    fn interleaved_sums_are_bitwise_the_defining_loop() {
        for (d, ratio) in [
            (1u64, 0.5),
            (10, 0.3),
            (1000, 0.011),
            (1024, 0.01),
            (103, 0.07),
            (97, 1.0),
        ] {
            let map = ProbeMap::generate(&[5; 32], "w", &[3, d], ratio).unwrap();
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let x: Vec<f64> = (0..3 * d)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let m = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                    m * [1.0, 1e-8, 1e8][(state >> 5) as usize % 3]
                })
                .collect();
            let got = map.sketch_f64(&x).unwrap();
            let k = map.k();
            for (r, row) in x.chunks(d as usize).enumerate() {
                let mut want = vec![0.0; k];
                map.accumulate_in_order(row.iter().copied(), &mut want);
                for (w, s) in want.iter_mut().zip(&map.scale) {
                    *w *= s;
                }
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&got[r * k..(r + 1) * k]),
                    bits(&want),
                    "d={d} ratio={ratio}"
                );
            }
        }
    }

    #[test]
    fn stream_is_the_xof_output() {
        let key = blake3::derive_key("zkdv probe map v2", b"");
        let mut h = blake3::Hasher::new_keyed(&key);
        h.update(&[9; 32]);
        h.update(&3u64.to_le_bytes());
        h.update(b"a.b");
        h.update(&2u64.to_le_bytes());
        h.update(&4u64.to_le_bytes());
        h.update(&6u64.to_le_bytes());
        let mut expect = vec![0u8; 8 * 200];
        h.finalize_xof().fill(&mut expect);
        let mut s = WordStream::new(&[9; 32], "a.b", &[4, 6]);
        for w in expect.chunks_exact(8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            assert_eq!(s.next_u64(), u64::from_le_bytes(a));
        }
    }

    #[test]
    fn shapes_and_edge_cases() {
        let seed = [0; 32];
        let scalar = ProbeMap::generate(&seed, "s", &[], 1.0).unwrap();
        assert_eq!((scalar.d(), scalar.k(), scalar.rows()), (1, 1, 1));
        assert_eq!(
            scalar.sketch_f64(&[2.5]).unwrap(),
            vec![2.5 * f64::from(scalar.sign()[0])]
        );

        let empty = ProbeMap::generate(&seed, "e", &[5, 0], 0.5).unwrap();
        assert_eq!((empty.d(), empty.k(), empty.rows()), (0, 0, 5));
        assert!(empty.sketch_f32(&[]).unwrap().is_empty());
        assert!(empty.to_dense().is_empty());

        let no_rows = ProbeMap::generate(&seed, "n", &[0, 6], 0.5).unwrap();
        assert_eq!((no_rows.d(), no_rows.k(), no_rows.rows()), (6, 3, 0));
        assert!(no_rows.sketch_f32(&[]).unwrap().is_empty());

        assert!(matches!(
            ProbeMap::generate(&seed, "big", &[1 << 33], 0.5),
            Err(HashError::DimensionTooLarge { .. })
        ));
        assert!(ProbeMap::generate(&seed, "ovf", &[u64::MAX, 0], 0.5).is_ok());
        assert!(matches!(
            ProbeMap::generate(&seed, "ovf", &[u64::MAX, 4], 0.5),
            Err(HashError::ElementCountOverflow { .. })
        ));
        for bad in [0.0, -0.1, 1.0000001, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                ProbeMap::generate(&seed, "r", &[4], bad),
                Err(HashError::InvalidRatio { .. })
            ));
        }
        let m = ProbeMap::generate(&seed, "m", &[2, 3], 1.0).unwrap();
        assert!(matches!(
            m.sketch_f32(&[0.0; 5]),
            Err(HashError::SketchLengthMismatch {
                expected: 6,
                actual: 5,
                ..
            })
        ));
    }

    #[test]
    fn columns_are_balanced() {
        for (d, ratio) in [(10, 0.3), (7, 1.0), (100, 0.07), (1, 0.01), (4096, 0.01)] {
            let m = ProbeMap::generate(&[3; 32], "b", &[d], ratio).unwrap();
            let k = m.k() as u64;
            let mut sizes = vec![0u64; m.k()];
            for &c in m.column() {
                sizes[c as usize] += 1;
            }
            for (c, &n) in sizes.iter().enumerate() {
                assert!(n == d / k || n == d.div_ceil(k), "d={d} k={k} c={c} n={n}");
                assert_eq!(m.scale()[c], 1.0 / (n as f64).sqrt());
            }
        }
    }

    /// The weights summed over the blocks reproduce the sketch within 1e-6
    /// relative to the sum of the magnitudes of the summed terms.
    #[test]
    fn block_weights_reproduce_the_sketch() {
        let cases: [(&[u64], f64); 8] = [
            (&[], 1.0),
            (&[1], 0.01),
            (&[7], 1.0),
            (&[3, 10], 0.3),
            (&[3, 10], 0.6),
            (&[4, 2, 13], 0.25),
            (&[5, 100], 0.07),
            (&[2, 4096], 0.01),
        ];
        for (shape, ratio) in cases {
            let map = ProbeMap::generate(&[11; 32], "g", shape, ratio).unwrap();
            let weight = map.weights();
            let blocks = map.blocks();
            let (d, k) = (map.d(), map.k());
            assert_eq!(weight.len(), d);
            assert_eq!(
                blocks.long * (blocks.q + 1) + blocks.short_len() * blocks.q,
                d as u64
            );
            // the blocks tile 0..d in order and match `column`
            let mut next = 0;
            for c in 0..k as u64 {
                let (start, len) = blocks.block(c);
                assert_eq!(start, next);
                assert!(len >= 1);
                next = start + len;
                for i in start..start + len {
                    assert_eq!(map.column()[i as usize] as u64, c);
                }
            }
            assert_eq!(next, d as u64);
            let x: Vec<f32> = (0..map.numel)
                .map(|i| ((i * 7919 % 1009) as f32 - 504.0) / 17.0)
                .collect();
            let y = map.sketch_f32(&x).unwrap();
            for r in 0..map.rows() as usize {
                for c in 0..k {
                    let (start, len) = blocks.block(c as u64);
                    let (mut acc, mut magnitude) = (0.0f64, 0.0f64);
                    for i in start as usize..(start + len) as usize {
                        let term = f64::from(weight[i]) * f64::from(x[r * d + i]);
                        acc += term;
                        magnitude += term.abs();
                    }
                    let want = y[r * k + c];
                    assert!((acc - want).abs() <= 1e-6 * magnitude.max(f64::MIN_POSITIVE));
                }
            }
        }
        let empty = ProbeMap::generate(&[0; 32], "e", &[3, 0], 0.5).unwrap();
        assert!(empty.weights().is_empty());
        assert_eq!(empty.blocks(), Blocks::new(0, 0));
    }

    #[test]
    fn parallel_sketch_matches_sequential_rows() {
        let shape = [1100, 1000];
        let m = ProbeMap::generate(&[5; 32], "p", &shape, 0.01).unwrap();
        assert!(m.numel >= PARALLEL_SKETCH_ELEMENTS);
        let x: Vec<f32> = (0..1_100_000u64)
            .map(|i| ((i * 7919) % 1013) as f32 - 500.0)
            .collect();
        let y = m.sketch_f32(&x).unwrap();
        let small = ProbeMap::generate(&[5; 32], "p", &shape, 0.01).unwrap();
        for r in [0usize, 1, 577, 1099] {
            let mut out = vec![0.0; m.k()];
            let row = &x[r * 1000..(r + 1) * 1000];
            small.accumulate(
                |start, n| row[start..start + n].iter().map(|&v| f64::from(v)),
                &mut out,
            );
            assert_eq!(&y[r * m.k()..(r + 1) * m.k()], &out[..]);
        }
    }
}
