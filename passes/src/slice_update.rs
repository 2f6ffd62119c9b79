//! `--zkdv-slice-update`: build the attested update function and the replay
//! variant of a training step.
//!
//! From the role-annotated entry function (default `@main`; see
//! [`crate::roles`]) of a step `(params, opt_state, batch) -> (post_params,
//! post_opt_state, deltas, user...)`, the pass adds two public functions:
//!
//! - `@zkdv_attested(params..., opt_state..., batch..., %parameter_index:
//!   tensor<ui64>, %optimizer_state_index: tensor<ui64>) -> (tensor<f32>,
//!   tensor<f32>)`: the fixed ABI of the seed's `ZKDV.attest`. It returns the
//!   delta coordinate at `parameter_index` and the post-update optimizer-state
//!   coordinate at `optimizer_state_index`, both converted to f32. A flat index
//!   addresses the concatenation of the delta (resp. post-optimizer-state)
//!   leaves in result order, row-major within a leaf, without building it:
//!   each leaf contributes `select(offset <= i < offset + n, convert(leaf[i -
//!   offset]), acc)` through a one-element `dynamic_slice` of the flattened
//!   leaf. An index past the end selects 0.0, and so does an empty tree (an
//!   optimizer without state).
//! - `@zkdv_replay(params..., opt_state..., batch...) -> (post_params...,
//!   post_opt_state..., deltas...)`: the production step without its user
//!   results, which checks replay between snapshots.
//!
//! Then dead code is eliminated ([`crate::dce`]): what is left of each new
//! function is exactly the backward slice of its results. In the attested
//! function that drops the user return path (the loss) and the parameter
//! application (`post = param + delta`), keeping the forward and backward pass
//! and the optimizer. (The design names a petgraph def-use slice; the
//! worklist DCE computes the same set on the function itself, without a second
//! graph, so no petgraph dependency was added.)
//!
//! Option: `func=NAME` (the entry; default `main`) and `output=both|attested|replay`
//! (default `both`). With `attested` or `replay` only that function is kept,
//! renamed to NAME, so the result is a module JAX can run as is.
//!
//! Preconditions: the entry is inlined (no `func.call`; run `--zkdv-inline`
//! first), has roles on every argument and result, its arguments are all
//! `param`, then all `opt_state`, then all `batch` (the ABI's order), and its
//! leaves have static shapes.
//!
//! Invariants: the entry function is not modified (with `output=both`). Each
//! new function is a clone of it, so value numbering and locations are kept;
//! argument attributes are kept except `tf.aliasing_output` and
//! `jax.buffer_donor` (the new functions donate nothing).

use melior::ir::{
    attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute, TypeAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationMutLike},
    r#type::{DimSize, FunctionType, RankedTensorType, ShapedTypeLike},
    Attribute, Identifier, Location, Module, Operation, OperationRef, RegionLike, Type, Value,
    ValueLike,
};

use crate::{
    dce::eliminate_dead_code,
    ir::{collect_nested_ops, op_name, Diagnostic, Diagnostics},
    rewrite::{clone_op, erase},
    roles::{find_function, port_dictionaries, roles, Role, Side, Signature},
    PassError, PassOptions,
};

use crate::abi::{ATTESTED, REPLAY};

/// Argument attributes that must not survive into the new functions.
const DONATION_ATTRS: [&str; 2] = ["tf.aliasing_output", "jax.buffer_donor"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Both,
    Attested,
    Replay,
}

struct Options {
    func: String,
    output: Output,
}

impl Options {
    fn of(options: &PassOptions) -> Self {
        let values = &options.values;
        Self {
            func: values.text("func").unwrap_or("main").to_owned(),
            output: match values.text("output") {
                Some("attested") => Output::Attested,
                Some("replay") => Output::Replay,
                _ => Output::Both,
            },
        }
    }
}

fn fail(diagnostic: Diagnostic) -> PassError {
    PassError::Failed(Diagnostics(vec![diagnostic]))
}

