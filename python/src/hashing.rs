//! `zkdv.hashing`: tensor and tree commitments, rolling batch-row hashes
//! and probe maps of crate `zkdv-hashing`.
//!
//! Every function reads numpy buffers in place and releases the GIL while it
//! hashes, so a caller must not mutate an array while a call that reads it
//! is running.

use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use zkdv_hashing as hashing;

use crate::{arrays::InputGuard, bytes32, value_error};

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

/// Adds this module's classes and functions to `_native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CHUNK_BYTES", hashing::CHUNK_BYTES)?;
    m.add_class::<TensorCommitment>()?;
    m.add_class::<BatchCommitment>()?;
    m.add_class::<ProbeMap>()?;
    m.add_function(wrap_pyfunction!(commit_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(commit_tree, m)?)?;
    m.add_function(wrap_pyfunction!(commit_tensor_tree, m)?)?;
    m.add_function(wrap_pyfunction!(window_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(commit_batch, m)?)?;
    Ok(())
}
