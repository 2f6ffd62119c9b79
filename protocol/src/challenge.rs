//! Challenge derivation: which steps are checked, and at which coordinates.
//!
//! For step `t` with step-record hash `h` (plain blake3 of the record's exact
//! bytes), the challenge stream is the blake3 XOF output of
//! `keyed_hash(challenge_key, "zkdv protocol v1 challenge" || h)`, read as
//! consecutive little-endian `u64` words `w0, w1, w2, ...`:
//!
//! - `w0` decides the state check and `w1` the update check: a check is
//!   sampled when `(w >> 11) * 2^-53 < p`. Under the debug policy
//!   `Every { n }` both are sampled exactly when `(t + 1) % n == 0` (the
//!   words are still consumed).
//! - The parameter index is the first word `w` from `w2` on with
//!   `w >= 2^64 mod n`, reduced `w mod n`; the optimizer-state
//!   index is the next accepted word for its own `n`, and absent when the
//!   optimizer state is empty. Rejection makes both exactly uniform.
//!
//! The key is secret until the close record reveals it; the root commits to
//! `derive_key("zkdv protocol v1 challenge key commitment", key)`.

use crate::error::Problem;
use crate::hash::{
    Hash32, AUDIT_DOMAIN, AUDIT_KEY_CONTEXT, CHALLENGE_DOMAIN, KEY_COMMITMENT_CONTEXT,
};
use crate::records::Sampling;

/// What the verifier challenges at one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Challenge {
    /// Whether a state check is sampled.
    pub state: bool,
    /// Whether an update check is sampled.
    pub update: bool,
    /// Index into the concatenation of all parameter (= delta) leaves.
    pub parameter_index: u64,
    /// Index into the concatenation of all optimizer-state leaves; `None`
    /// when the optimizer state is empty.
    pub optimizer_state_index: Option<u64>,
}

impl Challenge {
    /// The indices an update check must record, in order.
    pub fn update_indices(&self) -> Vec<u64> {
        std::iter::once(self.parameter_index)
            .chain(self.optimizer_state_index)
            .collect()
    }
}

/// The root record's commitment to a challenge key.
pub fn key_commitment(key: &Hash32) -> Hash32 {
    Hash32::derive(KEY_COMMITMENT_CONTEXT, key.as_bytes())
}

/// Words of the challenge stream of one step.
struct Stream(blake3::OutputReader);

impl Stream {
    fn new(key: &Hash32, record_hash: &Hash32) -> Stream {
        Stream::in_domain(key, CHALLENGE_DOMAIN, record_hash)
    }

    fn in_domain(key: &Hash32, domain: &[u8], record_hash: &Hash32) -> Stream {
        let mut hasher = blake3::Hasher::new_keyed(key.as_bytes());
        hasher.update(domain);
        hasher.update(record_hash.as_bytes());
        Stream(hasher.finalize_xof())
    }

    fn word(&mut self) -> u64 {
        let mut buf = [0u8; 8];
        self.0.fill(&mut buf);
        u64::from_le_bytes(buf)
    }

