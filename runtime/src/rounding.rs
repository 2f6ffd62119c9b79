//! The perturbation ensemble of a check: replays of the same program whose
//! rounding and inputs are moved within what an honest implementation could
//! produce, so that their spread measures how sensitive a challenged value
//! is to rounding.
//!
//! A check compares a value that production computed with one the runtime
//! recomputed. Two correct implementations sum in other orders, fuse
//! differently or keep excess precision, so they differ by rounding; how far
//! depends on the coordinate. Where a value is well conditioned they agree to
//! a few ulps; where it is not (an Adam update of a gradient that is zero in
//! exact arithmetic, such as the bias of a convolution followed by BatchNorm,
//! is pure rounding noise normalized to about the learning rate; a `bf16`
//! product rounds to another neighbour and the difference propagates) they
//! may differ by the value itself. No fixed `abs + rel * |x|` fits both.
//! The runtime measures the sensitivity instead: member `m` of the ensemble
//! ([`Rounding::member`], [`perturb_inputs`]) replays the program with
//!
//! - every float input moved by one ulp of its type, up or down by a hash of
//!   `(m, input, element)` ([`perturb_inputs`]);
//! - every `f32`/`f64` result of an op that computes floats moved by one ulp,
//!   up or down by a hash of `(m, value bits)` ([`perturb_result`]): what
//!   another summation order or fusion does to each intermediate value, and
//!   so, summed over many terms, to a result that cancels (a gradient that
//!   is zero in exact arithmetic is pure rounding noise of the size of its
//!   terms' ulps, which this reproduces and a perturbed result alone would
//!   not);
//! - every `f16`/`bf16` op result rounded in the member's mode instead of to
//!   nearest: not at all (excess precision), up, down, or stochastically;
//! - where production multiplied `f32` as TensorFloat-32 ([`with_matmul`],
//!   [`Matmul::Tf32`]), the `f32` operands of every product that is not
//!   `HIGHEST` rounded to 10 mantissa bits in the member's mode
//!   ([`matmul_operand`]): what an NVIDIA GPU's products differ by from
//!   exact ones.
//!
//! Zeros, infinities and NaNs are never moved (a zero is often structural:
//! a relu's, a mask's), and no member overflows where round-to-nearest does
//! not, or the other way: a narrow result that rounds to an infinity is that
//! infinity in every member (also [`Rounding::Wide`]), and no perturbation
//! turns a finite value into an infinity. An overflow is a decision, not a
//! rounding: float16 loss scaling skips the optimizer step where a gradient
//! overflowed, and members that saturated at the largest finite value, or
//! kept it in `f32`, took the step and gave every value of the state a
//! spread of a whole update.
//!
//! The largest distance of the members' results from the round-to-nearest
//! one is the value's *spread*; the tolerance policy (`docs/protocol.md`)
//! allows a multiple of it.
//!
//! # Invariants
//!
//! - Only results of ops held in `f32` for a narrow type (`f16`, `bf16`) are
//!   affected by a rounding mode. `f32` and `f64` arithmetic, integer ops,
//!   constants parsed from the program and inputs are never rounded
//!   otherwise.
//! - The mode is per thread and set only for the duration of
//!   [`with_rounding`], which restores the previous mode even when the
//!   closure panics. The interpreter rounds narrow results on its own
//!   thread (parallel kernels accumulate in `f32` and round afterwards), so
//!   the mode of the calling thread governs the whole run.
//! - Every perturbation is deterministic: a hash of the member, the value's
//!   bits or its position, never of evaluation order or thread count, so
//!   every machine draws the same ensemble.

use std::cell::Cell;

use half::{bf16, f16};
use rayon::prelude::*;

use crate::value::{Data, ElementType, Tensor};

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
    /// The rounding of member `m` of the perturbation ensemble
    /// (`docs/protocol.md`): 0 is [`Rounding::Wide`], 1
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

