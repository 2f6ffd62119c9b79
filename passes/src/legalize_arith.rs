//! `--zkdv-legalize-arith`: turn the `arith.constant`s of a torch-mlir export
//! into `stablehlo.constant`s.
//!
//! `torch_mlir.fx.export_and_import(..., output_type="stablehlo")` emits the
//! scalars of a step (an optimizer's `1 - beta`, a loss's reduction size) as
//! `arith.constant` ops with a dense tensor value (`tensor<1xf64>`,
//! `tensor<1xi64>`), among StableHLO ops; a constant of more than one element
//! (the index tensors of a group norm's backward pass) comes as a
//! `dense_resource` whose bytes live in the module's resource section. This
//! pass rewrites each one into `stablehlo.constant` with the same value, a
//! resource's elements read into an inline dense attribute of the same type;
//! a `stablehlo.constant` with a `dense_resource` value (a tensor the step
//! captured from outside its arguments, which torch-mlir emits so) gets the
//! same inline value. The rest of the pipeline, the side-effect model and the
//! replay runtime only ever see StableHLO and inline constants.
//!
//! Preconditions: none beyond a parsed module. Any other `arith` op, or an
//! `arith.constant` whose value is not a dense tensor (a scalar `f32`, an
//! `index`, a resource of a float narrower than `f32`, which the C API
//! cannot read), is an error naming the op: no other op of the dialect is
//! modelled by the passes or the runtime, so it is refused here rather than
//! half-understood later.
//!
//! Invariants: the replacement is inserted just before the constant it
//! replaces, so it dominates every use; the constant is erased only after all
//! its uses moved. Rewriting is collected first, then done. A module without
//! `arith` ops is unchanged.

use melior::ir::{
    attribute::{AttributeLike, DenseElementsAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationMutLike},
    Attribute, Identifier, Module, OperationRef, ValueLike,
};

use crate::{
    ir::{collect_nested_ops, op_name, Diagnostic, Diagnostics},
    rewrite::{erase, replace_all_uses},
    PassError, PassOptions,
};

/// Runs the pass; see the module documentation.
pub fn run(module: &Module<'_>, _options: &mut PassOptions) -> Result<(), PassError> {
    let mut constants = Vec::new();
    let mut refused = Vec::new();
    for op in collect_nested_ops(module.as_operation()) {
        let name = op_name(&op);
        if !name.starts_with("arith.") {
            continue;
        }
        if name == "arith.constant" && (is_dense_tensor(&op) || resource_value(&op).is_some()) {
            constants.push(op);
        } else {
            refused.push(Diagnostic::error_at(
                &op,
                format!(
                    "`{name}` is not supported: only `arith.constant` with a dense tensor value \
                     is (as torch-mlir emits it); lower the step to StableHLO ops"
                ),
            ));
        }
    }
    if !refused.is_empty() {
        return Err(PassError::Failed(Diagnostics(refused)));
    }
    let resources: Vec<_> = collect_nested_ops(module.as_operation())
        .into_iter()
        .filter(|op| op_name(op) == "stablehlo.constant")
        .filter_map(|op| resource_value(&op).map(|value| (op, value)))
        .collect();
    for op in constants {
        replace(op)?;
    }
    for (op, value) in resources {
        // SAFETY: the op is live and only its attribute changes; no reference to
        // the old attribute is kept.
        let mut op = unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) };
        op.set_attribute("value", value);
    }
    Ok(())
}

fn is_dense_tensor(op: &OperationRef<'_, '_>) -> bool {
    op.attribute("value")
        .is_ok_and(|value| DenseElementsAttribute::try_from(value).is_ok())
        && op.result_count() == 1
}

/// The inline dense attribute of a `dense_resource` constant's value, when
/// its elements are of a type the C API reads (integers and booleans, `f32`,
/// `f64`) and its shape is static.
fn resource_value<'c>(op: &OperationRef<'c, '_>) -> Option<Attribute<'c>> {
    use mlir_sys as sys;
    let value = op.attribute("value").ok()?;
    let raw = value.to_raw();
    // SAFETY: every call reads a live attribute or type of the op's context,
    // and the positions read are below the element count of a static shape.
    unsafe {
        if !sys::mlirAttributeIsADenseResourceElements(raw) {
            return None;
        }
        let shaped = sys::mlirAttributeGetType(raw);
        if !sys::mlirShapedTypeHasStaticShape(shaped) {
            return None;
        }
        let rank = sys::mlirShapedTypeGetRank(shaped);
        let n: isize = (0..rank as isize)
            .map(|d| sys::mlirShapedTypeGetDimSize(shaped, d) as isize)
            .product();
        let element = sys::mlirShapedTypeGetElementType(shaped);
        // Each element read with the C API's getter of its type, then built inline.
        macro_rules! inline {
            ($get:ident, $build:ident, $t:ty) => {{
                let values: Vec<$t> = (0..n).map(|i| sys::$get(raw, i).into()).collect();
                sys::$build(shaped, n, values.as_ptr())
            }};
        }
        let attribute = if sys::mlirTypeIsAF32(element) {
            inline!(
                mlirDenseFloatResourceElementsAttrGetValue,
                mlirDenseElementsAttrFloatGet,
                f32
            )
        } else if sys::mlirTypeIsAF64(element) {
            inline!(
                mlirDenseDoubleResourceElementsAttrGetValue,
                mlirDenseElementsAttrDoubleGet,
                f64
            )
        } else if sys::mlirTypeIsAInteger(element) {
            let unsigned = sys::mlirIntegerTypeIsUnsigned(element);
            match (sys::mlirIntegerTypeGetWidth(element), unsigned) {
                (1, _) => inline!(
                    mlirDenseBoolResourceElementsAttrGetValue,
                    mlirDenseElementsAttrBoolGet,
                    std::os::raw::c_int
                ),
                (8, false) => inline!(
                    mlirDenseInt8ResourceElementsAttrGetValue,
                    mlirDenseElementsAttrInt8Get,
                    i8
                ),
                (8, true) => inline!(
                    mlirDenseUInt8ResourceElementsAttrGetValue,
                    mlirDenseElementsAttrUInt8Get,
                    u8
                ),
                (16, false) => inline!(
                    mlirDenseInt16ResourceElementsAttrGetValue,
                    mlirDenseElementsAttrInt16Get,
                    i16
                ),
                (32, false) => inline!(
                    mlirDenseInt32ResourceElementsAttrGetValue,
                    mlirDenseElementsAttrInt32Get,
                    i32
                ),
                (64, false) => inline!(
                    mlirDenseInt64ResourceElementsAttrGetValue,
                    mlirDenseElementsAttrInt64Get,
                    i64
                ),
                _ => return None,
            }
        } else {
            return None;
        };
        if attribute.ptr.is_null() {
            return None;
        }
        Some(Attribute::from_raw(attribute))
    }
}

