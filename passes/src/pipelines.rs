//! Named pipelines: the pass sequences the frontends run, declared once.
//!
//! A pipeline is a flag like a pass (`--zkdv-attested-pipeline`), with its own
//! typed options, that expands into passes with options. `zkdv-opt`, the
//! Python binding (`zkdv.passes.run_passes`) and the lit tests
//! (`test-mlir/pipelines.mlir`) all run these definitions, so what
//! `proof.jit` runs on a step is exactly what a lit test runs.
//!
//! - `zkdv-hermetic-pipeline`: a user's own attested function
//!   (`proof.attest`): inline, then reject anything impure.
//! - `zkdv-attested-pipeline`: the attested program of a check, from the
//!   canonical step (JAX's, or a torch-mlir export, whose `arith.constant`s
//!   are legalized first): inline, hermeticity, roles (inferred from JAX's
//!   result names, or the explicit lists the options give), slice the attested function
//!   (`output=attested`, so it is `main`), select one coordinate, give each
//!   result of a `jax.shard_map` body its own copy, erase what the selection
//!   no longer needs, guard the leaves.
//! - `zkdv-production-pipeline`: the production program: roles, then the
//!   probe sketches of the update.
//! - `zkdv-replay-pipeline`: the replay program of a state check and of an
//!   audit, from the canonical step: inline, hermeticity, roles, slice the
//!   step without its user results (`output=replay`); with `whole`, the step
//!   as it is after hermeticity (a DDP rank's replay keeps its own gradients,
//!   which a state check compares too).
//!
//! Invariant: every stage is a registered pass and every stage's options
//! parse against that pass's table for every value of the pipeline's options
//! (a unit test expands each pipeline with its defaults and with every
//! option given).

use crate::options::{Kind, OptionSpec, OptionValues};

