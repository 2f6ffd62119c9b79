//! `zkdv.transcript` (and the tolerance rule `zkdv.config` uses): the
//! transcript writer, verification, inspection, record reading and
//! challenge derivation of crate `zkdv-protocol`. Python never recomputes a
//! protocol number.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use zkdv_protocol as protocol;

use crate::{bytes32, from_py, to_py, value_error};

create_exception!(
    _native,
    TranscriptError,
    PyException,
    "A transcript is invalid, or a record could not be written. Attributes \
     `record` and `offset` name the record concerned (or are None)."
);

fn transcript_error(py: Python<'_>, e: protocol::Error) -> PyErr {
    if let protocol::Problem::Io { path, source } = &e.problem {
        // An I/O failure (a full disk, a missing directory) is an OSError,
        // with its errno, not a verdict on the transcript.
        let errno = source.raw_os_error().unwrap_or(0);
        return pyo3::exceptions::PyOSError::new_err((
            errno,
            format!("{}: {source}", path.display()),
            path.display().to_string(),
        ));
    }
    let err = TranscriptError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("record", e.at.map(|a| a.index));
    let _ = value.setattr("offset", e.at.map(|a| a.offset));
    err
}

/// The challenge of one step.
#[pyclass(frozen, get_all, module = "zkdv._native")]
#[derive(Clone)]
struct Challenge {
    /// Whether a state check is sampled.
    state: bool,
    /// Whether an update check is sampled.
    update: bool,
    /// Flat index into the concatenated parameter leaves.
    parameter_index: u64,
    /// Flat index into the concatenated optimizer-state leaves, or None.
    optimizer_state_index: Option<u64>,
}

impl From<protocol::Challenge> for Challenge {
    fn from(c: protocol::Challenge) -> Self {
        Challenge {
            state: c.state,
            update: c.update,
            parameter_index: c.parameter_index,
            optimizer_state_index: c.optimizer_state_index,
        }
    }
}

#[pymethods]
impl Challenge {
    /// Indices an update check records: `[parameter]` or `[parameter, state]`.
    fn update_indices(&self) -> Vec<u64> {
        std::iter::once(self.parameter_index)
            .chain(self.optimizer_state_index)
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Challenge(state={}, update={}, parameter_index={}, optimizer_state_index={:?})",
            self.state, self.update, self.parameter_index, self.optimizer_state_index
        )
    }
}

/// What appending a step returns.
#[pyclass(frozen, get_all, module = "zkdv._native")]
struct StepReceipt {
    /// Sequence number of the step record.
    seq: u64,
    /// blake3 of the step record's bytes.
    hash: Py<PyBytes>,
    /// The step's challenge.
    challenge: Py<Challenge>,
}

/// Appends records to a new transcript directory; see `zkdv_protocol::Writer`.
#[pyclass(module = "zkdv._native")]
struct TranscriptWriter {
    inner: Option<protocol::Writer>,
}

impl TranscriptWriter {
    fn writer(&mut self) -> PyResult<&mut protocol::Writer> {
        self.inner
            .as_mut()
            .ok_or_else(|| TranscriptError::new_err("the transcript is already closed"))
    }
}

#[pymethods]
impl TranscriptWriter {
    /// Create `directory` and write the root record from the `root` dict.
    #[new]
    #[pyo3(signature = (directory, root, *, sign = false, challenge_key = None, signing_key = None))]
    fn new(
        py: Python<'_>,
        directory: PathBuf,
        root: &Bound<'_, PyAny>,
        sign: bool,
        challenge_key: Option<&[u8]>,
        signing_key: Option<&[u8]>,
    ) -> PyResult<Self> {
        let root: protocol::RootInput = from_py("root record", root)?;
        let options = protocol::WriterOptions {
            challenge_key: challenge_key
                .map(|k| bytes32("challenge_key", k).map(protocol::Hash32))
                .transpose()?,
            sign,
            signing_key: signing_key.map(|k| bytes32("signing_key", k)).transpose()?,
        };
        let inner = protocol::Writer::create(&directory, root, options)
            .map_err(|e| transcript_error(py, e))?;
        Ok(TranscriptWriter { inner: Some(inner) })
    }

