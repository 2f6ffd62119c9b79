//! `--zkdv-dce`: dead-code elimination.
//!
//! Erases every op whose results are all unused and which is pure by the
//! side-effect model of [`crate::effects`] (so an op with regions goes only
//! when everything inside it is pure), except terminators. Works everywhere
//! in the module, inside nested regions (`while` bodies, reductions) too.
//!
//! Algorithm: a worklist, seeded with every op in pre-order and popped from
//! the back (so users are usually visited before their definers). Erasing an
//! op re-queues the ops that define its operands, which may have just lost
//! their last use; nothing is rescanned.
//!
//! Preconditions: the module parsed. Nothing else; unknown ops are kept.
//!
//! Invariants: only ops whose results have no uses are erased, so every
//! remaining use still has its definition; function signatures, function
//! arguments, terminators, impure ops and functions themselves (even unused
//! private ones: that is `--zkdv-inline`'s job) are never touched. Erasing an
//! op with regions erases its nested ops; they are recorded so the worklist
//! never visits a freed op. The pass never fails.

use std::collections::HashSet;

use melior::ir::{operation::OperationLike, Module, OperationRef};

use crate::{
    effects::{is_pure, is_terminator},
    ir::collect_nested_ops,
    rewrite::{defining_op, erase, results_unused},
    PassError, PassOptions,
};

/// Runs DCE on the whole module.
pub fn run(module: &Module<'_>, _options: &mut PassOptions) -> Result<(), PassError> {
    eliminate_dead_code(module);
    Ok(())
}

/// Erases dead pure ops; returns how many ops were erased (nested ops of an
/// erased op included).
pub fn eliminate_dead_code(module: &Module<'_>) -> usize {
    let mut worklist = collect_nested_ops(module.as_operation());
    let mut queued: HashSet<usize> = worklist.iter().map(key).collect();
    // Ops freed so far, by address. No op is created during the pass, so a
    // freed op's address never comes back as a live op.
    let mut erased: HashSet<usize> = HashSet::new();
    while let Some(op) = worklist.pop() {
        queued.remove(&key(&op));
        if erased.contains(&key(&op)) || !is_dead(&op) {
            continue;
        }
        let nested = collect_nested_ops(op);
        // Definers of the operands of `op` and of its nested ops (a region may
        // use values from outside).
        let definers: Vec<OperationRef<'_, '_>> = std::iter::once(op)
            .chain(nested.iter().copied())
            .flat_map(|user| user.operands().filter_map(defining_op).collect::<Vec<_>>())
            .collect();
        erased.insert(key(&op));
        erased.extend(nested.iter().map(key));
        // SAFETY: `op`, its results and its nested ops are recorded in
        // `erased` and never used again; its results are unused (`is_dead`).
        unsafe { erase(op) };
        for definer in definers {
            if !erased.contains(&key(&definer)) && queued.insert(key(&definer)) {
                worklist.push(definer);
            }
        }
    }
    erased.len()
}

/// An op's identity: its address.
fn key(op: &OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

fn is_dead(op: &OperationRef<'_, '_>) -> bool {
    results_unused(op) && !is_terminator(op) && is_pure(op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ir::print_generic, IrContext};

    #[test]
    fn erases_dead_chains_and_counts_nested_ops() {
        let source = r#""func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f"}> ({
^bb0(%x: tensor<f32>):
  %0 = "stablehlo.add"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.reduce"(%0, %x) <{dimensions = array<i64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"(%x) : (tensor<f32>) -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(source, "d.mlir").expect("parses");
        // The reduce, its two nested ops, then the add it used.
        assert_eq!(eliminate_dead_code(&module), 4);
        context.verify(&module).expect("verifies");
        let text = print_generic(&module).unwrap();
        assert!(!text.contains("stablehlo."), "{text}");
        // A second run finds nothing.
        assert_eq!(eliminate_dead_code(&module), 0);
    }
}
