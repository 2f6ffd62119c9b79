//! Any edit of a transcript must make verification fail and name the record.

mod common;

use std::path::Path;

use common::*;
use zkdv_protocol::*;

fn fixture(sign: bool) -> (tempfile::TempDir, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), 6, fixed_options(sign)).unwrap();
    let bytes = std::fs::read(dir.path().join(RECORDS_FILE)).unwrap();
    (dir, bytes)
}

fn verify_bytes(bytes: &[u8]) -> Result<Report> {
    verify_reader(bytes, None)
}

fn record_index_of(spans: &[std::ops::Range<usize>], byte: usize) -> u64 {
    spans.iter().position(|s| s.contains(&byte)).unwrap() as u64
}

#[test]
fn an_observed_verification_reports_its_progress_record_by_record() {
    let (dir, bytes) = fixture(false);
    let mut seen = Vec::new();
    let report =
        verify_path_observed(dir.path(), &mut |done, total| seen.push((done, total))).unwrap();
    assert_eq!(report, verify_path(dir.path()).unwrap());
    assert_eq!(seen.len(), record_spans(&bytes).len());
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(seen.last(), Some(&(bytes.len() as u64, bytes.len() as u64)));
}

#[test]
fn fixture_verifies_signed_and_unsigned() {
    for sign in [false, true] {
        let (dir, bytes) = fixture(sign);
        let report = verify_path(dir.path()).unwrap();
        assert_eq!(report.steps, 6);
        assert_eq!(report.checks.state_passed, 3);
        assert_eq!(report.checks.update_passed, 3);
        assert_eq!(report.snapshots, 2);
        assert_eq!(report.signed, sign);
        assert_eq!(report.artifacts_checked, Some(4));
        assert_eq!(report.bytes, bytes.len() as u64);
        let file_only = verify_path(&dir.path().join(RECORDS_FILE)).unwrap();
        assert_eq!(file_only.artifacts_checked, None);
    }
}

#[test]
fn every_single_byte_flip_is_detected_at_its_record() {
    for sign in [false, true] {
        let (_dir, bytes) = fixture(sign);
        let spans = record_spans(&bytes);
        for i in 0..bytes.len() {
            let masks: &[u8] = if sign { &[0x01] } else { &[0x01, 0x80, 0xff] };
            for &mask in masks {
                let mut edited = bytes.clone();
                edited[i] ^= mask;
                let err = verify_bytes(&edited).expect_err("edit must be detected");
                let at = err
                    .at
                    .unwrap_or_else(|| panic!("byte {i} mask {mask:#x}: unlocated error {err}"));
                assert_eq!(
                    at.index,
                    record_index_of(&spans, i),
                    "byte {i} mask {mask:#x}: {err}"
                );
            }
        }
    }
}

#[test]
fn deleting_any_record_is_detected() {
    let (_dir, bytes) = fixture(true);
    let spans = record_spans(&bytes);
    for (k, span) in spans.iter().enumerate() {
        let mut edited = bytes[..span.start].to_vec();
        edited.extend_from_slice(&bytes[span.end..]);
        let err = verify_bytes(&edited).expect_err("deletion must be detected");
        if k + 1 == spans.len() {
            assert!(matches!(err.problem, Problem::MissingClose { .. }), "{err}");
        } else {
            assert_eq!(err.at.map(|a| a.index), Some(k as u64), "record {k}: {err}");
        }
    }
}

#[test]
fn duplicating_any_record_is_detected() {
    let (_dir, bytes) = fixture(false);
    let spans = record_spans(&bytes);
    for (k, span) in spans.iter().enumerate() {
        let mut edited = bytes[..span.end].to_vec();
        edited.extend_from_slice(&bytes[span.clone()]);
        edited.extend_from_slice(&bytes[span.end..]);
        let err = verify_bytes(&edited).expect_err("duplicate must be detected");
        assert_eq!(
            err.at.map(|a| a.index),
            Some(k as u64 + 1),
            "record {k}: {err}"
        );
    }
}

