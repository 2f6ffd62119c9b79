//! `--zkdv-cost-report`: print the FLOPs of each function.
//!
//! For every top-level `func.func` with a body (or only the one named by
//! `--zkdv-cost-report=func=NAME`), [`flops`] counts floating-point (and
//! integer) operations from static shapes, and the pass prints one table per
//! function into the report (the driver shows it on stderr):
//!
//! ```text
//! zkdv-cost-report @main
//!   op                          count           flops
//!   stablehlo.add                   1              32
//!   stablehlo.dot_general           1            2048
//!   total                           2            2080
//! ```
//!
//! Rows are sorted by op name; ops without a FLOP model show `-` in the flops
//! column and count 0; `note:` lines follow the table.
//!
//! # The model
//!
//! - `stablehlo.dot_general`: `2 * B * M * N * K`, the products of the batch,
//!   lhs free, rhs free and contracting dimension sizes, from the operand
//!   types and `dot_dimension_numbers` (`#stablehlo.dot<...>`; a missing field
//!   is an empty list). `stablehlo.dot`: `2 * output elements * K`.
//! - `stablehlo.convolution`: `2 * output elements * kernel spatial size *
//!   kernel input features` (which is input features / `feature_group_count`);
//!   padding and dilation holes count like real inputs.
//! - Elementwise ops ([`Props::ELEMENTWISE`], including `compare`, `select`, `clamp`,
//!   `convert` and `chlo` special functions): one per result element
//!   (a complex operation also counts one).
//! - `stablehlo.reduce`: one per element of an input (one application of the
//!   body per element); `reduce_window`: output elements * window size;
//!   `select_and_scatter`: source elements * window size; `scatter`: one per
//!   update element. Their bodies are not walked.
//! - Data movement and structure ([`Props::FREE`]: reshape, broadcast, transpose,
//!   slice, gather, constant, ...): 0.
//! - `stablehlo.while`: condition and body counted once (trip counts are not
//!   analysed), with a note; `stablehlo.if`/`case`: every branch counted, with
//!   a note. `func.call`: the callee's FLOPs are added at each call (its ops
//!   appear in the caller's rows).
//! - Any other op counts 0, regions included, and is marked unmodelled.
//!
//! For a function guarded by `--zkdv-guard-leaves` ([`crate::guard_leaves`])
//! a `per check` row follows the total: the FLOPs one check runs, averaged
//! over the leaves, i.e. the unguarded FLOPs plus each guard's FLOPs times
//! the chance that a delta leaf and a state leaf drawn uniformly (and
//! independently) hit its target set. `total` still counts every guard.
//!
//! Preconditions: the shapes the model reads are static ranked tensors; a
//! dynamic or unranked shape, a malformed dimension-numbers attribute or a
//! recursive call is a diagnostic at the op. The pass only reads the IR.

use std::collections::BTreeMap;

use melior::ir::{
    attribute::{DenseI64ArrayAttribute, IntegerAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::RankedTensorType,
    Module, OperationRef, RegionLike, Type, ValueLike,
};

use crate::{
    abi::{DELTA_LEAVES_ATTR, LEAF_COUNTS_ATTR, STATE_LEAVES_ATTR},
    ir::{
        attrs::{ConvDimensions, DotDimensions},
        format_location, op_name,
        ops::{self, Props},
        Diagnostic, Diagnostics,
    },
    roles::{function_name, functions},
    PassError, PassOptions,
};

/// Count and FLOPs of one op name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCost {
    pub count: u64,
    pub flops: u64,
    /// Whether the model knows this op (unmodelled ops count 0 FLOPs).
    pub modelled: bool,
}

/// FLOPs of one function, callees included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostReport {
    /// The function's `sym_name`.
    pub function: String,
    pub total: u64,
    /// Per op name, sorted by name.
    pub ops: BTreeMap<String, OpCost>,
    /// Caveats: loops counted once, branches all counted, unmodelled ops.
    pub notes: Vec<String>,
    /// For a function guarded by `--zkdv-guard-leaves`: the FLOPs one check
    /// runs, averaged over the leaves (delta leaf and state leaf drawn
    /// uniformly and independently); every guard's branches are otherwise
    /// counted in `total`.
    pub per_check: Option<f64>,
}

impl CostReport {
    fn add(&mut self, name: &str, flops: u64, modelled: bool) -> Result<(), String> {
        let entry = self.ops.entry(name.to_owned()).or_default();
        entry.count += 1;
        entry.flops = checked_add(entry.flops, flops)?;
        entry.modelled = modelled;
        self.total = checked_add(self.total, flops)?;
        Ok(())
    }

