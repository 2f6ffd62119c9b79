//! `--zkdv-annotate-roles`: mark the entry function's arguments and results
//! with their roles and tree paths.
//!
//! Writes `zkdv.role` and `zkdv.path` (see [`crate::roles`]) into every
//! argument's and result's dictionary of the public entry `func.func`,
//! keeping all other attributes (`jax.result_info`, `tf.aliasing_output`,
//! `mhlo.sharding`, ...) and replacing earlier `zkdv.role`/`zkdv.path`.
//!
//! # Options
//!
//! `--zkdv-annotate-roles="func=NAME args=SPEC results=SPEC"`, space-separated
//! `key=value` items, all optional:
//!
//! - `func=NAME`: the entry function (default `main`).
//! - `args=SPEC`, `results=SPEC`: explicit roles. `SPEC` is a comma-separated
//!   list of `role:N` or `role:N-M` (inclusive index ranges), e.g.
//!   `args=param:0-3,opt_state:4-9,batch:10-11`
//!   `results=post_param:0-3,post_opt_state:4-9,delta:10-13,user:14`.
//!   A role may appear several times; an empty `SPEC` means no ports. Both
//!   keys must be given together, and every argument and result must be
//!   covered exactly once. When there are as many `param`s as `post_param`s,
//!   a `param` without `jax.arg_info` takes the path of its `post_param`
//!   (in order; likewise `opt_state` and `post_opt_state`).
//!
//! Without `args`/`results` the roles are *inferred* from JAX's names, for the
//! step ABI `(params, opt_state, batch) -> (new_params, new_opt_state, deltas,
//! loss)`: every result must carry a `jax.result_info` key path starting with
//! its top-level tuple index, `result[k]...` (as JAX 0.12 prints it) or
//! `[k]...`, in non-decreasing order; results `[0]` are `post_param`, `[1]`
//! `post_opt_state`, `[2]` `delta`, `[3]` and later `user`. There must be `[0]` results and as many `[2]` (delta) results as
//! `[0]` results. The arguments are then, in order, as many `param`s as
//! `[0]` results, as many `opt_state`s as `[1]` results (zero for an empty
//! optimizer state) and `batch` for the rest. Each `param` and `opt_state`
//! argument takes the path of its post-state result (the i-th `param` that of
//! the i-th `post_param`); where it carries a `jax.arg_info`, the path derived
//! from it must equal that path or end with `/` and that path
//! (`args[0]['w']`), or inference fails.
//!
//! # Paths
//!
//! A JAX key path (`params['Dense_0']['kernel']` in `jax.arg_info`,
//! `result[0]['Dense_0']['kernel']` or `[0]['Dense_0']['kernel']` in
//! `jax.result_info`) becomes its components joined by `/` (`['k']`, `[0]`,
//! `.k` each give one component), without a leading name (`params`,
//! `result`) and, for results, without the top-level tuple index that
//! follows it: all three examples give `Dense_0/kernel`, so a parameter, its
//! post-state and its delta share one path (optimizer state:
//! `result[1][0].mu['Dense_0']['kernel']` gives `0/mu/Dense_0/kernel`). When
//! nothing is left, the last dropped component is the path (`result[3]` gives
//! `3`). Ports without a JAX name get `argN` / `resultN`.
//!
//! # Preconditions and invariants
//!
//! The function exists at the top level of the module, is not private and has
//! a function type. Every problem (unknown option, bad range, overlap, gap,
//! count mismatch, roles that cannot be inferred: "a program without roles")
//! is a located diagnostic and leaves the IR unchanged: the pass computes all
//! roles first and rewrites `arg_attrs`/`res_attrs` only when they are valid.

use melior::{
    ir::{
        attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike},
        Attribute, Identifier, Module,
    },
    Context,
};

use crate::{
    ir::{format_location, op_name, Diagnostic, Diagnostics},
    options::OptionValues,
    roles::{
        function_name, function_type, port_dictionaries, string_entry, string_value, Role, Side,
        PATH_ATTR, ROLE_ATTR,
    },
    PassError, PassOptions,
};

/// The entry function when no `func=` option is given.
pub const DEFAULT_ENTRY: &str = "main";

