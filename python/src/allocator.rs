//! The extension's memory allocator: mimalloc, with the options that suit a
//! replay of a whole training step, and the binding's way to give freed
//! memory back (`zkdv.runtime.release_memory`).
//!
//! Every Rust allocation of the extension (the replay runtime's tensors
//! above all) goes to mimalloc, which reuses freed buffers at once; with the
//! system allocator every large tensor came back from the kernel as fresh
//! pages op after op. Python's, numpy's, torch's and XLA's own memory is not
//! affected. Two of mimalloc's defaults cost a replay at GPT-2 small's size
//! (124M parameters, a step's replay working through about 5 GB), measured
//! on the cached replay program of that step run three times in a row:
//!
//! - its purge delay (one second) handed back, during a replay, the buffers
//!   of ops that had finished, so later ops took them again as fresh pages,
//!   zeroed by the kernel: that zeroing was 42% of the replay's profile;
//! - it asks for transparent huge pages (`madvise(MADV_HUGEPAGE)`), and on a
//!   machine whose memory is fragmented each 2 MiB fault may compact memory
//!   first: a first run took 23-27 s with them and 13-15 s without, and
//!   later runs took no longer for the 4 KiB pages.
//!
//! So freed memory is kept for a minute ([`PURGE_DELAY_MS`]) and huge pages
//! are not asked for; each run of a program gives what it freed back when it
//! ends, and the session's checker does once no check waits. An environment
//! variable the user sets (`MIMALLOC_PURGE_DELAY`, `MIMALLOC_ALLOW_THP`)
//! wins over both.

use pyo3::prelude::*;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long mimalloc keeps memory the extension freed before it gives it
/// back to the system, in milliseconds (see the module's description).
pub(crate) const PURGE_DELAY_MS: std::ffi::c_long = 60_000;

/// `mi_option_purge_delay` and `mi_option_allow_thp` in `mimalloc.h`'s
/// `mi_option_t` (version 3), which `libmimalloc-sys` does not name;
/// mimalloc keeps the enum's values stable (retired options stay in place,
/// renamed `deprecated_`), and `allocator_options` prints them by name
/// (a test reads them there).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// The options this module sets: the variable a user sets to override one,
/// the option, and its value here.
const OPTIONS: [(&str, libmimalloc_sys::mi_option_t, std::ffi::c_long); 2] = [
    (
        "MIMALLOC_PURGE_DELAY",
        MI_OPTION_PURGE_DELAY,
        PURGE_DELAY_MS,
    ),
    ("MIMALLOC_ALLOW_THP", MI_OPTION_ALLOW_THP, 0),
];

/// Sets the options of [`OPTIONS`] that the environment does not.
fn configure() {
    for (variable, option, value) in OPTIONS {
        if std::env::var_os(variable).is_none() {
            // SAFETY: mimalloc's options may be set at any time from any
            // thread; each is read when it is used (memory mimalloc took
            // from the system before this call keeps the advice it had).
            unsafe { libmimalloc_sys::mi_option_set(option, value) };
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
/// lines), to see what [`configure`] set.
#[pyfunction]
fn allocator_options() -> String {
    let mut out = String::new();
    // SAFETY: `append_message` only appends to `out`, which outlives the call.
    unsafe {
        mi_options_print_out(Some(append_message), std::ptr::from_mut(&mut out).cast());
    }
    out
}

/// Gives the memory the extension freed back to the system now, rather than
/// after [`PURGE_DELAY_MS`].
pub(crate) fn give_back_freed_memory() {
    // SAFETY: `mi_collect` may be called from any thread at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Give the memory the extension freed (a check's replays and comparisons)
/// back to the system now, rather than after mimalloc's purge delay.
#[pyfunction]
fn release_memory(py: Python<'_>) {
    py.detach(give_back_freed_memory);
}

/// Configures the allocator and adds its functions to `_native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    configure();
    m.add_function(wrap_pyfunction!(release_memory, m)?)?;
    m.add_function(wrap_pyfunction!(allocator_options, m)?)?;
    Ok(())
}
