//! `zkdv-opt` (and `zkdv opt`): an `mlir-opt`-like driver for the ZKDV
//! passes.
//!
//! One implementation for the cargo binary `zkdv-opt` (`src/bin/zkdv-opt.rs`,
//! which the lit tests in `test-mlir/` run) and the `opt` subcommand of the
//! `zkdv` command ([`crate::cli`]), which the Python wheel installs: [`run`]
//! takes the program name its messages and `--help` use.
//!
//! Reads StableHLO in MLIR generic op form (a file or stdin), runs the passes
//! and pipelines given on the command line in that order (a pipeline expands
//! into its passes, see `zkdv_passes::driver`), verifies the module after
//! each pass and prints the result in generic op form. With
//! `--split-input-file` each `// -----` separated chunk is processed on its
//! own; diagnostics keep the line numbers of the original file.
//!
//! Bad pass options are a command-line error, reported once before the input
//! is read (`zkdv-opt: error: --flag: ...`, exit code 1). Diagnostics go to
//! stderr as `file:line:col: error: message`; the exit code is 1 if any chunk
//! failed (the other chunks are still printed to stdout; `-o FILE` is only
//! written when all chunks succeeded).
//!
//! With `--verify-diagnostics` (as in `mlir-opt`), the diagnostics are not
//! printed but checked against the input's `// expected-error {{...}}`
//! comments (syntax and rules: [`zkdv_passes::ir::expected`]): each mismatch
//! is printed instead, and the exit code is 0 iff there is none, even where
//! a chunk failed as expected. Chunks that ran through are printed as usual;
//! pass reports still go to stderr.

use std::{
    ffi::OsString,
    fs,
    io::{self, Read, Write},
};

use anyhow::{Context as _, Result};
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser};
use zkdv_passes::{
    driver::{self, Emitted, Failure, Step},
    ir::{
        expected::{parse_error_diagnostics, Expectations},
        Diagnostic,
    },
    options::OptionValues,
    pipelines::PIPELINES,
    registry::PASSES,
};

/// The line that separates chunks with `--split-input-file`.
const SPLIT_MARKER: &str = "// -----";

/// Run ZKDV passes on StableHLO (MLIR generic op form).
#[derive(Parser, Debug)]
#[command(name = "zkdv-opt", version)]
struct Cli {
    /// Input file, or `-` for stdin.
    #[arg(default_value = "-")]
    input: String,

    /// Output file, or `-` for stdout.
    #[arg(short = 'o', value_name = "FILE", default_value = "-")]
    output: String,

    /// Split the input on `// -----` lines and process each chunk on its own.
    #[arg(long)]
    split_input_file: bool,

    /// Print source locations (`loc(...)`) in the output.
    #[arg(long)]
    mlir_print_debuginfo: bool,

    /// Check the diagnostics against the input's `// expected-error {{...}}`
    /// comments (also expected-warning, -remark, -note; @+N, @-N, @above,
    /// @below, @unknown) instead of printing them; print each mismatch and
    /// exit 0 iff there is none.
    #[arg(long)]
    verify_diagnostics: bool,
}

/// Run the command line `args` (the program name first, as
/// [`std::env::args_os`] gives it) as the program `name` (`zkdv-opt`, or
/// `zkdv opt`: it names the program in `--help`, `--version` and error
/// messages) and return its exit code: 0 when every chunk succeeded (or,
/// with `--verify-diagnostics`, matched its expectations), 1 otherwise and
/// for a command-line error.
pub fn run<I, T>(name: &'static str, args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    match run_inner(name, args) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(error) => {
            report(&format!("{name}: error: {error:#}"));
            1
        }
    }
}

/// Writes one message to stderr; unlike `eprintln!`, never panics.
fn report(message: &str) {
    let _ = writeln!(io::stderr().lock(), "{message}");
}

/// The command line: the fixed options of [`Cli`] plus one flag per pass and
/// per pipeline.
///
/// Pass and pipeline flags may be given more than once (each occurrence is
/// recorded with its position, so the passes keep command-line order) and
/// are hidden from clap's option list, which would show them as `--flag...`;
/// `--help` lists them after the options instead, each with its options.
fn command(name: &'static str) -> clap::Command {
    let flags = PASSES.iter().map(|pass| (pass.flag, pass.summary)).chain(
        PIPELINES
            .iter()
            .map(|pipeline| (pipeline.flag, pipeline.summary)),
    );
    let command = flags.fold(
        Cli::command().name(name).bin_name(name),
        |command, (flag, summary)| {
            command.arg(
                Arg::new(flag)
                    .long(flag)
                    .help(summary)
                    .action(ArgAction::Append)
                    .num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("")
                    .hide(true),
            )
        },
    );
    command.after_help(flag_listing())
}

