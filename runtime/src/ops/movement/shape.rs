//! Shape ops, the one home of each: `reshape`, `transpose`, `reverse`,
//! `broadcast_in_dim` and `iota`, and the shape-operand check of their
//! dynamic forms (`dynamic_reshape`, `dynamic_broadcast_in_dim`,
//! `dynamic_iota`, which run the same functions).
//!
//! Each computes, for every result index, the operand index it reads (the
//! specification's formula), then gathers those elements. Preconditions:
//! none; shapes, permutations and dimensions are checked first.

use crate::ops::convert;
use crate::ops::scalar::{for_each_index, index_values, mismatch, strides};
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// `result[i] = operand[j]` with `j[k] = i[dims[k]]`, or 0 where the operand
/// dimension is 1.
pub fn broadcast_in_dim(
    operand: &Tensor,
    dims: &[usize],
    result_shape: &[usize],
) -> Result<Tensor, ValueError> {
    let mut seen = vec![false; result_shape.len()];
    let valid = dims.len() == operand.shape.len()
        && dims
            .iter()
            .all(|&d| d < result_shape.len() && !std::mem::replace(&mut seen[d], true))
        && dims
            .iter()
            .zip(&operand.shape)
            .all(|(&d, &size)| d < result_shape.len() && (size == 1 || size == result_shape[d]));
    if !valid {
        return Err(mismatch(format!(
            "broadcast_in_dim: dimensions {dims:?} do not map {:?} into {result_shape:?}",
            operand.shape
        )));
    }
    // The operand stride each result dimension advances by (0 where the
    // result dimension is broadcast).
    let operand_strides = strides(&operand.shape);
    let mut steps = vec![0usize; result_shape.len()];
    for ((&d, &size), &stride) in dims.iter().zip(&operand.shape).zip(&operand_strides) {
        if size != 1 {
            steps[d] = stride;
        }
    }
    let data = match &operand.data {
        Data::F64(v) => Data::F64(broadcast_values(v, result_shape, &steps)),
        Data::F32(v) => Data::F32(broadcast_values(v, result_shape, &steps)),
        Data::Bool(v) => Data::Bool(broadcast_values(v, result_shape, &steps)),
        Data::Signed(v) => Data::Signed(broadcast_values(v, result_shape, &steps)),
        Data::Unsigned(v) => Data::Unsigned(broadcast_values(v, result_shape, &steps)),
        other => {
            let mut indices = Vec::with_capacity(result_shape.iter().product());
            for_each_index(result_shape, |i| {
                indices.push(i.iter().zip(&steps).map(|(&x, &s)| x * s).sum());
            });
            other.gather(&indices)
        }
    };
    Tensor::new(operand.element, result_shape.to_vec(), data)
}

/// The row-major elements of a broadcast: result position `i` reads
/// `src[sum(i[d] * steps[d])]`. The innermost dimension is a fill (step 0)
/// or a contiguous copy (step 1) where it can be.
fn broadcast_values<T: Copy>(src: &[T], shape: &[usize], steps: &[usize]) -> Vec<T> {
    let total: usize = shape.iter().product();
    let mut out = Vec::with_capacity(total);
    if total == 0 {
        return out;
    }
    let Some((&inner, outer)) = shape.split_last() else {
        out.push(src[0]);
        return out;
    };
    let inner_step = steps[steps.len() - 1];
    let mut index = vec![0usize; outer.len()];
    let mut base = 0usize;
    loop {
        match inner_step {
            0 => out.extend(std::iter::repeat_n(src[base], inner)),
            1 => out.extend_from_slice(&src[base..base + inner]),
            step => out.extend((0..inner).map(|j| src[base + j * step])),
        }
        // advance the outer odometer
        let mut d = outer.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            base += steps[d];
            if index[d] < outer[d] {
                break;
            }
            base -= steps[d] * index[d];
            index[d] = 0;
        }
    }
}

/// The same elements in row-major order under a new shape.
pub fn reshape(operand: &Tensor, result_shape: &[usize]) -> Result<Tensor, ValueError> {
    if result_shape.iter().product::<usize>() != operand.data.len() {
        return Err(mismatch(format!(
            "reshape: {:?} has a different element count than {result_shape:?}",
            operand.shape
        )));
    }
    Tensor::new(operand.element, result_shape.to_vec(), operand.data.clone())
}

/// `result[i] = operand[j]` with `j[permutation[k]] = i[k]`.
pub fn transpose(operand: &Tensor, permutation: &[usize]) -> Result<Tensor, ValueError> {
    let rank = operand.shape.len();
    let mut seen = vec![false; rank];
    let is_permutation = permutation.len() == rank
        && permutation
            .iter()
            .all(|&p| p < rank && !std::mem::replace(&mut seen[p], true));
    if !is_permutation {
        return Err(mismatch(format!(
            "transpose: {permutation:?} is not a permutation of rank {rank}"
        )));
    }
    let result_shape: Vec<usize> = permutation.iter().map(|&p| operand.shape[p]).collect();
    Tensor::new(
        operand.element,
        result_shape,
        operand.data.permuted(&operand.shape, permutation),
    )
}

/// `result[i] = i[dimension]`, converted to the result's element type as
/// `stablehlo.convert` does.
pub fn iota(result: &TensorType, dimension: usize) -> Result<Tensor, ValueError> {
    if dimension >= result.shape.len() {
        return Err(mismatch(format!(
            "iota: dimension {dimension} is outside rank {}",
            result.shape.len()
        )));
    }
    let mut values = Vec::with_capacity(result.len());
    for_each_index(&result.shape, |i| values.push(i[dimension] as i64));
    let indices = Tensor::new(
        ElementType::Signed(64),
        result.shape.clone(),
        Data::Signed(values),
    )?;
    convert(&indices, result.element)
}

