//! The arithmetic the products of `dot_general` and `convolution` run in:
//! [`Ring`], implemented once per accumulator type, and [`on_ring`], the one
//! dispatch from a pair of [`Data`] to the kernel instantiated at their
//! element type.
//!
//! Floats use plain IEEE `*` and `+` (never contracted into an FMA);
//! integers wrap (`i64`/`u64`, truncated to their width afterwards by the
//! caller); complex numbers multiply as `(ac - bd) + i(ad + bc)` in that
//! order; `i1` is the or of ands. Every impl is `#[inline(always)]`, so the
//! kernels compile to the bare operations.

use crate::value::Data;

/// The arithmetic of one accumulator type.
pub(super) trait Ring: Copy + Send + Sync {
    /// The additive identity, every sum's start.
    const ZERO: Self;
    /// The product of two elements.
    fn mul(self, other: Self) -> Self;
    /// The sum of two elements.
    fn add(self, other: Self) -> Self;
}

/// `impl Ring for $t` with `ZERO = $zero` and `mul`/`add` given as
/// closures over `(x, y)`.
macro_rules! ring {
    ($(#[$doc:meta])* $t:ty, $zero:expr, |$x:ident, $y:ident| $mul:expr, $add:expr) => {
        $(#[$doc])*
        impl Ring for $t {
            const ZERO: Self = $zero;
            #[inline(always)]
            fn mul(self, other: Self) -> Self {
                let ($x, $y) = (self, other);
                $mul
            }
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                let ($x, $y) = (self, other);
                $add
            }
        }
    };
}

ring!(f32, 0.0, |x, y| x * y, x + y);
ring!(f64, 0.0, |x, y| x * y, x + y);
ring!(i64, 0, |x, y| x.wrapping_mul(y), x.wrapping_add(y));
ring!(u64, 0, |x, y| x.wrapping_mul(y), x.wrapping_add(y));
ring!(
    /// `complex<f32>`: `(ac - bd) + i(ad + bc)` in `f32`, in that order.
    [f32; 2],
    [0.0, 0.0],
    |x, y| [x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]],
    [x[0] + y[0], x[1] + y[1]]
);
ring!(
    /// `complex<f64>`, as for `complex<f32>`.
    [f64; 2],
    [0.0, 0.0],
    |x, y| [x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]],
    [x[0] + y[0], x[1] + y[1]]
);
ring!(bool, false, |x, y| x & y, x | y);

/// A kernel generic over the accumulator type: what [`on_ring`] runs.
pub(super) trait RingKernel {
    /// The kernel's output for operands `a` and `b` of one element type.
    fn run<T: Ring>(&self, a: &[T], b: &[T]) -> Vec<T>;
}

/// `kernel` run on `a` and `b` at their common element type, `None` when
/// they do not hold the same [`Ring`] type (the operands of `dot_general`
/// and `convolution` are converted to the result's type first, so this is
/// the caller's error to report).
pub(super) fn on_ring(a: &Data, b: &Data, kernel: &impl RingKernel) -> Option<Data> {
    Some(match (a, b) {
        (Data::F32(a), Data::F32(b)) => Data::F32(kernel.run(a, b)),
        (Data::F64(a), Data::F64(b)) => Data::F64(kernel.run(a, b)),
        (Data::Signed(a), Data::Signed(b)) => Data::Signed(kernel.run(a, b)),
        (Data::Unsigned(a), Data::Unsigned(b)) => Data::Unsigned(kernel.run(a, b)),
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(kernel.run(a, b)),
        (Data::C64(a), Data::C64(b)) => Data::C64(kernel.run(a, b)),
        (Data::C128(a), Data::C128(b)) => Data::C128(kernel.run(a, b)),
        _ => return None,
    })
}
