//! The noise test, written once: whether the differences between a
//! replayed state and the prover's snapshot of it are rounding noise or
//! something more.
//!
//! The per-pair rule of [`crate::Tolerance`] bounds each difference alone.
//! Its bound holds room for the worst honest pair (a value whose rounding
//! the ensemble underestimates, a parameter whose `rel * |x|` is many of its
//! ulps), and a prover that knows the rule can spend that room on every
//! coordinate at every step: a drift in a direction of its choosing. Honest
//! differences are not like that. Most coordinates of a replayed state
//! differ from production's by nothing or by an ulp or two of their own
//! format (a different fusion, another order of a sum), and those that
//! differ more are the ones the perturbation ensemble sees moving. So the
//! noise test measures each difference in *noise units*,
//!
//! `z = |committed - recomputed| / max(ulp(committed), spread)`,
//!
//! where `ulp` is the spacing of the state's float format at the committed
//! value and `spread` the ensemble's measured spread of the value (0 when
//! none was measured), and asks for the root mean square of `z` over every
//! float value a comparison holds to stay at most [`NOISE_RMS`]. A prover
//! can then move a dense direction by about the rounding noise itself per
//! snapshot, not by the per-pair bound. The normative text is section 8a of
//! `docs/protocol.md`; the honest figures that set [`NOISE_RMS`] are in
//! `docs/soundness.md`.
//!
//! Non-finite pairs are not noise: the per-pair rule matches them bitwise,
//! and the noise test leaves them out. Integer leaves are compared exactly
//! by the per-pair rule and left out too.

use serde::{Deserialize, Serialize};
use zkdv_hashing::DType;

use crate::tolerance::{Outcome, ToleranceError};
use crate::{Precision, Tolerance};

/// The largest root mean square of a comparison's noise units (see the
/// module's text) that passes.
///
/// Honest replays of the model zoo (f32, bf16 and f16 programs) stay
/// below 1 (`docs/soundness.md`, "The noise test"); 2 leaves twice that.
pub const NOISE_RMS: f64 = 2.0;

/// The largest noise unit a single pair contributes to either statistic:
/// larger ones count as this. One pair that rounding moves far (an Adam
/// update whose gradient is rounding noise changes sign and so moves by
/// twice the learning rate) cannot then decide a comparison of many values
/// alone; it is an outlier of the per-pair rule (see [`outlier_allowance`]).
pub const CLIP: f64 = 32.0;

/// The noise units ([`noise_unit`], with the value's measured spread)
/// beyond which a value of a state comparison in a program that computes
/// in `f32` or wider is no longer weighed as rounding noise but counted as
/// an outlier, whatever its per-pair bound allows: at most
/// [`outlier_allowance`] of a comparison, [`leaf_outlier_allowance`] of a
/// leaf, and an auditor's ceiling.
///
/// The noise test spends a budget (a root mean square of [`NOISE_RMS`]),
/// and without this a prover spends it on a few coordinates of its choice,
/// each moved to its whole pair bound (`abs + rel * |x|`, a hundred ulps of
/// an `f32` parameter, clipped to [`CLIP`] units): two parameters a step of
/// a 13k-parameter MLP passed the test, the other values equal to the
/// replay. Honest `f32` replays stay within a few units of their spread
/// (the zoo's worst snapshots have a root mean square under 1); in a
/// narrower float a discrete flip moves a value by many units honestly, so
/// there the outlier rules already in force apply instead.
pub const FAR_UNITS: f64 = 8.0;

/// The share of a comparison's float values that may lie outside their
/// per-pair bound, as outliers (see [`outlier_allowance`]).
pub const OUTLIER_SHARE: f64 = 1e-4;

/// How many pairs of a state comparison of `values` float values may lie
/// outside their per-pair bound: `max(1, ceil(OUTLIER_SHARE * values))`.
/// Each such outlier must still be within its [`outlier_cap`], and no leaf
/// may hold more than its [`leaf_outlier_allowance`].
///
/// ```
/// use zkdv_protocol::noise::outlier_allowance;
/// assert_eq!(outlier_allowance(100), 1);
/// assert_eq!(outlier_allowance(1_000_000), 100);
/// ```
pub fn outlier_allowance(values: u64) -> u64 {
    ((values as f64 * OUTLIER_SHARE).ceil() as u64).max(1)
}

/// The share of one leaf's float values that may be outliers (see
/// [`leaf_outlier_allowance`]).
pub const LEAF_OUTLIER_SHARE: f64 = 1e-3;

/// The outliers any leaf may hold, whatever its size (see
/// [`leaf_outlier_allowance`]).
pub const LEAF_OUTLIERS_MIN: u64 = 2;

/// How many of the outliers of a state comparison ([`outlier_allowance`])
/// one leaf of `values` float values may hold:
/// `max(LEAF_OUTLIERS_MIN, ceil(LEAF_OUTLIER_SHARE * values))`.
///
/// Without it a tamper of one leaf would pass as flips. A miscompiled
/// update of one parameter moves most of its leaf's values by about the
/// same amount, which in a noisy narrow-float leaf lies within every
/// value's [`outlier_cap`], and the comparison's allowance, counted over
/// the whole state, is about a thousand values in a model of ten million:
/// a ResNet-18 under `bf16` autocast whose first convolution's update was
/// doubled at one step closed cleanly, with 1,074 outliers admitted (its
/// honest runs admit about twenty). Honest flips are rare in a leaf, but
/// they come a few at a time (a flipped activation moves a row of a
/// weight's gradient): an honest `bf16` decoder's audit met two in a
/// kernel of 2,048 values, hence the share ten times the comparison's and
/// the minimum of two.
///
/// ```
/// use zkdv_protocol::noise::leaf_outlier_allowance;
/// assert_eq!(leaf_outlier_allowance(576), 2);
/// assert_eq!(leaf_outlier_allowance(2_048), 3);
/// assert_eq!(leaf_outlier_allowance(589_824), 590);
/// ```
pub fn leaf_outlier_allowance(values: u64) -> u64 {
    ((values as f64 * LEAF_OUTLIER_SHARE).ceil() as u64).max(LEAF_OUTLIERS_MIN)
}

/// The largest difference an outlier of a state comparison may have: its
/// per-pair bound plus the larger of
///
/// - twice its replayed `update` (`|recomputed - start|`; a change of sign
///   of that update): a gradient that is rounding noise in exact
///   arithmetic, normalized by Adam to the learning rate, takes either sign
///   in two honest implementations;
/// - `tolerance.spread` times `leaf_spread`, the largest spread measured
///   over the value's leaf ([`leaf_spread`]), in a program that computes in
///   a float narrower than `f32` (0 otherwise, and when none was
///   measured): a discrete decision on a near tie (a ReLU's sign, a
///   max-pool's argmax) that two honest `bf16` implementations take
///   differently moves a gradient by a whole contribution, as the
///   ensemble's members show by flipping such decisions elsewhere in the
///   leaf, but which decision flips is chance, and no ensemble reproduces
///   every one. With 8 significant bits a value lies within an ulp of a
///   decision boundary 2^16 times more often than in `f32`, where a few
///   noisy values of a leaf (an Adam moment whose gradient is near zero)
///   would otherwise lend their spread to the quiet ones, and a small change
///   of many of them (a tampered gradient) would pass as flips.
///
/// ```
/// use zkdv_protocol::{noise::outlier_cap, Tolerance};
/// let t = Tolerance { abs: 1e-6, rel: 0.0, spread: 32.0, replays: 8 };
/// assert_eq!(outlier_cap(&t, 1.0, 0.0, 0.25, 0.0), 1e-6 + 0.5);
/// assert_eq!(outlier_cap(&t, 1.0, 0.0, 0.0, 0.5), 1e-6 + 16.0);
/// ```
pub fn outlier_cap(
    tolerance: &Tolerance,
    committed: f64,
    spread: f64,
    update: f64,
    leaf_spread: f64,
) -> f64 {
    tolerance.bound(committed, spread) + (2.0 * update).max(tolerance.spread * leaf_spread)
}

/// The spread that lends an outlier of a leaf its cap ([`outlier_cap`])
/// in a narrow-float program: the largest spread measured over the leaf's
/// values (0 for none).
///
/// ```
/// use zkdv_protocol::noise::leaf_spread;
/// assert_eq!(leaf_spread(&[0.0, 5.0, 1.0]), 5.0);
/// assert_eq!(leaf_spread(&[]), 0.0);
/// ```
pub fn leaf_spread(spread: &[f64]) -> f64 {
    spread.iter().fold(0.0, |m: f64, &x| m.max(x))
}

/// Whether a program of `precision` computes in a float narrower than
/// `f32`, where an outlier's cap has its leaf term ([`outlier_cap`]).
///
/// ```
/// use zkdv_protocol::{noise::flips_possible, Precision};
/// let p = |n: &str, k| Precision { narrowest: Some(n.into()), narrow_results: k };
/// assert!(flips_possible(&p("bf16", 12)));
/// assert!(!flips_possible(&p("f32", 0)));
/// ```
pub fn flips_possible(precision: &Precision) -> bool {
    precision.narrow_results > 0
}

/// A run of consecutive values of a state comparison that belong to one
/// leaf (see [`compare_state`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Group {
    /// How many values.
    pub len: usize,
    /// Whether they are floats (an integer value is never an outlier).
    pub float: bool,
    /// The leaf's largest coherent scale over the perturbation ensemble's
    /// members ([`member_scales`]): how far an honest implementation may
    /// scale the whole leaf. 0 when the ensemble was not measured.
    pub scale_spread: f64,
    /// How many consecutive values make one row of the leaf: the values
    /// that share its first index (a weight's output unit), `len` for a
    /// leaf of fewer than two dimensions. See [`row_spread`].
    pub row: usize,
    /// Whether the values are probe sketches (each a signed sum of a block
    /// of a leaf's coordinates) rather than the leaf's values themselves. A
    /// sketch value's rounding is that of its terms, which cancellation can
    /// leave far larger than the value and the rest of its row, so its
    /// absolute term is the tolerance's own; a state value's is scaled to
    /// its row ([`compare_state`]).
    pub sketch: bool,
}