/// Runs the pass; see the module documentation.
pub fn run(module: &Module<'_>, options: &mut PassOptions) -> Result<(), PassError> {
    let options = Options::of(options);
    let entry = find_function(module, &options.func).ok_or_else(|| {
        fail(Diagnostic::error(
            "<module>",
            format!(
                "--zkdv-slice-update: no function @{} in the module",
                options.func
            ),
        ))
    })?;
    for name in [ATTESTED, REPLAY] {
        if find_function(module, name).is_some() {
            return Err(fail(Diagnostic::error_at(
                &entry,
                format!("the module already has a function @{name}; slice a module only once"),
            )));
        }
    }
    if let Some(call) = collect_nested_ops(entry)
        .into_iter()
        .find(|op| op_name(op) == "func.call")
    {
        return Err(fail(Diagnostic::error_at(
            &call,
            "--zkdv-slice-update needs an inlined program: run --zkdv-inline first",
        )));
    }
    let signature = roles(entry).map_err(fail)?;
    check_argument_order(&entry, &signature).map_err(fail)?;

    // `to_ref` reinterprets the `ContextRef` value itself as a `Context`, so
    // the `ContextRef` must outlive every use of the reference: keep it in a
    // local for the whole pass (a temporary would dangle at the end of the
    // statement; cargo fuzz's AddressSanitizer caught exactly that).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives every module parsed in it, and so every attribute and
    // type built here.
    let context = unsafe { context_ref.to_ref() };
    let attested = build_attested(context, &entry, &signature).map_err(fail)?;
    let replay = build_replay(context, &entry, &signature).map_err(fail)?;
    let body = module.body();
    match options.output {
        Output::Both => {
            body.append_operation(attested);
            body.append_operation(replay);
        }
        Output::Attested | Output::Replay => {
            let mut keep = if options.output == Output::Attested {
                attested
            } else {
                replay
            };
            keep.set_attribute(
                "sym_name",
                StringAttribute::new(context, &options.func).into(),
            );
            // SAFETY: the entry is a top-level function we hold no other
            // reference into; everything derived from it (the signature) is
            // owned data, and the new functions are independent clones.
            unsafe { erase(entry) };
            body.append_operation(keep);
        }
    }
    eliminate_dead_code(module);
    Ok(())
}

fn check_argument_order(entry: &OperationRef, signature: &Signature) -> Result<(), Diagnostic> {
    let rank = |role: Role| match role {
        Role::Param => Some(0),
        Role::OptState => Some(1),
        Role::Batch => Some(2),
        _ => None,
    };
    let mut last = 0;
    for (index, port) in signature.args.iter().enumerate() {
        let Some(rank) = rank(port.role) else {
            return Err(Diagnostic::error_at(
                entry,
                format!(
                    "argument {index} ({}) has role `{}`: the attested ABI takes only params, \
                     optimizer state and batch",
                    port.path,
                    port.role.name()
                ),
            ));
        };
        if rank < last {
            return Err(Diagnostic::error_at(
                entry,
                format!(
                    "argument {index} ({}) is `{}` after a later tree: the attested ABI needs all \
                     params, then all optimizer state, then the batch",
                    port.path,
                    port.role.name()
                ),
            ));
        }
        last = rank;
    }
    if signature.args_with(Role::Param).next().is_none() {
        return Err(Diagnostic::error_at(
            entry,
            "the step has no `param` argument",
        ));
    }
    if signature.results_with(Role::Delta).next().is_none() {
        return Err(Diagnostic::error_at(
            entry,
            "the step has no `delta` result: return the additive update",
        ));
    }
    Ok(())
}

/// Argument attribute dictionaries of `entry` without donation attributes.
fn argument_attributes<'c>(
    context: &'c melior::Context,
    entry: &OperationRef<'c, '_>,
    count: usize,
) -> Result<Vec<Attribute<'c>>, Diagnostic> {
    port_dictionaries(entry, Side::Argument, count)?
        .into_iter()
        .map(|dictionary| {
            let kept = match dictionary {
                None => Vec::new(),
                Some(d) => (0..d.len())
                    .filter_map(|i| d.element(i).ok())
                    .filter(|(name, _)| {
                        !DONATION_ATTRS.contains(&name.as_string_ref().as_str().unwrap_or(""))
                    })
                    .collect(),
            };
            Ok(DictionaryAttribute::new(context, &kept).into())
        })
        .collect()
}

fn string_dictionary<'c>(context: &'c melior::Context, entries: &[(&str, &str)]) -> Attribute<'c> {
    let entries: Vec<_> = entries
        .iter()
        .map(|(name, value)| {
            (
                Identifier::new(context, name),
                StringAttribute::new(context, value).into(),
            )
        })
        .collect();
    DictionaryAttribute::new(context, &entries).into()
}

