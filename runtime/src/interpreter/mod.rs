//! The evaluation loop: runs one `func.func` of a parsed generic-form
//! StableHLO module on host tensors.
//!
//! A block runs its ops in order in a frame: a map from MLIR values
//! (keyed by their raw pointer, stable while the module lives) to tensors,
//! chained to the frame of the enclosing region so that region bodies can
//! read values defined outside them (as `while`, `if` and `case` bodies do).
//! A value is dropped from its frame right after its last use, so buffers
//! are freed as soon as nothing reads them; an op may instead take over the
//! buffer of an operand whose last use it is (in-place float
//! arithmetic, `reshape`, calls and loops moving their arguments in). What
//! a block needs on every run (its ops as an array, each op's operand and
//! result values, last uses, result types, and the ops that have a
//! decoded form with their attributes decoded) is worked out on its first run and kept in the
//! [`PlanCache`].
//!
//! Each op runs through the family the op table names for it
//! ([`crate::ops::table`], resolved when the block's plan is made; the ops
//! with a decoded form, [`crate::ops::decoded`], run from it directly); the
//! interpreter itself runs the structural ops: `func.call` (the callee found by symbol in the
//! enclosing module), `stablehlo.while`, `if`, `case`,
//! `optimization_barrier` and `composite` (through its decomposition), and
//! the Shardy layout hints `sdy.sharding_constraint` and `sdy.reshard` as
//! identities (a replay runs on one host whatever the step's mesh), and
//! Shardy's `sdy.manual_computation` (a `jax.shard_map` body) once per
//! device of its manual axes ([`crate::manual`]).
//! Families see an op's regions through [`Regions`] as [`Body`] values that
//! call back into the interpreter, with a fast path for bodies that are a
//! single binary op.
//!
//! The first op outside the supported set stops the run with
//! [`RuntimeError::Unsupported`], naming the op and its location.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::rc::Rc;

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, OperationRef, RegionLike, ValueLike};
use zkdv_ir::ops::{self as ops_table, Props};
use zkdv_ir::{format_location, op_name};

use crate::attrs::{self, AddressMap};
use crate::ops::{self, Body, Combiner, Family, OpError, Regions};
use crate::value::{Data, Tensor, TensorType, ValueError};
use crate::{Backend, HostTensor, RuntimeError};

mod plan;
mod regions;

pub use plan::PlanCache;
use plan::{OpPlan, Reuse, OWNED};
use regions::OpRegions;

/// What an extension hook answers for an op the core does not know: `None`
/// to decline (the op is then unsupported), or the op's results.
pub type HookResult = Option<Result<Vec<Tensor>, RuntimeError>>;

/// Nested calls and regions deeper than this are an error (recursion).
const MAX_DEPTH: usize = 256;

/// The CPU reference interpreter.
#[derive(Debug, Default, Clone, Copy)]
pub struct Interpreter;

