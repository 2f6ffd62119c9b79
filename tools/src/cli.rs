//! The `zkdv` command line: verify, inspect and audit ZKDV transcripts, and
//! run the ZKDV passes (`zkdv opt`, the same driver as `zkdv-opt`:
//! [`crate::opt`]).
//!
//! One implementation for the cargo binary (`src/bin/zkdv.rs`) and the
//! `zkdv` command the Python wheel installs (`zkdv._native.cli`).
//!
//! Exit codes: 0 valid, 1 invalid (the first bad record is named by sequence
//! number and byte offset; for `audit`, a step that did not reproduce or
//! evidence that was refused, named), 2 usage error or unusable input, 3
//! (`verify`) not closed with an intact prefix. `zkdv opt` exits as
//! `zkdv-opt` does: 0 or 1.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use serde_json::json;
use zkdv_protocol::{
    inspect_path, verify_path_observed, Error, Hash32, Inspection, Problem, Report, Sampling,
    Tolerance, TolerancePolicy,
};

#[derive(Parser)]
#[command(
    name = "zkdv",
    version,
    about = "Verify, inspect and audit ZKDV training transcripts; run the ZKDV passes (opt)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Verify a transcript: hash chain, records, signatures, the revealed
    /// challenge key, every sampling decision and every check. A directory
    /// also has its artifacts checked; a records file alone does not.
    Verify {
        /// Transcript directory or its records.cborl.
        path: PathBuf,
        /// Print a JSON object instead of a line of text.
        #[arg(long)]
        json: bool,
    },
    /// Summarize a transcript: prover, configuration, steps, checks by kind
    /// and verdict, snapshots, programs and sizes.
    Inspect {
        /// Transcript directory or its records.cborl.
        path: PathBuf,
        /// Print a JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Re-execute steps of a finished transcript from its retained evidence
    /// (a session with retain="checkpoints", "steps" or "all"; with "steps",
    /// the full states are your checkpoints, given with --checkpoint), at
    /// steps and coordinates drawn from the auditor's seed, which the prover
    /// could not foresee. The seed is
    /// recorded in the report, so the audit can be repeated.
    Audit(Box<AuditArgs>),
    /// Run ZKDV passes and pipelines on StableHLO in MLIR generic op form,
    /// as `zkdv-opt` does; `zkdv opt --help` lists them.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Opt {
        /// The arguments of `zkdv-opt`: [INPUT] [-o FILE] [--zkdv-PASS[=OPTIONS]]...
        #[arg(
            num_args = 0..,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<OsString>,
    },
}

