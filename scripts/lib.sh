# Shared settings of the project's scripts; sourced, not run.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
LLVM_PREFIX=/usr/lib/llvm-22
export MLIR_SYS_220_PREFIX="$LLVM_PREFIX"
export TABLEGEN_220_PREFIX="$LLVM_PREFIX"
export PYO3_PYTHON="$VENV/bin/python"
export PATH="$VENV/bin:$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