impl Interpreter {
    /// Runs `func` (a `func.func`) on `inputs`, one per argument, and returns
    /// the operands of its `func.return`.
    pub fn run<'c, 'a>(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: &[HostTensor],
    ) -> Result<Vec<HostTensor>, RuntimeError> {
        let inputs = inputs
            .iter()
            .enumerate()
            .map(|(index, host)| {
                Tensor::from_host(host).map_err(|error| RuntimeError::Input {
                    index,
                    message: error.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.run_with(func, inputs, &mut |_, _| None)?
            .iter()
            .map(Tensor::to_host)
            .collect()
    }

    /// Like [`Interpreter::run`] on interpreter tensors, offering every op
    /// outside the supported set to `hook` first (the conformance runner
    /// evaluates `check.*` ops this way).
    pub fn run_with<'c, 'a>(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        hook: &mut dyn FnMut(&OperationRef<'c, 'a>, &[&Tensor]) -> HookResult,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        self.run_cached(func, inputs, &PlanCache::default(), hook)
    }

    /// Like [`Interpreter::run_with`], reusing what `cache` learnt about the
    /// module in earlier runs (it must come from runs of the same module).
    pub fn run_cached<'c, 'a>(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        cache: &PlanCache,
        hook: &mut dyn FnMut(&OperationRef<'c, 'a>, &[&Tensor]) -> HookResult,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        self.run_limited(func, inputs, cache, Limits::default(), hook)
    }

    /// Like [`Interpreter::run_cached`], stopping with
    /// [`RuntimeError::Limit`] when the run goes past `limits`.
    pub fn run_limited<'c, 'a>(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        cache: &PlanCache,
        limits: Limits,
        hook: &mut dyn FnMut(&OperationRef<'c, 'a>, &[&Tensor]) -> HookResult,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        self.run_limited_on(func, inputs, cache, limits, Backend::Cpu, hook)
    }

    /// Like [`Interpreter::run_limited`] on `backend`: with `Backend::Cuda`
    /// (feature `cuda`) every op is first offered to the CUDA backend's
    /// family (`crate::cuda::family`), and the CPU families run what it
    /// declines. The device is opened before the first op; a missing driver
    /// or device is a [`RuntimeError::Backend`].
    pub fn run_limited_on<'c, 'a>(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        cache: &PlanCache,
        limits: Limits,
        backend: Backend,
        hook: &mut dyn FnMut(&OperationRef<'c, 'a>, &[&Tensor]) -> HookResult,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let offload: Option<Family> = match backend {
            Backend::Cpu => None,
            #[cfg(feature = "cuda")]
            Backend::Cuda => {
                crate::cuda::CudaBackend::available()?;
                Some(crate::cuda::family)
            }
        };
        let exec = Exec {
            hook: RefCell::new(hook),
            depth: std::cell::Cell::new(0),
            cache,
            fuel: std::cell::Cell::new(limits.max_ops),
            limits,
            offload,
        };
        let _texts = attrs::install(Rc::clone(&cache.attrs));
        let results = exec.function(func, inputs, true);
        crate::profile::flush();
        results
    }
}

impl Interpreter {
    /// Runs the entry block of region 0 of `owner` (an op whose body sees
    /// no values from outside it, like `sdy.manual_computation`) on
    /// `inputs` within `limits`, planning in `cache`, and returns the
    /// operands of its terminator.
    pub(crate) fn run_body<'c, 'a>(
        &self,
        owner: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        cache: &PlanCache,
        limits: Limits,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let mut decline = |_: &OperationRef<'c, 'a>, _: &[&Tensor]| None;
        let exec = Exec {
            hook: RefCell::new(&mut decline),
            depth: std::cell::Cell::new(0),
            cache,
            fuel: std::cell::Cell::new(limits.max_ops),
            limits,
            offload: None,
        };
        let _texts = attrs::install(Rc::clone(&cache.attrs));
        let block = exec.region_block(&owner, 0)?;
        let results = exec.block(&owner, block, inputs, None);
        crate::profile::flush();
        results
    }
}

/// Bounds on one run, so that a program taken from an untrusted transcript
/// cannot make a verifier loop forever or allocate without bound.
///
/// The default bounds nothing beyond the value model's own limit of
/// [`crate::value::MAX_ELEMENTS`] elements per tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most ops evaluated in the whole run (loop bodies count every time).
    pub max_ops: u64,
    /// Most elements in any one result the run computes.
    pub max_elements: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_ops: u64::MAX,
            max_elements: crate::value::MAX_ELEMENTS,
        }
    }
}

/// Values visible to a block: its own, then its enclosing frames'.
struct Frame<'p> {
    values: AddressMap<*const c_void, Tensor>,
    parent: Option<&'p Frame<'p>>,
}

impl Frame<'_> {
    fn get(&self, key: *const c_void) -> Option<&Tensor> {
        match self.values.get(&key) {
            Some(tensor) => Some(tensor),
            None => self.parent.and_then(|parent| parent.get(key)),
        }
    }
}

type Hook<'h, 'c, 'a> = &'h mut dyn FnMut(&OperationRef<'c, 'a>, &[&Tensor]) -> HookResult;

/// One run: the hook and the nesting depth.
struct Exec<'h, 'c, 'a> {
    hook: RefCell<Hook<'h, 'c, 'a>>,
    depth: std::cell::Cell<usize>,
    cache: &'h PlanCache,
    /// Ops left before [`Limits::max_ops`] is hit.
    fuel: std::cell::Cell<u64>,
    limits: Limits,
    /// A backend's family, offered every op before the CPU families (it
    /// takes no part in the per-op family cache of [`OpPlan`]).
    offload: Option<Family>,
}

fn malformed(op: &OperationRef<'_, '_>, message: impl Into<String>) -> RuntimeError {
    RuntimeError::Malformed {
        op: op_name(op),
        location: format_location(op.location()),
        message: message.into(),
    }
}

fn located(op: &OperationRef<'_, '_>, error: OpError) -> RuntimeError {
    match error {
        OpError::Value(error) => RuntimeError::from_value(op, error),
        OpError::Runtime(error) => error,
    }
}

