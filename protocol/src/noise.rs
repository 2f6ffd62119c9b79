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

use serde::Serialize;
use zkdv_hashing::DType;

/// The largest root mean square of a comparison's noise units (see the
/// module's text) that passes.
///
/// Honest replays of the model zoo (f32, bf16 and f16 programs) stay
/// below 1 (`docs/soundness.md`, "The noise test"); 2 leaves twice that.
pub const NOISE_RMS: f64 = 2.0;

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

/// A running account of a comparison's noise units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
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
        if !(committed.is_finite() && recomputed.is_finite()) {
            return;
        }
        let Some(unit) = ulp(dtype, committed) else {
            return;
        };
        let z = (committed - recomputed).abs() / unit.max(spread);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
