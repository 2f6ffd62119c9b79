//! The evaluation loop: runs one `func.func` of a parsed generic-form
//! StableHLO module on host tensors.
//!
//! The loop walks the entry block's ops in order, keeps an environment from
//! MLIR values (keyed by their raw pointer, stable while the module lives) to
//! tensors, and dispatches on the op name to the pure functions of
//! [`crate::ops`]. Ops without regions only; the first op outside the
//! supported set stops the run with [`RuntimeError::Unsupported`].
//!
//! Everything is single-threaded and in a fixed order, so the same program
//! and inputs give the same bits everywhere.

use std::collections::HashMap;
use std::ffi::c_void;

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, ValueLike};
use zkdv_passes::ir::{format_location, op_name};

use crate::ops::{self, BinaryOp, BitwiseOp, CompareType, Direction, UnaryOp};
use crate::value::{Tensor, TensorType, ValueError};
use crate::{HostTensor, RuntimeError};

/// What an extension hook answers for an op the core does not know: `None`
/// to decline (the op is then unsupported), or the op's results.
pub type HookResult = Option<Result<Vec<Tensor>, RuntimeError>>;

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
    /// outside the core set to `hook` first (the conformance runner
    /// evaluates `check.*` ops this way).
    pub fn run_with<'c, 'a>(
        &self,
        func: OperationRef<'c, 'a>,
        inputs: Vec<Tensor>,
        hook: &mut dyn FnMut(&OperationRef<'c, 'a>, &[&Tensor]) -> HookResult,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let malformed = |message: &str| RuntimeError::Malformed {
            op: op_name(&func),
            location: format_location(func.location()),
            message: message.to_owned(),
        };
        let region = func
            .region(0)
            .map_err(|_| malformed("the function has no body"))?;
        let block = region
            .first_block()
            .ok_or_else(|| malformed("the function has no body"))?;
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
        let mut env: HashMap<*const c_void, Tensor> = HashMap::new();
        for (index, input) in inputs.into_iter().enumerate() {
            let argument = block
                .argument(index)
                .map_err(|_| malformed("missing block argument"))?;
            let expected = TensorType::parse(&argument.r#type().to_string()).map_err(|error| {
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
            env.insert(argument.to_raw().ptr, input);
        }

        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let name = op_name(&op);
            let located = |error: ValueError| RuntimeError::from_value(&op, error);
            let operands = op
                .operands()
                .map(|value| {
                    env.get(&value.to_raw().ptr).ok_or_else(|| {
                        located(ValueError::Mismatch(
                            "an operand is defined outside the entry block".to_owned(),
                        ))
                    })
                })
                .collect::<Result<Vec<&Tensor>, _>>()?;
            if name == "func.return" {
                return Ok(operands.into_iter().cloned().collect());
            }
            let results = match evaluate(&op, &name, &operands) {
                Ok(Some(result)) => vec![check_result(&op, result)?],
                Ok(None) => match hook(&op, &operands) {
                    Some(results) => results?,
                    None => {
                        return Err(RuntimeError::Unsupported {
                            op: name,
                            location: format_location(op.location()),
                        })
                    }
                },
                Err(error) => return Err(located(error)),
            };
            if results.len() != op.result_count() {
                return Err(located(ValueError::Mismatch(format!(
                    "{} results computed for {} declared",
                    results.len(),
                    op.result_count()
                ))));
            }
            for (result, tensor) in op.results().zip(results) {
                env.insert(result.to_raw().ptr, tensor);
            }
        }
        Err(malformed("the function has no `func.return`"))
    }
}

/// Checks a core op's result against its declared type.
fn check_result(op: &OperationRef<'_, '_>, result: Tensor) -> Result<Tensor, RuntimeError> {
    let declared = result_type(op).map_err(|error| RuntimeError::from_value(op, error))?;
    if declared != result.tensor_type() {
        return Err(RuntimeError::from_value(
            op,
            ValueError::Mismatch(format!(
                "computed {:?}{:?}, declared {:?}{:?}",
                result.element, result.shape, declared.element, declared.shape
            )),
        ));
    }
    Ok(result)
}

