//! `zkdv._native`: the Rust core exposed to Python.
//!
//! Hashing (tensor commitments, tree commitments, rolling batch hashes, probe
//! maps and sketches) reads numpy buffers in place and releases the GIL while
//! it works, so a caller must not mutate an array while a call that reads it
//! is running. The transcript writer, challenge derivation and verification
//! are the `zkdv-protocol` crate's; Python never recomputes a protocol number.

use std::path::PathBuf;

use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde::de::DeserializeOwned;

use zkdv_hashing as hashing;
use zkdv_protocol as protocol;

/// The extension's Rust allocations (the replay runtime's tensors above
/// all) go to mimalloc, which reuses freed buffers at once; with the system
/// allocator every large tensor came back from the kernel as fresh pages
/// (a page fault per 4 KiB) op after op. Python's and XLA's own memory is
/// not affected.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _native,
    TranscriptError,
    PyException,
    "A transcript is invalid, or a record could not be written. Attributes \
     `record` and `offset` name the record concerned (or are None)."
);

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn transcript_error(py: Python<'_>, e: protocol::Error) -> PyErr {
    let err = TranscriptError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("record", e.at.map(|a| a.index));
    let _ = value.setattr("offset", e.at.map(|a| a.offset));
    err
}

fn bytes32(name: &str, data: &[u8]) -> PyResult<[u8; 32]> {
    data.try_into()
        .map_err(|_| value_error(format!("{name} must be 32 bytes, got {}", data.len())))
}

fn from_py<T: DeserializeOwned>(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<T> {
    pythonize::depythonize(obj).map_err(|e| value_error(format!("invalid {what}: {e}")))
}

fn to_py<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(value_error)
}

// ---------------------------------------------------------------- hashing

/// Commitment to one tensor (see `zkdv_hashing::commit_tensor`).
#[pyclass(frozen, module = "zkdv._native")]
struct TensorCommitment {
    inner: hashing::TensorCommitment,
}

#[pymethods]
impl TensorCommitment {
    /// The 32-byte tensor digest (binds dtype, shape and contents).
    #[getter]
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.digest().as_bytes())
    }

    /// The 32-byte Merkle root over the tensor's chunks.
    #[getter]
    fn root<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.root().as_bytes())
    }

    /// Number of Merkle leaves (chunks).
    #[getter]
    fn leaf_count(&self) -> u64 {
        self.inner.leaf_count()
    }

    /// Size of the committed bytes.
    #[getter]
    fn byte_len(&self) -> u64 {
        self.inner.byte_len()
    }

    fn __repr__(&self) -> String {
        format!(
            "TensorCommitment(dtype={}, shape={:?}, digest={})",
            self.inner.dtype(),
            self.inner.shape(),
            self.inner.digest()
        )
    }
}

/// Commit to a tensor given as its dtype tag, shape and little-endian bytes
/// (a flat `uint8` view of a C-contiguous array; nothing is copied).
#[pyfunction]
fn commit_tensor(
    py: Python<'_>,
    dtype: &str,
    shape: Vec<u64>,
    data: PyReadonlyArray1<'_, u8>,
) -> PyResult<TensorCommitment> {
    let dtype = hashing::DType::from_tag(dtype).map_err(value_error)?;
    let bytes = data.as_slice().map_err(value_error)?;
    let inner = py
        .detach(|| hashing::commit_tensor(dtype, &shape, bytes))
        .map_err(value_error)?;
    Ok(TensorCommitment { inner })
}

/// Commit to an ordered list of `(path, 32-byte digest)` leaves.
#[pyfunction]
fn commit_tree<'py>(
    py: Python<'py>,
    leaves: Vec<(String, Vec<u8>)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let leaves = leaves
        .into_iter()
        .map(|(path, d)| Ok((path, hashing::Digest::from(bytes32("leaf digest", &d)?))))
        .collect::<PyResult<Vec<_>>>()?;
    let digest = hashing::commit_tree(&leaves).map_err(value_error)?;
    Ok(PyBytes::new(py, digest.as_bytes()))
}