    fn merge(&mut self, other: &CostReport) -> Result<(), String> {
        for (name, cost) in &other.ops {
            let entry = self.ops.entry(name.clone()).or_default();
            entry.count += cost.count;
            entry.flops = checked_add(entry.flops, cost.flops)?;
            entry.modelled = cost.modelled;
        }
        self.total = checked_add(self.total, other.total)?;
        for note in &other.notes {
            if !self.notes.contains(note) {
                self.notes.push(note.clone());
            }
        }
        Ok(())
    }

    /// The table printed by the pass (see the module docs).
    pub fn table(&self) -> String {
        let width = self
            .ops
            .keys()
            .map(String::len)
            .chain([5])
            .max()
            .unwrap_or(5);
        let mut text = format!("zkdv-cost-report @{}\n", self.function);
        text.push_str(&format!(
            "  {:<width$}  {:>8}  {:>14}\n",
            "op", "count", "flops"
        ));
        let count: u64 = self.ops.values().map(|cost| cost.count).sum();
        for (name, cost) in &self.ops {
            let flops = if cost.modelled {
                cost.flops.to_string()
            } else {
                "-".to_owned()
            };
            text.push_str(&format!(
                "  {name:<width$}  {:>8}  {flops:>14}\n",
                cost.count
            ));
        }
        text.push_str(&format!(
            "  {:<width$}  {count:>8}  {:>14}\n",
            "total", self.total
        ));
        if let Some(per_check) = self.per_check {
            text.push_str(&format!(
                "  {:<width$}  {:>8}  {:>14.0}\n",
                "per check", "", per_check
            ));
        }
        for note in &self.notes {
            text.push_str(&format!("  note: {note}\n"));
        }
        text
    }
}

fn checked_add(a: u64, b: u64) -> Result<u64, String> {
    a.checked_add(b)
        .ok_or_else(|| "the FLOP count overflows 64 bits".to_owned())
}

fn checked_mul(a: u64, b: u64) -> Result<u64, String> {
    a.checked_mul(b)
        .ok_or_else(|| "the FLOP count overflows 64 bits".to_owned())
}

fn product(values: impl IntoIterator<Item = u64>) -> Result<u64, String> {
    values.into_iter().try_fold(1, checked_mul)
}

/// Runs the pass: appends one table per function to `options.report`.
pub fn run(module: &Module<'_>, options: &mut PassOptions) -> Result<(), PassError> {
    let module_location = format_location(module.as_operation().location());
    let fail = |diagnostic| PassError::Failed(Diagnostics(vec![diagnostic]));
    let only = options.values.text("func").map(str::to_owned);
    let selected: Vec<_> = functions(module)
        .into_iter()
        .filter(|func| match &only {
            Some(name) => function_name(func).as_deref() == Some(name),
            None => has_body(func),
        })
        .collect();
    if let (Some(name), true) = (&only, selected.is_empty()) {
        return Err(fail(Diagnostic::error(
            module_location,
            format!("--zkdv-cost-report: no function @{name} in the module"),
        )));
    }
    for func in selected {
        let report = flops(func).map_err(fail)?;
        options.report.push_str(&report.table());
    }
    Ok(())
}

fn has_body(func: &OperationRef<'_, '_>) -> bool {
    func.region(0)
        .ok()
        .is_some_and(|region| region.first_block().is_some())
}

/// The FLOPs of `func` (a top-level `func.func`), callees included.
pub fn flops(func: OperationRef<'_, '_>) -> Result<CostReport, Diagnostic> {
    let mut stack = Vec::new();
    function_cost(func, &mut stack)
}

fn function_cost(
    func: OperationRef<'_, '_>,
    stack: &mut Vec<String>,
) -> Result<CostReport, Diagnostic> {
    let name = function_name(&func).unwrap_or_default();
    let mut report = CostReport {
        function: name.clone(),
        ..CostReport::default()
    };
    stack.push(name);
    walk(func, &mut report, stack)?;
    report.per_check = per_check(func, report.total, stack)?;
    stack.pop();
    let unmodelled: Vec<&str> = report
        .ops
        .iter()
        .filter(|(_, cost)| !cost.modelled)
        .map(|(name, _)| name.as_str())
        .collect();
    if !unmodelled.is_empty() {
        let note = format!("no FLOP model (counted as 0): {}", unmodelled.join(", "));
        report.notes.retain(|n| !n.starts_with("no FLOP model"));
        report.notes.push(note);
    }
    Ok(report)
}

