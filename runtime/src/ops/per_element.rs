//! Per-element ops outside the core elementwise set: `chlo.mulhi` (the high
//! half of the double-width integer product) and `stablehlo.map` (the op's
//! body applied to the elements at each index, in row-major index order).

use melior::ir::OperationRef;

use super::{arity, Body, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, ValueError};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &["chlo.mulhi", "stablehlo.map"];

/// The family entry point: `chlo.mulhi` and `stablehlo.map`.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    let result = match name {
        "chlo.mulhi" => {
            arity(operands, 2)?;
            mulhi(operands[0], operands[1])?
        }
        "stablehlo.map" => {
            let dimensions = attrs::dimensions(op, "dimensions")?;
            let body = regions.body(0)?;
            match operands.first() {
                Some(first) if first.data.is_empty() => {
                    let result = attrs::result_type(op, 0)?;
                    let shape = result.shape.iter().map(|&d| d as u64).collect();
                    let host = crate::HostTensor::zeros(result.element.dtype()?, shape)
                        .map_err(|error| ValueError::OutOfRange(error.to_string()))?;
                    Tensor::from_host(&host)?
                }
                _ => map(operands, &dimensions, &*body)?,
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![result]))
}

/// The high `W` bits of the `2W`-bit product of two `W`-bit integers
/// (signed or unsigned, as their type says).
pub fn mulhi(lhs: &Tensor, rhs: &Tensor) -> Result<Tensor, ValueError> {
    if lhs.element != rhs.element || lhs.shape != rhs.shape {
        return Err(ValueError::Mismatch(format!(
            "mulhi: operands differ: {:?}{:?} vs {:?}{:?}",
            lhs.element, lhs.shape, rhs.element, rhs.shape
        )));
    }
    let element = lhs.element;
    let data = match (element, &lhs.data, &rhs.data) {
        (ElementType::Signed(width), Data::Signed(a), Data::Signed(b)) => Data::Signed(
            a.iter()
                .zip(b)
                .map(|(&x, &y)| {
                    let product = i128::from(x) * i128::from(y);
                    element.wrap_signed((product >> width) as i64)
                })
                .collect(),
        ),
        (ElementType::Unsigned(width), Data::Unsigned(a), Data::Unsigned(b)) => Data::Unsigned(
            a.iter()
                .zip(b)
                .map(|(&x, &y)| {
                    let product = u128::from(x) * u128::from(y);
                    element.wrap_unsigned((product >> width) as u64)
                })
                .collect(),
        ),
        _ => {
            return Err(ValueError::UnsupportedType(format!(
                "mulhi of {element:?} (integers only)"
            )))
        }
    };
    Tensor::new(element, lhs.shape.clone(), data)
}

/// `result[i] = body(inputs[0][i], inputs[1][i], ...)` for every index in
/// row-major order; `dimensions` must be `0..rank`.
pub fn map(inputs: &[&Tensor], dimensions: &[usize], body: &dyn Body) -> Result<Tensor, OpError> {
    let mismatch = |message: String| OpError::from(ValueError::Mismatch(message));
    let Some(first) = inputs.first() else {
        return Err(mismatch("map: no inputs".to_owned()));
    };
    if inputs.iter().any(|t| t.shape != first.shape) {
        return Err(mismatch("map: inputs of different shapes".to_owned()));
    }
    if !dimensions.iter().copied().eq(0..first.shape.len()) {
        return Err(mismatch(format!(
            "map: dimensions {dimensions:?} must be 0..{}",
            first.shape.len()
        )));
    }
    let mut element = None;
    let mut parts = Vec::with_capacity(first.data.len());
    for i in 0..first.data.len() {
        let args = inputs
            .iter()
            .map(|t| Tensor::new(t.element, Vec::new(), t.data.gather(&[i])))
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = body.apply(&args)?;
        let (Some(value), true) = (out.pop(), out.is_empty()) else {
            return Err(mismatch("map: the body must return one value".to_owned()));
        };
        if !value.shape.is_empty() || element.is_some_and(|e| e != value.element) {
            return Err(mismatch(format!(
                "map: the body returned {:?}{:?}, not one scalar type",
                value.element, value.shape
            )));
        }
        element = Some(value.element);
        parts.push(value.data);
    }
    let Some(element) = element else {
        return Err(mismatch(
            "map: an empty input leaves the result type unknown".to_owned(),
        ));
    };
    let refs: Vec<&Data> = parts.iter().collect();
    let data = super::scalar::join(&refs)?;
    Ok(Tensor::new(element, first.shape.clone(), data)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{binary, BinaryOp, Combiner};

    #[test]
    fn mulhi_signed_and_unsigned() {
        let i8s = |v: Vec<i64>| {
            Tensor::new(ElementType::Signed(8), vec![v.len()], Data::Signed(v)).unwrap()
        };
        // -128 * -128 = 16384 = 0x4000: high byte 0x40.
        let r = mulhi(&i8s(vec![-128, -1, 127]), &i8s(vec![-128, 1, 127])).unwrap();
        assert_eq!(r.data, Data::Signed(vec![64, -1, 63]));
        let u64s = |v: Vec<u64>| {
            Tensor::new(ElementType::Unsigned(64), vec![v.len()], Data::Unsigned(v)).unwrap()
        };
        let r = mulhi(&u64s(vec![u64::MAX, 3]), &u64s(vec![u64::MAX, 5])).unwrap();
        assert_eq!(r.data, Data::Unsigned(vec![u64::MAX - 1, 0]));
        let f = Tensor::new(ElementType::F32, vec![1], Data::F32(vec![1.0])).unwrap();
        assert!(matches!(mulhi(&f, &f), Err(ValueError::UnsupportedType(_))));
    }

    struct Mul;

    impl Body for Mul {
        fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
            Ok(vec![binary(BinaryOp::Multiply, &args[0], &args[1])?])
        }
        fn combiner(&self) -> Option<Combiner> {
            Some(Combiner::Multiply)
        }
    }

    #[test]
    fn map_applies_the_body() {
        let a = Tensor::new(
            ElementType::Signed(64),
            vec![2, 2],
            Data::Signed(vec![0, 1, 2, 3]),
        )
        .unwrap();
        let b = Tensor::new(
            ElementType::Signed(64),
            vec![2, 2],
            Data::Signed(vec![4, 5, 6, 7]),
        )
        .unwrap();
        let r = map(&[&a, &b], &[0, 1], &Mul).unwrap();
        assert_eq!(r.data, Data::Signed(vec![0, 5, 12, 21]));
        assert!(map(&[&a, &b], &[1, 0], &Mul).is_err());
    }
}