/// The options of `zkdv audit` (boxed in [`Command`]: they are its largest
/// variant by far).
#[derive(clap::Args)]
struct AuditArgs {
    /// Transcript directory.
    path: PathBuf,
    /// Audit this many steps (default 16; all when there are fewer).
    #[arg(long, conflicts_with = "fraction")]
    steps: Option<u64>,
    /// Audit each step with this probability, in (0, 1].
    #[arg(long)]
    fraction: Option<f64>,
    /// The auditor's randomness: a secret, or a public beacon value
    /// published after the transcript was closed. Drawn from the
    /// operating system when omitted (and printed).
    #[arg(long, value_parser = parse_seed)]
    seed: Option<String>,
    /// Segments replayed in parallel (1 to 256).
    #[arg(long, default_value_t = 1, value_parser = parse_jobs)]
    jobs: usize,
    /// A full state the client holds (a checkpoint: `save_state` of
    /// `zkdv.torch` or `zkdv.jax`, as safetensors or ev.zst); repeat for
    /// each. Each must re-hash to a snapshot record's state commitment,
    /// and a segment may then start from it, as from a retained snapshot
    /// (a session with `retain="steps"` keeps none of its own but the last).
    #[arg(long = "checkpoint", value_name = "FILE")]
    checkpoints: Vec<PathBuf>,
    /// Replay only part I of N of the audit's segments (0 <= I < N, the
    /// segments in order, one in N from the I-th) and write what it found
    /// to --out, for a later --merge: a long run's audit spread over
    /// machines. Every option must be the same in every part.
    #[arg(long, value_name = "I/N", requires = "out", conflicts_with = "merge")]
    part: Option<zkdv_audit::Part>,
    /// Where --part writes its findings.
    #[arg(long, value_name = "FILE", requires = "part")]
    out: Option<PathBuf>,
    /// Replay nothing: merge the files the N parts of this audit wrote
    /// (--part I/N --out FILE, with the same transcript and options) and
    /// report as one audit.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    merge: Vec<PathBuf>,
    /// The model the run had to start from: its model commitment (64
    /// hex digits, from `zkdv.torch.model_hash(model)` or
    /// `zkdv.jax.model_hash(params)`), or a safetensors file of its
    /// parameters. Step 0 is then always audited.
    #[arg(long, value_name = "HASH|FILE", value_parser = parse_model)]
    initial: Option<zkdv_audit::ModelExpectation>,
    /// The model the client was delivered, as for --initial. The last
    /// step is then always audited.
    #[arg(long = "final", value_name = "HASH|FILE", value_parser = parse_model)]
    final_model: Option<zkdv_audit::ModelExpectation>,
    /// The averaged model (an EMA of the weights, a PyTorch session's
    /// `prepare(..., averaged=)`) the client was delivered: its model
    /// commitment (`zkdv.torch.model_hash(ema)`) or a safetensors file of
    /// its parameters. The last step is then always audited.
    #[arg(long = "final-averaged", value_name = "HASH|FILE", value_parser = parse_model)]
    final_averaged: Option<zkdv_audit::ModelExpectation>,
    /// A program the client's code produces (the blake3 of its bytes, 64
    /// hex digits, from `zkdv.transcript.program_hashes` of the client's
    /// own run); repeat for each. Every program record's attested and
    /// replay programs must be among them.
    #[arg(long = "program", value_name = "HASH")]
    programs: Vec<Hash32>,
    /// The client's data: a manifest of its examples' digests and their
    /// order per step (JSON, as `zkdv.data.manifest` writes it). Every
    /// replayed step's batch must hold those examples, in that order.
    #[arg(long, value_name = "MANIFEST")]
    data: Option<PathBuf>,
    /// The most lenient tolerance accepted, as ABS,REL,SPREAD[,REPLAYS]
    /// (the absolute and relative terms, the factor on the ensemble's
    /// spread and its number of replays; default 1e-6,1e-5,32,8, a
    /// session's default): a transcript whose programs record a laxer one
    /// fails (more replays measure wider spreads, and slow the audit).
    #[arg(long, value_name = "ABS,REL,SPREAD[,REPLAYS]", value_parser = parse_ceiling)]
    max_tolerance: Option<Tolerance>,
    /// The largest root mean square of a snapshot comparison's
    /// differences, in noise units (each difference over the larger of its
    /// value's ulp and its ensemble spread), accepted as rounding noise
    /// (default 2): a prover's drift that keeps each value within the
    /// tolerance but moves many of them fails.
    #[arg(long, value_name = "RMS", value_parser = parse_noise)]
    max_noise: Option<f64>,
    /// The largest drift per snapshot accepted, in noise units (default
    /// 0.5): the part of the snapshots' differences that keeps its sign
    /// from one snapshot to the next, which rounding noise does not.
    #[arg(long, value_name = "UNITS", value_parser = parse_noise)]
    max_drift: Option<f64>,
    /// How the client's devices multiply f32 in products: exact (a CPU)
    /// or tf32 (an NVIDIA GPU since Ampere: the JAX frontend says so from
    /// the devices, torch from its TF32 switches). Every program record
    /// must say the same: a claim of tf32, which widens the replay
    /// ensemble's spreads, is otherwise the prover's word.
    #[arg(long, value_name = "exact|tf32")]
    products: Option<zkdv_audit::Products>,
    /// The commitment of the whole state the run had to start from
    /// (parameters, optimizer state and buffers; 64 hex digits, from
    /// `proof.state_hash()` in a session of the client's own code before
    /// its first step). Without it the optimizer state the run started
    /// from is the prover's. Step 0 is then always audited.
    #[arg(long, value_name = "HASH")]
    initial_state: Option<Hash32>,
    /// The most values the audit admits outside their per-pair bound as
    /// rounding flips (or, in an f32 program, far beyond their noise),
    /// over the whole audit: set it from an honest run of the same code and
    /// checkpoint interval (0 in the f32 audits measured with a full state
    /// every step, more with longer segments). Without it the protocol's
    /// allowance applies, and which values those are is the prover's choice.
    #[arg(long, value_name = "N")]
    max_outliers: Option<u64>,
    /// The client's hyperparameters of every step: a JSON object
    /// `{"names": ["0/lr", ...], "steps": [[0.001, ...], ...]}`, the names
    /// in the order the step's program takes them and one row of values per
    /// step, as `zkdv.data.write_hyperparameters` writes them. Every step
    /// record must commit those, in that order.
    #[arg(long, value_name = "FILE")]
    hyperparameters: Option<PathBuf>,
    /// Print a JSON object instead of text.
    #[arg(long)]
    json: bool,
}

const INVALID: u8 = 1;
const USAGE: u8 = 2;
/// `zkdv verify`: not closed, and the prefix the run left is intact.
const PREFIX: u8 = 3;