impl Group {
    /// A run of `len` values, floats or not, whose ensemble was not
    /// measured, in one row.
    pub fn new(len: usize, float: bool) -> Group {
        Group {
            len,
            float,
            scale_spread: 0.0,
            row: len,
            sketch: false,
        }
    }

    /// This group, its values probe sketches ([`Group::sketch`]).
    ///
    /// ```
    /// use zkdv_protocol::noise::Group;
    /// assert!(Group::new(4, true).sketches().sketch);
    /// ```
    pub fn sketches(self) -> Group {
        Group {
            sketch: true,
            ..self
        }
    }

    /// The group of a leaf of `shape` (its values row-major), floats or
    /// not: its rows are the values that share the first index.
    ///
    /// ```
    /// use zkdv_protocol::noise::Group;
    /// assert_eq!(Group::of_shape(&[10, 1280], true).row, 1280);
    /// assert_eq!(Group::of_shape(&[64, 3, 7, 7], true).row, 147);
    /// assert_eq!(Group::of_shape(&[5], true).row, 5);
    /// assert_eq!(Group::of_shape(&[], false).len, 1);
    /// ```
    pub fn of_shape(shape: &[usize], float: bool) -> Group {
        let len = shape.iter().product();
        let row = match shape {
            [first, _, ..] if *first > 0 => len / first,
            _ => len,
        };
        Group {
            row,
            ..Group::new(len, float)
        }
    }
}

/// The share of its row's root-mean-square spread below which no value's
/// spread falls, in a program that computes in a narrow float (see
/// [`row_spread`]).
pub const ROW_SPREAD_SHARE: f64 = 1.0 / 16.0;

/// The spreads a narrow-float program's pairs are bounded with: each
/// value's measured spread, raised to [`ROW_SPREAD_SHARE`] of the root mean
/// square of the spreads of its row (`row` consecutive values; the last
/// row may be shorter) where it is below that. Non-finite spreads are kept
/// as they are and left out of the root mean square.
///
/// A row of a weight's gradient is the product of one unit's error signal
/// with the layer's inputs, summed over the batch, so the rounding that
/// moves one of its values moves the others too, each by its inputs'
/// share. The ensemble's eight members sample that motion in eight
/// directions, and a value whose inputs lie across all of them gets a
/// spread far below its row's, which another honest implementation need
/// not respect. Measured (`docs/soundness.md`): EfficientNet-B0 under
/// `bf16` autocast, step 1, the classifier's momentum buffer, whose rows
/// the production step and each member moved by 5-100% of their norm
/// alike; 41 values of one row lay beyond 32 times their own spread,
/// none beyond 32 times this floor. In an `f32` program the spreads are
/// used as measured.
///
/// ```
/// use zkdv_protocol::noise::row_spread;
/// // One row of four values: its root mean square spread is 2, so no
/// // value's spread is below 2 / 16.
/// let s = row_spread(&[4.0, 0.0, 0.0, 0.0], 4);
/// assert_eq!(s, vec![4.0, 0.125, 0.125, 0.125]);
/// // Two rows of two: each row on its own.
/// assert_eq!(row_spread(&[1.0, 1.0, 0.0, 0.0], 2), vec![1.0, 1.0, 0.0, 0.0]);
/// ```
pub fn row_spread(spread: &[f64], row: usize) -> Vec<f64> {
    let mut floored = spread.to_vec();
    for values in floored.chunks_mut(row.max(1)) {
        let (sum, n) = values
            .iter()
            .filter(|s| s.is_finite())
            .fold((0.0, 0usize), |(sum, n), s| (sum + s * s, n + 1));
        if n == 0 {
            continue;
        }
        let floor = ROW_SPREAD_SHARE * (sum / n as f64).sqrt();
        for s in values.iter_mut().filter(|s| s.is_finite()) {
            *s = s.max(floor);
        }
    }
    floored
}

/// `spread` with each group's rows floored ([`row_spread`]).
fn grouped_row_spread(spread: &[f64], groups: &[Group]) -> Vec<f64> {
    let mut out = Vec::with_capacity(spread.len());
    let mut at = 0;
    for group in groups {
        let end = (at + group.len).min(spread.len());
        if group.float {
            out.extend(row_spread(&spread[at..end], group.row));
        } else {
            out.extend_from_slice(&spread[at..end]);
        }
        at = end;
    }
    out
}

/// Each row's scale for its values' absolute term
/// ([`Tolerance::scaled_to`]): the largest magnitude of its finite
/// `replayed` values (0 for none), rows of `row` values ([`Group::row`]:
/// those that share a leading index; the last row may be shorter). Per row,
/// not per leaf: a leaf's rows may lie decades apart (an embedding's second
/// moments, common tokens against rare ones), and the largest would lend
/// the smallest an absolute term larger than themselves.
///
/// ```
/// use zkdv_protocol::noise::row_scales;
/// assert_eq!(row_scales(&[1.0, -3.0, 1e-7, f64::NAN, 2e-7], 2), vec![3.0, 1e-7, 2e-7]);
/// ```
pub fn row_scales(replayed: &[f64], row: usize) -> Vec<f64> {
    replayed
        .chunks(row.max(1))
        .map(|r| {
            r.iter()
                .filter(|x| x.is_finite())
                .fold(0.0, |m: f64, x| m.max(x.abs()))
        })
        .collect()
}

/// The outcome of a state comparison that admits outliers
/// ([`compare_state`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateOutcome {
    /// The pair that decides it: the first pair beyond its outlier cap (or
    /// not a float, or not finite), else, when there are more outliers than
    /// [`outlier_allowance`] admits, the first outlier, else the pair
    /// closest to its bound among the others.
    pub outcome: Outcome,
    /// The outliers admitted (0 when the comparison failed).
    pub outliers: u64,
    /// A leaf whose differences keep one direction ([`leaf_bias`]): when
    /// present the comparison failed, though every pair (`outcome`) is
    /// within its bound or an admitted outlier.
    pub bias: Option<LeafBias>,
    /// The scale of the deciding pair's row ([`row_scales`]) when it lowered
    /// the pair's absolute term: the pair was compared under
    /// `tolerance.scaled_to(scale)` ([`Tolerance::scaled_to`]). `None` when
    /// the pair was compared under the tolerance as given.
    pub scale: Option<f64>,
}

impl StateOutcome {
    /// Whether the comparison passed: its deciding pair agrees and no leaf
    /// is biased.
    pub fn passed(&self) -> bool {
        self.outcome.passed && self.bias.is_none()
    }
}

/// Compare a state: the committed and recomputed values of consecutive
/// leaves (`groups`, whose lengths sum to the values'), each pair within
/// the tolerance (with its measured `spread`, when given), except at most
/// [`outlier_allowance`] float outliers, at most [`leaf_outlier_allowance`]
/// of them in any one leaf, each within its [`outlier_cap`]
/// (with its leaf term when `flips`, the program computing in a narrow
/// float: [`flips_possible`]); `update` holds each value's replayed update
/// (`|recomputed - start|`). When `flips`, each pair's spread is first
/// raised to its row's floor ([`row_spread`]). Each float state value's
/// absolute term is at most `rel` times its row's scale ([`row_scales`] of
/// the recomputed values, [`Tolerance::scaled_to`]), as an audit compares a
/// snapshot: Adam's second moments (about `1e-7` in a small model) are
/// bounded in their own range, not by a fixed `abs` ten times their size.
/// A group of probe sketches ([`Group::sketch`]) keeps the tolerance's own.
/// `None` when there are no values.
///
/// ```
/// use zkdv_protocol::noise::{compare_state, Group};
/// use zkdv_protocol::Tolerance;
/// let t = Tolerance { abs: 1e-6, rel: 0.0, spread: 32.0, replays: 8 };
/// let groups = [Group::new(4, true)];
/// let spread = [0.0, 0.01, 0.01, 0.0]; // members moved the leaf by up to 0.01
/// let update = [0.0; 4];
/// let (before, after) = ([1.0, 2.0, 3.0, 4.0], [1.3, 2.0, 3.0, 4.0]);
/// // The first value flipped by 0.3: within 32 times the leaf's largest spread.
/// let r = compare_state(&t, &after, &before, Some(&spread), &update, &groups, true)?.unwrap();
/// assert!(r.outcome.passed && r.outliers == 1 && r.outcome.index == 1);
/// // Two such flips in four values are one too many.
/// let twice = [1.3, 2.0, 3.0, 4.3];
/// let r = compare_state(&t, &twice, &before, Some(&spread), &update, &groups, true)?.unwrap();
/// assert!(!r.outcome.passed);
/// // A state of 100,000 values admits ten outliers, but no more than two
/// // in a leaf of 1,000.
/// let groups = [Group::new(1_000, true), Group::new(99_000, true)];
/// let (spread, update) = (vec![0.01; 100_000], vec![0.0; 100_000]);
/// let before: Vec<f64> = (0..100_000).map(f64::from).collect();
/// let mut moved = before.clone();
/// for i in [0, 1, 2] {
///     moved[i] += 0.5; // beyond the bound 0.32, within the cap 0.64
/// }
/// let r = compare_state(&t, &moved, &before, Some(&spread), &update, &groups, true)?.unwrap();
/// assert!(!r.outcome.passed && r.outcome.index == 0);
/// moved[2] = before[2];
/// moved[5_000] += 0.5; // two in the first leaf, one in the second
/// let r = compare_state(&t, &moved, &before, Some(&spread), &update, &groups, true)?.unwrap();
/// assert!(r.outcome.passed && r.outliers == 3);
/// # Ok::<(), zkdv_protocol::ToleranceError>(())
/// ```
///
/// # Errors
///
/// [`ToleranceError`] when the slices (or the groups' lengths) differ in
/// length.
pub fn compare_state(
    tolerance: &Tolerance,
    committed: &[f64],
    recomputed: &[f64],
    spread: Option<&[f64]>,
    update: &[f64],
    groups: &[Group],
    flips: bool,
) -> Result<Option<StateOutcome>, ToleranceError> {
    let floored = bounded_spread(
        committed,
        &[recomputed.len(), update.len()],
        spread,
        groups,
        flips,
    )?;
    let values = groups
        .iter()
        .filter(|g| g.float)
        .map(|g| g.len as u64)
        .sum();
    // In a narrow-float program a pair's spread is at least a share of its
    // row's (`row_spread`); the bias test below keeps the measured spreads.
    let measured = spread;
    let spread = floored.as_deref().or(spread);
    // Each outcome with the scale its pair's absolute term was lowered to.
    type Scaled = (Outcome, Option<f64>);
    let mut worst: Option<Scaled> = None;
    let mut first_outlier: Option<Scaled> = None;
    let mut outliers = 0u64;
    let mut at = 0;
    let failed = |(outcome, scale): Scaled| {
        Ok(Some(StateOutcome {
            outcome,
            outliers: 0,
            bias: None,
            scale,
        }))
    };
    for group in groups {
        let range = at..at + group.len;
        let start = at;
        at += group.len;
        let leaf = match spread {
            Some(s) if flips => leaf_spread(&s[range.clone()]),
            _ => 0.0,
        };
        let scales = group_scales(group, &recomputed[range.clone()]);
        let row = group.row.max(1);
        let mut in_leaf: Option<(u64, Scaled)> = None;
        for index in range {
            let (c, r) = (committed[index], recomputed[index]);
            let s = spread.map_or(0.0, |s| s[index]);
            let (pair_tolerance, scale) = row_tolerance(tolerance, &scales, (index - start) / row);
            let pair_tolerance = &pair_tolerance;
            let outcome = pair_tolerance.pair(index, c, r, s);
            if outcome.passed {
                if worst.is_none_or(|(w, _)| outcome.margin > w.margin) {
                    worst = Some((outcome, scale));
                }
                continue;
            }
            let cap = outlier_cap(pair_tolerance, c, s, update[index], leaf);
            let admissible = group.float && c.is_finite() && r.is_finite() && (c - r).abs() <= cap;
            if !admissible {
                return failed((outcome, scale));
            }
            outliers += 1;
            first_outlier.get_or_insert((outcome, scale));
            let (count, _) = in_leaf.get_or_insert((0, (outcome, scale)));
            *count += 1;
        }
        if let Some((count, first)) = in_leaf {
            if count > leaf_outlier_allowance(group.len as u64) {
                return failed(first);
            }
        }
    }
    match (worst, first_outlier) {
        // Too many outliers, or nothing but outliers (no pair within its
        // bound to record): the first outlier fails the comparison.
        (worst, Some(outlier)) if outliers > outlier_allowance(values) || worst.is_none() => {
            failed(outlier)
        }
        (worst, _) => Ok(worst.map(|(outcome, scale)| {
            let bias = leaf_bias(tolerance, committed, recomputed, measured, groups, flips);
            StateOutcome {
                outcome,
                outliers: if bias.is_some() { 0 } else { outliers },
                bias,
                scale,
            }
        })),
    }
}

