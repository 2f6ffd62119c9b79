//! Roles of a training step's arguments and results: the attribute
//! convention, and a reader for the passes that need it.
//!
//! ZKDV attests updates of a training step with the ABI
//! `(params, opt_state, batch) -> (new_params, new_opt_state, deltas, loss)`.
//! After flattening, each argument and result of the public entry
//! `func.func` is one leaf of those trees. Its *role* and tree *path* are
//! recorded in the function's `arg_attrs` / `res_attrs` dictionaries:
//!
//! ```text
//! %arg0: tensor<4x8xf32> {jax.arg_info = "params['w']", zkdv.path = "w", zkdv.role = "param"}
//! ```
//!
//! - `zkdv.role` (StringAttr): one of [`Role`]; arguments take `param`,
//!   `opt_state`, `batch` or `user`, results `post_param`, `post_opt_state`,
//!   `delta` or `user`. The commitment hooks that
//!   `--zkdv-insert-commitments` ([`crate::insert_commitments`]) appends add
//!   the argument role `probe_weight` and the result role
//!   `sketch` (see [`Role::INSERTED_ARGUMENT_ROLES`]); the reader accepts them,
//!   `--zkdv-annotate-roles` does not assign them.
//! - `zkdv.path` (StringAttr): the leaf's path in its tree, components joined
//!   by `/` (e.g. `params/Dense_0/kernel`). A parameter, its post-state and its
//!   delta carry the same path.
//!
//! `--zkdv-annotate-roles` ([`crate::annotate_roles`]) writes these attributes;
//! the Python frontend sets them directly. Other attributes in the same
//! dictionaries are kept. [`roles`] reads them back and checks them.

use std::fmt::{self, Display, Formatter};

use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike, DictionaryAttribute},
    operation::OperationLike,
    Attribute, OperationRef, Type,
};

use crate::ir::Diagnostic;
/// Function lookup moved to the shared front end (`zkdv-ir`); re-exported for the passes.
pub use crate::ir::{find_function, function_name, function_type, functions, string_value};

/// Name of the role attribute in an argument's or result's dictionary.
pub const ROLE_ATTR: &str = "zkdv.role";
/// Name of the tree-path attribute in an argument's or result's dictionary.
pub const PATH_ATTR: &str = "zkdv.path";

/// What an argument or result of a training step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// A parameter leaf before the step (argument).
    Param,
    /// An optimizer-state leaf before the step (argument).
    OptState,
    /// A batch leaf (argument).
    Batch,
    /// The update of a parameter leaf (result).
    Delta,
    /// A parameter leaf after the step (result).
    PostParam,
    /// An optimizer-state leaf after the step (result).
    PostOptState,
    /// Anything else (argument or result), e.g. the loss.
    User,
    /// Per-coordinate weights of a delta leaf's probe map (argument added by
    /// `--zkdv-insert-commitments`).
    ProbeWeight,
    /// The probe sketch of a delta leaf (result added by
    /// `--zkdv-insert-commitments`).
    Sketch,
}

impl Role {
    /// Roles an argument may take.
    pub const ARGUMENT_ROLES: [Role; 4] = [Role::Param, Role::OptState, Role::Batch, Role::User];
    /// Roles a result may take.
    pub const RESULT_ROLES: [Role; 4] =
        [Role::PostParam, Role::PostOptState, Role::Delta, Role::User];

    /// Argument roles that only `--zkdv-insert-commitments` adds.
    pub const INSERTED_ARGUMENT_ROLES: [Role; 1] = [Role::ProbeWeight];
    /// Result roles that only `--zkdv-insert-commitments` adds.
    pub const INSERTED_RESULT_ROLES: [Role; 1] = [Role::Sketch];

    /// The attribute spelling, e.g. `opt_state`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Param => "param",
            Role::OptState => "opt_state",
            Role::Batch => "batch",
            Role::Delta => "delta",
            Role::PostParam => "post_param",
            Role::PostOptState => "post_opt_state",
            Role::User => "user",
            Role::ProbeWeight => "probe_weight",
            Role::Sketch => "sketch",
        }
    }

    /// The role spelled `name`, if any.
    pub fn from_name(name: &str) -> Option<Role> {
        [
            Role::Param,
            Role::OptState,
            Role::Batch,
            Role::Delta,
            Role::PostParam,
            Role::PostOptState,
            Role::User,
            Role::ProbeWeight,
            Role::Sketch,
        ]
        .into_iter()
        .find(|role| role.name() == name)
    }

    /// The roles a user (or `--zkdv-annotate-roles`) may assign on `side`.
    pub fn legal_on(side: Side) -> &'static [Role] {
        match side {
            Side::Argument => &Self::ARGUMENT_ROLES,
            Side::Result => &Self::RESULT_ROLES,
        }
    }

    /// The roles `--zkdv-insert-commitments` adds on `side`; [`roles`] reads
    /// them besides [`Role::legal_on`].
    pub fn inserted_on(side: Side) -> &'static [Role] {
        match side {
            Side::Argument => &Self::INSERTED_ARGUMENT_ROLES,
            Side::Result => &Self::INSERTED_RESULT_ROLES,
        }
    }
}