/// Parsed pass options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `func=`; `None` means [`DEFAULT_ENTRY`].
    pub func: Option<String>,
    /// `args=`: `(role, first, last)` inclusive ranges.
    pub args: Option<Vec<(Role, usize, usize)>>,
    /// `results=`: `(role, first, last)` inclusive ranges.
    pub results: Option<Vec<(Role, usize, usize)>>,
}

impl Options {
    /// Reads the checked option values; the error says what is wrong with a
    /// role list.
    pub fn of(values: &OptionValues) -> Result<Self, String> {
        let spec = |name: &str, side| values.text(name).map(|text| parse_spec(text, side));
        let options = Options {
            func: values.text("func").map(str::to_owned),
            args: spec("args", Side::Argument).transpose()?,
            results: spec("results", Side::Result).transpose()?,
        };
        if options.args.is_some() != options.results.is_some() {
            return Err(
                "give `args=` and `results=` together (an empty list is allowed), or \
                 neither to infer roles from JAX names"
                    .to_owned(),
            );
        }
        Ok(options)
    }
}

fn parse_spec(spec: &str, side: Side) -> Result<Vec<(Role, usize, usize)>, String> {
    let legal = Role::legal_on(side);
    let legal_names = || {
        legal
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    spec.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (role, range) = item
                .split_once(':')
                .ok_or_else(|| format!("`{item}` is not `role:N` or `role:N-M`"))?;
            let role = Role::from_name(role)
                .filter(|role| legal.contains(role))
                .ok_or_else(|| {
                    format!(
                        "`{role}` is not a role of {}s (expected one of: {})",
                        side.noun(),
                        legal_names()
                    )
                })?;
            let index = |text: &str| {
                text.parse::<usize>()
                    .map_err(|_| format!("`{item}`: `{text}` is not an index"))
            };
            let (first, last) = match range.split_once('-') {
                Some((first, last)) => (index(first)?, index(last)?),
                None => (index(range)?, index(range)?),
            };
            if first > last {
                return Err(format!("`{item}`: empty range {first}-{last}"));
            }
            Ok((role, first, last))
        })
        .collect()
}

/// Runs the pass.
pub fn run(module: &Module<'_>, options: &mut PassOptions) -> Result<(), PassError> {
    annotate(module, &options.values)
        .map_err(|diagnostic| PassError::Failed(Diagnostics(vec![diagnostic])))
}

/// One side's computed roles and paths.
type Assignment = Vec<(Role, String)>;

