//! Tensors read as `f64`: what every comparison of the audit compares.

use std::borrow::Cow;
use zkdv_hashing::DType;
use zkdv_protocol::evidence::EvidenceLeaf;

use zkdv_runtime::{Data, Tensor};

/// A tensor from an evidence leaf.
pub(crate) fn tensor(leaf: &EvidenceLeaf) -> Result<Tensor, String> {
    Tensor::from_le_bytes(leaf.dtype, &leaf.shape, &leaf.data).map_err(|e| e.to_string())
}

/// The element type of `tensor`.
pub(crate) fn dtype_of(tensor: &Tensor) -> Result<DType, String> {
    tensor.element.dtype().map_err(|e| e.to_string())
}

/// Every element of `tensor` as `f64`: borrowed where the tensor holds
/// `f64` already, converted otherwise (a narrow float's widened `f32`
/// through its own type, so each value is the one its bytes hold).
pub(crate) fn values(tensor: &Tensor) -> Result<Cow<'_, [f64]>, String> {
    let dtype = dtype_of(tensor)?;
    Ok(match &tensor.data {
        Data::F64(v) => Cow::Borrowed(v.as_slice()),
        Data::F32(v) => Cow::Owned(v.iter().map(|&x| narrow(dtype, x)).collect()),
        Data::Bool(v) => Cow::Owned(v.iter().map(|&b| f64::from(u8::from(b))).collect()),
        Data::Signed(v) => Cow::Owned(v.iter().map(|&x| x as f64).collect()),
        Data::Unsigned(v) => Cow::Owned(v.iter().map(|&x| x as f64).collect()),
        Data::C64(_) | Data::C128(_) => {
            return Err(format!("a complex tensor ({dtype:?}) has no real values"))
        }
    })
}

/// A state's leaves, each read as `f64` ([`values`]) only while a
/// comparison looks at it: a comparison holds one leaf's values at a time,
/// never the whole state's (3 GB of `f64` for a 124M-parameter model with
/// Adam's two moments).
pub(crate) trait LeafValues {
    /// How many leaves.
    fn count(&self) -> usize;
    /// Leaf `leaf`'s values (empty past the last leaf).
    fn leaf(&self, leaf: usize) -> Cow<'_, [f64]>;
}

/// A state's tensors as [`LeafValues`]; every leaf's type is checked when
/// it is made, so reading a leaf cannot fail.
pub(crate) struct Leaves<'a>(&'a [Tensor]);

impl<'a> Leaves<'a> {
    /// The leaves of `state`, or why one of them has no real values.
    pub(crate) fn new(state: &'a [Tensor]) -> Result<Self, String> {
        for t in state {
            if matches!(t.data, Data::C64(_) | Data::C128(_)) {
                return Err(format!(
                    "a complex state leaf ({:?}) has no real values",
                    t.element
                ));
            }
            dtype_of(t)?;
        }
        Ok(Leaves(state))
    }
}

impl LeafValues for Leaves<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn leaf(&self, leaf: usize) -> Cow<'_, [f64]> {
        match self.0.get(leaf).map(values) {
            Some(Ok(v)) => v,
            // `new` refused every leaf `values` cannot read.
            Some(Err(why)) => unreachable!("a leaf Leaves::new accepted: {why}"),
            None => Cow::Borrowed(&[]),
        }
    }
}

/// One leaf's measured spread, kept in the precision of the leaf it
/// measures: `f32` for a leaf of `f32` or a narrower float (a spread is a
/// difference of two such values, rounded up here so that it never
/// shrinks), `f64` otherwise. Half the memory of `f64` for the states
/// people train.
#[derive(Debug, Clone)]
pub(crate) enum SpreadLeaf {
    /// Of a leaf of `f32` or narrower.
    Narrow(Vec<f32>),
    /// Of any other leaf.
    Wide(Vec<f64>),
}

impl SpreadLeaf {
    /// A spread of `len` zeros for a leaf of `dtype`.
    pub(crate) fn zeros(dtype: DType, len: usize) -> Self {
        match dtype {
            DType::F32 | DType::F16 | DType::BF16 => SpreadLeaf::Narrow(vec![0.0; len]),
            _ => SpreadLeaf::Wide(vec![0.0; len]),
        }
    }