impl Display for Role {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Arguments or results of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Argument,
    Result,
}

impl Side {
    /// `argument` or `result`.
    pub fn noun(self) -> &'static str {
        match self {
            Side::Argument => "argument",
            Side::Result => "result",
        }
    }

    /// The `func.func` attribute holding this side's dictionaries.
    pub fn attrs_name(self) -> &'static str {
        match self {
            Side::Argument => "arg_attrs",
            Side::Result => "res_attrs",
        }
    }

    /// The JAX attribute naming this side's leaves.
    pub fn jax_info_name(self) -> &'static str {
        match self {
            Side::Argument => "jax.arg_info",
            Side::Result => "jax.result_info",
        }
    }
}

/// One argument or result with its role, path and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port<'c> {
    pub role: Role,
    /// `/`-joined tree path, e.g. `params/Dense_0/kernel`.
    pub path: String,
    pub r#type: Type<'c>,
}

/// The roles of a function's arguments and results, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature<'c> {
    /// The function's `sym_name`.
    pub function: String,
    pub args: Vec<Port<'c>>,
    pub results: Vec<Port<'c>>,
}

impl<'c> Signature<'c> {
    /// The arguments with `role`, with their indices.
    pub fn args_with(&self, role: Role) -> impl Iterator<Item = (usize, &Port<'c>)> {
        self.args
            .iter()
            .enumerate()
            .filter(move |(_, port)| port.role == role)
    }

    /// The results with `role`, with their indices.
    pub fn results_with(&self, role: Role) -> impl Iterator<Item = (usize, &Port<'c>)> {
        self.results
            .iter()
            .enumerate()
            .filter(move |(_, port)| port.role == role)
    }
}

/// The attribute dictionaries of one side of `func`, one per port (empty
/// dictionaries where `func` has none).
pub fn port_dictionaries<'c, 'a>(
    func: &impl OperationLike<'c, 'a>,
    side: Side,
    count: usize,
) -> Result<Vec<Option<DictionaryAttribute<'c>>>, Diagnostic>
where
    'c: 'a,
{
    let Ok(attribute) = func.attribute(side.attrs_name()) else {
        return Ok(vec![None; count]);
    };
    let array = ArrayAttribute::try_from(attribute).map_err(|_| {
        Diagnostic::error_at(func, format!("`{}` is not an array", side.attrs_name()))
    })?;
    if array.len() != count {
        return Err(Diagnostic::error_at(
            func,
            format!(
                "`{}` has {} entries for {count} {}s",
                side.attrs_name(),
                array.len(),
                side.noun()
            ),
        ));
    }
    (0..count)
        .map(|index| {
            let element: Attribute<'c> = array.element(index).map_err(|error| {
                Diagnostic::error_at(func, format!("`{}`: {error}", side.attrs_name()))
            })?;
            DictionaryAttribute::try_from(element)
                .map(Some)
                .map_err(|_| {
                    Diagnostic::error_at(
                        func,
                        format!("`{}` entry {index} is not a dictionary", side.attrs_name()),
                    )
                })
        })
        .collect()
}

/// The string value of `name` in `dictionary`, if present and a string.
pub fn string_entry(dictionary: Option<DictionaryAttribute<'_>>, name: &str) -> Option<String> {
    dictionary
        .and_then(|dictionary| dictionary.element_by_name(name))
        .and_then(string_value)
}