/// The mean FLOPs of one check of a function guarded by
/// `--zkdv-guard-leaves` (`None` for other functions): the unguarded FLOPs
/// plus each guard's FLOPs times the probability that a uniformly drawn
/// delta leaf or state leaf is in its target set.
fn per_check(
    func: OperationRef<'_, '_>,
    total: u64,
    stack: &mut Vec<String>,
) -> Result<Option<f64>, Diagnostic> {
    let Some(counts) = func
        .attribute(LEAF_COUNTS_ATTR)
        .ok()
        .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
    else {
        return Ok(None);
    };
    let (Ok(deltas), Ok(states)) = (counts.element(0), counts.element(1)) else {
        return Err(Diagnostic::error_at(
            &func,
            format!("`{LEAF_COUNTS_ATTR}` must hold two counts"),
        ));
    };
    let miss = |attr: &str, guard: &OperationRef<'_, '_>, count: i64| -> Result<f64, Diagnostic> {
        let hit = guard
            .attribute(attr)
            .ok()
            .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
            .ok_or_else(|| Diagnostic::error_at(guard, format!("a guard without `{attr}`")))?
            .len();
        Ok(if count > 0 {
            1.0 - hit as f64 / count as f64
        } else {
            1.0
        })
    };
    let mut expected = total as f64;
    let block = func.region(0).ok().and_then(|region| region.first_block());
    let mut next = block.and_then(|block| block.first_operation());
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(&op) != "stablehlo.if" || op.attribute(DELTA_LEAVES_ATTR).is_err() {
            continue;
        }
        let mut inner = CostReport::default();
        visit(op, &mut inner, stack)?;
        let hit =
            1.0 - miss(DELTA_LEAVES_ATTR, &op, deltas)? * miss(STATE_LEAVES_ATTR, &op, states)?;
        expected -= inner.total as f64 * (1.0 - hit);
    }
    Ok(Some(expected))
}

/// Adds the ops nested in `op`'s regions to `report`.
fn walk(
    op: OperationRef<'_, '_>,
    report: &mut CostReport,
    stack: &mut Vec<String>,
) -> Result<(), Diagnostic> {
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            let mut nested = current.first_operation();
            while let Some(inner) = nested {
                visit(inner, report, stack)?;
                nested = inner.next_in_block();
            }
            block = current.next_in_region();
        }
    }
    Ok(())
}

fn visit(
    op: OperationRef<'_, '_>,
    report: &mut CostReport,
    stack: &mut Vec<String>,
) -> Result<(), Diagnostic> {
    let name = op_name(&op);
    let at = |message: String| Diagnostic::error_at(&op, format!("`{name}`: {message}"));
    match name.as_str() {
        "func.call" => {
            let callee = op
                .attribute("callee")
                .ok()
                .and_then(crate::roles::symbol_value)
                .ok_or_else(|| at("no flat `callee` symbol".to_owned()))?;
            if stack.contains(&callee) {
                return Err(at(format!(
                    "@{callee} is called recursively; FLOPs are not defined"
                )));
            }
            let target = module_function(op, &callee)
                .ok_or_else(|| at(format!("no function @{callee} in the module")))?;
            let callee_report = function_cost(target, stack)?;
            report.add(&name, 0, true).map_err(at)?;
            report.merge(&callee_report).map_err(at)?;
        }
        "stablehlo.while" => {
            report.add(&name, 0, true).map_err(at)?;
            note(
                report,
                format!(
                    "stablehlo.while at {}: condition and body counted once (trip count not \
                     analysed)",
                    format_location(op.location())
                ),
            );
            walk(op, report, stack)?;
        }
        "stablehlo.if" | "stablehlo.case" => {
            report.add(&name, 0, true).map_err(at)?;
            note(
                report,
                format!(
                    "{name} at {}: every branch counted",
                    format_location(op.location())
                ),
            );
            walk(op, report, stack)?;
        }
        _ => {
            // Regions of other ops are not walked: combiner bodies (reduce,
            // scatter, ...) are part of the op's model, and an unmodelled
            // op counts 0 as a whole.
            let (flops, modelled) = op_flops(op, &name).map_err(at)?;
            report.add(&name, flops, modelled).map_err(at)?;
        }
    }
    Ok(())
}

fn note(report: &mut CostReport, note: String) {
    if !report.notes.contains(&note) {
        report.notes.push(note);
    }
}

