//! The family's two per-element ops: `clamp` (scalar or full-shape bounds)
//! and `bitcast_convert`, which reads elements as little-endian bit strings
//! (`i1` as one bit), the first element holding the lowest bits.
//!
//! Preconditions: none; shapes and bit widths are checked first.

use crate::ops::scalar::mismatch;
use crate::value::{Data, ElementType, Tensor, TensorType, ValueError};

/// `minimum(maximum(operand, min), max)` with scalar or full-shape bounds.
pub fn clamp(min: &Tensor, operand: &Tensor, max: &Tensor) -> Result<Tensor, ValueError> {
    let full = |t: &Tensor| -> Result<Tensor, ValueError> {
        if t.shape.is_empty() && !operand.shape.is_empty() {
            crate::ops::broadcast_in_dim(t, &[], &operand.shape)
        } else {
            Ok(t.clone())
        }
    };
    let lower = crate::ops::binary(crate::ops::BinaryOp::Maximum, operand, &full(min)?)?;
    crate::ops::binary(crate::ops::BinaryOp::Minimum, &lower, &full(max)?)
}

/// Bit width of an element type as `bitcast_convert` counts it.
fn bit_width(element: ElementType) -> usize {
    match element {
        ElementType::I1 => 1,
        other => other.size_bytes() * 8,
    }
}

/// Reinterprets the bits of `operand` as the result type.
pub fn bitcast_convert(operand: &Tensor, result: &TensorType) -> Result<Tensor, ValueError> {
    let (from, to) = (bit_width(operand.element), bit_width(result.element));
    let rank = operand.shape.len();
    let shape_ok = match from.cmp(&to) {
        std::cmp::Ordering::Equal => result.shape == operand.shape,
        std::cmp::Ordering::Greater => {
            result.shape.len() == rank + 1
                && result.shape[..rank] == operand.shape[..]
                && result.shape[rank] * to == from
        }
        std::cmp::Ordering::Less => {
            rank >= 1
                && result.shape[..] == operand.shape[..rank - 1]
                && operand.shape[rank - 1] * from == to
        }
    };
    if !shape_ok {
        return Err(mismatch(format!(
            "bitcast_convert: {:?}{:?} cannot become {:?}{:?}",
            operand.element, operand.shape, result.element, result.shape
        )));
    }
    // Complex on either side: whole bytes, read in the same row-major order.
    if operand.element.is_complex() || result.element.is_complex() {
        if operand.element == ElementType::I1 || result.element == ElementType::I1 {
            return Err(mismatch(
                "bitcast_convert between i1 and complex is not supported".to_owned(),
            ));
        }
        let bytes = operand.le_bytes();
        return if result.element.is_complex() {
            Tensor::from_complex_le_bytes(result.element, result.shape.clone(), &bytes)
        } else {
            let dtype = result.element.dtype()?;
            let host = crate::HostTensor::from_bytes(
                dtype,
                result.shape.iter().map(|&d| d as u64).collect(),
                bytes,
            )
            .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
            Tensor::from_host(&host)
        };
    }
    // Whole-byte types: the result is the operand's little-endian byte
    // stream read back in the result's type (what the bit loop below
    // computes, without visiting every bit).
    let whole_bytes = |e: ElementType, width: usize| e != ElementType::I1 && width % 8 == 0;
    if whole_bytes(operand.element, from) && whole_bytes(result.element, to) {
        let host = crate::HostTensor::from_bytes(
            result.element.dtype()?,
            result.shape.iter().map(|&d| d as u64).collect(),
            operand.le_bytes(),
        )
        .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
        return Tensor::from_host(&host);
    }
    // Each element as its little-endian bit pattern in a u64.
    let words: Vec<u64> = match &operand.data {
        Data::Bool(v) => v.iter().map(|&b| u64::from(b)).collect(),
        _ => {
            let host = operand
                .to_host()
                .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
            let size = operand.element.size_bytes();
            host.bytes()
                .chunks_exact(size)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..size].copy_from_slice(c);
                    u64::from_le_bytes(b)
                })
                .collect()
        }
    };
    let count = result.len();
    let mut out = vec![0u64; count];
    for (j, word) in out.iter_mut().enumerate() {
        for b in 0..to {
            let bit = j * to + b;
            if (words[bit / from] >> (bit % from)) & 1 == 1 {
                *word |= 1 << b;
            }
        }
    }
    if result.element == ElementType::I1 {
        return Tensor::new(
            ElementType::I1,
            result.shape.clone(),
            Data::Bool(out.iter().map(|&w| w != 0).collect()),
        );
    }
    let size = result.element.size_bytes();
    let bytes: Vec<u8> = out
        .iter()
        .flat_map(|w| w.to_le_bytes()[..size].to_vec())
        .collect();
    let host = crate::HostTensor::from_bytes(
        result.element.dtype()?,
        result.shape.iter().map(|&d| d as u64).collect(),
        bytes,
    )
    .map_err(|e| mismatch(format!("bitcast_convert: {e}")))?;
    Tensor::from_host(&host)
}
