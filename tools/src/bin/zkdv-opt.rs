//! `zkdv-opt`: an `mlir-opt`-like driver for the ZKDV passes.
//!
//! Reads StableHLO in MLIR generic op form (a file or stdin), runs the passes
//! given on the command line in that order, verifies the module after each
//! pass and prints the result in generic op form. With `--split-input-file`
//! each `// -----` separated chunk is processed on its own; diagnostics keep
//! the line numbers of the original file.
//!
//! Diagnostics go to stderr as `file:line:col: error: message`; the exit code
//! is 1 if any chunk failed (the other chunks are still printed to stdout;
//! `-o FILE` is only written when all chunks succeeded).

use std::{
    fs,
    io::{self, Read, Write},
    process::ExitCode,
};

use anyhow::{Context as _, Result};
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser};
use zkdv_passes::{
    pipeline::run_steps,
    registry::{PassInfo, PASSES},
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
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            report(&format!("zkdv-opt: error: {error:#}"));
            ExitCode::FAILURE
        }
    }
}

/// Writes one message to stderr; unlike `eprintln!`, never panics.
fn report(message: &str) {
    let _ = writeln!(io::stderr().lock(), "{message}");
}

/// The command line: the fixed options of [`Cli`] plus one flag per pass.
///
/// Pass flags may be given more than once (each occurrence is recorded with
/// its position, so the pipeline keeps command-line order) and are hidden
/// from clap's option list, which would show them as `--flag...`; `--help`
/// lists them after the options instead.
fn command() -> clap::Command {
    let width = PASSES.iter().map(|pass| pass.flag.len()).max().unwrap_or(0);
    let mut listing = String::from("Passes (run in the order given; a pass may be repeated):");
    for pass in PASSES {
        listing.push_str(&format!("\n  --{:<width$}  {}", pass.flag, pass.summary));
    }
    if PASSES.is_empty() {
        listing.push_str("\n  (none yet)");
    }
    PASSES
        .iter()
        .fold(Cli::command(), |command, pass| {
            command.arg(
                Arg::new(pass.flag)
                    .long(pass.flag)
                    .help(pass.summary)
                    .action(ArgAction::Append)
                    .num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("")
                    .hide(true),
            )
        })
        .after_help(listing)
}

/// The passes requested on the command line, in command-line order (a pass
/// given twice runs twice).
/// Each pass comes with the text of its `--flag=options` (empty without `=`).
fn pipeline(matches: &ArgMatches) -> Vec<(&'static PassInfo, String)> {
    let mut ordered: Vec<(usize, &'static PassInfo, String)> = PASSES
        .iter()
        .flat_map(|pass| {
            let indices = matches.indices_of(pass.flag).into_iter().flatten();
            let values = matches
                .get_many::<String>(pass.flag)
                .into_iter()
                .flatten()
                .cloned();
            indices
                .zip(values)
                .map(move |(index, options)| (index, pass, options))
        })
        .collect();
    ordered.sort_by_key(|(index, _, _)| *index);
    ordered
        .into_iter()
        .map(|(_, pass, options)| (pass, options))
        .collect()
}

/// Returns whether every chunk succeeded.
fn run() -> Result<bool> {
    let matches = match command().try_get_matches() {
        Ok(matches) => matches,
        Err(error) => {
            // `--help` and `--version` print to stdout and succeed.
            let usage_error = error.use_stderr();
            let _ = error.print();
            return Ok(!usage_error);
        }
    };
    let cli = Cli::from_arg_matches(&matches)?;
    let passes = pipeline(&matches);

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
        match process_chunk(chunk, &source_name, &passes, cli.mlir_print_debuginfo) {
            Ok(text) => output.push_str(&text),
            Err(message) => {
                all_ok = false;
                // Keep stdout and stderr in order when both go to one pipe.
                if to_stdout {
                    stdout.write_all(output.as_bytes())?;
                    stdout.flush()?;
                    output.clear();
                }
                report(&message);
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

/// Parses, transforms and prints one chunk; on failure, returns the
/// diagnostics to print.
fn process_chunk(
    chunk: &Chunk<'_>,
    source_name: &str,
    passes: &[(&'static PassInfo, String)],
    debug_info: bool,
) -> Result<String, String> {
    // Leading newlines keep line numbers those of the whole file.
    let mut text = "\n".repeat(chunk.first_line);
    text.push_str(chunk.text);
    run_steps(&text, source_name, passes, debug_info, &mut |message| {
        report(message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_run_in_command_line_order_and_may_repeat() {
        let flag = PASSES[0].flag;
        let matches = command()
            .try_get_matches_from([
                "zkdv-opt",
                &format!("--{flag}"),
                "in.mlir",
                &format!("--{flag}=opt"),
            ])
            .expect("parses");
        let flags: Vec<_> = pipeline(&matches)
            .iter()
            .map(|(pass, options)| (pass.flag, options.clone()))
            .collect();
        assert_eq!(flags, [(flag, String::new()), (flag, "opt".to_string())]);
        let none = command()
            .try_get_matches_from(["zkdv-opt"])
            .expect("parses");
        assert!(pipeline(&none).is_empty());
    }

    #[test]
    fn help_lists_every_pass() {
        let help = command().render_help().to_string();
        for pass in PASSES {
            assert!(help.contains(&format!("--{}", pass.flag)), "{help}");
            assert!(help.contains(pass.summary), "{help}");
        }
    }

    #[test]
    fn split_keeps_line_offsets() {
        let chunks = split_input("a\n// -----\nb\nc\n  // -----\nd");
        let parts: Vec<_> = chunks.iter().map(|c| (c.first_line, c.text)).collect();
        assert_eq!(parts, [(0, "a\n"), (2, "b\nc\n"), (5, "d")]);
    }
}
