//! `--zkdv-insert-commitments`: compute the probe sketch of every update
//! (delta) leaf inside the production step and return it as an extra result.
//!
//! The protocol (DESIGN.md §4) commits each step's update through sketches
//! `Y = X P` of the delta leaves, where `P` is the leaf's structured
//! orthonormal probe map ([`zkdv_hashing::ProbeMap`]): the `d` coordinates
//! of the last dimension are cut into `k` contiguous, balanced blocks, one
//! per column, each coordinate with a sign, so `P` applies in one
//! elementwise pass over the leaf: no gather and no matmul. Only deltas are
//! sketched: state sketches follow on the host by linearity
//! (`post = pre + delta`), and the verifier enforces `pre_state(t) =
//! post_state(t-1)`.
//!
//! For each `delta` result of shape `[..., d]` (`d = 1` for rank 0) with
//! `k = ProbeMap::columns_for(d, ratio)`, `q = floor(d / k)` and
//! `long = d mod k` ([`zkdv_hashing::Blocks`]), the pass
//!
//! - appends one argument `tensor<dxf32>` with `zkdv.role = "probe_weight"`
//!   and the delta's `zkdv.path`. Its value is exactly
//!   [`zkdv_hashing::ProbeMap::weights`] of the session's map (Python:
//!   `ProbeMap.weights()`); the program never contains probe numbers, so a
//!   per-session seed does not change its text or its hash;
//! - emits, before the return: reshape to `[rows, d]`, convert to the
//!   accumulation type, multiply by the broadcast weights; then the first
//!   `long * (q + 1)` products reshaped to `[rows, long, q + 1]` and the
//!   rest to `[rows, k - long, q]` (each through a `stablehlo.slice` unless
//!   it is the whole row), each summed over its last dimension with
//!   `stablehlo.reduce` (add), and the two parts concatenated: the sketch
//!   `tensor<rowsxkxf32>` (row-major like `ProbeMap::sketch_f32`);
//! - appends that sketch as a result with `zkdv.role = "sketch"` and the
//!   delta's `zkdv.path`, after the existing results, in delta order.
//!
//! Extra results rather than `custom_call` hooks: the program stays pure and
//! hermetic (`--zkdv-check-hermetic` still passes), runs unchanged under
//! `jax.export`/XLA on any backend, and the sketches come back with the step's
//! outputs, so no host callback or FFI target is needed.
//!
//! Element types: f16, bf16 and f32 deltas are converted to f32 (exact:
//! every f16/bf16 value is an f32) and the products and sums are f32; f64
//! deltas are sketched in f64 (the weights converted to f64). Other element
//! types are rejected. Leaves whose last dimension is 0 get no sketch and no
//! probe argument.
//!
//! Cost (`scripts/bench commitments`, XLA CPU, 2 cores, Flax MLP 784-512-10
//! with Adam, ratio 0.01): 1.09x the plain step at batch 128, 1.02x at batch
//! 1024. Any consumer of the delta other than the parameter update makes
//! XLA's CPU backend materialize the delta and read it once more, which is
//! the floor of this design there (a bare `sum` of the delta costs about as
//! much); the earlier gather formulation cost 1.41x.
//!
//! Options: `func=NAME` (default `main`), `ratio=R` in `(0, 1]` (default
//! 0.01; only the shapes of the new arguments depend on it, and it must be
//! the session's probe ratio), `join` and `drop-deltas`. With `join` the
//! sketches are returned as one result instead of one per leaf: each
//! flattened row-major, in delta order, and concatenated into a 1-D
//! `tensor<Nxf32>` (`f64` if any leaf accumulates in `f64`, the others
//! converted exactly), with `zkdv.role = "sketch"` and the leaves' paths
//! joined by `,` as its `zkdv.path`. A step's host then copies one array
//! from the device, whatever the number of leaves (on a GPU each array
//! copied costs its own transfer: `docs/jax.md`, "Speed on a GPU"). With `drop-deltas` the
//! `delta` results are removed after they are sketched: the production step
//! then never writes its update to memory as an output (on XLA CPU that
//! output alone costs a third of an MLP step). The remaining results keep
//! their order, and every argument's `tf.aliasing_output` (the donation
//! alias JAX writes) is renumbered to follow its result; an alias of a
//! dropped delta is refused.
//!
//! Preconditions: the entry has roles on every argument and result (run
//! `--zkdv-annotate-roles` first), has not been instrumented already, and its
//! delta leaves have static shapes.
//!
//! Invariants: existing arguments, results (all but the deltas with
//! `drop-deltas`), their attributes and every existing op are kept (new ops are only inserted before the return, which is
//! rebuilt with the extra operands); `function_type`, `arg_attrs` and
//! `res_attrs` stay consistent with the body, so `tf.aliasing_output` indices
//! remain valid. The IR is read completely before it is changed.

