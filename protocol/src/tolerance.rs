//! The tolerance rule, written once: when a recomputed value agrees with a
//! committed one, how far apart a pair may be, how a perturbation ensemble
//! measures the rounding spread that widens the bound, and which pair of a
//! comparison decides its outcome.
//!
//! Every comparison of the project goes through [`Tolerance`]: the
//! verifier's check-record rule ([`crate::CheckBody::validate`]), the
//! auditor's replays (`zkdv-audit`), and the Python sessions (through the
//! bindings). The normative text is section 5a of `docs/protocol.md`.

use serde::{Deserialize, Serialize};

use crate::records::Precision;

/// Comparison tolerance: `|committed - recomputed| <= abs + rel *
/// |committed| + spread * s`, where `s` is the spread a check measured for
/// the value (over its ensemble of `replays` perturbed replays; zero when
/// none was measured).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Absolute term, finite and non-negative.
    pub abs: f64,
    /// Relative term, finite and non-negative.
    pub rel: f64,
    /// Factor on the measured spread, finite and non-negative.
    pub spread: f64,
    /// Perturbed replays an update check runs to measure the spread (0:
    /// none, and then `spread` plays no part).
    pub replays: u64,
}

/// The factor on a value's measured spread under [`TolerancePolicy::Program`].
///
/// Over 4,800 honest checks of bf16, f16 and f32 training steps the largest
/// `|committed - recomputed| / spread` was about 2.4, so 32 leaves the bound
/// at least ten times the largest honest difference (`docs/soundness.md`).
pub const ENSEMBLE_SPREAD: f64 = 32.0;
/// The perturbation ensemble's size under [`TolerancePolicy::Program`]:
/// members `0..ENSEMBLE_REPLAYS` (`zkdv_runtime::rounding`).
pub const ENSEMBLE_REPLAYS: u64 = 8;

/// How a session's programs get their tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TolerancePolicy {
    /// Every program uses the root's tolerance (one the user gave).
    Fixed,
    /// Each program's follows from its precision ([`Tolerance::for_program`]).
    Program,
}

/// The pair of a comparison that decides it ([`Tolerance::compare`]): the
/// first pair out of tolerance, or, when every pair is within it, the pair
/// closest to its bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Position of the pair in the compared slices.
    pub index: usize,
    /// The committed value.
    pub committed: f64,
    /// The recomputed value.
    pub recomputed: f64,
    /// The measured spread of the value (0 when none was given).
    pub spread: f64,
    /// The largest difference the tolerance allowed: [`Tolerance::bound`]
    /// for a finite committed value, 0 for a non-finite one (which only the
    /// same non-finite value matches).
    pub allowed: f64,
    /// [`Tolerance::margin`] of the pair: its share of the bound used.
    pub margin: f64,
    /// Whether the pair, and therefore every pair compared, is within
    /// tolerance.
    pub passed: bool,
}

/// Slices of values that cannot be compared pairwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ToleranceError {
    /// The committed and recomputed values differ in number.
    #[error("{committed} committed values cannot be compared with {recomputed} recomputed values")]
    Values {
        /// Committed values given.
        committed: usize,
        /// Recomputed values given.
        recomputed: usize,
    },
    /// The spread does not hold one value per compared value.
    #[error("{spread} spread values for {values} compared values")]
    Spread {
        /// Spread values given.
        spread: usize,
        /// Values compared.
        values: usize,
    },
    /// An ensemble member gave another number of values than the nominal
    /// replay.
    #[error("ensemble member {member} gives {found} values, the nominal replay {expected}")]
    Member {
        /// The member.
        member: u64,
        /// Values it gave.
        found: usize,
        /// Values of the nominal replay.
        expected: usize,
    },
}

impl Tolerance {
    /// `abs + rel * |committed|` alone, without a perturbation ensemble.
    pub const fn fixed(abs: f64, rel: f64) -> Tolerance {
        Tolerance {
            abs,
            rel,
            spread: 0.0,
            replays: 0,
        }
    }

