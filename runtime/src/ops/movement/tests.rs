//! The unit tests of the data-movement ops: each op against small worked
//! examples and its attribute checks.

use super::sort::merge_sort;
use super::*;
use crate::ops::decoded::Comparison;
use crate::ops::{Body, Direction};
use crate::value::TensorType;

fn ints(shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::new(
        ElementType::Signed(64),
        shape.to_vec(),
        Data::Signed(v.to_vec()),
    )
    .unwrap()
}

fn scalar(v: i64) -> Tensor {
    ints(&[], &[v])
}

#[test]
fn slices() {
    let t = ints(&[3, 4], &(0..12).collect::<Vec<_>>());
    let s = slice(&t, &[0, 1], &[3, 4], &[2, 2]).unwrap();
    assert_eq!(
        (s.shape.clone(), s.data),
        (vec![2, 2], Data::Signed(vec![1, 3, 9, 11]))
    );
    assert!(slice(&t, &[0, 1], &[4, 4], &[1, 1]).is_err());
    assert!(slice(&t, &[0, 1], &[3, 4], &[1, 0]).is_err());
    let d = dynamic_slice(&t, &[&scalar(5), &scalar(-2)], &[2, 2]).unwrap();
    assert_eq!(d.data, Data::Signed(vec![4, 5, 8, 9]));
    assert!(dynamic_slice(&t, &[&scalar(0)], &[2, 2]).is_err());
    let u = dynamic_update_slice(&t, &ints(&[1, 2], &[-1, -2]), &[&scalar(9), &scalar(9)]).unwrap();
    assert_eq!(
        u.data,
        Data::Signed(vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2])
    );
}

#[test]
fn concatenates_pads_and_reverses() {
    let a = ints(&[2, 1], &[1, 2]);
    let b = ints(&[2, 2], &[3, 4, 5, 6]);
    let c = concatenate(&[&a, &b], 1).unwrap();
    assert_eq!(c.data, Data::Signed(vec![1, 3, 4, 2, 5, 6]));
    assert!(concatenate(&[&a, &b], 0).is_err());
    let p = pad(&ints(&[3], &[1, 2, 3]), &scalar(0), &[-1], &[1], &[1]).unwrap();
    assert_eq!(p.data, Data::Signed(vec![0, 2, 0, 3, 0]));
    assert!(pad(&a, &scalar(0), &[0, 0], &[0, 0], &[-1, 0]).is_err());
    assert!(pad(&a, &scalar(0), &[-5, 0], &[0, 0], &[0, 0]).is_err());
    let r = reverse(&b, &[0, 1]).unwrap();
    assert_eq!(r.data, Data::Signed(vec![6, 5, 4, 3]));
    assert!(reverse(&b, &[1, 1]).is_err());
}

#[test]
fn clamps_and_bitcasts() {
    let c = clamp(&scalar(0), &ints(&[3], &[-1, 1, 3]), &scalar(2)).unwrap();
    assert_eq!(c.data, Data::Signed(vec![0, 1, 2]));
    let f = Tensor::new(ElementType::F32, vec![1], Data::F32(vec![1.0])).unwrap();
    let ty = TensorType {
        element: ElementType::Unsigned(16),
        shape: vec![1, 2],
    };
    let b = bitcast_convert(&f, &ty).unwrap();
    assert_eq!(b.data, Data::Unsigned(vec![0, 0x3f80]));
    let back = bitcast_convert(
        &b,
        &TensorType {
            element: ElementType::F32,
            shape: vec![1],
        },
    )
    .unwrap();
    assert_eq!(back, f);
    assert!(bitcast_convert(
        &f,
        &TensorType {
            element: ElementType::F64,
            shape: vec![]
        }
    )
    .is_err());
}

#[test]
fn gathers_and_checks_attributes() {
    let operand = ints(&[3, 2], &[1, 2, 3, 4, 5, 6]);
    let indices = ints(&[2, 1], &[2, 0]);
    let dims = GatherDims::read(
        "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], \
             start_index_map = [0], index_vector_dim = 1>",
    )
    .unwrap();
    let g = gather(&operand, &indices, &dims, &[1, 2], &[2, 2]).unwrap();
    assert_eq!(g.data, Data::Signed(vec![5, 6, 1, 2]));
    let mut bad = dims.clone();
    bad.start_index_map = vec![7];
    assert!(gather(&operand, &indices, &bad, &[1, 2], &[2, 2]).is_err());
    assert!(gather(&operand, &indices, &dims, &[1, 3], &[2, 2]).is_err());
}

