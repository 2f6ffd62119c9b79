//! `stablehlo.triangular_solve`: solves `op(a) * x = b` (`left_side`) or
//! `x * op(a) = b` for `x`, where `a` is triangular (only the triangle named
//! by `lower` is read; with `unit_diagonal` its diagonal is taken as 1) and
//! `op` is the identity, the transpose or the adjoint (`transpose_a`).
//! Leading dimensions of `a` and `b` are batch dimensions and must agree.
//!
//! # Determinism
//!
//! Each right-hand side is solved by plain substitution: the unknowns in the
//! order the triangle allows (first to last for a lower-triangular system,
//! last to first for an upper one), each as `(((b - t0 * x0) - t1 * x1) -
//! ...) / d` with the products taken in increasing index order, plain IEEE
//! `*`, `-` and `/` (never a fused multiply-add). `f32` and `f64` compute in
//! their own type; `f16` and `bf16` compute each step in `f32` and round it
//! to their type, which equals the correctly rounded step. Complex types use
//! the arithmetic of [`super::complex`] (`f64` parts, Smith's division),
//! each step's parts rounded to `f32` for `complex<f32>` as the separate
//! ops would be; `ADJOINT` conjugates the elements of `a`. Right-side solves
//! are the left-side solve of the transposed system. Integer element types
//! are rejected with a [`ValueError`].

use melior::ir::OperationRef;

use super::complex::{self, C};
use super::{arity, OpError, Regions};
use crate::attrs;
use crate::value::{Data, ElementType, Tensor, ValueError};

/// The ops this family evaluates (the op table, `table.rs`, dispatches
/// them here).
pub const OPS: &[&str] = &["stablehlo.triangular_solve"];

/// The family entry point: `stablehlo.triangular_solve`.
pub fn family(
    op: &OperationRef<'_, '_>,
    name: &str,
    operands: &[&Tensor],
    _regions: &dyn Regions,
) -> Result<Option<Vec<Tensor>>, OpError> {
    if name != "stablehlo.triangular_solve" {
        return Ok(None);
    }
    arity(operands, 2)?;
    let transpose = match attrs::enum_keyword(op, "transpose_a")?.as_deref() {
        None | Some("NO_TRANSPOSE") => Transpose::None,
        Some("TRANSPOSE") => Transpose::Transpose,
        Some("ADJOINT") => Transpose::Adjoint,
        Some(other) => {
            return Err(ValueError::Malformed {
                what: "transpose_a attribute",
                text: other.to_owned(),
            }
            .into())
        }
    };
    let options = SolveOptions {
        left_side: attrs::boolean_or(op, "left_side", false)?,
        lower: attrs::boolean_or(op, "lower", false)?,
        unit_diagonal: attrs::boolean_or(op, "unit_diagonal", false)?,
        transpose,
    };
    let result = triangular_solve(operands[0], operands[1], options)?;
    let declared = attrs::result_type(op, 0)?;
    if declared != result.tensor_type() {
        return Err(ValueError::Mismatch(format!(
            "triangular_solve: computed {:?}{:?}, declared {:?}{:?}",
            result.element, result.shape, declared.element, declared.shape
        ))
        .into());
    }
    Ok(Some(vec![result]))
}

/// `transpose_a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transpose {
    /// `op(a) = a`.
    None,
    /// `op(a) = transpose(a)`.
    Transpose,
    /// `op(a) = conj(transpose(a))` (the transpose for real types).
    Adjoint,
}

/// The attributes of `triangular_solve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolveOptions {
    /// Solve `op(a) * x = b` (else `x * op(a) = b`).
    pub left_side: bool,
    /// Read the lower triangle of `a` (else the upper one).
    pub lower: bool,
    /// Take the diagonal of `a` as ones.
    pub unit_diagonal: bool,
    /// `op`.
    pub transpose: Transpose,
}

/// The arithmetic of one element type.
trait Field: Copy {
    const ONE: Self;
    fn sub_mul(self, a: Self, b: Self, round: impl Fn(Self) -> Self) -> Self;
    fn div(self, d: Self) -> Self;
    fn conj(self) -> Self {
        self
    }
}