    /// This tolerance for the values of one leaf whose largest magnitude is
    /// `scale`: its absolute term no larger than `rel * scale`.
    ///
    /// The absolute term stands for the rounding of values near zero, which
    /// is that of the values they were computed from, in the leaf's own
    /// range: a parameter's cancellation leaves about an ulp of the
    /// parameters around it. A fixed `abs` read against a leaf of another
    /// scale is room: Adam's second moments are about `1e-7` in a small
    /// model, under the session's `abs` of `1e-6`, so each could be set to
    /// zero (a step of `lr * m / eps` at that coordinate) inside its bound.
    /// `rel * scale` is still `rel / ulp` (about 160 in `f32`) ulps of the
    /// leaf's largest value. An audit compares each snapshot leaf so.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance::fixed(1e-6, 1e-5);
    /// assert_eq!(t.scaled_to(1e-3).abs, 1e-5 * 1e-3);
    /// assert_eq!(t.scaled_to(1.0).abs, 1e-6); // never above the program's
    /// assert_eq!(t.scaled_to(f64::NAN).abs, 1e-6);
    /// ```
    pub fn scaled_to(&self, scale: f64) -> Tolerance {
        let leaf = self.rel * scale;
        Tolerance {
            abs: if leaf.is_finite() {
                self.abs.min(leaf)
            } else {
                self.abs
            },
            ..*self
        }
    }

    /// The largest `|committed - recomputed|` that passes for a finite
    /// `committed` value whose measured spread is `spread`.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance { abs: 1.0, rel: 0.5, spread: 2.0, replays: 8 };
    /// assert_eq!(t.bound(-4.0, 0.25), 1.0 + 2.0 + 0.5);
    /// ```
    pub fn bound(&self, committed: f64, spread: f64) -> f64 {
        self.abs + self.rel * committed.abs() + self.spread * spread
    }

    /// Whether `recomputed` is within tolerance of `committed`, given the
    /// measured rounding `spread` of the value (0 when none was measured).
    ///
    /// Non-finite values are data (a NaN in a batch, an overflow that a
    /// loss scaler then skips), not rounding: they agree only with the same
    /// non-finite value (NaN with NaN, `+inf` with `+inf`), and never with
    /// a finite one. A committed infinity therefore allows no difference
    /// (without the rule, `|inf - x| <= inf` would accept anything).
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance::fixed(1e-6, 1e-5);
    /// assert!(t.accepts(1.0, 1.0 + 1e-6, 0.0));
    /// assert!(!t.accepts(1.0, 1.1, 0.0));
    /// assert!(t.accepts(f64::NAN, f64::NAN, 0.0));
    /// assert!(!t.accepts(f64::INFINITY, 1.0, 0.0));
    /// assert!(!t.accepts(1.0, f64::NAN, 0.0));
    /// ```
    pub fn accepts(&self, committed: f64, recomputed: f64, spread: f64) -> bool {
        if !(committed.is_finite() && recomputed.is_finite()) {
            return (committed.is_nan() && recomputed.is_nan()) || committed == recomputed;
        }
        (committed - recomputed).abs() <= self.bound(committed, spread)
    }

    /// How much of its bound a pair uses: `|committed - recomputed| /
    /// bound(committed, spread)` for finite values (0 for equal values,
    /// infinity for different ones under a zero bound). A pair with a
    /// non-finite value has margin 0 when [`Tolerance::accepts`] holds and
    /// infinity otherwise. An accepted pair's margin is at most 1, a
    /// refused pair's at least 1.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance::fixed(0.5, 0.0);
    /// assert_eq!(t.margin(1.0, 1.25, 0.0), 0.5);
    /// assert_eq!(t.margin(f64::NAN, f64::NAN, 0.0), 0.0);
    /// assert_eq!(t.margin(1.0, f64::INFINITY, 0.0), f64::INFINITY);
    /// assert_eq!(Tolerance::fixed(0.0, 0.0).margin(1.0, 2.0, 0.0), f64::INFINITY);
    /// ```
    pub fn margin(&self, committed: f64, recomputed: f64, spread: f64) -> f64 {
        if !(committed.is_finite() && recomputed.is_finite()) {
            return if self.accepts(committed, recomputed, spread) {
                0.0
            } else {
                f64::INFINITY
            };
        }
        let difference = (committed - recomputed).abs();
        if difference == 0.0 {
            return 0.0;
        }
        let bound = self.bound(committed, spread);
        if bound == 0.0 {
            f64::INFINITY
        } else {
            difference / bound
        }
    }

