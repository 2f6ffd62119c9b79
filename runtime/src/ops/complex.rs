//! Complex numbers: `stablehlo.complex`, `real` and `imag`, and the complex
//! arithmetic and functions the elementwise and math ops use on
//! `complex<f32>` and `complex<f64>`.
//!
//! Every function works on `f64` parts, from plain IEEE `+ - * /` and `sqrt`
//! in a fixed order (no fused multiply-add) and the project's own
//! [`crate::libm`], so results are bit-identical on every machine. A
//! `complex<f32>` op widens its parts to `f64` (exactly), computes there and
//! rounds each part of the result once to `f32`.
//!
//! The formulas are the principal branches of the usual definitions:
//! division by Smith's algorithm, `abs` as a scaled hypotenuse, `log z =
//! ln|z| + i arg z`, `sqrt` by the half-angle formulas, `exp`, `sin`, `cos`
//! by their real and imaginary parts, `tanh` by Kahan's formula, `pow(a, b)
//! = exp(b log a)`, `cbrt` as `cbrt|z| e^(i arg(z) / 3)`, `logistic z = 1 /
//! (1 + e^-z)`, `sign z = z / |z|` and `atan2(y, x) = -i log((x + iy) /
//! sqrt(x^2 + y^2))`.
//!
//! `stablehlo.fft` is here too: a direct DFT along each transformed
//! dimension in turn (`O(n^2)` per line, the products of each output summed
//! in increasing input order, twiddles `e^(∓2πi m/n)` from [`libm::sin`] and
//! [`libm::cos`]); `IFFT` divides by `n`; `RFFT` keeps the first `n/2 + 1`
//! outputs of the last dimension and `IRFFT` extends its input there by
//! Hermitian symmetry (`X[n-k] = conj X[k]`) and keeps the real part.

use melior::ir::OperationRef;

use super::{arity, same_type, OpError, Regions};
use crate::attrs;
use crate::libm;
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// A complex number as `(re, im)`.
pub type C = (f64, f64);

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "stablehlo.complex",
    "stablehlo.fft",
    "stablehlo.imag",
    "stablehlo.real",
];

/// The complex family (see [`crate::ops::Family`]): `stablehlo.complex`,
/// `stablehlo.real` and `stablehlo.imag`.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let result = match name {
        "stablehlo.complex" => {
            arity(operands, 2)?;
            complex(operands[0], operands[1])
        }
        "stablehlo.real" => {
            arity(operands, 1)?;
            part(operands[0], false)
        }
        "stablehlo.imag" => {
            arity(operands, 1)?;
            part(operands[0], true)
        }
        "stablehlo.fft" => {
            arity(operands, 1)?;
            let keyword = attrs::enum_keyword(op, "fft_type")?.unwrap_or_default();
            let kind = FftKind::parse(&keyword).ok_or(ValueError::Malformed {
                what: "fft_type",
                text: keyword,
            })?;
            let lengths = attrs::dimensions(op, "fft_length")?;
            fft(operands[0], kind, &lengths, &attrs::result_type(op, 0)?)
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![result?]))
}

/// `fft_type` of `stablehlo.fft`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FftKind {
    /// Complex to complex, forward.
    Fft,
    /// Complex to complex, inverse (scaled by `1/n`).
    Ifft,
    /// Real to complex, forward (last dimension `n/2 + 1`).
    Rfft,
    /// Complex to real, inverse of `Rfft`.
    Irfft,
}

impl FftKind {
    /// Reads `FFT`, `IFFT`, `RFFT` or `IRFFT`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "FFT" => Self::Fft,
            "IFFT" => Self::Ifft,
            "RFFT" => Self::Rfft,
            "IRFFT" => Self::Irfft,
            _ => return None,
        })
    }
}

