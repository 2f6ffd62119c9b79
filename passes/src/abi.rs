//! The names the passes agree on about the attested step: the functions
//! `--zkdv-slice-update` adds, the attributes `--zkdv-guard-leaves` leaves
//! on a guarded function, and the lookup every pass over the attested
//! function starts with.
//!
//! These are the interface between passes (and between the passes and the
//! frontends, which call the functions by these names); keeping them here
//! means no pass reads another pass's module to learn them.

use melior::ir::{operation::OperationLike, Module, OperationRef};

use crate::{
    ir::{format_location, Diagnostic},
    roles::find_function,
    PassError,
};

/// Name of the attested function `--zkdv-slice-update` adds.
pub const ATTESTED: &str = "zkdv_attested";
/// Name of the replay function `--zkdv-slice-update` adds.
pub const REPLAY: &str = "zkdv_replay";

/// Attribute of a guard: the delta links of its target set.
pub const DELTA_LEAVES_ATTR: &str = "zkdv.delta_leaves";
/// Attribute of a guard: the state links of its target set.
pub const STATE_LEAVES_ATTR: &str = "zkdv.state_leaves";
/// Attribute of a guarded function: `array<i64: deltas, states>`.
pub const LEAF_COUNTS_ATTR: &str = "zkdv.leaf_counts";

/// The function named by a pass's `func=` option (whose default is
/// [`ATTESTED`] for passes over the attested function); diagnostics name the
/// pass `flag`.
pub(crate) fn attested_function<'c, 'a>(
    module: &'a Module<'c>,
    name: &str,
    flag: &str,
) -> Result<OperationRef<'c, 'a>, PassError> {
    find_function(module, name).ok_or_else(|| {
        PassError::one(Diagnostic::error(
            format_location(module.as_operation().location()),
            format!(
                "--{flag}: no function @{name} in the module (run --zkdv-slice-update first, or \
                 name the function with func=NAME)"
            ),
        ))
    })
}