    /// Compare `committed` with `recomputed` pairwise; `spread`, when given,
    /// holds one measured spread per value. The [`Outcome`] is the first
    /// pair [`Tolerance::accepts`] refuses (`passed` false) or, when every
    /// pair passes, the pair of largest margin (the first of equals);
    /// `None` for empty slices.
    ///
    /// # Errors
    ///
    /// [`ToleranceError`] when the slices differ in length.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance::fixed(0.1, 0.0);
    /// let worst = t.compare(&[1.0, 2.0, 3.0], &[1.0, 2.05, 3.01], None)?.unwrap();
    /// assert!(worst.passed && worst.index == 1);
    /// let failed = t.compare(&[1.0, 2.0, 3.0], &[1.5, 2.0, 9.0], None)?.unwrap();
    /// assert!(!failed.passed && failed.index == 0 && failed.allowed == 0.1);
    /// assert!(t.compare(&[1.0], &[], None).is_err());
    /// # Ok::<(), zkdv_protocol::ToleranceError>(())
    /// ```
    pub fn compare(
        &self,
        committed: &[f64],
        recomputed: &[f64],
        spread: Option<&[f64]>,
    ) -> Result<Option<Outcome>, ToleranceError> {
        if committed.len() != recomputed.len() {
            return Err(ToleranceError::Values {
                committed: committed.len(),
                recomputed: recomputed.len(),
            });
        }
        if let Some(s) = spread.filter(|s| s.len() != committed.len()) {
            return Err(ToleranceError::Spread {
                spread: s.len(),
                values: committed.len(),
            });
        }
        let mut worst: Option<Outcome> = None;
        for (index, (&c, &r)) in committed.iter().zip(recomputed).enumerate() {
            let outcome = self.pair(index, c, r, spread.map_or(0.0, |s| s[index]));
            if !outcome.passed {
                return Ok(Some(outcome));
            }
            if worst.is_none_or(|w| outcome.margin > w.margin) {
                worst = Some(outcome);
            }
        }
        Ok(worst)
    }

    /// The [`Outcome`] of the pair (`committed`, `recomputed`) at `index`
    /// of a comparison, with its measured `spread` (0 when none).
    pub fn pair(&self, index: usize, committed: f64, recomputed: f64, spread: f64) -> Outcome {
        Outcome {
            index,
            committed,
            recomputed,
            spread,
            allowed: if committed.is_finite() {
                self.bound(committed, spread)
            } else {
                0.0
            },
            margin: self.margin(committed, recomputed, spread),
            passed: self.accepts(committed, recomputed, spread),
        }
    }

    /// The position of the first pair out of tolerance, if any; `spread`,
    /// when given, holds one measured spread per value (a value without one
    /// is compared with spread 0). Pairs past the shorter slice are not
    /// compared; [`Tolerance::compare`] refuses slices of unequal lengths.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance::fixed(0.1, 0.0);
    /// assert_eq!(t.first_outside(&[1.0, 2.0], &[1.0, 2.5], None), Some(1));
    /// assert_eq!(t.first_outside(&[1.0, 2.0], &[1.0, 2.05], None), None);
    /// ```
    pub fn first_outside(
        &self,
        committed: &[f64],
        recomputed: &[f64],
        spread: Option<&[f64]>,
    ) -> Option<usize> {
        let n = committed.len().min(recomputed.len());
        let spread: Option<Vec<f64>> =
            spread.map(|s| (0..n).map(|i| s.get(i).copied().unwrap_or(0.0)).collect());
        self.compare(&committed[..n], &recomputed[..n], spread.as_deref())
            .ok()
            .flatten()
            .filter(|o| !o.passed)
            .map(|o| o.index)
    }

