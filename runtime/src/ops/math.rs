//! Math ops: transcendental and rounding functions on floats, integer
//! power, remainder, sign, bit counting and shifts.
//!
//! Float functions come from the project's own [`crate::libm`] (never the
//! platform's libm), so results are bit-identical on every machine. An
//! `f64` op is the `libm` function itself, with its measured error (ulps of
//! the exact value, against mpmath; see the table in [`crate::libm`]):
//! exp 0.57, expm1 0.76, log 0.50, log1p 0.76, pow 0.60, sin/cos 0.72,
//! tan 1.49, atan2 1.09, tanh 1.17, logistic 1.50, erf 1.75, cbrt 0.50,
//! rsqrt ≤ 1. An `f32`, `f16` or `bf16` op computes in `f64` and rounds
//! once to its type ([`ElementType::round_f64`]), which is within 1 ulp of
//! the true value and almost always correctly rounded. `sqrt` is IEEE
//! `sqrt` (correctly rounded); `floor`, `ceil`, both `round`s, `remainder`
//! (C `fmod`), `sign` and `chlo.square` (one IEEE multiply) are exact or
//! correctly rounded.
//!
//! Integer semantics follow the StableHLO specification: `power` is
//! exponentiation by squaring, wrapping at the type's width, with negative
//! exponents giving `1` for base 1, `±1` for base -1 and `0` otherwise;
//! `remainder` takes the dividend's sign, `x % 0 = x` and `MIN % -1 = 0`;
//! shifts by an amount outside `[0, width)` give 0 (`shift_right_arithmetic`:
//! the sign fill, 0 or -1); `popcnt` and `count_leading_zeros` count within
//! the type's width.
//!
//! Complex operands go to [`crate::ops::complex`] (exp, expm1, log, log1p,
//! logistic, tanh, sqrt, rsqrt, cbrt, sine, cosine, sign, power, atan2 and
//! `chlo.square`); other math ops are not defined on them.
//!
//! Also here, from CHLO: `erf`, `erfc` (2.4 ulp), `erf_inv` (Newton
//! iterations on `erf`, or on `erfc` near ±1; measured ≤ 3.2 ulp in `f64`,
//! the conditioning of `erf` amplifying its own error), `tan`, `atan`,
//! `sinh`, `cosh`, `asin`, `acos`, `asinh`, `acosh`, `atanh` (≤ 1.9 ulp),
//! `is_inf`, `is_pos_inf`, `is_neg_inf` and `square` (`x * x`; integers
//! wrap).

use melior::ir::OperationRef;

use super::complex::{self, MathOp};
use super::{arity, same_type, OpError, Regions};
use crate::libm;
use crate::value::{Data, ElementType, Tensor, ValueError};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "chlo.acos",
    "chlo.acosh",
    "chlo.asin",
    "chlo.asinh",
    "chlo.atan",
    "chlo.atanh",
    "chlo.cosh",
    "chlo.erf",
    "chlo.erf_inv",
    "chlo.erfc",
    "chlo.is_inf",
    "chlo.is_neg_inf",
    "chlo.is_pos_inf",
    "chlo.sinh",
    "chlo.square",
    "chlo.tan",
    "stablehlo.atan2",
    "stablehlo.cbrt",
    "stablehlo.ceil",
    "stablehlo.cosine",
    "stablehlo.count_leading_zeros",
    "stablehlo.exponential",
    "stablehlo.exponential_minus_one",
    "stablehlo.floor",
    "stablehlo.is_finite",
    "stablehlo.log",
    "stablehlo.log_plus_one",
    "stablehlo.logistic",
    "stablehlo.popcnt",
    "stablehlo.power",
    "stablehlo.remainder",
    "stablehlo.round_nearest_afz",
    "stablehlo.round_nearest_even",
    "stablehlo.rsqrt",
    "stablehlo.shift_left",
    "stablehlo.shift_right_arithmetic",
    "stablehlo.shift_right_logical",
    "stablehlo.sign",
    "stablehlo.sine",
    "stablehlo.sqrt",
    "stablehlo.tan",
    "stablehlo.tanh",
];