    fn unit(&mut self) -> f64 {
        (self.word() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)`, `n >= 1`: reject words below `2^64 mod n`
    /// (the same rule as the probe maps of `zkdv-hashing`).
    fn below(&mut self, n: u64) -> u64 {
        let threshold = (u64::MAX % n + 1) % n;
        loop {
            let w = self.word();
            if w >= threshold {
                return w % n;
            }
        }
    }
}

/// Derive the challenge of step `step` whose record hashes to `record_hash`.
///
/// `parameters` and `optimizer_state` are the element counts of the root's
/// layouts; `parameters` must be at least 1.
///
/// ```
/// use zkdv_protocol::{derive_challenge, Hash32, Sampling};
/// let key = Hash32([7; 32]);
/// let every = Sampling::Every { n: 2 };
/// let c = derive_challenge(&key, &Hash32::of(b"step"), 1, &every, 10, 0).unwrap();
/// assert!(c.state && c.update);
/// assert!(c.parameter_index < 10);
/// assert_eq!(c.optimizer_state_index, None);
/// ```
pub fn derive_challenge(
    key: &Hash32,
    record_hash: &Hash32,
    step: u64,
    sampling: &Sampling,
    parameters: u64,
    optimizer_state: u64,
) -> Result<Challenge, Problem> {
    if parameters == 0 {
        return Err(Problem::Invalid(
            "cannot derive a challenge: the parameter layout has no elements".into(),
        ));
    }
    let mut stream = Stream::new(key, record_hash);
    let (u_state, u_update) = (stream.unit(), stream.unit());
    let (state, update) = match *sampling {
        Sampling::Probability {
            state_check_probability,
            update_check_probability,
        } => (
            u_state < state_check_probability,
            u_update < update_check_probability,
        ),
        Sampling::Every { n } => {
            if n == 0 {
                return Err(Problem::Invalid(
                    "sampling period must be at least 1".into(),
                ));
            }
            let due = (step % n) == n - 1;
            (due, due)
        }
    };
    let parameter_index = stream.below(parameters);
    let optimizer_state_index = (optimizer_state > 0).then(|| stream.below(optimizer_state));
    Ok(Challenge {
        state,
        update,
        parameter_index,
        optimizer_state_index,
    })
}

/// An auditor's challenge at one step, drawn after the transcript is final
/// from randomness the prover never saw ([`audit_key`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuditChallenge {
    /// Uniform in `[0, 1)`: the step is audited under `--fraction F` when
    /// `draw < F`; `--steps N` audits the `N` steps of smallest draw.
    pub draw: f64,
    /// The parameter (= delta) coordinate the audit compares.
    pub parameter_index: u64,
    /// The optimizer-state coordinate, `None` for an empty optimizer state.
    pub optimizer_state_index: Option<u64>,
}

/// The auditor's key: `derive_key("zkdv protocol v1 audit key", seed)`,
/// where `seed` is the auditor's own randomness (a secret, or a public
/// beacon value published after the transcript was closed).
pub fn audit_key(seed: &[u8]) -> Hash32 {
    Hash32::derive(AUDIT_KEY_CONTEXT, seed)
}

/// The audit challenge of the step whose record hashes to `record_hash`:
/// the stream of [`derive_challenge`], keyed by the auditor's key under the
/// domain `"zkdv protocol v1 audit challenge"`. Word 0 is the draw; the
/// indices follow, as a check's do.
pub fn derive_audit_challenge(
    key: &Hash32,
    record_hash: &Hash32,
    parameters: u64,
    optimizer_state: u64,
) -> Result<AuditChallenge, Problem> {
    if parameters == 0 {
        return Err(Problem::Invalid(
            "cannot derive an audit challenge: the parameter layout has no elements".into(),
        ));
    }
    let mut stream = Stream::in_domain(key, AUDIT_DOMAIN, record_hash);
    let draw = stream.unit();
    let parameter_index = stream.below(parameters);
    let optimizer_state_index = (optimizer_state > 0).then(|| stream.below(optimizer_state));
    Ok(AuditChallenge {
        draw,
        parameter_index,
        optimizer_state_index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampling(p: f64) -> Sampling {
        Sampling::Probability {
            state_check_probability: p,
            update_check_probability: p,
        }
    }

    #[test]
    fn probability_extremes() {
        let key = Hash32([1; 32]);
        for t in 0..200u64 {
            let h = Hash32::of(&t.to_le_bytes());
            let never = derive_challenge(&key, &h, t, &sampling(0.0), 5, 5).unwrap();
            let always = derive_challenge(&key, &h, t, &sampling(1.0), 5, 5).unwrap();
            assert!(!never.state && !never.update);
            assert!(always.state && always.update);
            assert_eq!(never.parameter_index, always.parameter_index);
        }
    }

    #[test]
    fn sampling_rate_and_index_uniformity() {
        let key = Hash32([2; 32]);
        let n = 7u64;
        let trials = 20_000u64;
        let (mut states, mut updates) = (0u64, 0u64);
        let mut hist = [0u64; 7];
        for t in 0..trials {
            let h = Hash32::of(&t.to_le_bytes());
            let c = derive_challenge(&key, &h, t, &sampling(0.25), n, 3).unwrap();
            states += u64::from(c.state);
            updates += u64::from(c.update);
            hist[c.parameter_index as usize] += 1;
            assert!(c.optimizer_state_index.unwrap() < 3);
        }
        // Binomial standard deviation is about 61 here; allow 5 sigma.
        for count in [states, updates] {
            assert!((count as i64 - 5000).abs() < 310, "count {count}");
        }
        let expected = trials as f64 / n as f64;
        let chi2: f64 = hist
            .iter()
            .map(|&o| (o as f64 - expected).powi(2) / expected)
            .sum();
        // 6 degrees of freedom: p = 0.001 at 22.46.
        assert!(chi2 < 22.46, "chi2 {chi2}, histogram {hist:?}");
    }

    #[test]
    fn every_policy_and_bounds() {
        let key = Hash32([3; 32]);
        let h = Hash32::of(b"x");
        for t in 0..12u64 {
            let c = derive_challenge(&key, &h, t, &Sampling::Every { n: 3 }, 1, 0).unwrap();
            assert_eq!(c.state, t % 3 == 2);
            assert_eq!(c.update, c.state);
            assert_eq!(c.parameter_index, 0);
        }
        let huge = derive_challenge(&key, &h, 0, &sampling(0.5), u64::MAX, u64::MAX).unwrap();
        assert!(huge.parameter_index < u64::MAX);
        assert!(derive_challenge(&key, &h, 0, &sampling(0.5), 0, 1).is_err());
        assert!(derive_challenge(&key, &h, 0, &Sampling::Every { n: 0 }, 1, 1).is_err());
    }

    #[test]
    fn key_changes_everything() {
        let h = Hash32::of(b"record");
        let a = derive_challenge(&Hash32([4; 32]), &h, 0, &sampling(0.5), 1 << 40, 1 << 40);
        let b = derive_challenge(&Hash32([5; 32]), &h, 0, &sampling(0.5), 1 << 40, 1 << 40);
        assert_ne!(a.unwrap(), b.unwrap());
    }

    #[test]
    fn audit_challenges_are_the_auditors_own() {
        // The same record under the prover's key and under an auditor's key
        // gives unrelated streams; an auditor's seed alone fixes its draws.
        let record = Hash32::of(b"step 3");
        let key = audit_key(b"beacon 2026-12-01");
        let a = derive_audit_challenge(&key, &record, 1000, 10).unwrap();
        assert_eq!(a, derive_audit_challenge(&key, &record, 1000, 10).unwrap());
        let other = derive_audit_challenge(&audit_key(b"another"), &record, 1000, 10).unwrap();
        assert_ne!(a.draw, other.draw);
        assert!(a.parameter_index < 1000 && a.optimizer_state_index.unwrap() < 10);
        assert!(derive_audit_challenge(&key, &record, 0, 0).is_err());
        // Draws are uniform: the fraction below 0.25 over many records.
        let below = (0..4000u32)
            .filter(|i| {
                let h = Hash32::of(&i.to_le_bytes());
                derive_audit_challenge(&key, &h, 5, 0).unwrap().draw < 0.25
            })
            .count();
        assert!((900..1100).contains(&below), "{below}");
    }
}
