//! The optimizer's hyperparameters, step by step: what a step record says
//! its program ran with ([`StepBody::hyperparameters`]), bound to the
//! replay and held to the client's schedule.
//!
//! A program that takes a hyperparameter as an input (PyTorch's learning
//! rate, which a scheduler changes) lets the prover choose it at every
//! step: a larger rate where the gradient points where it wants the model
//! to go. Two rules close that room:
//!
//! - [`bind`]: at every replayed step, the batch argument that carries each
//!   hyperparameter must hold exactly the value the step record commits
//!   (so the record says what the replay ran, and every step's record can
//!   be read without its evidence), and the record names them in argument
//!   order, on consecutive arguments (the block the frontend lays after the
//!   data);
//! - [`check`]: given the client's values for every step
//!   (`--hyperparameters FILE`, written from the client's own schedule),
//!   every step record must commit those, to [`REL`] (a libm that rounds a
//!   cosine schedule's last bit differently is no room to steer), under the
//!   client's names in the client's order. The order is what ties a name to
//!   its argument: a record that named Adam's `lr` and `betas[0]` the other
//!   way round, with the client's values, would run a rate of 0.9.
//!
//! Hyperparameters that are constants of the program (Adam's `eps`) are
//! bound by the program hashes; JAX's schedules are computed inside the
//! program from a committed step counter, bound by the programs and the
//! initial state.

use zkdv_hashing::DType;
use zkdv_protocol::{Hyperparameter, StepBody};
use zkdv_runtime::Tensor;

use crate::expect::{Expectation, Status};
use crate::transcript::Transcript;
use crate::values::values;

/// How far a committed hyperparameter may be from the client's, relative
/// to the larger of the two.
pub const REL: f64 = 1e-12;

/// The client's hyperparameters: their names in argument order (`0/lr`,
/// `0/betas[0]`), and per step their values in that order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HyperExpectation {
    /// The names, in the order the step's program takes them.
    pub names: Vec<String>,
    /// Step `j`'s values, one per name.
    pub steps: Vec<Vec<f64>>,
}

/// How many of a step's batch arguments are 0-d `f64` (as a frontend passes
/// a hyperparameter) without a name in its record: inputs a prover chose
/// freely where the record says nothing of them.
pub(crate) fn unnamed_scalars(step: &StepBody, batch: &[Tensor]) -> u64 {
    let named: Vec<u64> = step
        .hyperparameters
        .iter()
        .flatten()
        .map(|h| h.leaf)
        .collect();
    batch
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            let ty = t.tensor_type();
            ty.shape.is_empty()
                && matches!(ty.element.dtype(), Ok(DType::F64))
                && !named.contains(&(*i as u64))
        })
        .count() as u64
}

/// The hyperparameters expectation, not given, once the replays counted
/// `unnamed` scalar `f64` inputs no record names: say what they may be.
pub(crate) fn unnamed(expectation: &mut Expectation, unnamed: u64) {
    if unnamed > 0 && expectation.status == Status::NotGiven {
        expectation.note = format!(
            "not checked: the replayed programs take {unnamed} scalar f64 inputs that no step \
             record names (a frontend passes a learning rate so), which the prover chose at \
             every step; give the client's schedule with --hyperparameters and its programs \
             with --program"
        );
    }
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= REL * a.abs().max(b.abs())
}

/// Whether step record `step`'s hyperparameters are the ones its replay
/// ran with: each must be the value of its 0-d batch argument, bit for
/// bit. `Err` says which is not.
pub(crate) fn bind(step: &StepBody, batch: &[Tensor]) -> Result<(), String> {
    let named = step.hyperparameters.as_deref().unwrap_or_default();
    if let Some(pair) = named.windows(2).find(|w| w[1].leaf != w[0].leaf + 1) {
        return Err(format!(
            "the step record names {} at batch argument {} and {} at {}: hyperparameters are \
             consecutive arguments, in the record's order",
            pair[0].name, pair[0].leaf, pair[1].name, pair[1].leaf
        ));
    }
    for Hyperparameter { name, value, leaf } in named {
        let argument = usize::try_from(*leaf)
            .ok()
            .and_then(|i| batch.get(i))
            .ok_or_else(|| {
                format!(
                    "the step record's hyperparameter {name} names batch argument {leaf}, which \
                     the step's program lacks"
                )
            })?;
        // The shape first: a record that named a large data leaf costs nothing to refuse.
        let ty = argument.tensor_type();
        let scalar_f64 = ty.shape.is_empty() && matches!(ty.element.dtype(), Ok(DType::F64));
        let values = if scalar_f64 {
            values(argument)?.into_owned()
        } else {
            Vec::new()
        };
        let ran = match values.as_slice() {
            [x] => *x,
            _ => {
                return Err(format!(
                    "the step record's hyperparameter {name} names batch argument {leaf}, \
                     which is not a scalar f64"
                ))
            }
        };
        if ran.to_bits() != value.to_bits() {
            return Err(format!(
                "the step record commits {name} = {value:e}, but its batch ran with {ran:e}"
            ));
        }
    }
    Ok(())
}