/// The math family (see [`crate::ops::Family`]).
pub fn family(
    _op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let Some(result) = evaluate(name, operands) else {
        return Ok(None);
    };
    Ok(Some(vec![result?]))
}

/// Evaluates op `name`, or `None` when it is not a math op.
pub fn evaluate(name: &str, operands: &[&Tensor]) -> Option<Result<Tensor, ValueError>> {
    let short = name
        .strip_prefix("stablehlo.")
        .or_else(|| name.strip_prefix("chlo."))?;
    if operands.first().is_some_and(|t| t.element.is_complex()) {
        if let Some(op) = complex::math_op(name) {
            return Some(match op {
                MathOp::Unary(f) => unary(short, operands, |t| complex::map(short, t, f)),
                MathOp::Binary(f) => binary(short, operands, |a, b| complex::zip(short, a, b, f)),
            });
        }
    }
    // One arm per function, so that each instance of `map_float` inlines its
    // function rather than calling it through a `fn` pointer per element.
    macro_rules! float_unary {
        ($f:expr) => {
            return Some(unary(short, operands, |t| map_float(short, t, $f)))
        };
    }
    match name {
        "stablehlo.exponential" => float_unary!(libm::exp),
        "stablehlo.exponential_minus_one" => float_unary!(libm::exp_m1),
        "stablehlo.log" => float_unary!(libm::ln),
        "stablehlo.log_plus_one" => float_unary!(libm::ln_1p),
        "stablehlo.logistic" => float_unary!(libm::logistic),
        "stablehlo.tanh" => float_unary!(libm::tanh),
        "stablehlo.sqrt" => return Some(unary(short, operands, sqrt)),
        "stablehlo.rsqrt" => float_unary!(libm::rsqrt),
        "stablehlo.cbrt" => float_unary!(libm::cbrt),
        "stablehlo.sine" => float_unary!(libm::sin),
        "stablehlo.cosine" => float_unary!(libm::cos),
        "stablehlo.tan" => float_unary!(libm::tan),
        "stablehlo.floor" => float_unary!(libm::floor),
        "stablehlo.ceil" => float_unary!(libm::ceil),
        "stablehlo.round_nearest_afz" => float_unary!(libm::round_half_away),
        "stablehlo.round_nearest_even" => float_unary!(libm::round_half_even),
        "chlo.erf" => float_unary!(libm::erf),
        "chlo.erfc" => float_unary!(libm::erfc),
        "chlo.erf_inv" => float_unary!(erf_inv),
        "chlo.tan" => float_unary!(libm::tan),
        "chlo.atan" => float_unary!(libm::atan),
        "chlo.sinh" => float_unary!(libm::sinh),
        "chlo.cosh" => float_unary!(libm::cosh),
        "chlo.asin" => float_unary!(libm::asin),
        "chlo.acos" => float_unary!(libm::acos),
        "chlo.asinh" => float_unary!(libm::asinh),
        "chlo.acosh" => float_unary!(libm::acosh),
        "chlo.atanh" => float_unary!(libm::atanh),
        _ => {}
    }
    let result = match name {
        "stablehlo.sign" => unary(short, operands, sign),
        "stablehlo.is_finite" => unary(short, operands, |t| classify(short, t, f64::is_finite)),
        "chlo.is_inf" => unary(short, operands, |t| classify(short, t, f64::is_infinite)),
        "chlo.is_pos_inf" => unary(short, operands, |t| {
            classify(short, t, |x| x == f64::INFINITY)
        }),
        "chlo.is_neg_inf" => unary(short, operands, |t| {
            classify(short, t, |x| x == f64::NEG_INFINITY)
        }),
        "stablehlo.popcnt" => unary(short, operands, |t| {
            map_bits(short, t, |bits, width| {
                u64::from(bits.count_ones()) & width_mask(width)
            })
        }),
        "stablehlo.count_leading_zeros" => unary(short, operands, |t| {
            map_bits(short, t, |bits, width| {
                u64::from(bits.leading_zeros()) - u64::from(64 - width)
            })
        }),
        "chlo.square" => unary(short, operands, square),
        "stablehlo.power" => binary(short, operands, power),
        "stablehlo.atan2" => binary(short, operands, |a, b| zip_float(short, a, b, libm::atan2)),
        "stablehlo.remainder" => binary(short, operands, remainder),
        "stablehlo.shift_left" => binary(short, operands, |a, b| shift(Shift::Left, a, b)),
        "stablehlo.shift_right_arithmetic" => {
            binary(short, operands, |a, b| shift(Shift::RightArithmetic, a, b))
        }
        "stablehlo.shift_right_logical" => {
            binary(short, operands, |a, b| shift(Shift::RightLogical, a, b))
        }
        _ => return None,
    };
    Some(result)
}

