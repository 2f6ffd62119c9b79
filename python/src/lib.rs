//! `zkdv._native`: the Rust core exposed to Python, one file per Python
//! module it serves:
//!
//! - [`hashing`]: `zkdv.hashing` (commitments, rolling hashes, probe maps);
//! - [`transcript`]: `zkdv.transcript` and the tolerance rule of
//!   `zkdv.config` (crate `zkdv-protocol`);
//! - [`passes`]: `zkdv.passes` (crate `zkdv-passes`);
//! - [`runtime`]: `zkdv.runtime` (crate `zkdv-runtime`);
//! - `cli`: the `zkdv` command (crate `zkdv-tools`), which the wheel
//!   installs as a console script (`zkdv.__main__`).
//!
//! [`allocator`] sets up the memory allocator they all use. This file holds
//! the conversions they share and the module definition.
//! Every call that does real work releases the GIL.

mod allocator;
mod arrays;
mod hashing;
mod passes;
mod runtime;
mod transcript;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::de::DeserializeOwned;

/// A `ValueError` carrying `e`'s message.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `data` as 32 bytes, or a `ValueError` naming `name`.
pub(crate) fn bytes32(name: &str, data: &[u8]) -> PyResult<[u8; 32]> {
    data.try_into()
        .map_err(|_| value_error(format!("{name} must be 32 bytes, got {}", data.len())))
}

/// A Python value (dicts, lists, numbers) read as `T`.
pub(crate) fn from_py<T: DeserializeOwned>(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<T> {
    pythonize::depythonize(obj).map_err(|e| value_error(format!("invalid {what}: {e}")))
}

/// `value` as Python dicts, lists and numbers.
pub(crate) fn to_py<'py, T: serde::Serialize>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(value_error)
}

/// Run the `zkdv` command line `argv` (the program name first) and return
/// its exit code: the same code as the cargo binary's, the GIL released.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| zkdv_tools::cli::run(argv))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    allocator::register(m)?;
    hashing::register(m)?;
    transcript::register(m)?;
    passes::register(m)?;
    runtime::register(m)?;
    Ok(())
}