fn replace(op: OperationRef<'_, '_>) -> Result<(), PassError> {
    let fail = |message: String| PassError::one(Diagnostic::error_at(&op, message));
    let (Ok(value), Ok(result), Some(block)) = (op.attribute("value"), op.result(0), op.block())
    else {
        return Err(fail(
            "`arith.constant` without a value or a block".to_owned(),
        ));
    };
    // `to_ref` reinterprets the `ContextRef` value itself as a `Context`, so
    // the `ContextRef` must outlive every use of the reference: keep it in a
    // local for the whole function.
    let context_ref = op.context();
    // SAFETY: `context_ref` lives until the end of this function, and the
    // context outlives the module and every attribute built here.
    let context = unsafe { context_ref.to_ref() };
    // A resource's elements, inline (the runtime and the printed text carry no
    // resource section).
    let value = resource_value(&op).unwrap_or(value);
    let constant = OperationBuilder::new("stablehlo.constant", op.location())
        .add_results(&[result.r#type()])
        .add_attributes(&[(Identifier::new(context, "value"), value)])
        .build()
        .map_err(|error| fail(format!("cannot build stablehlo.constant: {error}")))?;
    let constant = block.insert_operation_before(op, constant);
    let replacement = constant
        .result(0)
        .map_err(|error| fail(format!("the new constant has no result: {error}")))?;
    replace_all_uses(result, replacement);
    // SAFETY: `op` is live, its only result has no uses any more, and nothing
    // refers to it after this.
    unsafe { erase(op) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ir::print_generic, IrContext};

    #[test]
    fn constants_become_stablehlo_and_other_arith_ops_are_refused() {
        let text = r#""func.func"() <{function_type = (tensor<1xf64>) -> tensor<1xf64>, sym_name = "main"}> ({
^bb0(%x: tensor<1xf64>):
  %c = "arith.constant"() <{value = dense<5.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>
  %0 = "stablehlo.multiply"(%x, %c) : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  "func.return"(%0) : (tensor<1xf64>) -> ()
}) : () -> ()
"#;
        let context = IrContext::new();
        let module = context.parse(text, "t.mlir").expect("parses");
        run(&module, &mut PassOptions::default()).expect("legalizes");
        context.verify(&module).expect("verifies");
        let out = print_generic(&module).expect("prints");
        assert!(!out.contains("arith."), "{out}");
        assert!(out.contains("\"stablehlo.constant\"()"), "{out}");
        assert!(out.contains("dense<5.000000e-01> : tensor<1xf64>"), "{out}");

        let refused = text.replace(
            r#""arith.constant"() <{value = dense<5.000000e-01> : tensor<1xf64>}> : () -> tensor<1xf64>"#,
            r#""arith.addf"(%x, %x) : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>"#,
        );
        let module = context.parse(&refused, "t.mlir").expect("parses");
        let error = run(&module, &mut PassOptions::default()).unwrap_err();
        assert!(
            error.to_string().contains("`arith.addf` is not supported"),
            "{error}"
        );
    }

    #[test]
    fn a_resource_constant_becomes_an_inline_dense_one() {
        // torch-mlir's form of a constant of several elements: its bytes (after a
        // 4-byte alignment) in the module's resource section.
        let text = r#""func.func"() <{function_type = () -> tensor<2xi64>, sym_name = "main"}> ({
  %c = "arith.constant"() <{value = dense_resource<blob1> : tensor<2xi64>}> : () -> tensor<2xi64>
  "func.return"(%c) : (tensor<2xi64>) -> ()
}) : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x0800000001000000000000000200000000000000"
    }
  }
#-}
"#;
        let context = IrContext::new();
        let module = context.parse(text, "t.mlir").expect("parses");
        run(&module, &mut PassOptions::default()).expect("legalizes");
        context.verify(&module).expect("verifies");
        let out = print_generic(&module).expect("prints");
        assert!(!out.contains("arith."), "{out}");
        assert!(out.contains("dense<[1, 2]> : tensor<2xi64>"), "{out}");
    }
}