/// The tree commitment of named tensors in one call: `commit_tree` over
/// `(path, commit_tensor(array).digest)`. Each array is given as `run` of
/// `Program` takes its inputs: a C-contiguous native-endian numpy array of
/// float32, float64, int32, int64, uint32, uint64 or bool, or any dtype as
/// `(tag, shape, flat uint8 view)`.
#[pyfunction]
fn commit_tensor_tree<'py>(
    py: Python<'py>,
    leaves: Vec<(String, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut digests = Vec::with_capacity(leaves.len());
    for (path, array) in &leaves {
        let guard =
            InputGuard::extract(array).map_err(|e| value_error(format!("leaf {path:?}: {e}")))?;
        let (dtype, shape, bytes) = guard.le_bytes()?;
        let commitment = hashing::commit_tensor(dtype, &shape, &bytes)
            .map_err(|e| value_error(format!("leaf {path:?}: {e}")))?;
        digests.push((path.clone(), commitment.digest()));
    }
    let digest = hashing::commit_tree(&digests).map_err(value_error)?;
    Ok(PyBytes::new(py, digest.as_bytes()))
}

/// Rolling window hashes of one row of `uint32` words.
#[pyfunction]
fn window_hashes<'py>(
    py: Python<'py>,
    row: PyReadonlyArray1<'_, u32>,
    window: usize,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let row = row.as_slice().map_err(value_error)?;
    let hashes = hashing::window_hashes(row, window).map_err(value_error)?;
    Ok(hashes.into_pyarray(py))
}

/// Commitment to a packed `uint32` batch of shape `(rows, width)`.
#[pyclass(frozen, get_all, module = "zkdv._native")]
struct BatchCommitment {
    /// Number of rows.
    rows: u64,
    /// Words per row.
    width: u64,
    /// Rolling window.
    window: u64,
    /// Merkle root over the row leaves (what step records store).
    root: Py<PyBytes>,
    /// Digest binding rows, width, window and root.
    digest: Py<PyBytes>,
}

#[pymethods]
impl BatchCommitment {
    fn __repr__(&self) -> String {
        format!(
            "BatchCommitment(rows={}, width={}, window={})",
            self.rows, self.width, self.window
        )
    }
}

/// Commit to a C-contiguous `uint32` batch of shape `(rows, width)` with
/// rolling hashes over `window` words per row.
#[pyfunction]
fn commit_batch(
    py: Python<'_>,
    words: PyReadonlyArray2<'_, u32>,
    window: usize,
) -> PyResult<BatchCommitment> {
    let (rows, width) = (words.shape()[0], words.shape()[1]);
    let slice = words.as_slice().map_err(value_error)?;
    let c = py
        .detach(|| hashing::commit_batch(slice, rows, width, window))
        .map_err(value_error)?;
    Ok(BatchCommitment {
        rows: c.rows,
        width: c.width,
        window: c.window,
        root: PyBytes::new(py, c.root.as_bytes()).unbind(),
        digest: PyBytes::new(py, c.digest.as_bytes()).unbind(),
    })
}

/// A structured orthonormal probe map of one leaf (see
/// `zkdv_hashing::ProbeMap`).
#[pyclass(frozen, module = "zkdv._native")]
struct ProbeMap {
    inner: hashing::ProbeMap,
}

#[pymethods]
impl ProbeMap {
    /// Generate the map of leaf `path` with `shape` from a 32-byte seed.
    #[new]
    fn new(seed: &[u8], path: &str, shape: Vec<u64>, ratio: f64) -> PyResult<Self> {
        let seed = bytes32("seed", seed)?;
        let inner = hashing::ProbeMap::generate(&seed, path, &shape, ratio).map_err(value_error)?;
        Ok(ProbeMap { inner })
    }

    /// The leaf's last dimension.
    #[getter]
    fn d(&self) -> usize {
        self.inner.d()
    }

    /// Number of probe columns.
    #[getter]
    fn k(&self) -> usize {
        self.inner.k()
    }

