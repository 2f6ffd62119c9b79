//! `--zkdv-push-select`: compute one coordinate instead of a whole tensor.
//!
//! A check runs the attested function (see [`crate::slice_update`]), which
//! reads one element of each update leaf through a one-element
//! `stablehlo.dynamic_slice` (every slice size 1). This pass rewrites each
//! such slice `V[i...]` in the entry block of the function into ops that
//! compute only that element, pushing the selection up through the op that
//! defines `V`, recursively:
//!
//! - elementwise ops ([`is_elementwise`]): the same op on the selected operands
//!   (0-d operands of `select` and `clamp` are used as they are);
//! - `broadcast_in_dim`: operand dim `d` reads result dim
//!   `broadcast_dimensions[d]`, or 0 where the operand dim has size 1;
//! - `reshape`: the row-major flat index of the result coordinate, split by
//!   the operand's strides (`divide`/`remainder` by constants); unit dims
//!   only need no arithmetic;
//! - `transpose`: indices permuted by `permutation`;
//! - `dot_general`: one row of the lhs times one column of the rhs, i.e. the
//!   same `dot_general` on `dynamic_slice`s holding the batch and free
//!   coordinates and every contracting element (no further pushing into
//!   the operands);
//! - `convolution` without feature or batch groups: the input padded and
//!   dilated explicitly (`stablehlo.pad`), the window at the output position
//!   and the kernel at the output feature sliced, and the same convolution
//!   of those with unit strides, no padding and no input dilation (this
//!   removes the weight-gradient convolutions of a CNN);
//! - splat constants: a 0-d constant;
//! - anything else (reduce, reduce_window, gather, scatter, block
//!   arguments, ...): a plain one-element `dynamic_slice` of that value.
//!
//! The pass leaves the ops it bypassed in place. The
//! `zkdv-attested-pipeline` ([`crate::pipelines`]) follows it with
//! `--zkdv-dce`, which erases whatever was used only through the selections
//! (typically the full optimizer update and the weight-gradient matmuls;
//! values used elsewhere stay, for example every gradient when a global-norm
//! clip reads them all), and `--zkdv-guard-leaves`, which puts the work that
//! only some leaves need under `stablehlo.if` guards, so a check runs the
//! work of its two leaves only.
//!
//! Option: `func=NAME`, the function to rewrite (default `zkdv_attested`;
//! with `--zkdv-slice-update=output=attested` it is `main`).
//!
//! Preconditions: none beyond a parsed module; slices whose shapes are not
//! static or whose start indices are not integer tensors are left alone.
//!
//! Invariants: results are the same as before for every index value.
//! `dynamic_slice` clamps its start indices into range, so the pass clamps
//! each start explicitly (`clamp(0, i, size - 1)`) and converts it to `ui64`
//! before pushing; every derived index is then in range. Elementwise ops on
//! one element compute the same IEEE result as on the whole tensor; only a
//! pushed `dot_general` or `convolution` may sum in another order than the
//! full product (within the check tolerance, not bit for bit).
//! New ops are inserted just before the slice they replace, so everything
//! they use dominates them; slices are rewritten in block order and the ops
//! emitted for earlier slices (and their memoised selections) are reused by
//! later ones. Emitted ops are hash-consed, so an index computed twice is one
//! value. Recursion stops at depth [`MAX_DEPTH`] and after [`MAX_EMITTED`]
//! new ops with a plain `dynamic_slice`, so the rewrite is bounded.

use std::collections::HashMap;

use melior::ir::{
    attribute::{DenseElementsAttribute, DenseI64ArrayAttribute, IntegerAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationMutLike},
    r#type::{DimSize, RankedTensorType, ShapedTypeLike},
    Attribute, BlockRef, Identifier, Location, Module, Operation, OperationRef, RegionLike, Type,
    Value, ValueLike,
};

use crate::{
    abi::{attested_function, ATTESTED},
    effects::is_elementwise,
    ir::{
        attrs::{ConvDimensions, ConvLayout, DotDimensions},
        op_name, Diagnostic, Diagnostics,
    },
    rewrite::{clone_op, defining_op, replace_all_uses, set_type},
    PassError, PassOptions,
};

/// Deepest chain of ops a selection is pushed through.
pub const MAX_DEPTH: usize = 256;
/// Most ops one run of the pass emits before it stops pushing.
pub const MAX_EMITTED: usize = 200_000;

fn fail(diagnostic: Diagnostic) -> PassError {
    PassError::Failed(Diagnostics(vec![diagnostic]))
}

