//! A measurement, not a check: the runtime's own `libm.rs` against the `libm`
//! crate (musl's libm ported to Rust), for `docs/runtime.md`, "Why the runtime
//! has its own libm". Ignored by default; run it with
//!
//! ```text
//! cargo test -p zkdv-runtime --test libm_against_crate -- --ignored --nocapture
//! ```
//!
//! For each function both provide, over the random points of `libm.rs`'s own
//! tests (same generator, same seeds, same ranges; `erf` and `erfc`, which
//! those tests check only at stored mpmath values, get points of their own),
//! it prints: the largest distance in ulps of ZKDV's and of the crate's
//! result from the host's glibc (called directly, so Rust std's own
//! `asinh`/`acosh`/`atanh` formulas are not the oracle), the share of inputs
//! where each equals glibc's bits, the share where ZKDV and the crate agree
//! bit for bit, how often the two differ once rounded to `f32` (the runtime
//! computes `f32` ops in `f64` and rounds once; the inputs are the same
//! points rounded to `f32`, where the result is finite and nonzero), and
//! nanoseconds per call of each (a plain timing loop in whatever profile the
//! test was built with: a debug build's figures are of unoptimized code).
//!
//! glibc is itself within 1-2 ulp, so a distance of 1 may be an error of
//! 0.5 ulp. With `ZKDV_LIBM_DUMP=FILE` set, the test also writes the first
//! 2,000 points of each function and the 25 farthest from glibc of each
//! implementation, with all three results, to `FILE`;
//! `runtime/tests/libm_mpmath.py FILE` then measures the three against
//! mpmath at 200 bits, in fractional ulps.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use zkdv_runtime::libm as zkdv;

/// glibc's functions, which std links on Linux.
mod glibc {
    extern "C" {
        pub fn exp(x: f64) -> f64;
        pub fn expm1(x: f64) -> f64;
        pub fn log(x: f64) -> f64;
        pub fn log1p(x: f64) -> f64;
        pub fn pow(x: f64, y: f64) -> f64;
        pub fn tanh(x: f64) -> f64;
        pub fn sin(x: f64) -> f64;
        pub fn cos(x: f64) -> f64;
        pub fn tan(x: f64) -> f64;
        pub fn atan(x: f64) -> f64;
        pub fn atan2(y: f64, x: f64) -> f64;
        pub fn erf(x: f64) -> f64;
        pub fn erfc(x: f64) -> f64;
        pub fn sinh(x: f64) -> f64;
        pub fn cosh(x: f64) -> f64;
        pub fn asin(x: f64) -> f64;
        pub fn acos(x: f64) -> f64;
        pub fn asinh(x: f64) -> f64;
        pub fn acosh(x: f64) -> f64;
        pub fn atanh(x: f64) -> f64;
        pub fn cbrt(x: f64) -> f64;
    }
}

/// Distance in ulps, as in `libm.rs`'s tests.
fn ulps(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            -(bits & i64::MAX) as i128
        } else {
            bits as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

/// `libm.rs`'s test generator (splitmix64), copied.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let e = self.uniform(lo, hi);
        let m = self.uniform(1.0, 2.0) * 2f64.powi(e.floor() as i32);
        if self.next() & 1 == 0 {
            m
        } else {
            -m
        }
    }
    fn many(&mut self, n: usize, mut f: impl FnMut(&mut Self) -> f64) -> Vec<f64> {
        (0..n).map(|_| f(self)).collect()
    }
}

const N: usize = 200_000;

type Points = Vec<(f64, f64)>;
type F2 = fn(f64, f64) -> f64;

fn unary(xs: &[&[f64]]) -> Points {
    xs.iter()
        .flat_map(|v| v.iter().map(|&x| (x, 0.0)))
        .collect()
}

