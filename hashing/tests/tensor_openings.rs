//! Element openings of tensor commitments, through the public API only.

use zkdv_hashing::{
    commit_tensor, commit_tensor_with, open_element, DType, Digest, HashError, Parallelism,
    CHUNK_BYTES,
};

fn bytes_of(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(13).wrapping_add(salt) ^ (i >> 9) as u8)
        .collect()
}

fn shape_bytes(dtype: DType, shape: &[u64]) -> usize {
    shape.iter().product::<u64>() as usize * dtype.size_bytes()
}

#[test]
fn every_element_of_small_tensors_opens_and_verifies() {
    let cases: &[(DType, &[u64])] = &[
        (DType::F32, &[2, 3]),
        (DType::BF16, &[]),
        (DType::I1, &[7]),
        (DType::U64, &[3, 1, 5]),
        (DType::F16, &[4, 4]),
        (DType::I8, &[1, 1, 1, 1]),
    ];
    for &(dtype, shape) in cases {
        let bytes = bytes_of(shape_bytes(dtype, shape), 1);
        let c = commit_tensor(dtype, shape, &bytes).unwrap();
        let numel = bytes.len() / dtype.size_bytes();
        for idx in 0..numel {
            let o = open_element(dtype, shape, &bytes, idx as u64).unwrap();
            assert_eq!(o.chunk_index(), 0);
            assert_eq!(o.proof.leaf_count, 1);
            let got = o.verify(&c.digest(), dtype, shape).unwrap();
            let s = dtype.size_bytes();
            assert_eq!(
                got,
                &bytes[idx * s..(idx + 1) * s],
                "{dtype} {shape:?} {idx}"
            );
        }
        assert!(matches!(
            open_element(dtype, shape, &bytes, numel as u64),
            Err(HashError::IndexOutOfRange { .. })
        ));
    }
}

#[test]
fn every_element_of_a_multi_chunk_tensor_opens() {
    // 5 chunks of u64 elements, the last one partial
    let dtype = DType::U64;
    let numel = (4 * CHUNK_BYTES + 40) / 8;
    let shape = [numel as u64];
    let bytes = bytes_of(numel * 8, 7);
    let c = commit_tensor(dtype, &shape, &bytes).unwrap();
    assert_eq!(c.leaf_count(), 5);
    for idx in (0..numel).step_by(97).chain([numel - 1, 2047, 2048]) {
        let o = open_element(dtype, &shape, &bytes, idx as u64).unwrap();
        assert_eq!(o.chunk_index(), (idx * 8 / CHUNK_BYTES) as u64);
        let got = o.verify(&c.digest(), dtype, &shape).unwrap();
        assert_eq!(got, &bytes[idx * 8..idx * 8 + 8]);
    }
}

#[test]
fn tampered_openings_fail() {
    let dtype = DType::F32;
    let numel = (3 * CHUNK_BYTES) / 4 + 5;
    let shape = [numel as u64];
    let bytes = bytes_of(numel * 4, 3);
    let digest = commit_tensor(dtype, &shape, &bytes).unwrap().digest();
    let idx = CHUNK_BYTES as u64 / 4 + 10; // in chunk 1
    let good = open_element(dtype, &shape, &bytes, idx).unwrap();
    assert!(good.verify(&digest, dtype, &shape).is_ok());

    let mut o = good.clone();
    o.chunk[3] ^= 0x80;
    assert!(o.verify(&digest, dtype, &shape).is_err(), "chunk byte");

    let mut o = good.clone();
    o.chunk.pop();
    assert!(o.verify(&digest, dtype, &shape).is_err(), "chunk length");

    for s in 0..good.proof.siblings.len() {
        let mut o = good.clone();
        o.proof.siblings[s] = Digest::from_bytes([0x5a; 32]);
        assert!(o.verify(&digest, dtype, &shape).is_err(), "sibling {s}");
    }

    let mut o = good.clone();
    o.proof.siblings.reverse();
    assert!(o.verify(&digest, dtype, &shape).is_err(), "sibling order");

    let mut o = good.clone();
    o.element_index = 0; // lies in chunk 0, but the opening carries chunk 1
    assert!(o.verify(&digest, dtype, &shape).is_err(), "element index");

    let mut o = good.clone();
    o.proof.leaf_index = 0;
    assert!(o.verify(&digest, dtype, &shape).is_err(), "chunk index");

    let mut o = good.clone();
    o.proof.leaf_count += 1;
    assert!(o.verify(&digest, dtype, &shape).is_err(), "leaf count");

    let mut o = good.clone();
    o.element_index = numel as u64;
    assert!(matches!(
        o.verify(&digest, dtype, &shape),
        Err(HashError::IndexOutOfRange { .. })
    ));

    // the right opening against the wrong metadata or digest
    assert!(good.verify(&digest, DType::U32, &shape).is_err());
    assert!(good.verify(&digest, dtype, &[1, numel as u64]).is_err());
    let other = commit_tensor(dtype, &shape, &bytes_of(numel * 4, 4))
        .unwrap()
        .digest();
    assert!(good.verify(&other, dtype, &shape).is_err());
}

#[test]
fn single_and_multi_threaded_modes_agree_on_large_input() {
    // 3 MiB + a partial chunk: exercises the parallel path of `Auto`
    let numel = (3 << 20) / 4 + 321;
    let bytes = bytes_of(numel * 4, 9);
    let shape = [numel as u64];
    let seq = commit_tensor_with(DType::F32, &shape, &bytes, Parallelism::Sequential).unwrap();
    let par = commit_tensor_with(DType::F32, &shape, &bytes, Parallelism::Parallel).unwrap();
    let auto = commit_tensor(DType::F32, &shape, &bytes).unwrap();
    assert_eq!(seq, par);
    assert_eq!(seq, auto);
    assert_eq!(seq.leaf_count(), 193);
}