#[test]
fn swapping_neighbours_is_detected() {
    let (_dir, bytes) = fixture(false);
    let spans = record_spans(&bytes);
    for k in 0..spans.len() - 1 {
        let (a, b) = (spans[k].clone(), spans[k + 1].clone());
        let mut edited = bytes[..a.start].to_vec();
        edited.extend_from_slice(&bytes[b.clone()]);
        edited.extend_from_slice(&bytes[a]);
        edited.extend_from_slice(&bytes[b.end..]);
        let err = verify_bytes(&edited).expect_err("reorder must be detected");
        assert_eq!(err.at.map(|a| a.index), Some(k as u64), "swap {k}: {err}");
    }
}

#[test]
fn every_truncation_is_detected() {
    let (_dir, bytes) = fixture(true);
    let spans = record_spans(&bytes);
    for cut in 0..bytes.len() {
        let err = verify_bytes(&bytes[..cut]).expect_err("truncation must be detected");
        if cut == 0 {
            assert!(matches!(err.problem, Problem::Empty), "{err}");
        } else if spans.iter().any(|s| s.end == cut) {
            assert!(matches!(err.problem, Problem::MissingClose { .. }), "{err}");
        } else {
            assert!(
                matches!(err.problem, Problem::Truncated(_)),
                "cut {cut}: {err}"
            );
            let k = record_index_of(&spans, cut);
            assert_eq!(
                err.at.map(|a| (a.index, a.offset)),
                Some((k, spans[k as usize].start as u64))
            );
        }
    }
}

#[test]
fn records_spliced_from_another_transcript_are_detected() {
    let (_a, ours) = fixture(false);
    let other = tempfile::tempdir().unwrap();
    let mut options = fixed_options(false);
    options.challenge_key = Some(Hash32([0x99; 32]));
    write_fixture(other.path(), 6, options).unwrap();
    let theirs = std::fs::read(other.path().join(RECORDS_FILE)).unwrap();
    let (ours_spans, their_spans) = (record_spans(&ours), record_spans(&theirs));
    for k in 1..ours_spans.len().min(their_spans.len()) {
        if ours[ours_spans[k].clone()] == theirs[their_spans[k].clone()] {
            continue;
        }
        let mut edited = ours[..ours_spans[k].start].to_vec();
        edited.extend_from_slice(&theirs[their_spans[k].clone()]);
        edited.extend_from_slice(&ours[ours_spans[k].end..]);
        let err = verify_bytes(&edited).expect_err("splice must be detected");
        assert_eq!(err.at.map(|a| a.index), Some(k as u64), "record {k}: {err}");
    }
}

