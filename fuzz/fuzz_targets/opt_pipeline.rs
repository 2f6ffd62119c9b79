//! Arbitrary text through the MLIR parser and then every pass of the table,
//! in table order, as `zkdv-opt` runs them: a parse error or a pass
//! diagnostic is fine, a panic or an abort is a bug.
//!
//! Seed corpus: `fuzz/corpus/opt_pipeline/` (small real exported steps and
//! lit cases). Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run opt_pipeline`.
//!
//! Unlike the other targets this one defines its own `main`: the static MLIR
//! libraries that `mlir-sys` links carry an `mlir-opt`-style `main` of their
//! own, which the linker would otherwise pick over libFuzzer's (and which
//! rejects libFuzzer's flags). A `main` in this crate's object wins over
//! both archives and hands control to libFuzzer's driver.

use std::ffi::{c_char, c_int, CString};

use libfuzzer_sys::fuzz_target;

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
    // the entry point `fuzz_target!` defines below.
    unsafe { LLVMFuzzerTestOneInput(data, size) }
}

fn main() {
    let args: Vec<CString> = std::env::args()
        .filter_map(|arg| CString::new(arg).ok())
        .collect();
    let mut pointers: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    pointers.push(std::ptr::null_mut());
    let mut argc = c_int::try_from(args.len()).unwrap_or(c_int::MAX);
    let mut argv = pointers.as_mut_ptr();
    // SAFETY: argc/argv describe NUL-terminated strings that outlive the
    // call (`args` and `pointers` live until the end of `main`).
    let status = unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, one_input) };
    std::process::exit(status);
}
use zkdv_passes::{IrContext, PassOptions, PASSES};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let context = IrContext::new();
    let Ok(module) = context.parse(text, "fuzz") else {
        return;
    };
    for pass in PASSES {
        let mut options = PassOptions::default();
        let _ = (pass.run)(&module, &mut options);
        // A pass that fails may leave the module half rewritten; like
        // zkdv-opt, stop at the first invalid module.
        if context.verify(&module).is_err() {
            break;
        }
    }
});