/// The DFT of every line of `data` (row-major, of `shape`) along `axis`,
/// in place; `inverse` flips the twiddles' sign and divides by the length.
fn dft_along(data: &mut [C], shape: &[usize], axis: usize, inverse: bool) {
    let n = shape[axis];
    if n == 0 {
        return;
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let sign = if inverse { 1.0 } else { -1.0 };
    let twiddles: Vec<C> = (0..n)
        .map(|m| {
            // Multiples of a quarter turn exactly, others from libm.
            let (c, s) = match (4 * m % n == 0).then_some(4 * m / n) {
                Some(0) => (1.0, 0.0),
                Some(1) => (0.0, 1.0),
                Some(2) => (-1.0, 0.0),
                Some(3) => (0.0, -1.0),
                _ => {
                    let angle = 2.0 * std::f64::consts::PI * m as f64 / n as f64;
                    (libm::cos(angle), libm::sin(angle))
                }
            };
            (c, sign * s)
        })
        .collect();
    let mut line = vec![(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * n + k) * inner + i;
            for (k, x) in line.iter_mut().enumerate() {
                *x = data[at(k)];
            }
            for k in 0..n {
                let mut sum = (0.0, 0.0);
                for (j, &x) in line.iter().enumerate() {
                    sum = add(sum, mul(x, twiddles[(k * j) % n]));
                }
                data[at(k)] = if inverse {
                    (sum.0 / n as f64, sum.1 / n as f64)
                } else {
                    sum
                };
            }
        }
    }
}

/// `data` (of `shape`) with its last dimension resized to `len` by `f(line,
/// len)` on each line.
fn resize_last(
    data: &[C],
    shape: &mut [usize],
    len: usize,
    f: impl Fn(&[C], usize) -> Vec<C>,
) -> Vec<C> {
    let last = shape.len() - 1;
    let old = shape[last];
    shape[last] = len;
    if old == 0 {
        let count: usize = shape.iter().product();
        return vec![(0.0, 0.0); count];
    }
    data.chunks_exact(old)
        .flat_map(|line| f(line, len))
        .collect()
}

/// `stablehlo.fft` of `kind` over the last `lengths.len()` dimensions.
pub fn fft(
    operand: &Tensor,
    kind: FftKind,
    lengths: &[usize],
    result: &TensorType,
) -> Result<Tensor, ValueError> {
    let bad = |why: &str| {
        ValueError::Mismatch(format!(
            "fft {kind:?} of {:?}{:?} with fft_length {lengths:?} to {:?}{:?}: {why}",
            operand.element, operand.shape, result.element, result.shape
        ))
    };
    let rank = operand.shape.len();
    let d = lengths.len();
    if d == 0 || d > 3 || d > rank {
        return Err(bad("fft_length must have 1 to 3 entries, at most the rank"));
    }
    let last = lengths[d - 1];
    let (expected_in, out_element) = match kind {
        FftKind::Fft | FftKind::Ifft => (lengths.to_vec(), operand.element),
        FftKind::Rfft => (
            lengths.to_vec(),
            operand
                .element
                .complex_of()
                .ok_or_else(|| bad("the operand must be f32 or f64"))?,
        ),
        FftKind::Irfft => {
            let mut dims = lengths.to_vec();
            dims[d - 1] = last / 2 + 1;
            let part = operand
                .element
                .complex_part()
                .ok_or_else(|| bad("the operand must be complex"))?;
            (dims, part)
        }
    };
    let complex_in = matches!(kind, FftKind::Fft | FftKind::Ifft | FftKind::Irfft);
    if operand.element.is_complex() != complex_in
        || operand.shape[rank - d..] != expected_in[..]
        || result.element != out_element
    {
        return Err(bad("operand, fft_length and result do not agree"));
    }
    let mut shape = operand.shape.clone();
    let mut data: Vec<C> = match &operand.data {
        Data::F32(v) if operand.element == ElementType::F32 => {
            v.iter().map(|&x| (f64::from(x), 0.0)).collect()
        }
        Data::F64(v) => v.iter().map(|&x| (x, 0.0)).collect(),
        _ => widen(operand).ok_or_else(|| bad("unsupported operand type"))?,
    };
    match kind {
        FftKind::Fft | FftKind::Ifft => {
            for axis in rank - d..rank {
                dft_along(&mut data, &shape, axis, kind == FftKind::Ifft);
            }
        }
        FftKind::Rfft => {
            dft_along(&mut data, &shape, rank - 1, false);
            data = resize_last(&data, &mut shape, last / 2 + 1, |line, len| {
                line[..len].to_vec()
            });
            for axis in rank - d..rank - 1 {
                dft_along(&mut data, &shape, axis, false);
            }
        }
        FftKind::Irfft => {
            for axis in rank - d..rank - 1 {
                dft_along(&mut data, &shape, axis, true);
            }
            data = resize_last(&data, &mut shape, last, |line, len| {
                (0..len)
                    .map(|k| match line.get(k) {
                        Some(&x) => x,
                        None => {
                            let (re, im) = line.get(len - k).copied().unwrap_or((0.0, 0.0));
                            (re, -im)
                        }
                    })
                    .collect()
            });
            dft_along(&mut data, &shape, rank - 1, true);
        }
    }
    if shape != result.shape {
        return Err(bad("the result shape does not match"));
    }
    match out_element {
        ElementType::F32 => Tensor::new(
            out_element,
            shape,
            Data::F32(data.iter().map(|z| z.0 as f32).collect()),
        ),
        ElementType::F64 => Tensor::new(
            out_element,
            shape,
            Data::F64(data.iter().map(|z| z.0).collect()),
        ),
        _ => narrow(out_element, shape, data),
    }
}