#[test]
fn bad_inputs_get_clear_errors() {
    let err = verify_bytes(b"").unwrap_err();
    assert!(matches!(err.problem, Problem::Empty));
    let err = verify_bytes(b"{\"json\": true}").unwrap_err();
    assert!(matches!(err.problem, Problem::Malformed(_)), "{err}");
    assert!(err.to_string().contains("byte offset 0"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let err = verify_path(dir.path()).unwrap_err();
    assert!(matches!(err.problem, Problem::NoRecordsFile(_)), "{err}");
    let err = verify_path(&dir.path().join("missing")).unwrap_err();
    assert!(matches!(err.problem, Problem::Io { .. }), "{err}");

    // A well-formed envelope whose payload claims version 4.
    #[derive(serde::Serialize)]
    struct P {
        v: u64,
        kind: &'static str,
        seq: u64,
        #[serde(with = "serde_bytes_32")]
        prev: [u8; 32],
        body: (),
    }
    mod serde_bytes_32 {
        pub fn serialize<S: serde::Serializer>(v: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }
    let mut payload = Vec::new();
    ciborium::ser::into_writer(
        &P {
            v: 4,
            kind: "root",
            seq: 0,
            prev: [0; 32],
            body: (),
        },
        &mut payload,
    )
    .unwrap();
    let err = verify_bytes(&encode_envelope(&payload, None)).unwrap_err();
    assert!(
        matches!(err.problem, Problem::UnsupportedVersion { found: 4, .. }),
        "{err}"
    );
    // Valid envelope, payload that is not CBOR.
    let err = verify_bytes(&encode_envelope(&[0xff, 0x00], None)).unwrap_err();
    assert!(matches!(err.problem, Problem::Payload(_)), "{err}");
}

#[test]
fn edited_artifacts_are_detected_when_the_directory_is_given() {
    let (dir, _) = fixture(false);
    let artifacts: Vec<_> = std::fs::read_dir(dir.path().join("artifacts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(artifacts.len(), 4);
    let victim = &artifacts[0];
    let mut bytes = std::fs::read(victim).unwrap();
    bytes[0] ^= 1;
    std::fs::write(victim, bytes).unwrap();
    let err = verify_path(dir.path()).unwrap_err();
    assert!(matches!(err.problem, Problem::Artifact { .. }), "{err}");
    assert!(err.at.is_some());
    std::fs::remove_file(victim).unwrap();
    assert!(verify_path(dir.path()).is_err());
    // The records alone still verify.
    verify_path(&dir.path().join(RECORDS_FILE)).unwrap();
}

fn check(step: u64, kind: CheckKind, indices: Vec<u64>, c: f64, r: f64, ok: bool) -> CheckBody {
    let values = indices.len().max(1);
    CheckBody {
        step,
        kind,
        indices,
        committed: vec![c; values],
        recomputed: vec![r; values],
        tolerance: root_input().tolerance,
        spread: vec![],
        verdict: if ok { Verdict::Pass } else { Verdict::Fail },
        replay_length: 0,
        outliers: 0,
        bias: None,
        scale: None,
    }
}

fn start(dir: &Path) -> (Writer, u64) {
    let mut writer = Writer::create(dir, root_input(), fixed_options(false)).unwrap();
    let art = writer.put_artifact(b"p", "mlir").unwrap();
    let program = writer
        .append_program(ProgramBody {
            name: "f".into(),
            format: "stablehlo".into(),
            attested: art.clone(),
            production: Some(art),
            precision: Precision {
                narrowest: Some("f32".into()),
                narrow_results: 0,
            },
            tolerance: root_input().tolerance,
            replay: None,
            batch: None,
            matmul: None,
        })
        .unwrap();
    (writer, program)
}

fn step(step: u64, program: u64, pre: Hash32, post: Hash32) -> StepBody {
    StepBody {
        step,
        program,
        batch: BatchCommitment {
            rows: 2,
            width: 5,
            window: 2,
            root: Hash32::ZERO,
        },
        pre_state: pre,
        update: Hash32::ZERO,
        post_state: post,
        overlap: Overlap::Never,
        evidence: None,
        hyperparameters: None,
        nonfinite: None,
    }
}

#[test]
fn the_writer_refuses_what_an_auditor_would_reject() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, program) = start(dir.path());
    // Wrong step number, unknown program, discontinuous state.
    assert!(writer
        .append_step(step(1, program, Hash32::ZERO, Hash32::ZERO))
        .is_err());
    assert!(writer
        .append_step(step(0, 99, Hash32::ZERO, Hash32::ZERO))
        .is_err());
    writer
        .append_step(step(0, program, Hash32::ZERO, Hash32([1; 32])))
        .unwrap();
    let err = writer
        .append_step(step(1, program, Hash32([2; 32]), Hash32([3; 32])))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("changed outside the attested transition"),
        "{err}"
    );
    // Step 0 is not sampled under Every { n: 2 }: the writer, which knows
    // the key, refuses its check before writing anything.
    let c = writer.challenge(0).unwrap();
    assert!(!c.update);
    let err = writer
        .append_check(check(
            0,
            CheckKind::Update,
            c.update_indices(),
            1.0,
            1.0,
            true,
        ))
        .unwrap_err();
    assert!(
        matches!(err.problem, Problem::UnsampledCheck { step: 0, .. }),
        "{err}"
    );
    writer.close(None).unwrap();
    verify_path(dir.path()).unwrap();
}

#[test]
fn a_missing_sampled_check_fails_the_close() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, program) = start(dir.path());
    writer
        .append_step(step(0, program, Hash32::ZERO, Hash32::ZERO))
        .unwrap();
    let receipt = writer
        .append_step(step(1, program, Hash32::ZERO, Hash32::ZERO))
        .unwrap();
    assert!(receipt.challenge.state && receipt.challenge.update);
    let err = writer.close(None).unwrap_err();
    assert!(
        matches!(err.problem, Problem::MissingCheck { step: 1, .. }),
        "{err}"
    );
    // The error names the step record (root, program, step 0, step 1).
    assert_eq!(err.at.map(|a| a.index), Some(3));
    // Nothing was written: the writer can still add the checks and close.
    let c = receipt.challenge;
    // The wrong indices are refused too.
    assert!(writer
        .append_check(check(1, CheckKind::Update, vec![0, 0, 0], 1.0, 1.0, true))
        .is_err());
    writer
        .append_check(check(
            1,
            CheckKind::Update,
            c.update_indices(),
            1.0,
            1.0,
            true,
        ))
        .unwrap();
    writer
        .append_check(check(1, CheckKind::State, vec![], 1.0, 1.0, true))
        .unwrap();
    writer.close(None).unwrap();
    assert_eq!(verify_path(dir.path()).unwrap().checks.total(), 2);
}

