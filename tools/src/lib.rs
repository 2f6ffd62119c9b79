//! The command-line tools of ZKDV as a library, shared by the cargo binaries
//! and the Python wheel's `zkdv` console script: [`cli`] is the `zkdv`
//! command (verify, inspect, audit, opt) and [`opt`] the pass driver that
//! `zkdv-opt` and `zkdv opt` run. `zkdv-conformance` is a binary only.

pub mod cli;
pub mod opt;
