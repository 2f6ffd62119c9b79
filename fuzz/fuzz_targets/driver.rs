//! The `main` of the fuzz targets that link MLIR: the static MLIR libraries
//! that `mlir-sys` links carry an `mlir-opt`-style `main` of their own, which
//! the linker would otherwise pick over libFuzzer's (and which rejects
//! libFuzzer's flags). A `main` in the target's own object wins over both
//! archives and hands control to libFuzzer's driver. Included by the targets
//! with `#[path = "driver.rs"] mod driver;`.

use std::ffi::{c_char, c_int, CString};

extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        callback: extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> c_int;
}

extern "C" fn one_input(data: *const u8, size: usize) -> c_int {
    // SAFETY: libFuzzer passes a valid buffer of `size` bytes; the callee is
    // the entry point the target's `fuzz_target!` defines.
    unsafe { LLVMFuzzerTestOneInput(data, size) }
}

/// Runs libFuzzer's driver with this process's arguments and exits with its
/// status.
pub fn run() -> ! {
    let args: Vec<CString> = std::env::args()
        .filter_map(|arg| CString::new(arg).ok())
        .collect();
    let mut pointers: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    pointers.push(std::ptr::null_mut());
    let mut argc = c_int::try_from(args.len()).unwrap_or(c_int::MAX);
    let mut argv = pointers.as_mut_ptr();
    // SAFETY: argc/argv describe NUL-terminated strings that outlive the
    // call (`args` and `pointers` live until the process exits).
    let status = unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, one_input) };
    std::process::exit(status);
}