/// The points of `libm.rs`'s tests, by the test that draws them.
struct Sets {
    exp: Points,
    expm1: Points,
    ln: Points,
    ln_1p: Points,
    pow: Points,
    tanh: Points,
    trig: Points,
    atan: Points,
    atan2: Points,
    cbrt: Points,
    wide: Points,
    unit: Points,
    asin: Points,
    above: Points,
    erf: Points,
    erfc: Points,
}

fn sets() -> Sets {
    // exp_family_accuracy
    let mut rng = Rng(1);
    let xs = rng.many(N, |r| r.uniform(-745.0, 709.7));
    let small = rng.many(N, |r| r.log_uniform(-60.0, 3.0));
    let (exp, expm1) = (unary(&[&xs, &small]), unary(&[&small, &xs]));
    // log_family_accuracy
    let mut rng = Rng(2);
    let xs = rng.many(N, |r| r.log_uniform(-1074.0, 1023.0).abs());
    let near = rng.many(N, |r| r.uniform(0.5, 2.0));
    let p = rng.many(N, |r| {
        let v = r.log_uniform(-60.0, 60.0);
        if v < -1.0 {
            -v
        } else {
            v
        }
    });
    let q = rng.many(N, |r| r.uniform(-1.0, 1.0));
    let (ln, ln_1p) = (unary(&[&xs, &near]), unary(&[&p, &q]));
    // pow_accuracy_and_special_cases
    let mut rng = Rng(3);
    let mut pow = Vec::with_capacity(2 * N);
    for _ in 0..N {
        let x = rng.log_uniform(-30.0, 30.0).abs();
        let y = rng.uniform(-700.0, 700.0) / x.ln().abs().max(1.0);
        pow.push((x, y));
    }
    for _ in 0..N {
        let x = rng.uniform(0.0, 10.0);
        pow.push((x, rng.uniform(-40.0, 40.0)));
    }
    // hyperbolic_and_logistic_accuracy
    let tanh = unary(&[&Rng(4).many(N, |r| r.log_uniform(-40.0, 5.0))]);
    // trig_accuracy
    let mut rng = Rng(5);
    let mut trig = Vec::new();
    for (lo, hi) in [(-10.0, 10.0), (-1e6, 1e6), (-1e22, 1e22), (-1e308, 1e308)] {
        trig.extend(
            rng.many(N / 2, |r| r.uniform(lo, hi))
                .into_iter()
                .map(|x| (x, 0.0)),
        );
    }
    trig.extend(unary(&[&rng.many(N, |r| r.log_uniform(-40.0, 1023.0))]));
    // atan_accuracy
    let mut rng = Rng(6);
    let atan = unary(&[&rng.many(N, |r| r.log_uniform(-40.0, 80.0))]);
    let atan2 = (0..N)
        .map(|_| {
            let y = rng.log_uniform(-20.0, 20.0);
            (y, rng.log_uniform(-20.0, 20.0))
        })
        .collect();
    // cbrt_and_rounding
    let cbrt = unary(&[&Rng(7).many(N, |r| r.log_uniform(-1074.0, 1023.0))]);
    // hyperbolic_and_inverse_accuracy
    let mut rng = Rng(8);
    let wide = rng.many(N, |r| r.log_uniform(-40.0, 9.4));
    let unit = rng.many(N, |r| r.uniform(-1.0, 1.0));
    let above = rng.many(N, |r| 1.0 + r.log_uniform(-40.0, 40.0).abs());
    let small = rng.many(N, |r| r.log_uniform(-40.0, -1.0));
    // erf and erfc: points of their own (the tests use stored mpmath values).
    let mut rng = Rng(10);
    let erf = unary(&[&rng.many(N, |r| r.log_uniform(-40.0, 2.6))]);
    let erfc = unary(&[&rng.many(N, |r| r.uniform(-6.0, 27.0))]);
    Sets {
        exp,
        expm1,
        ln,
        ln_1p,
        pow,
        tanh,
        trig,
        atan,
        atan2,
        cbrt,
        asin: unary(&[&unit, &small]),
        wide: unary(&[&wide]),
        unit: unary(&[&unit]),
        above: unary(&[&above]),
        erf,
        erfc,
    }
}

