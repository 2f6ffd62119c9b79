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

use libfuzzer_sys::fuzz_target;

#[path = "driver.rs"]
mod driver;

fn main() {
    driver::run()
}
use zkdv_passes::{IrContext, PASSES};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let context = IrContext::new();
    let Ok(module) = context.parse(text, "fuzz") else {
        return;
    };
    for pass in PASSES {
        let mut options = pass.default_options();
        let _ = (pass.run)(&module, &mut options);
        // A pass that fails may leave the module half rewritten; like
        // zkdv-opt, stop at the first invalid module.
        if context.verify(&module).is_err() {
            break;
        }
    }
});