/// `stablehlo.complex`: `lhs + i rhs` from two `f32` or two `f64` tensors.
pub fn complex(lhs: &Tensor, rhs: &Tensor) -> Result<Tensor, ValueError> {
    same_type("complex", lhs, rhs)?;
    let data = match (&lhs.data, &rhs.data) {
        (Data::F32(a), Data::F32(b)) if lhs.element == ElementType::F32 => {
            Data::C64(a.iter().zip(b).map(|(&x, &y)| [x, y]).collect())
        }
        (Data::F64(a), Data::F64(b)) => {
            Data::C128(a.iter().zip(b).map(|(&x, &y)| [x, y]).collect())
        }
        _ => return Err(not_defined("complex", lhs.element)),
    };
    let element = lhs
        .element
        .complex_of()
        .ok_or_else(|| not_defined("complex", lhs.element))?;
    Tensor::new(element, lhs.shape.clone(), data)
}

/// `stablehlo.real` (`imag` false) or `stablehlo.imag`: a part of each
/// complex element; on floats, the value itself or zero.
pub fn part(operand: &Tensor, imag: bool) -> Result<Tensor, ValueError> {
    let pick = usize::from(imag);
    let (element, data) = match &operand.data {
        Data::C64(v) => (
            ElementType::F32,
            Data::F32(v.iter().map(|c| c[pick]).collect()),
        ),
        Data::C128(v) => (
            ElementType::F64,
            Data::F64(v.iter().map(|c| c[pick]).collect()),
        ),
        Data::F64(v) if imag => (operand.element, Data::F64(vec![0.0; v.len()])),
        Data::F32(v) if imag => (operand.element, Data::F32(vec![0.0; v.len()])),
        Data::F64(_) | Data::F32(_) => (operand.element, operand.data.clone()),
        _ => {
            let name = if imag { "imag" } else { "real" };
            return Err(not_defined(name, operand.element));
        }
    };
    Tensor::new(element, operand.shape.clone(), data)
}

fn not_defined(name: &str, element: ElementType) -> ValueError {
    ValueError::Mismatch(format!("{name} is not defined on {element:?}"))
}

/// The elements of a complex tensor widened to `f64` parts, or `None` when
/// it is not complex.
pub fn widen(t: &Tensor) -> Option<Vec<C>> {
    match &t.data {
        Data::C64(v) => Some(
            v.iter()
                .map(|c| (f64::from(c[0]), f64::from(c[1])))
                .collect(),
        ),
        Data::C128(v) => Some(v.iter().map(|c| (c[0], c[1])).collect()),
        _ => None,
    }
}

/// A complex tensor of `element` from `f64` parts, each rounded once to
/// the part type.
pub fn narrow(
    element: ElementType,
    shape: Vec<usize>,
    values: Vec<C>,
) -> Result<Tensor, ValueError> {
    let data = match element {
        ElementType::Complex64 => Data::C64(
            values
                .into_iter()
                .map(|(re, im)| [re as f32, im as f32])
                .collect(),
        ),
        ElementType::Complex128 => {
            Data::C128(values.into_iter().map(|(re, im)| [re, im]).collect())
        }
        _ => return Err(not_defined("a complex result", element)),
    };
    Tensor::new(element, shape, data)
}

