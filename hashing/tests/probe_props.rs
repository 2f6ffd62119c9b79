//! Property tests of probe maps and sketches.

use proptest::prelude::*;
use zkdv_hashing::{DType, ProbeMap};

fn ratio() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(1.0),
        Just(0.5),
        Just(0.3),
        (1u32..=1000).prop_map(|n| f64::from(n) / 1000.0),
        1e-6f64..=1.0,
    ]
}

fn shape() -> impl Strategy<Value = Vec<u64>> {
    (proptest::collection::vec(1u64..4, 0..3), 1u64..160).prop_map(|(mut lead, d)| {
        lead.push(d);
        lead
    })
}

/// `x @ P` from the dense matrix, plus the sum of |terms| for a relative bound.
fn dense_product(map: &ProbeMap, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (d, k) = (map.d(), map.k());
    let p = map.to_dense();
    let rows = x.len() / d;
    let mut y = vec![0.0; rows * k];
    let mut mag = vec![0.0; rows * k];
    for r in 0..rows {
        for c in 0..k {
            for i in 0..d {
                let t = x[r * d + i] * p[i * k + c];
                y[r * k + c] += t;
                mag[r * k + c] += t.abs();
            }
        }
    }
    (y, mag)
}

fn values(n: usize, salt: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let v = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) >> 40;
            v as f64 / 1024.0 - 8192.0
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn columns_are_orthonormal(seed in any::<[u8; 32]>(), shape in shape(), ratio in ratio()) {
        let map = ProbeMap::generate(&seed, "w", &shape, ratio).unwrap();
        let (d, k) = (map.d(), map.k());
        prop_assert_eq!(d as u64, *shape.last().unwrap());
        prop_assert!(k >= 1 && k <= d);
        prop_assert_eq!(k as u64, ProbeMap::columns_for(d as u64, ratio).unwrap());
        let p = map.to_dense();
        for a in 0..k {
            for b in 0..k {
                let dot: f64 = (0..d).map(|i| p[i * k + a] * p[i * k + b]).sum();
                let want = if a == b { 1.0 } else { 0.0 };
                prop_assert!((dot - want).abs() < 1e-6, "({a},{b}) = {dot}");
            }
        }
    }

    #[test]
    fn generation_is_deterministic_and_input_sensitive(
        seed in any::<[u8; 32]>(),
        d in 32u64..200,
        ratio in ratio(),
        flip in 0usize..256,
    ) {
        let shape = [2, d];
        let a = ProbeMap::generate(&seed, "layer.w", &shape, ratio).unwrap();
        let b = ProbeMap::generate(&seed, "layer.w", &shape, ratio).unwrap();
        prop_assert_eq!(&a, &b);

        let other_path = ProbeMap::generate(&seed, "layer.b", &shape, ratio).unwrap();
        prop_assert!(a.column() != other_path.column() || a.sign() != other_path.sign());

        let mut seed2 = seed;
        seed2[flip % 32] ^= 1 << (flip / 32);
        let other_seed = ProbeMap::generate(&seed2, "layer.w", &shape, ratio).unwrap();
        prop_assert!(a.column() != other_seed.column() || a.sign() != other_seed.sign());

        // the shape is an input too, beyond the last dimension
        let other_shape = ProbeMap::generate(&seed, "layer.w", &[3, d], ratio).unwrap();
        prop_assert!(a.column() != other_shape.column() || a.sign() != other_shape.sign());
    }

    #[test]
    fn sketch_matches_dense_product(
        seed in any::<[u8; 32]>(),
        shape in shape(),
        ratio in ratio(),
        salt in any::<u64>(),
    ) {
        let map = ProbeMap::generate(&seed, "x", &shape, ratio).unwrap();
        let n = shape.iter().product::<u64>() as usize;
        let x = values(n, salt);
        let y = map.sketch_f64(&x).unwrap();
        prop_assert_eq!(y.len() as u64, map.rows() * map.k() as u64);
        let (reference, mag) = dense_product(&map, &x);
        for (i, (a, b)) in y.iter().zip(&reference).enumerate() {
            prop_assert!((a - b).abs() <= 1e-9 * mag[i] + 1e-300, "{i}: {a} vs {b}");
        }

        // every entry point agrees on values representable in each type
        let xf32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let widened: Vec<f64> = xf32.iter().map(|&v| f64::from(v)).collect();
        let y32 = map.sketch_f32(&xf32).unwrap();
        prop_assert_eq!(&y32, &map.sketch_f64(&widened).unwrap());
        let le: Vec<u8> = xf32.iter().flat_map(|v| v.to_le_bytes()).collect();
        prop_assert_eq!(&y32, &map.sketch_bytes(DType::F32, &le).unwrap());

        let xh: Vec<half::f16> = x.iter().map(|&v| half::f16::from_f64(v / 16.0)).collect();
        let le: Vec<u8> = xh.iter().flat_map(|v| v.to_le_bytes()).collect();
        prop_assert_eq!(map.sketch_f16(&xh).unwrap(), map.sketch_bytes(DType::F16, &le).unwrap());

        let xb: Vec<half::bf16> = x.iter().map(|&v| half::bf16::from_f64(v)).collect();
        let le: Vec<u8> = xb.iter().flat_map(|v| v.to_le_bytes()).collect();
        let yb = map.sketch_bf16(&xb).unwrap();
        prop_assert_eq!(&yb, &map.sketch_bytes(DType::BF16, &le).unwrap());
        let widened: Vec<f64> = xb.iter().map(|v| v.to_f64()).collect();
        prop_assert_eq!(&yb, &map.sketch_f64(&widened).unwrap());
    }

    #[test]
    fn one_coordinate_moves_one_column(
        seed in any::<[u8; 32]>(),
        shape in shape(),
        ratio in ratio(),
        pick in any::<u64>(),
        eps in prop_oneof![Just(1.0), Just(-0.5), Just(1e-3)],
    ) {
        let map = ProbeMap::generate(&seed, "s", &shape, ratio).unwrap();
        let (d, k) = (map.d(), map.k());
        let n = shape.iter().product::<u64>() as usize;
        let x = values(n, pick);
        let at = (pick % n as u64) as usize;
        let (r, i) = (at / d, at % d);
        let mut x2 = x.clone();
        x2[at] += eps;
        let delta = x2[at] - x[at]; // the change actually applied in f64
        let y = map.sketch_f64(&x).unwrap();
        let y2 = map.sketch_f64(&x2).unwrap();
        let c = map.column()[i] as usize;
        let expected = delta * f64::from(map.sign()[i]) * map.scale()[c];
        for (j, (a, b)) in y.iter().zip(&y2).enumerate() {
            if j == r * k + c {
                let tol = 1e-9 * (a.abs() + b.abs() + 1.0);
                prop_assert!(((b - a) - expected).abs() <= tol, "{} vs {}", b - a, expected);
            } else {
                prop_assert_eq!(a.to_bits(), b.to_bits());
            }
        }
        // scale ~ sqrt(k / d): exactly 1/sqrt(floor or ceil of d/k)
        let s2 = 1.0 / (map.scale()[c] * map.scale()[c]);
        let support = s2.round() as usize;
        prop_assert!(support == d / k || support == d.div_ceil(k));
    }
}

