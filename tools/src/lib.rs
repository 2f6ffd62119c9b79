//! The command-line tools of ZKDV as a library: [`cli`] is the `zkdv`
//! command, shared by the cargo binary and the Python wheel's console
//! script. `zkdv-opt` and `zkdv-conformance` are binaries only.

pub mod cli;
