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
//! This file holds the conversions they share and the module definition.
//! Every call that does real work releases the GIL.

mod arrays;
mod hashing;
mod passes;
mod runtime;
mod transcript;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::de::DeserializeOwned;

/// The extension's Rust allocations (the replay runtime's tensors above
/// all) go to mimalloc, which reuses freed buffers at once; with the system
/// allocator every large tensor came back from the kernel as fresh pages
/// (a page fault per 4 KiB) op after op. Python's and XLA's own memory is
/// not affected. See [`PURGE_DELAY_MS`] for when the memory goes back.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long mimalloc keeps memory freed by the extension before it gives it
/// back to the system, in milliseconds, unless `MIMALLOC_PURGE_DELAY` says
/// otherwise.
///
/// mimalloc's own default (one second) gave back, during a replay of a
/// whole training step, the buffers of ops that had finished, so the next
/// ops took them again as fresh pages, zeroed by the kernel: at GPT-2
/// small's size that zeroing was 42% of a replay's profile, and a replay
/// run twice in a row took twice as long as with memory kept. A check runs
/// several replays back to back, so the memory is kept for a minute and
/// [`release_memory`] gives it back when the session's checks are done.
const PURGE_DELAY_MS: std::ffi::c_long = 60_000;

/// `mi_option_purge_delay` in `mimalloc.h`'s `mi_option_t` (version 3),
/// which `libmimalloc-sys` does not name; mimalloc keeps the enum's values
/// stable (retired options stay in place, renamed `deprecated_`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets mimalloc's options that [`PURGE_DELAY_MS`] describes (an
/// environment variable the user set wins).
fn configure_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mimalloc's options may be set at any time from any thread;
        // an option is read each time it is used.
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
}

extern "C" {
    /// `mimalloc.h`: prints mimalloc's version and every option's value
    /// through `out` (not bound by `libmimalloc-sys`).
    fn mi_options_print_out(out: libmimalloc_sys::mi_output_fun, arg: *mut std::ffi::c_void);
}

/// Appends one message of mimalloc's to the `String` that `arg` points to.
unsafe extern "C" fn append_message(message: *const std::ffi::c_char, arg: *mut std::ffi::c_void) {
    // SAFETY: `arg` is the `&mut String` that `allocator_options` passed,
    // alive for the call; `message` is a NUL-terminated string of mimalloc's.
    unsafe {
        let out = &mut *arg.cast::<String>();
        out.push_str(&std::ffi::CStr::from_ptr(message).to_string_lossy());
    }
}

/// mimalloc's version and options as it prints them (`option 'NAME': VALUE`
/// lines), to see what [`configure_allocator`] set.
#[pyfunction]
fn allocator_options() -> String {
    let mut out = String::new();
    // SAFETY: `append_message` only appends to `out`, which outlives the call.
    unsafe {
        mi_options_print_out(Some(append_message), std::ptr::from_mut(&mut out).cast());
    }
    out
}

/// Give the memory the extension freed (a check's replays, above all) back
/// to the system now, rather than after mimalloc's purge delay; the next
/// replay takes fresh pages again.
#[pyfunction]
fn release_memory(py: Python<'_>) {
    // SAFETY: `mi_collect` may be called from any thread at any time.
    py.detach(|| unsafe { libmimalloc_sys::mi_collect(true) });
}

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
    configure_allocator();
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(release_memory, m)?)?;
    m.add_function(wrap_pyfunction!(allocator_options, m)?)?;
    hashing::register(m)?;
    transcript::register(m)?;
    passes::register(m)?;
    runtime::register(m)?;
    Ok(())
}
