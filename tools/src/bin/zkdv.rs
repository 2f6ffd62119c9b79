//! `zkdv`: verify, inspect and audit ZKDV transcripts (`zkdv_tools::cli`).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(zkdv_tools::cli::run(std::env::args_os()))
}
