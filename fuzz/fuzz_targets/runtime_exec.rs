//! Arbitrary text as a replay program: parse it, run its `main` (or first)
//! function on small deterministic inputs within tight limits. A parse
//! error, an unsupported op or a limit is fine; a panic, an abort, a hang
//! or unbounded memory is a bug.
//!
//! Seed corpus: `fuzz/corpus/runtime_exec/` (conformance-style programs and
//! fixture fragments). Run:
//! `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run runtime_exec`.
//!
//! Like `opt_pipeline`, this target defines its own `main`, because the
//! static MLIR libraries carry an `mlir-opt` `main` of their own.

use std::ffi::{c_char, c_int, CString};

use libfuzzer_sys::fuzz_target;
use zkdv_runtime::{Data, ElementType, Limits, Program, Tensor};

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

const LIMITS: Limits = Limits {
    max_ops: 20_000,
    max_elements: 1 << 16,
};

/// Small inputs of the argument's type: values 0, 1, 2, ... (as the type).
fn input(ty: &zkdv_runtime::TensorType) -> Option<Tensor> {
    let n: usize = ty.shape.iter().product();
    if n > LIMITS.max_elements {
        return None;
    }
    let data = match ty.element {
        ElementType::F64 => Data::F64((0..n).map(|i| i as f64).collect()),
        ElementType::F32 | ElementType::F16 | ElementType::BF16 => {
            Data::F32((0..n).map(|i| (i % 7) as f32).collect())
        }
        ElementType::I1 => Data::Bool((0..n).map(|i| i % 2 == 1).collect()),
        ElementType::Signed(_) => Data::Signed((0..n).map(|i| (i % 3) as i64).collect()),
        ElementType::Unsigned(_) => Data::Unsigned((0..n).map(|i| (i % 3) as u64).collect()),
        _ => return None,
    };
    Tensor::new(ty.element, ty.shape.clone(), data).ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = Program::parse(text, "fuzz", "main") else {
        return;
    };
    let Some(inputs) = program.arguments().iter().map(input).collect::<Option<Vec<_>>>() else {
        return;
    };
    let _ = program.run_limited(inputs, LIMITS);
});