/// Runs the pass; see the module documentation.
pub fn run(module: &Module<'_>, options: &mut PassOptions) -> Result<(), PassError> {
    let name = options.values.text("func").unwrap_or(ATTESTED);
    let func = attested_function(module, name, "zkdv-push-select")?;
    let Some(block) = func.region(0).ok().and_then(|region| region.first_block()) else {
        return Err(fail(Diagnostic::error_at(
            &func,
            format!("--zkdv-push-select: @{name} has no body"),
        )));
    };
    // `to_ref` reinterprets the `ContextRef` value itself as a `Context`, so
    // the `ContextRef` must outlive every use of the reference: keep it in a
    // local for the whole pass (a temporary would dangle at the end of the
    // statement; cargo fuzz's AddressSanitizer caught exactly that).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives every module parsed in it, and so every attribute and
    // type built here.
    let context = unsafe { context_ref.to_ref() };
    // Collect first, then rewrite.
    let mut slices = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        if op_name(&op) == "stablehlo.dynamic_slice" && is_one_element(&op) {
            slices.push(op);
        }
        next = op.next_in_block();
    }
    let mut pusher = Pusher {
        context,
        block,
        before: None,
        location: func.location(),
        memo: HashMap::new(),
        consed: HashMap::new(),
        emitted: 0,
    };
    for slice in slices {
        pusher.rewrite(slice).map_err(fail)?;
    }
    Ok(())
}

/// The static shape of a ranked tensor type.
fn static_shape(r#type: Type<'_>) -> Option<Vec<u64>> {
    let tensor = RankedTensorType::try_from(r#type).ok()?;
    (0..tensor.rank())
        .map(|dim| match tensor.dim_size(dim) {
            Ok(DimSize::Static(size)) => Some(size),
            _ => None,
        })
        .collect()
}

fn element_type(r#type: Type<'_>) -> Option<Type<'_>> {
    RankedTensorType::try_from(r#type)
        .ok()
        .map(|tensor| tensor.element())
}

fn tensor_type<'c>(shape: &[u64], element: Type<'c>) -> Type<'c> {
    RankedTensorType::new(shape, element, None).into()
}

/// Whether `element` is an integer type (`i32`, `ui64`, ...).
fn is_integer(element: Type<'_>) -> bool {
    integer_max(element).is_some()
}

/// The largest value of an integer type of at least 2 bits (`i32`, `ui64`,
/// ...); `None` for other types.
fn integer_max(element: Type<'_>) -> Option<u128> {
    let text = element.to_string();
    let (signed, digits) = match text.strip_prefix("ui") {
        Some(digits) => (false, digits),
        None => (true, text.strip_prefix("si").or(text.strip_prefix('i'))?),
    };
    let bits: u32 = digits.parse().ok().filter(|bits| (2..=64).contains(bits))?;
    let value_bits = if signed { bits - 1 } else { bits };
    Some((1u128 << value_bits) - 1)
}