/// Run the command line `args` (the program name first, as
/// [`std::env::args_os`] gives it) and return its exit code.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            // --help and --version print to stdout and succeed; a usage error
            // prints to stderr.
            let _ = error.print();
            return u8::try_from(error.exit_code()).unwrap_or(USAGE);
        }
    };
    match cli.command {
        Command::Verify { path, json } => verify(&path, json),
        Command::Inspect { path, json } => inspect(&path, json),
        Command::Opt { args } => {
            crate::opt::run("zkdv opt", std::iter::once("zkdv opt".into()).chain(args))
        }
        Command::Audit(args) => {
            let AuditArgs {
                path,
                steps,
                fraction,
                seed,
                jobs,
                checkpoints,
                part,
                out,
                merge,
                initial,
                final_model,
                final_averaged,
                programs,
                data,
                max_tolerance,
                max_noise,
                max_drift,
                products,
                initial_state,
                max_outliers,
                hyperparameters,
                json,
            } = *args;
            let selection = match fraction {
                Some(f) => zkdv_audit::Selection::Fraction(f),
                None => zkdv_audit::Selection::Steps(steps.unwrap_or(16)),
            };
            let data = match data.as_deref().map(read_manifest).transpose() {
                Ok(data) => data,
                Err(why) => {
                    eprintln!("zkdv audit: --data: {why}");
                    return USAGE;
                }
            };
            let hyperparameters = match hyperparameters
                .as_deref()
                .map(read_hyperparameters)
                .transpose()
            {
                Ok(h) => h,
                Err(why) => {
                    eprintln!("zkdv audit: --hyperparameters: {why}");
                    return USAGE;
                }
            };
            let expect = zkdv_audit::Expectations {
                initial,
                final_model,
                final_averaged,
                programs,
                data,
                max_tolerance,
                max_noise,
                max_drift,
                products,
                initial_state,
                max_outliers,
                hyperparameters,
            };
            let split = Split {
                jobs,
                checkpoints,
                part,
                out,
                merge,
            };
            audit(&path, selection, seed, split, expect, json)
        }
    }
}

/// A data manifest: `{"leaves": n, "examples": [hex digest, ...], "order":
/// [[index, ...] per step]}`.
fn read_manifest(path: &Path) -> Result<zkdv_audit::DataExpectation, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Manifest {
        leaves: usize,
        examples: Vec<String>,
        order: Vec<Vec<u64>>,
        #[serde(default)]
        root: Option<String>,
        #[serde(default)]
        layout: Option<Vec<LeafRow>>,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct LeafRow {
        dtype: String,
        shape: Vec<u64>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let examples = m
        .examples
        .iter()
        .map(|h| {
            zkdv_hashing::Digest::from_hex(h).map_err(|e| format!("example digest {h:?}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let layout = m
        .layout
        .map(|rows| {
            rows.into_iter()
                .map(|r| {
                    let dtype = r
                        .dtype
                        .parse::<zkdv_hashing::DType>()
                        .map_err(|e| format!("layout dtype {:?}: {e}", r.dtype))?;
                    Ok((dtype, r.shape))
                })
                .collect::<Result<Vec<_>, String>>()
        })
        .transpose()?;
    if layout.as_ref().is_some_and(|l| l.len() != m.leaves) {
        return Err(format!(
            "{}: its layout does not describe its {} data leaves",
            path.display(),
            m.leaves
        ));
    }
    let data = zkdv_audit::DataExpectation {
        leaves: m.leaves,
        examples,
        order: m.order,
        layout,
    };
    if let Some(root) = m.root {
        let computed = data.root()?.to_hex();
        if computed != root {
            return Err(format!(
                "{}: its root {root} is not the root of its examples ({computed})",
                path.display()
            ));
        }
    }
    Ok(data)
}

/// A hyperparameter schedule: `{"names": [...], "steps": [[value, ...],
/// ...]}`, one value per name at every step, every value finite.
fn read_hyperparameters(path: &Path) -> Result<zkdv_audit::HyperExpectation, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Schedule {
        names: Vec<String>,
        steps: Vec<Vec<f64>>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let schedule: Schedule =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for (j, step) in schedule.steps.iter().enumerate() {
        if step.len() != schedule.names.len() {
            return Err(format!(
                "{}: step {j} has {} values for {} names",
                path.display(),
                step.len(),
                schedule.names.len()
            ));
        }
        if let Some((name, value)) = schedule
            .names
            .iter()
            .zip(step)
            .find(|(_, v)| !v.is_finite())
        {
            return Err(format!(
                "{}: step {j}'s {name} is {value}, not a finite number",
                path.display()
            ));
        }
    }
    Ok(zkdv_audit::HyperExpectation {
        names: schedule.names,
        steps: schedule.steps,
    })
}

/// `--initial`/`--final`: a model commitment (64 hex digits) or an existing
/// safetensors file.
fn parse_model(text: &str) -> Result<zkdv_audit::ModelExpectation, String> {
    if let Ok(hash) = text.parse::<Hash32>() {
        return Ok(zkdv_audit::ModelExpectation::Hash(hash));
    }
    let path = PathBuf::from(text);
    if path.is_file() {
        Ok(zkdv_audit::ModelExpectation::SafeTensors(path))
    } else {
        Err(format!(
            "{text:?} is neither a model commitment (64 hex digits) nor a safetensors file"
        ))
    }
}

/// `--max-tolerance ABS,REL,SPREAD`: three finite, non-negative numbers.
fn parse_ceiling(text: &str) -> Result<Tolerance, String> {
    let terms: Vec<f64> = text
        .split(',')
        .map(|t| t.trim().parse::<f64>().map_err(|e| format!("{t:?}: {e}")))
        .collect::<Result<_, _>>()?;
    let (abs, rel, spread, replays) = match terms[..] {
        [abs, rel, spread] => (abs, rel, spread, zkdv_protocol::ENSEMBLE_REPLAYS as f64),
        [abs, rel, spread, replays] => (abs, rel, spread, replays),
        _ => {
            return Err(format!(
                "expected ABS,REL,SPREAD[,REPLAYS] (three or four numbers), got {text:?}"
            ))
        }
    };
    if !(replays >= 0.0 && replays.fract() == 0.0 && replays <= 1024.0) {
        return Err(format!(
            "REPLAYS must be a whole number from 0 to 1024, got {replays}"
        ));
    }
    let ceiling = Tolerance {
        abs,
        rel,
        spread,
        replays: replays as u64,
    };
    if !ceiling.is_valid() {
        return Err(format!(
            "each term must be finite and non-negative, got {text:?}"
        ));
    }
    Ok(ceiling)
}

/// `--seed S`: any text but the empty one (which would be every careless
/// auditor's seed).
fn parse_seed(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("must not be empty (omit --seed to draw one)".into());
    }
    Ok(text.to_owned())
}

/// `--jobs J`: from 1 to 256 (each job holds its own parsed programs).
fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(jobs) if (1..=256).contains(&jobs) => Ok(jobs),
        Ok(jobs) => Err(format!("must be from 1 to 256, got {jobs}")),
        Err(e) => Err(format!("{text:?}: {e}")),
    }
}

/// `--max-noise RMS` and `--max-drift UNITS`: a finite, positive number.
fn parse_noise(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rms) if rms.is_finite() && rms > 0.0 => Ok(rms),
        Ok(_) => Err(format!("must be finite and positive, got {text:?}")),
        Err(e) => Err(format!("{text:?}: {e}")),
    }
}

