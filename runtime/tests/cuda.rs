//! The CUDA backend (feature `cuda`) against the CPU interpreter, bit for
//! bit: each covered op on random inputs (special values included), the
//! four exported training steps of `test-mlir/inputs/` run through
//! `Program::run_on(.., Backend::Cuda)`, and the conformance suite.
//!
//! Without a usable GPU (no driver, no NVRTC, no device) every test prints
//! why and returns, so `cargo test --features cuda` passes on CPU-only
//! machines; with `ZKDV_REQUIRE_CUDA=1` (set by `scripts/device-check`) a
//! missing GPU fails instead.
//!
//! NaN payloads: the kernels reproduce the host CPU's NaN rules (see
//! `zkdv_runtime::cuda`), but when *both* operands of one IEEE operation
//! are NaN the CPU's choice depends on the operand order its compiler
//! picked; those elements (and, in sums, NaN results) must only be NaN on
//! both sides, and are counted and printed.
#![cfg(feature = "cuda")]

use std::path::PathBuf;
use std::time::Instant;

mod common;

use common::{digest, fixture_input, Lcg};
use zkdv_runtime::cuda::CudaBackend;
use zkdv_runtime::ops::linalg::{dot_general, DotDimensions};
use zkdv_runtime::ops::reduction::reduce;
use zkdv_runtime::ops::{self, BinaryOp, Body, Combiner, CompareType, Direction, OpError, UnaryOp};
use zkdv_runtime::{Backend, Data, ElementType, Program, Tensor, TensorType};

/// The backend, or `None` after printing why the test is skipped.
fn backend(test: &str) -> Option<&'static CudaBackend> {
    match CudaBackend::global() {
        Ok(backend) => Some(backend),
        Err(error) => {
            assert!(
                std::env::var_os("ZKDV_REQUIRE_CUDA").is_none(),
                "{test}: ZKDV_REQUIRE_CUDA is set but {error}"
            );
            eprintln!("SKIP {test}: {error}");
            None
        }
    }
}

#[test]
fn selecting_cuda_without_a_gpu_is_a_clear_error() {
    let text = r#""builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<2xf32>):
    %0 = "stablehlo.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"#;
    let program = Program::parse(text, "p.mlir", "main").expect("parses");
    let x = Tensor::new(ElementType::F32, vec![2], Data::F32(vec![1.5, -0.0])).expect("x");
    let cpu = program.run(vec![x.clone()]).expect("cpu");
    match CudaBackend::global() {
        Ok(_) => {
            let gpu = program.run_on(vec![x], Backend::Cuda).expect("gpu");
            assert_same("add", &cpu[0], &gpu[0], |_| false);
        }
        Err(error) => {
            let err = program
                .run_on(vec![x], Backend::Cuda)
                .expect_err("no GPU here");
            assert!(
                matches!(err, zkdv_runtime::RuntimeError::Backend(_)),
                "{err}"
            );
            assert_eq!(err.to_string(), error.to_string());
            println!("without a GPU: {err}");
        }
    }
}

fn random(element: ElementType, shape: &[usize], rng: &mut Lcg, specials: bool) -> Tensor {
    let n: usize = shape.iter().product();
    let data = match element {
        ElementType::F64 => Data::F64((0..n).map(|_| rng.f64(specials)).collect()),
        _ => Data::F32((0..n).map(|_| rng.f32(specials)).collect()),
    };
    Tensor::new(element, shape.to_vec(), data).expect("random tensor")
}

/// The bits of each element (`f32` widened) and whether it is NaN.
fn bits(t: &Tensor) -> Vec<(u64, bool)> {
    match &t.data {
        Data::F32(v) => v.iter().map(|x| (x.to_bits().into(), x.is_nan())).collect(),
        Data::F64(v) => v.iter().map(|x| (x.to_bits(), x.is_nan())).collect(),
        Data::Bool(v) => v.iter().map(|&b| (u64::from(b), false)).collect(),
        Data::Signed(v) => v.iter().map(|&x| (x as u64, false)).collect(),
        Data::Unsigned(v) => v.iter().map(|&x| (x, false)).collect(),
        other => panic!("unexpected data {other:?}"),
    }
}

/// Compares bit for bit; where `loose(i)`, two NaNs also match. Returns
/// how many elements matched only loosely.
fn assert_same(what: &str, cpu: &Tensor, gpu: &Tensor, loose: impl Fn(usize) -> bool) -> usize {
    assert_eq!(
        (cpu.element, &cpu.shape),
        (gpu.element, &gpu.shape),
        "{what}"
    );
    let mut loosely = 0;
    for (i, (c, g)) in bits(cpu).into_iter().zip(bits(gpu)).enumerate() {
        if c.0 == g.0 {
            continue;
        }
        if c.1 && g.1 && loose(i) {
            loosely += 1;
            continue;
        }
        panic!(
            "{what}: element {i}: CPU bits {:#x}, GPU bits {:#x}",
            c.0, g.0
        );
    }
    loosely
}

