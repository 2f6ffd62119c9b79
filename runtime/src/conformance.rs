//! Conformance runner over the StableHLO interpreter test suite in generic
//! form (`shared/conformance/stablehlo-interpret`).
//!
//! A file holds modules separated by `// -----` lines; each zero-argument
//! function of each module is one case. The interpreter runs it with a hook
//! that evaluates the `check.*` ops (which have no results): a case passes
//! when it runs to its return and every check held, is skipped when it uses
//! an op or type outside the interpreter's set (the op is recorded), and
//! fails otherwise. Functions with arguments are callees, not cases, and are
//! skipped as such.

use std::collections::BTreeMap;
use std::path::Path;

use melior::ir::OperationRef;
use zkdv_ir::IrContext;
use zkdv_ir::{function_name, functions};

use crate::attrs::text as attribute_text;
use crate::interpreter::{HookResult, Interpreter, Limits, PlanCache};
use crate::value::{Data, ElementType, Tensor, ValueError};
use crate::{Backend, RuntimeError};

/// Outcome of a run over one or more files.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Names of passing cases, `file:function`.
    pub passed: Vec<String>,
    /// Failing cases and why.
    pub failed: Vec<(String, String)>,
    /// Skipped cases and the op, type or reason that made them so.
    pub skipped: Vec<(String, String)>,
    /// Functions that take arguments: helpers that cases call, not cases.
    pub helpers: Vec<String>,
}

impl Report {
    /// Appends `other`'s cases.
    pub fn merge(&mut self, other: Report) {
        self.passed.extend(other.passed);
        self.failed.extend(other.failed);
        self.skipped.extend(other.skipped);
        self.helpers.extend(other.helpers);
    }

    /// `N passed, N failed, N skipped` (cases only; helper functions with
    /// arguments are not cases).
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed.len(),
            self.failed.len(),
            self.skipped.len()
        )
    }

    /// Passed cases as a share of all cases, in percent.
    pub fn pass_rate(&self) -> f64 {
        let total = self.passed.len() + self.failed.len() + self.skipped.len();
        if total == 0 {
            return 0.0;
        }
        100.0 * self.passed.len() as f64 / total as f64
    }

    /// Skip reasons with their counts, most frequent first (ties by name).
    pub fn skip_counts(&self) -> Vec<(String, usize)> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, reason) in &self.skipped {
            *counts.entry(reason).or_default() += 1;
        }
        let mut counts: Vec<(String, usize)> =
            counts.into_iter().map(|(r, n)| (r.to_owned(), n)).collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        counts
    }
}

/// Runs every case of every `*.mlir` file of `dir`, in file-name order.
pub fn run_dir(dir: &Path) -> std::io::Result<Report> {
    run_dir_on(dir, Backend::Cpu)
}

/// [`run_dir`] with the ops run on `backend`.
pub fn run_dir_on(dir: &Path, backend: Backend) -> std::io::Result<Report> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|path| path.extension().is_some_and(|ext| ext == "mlir"));
    paths.sort();
    let mut report = Report::default();
    for path in paths {
        report.merge(run_file_on(&path, backend)?);
    }
    Ok(report)
}

/// Runs every case of one file.
pub fn run_file(path: &Path) -> std::io::Result<Report> {
    run_file_on(path, Backend::Cpu)
}

