//! The side-effect model of ZKDV: which ops may be erased when unused (DCE)
//! or merged with an identical op (CSE).
//!
//! StableHLO ops are unregistered in ZKDV (see the crate docs), so MLIR knows
//! nothing about their effects; this module decides by op name. An op is
//! *pure* ([`is_pure`]) when it computes its results from its operands and
//! attributes only, touches no state, and every op nested in its regions is
//! pure too:
//!
//! - `stablehlo.*` ops are pure, except those the op table marks impure
//!   ([`Props::IMPURE`], in `zkdv_ir::ops`)
//!   (implicit randomness, host and device communication, collectives,
//!   `optimization_barrier` and `composite`, see its documentation) and
//!   `stablehlo.custom_call`, which is pure only when its `call_target_name`
//!   is in [`PURE_CUSTOM_CALL_TARGETS`] and it does not declare
//!   `has_side_effect = true`.
//! - `stablehlo.rng_bit_generator` is pure: its bits are a deterministic
//!   function of the state operand (it returns the next state explicitly).
//!   `stablehlo.rng` is not: it draws from hidden state, so two identical
//!   calls must not be merged.
//! - Ops with regions (`while`, `if`, `case`, `reduce`, `sort`,
//!   `reduce_window`, `scatter`, `select_and_scatter`, `map`, ...) are pure
//!   when their own name is and every op in their regions is pure; region
//!   terminators (`stablehlo.return`) count as pure there.
//! - `chlo.*` ops (client HLO: math and broadcasting helpers) are pure.
//! - Everything else is impure: `func.*` (including `func.call`, even to a
//!   pure function: run `--zkdv-inline` first), `builtin.*`, and ops of any
//!   other dialect, e.g. the interpreter's `check.*` assertions.
//!
//! Erasing also needs the op not to be a terminator ([`is_terminator`]).

use melior::ir::{attribute::BoolAttribute, operation::OperationLike, OperationRef};

pub use crate::check_hermetic::PURE_CUSTOM_CALL_TARGETS;
use crate::ir::{
    collect_nested_ops, op_name,
    ops::{self, Props},
};

/// Whether `op` and every op nested in its regions are pure (see the module
/// documentation).
pub fn is_pure(op: &OperationRef<'_, '_>) -> bool {
    is_pure_alone(op) && collect_nested_ops(*op).iter().all(is_pure_alone)
}

/// Whether `op` is a terminator: a known terminator name, or the last op of
/// its block in a region of any op other than `builtin.module` (the blocks of
/// unregistered ops end in their terminator).
pub fn is_terminator(op: &OperationRef<'_, '_>) -> bool {
    if ops::has(&op_name(op), Props::TERMINATOR) {
        return true;
    }
    op.next_in_block().is_none()
        && op
            .parent_operation()
            .is_some_and(|parent| op_name(&parent) != "builtin.module")
}

/// The effects of `op` by its name and attributes only, ignoring its regions.
///
/// The StableHLO ops that are not pure ([`Props::IMPURE`]), with the reason:
///
/// - `rng`: draws from hidden random state.
/// - `infeed`, `outfeed`, `send`, `recv`: exchange data with the host or
///   other devices at run time.
/// - `all_reduce`, `all_gather`, `all_to_all`, `reduce_scatter`,
///   `collective_permute`, `collective_broadcast`: communicate with other
///   replicas; every replica must execute them, so they are never erased or
///   merged.
/// - `optimization_barrier`: an identity whose purpose is to block
///   optimisations (JAX uses it for rematerialisation), so it is kept.
/// - `composite`: its semantics live in a decomposition function that this
///   model does not inspect.
fn is_pure_alone(op: &OperationRef<'_, '_>) -> bool {
    let name = op_name(op);
    if name == "stablehlo.custom_call" {
        return is_pure_custom_call(op);
    }
    if name.starts_with("stablehlo.") {
        return !ops::has(&name, Props::IMPURE);
    }
    name.starts_with("chlo.")
}

fn is_pure_custom_call(op: &OperationRef<'_, '_>) -> bool {
    let target_is_pure = op
        .attribute("call_target_name")
        .ok()
        .and_then(crate::roles::string_value)
        .is_some_and(|target| PURE_CUSTOM_CALL_TARGETS.contains(&target.as_str()));
    let has_side_effect = op
        .attribute("has_side_effect")
        .ok()
        .and_then(|attribute| BoolAttribute::try_from(attribute).ok())
        .is_some_and(|attribute| attribute.value());
    target_is_pure && !has_side_effect
}

/// Whether `name` is an elementwise op ([`Props::ELEMENTWISE`]): element
/// `i` of the result depends only on element `i` of each operand.
pub fn is_elementwise(name: &str) -> bool {
    ops::has(name, Props::ELEMENTWISE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IrContext;

    /// `(op name, is_pure)` of every op in a function with this body.
    fn purity(body: &str) -> Vec<(String, bool)> {
        let source = format!(
            "\"func.func\"() <{{function_type = (tensor<f32>) -> (), sym_name = \"f\"}}> ({{\n^bb0(%x: tensor<f32>):\n{body}\n  \"func.return\"() : () -> ()\n}}) : () -> ()\n"
        );
        let context = IrContext::new();
        let module = context.parse(&source, "t.mlir").expect("parses");
        collect_nested_ops(module.as_operation())
            .iter()
            .map(|op| (op_name(op), is_pure(op)))
            .collect()
    }

    #[test]
    fn classifies_ops_by_name_and_attributes() {
        let body = r#"
  %0 = "stablehlo.add"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.rng"(%x, %x) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> : (tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding", has_side_effect = true}> : (tensor<f32>) -> tensor<f32>
  %4 = "stablehlo.custom_call"(%x) <{call_target_name = "foo"}> : (tensor<f32>) -> tensor<f32>
  %5 = "chlo.erf"(%x) : (tensor<f32>) -> tensor<f32>
  "check.expect_eq"(%x, %x) : (tensor<f32>, tensor<f32>) -> ()"#;
        let found = purity(body);
        let expected = [
            ("func.func", false),
            ("stablehlo.add", true),
            ("stablehlo.rng", false),
            ("stablehlo.custom_call", true),
            ("stablehlo.custom_call", false),
            ("stablehlo.custom_call", false),
            ("chlo.erf", true),
            ("check.expect_eq", false),
            ("func.return", false),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|(name, pure)| (name.to_string(), *pure))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn region_ops_are_pure_when_their_bodies_are() {
        let body = r#"
  %0 = "stablehlo.reduce"(%x, %x) <{dimensions = array<i64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.reduce"(%x, %x) <{dimensions = array<i64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    "stablehlo.outfeed"() : () -> ()
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<f32>, tensor<f32>) -> tensor<f32>"#;
        let found = purity(body);
        assert_eq!(found[1], ("stablehlo.reduce".to_owned(), true));
        assert_eq!(found[4], ("stablehlo.reduce".to_owned(), false));
    }
}
