//! The contract between a driver and a pass: what a pass receives besides
//! the module ([`PassOptions`]), and how it fails ([`PassError`]).
//!
//! Every pass file depends on this module and on the shared helpers
//! (`crate::ir`, `crate::roles`, `crate::abi`, `crate::rewrite`), never on
//! the registry or on another pass's entry point: a pass that needs another
//! pass's work is composed with it in a named pipeline
//! ([`crate::pipelines`]).

use melior::ir::Module;

use crate::{
    ir::{Diagnostic, Diagnostics},
    options::OptionValues,
};

/// What a driver hands a pass besides the module.
#[derive(Debug, Default)]
pub struct PassOptions {
    /// The pass's options, parsed and checked against the table it declares
    /// in [`crate::registry::PASSES`].
    pub values: OptionValues,
    /// Text the pass reports to the user (for example a cost report); the
    /// driver prints it to stderr after the pass, so stdout keeps the IR.
    pub report: String,
}

/// A pass entry point.
pub type PassFn = for<'c> fn(&Module<'c>, &mut PassOptions) -> Result<(), PassError>;

/// Why a pass failed: located diagnostics, shown one per line.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The input breaks a precondition or property the pass checks.
    #[error("{0}")]
    Failed(Diagnostics),
}

impl PassError {
    /// One diagnostic.
    pub fn one(diagnostic: Diagnostic) -> Self {
        PassError::Failed(Diagnostics(vec![diagnostic]))
    }

    /// The diagnostics behind this error.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            PassError::Failed(diagnostics) => &diagnostics.0,
        }
    }
}