/// [`run_file`] with the ops run on `backend`.
pub fn run_file_on(path: &Path, backend: Backend) -> std::io::Result<Report> {
    let source = std::fs::read_to_string(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(run_source_on(&source, &name, backend))
}

/// Runs every case of `source`, a `// -----` separated file named `name`.
pub fn run_source(source: &str, name: &str) -> Report {
    run_source_on(source, name, Backend::Cpu)
}

/// [`run_source`] with the ops run on `backend`.
pub fn run_source_on(source: &str, name: &str, backend: Backend) -> Report {
    let context = IrContext::new();
    let mut report = Report::default();
    let mut chunk = String::new();
    let mut chunk_index = 0;
    for line in source.lines().chain(std::iter::once("// -----")) {
        if line.trim() != "// -----" {
            chunk.push_str(line);
            chunk.push('\n');
            continue;
        }
        if !chunk.trim().is_empty() {
            run_chunk(&context, &chunk, name, chunk_index, backend, &mut report);
        }
        chunk.clear();
        chunk_index += 1;
    }
    report
}

fn run_chunk(
    context: &IrContext,
    chunk: &str,
    file: &str,
    index: usize,
    backend: Backend,
    report: &mut Report,
) {
    let module = match context.parse(chunk, file) {
        Ok(module) => module,
        Err(error) => {
            report
                .failed
                .push((format!("{file}#{index}"), format!("parse error: {error}")));
            return;
        }
    };
    for func in functions(&module) {
        let case = format!("{file}:{}", function_name(&func).unwrap_or_default());
        match run_case(func, backend) {
            Outcome::Pass => report.passed.push(case),
            Outcome::Fail(why) => report.failed.push((case, why)),
            Outcome::Skip(why) => report.skipped.push((case, why)),
            Outcome::Helper => report.helpers.push(case),
        }
    }
}

enum Outcome {
    Pass,
    /// A function with arguments: called by cases, not a case itself.
    Helper,
    Fail(String),
    Skip(String),
}

fn run_case(func: OperationRef<'_, '_>, backend: Backend) -> Outcome {
    let takes_arguments = zkdv_ir::function_type(&func)
        .map(|ty| ty.input_count() > 0)
        .unwrap_or(false);
    if takes_arguments {
        return Outcome::Helper;
    }
    let mut failures = Vec::new();
    let result = Interpreter.run_limited_on(
        func,
        Vec::new(),
        &PlanCache::default(),
        Limits::default(),
        backend,
        &mut |op, operands| check(op, operands, &mut failures),
    );
    match result {
        Err(RuntimeError::Unsupported { op, .. }) => Outcome::Skip(op),
        Err(RuntimeError::UnsupportedType { ty, .. }) => Outcome::Skip(format!("type {ty}")),
        Err(error) => Outcome::Fail(error.to_string()),
        Ok(_) if failures.is_empty() => Outcome::Pass,
        Ok(_) => Outcome::Fail(failures.join("; ")),
    }
}

/// Evaluates a `check.*` op, recording a failed check in `failures`.
fn check(
    op: &OperationRef<'_, '_>,
    operands: &[&Tensor],
    failures: &mut Vec<String>,
) -> HookResult {
    let name = zkdv_ir::op_name(op);
    let (constant, default_tolerance) = match name.as_str() {
        "check.expect_eq_const" => (true, Tolerance::Exact),
        "check.expect_eq" => (false, Tolerance::Exact),
        "check.expect_almost_eq_const" => (true, Tolerance::Absolute(1e-4)),
        "check.expect_almost_eq" => (false, Tolerance::Absolute(1e-4)),
        "check.expect_close" => (false, Tolerance::Ulps(0)),
        _ => return None,
    };
    let outcome = (|| -> Result<Result<(), String>, ValueError> {
        let tolerance = match default_tolerance {
            Tolerance::Absolute(default) => {
                Tolerance::Absolute(float_attribute(op, "tolerance")?.unwrap_or(default))
            }
            Tolerance::Ulps(default) => Tolerance::Ulps(
                float_attribute(op, "max_ulp_difference")?.map_or(default, |n| n as u64),
            ),
            Tolerance::Exact => Tolerance::Exact,
        };
        let expected_const;
        let (actual, expected) = match (constant, operands) {
            (true, [actual]) => {
                expected_const = Tensor::from_dense_text(&attribute_text(op, "value")?)?;
                (*actual, &expected_const)
            }
            (false, [actual, expected]) => (*actual, *expected),
            _ => {
                return Err(ValueError::Mismatch(format!(
                    "unexpected operand count {}",
                    operands.len()
                )))
            }
        };
        Ok(compare(actual, expected, tolerance))
    })();
    Some(match outcome {
        Err(error) => Err(RuntimeError::from_value(op, error)),
        Ok(held) => {
            if let Err(why) = held {
                let location = melior::ir::operation::OperationLike::location(op);
                let location = zkdv_ir::format_location(location);
                failures.push(format!("{location}: {name}: {why}"));
            }
            Ok(Vec::new())
        }
    })
}

/// Reads `0.1 : f64` or `3 : i64`; `None` if the attribute is absent.
fn float_attribute(op: &OperationRef<'_, '_>, name: &str) -> Result<Option<f64>, ValueError> {
    if !melior::ir::operation::OperationLike::has_attribute(op, name) {
        return Ok(None);
    }
    let text = attribute_text(op, name)?;
    text.split(" : ")
        .next()
        .and_then(|value| value.trim().parse().ok())
        .map(Some)
        .ok_or(ValueError::Malformed {
            what: "check tolerance",
            text,
        })
}

#[derive(Clone, Copy)]
enum Tolerance {
    Exact,
    Absolute(f64),
    Ulps(u64),
}

fn float_close(x: f64, y: f64, ulp_key: impl Fn(f64) -> i128, tolerance: Tolerance) -> bool {
    if x == y || (x.is_nan() && y.is_nan()) {
        return true;
    }
    match tolerance {
        Tolerance::Exact => false,
        Tolerance::Absolute(t) => (x - y).abs() <= t,
        Tolerance::Ulps(n) => {
            !x.is_nan() && !y.is_nan() && (ulp_key(x) - ulp_key(y)).unsigned_abs() <= u128::from(n)
        }
    }
}

fn ordered_key(bits: u64, sign_bit: u64) -> i128 {
    let magnitude = i128::from(bits & (sign_bit - 1));
    if bits & sign_bit != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// Compares two tensors elementwise; `Err` describes the first mismatch.
fn compare(actual: &Tensor, expected: &Tensor, tolerance: Tolerance) -> Result<(), String> {
    if actual.tensor_type() != expected.tensor_type() {
        return Err(format!(
            "type {:?}{:?} vs expected {:?}{:?}",
            actual.element, actual.shape, expected.element, expected.shape
        ));
    }
    let mismatch =
        |i: usize, a: String, e: String| Err(format!("element {i}: {a} vs expected {e}"));
    match (&actual.data, &expected.data) {
        (Data::F64(a), Data::F64(e)) => {
            let key = |x: f64| ordered_key(x.to_bits(), 1 << 63);
            match a
                .iter()
                .zip(e)
                .position(|(&x, &y)| !float_close(x, y, key, tolerance))
            {
                Some(i) => mismatch(i, a[i].to_string(), e[i].to_string()),
                None => Ok(()),
            }
        }
        (Data::F32(a), Data::F32(e)) => {
            // ULPs of the element type itself (f16/bf16 are held in f32).
            let element = actual.element;
            let key = |x: f64| match element {
                ElementType::F16 => {
                    ordered_key(u64::from(half::f16::from_f64(x).to_bits()), 1 << 15)
                }
                ElementType::BF16 => {
                    ordered_key(u64::from(half::bf16::from_f64(x).to_bits()), 1 << 15)
                }
                _ => ordered_key(u64::from((x as f32).to_bits()), 1 << 31),
            };
            let close =
                |(&x, &y): (&f32, &f32)| float_close(f64::from(x), f64::from(y), key, tolerance);
            match a.iter().zip(e).position(|pair| !close(pair)) {
                Some(i) => mismatch(i, a[i].to_string(), e[i].to_string()),
                None => Ok(()),
            }
        }
        (Data::C64(a), Data::C64(e)) => {
            // Each part within the tolerance, as an `f32`.
            let key = |x: f64| ordered_key(u64::from((x as f32).to_bits()), 1 << 31);
            let close = |x: &[f32; 2], y: &[f32; 2]| {
                (0..2).all(|k| float_close(f64::from(x[k]), f64::from(y[k]), key, tolerance))
            };
            match a.iter().zip(e).position(|(x, y)| !close(x, y)) {
                Some(i) => mismatch(i, format!("{:?}", a[i]), format!("{:?}", e[i])),
                None => Ok(()),
            }
        }
        (Data::C128(a), Data::C128(e)) => {
            let key = |x: f64| ordered_key(x.to_bits(), 1 << 63);
            let close = |x: &[f64; 2], y: &[f64; 2]| {
                (0..2).all(|k| float_close(x[k], y[k], key, tolerance))
            };
            match a.iter().zip(e).position(|(x, y)| !close(x, y)) {
                Some(i) => mismatch(i, format!("{:?}", a[i]), format!("{:?}", e[i])),
                None => Ok(()),
            }
        }
        (Data::Bool(a), Data::Bool(e)) => first_difference(a, e),
        (Data::Signed(a), Data::Signed(e)) => first_difference(a, e),
        (Data::Unsigned(a), Data::Unsigned(e)) => first_difference(a, e),
        (a, e) => Err(format!("{a:?} vs expected {e:?}")),
    }
}

fn first_difference<T: PartialEq + std::fmt::Display>(a: &[T], e: &[T]) -> Result<(), String> {
    match a.iter().zip(e).position(|(x, y)| x != y) {
        Some(i) => Err(format!("element {i}: {} vs expected {}", a[i], e[i])),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASES: &str = r#""builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "good"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %1 = "stablehlo.add"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "check.expect_almost_eq_const"(%1) {value = dense<[2.0, 4.00001]> : tensor<2xf32>} : (tensor<2xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "bad"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
    "check.expect_eq_const"(%0) {value = dense<[1, 3]> : tensor<2xi32>} : (tensor<2xi32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// -----
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "skipped"}> ({
    %0 = "stablehlo.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.infeed"(%0) : (tensor<f32>) -> tensor<f32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "helper"}> ({
  ^bb0(%x: tensor<f32>):
    "func.return"(%x) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;

    #[test]
    fn passes_fails_and_skips() {
        let report = run_source(CASES, "cases.mlir");
        assert_eq!(report.summary(), "1 passed, 1 failed, 1 skipped");
        assert_eq!(report.passed, vec!["cases.mlir:good"]);
        assert_eq!(report.helpers, vec!["cases.mlir:helper"]);
        assert!(
            report.failed[0].1.contains("element 1"),
            "{:?}",
            report.failed
        );
        assert_eq!(
            report.skip_counts(),
            vec![("stablehlo.infeed".to_owned(), 1)]
        );
    }
}