/// The symbol of a flat symbol reference (`@name`), `None` for other
/// attributes. Like [`string_value`], safe for the empty symbol.
pub fn symbol_value(attribute: Attribute<'_>) -> Option<String> {
    let attribute = melior::ir::attribute::FlatSymbolRefAttribute::try_from(attribute).ok()?;
    // SAFETY: `attribute` is a live flat symbol reference; MLIR returns a
    // reference to its storage, which lives as long as the context.
    let raw = unsafe { mlir_sys::mlirFlatSymbolRefAttrGetValue(attribute.to_raw()) };
    if raw.length == 0 || raw.data.is_null() {
        return Some(String::new());
    }
    // SAFETY: `data` is non-null and points at `length` bytes owned by the
    // attribute's storage.
    let bytes = unsafe { std::slice::from_raw_parts(raw.data.cast::<u8>(), raw.length) };
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// Reads the roles and paths of `func` (a `func.func`).
///
/// Fails, at the function's location, if no argument or result has a role ("a
/// program without roles"), if some but not all have one, if a role is not
/// legal on its side, or if a port with a role lacks its path.
pub fn roles<'c, 'a>(func: OperationRef<'c, 'a>) -> Result<Signature<'c>, Diagnostic> {
    let name = function_name(&func).unwrap_or_default();
    let r#type = function_type(&func)?;
    let inputs = (0..r#type.input_count())
        .map(|index| r#type.input(index).expect("index in range"))
        .collect::<Vec<_>>();
    let outputs = (0..r#type.result_count())
        .map(|index| r#type.result(index).expect("index in range"))
        .collect::<Vec<_>>();
    let arg_dicts = port_dictionaries(&func, Side::Argument, inputs.len())?;
    let res_dicts = port_dictionaries(&func, Side::Result, outputs.len())?;

    let any_role = arg_dicts
        .iter()
        .chain(&res_dicts)
        .any(|dictionary| dictionary.is_some_and(|d| d.element_by_name(ROLE_ATTR).is_some()));
    let has_ports = !inputs.is_empty() || !outputs.is_empty();
    if has_ports && !any_role {
        return Err(Diagnostic::error_at(
            &func,
            format!(
                "@{name} is a program without roles: no argument or result has a `{ROLE_ATTR}` \
                 attribute; run --zkdv-annotate-roles first (or set the roles in the frontend)"
            ),
        ));
    }
    let side_ports = |side: Side, dicts: &[Option<DictionaryAttribute<'c>>], types: &[Type<'c>]| {
        dicts
            .iter()
            .zip(types)
            .enumerate()
            .map(|(index, (dictionary, r#type))| {
                read_port(&func, &name, side, index, *dictionary, *r#type)
            })
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Signature {
        args: side_ports(Side::Argument, &arg_dicts, &inputs)?,
        results: side_ports(Side::Result, &res_dicts, &outputs)?,
        function: name,
    })
}

fn read_port<'c>(
    func: &OperationRef<'c, '_>,
    name: &str,
    side: Side,
    index: usize,
    dictionary: Option<DictionaryAttribute<'c>>,
    r#type: Type<'c>,
) -> Result<Port<'c>, Diagnostic> {
    let noun = side.noun();
    let Some(role_text) = string_entry(dictionary, ROLE_ATTR) else {
        return Err(Diagnostic::error_at(
            func,
            format!("{noun} {index} of @{name} has no string `{ROLE_ATTR}` attribute"),
        ));
    };
    let legal: Vec<Role> = Role::legal_on(side)
        .iter()
        .chain(Role::inserted_on(side))
        .copied()
        .collect();
    let role =
        Role::from_name(&role_text)
            .filter(|role| legal.contains(role))
            .ok_or_else(|| {
                Diagnostic::error_at(
                    func,
                    format!(
                    "{noun} {index} of @{name} has `{ROLE_ATTR} = \"{role_text}\"`, which is not \
                     a role of {noun}s (expected one of: {})",
                    legal.iter().map(|r| r.name()).collect::<Vec<_>>().join(", ")
                ),
                )
            })?;
    let path = string_entry(dictionary, PATH_ATTR).ok_or_else(|| {
        Diagnostic::error_at(
            func,
            format!("{noun} {index} of @{name} has a role but no string `{PATH_ATTR}` attribute"),
        )
    })?;
    Ok(Port { role, path, r#type })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IrContext;

    fn parse_and<T>(source: &str, check: impl FnOnce(Result<Signature<'_>, Diagnostic>) -> T) -> T {
        let context = IrContext::new();
        let module = context.parse(source, "t.mlir").expect("parses");
        let func = find_function(&module, "main").expect("has @main");
        check(roles(func))
    }

    #[test]
    fn reads_roles_and_paths() {
        let source = r#""func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "param"}, {jax.arg_info = "batch", zkdv.path = "batch", zkdv.role = "batch"}], function_type = (tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>), res_attrs = [{zkdv.path = "w", zkdv.role = "post_param"}, {zkdv.path = "w", zkdv.role = "delta"}], sym_name = "main"}> ({
^bb0(%a: tensor<2xf32>, %b: tensor<f32>):
  "func.return"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> ()
}) : () -> ()"#;
        parse_and(source, |signature| {
            let signature = signature.expect("has roles");
            assert_eq!(signature.function, "main");
            assert_eq!(signature.args[0].role, Role::Param);
            assert_eq!(signature.args[1].role, Role::Batch);
            assert_eq!(signature.args[1].r#type.to_string(), "tensor<f32>");
            assert_eq!(signature.results_with(Role::Delta).count(), 1);
            assert_eq!(signature.results[0].path, "w");
        });
    }

    #[test]
    fn program_without_roles_is_reported() {
        let source = r#""func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({
^bb0(%a: tensor<f32>):
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()"#;
        parse_and(source, |signature| {
            let error = signature.unwrap_err();
            assert!(error.message.contains("a program without roles"), "{error}");
            assert_eq!(error.location, "t.mlir:1:1");
        });
    }

    #[test]
    fn result_role_on_argument_is_rejected() {
        let source = r#""func.func"() <{arg_attrs = [{zkdv.path = "w", zkdv.role = "delta"}], function_type = (tensor<f32>) -> (), sym_name = "main"}> ({
^bb0(%a: tensor<f32>):
  "func.return"() : () -> ()
}) : () -> ()"#;
        parse_and(source, |signature| {
            let error = signature.unwrap_err();
            assert!(
                error.message.contains("which is not a role of arguments"),
                "{error}"
            );
        });
    }
}