/// A path that does not exist is a usage error, not an invalid transcript.
/// Exit code 2 when `path` does not exist, said in the command's own shape
/// (`audit`'s JSON reports `passed`, the others' `valid`).
fn missing(path: &Path, json: bool, audit: bool) -> Option<u8> {
    if path.exists() {
        return None;
    }
    let message = format!("{}: no such file or directory", path.display());
    if json && audit {
        println!(
            "{}",
            json!({ "passed": false, "path": path, "error": message, "unusable": true })
        );
    } else if json {
        println!("{}", json!({ "valid": false, "usage_error": message }));
    } else {
        eprintln!("zkdv: {message}");
    }
    Some(USAGE)
}

fn verify(path: &Path, json: bool) -> u8 {
    if let Some(code) = missing(path, json, false) {
        return code;
    }
    // Only a verification that takes a moment gets a bar (drawn from half a second on).
    let (bar, visible) = progress_bar(
        json,
        "verify",
        "{prefix} [{bar:30}] {binary_bytes} of {binary_total_bytes} of records",
    );
    let started = std::time::Instant::now();
    let mut shown = !visible;
    let mut progress = |done: u64, total: u64| {
        if !shown && started.elapsed().as_millis() > 500 {
            shown = true;
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(10));
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    let result = verify_path_observed(path, &mut progress);
    bar.finish_and_clear();
    match result {
        Ok(report) => {
            if json {
                println!(
                    "{}",
                    json!({ "valid": true, "path": path, "report": report, "summary": summary(&report) })
                );
            } else {
                println!("{}: valid: {}", path.display(), summary(&report));
            }
            0
        }
        Err(error) => {
            let prefix = intact_prefix(path, &error);
            if json {
                let prefix = prefix.as_ref().map(|p| {
                    json!({ "records": p.records, "steps": p.steps, "checks": p.checks,
                            "leftover_temporary_files": p.leftovers })
                });
                println!(
                    "{}",
                    json!({ "valid": false, "path": path, "error": error_json(&error), "prefix": prefix })
                );
            } else {
                eprintln!("{}: invalid: {error}", path.display());
                if let Some(p) = &prefix {
                    eprintln!(
                        "{}: its prefix is intact: {}, {} and {} verified (hash chain, \
                         record order, signatures and artifacts); without the close record's \
                         revealed key its sampling decisions cannot be verified (zkdv audit \
                         audits the prefix){}",
                        path.display(),
                        plural(p.records, "record"),
                        plural(p.steps, "step"),
                        plural(p.checks, "check"),
                        if p.leftovers > 0 {
                            format!(
                                "; {} left by the interrupted run can be deleted",
                                plural(p.leftovers, "temporary artifact file")
                            )
                        } else {
                            String::new()
                        }
                    );
                }
            }
            verdict_code(&error, prefix.is_some())
        }
    }
}

/// The exit code of a transcript that failed verification with `error`:
/// [`USAGE`] for input that is not a transcript at all, [`PREFIX`] for an
/// interrupted run whose records are intact, [`INVALID`] otherwise.
fn verdict_code(error: &Error, intact_prefix: bool) -> u8 {
    // Not one record could be read: not a transcript, rather than a bad one.
    let unreadable = error.at.is_some_and(|a| a.index == 0)
        && matches!(error.problem, Problem::Malformed(_) | Problem::Truncated(_));
    if error.is_unusable() || unreadable {
        USAGE
    } else if intact_prefix {
        PREFIX
    } else {
        INVALID
    }
}

/// What an interrupted run left, verified as far as it goes.
struct Prefix {
    records: u64,
    steps: u64,
    checks: u64,
    /// `artifacts/.tmp-*` files: artifacts being written when the run
    /// stopped, which no record names.
    leftovers: u64,
}

/// The intact prefix of a transcript directory that failed verification only
/// because it is not closed (no close record, or a last record cut short by
/// a kill); `None` for any other problem.
fn intact_prefix(path: &Path, error: &Error) -> Option<Prefix> {
    if !matches!(
        error.problem,
        Problem::MissingClose { .. } | Problem::Truncated(_)
    ) || !path.is_dir()
    {
        return None;
    }
    let verified = zkdv_protocol::read_verified(path).ok()?;
    if verified.report.is_some() || verified.records.is_empty() {
        return None;
    }
    let count = |kind: zkdv_protocol::Kind| {
        verified.records.iter().filter(|r| r.kind() == kind).count() as u64
    };
    let leftovers = std::fs::read_dir(path.join("artifacts"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
                .count() as u64
        })
        .unwrap_or(0);
    Some(Prefix {
        records: verified.records.len() as u64,
        steps: count(zkdv_protocol::Kind::Step),
        checks: count(zkdv_protocol::Kind::Check),
        leftovers,
    })
}

fn audit(
    path: &Path,
    selection: zkdv_audit::Selection,
    seed: Option<String>,
    split: Split,
    expect: zkdv_audit::Expectations,
    json: bool,
) -> u8 {
    if let Some(code) = missing(path, json, true) {
        return code;
    }
    let seed = match seed {
        Some(seed) => seed,
        None => {
            let mut bytes = [0u8; 16];
            if let Err(e) = getrandom::fill(&mut bytes) {
                eprintln!("zkdv audit: no randomness for a seed ({e}); give --seed");
                return USAGE;
            }
            bytes.iter().map(|b| format!("{b:02x}")).collect()
        }
    };
    let Split {
        jobs,
        checkpoints,
        part,
        out,
        merge,
    } = split;
    let options = zkdv_audit::Options {
        selection,
        seed,
        jobs,
        part,
        merge,
        checkpoints,
        expect,
    };
    let (bar, visible) = progress_bar(
        json,
        "audit",
        "{prefix} [{bar:30}] {pos}/{len} transitions ({eta} left)",
    );
    if visible {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(10));
    }
    let progress = |done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let result = zkdv_audit::audit(path, &options, &progress);
    bar.finish_and_clear();
    let result = result.and_then(|report| {
        if let (Some(state), Some(out)) = (&report.part_state, &out) {
            state.write(out)?;
        }
        Ok(report)
    });
    match result {
        Ok(report) => {
            let passed = report.passed();
            if json {
                println!(
                    "{}",
                    json!({ "passed": passed, "path": path, "report": report })
                );
            } else {
                print!("{}", render_audit(&report));
            }
            if passed {
                0
            } else {
                INVALID
            }
        }
        Err(error) => {
            let code = if error.is_unusable() { USAGE } else { INVALID };
            if json {
                println!(
                    "{}",
                    json!({ "passed": false, "path": path, "error": error.to_string(), "unusable": code == USAGE })
                );
            } else {
                eprintln!("{}: audit failed: {error}", path.display());
            }
            code
        }
    }
}

