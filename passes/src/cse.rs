//! `--zkdv-cse`: common-subexpression elimination.
//!
//! Within each block, an op is replaced by an earlier op of the same block
//! that computes the same thing: every use of its results is redirected to
//! the earlier op's results, and it is erased. Two ops compute the same thing
//! when both are pure ([`crate::effects::is_pure`]), have no regions and at
//! least one result, take the same operands (the same SSA values, in order)
//! and print the same in generic form without locations and value names,
//! i.e. they have the same name, attributes, properties and operand and
//! result types. (Properties of unregistered StableHLO ops cannot be listed
//! through the C API, so the printed op is the comparison key; each op is
//! printed once, as a detached copy, so the pass stays linear in the module
//! size.)
//!
//! Scope: one block at a time, in program order, so the earlier op dominates
//! the later one; nothing is merged across blocks or regions (an op in a
//! `while` body is not merged with one outside). Ops with regions are never
//! merged.
//!
//! Preconditions: the module parsed. Invariants: only pure ops are erased,
//! each after all uses of its results moved to an identical earlier op of
//! the same block; the surviving op keeps its location. The pass never fails.

use std::collections::{hash_map::Entry, HashMap};

use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationPrintingFlags},
    Module, OperationRef, RegionLike, ValueLike,
};

use crate::{
    effects::is_pure,
    ir::collect_nested_ops,
    rewrite::{clone_op, erase, replace_all_uses},
    PassError, PassOptions,
};

/// Runs CSE on the whole module.
pub fn run(module: &Module<'_>, _options: &mut PassOptions) -> Result<(), PassError> {
    eliminate_common_subexpressions(module);
    Ok(())
}

/// Merges identical pure ops block by block; returns how many were erased.
pub fn eliminate_common_subexpressions(module: &Module<'_>) -> usize {
    // Collect every block first: erasing a region-free op never frees a block.
    let mut blocks = Vec::new();
    let root = module.as_operation();
    for op in std::iter::once(root).chain(collect_nested_ops(root)) {
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                blocks.push(current);
                block = current.next_in_region();
            }
        }
    }
    let mut erased = 0;
    for block in blocks {
        let mut ops = Vec::new();
        let mut next = block.first_operation();
        while let Some(op) = next {
            ops.push(op);
            next = op.next_in_block();
        }
        erased += merge_in_block(&ops);
    }
    erased
}

/// What makes two candidate ops equal: their operands and their printed text.
#[derive(PartialEq, Eq, Hash)]
struct Key {
    operands: Vec<usize>,
    text: String,
}

fn merge_in_block(ops: &[OperationRef<'_, '_>]) -> usize {
    let mut seen: HashMap<Key, OperationRef<'_, '_>> = HashMap::new();
    let mut erased = 0;
    for op in ops {
        let Some(key) = key(op) else { continue };
        match seen.entry(key) {
            Entry::Vacant(entry) => {
                entry.insert(*op);
            }
            Entry::Occupied(entry) => {
                let earlier = entry.get();
                for (result, replacement) in op.results().zip(earlier.results()) {
                    replace_all_uses(result, replacement);
                }
                // SAFETY: `op` has no regions and its results have no uses
                // any more; `ops` holds it once and is not read again at it.
                unsafe { erase(*op) };
                erased += 1;
            }
        }
    }
    erased
}

/// The comparison key of a candidate op, `None` if it may not be merged.
fn key(op: &OperationRef<'_, '_>) -> Option<Key> {
    if op.region_count() != 0 || op.result_count() == 0 || !is_pure(op) {
        return None;
    }
    // Print a detached copy: printing an op in place numbers every value of
    // its enclosing function first (quadratic over a block), while a copy
    // without a parent is printed on its own, in time linear in its size
    // (operands defined outside it print as placeholders). Local scope keeps
    // attribute alias definitions out of the text.
    let flags = OperationPrintingFlags::new()
        .print_generic_operation_form()
        .use_local_scope();
    let text = clone_op(op).to_string_with_flags(flags).ok()?;
    let operands = op
        .operands()
        .map(|value| value.to_raw().ptr as usize)
        .collect();
    Some(Key {
        operands,
        text: without_value_names(&text)?,
    })
}

/// The generic text of a region-free op without its result and operand
/// names, which differ between any two ops: `%3 = "a.b"(%1, %2) <{p}> {d} :
/// (T, T) -> T` becomes `"a.b" <{p}> {d} : (T, T) -> T` (the operand list is
/// the first `(...)` after the quoted name and holds only value names).
/// `None` if the text is not shaped like that.
fn without_value_names(text: &str) -> Option<String> {
    let name_start = text.find('"')?;
    let name_end = name_start + 1 + text[name_start + 1..].find('"')?;
    let rest = &text[name_end + 1..];
    let rest = rest.strip_prefix('(')?;
    let rest = &rest[rest.find(')')? + 1..];
    Some(format!("{}{rest}", &text[name_start..=name_end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ir::print_generic, IrContext};

    #[test]
    fn merges_duplicates_once_and_is_idempotent() {
        let source = r#""func.func"() <{function_type = (tensor<f32>) -> (tensor<f32>, tensor<f32>), sym_name = "f"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.exponential"(%x) : (tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.exponential"(%x) : (tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.log"(%0) : (tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.log"(%1) : (tensor<f32>) -> tensor<f32>
  "func.return"(%2, %3) : (tensor<f32>, tensor<f32>) -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(source, "c.mlir").expect("parses");
        assert_eq!(eliminate_common_subexpressions(&module), 2);
        context.verify(&module).expect("verifies");
        let text = print_generic(&module).unwrap();
        assert!(text.contains(r#""func.return"(%1, %1)"#), "{text}");
        assert_eq!(eliminate_common_subexpressions(&module), 0);
    }

    #[test]
    fn strips_value_names_from_generic_text() {
        assert_eq!(
            without_value_names(
                r#"%3:2 = "stablehlo.foo"(%arg0, %1#1) <{s = "(x)"}> {d} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)"#
            )
            .as_deref(),
            Some(r#""stablehlo.foo" <{s = "(x)"}> {d} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)"#)
        );
        assert_eq!(
            without_value_names(r#"%0 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>"#).as_deref(),
            Some(r#""stablehlo.constant" <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>"#)
        );
        assert_eq!(without_value_names("garbage"), None);
    }
}