/// One stage: a pass flag and its option text.
pub type Stage = (&'static str, String);

/// A pipeline descriptor.
#[derive(Clone, Copy)]
pub struct PipelineInfo {
    /// Command-line flag without the leading `--`.
    pub flag: &'static str,
    /// One-line summary, shown by `zkdv-opt --help`.
    pub summary: &'static str,
    /// The options `--flag=...` accepts.
    pub options: &'static [OptionSpec],
    /// The stages for the given options.
    pub stages: fn(&OptionValues) -> Vec<Stage>,
}

impl std::fmt::Debug for PipelineInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineInfo")
            .field("flag", &self.flag)
            .field("summary", &self.summary)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl PipelineInfo {
    /// The stages as `--flag=options` text, as `--help` shows them.
    pub fn describe(&self, values: &OptionValues) -> String {
        (self.stages)(values)
            .iter()
            .map(|(flag, options)| match options.as_str() {
                "" => format!("--{flag}"),
                options => format!("--{flag}=\"{options}\""),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn stage(flag: &'static str, options: &str) -> Stage {
    (flag, options.to_owned())
}

fn hermetic(_: &OptionValues) -> Vec<Stage> {
    vec![stage("zkdv-inline", ""), stage("zkdv-check-hermetic", "")]
}

/// The attested pipeline's options are `--zkdv-annotate-roles`' explicit
/// role lists (a torch export has no `jax.result_info` to infer them from),
/// forwarded as given.
fn attested(values: &OptionValues) -> Vec<Stage> {
    vec![
        stage("zkdv-legalize-arith", ""),
        stage("zkdv-inline", ""),
        stage("zkdv-check-hermetic", ""),
        ("zkdv-annotate-roles", values.render()),
        stage("zkdv-slice-update", "output=attested"),
        stage("zkdv-push-select", "func=main"),
        stage("zkdv-split-manual", ""),
        stage("zkdv-dce", ""),
        stage("zkdv-guard-leaves", "func=main"),
    ]
}

/// The replay pipeline's role lists are the attested pipeline's; `whole`
/// stops after hermeticity.
fn replay(values: &OptionValues) -> Vec<Stage> {
    let mut stages = vec![
        stage("zkdv-legalize-arith", ""),
        stage("zkdv-inline", ""),
        stage("zkdv-check-hermetic", ""),
    ];
    if !values.flag("whole") {
        stages.push(("zkdv-annotate-roles", values.render_except(&["whole"])));
        stages.push(stage("zkdv-slice-update", "output=replay"));
    }
    stages
}

/// The pipeline's options are `--zkdv-insert-commitments`'s own (same
/// names, kinds and defaults), so they are forwarded as given.
fn production(values: &OptionValues) -> Vec<Stage> {
    vec![
        stage("zkdv-annotate-roles", ""),
        ("zkdv-insert-commitments", values.render()),
    ]
}

static ATTESTED_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "args",
        kind: Kind::List,
        default: None,
        help: "argument roles as `role:first-last,...` (with results=; default: from JAX names)",
    },
    OptionSpec {
        name: "results",
        kind: Kind::List,
        default: None,
        help: "result roles as `role:first-last,...` (with args=)",
    },
];

static REPLAY_OPTIONS: &[OptionSpec] = &[
    ATTESTED_OPTIONS[0],
    ATTESTED_OPTIONS[1],
    OptionSpec {
        name: "whole",
        kind: Kind::Flag,
        default: None,
        help: "keep every result (no roles, no slicing): a DDP rank's replay",
    },
];

static PRODUCTION_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "ratio",
        kind: Kind::Ratio,
        default: Some("0.01"),
        help: "the probe ratio of the sketches",
    },
    OptionSpec {
        name: "drop-deltas",
        kind: Kind::Flag,
        default: None,
        help: "return sketches instead of the update's deltas",
    },
    OptionSpec {
        name: "join",
        kind: Kind::Flag,
        default: None,
        help: "return the sketches as one 1-D result",
    },
];

/// All pipelines, in the order `--help` lists them.
pub static PIPELINES: &[PipelineInfo] = &[
    PipelineInfo {
        flag: "zkdv-hermetic-pipeline",
        summary: "A user's attested function (proof.attest): inline, then check hermeticity",
        options: &[],
        stages: hermetic,
    },
    PipelineInfo {
        flag: "zkdv-attested-pipeline",
        summary: "The attested program of a check, from the canonical step (what proof.jit \
                  records): main(params, opt_state, batch, ui64, ui64) -> (f32, f32), computing \
                  one coordinate of the challenged leaves only",
        options: ATTESTED_OPTIONS,
        stages: attested,
    },
    PipelineInfo {
        flag: "zkdv-replay-pipeline",
        summary: "The replay program of a state check and an audit, from the canonical step: the \
                  step without its user results (with `whole`, every result)",
        options: REPLAY_OPTIONS,
        stages: replay,
    },
    PipelineInfo {
        flag: "zkdv-production-pipeline",
        summary: "The production program: roles, then the probe sketches of the update",
        options: PRODUCTION_OPTIONS,
        stages: production,
    },
];

/// The pipeline with this flag name (without `--`).
pub fn find(flag: &str) -> Option<&'static PipelineInfo> {
    PIPELINES.iter().find(|pipeline| pipeline.flag == flag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;

    /// Every option of `specs` given once (flags bare, others a valid value).
    fn all_given(specs: &[OptionSpec]) -> String {
        specs
            .iter()
            .map(|spec| match spec.kind {
                Kind::Flag => spec.name.to_owned(),
                Kind::Ratio => format!("{}=0.5", spec.name),
                Kind::Choice(words) => format!("{}={}", spec.name, words[0]),
                Kind::Text | Kind::List => format!("{}=x", spec.name),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn every_stage_is_a_pass_with_valid_options() {
        for pipeline in PIPELINES {
            for text in ["".to_owned(), all_given(pipeline.options)] {
                let values = OptionValues::parse(pipeline.flag, pipeline.options, &text)
                    .expect("the pipeline's own options parse");
                let stages = (pipeline.stages)(&values);
                assert!(!stages.is_empty(), "{}", pipeline.flag);
                for (flag, options) in stages {
                    let pass = registry::find(flag).unwrap_or_else(|| panic!("{flag} is a pass"));
                    pass.parse_options(&options)
                        .unwrap_or_else(|e| panic!("{}: {e}", pipeline.flag));
                }
            }
            assert!(
                registry::find(pipeline.flag).is_none(),
                "names are distinct"
            );
        }
    }

    #[test]
    fn production_forwards_its_options() {
        let pipeline = find("zkdv-production-pipeline").expect("registered");
        let values =
            OptionValues::parse(pipeline.flag, pipeline.options, "drop-deltas ratio=0.25").unwrap();
        assert_eq!(
            pipeline.describe(&values),
            "--zkdv-annotate-roles --zkdv-insert-commitments=\"ratio=0.25 drop-deltas\""
        );
    }
}