/// A progress bar on stderr (`template`, indicatif's), hidden under `--json`
/// and where stderr is not a terminal; a caller that shows it sets its draw
/// target.
fn progress_bar(
    json: bool,
    prefix: &'static str,
    template: &str,
) -> (indicatif::ProgressBar, bool) {
    use std::io::IsTerminal;
    let bar = indicatif::ProgressBar::hidden();
    if json || !std::io::stderr().is_terminal() {
        return (bar, false);
    }
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("#> "));
    }
    bar.set_prefix(prefix);
    (bar, true)
}

/// How an audit's work is split: threads, checkpoint files, parts.
struct Split {
    jobs: usize,
    checkpoints: Vec<PathBuf>,
    part: Option<zkdv_audit::Part>,
    out: Option<PathBuf>,
    merge: Vec<PathBuf>,
}

fn render_audit(r: &zkdv_audit::Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "transcript   {}", r.transcript.display());
    let _ = writeln!(s, "seed         {:?} (audit key {})", r.seed, r.key);
    let closed = if r.closed {
        "closed"
    } else {
        "not closed: its prefix was audited"
    };
    let _ = writeln!(s, "steps        {} ({closed})", r.steps);
    let shown: Vec<String> = r.audited.iter().take(20).map(u64::to_string).collect();
    let more = if r.audited.len() > 20 { ", ..." } else { "" };
    let _ = writeln!(
        s,
        "audited      {}: {}{more}",
        r.audited.len(),
        shown.join(", ")
    );
    let rate = if r.seconds > 0.0 {
        r.transitions as f64 / r.seconds
    } else {
        0.0
    };
    let _ = writeln!(
        s,
        "replayed     {} in {:.2} s ({rate:.1}/s), {} compared in full",
        plural(r.transitions, "transition"),
        r.seconds,
        plural(r.snapshots_compared, "snapshot"),
    );
    let shown: Vec<String> = r
        .segments
        .iter()
        .take(8)
        .map(|g| format!("{}..={} (from a {})", g.start, g.end, g.from))
        .collect();
    let more = if r.segments.len() > 8 { ", ..." } else { "" };
    let _ = writeln!(
        s,
        "segments     {}: {}{more}",
        r.segments.len(),
        shown.join(", ")
    );
    if let Some(part) = r.part {
        let _ = writeln!(
            s,
            "part         {} of {} (0-based): this report covers its segments only; merge \
             every part's --out with --merge for the audit's verdict",
            part.index, part.of
        );
    }
    if r.merged > 0 {
        let _ = writeln!(
            s,
            "merged       {} parts (their replay times summed)",
            r.merged
        );
    }
    if r.snapshots_compared > 0 {
        let _ = writeln!(
            s,
            "noise        {:.3} noise units root-mean-square over {} values, {:.3} in the \
             worst snapshot (at most {}), {:.3} in the worst leaf (at most {}); drift {:.3} \
             per snapshot (at most {}); {}",
            r.noise.total.rms(),
            r.noise.total.values,
            r.noise.worst_rms,
            r.noise.limit,
            r.noise.worst_leaf_rms,
            r.noise.limit * zkdv_protocol::noise::LEAF_NOISE_FACTOR,
            r.noise.drift,
            r.noise.drift_limit,
            plural(r.noise.outliers, "outlier"),
        );
        if r.noise.narrow {
            let _ = writeln!(
                s,
                "precision    a replayed program computes in a float narrower than f32 (from \
                 its own types): an outlier may be a flip as large as its leaf's largest spread"
            );
        }
    }
    if let Some(matmul) = &r.matmul {
        let _ = writeln!(
            s,
            "products     the program records say production multiplied f32 as {matmul} (an \
             NVIDIA GPU's): the ensemble modelled it"
        );
    }
    for e in &r.expectations {
        let status = match e.status {
            zkdv_audit::Status::Matched => "matched",
            zkdv_audit::Status::Differs => "DIFFERS",
            zkdv_audit::Status::NotRecorded => "NOT RECORDED",
            zkdv_audit::Status::NotGiven => "not given",
        };
        let _ = writeln!(s, "expect       {}: {status}: {}", e.name, e.note);
        if e.status.fails() {
            if let Some(expected) = &e.expected {
                let recorded = e.recorded.as_deref().unwrap_or("none");
                let _ = writeln!(s, "             given {expected}, recorded {recorded}");
            }
        }
    }
    match &r.failure {
        None if r.passed() => {
            let _ = writeln!(s, "result       passed");
        }
        None => {
            let _ = writeln!(
                s,
                "result       FAILED: every audited step reproduced, but an expectation was not met"
            );
        }
        Some(f) => {
            let _ = writeln!(s, "result       FAILED at step {}: {f}", f.step);
        }
    }
    s
}