/// `f` on each element of a complex tensor.
pub fn map(name: &str, t: &Tensor, f: impl Fn(C) -> C) -> Result<Tensor, ValueError> {
    let values = widen(t).ok_or_else(|| not_defined(name, t.element))?;
    narrow(
        t.element,
        t.shape.clone(),
        values.into_iter().map(f).collect(),
    )
}

/// `f` on each pair of elements of two complex tensors of one type.
pub fn zip(
    name: &str,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(C, C) -> C,
) -> Result<Tensor, ValueError> {
    same_type(name, a, b)?;
    let x = widen(a).ok_or_else(|| not_defined(name, a.element))?;
    let y = widen(b).ok_or_else(|| not_defined(name, b.element))?;
    narrow(
        a.element,
        a.shape.clone(),
        x.into_iter().zip(y).map(|(x, y)| f(x, y)).collect(),
    )
}

/// `|z|` of each element, as the part type (`stablehlo.abs`).
pub fn abs(t: &Tensor) -> Result<Tensor, ValueError> {
    let values = widen(t).ok_or_else(|| not_defined("abs", t.element))?;
    let magnitudes = values.into_iter().map(|(x, y)| hypot(x, y));
    let (element, data) = match t.element {
        ElementType::Complex64 => (
            ElementType::F32,
            Data::F32(magnitudes.map(|m| m as f32).collect()),
        ),
        _ => (ElementType::F64, Data::F64(magnitudes.collect())),
    };
    Tensor::new(element, t.shape.clone(), data)
}

/// The complex math ops of [`crate::ops::math`] by op name, or `None` when
/// `name` has no complex definition here.
pub fn math_op(name: &str) -> Option<MathOp> {
    let unary: fn(C) -> C = match name {
        "stablehlo.exponential" => exp,
        "stablehlo.exponential_minus_one" => exp_m1,
        "stablehlo.log" => ln,
        "stablehlo.log_plus_one" => ln_1p,
        "stablehlo.logistic" => logistic,
        "stablehlo.tanh" => tanh,
        "stablehlo.sqrt" => sqrt,
        "stablehlo.rsqrt" => rsqrt,
        "stablehlo.cbrt" => cbrt,
        "stablehlo.sine" => sin,
        "stablehlo.cosine" => cos,
        "stablehlo.sign" => sign,
        "chlo.square" => |z| mul(z, z),
        "stablehlo.power" => return Some(MathOp::Binary(pow)),
        "stablehlo.atan2" => return Some(MathOp::Binary(atan2)),
        _ => return None,
    };
    Some(MathOp::Unary(unary))
}

/// A complex math function.
#[derive(Clone, Copy)]
pub enum MathOp {
    /// Of one operand.
    Unary(fn(C) -> C),
    /// Of two operands of one type.
    Binary(fn(C, C) -> C),
}

// ---------------------------------------------------------------------------
// Scalar arithmetic

/// `a + b`.
pub fn add(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}

/// `a - b`.
pub fn sub(a: C, b: C) -> C {
    (a.0 - b.0, a.1 - b.1)
}

/// `a * b = (ac - bd) + i(ad + bc)`.
pub fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `a / b` by Smith's algorithm (no overflow in `c^2 + d^2`); division by
/// zero divides each part by the zero's real part (infinities or NaN).
pub fn div(a: C, b: C) -> C {
    let ((p, q), (c, d)) = (a, b);
    if c == 0.0 && d == 0.0 {
        return (p / c, q / c);
    }
    if c.abs() >= d.abs() {
        let r = d / c;
        let den = c + d * r;
        ((p + q * r) / den, (q - p * r) / den)
    } else {
        let r = c / d;
        let den = c * r + d;
        ((p * r + q) / den, (q * r - p) / den)
    }
}