fn unary(
    _name: &str,
    operands: &[&Tensor],
    f: impl FnOnce(&Tensor) -> Result<Tensor, ValueError>,
) -> Result<Tensor, ValueError> {
    arity(operands, 1)?;
    f(operands[0])
}

fn binary(
    name: &str,
    operands: &[&Tensor],
    f: impl FnOnce(&Tensor, &Tensor) -> Result<Tensor, ValueError>,
) -> Result<Tensor, ValueError> {
    arity(operands, 2)?;
    same_type(name, operands[0], operands[1])?;
    f(operands[0], operands[1])
}

fn not_defined(name: &str, element: ElementType) -> ValueError {
    ValueError::Mismatch(format!("{name} is not defined on {element:?}"))
}

/// `f` elementwise on a float tensor, computed in `f64` and rounded once.
fn map_float(name: &str, t: &Tensor, f: impl Fn(f64) -> f64) -> Result<Tensor, ValueError> {
    let element = t.element;
    let data = match &t.data {
        Data::F64(v) => Data::F64(v.iter().map(|&x| f(x)).collect()),
        Data::F32(v) => Data::F32(
            v.iter()
                .map(|&x| element.round_f64(f(f64::from(x))))
                .collect(),
        ),
        _ => return Err(not_defined(name, element)),
    };
    Tensor::new(element, t.shape.clone(), data)
}

/// `sqrt`: on f32, computed in f32, which vectorizes. Both IEEE square roots
/// are correctly rounded, and rounding the f64 root to f32 is exact as well
/// (53 >= 2 * 24 + 2 bits, so the double rounding is innocuous), so the bits
/// are those of [`map_float`]'s f64 route (tested on every exponent).
fn sqrt(t: &Tensor) -> Result<Tensor, ValueError> {
    if let (ElementType::F32, Data::F32(v)) = (t.element, &t.data) {
        let data = Data::F32(v.iter().map(|x| x.sqrt()).collect());
        return Tensor::new(t.element, t.shape.clone(), data);
    }
    map_float("sqrt", t, f64::sqrt)
}

/// `f` elementwise on two float tensors of one type, rounded once.
fn zip_float(
    name: &str,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(f64, f64) -> f64,
) -> Result<Tensor, ValueError> {
    let element = a.element;
    let data = match (&a.data, &b.data) {
        (Data::F64(x), Data::F64(y)) => {
            Data::F64(x.iter().zip(y).map(|(&x, &y)| f(x, y)).collect())
        }
        (Data::F32(x), Data::F32(y)) => Data::F32(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| element.round_f64(f(f64::from(x), f64::from(y))))
                .collect(),
        ),
        _ => return Err(not_defined(name, element)),
    };
    Tensor::new(element, a.shape.clone(), data)
}

/// The bit width of an integer type (booleans excluded).
fn int_width(element: ElementType) -> Option<u32> {
    match element {
        ElementType::Signed(w) | ElementType::Unsigned(w) => Some(w),
        _ => None,
    }
}

