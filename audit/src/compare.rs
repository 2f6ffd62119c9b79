//! The audit's comparisons, each through the protocol's tolerance rule
//! ([`Tolerance::compare`], or [`noise::compare_state`] where outliers are
//! admitted): a step's replayed update sketches against the retained ones,
//! the replayed state against the next retained snapshot, and the attested
//! program at the audit's coordinates against the replay's values there. Each names its first difference as a
//! [`Failure`].

use zkdv_hashing::DType;
use zkdv_protocol::evidence::Bundle;
use zkdv_protocol::noise::{
    self, leaf_outlier_allowance, outlier_allowance, outlier_cap, row_scales, ulp, Residuals,
};
use zkdv_protocol::{AuditChallenge, Leaf, Outcome, Tolerance, ToleranceError};
use zkdv_runtime::{Program, Tensor};

use crate::replay::{run_as, StepError};
use crate::transcript::Transcript;
use crate::values::{flat_element, LeafValues};
use crate::{Failure, FailureKind};

/// The failure a refused pair of a comparison at `step` makes.
fn failure(step: u64, what: String, refused: Outcome) -> Failure {
    Failure {
        step,
        what,
        committed: refused.committed,
        recomputed: refused.recomputed,
        allowed: refused.allowed,
        kind: FailureKind::Pair,
        noise: None,
    }
}

/// The pair a comparison refused, if any.
fn refused(outcome: Option<Outcome>) -> Option<Outcome> {
    outcome.filter(|o| !o.passed)
}

/// What the perturbation ensemble measured of a step's update sketches.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ensemble<'a> {
    /// The spread of each sketch value.
    pub(crate) spread: &'a [f64],
    /// Each update leaf's largest member scale ([`noise::member_scales`];
    /// empty counts as 0).
    pub(crate) scales: &'a [f64],
}

/// The update sketches' runs of values, one per leaf of `update`, as a
/// state comparison groups them. A sketch keeps its parameter's leading
/// dimensions, so its rows ([`noise::Group::row`]) are those of the
/// parameter of `params` (the root's layout) that it sketches, never of the
/// shape the evidence bundle records: the prover writes that shape, and one
/// row over a whole leaf would give every value the leaf's floor.
pub(crate) fn sketch_groups(update: &Bundle, params: &[Leaf]) -> Vec<noise::Group> {
    update
        .leaves
        .iter()
        .map(|leaf| {
            let len = leaf.data.len() / leaf.dtype.size_bytes().max(1);
            let group = noise::Group::new(len, ulp(leaf.dtype, 1.0).is_some()).sketches();
            let path = leaf.path.strip_prefix("local_grad/").unwrap_or(&leaf.path);
            let lead = params
                .iter()
                .find(|p| p.path == path)
                .filter(|p| p.shape.len() >= 2)
                .and_then(|p| usize::try_from(p.shape[0]).ok())
                .filter(|&lead| lead > 0 && len % lead == 0);
            match lead {
                Some(lead) => noise::Group {
                    row: len / lead,
                    ..group
                },
                None => group,
            }
        })
        .collect()
}

/// Step `step`'s retained update sketch values (`committed`, from `update`)
/// against the replay's, with the measured `spread` when there is one.
///
/// They are compared as a state ([`noise::compare_state`], one run of
/// values per leaf of `update`, no value given the change of sign of an
/// update), the rule PyTorch's in-process state check applies to the same
/// values: a sketch value is an update coordinate, and in a program that
/// computes in a narrow float (`flips`) a few of them may be discrete flips,
/// each within its leaf's largest spread. In an `f32` program every value
/// must be within its bound. Returns the failure, if any, and the outliers
/// admitted.
#[allow(clippy::too_many_arguments)]
pub(crate) fn update_sketches(
    tolerance: &Tolerance,
    step: u64,
    update: &Bundle,
    params: &[Leaf],
    committed: &[f64],
    recomputed: &[f64],
    ensemble: Option<Ensemble<'_>>,
    flips: bool,
) -> Result<(Option<Failure>, u64), ToleranceError> {
    let mut groups = sketch_groups(update, params);
    if let Some(scales) = ensemble.map(|e| e.scales) {
        for (group, &scale) in groups.iter_mut().zip(scales) {
            group.scale_spread = scale;
        }
    }
    let unchanged = vec![0.0; committed.len()];
    let spread = ensemble.map(|e| e.spread);
    let compared = noise::compare_state(
        tolerance, committed, recomputed, spread, &unchanged, &groups, flips,
    )?;
    let Some(compared) = compared else {
        return Ok((None, 0));
    };
    if let Some(bias) = compared.bias {
        let path = usize::try_from(bias.leaf)
            .ok()
            .and_then(|leaf| update.leaves.get(leaf))
            .map_or_else(|| format!("leaf {}", bias.leaf), |leaf| leaf.path.clone());
        let what = match bias.kind {
            noise::BiasKind::Scale => {
                format!(
                    "update sketches of {path}: their differences follow the replay's scaled by"
                )
            }
            noise::BiasKind::Mean => format!(
                "update sketches of {path}: their differences average, in units of their spread,"
            ),
        };
        let failure = Failure {
            step,
            what,
            committed: bias.value,
            recomputed: 0.0,
            allowed: bias.limit,
            kind: FailureKind::Bias,
            noise: None,
        };
        return Ok((Some(failure), 0));
    }
    let failure = refused(Some(compared.outcome)).map(|o| {
        let what = locate(update, o.index).map_or_else(
            || format!("update sketch value {}", o.index),
            |(path, k)| format!("update sketch of {path}[{k}]"),
        );
        failure(step, what, o)
    });
    Ok((failure, compared.outliers))
}