fn annotate(module: &Module<'_>, values: &OptionValues) -> Result<(), Diagnostic> {
    let module_location = format_location(module.as_operation().location());
    let options = Options::of(values).map_err(|message| {
        Diagnostic::error(
            module_location.clone(),
            format!("--zkdv-annotate-roles: {message}"),
        )
    })?;
    let entry = options.func.as_deref().unwrap_or(DEFAULT_ENTRY);

    // Find the function (mutably: its attributes are rewritten at the end).
    let mut next = module.body().first_operation_mut();
    let mut found = None;
    while let Some(op) = next {
        next = op.next_in_block_mut();
        if op_name(&op) == "func.func" && function_name(&op).as_deref() == Some(entry) {
            found = Some(op);
            break;
        }
    }
    let Some(mut func) = found else {
        return Err(Diagnostic::error(
            module_location,
            format!(
                "--zkdv-annotate-roles: no function @{entry} in the module (choose one with \
                 `func=NAME`)"
            ),
        ));
    };
    if func
        .attribute("sym_visibility")
        .ok()
        .and_then(string_value)
        .is_some_and(|visibility| visibility == "private")
    {
        return Err(Diagnostic::error_at(
            &func,
            format!("@{entry} is private; roles belong on the public entry function"),
        ));
    }
    let r#type = function_type(&func)?;
    let arg_dicts = port_dictionaries(&func, Side::Argument, r#type.input_count())?;
    let res_dicts = port_dictionaries(&func, Side::Result, r#type.result_count())?;
    let arg_names: Vec<Option<String>> = arg_dicts
        .iter()
        .map(|d| string_entry(*d, Side::Argument.jax_info_name()))
        .collect();
    let res_names: Vec<Option<String>> = res_dicts
        .iter()
        .map(|d| string_entry(*d, Side::Result.jax_info_name()))
        .collect();

    let (args, results) = match (&options.args, &options.results) {
        (Some(arg_spec), Some(res_spec)) => {
            let at = |message: String| Diagnostic::error_at(&func, message);
            let mut args = explicit(Side::Argument, arg_spec, &arg_names, entry).map_err(at)?;
            let results = explicit(Side::Result, res_spec, &res_names, entry).map_err(at)?;
            pair_unnamed(&mut args, &arg_names, &results);
            (args, results)
        }
        _ => infer(&arg_names, &res_names).map_err(|reason| {
            Diagnostic::error_at(
                &func,
                format!(
                    "cannot determine the roles of @{entry} (a program without roles): {reason}; \
                     expected the step ABI `(params, opt_state, batch) -> (new_params, \
                     new_opt_state, deltas, loss)` named by JAX, or give them explicitly, e.g. \
                     --zkdv-annotate-roles=\"args=param:0-3,opt_state:4-9,batch:10-11 \
                     results=post_param:0-3,post_opt_state:4-9,delta:10-13,user:14\""
                ),
            )
        })?,
    };

    // All roles are valid: rewrite the attributes.
    // `to_ref` reinterprets the `ContextRef` value itself as a `Context`, so
    // the `ContextRef` must outlive every use of the reference: keep it in a
    // local for the whole pass (a temporary would dangle at the end of the
    // statement; cargo fuzz's AddressSanitizer caught exactly that).
    let context_ref = module.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives every module parsed in it, and so every attribute and
    // type built here.
    let context: &Context = unsafe { context_ref.to_ref() };
    let new_args = rewrite(context, &arg_dicts, &args);
    let new_results = rewrite(context, &res_dicts, &results);
    if !args.is_empty() {
        func.set_attribute(Side::Argument.attrs_name(), new_args);
    }
    if !results.is_empty() {
        func.set_attribute(Side::Result.attrs_name(), new_results);
    }
    Ok(())
}

/// The new `arg_attrs`/`res_attrs` array: each old dictionary without
/// `zkdv.role`/`zkdv.path`, plus the new ones.
fn rewrite<'c>(
    context: &'c Context,
    dictionaries: &[Option<DictionaryAttribute<'c>>],
    assignment: &Assignment,
) -> Attribute<'c> {
    let entries: Vec<Attribute<'c>> = dictionaries
        .iter()
        .zip(assignment)
        .map(|(dictionary, (role, path))| {
            let mut elements: Vec<(Identifier<'c>, Attribute<'c>)> = dictionary
                .map(|dictionary| {
                    (0..dictionary.len())
                        .filter_map(|index| dictionary.element(index).ok())
                        .filter(|(name, _)| {
                            let name = name.as_string_ref();
                            let name = name.as_str().unwrap_or_default();
                            name != ROLE_ATTR && name != PATH_ATTR
                        })
                        .collect()
                })
                .unwrap_or_default();
            elements.push((
                Identifier::new(context, ROLE_ATTR),
                StringAttribute::new(context, role.name()).into(),
            ));
            elements.push((
                Identifier::new(context, PATH_ATTR),
                StringAttribute::new(context, path).into(),
            ));
            DictionaryAttribute::new(context, &elements).into()
        })
        .collect();
    ArrayAttribute::new(context, &entries).into()
}

/// Roles from explicit ranges; every port covered exactly once.
fn explicit(
    side: Side,
    spec: &[(Role, usize, usize)],
    names: &[Option<String>],
    entry: &str,
) -> Result<Assignment, String> {
    let noun = side.noun();
    let count = names.len();
    let mut roles: Vec<Option<Role>> = vec![None; count];
    for &(role, first, last) in spec {
        if last >= count {
            return Err(format!(
                "{noun} range {role}:{first}-{last} is out of bounds: @{entry} has {count} {noun}s"
            ));
        }
        for (index, slot) in roles.iter_mut().enumerate().take(last + 1).skip(first) {
            if let Some(previous) = slot.replace(role) {
                return Err(format!(
                    "{noun} {index} of @{entry} is given two roles ({previous} and {role})"
                ));
            }
        }
    }
    if let Some(missing) = roles.iter().position(Option::is_none) {
        return Err(format!(
            "{noun} {missing} of @{entry} has no role: the `{}=` ranges must cover all {count} \
             {noun}s",
            if side == Side::Argument {
                "args"
            } else {
                "results"
            }
        ));
    }
    Ok(roles
        .into_iter()
        .zip(names)
        .enumerate()
        .map(|(index, (role, name))| {
            let role = role.expect("checked above");
            (role, port_path(side, index, name.as_deref()))
        })
        .collect())
}

/// Gives unnamed `param` (`opt_state`) arguments the paths of the
/// `post_param` (`post_opt_state`) results, in order, when both counts agree.
fn pair_unnamed(args: &mut Assignment, arg_names: &[Option<String>], results: &Assignment) {
    for (role, post_role) in [
        (Role::Param, Role::PostParam),
        (Role::OptState, Role::PostOptState),
    ] {
        let posts: Vec<&String> = results
            .iter()
            .filter(|(r, _)| *r == post_role)
            .map(|(_, path)| path)
            .collect();
        let pre: Vec<usize> = (0..args.len()).filter(|&i| args[i].0 == role).collect();
        if pre.len() != posts.len() {
            continue;
        }
        for (index, post_path) in pre.into_iter().zip(posts) {
            if arg_names[index].is_none() {
                args[index].1.clone_from(post_path);
            }
        }
    }
}

/// Roles inferred from JAX names (see the module docs); the error says why
/// they cannot be.
fn infer(
    arg_names: &[Option<String>],
    res_names: &[Option<String>],
) -> Result<(Assignment, Assignment), String> {
    if res_names.is_empty() {
        return Err("it has no results".to_owned());
    }
    let mut tuple_indices = Vec::with_capacity(res_names.len());
    for (index, name) in res_names.iter().enumerate() {
        let keys = name.as_deref().and_then(parse_key_path);
        let Some(tuple_index) = keys.as_deref().and_then(tuple_index) else {
            return Err(match name {
                Some(name) => format!(
                    "result {index} has `jax.result_info = \"{name}\"`, which does not start \
                     with a tuple index like `result[0]`"
                ),
                None => format!("result {index} has no `jax.result_info`"),
            });
        };
        if tuple_indices.last().is_some_and(|&last| last > tuple_index) {
            return Err(format!(
                "result {index} is in tuple element [{tuple_index}], after a later element"
            ));
        }
        tuple_indices.push(tuple_index);
    }
    let count_of = |wanted: u64| tuple_indices.iter().filter(|&&k| k == wanted).count();
    let (params, opt_state, deltas) = (count_of(0), count_of(1), count_of(2));
    if params == 0 {
        return Err("no result is in tuple element [0] (the new parameters)".to_owned());
    }
    if deltas != params {
        return Err(format!(
            "tuple element [2] (the deltas) has {deltas} leaves but element [0] (the new \
             parameters) has {params}"
        ));
    }
    if arg_names.len() < params + opt_state {
        return Err(format!(
            "it has {} arguments, fewer than the {params} parameters and {opt_state} optimizer \
             state leaves its results imply",
            arg_names.len()
        ));
    }
    let results: Assignment = tuple_indices
        .iter()
        .zip(res_names)
        .enumerate()
        .map(|(index, (tuple_index, name))| {
            let role = match tuple_index {
                0 => Role::PostParam,
                1 => Role::PostOptState,
                2 => Role::Delta,
                _ => Role::User,
            };
            (role, port_path(Side::Result, index, name.as_deref()))
        })
        .collect();
    let args: Assignment = arg_names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let role = if index < params {
                Role::Param
            } else if index < params + opt_state {
                Role::OptState
            } else {
                Role::Batch
            };
            (role, port_path(Side::Argument, index, name.as_deref()))
        })
        .collect();
    // A parameter or optimizer-state argument takes the path of its
    // post-state result, so the two pair up by path. A JAX name must agree:
    // its path equals the result's, or ends with it (`args[0]['w']`).
    let post: Vec<&(Role, String)> = results
        .iter()
        .filter(|(role, _)| matches!(role, Role::PostParam | Role::PostOptState))
        .collect();
    let mut args = args;
    for (index, ((role, path), (post_role, post_path))) in args.iter_mut().zip(post).enumerate() {
        if arg_names[index].is_some()
            && path != post_path
            && !path.ends_with(&format!("/{post_path}"))
        {
            return Err(format!(
                "argument {index} would be a {role} with path `{path}`, but the matching \
                 {post_role} result has path `{post_path}`"
            ));
        }
        path.clone_from(post_path);
    }
    Ok((args, results))
}