fn width_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `f(bits, width)` on the width-wrapped two's complement bits of each
/// integer element; the result is an element of the same type.
fn map_bits(name: &str, t: &Tensor, f: impl Fn(u64, u32) -> u64) -> Result<Tensor, ValueError> {
    let element = t.element;
    let width = int_width(element).ok_or_else(|| not_defined(name, element))?;
    let mask = width_mask(width);
    let data = match &t.data {
        Data::Signed(v) => Data::Signed(
            v.iter()
                .map(|&x| element.wrap_signed(f(x as u64 & mask, width) as i64))
                .collect(),
        ),
        Data::Unsigned(v) => Data::Unsigned(
            v.iter()
                .map(|&x| element.wrap_unsigned(f(x & mask, width)))
                .collect(),
        ),
        _ => return Err(not_defined(name, element)),
    };
    Tensor::new(element, t.shape.clone(), data)
}

/// `stablehlo.sign`: -1, 0 or 1 (floats: `±0` and NaN are kept).
fn sign(t: &Tensor) -> Result<Tensor, ValueError> {
    let f = |x: f64| {
        if x.is_nan() || x == 0.0 {
            x
        } else if x < 0.0 {
            -1.0
        } else {
            1.0
        }
    };
    let element = t.element;
    let data = match &t.data {
        Data::F64(v) => Data::F64(v.iter().map(|&x| f(x)).collect()),
        Data::F32(v) => Data::F32(v.iter().map(|&x| f(f64::from(x)) as f32).collect()),
        Data::Signed(v) => Data::Signed(v.iter().map(|x| x.signum()).collect()),
        _ => return Err(not_defined("sign", element)),
    };
    Tensor::new(element, t.shape.clone(), data)
}

/// A predicate on each float element, as `i1` (`is_finite`, `is_inf`, ...).
fn classify(name: &str, t: &Tensor, f: fn(f64) -> bool) -> Result<Tensor, ValueError> {
    let out: Vec<bool> = match &t.data {
        Data::F64(v) => v.iter().map(|&x| f(x)).collect(),
        Data::F32(v) => v.iter().map(|&x| f(f64::from(x))).collect(),
        _ => return Err(not_defined(name, t.element)),
    };
    Tensor::new(ElementType::I1, t.shape.clone(), Data::Bool(out))
}

/// `chlo.square`: `x * x`, rounded once (integers wrap).
fn square(t: &Tensor) -> Result<Tensor, ValueError> {
    let element = t.element;
    let data = match &t.data {
        Data::F64(v) => Data::F64(v.iter().map(|&x| x * x).collect()),
        Data::F32(v) => Data::F32(v.iter().map(|&x| element.round_f32(x * x)).collect()),
        Data::Signed(v) => Data::Signed(
            v.iter()
                .map(|&x| element.wrap_signed(x.wrapping_mul(x)))
                .collect(),
        ),
        Data::Unsigned(v) => Data::Unsigned(
            v.iter()
                .map(|&x| element.wrap_unsigned(x.wrapping_mul(x)))
                .collect(),
        ),
        _ => return Err(not_defined("square", element)),
    };
    Tensor::new(element, t.shape.clone(), data)
}

/// `base^exponent` by squaring, wrapping (the caller wraps to the width).
fn int_power(base: u64, mut exponent: u64) -> u64 {
    let (mut result, mut square) = (1u64, base);
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result.wrapping_mul(square);
        }
        square = square.wrapping_mul(square);
        exponent >>= 1;
    }
    result
}

/// `stablehlo.power`.
fn power(a: &Tensor, b: &Tensor) -> Result<Tensor, ValueError> {
    let element = a.element;
    let data = match (&a.data, &b.data) {
        (Data::F64(_), _) | (Data::F32(_), _) => return zip_float("power", a, b, libm::pow),
        (Data::Signed(x), Data::Signed(y)) => Data::Signed(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| {
                    if y < 0 {
                        match x {
                            1 => 1,
                            -1 if y & 1 == 1 => -1,
                            -1 => 1,
                            _ => 0,
                        }
                    } else {
                        element.wrap_signed(int_power(x as u64, y as u64) as i64)
                    }
                })
                .collect(),
        ),
        (Data::Unsigned(x), Data::Unsigned(y)) => Data::Unsigned(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| element.wrap_unsigned(int_power(x, y)))
                .collect(),
        ),
        _ => return Err(not_defined("power", element)),
    };
    Tensor::new(element, a.shape.clone(), data)
}

