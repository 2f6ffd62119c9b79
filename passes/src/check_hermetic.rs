//! `--zkdv-check-hermetic`: reject programs that are not a pure function of
//! their inputs.
//!
//! A ZKDV verifier re-executes the training step from its committed inputs, so
//! the step must be *hermetic*: no randomness drawn inside the program, no data
//! exchanged with the host or other devices at run time, and no opaque kernels.
//! This pass reports, at each op's location, every
//!
//! - `stablehlo.rng`, `stablehlo.rng_bit_generator` (randomness: pass it in
//!   through the batch instead),
//! - `stablehlo.infeed`, `stablehlo.recv` (input at run time: pass it in
//!   through the batch), `stablehlo.outfeed`, `stablehlo.send` (output at run
//!   time: return it from the function),
//! - `stablehlo.custom_call` whose `call_target_name` is not in
//!   [`PURE_CUSTOM_CALL_TARGETS`], or that declares `has_side_effect = true`
//!   (host callbacks such as `jax.debug.print` get a message of their own).
//!
//! Each diagnostic names the op and its enclosing function and says what to
//! do instead, e.g. ``f.mlir:12:8: error: `stablehlo.rng` (in @step) draws
//! random numbers inside the program, ...; pass randomness in through the
//! batch instead: ...``.
//!
//! Preconditions: the module parsed (generic op form, StableHLO ops
//! unregistered, so attributes are read by name from the op's properties).
//! Nothing else; it runs before or after any other pass.
//!
//! Invariants: the pass only reads the IR. It first collects every nested op,
//! then inspects them, and reports all violations at once (in pre-order, i.e.
//! source order) as one [`PassError::Failed`].

use melior::ir::{attribute::BoolAttribute, operation::OperationLike, Module, OperationRef};

use crate::{
    ir::{collect_nested_ops, op_name, Diagnostic, Diagnostics},
    roles::string_value,
    PassError, PassOptions,
};

/// `custom_call` targets known to be pure: XLA's sharding annotations, which
/// return their operand unchanged (up to the shard shape) and compute nothing.
pub const PURE_CUSTOM_CALL_TARGETS: &[&str] =
    &["Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"];

/// Runs the check; `Ok(())` if the module is hermetic.
pub fn run(module: &Module<'_>, _options: &mut PassOptions) -> Result<(), PassError> {
    let violations = find_violations(module);
    if violations.is_empty() {
        Ok(())
    } else {
        Err(PassError::Failed(Diagnostics(violations)))
    }
}

/// Every violation in `module`, in source order.
pub fn find_violations(module: &Module<'_>) -> Vec<Diagnostic> {
    collect_nested_ops(module.as_operation())
        .into_iter()
        .filter_map(|op| {
            violation(op).map(|message| {
                let function = enclosing_function(op)
                    .map(|name| format!(" (in @{name})"))
                    .unwrap_or_default();
                Diagnostic::error_at(&op, format!("`{}`{function} {message}", op_name(&op)))
            })
        })
        .collect()
}

/// The `sym_name` of the closest enclosing `func.func`.
fn enclosing_function(op: OperationRef<'_, '_>) -> Option<String> {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if op_name(&current) == "func.func" {
            return current.attribute("sym_name").ok().and_then(string_value);
        }
        parent = current.parent_operation();
    }
    None
}

const RANDOMNESS_ADVICE: &str = "pass randomness in through the batch instead: \
     make the PRNG key (or pre-drawn noise) a program input and use JAX's threefry PRNG \
     (`jax.config.update('jax_default_prng_impl', 'threefry2x32')`), which lowers to plain \
     StableHLO integer ops";