use melior::ir::{
    attribute::{
        ArrayAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
    },
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationMutLike},
    r#type::{DimSize, FunctionType, IntegerType, RankedTensorType, ShapedTypeLike},
    Attribute, Block, BlockRef, Identifier, Location, Module, OperationRef, Region, RegionLike,
    Type, Value, ValueLike,
};
use zkdv_hashing::{Blocks, ProbeMap};

use crate::{
    ir::{op_name, Diagnostic, Diagnostics},
    options::OptionValues,
    rewrite::erase,
    roles::{
        find_function, function_name, port_dictionaries, roles, Role, Side, PATH_ATTR, ROLE_ATTR,
    },
    PassError, PassOptions,
};

/// The protocol's default probe ratio.
const DEFAULT_RATIO: f64 = 0.01;

struct Options {
    func: String,
    ratio: f64,
    drop_deltas: bool,
    join: bool,
}

impl Options {
    fn of(values: &OptionValues) -> Self {
        Self {
            func: values.text("func").unwrap_or("main").to_owned(),
            ratio: values.number("ratio").unwrap_or(DEFAULT_RATIO),
            drop_deltas: values.flag("drop-deltas"),
            join: values.flag("join"),
        }
    }
}

fn fail(diagnostic: Diagnostic) -> PassError {
    PassError::Failed(Diagnostics(vec![diagnostic]))
}

/// One delta leaf to sketch, read before anything changes.
struct Leaf<'c> {
    /// Index of the delta among the results (= return operand).
    result: usize,
    path: String,
    r#type: RankedTensorType<'c>,
    /// Element type of the products and the sum (f32, or f64 for f64 leaves).
    accumulate: Type<'c>,
    rows: u64,
    d: u64,
    k: u64,
}