/// Forgeries that keep the hash chain consistent (every hash recomputed) are
/// caught by the protocol's semantic rules.
#[test]
fn rechained_forgeries_are_caught_by_the_rules() {
    let (_dir, bytes) = fixture(false);
    let original = payloads(&bytes);
    verify_bytes(&rechain(original.clone())).expect("rechaining alone changes nothing");
    let position = |kind: Kind, nth: usize| {
        original
            .iter()
            .enumerate()
            .filter(|(_, p)| p.kind == kind)
            .nth(nth)
            .unwrap()
            .0
    };
    let forge = |edit: &dyn Fn(&mut Vec<Payload<Body>>)| {
        let mut p = original.clone();
        edit(&mut p);
        verify_bytes(&rechain(p)).expect_err("forgery must be detected")
    };

    // A sampled check removed: reported at its step record.
    let first_check = position(Kind::Check, 0);
    let err = forge(&|p| {
        p.remove(first_check);
    });
    assert!(
        matches!(err.problem, Problem::MissingCheck { step: 1, .. }),
        "{err}"
    );
    assert_eq!(err.at.map(|a| a.index), Some(first_check as u64 - 1));

    // A check added for a step that was not sampled (step 0 under n = 2).
    let err = forge(&|p| {
        let mut extra = p[first_check].clone();
        if let Body::Check(c) = &mut extra.body {
            c.step = 0;
            c.kind = CheckKind::State;
            c.indices.clear();
        }
        p.insert(first_check, extra);
    });
    assert!(
        matches!(err.problem, Problem::UnsampledCheck { step: 0, .. }),
        "{err}"
    );

    // Update check indices that differ from the challenge.
    let update = position(Kind::Check, 1);
    let err = forge(&|p| {
        if let Body::Check(c) = &mut p[update].body {
            assert_eq!(c.kind, CheckKind::Update);
            c.indices[0] = (c.indices[0] + 1) % 20;
        }
    });
    assert!(
        err.to_string().contains("the challenge derivation gives"),
        "{err}"
    );

    // A failing value relabelled as a pass.
    let err = forge(&|p| {
        if let Body::Check(c) = &mut p[update].body {
            c.recomputed[0] += 1.0;
        }
    });
    assert!(
        err.to_string().contains("contradicts the recorded values"),
        "{err}"
    );

    // Another challenge key revealed at close.
    let close = original.len() - 1;
    let err = forge(&|p| {
        if let Body::Close(c) = &mut p[close].body {
            c.challenge_key = Hash32([0x99; 32]);
        }
    });
    assert!(matches!(err.problem, Problem::KeyMismatch), "{err}");

    // A step whose pre-state is not the previous post-state.
    let second_step = position(Kind::Step, 1);
    let err = forge(&|p| {
        if let Body::Step(s) = &mut p[second_step].body {
            s.pre_state = Hash32([7; 32]);
        }
    });
    assert!(
        err.to_string()
            .contains("changed outside the attested transition"),
        "{err}"
    );
    assert_eq!(err.at.map(|a| a.index), Some(second_step as u64));

    // A step removed (and later ones renumbered by the forger).
    let err = forge(&|p| {
        p.remove(second_step);
    });
    assert!(err.at.is_some(), "{err}");

    // The close record's step count or final state.
    let err = forge(&|p| {
        if let Body::Close(c) = &mut p[close].body {
            c.steps += 1;
        }
    });
    assert!(err.to_string().contains("counts 7 steps"), "{err}");
    let err = forge(&|p| {
        p.pop();
    });
    assert!(matches!(err.problem, Problem::MissingClose { .. }), "{err}");
}

