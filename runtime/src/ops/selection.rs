//! `chlo.top_k`: the `k` largest elements along the last dimension.
//!
//! JAX lowers `jax.lax.top_k` (top-k routing in mixture-of-experts layers) to
//! `chlo.top_k(operand) {k}`, with two results: the values and their `i32`
//! indices, each of shape `[..., k]`. Order: descending by value, ties by
//! increasing index (a stable sort), as `jax.lax.top_k` documents. Floats
//! are ordered by their IEEE total order, so `+NaN` ranks above `+inf` and
//! `-NaN` below `-inf`, and `-0.0 < +0.0`; every row is processed
//! independently and sequentially, so the result does not depend on threads.

use melior::ir::OperationRef;

use super::{arity, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, ValueError};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &["chlo.top_k"];

/// The family of [`top_k`] (see the module documentation).
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    if name != "chlo.top_k" {
        return Ok(None);
    }
    arity(operands, 1)?;
    let k = attrs::index(op, "k")?;
    Ok(Some(top_k(operands[0], k)?))
}

/// A key whose natural order is the IEEE total order of `value`.
fn f64_key(value: f64) -> i64 {
    let bits = value.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// The `k` largest elements of each last-dimension row of `operand`, and
/// their indices.
pub fn top_k(operand: &Tensor, k: usize) -> Result<Vec<Tensor>, ValueError> {
    let Some((&n, lead)) = operand.shape.split_last() else {
        return Err(ValueError::Mismatch(
            "chlo.top_k needs an operand of rank 1 or more".to_owned(),
        ));
    };
    if k > n {
        return Err(ValueError::Mismatch(format!(
            "chlo.top_k: k = {k} exceeds the last dimension {n}"
        )));
    }
    if n > i32::MAX as usize {
        return Err(ValueError::OutOfRange(format!(
            "chlo.top_k: indices of a dimension of {n} do not fit i32"
        )));
    }
    let keys: Vec<i128> = match &operand.data {
        Data::F64(v) => v.iter().map(|&x| i128::from(f64_key(x))).collect(),
        Data::F32(v) => v
            .iter()
            .map(|&x| i128::from(f64_key(f64::from(x))))
            .collect(),
        Data::Signed(v) => v.iter().map(|&x| i128::from(x)).collect(),
        Data::Unsigned(v) => v.iter().map(|&x| i128::from(x)).collect(),
        Data::Bool(v) => v.iter().map(|&x| i128::from(x)).collect(),
        _ => {
            return Err(ValueError::UnsupportedType(format!(
                "chlo.top_k on {:?}",
                operand.element
            )))
        }
    };
    let rows: usize = lead.iter().product();
    let mut picked = Vec::with_capacity(rows * k);
    let mut order: Vec<usize> = Vec::with_capacity(n);
    for row in 0..rows {
        let base = row * n;
        order.clear();
        order.extend(0..n);
        // stable: equal keys keep increasing index order
        order.sort_by(|&a, &b| keys[base + b].cmp(&keys[base + a]));
        picked.extend(order[..k].iter().map(|&i| (base + i, i)));
    }
    let mut shape = lead.to_vec();
    shape.push(k);
    let positions: Vec<usize> = picked.iter().map(|&(flat, _)| flat).collect();
    let values = Tensor::new(
        operand.element,
        shape.clone(),
        operand.data.gather(&positions),
    )?;
    let indices = Tensor::new(
        ElementType::Signed(32),
        shape,
        Data::Signed(picked.iter().map(|&(_, i)| i as i64).collect()),
    )?;
    Ok(vec![values, indices])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_first_ties_by_index_nan_on_top() {
        let x = Tensor::new(
            ElementType::F32,
            vec![2, 4],
            Data::F32(vec![
                1.0,
                3.0,
                3.0,
                -1.0,
                f32::NAN,
                0.0,
                -0.0,
                f32::INFINITY,
            ]),
        )
        .unwrap();
        let out = top_k(&x, 3).unwrap();
        assert_eq!(out[1].data, Data::Signed(vec![1, 2, 0, 0, 3, 1]));
        match &out[0].data {
            Data::F32(v) => {
                assert_eq!(&v[..3], &[3.0, 3.0, 1.0]);
                assert!(v[3].is_nan());
                assert_eq!(v[4], f32::INFINITY);
                assert!(v[5] == 0.0 && v[5].is_sign_positive());
            }
            other => panic!("{other:?}"),
        }
        assert!(top_k(&x, 5).is_err());
        let scalar = Tensor::new(ElementType::F32, vec![], Data::F32(vec![1.0])).unwrap();
        assert!(top_k(&scalar, 1).is_err());
    }
}
