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
//! - [`ir`] (crate `zkdv-ir`) holds the context, parsing with typed errors
//!   and captured diagnostics, generic printing, locations, op traversal and
//!   StableHLO attribute parsers.
//! - [`registry`] declares every pass (flag, summary, typed options);
//!   [`pipelines`] declares the named pipelines the frontends run;
//!   [`options`] parses and checks option text against those declarations;
//!   [`driver`] runs a list of passes and pipelines on module text (used by
//!   `zkdv-opt` and the Python binding).
//! - [`pass`] is the contract of a pass (its options, its error); [`abi`],
//!   [`roles`], [`effects`] and `rewrite` are the helpers passes share. A
//!   pass file depends only on those, never on another pass's entry point.
//! - One file per pass, named after its flag: [`check_hermetic`],
//!   [`inline`], [`dce`], [`cse`], [`legalize_arith`], [`annotate_roles`], [`cost_report`],
//!   [`precision_report`], [`insert_commitments`], [`slice_update`],
//!   [`push_select`], [`split_manual`], [`guard_leaves`]; each opens with what it does, its
//!   preconditions and its invariants.

pub mod abi;
pub mod annotate_roles;
pub mod check_hermetic;
pub mod cost_report;
pub mod cse;
pub mod dce;
pub mod driver;
pub mod effects;
pub mod guard_leaves;
pub mod inline;
pub mod insert_commitments;
pub mod legalize_arith;
/// The MLIR front end, shared with the runtime (crate `zkdv-ir`).
pub use zkdv_ir as ir;
pub mod options;
pub mod pass;
pub mod pipelines;
pub mod precision_report;
pub mod push_select;
pub mod registry;
mod rewrite;
pub mod roles;
pub mod slice_update;
pub mod split_manual;

pub use ir::{Diagnostic, Diagnostics, IrContext, ParseError};
pub use pass::{PassError, PassOptions};
pub use registry::{PassInfo, PASSES};
