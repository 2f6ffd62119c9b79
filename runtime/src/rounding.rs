//! How ops round their `f16` and `bf16` results: to nearest (the default,
//! and what StableHLO specifies), or, for the rounding ensemble of a
//! mixed-precision check, directed or stochastically.
//!
//! A check compares a value that production computed with one the runtime
//! recomputed. Where the program computes in `f16` or `bf16`, two correct
//! implementations that sum in another order, fuse differently or keep
//! excess precision round to different neighbours now and then, and the
//! difference propagates; how far depends on the coordinate (an Adam update
//! of a near-zero gradient can flip sign). The runtime measures that
//! sensitivity directly: it replays the same program with every narrow
//! rounding perturbed ([`Rounding::Up`], [`Rounding::Down`],
//! [`Rounding::Stochastic`]) and the spread of the results around the
//! round-to-nearest one bounds the honest difference (`docs/protocol.md`,
//! the tolerance policy).
//!
//! # Invariants
//!
//! - Only results of ops held in `f32` for a narrow type (`f16`, `bf16`)
//!   are affected. `f32` and `f64` arithmetic, integer ops, constants
//!   parsed from the program and inputs are never perturbed, so a program
//!   without narrow floats gives the same bits in every mode.
//! - The mode is per thread and set only for the duration of
//!   [`with_rounding`], which restores the previous mode even when the
//!   closure panics. The interpreter rounds narrow results on its own
//!   thread (parallel kernels accumulate in `f32` and round afterwards), so
//!   the mode of the calling thread governs the whole run.
//! - [`Rounding::Stochastic`] is deterministic: whether a value rounds up
//!   is a hash of the seed and the value's bits, not of evaluation order or
//!   thread count, so every machine draws the same ensemble.

use std::cell::Cell;

use half::{bf16, f16};

use crate::value::ElementType;

/// The rounding of narrow (`f16`, `bf16`) op results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rounding {
    /// To nearest, ties to even: StableHLO's semantics.
    #[default]
    Nearest,
    /// Not at all: narrow results keep the `f32` value they were computed
    /// in, as an implementation with excess precision (one that fuses a
    /// chain of `bf16` ops without rounding between them) would.
    Wide,
    /// Toward +infinity (an inexact result takes its upper neighbour).
    Up,
    /// Toward -infinity (an inexact result takes its lower neighbour).
    Down,
    /// An inexact `x` between neighbours `lo < x < hi` takes `hi` when
    /// `unit(splitmix64(seed ^ bits(x))) < (x - lo) / (hi - lo)`, where
    /// `bits(x)` is the `f32` bit pattern and `unit(w) = (w >> 11) * 2^-53`.
    Stochastic(u64),
}

impl Rounding {
    /// Member `m` of the rounding ensemble that a mixed-precision check
    /// replays (`docs/protocol.md`): 0 is [`Rounding::Wide`], 1
    /// [`Rounding::Up`], 2 [`Rounding::Down`], and `m >= 3` is
    /// [`Rounding::Stochastic`] with seed `m - 2`.
    pub fn member(m: u64) -> Self {
        match m {
            0 => Self::Wide,
            1 => Self::Up,
            2 => Self::Down,
            m => Self::Stochastic(m - 2),
        }
    }
}

thread_local! {
    static MODE: Cell<Rounding> = const { Cell::new(Rounding::Nearest) };
}

