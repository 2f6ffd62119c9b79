//! Elementwise ops: arithmetic, compare, select and convert.
//!
//! Every float op is one IEEE operation in the operand's own width (Rust
//! never contracts `a * b + c` into an FMA), so results are bit-identical on
//! every machine. Integer arithmetic wraps at the type's width; division by
//! zero and overflowing division follow the StableHLO specification.

use super::{complex, same_type};
use crate::value::{Data, ElementType, Tensor, ValueError};

/// A binary elementwise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `stablehlo.add` (logical or on `i1`).
    Add,
    /// `stablehlo.subtract`.
    Subtract,
    /// `stablehlo.multiply` (logical and on `i1`).
    Multiply,
    /// `stablehlo.divide`.
    Divide,
    /// `stablehlo.maximum`.
    Maximum,
    /// `stablehlo.minimum`.
    Minimum,
}

impl BinaryOp {
    /// Every binary op, in declaration order.
    pub const ALL: [BinaryOp; 6] = [
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
    ];
}

/// A unary elementwise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `stablehlo.negate`.
    Negate,
    /// `stablehlo.abs`.
    Abs,
}

fn float_max<T: PartialOrd + Copy>(a: T, b: T, is_nan: impl Fn(T) -> bool, max: bool) -> T {
    // NaN propagates; -0.0 < +0.0 is decided by the caller's bit test below.
    if is_nan(a) {
        a
    } else if is_nan(b) {
        b
    } else if (a > b) == max {
        a
    } else {
        b
    }
}

macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, $t:ty) => {{
        let pairs = $a.iter().zip($b);
        // One loop per op (the op is not re-matched per element), so the
        // arithmetic ones vectorize; each is one IEEE operation per element.
        match $op {
            BinaryOp::Add => pairs.map(|(&x, &y)| x + y).collect(),
            BinaryOp::Subtract => pairs.map(|(&x, &y)| x - y).collect(),
            BinaryOp::Multiply => pairs.map(|(&x, &y)| x * y).collect(),
            BinaryOp::Divide => pairs.map(|(&x, &y)| x / y).collect(),
            BinaryOp::Maximum | BinaryOp::Minimum => {
                let max = $op == BinaryOp::Maximum;
                pairs
                    .map(|(&x, &y)| {
                        if x == y && x == 0.0 {
                            // Signed zeros: max(-0, +0) = +0, min(-0, +0) = -0.
                            if x.is_sign_negative() == max {
                                y
                            } else {
                                x
                            }
                        } else {
                            float_max(x, y, |v: $t| v.is_nan(), max)
                        }
                    })
                    .collect()
            }
        }
    }};
}

/// `op(lhs, rhs)` elementwise; operands have the same type.
pub fn binary(op: BinaryOp, lhs: &Tensor, rhs: &Tensor) -> Result<Tensor, ValueError> {
    same_type("binary op", lhs, rhs)?;
    let element = lhs.element;
    let data = match (&lhs.data, &rhs.data) {
        (Data::F64(a), Data::F64(b)) => Data::F64(float_binary!(op, a, b, f64)),
        (Data::F32(a), Data::F32(b)) => {
            let exact: Vec<f32> = float_binary!(op, a, b, f32);
            if element == ElementType::F32 {
                Data::F32(exact)
            } else {
                Data::F32(exact.into_iter().map(|x| element.round_f32(x)).collect())
            }
        }
        (Data::Bool(a), Data::Bool(b)) => {
            let f = |x: bool, y: bool| match op {
                BinaryOp::Add | BinaryOp::Maximum => Ok(x | y),
                BinaryOp::Multiply | BinaryOp::Minimum => Ok(x & y),
                BinaryOp::Subtract | BinaryOp::Divide => {
                    Err(ValueError::Mismatch(format!("{op:?} is not defined on i1")))
                }
            };
            Data::Bool(
                a.iter()
                    .zip(b)
                    .map(|(&x, &y)| f(x, y))
                    .collect::<Result<_, _>>()?,
            )
        }
        (Data::Signed(a), Data::Signed(b)) => {
            let f = |x: i64, y: i64| match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Subtract => x.wrapping_sub(y),
                BinaryOp::Multiply => x.wrapping_mul(y),
                // x / 0 = -1; MIN / -1 = MIN (spec); wrapping_div gives the latter.
                BinaryOp::Divide if y == 0 => -1,
                BinaryOp::Divide => x.wrapping_div(y),
                BinaryOp::Maximum => x.max(y),
                BinaryOp::Minimum => x.min(y),
            };
            let wrap = |v| element.wrap_signed(v);
            Data::Signed(a.iter().zip(b).map(|(&x, &y)| wrap(f(x, y))).collect())
        }
        (Data::Unsigned(a), Data::Unsigned(b)) => {
            let f = |x: u64, y: u64| match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Subtract => x.wrapping_sub(y),
                BinaryOp::Multiply => x.wrapping_mul(y),
                // x / 0 = all ones (spec).
                BinaryOp::Divide if y == 0 => u64::MAX,
                BinaryOp::Divide => x / y,
                BinaryOp::Maximum => x.max(y),
                BinaryOp::Minimum => x.min(y),
            };
            let wrap = |v| element.wrap_unsigned(v);
            Data::Unsigned(a.iter().zip(b).map(|(&x, &y)| wrap(f(x, y))).collect())
        }
        (Data::C64(_), Data::C64(_)) | (Data::C128(_), Data::C128(_)) => {
            return complex_binary(op, lhs, rhs)
        }
        _ => unreachable_class()?,
    };
    Tensor::new(element, lhs.shape.clone(), data)
}