/// The `--help` text after the options: every pass and pipeline with its
/// summary and options (`--flag="name=value ..."`), and what each pipeline
/// runs with its default options.
fn flag_listing() -> String {
    let width = PASSES
        .iter()
        .map(|pass| pass.flag.len())
        .chain(PIPELINES.iter().map(|pipeline| pipeline.flag.len()))
        .max()
        .unwrap_or(0);
    let indent = " ".repeat(width + 6);
    let mut listing = String::from("Passes (run in the order given; a pass may be repeated):");
    for pass in PASSES {
        listing.push_str(&format!("\n  --{:<width$}  {}", pass.flag, pass.summary));
        for option in pass.options {
            listing.push_str(&format!("\n{indent}{}", option.usage()));
        }
    }
    listing.push_str("\n\nPipelines (each runs the passes shown, with the options shown):");
    for pipeline in PIPELINES {
        listing.push_str(&format!(
            "\n  --{:<width$}  {}",
            pipeline.flag, pipeline.summary
        ));
        for option in pipeline.options {
            listing.push_str(&format!("\n{indent}{}", option.usage()));
        }
        let defaults = OptionValues::defaults(pipeline.options);
        listing.push_str(&format!("\n{indent}runs {}", pipeline.describe(&defaults)));
    }
    listing
}

/// The passes and pipelines requested on the command line, in command-line
/// order (a flag given twice runs twice), each with the text of its
/// `--flag=options` (empty without `=`).
fn requested(matches: &ArgMatches) -> Vec<(&'static str, String)> {
    let flags = PASSES
        .iter()
        .map(|pass| pass.flag)
        .chain(PIPELINES.iter().map(|pipeline| pipeline.flag));
    let mut ordered: Vec<(usize, &'static str, String)> = flags
        .flat_map(|flag| {
            let indices = matches.indices_of(flag).into_iter().flatten();
            let values = matches
                .get_many::<String>(flag)
                .into_iter()
                .flatten()
                .cloned();
            indices
                .zip(values)
                .map(move |(index, options)| (index, flag, options))
        })
        .collect();
    ordered.sort_by_key(|(index, _, _)| *index);
    ordered
        .into_iter()
        .map(|(_, flag, options)| (flag, options))
        .collect()
}

/// Returns whether every chunk succeeded.
fn run_inner<I, T>(name: &'static str, args: I) -> Result<bool>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = match command(name).try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) => {
            // `--help` and `--version` print to stdout and succeed.
            let usage_error = error.use_stderr();
            let _ = error.print();
            return Ok(!usage_error);
        }
    };
    let cli = Cli::from_arg_matches(&matches)?;
    // Bad pass options are a command-line error, reported once; pipelines
    // expand into their passes here.
    let mut steps = Vec::new();
    for (flag, options) in requested(&matches) {
        steps.extend(driver::resolve(flag, &options)?);
    }

    let (source, source_name) = read_input(&cli.input)?;
    let chunks = if cli.split_input_file {
        split_input(&source)
    } else {
        vec![Chunk {
            first_line: 0,
            text: &source,
        }]
    };

    let to_stdout = cli.output == "-";
    let mut stdout = io::stdout().lock();
    let mut output = String::new();
    let mut all_ok = true;
    for (index, chunk) in chunks.iter().enumerate() {
        if index > 0 {
            output.push_str(SPLIT_MARKER);
            output.push('\n');
        }
        let outcome = if cli.verify_diagnostics {
            verify_chunk(chunk, &source_name, &steps, cli.mlir_print_debuginfo)
        } else {
            match process_chunk(chunk, &source_name, &steps, cli.mlir_print_debuginfo) {
                Ok(text) => Outcome::printed(text),
                Err(message) => Outcome::failed(None, vec![message]),
            }
        };
        all_ok &= outcome.ok;
        if let Some(text) = &outcome.text {
            output.push_str(text);
        }
        if !outcome.messages.is_empty() {
            // Keep stdout and stderr in order when both go to one pipe.
            if to_stdout {
                stdout.write_all(output.as_bytes())?;
                stdout.flush()?;
                output.clear();
            }
            for message in &outcome.messages {
                report(message);
            }
        }
    }
    if to_stdout {
        stdout.write_all(output.as_bytes())?;
        stdout.flush()?;
    } else if all_ok {
        fs::write(&cli.output, output).with_context(|| format!("cannot write '{}'", cli.output))?;
    }
    Ok(all_ok)
}

fn read_input(input: &str) -> Result<(String, String)> {
    if input == "-" {
        let mut source = String::new();
        io::stdin()
            .read_to_string(&mut source)
            .context("cannot read stdin")?;
        Ok((source, "<stdin>".to_owned()))
    } else {
        let source = fs::read_to_string(input).with_context(|| format!("cannot read '{input}'"))?;
        Ok((source, input.to_owned()))
    }
}

/// A piece of the input and the number of lines before it in the file.
struct Chunk<'a> {
    first_line: usize,
    text: &'a str,
}

impl Chunk<'_> {
    /// The text behind as many newlines as there are lines before it, so
    /// that diagnostics carry the line numbers of the whole file.
    fn padded_text(&self) -> String {
        let mut text = "\n".repeat(self.first_line);
        text.push_str(self.text);
        text
    }
}

