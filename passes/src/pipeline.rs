//! Running a list of passes on module text, as `zkdv-opt` and the Python
//! binding do: parse, run each pass in order, verify after each, print.

use crate::ir::{print_generic_with, IrContext, Severity};
use crate::registry::{find, PassInfo, PassOptions};

/// One requested pass and the text of its `--flag=options`.
pub type Step = (&'static PassInfo, String);

/// Parses `flag[=options]` items (with or without the leading `--`).
pub fn parse_steps<S: AsRef<str>>(items: &[S]) -> Result<Vec<Step>, String> {
    items
        .iter()
        .map(|item| {
            let item = item.as_ref().trim_start_matches("--");
            let (flag, options) = item.split_once('=').unwrap_or((item, ""));
            find(flag)
                .map(|pass| (pass, options.to_owned()))
                .ok_or_else(|| format!("unknown pass `--{flag}` (see `zkdv-opt --help`)"))
        })
        .collect()
}

/// Parses `text`, runs `steps` in order and prints the result in generic
/// form. `on_report` receives each pass's report and every warning or remark
/// a pass emitted, as they come. On failure, returns the diagnostics text.
pub fn run_steps(
    text: &str,
    source_name: &str,
    steps: &[Step],
    debug_info: bool,
    on_report: &mut dyn FnMut(&str),
) -> Result<String, String> {
    let context = IrContext::new();
    let module = context
        .parse(text, source_name)
        .map_err(|error| error.to_string())?;
    for (pass, options) in steps {
        let mut options = PassOptions {
            options: options.clone(),
            report: String::new(),
        };
        let result = (pass.run)(&module, &mut options);
        if !options.report.is_empty() {
            on_report(options.report.trim_end());
        }
        let emitted = context.take_diagnostics();
        for diagnostic in emitted.iter().filter(|d| d.severity != Severity::Error) {
            on_report(&diagnostic.to_string());
        }
        result.map_err(|error| error.to_string())?;
        if let Err(diagnostics) = context.verify(&module) {
            return Err(format!(
                "{diagnostics}\n{source_name}: error: the module is invalid after --{}",
                pass.flag
            ));
        }
    }
    print_generic_with(&module, debug_info)
        .map_err(|error| format!("{source_name}: error: cannot print: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse_and_run() {
        let steps = parse_steps(&["--zkdv-dce", "zkdv-cost-report=func=main"]).unwrap();
        assert_eq!(steps[1].1, "func=main");
        assert!(parse_steps(&["--zkdv-nope"])
            .unwrap_err()
            .contains("unknown pass"));
        let text = r#""func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "stablehlo.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.multiply"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
"#;
        let mut reports = Vec::new();
        let out = run_steps(text, "t.mlir", &steps, false, &mut |r| {
            reports.push(r.to_owned())
        })
        .unwrap();
        assert!(!out.contains("stablehlo.multiply"));
        assert!(reports[0].contains("zkdv-cost-report @main"));
        assert!(run_steps("garbage", "t.mlir", &steps, false, &mut |_| {}).is_err());
    }
}