/// `stablehlo.remainder`: the dividend's sign; floats as C `fmod`.
fn remainder(a: &Tensor, b: &Tensor) -> Result<Tensor, ValueError> {
    let element = a.element;
    let data = match (&a.data, &b.data) {
        (Data::F64(_), _) | (Data::F32(_), _) => return zip_float("remainder", a, b, libm::fmod),
        (Data::Signed(x), Data::Signed(y)) => Data::Signed(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| if y == 0 { x } else { x.wrapping_rem(y) })
                .collect(),
        ),
        (Data::Unsigned(x), Data::Unsigned(y)) => Data::Unsigned(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| if y == 0 { x } else { x % y })
                .collect(),
        ),
        _ => return Err(not_defined("remainder", element)),
    };
    Tensor::new(element, a.shape.clone(), data)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shift {
    Left,
    RightArithmetic,
    RightLogical,
}

/// The shift ops on the width-wrapped bits; amounts are read as unsigned,
/// and those `>= width` shift everything out.
fn shift(kind: Shift, a: &Tensor, b: &Tensor) -> Result<Tensor, ValueError> {
    let element = a.element;
    let width = int_width(element).ok_or_else(|| not_defined("shift", element))?;
    let mask = width_mask(width);
    // `bits` is the operand's pattern within the width; returns the result's.
    let f = |bits: u64, amount: u64| -> u64 {
        let negative = (bits >> (width - 1)) & 1 == 1;
        let in_range = amount < u64::from(width);
        match kind {
            Shift::Left if in_range => (bits << amount) & mask,
            Shift::RightLogical if in_range => bits >> amount,
            Shift::RightArithmetic => {
                let fill = if negative { mask } else { 0 };
                if in_range {
                    let shifted = bits >> amount;
                    // Sign bits shifted in from the top of the width.
                    shifted | (fill & !(mask >> amount))
                } else {
                    fill
                }
            }
            _ => 0,
        }
    };
    let data = match (&a.data, &b.data) {
        (Data::Signed(x), Data::Signed(y)) => Data::Signed(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| element.wrap_signed(f(x as u64 & mask, y as u64 & mask) as i64))
                .collect(),
        ),
        (Data::Unsigned(x), Data::Unsigned(y)) => Data::Unsigned(
            x.iter()
                .zip(y)
                .map(|(&x, &y)| f(x & mask, y & mask))
                .collect(),
        ),
        _ => return Err(not_defined("shift", element)),
    };
    Tensor::new(element, a.shape.clone(), data)
}

