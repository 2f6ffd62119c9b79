//! `zkdv opt` is `zkdv-opt`: the same driver (`zkdv_tools::opt`), the same
//! output, diagnostics and exit codes, under its own name.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const MODULE: &str = r#""func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "dead_chain"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.add"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.multiply"(%0, %0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.negate"(%x) : (tensor<f32>) -> tensor<f32>
  "func.return"(%2) : (tensor<f32>) -> ()
}) : () -> ()
"#;

/// Runs `zkdv opt ARGS` (`opt` true) or `zkdv-opt ARGS` with `stdin`.
fn run(opt: bool, args: &[&str], stdin: &str) -> Output {
    let mut command = if opt {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zkdv"));
        command.arg("opt");
        command
    } else {
        Command::new(env!("CARGO_BIN_EXE_zkdv-opt"))
    };
    let mut child = command
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    let mut input = child.stdin.take().expect("stdin");
    // A run that fails before reading its input (a usage error) closes the pipe first.
    if let Err(e) = input.write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    drop(input);
    child.wait_with_output().expect("wait")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn zkdv_opt_and_zkdv_opt_binary_agree() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.mlir");
    std::fs::write(&input, MODULE).unwrap();
    let input = input.to_str().unwrap();
    let broken = dir.path().join("broken.mlir");
    std::fs::write(&broken, "\"func.func\"() ({\n").unwrap();
    let broken = broken.to_str().unwrap();
    for (args, stdin) in [
        (vec![input, "--zkdv-dce"], ""),
        (vec!["--zkdv-dce", "--zkdv-cse"], MODULE),
        (vec![input], ""),
        (vec![broken, "--zkdv-dce"], ""),
        (vec![input, "--zkdv-cost-report"], ""),
    ] {
        let binary = run(false, &args, stdin);
        let opt = run(true, &args, stdin);
        assert_eq!(opt.status.code(), binary.status.code(), "{args:?}");
        assert_eq!(text(&opt.stdout), text(&binary.stdout), "{args:?}");
        assert_eq!(text(&opt.stderr), text(&binary.stderr), "{args:?}");
    }
    let dce = run(true, &[input, "--zkdv-dce"], "");
    assert!(dce.status.success(), "{}", text(&dce.stderr));
    assert!(!text(&dce.stdout).contains("stablehlo.multiply"));
    assert!(text(&dce.stdout).contains("stablehlo.negate"));
    let failed = run(true, &[broken], "");
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        text(&failed.stderr).contains("broken.mlir:"),
        "{}",
        text(&failed.stderr)
    );
}

#[test]
fn zkdv_opt_names_itself_in_help_and_errors() {
    let help = run(true, &["--help"], "");
    assert!(help.status.success());
    let help = text(&help.stdout);
    assert!(help.contains("Usage: zkdv opt"), "{help}");
    assert!(help.contains("--zkdv-attested-pipeline"), "{help}");
    assert!(help.contains("--verify-diagnostics"), "{help}");
    let bad = run(true, &["--zkdv-cost-report=colour=blue"], MODULE);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).starts_with("zkdv opt: error: --zkdv-cost-report: unknown option"),
        "{}",
        text(&bad.stderr)
    );
    let binary = run(false, &["--zkdv-cost-report=colour=blue"], MODULE);
    assert!(text(&binary.stderr).starts_with("zkdv-opt: error: --zkdv-cost-report"));
    let usage = run(true, &["--no-such-flag"], "");
    assert_eq!(usage.status.code(), Some(1));
    assert!(
        text(&usage.stderr).contains("Usage: zkdv opt"),
        "{}",
        text(&usage.stderr)
    );
    // `zkdv --help` lists the subcommand.
    let top = Command::new(env!("CARGO_BIN_EXE_zkdv"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        text(&top.stdout).contains("\n  opt "),
        "{}",
        text(&top.stdout)
    );
}