impl<'c, 'a> Exec<'_, 'c, 'a> {
    /// Runs a `func.func` on `inputs`; `check_inputs` compares them with the
    /// argument types (calls from checked code skip it).
    fn function(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        check_inputs: bool,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let region = func
            .region(0)
            .map_err(|_| malformed(&func, "the function has no body"))?;
        let block = region
            .first_block()
            .ok_or_else(|| malformed(&func, "the function has no body"))?;
        if block.next_in_region().is_some() {
            return Err(RuntimeError::Unsupported {
                op: "func.func with several blocks".to_owned(),
                location: format_location(func.location()),
            });
        }
        if inputs.len() != block.argument_count() {
            return Err(RuntimeError::InputCount {
                expected: block.argument_count(),
                actual: inputs.len(),
            });
        }
        if check_inputs {
            for (index, input) in inputs.iter().enumerate() {
                let argument = block
                    .argument(index)
                    .map_err(|_| malformed(&func, "missing block argument"))?;
                let expected =
                    TensorType::parse(&argument.r#type().to_string()).map_err(|error| {
                        RuntimeError::Input {
                            index,
                            message: error.to_string(),
                        }
                    })?;
                if expected != input.tensor_type() {
                    return Err(RuntimeError::Input {
                        index,
                        message: format!(
                            "expected {:?}{:?}, got {:?}{:?}",
                            expected.element, expected.shape, input.element, input.shape
                        ),
                    });
                }
            }
        }
        self.block(&func, block, inputs, None)
    }

    /// Runs `block` with `args` bound to its arguments and returns the
    /// operands of its terminator (`func.return` or `stablehlo.return`).
    fn block(
        &self,
        owner: &OperationRef<'c, 'a>,
        block: BlockRef<'c, 'a>,
        args: Vec<Tensor>,
        parent: Option<&Frame<'_>>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let depth = self.depth.get();
        if depth >= MAX_DEPTH {
            return Err(malformed(
                owner,
                format!("calls or regions nest deeper than {MAX_DEPTH} (recursion?)"),
            ));
        }
        self.depth.set(depth + 1);
        let result = self.block_inner(owner, block, args, parent);
        self.depth.set(depth);
        result
    }

    fn block_inner(
        &self,
        owner: &OperationRef<'c, 'a>,
        block: BlockRef<'c, 'a>,
        args: Vec<Tensor>,
        parent: Option<&Frame<'_>>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        if args.len() != block.argument_count() {
            return Err(malformed(
                owner,
                format!(
                    "a region with {} arguments got {} values",
                    block.argument_count(),
                    args.len()
                ),
            ));
        }
        let mut frame = Frame {
            values: AddressMap::default(),
            parent,
        };
        let block_plan = self.block_plan(block);
        for (&key, arg) in block_plan.arguments.iter().zip(args) {
            frame.values.insert(key, arg);
        }
        for step in &block_plan.steps {
            // SAFETY: the pointer was taken from a live op of this module
            // (the plan cache belongs to one parsed module, which outlives it).
            let current = unsafe { OperationRef::from_raw(step.op) };
            let op = &current;
            let plan = &step.plan;
            if plan.terminator {
                return returned(op, &mut frame, &plan.operands);
            }
            self.charge(op, plan)?;
            let timer = crate::profile::start();
            let dies = step.dies.as_slice();
            let reused = if plan.reuse == Reuse::None
                || (self.offload.is_some() && plan.reuse != Reuse::Owned)
            {
                None
            } else {
                self.reusing(op, plan, &mut frame, dies)?
            };
            let results = match reused {
                Some(results) => results,
                None => {
                    let operands = plan
                        .operands
                        .iter()
                        .map(|&key| {
                            frame.get(key).ok_or_else(|| {
                                malformed(op, "an operand is used before it is defined")
                            })
                        })
                        .collect::<Result<Vec<&Tensor>, _>>()?;
                    self.op(op, plan, &operands, &frame)?
                }
            };
            if results.len() != plan.results_keys.len() {
                return Err(RuntimeError::from_value(
                    op,
                    ValueError::Mismatch(format!(
                        "{} results computed for {} declared",
                        results.len(),
                        plan.results_keys.len()
                    )),
                ));
            }
            for key in dies {
                frame.values.remove(key);
            }
            if let Some(timer) = timer {
                let elements = results.iter().map(|t| t.data.len() as u64).sum();
                timer.stop(&plan.name, elements);
            }
            for (&key, tensor) in plan.results_keys.iter().zip(results) {
                frame.values.insert(key, tensor);
            }
        }
        Err(malformed(owner, "a block without a terminator"))
    }

    /// Spends one op of fuel and checks the op's declared results against
    /// [`Limits::max_elements`], before anything is computed.
    fn charge(&self, op: &OperationRef<'c, 'a>, plan: &OpPlan) -> Result<(), RuntimeError> {
        let limit = |message: String| RuntimeError::Limit {
            op: plan.name.clone(),
            location: format_location(op.location()),
            message,
        };
        let fuel = self.fuel.get();
        if fuel == 0 {
            return Err(limit(format!(
                "the run evaluated its limit of {} ops",
                self.limits.max_ops
            )));
        }
        self.fuel.set(fuel - 1);
        if let Ok(results) = &plan.results {
            if let Some(big) = results.iter().find(|t| t.len() > self.limits.max_elements) {
                return Err(limit(format!(
                    "a result of {} elements exceeds the limit of {}",
                    big.len(),
                    self.limits.max_elements
                )));
            }
        }
        Ok(())
    }

    /// Evaluates one op and checks its results against the declared types.
    fn op(
        &self,
        op: &OperationRef<'c, 'a>,
        plan: &OpPlan,
        operands: &[&Tensor],
        frame: &Frame<'_>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let name = plan.name.as_str();
        if let Some(constant) = &plan.constant {
            let value = constant
                .clone()
                .map_err(|error| RuntimeError::from_value(op, error))?;
            return check_declared(op, plan, vec![value]);
        }
        if let (Some(decoded), None) = (&plan.decoded, self.offload) {
            let result = decoded
                .run(operands)
                .map_err(|error| RuntimeError::from_value(op, error))?;
            return self.finish(op, plan, vec![result]);
        }
        let regions = OpRegions {
            exec: self,
            op: *op,
            frame,
        };
        let structural = if plan.structural {
            self.structural(op, name, operands, frame)
        } else {
            None
        };
        let computed = match structural {
            Some(result) => Some(result?),
            None => {
                let mut found = None;
                if let Some(offload) = self.offload {
                    found = offload(op, name, operands, &regions).map_err(|e| located(op, e))?;
                }
                if let (None, Some(family)) = (&found, plan.family) {
                    found = family(op, name, operands, &regions).map_err(|e| located(op, e))?;
                }
                found
            }
        };
        let Some(results) = computed else {
            let answer = (self.hook.borrow_mut())(op, operands);
            return match answer {
                Some(results) => results,
                None => Err(RuntimeError::Unsupported {
                    op: name.to_owned(),
                    location: format_location(op.location()),
                }),
            };
        };
        self.finish(op, plan, results)
    }

    /// Runs an op of [`Reuse`] other than `None`, taking the buffers of
    /// operands that die at it; `None` when no operand can be taken (the op
    /// then runs the ordinary way).
    fn reusing(
        &self,
        op: &OperationRef<'c, 'a>,
        plan: &OpPlan,
        frame: &mut Frame<'_>,
        dies: &[*const c_void],
    ) -> Result<Option<Vec<Tensor>>, RuntimeError> {
        let keys = &plan.operands;
        let takeable = |i: usize| {
            let key = keys[i];
            dies.contains(&key)
                && keys.iter().filter(|&&other| other == key).count() == 1
                && !plan.nested_uses.contains(&key)
                && frame.values.contains_key(&key)
        };
        let missing = || malformed(op, "an operand is used before it is defined");
        let results = match plan.reuse {
            Reuse::None => return Ok(None),
            Reuse::Owned => {
                let take: Vec<bool> = (0..keys.len()).map(takeable).collect();
                let mut args = Vec::with_capacity(keys.len());
                for (&key, take) in keys.iter().zip(take) {
                    let value = if take {
                        frame.values.remove(&key)
                    } else {
                        frame.get(key).cloned()
                    };
                    args.push(value.ok_or_else(missing)?);
                }
                match self.owned_structural(op, &plan.name, args, frame) {
                    Some(results) => results?,
                    None => return Ok(None),
                }
            }
            Reuse::Reshape => {
                if keys.len() != 1 || !takeable(0) {
                    return Ok(None);
                }
                let shape = match &plan.results {
                    Ok(types) if types.len() == 1 => types[0].shape.clone(),
                    _ => return Ok(None),
                };
                let mut tensor = frame.values.remove(&keys[0]).ok_or_else(missing)?;
                if shape.iter().product::<usize>() != tensor.data.len() {
                    return Err(RuntimeError::from_value(
                        op,
                        ValueError::Mismatch(format!(
                            "reshape: {:?} has a different element count than {shape:?}",
                            tensor.shape
                        )),
                    ));
                }
                tensor.shape = shape;
                vec![tensor]
            }
            Reuse::Binary(kind) => {
                let float = |i: usize| {
                    frame.values.get(&keys[i]).is_some_and(|t| {
                        matches!(t.element, crate::ElementType::F32 | crate::ElementType::F64)
                    })
                };
                let Some(i) = (0..keys.len().min(2)).find(|&i| takeable(i) && float(i)) else {
                    return Ok(None);
                };
                if keys.len() != 2 {
                    return Ok(None);
                }
                let mut target = frame.values.remove(&keys[i]).ok_or_else(missing)?;
                let other = frame.get(keys[1 - i]).ok_or_else(missing)?;
                let done = ops::binary_in_place(kind, &mut target, other, i == 0)
                    .map_err(|error| RuntimeError::from_value(op, error))?;
                if !done {
                    frame.values.insert(keys[i], target);
                    return Ok(None);
                }
                // NaNs are already canonical (`binary_in_place`).
                crate::rounding::perturb_result(&mut target);
                return check_declared(op, plan, vec![target]).map(Some);
            }
        };
        self.finish(op, plan, results).map(Some)
    }

    /// Canonical NaNs where the op computes floats (and, in an ensemble
    /// member's run, its wide results moved by an ulp), then the declared
    /// types.
    fn finish(
        &self,
        op: &OperationRef<'c, 'a>,
        plan: &OpPlan,
        mut results: Vec<Tensor>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        if plan.canonical_nans {
            results.iter_mut().for_each(|tensor| {
                tensor.canonicalize_nans();
                // Only inside an ensemble member's run (`crate::rounding`).
                crate::rounding::perturb_result(tensor);
            });
        }
        check_declared(op, plan, results)
    }

    /// The structural ops that take their operands as owned values.
    fn owned_structural(
        &self,
        op: &OperationRef<'c, 'a>,
        name: &str,
        args: Vec<Tensor>,
        frame: &Frame<'_>,
    ) -> Option<Result<Vec<Tensor>, RuntimeError>> {
        let result = match name {
            "func.call" => self.call(op, "callee", args),
            // Layout hints of a multi-device step (Shardy): the values are unchanged.
            "stablehlo.optimization_barrier" | "sdy.sharding_constraint" | "sdy.reshard" => {
                Ok(args)
            }
            "stablehlo.composite" => self.call(op, "decomposition", args),
            "stablehlo.while" => self.while_op(op, args, frame),
            _ => return None,
        };
        Some(result)
    }

    /// The ops the interpreter runs itself: calls and control flow.
    fn structural(
        &self,
        op: &OperationRef<'c, 'a>,
        name: &str,
        operands: &[&Tensor],
        frame: &Frame<'_>,
    ) -> Option<Result<Vec<Tensor>, RuntimeError>> {
        if OWNED.contains(&name) {
            let args = operands.iter().map(|t| (*t).clone()).collect();
            return self.owned_structural(op, name, args, frame);
        }
        let result = match name {
            "stablehlo.if" => self.if_op(op, operands, frame),
            "stablehlo.case" => self.case(op, operands, frame),
            // A grid of processes (see `crate::parallel`).
            "interpreter.run_parallel" => {
                crate::parallel::run_parallel(op, operands, &|callee| self.lookup(op, callee))
            }
            // The body of a `jax.shard_map`, once per device (see `crate::manual`).
            "sdy.manual_computation" => {
                crate::manual::run(op, operands, self.cache, self.limits, &|mesh| {
                    let found = self.lookup_op(op, "sdy.mesh", mesh)?;
                    attrs::text(&found, "mesh").map_err(|e| RuntimeError::from_value(&found, e))
                })
            }
            _ => return None,
        };
        Some(result)
    }

    fn region_block(
        &self,
        op: &OperationRef<'c, 'a>,
        index: usize,
    ) -> Result<BlockRef<'c, 'a>, RuntimeError> {
        op.region(index)
            .ok()
            .and_then(|region| region.first_block())
            .ok_or_else(|| malformed(op, format!("region {index} is missing or empty")))
    }

    /// Runs the function that attribute `symbol` of `op` names (`callee` of
    /// `func.call`, `decomposition` of `stablehlo.composite`) on `args`.
    fn call(
        &self,
        op: &OperationRef<'c, 'a>,
        symbol: &str,
        args: Vec<Tensor>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let key = op.to_raw().ptr as usize;
        let cached = self.cache.callees.borrow().get(&key).copied();
        let func = match cached {
            // SAFETY: the pointer was taken from a live op of this module
            // (the cache belongs to one parsed module, which outlives it).
            Some(raw) => unsafe { OperationRef::from_raw(raw) },
            None => {
                let text = attrs::text(op, symbol).map_err(|e| RuntimeError::from_value(op, e))?;
                let func = self.lookup(op, text.trim_start_matches('@'))?;
                self.cache.callees.borrow_mut().insert(key, func.to_raw());
                func
            }
        };
        self.function(func, args, false)
    }

    /// The `func.func` named `name` in the module that holds `op`.
    fn lookup(
        &self,
        op: &OperationRef<'c, 'a>,
        name: &str,
    ) -> Result<OperationRef<'c, 'a>, RuntimeError> {
        self.lookup_op(op, "func.func", name)
    }

    /// The op of kind `kind` named `name` (its `sym_name`) at the top of the
    /// module that holds `op`.
    fn lookup_op(
        &self,
        op: &OperationRef<'c, 'a>,
        kind: &str,
        name: &str,
    ) -> Result<OperationRef<'c, 'a>, RuntimeError> {
        let mut current = *op;
        // SAFETY: parents of a live op are live ops of the same IR.
        let module = loop {
            let parent = unsafe {
                let raw = mlir_sys::mlirOperationGetParentOperation(current.to_raw());
                (!raw.ptr.is_null()).then(|| OperationRef::from_raw(raw))
            };
            match parent {
                Some(parent) if op_name(&parent) == "builtin.module" => break parent,
                Some(parent) => current = parent,
                None => return Err(malformed(op, "the op is not inside a module")),
            }
        };
        let body = self.region_block(&module, 0)?;
        let mut next = body.first_operation();
        while let Some(candidate) = next {
            next = candidate.next_in_block();
            if op_name(&candidate) == kind
                && attrs::text(&candidate, "sym_name")
                    .is_ok_and(|text| text.trim_matches('"') == name)
            {
                return Ok(candidate);
            }
        }
        let what = if kind == "func.func" {
            "function"
        } else {
            kind
        };
        Err(malformed(op, format!("no {what} @{name} in the module")))
    }

    fn if_op(
        &self,
        op: &OperationRef<'c, 'a>,
        operands: &[&Tensor],
        frame: &Frame<'_>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let pred = scalar_bool(op, operands)?;
        let block = self.region_block(op, if pred { 0 } else { 1 })?;
        self.block(op, block, Vec::new(), Some(frame))
    }

    fn case(
        &self,
        op: &OperationRef<'c, 'a>,
        operands: &[&Tensor],
        frame: &Frame<'_>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let index = match operands {
            [t] if t.shape.is_empty() => match &t.data {
                Data::Signed(v) => v[0],
                Data::Unsigned(v) => i64::try_from(v[0]).unwrap_or(i64::MAX),
                _ => return Err(malformed(op, "the branch index is not an integer")),
            },
            _ => return Err(malformed(op, "expected one rank-0 branch index")),
        };
        let count = op.region_count();
        if count == 0 {
            return Err(malformed(op, "a case without branches"));
        }
        // Out-of-range indices run the last branch.
        let branch = usize::try_from(index)
            .ok()
            .filter(|&b| b < count)
            .unwrap_or(count - 1);
        let block = self.region_block(op, branch)?;
        self.block(op, block, Vec::new(), Some(frame))
    }

    fn while_op(
        &self,
        op: &OperationRef<'c, 'a>,
        mut state: Vec<Tensor>,
        frame: &Frame<'_>,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let cond = self.region_block(op, 0)?;
        let body = self.region_block(op, 1)?;
        loop {
            let decision = self.block(op, cond, state.clone(), Some(frame))?;
            let refs: Vec<&Tensor> = decision.iter().collect();
            if !scalar_bool(op, &refs)? {
                return Ok(state);
            }
            state = self.block(op, body, state, Some(frame))?;
        }
    }
}