macro_rules! float_in_place {
    ($op:expr, $a:expr, $b:expr, $lhs:expr, $t:ty) => {{
        // One monomorphic loop per op, as in `float_binary!`.
        match $op {
            BinaryOp::Add => zip_in_place($a, $b, $lhs, <$t>::NAN, |x: $t, y| x + y),
            BinaryOp::Subtract => zip_in_place($a, $b, $lhs, <$t>::NAN, |x: $t, y| x - y),
            BinaryOp::Multiply => zip_in_place($a, $b, $lhs, <$t>::NAN, |x: $t, y| x * y),
            BinaryOp::Divide => zip_in_place($a, $b, $lhs, <$t>::NAN, |x: $t, y| x / y),
            BinaryOp::Maximum | BinaryOp::Minimum => {
                let max = $op == BinaryOp::Maximum;
                zip_in_place($a, $b, $lhs, <$t>::NAN, |x: $t, y| {
                    if x == y && x == 0.0 {
                        if x.is_sign_negative() == max {
                            y
                        } else {
                            x
                        }
                    } else {
                        float_max(x, y, |v: $t| v.is_nan(), max)
                    }
                })
            }
        }
    }};
}

/// [`binary`] computed into `target`, which holds the left operand
/// (`target_is_lhs`) or the right one, reusing its buffer: every element is
/// the same IEEE operation on the same operands, so the bits equal
/// [`binary`]'s after NaN canonicalization, which this applies itself
/// ([`Tensor::canonicalize_nans`]). Only `f32` and `f64` tensors are done in
/// place; for any other type `target` is left untouched and `Ok(false)`
/// says so.
pub fn binary_in_place(
    op: BinaryOp,
    target: &mut Tensor,
    other: &Tensor,
    target_is_lhs: bool,
) -> Result<bool, ValueError> {
    same_type("binary op", target, other)?;
    let exact_f32 = target.element == ElementType::F32;
    match (&mut target.data, &other.data) {
        (Data::F64(a), Data::F64(b)) => float_in_place!(op, a, b, target_is_lhs, f64),
        (Data::F32(a), Data::F32(b)) if exact_f32 => {
            float_in_place!(op, a, b, target_is_lhs, f32)
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `target[i] = f(target[i], other[i])`, or `f(other[i], target[i])`, with
/// NaN results made canonical in the same pass (a select, so the loop still
/// vectorizes); the interpreter then skips its separate canonicalization.
fn zip_in_place<T: Copy + PartialEq>(
    target: &mut [T],
    other: &[T],
    target_is_lhs: bool,
    nan: T,
    f: impl Fn(T, T) -> T,
) {
    #[allow(clippy::eq_op)] // r != r is the NaN test, branch-free
    let canonical = |r: T| if r != r { nan } else { r };
    if target_is_lhs {
        target
            .iter_mut()
            .zip(other)
            .for_each(|(x, &y)| *x = canonical(f(*x, y)));
    } else {
        target
            .iter_mut()
            .zip(other)
            .for_each(|(x, &y)| *x = canonical(f(y, *x)));
    }
}

/// A binary op on complex tensors: arithmetic in `f64` parts (rounded once
/// per part for `complex<f32>`); `maximum`/`minimum` by the lexicographic
/// order of `(re, im)`, a NaN part propagating its element.
fn complex_binary(op: BinaryOp, lhs: &Tensor, rhs: &Tensor) -> Result<Tensor, ValueError> {
    let f: fn(complex::C, complex::C) -> complex::C = match op {
        BinaryOp::Add => complex::add,
        BinaryOp::Subtract => complex::sub,
        BinaryOp::Multiply => complex::mul,
        BinaryOp::Divide => complex::div,
        BinaryOp::Maximum => |a, b| lexicographic(a, b, true),
        BinaryOp::Minimum => |a, b| lexicographic(a, b, false),
    };
    complex::zip("binary op", lhs, rhs, f)
}

fn lexicographic(a: complex::C, b: complex::C, max: bool) -> complex::C {
    let nan = |z: complex::C| z.0.is_nan() || z.1.is_nan();
    if nan(a) {
        return a;
    }
    if nan(b) {
        return b;
    }
    let ordering = match a.0.partial_cmp(&b.0) {
        Some(std::cmp::Ordering::Equal) | None => a.1.partial_cmp(&b.1),
        other => other,
    };
    match ordering {
        Some(std::cmp::Ordering::Less) if max => b,
        Some(std::cmp::Ordering::Greater) if !max => b,
        _ => a,
    }
}

fn unreachable_class<T>() -> Result<T, ValueError> {
    Err(ValueError::Mismatch(
        "tensor data does not match its element type".to_owned(),
    ))
}

/// `op(operand)` elementwise; `abs` of a complex tensor is of its part type.
pub fn unary(op: UnaryOp, operand: &Tensor) -> Result<Tensor, ValueError> {
    let element = operand.element;
    if element.is_complex() {
        return match op {
            UnaryOp::Negate => complex::map("negate", operand, |(x, y)| (-x, -y)),
            UnaryOp::Abs => complex::abs(operand),
        };
    }
    let data = match (&operand.data, op) {
        (Data::F64(a), UnaryOp::Negate) => Data::F64(a.iter().map(|x| -x).collect()),
        (Data::F64(a), UnaryOp::Abs) => Data::F64(a.iter().map(|x| x.abs()).collect()),
        (Data::F32(a), UnaryOp::Negate) => Data::F32(a.iter().map(|x| -x).collect()),
        (Data::F32(a), UnaryOp::Abs) => Data::F32(a.iter().map(|x| x.abs()).collect()),
        (Data::Signed(a), UnaryOp::Negate) => Data::Signed(
            a.iter()
                .map(|&x| element.wrap_signed(x.wrapping_neg()))
                .collect(),
        ),
        (Data::Signed(a), UnaryOp::Abs) => Data::Signed(
            a.iter()
                .map(|&x| element.wrap_signed(x.wrapping_abs()))
                .collect(),
        ),
        (Data::Unsigned(a), UnaryOp::Negate) => Data::Unsigned(
            a.iter()
                .map(|&x| element.wrap_unsigned(x.wrapping_neg()))
                .collect(),
        ),
        _ => {
            return Err(ValueError::Mismatch(format!(
                "{op:?} is not defined on {element:?}"
            )))
        }
    };
    Tensor::new(element, operand.shape.clone(), data)
}

/// `comparison_direction` of `stablehlo.compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Greater or equal.
    Ge,
    /// Greater.
    Gt,
    /// Less or equal.
    Le,
    /// Less.
    Lt,
}

impl Direction {
    /// Reads `EQ`, `NE`, `GE`, `GT`, `LE` or `LT`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "EQ" => Self::Eq,
            "NE" => Self::Ne,
            "GE" => Self::Ge,
            "GT" => Self::Gt,
            "LE" => Self::Le,
            "LT" => Self::Lt,
            _ => return None,
        })
    }

    fn holds(self, ordering: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match (self, ordering) {
            (Self::Ne, None) => true,
            (_, None) => false,
            (Self::Eq, Some(o)) => o == Equal,
            (Self::Ne, Some(o)) => o != Equal,
            (Self::Ge, Some(o)) => o != Less,
            (Self::Gt, Some(o)) => o == Greater,
            (Self::Le, Some(o)) => o != Greater,
            (Self::Lt, Some(o)) => o == Less,
        }
    }
}

