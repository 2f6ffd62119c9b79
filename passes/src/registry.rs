//! The pass table: every pass `zkdv-opt` can run, by flag name.
//!
//! A pass is a plain function over a parsed [`Module`]. It reports failure as
//! a [`PassError`] holding located diagnostics; it never panics and never
//! prints. Drivers run passes in the order the user gives them and verify the
//! module after each one.

use melior::ir::Module;

use crate::{
    annotate_roles, check_hermetic, cost_report, cse, dce, guard_leaves, inline,
    insert_commitments, precision_report, push_select, slice_update, PassError,
};

/// What a driver hands a pass besides the module.
#[derive(Debug, Default)]
pub struct PassOptions {
    /// The text after `=` in `--flag=options` (empty without `=`). Each pass
    /// documents and parses its own syntax, and reports a bad option as a
    /// [`PassError`].
    pub options: String,
    /// Text the pass reports to the user (for example a cost report); the
    /// driver prints it to stderr after the pass, so stdout keeps the IR.
    pub report: String,
}

/// A pass entry point.
pub type PassFn = for<'c> fn(&Module<'c>, &mut PassOptions) -> Result<(), PassError>;

/// A pass descriptor.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// Command-line flag without the leading `--`, e.g. `zkdv-check-hermetic`.
    pub flag: &'static str,
    /// One-line summary, shown by `zkdv-opt --help`.
    pub summary: &'static str,
    /// Runs the pass on a module.
    pub run: PassFn,
}

impl std::fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassInfo")
            .field("flag", &self.flag)
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

/// All passes, in the order `--help` lists them.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        flag: "zkdv-check-hermetic",
        summary: "Reject randomness, host I/O and opaque custom_calls (the step must be a pure \
                  function of its inputs)",
        run: check_hermetic::run,
    },
    PassInfo {
        flag: "zkdv-inline",
        summary: "Inline calls to private functions, then erase unreferenced private functions",
        run: inline::run,
    },
    PassInfo {
        flag: "zkdv-dce",
        summary: "Erase unused pure ops (dead-code elimination)",
        run: dce::run,
    },
    PassInfo {
        flag: "zkdv-cse",
        summary: "Merge identical pure ops within a block (common-subexpression elimination)",
        run: cse::run,
    },
    PassInfo {
        flag: "zkdv-annotate-roles",
        summary: "Mark the entry function's arguments and results with zkdv.role/zkdv.path \
                  (options: \"func=main args=param:0-3,... results=post_param:0-3,...\", or \
                  inferred from jax.result_info)",
        run: annotate_roles::run,
    },
    PassInfo {
        flag: "zkdv-cost-report",
        summary: "Print each function's FLOPs by op to stderr (option: func=NAME)",
        run: cost_report::run,
    },
    PassInfo {
        flag: "zkdv-precision-report",
        summary: "Print the narrowest float type the module computes in and how many op results \
                  are narrower than f32 (recorded with each program)",
        run: precision_report::run,
    },
    PassInfo {
        flag: "zkdv-insert-commitments",
        summary:
            "Append the probe sketch of every delta leaf as a `sketch` result, computed from a \
                  probe_weight argument appended per leaf in one elementwise pass (options: \
                  func=NAME ratio=R, default 0.01)",
        run: insert_commitments::run,
    },
    PassInfo {
        flag: "zkdv-slice-update",
        summary: "Add @zkdv_attested (params, opt_state, batch, ui64 indices) -> (f32 delta, f32 \
                  post-state) and @zkdv_replay (state and deltas, no user results) (options: \
                  func=NAME output=both|attested|replay)",
        run: slice_update::run,
    },
    PassInfo {
        flag: "zkdv-push-select",
        summary: "Compute one coordinate instead of the whole update: push one-element \
                  dynamic_slices through elementwise ops, broadcasts, reshapes, transposes, \
                  dot_general and convolution, then DCE and --zkdv-guard-leaves (option: \
                  func=NAME, default zkdv_attested)",
        run: push_select::run,
    },
    PassInfo {
        flag: "zkdv-guard-leaves",
        summary: "Run only the challenged leaves' work in the attested function: move the ops \
                  that only some leaves need under stablehlo.if guards on the index ranges \
                  (option: func=NAME, default zkdv_attested)",
        run: guard_leaves::run,
    },
];

/// The pass with this flag name (without `--`).
pub fn find(flag: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|pass| pass.flag == flag)
}
