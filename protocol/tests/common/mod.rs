//! A small, complete transcript used by the integration tests and vectors.

#![allow(dead_code)]

use std::path::Path;

use zkdv_protocol::*;

pub fn leaf(path: &str, dtype: &str, shape: &[u64]) -> Leaf {
    Leaf {
        path: path.into(),
        dtype: dtype.into(),
        shape: shape.to_vec(),
    }
}

pub fn root_input() -> RootInput {
    RootInput {
        prover: "whitebox-jax".into(),
        config_name: "fixture".into(),
        versions: [("zkdv".to_string(), "0.1.0".to_string())].into(),
        sampling: Sampling::Every { n: 2 },
        tolerance: Tolerance::fixed(1e-6, 1e-5),
        tolerance_policy: TolerancePolicy::Fixed,
        rolling_window: 2,
        probe_ratio: 0.25,
        snapshot_interval: 4,
        params: vec![
            leaf("params/w", "f32", &[3, 4]),
            leaf("params/b", "f32", &[4]),
        ],
        opt_state: vec![
            leaf("opt_state/count", "i32", &[]),
            leaf("opt_state/mu/w", "f32", &[3, 4]),
        ],
        batch: vec![leaf("batch", "u32", &[2, 5])],
        probe_seed: Some(Hash32([0x5e; 32])),
        rank: None,
    }
}

/// Options that make the transcript byte-for-byte reproducible.
pub fn fixed_options(sign: bool) -> WriterOptions {
    WriterOptions {
        challenge_key: Some(Hash32([0xc4; 32])),
        sign,
        signing_key: sign.then_some([0x51; 32]),
    }
}

/// The fixture's program record (its artifacts stored), appended to
/// `writer`; returns its sequence number.
pub fn fixture_program(writer: &mut Writer) -> Result<u64> {
    let attested = writer.put_artifact(b"attested program", "mlir")?;
    let production = writer.put_artifact(b"production program", "mlir")?;
    let body = program_body(writer, "stablehlo", attested, Some(production));
    writer.append_program(body)
}

/// A program record's body for the fixture's `f32` step: `format`, the
/// attested program and the production program (`None`: left to a later
/// production record).
pub fn program_body(
    writer: &Writer,
    format: &str,
    attested: Artifact,
    production: Option<Artifact>,
) -> ProgramBody {
    ProgramBody {
        name: "train_step".into(),
        format: format.into(),
        attested,
        production,
        precision: Precision {
            narrowest: Some("f32".into()),
            narrow_results: 0,
        },
        tolerance: writer.root().tolerance,
        replay: None,
        batch: None,
        matmul: None,
    }
}

/// The fixture's step record of `step` from state `pre` to `post`.
pub fn fixture_step(
    writer: &mut Writer,
    program: u64,
    step: u64,
    pre: Hash32,
    post: Hash32,
) -> Result<StepReceipt> {
    writer.append_step(StepBody {
        step,
        program,
        batch: BatchCommitment {
            rows: 2,
            width: 5,
            window: 2,
            root: Hash32::of(&[step as u8, 2]),
        },
        pre_state: pre,
        update: Hash32::of(&[step as u8, 3]),
        post_state: post,
        overlap: Overlap::Unchecked,
        evidence: None,
        hyperparameters: None,
        nonfinite: None,
    })
}

/// Write a closed transcript with `steps` steps, every sampled check
/// present and passing, and a snapshot every interval.
pub fn write_fixture(dir: &Path, steps: u64, options: WriterOptions) -> Result<CloseBody> {
    let mut writer = Writer::create(dir, root_input(), options)?;
    let program = fixture_program(&mut writer)?;
    let tolerance = writer.root().tolerance;
    let mut state = Hash32::of(b"initial state");
    for step in 0..steps {
        if step % 4 == 0 {
            let snapshot = writer.put_artifact(&step.to_le_bytes(), "npz")?;
            writer.append_snapshot(SnapshotBody {
                step,
                state: Hash32::of(&snapshot.blake3.0),
                params: None,
                artifact: Some(snapshot),
            })?;
        }
        let next = Hash32::of(&[step as u8, 1]);
        let receipt = fixture_step(&mut writer, program, step, state, next)?;
        state = next;
        let c = receipt.challenge;
        if c.state {
            writer.append_check(CheckBody {
                step,
                kind: CheckKind::State,
                indices: vec![],
                committed: vec![0.25, -1.5],
                recomputed: vec![0.25, -1.5],
                tolerance,
                spread: vec![],
                verdict: Verdict::Pass,
                replay_length: step % 4,
                outliers: 0,
                bias: None,
                scale: None,
            })?;
        }
        if c.update {
            writer.append_check(CheckBody {
                step,
                kind: CheckKind::Update,
                indices: c.update_indices(),
                committed: vec![1e-3, 0.5],
                recomputed: vec![1e-3 + 1e-12, 0.5],
                tolerance,
                spread: vec![],
                verdict: Verdict::Pass,
                replay_length: step % 4,
                outliers: 0,
                bias: None,
                scale: None,
            })?;
        }
    }
    writer.close(None)
}

/// Byte ranges of the records of a records file.
pub fn record_spans(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut reader = Reader::new(bytes);
    let mut spans = Vec::new();
    while let Some(raw) = reader.next_raw() {
        let raw = raw.expect("fixture records parse");
        let start = raw.offset as usize;
        spans.push(start..start + raw.bytes.len());
    }
    spans
}

/// Decode every record of a records file.
pub fn payloads(bytes: &[u8]) -> Vec<Payload<Body>> {
    Reader::new(bytes)
        .map(|r| r.expect("fixture records decode").payload)
        .collect()
}

/// Re-encode payloads as an unsigned transcript with a fresh, consistent
/// chain: what a forger who rewrites records and recomputes every hash
/// produces. Only the protocol's semantic rules can catch such a forgery.
pub fn rechain(mut payloads: Vec<Payload<Body>>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = Hash32::ZERO;
    for (seq, payload) in payloads.iter_mut().enumerate() {
        payload.seq = seq as u64;
        payload.prev = prev;
        let mut bytes = Vec::new();
        ciborium::ser::into_writer(payload, &mut bytes).unwrap();
        let envelope = encode_envelope(&bytes, None);
        prev = Hash32::of(&envelope);
        out.extend(envelope);
    }
    out
}