/// The path of one port: its JAX key path without the first component (see
/// the module docs), or `argN`/`resultN`.
fn port_path(side: Side, index: usize, name: Option<&str>) -> String {
    let fallback = || match side {
        Side::Argument => format!("arg{index}"),
        Side::Result => format!("result{index}"),
    };
    let Some(name) = name.filter(|name| !name.is_empty()) else {
        return fallback();
    };
    let Some(keys) = parse_key_path(name) else {
        // Not a key path JAX prints: keep the text as one component.
        return name.to_owned();
    };
    let mut rest = keys.as_slice();
    let mut dropped = None;
    if let [first @ Key::Name(_), tail @ ..] = rest {
        dropped = Some(first);
        rest = tail;
    }
    if side == Side::Result {
        if let [first @ Key::Index(_), tail @ ..] = rest {
            dropped = Some(first);
            rest = tail;
        }
    }
    match (rest, dropped) {
        ([], Some(last)) => last.component(),
        ([], None) => fallback(),
        (rest, _) => rest
            .iter()
            .map(Key::component)
            .collect::<Vec<_>>()
            .join("/"),
    }
}

/// The top-level tuple index of a `jax.result_info` key path: its first
/// component, or its second after a leading name (`result[1]...`).
fn tuple_index(keys: &[Key]) -> Option<u64> {
    match keys {
        [Key::Index(index), ..] | [Key::Name(_), Key::Index(index), ..] => Some(*index),
        _ => None,
    }
}

