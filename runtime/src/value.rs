//! Typed tensors the interpreter computes on, and their construction from
//! MLIR type and `dense<...>` attribute text.
//!
//! A [`Tensor`] holds its elements unpacked in one Rust vector per element
//! class (floats per width, integers widened to 64 bits and kept wrapped to
//! their MLIR width, booleans, complex numbers as `[re, im]` pairs), so each
//! op is a plain loop over typed data. [`HostTensor`] (bytes) is the boundary
//! format; its dtypes (those of `zkdv-hashing`) have no complex type, so
//! complex tensors live only inside a run.

use half::{bf16, f16};
use zkdv_hashing::DType;

use crate::{HostTensor, RuntimeError};

/// Why a value could not be built or an op could not compute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// An element or tensor type the interpreter does not support.
    #[error("unsupported type `{0}`")]
    UnsupportedType(String),
    /// A type or attribute text that does not have the expected form.
    #[error("malformed {what}: `{text}`")]
    Malformed {
        /// What was being read.
        what: &'static str,
        /// The offending text.
        text: String,
    },
    /// Operand types or shapes that the op does not accept.
    #[error("{0}")]
    Mismatch(String),
    /// A value outside what the target type can represent.
    #[error("{0}")]
    OutOfRange(String),
}

impl From<zkdv_ir::attrs::AttrError> for ValueError {
    fn from(error: zkdv_ir::attrs::AttrError) -> Self {
        ValueError::Malformed {
            what: error.what,
            text: error.text,
        }
    }
}

/// An element type the interpreter supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementType {
    /// IEEE binary64.
    F64,
    /// IEEE binary32.
    F32,
    /// IEEE binary16, held widened in `f32` ([`Data::F32`]).
    F16,
    /// bfloat16, held widened in `f32` ([`Data::F32`]).
    BF16,
    /// Boolean.
    I1,
    /// Signed integer of the given width (2, 4, 8, 16, 32 or 64; 2- and
    /// 4-bit integers cross the host boundary as one byte per element).
    Signed(u32),
    /// Unsigned integer of the given width (2, 4, 8, 16, 32 or 64).
    Unsigned(u32),
    /// `complex<f32>`: two `f32`s ([`Data::C64`]).
    Complex64,
    /// `complex<f64>`: two `f64`s ([`Data::C128`]).
    Complex128,
}