/// What [`compare_state`] and [`state_bounds`] start from: every slice of
/// `lens` (and the groups' lengths, and `spread` when given) as long as
/// `committed`, and the spreads the pairs are bounded with when they are
/// not the measured ones: with `flips`, each floored at its row's share
/// ([`row_spread`]).
fn bounded_spread(
    committed: &[f64],
    lens: &[usize],
    spread: Option<&[f64]>,
    groups: &[Group],
    flips: bool,
) -> Result<Option<Vec<f64>>, ToleranceError> {
    let grouped: usize = groups.iter().map(|g| g.len).sum();
    for &len in lens.iter().chain([&grouped]) {
        if len != committed.len() {
            return Err(ToleranceError::Values {
                committed: committed.len(),
                recomputed: len,
            });
        }
    }
    if let Some(s) = spread.filter(|s| s.len() != committed.len()) {
        return Err(ToleranceError::Spread {
            spread: s.len(),
            values: committed.len(),
        });
    }
    Ok(spread
        .filter(|_| flips)
        .map(|s| grouped_row_spread(s, groups)))
}

/// The row scales of `group`'s `recomputed` values that bound its pairs'
/// absolute terms ([`row_scales`]): none for a group that is not float or
/// holds probe sketches. A float state value's absolute term is at most
/// `rel` times its row's scale, as an audit compares a snapshot: the term
/// stands for rounding in the row's own range. A sketch value's rounding is
/// its terms'.
fn group_scales(group: &Group, recomputed: &[f64]) -> Vec<f64> {
    if group.float && !group.sketch {
        row_scales(recomputed, group.row)
    } else {
        Vec::new()
    }
}

/// The tolerance of a pair in row `row` of a float leaf whose rows have
/// `scales` ([`row_scales`]; none for a leaf that is not float): `tolerance`
/// scaled to the row, with the scale when that lowered its absolute term.
fn row_tolerance(tolerance: &Tolerance, scales: &[f64], row: usize) -> (Tolerance, Option<f64>) {
    match scales.get(row) {
        Some(&scale) if tolerance.scaled_to(scale).abs < tolerance.abs => {
            (tolerance.scaled_to(scale), Some(scale))
        }
        _ => (*tolerance, None),
    }
}

/// Each value's bound in [`compare_state`] (`|c - r|` may be at most that
/// much for the pair to pass on its own, before outliers and the bias
/// test): its tolerance scaled to its row ([`row_scales`]), with its spread
/// floored at its row's share when `flips` ([`row_spread`]); 0 for a
/// non-finite committed value. For diagnostics (where the bounds of an
/// honest run sit); the arguments as [`compare_state`] takes them.
///
/// ```
/// use zkdv_protocol::noise::{state_bounds, Group};
/// use zkdv_protocol::Tolerance;
/// let t = Tolerance::fixed(1e-6, 1e-5);
/// let groups = [Group::of_shape(&[2, 2], true)];
/// let (c, r) = ([1e-7, 2e-7, 1.0, 0.5], [1e-7, 2e-7, 1.0, 0.5]);
/// let bounds = state_bounds(&t, &c, &r, None, &groups, false)?;
/// // The first row's absolute term is 1e-5 times its largest value, 2e-7.
/// assert_eq!(bounds[0], 2e-12 + 1e-12);
/// assert_eq!(bounds[2], 1e-6 + 1e-5);
/// # Ok::<(), zkdv_protocol::ToleranceError>(())
/// ```
///
/// # Errors
///
/// [`ToleranceError`] when the slices (or the groups' lengths) differ in
/// length.
pub fn state_bounds(
    tolerance: &Tolerance,
    committed: &[f64],
    recomputed: &[f64],
    spread: Option<&[f64]>,
    groups: &[Group],
    flips: bool,
) -> Result<Vec<f64>, ToleranceError> {
    let floored = bounded_spread(committed, &[recomputed.len()], spread, groups, flips)?;
    let spread = floored.as_deref().or(spread);
    let mut bounds = Vec::with_capacity(committed.len());
    let mut at = 0;
    for group in groups {
        let range = at..at + group.len;
        let start = at;
        at += group.len;
        let scales = group_scales(group, &recomputed[range.clone()]);
        for index in range {
            let (t, _) = row_tolerance(tolerance, &scales, (index - start) / group.row.max(1));
            let c = committed[index];
            let s = spread.map_or(0.0, |s| s[index]);
            bounds.push(if c.is_finite() { t.bound(c, s) } else { 0.0 });
        }
    }
    Ok(bounds)
}

/// The smallest coherent relative scale of a leaf's values that the scale
/// test ([`leaf_bias`], [`BiasKind::Scale`]) refuses: ten times the default
/// tolerance's relative term. Honest `f32` replays of the model zoo's
/// well-conditioned models keep every leaf's scale below `2e-5`
/// (`docs/soundness.md`, "The leaf bias test"); where a model is not well
/// conditioned, the ensemble's own scales ([`Group::scale_spread`]) set the
/// limit.
pub const SCALE_FLOOR: f64 = 1e-4;

/// [`SCALE_FLOOR`] of a program that computes in a float narrower than
/// `f32` (`flips`): a quarter of a `bf16` ulp, relative. Its ensemble's
/// member scales ([`Group::scale_spread`]) set the limit of every honest
/// leaf of the model zoo's `bf16` entries (`docs/soundness.md`, "The leaf
/// bias test"); the floor keeps a coherent scale below a `bf16` rounding's
/// size from failing a leaf whose members happen to agree.
pub const NARROW_SCALE_FLOOR: f64 = 1e-3;

/// How many of its standard errors a leaf's scale must also exceed to be
/// refused: a leaf of a few noisy values has a large scale by chance.
pub const SCALE_SIGMAS: f64 = 8.0;

/// How many times the largest scale of an ensemble member
/// ([`Group::scale_spread`]) a leaf's scale must also exceed to be refused.
/// In efficientnet-b0 (f32, four images: BatchNorms over a few values per
/// channel amplify rounding coherently), honest leaves reached 1.08 times
/// their members' largest scale; a tampered update's scale is about a
/// hundred times theirs in the zoo's T5 and ViT (`docs/soundness.md`, "The
/// leaf bias test").
pub const SCALE_SPREAD: f64 = 8.0;

/// The smallest mean noise unit of a leaf that the mean test ([`leaf_bias`],
/// [`BiasKind::Mean`]) refuses. Honest replays of the model zoo keep every
/// leaf's mean below 0.15 (`docs/soundness.md`, "The leaf bias test").
pub const BIAS_FLOOR: f64 = 1.0;

/// How many standard errors of its mean (its units' root mean square over
/// the square root of their number) a leaf's mean noise unit must also
/// exceed to be refused.
pub const BIAS_SIGMAS: f64 = 4.0;

/// Which test found a leaf biased ([`leaf_bias`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BiasKind {
    /// The leaf's differences are a multiple of its replayed values:
    /// `value` is that multiple (`sum (c - r) r / sum r^2`).
    Scale,
    /// The leaf's differences keep one sign in noise units: `value` is
    /// their mean, each `(c - r) / spread` clipped to `[-CLIP, CLIP]`.
    Mean,
}

/// A leaf of a state comparison whose differences keep one direction, more
/// than rounding noise does ([`leaf_bias`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafBias {
    /// The leaf's position among the comparison's groups.
    pub leaf: u64,
    /// The test that refused it.
    pub kind: BiasKind,
    /// The statistic: a scale or a mean noise unit (see [`BiasKind`]).
    pub value: f64,
    /// The largest `|value|` the test admits for this leaf.
    pub limit: f64,
}

