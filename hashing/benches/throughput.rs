//! Throughput of tensor commitments (against a single `blake3::hash` call on
//! the same bytes) and cost of probe maps on a 4096 x 4096 leaf.
//!
//! Run with `cargo bench -p zkdv-hashing --bench throughput [filter]`.

use std::cell::OnceCell;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use zkdv_hashing::{commit_tensor_with, DType, Parallelism, ProbeMap};

const MIB: usize = 1 << 20;

/// Deterministic f32 values as little-endian bytes.
fn f32_bytes(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut state = 0x9e37_79b9u32;
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        out.extend_from_slice(&(state as f32 / u32::MAX as f32).to_le_bytes());
    }
    out
}

fn tensor_group(c: &mut Criterion, label: &str, len: usize, few_samples: bool) {
    let mut group = c.benchmark_group(format!("commit_tensor/{label}"));
    group.throughput(Throughput::Bytes(len as u64));
    if few_samples {
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(8));
    }
    // allocated on first use, so a filtered-out group allocates nothing
    let data: OnceCell<Vec<u8>> = OnceCell::new();
    let shape = [len as u64 / 4];

    group.bench_function("blake3_hash", |b| {
        let bytes = data.get_or_init(|| f32_bytes(len));
        b.iter(|| blake3::hash(black_box(bytes)))
    });
    for (name, mode) in [
        ("single_threaded", Parallelism::Sequential),
        ("multi_threaded", Parallelism::Parallel),
    ] {
        group.bench_function(name, |b| {
            let bytes = data.get_or_init(|| f32_bytes(len));
            b.iter(|| commit_tensor_with(DType::F32, &shape, black_box(bytes), mode))
        });
    }
    group.finish();
}

fn tensor_commitments(c: &mut Criterion) {
    tensor_group(c, "1MiB", MIB, false);
    tensor_group(c, "64MiB", 64 * MIB, true);
    tensor_group(c, "1GiB", 1024 * MIB, true);
}

fn probe_maps(c: &mut Criterion) {
    let shape = [4096u64, 4096];
    let seed = [0x42; 32];
    let ratio = 1.0 / 64.0;
    let mut group = c.benchmark_group("probe_map/4096x4096");

    group.bench_function("generate", |b| {
        b.iter(|| ProbeMap::generate(black_box(&seed), "layers.0.mlp.w", &shape, ratio))
    });

    let leaf: OnceCell<(ProbeMap, Vec<f32>)> = OnceCell::new();
    let init = || {
        let values = (0..4096 * 4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32 * 1e-6)
            .collect();
        let map = ProbeMap::generate(&seed, "layers.0.mlp.w", &shape, ratio);
        (map.expect("valid probe parameters"), values)
    };
    group.throughput(Throughput::Bytes(4096 * 4096 * 4));
    group.sample_size(20);
    group.bench_function("sketch_f32", |b| {
        let (map, x) = leaf.get_or_init(init);
        b.iter(|| map.sketch_f32(black_box(x)))
    });
    // The path of the Python binding: the leaf as little-endian bytes.
    group.bench_function("sketch_bytes_f32", |b| {
        let (map, x) = leaf.get_or_init(init);
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        b.iter(|| map.sketch_bytes(DType::F32, black_box(&bytes)))
    });
    group.finish();
}

/// A leaf that one thread sketches (below the parallel threshold): the first
/// layer of an MLP, 784 x 1024, at the default probe ratio 0.01.
fn probe_map_layer(c: &mut Criterion) {
    let map = ProbeMap::generate(&[0x42; 32], "dense/kernel", &[784, 1024], 0.01)
        .expect("valid probe parameters");
    let x: Vec<f32> = (0..784 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32 * 1e-6)
        .collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut group = c.benchmark_group("probe_map/784x1024");
    group.throughput(Throughput::Bytes(784 * 1024 * 4));
    group.bench_function("sketch_f32", |b| b.iter(|| map.sketch_f32(black_box(&x))));
    group.bench_function("sketch_bytes_f32", |b| {
        b.iter(|| map.sketch_bytes(DType::F32, black_box(&bytes)))
    });
    group.finish();
}

criterion_group!(benches, tensor_commitments, probe_maps, probe_map_layer);
criterion_main!(benches);
