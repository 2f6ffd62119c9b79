//! `zkdv-conformance [--verbose] [DIR]`: runs the StableHLO interpreter
//! conformance cases of `DIR` (default:
//! `../shared/conformance/stablehlo-interpret`) through the runtime's
//! interpreter and prints the failures, the skip reasons by count (with
//! `--verbose`, also each skipped case and its reason) and, last,
//! `N passed, N failed, N skipped`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut verbose = false;
    let mut dir = None;
    for arg in std::env::args_os().skip(1) {
        if arg == "--verbose" || arg == "-v" {
            verbose = true;
        } else {
            dir = Some(arg);
        }
    }
    let dir = dir
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/conformance/stablehlo-interpret"));
    let report = match zkdv_runtime::conformance::run_dir(&dir) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("zkdv-conformance: cannot read {}: {error}", dir.display());
            return ExitCode::from(2);
        }
    };
    for (case, why) in &report.failed {
        println!("FAIL {case}: {why}");
    }
    if verbose {
        for (case, why) in &report.skipped {
            println!("SKIP {case}: {why}");
        }
    }
    let counts = report.skip_counts();
    if !counts.is_empty() {
        println!("skipped, by op or type ({} reasons):", counts.len());
        for (reason, count) in &counts {
            println!("  {count:5}  {reason}");
        }
    }
    println!(
        "{:.1}% of the cases pass ({} functions with arguments are helpers the cases call, \
         not cases)",
        report.pass_rate(),
        report.helpers.len()
    );
    println!("{}", report.summary());
    if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
