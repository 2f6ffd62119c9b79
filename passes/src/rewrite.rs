//! Small IR-mutation helpers over the MLIR C API, shared by the rewriting
//! passes (`inline`, `dce`, `cse`).
//!
//! melior 0.27 lacks use queries, cloning of borrowed ops and erasure of ops
//! held by reference, so these wrap the `mlir-sys` calls. Every `unsafe`
//! block is confined here and says why it is sound. The helpers take melior
//! references ([`OperationRef`], values) that the caller got from a live
//! module; the erasing helpers are `unsafe` because afterwards every
//! reference to the erased op, its results or anything nested in it dangles.

use melior::ir::{operation::OperationLike, Operation, OperationRef, Value, ValueLike};

/// Whether `value` has no uses.
pub(crate) fn is_unused<'c>(value: impl ValueLike<'c>) -> bool {
    // SAFETY: `value` is a live value of a live module; the returned operand
    // handle is only tested for null.
    unsafe { mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(value.to_raw())) }
}

/// Whether no result of `op` has a use (true for ops without results).
pub(crate) fn results_unused<'c, 'a>(op: &OperationRef<'c, 'a>) -> bool {
    op.results().all(is_unused)
}

/// The op that defines `value`, or `None` for a block argument.
pub(crate) fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let raw = value.to_raw();
    // SAFETY: `value` is live; an op result's owner is a live op of the same
    // IR, so the reference has the value's lifetimes.
    unsafe {
        mlir_sys::mlirValueIsAOpResult(raw)
            .then(|| OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw)))
    }
}

/// Replaces every use of `of` with `with`.
pub(crate) fn replace_all_uses<'c>(of: impl ValueLike<'c>, with: impl ValueLike<'c>) {
    // SAFETY: both values are live values of the same context.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(of.to_raw(), with.to_raw()) }
}

/// A deep copy of `op` (regions included), not inserted anywhere. Operands
/// defined outside `op` still refer to the original values.
pub(crate) fn clone_op<'c>(op: &OperationRef<'c, '_>) -> Operation<'c> {
    // SAFETY: `op` is live; the clone is a new, unowned op, so taking
    // ownership of it is sound.
    unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) }
}

/// Moves `op` (out of its block, if any) to just before `before`.
pub(crate) fn move_before(op: &OperationRef<'_, '_>, before: &OperationRef<'_, '_>) {
    // SAFETY: both ops are live and `before` is in a block; MLIR unlinks `op`
    // from its current block first. No op is freed.
    unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), before.to_raw()) }
}

/// Unlinks `op` from its block (if any) and frees it with everything nested
/// in it.
///
/// # Safety
///
/// No reference to `op`, its results, its regions or any op nested in it may
/// be used afterwards, and its results must be unused (MLIR asserts it).
pub(crate) unsafe fn erase(op: OperationRef<'_, '_>) {
    // SAFETY: `op` is live; `mlirOperationDestroy` calls `Operation::erase`,
    // which unlinks it from its parent block first. The caller upholds the
    // rest.
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) }
}

/// Sets the type of `value` in place (e.g. a result of a cloned op that is
/// not inserted yet). The caller keeps the IR well-typed.
pub(crate) fn set_type<'c>(value: impl ValueLike<'c>, r#type: melior::ir::Type<'c>) {
    // SAFETY: both handles are live and belong to the same context; changing
    // a type frees nothing.
    unsafe {
        mlir_sys::mlirValueSetType(
            value.to_raw(),
            melior::ir::r#type::TypeLike::to_raw(&r#type),
        )
    }
}

/// Every use of `value`: the owning op and the operand position.
pub(crate) fn uses<'c, 'a>(value: impl ValueLike<'c>) -> Vec<(OperationRef<'c, 'a>, usize)> {
    let mut out = Vec::new();
    // SAFETY: `value` is live; each operand handle comes from its use list
    // and is read before the next one is fetched; nothing is mutated. The
    // owner of a use is a live op of the same IR.
    unsafe {
        let mut operand = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !mlir_sys::mlirOpOperandIsNull(operand) {
            let owner = OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(operand));
            let index = mlir_sys::mlirOpOperandGetOperandNumber(operand) as usize;
            out.push((owner, index));
            operand = mlir_sys::mlirOpOperandGetNextUse(operand);
        }
    }
    out
}

/// Sets operand `index` of `op` to `value` (the caller keeps types equal and
/// `value` dominating `op`).
pub(crate) fn set_operand<'c>(op: &OperationRef<'c, '_>, index: usize, value: impl ValueLike<'c>) {
    // SAFETY: both handles are live; `index` is a valid operand position
    // (the caller got it from `uses` or the op's operand count).
    unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), index as isize, value.to_raw()) }
}

/// The op that contains `op` (through its block and region), if any.
pub(crate) fn parent_op<'c, 'a>(op: &OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: `op` is live; a non-null parent is a live op of the same IR.
    unsafe {
        let parent = mlir_sys::mlirOperationGetParentOperation(op.to_raw());
        (!parent.ptr.is_null()).then(|| OperationRef::from_raw(parent))
    }
}