/// Every step record's hyperparameters against the client's.
pub(crate) fn check(t: &Transcript, given: Option<&HyperExpectation>) -> Expectation {
    let any = t.steps.iter().any(|(s, _)| s.hyperparameters.is_some());
    let Some(given) = given else {
        let note = if any {
            "not checked: the step records commit the hyperparameters each step ran with (a \
             learning rate a scheduler sets), which the prover chose; give the client's \
             schedule with --hyperparameters"
        } else {
            "not checked: no step record commits a hyperparameter (each is a constant of the \
             program, bound by --program, or computed from the committed state)"
        };
        return Expectation {
            name: "hyperparameters",
            status: Status::NotGiven,
            expected: None,
            recorded: None,
            note: note.into(),
        };
    };
    let differs = |note: String| Expectation {
        name: "hyperparameters",
        status: Status::Differs,
        expected: Some(format!("{} steps", given.steps.len())),
        recorded: Some(format!("{} steps", t.steps.len())),
        note,
    };
    for (j, (step, _)) in t.steps.iter().enumerate() {
        let Some(expected) = given.steps.get(j) else {
            return differs(format!(
                "the client's schedule has {} steps, the transcript {}",
                given.steps.len(),
                t.steps.len()
            ));
        };
        let committed = step.hyperparameters.as_deref().unwrap_or_default();
        let names: Vec<&str> = committed.iter().map(|h| h.name.as_str()).collect();
        if names != given.names {
            return differs(format!(
                "step {j} commits the hyperparameters [{}], the client's schedule [{}] (names \
                 and order: the order ties each to its argument)",
                names.join(", "),
                given.names.join(", ")
            ));
        }
        for ((h, &value), name) in committed.iter().zip(expected).zip(&given.names) {
            if !close(h.value, value) {
                return differs(format!(
                    "step {j} ran with {name} = {:e}, the client's schedule says {value:e}",
                    h.value
                ));
            }
        }
    }
    if given.steps.len() != t.steps.len() {
        return differs(format!(
            "the client's schedule has {} steps, the transcript {}",
            given.steps.len(),
            t.steps.len()
        ));
    }
    Expectation {
        name: "hyperparameters",
        status: Status::Matched,
        expected: Some(format!("{} steps", given.steps.len())),
        recorded: Some(format!("{} steps", t.steps.len())),
        note: "every step ran with the client's hyperparameters".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(values: &[(&str, f64, u64)]) -> StepBody {
        StepBody {
            step: 0,
            program: 1,
            batch: zkdv_protocol::BatchCommitment {
                rows: 1,
                width: 1,
                window: 1,
                root: zkdv_protocol::Hash32::ZERO,
            },
            pre_state: zkdv_protocol::Hash32::ZERO,
            update: zkdv_protocol::Hash32::ZERO,
            post_state: zkdv_protocol::Hash32::ZERO,
            overlap: zkdv_protocol::Overlap::Unchecked,
            evidence: None,
            hyperparameters: Some(
                values
                    .iter()
                    .map(|&(name, value, leaf)| Hyperparameter {
                        name: name.into(),
                        value,
                        leaf,
                    })
                    .collect(),
            ),
            nonfinite: None,
        }
    }

    fn scalar(x: f64) -> Tensor {
        Tensor::from_le_bytes(DType::F64, &[], &x.to_le_bytes()).expect("scalar")
    }

    #[test]
    fn a_record_binds_the_batch_argument_that_carries_each_hyperparameter() {
        let data = Tensor::from_le_bytes(DType::F32, &[2], &[0; 8]).expect("data");
        let batch = [data.clone(), scalar(1e-3)];
        assert_eq!(bind(&step(&[("0/lr", 1e-3, 1)]), &batch), Ok(()));
        let err = bind(&step(&[("0/lr", 2e-3, 1)]), &batch).unwrap_err();
        assert!(
            err.contains("commits 0/lr = 2e-3, but its batch ran with 1e-3"),
            "{err}"
        );
        let err = bind(&step(&[("0/lr", 1e-3, 0)]), &batch).unwrap_err();
        assert!(err.contains("not a scalar f64"), "{err}");
        let err = bind(&step(&[("0/lr", 1e-3, 5)]), &batch).unwrap_err();
        assert!(err.contains("which the step's program lacks"), "{err}");
    }

    #[test]
    fn a_record_names_consecutive_arguments_in_order() {
        let data = Tensor::from_le_bytes(DType::F32, &[2], &[0; 8]).expect("data");
        let batch = [data, scalar(1e-3), scalar(0.9)];
        let ok = step(&[("0/lr", 1e-3, 1), ("0/betas[0]", 0.9, 2)]);
        assert_eq!(bind(&ok, &batch), Ok(()));
        let gap = step(&[("0/lr", 1e-3, 1), ("0/betas[0]", 1e-3, 1)]);
        let err = bind(&gap, &batch).unwrap_err();
        assert!(err.contains("consecutive arguments"), "{err}");
    }

    #[test]
    fn the_clients_values_match_to_a_last_bit_and_no_further() {
        assert!(close(1e-3, 1e-3 * (1.0 + 1e-15)));
        assert!(!close(1e-3, 1.0001e-3));
        assert!(close(0.0, 0.0));
    }
}