fn error_json(error: &Error) -> serde_json::Value {
    json!({
        "record": error.at.map(|a| a.index),
        "offset": error.at.map(|a| a.offset),
        "kind": problem_kind(&error.problem),
        "message": error.problem.to_string(),
    })
}

/// A stable machine-readable name for each problem.
fn problem_kind(problem: &Problem) -> &'static str {
    match problem {
        Problem::Io { .. } => "io",
        Problem::NoRecordsFile(_) => "no_records_file",
        Problem::Empty => "empty",
        Problem::Truncated(_) => "truncated",
        Problem::Malformed(_) => "malformed",
        Problem::TooLarge { .. } => "too_large",
        Problem::DigestMismatch => "digest_mismatch",
        Problem::Payload(_) => "payload",
        Problem::UnsupportedVersion { .. } => "unsupported_version",
        Problem::Sequence { .. } => "sequence",
        Problem::PrevMismatch => "prev_mismatch",
        Problem::Signature(_) => "signature",
        Problem::UnexpectedKind { .. } => "unexpected_kind",
        Problem::Invalid(_) => "invalid",
        Problem::CheckFailed { .. } => "check_failed",
        Problem::MissingCheck { .. } => "missing_check",
        Problem::UnsampledCheck { .. } => "unsampled_check",
        Problem::MissingClose { .. } => "missing_close",
        Problem::KeyMismatch => "key_mismatch",
        Problem::Artifact { .. } => "artifact",
        _ => "other",
    }
}