/// A `dynamic_slice` of a static operand whose slice sizes are all 1, with
/// one 0-d integer start index per dimension.
fn is_one_element(op: &OperationRef<'_, '_>) -> bool {
    let (Ok(operand), Ok(result)) = (op.operand(0), op.result(0)) else {
        return false;
    };
    let Some(shape) = static_shape(operand.r#type()) else {
        return false;
    };
    let result_ok = static_shape(result.r#type())
        .is_some_and(|dims| dims.len() == shape.len() && dims.iter().all(|&d| d == 1));
    result_ok
        && op.operand_count() == shape.len() + 1
        && !shape.contains(&0)
        && (1..=shape.len()).all(|index| {
            op.operand(index).is_ok_and(|start| {
                static_shape(start.r#type()).is_some_and(|dims| dims.is_empty())
                    // The clamp bound `size - 1` must be a value of the type.
                    && element_type(start.r#type())
                        .and_then(integer_max)
                        .is_some_and(|max| u128::from(shape[index - 1]) <= max + 1)
            })
        })
}

/// The identity of a value: its address.
fn key<'c>(value: impl ValueLike<'c>) -> usize {
    value.to_raw().ptr as usize
}

/// Emits the selection ops of one function body.
struct Pusher<'c, 'a> {
    context: &'c melior::Context,
    block: BlockRef<'c, 'a>,
    /// The slice being rewritten: new ops go just before it.
    before: Option<OperationRef<'c, 'a>>,
    location: Location<'c>,
    /// `(value, indices)` to the 0-d value of that element.
    memo: HashMap<(usize, Vec<usize>), Value<'c, 'a>>,
    /// Emitted ops by (name, result type, attributes, operands).
    consed: HashMap<(String, Vec<usize>), Value<'c, 'a>>,
    emitted: usize,
}

impl<'c, 'a> Pusher<'c, 'a> {
    fn error(&self, message: String) -> Diagnostic {
        match &self.before {
            Some(op) => Diagnostic::error_at(op, message),
            None => Diagnostic::error("<push-select>", message),
        }
    }

    fn index_type(&self) -> Type<'c> {
        tensor_type(&[], ui64(self.context))
    }

    fn attribute(&self, text: &str) -> Result<Attribute<'c>, Diagnostic> {
        Attribute::parse(self.context, text)
            .ok_or_else(|| self.error(format!("cannot build attribute {text}")))
    }

    fn insert(&mut self, op: melior::ir::Operation<'c>) -> Result<Value<'c, 'a>, Diagnostic> {
        let before = self
            .before
            .ok_or_else(|| self.error("no insertion point".to_owned()))?;
        self.emitted += 1;
        let op = self.block.insert_operation_before(before, op);
        op.result(0)
            .map(Into::into)
            .map_err(|e| self.error(format!("emitted op has no result: {e}")))
    }

    /// Emits (or reuses) `name(operands) {attributes} : result`.
    fn emit(
        &mut self,
        name: &str,
        operands: &[Value<'c, 'a>],
        result: Type<'c>,
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        // reshape(reshape(y)) is reshape(y), and a reshape to the same type
        // is its operand.
        let folded;
        let operands = match (name, operands) {
            ("stablehlo.reshape", &[operand]) => {
                let source = reshape_source(operand).unwrap_or(operand);
                if source.r#type() == result {
                    return Ok(source);
                }
                folded = [source];
                &folded[..]
            }
            _ => operands,
        };
        let mut signature = format!("{name} : {result}");
        for (attribute, value) in attributes {
            signature.push_str(&format!(" {attribute}={value}"));
        }
        let cons_key = (signature, operands.iter().map(|&v| key(v)).collect());
        if let Some(&value) = self.consed.get(&cons_key) {
            return Ok(value);
        }
        let named: Vec<_> = attributes
            .iter()
            .map(|(attribute, value)| (Identifier::new(self.context, attribute), *value))
            .collect();
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&[result])
            .add_attributes(&named)
            .build()
            .map_err(|e| self.error(format!("cannot build {name}: {e}")))?;
        let value = self.insert(op)?;
        self.consed.insert(cons_key, value);
        Ok(value)
    }

    /// A 0-d `ui64` constant.
    fn constant(&mut self, value: u64) -> Result<Value<'c, 'a>, Diagnostic> {
        let attribute = self.attribute(&format!("dense<{value}> : tensor<ui64>"))?;
        let r#type = self.index_type();
        self.emit("stablehlo.constant", &[], r#type, &[("value", attribute)])
    }

    fn arith(
        &mut self,
        name: &str,
        lhs: Value<'c, 'a>,
        rhs: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        let r#type = self.index_type();
        self.emit(name, &[lhs, rhs], r#type, &[])
    }

    /// `start` clamped into `[0, size)` as dynamic_slice would, as `ui64`.
    fn clamp_index(
        &mut self,
        start: Value<'c, 'a>,
        size: u64,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        if size == 1 {
            return self.constant(0);
        }
        let r#type = start.r#type();
        let low = self.attribute(&format!("dense<0> : {type}"))?;
        let high = self.attribute(&format!("dense<{}> : {type}", size - 1))?;
        let low = self.emit("stablehlo.constant", &[], r#type, &[("value", low)])?;
        let high = self.emit("stablehlo.constant", &[], r#type, &[("value", high)])?;
        let clamped = self.emit("stablehlo.clamp", &[low, start, high], r#type, &[])?;
        if r#type == self.index_type() {
            Ok(clamped)
        } else {
            let index = self.index_type();
            self.emit("stablehlo.convert", &[clamped], index, &[])
        }
    }

    /// Rewrites one one-element `dynamic_slice`, unless its operand is not
    /// worth pushing into.
    fn rewrite(&mut self, slice: OperationRef<'c, 'a>) -> Result<(), Diagnostic> {
        let (Ok(operand), Ok(result)) = (slice.operand(0), slice.result(0)) else {
            return Ok(());
        };
        let Some(shape) = static_shape(operand.r#type()) else {
            return Ok(());
        };
        if !defining_op(operand).is_some_and(|op| pushable(&op_name(&op))) {
            return Ok(());
        }
        self.before = Some(slice);
        self.location = slice.location();
        let mut indices = Vec::with_capacity(shape.len());
        for (dim, &size) in shape.iter().enumerate() {
            let start = slice
                .operand(dim + 1)
                .map_err(|e| self.error(format!("dynamic_slice start {dim}: {e}")))?;
            indices.push(self.clamp_index(start, size)?);
        }
        let element = self.select_at(operand, &indices, 0)?;
        let replacement = self.emit("stablehlo.reshape", &[element], result.r#type(), &[])?;
        replace_all_uses(result, replacement);
        Ok(())
    }

    /// The element of `value` at `indices` (in-range `ui64` values, one per
    /// dimension) as a 0-d tensor.
    fn select_at(
        &mut self,
        value: Value<'c, 'a>,
        indices: &[Value<'c, 'a>],
        depth: usize,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        if indices.is_empty() {
            return Ok(value);
        }
        let memo_key = (key(value), indices.iter().map(|&v| key(v)).collect());
        if let Some(&found) = self.memo.get(&memo_key) {
            return Ok(found);
        }
        let pushed = if depth >= MAX_DEPTH || self.emitted >= MAX_EMITTED {
            None
        } else {
            self.push(value, indices, depth)?
        };
        let selected = match pushed {
            Some(selected) => selected,
            None => self.plain(value, indices)?,
        };
        self.memo.insert(memo_key, selected);
        Ok(selected)
    }

    /// A one-element `dynamic_slice` of `value`, reshaped to 0-d.
    fn plain(
        &mut self,
        value: Value<'c, 'a>,
        indices: &[Value<'c, 'a>],
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        let element = element_type(value.r#type())
            .ok_or_else(|| self.error(format!("{} is not a ranked tensor", value.r#type())))?;
        let ones = vec![1; indices.len()];
        let sizes = DenseI64ArrayAttribute::new(self.context, &vec![1; indices.len()]).into();
        let mut operands = vec![value];
        operands.extend_from_slice(indices);
        let one = self.emit(
            "stablehlo.dynamic_slice",
            &operands,
            tensor_type(&ones, element),
            &[("slice_sizes", sizes)],
        )?;
        self.emit("stablehlo.reshape", &[one], tensor_type(&[], element), &[])
    }

    /// Pushes the selection into the op defining `value`; `None` where it
    /// does not apply (the caller emits a plain slice).
    fn push(
        &mut self,
        value: Value<'c, 'a>,
        indices: &[Value<'c, 'a>],
        depth: usize,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Some(op) = defining_op(value) else {
            return Ok(None);
        };
        let (Some(shape), Some(element)) =
            (static_shape(value.r#type()), element_type(value.r#type()))
        else {
            return Ok(None);
        };
        if shape.len() != indices.len() || op.result_count() != 1 {
            return Ok(None);
        }
        let name = op_name(&op);
        match name.as_str() {
            _ if is_elementwise(&name) => self.elementwise(op, &shape, element, indices, depth),
            "stablehlo.broadcast_in_dim" => self.broadcast(op, indices, depth),
            "stablehlo.reshape" => self.reshape(op, &shape, indices, depth),
            "stablehlo.transpose" => self.transpose(op, indices, depth),
            "stablehlo.dot_general" => self.dot_general(op, element, indices),
            "stablehlo.convolution" => self.convolution(op, element, indices),
            "stablehlo.constant" => self.splat(op, element),
            _ => Ok(None),
        }
    }

    fn elementwise(
        &mut self,
        op: OperationRef<'c, 'a>,
        shape: &[u64],
        element: Type<'c>,
        indices: &[Value<'c, 'a>],
        depth: usize,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let mut operands = Vec::with_capacity(op.operand_count());
        for operand in op.operands() {
            match static_shape(operand.r#type()) {
                Some(dims) if dims.is_empty() => operands.push(operand),
                Some(dims) if dims == shape => {
                    operands.push(self.select_at(operand, indices, depth + 1)?)
                }
                _ => return Ok(None),
            }
        }
        let mut scalar = clone_op(&op);
        for (index, operand) in operands.into_iter().enumerate() {
            scalar.set_operand(index, operand);
        }
        let result = scalar
            .result(0)
            .map_err(|e| self.error(format!("cloned op has no result: {e}")))?;
        set_type(result, tensor_type(&[], element));
        self.insert(scalar).map(Some)
    }

    fn broadcast(
        &mut self,
        op: OperationRef<'c, 'a>,
        indices: &[Value<'c, 'a>],
        depth: usize,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Ok(operand) = op.operand(0) else {
            return Ok(None);
        };
        let Some(operand_shape) = static_shape(operand.r#type()) else {
            return Ok(None);
        };
        let Some(dims) = i64_array(&op, "broadcast_dimensions") else {
            return Ok(None);
        };
        if dims.len() != operand_shape.len() {
            return Ok(None);
        }
        let mut selected = Vec::with_capacity(dims.len());
        for (&size, &dim) in operand_shape.iter().zip(&dims) {
            let Some(&index) = usize::try_from(dim).ok().and_then(|d| indices.get(d)) else {
                return Ok(None);
            };
            selected.push(if size == 1 { self.constant(0)? } else { index });
        }
        self.select_at(operand, &selected, depth + 1).map(Some)
    }

    fn reshape(
        &mut self,
        op: OperationRef<'c, 'a>,
        shape: &[u64],
        indices: &[Value<'c, 'a>],
        depth: usize,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Ok(operand) = op.operand(0) else {
            return Ok(None);
        };
        let Some(operand_shape) = static_shape(operand.r#type()) else {
            return Ok(None);
        };
        let elements = |dims: &[u64]| dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        match (elements(&operand_shape), elements(shape)) {
            (Some(a), Some(b)) if a == b => {}
            _ => return Ok(None),
        }
        let non_unit = |dims: &[u64]| dims.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
        let mut selected = Vec::with_capacity(operand_shape.len());
        if non_unit(&operand_shape) == non_unit(shape) {
            // Only unit dims are inserted or removed: the non-unit indices
            // carry over in order.
            let mut carried = shape
                .iter()
                .zip(indices)
                .filter(|(&size, _)| size != 1)
                .map(|(_, &index)| index);
            for &size in &operand_shape {
                selected.push(match size {
                    1 => self.constant(0)?,
                    _ => match carried.next() {
                        Some(index) => index,
                        None => return Ok(None),
                    },
                });
            }
        } else {
            // Row-major flat index of the result coordinate...
            let mut flat: Option<Value<'c, 'a>> = None;
            for (&size, &index) in shape.iter().zip(indices) {
                if size == 1 {
                    continue;
                }
                flat = Some(match flat {
                    None => index,
                    Some(acc) => {
                        let size = self.constant(size)?;
                        let scaled = self.arith("stablehlo.multiply", acc, size)?;
                        self.arith("stablehlo.add", scaled, index)?
                    }
                });
            }
            let Some(mut flat) = flat else {
                return Ok(None);
            };
            // ... split by the operand's sizes, innermost first.
            let first = operand_shape.iter().position(|&size| size != 1);
            let mut split = vec![None; operand_shape.len()];
            for (dim, &size) in operand_shape.iter().enumerate().rev() {
                split[dim] = Some(if size == 1 {
                    self.constant(0)?
                } else if Some(dim) == first {
                    flat
                } else {
                    let divisor = self.constant(size)?;
                    let index = self.arith("stablehlo.remainder", flat, divisor)?;
                    flat = self.arith("stablehlo.divide", flat, divisor)?;
                    index
                });
            }
            match split.into_iter().collect::<Option<Vec<_>>>() {
                Some(split) => selected = split,
                None => return Ok(None),
            }
        }
        self.select_at(operand, &selected, depth + 1).map(Some)
    }

    fn transpose(
        &mut self,
        op: OperationRef<'c, 'a>,
        indices: &[Value<'c, 'a>],
        depth: usize,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Ok(operand) = op.operand(0) else {
            return Ok(None);
        };
        let Some(permutation) = i64_array(&op, "permutation") else {
            return Ok(None);
        };
        if permutation.len() != indices.len() {
            return Ok(None);
        }
        let mut selected = vec![None; indices.len()];
        for (&dim, &index) in permutation.iter().zip(indices) {
            match usize::try_from(dim).ok().and_then(|d| selected.get_mut(d)) {
                Some(slot @ None) => *slot = Some(index),
                _ => return Ok(None),
            }
        }
        let selected: Option<Vec<_>> = selected.into_iter().collect();
        match selected {
            Some(selected) => self.select_at(operand, &selected, depth + 1).map(Some),
            None => Ok(None),
        }
    }

    /// `result[batch..., i..., j...]` = the lhs row at `(batch, i)` times the
    /// rhs column at `(batch, j)`.
    fn dot_general(
        &mut self,
        op: OperationRef<'c, 'a>,
        element: Type<'c>,
        indices: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let (Ok(lhs), Ok(rhs)) = (op.operand(0), op.operand(1)) else {
            return Ok(None);
        };
        let (Some(lhs_shape), Some(rhs_shape)) =
            (static_shape(lhs.r#type()), static_shape(rhs.r#type()))
        else {
            return Ok(None);
        };
        let Ok(numbers) = op.attribute("dot_dimension_numbers") else {
            return Ok(None);
        };
        let Ok(DotDimensions {
            lhs_batching: lhs_batch,
            rhs_batching: rhs_batch,
            lhs_contracting: lhs_contract,
            rhs_contracting: rhs_contract,
        }) = DotDimensions::parse(&numbers.to_string())
        else {
            return Ok(None);
        };
        if lhs_batch.len() != rhs_batch.len() {
            return Ok(None);
        }
        let lhs_free = lhs_shape.len() - lhs_shape.len().min(lhs_batch.len() + lhs_contract.len());
        let rhs_free = rhs_shape.len() - rhs_shape.len().min(rhs_batch.len() + rhs_contract.len());
        if lhs_batch.len() + lhs_free + rhs_free != indices.len() {
            return Ok(None);
        }
        let batch = lhs_batch.len();
        let Some(lhs_row) = self.operand_slice(
            lhs,
            &lhs_shape,
            &lhs_batch,
            &lhs_contract,
            &indices[..batch],
            &indices[batch..batch + lhs_free],
        )?
        else {
            return Ok(None);
        };
        let Some(rhs_column) = self.operand_slice(
            rhs,
            &rhs_shape,
            &rhs_batch,
            &rhs_contract,
            &indices[..batch],
            &indices[batch + lhs_free..],
        )?
        else {
            return Ok(None);
        };
        let mut dot = clone_op(&op);
        dot.set_operand(0, lhs_row);
        dot.set_operand(1, rhs_column);
        self.insert_as_scalar(dot, indices.len(), element)
    }

    /// The slice of a `dot_general` operand at the given batch and free
    /// indices, with every contracting element.
    fn operand_slice(
        &mut self,
        operand: Value<'c, 'a>,
        shape: &[u64],
        batching: &[usize],
        contracting: &[usize],
        batch: &[Value<'c, 'a>],
        free: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Some(element) = element_type(operand.r#type()) else {
            return Ok(None);
        };
        let mut starts = Vec::with_capacity(shape.len());
        let mut sizes = Vec::with_capacity(shape.len());
        let mut free = free.iter();
        for (dim, &size) in shape.iter().enumerate() {
            if let Some(position) = batching.iter().position(|&d| d == dim) {
                let Some(&index) = batch.get(position) else {
                    return Ok(None);
                };
                starts.push(index);
                sizes.push(1);
            } else if contracting.contains(&dim) {
                starts.push(self.constant(0)?);
                sizes.push(size);
            } else {
                let Some(&index) = free.next() else {
                    return Ok(None);
                };
                starts.push(index);
                sizes.push(1);
            }
        }
        if free.next().is_some() {
            return Ok(None);
        }
        if sizes == shape {
            return Ok(Some(operand));
        }
        let slice_sizes: Vec<i64> = sizes.iter().map(|&size| size as i64).collect();
        let attribute = DenseI64ArrayAttribute::new(self.context, &slice_sizes).into();
        let mut operands = vec![operand];
        operands.extend(starts);
        self.emit(
            "stablehlo.dynamic_slice",
            &operands,
            tensor_type(&sizes, element),
            &[("slice_sizes", attribute)],
        )
        .map(Some)
    }

    /// One output element of a convolution (no feature or batch groups): the
    /// same convolution of the input window at that position (in the input
    /// padded and dilated explicitly by `pad`) and the kernel's slice at
    /// that output feature, with unit strides, no padding and no input
    /// dilation.
    fn convolution(
        &mut self,
        op: OperationRef<'c, 'a>,
        element: Type<'c>,
        indices: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Some(plan) = ConvPlan::of(&op, indices.len()) else {
            return Ok(None);
        };
        let (Ok(lhs), Ok(rhs)) = (op.operand(0), op.operand(1)) else {
            return Ok(None);
        };
        let Some(lhs_element) = element_type(lhs.r#type()) else {
            return Ok(None);
        };
        // The input padded and dilated as the convolution sees it.
        let padded = if plan.padded_shape == plan.lhs_shape {
            lhs
        } else {
            let text = lhs_element.to_string();
            let zero = if is_integer(lhs_element) {
                "0"
            } else if text.starts_with('f') || text.starts_with("bf") {
                "0.0"
            } else {
                return Ok(None);
            };
            let zero = self.attribute(&format!("dense<{zero}> : tensor<{lhs_element}>"))?;
            let scalar = tensor_type(&[], lhs_element);
            let zero = self.emit("stablehlo.constant", &[], scalar, &[("value", zero)])?;
            let array = |values: &[i64]| DenseI64ArrayAttribute::new(self.context, values).into();
            self.emit(
                "stablehlo.pad",
                &[lhs, zero],
                tensor_type(&plan.padded_shape, lhs_element),
                &[
                    ("edge_padding_low", array(&plan.low)),
                    ("edge_padding_high", array(&plan.high)),
                    ("interior_padding", array(&plan.interior)),
                ],
            )?
        };
        // The window at the output position.
        let mut starts = Vec::with_capacity(plan.lhs_shape.len());
        let mut sizes = plan.padded_shape.clone();
        for (dim, size) in sizes.iter_mut().enumerate() {
            starts.push(if dim == plan.lhs.batch {
                *size = 1;
                indices[plan.out.batch]
            } else if let Some(k) = plan.lhs.spatial.iter().position(|&d| d == dim) {
                *size = plan.window[k];
                let index = indices[plan.out.spatial[k]];
                match plan.strides[k] {
                    1 => index,
                    stride => {
                        let stride = self.constant(stride)?;
                        self.arith("stablehlo.multiply", index, stride)?
                    }
                }
            } else {
                self.constant(0)?
            });
        }
        let Some(window) = self.slice(padded, &plan.padded_shape, starts, &sizes)? else {
            return Ok(None);
        };
        // The kernel at the output feature.
        let mut starts = Vec::with_capacity(plan.rhs_shape.len());
        let mut sizes = plan.rhs_shape.clone();
        for (dim, size) in sizes.iter_mut().enumerate() {
            starts.push(if dim == plan.rhs.feature {
                *size = 1;
                indices[plan.out.feature]
            } else {
                self.constant(0)?
            });
        }
        let Some(kernel) = self.slice(rhs, &plan.rhs_shape, starts, &sizes)? else {
            return Ok(None);
        };
        let mut conv = clone_op(&op);
        conv.set_operand(0, window);
        conv.set_operand(1, kernel);
        let spatial = plan.window.len();
        for (name, text) in [
            (
                "window_strides",
                format!("array<i64{}>", ones_list(spatial)),
            ),
            ("lhs_dilation", format!("array<i64{}>", ones_list(spatial))),
            ("padding", format!("dense<0> : tensor<{spatial}x2xi64>")),
        ] {
            if conv.attribute(name).is_ok() {
                let attribute = self.attribute(&text)?;
                conv.set_attribute(name, attribute);
            }
        }
        self.insert_as_scalar(conv, indices.len(), element)
    }

    /// Insert a rewritten clone whose result is the one selected element (of
    /// shape `1x..x1`, `rank` ones), and reshape that to a scalar.
    fn insert_as_scalar(
        &mut self,
        op: Operation<'c>,
        rank: usize,
        element: Type<'c>,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let result = op
            .result(0)
            .map_err(|e| self.error(format!("cloned op has no result: {e}")))?;
        set_type(result, tensor_type(&vec![1; rank], element));
        let one = self.insert(op)?;
        self.emit("stablehlo.reshape", &[one], tensor_type(&[], element), &[])
            .map(Some)
    }

    /// `dynamic_slice(value, starts) {sizes}`, or `value` when the sizes are
    /// its whole shape.
    fn slice(
        &mut self,
        value: Value<'c, 'a>,
        shape: &[u64],
        starts: Vec<Value<'c, 'a>>,
        sizes: &[u64],
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        if sizes == shape {
            return Ok(Some(value));
        }
        let Some(element) = element_type(value.r#type()) else {
            return Ok(None);
        };
        let slice_sizes: Vec<i64> = sizes.iter().map(|&size| size as i64).collect();
        let attribute = DenseI64ArrayAttribute::new(self.context, &slice_sizes).into();
        let mut operands = vec![value];
        operands.extend(starts);
        self.emit(
            "stablehlo.dynamic_slice",
            &operands,
            tensor_type(sizes, element),
            &[("slice_sizes", attribute)],
        )
        .map(Some)
    }

    /// A splat constant's element as a 0-d constant.
    fn splat(
        &mut self,
        op: OperationRef<'c, 'a>,
        element: Type<'c>,
    ) -> Result<Option<Value<'c, 'a>>, Diagnostic> {
        let Some(dense) = op
            .attribute("value")
            .ok()
            .and_then(|attribute| DenseElementsAttribute::try_from(attribute).ok())
        else {
            return Ok(None);
        };
        if !dense.is_splat() {
            return Ok(None);
        }
        let scalar = tensor_type(&[], element);
        let value = DenseElementsAttribute::splat(scalar, dense.splat_value()).into();
        self.emit("stablehlo.constant", &[], scalar, &[("value", value)])
            .map(Some)
    }
}

/// `", 1, 1, ..."` with `count` ones (the tail of an `array<i64...>`).
fn ones_list(count: usize) -> String {
    match count {
        0 => String::new(),
        _ => format!(": {}", vec!["1"; count].join(", ")),
    }
}

/// What pushing a selection into one convolution needs, read and checked
/// from its attributes and operand shapes.
struct ConvPlan {
    lhs: ConvLayout,
    /// The kernel: `batch` is its input feature, `feature` its output feature.
    rhs: ConvLayout,
    out: ConvLayout,
    lhs_shape: Vec<u64>,
    rhs_shape: Vec<u64>,
    /// The input after explicit padding and dilation.
    padded_shape: Vec<u64>,
    low: Vec<i64>,
    high: Vec<i64>,
    interior: Vec<i64>,
    /// Per spatial dimension: the stride and the dilated kernel extent.
    strides: Vec<u64>,
    window: Vec<u64>,
}

impl ConvPlan {
    /// The plan for `op`, or `None` where the pass does not push into it
    /// (groups, the long layout form, shapes that do not line up, ...).
    fn of(op: &OperationRef<'_, '_>, rank: usize) -> Option<ConvPlan> {
        for name in ["feature_group_count", "batch_group_count"] {
            if let Ok(attribute) = op.attribute(name) {
                if IntegerAttribute::try_from(attribute).ok()?.value() != 1 {
                    return None;
                }
            }
        }
        let numbers = op.attribute("dimension_numbers").ok()?.to_string();
        let numbers = ConvDimensions::parse(&numbers).ok()?;
        let (lhs, rhs, out) = (numbers.input(), numbers.kernel(), numbers.output());
        let spatial = lhs.spatial.len();
        if rhs.spatial.len() != spatial || out.spatial.len() != spatial || rank != spatial + 2 {
            return None;
        }
        let lhs_shape = static_shape(op.operand(0).ok()?.r#type())?;
        let rhs_shape = static_shape(op.operand(1).ok()?.r#type())?;
        if lhs_shape.len() != rank || rhs_shape.len() != rank {
            return None;
        }
        let array = |name: &str| match op.attribute(name) {
            Ok(_) => i64_array(op, name),
            Err(_) => Some(vec![1; spatial]),
        };
        let strides = array("window_strides")?;
        let lhs_dilation = array("lhs_dilation")?;
        let rhs_dilation = array("rhs_dilation")?;
        let padding: Vec<i64> = match op.attribute("padding") {
            Err(_) => vec![0; 2 * spatial],
            Ok(attribute) => {
                let dense = DenseElementsAttribute::try_from(attribute).ok()?;
                (0..dense.len())
                    .map(|index| dense.i64_element(index).ok())
                    .collect::<Option<_>>()?
            }
        };
        if [&strides, &lhs_dilation, &rhs_dilation]
            .iter()
            .any(|values| values.len() != spatial || values.iter().any(|&v| v < 1))
            || padding.len() != 2 * spatial
        {
            return None;
        }
        let mut low = vec![0; rank];
        let mut high = vec![0; rank];
        let mut interior = vec![0; rank];
        let mut padded_shape = lhs_shape.clone();
        let mut window = Vec::with_capacity(spatial);
        for k in 0..spatial {
            let dim = lhs.spatial[k];
            low[dim] = padding[2 * k];
            high[dim] = padding[2 * k + 1];
            interior[dim] = lhs_dilation[k] - 1;
            // In i128, so absurd attribute values cannot overflow.
            let size = i128::from(lhs_shape[dim]);
            let padded = i128::from(low[dim])
                + i128::from(high[dim])
                + size
                + (size - 1).max(0) * i128::from(interior[dim]);
            let kernel = i128::from(rhs_shape[rhs.spatial[k]]);
            let extent = (kernel - 1) * i128::from(rhs_dilation[k]) + 1;
            if kernel < 1 || padded < extent {
                return None;
            }
            padded_shape[dim] = u64::try_from(padded).ok()?;
            window.push(u64::try_from(extent).ok()?);
        }
        Some(ConvPlan {
            lhs,
            rhs,
            out,
            lhs_shape,
            rhs_shape,
            padded_shape,
            low,
            high,
            interior,
            strides: strides.iter().map(|&s| s as u64).collect(),
            window,
        })
    }
}

/// The operand of `value`'s defining op if that is a `reshape`.
fn reshape_source<'c: 'a, 'a>(value: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    defining_op(value)
        .filter(|op| op_name(op) == "stablehlo.reshape")?
        .operand(0)
        .ok()
}

/// Whether the selection can be pushed into an op of this name.
fn pushable(name: &str) -> bool {
    is_elementwise(name)
        || matches!(
            name,
            "stablehlo.broadcast_in_dim"
                | "stablehlo.reshape"
                | "stablehlo.transpose"
                | "stablehlo.dot_general"
                | "stablehlo.convolution"
                | "stablehlo.constant"
        )
}

fn i64_array(op: &OperationRef<'_, '_>, name: &str) -> Option<Vec<i64>> {
    let array = DenseI64ArrayAttribute::try_from(op.attribute(name).ok()?).ok()?;
    (0..array.len())
        .map(|index| array.element(index).ok())
        .collect()
}

/// The `ui64` element type.
fn ui64(context: &melior::Context) -> Type<'_> {
    melior::ir::r#type::IntegerType::unsigned(context, 64).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cost_report::flops, ir::print_generic, registry, roles::find_function, IrContext};

    const STEP: &str = r#""func.func"() <{function_type = (tensor<4x8xf32>, tensor<8x16xf32>, tensor<ui64>) -> tensor<1xf32>, sym_name = "zkdv_attested"}> ({
^bb0(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %i: tensor<ui64>):
  %d = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %t = "stablehlo.transpose"(%d) <{permutation = array<i64: 1, 0>}> : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %e = "stablehlo.exponential"(%t) : (tensor<16x4xf32>) -> tensor<16x4xf32>
  %r = "stablehlo.reshape"(%e) : (tensor<16x4xf32>) -> tensor<64xf32>
  %one = "stablehlo.dynamic_slice"(%r, %i) <{slice_sizes = array<i64: 1>}> : (tensor<64xf32>, tensor<ui64>) -> tensor<1xf32>
  "func.return"(%one) : (tensor<1xf32>) -> ()
}) : () -> ()
"#;

    fn total(module: &Module<'_>) -> u64 {
        let func = find_function(module, ATTESTED).expect("has the function");
        flops(func).expect("has a cost").total
    }

    #[test]
    fn pushes_through_a_chain_and_is_idempotent() {
        let context = IrContext::new();
        let module = context.parse(STEP, "step.mlir").expect("parses");
        assert_eq!(total(&module), 2 * 4 * 8 * 16 + 64);
        run(&module, &mut PassOptions::default()).expect("runs");
        // What the pipeline runs next: the bypassed ops are dead.
        crate::dce::eliminate_dead_code(&module);
        context.verify(&module).expect("verifies");
        // One row times one column, one exponential, clamp, div and rem.
        assert_eq!(total(&module), 2 * 8 + 1 + 3);
        let text = print_generic(&module).unwrap();
        assert!(!text.contains("tensor<4x16xf32>"), "{text}");
        // A second run finds no slice worth pushing into.
        run(&module, &mut PassOptions::default()).expect("runs again");
        crate::dce::eliminate_dead_code(&module);
        assert_eq!(print_generic(&module).unwrap(), text);
    }

    #[test]
    fn unknown_option_and_missing_function_are_diagnostics() {
        let context = IrContext::new();
        let module = context.parse(STEP, "step.mlir").expect("parses");
        let pass = registry::find("zkdv-push-select").expect("registered");
        let error = pass.parse_options("function=f").unwrap_err();
        assert!(
            error.to_string().contains("unknown option `function=f`"),
            "{error}"
        );
        let mut options = PassOptions {
            values: pass.parse_options("func=missing").expect("parses"),
            ..PassOptions::default()
        };
        let error = run(&module, &mut options).unwrap_err();
        assert!(
            error.to_string().contains("no function @missing"),
            "{error}"
        );
    }
}