impl LeafBias {
    /// Whether the recorded figures refuse the leaf: `|value| > limit`,
    /// with a limit that is finite and non-negative.
    pub fn refuses(&self) -> bool {
        self.limit.is_finite() && self.limit >= 0.0 && self.value.abs() > self.limit
    }
}

/// The bias test of a state comparison, leaf by leaf. Per-pair bounds and
/// outlier caps hold each difference alone, and a tamper of one leaf at one
/// step can hide under them: an update scaled by `1.001` moves each value
/// of an `f32` leaf by about `1e-6`, the bound's absolute term, and a `bf16`
/// gradient scaled by `1.1` moves an AdamW moment by a few percent, inside
/// 32 times its spread. Such a tamper moves the whole leaf in one
/// direction, and honest differences do not. Two tests look for it, on
/// each float group:
///
/// - *scale*, under a tolerance with a perturbation ensemble, in an `f32`
///   program (`flips` false) or, when a spread was measured (its member
///   scales with it), in a narrow-float one: over the finite pairs with
///   `max(|c|, |r|)` above the tolerance's absolute term (below it the
///   bound holds no relative information), the least-squares multiple `k =
///   sum (c - r) r / sum r^2` of the replayed values that the differences
///   follow ([`leaf_scale`]), refused when `|k|` exceeds [`SCALE_FLOOR`]
///   ([`NARROW_SCALE_FLOOR`] with `flips`), [`SCALE_SIGMAS`] standard
///   errors of `k`, and [`SCALE_SPREAD`] times the largest scale of an
///   ensemble member ([`Group::scale_spread`]);
/// - *mean*, when a spread was measured: the mean noise unit `(c - r) / s`
///   over the pairs with `s > 0` (clipped to `[-CLIP, CLIP]`), refused
///   when it exceeds both [`BIAS_FLOOR`] and [`BIAS_SIGMAS`] standard
///   errors of the mean.
///
/// Each needs at least two pairs. Returns the refused leaf whose `|value| /
/// limit` is largest, `None` when no leaf is refused. The normative text is
/// section 8a of `docs/protocol.md`.
///
/// ```
/// use zkdv_protocol::noise::{leaf_bias, BiasKind, Group};
/// use zkdv_protocol::Tolerance;
/// let t = Tolerance { abs: 1e-6, rel: 1e-5, spread: 32.0, replays: 8 };
/// let mut groups = [Group::new(1_000, true)];
/// let honest: Vec<f64> = (0..1_000).map(|i| 1e-3 * ((i % 7) as f64 - 3.0)).collect();
/// // Rounding noise: no direction.
/// let noisy: Vec<f64> = honest.iter().enumerate().map(|(i, x)| x + 1e-10 * (i % 3) as f64 - 1e-10).collect();
/// assert_eq!(leaf_bias(&t, &noisy, &honest, None, &groups, false), None);
/// // Every value 1.001 times the replay's: a scale of 1e-3.
/// let scaled: Vec<f64> = honest.iter().map(|x| x * 1.001).collect();
/// let bias = leaf_bias(&t, &scaled, &honest, None, &groups, false).unwrap();
/// assert_eq!(bias.kind, BiasKind::Scale);
/// assert!((bias.value - 1e-3).abs() < 1e-9 && bias.refuses());
/// // Unless the ensemble's members scale the leaf by a fifth of that.
/// groups[0].scale_spread = 2e-4;
/// assert_eq!(leaf_bias(&t, &scaled, &honest, None, &groups, false), None);
/// // Two spreads each way at random is noise; two spreads one way is not.
/// let spread = vec![1e-6; 1_000];
/// let shifted: Vec<f64> = honest.iter().map(|x| x + 2e-6).collect();
/// let bias = leaf_bias(&t, &shifted, &honest, Some(&spread), &groups, true).unwrap();
/// assert!(bias.kind == BiasKind::Mean && (bias.value - 2.0).abs() < 1e-6);
/// let both: Vec<f64> = honest.iter().enumerate().map(|(i, x)| x + if i % 2 == 0 { 2e-6 } else { -2e-6 }).collect();
/// assert_eq!(leaf_bias(&t, &both, &honest, Some(&spread), &groups, true), None);
/// ```
pub fn leaf_bias(
    tolerance: &Tolerance,
    committed: &[f64],
    recomputed: &[f64],
    spread: Option<&[f64]>,
    groups: &[Group],
    flips: bool,
) -> Option<LeafBias> {
    leaf_statistics(tolerance, committed, recomputed, spread, groups, flips)
        .into_iter()
        .filter(LeafBias::refuses)
        .reduce(|worst, b| {
            let ratio = |x: &LeafBias| x.value.abs() / x.limit;
            if ratio(&b) > ratio(&worst) {
                b
            } else {
                worst
            }
        })
}

/// Every statistic of [`leaf_bias`]'s tests, refused or not: for each float
/// group in order, its scale (when the test applies) then its mean (when a
/// spread was given), each with its limit. What a diagnostic reports of an
/// honest run's room (`python -m zoo.footprint`); a checker needs only
/// [`leaf_bias`].
///
/// ```
/// use zkdv_protocol::noise::{leaf_statistics, BiasKind, Group};
/// use zkdv_protocol::Tolerance;
/// let t = Tolerance { abs: 1e-6, rel: 1e-5, spread: 32.0, replays: 8 };
/// let groups = [Group::new(3, true), Group::new(1, false)];
/// let stats = leaf_statistics(&t, &[1.00001, 2.00002, 3.0, 7.0], &[1.0, 2.0, 3.0, 7.0], None, &groups, false);
/// assert_eq!(stats.len(), 1);
/// assert!(stats[0].kind == BiasKind::Scale && stats[0].leaf == 0 && !stats[0].refuses());
/// ```
pub fn leaf_statistics(
    tolerance: &Tolerance,
    committed: &[f64],
    recomputed: &[f64],
    spread: Option<&[f64]>,
    groups: &[Group],
    flips: bool,
) -> Vec<LeafBias> {
    // A narrow-float program's leaves scale with their rounding: only its
    // ensemble's member scales, measured with its spread, can say how far.
    let scale = tolerance.replays > 0 && (!flips || spread.is_some());
    let floor = if flips {
        NARROW_SCALE_FLOOR
    } else {
        SCALE_FLOOR
    };
    let mut statistics = Vec::new();
    let mut at = 0;
    for (leaf, group) in groups.iter().enumerate() {
        let range = at..(at + group.len).min(committed.len()).min(recomputed.len());
        at += group.len;
        if !group.float {
            continue;
        }
        let (c, r) = (&committed[range.clone()], &recomputed[range.clone()]);
        let s = spread.and_then(|s| s.get(range));
        let scaled = scale.then(|| leaf_scale(tolerance, c, r)).flatten();
        let tests = [
            scaled.map(|(k, standard_error)| {
                let limit = floor
                    .max(SCALE_SIGMAS * standard_error)
                    .max(SCALE_SPREAD * group.scale_spread);
                (BiasKind::Scale, k, limit)
            }),
            s.and_then(|s| mean_test(c, r, s))
                .map(|(mean, limit)| (BiasKind::Mean, mean, limit)),
        ];
        statistics.extend(
            tests
                .into_iter()
                .flatten()
                .map(|(kind, value, limit)| LeafBias {
                    leaf: leaf as u64,
                    kind,
                    value,
                    limit,
                }),
        );
    }
    statistics
}

/// The scale of one leaf's `committed` values against its `recomputed` ones,
/// `(k, standard error of k)`: the least-squares `k` in `c - r = k r`, over
/// the finite pairs with `max(|c|, |r|) > tolerance.abs`; `None` for fewer
/// than two such pairs or replayed values that are all zero.
///
/// ```
/// use zkdv_protocol::{noise::leaf_scale, Tolerance};
/// let t = Tolerance::fixed(1e-6, 1e-5);
/// let (k, _) = leaf_scale(&t, &[1.01, -2.02, 1e-9], &[1.0, -2.0, 0.0]).unwrap();
/// assert!((k - 0.01).abs() < 1e-12);
/// assert_eq!(leaf_scale(&t, &[1e-9, 3e-9], &[2e-9, 1e-9]), None);
/// ```
pub fn leaf_scale(
    tolerance: &Tolerance,
    committed: &[f64],
    recomputed: &[f64],
) -> Option<(f64, f64)> {
    let pairs = || {
        committed
            .iter()
            .zip(recomputed)
            .filter(|(c, r)| c.is_finite() && r.is_finite() && c.abs().max(r.abs()) > tolerance.abs)
    };
    let (mut rr, mut dr, mut n) = (0.0, 0.0, 0u64);
    for (&c, &r) in pairs() {
        rr += r * r;
        dr += (c - r) * r;
        n += 1;
    }
    if n < 2 || rr == 0.0 || !rr.is_finite() {
        return None;
    }
    let k = dr / rr;
    let residual: f64 = pairs().map(|(&c, &r)| (c - r - k * r).powi(2)).sum();
    Some((k, (residual / (n - 1) as f64 / rr).sqrt()))
}

/// Each group's scale for one member of the perturbation ensemble: `|k|`
/// of [`leaf_scale`] with the member's values in place of the committed
/// ones (0 where there is none). A checker keeps the largest over the
/// members as each group's [`Group::scale_spread`].
///
/// ```
/// use zkdv_protocol::noise::{member_scales, Group};
/// use zkdv_protocol::Tolerance;
/// let t = Tolerance::fixed(1e-6, 1e-5);
/// let groups = [Group::new(2, true), Group::new(2, false)];
/// let scales = member_scales(&t, &groups, &[1.0, 2.0, 3.0, 4.0], &[0.98, 1.96, 3.0, 5.0]);
/// assert!((scales[0] - 0.02).abs() < 1e-12 && scales[1] == 0.0);
/// ```
pub fn member_scales(
    tolerance: &Tolerance,
    groups: &[Group],
    nominal: &[f64],
    member: &[f64],
) -> Vec<f64> {
    let mut at = 0;
    groups
        .iter()
        .map(|group| {
            let range = at..(at + group.len).min(nominal.len()).min(member.len());
            at += group.len;
            if !group.float {
                return 0.0;
            }
            leaf_scale(tolerance, &member[range.clone()], &nominal[range])
                .map_or(0.0, |(k, _)| k.abs())
        })
        .collect()
}