impl Field for C {
    const ONE: Self = (1.0, 0.0);
    fn sub_mul(self, a: Self, b: Self, round: impl Fn(Self) -> Self) -> Self {
        round(complex::sub(self, round(complex::mul(a, b))))
    }
    fn div(self, d: Self) -> Self {
        complex::div(self, d)
    }
    fn conj(self) -> Self {
        (self.0, -self.1)
    }
}

impl Field for f32 {
    const ONE: Self = 1.0;
    fn sub_mul(self, a: Self, b: Self, round: impl Fn(Self) -> Self) -> Self {
        round(self - round(a * b))
    }
    fn div(self, d: Self) -> Self {
        self / d
    }
}

impl Field for f64 {
    const ONE: Self = 1.0;
    fn sub_mul(self, a: Self, b: Self, round: impl Fn(Self) -> Self) -> Self {
        round(self - round(a * b))
    }
    fn div(self, d: Self) -> Self {
        self / d
    }
}

/// Solves the triangular system(s) `a`, `b` (see the module documentation).
pub fn triangular_solve(
    a: &Tensor,
    b: &Tensor,
    options: SolveOptions,
) -> Result<Tensor, ValueError> {
    let mismatch = |message: String| ValueError::Mismatch(format!("triangular_solve: {message}"));
    if a.element != b.element {
        return Err(mismatch(format!(
            "element types differ: {:?} vs {:?}",
            a.element, b.element
        )));
    }
    let rank = a.shape.len();
    if rank < 2 || b.shape.len() != rank {
        return Err(mismatch(format!(
            "operands of shapes {:?} and {:?} are not batches of matrices of one rank",
            a.shape, b.shape
        )));
    }
    let m = a.shape[rank - 1];
    if a.shape[rank - 2] != m {
        return Err(mismatch(format!("a of shape {:?} is not square", a.shape)));
    }
    if a.shape[..rank - 2] != b.shape[..rank - 2] {
        return Err(mismatch(format!(
            "batch dimensions differ: {:?} vs {:?}",
            a.shape, b.shape
        )));
    }
    let (rows, cols) = (b.shape[rank - 2], b.shape[rank - 1]);
    let solved = if options.left_side { rows } else { cols };
    if solved != m {
        return Err(mismatch(format!(
            "b of shape {:?} does not match a of shape {:?} (left_side = {})",
            b.shape, a.shape, options.left_side
        )));
    }
    let batch: usize = a.shape[..rank - 2].iter().product();
    let geometry = Geometry {
        batch,
        m,
        rows,
        cols,
        options,
    };
    let element = a.element;
    let data = match (element, &a.data, &b.data) {
        (ElementType::F64, Data::F64(av), Data::F64(bv)) => {
            Data::F64(solve_all(av, bv, geometry, |x| x))
        }
        (ElementType::F32 | ElementType::F16 | ElementType::BF16, Data::F32(av), Data::F32(bv)) => {
            Data::F32(solve_all(av, bv, geometry, |x| element.round_f32(x)))
        }
        (ElementType::Complex64 | ElementType::Complex128, _, _) => {
            let (Some(av), Some(bv)) = (complex::widen(a), complex::widen(b)) else {
                return Err(mismatch(format!("{element:?} operands hold other data")));
            };
            let round = |z: C| {
                if element == ElementType::Complex64 {
                    (f64::from(z.0 as f32), f64::from(z.1 as f32))
                } else {
                    z
                }
            };
            let x = solve_all(&av, &bv, geometry, round);
            return complex::narrow(element, b.shape.clone(), x);
        }
        _ => {
            return Err(ValueError::UnsupportedType(format!(
                "triangular_solve of {element:?} (only floating-point and complex)"
            )))
        }
    };
    Tensor::new(element, b.shape.clone(), data)
}

#[derive(Debug, Clone, Copy)]
struct Geometry {
    batch: usize,
    m: usize,
    rows: usize,
    cols: usize,
    options: SolveOptions,
}