/// A snapshot comparison's values, leaf by leaf, as a failure names its
/// pair: the retained snapshot's tensors (`theirs`), the replayed state
/// (`mine`), their types, and the measured `spread` of each leaf when
/// there is one.
pub(crate) struct StateValues<'a> {
    pub(crate) theirs: &'a dyn LeafValues,
    pub(crate) mine: &'a dyn LeafValues,
    pub(crate) dtypes: &'a [DType],
    pub(crate) spread: Option<&'a dyn LeafValues>,
}

/// One leaf of a snapshot comparison ([`StateValues`], one leaf's values).
pub(crate) struct LeafPair<'a> {
    pub(crate) theirs: &'a [f64],
    pub(crate) mine: &'a [f64],
    /// The leaf at the segment's start, if the state has it.
    pub(crate) initial: Option<&'a [f64]>,
    pub(crate) dtype: Option<DType>,
    pub(crate) spread: Option<&'a [f64]>,
    /// The values that share the leaf's first index.
    pub(crate) row: usize,
}

/// A snapshot comparison made leaf by leaf, so that only one leaf's values
/// are held at a time: each pair within the tolerance, except at most
/// [`outlier_allowance`] float outliers, at most [`leaf_outlier_allowance`]
/// of them in any one leaf, each within its [`outlier_cap`] (a change of
/// sign of its replayed update, or in a narrow-float program, a flip as
/// large as its leaf's spread shows). The first failure ends the
/// comparison; later leaves are not looked at.
pub(crate) struct SnapshotCheck<'t, P> {
    path: P,
    tolerance: &'t Tolerance,
    step: u64,
    flips: bool,
    outliers: Vec<Failure>,
    /// Float values compared.
    values: u64,
    /// The failure, and the outliers it reports as accepted.
    failed: Option<(Failure, u64)>,
}

impl<'t, P: Fn(usize) -> String> SnapshotCheck<'t, P> {
    /// A comparison at snapshot `step + 1` whose leaf `i` is named
    /// `path(i)`.
    pub(crate) fn new(path: P, tolerance: &'t Tolerance, step: u64, flips: bool) -> Self {
        SnapshotCheck {
            path,
            tolerance,
            step,
            flips,
            outliers: Vec::new(),
            values: 0,
            failed: None,
        }
    }

    /// Compare leaf `leaf`.
    pub(crate) fn leaf(&mut self, leaf: usize, v: &LeafPair<'_>) {
        if self.failed.is_none() {
            self.failed = self.compare(leaf, v);
        }
    }

    /// The failure, if any, and the outliers accepted.
    pub(crate) fn finish(mut self) -> (Option<Failure>, u64) {
        if let Some((failure, outliers)) = self.failed {
            return (Some(failure), outliers);
        }
        let allowed = outlier_allowance(self.values);
        if self.outliers.len() as u64 > allowed {
            let count = self.outliers.len() as u64;
            let first = self.outliers.swap_remove(0);
            let of = self.values.to_string();
            return (Some(too_many(first, count, &of, allowed)), 0);
        }
        (None, self.outliers.len() as u64)
    }