/// Checks a dynamic op's shape operand (of `dynamic_reshape`,
/// `dynamic_broadcast_in_dim`, `dynamic_iota`) against the result shape.
pub(super) fn check_shape_operand(shape: &Tensor, expected: &[usize]) -> Result<(), ValueError> {
    let values = index_values(shape)?;
    let same = values.len() == expected.len()
        && values
            .iter()
            .zip(expected)
            .all(|(&v, &e)| usize::try_from(v).ok() == Some(e));
    if !same {
        return Err(mismatch(format!(
            "the shape operand {values:?} differs from the result shape {expected:?}"
        )));
    }
    Ok(())
}

/// Reverses `operand` along `dimensions`.
pub fn reverse(operand: &Tensor, dimensions: &[usize]) -> Result<Tensor, ValueError> {
    let rank = operand.shape.len();
    let mut flip = vec![false; rank];
    for &d in dimensions {
        if d >= rank || std::mem::replace(&mut flip[d], true) {
            return Err(mismatch(format!(
                "reverse: dimensions {dimensions:?} for rank {rank}"
            )));
        }
    }
    let st = strides(&operand.shape);
    let mut indices = Vec::with_capacity(operand.data.len());
    for_each_index(&operand.shape, |i| {
        indices.push(
            (0..rank)
                .map(|d| {
                    let k = if flip[d] {
                        operand.shape[d] - 1 - i[d]
                    } else {
                        i[d]
                    };
                    k * st[d]
                })
                .sum(),
        );
    });
    Tensor::new(
        operand.element,
        operand.shape.clone(),
        operand.data.gather(&indices),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(shape: &[usize], v: &[i64]) -> Tensor {
        Tensor::new(
            ElementType::Signed(64),
            shape.to_vec(),
            Data::Signed(v.to_vec()),
        )
        .unwrap()
    }

    #[test]
    fn broadcasts() {
        let t = ints(&[3, 1], &[1, 2, 3]);
        let b = broadcast_in_dim(&t, &[0, 2], &[3, 2, 2]).unwrap();
        assert_eq!(
            b.data,
            Data::Signed(vec![1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
        );
        let s = broadcast_in_dim(&ints(&[], &[7]), &[], &[2]).unwrap();
        assert_eq!(s.data, Data::Signed(vec![7, 7]));
        assert!(broadcast_in_dim(&t, &[0], &[3, 2]).is_err());
        assert!(broadcast_in_dim(&t, &[1, 0], &[2, 2]).is_err());
        assert!(broadcast_in_dim(&t, &[1, 1], &[3, 3]).is_err());
        assert_eq!(
            broadcast_in_dim(&t, &[1, 0], &[2, 3]).unwrap().shape,
            vec![2, 3]
        );
    }

    #[test]
    fn reshapes_and_transposes() {
        let t = ints(&[2, 3], &[1, 2, 3, 4, 5, 6]);
        assert_eq!(reshape(&t, &[3, 2]).unwrap().shape, vec![3, 2]);
        assert!(reshape(&t, &[4]).is_err());
        let tr = transpose(&t, &[1, 0]).unwrap();
        assert_eq!(
            (tr.shape.clone(), tr.data),
            (vec![3, 2], Data::Signed(vec![1, 4, 2, 5, 3, 6]))
        );
        assert!(transpose(&t, &[0, 0]).is_err());
        let e = ints(&[0, 2], &[]);
        assert_eq!(transpose(&e, &[1, 0]).unwrap().shape, vec![2, 0]);
    }

    /// Every permutation of ranks 1 to 4 (sizes that do not divide the 2-D
    /// tile, unit and empty dimensions, and results large enough to be
    /// written block by block on rayon's pool), against the definition.
    #[test]
    fn transposes_match_the_definition() {
        fn permutations(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![Vec::new()];
            }
            let mut all = Vec::new();
            for rest in permutations(n - 1) {
                for at in 0..=rest.len() {
                    let mut p = rest.clone();
                    p.insert(at, n - 1);
                    all.push(p);
                }
            }
            all
        }
        for shape in [
            vec![5],
            vec![33, 70],
            vec![1, 40],
            vec![3, 0],
            vec![2, 3, 4],
            vec![3, 1, 5, 2],
            vec![300, 257],
            vec![2, 3, 11_000],
            vec![2, 65, 12, 47],
        ] {
            let n: usize = shape.iter().product();
            let t = ints(&shape, &(0..n as i64).collect::<Vec<_>>());
            let strides = strides(&shape);
            for permutation in permutations(shape.len()) {
                let got = transpose(&t, &permutation).unwrap();
                let mut expected = Vec::new();
                for_each_index(&got.shape, |i| {
                    let offset: usize = permutation
                        .iter()
                        .zip(i)
                        .map(|(&p, &ik)| ik * strides[p])
                        .sum();
                    expected.push(offset as i64);
                });
                assert_eq!(
                    got.data,
                    Data::Signed(expected),
                    "{shape:?} {permutation:?}"
                );
            }
        }
    }

    #[test]
    fn iotas() {
        let ty = TensorType {
            element: ElementType::F32,
            shape: vec![2, 3],
        };
        let i = iota(&ty, 1).unwrap();
        assert_eq!(i.data, Data::F32(vec![0.0, 1.0, 2.0, 0.0, 1.0, 2.0]));
        assert!(iota(&ty, 2).is_err());
    }
}