fn plural(n: u64, one: &str) -> String {
    match (n, one) {
        (1, _) => format!("1 {one}"),
        (_, "leaf") => format!("{n} leaves"),
        _ => format!("{n} {one}s"),
    }
}

fn summary(report: &Report) -> String {
    let checks = &report.checks;
    let artifacts = match report.artifacts_checked {
        Some(n) => format!("{} checked", plural(n, "artifact")),
        None => "artifacts not checked (name the directory to check them)".into(),
    };
    let diverged = match report.first_nonfinite {
        Some(first) => format!(
            "; warning: the run diverged: {} {} not finite (NaN or infinite), the first at \
             step {first}",
            report.nonfinite_steps,
            if report.nonfinite_steps == 1 {
                "step's update was"
            } else {
                "steps' updates were"
            }
        ),
        None => String::new(),
    };
    format!(
        "{}, {} passed ({} state, {} update), {}, {}, {}, {} bytes, {}; {}; prover {}, config {:?}{diverged}",
        plural(report.steps, "step"),
        plural(checks.total(), "check"),
        checks.state_passed,
        checks.update_passed,
        plural(report.snapshots, "snapshot"),
        plural(report.programs, "program"),
        plural(report.records, "record"),
        report.bytes,
        if report.signed { "signed" } else { "unsigned" },
        artifacts,
        report.prover,
        report.config_name,
    )
}

fn inspect(path: &Path, json: bool) -> u8 {
    if let Some(code) = missing(path, json, false) {
        return code;
    }
    let inspection = match inspect_path(path) {
        Ok(inspection) => inspection,
        Err(error) => {
            if json {
                println!("{}", json!({ "path": path, "error": error_json(&error) }));
            } else {
                eprintln!("{}: {error}", path.display());
            }
            return verdict_code(&error, false);
        }
    };
    if json {
        println!("{}", json!({ "path": path, "inspection": inspection }));
    } else {
        print!("{}", render(path, &inspection));
    }
    // Nothing readable is not a transcript; a readable prefix (a killed run) is
    // summarized as what it is.
    if inspection.records == 0 && inspection.read_error.is_some() {
        if !json {
            eprintln!(
                "{}: not a ZKDV transcript: no record could be read",
                path.display()
            );
        }
        return USAGE;
    }
    // The exit code is verify's: what was summarized may be invalid.
    if inspection.verification_error.is_some() {
        if let Err(error) = zkdv_protocol::verify_path(path) {
            let prefix = intact_prefix(path, &error).is_some();
            let code = verdict_code(&error, prefix);
            if code == USAGE && !json {
                eprintln!("{}: not a ZKDV transcript: {error}", path.display());
            }
            return code;
        }
    }
    0
}