/// Runs the pass; see the module documentation.
pub fn run<'c>(module: &Module<'c>, options: &mut PassOptions) -> Result<(), PassError> {
    let options = Options::of(&options.values);
    // `to_ref` reinterprets the `ContextRef` value itself as a `Context`, so
    // the `ContextRef` must outlive every use of the reference: keep it in a
    // local for the whole pass (a temporary would dangle at the end of the
    // statement; cargo fuzz's AddressSanitizer caught exactly that).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives every module parsed in it, and so every attribute and
    // type built here.
    let context = unsafe { context_ref.to_ref() };

    let entry_ref = find_function(module, &options.func).ok_or_else(|| {
        fail(Diagnostic::error(
            "<module>",
            format!(
                "--zkdv-insert-commitments: no function @{} in the module (choose one with \
                 `func=NAME`)",
                options.func
            ),
        ))
    })?;

    // 1. Read: roles, the delta leaves and their probe shapes.
    let signature = roles(entry_ref).map_err(fail)?;
    let inserted = signature
        .args
        .iter()
        .chain(&signature.results)
        .any(|port| matches!(port.role, Role::ProbeWeight | Role::Sketch));
    if inserted {
        return Err(fail(Diagnostic::error_at(
            &entry_ref,
            format!(
                "@{} already has commitment hooks (`probe_weight` arguments or \
                 `sketch` results); insert them only once",
                options.func
            ),
        )));
    }
    let mut leaves = Vec::new();
    for (result, port) in signature.results_with(Role::Delta) {
        if let Some(leaf) = plan_leaf(
            context,
            &entry_ref,
            result,
            &port.path,
            port.r#type,
            options.ratio,
        )
        .map_err(fail)?
        {
            leaves.push(leaf);
        }
    }
    let arg_dicts =
        port_dictionaries(&entry_ref, Side::Argument, signature.args.len()).map_err(fail)?;
    // Results that stay, by index (all but the deltas with `drop-deltas`).
    let kept: Vec<bool> = signature
        .results
        .iter()
        .map(|port| !(options.drop_deltas && port.role == Role::Delta))
        .collect();
    let res_dicts =
        port_dictionaries(&entry_ref, Side::Result, signature.results.len()).map_err(fail)?;
    // Donation aliases name result indices: renumber them past the dropped
    // deltas (an alias of a dropped delta itself cannot stay).
    let mut arg_dicts = arg_dicts;
    if options.drop_deltas {
        for dict in arg_dicts.iter_mut().flatten() {
            *dict = renumber_alias(context, &entry_ref, *dict, &kept).map_err(fail)?;
        }
    }

    // 2. Rewrite the body: new block arguments, sketch ops, a new return.
    let location = entry_ref.location();
    let block = entry_ref
        .region(0)
        .ok()
        .and_then(|region| region.first_block())
        .ok_or_else(|| {
            fail(Diagnostic::error_at(
                &entry_ref,
                "the entry function has no body",
            ))
        })?;
    let terminator = block
        .terminator()
        .filter(|op| op_name(op) == "func.return")
        .ok_or_else(|| {
            fail(Diagnostic::error_at(
                &entry_ref,
                "the entry function does not end with `func.return`",
            ))
        })?;
    let mut operands: Vec<Value> = terminator.operands().collect();
    if operands.len() != signature.results.len() {
        return Err(fail(Diagnostic::error_at(
            &terminator,
            "the return has a different operand count than the function has results",
        )));
    }
    let mut new_inputs = Vec::new();
    let mut new_outputs = Vec::new();
    {
        let emitter = Emitter {
            context,
            location,
            block: &block,
            before: terminator,
            at: entry_ref,
        };
        let mut sketches = Vec::new();
        for leaf in &leaves {
            let (weight_type, sketch_type) = leaf_types(context, leaf);
            let weight = block.add_argument(weight_type, location);
            let sketch = emitter.sketch(leaf, operands[leaf.result], weight)?;
            sketches.push((leaf, sketch));
            new_inputs.push(weight_type);
            new_outputs.push(sketch_type);
        }
        if options.join && !sketches.is_empty() {
            let (joined, joined_type) = emitter.join(context, &sketches)?;
            operands.push(joined);
            new_outputs = vec![joined_type];
        } else {
            operands.extend(sketches.iter().map(|(_, sketch)| *sketch));
        }
    }
    let operands: Vec<Value> = operands
        .into_iter()
        .enumerate()
        .filter(|(index, _)| kept.get(*index).copied().unwrap_or(true))
        .map(|(_, value)| value)
        .collect();
    let ret = OperationBuilder::new("func.return", terminator.location())
        .add_operands(&operands)
        .build()
        .map_err(|e| {
            fail(Diagnostic::error_at(
                &terminator,
                format!("cannot build the return: {e}"),
            ))
        })?;
    block.insert_operation_before(terminator, ret);
    // SAFETY: the old return has no results, and no reference to it is used
    // after this point (its operands live on in the new return).
    unsafe { erase(terminator) };

    // 3. Signature and port attributes.
    let inputs: Vec<Type> = signature
        .args
        .iter()
        .map(|port| port.r#type)
        .chain(new_inputs)
        .collect();
    let outputs: Vec<Type> = signature
        .results
        .iter()
        .zip(&kept)
        .filter(|(_, keep)| **keep)
        .map(|(port, _)| port.r#type)
        .chain(new_outputs)
        .collect();
    let keep = |dicts: Vec<Option<DictionaryAttribute<'c>>>| -> Vec<Attribute<'c>> {
        dicts
            .into_iter()
            .map(|d| d.map_or_else(|| DictionaryAttribute::new(context, &[]).into(), Into::into))
            .collect()
    };
    let mut arg_attrs = keep(arg_dicts);
    let mut res_attrs: Vec<Attribute<'c>> = keep(res_dicts)
        .into_iter()
        .zip(&kept)
        .filter(|(_, keep)| **keep)
        .map(|(attr, _)| attr)
        .collect();
    for leaf in &leaves {
        arg_attrs.push(port_dictionary(context, "probe_weight", &leaf.path));
        if !options.join {
            res_attrs.push(port_dictionary(context, "sketch", &leaf.path));
        }
    }
    if options.join && !leaves.is_empty() {
        let paths: Vec<&str> = leaves.iter().map(|leaf| leaf.path.as_str()).collect();
        res_attrs.push(port_dictionary(context, "sketch", &paths.join(",")));
    }
    // The entry again, mutably (the body is done; nothing else refers to it).
    let mut next = module.body().first_operation_mut();
    let mut entry = loop {
        let Some(op) = next else {
            return Err(fail(Diagnostic::error(
                "<module>",
                "the entry function disappeared",
            )));
        };
        next = op.next_in_block_mut();
        if op_name(&op) == "func.func" && function_name(&op).as_deref() == Some(&options.func) {
            break op;
        }
    };
    entry.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(context, &inputs, &outputs).into()).into(),
    );
    entry.set_attribute(
        Side::Argument.attrs_name(),
        ArrayAttribute::new(context, &arg_attrs).into(),
    );
    entry.set_attribute(
        Side::Result.attrs_name(),
        ArrayAttribute::new(context, &res_attrs).into(),
    );
    Ok(())
}