/// The values a terminator returns: moved out of the block's frame, except a
/// value the frame does not own (captured from an enclosing block) or one
/// returned again later in the list, which are copied.
fn returned(
    op: &OperationRef<'_, '_>,
    frame: &mut Frame<'_>,
    keys: &[*const c_void],
) -> Result<Vec<Tensor>, RuntimeError> {
    let mut values = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        let moved = if keys[i + 1..].contains(key) {
            None
        } else {
            frame.values.remove(key)
        };
        let value = match moved {
            Some(value) => value,
            None => frame
                .get(*key)
                .cloned()
                .ok_or_else(|| malformed(op, "an operand is used before it is defined"))?,
        };
        values.push(value);
    }
    Ok(values)
}

/// Checks computed results against the op's declared result types.
fn check_declared(
    op: &OperationRef<'_, '_>,
    plan: &OpPlan,
    results: Vec<Tensor>,
) -> Result<Vec<Tensor>, RuntimeError> {
    let declared = plan
        .results
        .as_ref()
        .map_err(|error| RuntimeError::from_value(op, error.clone()))?;
    if declared.len() != results.len() {
        return Err(RuntimeError::from_value(
            op,
            ValueError::Mismatch(format!(
                "{} results computed for {} declared",
                results.len(),
                declared.len()
            )),
        ));
    }
    for (result, declared) in results.iter().zip(declared) {
        // Compared element by element: these shapes are short, and a
        // slice comparison would call `memcmp` once per op.
        let same_shape = declared.shape.len() == result.shape.len()
            && declared
                .shape
                .iter()
                .zip(&result.shape)
                .all(|(a, b)| a == b);
        if declared.element != result.element || !same_shape {
            return Err(RuntimeError::from_value(
                op,
                ValueError::Mismatch(format!(
                    "computed {:?}{:?}, declared {:?}{:?}",
                    result.element, result.shape, declared.element, declared.shape
                )),
            ));
        }
    }
    Ok(results)
}