    /// Column of each of the `d` coordinates.
    #[getter]
    fn column<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.inner.column())
    }

    /// Sign (+1 or -1) of each of the `d` coordinates.
    #[getter]
    fn sign<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        PyArray1::from_slice(py, self.inner.sign())
    }

    /// Scale `1/sqrt(|support|)` of each of the `k` columns.
    #[getter]
    fn scale<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.scale())
    }

    /// The map as a dense `(d, k)` float64 matrix (for tests and small leaves).
    fn to_dense<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let dense = Array2::from_shape_vec((self.inner.d(), self.inner.k()), self.inner.to_dense())
            .map_err(value_error)?;
        Ok(dense.into_pyarray(py))
    }

    /// Sketch `x @ P` of a leaf given as dtype tag and flat `uint8` bytes;
    /// returns float64 of shape `(rows, k)`.
    fn sketch<'py>(
        &self,
        py: Python<'py>,
        dtype: &str,
        data: PyReadonlyArray1<'_, u8>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let dtype = hashing::DType::from_tag(dtype).map_err(value_error)?;
        let bytes = data.as_slice().map_err(value_error)?;
        let inner = &self.inner;
        let out = py
            .detach(|| inner.sketch_bytes(dtype, bytes))
            .map_err(value_error)?;
        let rows = usize::try_from(inner.rows()).map_err(value_error)?;
        let out = Array2::from_shape_vec((rows, inner.k()), out).map_err(value_error)?;
        Ok(out.into_pyarray(py))
    }

    /// The map as the `probe_weight` argument of an instrumented program
    /// (`--zkdv-insert-commitments`): float32 of shape `(d,)`,
    /// `sign[i] * scale[column[i]]`.
    fn weights<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.inner.weights().into_pyarray(py)
    }

    /// The column blocks: `(long, q)`, where columns `0..long` cover `q + 1`
    /// consecutive coordinates each and the remaining `k - long` columns
    /// cover `q` each.
    #[getter]
    fn blocks(&self) -> (u64, u64) {
        let b = self.inner.blocks();
        (b.long, b.q)
    }
}

// ------------------------------------------------------------- transcript

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

    /// Append a program record; returns its sequence number.
    fn append_program(&mut self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<u64> {
        let body = from_py("program record", body)?;
        self.writer()?
            .append_program(body)
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

// ------------------------------------------------------------ compiler

/// Run `zkdv-opt` passes on module text (generic form): `passes` are
/// `"zkdv-slice-update=output=attested"`-style items, run in order. Returns
/// the printed module and the passes' reports (cost tables, warnings);
/// raises `ValueError` with the diagnostics on failure.
#[pyfunction]
#[pyo3(signature = (text, passes, source_name = "<input>"))]
fn run_passes(
    py: Python<'_>,
    text: &str,
    passes: Vec<String>,
    source_name: &str,
) -> PyResult<(String, Vec<String>)> {
    let steps = zkdv_passes::pipeline::parse_steps(&passes).map_err(value_error)?;
    py.detach(|| {
        let mut reports = Vec::new();
        zkdv_passes::pipeline::run_steps(text, source_name, &steps, false, &mut |r| {
            reports.push(r.to_owned())
        })
        .map(|module| (module, reports))
    })
    .map_err(value_error)
}

/// The precision summary of a module (`--zkdv-precision-report`):
/// `{"narrowest": str | None, "narrow_results": int}`, the program record's
/// `precision` field.
#[pyfunction]
#[pyo3(signature = (text, source_name = "<input>"))]
fn precision<'py>(py: Python<'py>, text: &str, source_name: &str) -> PyResult<Bound<'py, PyAny>> {
    let found = py
        .detach(|| {
            let context = zkdv_passes::IrContext::new();
            let module = context
                .parse(text, source_name)
                .map_err(|error| error.to_string())?;
            let p = zkdv_passes::precision_report::analyse(&module);
            Ok::<_, String>(protocol::Precision {
                narrowest: p.narrowest,
                narrow_results: p.narrow_results,
            })
        })
        .map_err(value_error)?;
    to_py(py, &found)
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

// ------------------------------------------------------------- runtime

create_exception!(
    _native,
    RuntimeError,
    PyException,
    "The replay runtime could not run a program (unsupported op, bad input)."
);

/// A program's mutex, carried into the GIL-free part of a call, where it is
/// locked. Locking it while holding the GIL would deadlock: a thread that
/// holds the lock must take the GIL back when its run ends, while another
/// thread, holding the GIL, waits for the lock.
struct Exclusive<'a>(&'a std::sync::Mutex<zkdv_runtime::Program>);

// SAFETY: `py.detach` runs its closure on the calling thread (it only
// releases the GIL), and the program is only touched through the mutex, so
// no two threads use it at once.
unsafe impl Send for Exclusive<'_> {}

impl<'a> Exclusive<'a> {
    /// The mutex (taking `self` whole, so a closure captures the wrapper, not
    /// its field).
    fn into_inner(self) -> &'a std::sync::Mutex<zkdv_runtime::Program> {
        self.0
    }
}