/// Inverse error function: `erf_inv(±1) = ±inf`, NaN outside `[-1, 1]`.
///
/// A first guess from the series `y = (sqrt(pi)/2)(x + pi x^3/12)` near 0,
/// or from `erfc y ~ e^(-y^2)/(y sqrt(pi))` near ±1, then Newton steps on
/// `erf y - x` with derivative `2/sqrt(pi) e^(-y^2)` until the step stops
/// changing `y` (at most 60 steps).
pub fn erf_inv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return if x < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if x == 0.0 {
        return x;
    }
    let a = x.abs();
    const HALF_SQRT_PI: f64 = 0.886_226_925_452_758;
    let mut y = if a < 0.9 {
        HALF_SQRT_PI * (a + std::f64::consts::PI * a * a * a / 12.0)
    } else {
        // e^(-y^2) = (1 - a) y sqrt(pi): a few fixed-point steps.
        let mut y = 1.5;
        for _ in 0..8 {
            y = (-libm::ln((1.0 - a) * y * 1.772_453_850_905_516)).sqrt();
        }
        y
    };
    for _ in 0..60 {
        let slope = 2.0 / 1.772_453_850_905_516 * libm::exp(-y * y);
        if slope == 0.0 {
            break;
        }
        // erf y - a, from erfc when y is large (1 - a is exact there).
        let residual = if (1.0..=27.0).contains(&y) {
            (1.0 - a) - libm::erfc_tail(y)
        } else {
            libm::erf(y) - a
        };
        let step = residual / slope;
        let next = y - step;
        if next == y || !next.is_finite() {
            break;
        }
        y = next;
    }
    if x < 0.0 {
        -y
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(element: ElementType, data: Data) -> Tensor {
        Tensor::new(element, vec![data.len()], data).unwrap()
    }

    fn run(name: &str, operands: &[&Tensor]) -> Tensor {
        evaluate(name, operands).unwrap().unwrap()
    }

    #[test]
    fn f32_square_roots_are_the_rounded_f64_ones() {
        // Every exponent, with several mantissas each, both signs, zeros,
        // subnormals, infinities and NaN.
        let mut values = vec![0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
        for exponent in 0..256u32 {
            for mantissa in [0u32, 1, 0x2a_aaab, 0x40_0000, 0x55_5555, 0x7f_ffff] {
                let bits = (exponent << 23) | mantissa;
                values.push(f32::from_bits(bits));
                values.push(-f32::from_bits(bits));
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            values.push(f32::from_bits(state as u32 & 0x7fff_ffff));
        }
        let x = t(ElementType::F32, Data::F32(values.clone()));
        let fast = run("stablehlo.sqrt", &[&x]);
        let reference = map_float("sqrt", &x, f64::sqrt).unwrap();
        let (Data::F32(fast), Data::F32(reference)) = (&fast.data, &reference.data) else {
            panic!("sqrt of f32 is f32");
        };
        for ((a, b), v) in fast.iter().zip(reference).zip(&values) {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "sqrt({v:e}): {a:e} against {b:e}"
            );
        }
    }

    #[test]
    fn float_functions_round_once_per_type() {
        let x = t(
            ElementType::F32,
            Data::F32(vec![0.0, 1.0, -2.5, f32::INFINITY]),
        );
        let e = run("stablehlo.exponential", &[&x]);
        let want: Vec<f32> = [0.0f64, 1.0, -2.5, f64::INFINITY]
            .iter()
            .map(|&v| libm::exp(v) as f32)
            .collect();
        assert_eq!(e.data, Data::F32(want));
        let b = t(ElementType::BF16, Data::F32(vec![1.0, 0.125]));
        let c = run("stablehlo.cosine", &[&b]);
        assert_eq!(c.data, Data::F32(vec![0.5390625, 0.9921875]));
        let f = t(ElementType::F64, Data::F64(vec![-2.5, -0.0, 2.5, 0.5]));
        let r = run("stablehlo.round_nearest_even", &[&f]);
        assert_eq!(r.data, Data::F64(vec![-2.0, -0.0, 2.0, 0.0]));
        let r = run("stablehlo.round_nearest_afz", &[&f]);
        assert_eq!(r.data, Data::F64(vec![-3.0, -0.0, 3.0, 1.0]));
        let s = run("stablehlo.sign", &[&f]);
        assert_eq!(s.data, Data::F64(vec![-1.0, -0.0, 1.0, 1.0]));
        let fin = run("stablehlo.is_finite", &[&x]);
        assert_eq!(fin.data, Data::Bool(vec![true, true, true, false]));
        let i = t(ElementType::Signed(32), Data::Signed(vec![1]));
        assert!(evaluate("stablehlo.sine", &[&i]).unwrap().is_err());
        assert!(evaluate("stablehlo.add", &[&i, &i]).is_none());
        let inf = t(
            ElementType::F16,
            Data::F32(vec![f32::INFINITY, f32::NEG_INFINITY, 1.0, f32::NAN]),
        );
        let pos = run("chlo.is_pos_inf", &[&inf]);
        assert_eq!(pos.data, Data::Bool(vec![true, false, false, false]));
        let any = run("chlo.is_inf", &[&inf]);
        assert_eq!(any.data, Data::Bool(vec![true, true, false, false]));
        let h = run("chlo.asinh", &[&f]);
        assert_eq!(h.element, ElementType::F64);
        let sq = run("chlo.square", &[&f]);
        assert_eq!(sq.data, Data::F64(vec![6.25, 0.0, 6.25, 0.25]));
    }

    #[test]
    fn integer_power_and_remainder() {
        let i = |v: &[i64]| t(ElementType::Signed(64), Data::Signed(v.to_vec()));
        let p = run(
            "stablehlo.power",
            &[
                &i(&[-1, -1, -3, 1, -3, 0, 2]),
                &i(&[1, 0, -3, -3, 3, 2, 64]),
            ],
        );
        assert_eq!(p.data, Data::Signed(vec![-1, 1, 0, 1, -27, 0, 0]));
        let i8s = |v: &[i64]| t(ElementType::Signed(8), Data::Signed(v.to_vec()));
        let p = run("stablehlo.power", &[&i8s(&[3, -1]), &i8s(&[5, -7])]);
        assert_eq!(p.data, Data::Signed(vec![-13, -1])); // 243 wraps to -13
        let r = run(
            "stablehlo.remainder",
            &[
                &i(&[17, -17, 17, -17, 5, i64::MIN]),
                &i(&[3, 3, -3, -3, 0, -1]),
            ],
        );
        assert_eq!(r.data, Data::Signed(vec![2, -2, 2, -2, 5, 0]));
        let f = |v: &[f64]| t(ElementType::F64, Data::F64(v.to_vec()));
        let r = run(
            "stablehlo.remainder",
            &[&f(&[17.1, -17.1]), &f(&[-3.0, 3.0])],
        );
        assert_eq!(
            r.data,
            Data::F64(vec![2.1000000000000014, -2.1000000000000014])
        );
    }

    #[test]
    fn bits_and_shifts() {
        let i8s = |v: &[i64]| t(ElementType::Signed(8), Data::Signed(v.to_vec()));
        let c = run("stablehlo.count_leading_zeros", &[&i8s(&[0, 1, -1, 64])]);
        assert_eq!(c.data, Data::Signed(vec![8, 7, 0, 1]));
        let p = run("stablehlo.popcnt", &[&i8s(&[0, -1, 7, -128])]);
        assert_eq!(p.data, Data::Signed(vec![0, 8, 3, 1]));
        let x = i8s(&[-128, -1, 1, 64, 3]);
        let s = i8s(&[1, 7, 8, 1, -1]);
        let l = run("stablehlo.shift_left", &[&x, &s]);
        assert_eq!(l.data, Data::Signed(vec![0, -128, 0, -128, 0]));
        let ra = run("stablehlo.shift_right_arithmetic", &[&x, &s]);
        assert_eq!(ra.data, Data::Signed(vec![-64, -1, 0, 32, 0]));
        let rl = run("stablehlo.shift_right_logical", &[&x, &s]);
        assert_eq!(rl.data, Data::Signed(vec![64, 1, 0, 32, 0]));
        let u = |v: &[u64]| t(ElementType::Unsigned(16), Data::Unsigned(v.to_vec()));
        let ra = run(
            "stablehlo.shift_right_arithmetic",
            &[&u(&[0x8000, 0x4000]), &u(&[3, 20])],
        );
        assert_eq!(ra.data, Data::Unsigned(vec![0xf000, 0]));
        let i64s = |v: &[i64]| t(ElementType::Signed(64), Data::Signed(v.to_vec()));
        let rl = run(
            "stablehlo.shift_right_logical",
            &[&i64s(&[-1]), &i64s(&[1])],
        );
        assert_eq!(rl.data, Data::Signed(vec![i64::MAX]));
    }

    #[test]
    fn erf_inv_inverts_erf() {
        for &x in &[1e-300, 1e-10, 0.1, 0.5, 0.9, 0.99, 0.999999, 1.0 - 1e-15] {
            let y = erf_inv(x);
            assert!(
                (libm::erf(y) - x).abs() <= 2.0 * f64::EPSILON * x,
                "{x}: {y}"
            );
            assert_eq!(erf_inv(-x), -y);
        }
        assert_eq!(erf_inv(1.0), f64::INFINITY);
        assert!(erf_inv(1.5).is_nan());
    }
}
