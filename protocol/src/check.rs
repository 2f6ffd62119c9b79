//! The rules of a check record's body, written once: how many indices and
//! values each kind of check holds, when it may record a measured spread,
//! how long its replay may be, and that its verdict follows from its values
//! under its tolerance ([`Tolerance::compare`]).
//!
//! The verifier applies them to every check record
//! ([`CheckBody::validate`]), after the rules that need the transcript
//! around the record (the step exists, no second check of a kind, the
//! tolerance is the step's program's); a session can apply them to a check
//! before it appends it.

use std::fmt;

use crate::records::{CheckBody, CheckKind, RootBody, Verdict};
use crate::tolerance::{Outcome, Tolerance, ToleranceError};

/// Why a check record's body is invalid on its own (with its root). The
/// messages are the verifier's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidCheck {
    /// Spread values where none may be, or not one per value.
    #[error("check records {found} spread values; {}", SpreadRule(*.allowed))]
    SpreadCount {
        /// Spread values recorded.
        found: usize,
        /// The count a non-empty spread must have (one per value), or
        /// `None` when the tolerance has no ensemble and no spread may be
        /// recorded.
        allowed: Option<usize>,
    },
    /// A spread value that is negative or not finite.
    #[error("spread {0} must be finite and non-negative")]
    Spread(f64),
    /// No values, or different numbers of committed and recomputed ones.
    #[error(
        "check compares {committed} committed with {recomputed} recomputed values (need equal, \
         non-zero counts)"
    )]
    Values {
        /// Committed values.
        committed: usize,
        /// Recomputed values.
        recomputed: usize,
    },
    /// An update check without one index and one value per challenged tree.
    #[error(
        "update check needs {expected} indices and values (parameter{}), found {indices} and \
         {values}",
        if *.expected == 2 { ", optimizer state" } else { "" }
    )]
    UpdateIndices {
        /// 2 with an optimizer state, else 1.
        expected: usize,
        /// Indices recorded.
        indices: usize,
        /// Values recorded.
        values: usize,
    },
    /// A state check with indices.
    #[error("state check must not carry indices")]
    StateIndices,
    /// An update check with outliers (only a state comparison admits them).
    #[error("update check must not admit outliers ({0} recorded)")]
    UpdateOutliers(u64),
    /// A leaf bias on an update check, or one whose figures do not refuse
    /// the leaf, or on a check that passed.
    #[error(
        "check records a leaf bias of {value} against a limit of {limit} with verdict \
         {verdict:?}; only a failed state check records one, and its value must exceed its limit"
    )]
    Bias {
        /// The recorded statistic.
        value: f64,
        /// The recorded limit.
        limit: f64,
        /// The recorded verdict.
        verdict: Verdict,
    },
    /// A row scale on an update check, or one that is negative or not
    /// finite.
    #[error(
        "check records a row scale of {0}; only a state check records one, finite and \
         non-negative"
    )]
    Scale(f64),
    /// A replay that starts before the newest snapshot.
    #[error("replay of {length} transitions exceeds what snapshot interval {interval} allows")]
    ReplayLength {
        /// Transitions replayed.
        length: u64,
        /// The root's snapshot interval.
        interval: u64,
    },
    /// A verdict that the values do not give.
    #[error("verdict {verdict:?} contradicts the recorded values{}", Refused(*.refused))]
    Verdict {
        /// The recorded verdict.
        verdict: Verdict,
        /// The first pair out of tolerance, when there is one.
        refused: Option<Outcome>,
    },
}

/// The end of [`InvalidCheck::SpreadCount`]'s message.
struct SpreadRule(Option<usize>);

impl fmt::Display for SpreadRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "a check records none or {n}"),
            None => f.write_str("only a check under a perturbation ensemble records any"),
        }
    }
}

/// The end of [`InvalidCheck::Verdict`]'s message.
struct Refused(Option<Outcome>);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(o) => write!(
                f,
                " (value {}: committed {}, recomputed {})",
                o.index, o.committed, o.recomputed
            ),
            None => Ok(()),
        }
    }
}

impl CheckBody {
    /// The tolerance the recorded pair was compared under: the recorded one,
    /// its absolute term scaled to the recorded row `scale` when there is
    /// one ([`Tolerance::scaled_to`]).
    pub fn pair_tolerance(&self) -> Tolerance {
        self.scale
            .map_or(self.tolerance, |scale| self.tolerance.scaled_to(scale))
    }

