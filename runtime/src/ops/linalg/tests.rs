//! The unit tests of the linear algebra ops: products and convolutions
//! against their definitions, layouts, errors, thread-count independence
//! and the ops run through the interpreter.

use super::*;
use crate::ops::reduction::{Cascade, CASCADE_BLOCK};
use crate::value::TensorType;

/// The documented sum of products in order: blocks of
/// [`CASCADE_BLOCK`] summed from `+0`, the block sums cascaded.
fn defined_sum(products: &[f32]) -> f32 {
    let add = |a: f32, b: f32| a + b;
    let mut sums = Cascade::new();
    for block in products.chunks(CASCADE_BLOCK) {
        sums.push(block.iter().fold(0.0f32, |a, &p| a + p), &add);
    }
    sums.finish(&add).unwrap_or(0.0)
}

fn f32s(shape: &[usize], v: Vec<f32>) -> Tensor {
    Tensor::new(ElementType::F32, shape.to_vec(), Data::F32(v)).unwrap()
}

fn ints(element: ElementType, shape: &[usize], v: Vec<i64>) -> Tensor {
    Tensor::new(element, shape.to_vec(), Data::Signed(v)).unwrap()
}

fn ty(element: ElementType, shape: &[usize]) -> TensorType {
    TensorType {
        element,
        shape: shape.to_vec(),
    }
}

/// Deterministic pseudo-random floats of mixed magnitudes, so that the
/// summation order shows in the low bits.
fn noise(len: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mantissa = (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
            let scale = [1.0, 1e-3, 1e3, 0.1][(state >> 20) as usize % 4];
            mantissa * scale
        })
        .collect()
}

fn bits(t: &Tensor) -> Vec<u32> {
    match &t.data {
        Data::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
        other => panic!("not f32: {other:?}"),
    }
}