fn render(path: &Path, i: &Inspection) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let _ = writeln!(s, "transcript   {}", path.display());
    let _ = writeln!(s, "prover       {}", opt(&i.prover));
    let _ = writeln!(s, "config       {}", opt(&i.config_name));
    if let Some(r) = &i.rank {
        let _ = writeln!(
            s,
            "rank         {} of {} ({})",
            r.rank, r.world_size, r.backend
        );
    }
    if !i.versions.is_empty() {
        let versions: Vec<_> = i.versions.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "versions     {}", versions.join(", "));
    }
    let sampling = match i.sampling {
        Some(Sampling::Probability {
            state_check_probability,
            update_check_probability,
        }) => format!("state p={state_check_probability}, update p={update_check_probability}"),
        Some(Sampling::Every { n }) => format!("debug: both checks every {n} steps"),
        None => "-".into(),
    };
    let _ = writeln!(s, "sampling     {sampling}");
    if let Some(t) = i.tolerance {
        let policy = match i.tolerance_policy {
            Some(TolerancePolicy::Fixed) => " (fixed: every program's)",
            Some(TolerancePolicy::Program) => {
                " (the base; each program adds the perturbation ensemble)"
            }
            None => "",
        };
        let _ = writeln!(s, "tolerance    {}{policy}", tolerance(&t));
    }
    let _ = writeln!(
        s,
        "session      rolling window {}, probe ratio {}, snapshot every {} steps, {}",
        i.rolling_window.map_or("-".into(), |v| v.to_string()),
        i.probe_ratio.map_or("-".into(), |v| v.to_string()),
        i.snapshot_interval.map_or("-".into(), |v| v.to_string()),
        if i.signed { "signed" } else { "unsigned" },
    );
    let _ = writeln!(
        s,
        "layout       params {} in {}, optimizer state {} in {}",
        plural(i.params.elements, "element"),
        plural(i.params.leaves, "leaf"),
        plural(i.opt_state.elements, "element"),
        plural(i.opt_state.leaves, "leaf"),
    );
    let avg = i.step_bytes.checked_div(i.steps).unwrap_or(0);
    let _ = writeln!(
        s,
        "steps        {} ({} bytes per step record)",
        i.steps, avg
    );
    let c = &i.checks;
    let expected = match (&i.expected_checks, &i.sampling) {
        (Some(e), Some(Sampling::Probability { .. })) => format!(
            " (the sampling policy draws {:.1} state and {:.1} update checks over {} on \
             average)",
            e.state,
            e.update,
            plural(i.steps, "step")
        ),
        (Some(e), Some(Sampling::Every { n })) => {
            format!(" (every {n}-th step is checked: {} of each kind)", e.state)
        }
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "checks       state {} passed, {} failed; update {} passed, {} failed{expected}",
        c.state_passed, c.state_failed, c.update_passed, c.update_failed
    );
    if let Some(first) = i.first_nonfinite {
        let _ = writeln!(
            s,
            "diverged     {} of {} not finite (NaN or infinite), the first at step {first}",
            i.nonfinite_steps,
            plural(i.steps, "step's update")
        );
    }
    let snapshots: Vec<_> = i.snapshots.iter().map(u64::to_string).collect();
    let _ = writeln!(
        s,
        "snapshots    {}{}",
        i.snapshots.len(),
        if snapshots.is_empty() {
            String::new()
        } else {
            format!(" (steps {})", snapshots.join(", "))
        }
    );
    for (name, r) in &i.hyperparameters {
        let _ = writeln!(
            s,
            "hyperparam   {name}: {:e} at the first step, {:e} at the last, from {:e} to {:e} over {}",
            r.first,
            r.last,
            r.min,
            r.max,
            plural(r.steps, "step")
        );
    }
    if i.evidence_steps > 0 || i.retained_snapshots > 0 {
        let _ = writeln!(
            s,
            "evidence     {} and {} retained, {} bytes (zkdv audit replays them)",
            plural(i.evidence_steps, "step"),
            plural(i.retained_snapshots, "snapshot"),
            i.evidence_bytes
        );
    } else {
        let _ = writeln!(
            s,
            "evidence     none retained (zkdv audit needs retain=\"checkpoints\")"
        );
    }
    for p in &i.programs {
        let _ = writeln!(
            s,
            "program      #{} {} ({}): attested {} ({} bytes), production {}",
            p.seq,
            p.program.name,
            p.program.format,
            short(&p.program.attested.blake3.to_hex()),
            p.program.attested.size,
            production(p),
        );
        let _ = writeln!(
            s,
            "             computes in {} ({} narrow results); tolerance {}",
            p.program
                .precision
                .narrowest
                .as_deref()
                .unwrap_or("no float"),
            p.program.precision.narrow_results,
            tolerance(&p.program.tolerance),
        );
    }
    let kinds: Vec<_> = i.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let _ = writeln!(s, "records      {} ({})", i.records, kinds.join(", "));
    let _ = writeln!(
        s,
        "size         {} bytes of records, {} bytes of artifacts",
        i.bytes, i.artifact_bytes
    );
    let status = match i.status {
        Some(status) => format!("{status:?}").to_lowercase(),
        None => "not closed".into(),
    };
    let _ = writeln!(s, "status       {status}");
    if let Some(e) = &i.read_error {
        let _ = writeln!(s, "read error   {e}");
    }
    let _ = writeln!(
        s,
        "verification {}",
        i.verification_error.as_deref().unwrap_or("valid")
    );
    s
}

fn tolerance(t: &Tolerance) -> String {
    let mut s = format!("abs {} + rel {} * |committed|", t.abs, t.rel);
    if t.replays > 0 {
        s += &format!(
            " + {} * spread over {} perturbed replays",
            t.spread, t.replays
        );
    }
    s
}

/// A program's production program as `zkdv inspect` shows it: its hash and
/// size, and the record that committed it when that came after the program.
fn production(p: &zkdv_protocol::ProgramSummary) -> String {
    match (&p.program.production, p.production_record) {
        (Some(a), None) => format!("{} ({} bytes)", short(&a.blake3.to_hex()), a.size),
        (Some(a), Some(seq)) => format!(
            "{} ({} bytes, committed by record #{seq})",
            short(&a.blake3.to_hex()),
            a.size
        ),
        (None, _) => "not committed (no production record)".into(),
    }
}

fn short(hex: &str) -> &str {
    &hex[..hex.len().min(12)]
}