fn solve_all<T: Field>(a: &[T], b: &[T], g: Geometry, round: impl Fn(T) -> T + Copy) -> Vec<T> {
    let SolveOptions {
        left_side,
        lower,
        unit_diagonal,
        transpose,
    } = g.options;
    let m = g.m;
    let transposed = transpose != Transpose::None;
    // The system solved is `t * y = c` with `t` m x m: for left_side,
    // `t = op(a)` and the columns of `b` are the right-hand sides; else
    // `t = op(a)^T` and the rows of `b` are.
    let t_transposed = transposed == left_side;
    // `op(a)` is lower triangular when `lower` and not transposed, or upper
    // and transposed; transposing once more for right-side solves flips it.
    let t_lower = lower != t_transposed;
    let mut out = b.to_vec();
    let mut y = vec![T::ONE; m];
    for batch in 0..g.batch {
        let a = &a[batch * m * m..(batch + 1) * m * m];
        // t[i][j] (only read on and inside the triangle of `t`).
        let t = |i: usize, j: usize| {
            let value = if t_transposed {
                a[j * m + i]
            } else {
                a[i * m + j]
            };
            if transpose == Transpose::Adjoint {
                value.conj()
            } else {
                value
            }
        };
        let base = batch * g.rows * g.cols;
        let (systems, stride_in, stride_sys) = if left_side {
            (g.cols, g.cols, 1)
        } else {
            (g.rows, 1, g.cols)
        };
        for system in 0..systems {
            let at = |i: usize| base + system * stride_sys + i * stride_in;
            let mut step = |i: usize, known: &mut dyn Iterator<Item = usize>| {
                let mut s = out[at(i)];
                for k in known {
                    s = s.sub_mul(t(i, k), y[k], round);
                }
                y[i] = if unit_diagonal {
                    s
                } else {
                    round(s.div(t(i, i)))
                };
            };
            if t_lower {
                for i in 0..m {
                    step(i, &mut (0..i));
                }
            } else {
                for i in (0..m).rev() {
                    step(i, &mut (i + 1..m));
                }
            }
            for (i, value) in y.iter().enumerate() {
                out[at(i)] = *value;
            }
        }
    }
    out
}