/// One component of a JAX key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// A leading Python name, e.g. `params`.
    Name(String),
    /// A sequence index `[0]` (or a flattened index `[<flat index 0>]`).
    Index(u64),
    /// A dictionary key `['kernel']`, or any other bracketed text.
    Entry(String),
    /// An attribute `.mu`.
    Attr(String),
}

impl Key {
    /// The text of this component in a `/`-joined path.
    pub fn component(&self) -> String {
        match self {
            Key::Name(text) | Key::Entry(text) | Key::Attr(text) => text.clone(),
            Key::Index(index) => index.to_string(),
        }
    }
}

/// Parses a JAX key path such as `opt_state[0].mu['Dense_0']['kernel']` or
/// `[1]['b']`; `None` if the text is not one.
pub fn parse_key_path(text: &str) -> Option<Vec<Key>> {
    let is_name_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut keys = Vec::new();
    let mut rest = text.trim();
    let name_len = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
    if name_len > 0 {
        keys.push(Key::Name(rest[..name_len].to_owned()));
        rest = &rest[name_len..];
    }
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let len = after
                .find(|c: char| !is_name_char(c))
                .unwrap_or(after.len());
            if len == 0 {
                return None;
            }
            keys.push(Key::Attr(after[..len].to_owned()));
            rest = &after[len..];
        } else if let Some(after) = rest.strip_prefix('[') {
            rest = if let Some(quote @ ('\'' | '"')) = after.chars().next() {
                let close = after[1..].find(quote)? + 1;
                if !after[close + 1..].starts_with(']') {
                    return None;
                }
                keys.push(Key::Entry(after[1..close].to_owned()));
                &after[close + 2..]
            } else {
                let close = after.find(']')?;
                let inner = &after[..close];
                let digits = inner
                    .trim_start_matches("<flat index ")
                    .trim_end_matches('>');
                keys.push(match digits.parse::<u64>() {
                    Ok(index) => Key::Index(index),
                    Err(_) => Key::Entry(inner.to_owned()),
                });
                &after[close + 1..]
            };
        } else {
            return None;
        }
    }
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_become_slash_paths() {
        let arg = Some("params['params']['Dense_0']['kernel']");
        let res = Some("[0]['params']['Dense_0']['kernel']");
        assert_eq!(port_path(Side::Argument, 0, arg), "params/Dense_0/kernel");
        assert_eq!(port_path(Side::Result, 0, res), "params/Dense_0/kernel");
        assert_eq!(
            port_path(
                Side::Result,
                0,
                Some("result[1][0].mu['Dense_0']['kernel']")
            ),
            "0/mu/Dense_0/kernel"
        );
        assert_eq!(
            port_path(Side::Argument, 4, Some("opt_state[0].mu['w']")),
            "0/mu/w"
        );
        assert_eq!(port_path(Side::Result, 3, Some("[3]")), "3");
        assert_eq!(port_path(Side::Result, 3, Some("result[3]")), "3");
        assert_eq!(port_path(Side::Argument, 2, Some("batch")), "batch");
        assert_eq!(port_path(Side::Result, 0, Some("")), "result0");
        assert_eq!(port_path(Side::Argument, 7, None), "arg7");
        assert_eq!(
            parse_key_path("x[<flat index 3>][\"a b\"]"),
            Some(vec![
                Key::Name("x".into()),
                Key::Index(3),
                Key::Entry("a b".into())
            ])
        );
        assert_eq!(parse_key_path("a[1"), None);
    }

    fn parse_options(text: &str) -> Result<Options, String> {
        let pass = crate::registry::find("zkdv-annotate-roles").expect("registered");
        let values = pass.parse_options(text).map_err(|e| e.to_string())?;
        Options::of(&values)
    }

    #[test]
    fn options_parse_and_reject() {
        let options =
            parse_options("func=step args=param:0-1,batch:2 results=post_param:0-1,user:2")
                .expect("parses");
        assert_eq!(options.func.as_deref(), Some("step"));
        assert_eq!(
            options.args,
            Some(vec![(Role::Param, 0, 1), (Role::Batch, 2, 2)])
        );
        assert!(parse_options("args=param:0").is_err());
        assert!(parse_options("args=delta:0 results=")
            .unwrap_err()
            .contains("not a role of arguments"));
        assert!(parse_options("args=param:3-1 results=").is_err());
        assert!(parse_options("colour=blue")
            .unwrap_err()
            .contains("unknown option"));
        let defaults = Options {
            func: Some(DEFAULT_ENTRY.into()),
            ..Options::default()
        };
        assert_eq!(parse_options("").unwrap(), defaults);
    }

    #[test]
    fn annotated_roles_read_back() {
        let source = r#""func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {}], function_type = (tensor<2xf32>, tensor<3xbf16>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>), res_attrs = [{jax.result_info = "result[0]['w']"}, {jax.result_info = "result[2]['w']"}, {jax.result_info = "result[3]"}], sym_name = "main"}> ({
^bb0(%w: tensor<2xf32>, %x: tensor<3xbf16>):
  %l = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  "func.return"(%w, %w, %l) : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> ()
}) : () -> ()"#;
        let context = crate::IrContext::new();
        let module = context.parse(source, "t.mlir").expect("parses");
        let mut options = PassOptions::default();
        run(&module, &mut options).expect("annotates");
        assert!(context.verify(&module).is_ok());
        let func = crate::roles::find_function(&module, "main").expect("main");
        let signature = crate::roles::roles(func).expect("reads roles");
        let roles: Vec<(Role, &str)> = signature
            .args
            .iter()
            .chain(&signature.results)
            .map(|port| (port.role, port.path.as_str()))
            .collect();
        assert_eq!(
            roles,
            [
                (Role::Param, "w"),
                (Role::Batch, "arg1"),
                (Role::PostParam, "w"),
                (Role::Delta, "w"),
                (Role::User, "3"),
            ]
        );
        assert_eq!(signature.args[1].r#type.to_string(), "tensor<3xbf16>");
        // Other attributes are kept.
        let text = crate::ir::print_generic(&module).expect("prints");
        assert!(
            text.contains("tf.aliasing_output = 0 : i32, zkdv.path = \"w\""),
            "{text}"
        );
    }

    #[test]
    fn inference_follows_the_step_abi() {
        let s = |text: &str| Some(text.to_owned());
        let args = [s("params['w']"), s("opt_state[0].mu['w']"), s("batch['x']")];
        let results = [s("[0]['w']"), s("[1][0].mu['w']"), s("[2]['w']"), s("[3]")];
        let (args, results) = infer(&args, &results).expect("infers");
        let roles: Vec<Role> = args.iter().map(|(role, _)| *role).collect();
        assert_eq!(roles, [Role::Param, Role::OptState, Role::Batch]);
        assert_eq!(args[1].1, "0/mu/w");
        assert_eq!(results[1], (Role::PostOptState, "0/mu/w".to_owned()));
        assert_eq!(results[3], (Role::User, "3".to_owned()));
        // A mismatch between a named argument and its post-state fails.
        let bad_args = [s("params['v']"), s("opt_state[0].mu['w']"), s("batch['x']")];
        let results = [s("[0]['w']"), s("[1][0].mu['w']"), s("[2]['w']"), s("[3]")];
        assert!(infer(&bad_args, &results).unwrap_err().contains("`v`"));
    }
}
