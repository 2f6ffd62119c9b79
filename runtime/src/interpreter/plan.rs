//! The plans the interpreter makes once per block and op and reuses on
//! every run ([`PlanCache`]): a block's ops as an array with their operand
//! and result values and last uses, each op's result types, constant value,
//! decoded attributes ([`crate::ops::decoded`]), buffer reuse and family (from
//! the op table, [`crate::ops::table`]).

use super::*;
use crate::ops::decoded::{self, Decoded};

/// What the interpreter learns about a module once and reuses on every run:
/// for each block, after which op each value dies; for each op, its name,
/// its declared result types and, for a constant, the decoded value.
///
/// Keys are raw MLIR pointers, so a cache belongs to one parsed module and
/// must not outlive it ([`crate::Program`] keeps the two together).
#[derive(Default)]
pub struct PlanCache {
    pub(super) blocks: RefCell<AddressMap<usize, Rc<BlockPlan>>>,
    /// The `func.func` each `func.call` or `stablehlo.composite` runs, by
    /// the calling op.
    pub(super) callees: RefCell<AddressMap<usize, mlir_sys::MlirOperation>>,
    /// Printed attribute texts ([`attrs::text`] reads them while a run is
    /// going).
    pub(super) attrs: Rc<attrs::AttrTexts>,
}

impl std::fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanCache")
            .field("blocks", &self.blocks.borrow().len())
            .finish()
    }
}

/// The cached facts about one block: its argument values, and its ops in
/// order, each with its plan and the values whose last use it is (uses
/// inside nested regions count for the op that holds them). A run walks
/// this array instead of MLIR's list of ops.
pub(super) struct BlockPlan {
    pub(super) arguments: Vec<*const c_void>,
    pub(super) steps: Vec<Step>,
}

/// One op of a [`BlockPlan`].
pub(super) struct Step {
    pub(super) op: mlir_sys::MlirOperation,
    pub(super) plan: OpPlan,
    pub(super) dies: Vec<*const c_void>,
}

/// The cached facts about one op.
pub(super) struct OpPlan {
    pub(super) name: String,
    pub(super) results: Result<Vec<TensorType>, ValueError>,
    /// The value of a `stablehlo.constant`.
    pub(super) constant: Option<Result<Tensor, ValueError>>,
    /// The family that evaluates the op ([`ops::table`]), resolved once.
    pub(super) family: Option<Family>,
    /// Whether NaN results are made canonical: the op computes new floats
    /// ([`Props::NEW_FLOATS`]), so NaN bits would depend on the
    /// architecture or the compiler's operand order.
    pub(super) canonical_nans: bool,
    /// Whether the op is a terminator (`func.return`, `stablehlo.return`).
    pub(super) terminator: bool,
    /// Whether the interpreter runs the op itself ([`Exec::structural`]).
    pub(super) structural: bool,
    /// The op's operand values (raw pointers), in order.
    pub(super) operands: Vec<*const c_void>,
    /// The op's result values (raw pointers), in order.
    pub(super) results_keys: Vec<*const c_void>,
    /// Whether the op may take the buffers of operands whose last use it is.
    pub(super) reuse: Reuse,
    /// Values that ops nested in the op's regions read (they stay in the
    /// frame while the op runs).
    pub(super) nested_uses: Vec<*const c_void>,
    /// The op with its attributes decoded, when it has a decoded form and
    /// its attributes decode (else its family runs it, which reports them);
    /// `None` for a constant without operands, whose value is
    /// [`OpPlan::constant`].
    pub(super) decoded: Option<Decoded>,
}

/// How an op can reuse the buffer of an operand that dies at it (one that
/// is defined in the running block, is used by nothing after the op and
/// appears once among its operands). Reuse never changes a result's bits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reuse {
    /// Always computes fresh results.
    None,
    /// Takes its operands as owned values (calls, loops, identities):
    /// dying operands are moved in, the others copied.
    Owned,
    /// `stablehlo.reshape`: a dying operand keeps its buffer, reshaped.
    Reshape,
    /// A float binary op computed into a dying operand
    /// ([`ops::binary_in_place`]).
    Binary(ops::BinaryOp),
}

/// The ops of [`Reuse::Owned`].
pub(super) const OWNED: &[&str] = &[
    "func.call",
    "stablehlo.optimization_barrier",
    "sdy.sharding_constraint",
    "sdy.reshard",
    "stablehlo.composite",
    "stablehlo.while",
];

impl<'c, 'a> Exec<'_, 'c, 'a> {
    /// The plan of `block`, made on its first run.
    pub(super) fn block_plan(&self, block: BlockRef<'c, 'a>) -> Rc<BlockPlan> {
        let key = block.to_raw().ptr as usize;
        if let Some(found) = self.cache.blocks.borrow().get(&key) {
            return Rc::clone(found);
        }
        let mut ops = Vec::new();
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            ops.push(op);
        }
        let mut last_use: HashMap<*const c_void, usize> = HashMap::new();
        for (index, op) in ops.iter().enumerate() {
            for operand in op.operands() {
                last_use.insert(operand.to_raw().ptr, index);
            }
            if op.region_count() > 0 {
                for inner in zkdv_ir::collect_nested_ops(*op) {
                    for operand in inner.operands() {
                        last_use.insert(operand.to_raw().ptr, index);
                    }
                }
            }
        }
        let mut dying: Vec<Vec<*const c_void>> = vec![Vec::new(); ops.len()];
        for (value, index) in last_use {
            dying[index].push(value);
        }
        let plan = Rc::new(BlockPlan {
            arguments: (0..block.argument_count())
                .filter_map(|i| block.argument(i).ok())
                .map(|argument| argument.to_raw().ptr)
                .collect(),
            steps: ops
                .iter()
                .zip(dying)
                .map(|(op, dies)| Step {
                    op: op.to_raw(),
                    plan: self.plan(op),
                    dies,
                })
                .collect(),
        });
        self.cache.blocks.borrow_mut().insert(key, Rc::clone(&plan));
        plan
    }

    /// The facts about `op` that every run reuses.
    pub(super) fn plan(&self, op: &OperationRef<'c, 'a>) -> OpPlan {
        let name = op_name(op);
        let constant = (name == "stablehlo.constant" && op.operand_count() == 0)
            .then(|| decoded::constant(op));
        let canonical_nans = ops_table::has(&name, Props::NEW_FLOATS)
            || (name.starts_with("chlo.") && name != "chlo.top_k");
        let reuse = if OWNED.contains(&name.as_str()) {
            Reuse::Owned
        } else {
            match (name.as_str(), decoded::binary_op(&name)) {
                ("stablehlo.reshape", _) => Reuse::Reshape,
                (_, Some(kind)) => Reuse::Binary(kind),
                _ => Reuse::None,
            }
        };
        OpPlan {
            operands: op.operands().map(|v| v.to_raw().ptr).collect(),
            results_keys: op.results().map(|v| v.to_raw().ptr).collect(),
            reuse,
            nested_uses: if op.region_count() > 0 {
                zkdv_ir::collect_nested_ops(*op)
                    .iter()
                    .flat_map(|inner| inner.operands().map(|v| v.to_raw().ptr))
                    .collect()
            } else {
                Vec::new()
            },
            decoded: match &constant {
                Some(_) => None,
                None => Decoded::decode(op, &name).and_then(Result::ok),
            },
            results: attrs::result_types(op),
            constant,
            terminator: name == "func.return" || name == "stablehlo.return" || name == "sdy.return",
            structural: ops_table::has(&name, Props::STRUCTURAL),
            family: ops::table::lookup(&name),
            name,
            canonical_nans,
        }
    }
}