    /// Whether a comparison needs the perturbation ensemble's spread: the
    /// tolerance has an ensemble (`replays > 0`) and some pair is refused
    /// under the fixed bound (spread 0). Pairs past the shorter slice are
    /// not compared.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let ensemble = Tolerance { abs: 0.1, rel: 0.0, spread: 32.0, replays: 8 };
    /// assert!(ensemble.needs_spread(&[1.0], &[1.5]));
    /// assert!(!ensemble.needs_spread(&[1.0], &[1.05]));
    /// assert!(!Tolerance::fixed(0.1, 0.0).needs_spread(&[1.0], &[1.5]));
    /// ```
    pub fn needs_spread(&self, committed: &[f64], recomputed: &[f64]) -> bool {
        self.replays > 0
            && committed
                .iter()
                .zip(recomputed)
                .any(|(&c, &r)| !self.accepts(c, r, 0.0))
    }

    /// Measure the rounding spread of `nominal` (the values of an
    /// unperturbed replay) over the ensemble: `member(m)` replays as member
    /// `m`, for `m` in `0..replays`, and each value's spread is the largest
    /// [`Tolerance::ensemble_difference`] of a member's value from the
    /// nominal one (all zeros when `replays` is 0).
    ///
    /// # Errors
    ///
    /// The first error of `member`, or [`ToleranceError::Member`] (through
    /// `E: From<ToleranceError>`) when a member gives another number of
    /// values than `nominal` holds.
    ///
    /// ```
    /// use zkdv_protocol::{Tolerance, ToleranceError};
    /// let t = Tolerance { abs: 0.0, rel: 0.0, spread: 32.0, replays: 2 };
    /// let spread = t.measure_spread(&[1.0, 2.0], |m| {
    ///     Ok::<_, ToleranceError>(vec![1.0 + m as f64, 2.0 - 0.5])
    /// })?;
    /// assert_eq!(spread, vec![1.0, 0.5]);
    /// # Ok::<(), ToleranceError>(())
    /// ```
    pub fn measure_spread<V, E>(
        &self,
        nominal: &[f64],
        member: impl FnMut(u64) -> Result<V, E>,
    ) -> Result<Vec<f64>, E>
    where
        V: AsRef<[f64]>,
        E: From<ToleranceError>,
    {
        let (spread, _) = self.measure_spread_until(nominal, member, |_, _| Ok(false))?;
        Ok(spread)
    }

    /// [`Tolerance::measure_spread`] member by member, stopping after the
    /// first member `m` at which `done(spread, values)` holds (`spread` over
    /// the members `0..=m`, `values` member `m`'s own); returns the spread and
    /// how many members it was measured over. A spread over fewer members is
    /// at most the whole ensemble's value by value, so a bound that grows
    /// with the spread and holds under it holds under the whole ensemble's:
    /// a check stops at the first member at which its values pass
    /// ([`Tolerance::measure_spread_for`]; `docs/protocol.md` section 5a).
    ///
    /// # Errors
    ///
    /// As [`Tolerance::measure_spread`].
    ///
    /// ```
    /// use zkdv_protocol::{Tolerance, ToleranceError};
    /// let t = Tolerance { abs: 0.0, rel: 0.0, spread: 32.0, replays: 8 };
    /// let (spread, members) = t.measure_spread_until(&[1.0], |m| {
    ///     Ok::<_, ToleranceError>(vec![1.0 + m as f64])
    /// }, |spread, _| Ok(spread[0] >= 2.0))?;
    /// assert_eq!((spread, members), (vec![2.0], 3));
    /// # Ok::<(), ToleranceError>(())
    /// ```
    pub fn measure_spread_until<V, E>(
        &self,
        nominal: &[f64],
        mut member: impl FnMut(u64) -> Result<V, E>,
        mut done: impl FnMut(&[f64], &[f64]) -> Result<bool, E>,
    ) -> Result<(Vec<f64>, u64), E>
    where
        V: AsRef<[f64]>,
        E: From<ToleranceError>,
    {
        let mut spread = vec![0.0f64; nominal.len()];
        for m in 0..self.replays {
            let values = member(m)?;
            let values = values.as_ref();
            if values.len() != nominal.len() {
                return Err(ToleranceError::Member {
                    member: m,
                    found: values.len(),
                    expected: nominal.len(),
                }
                .into());
            }
            Tolerance::widen_spread(&mut spread, values, nominal);
            if done(&spread, values)? {
                return Ok((spread, m + 1));
            }
        }
        Ok((spread, self.replays))
    }