/// The argument attribute by which JAX marks a donated argument aliased to
/// a result.
const ALIAS_ATTR: &str = "tf.aliasing_output";

/// `dict` with its `tf.aliasing_output` (a result index) renumbered for the
/// results that stay (`kept`); an alias of a result that goes is an error.
fn renumber_alias<'c>(
    context: &'c melior::Context,
    entry: &OperationRef<'c, '_>,
    dict: DictionaryAttribute<'c>,
    kept: &[bool],
) -> Result<DictionaryAttribute<'c>, Diagnostic> {
    let mut entries = Vec::with_capacity(dict.len());
    let mut changed = false;
    for i in 0..dict.len() {
        let Ok((name, value)) = dict.element(i) else {
            continue;
        };
        if name.as_string_ref().as_str().ok() != Some(ALIAS_ATTR) {
            entries.push((name, value));
            continue;
        }
        let index = IntegerAttribute::try_from(value)
            .ok()
            .and_then(|v| usize::try_from(v.value()).ok())
            .filter(|&v| v < kept.len())
            .ok_or_else(|| {
                Diagnostic::error_at(entry, format!("`{ALIAS_ATTR}` is not a result index"))
            })?;
        if !kept[index] {
            return Err(Diagnostic::error_at(
                entry,
                format!(
                    "`drop-deltas` removes result {index}, which an argument's \
                     `{ALIAS_ATTR}` aliases; donate that argument to another result"
                ),
            ));
        }
        let renumbered = kept[..index].iter().filter(|&&k| k).count();
        let ty = IntegerType::new(context, 32).into();
        entries.push((name, IntegerAttribute::new(ty, renumbered as i64).into()));
        changed |= renumbered != index;
    }
    Ok(if changed {
        DictionaryAttribute::new(context, &entries)
    } else {
        dict
    })
}

