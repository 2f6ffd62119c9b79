//! `zkdv-opt`: an `mlir-opt`-like driver for the ZKDV passes
//! (`zkdv_tools::opt`, which `zkdv opt` runs too).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(zkdv_tools::opt::run("zkdv-opt", std::env::args_os()))
}