/// Splits on lines starting with `// -----` (the marker lines are dropped).
fn split_input(source: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let (mut start, mut first_line, mut offset) = (0, 0, 0);
    for (line_index, line) in source.split_inclusive('\n').enumerate() {
        if line.trim_start().starts_with(SPLIT_MARKER) {
            chunks.push(Chunk {
                first_line,
                text: &source[start..offset],
            });
            start = offset + line.len();
            first_line = line_index + 1;
        }
        offset += line.len();
    }
    chunks.push(Chunk {
        first_line,
        text: &source[start..],
    });
    chunks
}

/// What processing one chunk gave.
struct Outcome {
    /// The module printed, if the chunk ran through.
    text: Option<String>,
    /// What to print on stderr: diagnostics, or mismatches when verifying.
    messages: Vec<String>,
    /// Whether the chunk counts as a success for the exit code.
    ok: bool,
}

impl Outcome {
    fn printed(text: String) -> Self {
        Self {
            text: Some(text),
            messages: Vec::new(),
            ok: true,
        }
    }

    fn failed(text: Option<String>, messages: Vec<String>) -> Self {
        Self {
            text,
            messages,
            ok: false,
        }
    }
}

/// Parses, transforms and prints one chunk; on failure, returns the
/// diagnostics to print.
fn process_chunk(
    chunk: &Chunk<'_>,
    source_name: &str,
    steps: &[Step],
    debug_info: bool,
) -> Result<String, String> {
    driver::run_steps(
        &chunk.padded_text(),
        source_name,
        steps,
        debug_info,
        &mut |message| report(message),
    )
    .map_err(|error| error.to_string())
}

/// `--verify-diagnostics`: runs one chunk, collecting its diagnostics, and
/// checks them against the chunk's `expected-*` comments.
fn verify_chunk(chunk: &Chunk<'_>, source_name: &str, steps: &[Step], debug_info: bool) -> Outcome {
    let expectations = match Expectations::parse(chunk.text, chunk.first_line, source_name) {
        Ok(expectations) => expectations,
        Err(error) => return Outcome::failed(None, vec![error.to_string()]),
    };
    let (text, diagnostics) = run_collecting(&chunk.padded_text(), source_name, steps, debug_info);
    let mismatches: Vec<String> = expectations
        .verify(&diagnostics)
        .iter()
        .map(ToString::to_string)
        .collect();
    if mismatches.is_empty() {
        Outcome {
            text,
            messages: Vec::new(),
            ok: true,
        }
    } else {
        Outcome::failed(text, mismatches)
    }
}

/// Runs one chunk, collecting every diagnostic (reports still go to stderr).
fn run_collecting(
    text: &str,
    source_name: &str,
    steps: &[Step],
    debug_info: bool,
) -> (Option<String>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let result = driver::run(
        text,
        source_name,
        steps,
        debug_info,
        &mut |emitted| match emitted {
            Emitted::Report(text) => report(text),
            Emitted::Diagnostic(diagnostic) => diagnostics.push(diagnostic.clone()),
        },
    );
    match result {
        Ok(text) => (Some(text), diagnostics),
        Err(failure) => {
            diagnostics.extend(match failure {
                Failure::Parse(error) => parse_error_diagnostics(&error),
                Failure::Pass { error, .. } => error.diagnostics().to_vec(),
                // As mlir-opt: only the verifier's own diagnostics.
                Failure::Invalid { diagnostics, .. } => diagnostics.0,
                Failure::Print { message, .. } => vec![Diagnostic::error(
                    source_name,
                    format!("cannot print: {message}"),
                )],
            });
            (None, diagnostics)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_run_in_command_line_order_and_may_repeat() {
        let flag = PASSES[0].flag;
        let matches = command("zkdv-opt")
            .try_get_matches_from([
                "zkdv-opt",
                &format!("--{flag}"),
                "in.mlir",
                &format!("--{flag}=opt"),
            ])
            .expect("parses");
        assert_eq!(
            requested(&matches),
            [(flag, String::new()), (flag, "opt".to_string())]
        );
        let none = command("zkdv-opt")
            .try_get_matches_from(["zkdv-opt"])
            .expect("parses");
        assert!(requested(&none).is_empty());
    }

    #[test]
    fn help_lists_every_pass_and_pipeline_with_its_options() {
        let help = command("zkdv-opt").render_help().to_string();
        for pass in PASSES {
            assert!(help.contains(&format!("--{}", pass.flag)), "{help}");
            assert!(help.contains(pass.summary), "{help}");
            for option in pass.options {
                assert!(help.contains(&option.usage()), "{help}");
            }
        }
        for pipeline in PIPELINES {
            assert!(help.contains(&format!("--{}", pipeline.flag)), "{help}");
            assert!(help.contains(pipeline.summary), "{help}");
        }
        assert!(help.contains("--verify-diagnostics"), "{help}");
    }

    #[test]
    fn split_keeps_line_offsets() {
        let chunks = split_input("a\n// -----\nb\nc\n  // -----\nd");
        let parts: Vec<_> = chunks.iter().map(|c| (c.first_line, c.text)).collect();
        assert_eq!(parts, [(0, "a\n"), (2, "b\nc\n"), (5, "d")]);
    }
}
