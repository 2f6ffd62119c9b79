//! Running passes and pipelines on module text, as `zkdv-opt` and the Python
//! binding do: resolve `--flag=options` items into passes with checked
//! options (expanding pipelines), parse the module, run each pass in order,
//! verify after each, print.

use crate::{
    ir::{print_generic_with, IrContext, Severity},
    options::{OptionError, OptionValues},
    pipelines,
    registry::{self, PassInfo},
    PassOptions,
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

/// Parses `text`, runs `steps` in order and prints the result in generic
/// form. `on_report` receives each pass's report and every warning or remark
/// a pass emitted, as they come.
pub fn run_steps(
    text: &str,
    source_name: &str,
    steps: &[Step],
    debug_info: bool,
    on_report: &mut dyn FnMut(&str),
) -> Result<String, DriverError> {
    let failed = |text: String| DriverError::Diagnostics(text);
    let context = IrContext::new();
    let module = context
        .parse(text, source_name)
        .map_err(|error| failed(error.to_string()))?;
    for step in steps {
        let mut options = PassOptions {
            values: step.options.clone(),
            report: String::new(),
        };
        let result = (step.pass.run)(&module, &mut options);
        if !options.report.is_empty() {
            on_report(options.report.trim_end());
        }
        let emitted = context.take_diagnostics();
        for diagnostic in emitted.iter().filter(|d| d.severity != Severity::Error) {
            on_report(&diagnostic.to_string());
        }
        result.map_err(|error| failed(error.to_string()))?;
        if let Err(diagnostics) = context.verify(&module) {
            return Err(failed(format!(
                "{diagnostics}\n{source_name}: error: the module is invalid after --{}",
                step.pass.flag
            )));
        }
    }
    print_generic_with(&module, debug_info)
        .map_err(|error| failed(format!("{source_name}: error: cannot print: {error}")))
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
        assert!(parse_steps(&["zkdv-attested-pipeline=func=f"])
            .unwrap_err()
            .to_string()
            .contains("--zkdv-attested-pipeline: unknown option"));
    }
}