/// `compare_type` of `stablehlo.compare`; `None` in the op means the
/// default for the element type (which equals `Float` for floats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareType {
    /// IEEE comparison: NaN is unordered.
    Float,
    /// IEEE totalOrder: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
    TotalOrder,
    /// Signed integers.
    Signed,
    /// Unsigned integers and booleans.
    Unsigned,
}

impl CompareType {
    /// Reads `FLOAT`, `TOTALORDER`, `SIGNED` or `UNSIGNED`.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "FLOAT" => Self::Float,
            "TOTALORDER" => Self::TotalOrder,
            "SIGNED" => Self::Signed,
            "UNSIGNED" => Self::Unsigned,
            _ => return None,
        })
    }
}

fn total_key64(bits: u64) -> i64 {
    let v = bits as i64;
    v ^ ((((v >> 63) as u64) >> 1) as i64)
}

/// `compare(lhs, rhs)` elementwise into an `i1` tensor.
pub fn compare(
    direction: Direction,
    compare_type: Option<CompareType>,
    lhs: &Tensor,
    rhs: &Tensor,
) -> Result<Tensor, ValueError> {
    same_type("compare", lhs, rhs)?;
    let total = compare_type == Some(CompareType::TotalOrder);
    let out: Vec<bool> = match (&lhs.data, &rhs.data) {
        (Data::F64(a), Data::F64(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| {
                let o = if total {
                    Some(total_key64(x.to_bits()).cmp(&total_key64(y.to_bits())))
                } else {
                    x.partial_cmp(y)
                };
                direction.holds(o)
            })
            .collect(),
        (Data::F32(a), Data::F32(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| {
                let o = if total {
                    Some(x.total_cmp(y))
                } else {
                    x.partial_cmp(y)
                };
                direction.holds(o)
            })
            .collect(),
        (Data::Bool(a), Data::Bool(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| direction.holds(Some(x.cmp(y))))
            .collect(),
        (Data::Signed(a), Data::Signed(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| direction.holds(Some(x.cmp(y))))
            .collect(),
        (Data::Unsigned(a), Data::Unsigned(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| direction.holds(Some(x.cmp(y))))
            .collect(),
        (Data::C64(_), Data::C64(_)) | (Data::C128(_), Data::C128(_)) => {
            // Only (in)equality is defined; a NaN part makes it unordered.
            if !matches!(direction, Direction::Eq | Direction::Ne) || total {
                return Err(ValueError::Mismatch(format!(
                    "compare {direction:?} is not defined on {:?}",
                    lhs.element
                )));
            }
            let (a, b) = complex::widen(lhs)
                .zip(complex::widen(rhs))
                .ok_or_else(|| ValueError::Mismatch("compare: not complex".to_owned()))?;
            a.iter()
                .zip(&b)
                .map(|(x, y)| (x.0 == y.0 && x.1 == y.1) == (direction == Direction::Eq))
                .collect()
        }
        _ => unreachable_class()?,
    };
    Tensor::new(ElementType::I1, lhs.shape.clone(), Data::Bool(out))
}

/// `pred ? on_true : on_false`, with `pred` a scalar or of the operands' shape.
pub fn select(pred: &Tensor, on_true: &Tensor, on_false: &Tensor) -> Result<Tensor, ValueError> {
    same_type("select", on_true, on_false)?;
    let Data::Bool(p) = &pred.data else {
        return Err(ValueError::Mismatch("select: pred is not i1".to_owned()));
    };
    if !pred.shape.is_empty() && pred.shape != on_true.shape {
        return Err(ValueError::Mismatch(format!(
            "select: pred shape {:?} vs operand shape {:?}",
            pred.shape, on_true.shape
        )));
    }
    // Each element taken from the operand its predicate names, read where
    // it lies (a scalar predicate takes one operand whole).
    fn pick<T: Copy>(p: &[bool], on_true: &[T], on_false: &[T]) -> Vec<T> {
        match p {
            [whole] => (if *whole { on_true } else { on_false }).to_vec(),
            _ => p
                .iter()
                .zip(on_true.iter().zip(on_false))
                .map(|(&p, (&t, &f))| if p { t } else { f })
                .collect(),
        }
    }
    let data = match (&on_true.data, &on_false.data) {
        (Data::F64(t), Data::F64(f)) => Data::F64(pick(p, t, f)),
        (Data::F32(t), Data::F32(f)) => Data::F32(pick(p, t, f)),
        (Data::Bool(t), Data::Bool(f)) => Data::Bool(pick(p, t, f)),
        (Data::Signed(t), Data::Signed(f)) => Data::Signed(pick(p, t, f)),
        (Data::Unsigned(t), Data::Unsigned(f)) => Data::Unsigned(pick(p, t, f)),
        (Data::C64(t), Data::C64(f)) => Data::C64(pick(p, t, f)),
        (Data::C128(t), Data::C128(f)) => Data::C128(pick(p, t, f)),
        _ => unreachable_class()?,
    };
    Tensor::new(on_true.element, on_true.shape.clone(), data)
}

/// One element, widened losslessly for conversion.
#[derive(Clone, Copy)]
enum Scalar {
    Float(f64),
    Int(i128),
}

/// `stablehlo.convert` to `target`.
///
/// Float to float rounds to nearest, ties to even. Integer to float rounds to
/// nearest. Integer to integer wraps (two's complement truncation). Float to
/// integer truncates toward zero; NaN and values outside the target's range
/// are errors (the specification leaves them implementation-defined).
/// Anything to `i1` is `x != 0`. To a complex type, the value becomes the
/// real part (converted to the part type) and the imaginary part is zero;
/// from a complex type to another, each part converts; from a complex type
/// to any other, the real part converts (the imaginary part is dropped).
pub fn convert(operand: &Tensor, target: ElementType) -> Result<Tensor, ValueError> {
    if let Some(part) = target.complex_part() {
        let (re, im) = if operand.element.is_complex() {
            let re = convert(&complex::part(operand, false)?, part)?;
            (re, convert(&complex::part(operand, true)?, part)?)
        } else {
            let re = convert(operand, part)?;
            let im = complex::part(&re, true)?;
            (re, im)
        };
        return complex::complex(&re, &im);
    }
    if operand.element.is_complex() {
        return convert(&complex::part(operand, false)?, target);
    }
    let scalars: Vec<Scalar> = match &operand.data {
        Data::F64(v) => v.iter().map(|&x| Scalar::Float(x)).collect(),
        Data::F32(v) => v.iter().map(|&x| Scalar::Float(f64::from(x))).collect(),
        Data::Bool(v) => v.iter().map(|&x| Scalar::Int(i128::from(x))).collect(),
        Data::Signed(v) => v.iter().map(|&x| Scalar::Int(i128::from(x))).collect(),
        Data::Unsigned(v) => v.iter().map(|&x| Scalar::Int(i128::from(x))).collect(),
        Data::C64(_) | Data::C128(_) => unreachable_class()?,
    };
    // f32 -> f64 is exact, so a float source is converted from f64 once.
    let data = match target {
        ElementType::F64 => Data::F64(
            scalars
                .iter()
                .map(|s| match *s {
                    Scalar::Float(x) => x,
                    Scalar::Int(i) => i as f64,
                })
                .collect(),
        ),
        ElementType::F32 => Data::F32(
            scalars
                .iter()
                .map(|s| match *s {
                    Scalar::Float(x) => x as f32,
                    Scalar::Int(i) => i as f32,
                })
                .collect(),
        ),
        ElementType::F16 | ElementType::BF16 => Data::F32(
            scalars
                .iter()
                .map(|s| match *s {
                    Scalar::Float(x) => target.round_f64(x),
                    Scalar::Int(i) => target.round_f64(round_to_odd(i)),
                })
                .collect(),
        ),
        ElementType::I1 => Data::Bool(
            scalars
                .iter()
                .map(|s| match *s {
                    Scalar::Float(x) => x != 0.0,
                    Scalar::Int(i) => i != 0,
                })
                .collect(),
        ),
        ElementType::Signed(_) | ElementType::Unsigned(_) => {
            let ints = scalars
                .iter()
                .map(|s| to_integer(*s, target))
                .collect::<Result<Vec<i128>, _>>()?;
            match target {
                ElementType::Signed(_) => {
                    Data::Signed(ints.iter().map(|&i| target.wrap_signed(i as i64)).collect())
                }
                _ => Data::Unsigned(
                    ints.iter()
                        .map(|&i| target.wrap_unsigned(i as u64))
                        .collect(),
                ),
            }
        }
        ElementType::Complex64 | ElementType::Complex128 => unreachable_class()?,
    };
    Tensor::new(target, operand.shape.clone(), data)
}

/// `i` as `f64`, rounded to odd: exact when representable, else the one of
/// the two neighbouring `f64`s with an odd significand. Rounding that once
/// more to a type of at most 51 significant bits gives the correctly rounded
/// result (no double-rounding error).
fn round_to_odd(i: i128) -> f64 {
    let nearest = i as f64;
    let back = nearest as i128;
    if back == i || nearest.to_bits() & 1 == 1 {
        return nearest;
    }
    // Step one ulp toward `i`: away from zero if |i| > |nearest|.
    if back.unsigned_abs() < i.unsigned_abs() {
        f64::from_bits(nearest.to_bits() + 1)
    } else {
        f64::from_bits(nearest.to_bits() - 1)
    }
}

/// A float converted to an integer type truncates toward zero and
/// saturates: values below the type's range (`-inf` included) give its
/// minimum, values above it its maximum, and NaN gives 0. StableHLO leaves
/// out-of-range conversions to the implementation; this is XLA's choice (and
/// Rust's `as`), so a replay agrees with a JAX production step bit for bit.
/// Programs compute such values and then discard them (T5's relative
/// position buckets take `log(0)`, convert it and select it away), so an
/// error here would refuse an honest program.
fn to_integer(scalar: Scalar, target: ElementType) -> Result<i128, ValueError> {
    let (min, max): (i128, i128) = match target {
        ElementType::Signed(w) => (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1),
        ElementType::Unsigned(w) => (0, (1i128 << w) - 1),
        _ => (0, 1),
    };
    match scalar {
        Scalar::Int(i) => Ok(i),
        Scalar::Float(x) => {
            let t = x.trunc();
            Ok(if x.is_nan() {
                0
            } else if t <= min as f64 {
                min
            } else if t >= max as f64 {
                max
            } else {
                t as i128
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Out-of-range floats saturate and NaN converts to 0, as in XLA.
    #[test]
    fn float_to_integer_conversion_saturates() {
        let s64 = ElementType::Signed(64);
        let u8_ = ElementType::Unsigned(8);
        let i = |x: f64, t| to_integer(Scalar::Float(x), t).unwrap();
        assert_eq!(i(f64::NEG_INFINITY, s64), i128::from(i64::MIN));
        assert_eq!(i(f64::INFINITY, s64), i128::from(i64::MAX));
        assert_eq!(i(f64::NAN, s64), 0);
        assert_eq!(i(-2.9, s64), -2);
        assert_eq!(i(300.0, u8_), 255);
        assert_eq!(i(-1.5, u8_), 0);
        assert_eq!(i(254.9, u8_), 254);
    }

    fn f32s(v: &[f32]) -> Tensor {
        Tensor::new(ElementType::F32, vec![v.len()], Data::F32(v.to_vec())).unwrap()
    }

    /// In place, on either side, the bits are those of `binary` with NaNs
    /// canonical: NaN payloads, signed zeros, infinities, subnormals.
    #[test]
    fn in_place_binary_ops_match_binary() {
        let payload = f32::from_bits(0x7fc0_1234);
        let a = [
            1.5,
            -0.0,
            0.0,
            f32::INFINITY,
            payload,
            1e-40,
            -3.0,
            f32::NAN,
        ];
        let b = [-2.25, 0.0, -0.0, f32::INFINITY, 2.0, 1e-39, payload, 0.0];
        for op in BinaryOp::ALL {
            let mut expected = binary(op, &f32s(&a), &f32s(&b)).unwrap();
            expected.canonicalize_nans();
            let bits = |t: &Tensor| match &t.data {
                Data::F32(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                _ => unreachable!(),
            };
            let mut lhs = f32s(&a);
            assert!(binary_in_place(op, &mut lhs, &f32s(&b), true).unwrap());
            assert_eq!(bits(&lhs), bits(&expected), "{op:?} into lhs");
            let mut rhs = f32s(&b);
            assert!(binary_in_place(op, &mut rhs, &f32s(&a), false).unwrap());
            assert_eq!(bits(&rhs), bits(&expected), "{op:?} into rhs");
        }
        let mut ints = i32s(&[1, 2]);
        assert!(!binary_in_place(BinaryOp::Add, &mut ints, &i32s(&[3, 4]), true).unwrap());
        assert_eq!(ints.data, Data::Signed(vec![1, 2]));
        assert!(
            binary_in_place(BinaryOp::Add, &mut f32s(&[1.0]), &f32s(&[1.0, 2.0]), true).is_err()
        );
    }

    fn i32s(v: &[i64]) -> Tensor {
        Tensor::new(
            ElementType::Signed(32),
            vec![v.len()],
            Data::Signed(v.to_vec()),
        )
        .unwrap()
    }

    #[test]
    fn float_arithmetic() {
        let a = f32s(&[1.0, -0.0, f32::NAN, 3.0]);
        let b = f32s(&[2.0, 0.0, 1.0, 0.0]);
        let sum = binary(BinaryOp::Add, &a, &b).unwrap();
        let Data::F32(s) = sum.data else { panic!() };
        assert_eq!((s[0], s[1].to_bits(), s[2].is_nan()), (3.0, 0, true));
        let Data::F32(q) = binary(BinaryOp::Divide, &a, &b).unwrap().data else {
            panic!()
        };
        assert_eq!(q[3], f32::INFINITY);
        let Data::F32(mx) = binary(BinaryOp::Maximum, &a, &b).unwrap().data else {
            panic!()
        };
        assert_eq!((mx[0], mx[1].to_bits(), mx[2].is_nan()), (2.0, 0, true));
        let Data::F32(mn) = binary(BinaryOp::Minimum, &a, &b).unwrap().data else {
            panic!()
        };
        assert_eq!((mn[0], mn[1].to_bits()), (1.0, (-0.0f32).to_bits()));
        assert!(binary(BinaryOp::Add, &a, &i32s(&[1, 2, 3, 4])).is_err());
    }

    #[test]
    fn half_arithmetic_rounds_once() {
        let b = |v: &[f32]| Tensor::new(ElementType::BF16, vec![v.len()], Data::F32(v.to_vec()));
        let sum = binary(
            BinaryOp::Add,
            &b(&[1.0]).unwrap(),
            &b(&[2f32.powi(-8)]).unwrap(),
        );
        assert_eq!(sum.unwrap().data, Data::F32(vec![1.0]));
        let three = b(&[3.0]).unwrap();
        let q = binary(BinaryOp::Divide, &b(&[1.0]).unwrap(), &three).unwrap();
        assert_eq!(q.data, Data::F32(vec![171.0 / 512.0]));
    }

    #[test]
    fn integer_arithmetic_wraps() {
        let a = i32s(&[i32::MAX as i64, 7, i32::MIN as i64, 5]);
        let b = i32s(&[1, 0, -1, -2]);
        let sum = binary(BinaryOp::Add, &a, &b).unwrap();
        assert_eq!(
            sum.data,
            Data::Signed(vec![i32::MIN as i64, 7, i32::MAX as i64, 3])
        );
        let q = binary(BinaryOp::Divide, &a, &b).unwrap();
        assert_eq!(
            q.data,
            Data::Signed(vec![i32::MAX as i64, -1, i32::MIN as i64, -2])
        );
        let n = unary(UnaryOp::Negate, &i32s(&[i32::MIN as i64, 3])).unwrap();
        assert_eq!(n.data, Data::Signed(vec![i32::MIN as i64, -3]));
        let a = unary(UnaryOp::Abs, &f32s(&[-0.0, -2.0])).unwrap();
        assert_eq!(a.data, Data::F32(vec![0.0, 2.0]));
    }

    #[test]
    fn compare_nan_and_total_order() {
        let a = f32s(&[f32::NAN, 1.0, -0.0]);
        let b = f32s(&[f32::NAN, 1.0, 0.0]);
        let eq = compare(Direction::Eq, None, &a, &b).unwrap();
        assert_eq!(eq.data, Data::Bool(vec![false, true, true]));
        let ne = compare(Direction::Ne, Some(CompareType::Float), &a, &b).unwrap();
        assert_eq!(ne.data, Data::Bool(vec![true, false, false]));
        let lt = compare(Direction::Lt, Some(CompareType::TotalOrder), &a, &b).unwrap();
        assert_eq!(lt.data, Data::Bool(vec![false, false, true]));
        let u = |v: &[u64]| {
            Tensor::new(
                ElementType::Unsigned(64),
                vec![2],
                Data::Unsigned(v.to_vec()),
            )
            .unwrap()
        };
        let ge = compare(Direction::Ge, None, &u(&[u64::MAX, 0]), &u(&[1, 1])).unwrap();
        assert_eq!(ge.data, Data::Bool(vec![true, false]));
    }

    #[test]
    fn select_scalar_and_elementwise() {
        let t = f32s(&[1.0, 2.0]);
        let f = f32s(&[3.0, 4.0]);
        let p = Tensor::new(ElementType::I1, vec![2], Data::Bool(vec![true, false])).unwrap();
        assert_eq!(select(&p, &t, &f).unwrap().data, Data::F32(vec![1.0, 4.0]));
        let p = Tensor::new(ElementType::I1, vec![], Data::Bool(vec![false])).unwrap();
        assert_eq!(select(&p, &t, &f).unwrap().data, Data::F32(vec![3.0, 4.0]));
    }

    fn c64s(v: &[[f32; 2]]) -> Tensor {
        Tensor::new(ElementType::Complex64, vec![v.len()], Data::C64(v.to_vec())).unwrap()
    }

    #[test]
    fn complex_elementwise() {
        let a = c64s(&[[1.5, 2.5], [7.5, 5.5], [0.0, 1.5]]);
        let b = c64s(&[[1.5, 2.5], [5.5, 7.5], [-0.0, 2.5]]);
        let p = binary(BinaryOp::Multiply, &a, &a).unwrap();
        assert_eq!(
            p.data,
            Data::C64(vec![[-4.0, 7.5], [26.0, 82.5], [-2.25, 0.0]])
        );
        let s = binary(BinaryOp::Subtract, &a, &b).unwrap();
        assert_eq!(
            s.data,
            Data::C64(vec![[0.0, 0.0], [2.0, -2.0], [0.0, -1.0]])
        );
        let mx = binary(BinaryOp::Maximum, &a, &b).unwrap();
        assert_eq!(
            mx.data,
            Data::C64(vec![[1.5, 2.5], [7.5, 5.5], [-0.0, 2.5]])
        );
        let mn = binary(BinaryOp::Minimum, &a, &b).unwrap();
        assert_eq!(mn.data, Data::C64(vec![[1.5, 2.5], [5.5, 7.5], [0.0, 1.5]]));
        let n = unary(UnaryOp::Negate, &a).unwrap();
        assert_eq!(n.element, ElementType::Complex64);
        let m = unary(UnaryOp::Abs, &c64s(&[[3.0, -4.0]])).unwrap();
        assert_eq!(
            (m.element, m.data),
            (ElementType::F32, Data::F32(vec![5.0]))
        );
        let eq = compare(Direction::Eq, None, &a, &b).unwrap();
        assert_eq!(eq.data, Data::Bool(vec![true, false, false]));
        let ne = compare(Direction::Ne, Some(CompareType::Float), &a, &b).unwrap();
        assert_eq!(ne.data, Data::Bool(vec![false, true, true]));
        assert!(compare(Direction::Lt, None, &a, &b).is_err());
        let nan = c64s(&[[f32::NAN, 0.0]]);
        let eq = compare(Direction::Eq, None, &nan, &nan).unwrap();
        assert_eq!(eq.data, Data::Bool(vec![false]));
        let p = Tensor::new(ElementType::I1, vec![], Data::Bool(vec![false])).unwrap();
        assert_eq!(select(&p, &a, &b).unwrap(), b);
        assert!(binary(BinaryOp::Add, &a, &f32s(&[1.0, 2.0, 3.0])).is_err());
    }

    #[test]
    fn complex_conversions() {
        let z = c64s(&[[-1.5, 2.0], [0.0, 1.0], [3.0, 0.0]]);
        let w = convert(&z, ElementType::Complex128).unwrap();
        assert_eq!(
            w.data,
            Data::C128(vec![[-1.5, 2.0], [0.0, 1.0], [3.0, 0.0]])
        );
        assert_eq!(convert(&w, ElementType::Complex64).unwrap(), z);
        let r = convert(&z, ElementType::F64).unwrap();
        assert_eq!(r.data, Data::F64(vec![-1.5, 0.0, 3.0]));
        let i = convert(&z, ElementType::Signed(32)).unwrap();
        assert_eq!(i.data, Data::Signed(vec![-1, 0, 3]));
        let b = convert(&z, ElementType::I1).unwrap();
        assert_eq!(b.data, Data::Bool(vec![true, false, true]));
        let c = convert(&i32s(&[-1, 7]), ElementType::Complex64).unwrap();
        assert_eq!(c.data, Data::C64(vec![[-1.0, 0.0], [7.0, 0.0]]));
        let h = Tensor::new(ElementType::F16, vec![1], Data::F32(vec![0.5])).unwrap();
        let c = convert(&h, ElementType::Complex128).unwrap();
        assert_eq!(c.data, Data::C128(vec![[0.5, 0.0]]));
    }

    #[test]
    fn convert_rounds_and_truncates() {
        let x = f32s(&[2.7, -2.7, -0.5]);
        let i = convert(&x, ElementType::Signed(32)).unwrap();
        assert_eq!(i.data, Data::Signed(vec![2, -2, 0]));
        // Out of range saturates, NaN gives 0 (see `to_integer`).
        let s = convert(&f32s(&[3e9, -3e9, f32::NAN]), ElementType::Signed(32)).unwrap();
        assert_eq!(
            s.data,
            Data::Signed(vec![i64::from(i32::MAX), i64::from(i32::MIN), 0])
        );
        let big = Tensor::new(
            ElementType::Signed(64),
            vec![1],
            Data::Signed(vec![16_777_217]),
        );
        let f = convert(&big.unwrap(), ElementType::F32).unwrap();
        assert_eq!(f.data, Data::F32(vec![16_777_216.0]));
        let d = Tensor::new(
            ElementType::F64,
            vec![1],
            Data::F64(vec![1.0 + 2f64.powi(-24)]),
        );
        let f = convert(&d.unwrap(), ElementType::F32).unwrap();
        assert_eq!(f.data, Data::F32(vec![1.0]));
        let h = convert(&f32s(&[1.0 + 2f32.powi(-11), 65520.0]), ElementType::F16).unwrap();
        assert_eq!(h.data, Data::F32(vec![1.0, f32::INFINITY]));
        let b = convert(&f32s(&[1.0 + 3.0 * 2f32.powi(-9)]), ElementType::BF16).unwrap();
        assert_eq!(b.data, Data::F32(vec![1.0078125]));
        // 2^60 + 2^52 + 1 rounds up in bf16 only if the +1 is not lost first.
        let big = (1i64 << 60) + (1i64 << 52) + 1;
        let big = Tensor::new(ElementType::Signed(64), vec![1], Data::Signed(vec![big]));
        let b = convert(&big.unwrap(), ElementType::BF16).unwrap();
        assert_eq!(
            b.data,
            Data::F32(vec![(1u64 << 60) as f32 + (1u64 << 53) as f32])
        );
        let w = convert(&i32s(&[300, -1]), ElementType::Unsigned(8)).unwrap();
        assert_eq!(w.data, Data::Unsigned(vec![44, 255]));
    }
}