/// The sketch plan of one delta leaf, `None` when its last dimension is 0.
fn plan_leaf<'c>(
    context: &'c melior::Context,
    entry: &OperationRef<'c, '_>,
    result: usize,
    path: &str,
    r#type: Type<'c>,
    ratio: f64,
) -> Result<Option<Leaf<'c>>, Diagnostic> {
    let what = || format!("delta result {result} ({path}) of type {type}", type = r#type);
    let tensor = RankedTensorType::try_from(r#type)
        .map_err(|_| Diagnostic::error_at(entry, format!("{} is not a ranked tensor", what())))?;
    let mut shape = Vec::new();
    for dim in 0..tensor.rank() {
        match tensor.dim_size(dim) {
            Ok(DimSize::Static(size)) => shape.push(size),
            _ => {
                return Err(Diagnostic::error_at(
                    entry,
                    format!(
                        "{} has a dynamic shape; sketches need static shapes",
                        what()
                    ),
                ))
            }
        }
    }
    let element = tensor.element();
    let f32 = Type::float32(context);
    let f64 = Type::float64(context);
    let accumulate = if element == f64 {
        f64
    } else if element == f32
        || element == Type::float16(context)
        || element == Type::bfloat16(context)
    {
        f32
    } else {
        return Err(Diagnostic::error_at(
            entry,
            format!(
                "{} is not floating point (f16, bf16, f32 or f64); it cannot be sketched",
                what()
            ),
        ));
    };
    let (d, rows) = match shape.split_last() {
        None => (1, Some(1u64)),
        Some((&d, lead)) => (d, lead.iter().try_fold(1u64, |acc, &x| acc.checked_mul(x))),
    };
    let rows = rows
        .ok_or_else(|| Diagnostic::error_at(entry, format!("{} has too many elements", what())))?;
    if d == 0 {
        return Ok(None);
    }
    let k =
        ProbeMap::columns_for(d, ratio).map_err(|e| Diagnostic::error_at(entry, e.to_string()))?;
    Ok(Some(Leaf {
        result,
        path: path.to_owned(),
        r#type: tensor,
        accumulate,
        rows,
        d,
        k,
    }))
}

/// `(probe_weight, sketch)` types of a leaf.
fn leaf_types<'c>(context: &'c melior::Context, leaf: &Leaf<'c>) -> (Type<'c>, Type<'c>) {
    (
        RankedTensorType::new(&[leaf.d], Type::float32(context), None).into(),
        RankedTensorType::new(&[leaf.rows, leaf.k], leaf.accumulate, None).into(),
    )
}

fn port_dictionary<'c>(context: &'c melior::Context, role: &str, path: &str) -> Attribute<'c> {
    let entries = [
        (
            Identifier::new(context, PATH_ATTR),
            StringAttribute::new(context, path).into(),
        ),
        (
            Identifier::new(context, ROLE_ATTR),
            StringAttribute::new(context, role).into(),
        ),
    ];
    DictionaryAttribute::new(context, &entries).into()
}

/// Emits ops before one op of one block.
struct Emitter<'c, 'a, 'b> {
    context: &'c melior::Context,
    location: Location<'c>,
    block: &'b BlockRef<'c, 'a>,
    before: OperationRef<'c, 'a>,
    /// Where diagnostics point.
    at: OperationRef<'c, 'a>,
}

