//! `--zkdv-guard-leaves`: compute only the challenged leaves' work in a check.
//!
//! The attested function built by [`crate::slice_update`] returns the delta
//! coordinate and the post-optimizer-state coordinate through two chains of
//! scalar selects, one link per leaf: `select(in_range(leaf), value(leaf),
//! rest)`. After [`crate::push_select`], `value(leaf)` costs little by
//! itself, but the work behind it (a layer's backward pass, its optimizer
//! update) still runs for every leaf on every check, although one check reads
//! one delta leaf and one state leaf. This pass puts that work under
//! `stablehlo.if` guards, so a check runs only what its two leaves need.
//!
//! Each link's `value` is a *target*. For every op of the function's entry
//! block, the pass computes the set of targets whose backward slice contains
//! it (values captured by nested regions count as uses). Then
//!
//! - ops needed by the selects' own spine (the range conditions, the index
//!   arithmetic, the chains themselves) or by every target stay where they
//!   are;
//! - the other ops are grouped by their target set `S`; each group moves
//!   into the `then` region of one `stablehlo.if` whose predicate is the `or`
//!   of the range conditions of `S`, and whose results replace the group's
//!   values outside it (the `else` region yields zeros, which no executed
//!   op reads: a consumer outside the group needs a subset of `S`, so it runs
//!   only when the group ran, or it is a chain select that picks another
//!   link).
//!
//! Each guard carries `zkdv.delta_leaves` and `zkdv.state_leaves`
//! (`array<i64>`: the link numbers of its target set, counted from the first
//! leaf), and the function `zkdv.leaf_counts = array<i64: deltas, states>`,
//! which `--zkdv-cost-report` reads to report the FLOPs of one check
//! averaged over the leaves.
//!
//! Option: `func=NAME` (default `zkdv_attested`; with
//! `--zkdv-slice-update=output=attested` it is `main`).
//!
//! Preconditions: the function's results are the two select chains of
//! `--zkdv-slice-update` (a result that is not a chain contributes no
//! targets); the function has not been guarded already. A function with
//! fewer than two targets, or whose every op is needed by all targets, is
//! left unchanged.
//!
//! Invariants: results are bitwise the same for every index value (the same
//! ops compute the same values; only whether they run changes). The IR is
//! read completely, then rewritten: the ops that consume guarded values (the
//! chains) move to just before the return, keeping their order, and the
//! guards are inserted before them, larger target sets first, so every value
//! is defined before its uses (an op needed by targets `S` only uses values
//! needed by a superset of `S`).

use std::collections::{BTreeMap, HashMap};

use melior::ir::{
    attribute::DenseI64ArrayAttribute,
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationMutLike},
    r#type::{RankedTensorType, ShapedTypeLike},
    Attribute, Block, BlockRef, Identifier, Location, Module, OperationRef, Region, RegionLike,
    Type, Value, ValueLike,
};

use crate::{
    abi::attested_function,
    ir::{collect_nested_ops, op_name, Diagnostic, Diagnostics},
    rewrite::{defining_op, move_before, parent_op, set_operand, uses},
    PassError, PassOptions,
};

use crate::abi::{DELTA_LEAVES_ATTR, LEAF_COUNTS_ATTR, STATE_LEAVES_ATTR};

fn fail(diagnostic: Diagnostic) -> PassError {
    PassError::Failed(Diagnostics(vec![diagnostic]))
}

fn key(op: &OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

/// A fixed-size set of target numbers.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct TargetSet(Vec<u64>);

impl TargetSet {
    fn new(n: usize) -> Self {
        TargetSet(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, t: usize) -> bool {
        let (word, bit) = (t / 64, 1u64 << (t % 64));
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }
    fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    fn members(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| i * 64 + b)
        })
    }
}

/// One link of a select chain.
struct Target<'c, 'a> {
    /// 0 for the delta chain, 1 for the state chain.
    chain: usize,
    /// Link number from the first leaf.
    link: usize,
    condition: Value<'c, 'a>,
    value: Value<'c, 'a>,
}

/// Runs the pass; see the module documentation.
pub fn run(module: &Module<'_>, options: &mut PassOptions) -> Result<(), PassError> {
    let name = options.values.text("func").unwrap_or(crate::abi::ATTESTED);
    let func = attested_function(module, name, "zkdv-guard-leaves")?;
    guard(module, func)
}