/// The precision a production backend gives an `f32` product whose
/// `precision_config` is not `HIGHEST` (`DEFAULT` or `HIGH`, or none): the
/// operands a perturbation ensemble's members round before a `dot_general`,
/// `dot` or `convolution` ([`matmul_operand`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Matmul {
    /// Exact `f32` products, as on a CPU: members do not round operands.
    #[default]
    F32,
    /// TensorFloat-32: the operands keep 10 of `f32`'s 23 mantissa bits, as
    /// XLA computes such a product on an NVIDIA GPU since Ampere. Member
    /// `m` rounds each operand element to it: to nearest, ties to even
    /// (`m = 0`), up (`m = 1`), down (`m = 2`), or stochastically
    /// (`m >= 3`: away from zero with the probability of its distance from
    /// the neighbour toward zero, drawn from a hash of `m - 2` and the
    /// value's bits; `docs/protocol.md`, section 5a, perturbation 4).
    Tf32,
}

thread_local! {
    static MODE: Cell<Rounding> = const { Cell::new(Rounding::Nearest) };
    static NOISE: Cell<Option<u64>> = const { Cell::new(None) };
    static MATMUL: Cell<Matmul> = const { Cell::new(Matmul::F32) };
}

/// Runs `f` with `matmul` as the production backend's precision of `f32`
/// products on this thread ([`Matmul`]): what the members of an ensemble
/// run inside `f` ([`with_member`]) round the operands of such products to.
/// The program as written (no member) is unaffected.
pub fn with_matmul<R>(matmul: Matmul, f: impl FnOnce() -> R) -> R {
    struct Restore(Matmul);
    impl Drop for Restore {
        fn drop(&mut self) {
            MATMUL.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(MATMUL.with(|m| m.replace(matmul)));
    f()
}

/// Whether this thread runs an ensemble member ([`with_member`]) that rounds
/// the `f32` operands of reduced-precision products ([`Matmul::Tf32`]).
pub fn rounds_products() -> bool {
    MATMUL.with(Cell::get) == Matmul::Tf32 && NOISE.with(Cell::get).is_some()
}

/// The operand of an `f32` product that may compute in reduced precision
/// (not `HIGHEST`), as this thread's ensemble member rounds it: a rounded
/// copy inside a member ([`with_member`]) under [`Matmul::Tf32`]
/// ([`with_matmul`]), `None` otherwise (and for any other element type).
/// Zeros, infinities and NaNs are kept; a value that would round to an
/// infinity keeps the finite neighbour.
pub fn matmul_operand(tensor: &Tensor) -> Option<Tensor> {
    if !rounds_products() {
        return None;
    }
    let (Data::F32(values), ElementType::F32) = (&tensor.data, tensor.element) else {
        return None;
    };
    let mode = current();
    let data = values.iter().map(|&x| tf32(x, mode)).collect();
    Some(Tensor {
        element: tensor.element,
        shape: tensor.shape.clone(),
        data: Data::F32(data),
    })
}

/// `x` rounded to TensorFloat-32 (10 mantissa bits) in member mode `mode`
/// ([`Matmul::Tf32`]; [`Rounding::Wide`] and [`Rounding::Nearest`] round to
/// nearest, ties to even).
fn tf32(x: f32, mode: Rounding) -> f32 {
    const DROPPED: u32 = 13;
    const LOW: u32 = (1 << DROPPED) - 1;
    let bits = x.to_bits();
    if !x.is_finite() || bits & LOW == 0 {
        return x;
    }
    // The neighbours toward zero (`toward`) and away from it (`away`).
    let toward = f32::from_bits(bits & !LOW);
    let away = f32::from_bits((bits & !LOW) + (1 << DROPPED));
    if away.is_infinite() {
        return toward;
    }
    let positive = x > 0.0;
    let take_away = match mode {
        Rounding::Up => positive,
        Rounding::Down => !positive,
        Rounding::Stochastic(seed) => {
            let fraction = f64::from(bits & LOW) / f64::from(LOW + 1);
            let w = splitmix64(seed ^ u64::from(bits) ^ 0x7466_3332);
            ((w >> 11) as f64 * (-53f64).exp2()) < fraction
        }
        Rounding::Nearest | Rounding::Wide => {
            let half = 1 << (DROPPED - 1);
            let low = bits & LOW;
            low > half || (low == half && (bits >> DROPPED) & 1 == 1)
        }
    };
    if take_away {
        away
    } else {
        toward
    }
}

/// Runs `f` with narrow results rounded by `mode` on this thread.
pub fn with_rounding<R>(mode: Rounding, f: impl FnOnce() -> R) -> R {
    with_state(mode, None, f)
}

/// Runs `f` as member `m` of the ensemble on this thread: narrow results
/// rounded by [`Rounding::member`]`(m)` and wide results moved by
/// [`perturb_result`] (the caller perturbs the inputs, [`perturb_inputs`]).
pub fn with_member<R>(m: u64, f: impl FnOnce() -> R) -> R {
    with_state(
        Rounding::member(m),
        Some(splitmix64(m ^ 0x006e_6f69_7365)),
        f,
    )
}

/// This thread's rounding state (mode and ensemble noise), for threads it
/// spawns to run part of the same program ([`with_state_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundingState(Rounding, Option<u64>, Matmul);

/// The rounding state of this thread.
pub fn state() -> RoundingState {
    RoundingState(
        MODE.with(Cell::get),
        NOISE.with(Cell::get),
        MATMUL.with(Cell::get),
    )
}

/// Runs `f` on this thread with the rounding state another thread had
/// ([`state`]): the processes of a grid (a manual computation's devices)
/// round and perturb as the run that started them does.
pub fn with_state_of<R>(state: RoundingState, f: impl FnOnce() -> R) -> R {
    with_matmul(state.2, || with_state(state.0, state.1, f))
}

fn with_state<R>(mode: Rounding, noise: Option<u64>, f: impl FnOnce() -> R) -> R {
    struct Restore(Rounding, Option<u64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            MODE.with(|m| m.set(self.0));
            NOISE.with(|n| n.set(self.1));
        }
    }
    let _restore = Restore(
        MODE.with(|m| m.replace(mode)),
        NOISE.with(|n| n.replace(noise)),
    );
    f()
}

/// Moves every finite non-integral element of an `f32` or `f64` op result
/// by one ulp, up when bit 63 of `splitmix64(key ^ bits(x))` is set, where
/// `key` is the running member's; the identity outside
/// [`with_member`] and for any other element type (narrow types were
/// already rounded in the member's mode). Integral values (zero included)
/// never move: an op whose exact result is an integer of this size rounds
/// to it in every correct implementation, and such values are counts,
/// sizes and indices (a torch export computes shapes in `f64`), where one
/// ulp would change the program, not its rounding.
pub fn perturb_result(tensor: &mut Tensor) {
    let Some(key) = NOISE.with(Cell::get) else {
        return;
    };
    match (&mut tensor.data, tensor.element) {
        (Data::F32(v), ElementType::F32) => each(v, |_, x| *x = moved_f32(key, *x)),
        (Data::F64(v), _) => each(v, |_, x| {
            if x.is_finite() && !integral_f64(*x) {
                *x = finite_or(next_f64(*x, splitmix64(key ^ x.to_bits()) >> 63 == 1), *x);
            }
        }),
        _ => {}
    }
}

/// [`perturb_result`] of one `f32` element, without branches (so that the
/// loop over a tensor vectorizes): `x` one ulp up when bit 63 of
/// `splitmix64(key ^ bits(x))` is set, else down, unless `x` is not finite,
/// is an integer, or would become infinite.
#[inline]
fn moved_f32(key: u64, x: f32) -> f32 {
    let bits = x.to_bits();
    let up = splitmix64(key ^ u64::from(bits)) >> 63 == 1;
    let toward = if up == (x > 0.0) { 1u32 } else { u32::MAX };
    let moved = f32::from_bits(bits.wrapping_add(toward));
    if x.is_finite() && !integral_f32(x) && moved.is_finite() {
        moved
    } else {
        x
    }
}

/// How many elements a perturbation pass gives one task: a tensor larger
/// than this is perturbed on rayon's pool, a chunk per task. Each element
/// moves by its own value and position alone, so the split changes no bit;
/// at GPT-2 small's size an ensemble member's optimizer step moves about
/// two billion elements, which one thread took longer to move than the
/// whole step took to compute.
const CHUNK: usize = 1 << 16;

/// `f(i, &mut v[i])` for every element, in chunks of [`CHUNK`] on rayon's
/// pool when `v` holds more than one chunk. `f` must read no thread-local
/// state: it may run on another thread than the caller's.
fn each<T: Send>(v: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
    if v.len() <= CHUNK {
        v.iter_mut().enumerate().for_each(|(i, x)| f(i, x));
        return;
    }
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
        let start = k * CHUNK;
        chunk
            .iter_mut()
            .enumerate()
            .for_each(|(i, x)| f(start + i, x));
    });
}

