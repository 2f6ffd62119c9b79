//! The conformance cases of the ops the interpreter implements: none of the
//! cases it runs from these files may fail.

use std::path::PathBuf;

use zkdv_runtime::conformance::{run_file, Report};

const FILES: &[&str] = &[
    "abs.mlir",
    "add.mlir",
    "and.mlir",
    "broadcast_in_dim.mlir",
    "compare.mlir",
    "constant.mlir",
    "convert.mlir",
    "divide.mlir",
    "iota.mlir",
    "maximum.mlir",
    "minimum.mlir",
    "multiply.mlir",
    "negate.mlir",
    "not.mlir",
    "or.mlir",
    "reshape.mlir",
    "select.mlir",
    "subtract.mlir",
    "transpose.mlir",
    "xor.mlir",
];

#[test]
fn implemented_ops_pass_their_conformance_cases() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/conformance/stablehlo-interpret");
    let mut report = Report::default();
    for file in FILES {
        let path = dir.join(file);
        let part = run_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        report.merge(part);
    }
    assert!(report.failed.is_empty(), "{:#?}", report.failed);
    assert!(report.passed.len() >= 100, "{}", report.summary());
}