    fn compare(&mut self, leaf: usize, v: &LeafPair<'_>) -> Option<(Failure, u64)> {
        let (step, flips) = (self.step, self.flips);
        let (a, b, row, dtype) = (v.theirs, v.mine, v.row, v.dtype);
        // Each value's tolerance with the absolute term of its row's own scale.
        let scales = row_scales(b, row);
        let tolerance = self.tolerance;
        let scaled =
            |i: usize| tolerance.scaled_to(scales.get(i / row.max(1)).copied().unwrap_or(0.0));
        let float = dtype.is_some_and(|d| ulp(d, 1.0).is_some());
        let start = v.initial;
        let measured = v.spread;
        let typical = match measured {
            Some(s) if flips => noise::leaf_spread(s),
            _ => 0.0,
        };
        let floored = measured
            .filter(|_| flips && float)
            .map(|s| noise::row_spread(s, row));
        let leaf_spread = floored.as_deref().or(measured);
        // The far rule's spreads floored at a share of their row's, as a narrow program's
        // bounds are: a value whose eight members happened to agree is not far for that alone.
        let far_spread = measured
            .filter(|_| !flips && float)
            .map(|s| noise::row_spread(s, row));
        let first_of_leaf = self.outliers.len();
        let counts = float && start.is_some_and(|x0| counter(x0, b));
        let path = &self.path;
        for (i, (&c, &r)) in a.iter().zip(b).enumerate() {
            if counts {
                // A counter (Adam's step) is exact: neither rounding noise nor an outlier.
                if c != r {
                    let pair = Failure {
                        step,
                        what: format!(
                            "state {}[{i}] at snapshot {} (a counter: it must be exact)",
                            path(leaf),
                            step + 1
                        ),
                        committed: c,
                        recomputed: r,
                        allowed: 0.0,
                        kind: FailureKind::Pair,
                        noise: None,
                    };
                    return Some((pair, self.outliers.len() as u64));
                }
                continue;
            }
            if float {
                self.values += 1;
            }
            let s = leaf_spread.and_then(|s| s.get(i)).copied().unwrap_or(0.0);
            let tolerance = &scaled(i);
            if tolerance.accepts(c, r, s) {
                // Within its bound, but far beyond rounding noise: an outlier too (f32).
                let far = match (dtype, &far_spread) {
                    (Some(d), Some(f)) => {
                        let s = f.get(i).copied().unwrap_or(s);
                        noise::noise_unit(d, c, r, s).filter(|z| z.abs() > noise::FAR_UNITS)
                    }
                    _ => None,
                };
                if let Some(z) = far {
                    self.outliers.push(Failure {
                        step,
                        what: format!(
                            "state {}[{i}] at snapshot {} ({:.1} noise units from the replay, \
                             within its bound but more than rounding noise)",
                            path(leaf),
                            step + 1,
                            z.abs()
                        ),
                        committed: c,
                        recomputed: r,
                        allowed: tolerance.bound(c, s),
                        kind: FailureKind::Pair,
                        noise: None,
                    });
                }
                continue;
            }
            let what = format!("state {}[{i}] at snapshot {}", path(leaf), step + 1);
            let bound = if c.is_finite() {
                tolerance.bound(c, s)
            } else {
                0.0
            };
            let update = start
                .and_then(|x| x.get(i))
                .map_or(0.0, |&x0| (r - x0).abs());
            let cap = outlier_cap(tolerance, c, s, update, typical);
            let pair = Failure {
                step,
                what,
                committed: c,
                recomputed: r,
                allowed: bound,
                kind: FailureKind::Pair,
                noise: None,
            };
            let within_cap = (c - r).abs() <= cap;
            if !(float && c.is_finite() && r.is_finite() && within_cap) {
                return Some((pair, self.outliers.len() as u64));
            }
            self.outliers.push(pair);
        }
        let in_leaf = (self.outliers.len() - first_of_leaf) as u64;
        let leaf_values = if float {
            a.len().min(b.len()) as u64
        } else {
            0
        };
        // A leaf of one value (Adam's per-parameter step, a loss scale) has no outliers: a
        // value held off its replay there is the whole leaf.
        let allowed = if leaf_values <= 1 {
            0
        } else {
            leaf_outlier_allowance(leaf_values)
        };
        if in_leaf > allowed {
            let first = self.outliers.swap_remove(first_of_leaf);
            let of = format!("this leaf's {leaf_values}");
            return Some((too_many(first, in_leaf, &of, allowed), 0));
        }
        None
    }
}

/// Whether a leaf's pairs need the ensemble's spread under `tolerance`
/// scaled to each row ([`row_scales`]), as [`snapshot`] compares them.
pub(crate) fn needs_spread(
    tolerance: &Tolerance,
    theirs: &[f64],
    mine: &[f64],
    row: usize,
) -> bool {
    let scales = row_scales(mine, row);
    tolerance.replays > 0
        && theirs.iter().zip(mine).enumerate().any(|(i, (&c, &r))| {
            let scale = scales.get(i / row.max(1)).copied().unwrap_or(0.0);
            !tolerance.scaled_to(scale).accepts(c, r, 0.0)
        })
}