/// Whether a finite `x` is an integer: every `f32` from `2^23` up is, and
/// below that truncating to `i32` and back keeps exactly the integers. The
/// same answer as `x.fract() == 0.0`, without `truncf`, which the baseline
/// `x86-64` target calls as a function per element.
#[inline]
fn integral_f32(x: f32) -> bool {
    x.abs() >= 8_388_608.0 || (x as i32) as f32 == x
}

/// [`integral_f32`] for `f64`: every value from `2^52` up is an integer.
#[inline]
fn integral_f64(x: f64) -> bool {
    x.abs() >= 4_503_599_627_370_496.0 || (x as i64) as f64 == x
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
    if near == x
        || x.is_nan()
        || near.is_infinite()
        || !matches!(element, ElementType::F16 | ElementType::BF16)
    {
        return near;
    }
    // The other neighbour of x lies on x's side of `near`.
    let other = step(element, near, x > near);
    if other.is_infinite() {
        return near; // round-to-nearest keeps x finite: so does every member
    }
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

/// Moves every element of every float input by one ulp of its type, up
/// when bit 63 of `splitmix64(splitmix64(member) ^ (input << 40) ^
/// element)` is set and down otherwise (`input` and `element` are
/// positions, the latter row-major); zeros, infinities and NaNs stay.
/// Integer and boolean inputs are left as they are.
pub fn perturb_inputs(member: u64, inputs: &mut [Tensor]) {
    let key = splitmix64(member);
    for (input, tensor) in inputs.iter_mut().enumerate() {
        let up =
            |element: usize| splitmix64(key ^ ((input as u64) << 40) ^ element as u64) >> 63 == 1;
        let element_type = tensor.element;
        match &mut tensor.data {
            Data::F64(v) => each(v, |i, x| {
                if x.is_finite() && *x != 0.0 {
                    *x = finite_or(next_f64(*x, up(i)), *x);
                }
            }),
            Data::F32(v) => each(v, |i, x| {
                if x.is_finite() && *x != 0.0 {
                    let moved = match element_type {
                        ElementType::F16 | ElementType::BF16 => step(element_type, *x, up(i)),
                        _ => next_f32(*x, up(i)),
                    };
                    *x = finite_or(moved, *x);
                }
            }),
            _ => {}
        }
    }
}

/// `moved`, unless a perturbation made it infinite: then `x` (no member
/// overflows where the unperturbed value does not).
fn finite_or<T: Copy + Into<f64>>(moved: T, x: T) -> T {
    if moved.into().is_finite() {
        moved
    } else {
        x
    }
}

/// The neighbour of a finite non-zero `x` toward +infinity (`up`) or -infinity.
fn next_f32(x: f32, up: bool) -> f32 {
    let bits = x.to_bits();
    f32::from_bits(if up == (x > 0.0) { bits + 1 } else { bits - 1 })
}

fn next_f64(x: f64, up: bool) -> f64 {
    let bits = x.to_bits();
    f64::from_bits(if up == (x > 0.0) { bits + 1 } else { bits - 1 })
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
    fn no_member_overflows_otherwise_than_round_to_nearest() {
        let h = ElementType::F16;
        for mode in [
            Rounding::Wide,
            Rounding::Up,
            Rounding::Down,
            Rounding::Stochastic(1),
        ] {
            // Past the largest finite f16 (65504) by more than half an ulp: an
            // infinity in every member, as in round-to-nearest.
            assert_eq!(with_rounding(mode, || narrow(h, 66000.0)), f32::INFINITY);
            assert_eq!(with_rounding(mode, || narrow(h, -1e30)), f32::NEG_INFINITY);
            // Within half an ulp of it: finite in every member.
            assert_eq!(with_rounding(mode, || narrow(h, 65510.0)), 65504.0);
        }
        // Nor does a perturbed input or result become infinite.
        let finite = |t: &Tensor| match &t.data {
            Data::F32(v) => v.iter().all(|x| x.is_finite()),
            _ => false,
        };
        let largest = |element: ElementType, m: f32| {
            Tensor::new(element, vec![2], Data::F32(vec![m, -m])).unwrap()
        };
        let mut inputs = [largest(h, 65504.0), largest(ElementType::F32, f32::MAX)];
        for member in 0..8 {
            let mut moved = inputs.clone();
            perturb_inputs(member, &mut moved);
            assert!(moved.iter().all(finite), "member {member}");
        }
        for member in 0..8 {
            with_member(member, || perturb_result(&mut inputs[1]));
            assert!(finite(&inputs[1]), "member {member}");
        }
    }

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
    fn inputs_move_by_one_ulp_and_deterministically() {
        let make = || {
            vec![
                Tensor::new(
                    ElementType::F32,
                    vec![4],
                    Data::F32(vec![1.0, -2.0, 0.0, 3.5]),
                )
                .unwrap(),
                Tensor::new(ElementType::BF16, vec![2], Data::F32(vec![1.0, f32::NAN])).unwrap(),
                Tensor::new(ElementType::F64, vec![1], Data::F64(vec![0.1])).unwrap(),
                Tensor::new(ElementType::Unsigned(32), vec![1], Data::Unsigned(vec![7])).unwrap(),
            ]
        };
        let (mut a, mut b) = (make(), make());
        perturb_inputs(3, &mut a);
        perturb_inputs(3, &mut b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let Data::F32(f) = &a[0].data else { panic!() };
        for (moved, was) in f.iter().zip([1.0f32, -2.0, 0.0, 3.5]) {
            let ulps = (moved.to_bits() as i64 - was.to_bits() as i64).abs();
            assert_eq!(ulps, i64::from(was != 0.0), "{was} -> {moved}");
        }
        let Data::F32(h) = &a[1].data else { panic!() };
        assert!(h[0] == 1.0078125 || h[0] == 0.99609375, "{}", h[0]);
        assert!(h[1].is_nan());
        let Data::F64(d) = &a[2].data else { panic!() };
        assert_eq!((d[0].to_bits() as i64 - 0.1f64.to_bits() as i64).abs(), 1);
        assert_eq!(a[3].data, make()[3].data);
        // Another member moves some elements the other way.
        let mut c = make();
        let moved: Vec<_> = (0..64)
            .map(|m| {
                perturb_inputs(m, &mut c);
                let Data::F32(f) = &c[0].data else { panic!() };
                let r = f[0];
                c = make();
                r
            })
            .collect();
        assert!(moved.iter().any(|&x| x > 1.0) && moved.iter().any(|&x| x < 1.0));
    }

    #[test]
    fn tf32_members_round_product_operands_to_ten_mantissa_bits() {
        let x = 1.0f32 + 3.0 * f32::EPSILON; // 2^-21 above 1: between 1 and 1 + 2^-10
        let make = || {
            Tensor::new(
                ElementType::F32,
                vec![4],
                Data::F32(vec![x, -x, 0.0, f32::NAN]),
            )
        };
        let t = make().unwrap();
        // Outside a member, or under exact f32 products: no copy.
        assert!(with_matmul(Matmul::Tf32, || matmul_operand(&t)).is_none());
        assert!(with_member(1, || matmul_operand(&t)).is_none());
        let rounded = |m: u64| {
            let r = with_matmul(Matmul::Tf32, || with_member(m, || matmul_operand(&t)));
            let Data::F32(v) = r.expect("a member under tf32").data else {
                panic!()
            };
            v
        };
        let up = 1.0 + 2f32.powi(-10);
        assert_eq!(rounded(0)[..3], [1.0, -1.0, 0.0]); // to nearest
        assert_eq!(rounded(1)[..3], [up, -1.0, 0.0]); // toward +infinity
        assert_eq!(rounded(2)[..3], [1.0, -up, 0.0]); // toward -infinity
        assert!(rounded(0)[3].is_nan());
        // Stochastic members take either neighbour, deterministically.
        for m in 3..8 {
            let v = rounded(m);
            assert!([1.0, up].contains(&v[0]) && v[..3] == rounded(m)[..3]);
        }
        // Ties go to even.
        assert_eq!(tf32(1.0 + 2f32.powi(-11), Rounding::Nearest), 1.0);
        assert_eq!(
            tf32(up + 2f32.powi(-11), Rounding::Nearest),
            1.0 + 2f32.powi(-9)
        );
    }

    #[test]
    fn members_move_wide_results_by_one_ulp() {
        let make = || Tensor::new(ElementType::F32, vec![3], Data::F32(vec![1.5, 0.0, -3.0]));
        let mut t = make().unwrap();
        perturb_result(&mut t); // outside a member: unchanged
        assert_eq!(t.data, make().unwrap().data);
        let moved: Vec<Vec<f32>> = (0..16)
            .map(|m| {
                let mut t = make().unwrap();
                with_member(m, || perturb_result(&mut t));
                let Data::F32(v) = t.data else { panic!() };
                v
            })
            .collect();
        for v in &moved {
            // Integral values (zero included) never move.
            assert_eq!((v[1], v[2]), (0.0, -3.0));
            assert_eq!((v[0].to_bits() as i64 - 1.5f32.to_bits() as i64).abs(), 1);
        }
        assert!(moved.iter().any(|v| v[0] > 1.5) && moved.iter().any(|v| v[0] < 1.5));
        assert_eq!(current(), Rounding::Nearest);
    }

    #[test]
    fn the_integral_test_is_fract_s() {
        let mut values: Vec<f32> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.0 - f32::EPSILON / 2.0,
            8_388_607.5,
            8_388_608.0,
            -8_388_607.5,
            16_777_217.0,
            2_147_483_648.0,
            -2_147_483_904.0,
            3.0e38,
            f32::MIN_POSITIVE,
            1e-45,
        ];
        // Every 97th bit pattern of the finite floats.
        values.extend(
            (0..u32::MAX / 97)
                .map(|i| f32::from_bits(i * 97))
                .filter(|x| x.is_finite()),
        );
        for x in values {
            assert_eq!(integral_f32(x), x.fract() == 0.0, "{x:e}");
            assert_eq!(integral_f32(-x), (-x).fract() == 0.0, "{:e}", -x);
            let wide = f64::from(x) * 3.0 + 0.25;
            for y in [f64::from(x), wide, 4_503_599_627_370_495.5, 9.3e18, -9.3e18] {
                assert_eq!(integral_f64(y), y.fract() == 0.0, "{y:e}");
            }
        }
    }

    #[test]
    fn a_large_result_moves_as_element_by_element() {
        // More than one chunk: perturbed on rayon's pool, each element as alone.
        let n = 3 * CHUNK + 17;
        let values: Vec<f32> = (0..n).map(|i| (i as f32 - 1e5) * 0.37).collect();
        let mut t = Tensor::new(ElementType::F32, vec![n], Data::F32(values.clone())).unwrap();
        with_member(5, || perturb_result(&mut t));
        let Data::F32(moved) = t.data else { panic!() };
        let key = with_member(5, || NOISE.with(Cell::get)).unwrap();
        for (x, m) in values.iter().zip(&moved) {
            let expected = if x.fract() != 0.0 {
                next_f32(*x, splitmix64(key ^ u64::from(x.to_bits())) >> 63 == 1)
            } else {
                *x
            };
            assert_eq!(m.to_bits(), expected.to_bits());
        }
        // Inputs too: by position, the same in every chunk.
        let mut inputs =
            vec![Tensor::new(ElementType::F32, vec![n], Data::F32(values.clone())).unwrap()];
        perturb_inputs(2, &mut inputs);
        let Data::F32(moved) = &inputs[0].data else {
            panic!()
        };
        let key = splitmix64(2);
        for (i, (x, m)) in values.iter().zip(moved).enumerate() {
            let expected = if *x != 0.0 {
                next_f32(*x, splitmix64(key ^ i as u64) >> 63 == 1)
            } else {
                *x
            };
            assert_eq!(m.to_bits(), expected.to_bits(), "element {i}");
        }
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
