//! The pass table: every pass `zkdv-opt` can run, by flag name, with its
//! summary and its typed options.
//!
//! This is the one place a pass is declared. A pass is a plain function over
//! a parsed [`Module`](melior::ir::Module); it reads its options, already
//! checked against the table below, from [`PassOptions::values`], reports
//! failure as a [`PassError`](crate::PassError) holding located diagnostics, never panics and
//! never prints. Named compositions of passes are in [`crate::pipelines`].

use crate::{
    annotate_roles, check_hermetic, cost_report, cse, dce, guard_leaves, inline,
    insert_commitments, legalize_arith,
    options::{Kind, OptionError, OptionSpec, OptionValues},
    pass::{PassFn, PassOptions},
    precision_report, push_select, slice_update, split_manual,
};

/// A pass descriptor.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// Command-line flag without the leading `--`, e.g. `zkdv-check-hermetic`.
    pub flag: &'static str,
    /// One-line summary, shown by `zkdv-opt --help`.
    pub summary: &'static str,
    /// The options `--flag=...` accepts.
    pub options: &'static [OptionSpec],
    /// Runs the pass on a module.
    pub run: PassFn,
}

impl PassInfo {
    /// Parses `--flag=text` against this pass's option table.
    pub fn parse_options(&self, text: &str) -> Result<OptionValues, OptionError> {
        OptionValues::parse(self.flag, self.options, text)
    }

    /// What the pass receives with no options given.
    pub fn default_options(&self) -> PassOptions {
        PassOptions {
            values: OptionValues::defaults(self.options),
            report: String::new(),
        }
    }
}

impl std::fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassInfo")
            .field("flag", &self.flag)
            .field("summary", &self.summary)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// `func=NAME` of the passes over the attested function.
const ATTESTED_FUNC: OptionSpec = OptionSpec {
    name: "func",
    kind: Kind::Text,
    default: Some(crate::abi::ATTESTED),
    help: "the function to rewrite (`main` after --zkdv-slice-update=output=attested)",
};

/// `func=NAME` of the passes over the entry function.
const ENTRY_FUNC: OptionSpec = OptionSpec {
    name: "func",
    kind: Kind::Text,
    default: Some("main"),
    help: "the entry function",
};

/// All passes, in the order `--help` lists them.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        flag: "zkdv-check-hermetic",
        summary: "Reject randomness, host I/O and opaque custom_calls (the step must be a pure \
                  function of its inputs)",
        options: &[],
        run: check_hermetic::run,
    },
    PassInfo {
        flag: "zkdv-inline",
        summary: "Inline calls to private functions, then erase unreferenced private functions",
        options: &[],
        run: inline::run,
    },
    PassInfo {
        flag: "zkdv-dce",
        summary: "Erase unused pure ops (dead-code elimination)",
        options: &[],
        run: dce::run,
    },
    PassInfo {
        flag: "zkdv-split-manual",
        summary: "Give each used result of a jax.shard_map body (sdy.manual_computation) its own \
                  copy of the op, computing only that result",
        options: &[],
        run: split_manual::run,
    },
    PassInfo {
        flag: "zkdv-cse",
        summary: "Merge identical pure ops within a block (common-subexpression elimination)",
        options: &[],
        run: cse::run,
    },
    PassInfo {
        flag: "zkdv-legalize-arith",
        summary: "Turn the arith.constant tensors of a torch-mlir export into stablehlo.constant \
                  (and refuse any other arith op)",
        options: &[],
        run: legalize_arith::run,
    },
    PassInfo {
        flag: "zkdv-annotate-roles",
        summary: "Mark the entry function's arguments and results with zkdv.role/zkdv.path, \
                  inferred from jax.result_info or given as explicit index ranges",
        options: &[
            ENTRY_FUNC,
            OptionSpec {
                name: "args",
                kind: Kind::List,
                default: None,
                help: "argument roles as `role:first-last,...` (with results=)",
            },
            OptionSpec {
                name: "results",
                kind: Kind::List,
                default: None,
                help: "result roles as `role:first-last,...` (with args=)",
            },
        ],
        run: annotate_roles::run,
    },
    PassInfo {
        flag: "zkdv-cost-report",
        summary: "Print each function's FLOPs by op to stderr",
        options: &[OptionSpec {
            name: "func",
            kind: Kind::Text,
            default: None,
            help: "report only this function (default: every function with a body)",
        }],
        run: cost_report::run,
    },
    PassInfo {
        flag: "zkdv-precision-report",
        summary: "Print the narrowest float type the module computes in and how many op results \
                  are narrower than f32 (recorded with each program)",
        options: &[],
        run: precision_report::run,
    },
    PassInfo {
        flag: "zkdv-insert-commitments",
        summary:
            "Append the probe sketch of every delta leaf as a `sketch` result, computed from a \
                  probe_weight argument appended per leaf in one elementwise pass",
        options: &[
            ENTRY_FUNC,
            OptionSpec {
                name: "ratio",
                kind: Kind::Ratio,
                default: Some("0.01"),
                help: "the probe ratio (sketch width over the leaf's last dimension)",
            },
            OptionSpec {
                name: "drop-deltas",
                kind: Kind::Flag,
                default: None,
                help: "also remove the delta results (production returns sketches only)",
            },
            OptionSpec {
                name: "join",
                kind: Kind::Flag,
                default: None,
                help: "return the sketches as one 1-D result (each flattened, in delta order)",
            },
        ],
        run: insert_commitments::run,
    },
    PassInfo {
        flag: "zkdv-slice-update",
        summary: "Add @zkdv_attested (params, opt_state, batch, ui64 indices) -> (f32 delta, f32 \
                  post-state) and @zkdv_replay (state and deltas, no user results)",
        options: &[
            ENTRY_FUNC,
            OptionSpec {
                name: "output",
                kind: Kind::Choice(&["both", "attested", "replay"]),
                default: Some("both"),
                help: "which functions to keep (`attested` or `replay` replaces the module's \
                       functions by that one, named main)",
            },
        ],
        run: slice_update::run,
    },
    PassInfo {
        flag: "zkdv-push-select",
        summary: "Compute one coordinate instead of the whole update: push one-element \
                  dynamic_slices through elementwise ops, broadcasts, reshapes, transposes, \
                  dot_general and convolution (follow with --zkdv-dce and --zkdv-guard-leaves, \
                  as the zkdv-attested-pipeline does)",
        options: &[ATTESTED_FUNC],
        run: push_select::run,
    },
    PassInfo {
        flag: "zkdv-guard-leaves",
        summary: "Run only the challenged leaves' work in the attested function: move the ops \
                  that only some leaves need under stablehlo.if guards on the index ranges",
        options: &[ATTESTED_FUNC],
        run: guard_leaves::run,
    },
];

/// The pass with this flag name (without `--`).
pub fn find(flag: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|pass| pass.flag == flag)
}