/// A body computing `f(arg0, arg1)` on i64 scalars.
struct Mock(fn(i64, i64) -> i64, Option<crate::ops::Combiner>);

impl Body for Mock {
    fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
        let v = |t: &Tensor| match &t.data {
            Data::Signed(v) => v[0],
            _ => unreachable!(),
        };
        Ok(vec![scalar((self.0)(v(&args[0]), v(&args[1])))])
    }
    fn combiner(&self) -> Option<crate::ops::Combiner> {
        self.1
    }
}

/// A comparator body `arg0 < arg1` on the first input.
struct Less;

impl Body for Less {
    fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
        let less = super::super::compare(Direction::Lt, None, &args[0], &args[1])?;
        Ok(vec![less])
    }
    fn combiner(&self) -> Option<crate::ops::Combiner> {
        None
    }
}

#[test]
fn scatters_in_update_order() {
    let input = ints(&[4], &[10, 20, 30, 40]);
    let indices = ints(&[3, 1], &[1, 7, 1]);
    let updates = ints(&[3], &[1, 2, 3]);
    let dims = ScatterDims::read(
        "#stablehlo.scatter<inserted_window_dims = [0], \
             scatter_dims_to_operand_dims = [0], index_vector_dim = 1>",
    )
    .unwrap();
    let types = [input.tensor_type()];
    let operands = [&input, &indices, &updates];
    let add = |c| Mock(|a, b| a.wrapping_add(b), c);
    let fast = scatter(
        &operands,
        &dims,
        &add(Some(crate::ops::Combiner::Add)),
        false,
        &types,
    );
    let slow = scatter(&operands, &dims, &add(None), false, &types).unwrap();
    assert_eq!(fast.unwrap(), slow);
    assert_eq!(slow[0].data, Data::Signed(vec![10, 24, 30, 40]));
    let set = scatter(&operands, &dims, &Mock(|_, b| b, None), true, &types).unwrap();
    assert_eq!(set[0].data, Data::Signed(vec![10, 3, 30, 40]));
    let slow_set = scatter(&operands, &dims, &Mock(|_, b| b, None), false, &types).unwrap();
    assert_eq!(set, slow_set);
    let mut bad = dims.clone();
    bad.index_vector_dim = 5;
    assert!(scatter(&operands, &dims, &add(None), false, &types[..0]).is_err());
    assert!(scatter(&operands, &bad, &add(None), false, &types).is_err());
}

#[test]
fn sorts_stably_with_and_without_fast_path() {
    let keys = ints(&[2, 3], &[3, 1, 3, 2, 2, 1]);
    let payload = ints(&[2, 3], &[0, 1, 2, 3, 4, 5]);
    let fast = Some(Comparison {
        direction: Direction::Lt,
        compare_type: None,
    });
    for f in [None, fast] {
        let out = sort(&[&keys, &payload], -1, &Less, f).unwrap();
        assert_eq!(out[0].data, Data::Signed(vec![1, 3, 3, 1, 2, 2]));
        assert_eq!(out[1].data, Data::Signed(vec![1, 0, 2, 5, 3, 4]));
        let by_column = sort(&[&keys, &payload], 0, &Less, f).unwrap();
        assert_eq!(by_column[1].data, Data::Signed(vec![3, 1, 5, 0, 4, 2]));
    }
    assert!(sort(&[&keys], 2, &Less, None).is_err());
}

#[test]
fn merge_sort_is_stable_and_total() {
    let keys = [3, 1, 2, 1, 3, 0];
    let mut items: Vec<usize> = (0..keys.len()).collect();
    merge_sort::<()>(&mut items, &mut |a, b| Ok(keys[a] < keys[b])).unwrap();
    assert_eq!(items, vec![5, 1, 3, 2, 0, 4]);
    // An inconsistent comparator must not panic.
    let mut items: Vec<usize> = (0..17).collect();
    merge_sort::<()>(&mut items, &mut |a, b| Ok((a * 7 + b) % 3 == 0)).unwrap();
    items.sort_unstable();
    assert_eq!(items, (0..17).collect::<Vec<_>>());
}