/// `sqrt(x^2 + y^2)` without undue overflow or underflow: the parts are
/// scaled by a power of two (exactly) when they are very large or small.
pub fn hypot(x: f64, y: f64) -> f64 {
    let (a, b) = (x.abs(), y.abs());
    if a.is_infinite() || b.is_infinite() {
        return f64::INFINITY;
    }
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    if big == 0.0 {
        return 0.0;
    }
    const TWO_600: f64 = f64::from_bits((1023 + 600) << 52);
    const TWO_M600: f64 = f64::from_bits((1023 - 600) << 52);
    let (scale, unscale) = if big > f64::from_bits((1023 + 500) << 52) {
        (TWO_M600, TWO_600)
    } else if big < f64::from_bits((1023 - 500) << 52) {
        (TWO_600, TWO_M600)
    } else {
        (1.0, 1.0)
    };
    let (big, small) = (big * scale, small * scale);
    (big * big + small * small).sqrt() * unscale
}

/// `e^z`.
pub fn exp(z: C) -> C {
    let (x, y) = z;
    if y == 0.0 {
        return (libm::exp(x), y);
    }
    let (s, c) = (libm::sin(y), libm::cos(y));
    if x > 709.0 {
        // e^x overflows before the product with |cos y| or |sin y| <= 1.
        let h = libm::exp(x / 2.0);
        return (h * c * h, h * s * h);
    }
    let e = libm::exp(x);
    (e * c, e * s)
}

/// `e^z - 1`, accurate for small `z`: the real part is
/// `expm1(x) cos y - 2 sin^2(y/2)`.
pub fn exp_m1(z: C) -> C {
    let (x, y) = z;
    if y == 0.0 {
        return (libm::exp_m1(x), y);
    }
    let half = libm::sin(y / 2.0);
    let re = libm::exp_m1(x) * libm::cos(y) - 2.0 * half * half;
    (re, exp(z).1)
}

/// `log z = ln|z| + i arg z` (principal branch); near `|z| = 1` the real
/// part is `ln_1p((m - 1)(m + 1) + n^2) / 2` for `m >= n` the magnitudes.
pub fn ln(z: C) -> C {
    let (x, y) = z;
    let (a, b) = (x.abs(), y.abs());
    let (m, n) = if a >= b { (a, b) } else { (b, a) };
    let re = if (0.5..=2.0).contains(&m) && n < 1.0 {
        0.5 * libm::ln_1p((m - 1.0) * (m + 1.0) + n * n)
    } else {
        libm::ln(hypot(x, y))
    };
    (re, libm::atan2(y, x))
}

/// `log(1 + z)`, accurate for small `z`.
pub fn ln_1p(z: C) -> C {
    let (x, y) = z;
    if x.abs() < 0.5 && y.abs() < 0.5 {
        // |1 + z|^2 - 1 = x(2 + x) + y^2.
        (
            0.5 * libm::ln_1p(x * (2.0 + x) + y * y),
            libm::atan2(y, 1.0 + x),
        )
    } else {
        ln((1.0 + x, y))
    }
}

/// Principal square root by the half-angle formulas.
pub fn sqrt(z: C) -> C {
    let (x, y) = z;
    if x == 0.0 && y == 0.0 {
        return (0.0, y);
    }
    if y.is_infinite() {
        return (f64::INFINITY, y);
    }
    let t = (0.5 * x.abs() + 0.5 * hypot(x, y)).sqrt();
    if x >= 0.0 {
        (t, y / (2.0 * t))
    } else {
        (y.abs() / (2.0 * t), if y < 0.0 { -t } else { t })
    }
}

/// `1 / sqrt(z)`.
pub fn rsqrt(z: C) -> C {
    div((1.0, 0.0), sqrt(z))
}

/// Principal cube root: `cbrt|z| e^(i arg(z) / 3)`.
pub fn cbrt(z: C) -> C {
    let (x, y) = z;
    if x == 0.0 && y == 0.0 {
        return z;
    }
    let r = libm::cbrt(hypot(x, y));
    let theta = libm::atan2(y, x) / 3.0;
    (r * libm::cos(theta), r * libm::sin(theta))
}

/// `sin z = sin x cosh y + i cos x sinh y`.
pub fn sin(z: C) -> C {
    let (x, y) = z;
    (libm::sin(x) * libm::cosh(y), libm::cos(x) * libm::sinh(y))
}

/// `cos z = cos x cosh y - i sin x sinh y`.
pub fn cos(z: C) -> C {
    let (x, y) = z;
    (
        libm::cos(x) * libm::cosh(y),
        -(libm::sin(x) * libm::sinh(y)),
    )
}

