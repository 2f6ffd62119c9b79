//! Running passes and pipelines on module text, as `zkdv-opt` and the Python
//! binding do: resolve `--flag=options` items into passes with checked
//! options (expanding pipelines), parse the module, run each pass in order,
//! verify after each, print.

use crate::{
    ir::{print_generic_with, Diagnostic, Diagnostics, IrContext, ParseError, Severity},
    options::{OptionError, OptionValues},
    pipelines,
    registry::{self, PassInfo},
    PassError, PassOptions,
};

/// One pass to run, with its checked options.
#[derive(Debug, Clone)]
pub struct Step {
    /// The pass.
    pub pass: &'static PassInfo,
    /// Its options.
    pub options: OptionValues,
}

/// Why a run did not produce a module.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// A flag that is neither a pass nor a pipeline.
    #[error("unknown pass `--{0}` (see `zkdv-opt --help`)")]
    UnknownFlag(String),
    /// Bad options for a pass or pipeline.
    #[error(transparent)]
    Options(#[from] OptionError),
    /// The module text does not parse, a pass failed, or the module is
    /// invalid after a pass: the diagnostics, one per line.
    #[error("{0}")]
    Diagnostics(String),
}

/// The passes `flag` (a pass or a pipeline, without `--`) runs with
/// `options` (the text after `=`).
pub fn resolve(flag: &str, options: &str) -> Result<Vec<Step>, DriverError> {
    if let Some(pass) = registry::find(flag) {
        let options = pass.parse_options(options)?;
        return Ok(vec![Step { pass, options }]);
    }
    let pipeline = pipelines::find(flag).ok_or_else(|| DriverError::UnknownFlag(flag.into()))?;
    let values = OptionValues::parse(pipeline.flag, pipeline.options, options)?;
    let mut steps = Vec::new();
    for (stage, stage_options) in (pipeline.stages)(&values) {
        steps.extend(resolve(stage, &stage_options)?);
    }
    Ok(steps)
}

/// Parses `flag[=options]` items (with or without the leading `--`).
pub fn parse_steps<S: AsRef<str>>(items: &[S]) -> Result<Vec<Step>, DriverError> {
    let mut steps = Vec::new();
    for item in items {
        let item = item.as_ref().trim_start_matches("--");
        let (flag, options) = item.split_once('=').unwrap_or((item, ""));
        steps.extend(resolve(flag, options)?);
    }
    Ok(steps)
}

/// What a run emits while it goes: a pass's report, or a warning or remark
/// a pass emitted (errors come with the [`Failure`]).
#[derive(Debug, Clone, Copy)]
pub enum Emitted<'a> {
    /// A pass's report text (a cost table, ...).
    Report(&'a str),
    /// A non-error diagnostic.
    Diagnostic(&'a Diagnostic),
}

/// Why a run stopped, with what is needed to show or check it.
#[derive(Debug)]
pub enum Failure {
    /// The text does not parse.
    Parse(ParseError),
    /// A pass failed.
    Pass {
        /// The pass.
        flag: &'static str,
        /// Its diagnostics.
        error: PassError,
    },
    /// The module does not verify after a pass.
    Invalid {
        /// The pass after which it is invalid.
        flag: &'static str,
        /// The verifier's diagnostics.
        diagnostics: Diagnostics,
        /// The input's name.
        source_name: String,
    },
    /// The result could not be printed.
    Print {
        /// Why.
        message: String,
        /// The input's name.
        source_name: String,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Parse(error) => write!(f, "{error}"),
            Failure::Pass { error, .. } => write!(f, "{error}"),
            Failure::Invalid {
                flag,
                diagnostics,
                source_name,
            } => write!(
                f,
                "{diagnostics}\n{source_name}: error: the module is invalid after --{flag}"
            ),
            Failure::Print {
                message,
                source_name,
            } => write!(f, "{source_name}: error: cannot print: {message}"),
        }
    }
}