impl ElementType {
    /// Reads an MLIR element type (`f32`, `i1`, `i32`, `ui64`, ...).
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let width = |digits: &str| match digits.parse::<u32>() {
            Ok(w @ (2 | 4 | 8 | 16 | 32 | 64)) => Ok(w),
            _ => Err(ValueError::UnsupportedType(text.to_owned())),
        };
        match text {
            "f64" => Ok(Self::F64),
            "f32" => Ok(Self::F32),
            "f16" => Ok(Self::F16),
            "bf16" => Ok(Self::BF16),
            "i1" => Ok(Self::I1),
            "complex<f32>" => Ok(Self::Complex64),
            "complex<f64>" => Ok(Self::Complex128),
            _ if text.starts_with("ui") => Ok(Self::Unsigned(width(&text[2..])?)),
            _ if text.starts_with('i') => Ok(Self::Signed(width(&text[1..])?)),
            _ => Err(ValueError::UnsupportedType(text.to_owned())),
        }
    }

    /// The canonical dtype of `zkdv-hashing`; complex types have none (they
    /// cannot cross the host boundary).
    pub fn dtype(self) -> Result<DType, ValueError> {
        Ok(match self {
            Self::F64 => DType::F64,
            Self::F32 => DType::F32,
            Self::F16 => DType::F16,
            Self::BF16 => DType::BF16,
            Self::I1 => DType::I1,
            Self::Signed(2 | 4 | 8) => DType::I8,
            Self::Signed(16) => DType::I16,
            Self::Signed(32) => DType::I32,
            Self::Signed(_) => DType::I64,
            Self::Unsigned(2 | 4 | 8) => DType::U8,
            Self::Unsigned(16) => DType::U16,
            Self::Unsigned(32) => DType::U32,
            Self::Unsigned(_) => DType::U64,
            Self::Complex64 | Self::Complex128 => {
                return Err(ValueError::UnsupportedType(format!(
                    "{} at the host boundary",
                    self.name()
                )))
            }
        })
    }

    /// The MLIR spelling of this type (`f32`, `i4`, `complex<f64>`, ...).
    pub fn name(self) -> String {
        match self {
            Self::F64 => "f64".to_owned(),
            Self::F32 => "f32".to_owned(),
            Self::F16 => "f16".to_owned(),
            Self::BF16 => "bf16".to_owned(),
            Self::I1 => "i1".to_owned(),
            Self::Signed(w) => format!("i{w}"),
            Self::Unsigned(w) => format!("ui{w}"),
            Self::Complex64 => "complex<f32>".to_owned(),
            Self::Complex128 => "complex<f64>".to_owned(),
        }
    }

    /// Bytes per element in the row-major little-endian layout (2- and
    /// 4-bit integers take one byte; a complex number is its real part
    /// followed by its imaginary part).
    pub fn size_bytes(self) -> usize {
        match self {
            Self::F64 | Self::Signed(64) | Self::Unsigned(64) | Self::Complex64 => 8,
            Self::F32 | Self::Signed(32) | Self::Unsigned(32) => 4,
            Self::F16 | Self::BF16 | Self::Signed(16) | Self::Unsigned(16) => 2,
            Self::Complex128 => 16,
            Self::I1 | Self::Signed(_) | Self::Unsigned(_) => 1,
        }
    }

    /// Whether this is a complex type.
    pub fn is_complex(self) -> bool {
        matches!(self, Self::Complex64 | Self::Complex128)
    }

    /// The type of the real and imaginary parts of a complex type.
    pub fn complex_part(self) -> Option<ElementType> {
        match self {
            Self::Complex64 => Some(Self::F32),
            Self::Complex128 => Some(Self::F64),
            _ => None,
        }
    }

    /// The complex type whose parts are of this type (`f32` or `f64`).
    pub fn complex_of(self) -> Option<ElementType> {
        match self {
            Self::F32 => Some(Self::Complex64),
            Self::F64 => Some(Self::Complex128),
            _ => None,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64 | Self::F16 | Self::BF16)
    }

    /// Rounds an `f32` to this type (to nearest, ties to even) when it is
    /// `f16` or `bf16`; the identity otherwise.
    ///
    /// An `f16`/`bf16` op computes in `f32` and rounds once: `f32` has more
    /// than twice their precision plus two bits, so for `+ - * /` this equals
    /// the correctly rounded result (no double-rounding error).
    ///
    /// This is an op's result: under a perturbed [`crate::rounding`] mode the
    /// narrow types round in that mode instead.
    #[inline]
    pub fn round_f32(self, value: f32) -> f32 {
        crate::rounding::narrow(self, value)
    }

    /// Rounds an `f64` to this type (to nearest, ties to even) for the
    /// `f32`-held types, with a single rounding error.
    ///
    /// `half`'s own `from_f64` goes through `f32` with two roundings, so the
    /// value is first rounded to `f32` *to odd*, which the final rounding to
    /// nearest then turns into the correctly rounded result.
    #[inline]
    pub fn round_f64(self, value: f64) -> f32 {
        match self {
            Self::F16 | Self::BF16 => self.round_f32(f64_to_f32_odd(value)),
            _ => value as f32,
        }
    }

    /// [`ElementType::round_f64`] to nearest whatever the rounding mode: for
    /// constants written in the program, which no mode may move.
    #[inline]
    pub fn round_f64_nearest(self, value: f64) -> f32 {
        match self {
            Self::F16 | Self::BF16 => crate::rounding::nearest(self, f64_to_f32_odd(value)),
            _ => value as f32,
        }
    }

    /// Wraps a signed value to this type's width (two's complement).
    #[inline]
    pub fn wrap_signed(self, value: i64) -> i64 {
        match self {
            Self::Signed(w) if w < 64 => (value << (64 - w)) >> (64 - w),
            _ => value,
        }
    }

    /// Wraps an unsigned value to this type's width.
    #[inline]
    pub fn wrap_unsigned(self, value: u64) -> u64 {
        match self {
            Self::Unsigned(w) if w < 64 => value & ((1u64 << w) - 1),
            _ => value,
        }
    }
}

/// `value` rounded to `f32` to odd: exact when representable, else the one
/// of the two neighbouring `f32`s (`f32::MAX` standing for the overflow
/// side) whose significand is odd.
fn f64_to_f32_odd(value: f64) -> f32 {
    let nearest = value as f32;
    if value.is_nan() || f64::from(nearest) == value || nearest.to_bits() & 1 == 1 {
        return nearest;
    }
    // One step toward `value`: away from zero if |value| > |nearest|.
    if value.abs() > f64::from(nearest.abs()) {
        f32::from_bits(nearest.to_bits() + 1)
    } else {
        f32::from_bits(nearest.to_bits() - 1)
    }
}

/// The elements of a tensor, row-major.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// `f64` elements.
    F64(Vec<f64>),
    /// `f32` elements.
    F32(Vec<f32>),
    /// Booleans (`i1`).
    Bool(Vec<bool>),
    /// Signed integers, sign-extended from their width.
    Signed(Vec<i64>),
    /// Unsigned integers, zero-extended from their width.
    Unsigned(Vec<u64>),
    /// `complex<f32>` elements as `[re, im]`.
    C64(Vec<[f32; 2]>),
    /// `complex<f64>` elements as `[re, im]`.
    C128(Vec<[f64; 2]>),
}