/// A state comparison's perturbation ensemble as a check measured it
/// ([`measure_state_ensemble`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Ensemble {
    /// Each value's spread over the members measured.
    pub spread: Vec<f64>,
    /// Each group's largest member scale over them ([`member_scales`]):
    /// its [`Group::scale_spread`].
    pub scales: Vec<f64>,
    /// How many members were measured: `1..=replays` (0 without an
    /// ensemble).
    pub members: u64,
}

/// What a check compares a state's ensemble against
/// ([`measure_state_ensemble`]): the committed values and each value's
/// replayed update, as [`compare_state`] takes them.
#[derive(Debug, Clone, Copy)]
pub struct Compared<'a> {
    /// The committed values.
    pub committed: &'a [f64],
    /// Each value's replayed update (`|recomputed - start|`).
    pub update: &'a [f64],
    /// Whether the program computes in a narrow float ([`flips_possible`]).
    pub flips: bool,
}

/// Measure the perturbation ensemble of a state comparison's `nominal`
/// (recomputed) values in `groups`: each value's spread
/// ([`Tolerance::measure_spread`]) and each group's largest member scale
/// ([`member_scales`]). Without `compared`, over every member. With it, as
/// a check measures it: member by member, stopping at the first at which
/// [`compare_state`] passes outright with the spreads and scales measured
/// so far, every pair within its bound and no outlier admitted (the whole
/// ensemble when none does; then the comparison may admit outliers, as it
/// always could).
///
/// Stopping there never fails a state that the whole ensemble passes, and
/// passes no state that every pair's bound, outlier cap and the scale
/// test refuse under the whole ensemble: each of those only grows with
/// the spreads and member scales, which only grow with the members. The
/// mean test ([`leaf_bias`], [`BiasKind::Mean`]) divides each difference
/// by its own spread and is not monotone in them; a pass under the first
/// members is a pass of its test under those members' spreads, which are
/// smaller and so make a leaf's one-way shift larger in noise units
/// (`docs/protocol.md` section 8a).
///
/// ```
/// use zkdv_protocol::noise::{measure_state_ensemble, Compared, Group};
/// use zkdv_protocol::{Tolerance, ToleranceError};
/// let t = Tolerance { abs: 1e-6, rel: 0.0, spread: 32.0, replays: 8 };
/// let groups = [Group::new(2, true)];
/// let nominal = [1.0, 2.0];
/// // Member m moves the first value by (m + 1) * 1e-4: the committed value,
/// // 5e-3 away, is within 32 spreads from the second member on.
/// let member = |m: u64| Ok::<_, ToleranceError>(vec![1.0 + (m + 1) as f64 * 1e-4, 2.0]);
/// let compared = Compared { committed: &[1.005, 2.0], update: &[0.0; 2], flips: false };
/// let e = measure_state_ensemble(&t, &nominal, &groups, Some(compared), member)?;
/// assert_eq!(e.members, 2);
/// assert!((e.spread[0] - 2e-4).abs() < 1e-12);
/// let all = measure_state_ensemble(&t, &nominal, &groups, None, member)?;
/// assert_eq!(all.members, 8);
/// # Ok::<(), ToleranceError>(())
/// ```
///
/// # Errors
///
/// The first error of `member`, or (through `E: From<ToleranceError>`)
/// [`ToleranceError`] when a member or `compared` holds another number of
/// values than `nominal`, or the groups' lengths do not sum to it.
pub fn measure_state_ensemble<V, E>(
    tolerance: &Tolerance,
    nominal: &[f64],
    groups: &[Group],
    compared: Option<Compared<'_>>,
    member: impl FnMut(u64) -> Result<V, E>,
) -> Result<Ensemble, E>
where
    V: AsRef<[f64]>,
    E: From<ToleranceError>,
{
    let mut scales = vec![0.0f64; groups.len()];
    let (spread, members) = tolerance.measure_spread_until(nominal, member, |spread, values| {
        for (s, k) in scales
            .iter_mut()
            .zip(member_scales(tolerance, groups, nominal, values))
        {
            *s = s.max(k);
        }
        let Some(compared) = compared else {
            return Ok(false);
        };
        let measured: Vec<Group> = groups
            .iter()
            .zip(&scales)
            .map(|(g, &scale_spread)| Group { scale_spread, ..*g })
            .collect();
        let outcome = compare_state(
            tolerance,
            compared.committed,
            nominal,
            Some(spread),
            compared.update,
            &measured,
            compared.flips,
        )?;
        // A stop needs the comparison to pass outright: a pair outside the
        // bound of the first members, admitted as an outlier, may be inside
        // the whole ensemble's, and an outlier the record counts should be a
        // flip, not a spread measured short.
        Ok(outcome.is_none_or(|o| o.passed() && o.outliers == 0))
    })?;
    Ok(Ensemble {
        spread,
        scales,
        members,
    })
}

/// The mean test's `(mean, limit)` over the finite pairs of one leaf with a
/// positive spread; `None` for fewer than two of them.
fn mean_test(committed: &[f64], recomputed: &[f64], spread: &[f64]) -> Option<(f64, f64)> {
    let (mut sum, mut squares, mut n) = (0.0, 0.0, 0u64);
    for ((&c, &r), &s) in committed.iter().zip(recomputed).zip(spread) {
        if c.is_finite() && r.is_finite() && s > 0.0 {
            let z = ((c - r) / s).clamp(-CLIP, CLIP);
            sum += z;
            squares += z * z;
            n += 1;
        }
    }
    if n < 2 {
        return None;
    }
    let n = n as f64;
    let rms = (squares / n).sqrt();
    Some((sum / n, BIAS_FLOOR.max(BIAS_SIGMAS * rms / n.sqrt())))
}

/// The spacing of the floats of `dtype` at `value`: the ulp of a normal
/// value, the subnormal spacing near zero; `None` for an integer type.
///
/// ```
/// use zkdv_hashing::DType;
/// use zkdv_protocol::noise::ulp;
/// assert_eq!(ulp(DType::F32, 1.0), Some(f64::powi(2.0, -23)));
/// assert_eq!(ulp(DType::BF16, -3.0), Some(f64::powi(2.0, -6)));
/// assert_eq!(ulp(DType::F16, 0.0), Some(f64::powi(2.0, -24)));
/// assert_eq!(ulp(DType::I32, 1.0), None);
/// ```
pub fn ulp(dtype: DType, value: f64) -> Option<f64> {
    // (significand bits with the implicit one, smallest normal exponent)
    let (bits, min_exponent) = match dtype {
        DType::F64 => (53, -1022),
        DType::F32 => (24, -126),
        DType::BF16 => (8, -126),
        DType::F16 => (11, -14),
        _ => return None,
    };
    let exponent = if value == 0.0 || !value.is_finite() {
        min_exponent
    } else {
        (value.abs().log2().floor() as i32).max(min_exponent)
    };
    Some(2f64.powi(exponent - (bits - 1)))
}

/// The signed noise unit of a pair: `(committed - recomputed) /
/// max(ulp(committed), spread)`, clipped to `[-CLIP, CLIP]`; `None` for a
/// non-finite pair or an integer type, which the noise test leaves out.
///
/// ```
/// use zkdv_hashing::DType;
/// use zkdv_protocol::noise::noise_unit;
/// assert_eq!(noise_unit(DType::F32, 1.0, 1.0 - f64::powi(2.0, -22), 0.0), Some(2.0));
/// assert_eq!(noise_unit(DType::F32, 1.0, 1.5, 0.25), Some(-2.0));
/// assert_eq!(noise_unit(DType::F32, 1.0, 2.0, 0.0), Some(-32.0)); // clipped
/// assert_eq!(noise_unit(DType::F32, f64::INFINITY, f64::INFINITY, 0.0), None);
/// ```
pub fn noise_unit(dtype: DType, committed: f64, recomputed: f64, spread: f64) -> Option<f64> {
    if !(committed.is_finite() && recomputed.is_finite()) {
        return None;
    }
    let unit = ulp(dtype, committed)?;
    let z = (committed - recomputed) / unit.max(spread);
    Some(z.clamp(-CLIP, CLIP))
}

/// A running account of a comparison's noise units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Residuals {
    /// Float values accounted for.
    pub values: u64,
    /// The sum of their squared noise units.
    pub sum_squares: f64,
    /// The largest noise unit among them.
    pub largest: f64,
}

impl Residuals {
    /// Account for the pair (`committed`, `recomputed`) of a value of
    /// `dtype` whose measured spread is `spread` (0 when none was measured);
    /// non-finite pairs and integer types are left out.
    ///
    /// ```
    /// use zkdv_hashing::DType;
    /// use zkdv_protocol::noise::Residuals;
    /// let mut r = Residuals::default();
    /// let one_ulp = 1.0 + f64::powi(2.0, -23);
    /// r.add(DType::F32, 1.0, one_ulp, 0.0); // one ulp
    /// r.add(DType::F32, 1.0, 1.0, 0.0); // none
    /// r.add(DType::F32, 1.0, 1.5, 0.25); // two spreads
    /// r.add(DType::F32, f64::NAN, f64::NAN, 0.0); // left out
    /// assert_eq!(r.values, 3);
    /// assert!((r.rms() - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
    /// assert_eq!(r.largest, 2.0);
    /// ```
    pub fn add(&mut self, dtype: DType, committed: f64, recomputed: f64, spread: f64) {
        let Some(z) = noise_unit(dtype, committed, recomputed, spread) else {
            return;
        };
        let z = z.abs();
        self.values += 1;
        self.sum_squares += z * z;
        self.largest = self.largest.max(z);
    }

    /// Account for a leaf of `dtype`: `committed` against `recomputed`,
    /// with `spread` per value when one was measured.
    pub fn add_leaf(
        &mut self,
        dtype: DType,
        committed: &[f64],
        recomputed: &[f64],
        spread: Option<&[f64]>,
    ) {
        for (i, (&c, &r)) in committed.iter().zip(recomputed).enumerate() {
            let s = spread.and_then(|s| s.get(i)).copied().unwrap_or(0.0);
            self.add(dtype, c, r, s);
        }
    }

