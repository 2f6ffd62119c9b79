//! Reductions: `reduce` and `reduce_window` (both variadic),
//! `select_and_scatter` and `reduce_precision`, following the StableHLO
//! specification.
//!
//! Order of evaluation (the project's reference order; the specification
//! leaves it implementation-defined, so ZKDV fixes it here and every
//! backend must reproduce it):
//! - `reduce`: each result element starts from the init values and folds
//!   the reduced elements in row-major order of the reduced dimensions
//!   (ascending axis order), `acc = body(acc..., element...)`; except a
//!   float sum or product (a body that is a single `add` or `multiply`),
//!   whose elements, in that order, are combined as a [`Cascade`] and the
//!   result combined with the init value, `body(init, cascade)`: a
//!   sequential sum of `n` terms errs by up to about `n` units of roundoff,
//!   which a sum that cancels (a variance, a gradient that is zero in exact
//!   arithmetic) magnifies; the cascade errs by about `64 + log2(n / 64)`. XLA
//!   also sums in blocks (see `docs/runtime.md` for the measurement that
//!   made the runtime change).
//! - `reduce_window`: each window starts from the init values and folds its
//!   positions in row-major order of the window (a float sum or product as
//!   a cascade, as `reduce`); a position that falls in the edge padding or in
//!   a base-dilation hole contributes the init value (it is an element of
//!   the padded input, as the specification defines).
//! - `select_and_scatter`: each window's selection starts from its first
//!   in-bounds position (padding never selects) and, for each later one in
//!   row-major order, keeps the current choice when `select(current,
//!   candidate)` is true; then every result element starts at `init_value`
//!   and the source values whose window selected it are combined in
//!   row-major order of `source`, `acc = scatter(acc, source_value)`.
//!
//! A body that is a single binary op ([`Combiner`]) is applied directly on
//! the typed data with the IEEE semantics of `stablehlo.add` & co. (each
//! `f16`/`bf16` step rounded, max/min NaN and signed-zero rules, wrapping
//! integers): bit-identical to running the body in the order above.

use melior::ir::OperationRef;

use super::decoded::{comparator, Comparison, ReduceAttrs};
use super::scalar::{
    compare_elements, for_each_index, mismatch, promote, scalar_at, store, strides, Kernel,
};
use super::{arity, Body, Combiner, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &[
    "stablehlo.reduce",
    "stablehlo.reduce_precision",
    "stablehlo.reduce_window",
    "stablehlo.select_and_scatter",
];

/// Evaluates the reduction ops; `Ok(None)` for any other name.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    match name {
        "stablehlo.reduce" => {
            let ReduceAttrs {
                results,
                dimensions,
            } = ReduceAttrs::decode(op)?;
            let body = regions.body(0)?;
            let (inputs, inits) = split_inputs(operands, results.len())?;
            reduce(inputs, inits, &dimensions, body.as_ref(), &results).map(Some)
        }
        "stablehlo.reduce_window" => {
            let types = attrs::result_types(op)?;
            let (inputs, inits) = split_inputs(operands, types.len())?;
            let rank = inputs[0].shape.len();
            let window = Window {
                dimensions: attrs::i64_array(op, "window_dimensions")?,
                strides: attrs::i64_array_or(op, "window_strides", vec![1; rank])?,
                base_dilations: attrs::i64_array_or(op, "base_dilations", vec![1; rank])?,
                window_dilations: attrs::i64_array_or(op, "window_dilations", vec![1; rank])?,
                padding: padding(op, rank)?,
            };
            let body = regions.body(0)?;
            reduce_window(inputs, inits, &window, body.as_ref(), &types).map(Some)
        }
        "stablehlo.select_and_scatter" => {
            arity(operands, 3)?;
            let rank = operands[0].shape.len();
            let window = Window {
                dimensions: attrs::i64_array(op, "window_dimensions")?,
                strides: attrs::i64_array_or(op, "window_strides", vec![1; rank])?,
                base_dilations: vec![1; rank],
                window_dilations: vec![1; rank],
                padding: padding(op, rank)?,
            };
            let select = regions.body(0)?;
            let scatter = regions.body(1)?;
            let fast = comparator(op, 0);
            let element = attrs::result_type(op, 0)?.element;
            select_and_scatter(
                operands,
                &window,
                select.as_ref(),
                fast,
                scatter.as_ref(),
                element,
            )
            .map(|t| Some(vec![t]))
        }
        "stablehlo.reduce_precision" => {
            arity(operands, 1)?;
            let exponent_bits = attrs::integer(op, "exponent_bits")?;
            let mantissa_bits = attrs::integer(op, "mantissa_bits")?;
            Ok(Some(vec![reduce_precision(
                operands[0],
                exponent_bits,
                mantissa_bits,
            )?]))
        }
        _ => Ok(None),
    }
}

/// `inputs..., init_values...` with `n` of each.
fn split_inputs<'t>(
    operands: &'t [&'t Tensor],
    n: usize,
) -> Result<(&'t [&'t Tensor], &'t [&'t Tensor]), ValueError> {
    if n == 0 || operands.len() != 2 * n {
        return Err(mismatch(format!(
            "{} operands for {n} results",
            operands.len()
        )));
    }
    Ok(operands.split_at(n))
}

/// The `padding` attribute (`dense<[[lo, hi], ...]>`), zeros when absent.
fn padding(op: &OperationRef<'_, '_>, rank: usize) -> Result<Vec<(i64, i64)>, ValueError> {
    match attrs::dense(op, "padding")? {
        None => Ok(vec![(0, 0); rank]),
        Some(t) => {
            let Data::Signed(v) = &t.data else {
                return Err(mismatch("padding is not an integer tensor".into()));
            };
            if t.shape != [rank, 2] {
                return Err(mismatch(format!(
                    "padding of shape {:?} for rank {rank}",
                    t.shape
                )));
            }
            Ok(v.chunks_exact(2).map(|p| (p[0], p[1])).collect())
        }
    }
}