#[test]
fn integer_dtypes_sketch_their_values() {
    let map = ProbeMap::generate(&[1; 32], "ints", &[3, 5], 0.6).unwrap();
    let vals: Vec<i64> = vec![-7, 0, 3, 120, -128, 5, 6, 7, 8, 9, -1, -2, -3, 100, 1];
    let as_f64: Vec<f64> = vals.iter().map(|&v| v as f64).collect();
    let want = map.sketch_f64(&as_f64).unwrap();
    let i8s: Vec<u8> = vals.iter().map(|&v| v as i8 as u8).collect();
    assert_eq!(map.sketch_bytes(DType::I8, &i8s).unwrap(), want);
    let i32s: Vec<u8> = vals
        .iter()
        .flat_map(|&v| (v as i32).to_le_bytes())
        .collect();
    assert_eq!(map.sketch_bytes(DType::I32, &i32s).unwrap(), want);
    let i64s: Vec<u8> = vals.iter().flat_map(|&v| v.to_le_bytes()).collect();
    assert_eq!(map.sketch_bytes(DType::I64, &i64s).unwrap(), want);

    let bools: Vec<u8> = vals.iter().map(|&v| u8::from(v > 0) * 3).collect();
    let as_bool: Vec<f64> = vals.iter().map(|&v| f64::from(u8::from(v > 0))).collect();
    assert_eq!(
        map.sketch_bytes(DType::I1, &bools).unwrap(),
        map.sketch_f64(&as_bool).unwrap()
    );
    assert!(map.sketch_bytes(DType::I32, &i8s).is_err());
}