#[test]
fn a_failed_check_poisons_and_fails_verification() {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, program) = start(dir.path());
    writer
        .append_step(step(0, program, Hash32::ZERO, Hash32::ZERO))
        .unwrap();
    let c = writer
        .append_step(step(1, program, Hash32::ZERO, Hash32::ZERO))
        .unwrap()
        .challenge;
    // A verdict that contradicts the values is refused.
    assert!(writer
        .append_check(check(
            1,
            CheckKind::Update,
            c.update_indices(),
            1.0,
            2.0,
            true
        ))
        .is_err());
    let seq = writer
        .append_check(check(
            1,
            CheckKind::Update,
            c.update_indices(),
            1.0,
            2.0,
            false,
        ))
        .unwrap();
    // Closing as ok after a failure is refused; poisoned is accepted.
    let failure = Failure {
        step: 1,
        kind: CheckKind::Update,
        coordinate: Some(c.parameter_index),
        message: "delta differs".into(),
    };
    writer.close(Some(failure)).unwrap();
    let err = verify_path(dir.path()).unwrap_err();
    assert!(
        matches!(err.problem, Problem::CheckFailed { step: 1, .. }),
        "{err}"
    );
    assert_eq!(err.at.map(|a| a.index), Some(seq));
    let summary = inspect_path(dir.path()).unwrap();
    assert_eq!(summary.status, Some(Status::Poisoned));
    assert_eq!(summary.checks.update_failed, 1);
    assert!(summary.verification_error.is_some());
}

#[test]
fn an_existing_transcript_is_never_overwritten() {
    let (dir, bytes) = fixture(false);
    let err = Writer::create(dir.path(), root_input(), WriterOptions::default())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("already holds a transcript"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.path().join(RECORDS_FILE)).unwrap(), bytes);
}

#[test]
fn invalid_roots_are_refused_without_leaving_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut root = root_input();
    root.rolling_window = 6; // wider than the 5-word rows
    let err = Writer::create(dir.path(), root, WriterOptions::default())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("exceeds the packed row width"),
        "{err}"
    );
    assert!(!dir.path().join(RECORDS_FILE).exists());
}

#[test]
fn programs_and_checks_follow_the_tolerance_policy() {
    let dir = tempfile::tempdir().unwrap();
    let mut root = root_input();
    root.tolerance_policy = TolerancePolicy::Program;
    let base = root.tolerance;
    let mut writer = Writer::create(dir.path(), root, fixed_options(false)).unwrap();
    let art = writer.put_artifact(b"p", "mlir").unwrap();
    let bf16 = Precision {
        narrowest: Some("bf16".into()),
        narrow_results: 7,
    };
    let program = |tolerance| ProgramBody {
        name: "f".into(),
        format: "stablehlo".into(),
        attested: art.clone(),
        production: Some(art.clone()),
        precision: bf16.clone(),
        tolerance,
        replay: None,
        batch: None,
        matmul: None,
    };
    // A program under the program policy must carry the ensemble.
    let err = writer.append_program(program(base)).unwrap_err();
    assert!(err.to_string().contains("tolerance policy"), "{err}");
    let ensemble = base.for_program(TolerancePolicy::Program, &bf16);
    assert_eq!(
        (ensemble.spread, ensemble.replays),
        (ENSEMBLE_SPREAD, ENSEMBLE_REPLAYS)
    );
    assert_eq!(base.for_program(TolerancePolicy::Fixed, &bf16), base);
    let seq = writer.append_program(program(ensemble)).unwrap();
    writer
        .append_step(step(0, seq, Hash32::ZERO, Hash32::ZERO))
        .unwrap();
    writer
        .append_step(step(1, seq, Hash32::ZERO, Hash32::ZERO))
        .unwrap();
    let c = writer.challenge(1).unwrap();
    assert!(c.update && c.state);
    let update = |committed: f64, spread: Vec<f64>, ok: bool| CheckBody {
        step: 1,
        kind: CheckKind::Update,
        indices: c.update_indices(),
        committed: vec![committed, 0.5],
        recomputed: vec![1.0, 0.5],
        tolerance: ensemble,
        spread,
        verdict: if ok { Verdict::Pass } else { Verdict::Fail },
        replay_length: 1,
        outliers: 0,
        bias: None,
        scale: None,
    };
    // An update check under the ensemble records one spread per value or
    // none (it passed without measuring) ...
    let err = writer
        .append_check(update(1.0, vec![0.0], true))
        .unwrap_err();
    assert!(err.to_string().contains("spread values"), "{err}");
    let err = writer
        .append_check(update(1.0, vec![f64::NAN, 0.0], true))
        .unwrap_err();
    assert!(err.to_string().contains("finite"), "{err}");
    // ... and the verdict counts it: 0.01 apart passes with spread 1e-3
    // (32 * 1e-3 > 0.01), so a "fail" there contradicts the values.
    let err = writer
        .append_check(update(1.01, vec![1e-3, 0.0], false))
        .unwrap_err();
    assert!(err.to_string().contains("contradicts"), "{err}");
    // Without a measured spread the same values fail.
    let err = writer.append_check(update(1.01, vec![], true)).unwrap_err();
    assert!(err.to_string().contains("contradicts"), "{err}");
    writer
        .append_check(update(1.01, vec![1e-3, 0.0], true))
        .unwrap();
    // A state check under the ensemble may record its compared value's
    // spread too (a replay by another program than production's, as the
    // PyTorch frontend's, is within rounding only); another tolerance is
    // refused, and so is a spread per value it does not compare.
    let mut state = check(1, CheckKind::State, vec![], 1.0, 1.0, true);
    let err = writer.append_check(state.clone()).unwrap_err();
    assert!(err.to_string().contains("program"), "{err}");
    state.tolerance = ensemble;
    state.spread = vec![0.0, 0.0];
    assert!(writer.append_check(state.clone()).is_err());
    state.spread = vec![0.0];
    writer.append_check(state).unwrap();
    writer.close(None).unwrap();
    verify_path(dir.path()).unwrap();
}