/// `tanh z` by Kahan's formula: with `t = tan y`, `b = 1 + t^2`,
/// `s = sinh x`, `r = sqrt(1 + s^2)`: `(b r s + i t) / (1 + b s^2)`; for
/// `|x| > 22`, `±1 + i 4 sin y cos y e^(-2|x|)`.
pub fn tanh(z: C) -> C {
    let (x, y) = z;
    if x.abs() > 22.0 {
        let re = if x < 0.0 { -1.0 } else { 1.0 };
        let im = 4.0 * libm::sin(y) * libm::cos(y) * libm::exp(-2.0 * x.abs());
        return (re, im);
    }
    let t = libm::tan(y);
    let b = 1.0 + t * t;
    let s = libm::sinh(x);
    let r = (1.0 + s * s).sqrt();
    let d = 1.0 + b * s * s;
    (b * r * s / d, t / d)
}

/// `1 / (1 + e^-z)`.
pub fn logistic(z: C) -> C {
    div((1.0, 0.0), add((1.0, 0.0), exp((-z.0, -z.1))))
}

/// `z / |z|`; zero stays zero and a NaN part makes both parts NaN.
pub fn sign(z: C) -> C {
    let (x, y) = z;
    if x.is_nan() || y.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    if x == 0.0 && y == 0.0 {
        return z;
    }
    // Infinite parts: the direction of the infinite ones.
    let (x, y) = if x.is_infinite() || y.is_infinite() {
        let unit = |v: f64| {
            let m = if v.is_infinite() { 1.0 } else { 0.0 };
            if v < 0.0 {
                -m
            } else {
                m
            }
        };
        (unit(x), unit(y))
    } else {
        (x, y)
    };
    let h = hypot(x, y);
    (x / h, y / h)
}

/// `a^b = exp(b log a)`; `0^0 = 1`, `0^b = 0` for `re b > 0`, and NaN for
/// other powers of zero.
pub fn pow(a: C, b: C) -> C {
    if a.0 == 0.0 && a.1 == 0.0 {
        return if b.0 == 0.0 && b.1 == 0.0 {
            (1.0, 0.0)
        } else if b.0 > 0.0 {
            (0.0, 0.0)
        } else {
            (f64::NAN, f64::NAN)
        };
    }
    exp(mul(b, ln(a)))
}