/// The single `tensor<i1>` among `operands`.
fn scalar_bool(op: &OperationRef<'_, '_>, operands: &[&Tensor]) -> Result<bool, RuntimeError> {
    match operands {
        [t] if t.shape.is_empty() => match &t.data {
            Data::Bool(v) => Ok(v[0]),
            _ => Err(malformed(op, "the predicate is not an i1")),
        },
        _ => Err(malformed(op, "expected one rank-0 i1 predicate")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zkdv_ir::find_function;
    use zkdv_ir::IrContext;

    const PROGRAM: &str = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>, tensor<f32>) -> (tensor<2x2xf32>, tensor<2xi1>), sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>, %s: tensor<f32>):
    %0 = "stablehlo.broadcast_in_dim"(%s) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %1 = "stablehlo.multiply"(%x, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.compare"(%1, %x) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %3 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<2x2xf32>
    %4 = "stablehlo.transpose"(%3) <{permutation = array<i64: 1, 0>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "func.return"(%4, %2) : (tensor<2x2xf32>, tensor<2xi1>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "unsupported"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "stablehlo.infeed"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;

    #[test]
    fn runs_a_function_on_host_tensors() {
        let context = IrContext::new();
        let module = context.parse(PROGRAM, "program.mlir").unwrap();
        let main = find_function(&module, "main").unwrap();
        let x = HostTensor::from_f32(vec![2], &[1.0, -1.0]).unwrap();
        let s = HostTensor::from_f32(vec![], &[3.0]).unwrap();
        let out = Interpreter.run(main, &[x.clone(), s.clone()]).unwrap();
        assert_eq!(
            out[0],
            HostTensor::from_f32(vec![2, 2], &[0.0, 1.0, 0.0, 1.0]).unwrap()
        );
        assert_eq!(out[1].bytes(), &[1, 0]);

        let err = Interpreter.run(main, std::slice::from_ref(&x)).unwrap_err();
        assert!(
            matches!(
                err,
                RuntimeError::InputCount {
                    expected: 2,
                    actual: 1
                }
            ),
            "{err}"
        );
        let err = Interpreter.run(main, &[s.clone(), s]).unwrap_err();
        assert!(err.to_string().starts_with("input 0:"), "{err}");

        let unsupported = find_function(&module, "unsupported").unwrap();
        let err = Interpreter.run(unsupported, &[x]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "program.mlir:13:10: unsupported op `stablehlo.infeed`"
        );
    }

    /// Buffer reuse keeps every value a later op reads: an operand used
    /// twice, a dying value that a loop body also reads, a value returned
    /// twice, a call argument read again after the call. Run twice on one
    /// plan cache, so the cached plans are exercised too.
    #[test]
    fn reused_buffers_never_clobber_live_values() {
        const REUSE: &str = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>, %y: tensor<2xf32>):
    %a = "stablehlo.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %c = "func.call"(%a) <{callee = @double}> : (tensor<2xf32>) -> tensor<2xf32>
    %b = "stablehlo.multiply"(%a, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %i = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %w:2 = "stablehlo.while"(%i, %b) ({
    ^bb0(%k: tensor<i32>, %v: tensor<2xf32>):
      %n = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %p = "stablehlo.compare"(%k, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%k: tensor<i32>, %v: tensor<2xf32>):
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %k1 = "stablehlo.add"(%k, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %v1 = "stablehlo.add"(%v, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%k1, %v1) : (tensor<i32>, tensor<2xf32>) -> ()
    }) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
    %r = "stablehlo.reshape"(%y) : (tensor<2xf32>) -> tensor<1x2xf32>
    %s = "stablehlo.reshape"(%r) : (tensor<1x2xf32>) -> tensor<2xf32>
    "func.return"(%w#1, %s, %s, %y) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "double", sym_visibility = "private"}> ({
  ^bb0(%z: tensor<2xf32>):
    %d = "stablehlo.add"(%z, %z) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%d) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(REUSE, "reuse.mlir").unwrap();
        let main = find_function(&module, "main").unwrap();
        let cache = PlanCache::default();
        let f32s = |v: &[f32]| {
            Tensor::from_host(&HostTensor::from_f32(vec![v.len() as u64], v).unwrap()).unwrap()
        };
        for _ in 0..2 {
            let inputs = vec![f32s(&[1.0, 2.0]), f32s(&[5.0, 6.0])];
            let out = Interpreter
                .run_cached(main, inputs, &cache, &mut |_, _| None)
                .unwrap();
            // a = 2x, c = 4x, b = 8x^2, after two iterations w = 3b.
            assert_eq!(out[0], f32s(&[24.0, 96.0]));
            for t in &out[1..] {
                assert_eq!(*t, f32s(&[5.0, 6.0]));
            }
        }
    }

    #[test]
    fn shardy_layout_hints_are_identities() {
        let source = r#""builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=4]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xf32>):
    %0 = "sdy.sharding_constraint"(%x) <{sharding = #sdy.sharding<@mesh, [{"d"}]>}> : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "sdy.reshard"(%0) <{sharding = #sdy.sharding<@mesh, [{}]>}> : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.add"(%1, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%2) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(source, "sdy.mlir").unwrap();
        let f = find_function(&module, "f").unwrap();
        let x = HostTensor::from_f32(vec![4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        let out = Interpreter.run(f, &[x]).unwrap();
        assert_eq!(
            out[0],
            HostTensor::from_f32(vec![4], &[2.0, 4.0, 6.0, 8.0]).unwrap()
        );
    }

    /// A `jax.shard_map` body on a 2x2 mesh: each device holds one element,
    /// sums it over axis `b`, then over both axes.
    #[test]
    fn manual_computations_run_once_per_device() {
        let source = r#""builtin.module"() ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["a"=2, "b"=2]>, sym_name = "mesh"}> : () -> ()
  "sdy.mesh"() <{mesh = #sdy.mesh<["a"=2, "b"=2]>, sym_name = "mesh_0"}> : () -> ()
  "func.func"() <{function_type = (tensor<4xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<1xf32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xf32>, %s: tensor<f32>):
    %r:2 = "sdy.manual_computation"(%x, %s) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"a", "b"}]>, <@mesh, []>]>, manual_axes = #sdy<manual_axes{"a", "b"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"a"}]>, <@mesh, [{}]>]>}> ({
    ^bb0(%xs: tensor<1xf32>, %ss: tensor<f32>):
      %scaled = "stablehlo.multiply"(%xs, %xs) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      %b = "stablehlo.all_reduce"(%scaled) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "b">]>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %t = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%t) : (tensor<f32>) -> ()
      }) : (tensor<1xf32>) -> tensor<1xf32>
      %all = "stablehlo.all_reduce"(%xs) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [#stablehlo.axis_ref<name = "a">, #stablehlo.axis_ref<name = "b">]>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %t = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%t) : (tensor<f32>) -> ()
      }) : (tensor<1xf32>) -> tensor<1xf32>
      %sb = "stablehlo.broadcast_in_dim"(%ss) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<1xf32>
      %out = "stablehlo.multiply"(%all, %sb) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      "sdy.return"(%b, %out) : (tensor<1xf32>, tensor<1xf32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<1xf32>)
    "func.return"(%r#0, %r#1) : (tensor<2xf32>, tensor<1xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(source, "manual.mlir").unwrap();
        let f = find_function(&module, "f").unwrap();
        let x = HostTensor::from_f32(vec![4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        let s = HostTensor::from_f32(vec![], &[10.0]).unwrap();
        let out = Interpreter.run(f, &[x.clone(), s.clone()]).unwrap();
        assert_eq!(out[0], HostTensor::from_f32(vec![2], &[5.0, 25.0]).unwrap());
        assert_eq!(out[1], HostTensor::from_f32(vec![1], &[100.0]).unwrap());
        // An ensemble member's perturbations apply on the devices too.
        let y = HostTensor::from_f32(vec![4], &[1.1, 2.2, 3.3, 4.4]).unwrap();
        let plain = Interpreter.run(f, &[y.clone(), s.clone()]).unwrap();
        let member =
            crate::rounding::with_member(3, || Interpreter.run(f, &[y.clone(), s.clone()]))
                .unwrap();
        assert_ne!(member[0], plain[0]);
        // A block that does not divide evenly is an error, not a panic.
        let bad = source.replace("tensor<4xf32>", "tensor<6xf32>");
        let module = context.parse(&bad, "bad.mlir").unwrap();
        let f = find_function(&module, "f").unwrap();
        let x = HostTensor::from_f32(vec![6], &[1.0; 6]).unwrap();
        let error = Interpreter.run(f, &[x, s]).unwrap_err().to_string();
        assert!(
            error.contains("does not split into 4 equal parts"),
            "{error}"
        );
    }

    #[test]
    fn malformed_ops_are_errors_with_locations() {
        let source = r#""func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "f"}> ({
    %0 = "stablehlo.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(source, "bad.mlir").unwrap();
        let f = find_function(&module, "f").unwrap();
        let err = Interpreter.run(f, &[]).unwrap_err();
        assert!(matches!(err, RuntimeError::Op { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("bad.mlir:2:10: `stablehlo.constant`"),
            "{err}"
        );
    }
}