    /// The root mean square of the noise units (0 with no values).
    pub fn rms(&self) -> f64 {
        if self.values == 0 {
            0.0
        } else {
            (self.sum_squares / self.values as f64).sqrt()
        }
    }

    /// Whether the comparison is rounding noise: [`Residuals::rms`] at most
    /// [`NOISE_RMS`].
    pub fn is_noise(&self) -> bool {
        self.is_noise_under(NOISE_RMS)
    }

    /// Whether [`Residuals::rms`] is at most `limit` (an auditor's own
    /// limit in place of [`NOISE_RMS`]).
    pub fn is_noise_under(&self, limit: f64) -> bool {
        self.rms() <= limit
    }

    /// Two accounts as one.
    pub fn merged(self, other: Residuals) -> Residuals {
        Residuals {
            values: self.values + other.values,
            sum_squares: self.sum_squares + other.sum_squares,
            largest: self.largest.max(other.largest),
        }
    }
}

/// How many times a comparison's limit ([`NOISE_RMS`], or an auditor's own)
/// one leaf's differences may reach (see [`leaf_residuals`]).
pub const LEAF_NOISE_FACTOR: f64 = 2.0;

/// The fewest float values a leaf must keep, once its outliers are set
/// aside, for its own noise test ([`leaf_residuals`]); a smaller leaf is
/// left to the comparison's.
pub const LEAF_NOISE_MIN_VALUES: u64 = 8;

/// One leaf's account for the per-leaf noise test: its float pairs' noise
/// units ([`noise_unit`]) with its largest [`leaf_outlier_allowance`] set
/// aside (outliers are bounded on their own), or `None` when fewer than
/// [`LEAF_NOISE_MIN_VALUES`] remain. Its root mean square must stay within
/// [`LEAF_NOISE_FACTOR`] times the comparison's limit.
///
/// The comparison's own test averages over every value of the state, so a
/// change concentrated in a leaf small against it is diluted: a prover moved
/// the 64 values of one bias of a 261,120-value decoder by `1e-3` of their
/// update at one step (about `6e-7` each, inside every pair's bound), and
/// the snapshot's root mean square went from 0.24 to 1.0 while that leaf's
/// was 31. Honest leaves of the model zoo's audits stay below 1.5 where
/// their spread was measured (f32 and `bf16` programs) and reached 3.5 in
/// ulps alone, where none was needed (`docs/soundness.md`).
///
/// ```
/// use zkdv_hashing::DType;
/// use zkdv_protocol::noise::leaf_residuals;
/// let one_ulp = 1.0 + f64::powi(2.0, -23);
/// let committed = vec![1.0; 10];
/// let mut recomputed = vec![one_ulp; 10];
/// recomputed[0] = 1.5; // an outlier (clipped to 32 units): set aside
/// recomputed[1] = 2.0;
/// let leaf = leaf_residuals(DType::F32, &committed, &recomputed, None).unwrap();
/// assert_eq!(leaf.values, 8);
/// assert!((leaf.rms() - 1.0).abs() < 1e-12);
/// assert!(leaf_residuals(DType::F32, &committed[..9], &recomputed[..9], None).is_none());
/// ```
pub fn leaf_residuals(
    dtype: DType,
    committed: &[f64],
    recomputed: &[f64],
    spread: Option<&[f64]>,
) -> Option<Residuals> {
    let mut units: Vec<f64> = committed
        .iter()
        .zip(recomputed)
        .enumerate()
        .filter_map(|(i, (&c, &r))| {
            let s = spread.and_then(|s| s.get(i)).copied().unwrap_or(0.0);
            noise_unit(dtype, c, r, s).map(f64::abs)
        })
        .collect();
    let aside = leaf_outlier_allowance(units.len() as u64);
    let kept = (units.len() as u64).checked_sub(aside)?;
    if kept < LEAF_NOISE_MIN_VALUES {
        return None;
    }
    // The `kept` smallest units, in linear time (the leaf's largest are set aside).
    units.select_nth_unstable_by(kept as usize, |a, b| a.total_cmp(b));
    let mut account = Residuals::default();
    for &z in &units[..kept as usize] {
        account.values += 1;
        account.sum_squares += z * z;
        account.largest = account.largest.max(z);
    }
    Some(account)
}

/// The largest drift per snapshot ([`Coherence::drift`]), in noise units,
/// that passes.
///
/// Honest replays of the model zoo stay below 0.1 (`docs/soundness.md`, "The
/// noise test"); 0.5 leaves five times that, and still holds a prover to
/// half the rounding noise per snapshot in any fixed direction.
pub const DRIFT_LIMIT: f64 = 0.5;

/// The noise test across comparisons: how much of the differences keeps
/// its sign from one snapshot to the next.
///
/// Let `z_is` be coordinate `i`'s signed noise unit at snapshot `s`, over
/// `N` coordinates and `K` snapshots, and model it as `a_i + n_is`: a part
/// the same at every snapshot (a drift) and rounding noise independent from
/// one snapshot to the next. With `S_i = sum_s z_is`, the mean of `S_i^2 / K`
/// is `K * mean(a^2) + noise` while the mean of `z_is^2` is
/// `mean(a^2) + noise`, so
///
/// `drift = sqrt(max(0, mean_i(S_i^2) / K - mean_is(z_is^2)) / (K - 1))`
///
/// estimates the root mean square of `a`: the drift per snapshot, whatever
/// `K`, and 0 for independent noise (it is the mean product of a
/// coordinate's units at two different snapshots). It is held to
/// [`DRIFT_LIMIT`] by default. A bias that an honest replay keeps from step
/// to step (another `tanh`) counts as drift too, which is why the limit is a
/// fixed share of a noise unit rather than a bound that shrinks with `K`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coherence {
    /// Per state leaf, each coordinate's sum of signed noise units (empty
    /// for a leaf that holds no float values). Kept in `f32`: a sum of a
    /// few hundred units needs no more, and at 124M parameters with Adam's
    /// moments the account is 1.5 GB instead of 3.
    pub sums: Vec<Vec<f32>>,
    /// The sum of every squared noise unit accounted for.
    pub squares: f64,
    /// The noise units accounted for (coordinates times snapshots).
    pub units: u64,
    /// Snapshots accounted for.
    pub snapshots: u64,
}

impl Coherence {
    /// Account for one comparison of leaves (`committed` against
    /// `recomputed`, of `dtypes`, with `spread` per leaf when measured).
    pub fn add(
        &mut self,
        dtypes: &[DType],
        committed: &[Vec<f64>],
        recomputed: &[Vec<f64>],
        spread: Option<&[Vec<f64>]>,
    ) {
        for (leaf, (dtype, (a, b))) in dtypes
            .iter()
            .zip(committed.iter().zip(recomputed))
            .enumerate()
        {
            let leaf_spread = spread.and_then(|s| s.get(leaf)).map(Vec::as_slice);
            self.add_leaf(leaf, *dtype, a, b, leaf_spread);
        }
        self.end_snapshot();
    }

    /// Account for leaf `leaf` of one comparison (`committed` against
    /// `recomputed`, of `dtype`, with its `spread` when measured); a
    /// comparison made leaf by leaf ends with [`Coherence::end_snapshot`].
    pub fn add_leaf(
        &mut self,
        leaf: usize,
        dtype: DType,
        committed: &[f64],
        recomputed: &[f64],
        spread: Option<&[f64]>,
    ) {
        if self.sums.len() <= leaf {
            self.sums.resize(leaf + 1, Vec::new());
        }
        let sums = &mut self.sums[leaf];
        if sums.len() < committed.len() {
            sums.resize(committed.len(), 0.0);
        }
        for (i, (&c, &r)) in committed.iter().zip(recomputed).enumerate() {
            let s = spread.and_then(|s| s.get(i)).copied().unwrap_or(0.0);
            if let Some(z) = noise_unit(dtype, c, r, s) {
                sums[i] += z as f32;
                self.squares += z * z;
                self.units += 1;
            }
        }
    }

    /// The end of a comparison accounted for leaf by leaf.
    pub fn end_snapshot(&mut self) {
        self.snapshots += 1;
    }

    /// Two accounts of the same state layout as one.
    pub fn merged(mut self, other: Coherence) -> Coherence {
        if self.sums.len() < other.sums.len() {
            self.sums.resize(other.sums.len(), Vec::new());
        }
        for (mine, theirs) in self.sums.iter_mut().zip(other.sums) {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0.0);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
        self.squares += other.squares;
        self.units += other.units;
        self.snapshots += other.snapshots;
        self
    }