    /// The spread of `nominal` (the recomputed values) as a check measures
    /// it for `committed`: members in order, stopping at the first at which
    /// every pair is within its bound ([`Tolerance::compare`]); the whole
    /// ensemble when none is. Returns the spread and the members measured.
    /// Each pair's bound grows with its spread, so the verdict is the whole
    /// ensemble's, and the recorded bound is at most its.
    ///
    /// # Errors
    ///
    /// As [`Tolerance::measure_spread`], and [`ToleranceError::Values`] when
    /// `committed` and `nominal` differ in length.
    ///
    /// ```
    /// use zkdv_protocol::{Tolerance, ToleranceError};
    /// let t = Tolerance { abs: 0.0, rel: 0.0, spread: 2.0, replays: 8 };
    /// // Off by 1.0: member 0 moves the value by 0.25, member 1 by 0.5.
    /// let members = [0.25, 0.5, 0.1, 3.0];
    /// let (spread, measured) = t.measure_spread_for(&[11.0], &[10.0], |m| {
    ///     Ok::<_, ToleranceError>(vec![10.0 + members[m as usize % 4]])
    /// })?;
    /// assert_eq!((spread, measured), (vec![0.5], 2));
    /// # Ok::<(), ToleranceError>(())
    /// ```
    pub fn measure_spread_for<V, E>(
        &self,
        committed: &[f64],
        nominal: &[f64],
        member: impl FnMut(u64) -> Result<V, E>,
    ) -> Result<(Vec<f64>, u64), E>
    where
        V: AsRef<[f64]>,
        E: From<ToleranceError>,
    {
        if committed.len() != nominal.len() {
            return Err(ToleranceError::Values {
                committed: committed.len(),
                recomputed: nominal.len(),
            }
            .into());
        }
        self.measure_spread_until(nominal, member, |spread, _| {
            let outcome = self.compare(committed, nominal, Some(spread))?;
            Ok(outcome.is_none_or(|o| o.passed))
        })
    }

    /// Widen each value's `spread` by one ensemble member's `member`
    /// values against the `nominal` ones ([`Tolerance::ensemble_difference`]):
    /// [`Tolerance::measure_spread`]'s step, for a caller that measures
    /// one member at a time.
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let mut spread = vec![0.25, 0.0];
    /// Tolerance::widen_spread(&mut spread, &[1.5, 2.0], &[1.0, 2.0]);
    /// assert_eq!(spread, vec![0.5, 0.0]);
    /// ```
    pub fn widen_spread(spread: &mut [f64], member: &[f64], nominal: &[f64]) {
        for (s, (&a, &b)) in spread.iter_mut().zip(member.iter().zip(nominal)) {
            *s = s.max(Tolerance::ensemble_difference(a, b));
        }
    }

    /// What one ensemble member adds to a value's spread: its distance from
    /// the nominal replay, or nothing where either is non-finite (a member
    /// that overflows measures no rounding, and an infinite spread would
    /// accept anything).
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// assert_eq!(Tolerance::ensemble_difference(1.5, 1.0), 0.5);
    /// assert_eq!(Tolerance::ensemble_difference(f64::INFINITY, 1.0), 0.0);
    /// ```
    pub fn ensemble_difference(member: f64, nominal: f64) -> f64 {
        let d = (member - nominal).abs();
        if d.is_finite() {
            d
        } else {
            0.0
        }
    }

    /// The same tolerance with its absolute term increased by `abs` (a
    /// comparison that allows for a known extra drift, such as the rounding
    /// a state check accumulates over its replayed steps).
    ///
    /// ```
    /// use zkdv_protocol::Tolerance;
    /// let t = Tolerance::fixed(1e-6, 1e-5).widened(1e-3);
    /// assert_eq!((t.abs, t.rel), (1e-6 + 1e-3, 1e-5));
    /// ```
    pub fn widened(&self, abs: f64) -> Tolerance {
        Tolerance {
            abs: self.abs + abs,
            ..*self
        }
    }