/// Runs `f` with narrow results rounded by `mode` on this thread.
pub fn with_rounding<R>(mode: Rounding, f: impl FnOnce() -> R) -> R {
    struct Restore(Rounding);
    impl Drop for Restore {
        fn drop(&mut self) {
            MODE.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(MODE.with(|m| m.replace(mode)));
    f()
}

/// The mode of this thread.
pub fn current() -> Rounding {
    MODE.with(Cell::get)
}

/// `value` rounded to nearest in `element` (`f16` or `bf16`; the identity
/// for any other type), whatever the mode: for constants and inputs.
#[inline]
pub fn nearest(element: ElementType, value: f32) -> f32 {
    match element {
        ElementType::F16 => f16::from_f32(value).to_f32(),
        ElementType::BF16 => bf16::from_f32(value).to_f32(),
        _ => value,
    }
}

/// `value` rounded to `element` in this thread's mode: an op's result.
#[inline]
pub fn narrow(element: ElementType, value: f32) -> f32 {
    let near = nearest(element, value);
    match current() {
        Rounding::Nearest => near,
        mode => perturbed(element, value, near, mode),
    }
}

#[cold]
fn perturbed(element: ElementType, x: f32, near: f32, mode: Rounding) -> f32 {
    if near == x || x.is_nan() || !matches!(element, ElementType::F16 | ElementType::BF16) {
        return near;
    }
    // The other neighbour of x lies on x's side of `near`.
    let other = step(element, near, x > near);
    let (lo, hi) = if near < x {
        (near, other)
    } else {
        (other, near)
    };
    match mode {
        Rounding::Nearest => near,
        Rounding::Wide => x,
        Rounding::Up => hi,
        Rounding::Down => lo,
        Rounding::Stochastic(seed) => {
            let fraction = (f64::from(x) - f64::from(lo)) / (f64::from(hi) - f64::from(lo));
            let w = splitmix64(seed ^ u64::from(x.to_bits()));
            let unit = (w >> 11) as f64 * (-53f64).exp2();
            if unit < fraction {
                hi
            } else {
                lo
            }
        }
    }
}

/// The neighbour of the narrow value `v` toward +infinity (`up`) or
/// -infinity, in `element`.
fn step(element: ElementType, v: f32, up: bool) -> f32 {
    let (bits, to_f32): (u16, fn(u16) -> f32) = match element {
        ElementType::F16 => (f16::from_f32(v).to_bits(), |b| f16::from_bits(b).to_f32()),
        _ => (bf16::from_f32(v).to_bits(), |b| bf16::from_bits(b).to_f32()),
    };
    let magnitude = bits & 0x7fff;
    let negative = bits & 0x8000 != 0;
    let next = if magnitude == 0 {
        if up {
            0x0001
        } else {
            0x8001
        }
    } else if up != negative {
        bits + 1 // away from zero
    } else {
        bits - 1 // toward zero
    };
    to_f32(next)
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_PLUS: f32 = 1.0 + 3.0 / 512.0; // between bf16 1.0 and 1 + 2^-7, nearer the latter

    #[test]
    fn directed_modes_take_the_neighbours_of_inexact_values() {
        let b = ElementType::BF16;
        assert_eq!(narrow(b, ONE_PLUS), 1.0078125);
        assert_eq!(with_rounding(Rounding::Down, || narrow(b, ONE_PLUS)), 1.0);
        assert_eq!(
            with_rounding(Rounding::Up, || narrow(b, ONE_PLUS)),
            1.0078125
        );
        assert_eq!(
            with_rounding(Rounding::Down, || narrow(b, -ONE_PLUS)),
            -1.0078125
        );
        assert_eq!(with_rounding(Rounding::Up, || narrow(b, -ONE_PLUS)), -1.0);
        assert_eq!(
            with_rounding(Rounding::Wide, || narrow(b, ONE_PLUS)),
            ONE_PLUS
        );
        // Exact values and f32 results are never moved.
        assert_eq!(with_rounding(Rounding::Up, || narrow(b, 1.5)), 1.5);
        let f = ElementType::F32;
        assert_eq!(with_rounding(Rounding::Up, || narrow(f, 0.1)), 0.1);
        // f16 around zero: the smallest subnormals.
        let h = ElementType::F16;
        let tiny = 2f32.powi(-26);
        assert_eq!(
            with_rounding(Rounding::Up, || narrow(h, tiny)),
            2f32.powi(-24)
        );
        assert_eq!(
            with_rounding(Rounding::Down, || narrow(h, -tiny)),
            -(2f32.powi(-24))
        );
        assert_eq!(with_rounding(Rounding::Down, || narrow(h, tiny)), 0.0);
    }

    #[test]
    fn stochastic_rounding_is_deterministic_and_unbiased() {
        let b = ElementType::BF16;
        let values: Vec<f32> = (0..20_000).map(|i| 1.0 + (i as f32) * 1e-7).collect();
        let run = |seed| {
            with_rounding(Rounding::Stochastic(seed), || {
                values.iter().map(|&x| narrow(b, x)).collect::<Vec<_>>()
            })
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let mean_error: f64 = run(7)
            .iter()
            .zip(&values)
            .map(|(&r, &x)| f64::from(r) - f64::from(x))
            .sum::<f64>()
            / values.len() as f64;
        // Unbiased: the mean error is far below the 2^-8 spacing (nearest is biased here).
        assert!(mean_error.abs() < 1e-4, "{mean_error}");
    }

    #[test]
    fn the_mode_is_restored_after_a_panic() {
        let caught = std::panic::catch_unwind(|| {
            with_rounding(Rounding::Up, || panic!("inside"));
        });
        assert!(caught.is_err());
        assert_eq!(current(), Rounding::Nearest);
    }
}
