//! Fixed test vectors, stored in `tests/vectors/vectors.txt`.
//!
//! Each line of the file is `name = value`: digests and keys as lowercase
//! hex, integer lists as comma-separated decimals, f64 values as the hex of
//! their IEEE bits. A second implementation can check itself against it.
//!
//! Running the test with `ZKDV_REGENERATE_VECTORS=1` rewrites the file from
//! this implementation instead of comparing.

use std::fmt::Write as _;
use std::path::PathBuf;

use zkdv_hashing::{
    commit_batch, commit_tensor, commit_tree, open_element, row_leaf, window_hashes, DType,
    ProbeMap,
};

const CONTEXTS: [&str; 7] = [
    "zkdv tensor leaf v1",
    "zkdv merkle node v1",
    "zkdv tensor v1",
    "zkdv tree v1",
    "zkdv batch row v2",
    "zkdv batch v1",
    "zkdv probe map v2",
];

fn join<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn compute() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |name: &str, value: String| out.push((name.to_owned(), value));

    for ctx in CONTEXTS {
        let key = blake3::derive_key(ctx, b"");
        let hex = key.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        put(&format!("key.{}", ctx.replace(' ', "_")), hex);
    }

    // f32 [2, 3] holding 0, 1, ..., 5
    let arange: Vec<u8> = (0..6).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let t = commit_tensor(DType::F32, &[2, 3], &arange).unwrap();
    put("tensor.f32_2x3_arange.root", t.root().to_hex());
    put("tensor.f32_2x3_arange.digest", t.digest().to_hex());

    let empty = commit_tensor(DType::F32, &[0], &[]).unwrap();
    put("tensor.f32_empty_0.root", empty.root().to_hex());
    put("tensor.f32_empty_0.digest", empty.digest().to_hex());

    // bf16 scalar 1.5
    let scalar = half::bf16::from_f32(1.5).to_le_bytes();
    let s = commit_tensor(DType::BF16, &[], &scalar).unwrap();
    put("tensor.bf16_scalar_1.5.digest", s.digest().to_hex());

    // u8 [40000] with byte i = i mod 251: three chunks, the last one carried
    let ramp: Vec<u8> = (0..40_000u32).map(|i| (i % 251) as u8).collect();
    let r = commit_tensor(DType::U8, &[40_000], &ramp).unwrap();
    put("tensor.u8_40000_mod251.root", r.root().to_hex());
    put("tensor.u8_40000_mod251.digest", r.digest().to_hex());
    let o = open_element(DType::U8, &[40_000], &ramp, 39_999).unwrap();
    put(
        "tensor.u8_40000_mod251.open_39999.siblings",
        join(o.proof.siblings.iter().map(|d| d.to_hex())),
    );

    let tree = commit_tree(&[("fc.weight", t.digest()), ("fc.bias", s.digest())]).unwrap();
    put("tree.fc_weight_fc_bias", tree.to_hex());
    let none: [(&str, zkdv_hashing::Digest); 0] = [];
    put("tree.empty", commit_tree(&none).unwrap().to_hex());

    put(
        "rolling.row_1_2_3_4.window_2",
        join(window_hashes(&[1, 2, 3, 4], 2).unwrap()),
    );
    put(
        "rolling.row_max_0_7.window_3",
        join(window_hashes(&[u32::MAX, 0, 7], 3).unwrap()),
    );
    let words: Vec<u32> = (1..=8).collect();
    put(
        "batch.2x4_1to8.window_2.row_leaf_0",
        row_leaf(&words[..4], 2).unwrap().to_hex(),
    );
    let b = commit_batch(&words, 2, 4, 2).unwrap();
    put("batch.2x4_1to8.window_2.root", b.root.to_hex());
    put("batch.2x4_1to8.window_2.digest", b.digest.to_hex());
    let e = commit_batch(&[], 0, 3, 2).unwrap();
    put("batch.0x3.window_2.digest", e.digest.to_hex());

    // probe map of leaf "probe" with shape [10], ratio 0.3, all-zero seed
    let m = ProbeMap::generate(&[0; 32], "probe", &[10], 0.3).unwrap();
    put("probe.zero_seed.d10.r0.3.k", m.k().to_string());
    put("probe.zero_seed.d10.r0.3.column", join(m.column()));
    put("probe.zero_seed.d10.r0.3.sign", join(m.sign()));
    let x: Vec<f64> = (0..10).map(f64::from).collect();
    let y = m.sketch_f64(&x).unwrap();
    put(
        "probe.zero_seed.d10.r0.3.sketch_arange.f64_bits",
        join(y.iter().map(|v| format!("{:016x}", v.to_bits()))),
    );
    let m = ProbeMap::generate(&[0xab; 32], "layers.0.attn.q", &[3, 70], 0.05).unwrap();
    put("probe.ab_seed.3x70.r0.05.k", m.k().to_string());
    put("probe.ab_seed.3x70.r0.05.column", join(m.column()));
    put("probe.ab_seed.3x70.r0.05.sign", join(m.sign()));
    out
}

fn file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/vectors.txt")
}

fn render(vectors: &[(String, String)]) -> String {
    let mut s = String::from(
        "# zkdv-hashing test vectors (see tests/vectors.rs and the crate docs).\n\
         # Regenerate with ZKDV_REGENERATE_VECTORS=1 cargo test -p zkdv-hashing --test vectors\n",
    );
    for (k, v) in vectors {
        let _ = writeln!(s, "{k} = {v}");
    }
    s
}

fn parse(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once(" = ").expect("vector line is `name = value`");
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

#[test]
fn vectors_match() {
    let computed = compute();
    let path = file();
    if std::env::var("ZKDV_REGENERATE_VECTORS").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, render(&computed)).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    let stored = parse(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; generate with ZKDV_REGENERATE_VECTORS=1",
            path.display()
        )
    }));
    let names = |v: &[(String, String)]| v.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(names(&stored), names(&computed), "vector names differ");
    for ((name, want), (_, got)) in stored.iter().zip(&computed) {
        assert_eq!(got, want, "vector {name}");
    }
}