/// A rank-2 `f32` tensor from rows (tests).
#[cfg(test)]
fn matrix(rows: &[&[f32]]) -> Tensor {
    let data: Vec<f32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    let shape = vec![rows.len(), rows.first().map_or(0, |r| r.len())];
    Tensor::new(ElementType::F32, shape, Data::F32(data)).expect("test matrix")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::TensorType;

    fn options(left_side: bool, lower: bool, transpose: Transpose) -> SolveOptions {
        SolveOptions {
            left_side,
            lower,
            unit_diagonal: false,
            transpose,
        }
    }

    fn values(t: &Tensor) -> Vec<f32> {
        match &t.data {
            Data::F32(v) => v.clone(),
            _ => panic!("not f32"),
        }
    }

    #[test]
    fn left_and_right_solves() {
        // a = [[1,0,0],[2,4,0],[3,5,6]] lower; upper half is junk that must
        // not be read.
        let a = matrix(&[&[1.0, 9.0, 9.0], &[2.0, 4.0, 9.0], &[3.0, 5.0, 6.0]]);
        // x = [1, 2, 3]: a x = [1, 10, 31].
        let b = matrix(&[&[1.0], &[10.0], &[31.0]]);
        let x = triangular_solve(&a, &b, options(true, true, Transpose::None)).unwrap();
        assert_eq!(values(&x), [1.0, 2.0, 3.0]);
        // a^T x = [1+4+9, 8+15, 18] = [14, 23, 18].
        let b = matrix(&[&[14.0], &[23.0], &[18.0]]);
        let x = triangular_solve(&a, &b, options(true, true, Transpose::Transpose)).unwrap();
        assert_eq!(values(&x), [1.0, 2.0, 3.0]);
        let x = triangular_solve(&a, &b, options(true, true, Transpose::Adjoint)).unwrap();
        assert_eq!(values(&x), [1.0, 2.0, 3.0]);
        // x a = [1+4+9, 8+15, 18] for the row x = [1,2,3].
        let b = matrix(&[&[14.0, 23.0, 18.0]]);
        let x = triangular_solve(&a, &b, options(false, true, Transpose::None)).unwrap();
        assert_eq!(values(&x), [1.0, 2.0, 3.0]);
        // x a^T = [1, 10, 31].
        let b = matrix(&[&[1.0, 10.0, 31.0]]);
        let x = triangular_solve(&a, &b, options(false, true, Transpose::Transpose)).unwrap();
        assert_eq!(values(&x), [1.0, 2.0, 3.0]);
        // Upper: u = a^T read from the upper triangle.
        let u = matrix(&[&[1.0, 2.0, 3.0], &[9.0, 4.0, 5.0], &[9.0, 9.0, 6.0]]);
        let b = matrix(&[&[14.0], &[23.0], &[18.0]]);
        let x = triangular_solve(&u, &b, options(true, false, Transpose::None)).unwrap();
        assert_eq!(values(&x), [1.0, 2.0, 3.0]);
    }

    #[test]
    fn unit_diagonal_batches_and_errors() {
        let a = Tensor::new(
            ElementType::F32,
            vec![2, 2, 2],
            Data::F32(vec![7.0, 0.0, 2.0, 7.0, 7.0, 0.0, 3.0, 7.0]),
        )
        .unwrap();
        let b = Tensor::new(
            ElementType::F32,
            vec![2, 2, 1],
            Data::F32(vec![1.0, 3.0, 1.0, 4.0]),
        )
        .unwrap();
        let mut o = options(true, true, Transpose::None);
        o.unit_diagonal = true;
        let x = triangular_solve(&a, &b, o).unwrap();
        assert_eq!(values(&x), [1.0, 1.0, 1.0, 1.0]);

        let square = matrix(&[&[1.0, 0.0], &[0.0, 1.0]]);
        let wrong = matrix(&[&[1.0, 2.0, 3.0]]);
        assert!(triangular_solve(&square, &wrong, o).is_err());
        let ints = Tensor::new(ElementType::Signed(32), vec![1, 1], Data::Signed(vec![1])).unwrap();
        assert!(matches!(
            triangular_solve(&ints, &ints, o),
            Err(ValueError::UnsupportedType(_))
        ));
        let not_square = matrix(&[&[1.0, 2.0]]);
        assert!(triangular_solve(&not_square, &wrong, o).is_err());
    }

    #[test]
    fn complex_adjoint() {
        // a = [[1, 0], [i, 2]] lower; a^H = [[1, -i], [0, 2]].
        let a = Tensor::new(
            ElementType::Complex128,
            vec![2, 2],
            Data::C128(vec![[1.0, 0.0], [9.0, 9.0], [0.0, 1.0], [2.0, 0.0]]),
        )
        .unwrap();
        // x = [1, 1]: a^H x = [1 - i, 2].
        let b = Tensor::new(
            ElementType::Complex128,
            vec![2, 1],
            Data::C128(vec![[1.0, -1.0], [2.0, 0.0]]),
        )
        .unwrap();
        let x = triangular_solve(&a, &b, options(true, true, Transpose::Adjoint)).unwrap();
        assert_eq!(x.data, Data::C128(vec![[1.0, 0.0], [1.0, 0.0]]));
    }

    #[test]
    fn half_types_round_each_step() {
        let a = Tensor::new(ElementType::BF16, vec![1, 1], Data::F32(vec![3.0])).unwrap();
        let b = Tensor::new(ElementType::BF16, vec![1, 1], Data::F32(vec![1.0])).unwrap();
        let x = triangular_solve(&a, &b, options(true, true, Transpose::None)).unwrap();
        assert_eq!(values(&x), [ElementType::BF16.round_f32(1.0 / 3.0)]);
        assert_eq!(
            x.tensor_type(),
            TensorType {
                element: ElementType::BF16,
                shape: vec![1, 1]
            }
        );
    }
}