fn build_attested<'c>(
    context: &'c melior::Context,
    entry: &OperationRef<'c, '_>,
    signature: &Signature<'c>,
) -> Result<Operation<'c>, Diagnostic> {
    let location = entry.location();
    let ui64 = parse_type(context, "tensor<ui64>")?;
    let f32 = parse_type(context, "tensor<f32>")?;

    let mut function = clone_op(entry);
    function.set_attribute("sym_name", StringAttribute::new(context, ATTESTED).into());
    let inputs: Vec<Type> = signature
        .args
        .iter()
        .map(|port| port.r#type)
        .chain([ui64, ui64])
        .collect();
    function.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(context, &inputs, &[f32, f32]).into()).into(),
    );
    let mut arguments = argument_attributes(context, entry, signature.args.len())?;
    arguments.push(string_dictionary(
        context,
        &[("zkdv.role", "parameter_index")],
    ));
    arguments.push(string_dictionary(
        context,
        &[("zkdv.role", "optimizer_state_index")],
    ));
    function.set_attribute("arg_attrs", ArrayAttribute::new(context, &arguments).into());
    function.set_attribute(
        "res_attrs",
        ArrayAttribute::new(
            context,
            &[
                string_dictionary(context, &[("zkdv.role", "selected_delta")]),
                string_dictionary(context, &[("zkdv.role", "selected_post_optimizer_state")]),
            ],
        )
        .into(),
    );
    {
        let block = entry_block(&function, entry)?;
        let terminator = block
            .terminator()
            .ok_or_else(|| Diagnostic::error_at(entry, "the entry function has no terminator"))?;
        let parameter_index = block.add_argument(ui64, location);
        let state_index = block.add_argument(ui64, location);
        let leaves = |role: Role| -> Result<Vec<Value<'c, '_>>, Diagnostic> {
            signature
                .results_with(role)
                .map(|(index, _)| {
                    terminator.operand(index).map_err(|_| {
                        Diagnostic::error_at(entry, "the return has fewer operands than results")
                    })
                })
                .collect()
        };
        let mut emitter = Emitter {
            context,
            location,
            block: &block,
            before: terminator,
            ui64,
            f32,
        };
        let delta = emitter.select(&leaves(Role::Delta)?, parameter_index, entry)?;
        let state = emitter.select(&leaves(Role::PostOptState)?, state_index, entry)?;
        let ret = OperationBuilder::new("func.return", location)
            .add_operands(&[delta, state])
            .build()
            .map_err(|e| Diagnostic::error_at(entry, format!("cannot build the return: {e}")))?;
        block.insert_operation_before(terminator, ret);
        // SAFETY: the old terminator has no results and nothing refers to it
        // after this point.
        unsafe { erase(terminator) };
    }
    Ok(function)
}

fn build_replay<'c>(
    context: &'c melior::Context,
    entry: &OperationRef<'c, '_>,
    signature: &Signature<'c>,
) -> Result<Operation<'c>, Diagnostic> {
    let location = entry.location();
    let kept: Vec<usize> = signature
        .results
        .iter()
        .enumerate()
        .filter(|(_, port)| port.role != Role::User)
        .map(|(index, _)| index)
        .collect();
    let mut function = clone_op(entry);
    function.set_attribute("sym_name", StringAttribute::new(context, REPLAY).into());
    let inputs: Vec<Type> = signature.args.iter().map(|port| port.r#type).collect();
    let outputs: Vec<Type> = kept.iter().map(|&i| signature.results[i].r#type).collect();
    function.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(context, &inputs, &outputs).into()).into(),
    );
    let arguments = argument_attributes(context, entry, signature.args.len())?;
    function.set_attribute("arg_attrs", ArrayAttribute::new(context, &arguments).into());
    let results = port_dictionaries(entry, Side::Result, signature.results.len())?;
    let results: Vec<Attribute> = kept
        .iter()
        .map(|&i| match results[i] {
            Some(d) => d.into(),
            None => DictionaryAttribute::new(context, &[]).into(),
        })
        .collect();
    function.set_attribute("res_attrs", ArrayAttribute::new(context, &results).into());
    {
        let block = entry_block(&function, entry)?;
        let terminator = block
            .terminator()
            .ok_or_else(|| Diagnostic::error_at(entry, "the entry function has no terminator"))?;
        let operands = kept
            .iter()
            .map(|&i| terminator.operand(i))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| {
                Diagnostic::error_at(entry, "the return has fewer operands than results")
            })?;
        let ret = OperationBuilder::new("func.return", location)
            .add_operands(&operands)
            .build()
            .map_err(|e| Diagnostic::error_at(entry, format!("cannot build the return: {e}")))?;
        block.insert_operation_before(terminator, ret);
        // SAFETY: as in `build_attested`.
        unsafe { erase(terminator) };
    }
    Ok(function)
}

fn entry_block<'c, 'a>(
    function: &'a Operation<'c>,
    entry: &OperationRef<'c, '_>,
) -> Result<melior::ir::BlockRef<'c, 'a>, Diagnostic> {
    function
        .region(0)
        .ok()
        .and_then(|region| region.first_block())
        .ok_or_else(|| Diagnostic::error_at(entry, "the entry function has no body"))
}

fn parse_type<'c>(context: &'c melior::Context, text: &str) -> Result<Type<'c>, Diagnostic> {
    Type::parse(context, text)
        .ok_or_else(|| Diagnostic::error("<pass>", format!("cannot build type {text}")))
}

/// Emits ops before one op of one block.
struct Emitter<'c, 'a, 'b> {
    context: &'c melior::Context,
    location: Location<'c>,
    block: &'b melior::ir::BlockRef<'c, 'a>,
    before: OperationRef<'c, 'a>,
    ui64: Type<'c>,
    f32: Type<'c>,
}