/// Whether a float leaf is a counter (Adam's per-parameter `step`, an
/// integer kept in a float): every value an integer before the segment
/// (`initial`) and after its replay (`replayed`), and some of them changed.
/// Its values are never outliers and have no tolerance: a counter held in
/// place (so that Adam's bias correction stays large) is no rounding flip.
/// A float weight whose values all stay integers while some move is not
/// one that training produces.
pub(crate) fn counter(initial: &[f64], replayed: &[f64]) -> bool {
    let integral =
        |x: &f64| x.is_finite() && x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15;
    !replayed.is_empty()
        && initial.len() == replayed.len()
        && initial.iter().chain(replayed).all(integral)
        && initial.iter().zip(replayed).any(|(a, b)| a != b)
}

/// `first`, the failure of a comparison with `count` outliers among `of`
/// values, more than the `allowed` that its allowance admits.
fn too_many(mut first: Failure, count: u64, of: &str, allowed: u64) -> Failure {
    first.what = format!(
        "{} ({count} of {of} values outside the tolerance, at most {allowed} allowed as \
         outliers)",
        first.what
    );
    first
}

/// The failure of a snapshot comparison whose pairs are each within
/// tolerance but whose differences together are more than rounding noise
/// (`residuals`, [`zkdv_protocol::noise`]): it names the pair of largest
/// noise unit.
pub(crate) fn noise(
    t: &Transcript,
    step: u64,
    v: &StateValues<'_>,
    residuals: Residuals,
) -> Failure {
    let mut worst = (0.0f64, 0usize, 0usize);
    for leaf in 0..v.dtypes.len() {
        if let Some((z, i)) = largest_unit(leaf, v) {
            if z > worst.0 {
                worst = (z, leaf, i);
            }
        }
    }
    let (_, leaf, i) = worst;
    let value = |v: &dyn LeafValues| v.leaf(leaf).get(i).copied().unwrap_or(0.0);
    Failure {
        step,
        what: format!(
            "state at snapshot {} (largest at {}[{i}])",
            step + 1,
            t.state_path(leaf)
        ),
        committed: value(v.theirs),
        recomputed: value(v.mine),
        allowed: 0.0,
        kind: FailureKind::Noise,
        noise: Some(residuals),
    }
}

/// The largest noise unit of `leaf` and its index (the first of equals),
/// or `None` when it has no float pair.
fn largest_unit(leaf: usize, v: &StateValues<'_>) -> Option<(f64, usize)> {
    let dtype = *v.dtypes.get(leaf)?;
    let (a, b) = (v.theirs.leaf(leaf), v.mine.leaf(leaf));
    let spread = v.spread.map(|s| s.leaf(leaf));
    let mut worst: Option<(f64, usize)> = None;
    for (i, (&c, &r)) in a.iter().zip(b.iter()).enumerate() {
        let s = spread.as_ref().and_then(|s| s.get(i));
        if let Some(z) = noise::noise_unit(dtype, c, r, s.copied().unwrap_or(0.0)) {
            if worst.is_none_or(|(w, _)| z.abs() > w) {
                worst = Some((z.abs(), i));
            }
        }
    }
    worst
}

/// The failure of the per-leaf noise test
/// ([`zkdv_protocol::noise::leaf_residuals`]): `leaf`'s `account` exceeded
/// `limit`; names its largest pair.
pub(crate) fn leaf_noise(
    t: &Transcript,
    step: u64,
    (leaf, account, limit): (usize, Residuals, f64),
    v: &StateValues<'_>,
) -> Failure {
    let i = largest_unit(leaf, v).map_or(0, |(_, i)| i);
    let value = |v: &dyn LeafValues| v.leaf(leaf).get(i).copied().unwrap_or(0.0);
    Failure {
        step,
        what: format!(
            "state at snapshot {}, leaf {} (largest at [{i}])",
            step + 1,
            t.state_path(leaf)
        ),
        committed: value(v.theirs),
        recomputed: value(v.mine),
        allowed: limit,
        kind: FailureKind::Noise,
        noise: Some(account),
    }
}