/// Parses `text`, runs `steps` in order, verifying the module after each,
/// and prints the result in generic form. `on_emit` receives each pass's
/// report and every warning or remark a pass emitted, as they come; a
/// failing pass's errors are those of its [`PassError`] (the context's
/// copies of them are not emitted twice).
pub fn run(
    text: &str,
    source_name: &str,
    steps: &[Step],
    debug_info: bool,
    on_emit: &mut dyn FnMut(Emitted<'_>),
) -> Result<String, Failure> {
    let context = IrContext::new();
    let module = context.parse(text, source_name).map_err(Failure::Parse)?;
    for step in steps {
        let mut options = PassOptions {
            values: step.options.clone(),
            report: String::new(),
        };
        let result = (step.pass.run)(&module, &mut options);
        if !options.report.is_empty() {
            on_emit(Emitted::Report(options.report.trim_end()));
        }
        let emitted = context.take_diagnostics();
        for diagnostic in emitted.iter().filter(|d| d.severity != Severity::Error) {
            on_emit(Emitted::Diagnostic(diagnostic));
        }
        result.map_err(|error| Failure::Pass {
            flag: step.pass.flag,
            error,
        })?;
        context
            .verify(&module)
            .map_err(|diagnostics| Failure::Invalid {
                flag: step.pass.flag,
                diagnostics,
                source_name: source_name.to_owned(),
            })?;
    }
    print_generic_with(&module, debug_info).map_err(|error| Failure::Print {
        message: error.to_string(),
        source_name: source_name.to_owned(),
    })
}

/// [`run`] with everything shown as text: `on_report` receives reports and
/// diagnostics as lines, and a failure is its diagnostics text.
pub fn run_steps(
    text: &str,
    source_name: &str,
    steps: &[Step],
    debug_info: bool,
    on_report: &mut dyn FnMut(&str),
) -> Result<String, DriverError> {
    run(
        text,
        source_name,
        steps,
        debug_info,
        &mut |emitted| match emitted {
            Emitted::Report(report) => on_report(report),
            Emitted::Diagnostic(diagnostic) => on_report(&diagnostic.to_string()),
        },
    )
    .map_err(|failure| DriverError::Diagnostics(failure.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#""func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "stablehlo.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.multiply"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
"#;

    #[test]
    fn steps_parse_and_run() {
        let steps = parse_steps(&["--zkdv-dce", "zkdv-cost-report=func=main"]).unwrap();
        assert_eq!(steps[1].options.text("func"), Some("main"));
        assert!(parse_steps(&["--zkdv-nope"])
            .unwrap_err()
            .to_string()
            .contains("unknown pass"));
        assert!(parse_steps(&["--zkdv-dce=x"])
            .unwrap_err()
            .to_string()
            .contains("--zkdv-dce: unknown option `x` (expected no options)"));
        let mut reports = Vec::new();
        let out = run_steps(TEXT, "t.mlir", &steps, false, &mut |r| {
            reports.push(r.to_owned())
        })
        .unwrap();
        assert!(!out.contains("stablehlo.multiply"));
        assert!(reports[0].contains("zkdv-cost-report @main"));
        assert!(run_steps("garbage", "t.mlir", &steps, false, &mut |_| {}).is_err());
    }

    #[test]
    fn pipelines_expand_into_their_stages() {
        let steps = parse_steps(&["zkdv-production-pipeline=ratio=0.5"]).unwrap();
        let flags: Vec<_> = steps.iter().map(|step| step.pass.flag).collect();
        assert_eq!(flags, ["zkdv-annotate-roles", "zkdv-insert-commitments"]);
        assert_eq!(steps[1].options.number("ratio"), Some(0.5));
        assert!(!steps[1].options.flag("drop-deltas"));
        let steps =
            parse_steps(&["zkdv-attested-pipeline=args=param:0,batch:1 results=post_param:0"])
                .unwrap();
        assert_eq!(steps[3].pass.flag, "zkdv-annotate-roles");
        assert_eq!(steps[3].options.text("args"), Some("param:0,batch:1"));
        assert!(parse_steps(&["zkdv-attested-pipeline=func=f"])
            .unwrap_err()
            .to_string()
            .contains("--zkdv-attested-pipeline: unknown option"));
    }
}
