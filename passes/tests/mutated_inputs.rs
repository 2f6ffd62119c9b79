//! Hostile input through the parser and every pass: mutations of real
//! programs (a JAX-exported training step and conformance cases) must give a
//! parse error or a pass diagnostic, never a panic or an abort.
//!
//! This is the deterministic, always-run part of fuzzing the parser-to-pass
//! path; each case runs the whole pass table in order, as
//! `zkdv-opt --zkdv-inline --zkdv-dce ...` would.

use std::path::PathBuf;

use zkdv_passes::{IrContext, PASSES};

fn inputs() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for path in [
        root.join("test-mlir/inputs/mlp_adam.mlir"),
        root.join("test-mlir/inputs/transaction_sgd.mlir"),
        root.join("test-mlir/slice_update.mlir"),
        root.join("test-mlir/push_select.mlir"),
    ] {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Split files hold several modules; each is an input.
        for chunk in text.split("// -----") {
            out.push((path.display().to_string(), chunk.to_string()));
        }
    }
    out
}

/// xorshift64*, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Mutations that keep most of the text parseable, so the passes see
/// unusual but well-formed IR as well as broken text.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        return String::new();
    }
    for _ in 0..=rng.below(3) {
        let at = rng.below(lines.len());
        match rng.below(6) {
            0 => {
                lines.remove(at);
            }
            1 => {
                let copy = lines[at].clone();
                lines.insert(at, copy);
            }
            2 => {
                let other = rng.below(lines.len());
                lines.swap(at, other);
            }
            3 => {
                // Change a number: shapes, indices, constants.
                let line = &mut lines[at];
                if let Some(pos) = line.find(|c: char| c.is_ascii_digit()) {
                    let digit = char::from(b'0' + rng.below(10) as u8);
                    line.replace_range(pos..pos + 1, &digit.to_string());
                }
            }
            4 => {
                // Retype an element type or rename an op.
                let swaps = [
                    ("f32", "bf16"),
                    ("f32", "i32"),
                    ("xf32", "x1xf32"),
                    ("stablehlo.add", "stablehlo.dot_general"),
                    ("stablehlo.multiply", "stablehlo.reduce"),
                    ("zkdv.role = \"param\"", "zkdv.role = \"delta\""),
                    ("private", "public"),
                ];
                let (from, to) = swaps[rng.below(swaps.len())];
                lines[at] = lines[at].replacen(from, to, 1);
            }
            _ => {
                let line = &mut lines[at];
                if !line.is_empty() {
                    let cut = rng.below(line.len());
                    if line.is_char_boundary(cut) {
                        line.truncate(cut);
                    }
                }
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_programs_never_panic_any_pass() {
    let inputs = inputs();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut parsed, mut failed_passes) = (0usize, 0usize);
    for round in 0..1500 {
        let (name, text) = &inputs[round % inputs.len()];
        let text = mutate(text, &mut rng);
        let context = IrContext::new();
        let Ok(module) = context.parse(&text, name) else {
            continue;
        };
        parsed += 1;
        for pass in PASSES {
            let mut options = pass.default_options();
            if (pass.run)(&module, &mut options).is_err() {
                failed_passes += 1;
            }
            if context.verify(&module).is_err() {
                break;
            }
        }
    }
    // The mutations must leave enough programs parseable for the passes to
    // be exercised at all.
    assert!(parsed > 200, "only {parsed} mutated programs parsed");
    assert!(failed_passes > 0, "no pass ever reported a diagnostic");
}

/// Every file of the fuzz corpus (`fuzz/corpus/opt_pipeline/`, including
/// the inputs of crashes found and fixed: `regression-*`) goes through the
/// whole pass table without a panic, in every `cargo test`.
#[test]
fn fuzz_corpus_never_panics_any_pass() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/opt_pipeline");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "the corpus lost its seeds");
    assert!(files.iter().any(|f| f
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("regression-"))));
    for path in files {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let context = IrContext::new();
        let Ok(module) = context.parse(text, &path.display().to_string()) else {
            continue;
        };
        for pass in PASSES {
            let mut options = pass.default_options();
            let _ = (pass.run)(&module, &mut options);
            if context.verify(&module).is_err() {
                break;
            }
        }
    }
}