    /// The root record as written (a dict).
    #[getter]
    fn root<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let root = self.writer()?.root().clone();
        to_py(py, &root)
    }

    /// Steps appended so far.
    #[getter]
    fn steps(&mut self) -> PyResult<u64> {
        Ok(self.writer()?.steps())
    }

    /// Store bytes as a content-addressed artifact; returns its record dict.
    fn put_artifact<'py>(
        &mut self,
        py: Python<'py>,
        data: &[u8],
        extension: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let artifact = self
            .writer()?
            .put_artifact(data, extension)
            .map_err(|e| transcript_error(py, e))?;
        to_py(py, &artifact)
    }

    /// Store named arrays as one evidence artifact (`zkdv_protocol::evidence`:
    /// compressed, bound by the commitment they re-hash to); returns its
    /// record dict. Each array is given as `commit_tensor_tree` takes it.
    fn put_evidence<'py>(
        &mut self,
        py: Python<'py>,
        leaves: Vec<(String, Bound<'py, PyAny>)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bundle = bundle_of(&leaves, "evidence leaf")?;
        let writer = self.writer()?;
        // Compressing and writing take the time; other threads run meanwhile.
        let artifact = py
            .detach(|| writer.put_evidence(&bundle))
            .map_err(|e| transcript_error(py, e))?;
        to_py(py, &artifact)
    }

    /// Append a program record; returns its sequence number.
    fn append_program(&mut self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<u64> {
        let body = from_py("program record", body)?;
        self.writer()?
            .append_program(body)
            .map_err(|e| transcript_error(py, e))
    }

    /// Append the production record of a program record written without its
    /// production program; returns its sequence number.
    fn append_production(&mut self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<u64> {
        let body = from_py("production record", body)?;
        self.writer()?
            .append_production(body)
            .map_err(|e| transcript_error(py, e))
    }

    /// Append a step record; returns its receipt with the step's challenge.
    fn append_step(&mut self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<StepReceipt> {
        let body = from_py("step record", body)?;
        let r = self
            .writer()?
            .append_step(body)
            .map_err(|e| transcript_error(py, e))?;
        Ok(StepReceipt {
            seq: r.seq,
            hash: PyBytes::new(py, r.hash.as_bytes()).unbind(),
            challenge: Py::new(py, Challenge::from(r.challenge))?,
        })
    }

    /// Append a snapshot record; returns its sequence number.
    fn append_snapshot(&mut self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<u64> {
        let body = from_py("snapshot record", body)?;
        self.writer()?
            .append_snapshot(body)
            .map_err(|e| transcript_error(py, e))
    }

    /// Append a check record; returns its sequence number.
    fn append_check(&mut self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<u64> {
        let body = from_py("check record", body)?;
        self.writer()?
            .append_check(body)
            .map_err(|e| transcript_error(py, e))
    }

    /// The challenge of an appended step.
    fn challenge(&mut self, py: Python<'_>, step: u64) -> PyResult<Challenge> {
        self.writer()?
            .challenge(step)
            .map(Challenge::from)
            .map_err(|e| transcript_error(py, e))
    }

    /// Write the close record (poisoned when `failure` is given) and fsync.
    #[pyo3(signature = (failure = None))]
    fn close<'py>(
        &mut self,
        py: Python<'py>,
        failure: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let failure = failure.map(|f| from_py("failure", f)).transpose()?;
        let close = self
            .writer()?
            .close(failure)
            .map_err(|e| transcript_error(py, e))?;
        self.inner = None;
        to_py(py, &close)
    }

    /// Whether `close()` has run.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_none()
    }
}

/// Verify a transcript directory (with artifacts) or records file; returns
/// the report dict or raises `TranscriptError`.
#[pyfunction]
fn verify(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyAny>> {
    let report = py
        .detach(|| protocol::verify_path(&path))
        .map_err(|e| transcript_error(py, e))?;
    to_py(py, &report)
}

/// Summarize a transcript (valid or not) as a dict.
#[pyfunction]
fn inspect(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyAny>> {
    let summary = py
        .detach(|| protocol::inspect_path(&path))
        .map_err(|e| transcript_error(py, e))?;
    to_py(py, &summary)
}

/// Read every record of a transcript (directory or records file), in order,
/// as dicts `{"seq", "kind", "body"}` with the body's protocol fields; raises
/// `TranscriptError` at the first record that cannot be read or decoded.
/// Reading does not verify the chain: use `verify` for that.
#[pyfunction]
fn read_records(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyList>> {
    let records = py
        .detach(|| -> protocol::Result<Vec<protocol::Record>> {
            let (file, _) = protocol::resolve(&path)?;
            protocol::Reader::open(&file)?.collect()
        })
        .map_err(|e| transcript_error(py, e))?;
    let list = PyList::empty(py);
    for record in &records {
        let body = match record.body() {
            protocol::Body::Root(b) => to_py(py, b)?,
            protocol::Body::Program(b) => to_py(py, b)?,
            protocol::Body::Production(b) => to_py(py, b)?,
            protocol::Body::Step(b) => to_py(py, b)?,
            protocol::Body::Snapshot(b) => to_py(py, b)?,
            protocol::Body::Check(b) => to_py(py, b)?,
            protocol::Body::Close(b) => to_py(py, b)?,
        };
        let item = PyDict::new(py);
        item.set_item("seq", record.seq())?;
        item.set_item("kind", record.kind().to_string())?;
        item.set_item("body", body)?;
        list.append(item)?;
    }
    Ok(list)
}

/// Derive a step's challenge from the revealed key (for auditors).
#[pyfunction]
fn derive_challenge(
    key: &[u8],
    record_hash: &[u8],
    step: u64,
    sampling: &Bound<'_, PyAny>,
    parameters: u64,
    optimizer_state: u64,
) -> PyResult<Challenge> {
    let sampling: protocol::Sampling = from_py("sampling policy", sampling)?;
    protocol::derive_challenge(
        &protocol::Hash32(bytes32("key", key)?),
        &protocol::Hash32(bytes32("record_hash", record_hash)?),
        step,
        &sampling,
        parameters,
        optimizer_state,
    )
    .map(Challenge::from)
    .map_err(value_error)
}

/// The root record's commitment to a challenge key.
#[pyfunction]
fn key_commitment<'py>(py: Python<'py>, key: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let c = protocol::key_commitment(&protocol::Hash32(bytes32("key", key)?));
    Ok(PyBytes::new(py, c.as_bytes()))
}

/// The tolerance of a program of `precision` (a program record's
/// `precision` field) in a session whose root has `tolerance` and
/// `policy` (`"fixed"` or `"program"`): `Tolerance::for_program`.
#[pyfunction]
fn program_tolerance<'py>(
    py: Python<'py>,
    tolerance: &Bound<'py, PyAny>,
    policy: &Bound<'py, PyAny>,
    precision: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let policy: protocol::TolerancePolicy = from_py("tolerance policy", policy)?;
    let precision: protocol::Precision = from_py("precision", precision)?;
    to_py(py, &tolerance.for_program(policy, &precision))
}

/// The committed, recomputed and (optional) spread values of a comparison.
type Operands<'a> = (&'a [f64], &'a [f64], Option<&'a [f64]>);

/// An `Outcome` as Python receives it: `(index, committed, recomputed,
/// spread, allowed, margin, passed)`.
type OutcomeTuple = (usize, f64, f64, f64, f64, f64, bool);

/// `committed`, `recomputed` and `spread` as slices of equal length, or a
/// `ValueError` naming `what`.
fn tolerance_operands<'a>(
    what: &str,
    committed: &'a numpy::PyReadonlyArray1<'_, f64>,
    recomputed: &'a numpy::PyReadonlyArray1<'_, f64>,
    spread: Option<&'a numpy::PyReadonlyArray1<'_, f64>>,
) -> PyResult<Operands<'a>> {
    let committed = committed.as_slice()?;
    let recomputed = recomputed.as_slice()?;
    let spread = spread.map(|s| s.as_slice()).transpose()?;
    if recomputed.len() != committed.len() || spread.is_some_and(|s| s.len() != committed.len()) {
        return Err(value_error(format!(
            "{what}: {} committed, {} recomputed and {} spread values (need equal counts)",
            committed.len(),
            recomputed.len(),
            spread.map_or(committed.len(), <[f64]>::len)
        )));
    }
    Ok((committed, recomputed, spread))
}

