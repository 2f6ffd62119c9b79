//! A parsed program that can be run many times.
//!
//! [`Program`] owns the MLIR context and the module parsed in it (the module
//! borrows the context, so the pair is kept in one self-referential cell),
//! so callers such as the Python binding parse a replay program once and
//! run it for every check.

use melior::ir::Module;
use zkdv_ir::find_function;
use zkdv_ir::IrContext;

use crate::interpreter::{Interpreter, Limits, PlanCache};
use crate::value::{Tensor, TensorType};
use crate::{Backend, RuntimeError};

type ModuleOf<'c> = Module<'c>;

self_cell::self_cell!(
    struct Cell {
        owner: IrContext,
        #[covariant]
        dependent: ModuleOf,
    }
);

/// A generic-form StableHLO module, parsed once, and the function to run.
pub struct Program {
    cell: Cell,
    func: String,
    arguments: Vec<TensorType>,
    /// What the interpreter learnt about the module in earlier runs.
    cache: PlanCache,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("func", &self.func)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

impl Program {
    /// Parses `text` (named `source_name` in diagnostics) and selects `func`.
    pub fn parse(text: &str, source_name: &str, func: &str) -> Result<Self, RuntimeError> {
        let cell = Cell::try_new(IrContext::new(), |context| {
            context
                .parse(text, source_name)
                .map_err(|error| RuntimeError::Malformed {
                    op: "builtin.module".to_owned(),
                    location: source_name.to_owned(),
                    message: error.to_string(),
                })
        })?;
        let arguments = {
            let module = cell.borrow_dependent();
            let function = find_function(module, func).ok_or_else(|| RuntimeError::Malformed {
                op: "builtin.module".to_owned(),
                location: source_name.to_owned(),
                message: format!("no function @{func} in the module"),
            })?;
            let ty = zkdv_ir::function_type(&function).map_err(|diagnostic| {
                RuntimeError::Malformed {
                    op: "func.func".to_owned(),
                    location: source_name.to_owned(),
                    message: diagnostic.to_string(),
                }
            })?;
            (0..ty.input_count())
                .map(|i| {
                    let input = ty.input(i).map_err(|e| RuntimeError::Input {
                        index: i,
                        message: e.to_string(),
                    })?;
                    TensorType::parse(&input.to_string()).map_err(|e| RuntimeError::Input {
                        index: i,
                        message: e.to_string(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        Ok(Program {
            cell,
            func: func.to_owned(),
            arguments,
            cache: PlanCache::default(),
        })
    }

    /// The argument types of the selected function.
    pub fn arguments(&self) -> &[TensorType] {
        &self.arguments
    }

    /// The precision of the whole module ([`zkdv_ir::precision`]), derived
    /// from its types: what an auditor uses in place of the precision a
    /// program record states.
    pub fn precision(&self) -> zkdv_ir::precision::Precision {
        zkdv_ir::precision::analyse(self.cell.borrow_dependent())
    }

    /// Runs the function on `inputs` (checked against [`Program::arguments`]).
    pub fn run(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, RuntimeError> {
        self.run_limited(inputs, Limits::default())
    }

    /// Like [`Program::run`], within `limits` (see [`Limits`]).
    pub fn run_limited(
        &self,
        inputs: Vec<Tensor>,
        limits: Limits,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        self.run_limited_on(inputs, limits, Backend::Cpu)
    }

    /// Runs the function on `inputs` with `backend` (see
    /// [`Interpreter::run_limited_on`]); `Backend::Cpu` is [`Program::run`].
    pub fn run_on(
        &self,
        inputs: Vec<Tensor>,
        backend: Backend,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        self.run_limited_on(inputs, Limits::default(), backend)
    }

    /// [`Program::run_on`] within `limits`.
    pub fn run_limited_on(
        &self,
        inputs: Vec<Tensor>,
        limits: Limits,
        backend: Backend,
    ) -> Result<Vec<Tensor>, RuntimeError> {
        let module = self.cell.borrow_dependent();
        let function =
            find_function(module, &self.func).ok_or_else(|| RuntimeError::Malformed {
                op: "builtin.module".to_owned(),
                location: String::new(),
                message: format!("no function @{}", self.func),
            })?;
        Interpreter.run_limited_on(
            function,
            inputs,
            &self.cache,
            limits,
            backend,
            &mut |_, _| None,
        )
    }
}

// SAFETY: a `Program` is only ever used through `&self` or moved whole; the
// MLIR context and module it owns have no thread affinity (no thread-local
// state), and it does not share them with anything else; the `Rc`s of its
// plan cache are all owned by the program (a run's clones are dropped before
// `run` returns), so moving it to another thread is sound. It is deliberately not `Sync`: callers that share
// one between threads wrap it in a mutex.
unsafe impl Send for Program {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostTensor;

    #[test]
    fn precision_is_read_from_the_modules_own_types() {
        let module = |ty: &str| {
            format!(
                r#""builtin.module"() ({{
  "func.func"() <{{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}}> ({{
  ^bb0(%x: tensor<2xf32>):
    %0 = "stablehlo.convert"(%x) : (tensor<2xf32>) -> tensor<2x{ty}>
    %1 = "stablehlo.add"(%0, %0) : (tensor<2x{ty}>, tensor<2x{ty}>) -> tensor<2x{ty}>
    %2 = "stablehlo.convert"(%1) : (tensor<2x{ty}>) -> tensor<2xf32>
    "func.return"(%2) : (tensor<2xf32>) -> ()
  }}) : () -> ()
}}) : () -> ()
"#
            )
        };
        let narrow = Program::parse(&module("bf16"), "p.mlir", "main").unwrap();
        let p = narrow.precision();
        assert_eq!(
            (p.narrowest.as_deref(), p.narrow_results),
            (Some("bf16"), 2)
        );
        let wide = Program::parse(&module("f32"), "p.mlir", "main").unwrap();
        let p = wide.precision();
        assert_eq!((p.narrowest.as_deref(), p.narrow_results), (Some("f32"), 0));
    }

    #[test]
    fn parses_once_and_runs_twice() {
        let text = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "stablehlo.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;
        let program = Program::parse(text, "p.mlir", "main").unwrap();
        assert_eq!(program.arguments().len(), 1);
        for value in [1.0f32, 2.5] {
            let x = Tensor::from_host(&HostTensor::from_f32(vec![2], &[value, -value]).unwrap())
                .unwrap();
            let out = program.run(vec![x]).unwrap();
            assert_eq!(
                out[0].to_host().unwrap(),
                HostTensor::from_f32(vec![2], &[2.0 * value, -2.0 * value]).unwrap()
            );
        }
        assert!(Program::parse(text, "p.mlir", "other").is_err());
        let x = Tensor::from_host(&HostTensor::from_f32(vec![2], &[1.0, 2.0]).unwrap()).unwrap();
        let tight = Limits {
            max_ops: 0,
            ..Limits::default()
        };
        let err = program.run_limited(vec![x.clone()], tight).unwrap_err();
        assert!(err.to_string().contains("limit of 0 ops"), "{err}");
        let small = Limits {
            max_elements: 1,
            ..Limits::default()
        };
        let err = program.run_limited(vec![x], small).unwrap_err();
        assert!(
            err.to_string()
                .contains("2 elements exceeds the limit of 1"),
            "{err}"
        );
        assert!(Program::parse("not mlir", "p.mlir", "main").is_err());
    }
}