fn result_type(op: &OperationRef<'_, '_>) -> Result<TensorType, ValueError> {
    if op.result_count() != 1 {
        return Err(ValueError::Mismatch(format!(
            "expected one result, found {}",
            op.result_count()
        )));
    }
    let result = op
        .result(0)
        .map_err(|error| ValueError::Mismatch(error.to_string()))?;
    TensorType::parse(&result.r#type().to_string())
}

/// The printed text of attribute `name`.
pub(crate) fn attribute_text(op: &OperationRef<'_, '_>, name: &str) -> Result<String, ValueError> {
    op.attribute(name)
        .map(|attribute| attribute.to_string())
        .map_err(|_| ValueError::Malformed {
            what: "op: missing attribute",
            text: name.to_owned(),
        })
}

/// Reads `array<i64: 0, 2>` (or `array<i64>`) as dimension numbers.
fn dimensions(op: &OperationRef<'_, '_>, name: &str) -> Result<Vec<usize>, ValueError> {
    let text = attribute_text(op, name)?;
    let malformed = || ValueError::Malformed {
        what: "dimension array",
        text: text.clone(),
    };
    let body = text
        .strip_prefix("array<i64")
        .and_then(|rest| rest.strip_suffix('>'))
        .ok_or_else(malformed)?;
    let Some(list) = body.strip_prefix(':') else {
        return if body.is_empty() {
            Ok(Vec::new())
        } else {
            Err(malformed())
        };
    };
    list.split(',')
        .map(|item| item.trim().parse::<usize>().map_err(|_| malformed()))
        .collect()
}

/// Reads an integer attribute printed as `1 : i64`.
fn integer(op: &OperationRef<'_, '_>, name: &str) -> Result<usize, ValueError> {
    let text = attribute_text(op, name)?;
    text.split(" : ")
        .next()
        .and_then(|value| value.trim().parse().ok())
        .ok_or(ValueError::Malformed {
            what: "integer attribute",
            text,
        })
}

/// Reads the keyword of `#stablehlo<comparison_direction GT>`.
fn enum_keyword(op: &OperationRef<'_, '_>, name: &str) -> Result<Option<String>, ValueError> {
    if !op.has_attribute(name) {
        return Ok(None);
    }
    let text = attribute_text(op, name)?;
    text.strip_suffix('>')
        .and_then(|body| body.rsplit(' ').next())
        .map(|keyword| Some(keyword.to_owned()))
        .ok_or(ValueError::Malformed {
            what: "enum attribute",
            text,
        })
}

/// Evaluates a core op; `Ok(None)` if `name` is not one.
fn evaluate(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
) -> Result<Option<Tensor>, ValueError> {
    let arity = |n: usize| {
        if operands.len() == n {
            Ok(())
        } else {
            Err(ValueError::Mismatch(format!(
                "expected {n} operands, found {}",
                operands.len()
            )))
        }
    };
    let binary =
        |kind: BinaryOp| arity(2).and_then(|()| ops::binary(kind, operands[0], operands[1]));
    let bitwise =
        |kind: BitwiseOp| arity(2).and_then(|()| ops::bitwise(kind, operands[0], operands[1]));
    let unary = |kind: UnaryOp| arity(1).and_then(|()| ops::unary(kind, operands[0]));
    let result = match name {
        "stablehlo.constant" => {
            arity(0)?;
            Tensor::from_dense_text(&attribute_text(op, "value")?)
        }
        "stablehlo.add" => binary(BinaryOp::Add),
        "stablehlo.subtract" => binary(BinaryOp::Subtract),
        "stablehlo.multiply" => binary(BinaryOp::Multiply),
        "stablehlo.divide" => binary(BinaryOp::Divide),
        "stablehlo.maximum" => binary(BinaryOp::Maximum),
        "stablehlo.minimum" => binary(BinaryOp::Minimum),
        "stablehlo.negate" => unary(UnaryOp::Negate),
        "stablehlo.abs" => unary(UnaryOp::Abs),
        "stablehlo.and" => bitwise(BitwiseOp::And),
        "stablehlo.or" => bitwise(BitwiseOp::Or),
        "stablehlo.xor" => bitwise(BitwiseOp::Xor),
        "stablehlo.not" => arity(1).and_then(|()| ops::not(operands[0])),
        "stablehlo.compare" => {
            arity(2)?;
            let bad = |text: String| ValueError::Malformed {
                what: "compare attribute",
                text,
            };
            let direction = enum_keyword(op, "comparison_direction")?
                .ok_or_else(|| bad("comparison_direction missing".to_owned()))?;
            let direction = Direction::parse(&direction).ok_or_else(|| bad(direction))?;
            let compare_type = match enum_keyword(op, "compare_type")? {
                None => None,
                Some(text) => Some(CompareType::parse(&text).ok_or_else(|| bad(text))?),
            };
            ops::compare(direction, compare_type, operands[0], operands[1])
        }
        "stablehlo.select" => {
            arity(3)?;
            ops::select(operands[0], operands[1], operands[2])
        }
        "stablehlo.convert" => {
            arity(1)?;
            ops::convert(operands[0], result_type(op)?.element)
        }
        "stablehlo.broadcast_in_dim" => {
            arity(1)?;
            let dims = dimensions(op, "broadcast_dimensions")?;
            ops::broadcast_in_dim(operands[0], &dims, &result_type(op)?.shape)
        }
        "stablehlo.reshape" => {
            arity(1)?;
            ops::reshape(operands[0], &result_type(op)?.shape)
        }
        "stablehlo.transpose" => {
            arity(1)?;
            ops::transpose(operands[0], &dimensions(op, "permutation")?)
        }
        "stablehlo.iota" => {
            arity(0)?;
            ops::iota(&result_type(op)?, integer(op, "iota_dimension")?)
        }
        _ => return Ok(None),
    };
    result.map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zkdv_passes::ir::IrContext;
    use zkdv_passes::roles::find_function;

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
    %0 = "stablehlo.exponential"(%x) : (tensor<2xf32>) -> tensor<2xf32>
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
            "program.mlir:13:10: unsupported op `stablehlo.exponential`"
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
