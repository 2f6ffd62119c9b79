//! `--zkdv-precision-report`: print the narrowest floating-point type a
//! module computes in, and how many op results have a narrow float type.
//!
//! A program record names its attested program's precision
//! (`docs/protocol.md` §5a, the tolerance policy): which of the perturbation
//! ensemble's perturbations act on it (narrow roundings exist only where a
//! program computes in `f16` or `bf16`), and what `zkdv inspect` shows. This
//! pass is the analysis the frontends record:
//!
//! ```text
//! zkdv-precision-report
//!   narrowest bf16
//!   narrow results 42
//! ```
//!
//! - `narrowest` is the float element type with the fewest significand bits
//!   (bf16 8, f16 11, f32 24, f64 53; complex types count as their parts;
//!   8-bit floats and tf32 are ordered by their significands too) among the
//!   results and block arguments of every op in the module, nested regions
//!   and every function included; `none` when the module has no float value.
//! - `narrow results` counts op results whose float type has fewer
//!   significand bits than `f32`: the ops whose rounding the ensemble
//!   perturbs.
//!
//! The analysis is [`zkdv_ir::precision`]; the runtime runs the same one on
//! the programs it parses, so that `zkdv audit` derives a program's
//! precision from the artifact instead of trusting the record.
//!
//! Preconditions: none beyond a parsed module; the pass only reads the IR
//! and never fails on a well-formed one. Invariant: the report depends only
//! on the types in the module, not on op order or names.

use melior::ir::Module;

pub use zkdv_ir::precision::{analyse, significand_bits, Precision};

use crate::{PassError, PassOptions};

/// Runs the pass.
pub fn run(module: &Module<'_>, options: &mut PassOptions) -> Result<(), PassError> {
    let p = analyse(module);
    options.report.push_str(&format!(
        "zkdv-precision-report\n  narrowest {}\n  narrow results {}\n",
        p.narrowest.as_deref().unwrap_or("none"),
        p.narrow_results
    ));
    Ok(())
}