/// `atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2))`.
pub fn atan2(y: C, x: C) -> C {
    let iy = (-y.1, y.0);
    let root = sqrt(add(mul(x, x), mul(y, y)));
    let l = ln(div(add(x, iy), root));
    (l.1, -l.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: C, b: C) -> bool {
        let tol = |x: f64, y: f64| (x - y).abs() <= 1e-13 * y.abs().max(1.0);
        tol(a.0, b.0) && tol(a.1, b.1)
    }

    #[test]
    fn arithmetic() {
        assert_eq!(mul((1.5, 2.5), (1.5, 2.5)), (-4.0, 7.5));
        let q = div((1.5, 2.5), (2.5, 1.5));
        assert!(close(q, (0.882_352_941_176_470_6, 0.470_588_235_294_117_7)));
        let q = div((7.5, 5.5), (5.5, 7.5));
        assert!(close(q, (0.953_757_225_433_526, -0.300_578_034_682_080_94)));
        assert_eq!(hypot(3.0, 4.0), 5.0);
        assert_eq!(hypot(3e300, 4e300), 5e300);
        assert_eq!(hypot(3e-310, 4e-310), 5e-310);
        assert_eq!(hypot(f64::NAN, f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn functions_match_reference_values() {
        type Case = (fn(C) -> C, C, C);
        let cases: [Case; 9] = [
            (
                exp,
                (1.0, 2.0),
                (-1.131_204_383_756_813_5, 2.471_726_672_004_818_8),
            ),
            (
                ln,
                (1.0, 2.0),
                (0.804_718_956_217_050_3, 1.107_148_717_794_090_4),
            ),
            (sqrt, (-1.0, 0.0), (0.0, 1.0)),
            (sqrt, (3.0, 4.0), (2.0, 1.0)),
            (rsqrt, (3.0, 4.0), (0.4, -0.2)),
            (
                cbrt,
                (3.0, 4.0),
                (1.628_937_145_922_176, 0.520_174_502_304_545_8),
            ),
            (
                sin,
                (1.5, 2.5),
                (6.116_928_012_369_312, 0.427_974_534_506_151_25),
            ),
            (
                tanh,
                (1.5, 2.5),
                (0.967_786_802_152_774_1, -0.092_637_836_268_419_9),
            ),
            (
                logistic,
                (1.0, 2.0),
                (1.021_415_364_172_180_6, 0.403_438_706_081_542_5),
            ),
        ];
        for (f, z, want) in cases {
            assert!(close(f(z), want), "{z:?}: {:?} vs {want:?}", f(z));
        }
        let p = pow((1.5, 2.5), (2.5, 1.5));
        assert!(close(
            p,
            (-1.567_931_381_430_501_6, -2.667_477_544_662_361_3)
        ));
        let a = atan2((1.0, 0.0), (0.0, 0.0));
        assert!(close(a, (std::f64::consts::FRAC_PI_2, 0.0)));
        assert!(close(ln_1p((1.0, 2.0)), ln((2.0, 2.0))));
        let s = sign((f64::NAN, 0.0));
        assert!(s.0.is_nan() && s.1.is_nan());
        assert_eq!(sign((0.0, 3.0)), (0.0, 1.0));
    }

    #[test]
    fn fft_round_trips() {
        let ty = |element, shape: &[usize]| TensorType {
            element,
            shape: shape.to_vec(),
        };
        let z = Tensor::new(
            ElementType::Complex128,
            vec![2],
            Data::C128(vec![[1.0, 2.0], [3.0, -4.0]]),
        )
        .unwrap();
        let f = fft(&z, FftKind::Fft, &[2], &ty(ElementType::Complex128, &[2])).unwrap();
        assert_eq!(f.data, Data::C128(vec![[4.0, -2.0], [-2.0, 6.0]]));
        let back = fft(&f, FftKind::Ifft, &[2], &ty(ElementType::Complex128, &[2])).unwrap();
        assert_eq!(back, z);
        let x = Tensor::new(
            ElementType::F64,
            vec![4],
            Data::F64(vec![1.0, 2.0, 3.0, 4.0]),
        );
        let x = x.unwrap();
        let r = fft(&x, FftKind::Rfft, &[4], &ty(ElementType::Complex128, &[3])).unwrap();
        let Data::C128(v) = &r.data else { panic!() };
        let want = [(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)];
        assert!(
            v.iter().zip(want).all(|(a, b)| close((a[0], a[1]), b)),
            "{v:?}"
        );
        let i = fft(&r, FftKind::Irfft, &[4], &ty(ElementType::F64, &[4])).unwrap();
        let Data::F64(v) = &i.data else { panic!() };
        assert!(v
            .iter()
            .zip([1.0, 2.0, 3.0, 4.0])
            .all(|(a, b)| (a - b).abs() < 1e-14));
        assert!(fft(&x, FftKind::Fft, &[4], &ty(ElementType::F64, &[4])).is_err());
        assert!(fft(&z, FftKind::Fft, &[3], &ty(ElementType::Complex128, &[2])).is_err());
        assert!(fft(&z, FftKind::Fft, &[], &ty(ElementType::Complex128, &[2])).is_err());
    }

    #[test]
    fn tensors() {
        let t = |v: Vec<[f32; 2]>| Tensor::new(ElementType::Complex64, vec![v.len()], Data::C64(v));
        let z = t(vec![[3.0, 4.0], [0.0, -2.0]]).unwrap();
        let m = abs(&z).unwrap();
        assert_eq!(
            (m.element, m.data),
            (ElementType::F32, Data::F32(vec![5.0, 2.0]))
        );
        let re = part(&z, false).unwrap();
        let im = part(&z, true).unwrap();
        assert_eq!(im.data, Data::F32(vec![4.0, -2.0]));
        assert_eq!(complex(&re, &im).unwrap(), z);
        let ints = Tensor::new(ElementType::Signed(32), vec![1], Data::Signed(vec![1])).unwrap();
        assert!(complex(&ints, &ints).is_err());
        assert!(part(&ints, false).is_err());
        assert!(map("exp", &ints, exp).is_err());
    }
}