impl Data {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::F64(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::Bool(v) => v.len(),
            Data::Signed(v) => v.len(),
            Data::Unsigned(v) => v.len(),
            Data::C64(v) => v.len(),
            Data::C128(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements of a row-major array of `shape` with its dimensions
    /// permuted: result dimension `k` is dimension `permutation[k]` (a
    /// valid permutation of `shape`'s rank, which the caller checks).
    pub fn permuted(&self, shape: &[usize], permutation: &[usize]) -> Data {
        match self {
            Data::F64(v) => Data::F64(permute(v, shape, permutation)),
            Data::F32(v) => Data::F32(permute(v, shape, permutation)),
            Data::Bool(v) => Data::Bool(permute(v, shape, permutation)),
            Data::Signed(v) => Data::Signed(permute(v, shape, permutation)),
            Data::Unsigned(v) => Data::Unsigned(permute(v, shape, permutation)),
            Data::C64(v) => Data::C64(permute(v, shape, permutation)),
            Data::C128(v) => Data::C128(permute(v, shape, permutation)),
        }
    }

    /// The elements at `indices`, in that order.
    pub fn gather(&self, indices: &[usize]) -> Data {
        fn pick<T: Copy>(v: &[T], indices: &[usize]) -> Vec<T> {
            indices.iter().map(|&i| v[i]).collect()
        }
        match self {
            Data::F64(v) => Data::F64(pick(v, indices)),
            Data::F32(v) => Data::F32(pick(v, indices)),
            Data::Bool(v) => Data::Bool(pick(v, indices)),
            Data::Signed(v) => Data::Signed(pick(v, indices)),
            Data::Unsigned(v) => Data::Unsigned(pick(v, indices)),
            Data::C64(v) => Data::C64(pick(v, indices)),
            Data::C128(v) => Data::C128(pick(v, indices)),
        }
    }
}

/// A permutation of a result of at least this many elements is split over
/// rayon's pool, by blocks of whole result rows (each element is copied, so
/// how the work is split changes nothing in the result).
const PARALLEL_PERMUTE: usize = 1 << 16;

/// [`Data::permuted`] on one element type: a plain 2-D transpose goes tile
/// by tile (both sides stay in cache), anything else row by row of the
/// result, each row a strided read of the source. Large results are written
/// block by block on rayon's pool, straight into uninitialized memory.
fn permute<T: Copy + Send + Sync>(source: &[T], shape: &[usize], permutation: &[usize]) -> Vec<T> {
    let rank = shape.len();
    if source.is_empty() {
        return Vec::new();
    }
    if rank < 2 || permutation.iter().enumerate().all(|(k, &p)| k == p) {
        return source.to_vec();
    }
    let mut out = Vec::with_capacity(source.len());
    if rank == 2 {
        // The result is `rows x cols`; its element (i, j) is the source's (j, i).
        const TILE: usize = 32;
        let (rows, cols) = (shape[1], shape[0]);
        fill_blocks(&mut out, source.len(), TILE * cols, |first, block| {
            let i0 = first / cols;
            let block_rows = block.len() / cols;
            for j0 in (0..cols).step_by(TILE) {
                for di in 0..block_rows {
                    let i = i0 + di;
                    for j in j0..(j0 + TILE).min(cols) {
                        block[di * cols + j].write(source[j * rows + i]);
                    }
                }
            }
        });
        return out;
    }
    let mut source_strides = vec![1usize; rank];
    for k in (0..rank - 1).rev() {
        source_strides[k] = source_strides[k + 1] * shape[k + 1];
    }
    let out_shape: Vec<usize> = permutation.iter().map(|&p| shape[p]).collect();
    let strides: Vec<usize> = permutation.iter().map(|&p| source_strides[p]).collect();
    let (inner, inner_stride) = (out_shape[rank - 1].max(1), strides[rank - 1]);
    // Where result row `row` starts in the source: its index over the outer
    // result dimensions, weighed by their strides in the source.
    let base_of = |mut row: usize| {
        let mut base = 0;
        for k in (0..rank - 1).rev() {
            base += (row % out_shape[k]) * strides[k];
            row /= out_shape[k];
        }
        base
    };
    let rows_per_block = (PARALLEL_PERMUTE / inner).max(1);
    fill_blocks(
        &mut out,
        source.len(),
        rows_per_block * inner,
        |first, block| {
            for (r, row) in block.chunks_mut(inner).enumerate() {
                let base = base_of(first / inner + r);
                for (j, slot) in row.iter_mut().enumerate() {
                    slot.write(source[base + j * inner_stride]);
                }
            }
        },
    );
    out
}

/// Makes `out` (empty, with capacity for `len`) `len` elements long, having
/// `fill(first, block)` write every element of each block of `block_len`
/// elements (the last may be shorter), `first` being the block's offset: on
/// rayon's pool when `len` is at least [`PARALLEL_PERMUTE`].
fn fill_blocks<T: Send>(
    out: &mut Vec<T>,
    len: usize,
    block_len: usize,
    fill: impl Fn(usize, &mut [std::mem::MaybeUninit<T>]) + Sync,
) {
    use rayon::prelude::*;
    let block_len = block_len.max(1);
    let spare = &mut out.spare_capacity_mut()[..len];
    if len >= PARALLEL_PERMUTE {
        spare
            .par_chunks_mut(block_len)
            .enumerate()
            .for_each(|(b, block)| fill(b * block_len, block));
    } else {
        for (b, block) in spare.chunks_mut(block_len).enumerate() {
            fill(b * block_len, block);
        }
    }
    // SAFETY: `fill` wrote every element of every block, and the blocks
    // cover the first `len` elements of the spare capacity.
    unsafe { out.set_len(len) };
}

/// A tensor the interpreter computes on.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Element type.
    pub element: ElementType,
    /// Dimensions.
    pub shape: Vec<usize>,
    /// Elements, row-major; `data.len()` is the product of `shape`.
    pub data: Data,
}

/// The most elements a tensor type may have (8 GiB of `f32`): larger types
/// are rejected when read, before anything is allocated.
pub const MAX_ELEMENTS: usize = 1 << 31;

/// A ranked tensor type: element type and static shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorType {
    /// Element type.
    pub element: ElementType,
    /// Dimensions.
    pub shape: Vec<usize>,
}

