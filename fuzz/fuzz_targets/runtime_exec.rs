//! Arbitrary text as a replay program: parse it, run its `main` function on
//! small deterministic inputs within tight limits. A parse
//! error, an unsupported op or a limit is fine; a panic, an abort, a hang
//! or unbounded memory is a bug.
//!
//! Seed corpus: `fuzz/corpus/runtime_exec/` (conformance cases with their
//! checks removed and their function renamed `main`). Run:
//! `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run runtime_exec`.
//!
//! Its `main` comes from `driver.rs` (see there why MLIR targets need one).

use libfuzzer_sys::fuzz_target;
use zkdv_runtime::{Data, ElementType, Limits, Program, Tensor};

#[path = "driver.rs"]
mod driver;

fn main() {
    driver::run()
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
