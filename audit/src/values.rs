//! Tensors read as `f64`: what every comparison of the audit compares.

use zkdv_hashing::DType;
use zkdv_protocol::evidence::EvidenceLeaf;
use zkdv_runtime::Tensor;

/// A tensor from an evidence leaf.
pub(crate) fn tensor(leaf: &EvidenceLeaf) -> Result<Tensor, String> {
    Tensor::from_le_bytes(leaf.dtype, &leaf.shape, &leaf.data).map_err(|e| e.to_string())
}

/// The element type of `tensor`.
pub(crate) fn dtype_of(tensor: &Tensor) -> Result<DType, String> {
    tensor.element.dtype().map_err(|e| e.to_string())
}

/// Every element of `tensor` as `f64`.
pub(crate) fn values(tensor: &Tensor) -> Result<Vec<f64>, String> {
    let bytes = tensor.le_bytes();
    let dtype = dtype_of(tensor)?;
    let size = dtype.size_bytes();
    Ok(bytes
        .chunks_exact(size)
        .map(|c| element(dtype, c))
        .collect())
}

/// The state's values, leaf by leaf, as `f64`.
pub(crate) fn state_values(state: &[Tensor]) -> Result<Vec<Vec<f64>>, String> {
    state.iter().map(values).collect()
}

/// One little-endian element of type `dtype` as `f64`.
fn element(dtype: DType, c: &[u8]) -> f64 {
    let mut b = [0u8; 8];
    b[..c.len()].copy_from_slice(c);
    match dtype {
        DType::F64 => f64::from_le_bytes(b),
        DType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::I1 | DType::U8 | DType::U16 | DType::U32 | DType::U64 => {
            u64::from_le_bytes(b) as f64
        }
        DType::I8 => f64::from(c[0] as i8),
        DType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        DType::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::I64 => i64::from_le_bytes(b) as f64,
    }
}

/// Element `index` of the row-major concatenation of `tensors` (0 past the
/// end, as the attested program selects).
pub(crate) fn flat_element(tensors: &[Tensor], mut index: u64) -> Result<f64, String> {
    for t in tensors {
        let n = t.data.len() as u64;
        if index < n {
            let dtype = dtype_of(t)?;
            let size = dtype.size_bytes();
            let at = index as usize * size;
            return Ok(element(dtype, &t.le_bytes()[at..at + size]));
        }
        index -= n;
    }
    Ok(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