impl<'c, 'a> Emitter<'c, 'a, '_> {
    fn attributes(
        &self,
        attributes: &[(&str, String)],
    ) -> Result<Vec<(Identifier<'c>, Attribute<'c>)>, PassError> {
        attributes
            .iter()
            .map(|(name, text)| {
                Attribute::parse(self.context, text)
                    .map(|attribute| (Identifier::new(self.context, name), attribute))
                    .ok_or_else(|| {
                        fail(Diagnostic::error_at(
                            &self.at,
                            format!("cannot build attribute {text}"),
                        ))
                    })
            })
            .collect()
    }

    fn op(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
        attributes: &[(&str, String)],
        regions: Vec<Region<'c>>,
    ) -> Result<Value<'c, 'a>, PassError> {
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&[result])
            .add_attributes(&self.attributes(attributes)?)
            .add_regions_vec(regions)
            .build()
            .map_err(|e| {
                fail(Diagnostic::error_at(
                    &self.at,
                    format!("cannot build {name}: {e}"),
                ))
            })?;
        let op = self.block.insert_operation_before(self.before, op);
        op.result(0)
            .map(Into::into)
            .map_err(|e| fail(Diagnostic::error_at(&self.at, format!("{name}: {e}"))))
    }

    fn zero(&self, element: Type<'c>) -> Result<Value<'c, 'a>, PassError> {
        let scalar = RankedTensorType::new(&[], element, None).into();
        self.op(
            "stablehlo.constant",
            &[],
            scalar,
            &[("value", format!("dense<0.000000e+00> : {scalar}"))],
            Vec::new(),
        )
    }

    /// `reduce(x, 0, dimensions = [dimension])` with an add body.
    fn sum(
        &self,
        x: Value<'c, '_>,
        dimension: usize,
        result: Type<'c>,
        element: Type<'c>,
    ) -> Result<Value<'c, 'a>, PassError> {
        let init = self.zero(element)?;
        let scalar: Type = RankedTensorType::new(&[], element, None).into();
        let body = Block::new(&[(scalar, self.location), (scalar, self.location)]);
        let lhs = body
            .argument(0)
            .map_err(|e| fail(Diagnostic::error_at(&self.at, e.to_string())))?;
        let rhs = body
            .argument(1)
            .map_err(|e| fail(Diagnostic::error_at(&self.at, e.to_string())))?;
        let add = OperationBuilder::new("stablehlo.add", self.location)
            .add_operands(&[lhs.into(), rhs.into()])
            .add_results(&[scalar])
            .build()
            .map_err(|e| {
                fail(Diagnostic::error_at(
                    &self.at,
                    format!("cannot build stablehlo.add: {e}"),
                ))
            })?;
        let add = body.append_operation(add);
        let sum: Value = add
            .result(0)
            .map_err(|e| fail(Diagnostic::error_at(&self.at, e.to_string())))?
            .into();
        let ret = OperationBuilder::new("stablehlo.return", self.location)
            .add_operands(&[sum])
            .build()
            .map_err(|e| {
                fail(Diagnostic::error_at(
                    &self.at,
                    format!("cannot build stablehlo.return: {e}"),
                ))
            })?;
        body.append_operation(ret);
        let region = Region::new();
        region.append_block(body);
        self.op(
            "stablehlo.reduce",
            &[x, init],
            result,
            &[("dimensions", format!("array<i64: {dimension}>"))],
            vec![region],
        )
    }

    /// The sketches of `join` as one 1-D tensor: each flattened, converted
    /// to `f64` when any is `f64`, concatenated in order.
    fn join(
        &self,
        context: &'c melior::Context,
        sketches: &[(&Leaf<'c>, Value<'c, 'a>)],
    ) -> Result<(Value<'c, 'a>, Type<'c>), PassError> {
        let f64 = Type::float64(context);
        let element = if sketches.iter().any(|(leaf, _)| leaf.accumulate == f64) {
            f64
        } else {
            Type::float32(context)
        };
        let mut flat = Vec::with_capacity(sketches.len());
        let mut total = 0;
        for (leaf, sketch) in sketches {
            let n = leaf.rows * leaf.k;
            let vector = self.op(
                "stablehlo.reshape",
                &[*sketch],
                RankedTensorType::new(&[n], leaf.accumulate, None).into(),
                &[],
                Vec::new(),
            )?;
            let vector = if leaf.accumulate == element {
                vector
            } else {
                self.op(
                    "stablehlo.convert",
                    &[vector],
                    RankedTensorType::new(&[n], element, None).into(),
                    &[],
                    Vec::new(),
                )?
            };
            flat.push(vector);
            total += n;
        }
        let joined_type: Type = RankedTensorType::new(&[total], element, None).into();
        let joined = match flat[..] {
            [single] => single,
            _ => self.op(
                "stablehlo.concatenate",
                &flat,
                joined_type,
                &[("dimension", "0 : i64".into())],
                Vec::new(),
            )?,
        };
        Ok((joined, joined_type))
    }

    /// The sketch `[rows, k]` of `delta` (see the module documentation).
    fn sketch(
        &self,
        leaf: &Leaf<'c>,
        delta: Value<'c, '_>,
        weight: Value<'c, '_>,
    ) -> Result<Value<'c, 'a>, PassError> {
        let element = leaf.r#type.element();
        let acc = leaf.accumulate;
        let (rows, d, k) = (leaf.rows, leaf.d, leaf.k);
        let blocks = Blocks::new(d, k);
        let tensor = |shape: &[u64], element: Type<'c>| -> Type<'c> {
            RankedTensorType::new(shape, element, None).into()
        };
        let matrix_type = tensor(&[rows, d], element);
        let matrix = if delta.r#type() == matrix_type {
            delta
        } else {
            self.op("stablehlo.reshape", &[delta], matrix_type, &[], Vec::new())?
        };
        let matrix = if element == acc {
            matrix
        } else {
            self.op(
                "stablehlo.convert",
                &[matrix],
                tensor(&[rows, d], acc),
                &[],
                Vec::new(),
            )?
        };
        let weight = if acc == Type::float32(self.context) {
            weight
        } else {
            self.op(
                "stablehlo.convert",
                &[weight],
                tensor(&[d], acc),
                &[],
                Vec::new(),
            )?
        };
        let weights = self.op(
            "stablehlo.broadcast_in_dim",
            &[weight],
            tensor(&[rows, d], acc),
            &[("broadcast_dimensions", "array<i64: 1>".into())],
            Vec::new(),
        )?;
        let products = self.op(
            "stablehlo.multiply",
            &[matrix, weights],
            tensor(&[rows, d], acc),
            &[],
            Vec::new(),
        )?;
        // The long columns, then the short ones: each a contiguous run of
        // equal blocks, summed along the block.
        let split = blocks.long * (blocks.q + 1);
        let runs = [
            (0, split, blocks.long, blocks.q + 1),
            (split, d, blocks.short_len(), blocks.q),
        ];
        let mut parts = Vec::new();
        for (start, limit, columns, len) in runs {
            if columns == 0 {
                continue;
            }
            let run = if start == 0 && limit == d {
                products
            } else {
                self.op(
                    "stablehlo.slice",
                    &[products],
                    tensor(&[rows, limit - start], acc),
                    &[
                        ("start_indices", format!("array<i64: 0, {start}>")),
                        ("limit_indices", format!("array<i64: {rows}, {limit}>")),
                        ("strides", "array<i64: 1, 1>".into()),
                    ],
                    Vec::new(),
                )?
            };
            let cube = self.op(
                "stablehlo.reshape",
                &[run],
                tensor(&[rows, columns, len], acc),
                &[],
                Vec::new(),
            )?;
            parts.push(self.sum(cube, 2, tensor(&[rows, columns], acc), acc)?);
        }
        match parts[..] {
            [single] => Ok(single),
            _ => self.op(
                "stablehlo.concatenate",
                &parts,
                tensor(&[rows, k], acc),
                &[("dimension", "1 : i64".into())],
                Vec::new(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_options(text: &str) -> Result<Options, String> {
        let pass = crate::registry::find("zkdv-insert-commitments").expect("registered");
        let values = pass.parse_options(text).map_err(|e| e.to_string())?;
        Ok(Options::of(&values))
    }

    #[test]
    fn options_parse() {
        let options = parse_options("func=step ratio=0.25").unwrap();
        assert_eq!((options.func.as_str(), options.ratio), ("step", 0.25));
        let options = parse_options("").unwrap();
        assert_eq!(
            (options.func.as_str(), options.ratio, options.drop_deltas),
            ("main", DEFAULT_RATIO, false)
        );
        assert!(parse_options("drop-deltas ratio=0.5").unwrap().drop_deltas);
        assert!(parse_options("join").unwrap().join && !parse_options("").unwrap().join);
        for bad in [
            "ratio=0",
            "ratio=1.5",
            "ratio=x",
            "ratio=NaN",
            "func=",
            "k=3",
            "drop-deltas=1",
        ] {
            assert!(parse_options(bad).is_err(), "{bad}");
        }
    }
}
