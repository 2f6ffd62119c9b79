//! Element-level helpers the op families share: index iteration, reading
//! and storing single elements, joining data, promotion, the comparisons of
//! `compare`/`sort` regions, and `Kernel`, a region's combiner as a typed
//! scalar function. Families import these from here, never from each other.

use super::{Combiner, CompareType, Direction};
use crate::value::{Data, ElementType, Tensor, ValueError};

pub(crate) fn mismatch(message: String) -> ValueError {
    ValueError::Mismatch(message)
}

pub(crate) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Calls `f` with every multi-index of `shape`, row-major.
pub(crate) fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0; shape.len()];
    loop {
        f(&index);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Like [`for_each_index`] with a fallible callback.
pub(crate) fn try_for_each_index<E>(
    shape: &[usize],
    mut f: impl FnMut(&[usize]) -> Result<(), E>,
) -> Result<(), E> {
    let mut result = Ok(());
    let mut failed = false;
    for_each_index(shape, |index| {
        if !failed {
            if let Err(error) = f(index) {
                result = Err(error);
                failed = true;
            }
        }
    });
    result
}

/// The elements of an integer tensor as `i64` (unsigned values above
/// `i64::MAX` saturate, which every index use clamps or rejects anyway).
pub(crate) fn index_values(t: &Tensor) -> Result<Vec<i64>, ValueError> {
    match &t.data {
        Data::Signed(v) => Ok(v.clone()),
        Data::Unsigned(v) => Ok(v
            .iter()
            .map(|&x| i64::try_from(x).unwrap_or(i64::MAX))
            .collect()),
        _ => Err(mismatch(format!(
            "expected an integer tensor, found {:?}",
            t.element
        ))),
    }
}

/// Element `i` of `t` as a rank-0 tensor.
pub(crate) fn scalar_at(t: &Tensor, i: usize) -> Result<Tensor, ValueError> {
    if i >= t.data.len() {
        return Err(mismatch(format!("element {i} outside {:?}", t.shape)));
    }
    Tensor::new(t.element, Vec::new(), t.data.gather(&[i]))
}

/// Stores the single element of `value` at `dst[i]`.
pub(crate) fn store(
    dst: &mut Data,
    element: ElementType,
    i: usize,
    value: &Tensor,
) -> Result<(), ValueError> {
    if value.element != element || value.data.len() != 1 || i >= dst.len() {
        return Err(mismatch(format!(
            "a region returned {:?}{:?} where a {element:?} scalar was expected",
            value.element, value.shape
        )));
    }
    match (dst, &value.data) {
        (Data::F64(d), Data::F64(s)) => d[i] = s[0],
        (Data::F32(d), Data::F32(s)) => d[i] = s[0],
        (Data::Bool(d), Data::Bool(s)) => d[i] = s[0],
        (Data::Signed(d), Data::Signed(s)) => d[i] = s[0],
        (Data::Unsigned(d), Data::Unsigned(s)) => d[i] = s[0],
        (Data::C64(d), Data::C64(s)) => d[i] = s[0],
        (Data::C128(d), Data::C128(s)) => d[i] = s[0],
        _ => return Err(mismatch("element class mismatch".to_owned())),
    }
    Ok(())
}

/// The elements of `parts` one after the other (all of one class).
pub(crate) fn join(parts: &[&Data]) -> Result<Data, ValueError> {
    fn cat<T: Copy>(parts: &[&Data], pick: impl Fn(&Data) -> Option<&Vec<T>>) -> Option<Vec<T>> {
        let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
        for part in parts {
            out.extend_from_slice(pick(part)?);
        }
        Some(out)
    }
    let first = parts
        .first()
        .ok_or_else(|| mismatch("nothing to join".to_owned()))?;
    let joined = match first {
        Data::F64(_) => cat(parts, |d| match d {
            Data::F64(v) => Some(v),
            _ => None,
        })
        .map(Data::F64),
        Data::F32(_) => cat(parts, |d| match d {
            Data::F32(v) => Some(v),
            _ => None,
        })
        .map(Data::F32),
        Data::Bool(_) => cat(parts, |d| match d {
            Data::Bool(v) => Some(v),
            _ => None,
        })
        .map(Data::Bool),
        Data::Signed(_) => cat(parts, |d| match d {
            Data::Signed(v) => Some(v),
            _ => None,
        })
        .map(Data::Signed),
        Data::Unsigned(_) => cat(parts, |d| match d {
            Data::Unsigned(v) => Some(v),
            _ => None,
        })
        .map(Data::Unsigned),
        Data::C64(_) => cat(parts, |d| match d {
            Data::C64(v) => Some(v),
            _ => None,
        })
        .map(Data::C64),
        Data::C128(_) => cat(parts, |d| match d {
            Data::C128(v) => Some(v),
            _ => None,
        })
        .map(Data::C128),
    };
    joined.ok_or_else(|| mismatch("operands of different element classes".to_owned()))
}

/// Converts `t` to `element` when it differs (promotable region types).
pub(crate) fn promote(t: &Tensor, element: ElementType) -> Result<Tensor, ValueError> {
    if t.element == element {
        Ok(t.clone())
    } else {
        super::convert(t, element)
    }
}

/// `compare(data[i], data[j])` exactly as `stablehlo.compare` decides it
/// (`None` when the element class has no such comparison).
pub(crate) fn compare_elements(
    direction: Direction,
    compare_type: Option<CompareType>,
    data: &Data,
    i: usize,
    j: usize,
) -> Option<bool> {
    use std::cmp::Ordering;
    let total = compare_type == Some(CompareType::TotalOrder);
    let ordering: Option<Ordering> = match data {
        Data::F64(v) => {
            let (x, y) = (v.get(i)?, v.get(j)?);
            if total {
                Some(x.total_cmp(y))
            } else {
                x.partial_cmp(y)
            }
        }
        Data::F32(v) => {
            let (x, y) = (v.get(i)?, v.get(j)?);
            if total {
                Some(x.total_cmp(y))
            } else {
                x.partial_cmp(y)
            }
        }
        Data::Bool(v) => Some(v.get(i)?.cmp(v.get(j)?)),
        Data::Signed(v) => Some(v.get(i)?.cmp(v.get(j)?)),
        Data::Unsigned(v) => Some(v.get(i)?.cmp(v.get(j)?)),
        // Complex numbers are only compared for (in)equality.
        Data::C64(v) if !total && matches!(direction, Direction::Eq | Direction::Ne) => {
            let (x, y) = (v.get(i)?, v.get(j)?);
            (x[0] == y[0] && x[1] == y[1]).then_some(Ordering::Equal)
        }
        Data::C128(v) if !total && matches!(direction, Direction::Eq | Direction::Ne) => {
            let (x, y) = (v.get(i)?, v.get(j)?);
            (x[0] == y[0] && x[1] == y[1]).then_some(Ordering::Equal)
        }
        Data::C64(_) | Data::C128(_) => return None,
    };
    Some(match (direction, ordering) {
        (Direction::Ne, None) => true,
        (_, None) => false,
        (Direction::Eq, Some(o)) => o == Ordering::Equal,
        (Direction::Ne, Some(o)) => o != Ordering::Equal,
        (Direction::Ge, Some(o)) => o != Ordering::Less,
        (Direction::Gt, Some(o)) => o == Ordering::Greater,
        (Direction::Le, Some(o)) => o != Ordering::Greater,
        (Direction::Lt, Some(o)) => o == Ordering::Less,
    })
}

/// A [`Combiner`] as a typed scalar function of one element class.
#[derive(Clone, Copy)]
pub(crate) enum Kernel {
    F64(fn(f64, f64) -> f64),
    F32(fn(f32, f32) -> f32, ElementType),
    Bool(fn(bool, bool) -> bool),
    Signed(fn(i64, i64) -> i64, ElementType),
    Unsigned(fn(u64, u64) -> u64, ElementType),
}

/// `maximum`/`minimum` of two floats exactly as `stablehlo.maximum` and
/// `stablehlo.minimum` compute them.
macro_rules! float_extreme {
    ($t:ty, $max:expr) => {
        |x: $t, y: $t| -> $t {
            let max: bool = $max;
            if x == y && x == 0.0 {
                if x.is_sign_negative() == max {
                    y
                } else {
                    x
                }
            } else if x.is_nan() {
                x
            } else if y.is_nan() {
                y
            } else if (x > y) == max {
                x
            } else {
                y
            }
        }
    };
}

macro_rules! float_kernel {
    ($t:ty, $c:expr) => {{
        let f: Option<fn($t, $t) -> $t> = match $c {
            Combiner::Add => Some(|x, y| x + y),
            Combiner::Multiply => Some(|x, y| x * y),
            Combiner::Maximum => Some(float_extreme!($t, true)),
            Combiner::Minimum => Some(float_extreme!($t, false)),
            Combiner::And | Combiner::Or | Combiner::Xor => None,
        };
        f
    }};
}

impl Kernel {
    /// The kernel of `combiner` on `element`, or `None` when the op is not
    /// defined there (the body then runs and reports the error).
    pub(crate) fn new(combiner: Combiner, element: ElementType) -> Option<Self> {
        Some(match element {
            ElementType::F64 => Kernel::F64(float_kernel!(f64, combiner)?),
            ElementType::F32 | ElementType::F16 | ElementType::BF16 => {
                Kernel::F32(float_kernel!(f32, combiner)?, element)
            }
            ElementType::I1 => Kernel::Bool(match combiner {
                Combiner::Add | Combiner::Maximum | Combiner::Or => |x, y| x | y,
                Combiner::Multiply | Combiner::Minimum | Combiner::And => |x, y| x & y,
                Combiner::Xor => |x, y| x ^ y,
            }),
            ElementType::Signed(_) => Kernel::Signed(
                match combiner {
                    Combiner::Add => |x: i64, y: i64| x.wrapping_add(y),
                    Combiner::Multiply => |x: i64, y: i64| x.wrapping_mul(y),
                    Combiner::Maximum => |x: i64, y: i64| x.max(y),
                    Combiner::Minimum => |x: i64, y: i64| x.min(y),
                    Combiner::And => |x, y| x & y,
                    Combiner::Or => |x, y| x | y,
                    Combiner::Xor => |x, y| x ^ y,
                },
                element,
            ),
            ElementType::Unsigned(_) => Kernel::Unsigned(
                match combiner {
                    Combiner::Add => |x: u64, y: u64| x.wrapping_add(y),
                    Combiner::Multiply => |x: u64, y: u64| x.wrapping_mul(y),
                    Combiner::Maximum => |x: u64, y: u64| x.max(y),
                    Combiner::Minimum => |x: u64, y: u64| x.min(y),
                    Combiner::And => |x, y| x & y,
                    Combiner::Or => |x, y| x | y,
                    Combiner::Xor => |x, y| x ^ y,
                },
                element,
            ),
            ElementType::Complex64 | ElementType::Complex128 => return None,
        })
    }

    /// `dst[d] = f(dst[d], src[s])` for each `(d, s)` in order; `false`
    /// (nothing changed) when the classes do not fit or an index is out of
    /// range.
    pub(crate) fn scatter(&self, dst: &mut Data, src: &Data, pairs: &[(usize, usize)]) -> bool {
        fn run<T: Copy>(
            dst: &mut [T],
            src: &[T],
            pairs: &[(usize, usize)],
            f: impl Fn(T, T) -> T,
        ) -> bool {
            if pairs.iter().any(|&(d, s)| d >= dst.len() || s >= src.len()) {
                return false;
            }
            for &(d, s) in pairs {
                dst[d] = f(dst[d], src[s]);
            }
            true
        }
        match (*self, dst, src) {
            (Kernel::F64(f), Data::F64(d), Data::F64(s)) => run(d, s, pairs, f),
            (Kernel::F32(f, e), Data::F32(d), Data::F32(s)) => {
                run(d, s, pairs, |a, b| e.round_f32(f(a, b)))
            }
            (Kernel::Bool(f), Data::Bool(d), Data::Bool(s)) => run(d, s, pairs, f),
            (Kernel::Signed(f, e), Data::Signed(d), Data::Signed(s)) => {
                run(d, s, pairs, |a, b| e.wrap_signed(f(a, b)))
            }
            (Kernel::Unsigned(f, e), Data::Unsigned(d), Data::Unsigned(s)) => {
                run(d, s, pairs, |a, b| e.wrap_unsigned(f(a, b)))
            }
            _ => false,
        }
    }
}