/// `Tolerance::compare`, the protocol's comparison: the first pair out of
/// `tolerance`, else the pair closest to its bound, as
/// `(index, committed, recomputed, spread, allowed, margin, passed)`;
/// `None` when there are no values. `committed`, `recomputed` and `spread`
/// (when given) are 1-D `float64` arrays of equal length.
#[pyfunction]
#[pyo3(signature = (tolerance, committed, recomputed, spread=None))]
fn tolerance_compare(
    tolerance: &Bound<'_, PyAny>,
    committed: numpy::PyReadonlyArray1<'_, f64>,
    recomputed: numpy::PyReadonlyArray1<'_, f64>,
    spread: Option<numpy::PyReadonlyArray1<'_, f64>>,
) -> PyResult<Option<OutcomeTuple>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let (c, r, s) = tolerance_operands(
        "tolerance_compare",
        &committed,
        &recomputed,
        spread.as_ref(),
    )?;
    let outcome = tolerance.compare(c, r, s).map_err(value_error)?;
    Ok(outcome.map(outcome_tuple))
}

/// An `Outcome` as Python receives it.
fn outcome_tuple(o: protocol::Outcome) -> OutcomeTuple {
    (
        o.index,
        o.committed,
        o.recomputed,
        o.spread,
        o.allowed,
        o.margin,
        o.passed,
    )
}