impl TensorType {
    /// Reads `tensor<2x3xf32>` or `tensor<f32>`; dynamic or unranked shapes,
    /// encodings and unsupported element types are errors.
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let text = text.trim();
        let inner = text
            .strip_prefix("tensor<")
            .and_then(|rest| rest.strip_suffix('>'))
            .ok_or_else(|| ValueError::UnsupportedType(text.to_owned()))?;
        // Leading `NxMx...` dimensions, then the element type.
        let mut shape = Vec::new();
        let mut rest = inner;
        while let Some((dim, tail)) = rest.split_once('x') {
            if dim.is_empty() || !dim.bytes().all(|b| b.is_ascii_digit() || b == b'?') {
                break;
            }
            if dim == "?" {
                return Err(ValueError::UnsupportedType("dynamic shape".to_owned()));
            }
            shape.push(
                dim.parse::<usize>()
                    .map_err(|_| ValueError::UnsupportedType(text.to_owned()))?,
            );
            rest = tail;
        }
        if rest.contains(',') || rest.starts_with('*') {
            return Err(ValueError::UnsupportedType(text.to_owned()));
        }
        let element = ElementType::parse(rest)?;
        let count = shape
            .iter()
            .try_fold(1usize, |count, &d| count.checked_mul(d))
            .filter(|&count| count <= MAX_ELEMENTS);
        if count.is_none() {
            return Err(ValueError::OutOfRange(format!(
                "{text} has more than {MAX_ELEMENTS} elements"
            )));
        }
        Ok(Self { element, shape })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the type has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Tensor {
    /// A tensor from parts, checking the element count and class.
    pub fn new(element: ElementType, shape: Vec<usize>, data: Data) -> Result<Self, ValueError> {
        let class_ok = matches!(
            (element, &data),
            (ElementType::F64, Data::F64(_))
                | (
                    ElementType::F32 | ElementType::F16 | ElementType::BF16,
                    Data::F32(_)
                )
                | (ElementType::I1, Data::Bool(_))
                | (ElementType::Signed(_), Data::Signed(_))
                | (ElementType::Unsigned(_), Data::Unsigned(_))
                | (ElementType::Complex64, Data::C64(_))
                | (ElementType::Complex128, Data::C128(_))
        );
        let count = shape
            .iter()
            .try_fold(1usize, |count, &d| count.checked_mul(d));
        if !class_ok || count != Some(data.len()) {
            return Err(ValueError::Mismatch(format!(
                "{} elements of the wrong class for {element:?} of shape {shape:?}",
                data.len()
            )));
        }
        Ok(Self {
            element,
            shape,
            data,
        })
    }

    /// Replaces every NaN with the canonical quiet NaN (positive, zero
    /// payload; per part for complex values).
    ///
    /// Which NaN payload and sign an IEEE operation returns when both
    /// operands are NaN, or when it creates a NaN (`inf - inf`, `0 / 0`),
    /// depends on the architecture (x86 and Arm differ) and even on the
    /// operand order the compiler chose. The interpreter applies this to the
    /// results of every op that computes floats (see
    /// `zkdv_ir::ops::Props::NEW_FLOATS`), so NaN results are the same bits
    /// everywhere; ops that only move or reinterpret values keep payloads.
    pub fn canonicalize_nans(&mut self) {
        // A read-only scan first (a NaN is rare; writing every element back
        // would cost a second pass over memory), then a select per element
        // rather than a branch, so both loops vectorize.
        fn any_nan<T: Copy + PartialEq>(v: &[T]) -> bool {
            #[allow(clippy::eq_op)] // x != x is the NaN test, branch-free
            v.chunks(256)
                .any(|chunk| chunk.iter().fold(false, |found, &x| found | (x != x)))
        }
        match &mut self.data {
            Data::F64(v) => {
                if any_nan(v) {
                    v.iter_mut()
                        .for_each(|x| *x = if x.is_nan() { f64::NAN } else { *x });
                }
            }
            Data::F32(v) => {
                if any_nan(v) {
                    v.iter_mut()
                        .for_each(|x| *x = if x.is_nan() { f32::NAN } else { *x });
                }
            }
            Data::C64(v) => v
                .iter_mut()
                .flatten()
                .filter(|x| x.is_nan())
                .for_each(|x| *x = f32::NAN),
            Data::C128(v) => v
                .iter_mut()
                .flatten()
                .filter(|x| x.is_nan())
                .for_each(|x| *x = f64::NAN),
            Data::Bool(_) | Data::Signed(_) | Data::Unsigned(_) => {}
        }
    }

    /// The type of this tensor.
    pub fn tensor_type(&self) -> TensorType {
        TensorType {
            element: self.element,
            shape: self.shape.clone(),
        }
    }

    /// Reads a `dense<...> : tensor<...>` attribute as printed by MLIR:
    /// splat or nested lists of integer, float (decimal, `inf`/`nan` or
    /// hexadecimal bit patterns) or boolean literals, or the `"0x..."` raw
    /// little-endian form (not for `i1`).
    pub fn from_dense_text(text: &str) -> Result<Self, ValueError> {
        let malformed = || ValueError::Malformed {
            what: "dense attribute",
            text: text.to_owned(),
        };
        let (body, ty) = text.rsplit_once(" : ").ok_or_else(malformed)?;
        let ty = TensorType::parse(ty)?;
        let body = body
            .trim()
            .strip_prefix("dense<")
            .and_then(|b| b.strip_suffix('>'))
            .ok_or_else(malformed)?;
        if let Some(hex) = body.strip_prefix("\"0x").and_then(|h| h.strip_suffix('"')) {
            return Self::from_hex(&ty, hex).ok_or_else(malformed);
        }
        // Complex literals are `(re,im)` pairs: their parts are the tokens.
        let complex = ty.element.is_complex();
        let tokens: Vec<&str> = body
            .split(|c: char| {
                c == '[' || c == ']' || c == ',' || c.is_whitespace() || complex && "()".contains(c)
            })
            .filter(|t| !t.is_empty())
            .collect();
        if complex {
            let count = ty.len();
            let tokens: Vec<&str> = match tokens.len() {
                2 => tokens.iter().cycle().take(2 * count).copied().collect(),
                n if n == 2 * count => tokens,
                _ => return Err(malformed()),
            };
            let data = parse_complex(ty.element, &tokens).ok_or_else(malformed)?;
            return Self::new(ty.element, ty.shape, data);
        }
        let count = ty.len();
        let tokens: Vec<&str> = match tokens.len() {
            1 => vec![tokens[0]; count],
            n if n == count => tokens,
            _ => return Err(malformed()),
        };
        let data = parse_literals(ty.element, &tokens).ok_or_else(malformed)?;
        Self::new(ty.element, ty.shape, data)
    }

    fn from_hex(ty: &TensorType, hex: &str) -> Option<Self> {
        let size = ty.element.size_bytes();
        if ty.element == ElementType::I1 || hex.len() % 2 != 0 {
            return None;
        }
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
            .collect::<Option<_>>()?;
        let bytes = if bytes.len() == size && ty.len() != 1 {
            bytes.repeat(ty.len())
        } else {
            bytes
        };
        if ty.element.is_complex() {
            return Self::from_complex_le_bytes(ty.element, ty.shape.clone(), &bytes).ok();
        }
        let host = HostTensor::from_bytes(
            ty.element.dtype().ok()?,
            ty.shape.iter().map(|&d| d as u64).collect(),
            bytes,
        )
        .ok()?;
        Self::from_host(&host).ok()
    }

    /// Decodes row-major little-endian complex elements (real part, then
    /// imaginary part) of `element` (a complex type) and `shape`.
    pub fn from_complex_le_bytes(
        element: ElementType,
        shape: Vec<usize>,
        bytes: &[u8],
    ) -> Result<Self, ValueError> {
        let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let size = element.size_bytes();
        if !element.is_complex() || count.and_then(|n| n.checked_mul(size)) != Some(bytes.len()) {
            return Err(ValueError::Mismatch(format!(
                "{} bytes do not hold a {} tensor of shape {shape:?}",
                bytes.len(),
                element.name()
            )));
        }
        let half = size / 2;
        let word = |c: &[u8]| {
            let mut b = [0u8; 8];
            b[..half].copy_from_slice(&c[..half]);
            u64::from_le_bytes(b)
        };
        let data = if element == ElementType::Complex64 {
            Data::C64(
                bytes
                    .chunks_exact(size)
                    .map(|c| {
                        [
                            f32::from_bits(word(c) as u32),
                            f32::from_bits(word(&c[half..]) as u32),
                        ]
                    })
                    .collect(),
            )
        } else {
            Data::C128(
                bytes
                    .chunks_exact(size)
                    .map(|c| [f64::from_bits(word(c)), f64::from_bits(word(&c[half..]))])
                    .collect(),
            )
        };
        Self::new(element, shape, data)
    }

    /// The row-major little-endian bytes of the elements, as
    /// [`Tensor::to_host`] lays them out; booleans are one byte each and a
    /// complex number is its real part followed by its imaginary part.
    pub fn le_bytes(&self) -> Vec<u8> {
        let size = self.element.size_bytes();
        let mut bytes = Vec::with_capacity(self.data.len() * size);
        match &self.data {
            Data::F64(v) => v.iter().for_each(|x| bytes.extend(x.to_le_bytes())),
            Data::F32(v) => match self.element {
                ElementType::F16 => v
                    .iter()
                    .for_each(|&x| bytes.extend(f16::from_f32(x).to_le_bytes())),
                ElementType::BF16 => v
                    .iter()
                    .for_each(|&x| bytes.extend(bf16::from_f32(x).to_le_bytes())),
                _ => v.iter().for_each(|x| bytes.extend(x.to_le_bytes())),
            },
            Data::Bool(v) => bytes.extend(v.iter().map(|&b| u8::from(b))),
            Data::Signed(v) => v
                .iter()
                .for_each(|x| bytes.extend(&x.to_le_bytes()[..size])),
            Data::Unsigned(v) => v
                .iter()
                .for_each(|x| bytes.extend(&x.to_le_bytes()[..size])),
            Data::C64(v) => v
                .iter()
                .flatten()
                .for_each(|x| bytes.extend(x.to_le_bytes())),
            Data::C128(v) => v
                .iter()
                .flatten()
                .for_each(|x| bytes.extend(x.to_le_bytes())),
        }
        bytes
    }

    /// Decodes a host tensor.
    pub fn from_host(host: &HostTensor) -> Result<Self, ValueError> {
        Self::from_le_bytes(host.dtype(), host.shape(), host.bytes())
    }

    /// Decodes row-major little-endian `bytes` of `dtype` and `shape`, read
    /// in place (the only copy is into the interpreter's own representation).
    pub fn from_le_bytes(dtype: DType, shape: &[u64], bytes: &[u8]) -> Result<Self, ValueError> {
        let size = dtype.size_bytes();
        let count = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= MAX_ELEMENTS && n.checked_mul(size) == Some(bytes.len()));
        if count.is_none() {
            return Err(ValueError::Mismatch(format!(
                "{} bytes do not hold a {dtype} tensor of shape {shape:?}",
                bytes.len()
            )));
        }
        let element = match dtype {
            DType::F64 => ElementType::F64,
            DType::F32 => ElementType::F32,
            DType::F16 => ElementType::F16,
            DType::BF16 => ElementType::BF16,
            DType::I1 => ElementType::I1,
            DType::I8 => ElementType::Signed(8),
            DType::I16 => ElementType::Signed(16),
            DType::I32 => ElementType::Signed(32),
            DType::I64 => ElementType::Signed(64),
            DType::U8 => ElementType::Unsigned(8),
            DType::U16 => ElementType::Unsigned(16),
            DType::U32 => ElementType::Unsigned(32),
            DType::U64 => ElementType::Unsigned(64),
        };
        let chunks = bytes.chunks_exact(size);
        let mut word = |c: &[u8]| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            u64::from_le_bytes(b)
        };
        let data = match element {
            ElementType::F64 => Data::F64(chunks.map(|c| f64::from_bits(word(c))).collect()),
            ElementType::F32 => Data::F32(chunks.map(|c| f32::from_bits(word(c) as u32)).collect()),
            ElementType::F16 => Data::F32(
                chunks
                    .map(|c| f16::from_bits(word(c) as u16).to_f32())
                    .collect(),
            ),
            ElementType::BF16 => Data::F32(
                chunks
                    .map(|c| bf16::from_bits(word(c) as u16).to_f32())
                    .collect(),
            ),
            ElementType::I1 => Data::Bool(chunks.map(|c| c[0] != 0).collect()),
            ElementType::Signed(_) => Data::Signed(
                chunks
                    .map(|c| element.wrap_signed(word(c) as i64))
                    .collect(),
            ),
            ElementType::Unsigned(_) => Data::Unsigned(chunks.map(&mut word).collect()),
            ElementType::Complex64 | ElementType::Complex128 => {
                return Err(ValueError::UnsupportedType(element.name()))
            }
        };
        let shape = shape
            .iter()
            .map(|&d| usize::try_from(d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| ValueError::OutOfRange(format!("shape {shape:?}")))?;
        Self::new(element, shape, data)
    }

