//! Bitwise ops: and, or, xor and not, on booleans (logical) and integers
//! (bitwise, kept wrapped to the type's width).

use super::same_type;
use crate::value::{Data, Tensor, ValueError};

/// A binary bitwise op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitwiseOp {
    /// `stablehlo.and`.
    And,
    /// `stablehlo.or`.
    Or,
    /// `stablehlo.xor`.
    Xor,
}

/// The element types bitwise ops apply to.
trait Bits:
    Copy
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
{
}

impl<T> Bits for T where
    T: Copy
        + std::ops::BitAnd<Output = T>
        + std::ops::BitOr<Output = T>
        + std::ops::BitXor<Output = T>
{
}

fn apply<T: Bits>(op: BitwiseOp, x: T, y: T) -> T {
    match op {
        BitwiseOp::And => x & y,
        BitwiseOp::Or => x | y,
        BitwiseOp::Xor => x ^ y,
    }
}

fn zip<T: Bits>(op: BitwiseOp, a: &[T], b: &[T]) -> Vec<T> {
    a.iter().zip(b).map(|(&x, &y)| apply(op, x, y)).collect()
}

/// `op(lhs, rhs)` elementwise on booleans or integers of one type.
pub fn bitwise(op: BitwiseOp, lhs: &Tensor, rhs: &Tensor) -> Result<Tensor, ValueError> {
    same_type("bitwise op", lhs, rhs)?;
    // Operands are wrapped to their width, and and/or/xor keep them so.
    let data = match (&lhs.data, &rhs.data) {
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(zip(op, a, b)),
        (Data::Signed(a), Data::Signed(b)) => Data::Signed(zip(op, a, b)),
        (Data::Unsigned(a), Data::Unsigned(b)) => Data::Unsigned(zip(op, a, b)),
        _ => {
            return Err(ValueError::Mismatch(format!(
                "{op:?} is not defined on {:?}",
                lhs.element
            )))
        }
    };
    Tensor::new(lhs.element, lhs.shape.clone(), data)
}

/// `stablehlo.not`: logical not on booleans, bitwise not on integers.
pub fn not(operand: &Tensor) -> Result<Tensor, ValueError> {
    let element = operand.element;
    let data = match &operand.data {
        Data::Bool(a) => Data::Bool(a.iter().map(|x| !x).collect()),
        Data::Signed(a) => Data::Signed(a.iter().map(|&x| element.wrap_signed(!x)).collect()),
        Data::Unsigned(a) => Data::Unsigned(a.iter().map(|&x| element.wrap_unsigned(!x)).collect()),
        _ => {
            return Err(ValueError::Mismatch(format!(
                "not is not defined on {element:?}"
            )))
        }
    };
    Tensor::new(element, operand.shape.clone(), data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::ElementType;

    #[test]
    fn logical_and_bitwise() {
        let b = |v: &[bool]| Tensor::new(ElementType::I1, vec![2], Data::Bool(v.to_vec())).unwrap();
        let x = bitwise(BitwiseOp::Xor, &b(&[true, true]), &b(&[true, false])).unwrap();
        assert_eq!(x.data, Data::Bool(vec![false, true]));
        let u8s = |v: &[u64]| {
            Tensor::new(
                ElementType::Unsigned(8),
                vec![2],
                Data::Unsigned(v.to_vec()),
            )
            .unwrap()
        };
        assert_eq!(
            not(&u8s(&[0, 0xf0])).unwrap().data,
            Data::Unsigned(vec![0xff, 0x0f])
        );
        let i8s = Tensor::new(ElementType::Signed(8), vec![1], Data::Signed(vec![5])).unwrap();
        assert_eq!(not(&i8s).unwrap().data, Data::Signed(vec![-6]));
        let o = bitwise(BitwiseOp::Or, &u8s(&[1, 2]), &u8s(&[4, 2])).unwrap();
        assert_eq!(o.data, Data::Unsigned(vec![5, 2]));
        let f = Tensor::new(ElementType::F32, vec![1], Data::F32(vec![1.0])).unwrap();
        assert!(not(&f).is_err());
        assert!(bitwise(BitwiseOp::And, &f, &f).is_err());
    }
}