/// `noise::compare_state`, a state comparison that admits outliers: the
/// deciding pair as `tolerance_compare` gives it, the outliers admitted,
/// the leaf the bias test refused and the row scale that lowered the pair's
/// absolute term, `((index, committed, recomputed, spread, allowed, margin,
/// passed), outliers, (leaf, kind, value, limit) | None, scale | None)`;
/// `None` when there are no values. `update` holds each value's
/// replayed update and `groups` the `(length, is_float, row, is_sketch)` of
/// each leaf's run of values, in order (`row`: the values of one row,
/// `noise::Group::row`; `is_sketch`: probe sketches, `noise::Group::sketch`);
/// `flips`: the program computes in a narrow float;
/// `scales`: each group's largest ensemble-member scale, when measured
/// (`tolerance_ensemble`).
#[pyfunction]
#[pyo3(signature = (tolerance, committed, recomputed, update, groups, spread=None, flips=false, scales=None))]
#[allow(clippy::too_many_arguments)]
fn tolerance_compare_state(
    tolerance: &Bound<'_, PyAny>,
    committed: numpy::PyReadonlyArray1<'_, f64>,
    recomputed: numpy::PyReadonlyArray1<'_, f64>,
    update: numpy::PyReadonlyArray1<'_, f64>,
    groups: Vec<(usize, bool, usize, bool)>,
    spread: Option<numpy::PyReadonlyArray1<'_, f64>>,
    flips: bool,
    scales: Option<Vec<f64>>,
) -> PyResult<Option<StateTuple>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let (c, r, s) = tolerance_operands(
        "tolerance_compare_state",
        &committed,
        &recomputed,
        spread.as_ref(),
    )?;
    let groups = state_groups(groups, scales)?;
    let outcome =
        protocol::noise::compare_state(&tolerance, c, r, s, update.as_slice()?, &groups, flips)
            .map_err(value_error)?;
    Ok(outcome.map(|state| {
        (
            outcome_tuple(state.outcome),
            state.outliers,
            state.bias.map(bias_tuple),
            state.scale,
        )
    }))
}