fn nan_at(t: &Tensor, i: usize) -> bool {
    match &t.data {
        Data::F32(v) => v[i].is_nan(),
        Data::F64(v) => v[i].is_nan(),
        _ => false,
    }
}

const FLOATS: [ElementType; 2] = [ElementType::F32, ElementType::F64];

#[test]
fn elementwise_ops_match_the_cpu() {
    let Some(gpu) = backend("elementwise_ops_match_the_cpu") else {
        return;
    };
    let mut rng = Lcg(1);
    for element in FLOATS {
        for shape in [vec![], vec![7], vec![33, 65], vec![1000, 37]] {
            let a = random(element, &shape, &mut rng, true);
            let b = random(element, &shape, &mut rng, true);
            for op in BinaryOp::ALL {
                let what = format!("{op:?} {element:?}{shape:?}");
                let cpu = ops::binary(op, &a, &b).expect("cpu");
                let out = gpu.binary(op, &a, &b).expect("gpu").expect("covered");
                let both_nan = |i| nan_at(&a, i) && nan_at(&b, i);
                let loose = assert_same(&what, &cpu, &out, both_nan);
                if loose > 0 {
                    println!("{what}: {loose} elements with two NaN operands matched as NaN");
                }
            }
            for op in [UnaryOp::Negate, UnaryOp::Abs] {
                let what = format!("{op:?} {element:?}{shape:?}");
                let cpu = ops::unary(op, &a).expect("cpu");
                let out = gpu.unary(op, &a).expect("gpu").expect("covered");
                assert_same(&what, &cpu, &out, |_| false);
            }
        }
    }
}

#[test]
fn compare_and_select_match_the_cpu() {
    let Some(gpu) = backend("compare_and_select_match_the_cpu") else {
        return;
    };
    let mut rng = Lcg(2);
    for element in FLOATS {
        let shape = vec![41, 29];
        let a = random(element, &shape, &mut rng, true);
        // Equal elements are common in real programs: copy a third of `a`.
        let mut b = random(element, &shape, &mut rng, true);
        match (&a.data, &mut b.data) {
            (Data::F32(x), Data::F32(y)) => {
                y.iter_mut().zip(x).step_by(3).for_each(|(y, x)| *y = *x)
            }
            (Data::F64(x), Data::F64(y)) => {
                y.iter_mut().zip(x).step_by(3).for_each(|(y, x)| *y = *x)
            }
            _ => unreachable!(),
        }
        for direction in [
            Direction::Eq,
            Direction::Ne,
            Direction::Ge,
            Direction::Gt,
            Direction::Le,
            Direction::Lt,
        ] {
            for compare_type in [
                None,
                Some(CompareType::Float),
                Some(CompareType::TotalOrder),
            ] {
                let what = format!("compare {direction:?} {compare_type:?} {element:?}");
                let cpu = ops::compare(direction, compare_type, &a, &b).expect("cpu");
                let out = gpu
                    .compare(direction, compare_type, &a, &b)
                    .expect("gpu")
                    .expect("covered");
                assert_same(&what, &cpu, &out, |_| false);
                // select on that predicate, and on a scalar one.
                let sel = ops::select(&cpu, &a, &b).expect("cpu select");
                let out = gpu.select(&cpu, &a, &b).expect("gpu").expect("covered");
                assert_same(&format!("select {what}"), &sel, &out, |_| false);
            }
        }
        for value in [true, false] {
            let p = Tensor::new(ElementType::I1, vec![], Data::Bool(vec![value])).expect("pred");
            let cpu = ops::select(&p, &a, &b).expect("cpu");
            let out = gpu.select(&p, &a, &b).expect("gpu").expect("covered");
            assert_same("scalar select", &cpu, &out, |_| false);
        }
    }
    // Integers select too.
    let n = 300;
    let p = Tensor::new(
        ElementType::I1,
        vec![n],
        Data::Bool((0..n).map(|i| i % 3 == 0).collect()),
    )
    .expect("pred");
    let t = Tensor::new(
        ElementType::Signed(32),
        vec![n],
        Data::Signed((0..n as i64).map(|i| i - 150).collect()),
    )
    .expect("t");
    let f = Tensor::new(
        ElementType::Signed(32),
        vec![n],
        Data::Signed((0..n as i64).map(|i| -i * 7).collect()),
    )
    .expect("f");
    let cpu = ops::select(&p, &t, &f).expect("cpu");
    let out = gpu.select(&p, &t, &f).expect("gpu").expect("covered");
    assert_same("i32 select", &cpu, &out, |_| false);
}