/// Guards the entry block of `func` (see the module documentation).
fn guard(module: &Module<'_>, func: OperationRef<'_, '_>) -> Result<(), PassError> {
    // `to_ref` reinterprets the `ContextRef` value itself as a `Context`, so
    // the `ContextRef` must outlive every use of the reference: keep it in a
    // local for the whole pass (a temporary would dangle at the end of the
    // statement; cargo fuzz's AddressSanitizer caught exactly that).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives every module parsed in it, and so every attribute and
    // type built here.
    let context = unsafe { context_ref.to_ref() };
    if func.attribute(LEAF_COUNTS_ATTR).is_ok() {
        return Err(fail(Diagnostic::error_at(
            &func,
            "--zkdv-guard-leaves: this function is guarded already",
        )));
    }
    let Some(block) = func.region(0).ok().and_then(|region| region.first_block()) else {
        return Err(fail(Diagnostic::error_at(
            &func,
            "--zkdv-guard-leaves: the function has no body",
        )));
    };
    let Some(ret) = block.terminator().filter(|op| op_name(op) == "func.return") else {
        return Err(fail(Diagnostic::error_at(
            &func,
            "--zkdv-guard-leaves: the function does not end with `func.return`",
        )));
    };

    // 1. Read: the block's ops, the chains, the target sets.
    let mut ops = Vec::new();
    let mut position = HashMap::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        position.insert(key(&op), ops.len());
        ops.push(op);
        next = op.next_in_block();
    }
    let func_key = key(&func);
    // The entry-block op that contains `op` (itself when top-level).
    let top_level = |op: OperationRef<'_, '_>| -> Option<usize> {
        let mut current = op;
        loop {
            let parent = parent_op(&current)?;
            if key(&parent) == func_key {
                return position.get(&key(&current)).copied();
            }
            current = parent;
        }
    };

    let mut targets: Vec<Target> = Vec::new();
    let mut chain_selects = Vec::new();
    let mut counts = [0usize; 2];
    for (chain, result) in ret.operands().take(2).enumerate() {
        let mut links = Vec::new();
        let mut value = result;
        while let Some(select) = defining_op(value).filter(|op| is_chain_select(op, context)) {
            let (Ok(condition), Ok(picked), Ok(rest)) =
                (select.operand(0), select.operand(1), select.operand(2))
            else {
                break;
            };
            chain_selects.push(key(&select));
            links.push((condition, picked));
            value = rest;
        }
        counts[chain] = links.len();
        // the chain is built from the last leaf backwards
        for (link, (condition, value)) in links.into_iter().rev().enumerate() {
            targets.push(Target {
                chain,
                link,
                condition,
                value,
            });
        }
    }
    if targets.len() < 2 {
        return Ok(());
    }

    // Entry-block ops whose values `op` reads, nested regions included.
    let dependencies = |op: OperationRef<'_, '_>| -> Vec<usize> {
        let mut out = Vec::new();
        for inner in std::iter::once(op).chain(collect_nested_ops(op)) {
            for operand in inner.operands() {
                if let Some(definer) = defining_op(operand) {
                    if let Some(p) = position.get(&key(&definer)) {
                        out.push(*p);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    };
    let deps: Vec<Vec<usize>> = ops.iter().map(|&op| dependencies(op)).collect();

    let mut need = vec![TargetSet::new(targets.len()); ops.len()];
    for (t, target) in targets.iter().enumerate() {
        let mut stack: Vec<usize> = defining_op(target.value)
            .and_then(|op| position.get(&key(&op)).copied())
            .into_iter()
            .collect();
        while let Some(p) = stack.pop() {
            if need[p].insert(t) {
                stack.extend(&deps[p]);
            }
        }
    }
    // The spine: what the return needs without entering a link's value.
    let mut spine = vec![false; ops.len()];
    let mut stack = vec![position[&key(&ret)]];
    while let Some(p) = stack.pop() {
        if std::mem::replace(&mut spine[p], true) {
            continue;
        }
        if chain_selects.contains(&key(&ops[p])) {
            for index in [0, 2] {
                if let Some(d) = ops[p]
                    .operand(index)
                    .ok()
                    .and_then(defining_op)
                    .and_then(|op| position.get(&key(&op)).copied())
                {
                    stack.push(d);
                }
            }
        } else {
            stack.extend(&deps[p]);
        }
    }

    let everyone = targets.len();
    let mut groups: BTreeMap<TargetSet, Vec<usize>> = BTreeMap::new();
    let mut grouped = vec![false; ops.len()];
    for p in 0..ops.len() {
        let size = need[p].len();
        if spine[p] || size == 0 || size == everyone {
            continue;
        }
        grouped[p] = true;
        groups.entry(need[p].clone()).or_default().push(p);
    }
    if groups.is_empty() {
        return Ok(());
    }
    // Ops that consume guarded values (transitively) move behind the guards.
    let mut tail = vec![false; ops.len()];
    for p in 0..ops.len() {
        if !grouped[p] && deps[p].iter().any(|&d| grouped[d] || tail[d]) {
            tail[p] = true;
        }
    }
    // Every guarded value and where it is used outside its group.
    let mut plans = Vec::new();
    for (set, members) in &groups {
        let mut outputs = Vec::new();
        for &p in members {
            for result in ops[p].results() {
                let external: Vec<_> = uses(result)
                    .into_iter()
                    .filter(|(owner, _)| {
                        top_level(*owner).is_none_or(|q| !(grouped[q] && need[q] == *set))
                    })
                    .collect();
                if external.is_empty() {
                    continue;
                }
                let r#type = result.r#type();
                if RankedTensorType::try_from(r#type)
                    .ok()
                    .filter(|t| t.has_static_shape())
                    .is_none()
                {
                    // A guard yields zeros in its else region, which needs a
                    // static tensor type; leave such a function alone.
                    return Ok(());
                }
                outputs.push((Value::from(result), external));
            }
        }
        plans.push((set.clone(), members.clone(), outputs));
    }
    // Larger sets first (their values feed smaller ones).
    plans.sort_by_key(|(set, members, _)| (std::cmp::Reverse(set.len()), members[0]));

    // 2. Rewrite.
    let location = func.location();
    let ret_position = position[&key(&ret)];
    let moved: Vec<usize> = (0..ops.len())
        .filter(|&p| tail[p] && p != ret_position)
        .collect();
    for &p in &moved {
        move_before(&ops[p], &ret);
    }
    let anchor = moved.first().map_or(ret, |&p| ops[p]);
    let emitter = Emitter {
        location,
        block: &block,
        before: anchor,
    };
    for (set, members, outputs) in plans {
        let mut predicate: Option<Value> = None;
        for t in set.members() {
            let condition = targets[t].condition;
            predicate = Some(match predicate {
                None => condition,
                Some(acc) => emitter.op("stablehlo.or", &[acc, condition], condition.r#type())?,
            });
        }
        let Some(predicate) = predicate else { continue };
        let types: Vec<Type> = outputs.iter().map(|(value, _)| value.r#type()).collect();
        let values: Vec<Value> = outputs.iter().map(|(value, _)| *value).collect();

        let then_block = Block::new(&[]);
        let then_return = then_block.append_operation(
            OperationBuilder::new("stablehlo.return", location)
                .add_operands(&values)
                .build()
                .map_err(|e| fail(Diagnostic::error_at(&func, e.to_string())))?,
        );
        let else_block = Block::new(&[]);
        let mut zeros = Vec::new();
        for r#type in &types {
            let constant = else_block.append_operation(zero_constant(context, location, *r#type)?);
            zeros.push(
                constant
                    .result(0)
                    .map_err(|e| fail(Diagnostic::error_at(&func, e.to_string())))?
                    .into(),
            );
        }
        else_block.append_operation(
            OperationBuilder::new("stablehlo.return", location)
                .add_operands(&zeros)
                .build()
                .map_err(|e| fail(Diagnostic::error_at(&func, e.to_string())))?,
        );
        let then_region = Region::new();
        then_region.append_block(then_block);
        let else_region = Region::new();
        else_region.append_block(else_block);
        let links = |chain: usize| -> Attribute {
            let list: Vec<i64> = set
                .members()
                .filter(|&t| targets[t].chain == chain)
                .map(|t| targets[t].link as i64)
                .collect();
            DenseI64ArrayAttribute::new(context, &list).into()
        };
        let guard = OperationBuilder::new("stablehlo.if", location)
            .add_operands(&[predicate])
            .add_results(&types)
            .add_attributes(&[
                (Identifier::new(context, DELTA_LEAVES_ATTR), links(0)),
                (Identifier::new(context, STATE_LEAVES_ATTR), links(1)),
            ])
            .add_regions_vec(vec![then_region, else_region])
            .build()
            .map_err(|e| fail(Diagnostic::error_at(&func, e.to_string())))?;
        let guard = block.insert_operation_before(anchor, guard);
        for &p in &members {
            move_before(&ops[p], &then_return);
        }
        for (index, (_, external)) in outputs.iter().enumerate() {
            let result = guard
                .result(index)
                .map_err(|e| fail(Diagnostic::error_at(&func, e.to_string())))?;
            for (owner, operand) in external {
                set_operand(owner, *operand, result);
            }
        }
    }
    let mut func = func;
    let counts: Vec<i64> = counts.iter().map(|&n| n as i64).collect();
    set_attribute(
        &mut func,
        LEAF_COUNTS_ATTR,
        DenseI64ArrayAttribute::new(context, &counts).into(),
    );
    Ok(())
}

fn set_attribute<'c>(func: &mut OperationRef<'c, '_>, name: &str, value: Attribute<'c>) {
    // An `OperationRef` is a shared handle; melior only offers mutation on
    // `OperationRefMut`, which is the same pointer.
    // SAFETY: `func` is live and no Rust borrow of its attributes is held.
    let mut op = unsafe { melior::ir::operation::OperationRefMut::from_raw(func.to_raw()) };
    op.set_attribute(name, value);
}

/// Whether `op` is a link of a select chain: a `stablehlo.select` of a
/// scalar `i1` condition and scalar values.
fn is_chain_select(op: &OperationRef<'_, '_>, context: &melior::Context) -> bool {
    if op_name(op) != "stablehlo.select" || op.operand_count() != 3 {
        return false;
    }
    let scalar_of = |value: Value, element: Option<Type>| {
        RankedTensorType::try_from(value.r#type())
            .ok()
            .is_some_and(|t| t.rank() == 0 && element.is_none_or(|e| t.element() == e))
    };
    let i1: Type = melior::ir::r#type::IntegerType::new(context, 1).into();
    match (op.operand(0), op.operand(1), op.operand(2)) {
        (Ok(c), Ok(a), Ok(b)) => scalar_of(c, Some(i1)) && scalar_of(a, None) && scalar_of(b, None),
        _ => false,
    }
}

/// `stablehlo.constant` of zeros of a static tensor type.
fn zero_constant<'c>(
    context: &'c melior::Context,
    location: Location<'c>,
    r#type: Type<'c>,
) -> Result<melior::ir::Operation<'c>, PassError> {
    let tensor = RankedTensorType::try_from(r#type).map_err(|_| {
        fail(Diagnostic::error(
            "<guard>",
            format!("a guarded value of type {type} is not a ranked tensor"),
        ))
    })?;
    let element = tensor.element();
    let zero = if melior::ir::r#type::TypeLike::is_integer(&element) {
        if element == melior::ir::r#type::IntegerType::new(context, 1).into() {
            "false"
        } else {
            "0"
        }
    } else {
        "0.000000e+00"
    };
    let text = format!("dense<{zero}> : {type}");
    let value = Attribute::parse(context, &text).ok_or_else(|| {
        fail(Diagnostic::error(
            "<guard>",
            format!("cannot build the zero constant `{text}`"),
        ))
    })?;
    OperationBuilder::new("stablehlo.constant", location)
        .add_results(&[r#type])
        .add_attributes(&[(Identifier::new(context, "value"), value)])
        .build()
        .map_err(|e| fail(Diagnostic::error("<guard>", e.to_string())))
}

/// Emits ops before one op of one block.
struct Emitter<'c, 'a, 'b> {
    location: Location<'c>,
    block: &'b BlockRef<'c, 'a>,
    before: OperationRef<'c, 'a>,
}

impl<'c, 'a> Emitter<'c, 'a, '_> {
    fn op(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, PassError> {
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&[result])
            .build()
            .map_err(|e| fail(Diagnostic::error_at(&self.before, format!("{name}: {e}"))))?;
        let op = self.block.insert_operation_before(self.before, op);
        op.result(0)
            .map(Into::into)
            .map_err(|e| fail(Diagnostic::error_at(&self.before, format!("{name}: {e}"))))
    }
}