/// A generic-form StableHLO program parsed once and run by the runtime's
/// deterministic CPU interpreter.
#[pyclass(frozen, module = "zkdv._native")]
struct Program {
    inner: std::sync::Mutex<zkdv_runtime::Program>,
}

#[pymethods]
impl Program {
    /// Parse `text` and select function `func` (default `main`).
    #[new]
    #[pyo3(signature = (text, func = "main", source_name = "<program>"))]
    fn new(py: Python<'_>, text: &str, func: &str, source_name: &str) -> PyResult<Self> {
        let program = py
            .detach(|| zkdv_runtime::Program::parse(text, source_name, func))
            .map_err(|e| RuntimeError::new_err(e.to_string()))?;
        Ok(Program {
            inner: std::sync::Mutex::new(program),
        })
    }

    /// `(dtype tag, shape)` of each argument.
    #[getter]
    fn arguments(&self, py: Python<'_>) -> PyResult<Vec<(String, Vec<usize>)>> {
        // Locked without the GIL, as in `run` (see `Exclusive`).
        let exclusive = Exclusive(&self.inner);
        py.detach(move || -> Result<Vec<(String, Vec<usize>)>, String> {
            let program = exclusive
                .into_inner()
                .lock()
                .map_err(|_| "the program was poisoned by a panic".to_owned())?;
            program
                .arguments()
                .iter()
                .map(|ty| {
                    let dtype = ty.element.dtype().map_err(|e| e.to_string())?;
                    Ok((dtype.tag().to_owned(), ty.shape.clone()))
                })
                .collect()
        })
        .map_err(RuntimeError::new_err)
    }