    /// The drift per snapshot (see the type's text), in noise units; 0 with
    /// fewer than two snapshots.
    pub fn drift(&self) -> f64 {
        let coordinates = self.sums.iter().map(Vec::len).sum::<usize>() as f64;
        if self.snapshots < 2 || coordinates == 0.0 || self.units == 0 {
            return 0.0;
        }
        let k = self.snapshots as f64;
        let across = self
            .sums
            .iter()
            .flatten()
            .map(|&s| f64::from(s) * f64::from(s))
            .sum::<f64>()
            / coordinates
            / k;
        // Each coordinate counts once per snapshot (a leaf of integers holds no
        // units and no sums), so the mean square is over the same coordinates.
        let within = self.squares / self.units as f64;
        ((across - within).max(0.0) / (k - 1.0)).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ensemble() -> Tolerance {
        Tolerance {
            abs: 1e-6,
            rel: 1e-5,
            spread: 32.0,
            replays: 8,
        }
    }

    #[test]
    fn a_leaf_that_keeps_one_direction_fails_a_state_whose_pairs_all_pass() {
        let t = ensemble();
        let n = 2_000;
        let groups = [
            Group::new(n, true),
            Group::new(n, true),
            Group::new(3, false),
        ];
        // Updates of about 5e-4 with a rounding noise of a few 1e-11 either way.
        let replayed: Vec<f64> = (0..2 * n + 3)
            .map(|i| 5e-4 * (((i * 7919) % 1000) as f64 / 500.0 - 1.0))
            .collect();
        let noise = |i: usize| 3e-11 * (((i * 104_729) % 7) as f64 - 3.0);
        let honest: Vec<f64> = replayed
            .iter()
            .enumerate()
            .map(|(i, r)| r + noise(i))
            .collect();
        let update = vec![0.0; 2 * n + 3];
        let compare = |c: &[f64], spread: Option<&[f64]>, flips| {
            compare_state(&t, c, &replayed, spread, &update, &groups, flips)
                .unwrap()
                .unwrap()
        };
        let r = compare(&honest, None, false);
        assert!(r.passed() && r.bias.is_none(), "{r:?}");
        // The second leaf's update scaled by 1.001: each value moves by at
        // most 5e-7, inside the fixed absolute term (1e-6) but not inside
        // that term scaled to the leaf's rows (5e-9): its pairs refuse it.
        let mut tampered = honest.clone();
        for i in n..2 * n {
            tampered[i] = replayed[i] * 1.001 + noise(i);
        }
        let r = compare(&tampered, None, false);
        assert!(!r.outcome.passed && r.scale == Some(5e-4), "{r:?}");
        // Within measured spreads of 2e-8 (32 of them: 6.4e-7) every pair
        // passes, and the bias test refuses the leaf by its scale.
        let room = vec![2e-8; 2 * n + 3];
        let r = compare(&tampered, Some(&room), false);
        assert!(r.outcome.passed && !r.passed() && r.outliers == 0, "{r:?}");
        let bias = r.bias.unwrap();
        assert_eq!((bias.leaf, bias.kind), (1, BiasKind::Scale));
        assert!((bias.value - 1e-3).abs() < 1e-6 && bias.limit == SCALE_FLOOR);
        // In a narrow-float program the scale test's floor is a quarter of
        // a bf16 ulp: a scale of 5e-4 is below it and 1e-2 is refused (each
        // value inside 32 spreads).
        let spread = vec![2e-7; 2 * n + 3];
        let scaled = |k: f64| -> Vec<f64> {
            let mut values = honest.clone();
            for i in n..2 * n {
                values[i] = replayed[i] * (1.0 + k) + noise(i);
            }
            values
        };
        assert!(compare(&scaled(5e-4), Some(&spread), true).passed());
        let r = compare(&scaled(1e-2), Some(&spread), true);
        let bias = r.bias.unwrap();
        assert_eq!((bias.leaf, bias.kind), (1, BiasKind::Scale));
        assert!((bias.value - 1e-2).abs() < 1e-6 && bias.limit == NARROW_SCALE_FLOOR);
        // Where the ensemble's members scale the leaf by 2e-4, an honest
        // implementation might scale it 8 times as much.
        let mut measured = groups;
        measured[1].scale_spread = 2e-4;
        let r = compare_state(
            &t,
            &tampered,
            &replayed,
            Some(&room),
            &update,
            &measured,
            false,
        );
        assert!(r.unwrap().unwrap().passed());
        // Under a tolerance without an ensemble there is no scale test: a
        // scale within every pair's bound passes.
        let fixed = Tolerance::fixed(1e-6, 1e-5);
        let mut slight = honest.clone();
        for i in n..2 * n {
            slight[i] = replayed[i] * (1.0 + 5e-6);
        }
        let r = compare_state(&fixed, &slight, &replayed, None, &update, &groups, false);
        assert!(r.unwrap().unwrap().passed());
        // A leaf of two values is refused only beyond its sampling error.
        let lone = [Group::new(2, true)];
        let (c, r) = ([1.0 + 3e-4, 2.0 - 1e-4], [1.0, 2.0]);
        assert_eq!(leaf_bias(&t, &c, &r, None, &lone, false), None);
        // The mean test: three spreads one way in every value of a leaf.
        let spread = vec![1e-9; 2 * n + 3];
        let mut shifted = honest.clone();
        for value in &mut shifted[..n] {
            *value += 3e-9;
        }
        let r = compare(&shifted, Some(&spread), true);
        let bias = r.bias.unwrap();
        assert_eq!((bias.leaf, bias.kind), (0, BiasKind::Mean));
        assert!((bias.value - 3.0).abs() < 0.1 && bias.limit == BIAS_FLOOR);
        // Integer leaves and non-finite pairs are never biased.
        let ints = [Group::new(3, false)];
        assert_eq!(
            leaf_bias(&t, &[5.0; 3], &[1.0; 3], None, &ints, false),
            None
        );
        let (c, r) = ([f64::NAN, 1.0], [f64::NAN, 1.1]);
        assert_eq!(leaf_bias(&t, &c, &r, None, &lone, false), None);
    }

    #[test]
    fn a_state_admits_a_flip_as_large_as_its_leafs_spread_shows() {
        // Two leaves of 20,000 values (four outliers allowed), the first one
        // whose members move its values by 0.01, the second quiet.
        let n = 20_000;
        let committed = vec![0.5; 2 * n];
        let mut recomputed = committed.clone();
        let mut spread = vec![0.0; 2 * n];
        spread[..n].fill(0.01);
        // The flips below are of values the members did not move.
        for i in [100, 200, 300, 400, 500] {
            spread[i] = 0.0;
        }
        let update = vec![0.0; 2 * n];
        let groups = [Group::new(n, true), Group::new(n, true)];
        let t = ensemble();
        let compare_as = |recomputed: &[f64], flips: bool| {
            compare_state(
                &t,
                &committed,
                recomputed,
                Some(&spread),
                &update,
                &groups,
                flips,
            )
            .unwrap()
            .unwrap()
        };
        let compare = |recomputed: &[f64]| compare_as(recomputed, true);
        // A flip in the first leaf, beyond its own spread but within 32
        // times the leaf's largest: an outlier of a narrow-float program.
        recomputed[100] = 0.5 + 0.3;
        let r = compare(&recomputed);
        assert!(r.outcome.passed && r.outliers == 1, "{r:?}");
        // Not of an f32 program.
        assert!(!compare_as(&recomputed, false).outcome.passed);
        // The same flip in the quiet leaf is not.
        let mut quiet = committed.clone();
        quiet[n + 100] = 0.5 + 0.3;
        let r = compare(&quiet);
        assert!(!r.outcome.passed && r.outcome.index == n + 100, "{r:?}");
        // Beyond the cap (its bound, at its row's floor of 0.01 / 16, plus 32
        // times the leaf's largest spread: 0.34), not an outlier.
        recomputed[100] = 0.5 + 0.35;
        assert!(!compare(&recomputed).outcome.passed);
        // Five flips are one too many: the first outlier fails it.
        for i in [100, 200, 300, 400, 500] {
            recomputed[i] = 0.8;
        }
        let r = compare(&recomputed);
        assert!(!r.outcome.passed && r.outcome.index == 100 && r.outliers == 0);
    }

    #[test]
    fn integer_non_finite_and_lone_values_are_never_outliers() {
        let t = ensemble();
        let flip = |float: bool, c: f64, r: f64| {
            let committed = [c, 1.0, 1.0];
            let recomputed = [r, 1.0, 1.0];
            let groups = [Group::new(3, float)];
            compare_state(
                &t,
                &committed,
                &recomputed,
                Some(&[0.0, 1.0, 1.0]),
                &[0.0; 3],
                &groups,
                true,
            )
            .unwrap()
            .unwrap()
        };
        assert!(flip(true, 2.0, 3.0).outcome.passed);
        assert!(!flip(false, 2.0, 3.0).outcome.passed);
        assert!(!flip(true, 2.0, f64::NAN).outcome.passed);
        assert!(!flip(true, f64::INFINITY, 3.0).outcome.passed);
        // A comparison of one value has nothing but it to record.
        let lone = compare_state(
            &t,
            &[2.0],
            &[3.0],
            None,
            &[1.0],
            &[Group::new(1, true)],
            true,
        );
        assert!(!lone.unwrap().unwrap().outcome.passed);
        // Lengths that disagree are an error.
        assert!(compare_state(
            &t,
            &[2.0],
            &[3.0],
            None,
            &[0.0],
            &[Group::new(2, true)],
            true
        )
        .is_err());
    }

    #[test]
    fn an_outlier_may_be_a_change_of_sign_of_its_update() {
        let t = ensemble();
        let n = 20_000;
        let committed = vec![1.0; n];
        let mut recomputed = committed.clone();
        let mut update = vec![0.0; n];
        recomputed[5] = 1.02;
        update[5] = 0.011;
        let groups = [Group::new(n, true)];
        let r = compare_state(&t, &committed, &recomputed, None, &update, &groups, false)
            .unwrap()
            .unwrap();
        assert!(r.outcome.passed && r.outliers == 1);
        update[5] = 0.009;
        let r = compare_state(&t, &committed, &recomputed, None, &update, &groups, false)
            .unwrap()
            .unwrap();
        assert!(!r.outcome.passed);
    }

    #[test]
    fn ulps_follow_each_format() {
        // The spacing doubles at each power of two, and is flat below the
        // smallest normal.
        assert_eq!(ulp(DType::F32, 1.999), ulp(DType::F32, 1.0));
        assert_eq!(
            ulp(DType::F32, 2.0).unwrap(),
            2.0 * ulp(DType::F32, 1.0).unwrap()
        );
        assert_eq!(ulp(DType::F32, 1e-40), ulp(DType::F32, 0.0));
        assert_eq!(ulp(DType::F32, 0.0), Some(f64::from(f32::from_bits(1))));
        assert_eq!(ulp(DType::BF16, 1.0), Some(1.0 / 128.0));
        assert_eq!(ulp(DType::F16, 1.0), Some(1.0 / 1024.0));
        assert_eq!(ulp(DType::F64, 1.0), Some(f64::EPSILON));
        assert_eq!(ulp(DType::U8, 1.0), None);
    }

    #[test]
    fn a_drift_of_a_few_ulps_everywhere_is_not_noise() {
        let committed: Vec<f64> = (1..=1000).map(|i| f64::from(i) * 0.001).collect();
        let drift = |ulps: f64| -> Residuals {
            let mut r = Residuals::default();
            let moved: Vec<f64> = committed
                .iter()
                .map(|&x| x + ulps * ulp(DType::F32, x).unwrap())
                .collect();
            r.add_leaf(DType::F32, &committed, &moved, None);
            r
        };
        assert!(drift(1.0).is_noise());
        assert!(drift(2.0).is_noise());
        assert!(!drift(3.0).is_noise());
        // A measured spread is the unit where it exceeds the ulp.
        let mut r = Residuals::default();
        let spread = vec![1e-3; committed.len()];
        let moved: Vec<f64> = committed.iter().map(|&x| x + 1e-3).collect();
        r.add_leaf(DType::F32, &committed, &moved, Some(&spread));
        assert!((r.rms() - 1.0).abs() < 1e-9 && r.is_noise());
    }

    #[test]
    fn a_drift_in_one_direction_keeps_its_sign_over_snapshots_and_noise_does_not() {
        let n = 4000;
        let committed: Vec<f64> = (0..n).map(|i| 1.0 + f64::from(i) * 1e-4).collect();
        let unit = |x: f64| ulp(DType::F32, x).unwrap();
        // Noise: +-1 ulp, with signs that change from one snapshot to the next.
        let mut noise = Coherence::default();
        // Drift: one ulp in the same direction at every snapshot.
        let mut drift = Coherence::default();
        let mut state = 12345u64;
        for _ in 0..16 {
            let shaken: Vec<f64> = committed
                .iter()
                .map(|&x| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let sign = if state >> 63 == 0 { 1.0 } else { -1.0 };
                    x + sign * unit(x)
                })
                .collect();
            noise.add(
                &[DType::F32],
                std::slice::from_ref(&committed),
                &[shaken],
                None,
            );
            let moved: Vec<f64> = committed.iter().map(|&x| x + unit(x)).collect();
            drift.add(
                &[DType::F32],
                std::slice::from_ref(&committed),
                &[moved],
                None,
            );
        }
        // Each comparison alone has rms 1 either way; the drift per snapshot
        // is 1 unit for the drift, and about 0 for the noise.
        assert!(noise.drift() < 0.05, "{}", noise.drift());
        assert!((drift.drift() - 1.0).abs() < 1e-9, "{}", drift.drift());
        // Merging two halves gives the whole.
        let mut half = Coherence::default();
        let same = std::slice::from_ref(&committed);
        half.add(&[DType::F32], same, same, None);
        let whole = half.clone().merged(half);
        assert_eq!(whole.snapshots, 2);
        assert_eq!(whole.drift(), 0.0);
    }

