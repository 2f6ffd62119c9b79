//! Test vectors of the protocol (`protocol/tests/vectors/`), for a second
//! implementation to check itself against. Regenerate after an intended
//! format change with `ZKDV_REGENERATE_VECTORS=1 cargo test -p zkdv-protocol
//! --test vectors`, and say why in the commit.

mod common;

use std::path::PathBuf;

use common::*;
use serde_json::{json, Value};
use zkdv_protocol::*;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

fn regenerate() -> bool {
    std::env::var_os("ZKDV_REGENERATE_VECTORS").is_some()
}

/// Compare `actual` with the stored file, or write it when regenerating.
fn check_file(name: &str, actual: &[u8]) {
    let path = vectors_dir().join(name);
    if regenerate() {
        std::fs::create_dir_all(vectors_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (regenerate the vectors?)", path.display()));
    assert!(
        expected == actual,
        "{} differs from what this implementation produces",
        path.display()
    );
}

fn challenge_json(c: &Challenge) -> Value {
    json!({
        "state": c.state,
        "update": c.update,
        "parameter_index": c.parameter_index,
        "optimizer_state_index": c.optimizer_state_index,
    })
}

#[test]
fn primitive_vectors() {
    let key = Hash32([0xc4; 32]);
    let payload = b"\xa1\x61\x76\x01"; // {"v": 1}
    let mut cases = Vec::new();
    let samplings = [
        json!({"probability": {"state_check_probability": 0.5, "update_check_probability": 0.01}}),
        json!({"every": {"n": 3}}),
    ];
    for (i, sampling) in samplings.iter().enumerate() {
        let policy: Sampling = serde_json::from_value(sampling.clone()).unwrap();
        for step in 0..4u64 {
            let record_hash = Hash32::of(&[i as u8, step as u8]);
            for (parameters, optimizer_state) in [(1u64, 0u64), (1000, 3), (u64::MAX, 1 << 40)] {
                let c = derive_challenge(
                    &key,
                    &record_hash,
                    step,
                    &policy,
                    parameters,
                    optimizer_state,
                )
                .unwrap();
                cases.push(json!({
                    "key": key.to_hex(),
                    "record_hash": record_hash.to_hex(),
                    "step": step,
                    "sampling": sampling,
                    "parameters": parameters,
                    "optimizer_state": optimizer_state,
                    "challenge": challenge_json(&c),
                }));
            }
        }
    }
    let doc = json!({
        "key_commitment": {"key": key.to_hex(), "commitment": key_commitment(&key).to_hex()},
        "record_digest": {
            "payload": hex::encode(payload),
            "digest": record_digest(payload).to_hex(),
            "envelope_unsigned": hex::encode(encode_envelope(payload, None)),
        },
        "challenges": cases,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap();
    text.push('\n');
    check_file("primitives.json", text.as_bytes());
}

#[test]
fn transcript_vectors() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), 6, fixed_options(true)).unwrap();
    let bytes = std::fs::read(dir.path().join(RECORDS_FILE)).unwrap();
    let key = Hash32([0xc4; 32]);
    let mut records = Vec::new();
    let mut reader = Reader::new(bytes.as_slice());
    let mut root = None;
    for record in &mut reader {
        let record = record.unwrap();
        let mut entry = json!({
            "seq": record.seq(),
            "kind": record.kind().name(),
            "offset": record.raw.offset,
            "length": record.raw.bytes.len(),
            "hash": record.raw.hash().to_hex(),
            "digest": record.raw.digest.to_hex(),
        });
        match record.body() {
            Body::Root(r) => root = Some(r.clone()),
            Body::Step(step) => {
                let r = root.as_ref().unwrap();
                let c = derive_challenge(
                    &key,
                    &record.raw.hash(),
                    step.step,
                    &r.sampling,
                    r.parameter_count().unwrap(),
                    r.optimizer_state_count().unwrap(),
                )
                .unwrap();
                entry["challenge"] = challenge_json(&c);
            }
            _ => {}
        }
        records.push(entry);
    }
    let doc = json!({
        "file": "signed.cborl",
        "file_blake3": Hash32::of(&bytes).to_hex(),
        "challenge_key": key.to_hex(),
        "signing_public_key": hex::encode(
            root.unwrap().session_key.unwrap().0
        ),
        "records": records,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap();
    text.push('\n');
    check_file("signed.cborl", &bytes);
    check_file("signed.json", text.as_bytes());
    // The stored file is a valid transcript in its own right.
    let stored = std::fs::read(vectors_dir().join("signed.cborl")).unwrap();
    let report = verify_reader(stored.as_slice(), None).unwrap();
    assert_eq!((report.steps, report.signed), (6, true));
}
