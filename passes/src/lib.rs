//! StableHLO analysis and rewriting passes of ZKDV.
//!
//! # The generic-form approach
//!
//! ZKDV reads training steps exported from JAX as StableHLO, but it does not
//! link the StableHLO dialect: it links only upstream MLIR (through `melior`).
//! Programs are therefore read in MLIR's *generic op form*
//! (`%0 = "stablehlo.add"(%a, %b) : (...) -> ...`), which MLIR parses without
//! knowing the dialect once unregistered dialects are allowed:
//!
//! - StableHLO ops become *unregistered* ops. They have a name, operands,
//!   results, regions and a location, but no verifier, traits or interfaces;
//!   passes know their semantics by name.
//! - Their attributes (`<{...}>` properties and `{...}` attributes alike) are
//!   read by name (`OperationLike::attribute`). `#stablehlo.*` attributes and
//!   `!stablehlo.*` types parse as opaque attributes/types and print back
//!   unchanged.
//! - `builtin` and `func` are registered, so modules, `func.func`, `func.call`
//!   and `func.return` are real ops with verification and symbols.
//! - Upstream passes that rely on op traits (canonicalize, cse, inline) do
//!   nothing useful on unregistered ops, so ZKDV implements its own passes
//!   ([`registry`]) over this IR.
//!
//! StableHLO in *pretty* form cannot be parsed; [`ir::IrContext::parse`]
//! recognises it and says how to print generic form instead.
//!
//! # Layout
//!
//! - [`ir`] holds the context, parsing with typed errors and captured
//!   diagnostics, generic printing, locations and op traversal helpers.
//! - [`registry`] is the pass table used by `zkdv-opt`.
//! - [`check_hermetic`] implements `--zkdv-check-hermetic`.
//! - [`inline`], [`dce`] and [`cse`] implement `--zkdv-inline`, `--zkdv-dce`
//!   and `--zkdv-cse`; [`effects`] is their side-effect model.
//! - [`annotate_roles`] implements `--zkdv-annotate-roles`; [`roles`] is the
//!   role/path attribute convention and its reader.
//! - [`cost_report`] implements `--zkdv-cost-report` ([`cost_report::flops`]).
//! - [`push_select`] implements `--zkdv-push-select`.
//! - [`insert_commitments`] implements `--zkdv-insert-commitments`.

pub mod annotate_roles;
pub mod check_hermetic;
pub mod cost_report;
pub mod cse;
pub mod dce;
pub mod effects;
pub mod guard_leaves;
pub mod inline;
pub mod insert_commitments;
/// The MLIR front end, shared with the runtime (crate `zkdv-ir`).
pub use zkdv_ir as ir;
pub mod pipeline;
pub mod precision_report;
pub mod push_select;
pub mod registry;
mod rewrite;
pub mod roles;
pub mod slice_update;

pub use ir::{Diagnostic, Diagnostics, IrContext, ParseError};
pub use registry::{PassInfo, PassOptions, PASSES};

/// Why a pass failed: located diagnostics, shown one per line.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The input breaks a precondition or property the pass checks.
    #[error("{0}")]
    Failed(Diagnostics),
}

impl PassError {
    /// The diagnostics behind this error.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            PassError::Failed(diagnostics) => &diagnostics.0,
        }
    }
}