    #[test]
    fn a_small_leaf_moved_within_its_bound_fails_its_own_test_not_the_comparisons() {
        // A state of 100,000 values at 1 ulp of noise, and a leaf of 64
        // moved by 40 ulps each (inside an f32 pair's bound, 1e-5 |x| is
        // about 80 ulps): diluted, the comparison passes; the leaf does not.
        let quiet: Vec<f64> = (1..=100_000).map(|i| 1.0 + f64::from(i) * 1e-6).collect();
        let noisy: Vec<f64> = quiet
            .iter()
            .enumerate()
            .map(|(i, &x)| x + if i % 2 == 0 { 1.0 } else { -1.0 } * ulp(DType::F32, x).unwrap())
            .collect();
        let leaf: Vec<f64> = (0..64).map(|i| 0.5 + f64::from(i) * 1e-3).collect();
        let moved: Vec<f64> = leaf
            .iter()
            .map(|&x| x + 40.0 * ulp(DType::F32, x).unwrap())
            .collect();
        let mut whole = Residuals::default();
        whole.add_leaf(DType::F32, &quiet, &noisy, None);
        whole.add_leaf(DType::F32, &leaf, &moved, None);
        assert!(whole.is_noise(), "{}", whole.rms());
        let own = leaf_residuals(DType::F32, &leaf, &moved, None).unwrap();
        assert_eq!(own.values, 62); // its two largest set aside as outliers
        assert!(!own.is_noise_under(NOISE_RMS * LEAF_NOISE_FACTOR));
        let honest = leaf_residuals(DType::F32, &quiet, &noisy, None).unwrap();
        assert!(honest.is_noise_under(NOISE_RMS * LEAF_NOISE_FACTOR));
        // Its outliers do not decide it: two flips in an otherwise quiet leaf.
        let mut flipped = leaf.clone();
        flipped[3] = -leaf[3];
        flipped[9] += 1.0;
        let two = leaf_residuals(DType::F32, &leaf, &flipped, None).unwrap();
        assert_eq!((two.values, two.largest), (62, 0.0));
        // Non-finite pairs are not values; a leaf left with too few is not tested.
        let mut gone = leaf[..10].to_vec();
        gone[0] = f64::NAN;
        assert!(leaf_residuals(DType::F32, &gone, &gone, None).is_none());
    }

    #[test]
    fn merged_accounts_add_up() {
        let mut a = Residuals::default();
        a.add(DType::F32, 1.0, 1.0 + 2.0 * f64::powi(2.0, -23), 0.0);
        let mut b = Residuals::default();
        b.add(DType::I32, 1.0, 5.0, 0.0); // an integer: left out
        b.add(DType::F32, 1.0, 1.0, 0.0);
        let m = a.merged(b);
        assert_eq!(m.values, 2);
        assert!((m.rms() - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(m.largest, 2.0);
    }

    /// Member `m` of a synthetic ensemble: `nominal` with value `i` moved
    /// by `moves[i] * (m + 1)`, so each member widens every spread.
    fn growing(nominal: &[f64], moves: &[f64], m: u64) -> Result<Vec<f64>, ToleranceError> {
        Ok(nominal
            .iter()
            .zip(moves)
            .map(|(x, d)| x + d * (m + 1) as f64)
            .collect())
    }

    #[test]
    fn a_state_check_stops_at_the_first_member_that_passes_it_and_keeps_the_whole_verdict() {
        let t = ensemble();
        let groups = [Group::new(64, true)];
        let nominal: Vec<f64> = (0..64).map(|i| 1.0 + f64::from(i) * 0.01).collect();
        let moves = vec![1e-6; 64];
        let update = vec![0.0; 64];
        let mut calls = 0u64;
        let mut member = |m| {
            calls += 1;
            growing(&nominal, &moves, m)
        };
        // Every value off by 1e-4, one way and the other: within its bound
        // (`1e-6 + 1e-5 |c| + 32 s`, `|c|` from 1 to 1.63) from the third
        // member on, where `s = 3e-6`; not at the second (`s = 2e-6`).
        let committed: Vec<f64> = nominal
            .iter()
            .enumerate()
            .map(|(i, x)| x + if i % 2 == 0 { 1e-4 } else { -1e-4 })
            .collect();
        let compared = Compared {
            committed: &committed,
            update: &update,
            flips: false,
        };
        let stopped =
            measure_state_ensemble(&t, &nominal, &groups, Some(compared), &mut member).unwrap();
        assert_eq!((stopped.members, calls), (3, 3));
        let whole = measure_state_ensemble(&t, &nominal, &groups, None, |m| {
            growing(&nominal, &moves, m)
        })
        .unwrap();
        assert_eq!(whole.members, 8);
        // The comparison under an ensemble as measured.
        let passes = |committed: &[f64], e: &Ensemble| {
            let groups = [Group {
                scale_spread: e.scales[0],
                ..groups[0]
            }];
            compare_state(
                &t,
                committed,
                &nominal,
                Some(&e.spread),
                &update,
                &groups,
                false,
            )
            .unwrap()
            .unwrap()
            .passed()
        };
        assert!(passes(&committed, &stopped) && passes(&committed, &whole));
        // The spread a check records is at most the whole ensemble's.
        assert!(stopped
            .spread
            .iter()
            .zip(&whole.spread)
            .all(|(a, b)| a <= b));
        // A pair that no member's spread reaches: every member is measured,
        // and the state fails as it does under the whole ensemble.
        let mut tampered = committed.clone();
        tampered[5] += 1e-3;
        let compared = Compared {
            committed: &tampered,
            ..compared
        };
        let e = measure_state_ensemble(&t, &nominal, &groups, Some(compared), |m| {
            growing(&nominal, &moves, m)
        })
        .unwrap();
        assert_eq!(e.members, 8);
        assert_eq!(e, whole);
        assert!(!passes(&tampered, &e));
    }

    #[test]
    fn a_state_check_that_admits_an_outlier_measures_the_whole_ensemble() {
        // A narrow-float leaf whose members move one value by 0.01: a flip
        // of 0.3 elsewhere is within its outlier cap from the first member
        // on, but a stop never counts an outlier that more members might
        // have bounded.
        let t = ensemble();
        let groups = [Group::new(1_000, true)];
        let nominal: Vec<f64> = (0..1_000).map(|i| 1.0 + f64::from(i)).collect();
        let mut moves = vec![0.0; 1_000];
        moves[7] = 0.01;
        let member = |_m: u64| {
            Ok::<_, ToleranceError>(
                nominal
                    .iter()
                    .zip(&moves)
                    .map(|(x, d)| x + d)
                    .collect::<Vec<f64>>(),
            )
        };
        let mut committed = nominal.clone();
        committed[0] += 0.3;
        let update = vec![0.0; 1_000];
        let compared = Compared {
            committed: &committed,
            update: &update,
            flips: true,
        };
        let e = measure_state_ensemble(&t, &nominal, &groups, Some(compared), member).unwrap();
        assert_eq!(e.members, 8);
        let groups = [Group {
            scale_spread: e.scales[0],
            ..groups[0]
        }];
        let r = compare_state(
            &t,
            &committed,
            &nominal,
            Some(&e.spread),
            &update,
            &groups,
            true,
        )
        .unwrap()
        .unwrap();
        assert!(r.passed() && r.outliers == 1);
    }

    #[test]
    fn a_state_ensemble_refuses_a_member_or_comparison_of_another_length() {
        let t = ensemble();
        let groups = [Group::new(2, true)];
        let short = measure_state_ensemble(&t, &[1.0, 2.0], &groups, None, |_| {
            Ok::<_, ToleranceError>(vec![1.0])
        });
        assert!(matches!(
            short,
            Err(ToleranceError::Member { member: 0, .. })
        ));
        let compared = Compared {
            committed: &[1.0],
            update: &[0.0, 0.0],
            flips: false,
        };
        let e = measure_state_ensemble(&t, &[1.0, 2.0], &groups, Some(compared), |_| {
            Ok::<_, ToleranceError>(vec![1.0, 2.0])
        });
        assert!(matches!(e, Err(ToleranceError::Values { .. })));
    }
}
