//! Replay time of the exported training steps of `test-mlir/inputs/` in the
//! CPU interpreter: the full step and its attested function, each parsed
//! once (`Program`) and run on deterministic inputs. `scripts/bench runtime`
//! compares the same programs with XLA; this one isolates the interpreter
//! (no Python) for profiling: `cargo bench -p zkdv-runtime --bench replay`.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use zkdv_passes::driver::{parse_steps, run_steps};
use zkdv_runtime::{Data, ElementType, Program, Tensor, TensorType};

fn input(ty: &TensorType, seed: &mut u64) -> Tensor {
    let n: usize = ty.shape.iter().product();
    let mut next = || {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    };
    let data = match ty.element {
        ElementType::F64 => Data::F64((0..n).map(|_| next() as f64 / 2e9 - 1.0).collect()),
        ElementType::Signed(_) => Data::Signed((0..n).map(|_| (next() % 3) as i64).collect()),
        ElementType::Unsigned(_) => Data::Unsigned((0..n).map(|_| next() % 3).collect()),
        ElementType::I1 => Data::Bool((0..n).map(|_| next() % 2 == 1).collect()),
        _ => Data::F32((0..n).map(|_| next() as f32 / 2e9 - 1.0).collect()),
    };
    Tensor::new(ty.element, ty.shape.clone(), data).expect("bench input")
}

fn replay(c: &mut Criterion) {
    let inputs_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test-mlir/inputs");
    let steps = parse_steps(&["zkdv-attested-pipeline"]).expect("the pipeline");
    for name in ["mlp_adam", "transformer_adamw"] {
        let text =
            std::fs::read_to_string(inputs_dir.join(format!("{name}.mlir"))).expect("fixture text");
        let attested_text =
            run_steps(&text, name, &steps, false, &mut |_| {}).expect("attested function");
        let full = Program::parse(&text, name, "main").expect("fixture parses");
        let attested = Program::parse(&attested_text, name, "main").expect("attested parses");
        let mut seed = 7;
        let inputs: Vec<Tensor> = full
            .arguments()
            .iter()
            .map(|ty| input(ty, &mut seed))
            .collect();
        let mut attested_inputs = inputs.clone();
        for _ in 0..2 {
            attested_inputs.push(
                Tensor::new(ElementType::Unsigned(64), vec![], Data::Unsigned(vec![0]))
                    .expect("index"),
            );
        }
        c.bench_function(&format!("{name}/full"), |b| {
            b.iter(|| full.run(inputs.clone()).expect("full step runs"))
        });
        c.bench_function(&format!("{name}/attested"), |b| {
            b.iter(|| {
                attested
                    .run(attested_inputs.clone())
                    .expect("attested runs")
            })
        });
    }
}

criterion_group!(benches, replay);
criterion_main!(benches);