/// The reduction-specific part of [`Kernel`].
impl Kernel {
    /// For each output, folds `input` at the positions `plan` lists (the
    /// init value where `None`) starting from `init[0]`; `None` when the
    /// data classes do not fit the kernel. A float sum or product is folded
    /// as a [`Cascade`], everything else in order.
    fn fold(
        &self,
        input: &Data,
        init: &Data,
        outputs: usize,
        plan: &dyn Plan,
        combiner: Combiner,
    ) -> Option<Data> {
        fn run<T: Copy>(
            input: &[T],
            init: T,
            outputs: usize,
            plan: &dyn Plan,
            tree: bool,
            f: impl Fn(T, T) -> T,
        ) -> Vec<T> {
            let (mut buffer, mut values) = (Vec::new(), Vec::new());
            (0..outputs)
                .map(|o| {
                    plan.positions(o, &mut buffer);
                    let value = |p: &Option<usize>| p.map_or(init, |i| input[i]);
                    if !tree {
                        return buffer.iter().fold(init, |acc, p| f(acc, value(p)));
                    }
                    values.clear();
                    values.extend(buffer.iter().map(value));
                    cascade(&values, &f).map_or(init, |sum| f(init, sum))
                })
                .collect()
        }
        let tree = matches!(combiner, Combiner::Add | Combiner::Multiply);
        Some(match (*self, input, init) {
            (Kernel::F64(f), Data::F64(x), Data::F64(i)) => {
                Data::F64(run(x, *i.first()?, outputs, plan, tree, f))
            }
            (Kernel::F32(f, e), Data::F32(x), Data::F32(i)) => {
                Data::F32(run(x, *i.first()?, outputs, plan, tree, |a, b| {
                    e.round_f32(f(a, b))
                }))
            }
            // Integer and boolean sums are exact in any order.
            (Kernel::Bool(f), Data::Bool(x), Data::Bool(i)) => {
                Data::Bool(run(x, *i.first()?, outputs, plan, false, f))
            }
            (Kernel::Signed(f, e), Data::Signed(x), Data::Signed(i)) => {
                Data::Signed(run(x, *i.first()?, outputs, plan, false, |a, b| {
                    e.wrap_signed(f(a, b))
                }))
            }
            (Kernel::Unsigned(f, e), Data::Unsigned(x), Data::Unsigned(i)) => {
                Data::Unsigned(run(x, *i.first()?, outputs, plan, false, |a, b| {
                    e.wrap_unsigned(f(a, b))
                }))
            }
            _ => return None,
        })
    }
}

/// The blocks of a [`Cascade`]: this many values folded in order. (16 cost
/// a matrix product 1.4x, 64 about 1.1x, against one sequential fold;
/// `scripts/bench matmul`.)
pub const CASCADE_BLOCK: usize = 64;

/// Cascade summation: values are folded in order in blocks of
/// [`CASCADE_BLOCK`], each block from its first value, and the block
/// results are combined as a binary counter combines carries: a new block
/// result at level 0 is combined with (`f(older, newer)`) every result on
/// the stack of the same level, one level up each time, then pushed; at the
/// end the stack is combined from the newest down, `f(older, newer)` again.
/// For `2^j` blocks that is a balanced binary tree.
///
/// The rounding error of a float sum folded in order grows with the number
/// of terms `n` (about `n * u` relative to the sum of their magnitudes, `u`
/// the unit roundoff), which a sum that cancels (a variance computed as
/// `E[x^2] - E[x]^2`, a gradient that is zero in exact arithmetic) turns
/// into a large error of the result; the cascade's grows with
/// `CASCADE_BLOCK + log2(n / CASCADE_BLOCK)`. It streams with `O(log n)` state, so a
/// matrix product's register tile and a GPU thread sum the same way.
pub struct Cascade<T> {
    stack: Vec<(T, u32)>,
}

impl<T: Clone> Cascade<T> {
    /// An empty cascade.
    pub fn new() -> Self {
        Cascade { stack: Vec::new() }
    }

    /// Adds the result of the next block.
    pub fn push(&mut self, block: T, f: &impl Fn(T, T) -> T) {
        self.push_at(block, 0, f);
    }

    /// The combined result, `None` without blocks.
    pub fn finish(mut self, f: &impl Fn(T, T) -> T) -> Option<T> {
        let (mut acc, _) = self.stack.pop()?;
        while let Some((older, _)) = self.stack.pop() {
            acc = f(older, acc);
        }
        Some(acc)
    }
}

impl<T: Clone> Cascade<T> {
    /// Adds the result of `2^level` blocks combined as a balanced tree (what
    /// [`Cascade::push`] leaves of them when the blocks pushed before are a
    /// multiple of `2^level`, as the caller guarantees): the same stack as
    /// pushing those blocks one by one. A block is a tree of level 0.
    fn push_at(&mut self, mut tree: T, mut level: u32, f: &impl Fn(T, T) -> T) {
        while let Some((older, l)) = self.stack.last() {
            if *l != level {
                break;
            }
            tree = f(older.clone(), tree);
            self.stack.pop();
            level += 1;
        }
        self.stack.push((tree, level));
    }
}

impl<T: Clone> Default for Cascade<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `values` combined by `f` as a [`Cascade`]; `None` when empty.
pub fn cascade<T: Clone>(values: &[T], f: &impl Fn(T, T) -> T) -> Option<T> {
    let mut c = Cascade::new();
    for block in values.chunks(CASCADE_BLOCK) {
        let (first, rest) = block.split_first()?;
        c.push(
            rest.iter().fold(first.clone(), |acc, x| f(acc, x.clone())),
            f,
        );
    }
    c.finish(f)
}

/// [`cascade`] of a slice, on rayon's pool when it is long: runs of
/// `2^PARALLEL_LEVEL` whole blocks, each a balanced tree, are summed in
/// parallel and pushed in order ([`Cascade::push_at`]), then the blocks
/// after the last whole run; the same combinations in the same order as
/// [`cascade`], so the same bits.
fn cascade_slice<T: Copy + Send + Sync>(
    values: &[T],
    f: &(impl Fn(T, T) -> T + Sync),
) -> Option<T> {
    use rayon::prelude::*;
    /// Runs of 1,024 blocks (65,536 values).
    const PARALLEL_LEVEL: u32 = 10;
    let run = CASCADE_BLOCK << PARALLEL_LEVEL;
    if values.len() < 2 * run {
        return cascade(values, f);
    }
    let whole = values.len() / run * run;
    let trees: Vec<T> = values[..whole]
        .par_chunks(run)
        .map(|chunk| cascade(chunk, f))
        .collect::<Option<Vec<T>>>()?;
    let mut c = Cascade::new();
    for tree in trees {
        c.push_at(tree, PARALLEL_LEVEL, f);
    }
    for block in values[whole..].chunks(CASCADE_BLOCK) {
        let (first, rest) = block.split_first()?;
        c.push(rest.iter().fold(*first, |acc, &x| f(acc, x)), f);
    }
    c.finish(f)
}