    /// Whether every term is finite and non-negative.
    pub fn is_valid(&self) -> bool {
        [self.abs, self.rel, self.spread]
            .iter()
            .all(|x| x.is_finite() && *x >= 0.0)
    }

    /// The tolerance of a program with `precision` in a session whose root
    /// has this tolerance and `policy`: under [`TolerancePolicy::Program`]
    /// the root's `abs` and `rel` plus the perturbation ensemble
    /// ([`ENSEMBLE_SPREAD`], [`ENSEMBLE_REPLAYS`]); under
    /// [`TolerancePolicy::Fixed`] the root's. The precision decides which
    /// perturbations act (narrow roundings only exist in a program that
    /// computes in `f16` or `bf16`), not the rule.
    pub fn for_program(&self, policy: TolerancePolicy, _precision: &Precision) -> Tolerance {
        match policy {
            TolerancePolicy::Program => Tolerance {
                spread: ENSEMBLE_SPREAD,
                replays: ENSEMBLE_REPLAYS,
                ..*self
            },
            TolerancePolicy::Fixed => *self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ensemble() -> Tolerance {
        Tolerance {
            abs: 0.1,
            rel: 0.0,
            spread: 2.0,
            replays: 3,
        }
    }

    #[test]
    fn non_finite_pairs_have_margin_zero_or_infinity() {
        let t = ensemble();
        assert_eq!(t.margin(f64::NAN, f64::NAN, 0.0), 0.0);
        assert_eq!(t.margin(f64::INFINITY, f64::INFINITY, 0.0), 0.0);
        assert_eq!(
            t.margin(f64::NEG_INFINITY, f64::INFINITY, 0.0),
            f64::INFINITY
        );
        assert_eq!(t.margin(f64::INFINITY, 1.0, 5.0), f64::INFINITY);
        assert_eq!(t.margin(1.0, f64::NAN, 5.0), f64::INFINITY);
        // Finite pairs: the share of the bound, with the spread's part.
        assert_eq!(t.margin(1.0, 1.0, 0.0), 0.0);
        assert!((t.margin(1.0, 1.05, 0.0) - 0.5).abs() < 1e-12);
        assert!((t.margin(1.0, 1.2, 0.05) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn compare_names_the_first_failure_not_the_worst() {
        let t = ensemble();
        let o = t
            .compare(&[1.0, 2.0, 3.0], &[1.0, 2.5, 30.0], None)
            .unwrap()
            .unwrap();
        assert_eq!((o.index, o.committed, o.recomputed), (1, 2.0, 2.5));
        assert!(!o.passed);
        assert_eq!(o.allowed, 0.1);
        // A non-finite committed value allows nothing.
        let o = t.compare(&[f64::INFINITY], &[1.0], None).unwrap().unwrap();
        assert!(!o.passed && o.allowed == 0.0 && o.margin == f64::INFINITY);
    }

    #[test]
    fn compare_names_the_worst_pair_when_all_pass() {
        let t = ensemble();
        let spread = [0.0, 0.0, 0.1, 0.0];
        let o = t
            .compare(
                &[1.0, f64::NAN, 3.0, 4.0],
                &[1.05, f64::NAN, 3.15, 4.075],
                Some(&spread),
            )
            .unwrap()
            .unwrap();
        assert!(o.passed);
        assert_eq!((o.index, o.spread), (3, 0.0));
        assert!((o.margin - 0.75).abs() < 1e-12);
        // The first of equal margins; a non-finite equal pair has margin 0.
        let o = t
            .compare(&[f64::NAN, 1.0, 2.0], &[f64::NAN, 1.05, 2.05], None)
            .unwrap()
            .unwrap();
        assert_eq!(o.index, 1);
        let o = t.compare(&[f64::NAN], &[f64::NAN], None).unwrap().unwrap();
        assert!(o.passed && o.margin == 0.0 && o.allowed == 0.0);
        assert_eq!(t.compare(&[], &[], None), Ok(None));
    }

    #[test]
    fn compare_refuses_slices_of_unequal_lengths() {
        let t = ensemble();
        assert_eq!(
            t.compare(&[1.0, 2.0], &[1.0], None),
            Err(ToleranceError::Values {
                committed: 2,
                recomputed: 1
            })
        );
        assert_eq!(
            t.compare(&[1.0], &[1.0], Some(&[])),
            Err(ToleranceError::Spread {
                spread: 0,
                values: 1
            })
        );
    }

    #[test]
    fn measure_spread_ignores_non_finite_member_differences() {
        let t = ensemble();
        let members = [
            vec![1.5, f64::INFINITY, 3.0],
            vec![0.75, 2.5, f64::NAN],
            vec![1.0, 2.0, 3.25],
        ];
        let spread = t
            .measure_spread(&[1.0, 2.0, 3.0], |m| {
                Ok::<_, ToleranceError>(members[m as usize].clone())
            })
            .unwrap();
        assert_eq!(spread, vec![0.5, 0.5, 0.25]);
        // A non-finite nominal value measures no spread either.
        let spread = t
            .measure_spread(&[f64::NAN], |_| Ok::<_, ToleranceError>(vec![1.0]))
            .unwrap();
        assert_eq!(spread, vec![0.0]);
    }

    #[test]
    fn a_check_measures_members_until_its_values_pass_and_all_of_them_otherwise() {
        let t = Tolerance {
            abs: 1e-6,
            rel: 1e-5,
            spread: 32.0,
            replays: 8,
        };
        let mut calls = 0;
        let mut member = |m: u64| {
            calls += 1;
            Ok::<_, ToleranceError>(vec![1.0 + 1e-6 * (m + 1) as f64, 2.0])
        };
        // Off by 1e-4: 1e-6 + 1e-5 + 32 s passes from s = 3e-6 on.
        let (spread, members) = t
            .measure_spread_for(&[1.0 + 1e-4, 2.0], &[1.0, 2.0], &mut member)
            .unwrap();
        assert_eq!((members, calls), (3, 3));
        assert!((spread[0] - 3e-6).abs() < 1e-15 && spread[1] == 0.0);
        // Off by far more than any member's spread: every member, and the
        // verdict the whole ensemble gives.
        let (spread, members) = t
            .measure_spread_for(&[1.1, 2.0], &[1.0, 2.0], |m| {
                Ok::<_, ToleranceError>(vec![1.0 + 1e-6 * (m + 1) as f64, 2.0])
            })
            .unwrap();
        assert_eq!(members, 8);
        assert_eq!(
            t.first_outside(&[1.1, 2.0], &[1.0, 2.0], Some(&spread)),
            Some(0)
        );
        let err = t
            .measure_spread_for(&[1.0], &[1.0, 2.0], |_| {
                Ok::<_, ToleranceError>(vec![1.0, 2.0])
            })
            .unwrap_err();
        assert!(matches!(err, ToleranceError::Values { .. }));
    }

    #[test]
    fn measure_spread_refuses_a_member_of_another_length() {
        let t = ensemble();
        let err = t
            .measure_spread(&[1.0, 2.0], |m| {
                Ok::<_, ToleranceError>(vec![1.0; if m == 1 { 1 } else { 2 }])
            })
            .unwrap_err();
        assert_eq!(
            err,
            ToleranceError::Member {
                member: 1,
                found: 1,
                expected: 2
            }
        );
    }

    #[test]
    fn needs_spread_only_with_an_ensemble_and_a_refused_pair() {
        assert!(ensemble().needs_spread(&[1.0, 2.0], &[1.0, 2.5]));
        assert!(!ensemble().needs_spread(&[1.0, 2.0], &[1.0, 2.05]));
        assert!(!Tolerance::fixed(0.1, 0.0).needs_spread(&[1.0], &[9.0]));
    }

    #[test]
    fn widened_adds_to_the_absolute_term_only() {
        let t = ensemble().widened(0.5);
        assert_eq!(
            t,
            Tolerance {
                abs: 0.6,
                ..ensemble()
            }
        );
    }
}