/// `noise::state_bounds`: each value's bound in `tolerance_compare_state`
/// (its tolerance scaled to its row, its spread floored at its row's share
/// when `flips`), the arguments as that takes them.
#[pyfunction]
#[pyo3(signature = (tolerance, committed, recomputed, groups, spread=None, flips=false))]
fn tolerance_state_bounds<'py>(
    py: Python<'py>,
    tolerance: &Bound<'py, PyAny>,
    committed: numpy::PyReadonlyArray1<'py, f64>,
    recomputed: numpy::PyReadonlyArray1<'py, f64>,
    groups: Vec<(usize, bool, usize, bool)>,
    spread: Option<numpy::PyReadonlyArray1<'py, f64>>,
    flips: bool,
) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let (c, r, s) = tolerance_operands(
        "tolerance_state_bounds",
        &committed,
        &recomputed,
        spread.as_ref(),
    )?;
    let groups = state_groups(groups, None)?;
    let bounds =
        protocol::noise::state_bounds(&tolerance, c, r, s, &groups, flips).map_err(value_error)?;
    Ok(numpy::PyArray1::from_vec(py, bounds))
}

/// What `tolerance_compare_state` returns of a comparison.
type StateTuple = (OutcomeTuple, u64, Option<BiasTuple>, Option<f64>);

/// `Tolerance::scaled_to`: `tolerance` with its absolute term at most `rel`
/// times `scale` (the scale of a state comparison's row).
#[pyfunction]
fn tolerance_scaled_to<'py>(
    py: Python<'py>,
    tolerance: &Bound<'py, PyAny>,
    scale: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    to_py(py, &tolerance.scaled_to(scale))
}

/// A leaf's statistic of the bias test: `(leaf, kind, value, limit)`.
type BiasTuple = (u64, &'static str, f64, f64);

fn bias_tuple(b: protocol::noise::LeafBias) -> BiasTuple {
    let kind = match b.kind {
        protocol::noise::BiasKind::Scale => "scale",
        protocol::noise::BiasKind::Mean => "mean",
    };
    (b.leaf, kind, b.value, b.limit)
}

/// `noise::leaf_statistics`: every statistic of the bias test of a state
/// comparison, refused or not, as `(leaf, kind, value, limit)`; the
/// arguments as `tolerance_compare_state` takes them.
#[pyfunction]
#[pyo3(signature = (tolerance, committed, recomputed, groups, spread=None, flips=false, scales=None))]
fn tolerance_leaf_statistics(
    tolerance: &Bound<'_, PyAny>,
    committed: numpy::PyReadonlyArray1<'_, f64>,
    recomputed: numpy::PyReadonlyArray1<'_, f64>,
    groups: Vec<(usize, bool, usize, bool)>,
    spread: Option<numpy::PyReadonlyArray1<'_, f64>>,
    flips: bool,
    scales: Option<Vec<f64>>,
) -> PyResult<Vec<BiasTuple>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let (c, r, s) = tolerance_operands(
        "tolerance_leaf_statistics",
        &committed,
        &recomputed,
        spread.as_ref(),
    )?;
    let groups = state_groups(groups, scales)?;
    Ok(
        protocol::noise::leaf_statistics(&tolerance, c, r, s, &groups, flips)
            .into_iter()
            .map(bias_tuple)
            .collect(),
    )
}

/// `Tolerance::margin` of each pair: `|committed - recomputed|` over its
/// bound (0 for equal non-finite values, infinity for unequal ones).
#[pyfunction]
#[pyo3(signature = (tolerance, committed, recomputed, spread=None))]
fn tolerance_margins<'py>(
    py: Python<'py>,
    tolerance: &Bound<'py, PyAny>,
    committed: numpy::PyReadonlyArray1<'py, f64>,
    recomputed: numpy::PyReadonlyArray1<'py, f64>,
    spread: Option<numpy::PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let (c, r, s) = tolerance_operands(
        "tolerance_margins",
        &committed,
        &recomputed,
        spread.as_ref(),
    )?;
    let margins: Vec<f64> = c
        .iter()
        .zip(r)
        .enumerate()
        .map(|(i, (&c, &r))| tolerance.margin(c, r, s.map_or(0.0, |s| s[i])))
        .collect();
    Ok(numpy::PyArray1::from_vec(py, margins))
}