/// [`cascade`] of the values an iterator yields, without gathering them.
fn cascade_iter<T: Copy>(mut values: impl Iterator<Item = T>, f: &impl Fn(T, T) -> T) -> Option<T> {
    let mut c = Cascade::new();
    while let Some(first) = values.next() {
        let block = values.by_ref().take(CASCADE_BLOCK - 1).fold(first, f);
        c.push(block, f);
    }
    c.finish(f)
}

/// The input positions each output folds, in fold order (`None`: the init
/// value).
trait Plan {
    fn positions(&self, output: usize, out: &mut Vec<Option<usize>>);
}

/// `reduce`: a base offset per output plus the same offsets for all.
struct ReducePlan {
    bases: Vec<usize>,
    offsets: Vec<usize>,
}

impl Plan for ReducePlan {
    fn positions(&self, output: usize, out: &mut Vec<Option<usize>>) {
        out.clear();
        let base = self.bases[output];
        out.extend(self.offsets.iter().map(|&o| Some(base + o)));
    }
}

/// Folds `inputs` (already of the result element types) per `plan` with
/// `body`, using the combiner fast path when it applies.
fn fold_all(
    inputs: &[Tensor],
    inits: &[Tensor],
    outputs: usize,
    result_shape: &[usize],
    plan: &dyn Plan,
    body: &dyn Body,
) -> Result<Vec<Tensor>, OpError> {
    if let ([input], [init], Some(c)) = (inputs, inits, body.combiner()) {
        if let Some(kernel) = Kernel::new(c, input.element) {
            if let Some(data) = kernel.fold(&input.data, &init.data, outputs, plan, c) {
                return Ok(vec![Tensor::new(
                    input.element,
                    result_shape.to_vec(),
                    data,
                )?]);
            }
        }
    }
    let n = inputs.len();
    let mut results = inits
        .iter()
        .map(|init| {
            Tensor::new(
                init.element,
                result_shape.to_vec(),
                init.data.gather(&vec![0; outputs]),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut buffer = Vec::new();
    let mut args = Vec::with_capacity(2 * n);
    for o in 0..outputs {
        plan.positions(o, &mut buffer);
        let mut acc: Vec<Tensor> = inits.to_vec();
        for p in &buffer {
            args.clear();
            args.append(&mut acc);
            for (input, init) in inputs.iter().zip(inits) {
                args.push(match p {
                    Some(i) => scalar_at(input, *i)?,
                    None => init.clone(),
                });
            }
            acc = body.apply(&args)?;
            let ok = acc.len() == n
                && acc
                    .iter()
                    .zip(inits)
                    .all(|(a, i)| a.shape.is_empty() && a.element == i.element);
            if !ok {
                return Err(mismatch(
                    "the reduction body returned values of the wrong types".into(),
                )
                .into());
            }
        }
        for (r, a) in results.iter_mut().zip(&acc) {
            store(&mut r.data, r.element, o, a)?;
        }
    }
    Ok(results)
}

/// Converts inputs and inits to the result element types (the body's), and
/// checks shapes.
fn prepare(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    types: &[TensorType],
) -> Result<(Vec<Tensor>, Vec<Tensor>), ValueError> {
    if inputs.is_empty() || inputs.len() != inits.len() || inputs.len() != types.len() {
        return Err(mismatch(format!(
            "{} inputs, {} init values and {} results",
            inputs.len(),
            inits.len(),
            types.len()
        )));
    }
    let shape = &inputs[0].shape;
    let mut ins = Vec::with_capacity(inputs.len());
    let mut its = Vec::with_capacity(inputs.len());
    for ((input, init), ty) in inputs.iter().zip(inits).zip(types) {
        if &input.shape != shape || !init.shape.is_empty() || input.element != init.element {
            return Err(mismatch(format!(
                "reduction inputs {:?}{:?} and init {:?}{:?} do not match",
                input.element, input.shape, init.element, init.shape
            )));
        }
        ins.push(promote(input, ty.element)?);
        its.push(promote(init, ty.element)?);
    }
    Ok((ins, its))
}

/// `stablehlo.reduce` of `inputs` over `dimensions`.
pub fn reduce(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    dimensions: &[usize],
    body: &dyn Body,
    types: &[TensorType],
) -> Result<Vec<Tensor>, OpError> {
    if let Some(result) = reduce_with_kernel(inputs, inits, dimensions, body, types)? {
        return Ok(vec![result]);
    }
    let (inputs, inits) = prepare(inputs, inits, types)?;
    let ReduceLayout {
        result_shape,
        bases,
        offsets,
    } = reduce_layout(&inputs[0].shape, dimensions)?;
    let outputs = bases.len();
    let plan = ReducePlan { bases, offsets };
    fold_all(&inputs, &inits, outputs, &result_shape, &plan, body)
}

/// Result elements of a `reduce` beyond which they are computed on rayon's
/// pool, a block of them per task (each element folds its own values in
/// its own order, so how they are split changes nothing).
const PARALLEL_OUTPUTS: usize = 64;

/// `reduce` of one input, in its own element type, by a body that is a
/// single binary op with a [`Kernel`]: the values of each result element
/// are read where they lie, in the fold order of [`fold_all`], instead of
/// being listed and gathered; a reduction over the trailing dimensions
/// (every dimension, or each row) reads slices, and large results and long
/// sums run on rayon's pool. The same bits as [`fold_all`]. `None` when
/// the reduction is not of that kind (the general path then runs, and
/// reports any error).
fn reduce_with_kernel(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    dimensions: &[usize],
    body: &dyn Body,
    types: &[TensorType],
) -> Result<Option<Tensor>, ValueError> {
    let ([input], [init], [ty], Some(combiner)) = (inputs, inits, types, body.combiner()) else {
        return Ok(None);
    };
    if input.element != ty.element || init.element != ty.element || !init.shape.is_empty() {
        return Ok(None);
    }
    let Some(kernel) = Kernel::new(combiner, ty.element) else {
        return Ok(None);
    };
    let rank = input.shape.len();
    let mut sorted = dimensions.to_vec();
    sorted.sort_unstable();
    // The reduced dimensions are the last ones: each result element folds
    // a contiguous run of the input, the runs one after another.
    let trailing = sorted
        .iter()
        .copied()
        .eq(rank.saturating_sub(sorted.len())..rank)
        && sorted.len() <= rank;
    let (result_shape, layout) = if trailing {
        let kept = rank - sorted.len();
        let run: usize = input.shape[kept..].iter().product();
        (input.shape[..kept].to_vec(), Layout::Runs(run))
    } else {
        let ReduceLayout {
            result_shape,
            bases,
            offsets,
        } = reduce_layout(&input.shape, dimensions)?;
        (result_shape, Layout::Gathered { bases, offsets })
    };
    let outputs: usize = result_shape.iter().product();
    let tree = matches!(combiner, Combiner::Add | Combiner::Multiply);
    let data = match (kernel, &input.data, &init.data) {
        (Kernel::F64(f), Data::F64(x), Data::F64(i)) => {
            Data::F64(fold_layout(x, i[0], outputs, &layout, tree, &f))
        }
        (Kernel::F32(f, e), Data::F32(x), Data::F32(i)) => {
            let f = move |a: f32, b: f32| e.round_f32(f(a, b));
            Data::F32(fold_layout(x, i[0], outputs, &layout, tree, &f))
        }
        // Integer and boolean sums are exact in any order.
        (Kernel::Bool(f), Data::Bool(x), Data::Bool(i)) => {
            Data::Bool(fold_layout(x, i[0], outputs, &layout, false, &f))
        }
        (Kernel::Signed(f, e), Data::Signed(x), Data::Signed(i)) => {
            let f = move |a: i64, b: i64| e.wrap_signed(f(a, b));
            Data::Signed(fold_layout(x, i[0], outputs, &layout, false, &f))
        }
        (Kernel::Unsigned(f, e), Data::Unsigned(x), Data::Unsigned(i)) => {
            let f = move |a: u64, b: u64| e.wrap_unsigned(f(a, b));
            Data::Unsigned(fold_layout(x, i[0], outputs, &layout, false, &f))
        }
        _ => return Ok(None),
    };
    Tensor::new(ty.element, result_shape, data).map(Some)
}

/// Where the values of each result element of a `reduce` lie.
enum Layout {
    /// Result element `o` folds `input[o * run..(o + 1) * run]`.
    Runs(usize),
    /// Result element `o` folds `input[bases[o] + offsets[j]]`, `j = 0, 1,
    /// ...` ([`reduce_layout`]).
    Gathered {
        bases: Vec<usize>,
        offsets: Vec<usize>,
    },
}

/// Each of `outputs` result elements folded from `init` over its values in
/// `input` (see [`Layout`]): a float sum or product (`tree`) as a
/// [`Cascade`] combined with `init` (`f(init, cascade)`, `init` alone when
/// there are no values), anything else in order, as [`fold_all`] does.
fn fold_layout<T: Copy + Send + Sync>(
    input: &[T],
    init: T,
    outputs: usize,
    layout: &Layout,
    tree: bool,
    f: &(impl Fn(T, T) -> T + Sync),
) -> Vec<T> {
    use rayon::prelude::*;
    let one = |o: usize| -> T {
        match layout {
            Layout::Runs(run) => {
                let values = &input[o * run..(o + 1) * run];
                if !tree {
                    return values.iter().fold(init, |acc, &x| f(acc, x));
                }
                let sum = if outputs == 1 {
                    cascade_slice(values, f)
                } else {
                    cascade(values, f)
                };
                sum.map_or(init, |sum| f(init, sum))
            }
            Layout::Gathered { bases, offsets } => {
                let values = offsets.iter().map(|&j| input[bases[o] + j]);
                if !tree {
                    return values.fold(init, f);
                }
                cascade_iter(values, f).map_or(init, |sum| f(init, sum))
            }
        }
    };
    let work = match layout {
        Layout::Runs(run) => outputs.saturating_mul(*run),
        Layout::Gathered { offsets, .. } => outputs.saturating_mul(offsets.len()),
    };
    if outputs >= PARALLEL_OUTPUTS && work >= 1 << 16 {
        (0..outputs)
            .into_par_iter()
            .with_min_len(PARALLEL_OUTPUTS)
            .map(one)
            .collect()
    } else {
        (0..outputs).map(one).collect()
    }
}

/// The geometry of `reduce` (see [`reduce_layout`]).
pub(crate) struct ReduceLayout {
    /// The result shape.
    pub(crate) result_shape: Vec<usize>,
    /// Per result element, the flat input index its elements start from.
    pub(crate) bases: Vec<usize>,
    /// The offsets of the reduced elements from a base, in fold order.
    pub(crate) offsets: Vec<usize>,
}

/// The geometry of `reduce` over `dimensions` of an input of `shape`: the
/// result shape, the flat input index where each result element's
/// elements start (`bases`, one per result element, row-major), and the
/// offsets from there of the reduced elements in fold order (row-major over
/// the reduced dimensions): result `o` folds `input[bases[o] + offsets[j]]`
/// for `j = 0, 1, ...`.
pub(crate) fn reduce_layout(
    shape: &[usize],
    dimensions: &[usize],
) -> Result<ReduceLayout, ValueError> {
    let rank = shape.len();
    let mut reduced = vec![false; rank];
    for &d in dimensions {
        if d >= rank || std::mem::replace(&mut reduced[d], true) {
            return Err(mismatch(format!(
                "reduce: dimensions {dimensions:?} for rank {rank}"
            )));
        }
    }
    let st = strides(shape);
    let kept: Vec<usize> = (0..rank).filter(|&d| !reduced[d]).collect();
    let gone: Vec<usize> = (0..rank).filter(|&d| reduced[d]).collect();
    let result_shape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    let reduced_shape: Vec<usize> = gone.iter().map(|&d| shape[d]).collect();
    let mut bases = Vec::with_capacity(result_shape.iter().product());
    for_each_index(&result_shape, |i| {
        bases.push(i.iter().zip(&kept).map(|(&i, &d)| i * st[d]).sum());
    });
    let mut offsets = Vec::with_capacity(reduced_shape.iter().product());
    for_each_index(&reduced_shape, |i| {
        offsets.push(i.iter().zip(&gone).map(|(&i, &d)| i * st[d]).sum());
    });
    Ok(ReduceLayout {
        result_shape,
        bases,
        offsets,
    })
}

/// Window attributes of `reduce_window` and `select_and_scatter`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// `window_dimensions`.
    pub dimensions: Vec<i64>,
    /// `window_strides`.
    pub strides: Vec<i64>,
    /// `base_dilations`.
    pub base_dilations: Vec<i64>,
    /// `window_dilations`.
    pub window_dilations: Vec<i64>,
    /// `padding`, `(low, high)` per dimension.
    pub padding: Vec<(i64, i64)>,
}

/// A window geometry checked against an input shape.
struct WindowPlan {
    input_shape: Vec<usize>,
    input_strides: Vec<usize>,
    window: Vec<usize>,
    stride: Vec<i64>,
    base: Vec<i64>,
    dilation: Vec<i64>,
    low: Vec<i64>,
    dilated: Vec<i64>,
    /// Number of windows per dimension (the result shape).
    counts: Vec<usize>,
    count_strides: Vec<usize>,
    /// Window offsets, row-major.
    offsets: Vec<Vec<usize>>,
}

impl WindowPlan {
    fn new(window: &Window, input_shape: &[usize]) -> Result<Self, ValueError> {
        let rank = input_shape.len();
        let ok = window.dimensions.len() == rank
            && window.strides.len() == rank
            && window.base_dilations.len() == rank
            && window.window_dilations.len() == rank
            && window.padding.len() == rank
            && window.dimensions.iter().all(|&d| d > 0 && d <= 1 << 30)
            && window.strides.iter().all(|&d| d > 0)
            && window.base_dilations.iter().all(|&d| d > 0 && d <= 1 << 30)
            && window
                .window_dilations
                .iter()
                .all(|&d| d > 0 && d <= 1 << 30)
            && window
                .padding
                .iter()
                .all(|&(l, h)| l.unsigned_abs() <= 1 << 40 && h.unsigned_abs() <= 1 << 40);
        if !ok {
            return Err(mismatch(format!(
                "window {window:?} does not fit rank {rank}"
            )));
        }
        let mut dilated = Vec::with_capacity(rank);
        let mut counts = Vec::with_capacity(rank);
        for (d, &size) in input_shape.iter().enumerate() {
            let size = size as i64;
            let dil = if size == 0 {
                0
            } else {
                (size - 1) * window.base_dilations[d] + 1
            };
            let padded = window.padding[d].0 + dil + window.padding[d].1;
            let span = (window.dimensions[d] - 1) * window.window_dilations[d] + 1;
            let count = if padded <= 0 || span > padded {
                0
            } else {
                (padded - span) / window.strides[d] + 1
            };
            dilated.push(dil);
            counts.push(count as usize);
        }
        let window_shape: Vec<usize> = window.dimensions.iter().map(|&d| d as usize).collect();
        let window_len = window_shape
            .iter()
            .try_fold(1usize, |c, &d| c.checked_mul(d))
            .filter(|&c| c <= crate::value::MAX_ELEMENTS)
            .ok_or_else(|| mismatch(format!("window {window_shape:?} is too large")))?;
        let mut offsets = Vec::with_capacity(window_len);
        for_each_index(&window_shape, |w| offsets.push(w.to_vec()));
        Ok(Self {
            input_shape: input_shape.to_vec(),
            input_strides: strides(input_shape),
            window: window_shape,
            stride: window.strides.clone(),
            base: window.base_dilations.clone(),
            dilation: window.window_dilations.clone(),
            low: window.padding.iter().map(|p| p.0).collect(),
            dilated,
            count_strides: strides(&counts),
            counts,
            offsets,
        })
    }

    fn outputs(&self) -> usize {
        self.counts.iter().product()
    }
}

impl Plan for WindowPlan {
    fn positions(&self, output: usize, out: &mut Vec<Option<usize>>) {
        out.clear();
        let rank = self.input_shape.len();
        let start: Vec<i64> = (0..rank)
            .map(|d| ((output / self.count_strides[d]) % self.counts[d]) as i64 * self.stride[d])
            .collect();
        debug_assert_eq!(self.offsets.first().map_or(0, Vec::len), self.window.len());
        for w in &self.offsets {
            let mut flat = Some(0);
            for d in 0..rank {
                let q = start[d] + w[d] as i64 * self.dilation[d] - self.low[d];
                if q < 0 || q >= self.dilated[d] || q % self.base[d] != 0 {
                    flat = None;
                    break;
                }
                flat = flat.map(|f| f + (q / self.base[d]) as usize * self.input_strides[d]);
            }
            out.push(flat);
        }
    }
}

/// `stablehlo.reduce_window`.
pub fn reduce_window(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    window: &Window,
    body: &dyn Body,
    types: &[TensorType],
) -> Result<Vec<Tensor>, OpError> {
    let (inputs, inits) = prepare(inputs, inits, types)?;
    let plan = WindowPlan::new(window, &inputs[0].shape)?;
    let counts = plan.counts.clone();
    fold_all(&inputs, &inits, plan.outputs(), &counts, &plan, body)
}

/// `stablehlo.select_and_scatter` on `operand, source, init_value`; `fast`
/// is the `select` comparison when it is a single `compare`.
pub fn select_and_scatter(
    operands: &[&Tensor],
    window: &Window,
    select: &dyn Body,
    fast: Option<Comparison>,
    scatter: &dyn Body,
    result_element: ElementType,
) -> Result<Tensor, OpError> {
    arity(operands, 3)?;
    let (operand, source, init) = (operands[0], operands[1], operands[2]);
    if source.element != operand.element
        || init.element != operand.element
        || !init.shape.is_empty()
    {
        return Err(mismatch("select_and_scatter: operand types differ".into()).into());
    }
    let plan = WindowPlan::new(window, &operand.shape)?;
    if plan.counts != source.shape {
        return Err(mismatch(format!(
            "select_and_scatter: source {:?} for {:?} windows",
            source.shape, plan.counts
        ))
        .into());
    }
    // The selected operand position of each window.
    let mut selected: Vec<Option<usize>> = Vec::with_capacity(source.data.len());
    let mut buffer = Vec::new();
    for o in 0..plan.outputs() {
        plan.positions(o, &mut buffer);
        let mut current: Option<usize> = None;
        for &candidate in buffer.iter().flatten() {
            let Some(cur) = current else {
                current = Some(candidate);
                continue;
            };
            let fast_answer = fast.and_then(
                |Comparison {
                     direction,
                     compare_type,
                 }| {
                    compare_elements(direction, compare_type, &operand.data, cur, candidate)
                },
            );
            let keep = match fast_answer {
                Some(keep) => keep,
                None => {
                    let out = select
                        .apply(&[scalar_at(operand, cur)?, scalar_at(operand, candidate)?])?;
                    match out.as_slice() {
                        [t] if t.shape.is_empty() => match &t.data {
                            Data::Bool(v) if v.len() == 1 => v[0],
                            _ => return Err(mismatch("select does not return i1".into()).into()),
                        },
                        _ => return Err(mismatch("select does not return one i1".into()).into()),
                    }
                }
            };
            if !keep {
                current = Some(candidate);
            }
        }
        selected.push(current);
    }
    let source = promote(source, result_element)?;
    let init = promote(init, result_element)?;
    let mut result = Tensor::new(
        result_element,
        operand.shape.clone(),
        init.data.gather(&vec![0; operand.data.len()]),
    )?;
    let pairs: Vec<(usize, usize)> = selected
        .iter()
        .enumerate()
        .filter_map(|(s, t)| t.map(|t| (t, s)))
        .collect();
    if let Some(kernel) = scatter
        .combiner()
        .and_then(|c| Kernel::new(c, result_element))
    {
        if kernel.scatter(&mut result.data, &source.data, &pairs) {
            return Ok(result);
        }
    }
    for &(t, s) in &pairs {
        let out = scatter.apply(&[scalar_at(&result, t)?, scalar_at(&source, s)?])?;
        let [value] = out.as_slice() else {
            return Err(mismatch("scatter does not return one value".into()).into());
        };
        store(&mut result.data, result_element, t, value)?;
    }
    Ok(result)
}

/// Rounds the bits of one float with `src_mantissa` explicit mantissa
/// bits and `width` total bits to `exponent_bits`/`mantissa_bits`.
fn reduce_bits(
    bits: u64,
    width: u32,
    src_mantissa: u32,
    exponent_bits: u32,
    mantissa_bits: u32,
) -> u64 {
    let all = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut x = bits;
    if mantissa_bits < src_mantissa {
        let shift = src_mantissa - mantissa_bits;
        let last = 1u64 << shift;
        // Round to nearest, ties to even: add half an ulp minus one, plus
        // the kept lowest bit; then truncate.
        let bias = (last >> 1) - 1 + ((x & last) >> shift);
        x = x.wrapping_add(bias) & !(last - 1) & all;
    }
    let src_exponent = width - src_mantissa - 1;
    if exponent_bits < src_exponent {
        let sign = x & (1u64 << (width - 1));
        let exponent_mask = ((1u64 << src_exponent) - 1) << src_mantissa;
        let bias = (1u64 << (src_exponent - 1)) - 1;
        let reduced_bias = (1u64 << (exponent_bits - 1)) - 1;
        let exponent = x & exponent_mask;
        if exponent > (bias + reduced_bias) << src_mantissa {
            x = sign | exponent_mask;
        } else if exponent <= (bias - reduced_bias) << src_mantissa {
            x = sign;
        }
    }
    x
}

/// `stablehlo.reduce_precision`: rounds to nearest-even at
/// `mantissa_bits`, then overflows to infinity or flushes to zero (keeping
/// the sign) outside the `exponent_bits` range (values below its normal
/// range included). A NaN stays itself, or becomes +infinity when
/// `mantissa_bits` is 0 (no NaN is representable then).
pub fn reduce_precision(
    operand: &Tensor,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Tensor, ValueError> {
    if !(1..=64).contains(&exponent_bits) || !(0..=64).contains(&mantissa_bits) {
        return Err(mismatch(format!(
            "reduce_precision: exponent_bits {exponent_bits}, mantissa_bits {mantissa_bits}"
        )));
    }
    let (e, m) = (exponent_bits as u32, mantissa_bits as u32);
    let data = match (&operand.data, operand.element) {
        (Data::F64(v), _) => Data::F64(
            v.iter()
                .map(|&x| {
                    if x.is_nan() {
                        if m > 0 {
                            x
                        } else {
                            f64::INFINITY
                        }
                    } else {
                        f64::from_bits(reduce_bits(x.to_bits(), 64, 52, e, m))
                    }
                })
                .collect(),
        ),
        (Data::F32(v), element) => {
            let (width, mantissa) = match element {
                ElementType::F16 => (16, 10),
                ElementType::BF16 => (16, 7),
                _ => (32, 23),
            };
            let to_bits = |x: f32| -> u64 {
                match element {
                    ElementType::F16 => u64::from(half::f16::from_f32(x).to_bits()),
                    ElementType::BF16 => u64::from(half::bf16::from_f32(x).to_bits()),
                    _ => u64::from(x.to_bits()),
                }
            };
            let from_bits = |b: u64| -> f32 {
                match element {
                    ElementType::F16 => half::f16::from_bits(b as u16).to_f32(),
                    ElementType::BF16 => half::bf16::from_bits(b as u16).to_f32(),
                    _ => f32::from_bits(b as u32),
                }
            };
            Data::F32(
                v.iter()
                    .map(|&x| {
                        if x.is_nan() {
                            if m > 0 {
                                x
                            } else {
                                f32::INFINITY
                            }
                        } else {
                            from_bits(reduce_bits(to_bits(x), width, mantissa, e, m))
                        }
                    })
                    .collect(),
            )
        }
        _ => {
            return Err(mismatch(format!(
                "reduce_precision is not defined on {:?}",
                operand.element
            )))
        }
    };
    Tensor::new(operand.element, operand.shape.clone(), data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cascade_is_the_documented_binary_counter() {
        // Five full blocks and a sixth of 3: blocks 0-3 form a balanced
        // tree, 4 and 5 a pair, then the stack combines newest last.
        let b = CASCADE_BLOCK;
        let n = 5 * b + 3;
        let labels: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let join = |x: String, y: String| format!("({x} {y})");
        let tree = cascade(&labels, &join).unwrap();
        let block = |k: usize| {
            let r = k * b..(k * b + b).min(n);
            r.clone()
                .skip(1)
                .fold(r.start.to_string(), |acc, i| format!("({acc} {i})"))
        };
        let four = join(join(block(0), block(1)), join(block(2), block(3)));
        assert_eq!(tree, join(four, join(block(4), block(5))));
        assert_eq!(
            cascade(&labels[..3], &|x: String, y: String| x + &y).unwrap(),
            "012"
        );
        assert!(cascade::<f32>(&[], &|x, y| x + y).is_none());
    }

    #[test]
    fn cascade_sums_are_far_more_accurate_than_sequential_ones() {
        // 2^20 copies of 0.1 in f32: the sequential sum drifts by percent.
        let values = vec![0.1f32; 1 << 20];
        let exact = f64::from(0.1f32) * (1 << 20) as f64;
        let tree = f64::from(cascade(&values, &|a: f32, b: f32| a + b).unwrap());
        let sequential = f64::from(values.iter().fold(0.0f32, |a, &b| a + b));
        assert!(((tree - exact) / exact).abs() < 1e-6, "{tree} vs {exact}");
        assert!(((sequential - exact) / exact).abs() > 1e-3, "{sequential}");
    }
    use crate::ops::binary;
    use crate::ops::BinaryOp;

    /// A body that runs `ops::binary` on its two arguments.
    struct Binary(BinaryOp, Option<Combiner>);

    impl Body for Binary {
        fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
            Ok(vec![binary(self.0, &args[0], &args[1])?])
        }
        fn combiner(&self) -> Option<Combiner> {
            self.1
        }
    }

    fn floats(element: ElementType, shape: &[usize], v: &[f32]) -> Tensor {
        Tensor::new(element, shape.to_vec(), Data::F32(v.to_vec())).unwrap()
    }

    fn ty(element: ElementType, shape: &[usize]) -> TensorType {
        TensorType {
            element,
            shape: shape.to_vec(),
        }
    }

    #[test]
    fn fast_path_matches_the_body() {
        let values = [
            1.0,
            -0.0,
            0.0,
            f32::NAN,
            3.5e-3,
            -2.0,
            1e4,
            0.1,
            -0.0,
            7.0,
            0.3,
            1.0,
        ];
        for element in [ElementType::F32, ElementType::BF16, ElementType::F16] {
            let rounded: Vec<f32> = values.iter().map(|&v| element.round_f32(v)).collect();
            let input = floats(element, &[3, 4], &rounded);
            for (op, c) in [
                (BinaryOp::Add, Combiner::Add),
                (BinaryOp::Multiply, Combiner::Multiply),
                (BinaryOp::Maximum, Combiner::Maximum),
                (BinaryOp::Minimum, Combiner::Minimum),
            ] {
                for init in [0.0, -0.0, 1.0] {
                    let init = floats(element, &[], &[init]);
                    for dims in [vec![0], vec![1], vec![0, 1]] {
                        let shape: Vec<usize> = (0..2)
                            .filter(|d| !dims.contains(d))
                            .map(|d| input.shape[d])
                            .collect();
                        let types = [ty(element, &shape)];
                        let fast = reduce(&[&input], &[&init], &dims, &Binary(op, Some(c)), &types)
                            .unwrap();
                        let slow =
                            reduce(&[&input], &[&init], &dims, &Binary(op, None), &types).unwrap();
                        let bits = |t: &Tensor| match &t.data {
                            Data::F32(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                            _ => unreachable!(),
                        };
                        assert_eq!(
                            bits(&fast[0]),
                            bits(&slow[0]),
                            "{element:?} {op:?} {dims:?}"
                        );
                    }
                }
            }
        }
    }

    /// The kernel path before values were read in place: positions listed
    /// per result element, gathered, then folded (`fold_all`).
    fn listed(input: &Tensor, init: &Tensor, dims: &[usize], op: BinaryOp, c: Combiner) -> Tensor {
        let ReduceLayout {
            result_shape,
            bases,
            offsets,
        } = reduce_layout(&input.shape, dims).unwrap();
        let outputs = bases.len();
        let plan = ReducePlan { bases, offsets };
        let body = Binary(op, Some(c));
        let inputs = [input.clone()];
        let inits = [init.clone()];
        let mut out = fold_all(&inputs, &inits, outputs, &result_shape, &plan, &body).unwrap();
        out.remove(0)
    }

    /// Large reductions read in place, in parallel where they are large
    /// (long sums split into runs of blocks, many result elements split into
    /// blocks), give the bits of the listed path, over every layout.
    #[test]
    fn reductions_read_in_place_match_the_listed_ones_bit_for_bit() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Magnitudes from 1e-6 to 1e6, either sign: sums that depend on their order.
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            let sign = if state & 1 == 0 { 1.0 } else { -1.0 };
            sign * 10f64.powf(12.0 * unit - 6.0)
        };
        let cases: [(&[usize], &[&[usize]]); 3] = [
            (&[2 * 65_536 * 2 + 1_000], &[&[0]]),
            (&[300, 1_000], &[&[1], &[0], &[0, 1], &[]]),
            (&[4, 50, 700], &[&[0, 2], &[2], &[1, 2], &[0]]),
        ];
        for (shape, all_dims) in cases {
            let n: usize = shape.iter().product();
            let values: Vec<f64> = (0..n).map(|_| next()).collect();
            for element in [ElementType::F32, ElementType::BF16, ElementType::F64] {
                let input = match element {
                    ElementType::F64 => {
                        Tensor::new(element, shape.to_vec(), Data::F64(values.clone())).unwrap()
                    }
                    _ => {
                        let rounded: Vec<f32> = values
                            .iter()
                            .map(|&v| element.round_f32(v as f32))
                            .collect();
                        floats(element, shape, &rounded)
                    }
                };
                let init = match element {
                    ElementType::F64 => Tensor::new(element, vec![], Data::F64(vec![0.5])).unwrap(),
                    _ => floats(element, &[], &[0.5]),
                };
                for &dims in all_dims {
                    for (op, c) in [
                        (BinaryOp::Add, Combiner::Add),
                        (BinaryOp::Maximum, Combiner::Maximum),
                    ] {
                        let kept: Vec<usize> = (0..shape.len())
                            .filter(|d| !dims.contains(d))
                            .map(|d| shape[d])
                            .collect();
                        let types = [ty(element, &kept)];
                        let body = Binary(op, Some(c));
                        let got = reduce(&[&input], &[&init], dims, &body, &types).unwrap();
                        let want = listed(&input, &init, dims, op, c);
                        assert_eq!(got[0].shape, want.shape, "{shape:?} {dims:?}");
                        let bits = |t: &Tensor| match &t.data {
                            Data::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
                            Data::F64(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                            _ => unreachable!(),
                        };
                        assert_eq!(
                            bits(&got[0]),
                            bits(&want),
                            "{element:?} {op:?} {shape:?} {dims:?}"
                        );
                    }
                }
            }
        }
        // Integers, and an integer sum over rows.
        let ints: Vec<i64> = (0..300_000).map(|i| (i * 7919) % 1_000 - 500).collect();
        let input = Tensor::new(
            ElementType::Signed(64),
            vec![300, 1_000],
            Data::Signed(ints),
        )
        .unwrap();
        let init = Tensor::new(ElementType::Signed(64), vec![], Data::Signed(vec![3])).unwrap();
        for dims in [&[0usize][..], &[1], &[0, 1]] {
            let kept: Vec<usize> = (0..2)
                .filter(|d| !dims.contains(d))
                .map(|d| input.shape[d])
                .collect();
            let types = [ty(ElementType::Signed(64), &kept)];
            let body = Binary(BinaryOp::Add, Some(Combiner::Add));
            let got = reduce(&[&input], &[&init], dims, &body, &types).unwrap();
            assert_eq!(
                got[0],
                listed(&input, &init, dims, BinaryOp::Add, Combiner::Add)
            );
        }
    }

    /// A long slice summed in runs on rayon's pool is the cascade itself.
    #[test]
    fn a_parallel_cascade_is_the_cascade() {
        let values: Vec<f32> = (0..(CASCADE_BLOCK << 12) * 3 + 77)
            .map(|i| ((i * 2_654_435_761usize) % 100_003) as f32 * 1e-3 - 50.0)
            .collect();
        let f = |a: f32, b: f32| a + b;
        for len in [
            0,
            5,
            CASCADE_BLOCK << 11,
            (CASCADE_BLOCK << 11) + 1,
            values.len(),
        ] {
            assert_eq!(
                cascade_slice(&values[..len], &f).map(f32::to_bits),
                cascade(&values[..len], &f).map(f32::to_bits),
                "{len}"
            );
            assert_eq!(
                cascade_iter(values[..len].iter().copied(), &f).map(f32::to_bits),
                cascade(&values[..len], &f).map(f32::to_bits),
                "{len}"
            );
        }
    }

    #[test]
    fn reduces_in_row_major_order() {
        // f32 addition is not associative: 1e8 + 1 + -1e8 in row-major order.
        let input = floats(ElementType::F32, &[3], &[1e8, 1.0, -1e8]);
        let init = floats(ElementType::F32, &[], &[0.0]);
        let out = reduce(
            &[&input],
            &[&init],
            &[0],
            &Binary(BinaryOp::Add, None),
            &[ty(ElementType::F32, &[])],
        )
        .unwrap();
        assert_eq!(out[0].data, Data::F32(vec![0.0]));
        assert!(reduce(
            &[&input],
            &[&init],
            &[1],
            &Binary(BinaryOp::Add, None),
            &[ty(ElementType::F32, &[])],
        )
        .is_err());
    }

    #[test]
    fn windows() {
        let input = Tensor::new(
            ElementType::Signed(64),
            vec![3, 2],
            Data::Signed(vec![1, 2, 3, 4, 5, 6]),
        )
        .unwrap();
        let init = Tensor::new(ElementType::Signed(64), vec![], Data::Signed(vec![0])).unwrap();
        let window = Window {
            dimensions: vec![2, 1],
            strides: vec![4, 1],
            base_dilations: vec![2, 1],
            window_dilations: vec![3, 1],
            padding: vec![(2, 1), (0, 0)],
        };
        for c in [Some(Combiner::Add), None] {
            let out = reduce_window(
                &[&input],
                &[&init],
                &window,
                &Binary(BinaryOp::Add, c),
                &[ty(ElementType::Signed(64), &[2, 2])],
            )
            .unwrap();
            assert_eq!(out[0].data, Data::Signed(vec![0, 0, 3, 4]));
        }
        let mut bad = window.clone();
        bad.strides = vec![0, 1];
        assert!(reduce_window(
            &[&input],
            &[&init],
            &bad,
            &Binary(BinaryOp::Add, None),
            &[ty(ElementType::Signed(64), &[2, 2])],
        )
        .is_err());
    }

    #[test]
    fn reduces_precision() {
        let t = Tensor::new(
            ElementType::F64,
            vec![6],
            Data::F64(vec![f64::INFINITY, f64::NAN, 5e-324, 0.0, 65505.0, 65520.0]),
        )
        .unwrap();
        let r = reduce_precision(&t, 5, 10).unwrap();
        let Data::F64(v) = r.data else { unreachable!() };
        assert_eq!(v[0], f64::INFINITY);
        assert!(v[1].is_nan());
        assert_eq!((v[2], v[3], v[4], v[5]), (0.0, 0.0, 65504.0, f64::INFINITY));
        let z = reduce_precision(&t, 5, 0).unwrap();
        let Data::F64(v) = z.data else { unreachable!() };
        assert_eq!(v[1], f64::INFINITY);
        // bf16 -> (8, 7) is the identity.
        let b = floats(ElementType::BF16, &[2], &[1.5, -3.0]);
        assert_eq!(reduce_precision(&b, 8, 7).unwrap(), b);
        assert!(reduce_precision(&b, 0, 7).is_err());
    }
}
