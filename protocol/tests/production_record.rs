//! A program record may leave its production program to a later production
//! record (a package compiled while training goes on); an `ok` close needs
//! every one of them, and each program takes at most one.

mod common;

use common::*;
use zkdv_protocol::*;

/// A program record without its production program; returns its sequence
/// number.
fn unsealed_program(writer: &mut Writer) -> Result<u64> {
    let attested = writer.put_artifact(b"attested program", "mlir")?;
    let body = program_body(writer, "aoti", attested, None);
    writer.append_program(body)
}

fn production(writer: &mut Writer, program: u64) -> Result<u64> {
    let production = writer.put_artifact(b"sealed package", "pt2")?;
    writer.append_production(ProductionBody {
        program,
        production,
    })
}

/// Steps `0..steps` of `program` from state 0, with every check the
/// challenge samples recorded as passing (the root checks every other step).
fn steps(writer: &mut Writer, program: u64, steps: u64) -> Result<()> {
    let state = |s: u64| Hash32::of(&[s as u8]);
    for step in 0..steps {
        let receipt = fixture_step(writer, program, step, state(step), state(step + 1))?;
        let challenge = receipt.challenge;
        for (kind, sampled) in [
            (CheckKind::State, challenge.state),
            (CheckKind::Update, challenge.update),
        ] {
            if sampled {
                let (indices, values) = match kind {
                    CheckKind::State => (vec![], vec![1.0]),
                    CheckKind::Update => (challenge.update_indices(), vec![1.0, 1.0]),
                };
                writer.append_check(CheckBody {
                    step,
                    kind,
                    indices,
                    committed: values.clone(),
                    recomputed: values,
                    tolerance: writer.root().tolerance,
                    spread: vec![],
                    verdict: Verdict::Pass,
                    replay_length: 0,
                    outliers: 0,
                    bias: None,
                    scale: None,
                })?;
            }
        }
    }
    Ok(())
}

/// A transcript of a program written without its production program and
/// `n` of its steps: the directory, its writer and the program's `seq`.
fn unsealed_session(n: u64) -> Result<(tempfile::TempDir, Writer, u64)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut writer = Writer::create(dir.path(), root_input(), fixed_options(false))?;
    let program = unsealed_program(&mut writer)?;
    steps(&mut writer, program, n)?;
    Ok((dir, writer, program))
}

#[test]
fn a_production_record_after_the_steps_commits_the_program_and_verifies() -> Result<()> {
    let (dir, mut writer, program) = unsealed_session(3)?;
    let seq = production(&mut writer, program)?;
    writer.close(None)?;
    let report = verify_path(dir.path())?;
    assert_eq!(report.steps, 3);
    let inspection = inspect_path(dir.path())?;
    let summary = &inspection.programs[0];
    assert_eq!(summary.production_record, Some(seq));
    assert_eq!(
        summary.program.production.as_ref().map(|a| a.size),
        Some(14)
    );
    Ok(())
}

#[test]
fn an_ok_close_without_the_production_record_is_refused() -> Result<()> {
    let (dir, mut writer, program) = unsealed_session(2)?;
    let refused = writer.close(None).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("none came before the close record"),
        "{refused}"
    );
    // Refused before anything was written: the writer is still usable.
    production(&mut writer, program)?;
    writer.close(None)?;
    verify_path(dir.path())?;
    Ok(())
}

#[test]
fn a_poisoned_close_may_leave_the_production_program_out() -> Result<()> {
    let (dir, mut writer, _) = unsealed_session(1)?;
    writer.close(Some(Failure {
        step: 0,
        kind: CheckKind::State,
        coordinate: None,
        message: "a check failed".into(),
    }))?;
    let error = verify_path(dir.path()).unwrap_err();
    assert!(error.to_string().contains("poisoned"), "{error}");
    Ok(())
}

#[test]
fn a_production_record_must_name_a_program_that_left_its_production_out() -> Result<()> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut writer = Writer::create(dir.path(), root_input(), fixed_options(false))?;
    let sealed = fixture_program(&mut writer)?;
    let already = production(&mut writer, sealed).unwrap_err();
    assert!(
        already.to_string().contains("already committed"),
        "{already}"
    );
    let unsealed = unsealed_program(&mut writer)?;
    let missing = production(&mut writer, unsealed + 1).unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("not an earlier program record"),
        "{missing}"
    );
    production(&mut writer, unsealed)?;
    let twice = production(&mut writer, unsealed).unwrap_err();
    assert!(twice.to_string().contains("already committed"), "{twice}");
    Ok(())
}

#[test]
fn a_production_records_artifact_is_checked() -> Result<()> {
    let (dir, mut writer, program) = unsealed_session(1)?;
    production(&mut writer, program)?;
    writer.close(None)?;
    let package = std::fs::read_dir(dir.path().join("artifacts"))
        .expect("artifacts")
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "pt2"))
        .expect("the package artifact");
    std::fs::write(package.path(), b"another package").expect("write");
    let error = verify_path(dir.path()).unwrap_err();
    assert!(error.to_string().contains("artifact"), "{error}");
    Ok(())
}