    /// Run on `inputs`, each a C-contiguous native-endian numpy array of
    /// float32, float64, int32, int64, uint32, uint64 or bool (read in place
    /// with the GIL released), or any dtype as `(dtype tag, shape, flat
    /// uint8 view)`. Returns one result each, a numpy array for those types
    /// (handed over without a copy where the interpreter already holds that
    /// element type) and otherwise `(tag, shape, bytes)`. `max_ops` and
    /// `max_elements` bound the run (ops evaluated, elements of any one
    /// result); unbounded by default. `ensemble`, when given, runs member
    /// `m` of the perturbation ensemble (`zkdv_runtime::rounding`): float
    /// inputs moved by an ulp, `f16`/`bf16` results rounded in the member's
    /// mode; by default the program runs as written.
    #[pyo3(signature = (inputs, max_ops = None, max_elements = None, ensemble = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        inputs: Vec<Bound<'py, PyAny>>,
        max_ops: Option<u64>,
        max_elements: Option<usize>,
        ensemble: Option<u64>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let mut limits = zkdv_runtime::Limits::default();
        if let Some(ops) = max_ops {
            limits.max_ops = ops;
        }
        if let Some(elements) = max_elements {
            limits.max_elements = elements;
        }
        let guards = inputs
            .iter()
            .enumerate()
            .map(|(index, input)| {
                InputGuard::extract(input).map_err(|e| value_error(format!("input {index}: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let views = guards
            .iter()
            .enumerate()
            .map(|(index, guard)| {
                guard
                    .view()
                    .map_err(|e| value_error(format!("input {index}: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let exclusive = Exclusive(&self.inner);
        let outputs = py.detach(move || -> Result<Vec<zkdv_runtime::Tensor>, String> {
            let program = exclusive
                .into_inner()
                .lock()
                .map_err(|_| "the program was poisoned by a panic".to_owned())?;
            let mut tensors = views
                .into_iter()
                .enumerate()
                .map(|(index, view)| view.tensor().map_err(|e| format!("input {index}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(member) = ensemble {
                zkdv_runtime::rounding::perturb_inputs(member, &mut tensors);
            }
            match ensemble {
                Some(member) => zkdv_runtime::rounding::with_member(member, || {
                    program.run_limited(tensors, limits)
                }),
                None => program.run_limited(tensors, limits),
            }
            .map_err(|e| e.to_string())
        });
        let outputs = outputs.map_err(RuntimeError::new_err)?;
        outputs
            .into_iter()
            .map(|tensor| tensor_to_python(py, tensor))
            .collect()
    }
}

/// An input array, borrowed for the run.
enum InputGuard<'py> {
    F32(numpy::PyReadonlyArrayDyn<'py, f32>),
    F64(numpy::PyReadonlyArrayDyn<'py, f64>),
    I32(numpy::PyReadonlyArrayDyn<'py, i32>),
    I64(numpy::PyReadonlyArrayDyn<'py, i64>),
    U32(numpy::PyReadonlyArrayDyn<'py, u32>),
    U64(numpy::PyReadonlyArrayDyn<'py, u64>),
    Bool(numpy::PyReadonlyArrayDyn<'py, bool>),
    Parts(String, Vec<u64>, PyReadonlyArray1<'py, u8>),
}

/// An input's elements, readable without the GIL.
enum InputView<'a> {
    F32(Vec<usize>, &'a [f32]),
    F64(Vec<usize>, &'a [f64]),
    I32(Vec<usize>, &'a [i32]),
    I64(Vec<usize>, &'a [i64]),
    U32(Vec<usize>, &'a [u32]),
    U64(Vec<usize>, &'a [u64]),
    Bool(Vec<usize>, &'a [bool]),
    Bytes(hashing::DType, &'a [u64], &'a [u8]),
}

impl<'py> InputGuard<'py> {
    fn extract(input: &Bound<'py, PyAny>) -> PyResult<Self> {
        macro_rules! array {
            ($variant:ident, $t:ty) => {
                if let Ok(array) = input.cast::<numpy::PyArrayDyn<$t>>() {
                    return Ok(Self::$variant(array.try_readonly()?));
                }
            };
        }
        array!(F32, f32);
        array!(F64, f64);
        array!(I32, i32);
        array!(I64, i64);
        array!(U32, u32);
        array!(U64, u64);
        array!(Bool, bool);
        let (tag, shape, data) =
            input.extract::<(String, Vec<u64>, PyReadonlyArray1<'py, u8>)>()?;
        Ok(Self::Parts(tag, shape, data))
    }

    fn view(&self) -> PyResult<InputView<'_>> {
        macro_rules! view {
            ($variant:ident, $array:expr) => {
                InputView::$variant($array.shape().to_vec(), $array.as_slice()?)
            };
        }
        Ok(match self {
            Self::F32(a) => view!(F32, a),
            Self::F64(a) => view!(F64, a),
            Self::I32(a) => view!(I32, a),
            Self::I64(a) => view!(I64, a),
            Self::U32(a) => view!(U32, a),
            Self::U64(a) => view!(U64, a),
            Self::Bool(a) => view!(Bool, a),
            Self::Parts(tag, shape, data) => InputView::Bytes(
                hashing::DType::from_tag(tag).map_err(value_error)?,
                shape,
                data.as_slice()?,
            ),
        })
    }
}

impl InputGuard<'_> {
    /// The dtype, shape and little-endian bytes of the array.
    fn le_bytes(&self) -> PyResult<(hashing::DType, Vec<u64>, std::borrow::Cow<'_, [u8]>)> {
        use hashing::DType;
        macro_rules! bytes {
            ($array:expr, $dtype:expr, $to_bytes:expr) => {{
                let shape = $array.shape().iter().map(|&d| d as u64).collect();
                let bytes = $array.as_slice()?.iter().flat_map($to_bytes).collect();
                ($dtype, shape, std::borrow::Cow::Owned(bytes))
            }};
        }
        Ok(match self {
            Self::F32(a) => bytes!(a, DType::F32, |x: &f32| x.to_le_bytes()),
            Self::F64(a) => bytes!(a, DType::F64, |x: &f64| x.to_le_bytes()),
            Self::I32(a) => bytes!(a, DType::I32, |x: &i32| x.to_le_bytes()),
            Self::I64(a) => bytes!(a, DType::I64, |x: &i64| x.to_le_bytes()),
            Self::U32(a) => bytes!(a, DType::U32, |x: &u32| x.to_le_bytes()),
            Self::U64(a) => bytes!(a, DType::U64, |x: &u64| x.to_le_bytes()),
            Self::Bool(a) => bytes!(a, DType::I1, |x: &bool| [u8::from(*x)]),
            Self::Parts(tag, shape, data) => (
                DType::from_tag(tag).map_err(value_error)?,
                shape.clone(),
                std::borrow::Cow::Borrowed(data.as_slice()?),
            ),
        })
    }
}

impl InputView<'_> {
    fn tensor(self) -> Result<zkdv_runtime::Tensor, String> {
        use zkdv_runtime::{Data, ElementType, Tensor};
        let (element, shape, data) = match self {
            Self::Bytes(dtype, shape, bytes) => {
                return Tensor::from_le_bytes(dtype, shape, bytes).map_err(|e| e.to_string())
            }
            Self::F32(shape, v) => (ElementType::F32, shape, Data::F32(v.to_vec())),
            Self::F64(shape, v) => (ElementType::F64, shape, Data::F64(v.to_vec())),
            Self::I32(shape, v) => (
                ElementType::Signed(32),
                shape,
                Data::Signed(v.iter().map(|&x| i64::from(x)).collect()),
            ),
            Self::I64(shape, v) => (ElementType::Signed(64), shape, Data::Signed(v.to_vec())),
            Self::U32(shape, v) => (
                ElementType::Unsigned(32),
                shape,
                Data::Unsigned(v.iter().map(|&x| u64::from(x)).collect()),
            ),
            Self::U64(shape, v) => (ElementType::Unsigned(64), shape, Data::Unsigned(v.to_vec())),
            Self::Bool(shape, v) => (ElementType::I1, shape, Data::Bool(v.to_vec())),
        };
        Tensor::new(element, shape, data).map_err(|e| e.to_string())
    }
}

/// A result as a numpy array (the interpreter's buffer itself for f32, f64,
/// i64, u64 and bool; a narrowing copy for i32 and u32), or as `(tag,
/// shape, bytes)` for the other types.
fn tensor_to_python(py: Python<'_>, tensor: zkdv_runtime::Tensor) -> PyResult<Bound<'_, PyAny>> {
    use zkdv_runtime::{Data, ElementType, Tensor};
    fn shaped<'py, T: numpy::Element>(
        py: Python<'py>,
        values: Vec<T>,
        shape: Vec<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // One array object over the buffer, already in its shape.
        let array = numpy::ndarray::ArrayD::from_shape_vec(shape, values)
            .map_err(|e| RuntimeError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py).into_any())
    }
    let Tensor {
        element,
        shape,
        data,
    } = tensor;
    match (element, data) {
        (ElementType::F32, Data::F32(v)) => shaped(py, v, shape),
        (ElementType::F64, Data::F64(v)) => shaped(py, v, shape),
        (ElementType::I1, Data::Bool(v)) => shaped(py, v, shape),
        (ElementType::Signed(64), Data::Signed(v)) => shaped(py, v, shape),
        (ElementType::Unsigned(64), Data::Unsigned(v)) => shaped(py, v, shape),
        // Held widened; the values fit the type's width.
        (ElementType::Signed(32), Data::Signed(v)) => {
            shaped(py, v.into_iter().map(|x| x as i32).collect(), shape)
        }
        (ElementType::Unsigned(32), Data::Unsigned(v)) => {
            shaped(py, v.into_iter().map(|x| x as u32).collect(), shape)
        }
        (element, data) => {
            let host = Tensor {
                element,
                shape,
                data,
            }
            .to_host()
            .map_err(|e| RuntimeError::new_err(e.to_string()))?;
            let parts = (
                host.dtype().tag().to_owned(),
                host.shape().to_vec(),
                PyBytes::new(py, host.bytes()),
            );
            Ok(parts.into_pyobject(py)?.into_any())
        }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PROTOCOL_VERSION", protocol::PROTOCOL_VERSION)?;
    m.add("CHUNK_BYTES", hashing::CHUNK_BYTES)?;
    m.add("TranscriptError", py.get_type::<TranscriptError>())?;
    m.add_class::<TensorCommitment>()?;
    m.add_class::<BatchCommitment>()?;
    m.add_class::<ProbeMap>()?;
    m.add_class::<Challenge>()?;
    m.add_class::<StepReceipt>()?;
    m.add_class::<TranscriptWriter>()?;
    m.add("RuntimeError", py.get_type::<RuntimeError>())?;
    m.add_class::<Program>()?;
    m.add_function(wrap_pyfunction!(run_passes, m)?)?;
    m.add_function(wrap_pyfunction!(precision, m)?)?;
    m.add_function(wrap_pyfunction!(program_tolerance, m)?)?;
    m.add_function(wrap_pyfunction!(commit_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(commit_tree, m)?)?;
    m.add_function(wrap_pyfunction!(commit_tensor_tree, m)?)?;
    m.add_function(wrap_pyfunction!(window_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(commit_batch, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(read_records, m)?)?;
    m.add_function(wrap_pyfunction!(derive_challenge, m)?)?;
    m.add_function(wrap_pyfunction!(key_commitment, m)?)?;
    Ok(())
}
