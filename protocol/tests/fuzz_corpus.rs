//! The fuzz target's body on its checked-in corpus and on deterministic
//! random mutations of it, so CI exercises the reader on hostile input
//! without cargo-fuzz (which `fuzz/` runs for real; see docs/development.md).

use std::path::PathBuf;

fn target(data: &[u8]) {
    for record in zkdv_protocol::Reader::new(data) {
        if record.is_err() {
            break;
        }
    }
    let _ = zkdv_protocol::verify_reader(data, None);
}

fn corpus() -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/transcript_reader");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// xorshift64*: a tiny deterministic generator for mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn corpus_and_mutations_never_panic() {
    let corpus = corpus();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for seed in &corpus {
        target(seed);
    }
    for _ in 0..3000 {
        let mut data = corpus[rng.below(corpus.len())].clone();
        for _ in 0..=rng.below(4) {
            let at = rng.below(data.len());
            match rng.below(5) {
                0 if !data.is_empty() => data[at] ^= 1 << rng.below(8),
                1 if !data.is_empty() => data[at] = rng.next() as u8,
                2 => data.truncate(at),
                3 => {
                    let b = rng.next() as u8;
                    data.insert(at.min(data.len()), b)
                }
                _ if data.len() > 8 => {
                    // Overwrite a length-sized run with large values.
                    let end = (at + 8).min(data.len());
                    data[at..end].fill(0xff);
                }
                _ => {}
            }
        }
        target(&data);
    }
}