#[test]
fn a_rank_is_recorded_inspected_and_must_be_in_its_group() {
    // One rank of a data-parallel group names its place; the root of a single process
    // encodes no rank at all (the test vectors stay byte-identical).
    let dir = tempfile::tempdir().unwrap();
    let mut root = root_input();
    root.rank = Some(Rank {
        rank: 1,
        world_size: 2,
        backend: "gloo".into(),
    });
    let mut writer = Writer::create(dir.path(), root.clone(), fixed_options(false)).unwrap();
    writer.close(None).unwrap();
    let inspection = inspect_path(dir.path()).unwrap();
    assert_eq!(inspection.rank, root.rank);
    verify_path(dir.path()).unwrap();

    let dir = tempfile::tempdir().unwrap();
    root.rank = Some(Rank {
        rank: 2,
        world_size: 2,
        backend: "gloo".into(),
    });
    let err = Writer::create(dir.path(), root, fixed_options(false))
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("rank 2 is not in a group of 2"),
        "{err}"
    );
}

#[test]
fn a_program_record_may_say_its_products_were_tensorfloat32_and_nothing_else() {
    // `matmul` names how production multiplied f32 (an NVIDIA GPU's TensorFloat-32), which an
    // auditor's ensemble then models; absent, it is not encoded at all.
    let dir = tempfile::tempdir().unwrap();
    let mut writer = Writer::create(dir.path(), root_input(), fixed_options(false)).unwrap();
    let art = writer.put_artifact(b"p", "mlir").unwrap();
    let program = |matmul: Option<&str>| ProgramBody {
        name: "f".into(),
        format: "stablehlo".into(),
        attested: art.clone(),
        production: Some(art.clone()),
        precision: Precision {
            narrowest: Some("f32".into()),
            narrow_results: 0,
        },
        tolerance: Tolerance::fixed(1e-6, 1e-5),
        replay: None,
        batch: None,
        matmul: matmul.map(str::to_owned),
    };
    let err = writer.append_program(program(Some("bf16"))).unwrap_err();
    assert!(err.to_string().contains("matmul"), "{err}");
    let seq = writer.append_program(program(Some(MATMUL_TF32))).unwrap();
    writer.close(None).unwrap();
    let records: Vec<Record> = Reader::open(dir.path())
        .unwrap()
        .collect::<Result<_>>()
        .unwrap();
    let Body::Program(read) = records[seq as usize].body() else {
        panic!("record {seq} is not a program record");
    };
    assert_eq!(read.matmul.as_deref(), Some(MATMUL_TF32));
}