/// The top-level function `name` of the module holding `op`.
fn module_function<'c, 'a>(op: OperationRef<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let mut module = op.parent_operation();
    while let Some(current) = module {
        if op_name(&current) == "builtin.module" {
            break;
        }
        module = current.parent_operation();
    }
    let body = module?.region(0).ok()?.first_block()?;
    let mut next = body.first_operation();
    while let Some(candidate) = next {
        if op_name(&candidate) == "func.func" && function_name(&candidate).as_deref() == Some(name)
        {
            return Some(candidate);
        }
        next = candidate.next_in_block();
    }
    None
}

/// FLOPs of one op that is not a call or control flow, and whether the
/// model knows it.
fn op_flops(op: OperationRef<'_, '_>, name: &str) -> Result<(u64, bool), String> {
    let flops = match name {
        "stablehlo.dot_general" => dot_general(op)?,
        "stablehlo.dot" => {
            let lhs = shape(operand_type(op, 0)?, "lhs")?;
            let k = lhs.last().copied().unwrap_or(1);
            checked_mul(2, checked_mul(elements(result_type(op, 0)?, "result")?, k)?)?
        }
        "stablehlo.convolution" => convolution(op)?,
        "stablehlo.reduce" => elements(operand_type(op, 0)?, "input")?,
        "stablehlo.reduce_window" => {
            checked_mul(elements(result_type(op, 0)?, "result")?, window_size(op)?)?
        }
        "stablehlo.select_and_scatter" => {
            checked_mul(elements(operand_type(op, 1)?, "source")?, window_size(op)?)?
        }
        "stablehlo.scatter" => {
            let last = op.operand_count().checked_sub(1).ok_or("no operands")?;
            elements(operand_type(op, last)?, "updates")?
        }
        _ if ops::has(name, Props::ELEMENTWISE) => elements(result_type(op, 0)?, "result")?,
        _ if ops::has(name, Props::FREE) => 0,
        _ => return Ok((0, false)),
    };
    Ok((flops, true))
}