/// `Tolerance::needs_spread`: whether `tolerance` runs a perturbation
/// ensemble and a pair is refused under the fixed bound.
#[pyfunction]
fn tolerance_needs_spread(
    tolerance: &Bound<'_, PyAny>,
    committed: numpy::PyReadonlyArray1<'_, f64>,
    recomputed: numpy::PyReadonlyArray1<'_, f64>,
) -> PyResult<bool> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let (c, r, _) = tolerance_operands("tolerance_needs_spread", &committed, &recomputed, None)?;
    Ok(tolerance.needs_spread(c, r))
}

/// An error of a Python ensemble member, or of the comparison of its values.
enum MemberError {
    Python(PyErr),
    Tolerance(protocol::ToleranceError),
}

impl From<protocol::ToleranceError> for MemberError {
    fn from(e: protocol::ToleranceError) -> Self {
        MemberError::Tolerance(e)
    }
}

/// A Python ensemble member's values (`member(m)`: a 1-D `float64`
/// array), read in place when contiguous: at GPT-2 small's size a state
/// check's member is 2 GB of `float64`, which a copy would hold twice.
enum MemberValues<'py> {
    /// A contiguous array, read in place.
    Array(numpy::PyReadonlyArray1<'py, f64>),
    /// A copy of a strided one.
    Owned(Vec<f64>),
}

impl AsRef<[f64]> for MemberValues<'_> {
    fn as_ref(&self) -> &[f64] {
        match self {
            // Only a contiguous array is kept as `Array` (`call_member`).
            MemberValues::Array(array) => array.as_slice().unwrap_or(&[]),
            MemberValues::Owned(values) => values,
        }
    }
}

/// Member `m` of a Python ensemble (`member(m)`: a 1-D `float64` array).
fn call_member<'py>(member: &Bound<'py, PyAny>, m: u64) -> Result<MemberValues<'py>, MemberError> {
    let values = member.call1((m,)).map_err(MemberError::Python)?;
    let values: numpy::PyReadonlyArray1<'py, f64> =
        values.extract().map_err(MemberError::Python)?;
    if values.as_slice().is_ok() {
        Ok(MemberValues::Array(values))
    } else {
        Ok(MemberValues::Owned(values.as_array().to_vec()))
    }
}

/// A measurement's error as Python's: a member's own, else a `ValueError`.
fn member_error(e: MemberError) -> PyErr {
    match e {
        MemberError::Python(e) => e,
        MemberError::Tolerance(e) => value_error(e),
    }
}

/// `Tolerance::measure_spread`: each value's spread over the ensemble's
/// members `0..tolerance.replays`, where `member(m)` returns member `m`'s
/// values (a 1-D `float64` array, as long as `nominal`). With `committed`,
/// `Tolerance::measure_spread_for`: members in order until the values pass.
/// Returns the spread and how many members it was measured over.
#[pyfunction]
#[pyo3(signature = (tolerance, nominal, member, committed=None))]
fn tolerance_spread<'py>(
    py: Python<'py>,
    tolerance: &Bound<'py, PyAny>,
    nominal: numpy::PyReadonlyArray1<'py, f64>,
    member: &Bound<'py, PyAny>,
    committed: Option<numpy::PyReadonlyArray1<'py, f64>>,
) -> PyResult<(Bound<'py, numpy::PyArray1<f64>>, u64)> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let nominal = nominal.as_slice()?;
    let member = |m| call_member(member, m);
    let (spread, members) = match committed {
        Some(committed) => tolerance.measure_spread_for(committed.as_slice()?, nominal, member),
        None => tolerance
            .measure_spread(nominal, member)
            .map(|s| (s, tolerance.replays)),
    }
    .map_err(member_error)?;
    Ok((numpy::PyArray1::from_vec(py, spread), members))
}

