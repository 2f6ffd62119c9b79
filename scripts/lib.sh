# Shared settings of the project's scripts; sourced, not run.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
LLVM_PREFIX=/usr/lib/llvm-22
export MLIR_SYS_220_PREFIX="$LLVM_PREFIX"
export TABLEGEN_220_PREFIX="$LLVM_PREFIX"
export PYO3_PYTHON="$VENV/bin/python"
# pyproject.toml's build backend is maturin's behind an LLVM check (build_backend/), which
# maturin would warn about on every build.
export MATURIN_NO_MISSING_BUILD_BACKEND_WARNING=1
export PATH="$VENV/bin:$HOME/.cargo/bin:$PATH"

# The packages `cargo test` builds. Scripts that need a binary build it with
# this selection and `--tests`, so cargo resolves the same features and reuses
# the test build instead of linking a second copy of every MLIR-linked binary
# (each such variant costs about a gigabyte of target/).
CARGO_SELECTION=(--workspace --exclude zkdv-python)

# A clean clone gains nothing from incremental compilation, which would add
# about 0.7 GB to target/.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

# Each message carries the seconds since the script started, so a log shows where time went.
say() { printf '\033[1m==> [%ss] %s\033[0m\n' "$SECONDS" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