/// The message for `op` if it breaks hermeticity. It reads after
/// "`op-name` (in @function) ".
fn violation(op: OperationRef<'_, '_>) -> Option<String> {
    let message = match op_name(&op).as_str() {
        "stablehlo.rng" | "stablehlo.rng_bit_generator" => format!(
            "draws random numbers inside the program, so a verifier cannot re-execute it; \
             {RANDOMNESS_ADVICE}"
        ),
        "stablehlo.infeed" | "stablehlo.recv" => "reads data from outside the program at run \
             time, so the step is not a function of its inputs; pass the data in through the \
             batch as a program input"
            .to_owned(),
        "stablehlo.outfeed" | "stablehlo.send" => "sends data out of the program at run time; \
             return the data as a program output instead, or remove it"
            .to_owned(),
        "stablehlo.custom_call" => return custom_call_violation(op),
        _ => return None,
    };
    Some(message)
}

fn custom_call_violation(op: OperationRef<'_, '_>) -> Option<String> {
    let target = op.attribute("call_target_name").ok().and_then(string_value);
    let Some(target) = target else {
        return Some(
            "has no string `call_target_name`, so what it computes is unknown; express the \
             computation with StableHLO ops"
                .to_owned(),
        );
    };
    if target.contains("callback") {
        return Some(format!(
            "calls the host callback `{target}`, which runs Python on the host, outside the \
             program; remove host callbacks (`jax.debug.print`, `jax.debug.callback`, \
             `jax.pure_callback`, `io_callback`) from the traced step"
        ));
    }
    if !PURE_CUSTOM_CALL_TARGETS.contains(&target.as_str()) {
        return Some(format!(
            "calls `{target}`, which is not in the known-pure allowlist ({}), so its semantics \
             are opaque to the verifier; express the computation with StableHLO ops (for \
             example avoid backend kernels such as LAPACK, cuDNN or Pallas calls)",
            PURE_CUSTOM_CALL_TARGETS.join(", ")
        ));
    }
    let side_effect = op
        .attribute("has_side_effect")
        .ok()
        .and_then(|attribute| BoolAttribute::try_from(attribute).ok())
        .is_some_and(|attribute| attribute.value());
    side_effect.then(|| {
        format!(
            "calls `{target}` with `has_side_effect = true`, so it is not a pure function of \
             its operands; remove the side effect"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IrContext;

    fn violations(body: &str) -> Vec<Diagnostic> {
        let source = format!(
            "\"func.func\"() <{{function_type = () -> (), sym_name = \"f\"}}> ({{\n{body}\n  \"func.return\"() : () -> ()\n}}) : () -> ()\n"
        );
        let context = IrContext::new();
        let module = context.parse(&source, "t.mlir").expect("parses");
        find_violations(&module)
    }

    #[test]
    fn pure_program_passes() {
        let body = "  %0 = \"stablehlo.constant\"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>\n  %1 = \"stablehlo.custom_call\"(%0) <{call_target_name = \"Sharding\"}> : (tensor<f32>) -> tensor<f32>";
        assert!(violations(body).is_empty());
    }

    #[test]
    fn reports_rng_and_unknown_custom_call_at_their_lines() {
        let body = "  %0 = \"stablehlo.constant\"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>\n  %1 = \"stablehlo.rng\"(%0, %0) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : (tensor<f32>, tensor<f32>) -> tensor<f32>\n  %2 = \"stablehlo.custom_call\"(%0) <{call_target_name = \"lapack_sgetrf_ffi\"}> : (tensor<f32>) -> tensor<f32>";
        let found = violations(body);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].location, "t.mlir:3:8");
        assert!(
            found[0]
                .message
                .starts_with("`stablehlo.rng` (in @f) draws random numbers"),
            "{}",
            found[0].message
        );
        assert!(found[0].message.contains("through the batch"));
        assert_eq!(found[1].location, "t.mlir:4:8");
        assert!(found[1].message.contains("lapack_sgetrf_ffi"));
    }

    #[test]
    fn side_effecting_allowlisted_target_is_rejected() {
        let body = "  %0 = \"stablehlo.constant\"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>\n  %1 = \"stablehlo.custom_call\"(%0) <{call_target_name = \"Sharding\", has_side_effect = true}> : (tensor<f32>) -> tensor<f32>";
        let found = violations(body);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("has_side_effect"));
    }
}