fn dims(lb: &[usize], rb: &[usize], lc: &[usize], rc: &[usize]) -> DotDimensions {
    DotDimensions {
        lhs_batching: lb.to_vec(),
        rhs_batching: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
    }
}

#[test]
fn dot_general_matches_the_cpu() {
    let Some(gpu) = backend("dot_general_matches_the_cpu") else {
        return;
    };
    let mut rng = Lcg(3);
    // (lhs shape, rhs shape, dimension numbers, result shape)
    type Case = (Vec<usize>, Vec<usize>, DotDimensions, Vec<usize>);
    let cases: Vec<Case> = vec![
        (
            vec![17, 300],
            vec![300, 23],
            dims(&[], &[], &[1], &[0]),
            vec![17, 23],
        ),
        (
            vec![1, 513],
            vec![513, 700],
            dims(&[], &[], &[1], &[0]),
            vec![1, 700],
        ),
        (
            vec![64, 64],
            vec![64, 64],
            dims(&[], &[], &[0], &[1]),
            vec![64, 64],
        ),
        (
            vec![3, 5, 8, 7],
            vec![3, 7, 6, 8],
            dims(&[0], &[0], &[3, 2], &[1, 3]),
            vec![3, 5, 6],
        ),
        (
            vec![4, 9],
            vec![4, 9],
            dims(&[0], &[0], &[1], &[1]),
            vec![4],
        ),
        (vec![6], vec![5], dims(&[], &[], &[], &[]), vec![6, 5]),
        (
            vec![2, 0],
            vec![0, 3],
            dims(&[], &[], &[1], &[0]),
            vec![2, 3],
        ),
    ];
    for element in FLOATS {
        for specials in [false, true] {
            for (ls, rs, d, out_shape) in &cases {
                let a = random(element, ls, &mut rng, specials);
                let b = random(element, rs, &mut rng, specials);
                let ty = TensorType {
                    element,
                    shape: out_shape.clone(),
                };
                let what = format!("dot {element:?} {ls:?}x{rs:?} {d:?} specials={specials}");
                let cpu = dot_general(&a, &b, d, &ty).expect("cpu");
                let out = gpu
                    .dot_general(&a, &b, d, &ty)
                    .expect("gpu")
                    .expect("covered");
                let loose = assert_same(&what, &cpu, &out, |_| specials);
                if loose > 0 {
                    println!("{what}: {loose} NaN sums matched as NaN");
                }
            }
        }
    }
    // Mixed operand types convert on the host first, as on the CPU.
    let a = random(ElementType::F32, &[8, 16], &mut rng, false);
    let a = ops::convert(&a, ElementType::BF16).expect("bf16");
    let b = random(ElementType::F32, &[16, 4], &mut rng, false);
    let b = ops::convert(&b, ElementType::BF16).expect("bf16");
    let ty = TensorType {
        element: ElementType::F32,
        shape: vec![8, 4],
    };
    let d = dims(&[], &[], &[1], &[0]);
    let cpu = dot_general(&a, &b, &d, &ty).expect("cpu");
    let out = gpu
        .dot_general(&a, &b, &d, &ty)
        .expect("gpu")
        .expect("covered");
    assert_same("bf16 -> f32 dot", &cpu, &out, |_| false);
    // A bf16 result is not covered (the CPU rounds each sum once).
    let ty = TensorType {
        element: ElementType::BF16,
        shape: vec![8, 4],
    };
    assert!(gpu.dot_general(&a, &b, &d, &ty).expect("gpu").is_none());
}

/// A body that is one `stablehlo.add`.
struct AddBody;

impl Body for AddBody {
    fn apply(&self, args: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
        Ok(vec![ops::binary(BinaryOp::Add, &args[0], &args[1])?])
    }
    fn combiner(&self) -> Option<Combiner> {
        Some(Combiner::Add)
    }
}

