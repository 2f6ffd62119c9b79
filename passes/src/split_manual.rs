//! `--zkdv-split-manual`: one copy of a `jax.shard_map` body per result it
//! must compute, each computing only that result.
//!
//! A data-parallel `shard_map` step returns every leaf's averaged gradient
//! from one `sdy.manual_computation`. In an attested program that one op is
//! needed by every leaf, so `--zkdv-guard-leaves` cannot put a leaf's work
//! under its guard, and a check computes the whole backward pass on every
//! device. This pass gives each used result `i` of a manual computation with
//! several results its own copy of the op: the copy's `sdy.return` returns
//! zeros in place of the other results (unused outside), and the ops of its
//! body that no longer reach the return are erased, collectives included
//! (every device runs the same body, so dropping an unused collective
//! everywhere keeps the devices in step). Uses of result `i` move to the
//! copy, and the original is erased. A manual computation with one used
//! result is pruned in place the same way.
//!
//! What a copy erases from its body: ops without uses that are pure
//! ([`crate::effects::is_pure`]) or are collectives (`all_reduce`,
//! `all_gather`, `reduce_scatter`, `all_to_all`, `collective_permute`,
//! `collective_broadcast`) whose regions are pure, repeated until none is
//! left. A result whose type has no zero this pass can write (a token, a
//! complex or quantized element) is returned as before, so its work stays.
//!
//! Preconditions: none beyond a parsed module. Invariants: every used result
//! of a manual computation keeps its value (the copy runs the same ops on
//! the same operands; only work nothing reads is gone); operands, attributes
//! and shardings are copied unchanged; results nobody reads are zeros. The
//! IR is read first (the list of manual computations), then rewritten one op
//! at a time. The pass never fails.

use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        Attribute, BlockRef, Identifier, Module, OperationRef, RegionLike, Type, Value, ValueLike,
    },
    Context,
};

use crate::{
    effects::{is_pure, is_terminator},
    ir::{collect_nested_ops, op_name},
    rewrite::{clone_op, erase, is_unused, replace_all_uses, results_unused, set_operand},
    PassError, PassOptions,
};

/// The collectives a body may drop when nothing reads them.
const COLLECTIVES: &[&str] = &[
    "stablehlo.all_gather",
    "stablehlo.all_reduce",
    "stablehlo.all_to_all",
    "stablehlo.collective_broadcast",
    "stablehlo.collective_permute",
    "stablehlo.reduce_scatter",
];

/// Runs the pass on the whole module.
pub fn run(module: &Module<'_>, _options: &mut PassOptions) -> Result<(), PassError> {
    split_manual_computations(module);
    Ok(())
}

/// Splits and prunes every manual computation (see the module
/// documentation); returns how many copies were made.
pub fn split_manual_computations(module: &Module<'_>) -> usize {
    // Keep the context handle a named local for the whole pass (a temporary
    // would dangle at the end of the statement).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives every module parsed in it, and so every attribute and
    // type built here.
    let context = unsafe { context_ref.to_ref() };
    let manual: Vec<OperationRef<'_, '_>> = collect_nested_ops(module.as_operation())
        .into_iter()
        .filter(|op| op_name(op) == "sdy.manual_computation" && op.result_count() > 1)
        .collect();
    let mut copies = 0;
    for op in manual {
        let used: Vec<usize> = (0..op.result_count())
            .filter(|&i| op.result(i).is_ok_and(|result| !is_unused(result)))
            .collect();
        match used[..] {
            [] => {}
            [only] => keep_only(context, &op, only),
            _ => {
                let Some(block) = op.block() else { continue };
                for &i in &used {
                    let copy = block.insert_operation_before(op, clone_op(&op));
                    if let (Ok(old), Ok(new)) = (op.result(i), copy.result(i)) {
                        replace_all_uses(old, new);
                    }
                    keep_only(context, &copy, i);
                    copies += 1;
                }
                if results_unused(&op) {
                    // SAFETY: every result's uses moved to the copies, and no
                    // reference to `op` is used afterwards.
                    unsafe { erase(op) };
                }
            }
        }
    }
    copies
}

/// Makes `op`'s body return zeros in place of every result but `keep`, then
/// erases the body's ops that nothing reads any more.
fn keep_only(context: &Context, op: &OperationRef<'_, '_>, keep: usize) {
    let Some(body) = op.region(0).ok().and_then(|region| region.first_block()) else {
        return;
    };
    let mut last = body.first_operation();
    while let Some(next) = last.and_then(|op| op.next_in_block()) {
        last = Some(next);
    }
    let Some(ret) = last else { return };
    if op_name(&ret) != "sdy.return" {
        return;
    }
    for j in 0..ret.operand_count() {
        if j == keep {
            continue;
        }
        let Ok(value) = ret.operand(j) else { continue };
        let Some(zero) = zeros(context, &body, &ret, value.r#type()) else {
            continue;
        };
        set_operand(&ret, j, zero);
    }
    prune(&body);
}

/// A `stablehlo.constant` of zeros of `r#type` inserted before `before` in
/// `body`, or `None` when the type has no zero written here.
fn zeros<'c, 'a>(
    context: &'c Context,
    body: &BlockRef<'c, 'a>,
    before: &OperationRef<'c, 'a>,
    r#type: Type<'c>,
) -> Option<Value<'c, 'a>> {
    let text = r#type.to_string();
    let element = text
        .strip_prefix("tensor<")?
        .strip_suffix('>')?
        .rsplit('x')
        .next()?;
    let zero = match element {
        "i1" => "false",
        "f16" | "bf16" | "f32" | "f64" => "0.0",
        e if e.starts_with('i') || e.starts_with("ui") || e.starts_with("si") => "0",
        _ => return None,
    };
    let value = Attribute::parse(context, &format!("dense<{zero}> : {text}"))?;
    let constant = OperationBuilder::new("stablehlo.constant", before.location())
        .add_attributes(&[(Identifier::new(context, "value"), value)])
        .add_results(&[r#type])
        .build()
        .ok()?;
    let constant = body.insert_operation_before(*before, constant);
    constant.result(0).ok().map(Into::into)
}

/// Whether `op` may go from a manual computation's body when nothing reads
/// it.
fn removable(op: &OperationRef<'_, '_>) -> bool {
    if is_terminator(op) || !results_unused(op) {
        return false;
    }
    is_pure(op)
        || (COLLECTIVES.contains(&op_name(op).as_str())
            && collect_nested_ops(*op).iter().all(is_pure_or_terminator))
}

fn is_pure_or_terminator(op: &OperationRef<'_, '_>) -> bool {
    is_pure(op) || is_terminator(op)
}

/// Erases the removable ops of `body` until none is left.
fn prune(body: &BlockRef<'_, '_>) {
    loop {
        let mut dead = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if removable(&op) {
                dead.push(op);
            }
        }
        if dead.is_empty() {
            return;
        }
        for op in dead {
            // SAFETY: `op` has no uses (checked above, and erasing another
            // unused op cannot add uses); nothing refers to it afterwards.
            unsafe { erase(op) };
        }
    }
}