/// The groups of a state comparison, with each one's measured member scale
/// (0 without `scales`).
fn state_groups(
    groups: Vec<(usize, bool, usize, bool)>,
    scales: Option<Vec<f64>>,
) -> PyResult<Vec<protocol::noise::Group>> {
    if let Some(scales) = scales.as_ref().filter(|s| s.len() != groups.len()) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{} member scales for {} groups",
            scales.len(),
            groups.len()
        )));
    }
    Ok(groups
        .into_iter()
        .enumerate()
        .map(|(i, (len, float, row, sketch))| protocol::noise::Group {
            len,
            float,
            scale_spread: scales.as_ref().map_or(0.0, |s| s[i]),
            row,
            sketch,
        })
        .collect())
}

/// The row of a leaf of `shape` in a state comparison
/// (`noise::Group::of_shape`): how many consecutive values share its first
/// index.
#[pyfunction]
fn state_group_row(shape: Vec<usize>) -> usize {
    protocol::noise::Group::of_shape(&shape, true).row
}

/// `noise::measure_state_ensemble`: each value's spread and, per group of
/// `groups` (`(length, is_float, row, is_sketch)`), the largest scale of a
/// member's values against `nominal`; with `compared` (`(committed, update,
/// flips)`, as `compare_state` takes them) members in order until the state
/// passes. Returns the spread, the scales and how many members were measured.
#[pyfunction]
#[pyo3(signature = (tolerance, nominal, member, groups, compared=None))]
fn tolerance_ensemble<'py>(
    py: Python<'py>,
    tolerance: &Bound<'py, PyAny>,
    nominal: numpy::PyReadonlyArray1<'py, f64>,
    member: &Bound<'py, PyAny>,
    groups: Vec<(usize, bool, usize, bool)>,
    compared: Option<(
        numpy::PyReadonlyArray1<'py, f64>,
        numpy::PyReadonlyArray1<'py, f64>,
        bool,
    )>,
) -> PyResult<(Bound<'py, numpy::PyArray1<f64>>, Vec<f64>, u64)> {
    let tolerance: protocol::Tolerance = from_py("tolerance", tolerance)?;
    let groups = state_groups(groups, None)?;
    let compared = match &compared {
        Some((committed, update, flips)) => Some(protocol::noise::Compared {
            committed: committed.as_slice()?,
            update: update.as_slice()?,
            flips: *flips,
        }),
        None => None,
    };
    let ensemble = protocol::noise::measure_state_ensemble(
        &tolerance,
        nominal.as_slice()?,
        &groups,
        compared,
        |m| call_member(member, m),
    )
    .map_err(member_error)?;
    Ok((
        numpy::PyArray1::from_vec(py, ensemble.spread),
        ensemble.scales,
        ensemble.members,
    ))
}

/// One named tensor of an evidence artifact: `(path, dtype tag, shape,
/// little-endian bytes)`.
type EvidenceTensor<'py> = (String, String, Vec<u64>, Bound<'py, PyBytes>);