impl<'c, 'a> Emitter<'c, 'a, '_> {
    fn op(
        &mut self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
        attributes: &[(&str, &str)],
        at: &OperationRef,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        let mut parsed = Vec::with_capacity(attributes.len());
        for (name, text) in attributes {
            let attribute = Attribute::parse(self.context, text).ok_or_else(|| {
                Diagnostic::error_at(at, format!("cannot build attribute {text}"))
            })?;
            parsed.push((Identifier::new(self.context, name), attribute));
        }
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&[result])
            .add_attributes(&parsed)
            .build()
            .map_err(|e| Diagnostic::error_at(at, format!("cannot build {name}: {e}")))?;
        let op = self.block.insert_operation_before(self.before, op);
        op.result(0)
            .map(Into::into)
            .map_err(|e| Diagnostic::error_at(at, format!("{name}: {e}")))
    }

    fn constant(
        &mut self,
        text: &str,
        r#type: Type<'c>,
        at: &OperationRef,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        self.op("stablehlo.constant", &[], r#type, &[("value", text)], at)
    }

    fn compare(
        &mut self,
        lhs: Value<'c, '_>,
        rhs: Value<'c, '_>,
        direction: &str,
        at: &OperationRef,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        let i1 = parse_type(self.context, "tensor<i1>")?;
        self.op(
            "stablehlo.compare",
            &[lhs, rhs],
            i1,
            &[
                (
                    "comparison_direction",
                    &format!("#stablehlo<comparison_direction {direction}>"),
                ),
                ("compare_type", "#stablehlo<comparison_type UNSIGNED>"),
            ],
            at,
        )
    }

    /// The f32 value at flat `index` of the concatenated `leaves`, 0.0 when
    /// the index is past the end.
    fn select(
        &mut self,
        leaves: &[Value<'c, '_>],
        index: Value<'c, '_>,
        at: &OperationRef,
    ) -> Result<Value<'c, 'a>, Diagnostic> {
        let mut acc = self.constant("dense<0.000000e+00> : tensor<f32>", self.f32, at)?;
        let mut offset: u64 = 0;
        for leaf in leaves {
            let tensor = RankedTensorType::try_from(leaf.r#type()).map_err(|_| {
                Diagnostic::error_at(
                    at,
                    format!("leaf of type {} is not a ranked tensor", leaf.r#type()),
                )
            })?;
            let mut count: u64 = 1;
            for dim in 0..tensor.rank() {
                match tensor.dim_size(dim) {
                    Ok(DimSize::Static(size)) => count = count.saturating_mul(size),
                    _ => {
                        return Err(Diagnostic::error_at(
                            at,
                            format!("leaf of type {} has a dynamic shape", leaf.r#type()),
                        ))
                    }
                }
            }
            if count == 0 {
                continue;
            }
            let element = tensor.element();
            let flat_type: Type = RankedTensorType::new(&[count], element, None).into();
            let one_type: Type = RankedTensorType::new(&[1], element, None).into();
            let scalar_type: Type = RankedTensorType::new(&[], element, None).into();
            let flat = if tensor.rank() == 1 {
                *leaf
            } else {
                self.op("stablehlo.reshape", &[*leaf], flat_type, &[], at)?
            };
            let start = self.constant(&format!("dense<{offset}> : tensor<ui64>"), self.ui64, at)?;
            let end_value = offset.checked_add(count).ok_or_else(|| {
                Diagnostic::error_at(at, "the leaves have more than 2^64 elements")
            })?;
            let end =
                self.constant(&format!("dense<{end_value}> : tensor<ui64>"), self.ui64, at)?;
            let local = self.op("stablehlo.subtract", &[index, start], self.ui64, &[], at)?;
            // dynamic_slice clamps its start into range, so an index below
            // the leaf (wrapped) or past it reads a valid element that the
            // mask below discards.
            let one = self.op(
                "stablehlo.dynamic_slice",
                &[flat, local],
                one_type,
                &[("slice_sizes", "array<i64: 1>")],
                at,
            )?;
            let scalar = self.op("stablehlo.reshape", &[one], scalar_type, &[], at)?;
            let value = if element == Type::float32(self.context) {
                scalar
            } else {
                self.op("stablehlo.convert", &[scalar], self.f32, &[], at)?
            };
            let above = self.compare(index, start, "GE", at)?;
            let below = self.compare(index, end, "LT", at)?;
            let i1 = parse_type(self.context, "tensor<i1>")?;
            let inside = self.op("stablehlo.and", &[above, below], i1, &[], at)?;
            acc = self.op("stablehlo.select", &[inside, value, acc], self.f32, &[], at)?;
            offset = end_value;
        }
        Ok(acc)
    }
}