fn operand_type<'c>(op: OperationRef<'c, '_>, index: usize) -> Result<Type<'c>, String> {
    op.operand(index)
        .map(|value| value.r#type())
        .map_err(|_| format!("missing operand {index}"))
}

fn result_type<'c>(op: OperationRef<'c, '_>, index: usize) -> Result<Type<'c>, String> {
    op.result(index)
        .map(|value| value.r#type())
        .map_err(|_| format!("missing result {index}"))
}

/// The static shape of a ranked tensor type; `what` names it in errors.
fn shape(r#type: Type<'_>, what: &str) -> Result<Vec<u64>, String> {
    use melior::ir::r#type::{DimSize, ShapedTypeLike};
    let tensor = RankedTensorType::try_from(r#type).map_err(|_| {
        format!(
            "the {what} has type {type}, not a ranked tensor; the cost report needs static shapes"
        )
    })?;
    (0..tensor.rank())
        .map(|index| match tensor.dim_size(index) {
            Ok(DimSize::Static(size)) => Ok(size),
            _ => Err(format!(
                "the {what} has the dynamic shape {type}; the cost report needs static shapes"
            )),
        })
        .collect()
}

fn elements(r#type: Type<'_>, what: &str) -> Result<u64, String> {
    product(shape(r#type, what)?)
}

fn window_size(op: OperationRef<'_, '_>) -> Result<u64, String> {
    let window = op
        .attribute("window_dimensions")
        .ok()
        .and_then(|attribute| DenseI64ArrayAttribute::try_from(attribute).ok())
        .ok_or("no `window_dimensions` array")?;
    product((0..window.len()).map(|index| window.element(index).unwrap_or(1).max(0) as u64))
}

/// `2 * B * M * N * K` for a `dot_general`.
fn dot_general(op: OperationRef<'_, '_>) -> Result<u64, String> {
    let lhs = shape(operand_type(op, 0)?, "lhs")?;
    let rhs = shape(operand_type(op, 1)?, "rhs")?;
    let numbers = op
        .attribute("dot_dimension_numbers")
        .map_err(|_| "no `dot_dimension_numbers`".to_owned())?
        .to_string();
    let DotDimensions {
        lhs_batching: lhs_batch,
        rhs_batching: rhs_batch,
        lhs_contracting: lhs_contract,
        rhs_contracting: rhs_contract,
    } = DotDimensions::parse(&numbers)
        .map_err(|reason| format!("`dot_dimension_numbers` {numbers}: {reason}"))?;
    let sizes = |dims: &[usize], shape: &[u64], what: &str| {
        dims.iter()
            .map(|&dim| {
                shape.get(dim).copied().ok_or_else(|| {
                    format!(
                        "{what} dimension {dim} is out of range for rank {}",
                        shape.len()
                    )
                })
            })
            .collect::<Result<Vec<u64>, String>>()
    };
    let batch = sizes(&lhs_batch, &lhs, "lhs batching")?;
    let contract = sizes(&lhs_contract, &lhs, "lhs contracting")?;
    if batch != sizes(&rhs_batch, &rhs, "rhs batching")?
        || contract != sizes(&rhs_contract, &rhs, "rhs contracting")?
    {
        return Err("the lhs and rhs batching or contracting dimension sizes differ".to_owned());
    }
    let free = |shape: &[u64], used: &[&[usize]]| {
        product(
            shape
                .iter()
                .enumerate()
                .filter(|(dim, _)| !used.iter().any(|list| list.contains(dim)))
                .map(|(_, &size)| size),
        )
    };
    let lhs_free = free(&lhs, &[&lhs_batch, &lhs_contract])?;
    let rhs_free = free(&rhs, &[&rhs_batch, &rhs_contract])?;
    product([2, product(batch)?, lhs_free, rhs_free, product(contract)?])
}

/// `2 * output elements * kernel spatial size * kernel input features`.
fn convolution(op: OperationRef<'_, '_>) -> Result<u64, String> {
    let input = shape(operand_type(op, 0)?, "input")?;
    let kernel = shape(operand_type(op, 1)?, "kernel")?;
    let output = elements(result_type(op, 0)?, "result")?;
    let numbers = op
        .attribute("dimension_numbers")
        .map_err(|_| "no `dimension_numbers`".to_owned())?
        .to_string();
    let layout = ConvDimensions::parse(&numbers)
        .map_err(|reason| format!("`dimension_numbers` {numbers}: {reason}"))?;
    let dim = |shape: &[u64], index: usize, what: &str| {
        shape.get(index).copied().ok_or_else(|| {
            format!(
                "{what} dimension {index} is out of range for rank {}",
                shape.len()
            )
        })
    };
    let kernel_in = dim(&kernel, layout.kernel_input_feature, "kernel input feature")?;
    let spatial = product(
        layout
            .kernel_spatial
            .iter()
            .map(|&index| dim(&kernel, index, "kernel spatial"))
            .collect::<Result<Vec<_>, _>>()?,
    )?;
    let groups = op
        .attribute("feature_group_count")
        .ok()
        .and_then(|attribute| IntegerAttribute::try_from(attribute).ok())
        .map_or(1, |attribute| attribute.value().max(1) as u64);
    let input_features = dim(&input, layout.input_feature, "input feature")?;
    if input_features != checked_mul(kernel_in, groups)? {
        return Err(format!(
            "input features ({input_features}) != kernel input features ({kernel_in}) * \
             feature_group_count ({groups})"
        ));
    }
    product([2, output, spatial, kernel_in])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{roles::find_function, IrContext};

    fn cost(body: &str, signature: &str) -> Result<CostReport, Diagnostic> {
        let source = format!(
            "\"func.func\"() <{{function_type = {signature}, sym_name = \"main\"}}> ({{\n{body}\n}}) : () -> ()\n"
        );
        let context = IrContext::new();
        let module = context.parse(&source, "t.mlir").expect("parses");
        flops(find_function(&module, "main").expect("main"))
    }

    #[test]
    fn batched_matmul_and_add() {
        let body = "^bb0(%a: tensor<3x4x5xf32>, %b: tensor<3x5x6xf32>):\n  %0 = \"stablehlo.dot_general\"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>\n  %1 = \"stablehlo.add\"(%0, %0) : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<3x4x6xf32>\n  \"func.return\"(%1) : (tensor<3x4x6xf32>) -> ()";
        let report = cost(
            body,
            "(tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>",
        )
        .expect("counts");
        assert_eq!(report.ops["stablehlo.dot_general"].flops, 2 * 3 * 4 * 6 * 5);
        assert_eq!(report.ops["stablehlo.add"].flops, 72);
        assert_eq!(report.total, 720 + 72);
    }

    #[test]
    fn dynamic_shape_is_a_diagnostic() {
        let body = "^bb0(%a: tensor<?xf32>):\n  %0 = \"stablehlo.exponential\"(%a) : (tensor<?xf32>) -> tensor<?xf32>\n  \"func.return\"(%0) : (tensor<?xf32>) -> ()";
        let error = cost(body, "(tensor<?xf32>) -> tensor<?xf32>").unwrap_err();
        assert_eq!(error.location, "t.mlir:3:8");
        assert!(error.message.contains("dynamic shape"), "{error}");
    }
}