    /// The comparison of the recorded values under [`CheckBody::pair_tolerance`]
    /// and the recorded spread (none when the spread is empty):
    /// [`Tolerance::compare`].
    ///
    /// # Errors
    ///
    /// [`ToleranceError`] when the values or the spread differ in number
    /// (which [`CheckBody::validate`] refuses).
    pub fn outcome(&self) -> Result<Option<Outcome>, ToleranceError> {
        let spread = (!self.spread.is_empty()).then_some(self.spread.as_slice());
        Tolerance::compare(
            &self.pair_tolerance(),
            &self.committed,
            &self.recomputed,
            spread,
        )
    }

    /// Check the body against the rules that need only it and its session's
    /// `root`: spread values only under a perturbation ensemble and one per
    /// value, each finite and non-negative; equal, non-zero numbers of
    /// committed and recomputed values; an update check holds one index and
    /// value per challenged tree (the parameters, and the optimizer state
    /// when the root has one) and admits no outlier, a state check no index;
    /// a replay shorter than
    /// the snapshot interval; and a verdict that the values give, or, for a
    /// state check that records a leaf bias ([`crate::noise::leaf_bias`]),
    /// a failure whose recorded bias exceeds its limit; a row `scale` only on
    /// a state check, finite and non-negative, and the verdict then follows
    /// from the values under [`CheckBody::pair_tolerance`].
    ///
    /// ```
    /// # use zkdv_protocol::*;
    /// # let leaf = |path: &str| Leaf { path: path.into(), dtype: "f32".into(), shape: vec![2] };
    /// # let root = RootBody {
    /// #     prover: "p".into(), config_name: "c".into(), versions: Default::default(),
    /// #     sampling: Sampling::Every { n: 1 }, tolerance: Tolerance::fixed(0.1, 0.0),
    /// #     tolerance_policy: TolerancePolicy::Fixed, rolling_window: 1, probe_ratio: 1.0,
    /// #     snapshot_interval: 4, params: vec![leaf("w")], opt_state: vec![], batch: vec![],
    /// #     probe_seed: Hash32::ZERO, challenge_key_commitment: Hash32::ZERO,
    /// #     session_key: None, rank: None,
    /// # };
    /// let mut check = CheckBody {
    ///     step: 0,
    ///     kind: CheckKind::State,
    ///     indices: vec![],
    ///     committed: vec![1.0],
    ///     recomputed: vec![1.05],
    ///     tolerance: Tolerance::fixed(0.1, 0.0),
    ///     spread: vec![],
    ///     verdict: Verdict::Pass,
    ///     replay_length: 1,
    ///     outliers: 0,
    ///     bias: None,
    ///     scale: None,
    /// };
    /// assert!(check.validate(&root).is_ok());
    /// check.recomputed = vec![2.0];
    /// assert_eq!(
    ///     check.validate(&root).unwrap_err().to_string(),
    ///     "verdict Pass contradicts the recorded values (value 0: committed 1, recomputed 2)"
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// The first rule broken, in the order above.
    pub fn validate(&self, root: &RootBody) -> Result<(), InvalidCheck> {
        let may_measure = self.tolerance.replays > 0;
        if !self.spread.is_empty() && (!may_measure || self.spread.len() != self.committed.len()) {
            return Err(InvalidCheck::SpreadCount {
                found: self.spread.len(),
                allowed: may_measure.then_some(self.committed.len()),
            });
        }
        if let Some(&s) = self.spread.iter().find(|s| !(s.is_finite() && **s >= 0.0)) {
            return Err(InvalidCheck::Spread(s));
        }
        if self.committed.is_empty() || self.committed.len() != self.recomputed.len() {
            return Err(InvalidCheck::Values {
                committed: self.committed.len(),
                recomputed: self.recomputed.len(),
            });
        }
        match self.kind {
            CheckKind::Update => {
                // An optimizer-state layout too large to count still has
                // elements.
                let expected = if root.optimizer_state_count() == Some(0) {
                    1
                } else {
                    2
                };
                if self.indices.len() != expected || self.committed.len() != expected {
                    return Err(InvalidCheck::UpdateIndices {
                        expected,
                        indices: self.indices.len(),
                        values: self.committed.len(),
                    });
                }
                if self.outliers != 0 {
                    return Err(InvalidCheck::UpdateOutliers(self.outliers));
                }
            }
            CheckKind::State => {
                if !self.indices.is_empty() {
                    return Err(InvalidCheck::StateIndices);
                }
            }
        }
        if self.replay_length >= root.snapshot_interval {
            return Err(InvalidCheck::ReplayLength {
                length: self.replay_length,
                interval: root.snapshot_interval,
            });
        }
        if let Some(scale) = self.scale {
            if self.kind != CheckKind::State || !(scale.is_finite() && scale >= 0.0) {
                return Err(InvalidCheck::Scale(scale));
            }
        }
        if let Some(bias) = &self.bias {
            if self.kind != CheckKind::State || !bias.refuses() || self.verdict != Verdict::Fail {
                return Err(InvalidCheck::Bias {
                    value: bias.value,
                    limit: bias.limit,
                    verdict: self.verdict,
                });
            }
            // Every pair may agree: the leaf's direction failed the check.
            return Ok(());
        }
        // The counts were checked above, so the comparison runs.
        let refused = self.outcome().ok().flatten().filter(|o| !o.passed);
        if refused.is_none() != (self.verdict == Verdict::Pass) {
            return Err(InvalidCheck::Verdict {
                verdict: self.verdict,
                refused,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::{BiasKind, LeafBias};
    use crate::records::CheckKind;
    use crate::{Hash32, Leaf, RootBody, Sampling, TolerancePolicy};

    fn root() -> RootBody {
        let leaf = Leaf {
            path: "w".into(),
            dtype: "f32".into(),
            shape: vec![2],
        };
        RootBody {
            prover: "p".into(),
            config_name: "c".into(),
            versions: Default::default(),
            sampling: Sampling::Every { n: 1 },
            tolerance: Tolerance::fixed(0.1, 0.0),
            tolerance_policy: TolerancePolicy::Fixed,
            rolling_window: 1,
            probe_ratio: 1.0,
            snapshot_interval: 4,
            params: vec![leaf],
            opt_state: vec![],
            batch: vec![],
            probe_seed: Hash32::ZERO,
            challenge_key_commitment: Hash32::ZERO,
            session_key: None,
            rank: None,
        }
    }

    #[test]
    fn only_a_failed_state_check_records_a_bias_and_only_one_that_refuses() {
        let bias = |value| LeafBias {
            leaf: 0,
            kind: BiasKind::Scale,
            value,
            limit: 1e-4,
        };
        let mut check = CheckBody {
            step: 0,
            kind: CheckKind::State,
            indices: vec![],
            committed: vec![1.0],
            recomputed: vec![1.05],
            tolerance: Tolerance::fixed(0.1, 0.0),
            spread: vec![],
            verdict: Verdict::Fail,
            replay_length: 0,
            outliers: 0,
            bias: Some(bias(1e-3)),
            scale: None,
        };
        // The pair agrees; the bias fails the check.
        assert_eq!(check.validate(&root()), Ok(()));
        for (verdict, value) in [(Verdict::Pass, 1e-3), (Verdict::Fail, 1e-5)] {
            check.verdict = verdict;
            check.bias = Some(bias(value));
            let error = check.validate(&root()).unwrap_err();
            assert!(matches!(error, InvalidCheck::Bias { .. }), "{error}");
        }
        check.kind = CheckKind::Update;
        check.indices = vec![1];
        check.bias = Some(bias(1e-3));
        assert!(matches!(
            check.validate(&root()),
            Err(InvalidCheck::Bias { .. })
        ));
    }

    #[test]
    fn a_row_scale_lowers_the_recorded_pairs_absolute_term_on_a_state_check_only() {
        // A second moment of 1e-7 against a replay of 3e-7: within an absolute term of 1e-6,
        // outside that term scaled to its row (rel 1e-5 times a row of 1e-6 at most).
        let mut check = CheckBody {
            step: 0,
            kind: CheckKind::State,
            indices: vec![],
            committed: vec![1e-7],
            recomputed: vec![3e-7],
            tolerance: Tolerance::fixed(1e-6, 1e-5),
            spread: vec![],
            verdict: Verdict::Pass,
            replay_length: 0,
            outliers: 0,
            bias: None,
            scale: None,
        };
        assert_eq!(check.validate(&root()), Ok(()));
        check.scale = Some(1e-6);
        assert!(matches!(
            check.validate(&root()),
            Err(InvalidCheck::Verdict { .. })
        ));
        check.verdict = Verdict::Fail;
        assert_eq!(check.validate(&root()), Ok(()));
        assert_eq!(check.pair_tolerance().abs, 1e-5 * 1e-6);
        // Never above the recorded absolute term, whatever the scale.
        check.scale = Some(1e9);
        assert_eq!(check.pair_tolerance(), check.tolerance);
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            check.scale = Some(bad);
            assert!(matches!(
                check.validate(&root()),
                Err(InvalidCheck::Scale(_))
            ));
        }
        check.kind = CheckKind::Update;
        check.indices = vec![0];
        check.scale = Some(1e-6);
        assert_eq!(check.validate(&root()), Err(InvalidCheck::Scale(1e-6)));
    }
}