#[test]
fn reduce_add_matches_the_cpu() {
    let Some(gpu) = backend("reduce_add_matches_the_cpu") else {
        return;
    };
    let mut rng = Lcg(4);
    let shape = [6, 50, 7, 3];
    for element in FLOATS {
        for specials in [false, true] {
            let input = random(element, &shape, &mut rng, specials);
            let init = match element {
                ElementType::F64 => Tensor::new(element, vec![], Data::F64(vec![-0.0])),
                _ => Tensor::new(element, vec![], Data::F32(vec![0.5])),
            }
            .expect("init");
            for dimensions in [
                vec![],
                vec![0],
                vec![1],
                vec![3],
                vec![1, 3],
                vec![0, 2, 3],
                vec![0, 1, 2, 3],
            ] {
                let reduced: Vec<usize> = (0..4)
                    .filter(|d| !dimensions.contains(d))
                    .map(|d| shape[d])
                    .collect();
                let ty = TensorType {
                    element,
                    shape: reduced,
                };
                let what = format!("reduce {element:?} {dimensions:?} specials={specials}");
                let cpu = reduce(&[&input], &[&init], &dimensions, &AddBody, &[ty])
                    .expect("cpu")
                    .remove(0);
                let out = gpu
                    .reduce_add(&input, &init, &dimensions)
                    .expect("gpu")
                    .expect("covered");
                let loose = assert_same(&what, &cpu, &out, |_| specials);
                if loose > 0 {
                    println!("{what}: {loose} NaN sums matched as NaN");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Whole programs

/// `$variable` when set (a prebuilt test binary run from another checkout,
/// as `scripts/device-check` does), else `relative` to this crate.
fn data_dir(variable: &str, relative: &str) -> PathBuf {
    std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative))
}

#[test]
fn fixtures_give_the_same_bits_on_the_gpu() {
    let Some(gpu) = backend("fixtures_give_the_same_bits_on_the_gpu") else {
        return;
    };
    let dir = data_dir("ZKDV_FIXTURES_DIR", "../test-mlir/inputs");
    for name in [
        "cnn_sgd",
        "mlp_adam",
        "transaction_sgd",
        "transformer_adamw",
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.mlir"))).expect("fixture");
        let program = Program::parse(&text, name, "main").expect("fixture parses");
        let mut rng = Lcg(0x5eed);
        let inputs: Vec<Tensor> = program
            .arguments()
            .iter()
            .map(|ty| fixture_input(ty, &mut rng))
            .collect();
        // One warm-up run each (module plan cache, device kernels).
        program.run(inputs.clone()).expect("cpu run");
        program
            .run_on(inputs.clone(), Backend::Cuda)
            .expect("gpu run");
        let start = Instant::now();
        let cpu = program.run(inputs.clone()).expect("cpu run");
        let cpu_time = start.elapsed();
        let launches = gpu.launches();
        let start = Instant::now();
        let out = program.run_on(inputs, Backend::Cuda).expect("gpu run");
        let gpu_time = start.elapsed();
        let launches = gpu.launches() - launches;
        let (cpu_digest, gpu_digest) = (digest(&cpu), digest(&out));
        println!(
            "fixture {name}: cpu {:.1} ms, cuda {:.1} ms ({launches} ops offloaded), digests {} {}",
            cpu_time.as_secs_f64() * 1e3,
            gpu_time.as_secs_f64() * 1e3,
            &cpu_digest[..16],
            if cpu_digest == gpu_digest {
                "equal"
            } else {
                "DIFFER"
            },
        );
        assert!(launches > 0, "{name}: nothing was offloaded");
        for (i, (c, g)) in cpu.iter().zip(&out).enumerate() {
            assert_same(&format!("{name} output {i}"), c, g, |_| false);
        }
        assert_eq!(cpu_digest, gpu_digest, "{name}");
    }
}

#[test]
fn conformance_suite_gives_the_same_outcomes_on_the_gpu() {
    let Some(_) = backend("conformance_suite_gives_the_same_outcomes_on_the_gpu") else {
        return;
    };
    let dir = data_dir(
        "ZKDV_CONFORMANCE_DIR",
        "../../shared/conformance/stablehlo-interpret",
    );
    if !dir.is_dir() {
        eprintln!("SKIP conformance: {} is missing", dir.display());
        return;
    }
    use zkdv_runtime::conformance::run_dir_on;
    let start = Instant::now();
    let cpu = run_dir_on(&dir, Backend::Cpu).expect("cpu conformance");
    let cpu_time = start.elapsed();
    let start = Instant::now();
    let gpu = run_dir_on(&dir, Backend::Cuda).expect("gpu conformance");
    let gpu_time = start.elapsed();
    println!(
        "conformance cpu: {} ({:.1} s)",
        cpu.summary(),
        cpu_time.as_secs_f64()
    );
    println!(
        "conformance cuda: {} ({:.1} s)",
        gpu.summary(),
        gpu_time.as_secs_f64()
    );
    let newly_failed: Vec<_> = gpu
        .failed
        .iter()
        .filter(|(case, _)| !cpu.failed.iter().any(|(c, _)| c == case))
        .collect();
    assert!(
        newly_failed.is_empty(),
        "cases that fail only on the GPU: {newly_failed:?}"
    );
    assert_eq!(cpu.passed, gpu.passed, "the passing cases differ");
}