fn dims(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> DotDimensions {
    DotDimensions {
        lhs_batching: lb.to_vec(),
        rhs_batching: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
    }
}

/// A weight stored transposed (`x @ W.T`: the rhs contracts its last
/// dimension) is read in place; the bits equal the product with the
/// weight transposed first, at shapes that take the column-split path
/// (with remainder columns) and the row-chunk path, with a batch.
#[test]
fn transposed_rhs_products_are_bitwise_those_of_the_transposed_copy() {
    for (batch, rows, depth, cols) in [(1, 64, 70, 300), (2, 5, 33, 21), (1, 300, 17, 40)] {
        let x = f32s(&[batch, rows, depth], noise(batch * rows * depth, 3));
        let w = f32s(&[batch, cols, depth], noise(batch * cols * depth, 4));
        let result = ty(ElementType::F32, &[batch, rows, cols]);
        let read_in_place = dot_general(&x, &w, &dims(&[0], &[0], &[2], &[2]), &result).unwrap();
        let wt = transpose(&w, &[0, 2, 1]).unwrap();
        let copied = dot_general(&x, &wt, &dims(&[0], &[0], &[2], &[1]), &result).unwrap();
        assert_eq!(
            bits(&read_in_place),
            bits(&copied),
            "{batch}x{rows}x{depth}x{cols}"
        );
    }
}

#[test]
fn matrix_products() {
    let a = ints(ElementType::Signed(64), &[2, 3], vec![1, 2, 3, 4, 5, 6]);
    let b = ints(ElementType::Signed(64), &[3, 2], vec![7, 8, 9, 10, 11, 12]);
    let r = dot(&a, &b, &ty(ElementType::Signed(64), &[2, 2])).unwrap();
    assert_eq!(r.data, Data::Signed(vec![58, 64, 139, 154]));
    // The same product written with the lhs transposed.
    let at = transpose(&a, &[1, 0]).unwrap();
    let r2 = dot_general(
        &at,
        &b,
        &dims(&[], &[], &[0], &[0]),
        &ty(ElementType::Signed(64), &[2, 2]),
    )
    .unwrap();
    assert_eq!(r2.data, r.data);
    let v = f32s(&[3], vec![1.0, 2.0, 3.0]);
    let r = dot(&v, &v, &ty(ElementType::F32, &[])).unwrap();
    assert_eq!(r.data, Data::F32(vec![14.0]));
    let m = f32s(&[2, 3], vec![1.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    let r = dot(&m, &v, &ty(ElementType::F32, &[2])).unwrap();
    assert_eq!(r.data, Data::F32(vec![1.0, 5.0]));
    // Contracting an empty dimension gives zeros.
    let e = f32s(&[2, 0], vec![]);
    let f = f32s(&[0, 3], vec![]);
    let r = dot(&e, &f, &ty(ElementType::F32, &[2, 3])).unwrap();
    assert_eq!(r.data, Data::F32(vec![0.0; 6]));
}

#[test]
fn batched_with_layouts_matches_the_definition() {
    // lhs [k1=3, b=2, m=4, k0=5], rhs [n=3, k0=5, b=2, k1=3]; contracting
    // (lhs 3 with rhs 1) then (lhs 0 with rhs 3).
    let lhs = f32s(&[3, 2, 4, 5], noise(120, 1));
    let rhs = f32s(&[3, 5, 2, 3], noise(90, 2));
    let d = dims(&[1], &[2], &[3, 0], &[1, 3]);
    let r = dot_general(&lhs, &rhs, &d, &ty(ElementType::F32, &[2, 4, 3])).unwrap();
    let (Data::F32(l), Data::F32(rv)) = (&lhs.data, &rhs.data) else {
        unreachable!()
    };
    let mut expected = Vec::new();
    for b in 0..2 {
        for m in 0..4 {
            for n in 0..3 {
                let mut products = Vec::new();
                for k0 in 0..5 {
                    for k1 in 0..3 {
                        let x = l[((k1 * 2 + b) * 4 + m) * 5 + k0];
                        let y = rv[((n * 5 + k0) * 2 + b) * 3 + k1];
                        products.push(x * y);
                    }
                }
                expected.push(defined_sum(&products).to_bits());
            }
        }
    }
    assert_eq!(bits(&r), expected);
}

#[test]
fn integer_boolean_and_half_accumulation() {
    // i8 wraps: 100 * 2 = 200 = -56 (mod 256).
    let a = ints(ElementType::Signed(8), &[1], vec![100]);
    let b = ints(ElementType::Signed(8), &[1], vec![2]);
    let r = dot(&a, &b, &ty(ElementType::Signed(8), &[])).unwrap();
    assert_eq!(r.data, Data::Signed(vec![-56]));
    // Into i32 the operands are converted first: no wrap.
    let r = dot(&a, &b, &ty(ElementType::Signed(32), &[])).unwrap();
    assert_eq!(r.data, Data::Signed(vec![200]));
    let u = Tensor::new(
        ElementType::Unsigned(8),
        vec![2],
        Data::Unsigned(vec![16, 1]),
    )
    .unwrap();
    let r = dot(&u, &u, &ty(ElementType::Unsigned(8), &[])).unwrap();
    assert_eq!(r.data, Data::Unsigned(vec![1]));
    let p = Tensor::new(
        ElementType::I1,
        vec![2, 2],
        Data::Bool(vec![true, false, false, false]),
    )
    .unwrap();
    let q = Tensor::new(ElementType::I1, vec![2], Data::Bool(vec![false, true])).unwrap();
    let r = dot(&p, &q, &ty(ElementType::I1, &[2])).unwrap();
    assert_eq!(r.data, Data::Bool(vec![false, false]));
    let r = dot(&q, &p, &ty(ElementType::I1, &[2])).unwrap();
    assert_eq!(r.data, Data::Bool(vec![false, false]));
    let r = dot(&p, &p, &ty(ElementType::I1, &[2, 2])).unwrap();
    assert_eq!(r.data, Data::Bool(vec![true, false, false, false]));
    // bf16: 1 + 2^-8 + 2^-8 summed in f32 is 1 + 2^-7, rounded once;
    // rounding after each step would tie back to 1.0 twice.
    let tiny = 2f32.powi(-8);
    let x = Tensor::new(ElementType::BF16, vec![3], Data::F32(vec![1.0, tiny, tiny])).unwrap();
    let ones = Tensor::new(ElementType::BF16, vec![3], Data::F32(vec![1.0; 3])).unwrap();
    let r = dot(&x, &ones, &ty(ElementType::BF16, &[])).unwrap();
    assert_eq!(r.data, Data::F32(vec![1.0078125]));
    // f16 overflow rounds to infinity at the end.
    let big = Tensor::new(ElementType::F16, vec![2], Data::F32(vec![300.0, 300.0])).unwrap();
    let r = dot(&big, &big, &ty(ElementType::F16, &[])).unwrap();
    assert_eq!(r.data, Data::F32(vec![f32::INFINITY]));
}

#[test]
fn dot_errors() {
    let a = f32s(&[2, 3], vec![0.0; 6]);
    let b = f32s(&[2, 3], vec![0.0; 6]);
    let f = ty(ElementType::F32, &[2, 2]);
    assert!(matches!(dot(&a, &b, &f), Err(ValueError::Mismatch(_))));
    let d = dims(&[], &[], &[1], &[1]);
    assert!(dot_general(&a, &b, &d, &f).is_ok());
    assert!(dot_general(&a, &b, &d, &ty(ElementType::F32, &[2, 3])).is_err());
    assert!(dot_general(&a, &b, &dims(&[], &[], &[5], &[1]), &f).is_err());
    assert!(dot_general(&a, &b, &dims(&[0], &[0], &[0], &[1]), &f).is_err());
    assert!(dot_general(&a, &b, &dims(&[0], &[], &[1], &[1]), &f).is_err());
    let s = f32s(&[], vec![1.0]);
    assert!(dot(&s, &a, &f).is_err());
}

fn nwc() -> ConvDimensions {
    ConvDimensions::parse("#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>").unwrap()
}

#[test]
fn one_dimensional_convolutions() {
    let x = f32s(&[1, 4, 1], vec![1.0, 2.0, 3.0, 4.0]);
    let k = f32s(&[2, 1, 1], vec![10.0, 1.0]);
    let conv = |w: &ConvWindow, out: usize| {
        convolution(&x, &k, &nwc(), w, &ty(ElementType::F32, &[1, out, 1])).map(|t| t.data)
    };
    let mut w = ConvWindow::new(1);
    assert_eq!(conv(&w, 3).unwrap(), Data::F32(vec![12.0, 23.0, 34.0]));
    w.padding = vec![(1, 1)];
    assert_eq!(
        conv(&w, 5).unwrap(),
        Data::F32(vec![1.0, 12.0, 23.0, 34.0, 40.0])
    );
    w.strides = vec![2];
    assert_eq!(conv(&w, 3).unwrap(), Data::F32(vec![1.0, 23.0, 40.0]));
    // Negative padding crops.
    let mut w = ConvWindow::new(1);
    w.padding = vec![(-1, 0)];
    assert_eq!(conv(&w, 2).unwrap(), Data::F32(vec![23.0, 34.0]));
    // Base dilation: 1 0 2 0 3 0 4.
    let mut w = ConvWindow::new(1);
    w.lhs_dilation = vec![2];
    assert_eq!(
        conv(&w, 6).unwrap(),
        Data::F32(vec![10.0, 2.0, 20.0, 3.0, 30.0, 4.0])
    );
    // Window dilation: taps 0 and 2.
    let mut w = ConvWindow::new(1);
    w.rhs_dilation = vec![2];
    assert_eq!(conv(&w, 2).unwrap(), Data::F32(vec![13.0, 24.0]));
    // Reversal: the kernel is applied as [1, 10].
    let mut w = ConvWindow::new(1);
    w.reversal = vec![true];
    assert_eq!(conv(&w, 3).unwrap(), Data::F32(vec![21.0, 32.0, 43.0]));
    // Shapes that do not fit are errors.
    assert!(conv(&ConvWindow::new(1), 4).is_err());
    let mut w = ConvWindow::new(1);
    w.strides = vec![0];
    assert!(conv(&w, 3).is_err());
    let mut w = ConvWindow::new(1);
    w.padding = vec![];
    assert!(conv(&w, 3).is_err());
    let mut w = ConvWindow::new(1);
    w.feature_group_count = 2;
    assert!(conv(&w, 3).is_err());
    // A window wider than the padded input gives an empty result.
    let mut w = ConvWindow::new(1);
    w.padding = vec![(-3, 0)];
    assert_eq!(conv(&w, 0).unwrap(), Data::F32(vec![]));
}

#[test]
fn grouped_convolutions() {
    // Feature groups: 2 input features, 2 groups, 4 outputs; output o
    // reads feature o / 2.
    let x = ints(ElementType::Signed(64), &[1, 2, 2], vec![1, 10, 2, 20]);
    let k = ints(ElementType::Signed(64), &[1, 1, 4], vec![1, 2, 3, 4]);
    let mut w = ConvWindow::new(1);
    w.feature_group_count = 2;
    let r = convolution(&x, &k, &nwc(), &w, &ty(ElementType::Signed(64), &[1, 2, 4])).unwrap();
    assert_eq!(r.data, Data::Signed(vec![1, 2, 30, 40, 2, 4, 60, 80]));
    // Batch groups: 2 batches, 2 groups, 2 outputs; output o reads batch o.
    let x = ints(ElementType::Signed(64), &[2, 2, 1], vec![1, 2, 3, 4]);
    let k = ints(ElementType::Signed(64), &[1, 1, 2], vec![10, 100]);
    let mut w = ConvWindow::new(1);
    w.batch_group_count = 2;
    let r = convolution(&x, &k, &nwc(), &w, &ty(ElementType::Signed(64), &[1, 2, 2])).unwrap();
    assert_eq!(r.data, Data::Signed(vec![10, 300, 20, 400]));
    w.feature_group_count = 2;
    assert!(convolution(&x, &k, &nwc(), &w, &ty(ElementType::Signed(64), &[1, 2, 2])).is_err());
}

/// A direct transcription of the specification for canonical 2-D
/// layouts: pad and dilate the input explicitly, then slide the window.
#[allow(clippy::too_many_arguments)]
fn reference_conv2d(
    x: &[f32],
    [nb, h, wd, c]: [usize; 4],
    k: &[f32],
    [kh, kw, ci, co]: [usize; 4],
    w: &ConvWindow,
) -> (Vec<usize>, Vec<f32>) {
    let fg = w.feature_group_count as usize;
    let bg = w.batch_group_count as usize;
    let dil = |s: usize, d: i64| if s == 0 { 0 } else { (s - 1) * d as usize + 1 };
    let (ph, pw) = (
        dil(h, w.lhs_dilation[0]) as i64 + w.padding[0].0 + w.padding[0].1,
        dil(wd, w.lhs_dilation[1]) as i64 + w.padding[1].0 + w.padding[1].1,
    );
    // The padded, dilated input, built element by element.
    let padded = |b: usize, i: i64, j: i64, f: usize| -> f32 {
        let (ii, jj) = (i - w.padding[0].0, j - w.padding[1].0);
        if ii < 0 || jj < 0 || ii % w.lhs_dilation[0] != 0 || jj % w.lhs_dilation[1] != 0 {
            return 0.0;
        }
        let (ii, jj) = (
            (ii / w.lhs_dilation[0]) as usize,
            (jj / w.lhs_dilation[1]) as usize,
        );
        if ii >= h || jj >= wd {
            return 0.0;
        }
        x[((b * h + ii) * wd + jj) * c + f]
    };
    let span = |kk: usize, d: i64| dil(kk, d) as i64;
    let (oh, ow) = (
        ((ph - span(kh, w.rhs_dilation[0])) / w.strides[0] + 1) as usize,
        ((pw - span(kw, w.rhs_dilation[1])) / w.strides[1] + 1) as usize,
    );
    let ob = nb / bg;
    let og = co / (fg * bg);
    let mut out = Vec::new();
    for b in 0..ob {
        for i in 0..oh {
            for j in 0..ow {
                for o in 0..co {
                    let q = o / og;
                    let (fq, bq) = if fg > 1 { (q, 0) } else { (0, q) };
                    let mut products = Vec::new();
                    for a in 0..kh {
                        for e in 0..kw {
                            let ra = if w.reversal[0] { kh - 1 - a } else { a };
                            let re = if w.reversal[1] { kw - 1 - e } else { e };
                            let pi = i as i64 * w.strides[0] + ra as i64 * w.rhs_dilation[0];
                            let pj = j as i64 * w.strides[1] + re as i64 * w.rhs_dilation[1];
                            for f in 0..ci {
                                let v = padded(bq * ob + b, pi, pj, fq * ci + f);
                                products.push(v * k[((a * kw + e) * ci + f) * co + o]);
                            }
                        }
                    }
                    out.push(defined_sum(&products));
                }
            }
        }
    }
    (vec![ob, oh, ow, co], out)
}

fn nhwc() -> ConvDimensions {
    ConvDimensions::parse("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>").unwrap()
}

fn window_cases() -> Vec<(ConvWindow, [usize; 4], [usize; 4])> {
    let mut cases = Vec::new();
    let mut w = ConvWindow::new(2);
    w.strides = vec![2, 1];
    w.padding = vec![(1, 2), (-1, 1)];
    w.lhs_dilation = vec![1, 2];
    w.rhs_dilation = vec![2, 1];
    w.reversal = vec![true, false];
    cases.push((w, [2, 7, 6, 3], [3, 2, 3, 4]));
    let mut w = ConvWindow::new(2);
    w.feature_group_count = 3;
    w.padding = vec![(1, 1), (1, 1)];
    cases.push((w, [2, 5, 5, 6], [3, 3, 2, 9]));
    let mut w = ConvWindow::new(2);
    w.batch_group_count = 2;
    w.reversal = vec![false, true];
    w.strides = vec![1, 3];
    cases.push((w, [4, 6, 8, 2], [2, 3, 2, 6]));
    cases
}

#[test]
fn convolution_matches_the_definition_in_any_layout() {
    for (seed, (w, xs, ks)) in window_cases().into_iter().enumerate() {
        let x = f32s(&xs, noise(xs.iter().product(), 10 + seed as u64));
        let k = f32s(&ks, noise(ks.iter().product(), 20 + seed as u64));
        let (Data::F32(xv), Data::F32(kv)) = (&x.data, &k.data) else {
            unreachable!()
        };
        let (shape, expected) = reference_conv2d(xv, xs, kv, ks, &w);
        let r = convolution(&x, &k, &nhwc(), &w, &ty(ElementType::F32, &shape)).unwrap();
        let expected_bits: Vec<u32> = expected.iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits(&r), expected_bits, "case {seed}");
        // The same convolution in other layouts.
        let dims =
            ConvDimensions::parse("#stablehlo.conv<[f, 1, b, 0]x[o, 1, 0, i]->[1, f, 0, b]>")
                .unwrap();
        let xt = transpose(&x, &[3, 2, 0, 1]).unwrap();
        let kt = transpose(&k, &[3, 1, 0, 2]).unwrap();
        let out_perm = [2, 3, 1, 0];
        let out_shape: Vec<usize> = out_perm.iter().map(|&p| shape[p]).collect();
        let rt = convolution(&xt, &kt, &dims, &w, &ty(ElementType::F32, &out_shape)).unwrap();
        assert_eq!(rt, transpose(&r, &out_perm).unwrap(), "case {seed}");
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() -> Result<(), Box<dyn std::error::Error>> {
    // Many rows (split by rows) and one row per batch (split by columns).
    let shapes = [(37, 300), (1, 700)];
    let operands: Vec<(Tensor, Tensor)> = shapes
        .iter()
        .enumerate()
        .map(|(i, &(m, n))| {
            (
                f32s(&[3, m, 70], noise(3 * m * 70, 5 + i as u64)),
                f32s(&[3, 70, n], noise(3 * 70 * n, 15 + i as u64)),
            )
        })
        .collect();
    let d = dims(&[0], &[0], &[2], &[1]);
    let x = f32s(&[2, 20, 20, 6], noise(2 * 20 * 20 * 6, 7));
    let k = f32s(&[3, 3, 2, 12], noise(3 * 3 * 2 * 12, 8));
    let mut w = ConvWindow::new(2);
    w.feature_group_count = 3;
    w.padding = vec![(1, 1), (2, 0)];
    let conv_out = ty(ElementType::F32, &[2, 20, 20, 12]);
    let run = || -> Result<Vec<Tensor>, ValueError> {
        let mut results = Vec::new();
        for ((lhs, rhs), &(m, n)) in operands.iter().zip(&shapes) {
            let out = ty(ElementType::F32, &[3, m, n]);
            results.push(dot_general(lhs, rhs, &d, &out)?);
        }
        results.push(convolution(&x, &k, &nhwc(), &w, &conv_out)?);
        Ok(results)
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()?
        .install(run)?;
    let many = rayon::ThreadPoolBuilder::new()
        .num_threads(5)
        .build()?
        .install(run)?;
    let default = run()?;
    for (a, b) in one.iter().zip(&many).chain(one.iter().zip(&default)) {
        assert_eq!(bits(a), bits(b));
    }
    // And the same bits as the documented definition.
    for (i, ((lhs, rhs), &(rows, cols))) in operands.iter().zip(&shapes).enumerate() {
        let (Data::F32(l), Data::F32(r)) = (&lhs.data, &rhs.data) else {
            unreachable!()
        };
        let mut expected = Vec::new();
        for b in 0..3 {
            for m in 0..rows {
                for n in 0..cols {
                    let products: Vec<f32> = (0..70)
                        .map(|k| l[(b * rows + m) * 70 + k] * r[(b * 70 + k) * cols + n])
                        .collect();
                    expected.push(defined_sum(&products).to_bits());
                }
            }
        }
        assert_eq!(bits(&one[i]), expected);
    }
    let (Data::F32(xv), Data::F32(kv)) = (&x.data, &k.data) else {
        unreachable!()
    };
    let (_, expected) = reference_conv2d(xv, [2, 20, 20, 6], kv, [3, 3, 2, 12], &w);
    let expected: Vec<u32> = expected.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits(&one[2]), expected);
    Ok(())
}
#[test]
fn ops_run_in_the_interpreter() {
    use crate::{HostTensor, Interpreter};
    use zkdv_ir::find_function;
    use zkdv_ir::IrContext;
    let source = r#""func.func"() <{function_type = (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<1x2x1xf32>), sym_name = "main"}> ({
  ^bb0(%m: tensor<2x3xf32>, %v: tensor<3xf32>):
    %0 = "stablehlo.dot"(%m, %v) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
    %1 = "stablehlo.reshape"(%v) : (tensor<3xf32>) -> tensor<1x3x1xf32>
    %2 = "stablehlo.reshape"(%0) : (tensor<2xf32>) -> tensor<2x1x1xf32>
    %3 = "stablehlo.convolution"(%1, %2) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>, feature_group_count = 1 : i64, padding = dense<[[1, 0]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>, window_strides = array<i64: 1>}> : (tensor<1x3x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1xf32>
    "func.return"(%0, %3) : (tensor<2xf32>, tensor<1x2x1xf32>) -> ()
  }) : () -> ()
"#;
    let context = IrContext::new();
    let module = context.parse(source, "linalg.mlir").unwrap();
    let main = find_function(&module, "main").unwrap();
    let m = HostTensor::from_f32(vec![2, 3], &[1.0, 0.0, 0.0, 0.0, 1.0, 1.0]).unwrap();
    let v = HostTensor::from_f32(vec![3], &[1.0, 2.0, 3.0]).unwrap();
    let out = Interpreter.run(main, &[m, v]).unwrap();
    assert_eq!(out[0], HostTensor::from_f32(vec![2], &[1.0, 5.0]).unwrap());
    // Padded input p = [0, 1, 2, 3]; the dilated window [p[i], p[i + 2]]
    // is reversed, then weighted by the kernel [1, 5].
    assert_eq!(
        out[1],
        HostTensor::from_f32(vec![1, 2, 1], &[2.0, 8.0]).unwrap()
    );
}

/// Under `Matmul::Tf32`, an ensemble member rounds the `f32` operands of a
/// product that is not `HIGHEST` to TensorFloat-32 (as XLA on an NVIDIA GPU
/// computes it); a `HIGHEST` product, and the program outside a member,
/// keep exact operands.
#[test]
fn tf32_members_round_the_operands_of_products_that_are_not_highest() {
    use crate::rounding::{with_matmul, with_member, Matmul};
    use crate::{HostTensor, Interpreter};
    use zkdv_ir::{find_function, IrContext};
    let source = r#""func.func"() <{function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>), sym_name = "main"}> ({
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
    %1 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
    %2 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
    "func.return"(%0, %1, %2) : (tensor<f32>, tensor<f32>, tensor<f32>) -> ()
  }) : () -> ()
"#;
    let context = IrContext::new();
    let module = context.parse(source, "tf32.mlir").unwrap();
    let main = find_function(&module, "main").unwrap();
    // 1 + 2^-20 has bits below TensorFloat-32's ten: up, it becomes 1 + 2^-10.
    let a = HostTensor::from_f32(vec![2], &[1.0 + 2f32.powi(-20), 0.0]).unwrap();
    let b = HostTensor::from_f32(vec![2], &[1.0, 1.0]).unwrap();
    let run = || Interpreter.run(main, &[a.clone(), b.clone()]).unwrap();
    let exact = HostTensor::from_f32(vec![], &[1.0 + 2f32.powi(-20)]).unwrap();
    let up = 1.0 + 2f32.powi(-10);
    // A member also moves inputs and results by an ulp: compare within 4.
    let near = |t: &HostTensor, v: f32| {
        let x = f32::from_le_bytes(t.bytes[..4].try_into().unwrap());
        (x - v).abs() <= 4.0 * f32::EPSILON
    };
    // Member 1 (up) under exact f32 products: the operands keep their bits
    // below TensorFloat-32's.
    let f32_member = with_matmul(Matmul::F32, || with_member(1, run));
    assert!(!near(&f32_member[0], up));
    // Under TensorFloat-32: DEFAULT and no precision_config round, HIGHEST does not.
    let tf32_member = with_matmul(Matmul::Tf32, || with_member(1, run));
    assert!(near(&tf32_member[0], up));
    assert!(!near(&tf32_member[1], up));
    assert!(near(&tf32_member[2], up));
    // Outside a member the program runs as written.
    assert_eq!(
        with_matmul(Matmul::Tf32, run),
        vec![exact.clone(), exact.clone(), exact]
    );
}
