//! A program record's own batch layout: one program per layout when a
//! session's batch changes shape (a partial last batch, bucketed sequence
//! lengths), each step checked against its own program's layout.

mod common;

use std::path::Path;

use common::*;
use zkdv_protocol::*;

fn program(writer: &mut Writer, name: &str, batch: Option<Vec<Leaf>>) -> Result<u64> {
    let art = writer.put_artifact(name.as_bytes(), "mlir")?;
    let tolerance = writer.root().tolerance;
    writer.append_program(ProgramBody {
        name: name.into(),
        format: "stablehlo".into(),
        attested: art.clone(),
        production: Some(art),
        precision: Precision {
            narrowest: Some("f32".into()),
            narrow_results: 0,
        },
        tolerance,
        replay: None,
        batch,
        matmul: None,
    })
}

fn step(step: u64, program: u64, rows: u64, width: u64, pre: Hash32) -> StepBody {
    StepBody {
        step,
        program,
        batch: BatchCommitment {
            rows,
            width,
            window: 2,
            root: Hash32::of(&[step as u8, 2]),
        },
        pre_state: pre,
        update: Hash32::of(&[step as u8, 3]),
        post_state: Hash32::of(&[step as u8, 1]),
        overlap: Overlap::Never,
        evidence: None,
        hyperparameters: None,
        nonfinite: None,
    }
}

/// Append a step and the checks its challenge samples; returns its post-state.
fn append(writer: &mut Writer, body: StepBody) -> Result<Hash32> {
    let post = body.post_state;
    let t = body.step;
    let receipt = writer.append_step(body)?;
    let tolerance = writer.root().tolerance;
    let c = receipt.challenge;
    for (kind, sampled) in [(CheckKind::State, c.state), (CheckKind::Update, c.update)] {
        if !sampled {
            continue;
        }
        let indices = if kind == CheckKind::Update {
            c.update_indices()
        } else {
            vec![]
        };
        writer.append_check(CheckBody {
            step: t,
            kind,
            indices,
            committed: vec![0.5, 1.0],
            recomputed: vec![0.5, 1.0],
            tolerance,
            spread: vec![],
            verdict: Verdict::Pass,
            replay_length: t % 4,
            outliers: 0,
            bias: None,
            scale: None,
        })?;
    }
    Ok(post)
}

/// Steps of 2 x 5 words (the root's layout, program A) and of 1 x 5 words
/// (program B's own layout): a partial last batch, then the next epoch.
fn two_layouts(dir: &Path) -> Result<CloseBody> {
    let mut writer = Writer::create(dir, root_input(), fixed_options(false))?;
    let full = program(&mut writer, "train_step", None)?;
    let mut state = Hash32::of(b"initial state");
    state = append(&mut writer, step(0, full, 2, 5, state))?;
    let partial = program(
        &mut writer,
        "train_step",
        Some(vec![leaf("batch", "u32", &[1, 5])]),
    )?;
    state = append(&mut writer, step(1, partial, 1, 5, state))?;
    state = append(&mut writer, step(2, full, 2, 5, state))?;
    append(&mut writer, step(3, partial, 1, 5, state))?;
    writer.close(None)
}

#[test]
fn a_transcript_with_two_batch_layouts_verifies() {
    let dir = tempfile::tempdir().unwrap();
    two_layouts(dir.path()).unwrap();
    let report = verify_path(dir.path()).unwrap();
    assert_eq!((report.programs, report.steps), (2, 4));
    assert_eq!(report.checks.total(), 4, "{report:?}");
    // Decoded, the first program has no layout of its own, the second has.
    let bytes = std::fs::read(dir.path().join(RECORDS_FILE)).unwrap();
    let layouts: Vec<_> = payloads(&bytes)
        .into_iter()
        .filter_map(|p| match p.body {
            Body::Program(program) => Some(program.batch),
            _ => None,
        })
        .collect();
    assert_eq!(
        layouts,
        vec![None, Some(vec![leaf("batch", "u32", &[1, 5])])]
    );
}

#[test]
fn a_program_without_a_layout_encodes_no_batch_field() {
    // Absent means the root's layout and is not encoded at all, so transcripts
    // written before the field existed (and the test vectors) stay
    // byte-identical.
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), 2, fixed_options(false)).unwrap();
    let bytes = std::fs::read(dir.path().join(RECORDS_FILE)).unwrap();
    let spans = record_spans(&bytes);
    let program = &bytes[spans[1].clone()];
    let needle = b"\x65batch"; // the CBOR text "batch"
    assert!(!program.windows(needle.len()).any(|w| w == needle));
    // The same record with a layout does name it.
    let dir = tempfile::tempdir().unwrap();
    two_layouts(dir.path()).unwrap();
    let bytes = std::fs::read(dir.path().join(RECORDS_FILE)).unwrap();
    let spans = record_spans(&bytes);
    let kinds: Vec<_> = payloads(&bytes).iter().map(|p| p.kind).collect();
    let second = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| **k == Kind::Program)
        .nth(1)
        .unwrap()
        .0;
    let program = &bytes[spans[second].clone()];
    assert!(program.windows(needle.len()).any(|w| w == needle));
}

#[test]
fn a_step_whose_batch_does_not_fit_its_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = Writer::create(dir.path(), root_input(), fixed_options(false)).unwrap();
    let full = program(&mut writer, "train_step", None).unwrap();
    let partial = program(
        &mut writer,
        "train_step",
        Some(vec![leaf("batch", "u32", &[1, 5])]),
    )
    .unwrap();
    let state = Hash32::of(b"initial state");
    // A full batch under the partial batch's program ...
    let err = writer
        .append_step(step(0, partial, 2, 5, state))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("batch of 2x5 words does not match the batch layout [1, 5]"),
        "{err}"
    );
    // ... and a partial batch under the root's layout are refused.
    let err = writer.append_step(step(0, full, 1, 5, state)).unwrap_err();
    assert!(
        err.to_string()
            .contains("[2, 5] of its program (record 1, the root's layout)"),
        "{err}"
    );

    // A forger who moves a step to the other program and rechains is caught
    // by the verifier.
    let dir = tempfile::tempdir().unwrap();
    two_layouts(dir.path()).unwrap();
    let bytes = std::fs::read(dir.path().join(RECORDS_FILE)).unwrap();
    let mut forged = payloads(&bytes);
    let full_seq = forged.iter().position(|p| p.kind == Kind::Program).unwrap() as u64;
    let step1 = forged
        .iter_mut()
        .find_map(|p| match &mut p.body {
            Body::Step(s) if s.step == 1 => Some(s),
            _ => None,
        })
        .unwrap();
    step1.program = full_seq;
    let err = verify_reader(rechain(forged).as_slice(), None).unwrap_err();
    assert!(
        err.to_string().contains("does not match the batch layout"),
        "{err}"
    );
}

#[test]
fn a_program_layout_must_be_a_packed_batch() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = Writer::create(dir.path(), root_input(), fixed_options(false)).unwrap();
    for (layout, why) in [
        (
            vec![leaf("batch", "f32", &[1, 5])],
            "must be a packed rank-2 u32 array",
        ),
        (vec![leaf("batch", "u32", &[5])], "must be a packed rank-2"),
        (
            vec![leaf("batch", "u32", &[4, 1])],
            "rolling window 2 exceeds the packed row width 1",
        ),
        (
            vec![leaf("batch", "u32", &[4, 5]), leaf("batch", "u32", &[4, 5])],
            "repeats leaf path",
        ),
    ] {
        let err = program(&mut writer, "f", Some(layout)).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("program record") && text.contains(why),
            "{text}"
        );
    }
}