/// The attested program at the audit's coordinates against the replay's
/// values there (`outputs` of the replay from `inputs`); `Some` names the
/// first difference (with step 0: the caller knows the step).
pub(crate) fn attested(
    attested: &Program,
    inputs: Vec<Tensor>,
    outputs: &[Tensor],
    challenge: &AuditChallenge,
    n_params: usize,
    n_state: usize,
    tolerance: &Tolerance,
) -> Result<Option<Failure>, StepError> {
    let index = |i: u64| {
        Tensor::from_le_bytes(DType::U64, &[], &i.to_le_bytes()).map_err(|e| e.to_string())
    };
    let mut arguments = inputs;
    arguments.push(index(challenge.parameter_index)?);
    arguments.push(index(challenge.optimizer_state_index.unwrap_or(0))?);
    let run = |member: Option<u64>| -> Result<Vec<f64>, String> {
        let results = run_as(attested, arguments.clone(), member)
            .map_err(|e| format!("the attested program failed: {e}"))?;
        results
            .iter()
            .take(2)
            .map(|r| flat_element(std::slice::from_ref(r), 0))
            .collect()
    };
    let recomputed = run(None)?;
    // What the replay computed there: the delta, then the post-optimizer state.
    let missing = || {
        format!(
            "the replay program returns {} results, fewer than the state and a delta per \
             parameter",
            outputs.len()
        )
    };
    let deltas = outputs
        .get(n_state..n_state + n_params)
        .ok_or_else(missing)?;
    let post_state = outputs.get(n_params..n_state).ok_or_else(missing)?;
    let mut reference = vec![f64::from(
        flat_element(deltas, challenge.parameter_index)? as f32
    )];
    if let Some(s) = challenge.optimizer_state_index {
        reference.push(f64::from(flat_element(post_state, s)? as f32));
    }
    // The values both give.
    let n = reference.len().min(recomputed.len());
    let (reference, recomputed) = (&reference[..n], &recomputed[..n]);
    let spread = if tolerance.needs_spread(reference, recomputed) {
        Some(
            tolerance.measure_spread(recomputed, |m| -> Result<_, StepError> {
                let mut values = run(Some(m))?;
                values.truncate(n);
                Ok(values)
            })?,
        )
    } else {
        None
    };
    let outcome = tolerance.compare(reference, recomputed, spread.as_deref())?;
    Ok(refused(outcome).map(|o| {
        let what = if o.index == 0 {
            format!(
                "attested delta at parameter index {}",
                challenge.parameter_index
            )
        } else {
            format!(
                "attested optimizer state at index {}",
                challenge.optimizer_state_index.unwrap_or(0)
            )
        };
        failure(0, what, o)
    }))
}