/// The named tensors of an evidence artifact file.
#[pyfunction]
fn read_evidence(py: Python<'_>, path: PathBuf) -> PyResult<Vec<EvidenceTensor<'_>>> {
    let bytes = std::fs::read(&path)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let bundle = protocol::evidence::Bundle::decode(&bytes)
        .map_err(|e| value_error(format!("{}: {e}", path.display())))?;
    Ok(bundle
        .leaves
        .into_iter()
        .map(|l| {
            let data = PyBytes::new(py, &l.data);
            (l.path, l.dtype.tag().to_owned(), l.shape, data)
        })
        .collect())
}

/// Named arrays (each as `commit_tensor_tree` takes it) as an evidence
/// bundle; a leaf that cannot be read is named as a `what`.
fn bundle_of(
    leaves: &[(String, Bound<'_, PyAny>)],
    what: &str,
) -> PyResult<protocol::evidence::Bundle> {
    let mut bundle = protocol::evidence::Bundle::default();
    for (path, array) in leaves {
        let guard = crate::arrays::InputGuard::extract(array)
            .map_err(|e| value_error(format!("{what} {path:?}: {e}")))?;
        let (dtype, shape, bytes) = guard.le_bytes()?;
        bundle.leaves.push(protocol::evidence::EvidenceLeaf {
            path: path.clone(),
            dtype,
            shape,
            data: bytes.into_owned(),
        });
    }
    Ok(bundle)
}

/// Write named arrays (a whole state: `params/<path>`, then
/// `opt_state/<path>`) to `path` as a checkpoint an audit can bind to a
/// snapshot (`zkdv audit --checkpoint`): safetensors when the name ends in
/// `.safetensors`, an evidence bundle when it ends in `.ev.zst`. Written to
/// a temporary file beside it, synced, then renamed, so a crash leaves the
/// old file or the new one, never a part.
#[pyfunction]
fn save_state(
    py: Python<'_>,
    path: PathBuf,
    leaves: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let safetensors = name.ends_with(".safetensors");
    if !safetensors && !name.ends_with(".ev.zst") {
        return Err(value_error(format!(
            "{}: a state is saved as .safetensors or .ev.zst",
            path.display()
        )));
    }
    let bundle = bundle_of(&leaves, "state leaf")?;
    let os_error = |e: std::io::Error| {
        pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display()))
    };
    py.detach(|| -> PyResult<()> {
        let bytes = if safetensors {
            protocol::safetensors::write(&bundle)
        } else {
            bundle.encode()
        }
        .map_err(|e| value_error(format!("{}: {e}", path.display())))?;
        let mut tmp = path.clone().into_os_string();
        tmp.push(".partial");
        let tmp = PathBuf::from(tmp);
        {
            use std::io::Write;
            let mut file = std::fs::File::create(&tmp).map_err(os_error)?;
            file.write_all(&bytes).map_err(os_error)?;
            file.sync_all().map_err(os_error)?;
        }
        std::fs::rename(&tmp, &path).map_err(os_error)
    })
}

/// A packed batch's `(rows, width)` and each leaf's little-endian bytes.
type Unpacked<'py> = ((u64, u64), Vec<Bound<'py, PyBytes>>);

/// Unpack a packed `uint32` batch (`zkdv_protocol::packing`) into the
/// little-endian bytes of each leaf, given as `(shape, dtype tag)`; rows are
/// at least `min_width` words.
#[pyfunction]
fn unpack_batch<'py>(
    py: Python<'py>,
    leaves: Vec<(Vec<u64>, String)>,
    min_width: u64,
    packed: numpy::PyReadonlyArray2<'_, u32>,
) -> PyResult<Unpacked<'py>> {
    let leaves = leaves
        .into_iter()
        .map(|(shape, tag)| {
            Ok((
                shape,
                zkdv_hashing::DType::from_tag(&tag).map_err(value_error)?,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let layout = protocol::packing::BatchLayout::of(&leaves, min_width).map_err(value_error)?;
    let words = packed.as_slice().map_err(value_error)?;
    let out = layout.unpack(words).map_err(value_error)?;
    Ok((
        layout.shape(),
        out.iter().map(|bytes| PyBytes::new(py, bytes)).collect(),
    ))
}

/// Adds this module's classes and functions to `_native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PROTOCOL_VERSION", protocol::PROTOCOL_VERSION)?;
    m.add("TranscriptError", py.get_type::<TranscriptError>())?;
    m.add_class::<Challenge>()?;
    m.add_class::<StepReceipt>()?;
    m.add_class::<TranscriptWriter>()?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(read_records, m)?)?;
    m.add_function(wrap_pyfunction!(read_evidence, m)?)?;
    m.add_function(wrap_pyfunction!(save_state, m)?)?;
    m.add_function(wrap_pyfunction!(unpack_batch, m)?)?;
    m.add_function(wrap_pyfunction!(derive_challenge, m)?)?;
    m.add_function(wrap_pyfunction!(key_commitment, m)?)?;
    m.add_function(wrap_pyfunction!(program_tolerance, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_compare, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_compare_state, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_scaled_to, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_state_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_ensemble, m)?)?;
    m.add_function(wrap_pyfunction!(state_group_row, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_leaf_statistics, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_margins, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_needs_spread, m)?)?;
    m.add_function(wrap_pyfunction!(tolerance_spread, m)?)?;
    Ok(())
}