/// ns per call of `f` over `points`.
fn time(f: F2, points: &[(f64, f64)]) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        let mut acc = 0u64;
        for &(x, y) in points {
            acc ^= f(black_box(x), black_box(y)).to_bits();
        }
        black_box(acc);
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / points.len() as f64);
    }
    best
}

#[test]
#[ignore = "a measurement for docs/runtime.md; run with --ignored --nocapture"]
fn libm_against_crate() {
    let s = sets();
    let cases: [(&str, F2, F2, F2, &Points); 21] = [
        (
            "exp",
            |x, _| zkdv::exp(x),
            |x, _| libm::exp(x),
            |x, _| unsafe { glibc::exp(x) },
            &s.exp,
        ),
        (
            "expm1",
            |x, _| zkdv::exp_m1(x),
            |x, _| libm::expm1(x),
            |x, _| unsafe { glibc::expm1(x) },
            &s.expm1,
        ),
        (
            "ln",
            |x, _| zkdv::ln(x),
            |x, _| libm::log(x),
            |x, _| unsafe { glibc::log(x) },
            &s.ln,
        ),
        (
            "ln_1p",
            |x, _| zkdv::ln_1p(x),
            |x, _| libm::log1p(x),
            |x, _| unsafe { glibc::log1p(x) },
            &s.ln_1p,
        ),
        (
            "pow",
            zkdv::pow,
            libm::pow,
            |x, y| unsafe { glibc::pow(x, y) },
            &s.pow,
        ),
        (
            "tanh",
            |x, _| zkdv::tanh(x),
            |x, _| libm::tanh(x),
            |x, _| unsafe { glibc::tanh(x) },
            &s.tanh,
        ),
        (
            "sin",
            |x, _| zkdv::sin(x),
            |x, _| libm::sin(x),
            |x, _| unsafe { glibc::sin(x) },
            &s.trig,
        ),
        (
            "cos",
            |x, _| zkdv::cos(x),
            |x, _| libm::cos(x),
            |x, _| unsafe { glibc::cos(x) },
            &s.trig,
        ),
        (
            "tan",
            |x, _| zkdv::tan(x),
            |x, _| libm::tan(x),
            |x, _| unsafe { glibc::tan(x) },
            &s.trig,
        ),
        (
            "atan",
            |x, _| zkdv::atan(x),
            |x, _| libm::atan(x),
            |x, _| unsafe { glibc::atan(x) },
            &s.atan,
        ),
        (
            "atan2",
            zkdv::atan2,
            libm::atan2,
            |y, x| unsafe { glibc::atan2(y, x) },
            &s.atan2,
        ),
        (
            "erf",
            |x, _| zkdv::erf(x),
            |x, _| libm::erf(x),
            |x, _| unsafe { glibc::erf(x) },
            &s.erf,
        ),
        (
            "erfc",
            |x, _| zkdv::erfc(x),
            |x, _| libm::erfc(x),
            |x, _| unsafe { glibc::erfc(x) },
            &s.erfc,
        ),
        (
            "sinh",
            |x, _| zkdv::sinh(x),
            |x, _| libm::sinh(x),
            |x, _| unsafe { glibc::sinh(x) },
            &s.wide,
        ),
        (
            "cosh",
            |x, _| zkdv::cosh(x),
            |x, _| libm::cosh(x),
            |x, _| unsafe { glibc::cosh(x) },
            &s.wide,
        ),
        (
            "asin",
            |x, _| zkdv::asin(x),
            |x, _| libm::asin(x),
            |x, _| unsafe { glibc::asin(x) },
            &s.asin,
        ),
        (
            "acos",
            |x, _| zkdv::acos(x),
            |x, _| libm::acos(x),
            |x, _| unsafe { glibc::acos(x) },
            &s.asin,
        ),
        (
            "asinh",
            |x, _| zkdv::asinh(x),
            |x, _| libm::asinh(x),
            |x, _| unsafe { glibc::asinh(x) },
            &s.wide,
        ),
        (
            "acosh",
            |x, _| zkdv::acosh(x),
            |x, _| libm::acosh(x),
            |x, _| unsafe { glibc::acosh(x) },
            &s.above,
        ),
        (
            "atanh",
            |x, _| zkdv::atanh(x),
            |x, _| libm::atanh(x),
            |x, _| unsafe { glibc::atanh(x) },
            &s.unit,
        ),
        (
            "cbrt",
            |x, _| zkdv::cbrt(x),
            |x, _| libm::cbrt(x),
            |x, _| unsafe { glibc::cbrt(x) },
            &s.cbrt,
        ),
    ];
    let mut dump = String::new();
    println!(
        "| function | points | ZKDV max ulp vs glibc | crate max ulp vs glibc | ZKDV = glibc | crate = glibc | ZKDV = crate (bits) | f32 results differing | ns/call ZKDV | ns/call crate | crate/ZKDV time |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, z, c, g, points) in cases {
        let n = points.len();
        let (mut zmax, mut cmax, mut zeq, mut ceq, mut same) = (0, 0, 0usize, 0usize, 0usize);
        let mut rows = Vec::with_capacity(n);
        for &(x, y) in points.iter() {
            let (zv, cv, gv) = (z(x, y), c(x, y), g(x, y));
            let (dz, dc) = (ulps(zv, gv), ulps(cv, gv));
            zmax = zmax.max(dz);
            cmax = cmax.max(dc);
            zeq += usize::from(dz == 0);
            ceq += usize::from(dc == 0);
            same += usize::from(zv.to_bits() == cv.to_bits() || zv.is_nan() && cv.is_nan());
            rows.push((x, y, zv, cv, gv, dz, dc));
        }
        // f32 callers: the same points rounded to f32, computed in f64, rounded once.
        let (mut f32_n, mut f32_diff) = (0usize, 0usize);
        for &(x, y) in points.iter() {
            let (x, y) = (f64::from(x as f32), f64::from(y as f32));
            if !x.is_finite() || !y.is_finite() {
                continue;
            }
            let (a, b) = (z(x, y) as f32, c(x, y) as f32);
            // Count only inputs with a finite nonzero f32 result (no overflow,
            // no underflow to 0, no NaN).
            let real = |v: f32| v.is_finite() && v != 0.0;
            if !real(a) && !real(b) {
                continue;
            }
            f32_n += 1;
            f32_diff += usize::from(a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()));
        }
        let (tz, tc) = (time(z, points), time(c, points));
        let pct = |k: usize, n: usize| 100.0 * k as f64 / n as f64;
        println!(
            "| {name} | {n} | {zmax} | {cmax} | {:.2}% | {:.2}% | {:.2}% | {f32_diff} of {f32_n} ({:.4}%) | {tz:.1} | {tc:.1} | {:.2} |",
            pct(zeq, n),
            pct(ceq, n),
            pct(same, n),
            pct(f32_diff, f32_n),
            tc / tz
        );
        // The dump for the mpmath pass.
        let mut picked: Vec<usize> = (0..n.min(2000)).collect();
        for key in [5, 6] {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(if key == 5 { rows[i].5 } else { rows[i].6 }));
            picked.extend(order.into_iter().take(25));
        }
        picked.sort_unstable();
        picked.dedup();
        for i in picked {
            let (x, y, zv, cv, gv, _, _) = rows[i];
            let _ = writeln!(
                dump,
                "{name} {:016x} {:016x} {:016x} {:016x} {:016x}",
                x.to_bits(),
                y.to_bits(),
                zv.to_bits(),
                cv.to_bits(),
                gv.to_bits()
            );
        }
    }
    if let Some(path) = std::env::var_os("ZKDV_LIBM_DUMP") {
        std::fs::write(&path, dump).expect("writing the dump");
        println!("wrote {}", path.to_string_lossy());
    }
}