    /// Encodes this tensor as a host tensor; complex tensors have no host
    /// dtype and are [`RuntimeError::UnsupportedType`].
    pub fn to_host(&self) -> Result<HostTensor, RuntimeError> {
        let dtype = self
            .element
            .dtype()
            .map_err(|_| RuntimeError::UnsupportedType {
                op: "host tensor".to_owned(),
                location: "the host boundary".to_owned(),
                ty: self.element.name(),
            })?;
        HostTensor::from_bytes(
            dtype,
            self.shape.iter().map(|&d| d as u64).collect(),
            self.le_bytes(),
        )
    }
}

fn parse_literals(element: ElementType, tokens: &[&str]) -> Option<Data> {
    Some(match element {
        ElementType::F64 => Data::F64(
            tokens
                .iter()
                .map(|t| parse_float(t, f64::from_bits))
                .collect::<Option<_>>()?,
        ),
        ElementType::F32 => Data::F32(
            tokens
                .iter()
                .map(|t| parse_float(t, |bits| f32::from_bits(bits as u32)))
                .collect::<Option<_>>()?,
        ),
        ElementType::F16 | ElementType::BF16 => Data::F32(
            tokens
                .iter()
                .map(|t| match t.strip_prefix("0x") {
                    Some(hex) => {
                        let bits = u16::from_str_radix(hex, 16).ok()?;
                        Some(if element == ElementType::F16 {
                            f16::from_bits(bits).to_f32()
                        } else {
                            bf16::from_bits(bits).to_f32()
                        })
                    }
                    None => t.parse::<f64>().ok().map(|x| element.round_f64_nearest(x)),
                })
                .collect::<Option<_>>()?,
        ),
        ElementType::I1 => Data::Bool(
            tokens
                .iter()
                .map(|t| match *t {
                    "true" | "1" => Some(true),
                    "false" | "0" => Some(false),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        ElementType::Signed(_) => Data::Signed(
            tokens
                .iter()
                .map(|t| {
                    let v = t.parse::<i128>().ok()?;
                    (element.wrap_signed(v as i64) as i128 == v).then_some(v as i64)
                })
                .collect::<Option<_>>()?,
        ),
        ElementType::Unsigned(_) => Data::Unsigned(
            tokens
                .iter()
                .map(|t| {
                    let v = t.parse::<u64>().ok()?;
                    (element.wrap_unsigned(v) == v).then_some(v)
                })
                .collect::<Option<_>>()?,
        ),
        ElementType::Complex64 | ElementType::Complex128 => parse_complex(element, tokens)?,
    })
}

/// Complex elements from their parts' literals, `[re0, im0, re1, im1, ...]`.
fn parse_complex(element: ElementType, parts: &[&str]) -> Option<Data> {
    let part = element.complex_part()?;
    if parts.len() % 2 != 0 {
        return None;
    }
    Some(match parse_literals(part, parts)? {
        Data::F32(v) => Data::C64(v.chunks_exact(2).map(|c| [c[0], c[1]]).collect()),
        Data::F64(v) => Data::C128(v.chunks_exact(2).map(|c| [c[0], c[1]]).collect()),
        _ => return None,
    })
}

fn parse_float<T: std::str::FromStr>(token: &str, from_bits: impl Fn(u64) -> T) -> Option<T> {
    match token
        .strip_prefix("0x")
        .or_else(|| token.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok().map(from_bits),
        None => token.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_parse() {
        let t = TensorType::parse("tensor<2x3xui32>").unwrap();
        assert_eq!(
            (t.element, t.shape),
            (ElementType::Unsigned(32), vec![2, 3])
        );
        assert_eq!(
            TensorType::parse("tensor<f32>").unwrap().shape,
            Vec::<usize>::new()
        );
        assert!(TensorType::parse("tensor<?xf32>").is_err());
        assert!(TensorType::parse("tensor<2xf8E5M2>").is_err());
        assert_eq!(
            TensorType::parse("tensor<2xi4>").unwrap().element,
            ElementType::Signed(4)
        );
        assert!(TensorType::parse("tensor<2xi3>").is_err());
        let complex = TensorType::parse("tensor<2x3xcomplex<f32>>").unwrap();
        assert_eq!(
            (complex.element, complex.shape),
            (ElementType::Complex64, vec![2, 3])
        );
        assert_eq!(
            TensorType::parse("tensor<complex<f64>>").unwrap().element,
            ElementType::Complex128
        );
        assert_eq!(
            TensorType::parse("tensor<2xcomplex<i32>>").unwrap_err(),
            ValueError::UnsupportedType("complex<i32>".to_owned())
        );
        assert!(TensorType::parse("tensor<2xf32, #enc>").is_err());
        let huge = "tensor<4294967296x4294967296x4294967296xf32>";
        assert!(matches!(
            TensorType::parse(huge),
            Err(ValueError::OutOfRange(_))
        ));
        assert!(Tensor::from_dense_text("dense<0.0> : tensor<65536x65536xf32>").is_err());
    }

    #[test]
    fn dense_literals() {
        let t = Tensor::from_dense_text("dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>").unwrap();
        assert_eq!(t.data, Data::Signed(vec![1, -2, 3, 4]));
        let t = Tensor::from_dense_text("dense<1.500000e+00> : tensor<3xf32>").unwrap();
        assert_eq!(t.data, Data::F32(vec![1.5; 3]));
        let t = Tensor::from_dense_text("dense<[true, false]> : tensor<2xi1>").unwrap();
        assert_eq!(t.data, Data::Bool(vec![true, false]));
        let t = Tensor::from_dense_text("dense<[0x7F800000, -0.0]> : tensor<2xf32>").unwrap();
        assert_eq!(t.data, Data::F32(vec![f32::INFINITY, -0.0]));
        let t = Tensor::from_dense_text("dense<\"0x0100000002000000\"> : tensor<2xi32>").unwrap();
        assert_eq!(t.data, Data::Signed(vec![1, 2]));
        assert!(Tensor::from_dense_text("dense<[1, 2, 3]> : tensor<2xi32>").is_err());
        assert!(Tensor::from_dense_text("dense<300> : tensor<i8>").is_err());
    }

    #[test]
    fn half_types() {
        let t = Tensor::from_dense_text("dense<[0x7F80, 4.003910e-01]> : tensor<2xbf16>").unwrap();
        assert_eq!(t.data, Data::F32(vec![f32::INFINITY, 205.0 / 512.0]));
        let host = t.to_host().unwrap();
        assert_eq!(host.bytes(), &[0x80, 0x7f, 0xcd, 0x3e]);
        assert_eq!(Tensor::from_host(&host).unwrap(), t);
        let h = Tensor::from_dense_text("dense<[0x7C00, 1.000000e-01]> : tensor<2xf16>").unwrap();
        assert_eq!(h.data, Data::F32(vec![f32::INFINITY, 0.099975586]));
        // f64 -> bf16 rounds once: via f32 this would tie and round to 1.0.
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(ElementType::BF16.round_f64(x), 1.0078125);
    }

    #[test]
    fn complex_literals() {
        let t = Tensor::from_dense_text(
            "dense<[(1.500000e+00,2.500000e+00), (3.5,-4.5)]> : tensor<2xcomplex<f32>>",
        )
        .unwrap();
        assert_eq!(t.element, ElementType::Complex64);
        assert_eq!(t.data, Data::C64(vec![[1.5, 2.5], [3.5, -4.5]]));
        let s = Tensor::from_dense_text("dense<(3.25,1.0)> : tensor<2x2xcomplex<f64>>").unwrap();
        assert_eq!(s.data, Data::C128(vec![[3.25, 1.0]; 4]));
        let nan = Tensor::from_dense_text(
            "dense<[[(0x7FF0000000000001,-0.000000e+00)]]> : tensor<1x1xcomplex<f64>>",
        )
        .unwrap();
        let Data::C128(v) = &nan.data else { panic!() };
        assert_eq!(v[0][0].to_bits(), 0x7FF0000000000001);
        assert_eq!(v[0][1].to_bits(), (-0.0f64).to_bits());
        let e = Tensor::from_dense_text("dense<(3.5E-303,1.4E-315)> : tensor<complex<f64>>");
        assert_eq!(e.unwrap().data, Data::C128(vec![[3.5e-303, 1.4e-315]]));
        // Raw form: re then im, little-endian.
        let raw = Tensor::from_dense_text("dense<\"0x0000C03F00002040\"> : tensor<2xcomplex<f32>>")
            .unwrap();
        assert_eq!(raw.data, Data::C64(vec![[1.5, 2.5]; 2]));
        assert_eq!(raw.le_bytes()[..8], [0, 0, 0xc0, 0x3f, 0, 0, 0x20, 0x40]);
        let bad = [
            "dense<[(1.0,2.0), (3.0,4.0)]> : tensor<3xcomplex<f32>>",
            "dense<[(1.0,2.0,3.0)]> : tensor<complex<f32>>",
            "dense<(1.0,x)> : tensor<complex<f32>>",
        ];
        for text in bad {
            assert!(Tensor::from_dense_text(text).is_err(), "{text}");
        }
        // No host dtype: a clear error, not a panic.
        let err = t.to_host().unwrap_err();
        assert!(err.to_string().contains("complex<f32>"), "{err}");
        assert!(ElementType::Complex128.dtype().is_err());
        assert!(Tensor::new(ElementType::Complex64, vec![1], Data::C128(vec![[0.0; 2]])).is_err());
    }

    #[test]
    fn host_round_trip() {
        let t = Tensor::from_dense_text("dense<[-1, 2]> : tensor<2xi16>").unwrap();
        let host = t.to_host().unwrap();
        assert_eq!(host.bytes(), &[0xff, 0xff, 2, 0]);
        assert_eq!(Tensor::from_host(&host).unwrap(), t);
    }
}