    /// Widen value `i`'s spread to at least `s` (finite and at least 0, as
    /// [`zkdv_protocol::Tolerance::ensemble_difference`] gives it).
    pub(crate) fn widen(&mut self, i: usize, s: f64) {
        if let SpreadLeaf::Narrow(v) = self {
            if s > f64::from(f32::MAX) {
                // Beyond f32 (members near the float's range, apart): the leaf
                // keeps its spreads in f64 from here, so none becomes infinite.
                *self = SpreadLeaf::Wide(v.iter().map(|&x| f64::from(x)).collect());
            }
        }
        match self {
            SpreadLeaf::Narrow(v) => {
                if let Some(x) = v.get_mut(i) {
                    let mut r = s as f32;
                    if f64::from(r) < s {
                        // The next f32 up (r is finite and at least 0 here).
                        r = f32::from_bits(r.to_bits() + 1);
                    }
                    *x = x.max(r);
                }
            }
            SpreadLeaf::Wide(v) => {
                if let Some(x) = v.get_mut(i) {
                    *x = x.max(s);
                }
            }
        }
    }
}

impl LeafValues for Vec<SpreadLeaf> {
    fn count(&self) -> usize {
        self.len()
    }
    fn leaf(&self, leaf: usize) -> Cow<'_, [f64]> {
        match self.get(leaf) {
            Some(SpreadLeaf::Narrow(v)) => Cow::Owned(v.iter().map(|&x| f64::from(x)).collect()),
            Some(SpreadLeaf::Wide(v)) => Cow::Borrowed(v.as_slice()),
            None => Cow::Borrowed(&[]),
        }
    }
}

/// An element of a tensor of `dtype` held in `f32` (a narrow float is held
/// widened) as the value its own type holds.
fn narrow(dtype: DType, x: f32) -> f64 {
    match dtype {
        DType::F16 => half::f16::from_f32(x).to_f64(),
        DType::BF16 => half::bf16::from_f32(x).to_f64(),
        _ => f64::from(x),
    }
}

/// Element `index` of the row-major concatenation of `tensors` (0 past the
/// end, as the attested program selects).
pub(crate) fn flat_element(tensors: &[Tensor], mut index: u64) -> Result<f64, String> {
    for t in tensors {
        let n = t.data.len() as u64;
        if index < n {
            let dtype = dtype_of(t)?;
            let i = index as usize;
            return Ok(match &t.data {
                Data::F64(v) => v[i],
                Data::F32(v) => narrow(dtype, v[i]),
                Data::Bool(v) => f64::from(u8::from(v[i])),
                Data::Signed(v) => v[i] as f64,
                Data::Unsigned(v) => v[i] as f64,
                Data::C64(_) | Data::C128(_) => {
                    return Err(format!("a complex tensor ({dtype:?}) has no real values"))
                }
            });
        }
        index -= n;
    }
    Ok(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_spread_rounds_up_and_widens_to_f64_beyond_f32() {
        let mut leaf = SpreadLeaf::zeros(DType::F32, 2);
        let s = 0.1f64; // not an f32: kept as the f32 just above it
        leaf.widen(0, s);
        let SpreadLeaf::Narrow(v) = &leaf else {
            panic!("an f32 leaf keeps f32 spreads")
        };
        assert!(f64::from(v[0]) >= s && f64::from(v[0]) - s < 1e-8);
        let first = f64::from(v[0]);
        // A spread beyond f32's range: the leaf's spreads become f64, none infinite.
        leaf.widen(1, 1e39);
        assert!(matches!(leaf, SpreadLeaf::Wide(_)));
        assert_eq!(vec![leaf].leaf(0).as_ref(), &[first, 1e39]);
    }

    #[test]
    fn flat_elements_address_the_concatenation_of_leaves() {
        let a = Tensor::from_le_bytes(
            DType::F32,
            &[2],
            &[1.5f32, -2.0].map(f32::to_le_bytes).concat(),
        )
        .unwrap();
        let b = Tensor::from_le_bytes(DType::BF16, &[1], &half::bf16::from_f32(0.25).to_le_bytes())
            .unwrap();
        let leaves = [a, b];
        assert_eq!(flat_element(&leaves, 1).unwrap(), -2.0);
        assert_eq!(flat_element(&leaves, 2).unwrap(), 0.25);
        // Past the end selects 0, as the attested program does.
        assert_eq!(flat_element(&leaves, 3).unwrap(), 0.0);
        assert_eq!(values(&leaves[0]).unwrap(), vec![1.5, -2.0]);
    }
}