/// The leaf and position of flat sketch value `i`.
fn locate(update: &Bundle, mut i: usize) -> Option<(String, usize)> {
    for leaf in &update.leaves {
        let n = leaf.data.len() / leaf.dtype.size_bytes().max(1);
        if i < n {
            return Some((leaf.path.clone(), i));
        }
        i -= n;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot comparison's values, as slices of leaves: `initial` is
    /// the segment's first state, `rows` each leaf's row and `flips`
    /// whether the program computes in a narrow float.
    struct StateValues<'a> {
        theirs: &'a [Vec<f64>],
        mine: &'a [Vec<f64>],
        initial: &'a [Vec<f64>],
        dtypes: &'a [DType],
        spread: Option<&'a [Vec<f64>]>,
        rows: &'a [usize],
        flips: bool,
    }

    /// [`SnapshotCheck`] over every leaf of `v`, as the audit runs it.
    fn snapshot(
        path: impl Fn(usize) -> String,
        tolerance: &Tolerance,
        step: u64,
        v: &StateValues<'_>,
    ) -> (Option<Failure>, u64) {
        let mut check = SnapshotCheck::new(path, tolerance, step, v.flips);
        for (leaf, (a, b)) in v.theirs.iter().zip(v.mine).enumerate() {
            check.leaf(
                leaf,
                &LeafPair {
                    theirs: a,
                    mine: b,
                    initial: v.initial.get(leaf).map(Vec::as_slice),
                    dtype: v.dtypes.get(leaf).copied(),
                    spread: v.spread.and_then(|s| s.get(leaf)).map(Vec::as_slice),
                    row: v.rows.get(leaf).copied().unwrap_or(a.len()),
                },
            );
        }
        check.finish()
    }
    use zkdv_protocol::evidence::EvidenceLeaf;

    fn update(leaves: &[(&str, usize)]) -> Bundle {
        let mut bundle = Bundle::default();
        for &(path, n) in leaves {
            bundle.leaves.push(EvidenceLeaf {
                path: path.into(),
                dtype: DType::F32,
                shape: vec![n as u64],
                data: vec![0; 4 * n],
            });
        }
        bundle
    }

    #[test]
    fn sketch_rows_follow_the_roots_parameter_not_the_recorded_shape() {
        // A 10 x 8 weight sketched to 10 x 2, a bias, and a DDP rank's own
        // gradient of the weight; the bundle records every leaf as flat.
        let mut bundle = update(&[("w", 20), ("b", 4), ("local_grad/w", 20)]);
        bundle.leaves[0].shape = vec![1, 20]; // a prover's shape: one row
        let leaf = |path: &str, shape: &[u64]| Leaf {
            path: path.into(),
            dtype: "f32".into(),
            shape: shape.to_vec(),
        };
        let params = [leaf("w", &[10, 8]), leaf("b", &[4])];
        let rows: Vec<usize> = sketch_groups(&bundle, &params)
            .iter()
            .map(|g| g.row)
            .collect();
        assert_eq!(rows, [2, 4, 2]);
        // Without the layout, each leaf is one row.
        let rows: Vec<usize> = sketch_groups(&bundle, &[]).iter().map(|g| g.row).collect();
        assert_eq!(rows, [20, 4, 20]);
    }

    /// `snapshot` of an f32 program's leaves (`leaf0`, `leaf1`, ...) at
    /// step `step`, against `mine` replayed from `initial`, without spread.
    fn compare_f32(
        step: u64,
        theirs: &[Vec<f64>],
        mine: &[Vec<f64>],
        initial: &[Vec<f64>],
    ) -> (Option<Failure>, u64) {
        let dtypes = vec![DType::F32; mine.len()];
        let v = StateValues {
            theirs,
            mine,
            initial,
            dtypes: &dtypes,
            spread: None,
            rows: &[],
            flips: false,
        };
        snapshot(
            |l| format!("leaf{l}"),
            &Tolerance::fixed(1e-6, 1e-5),
            step,
            &v,
        )
    }

    #[test]
    fn the_absolute_term_is_no_larger_than_the_leafs_own_scale() {
        // Adam's second moments of about 1e-7, under the session's abs of 1e-6: one set to
        // zero (which makes its coordinate's step lr * m / eps) was inside its bound.
        let n = 20_000;
        let v: Vec<f64> = (0..n).map(|i| 1e-7 * (1.0 + (i % 7) as f64)).collect();
        // (Its update this step is small: no change of its sign reaches zero, an outlier's cap.)
        let initial = vec![v.iter().map(|x| x * 0.999).collect::<Vec<f64>>()];
        let mine = vec![v.clone()];
        let mut theirs = mine.clone();
        theirs[0][3] = 0.0;
        let (failure, _) = compare_f32(2, &theirs, &mine, &initial);
        let failure = failure.expect("a zeroed second moment fails");
        assert_eq!(failure.what, "state leaf0[3] at snapshot 3");
        assert!(failure.allowed < 1e-10, "{}", failure.allowed);
        // Its honest rounding (an ulp of f32) stays well inside.
        let mut rounded = mine.clone();
        rounded[0][3] *= 1.0 + f64::powi(2.0, -23);
        assert_eq!(compare_f32(2, &rounded, &mine, &initial), (None, 0));
    }

    #[test]
    fn in_an_f32_program_a_value_far_beyond_its_spread_is_an_outlier_within_its_bound() {
        let n = 2_000; // two outliers in the leaf, one in the comparison
        let initial = vec![vec![0.5; n]];
        let mine = vec![vec![0.5001; n]];
        let spread = vec![vec![1e-9; n]];
        let compare = |theirs: &[Vec<f64>], flips: bool| {
            let dtypes = [DType::F32];
            let v = StateValues {
                theirs,
                mine: &mine,
                initial: &initial,
                dtypes: &dtypes,
                spread: Some(&spread),
                rows: &[],
                flips,
            };
            snapshot(|l| format!("leaf{l}"), &Tolerance::fixed(1e-6, 1e-5), 0, &v)
        };
        // Two values moved by 1e-6 (about 17 ulps, far more than their spread, inside
        // abs + rel * |x| = 6e-6): more than the comparison's one outlier.
        let mut theirs = mine.clone();
        theirs[0][1] += 1e-6;
        theirs[0][2] += 1e-6;
        let (failure, _) = compare(&theirs, false);
        let what = failure.expect("two far values fail").what;
        assert!(
            what.contains("more than rounding noise") && what.contains("2 of 2000"),
            "{what}"
        );
        // One is an outlier; in a narrow-float program none is (flips move values honestly).
        theirs[0][2] = mine[0][2];
        assert_eq!(compare(&theirs, false), (None, 1));
        theirs[0][2] += 1e-6;
        assert_eq!(compare(&theirs, true), (None, 0));
    }

    #[test]
    fn a_counter_is_exact_and_never_an_outlier() {
        // Adam's per-parameter step, a float scalar, went 3 -> 4 in the replay; a prover
        // that held it at 3 (a change within twice its update, an outlier's cap) fails.
        let initial = vec![vec![3.0], vec![1.0; 20_000]];
        let mine = vec![vec![4.0], vec![1.001; 20_000]];
        let theirs = vec![vec![3.0], mine[1].clone()];
        let (failure, outliers) = compare_f32(3, &theirs, &mine, &initial);
        let failure = failure.expect("a held counter fails");
        assert_eq!(
            (failure.what.as_str(), failure.allowed, outliers),
            (
                "state leaf0[0] at snapshot 4 (a counter: it must be exact)",
                0.0,
                0
            )
        );
        assert_eq!(compare_f32(3, &mine, &mine, &initial), (None, 0));
        // A counter first made a non-integer (so that the rule above no longer applies) and
        // then held: a leaf of one value has no outliers.
        let (failure, _) = compare_f32(3, &[vec![3.5]], &[vec![4.5]], &[vec![3.5]]);
        assert!(failure.is_some_and(|f| f.what.contains("at most 0 allowed")));
        // Integer values that did not move are no counter; nor are moving weights.
        assert!(!counter(&[2.0, 0.0], &[2.0, 0.0]));
        assert!(!counter(&[1.0, 2.0], &[1.5, 2.0]));
        assert!(counter(&[0.0, 7.0], &[1.0, 8.0]));
    }

    #[test]
    fn a_snapshot_allows_a_few_outliers_each_within_a_change_of_sign_of_its_update() {
        let n = 20_000; // two outliers allowed
        let initial = vec![vec![1.0; n]];
        let mine = vec![vec![1.001; n]]; // every value updated by +0.001
        let compare = |theirs: &[Vec<f64>]| compare_f32(4, theirs, &mine, &initial);
        // Production's update of two values changed sign: accepted outliers.
        let mut theirs = mine.clone();
        theirs[0][10] = 0.999;
        theirs[0][20] = 0.999;
        assert_eq!(compare(&theirs), (None, 2));
        // A third is one too many; the failure names the first.
        theirs[0][30] = 0.999;
        let (failure, _) = compare(&theirs);
        let failure = failure.unwrap();
        assert_eq!(failure.kind, FailureKind::Pair);
        assert!(failure
            .what
            .starts_with("state leaf0[10] at snapshot 5 (3 of 20000 values"));
        // One value moved by more than a change of sign of its update: refused
        // alone, with its own bound.
        let mut theirs = mine.clone();
        theirs[0][7] = 0.9979;
        let (failure, outliers) = compare(&theirs);
        let failure = failure.unwrap();
        assert_eq!(
            (failure.what.as_str(), outliers),
            ("state leaf0[7] at snapshot 5", 0)
        );
        assert!((failure.allowed - (1e-6 + 1e-5 * 0.9979)).abs() < 1e-12);
        // A non-finite value is never an outlier.
        let mut theirs = mine.clone();
        theirs[0][3] = f64::NAN;
        assert!(compare(&theirs).0.is_some());
    }

    #[test]
    fn a_snapshot_admits_no_more_outliers_in_one_leaf_than_its_own_share() {
        // A 4-value leaf beside a 99,996-value one: the state admits ten
        // outliers, the small leaf two (a tampered update of a small leaf
        // would otherwise pass as the state's allowance of flips).
        let initial = vec![vec![1.0; 4], vec![1.0; 99_996]];
        let mine = vec![vec![1.001; 4], vec![1.001; 99_996]];
        let compare = |theirs: &[Vec<f64>]| compare_f32(0, theirs, &mine, &initial);
        let mut theirs = mine.clone();
        for i in [1, 2] {
            theirs[0][i] = 0.999;
        }
        for i in [5, 6, 7] {
            theirs[1][i] = 0.999;
        }
        assert_eq!(compare(&theirs), (None, 5));
        theirs[0][3] = 0.999;
        let failure = compare(&theirs).0.unwrap();
        assert_eq!(
            failure.what,
            "state leaf0[1] at snapshot 1 (3 of this leaf's 4 values outside the tolerance, \
             at most 2 allowed as outliers)"
        );
    }

    #[test]
    fn the_first_sketch_value_outside_the_tolerance_is_named_with_its_bound() {
        let tolerance = Tolerance {
            abs: 1e-6,
            rel: 1e-3,
            spread: 2.0,
            replays: 8,
        };
        let update = update(&[("w", 1), ("b", 2)]);
        let committed = [1.0, 2.0, 3.0];
        let compare = |recomputed: &[f64], spread: Option<&[f64]>| {
            let ensemble = spread.map(|spread| Ensemble {
                spread,
                scales: &[],
            });
            update_sketches(
                &tolerance,
                7,
                &update,
                &[],
                &committed,
                recomputed,
                ensemble,
                false,
            )
            .unwrap()
            .0
        };
        assert_eq!(compare(&[1.0, 2.0, 3.0], None), None);
        let f = compare(&[1.0, 2.01, 3.5], None).unwrap();
        assert_eq!(
            (f.step, f.what.as_str(), f.committed, f.recomputed),
            (7, "update sketch of b[0]", 2.0, 2.01)
        );
        assert!((f.allowed - (1e-6 + 2e-3)).abs() < 1e-12);
        // The spread widens the bound: 0.01 is inside 2e-3 + 2 * 0.005.
        assert_eq!(compare(&[1.0, 2.01, 3.5], Some(&[0.0, 0.005, 0.3])), None);
        // A NaN never passes, and allows nothing.
        let f = compare(&[1.0, 2.0, f64::NAN], None).unwrap();
        assert_eq!(f.what, "update sketch of b[1]");
        // Values of another count than the replay's are refused.
        assert!(
            update_sketches(&tolerance, 7, &update, &[], &committed, &[1.0], None, false).is_err()
        );
    }

    #[test]
    fn update_sketches_scaled_inside_every_bound_fail_by_their_direction() {
        let tolerance = Tolerance {
            abs: 1e-6,
            rel: 1e-5,
            spread: 32.0,
            replays: 8,
        };
        let n = 1_000;
        let update = update(&[("w", n), ("b", n)]);
        let replayed: Vec<f64> = (0..2 * n)
            .map(|i| 5e-4 * (((i * 7919) % 1000) as f64 / 500.0 - 1.0))
            .collect();
        let mut committed = replayed.clone();
        for value in &mut committed[n..] {
            *value *= 1.001; // at most 5e-7 from the replay, inside 1e-6
        }
        let compare = |scales: &[f64]| {
            let spread = vec![0.0; 2 * n];
            let ensemble = Ensemble {
                spread: &spread,
                scales,
            };
            update_sketches(
                &tolerance,
                4,
                &update,
                &[],
                &committed,
                &replayed,
                Some(ensemble),
                false,
            )
            .unwrap()
        };
        let (failure, outliers) = compare(&[]);
        let failure = failure.unwrap();
        assert_eq!((failure.kind, outliers), (FailureKind::Bias, 0));
        assert!(
            failure.what.starts_with("update sketches of b:"),
            "{failure}"
        );
        assert!((failure.committed - 1e-3).abs() < 1e-9 && failure.allowed == 1e-4);
        // Members that scale the leaf by a fifth of it make it honest rounding.
        assert_eq!(compare(&[0.0, 2e-4]), (None, 0));
    }

    #[test]
    fn a_narrow_float_programs_sketch_admits_a_flip_as_large_as_its_leafs_spread() {
        let tolerance = Tolerance {
            abs: 1e-6,
            rel: 0.0,
            spread: 32.0,
            replays: 8,
        };
        // 20,000 values of one leaf: two outliers allowed.
        let n = 20_000;
        let update = update(&[("w", n)]);
        let committed = vec![1.0; n];
        let mut spread = vec![0.0; n];
        spread[0] = 0.01; // the members moved one value of the leaf by 0.01
        let compare = |recomputed: &[f64], flips: bool| {
            update_sketches(
                &tolerance,
                3,
                &update,
                &[],
                &committed,
                recomputed,
                Some(Ensemble {
                    spread: &spread,
                    scales: &[],
                }),
                flips,
            )
            .unwrap()
        };
        // A value with no spread of its own that production flipped by 0.2:
        // within 32 times the leaf's largest spread, in bf16.
        let mut flipped = committed.clone();
        flipped[5] = 1.2;
        assert_eq!(compare(&flipped, true), (None, 1));
        // In f32 there are no flips: the value is out of its bound.
        let (failure, outliers) = compare(&flipped, false);
        assert_eq!(
            (failure.unwrap().what.as_str(), outliers),
            ("update sketch of w[5]", 0)
        );
        // Three flips are one too many; beyond the cap, one is refused alone.
        flipped[6] = 1.2;
        flipped[7] = 1.2;
        assert_eq!(
            compare(&flipped, true).0.unwrap().what,
            "update sketch of w[5]"
        );
        let mut far = committed.clone();
        far[9] = 1.5;
        assert_eq!(compare(&far, true).0.unwrap().what, "update sketch of w[9]");
    }
}
